/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "child-process-pool.h"

#include "ns3/test.h"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

/**
 * @file
 * @ingroup wan-training-tests
 * ChildProcessPool: exit statuses (/bin/true, /bin/false, a function's return value), a child
 * killed by a signal, a program that cannot start, captured output, and more jobs than slots
 * (results in the order of the jobs, never more running than the slots).
 */

using namespace ns3;

namespace
{

/** @return a fresh directory for the test's files */
std::filesystem::path
MakeDirectory()
{
    std::string pattern =
        (std::filesystem::temp_directory_path() / "child-process-pool-test.XXXXXX").string();
    const char* made = mkdtemp(pattern.data());
    return made == nullptr ? std::filesystem::path() : std::filesystem::path(made);
}

/**
 * @param file a file
 * @return its content
 */
std::string
ReadText(const std::filesystem::path& file)
{
    std::ifstream in(file);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

} // namespace

/** How single jobs end: exit status, signal, start failure, output. */
class ChildProcessPoolStatusTestCase : public TestCase
{
  public:
    ChildProcessPoolStatusTestCase()
        : TestCase("exit status, signal, start failure and captured output of single jobs")
    {
    }

  private:
    void DoRun() override
    {
        const std::filesystem::path dir = MakeDirectory();
        NS_TEST_ASSERT_MSG_EQ(dir.empty(), false, "no temporary directory");
        std::vector<ChildProcessPool::Job> jobs(7);
        jobs[0].command = {"/bin/true"};
        jobs[1].command = {"/bin/false"};
        jobs[2].command = {"/bin/sh", "-c", "kill -9 $$"};
        jobs[3].command = {(dir / "no-such-program").string()};
        jobs[4].command = {"echo", "out", "put"}; // searched on the PATH
        jobs[4].outputFile = (dir / "echo.log").string();
        jobs[5].function = []() { return 3; };
        jobs[6].function = []() {
            std::raise(SIGTERM);
            return 0;
        };
        // A log file of an earlier run is truncated, not appended to.
        std::ofstream((dir / "echo.log").string()) << "a much longer earlier content\n";

        ChildProcessPool pool(1);
        std::vector<std::size_t> finished;
        pool.SetFinishedCallback([&finished](std::size_t index, const ChildProcessPool::Result&) {
            finished.push_back(index);
        });
        const std::vector<ChildProcessPool::Result> results = pool.Run(jobs);
        NS_TEST_ASSERT_MSG_EQ(results.size(), jobs.size(), "one result per job");
        // One slot: the jobs end in the order given.
        NS_TEST_ASSERT_MSG_EQ(finished.size(), jobs.size(), "one callback per job");
        for (std::size_t k = 0; k < jobs.size(); ++k)
        {
            NS_TEST_EXPECT_MSG_EQ(finished[k], k, "one slot runs the jobs in order");
            NS_TEST_EXPECT_MSG_EQ(results[k].order, k + 1, "end order of job " << k);
        }

        NS_TEST_EXPECT_MSG_EQ(results[0].Succeeded(), true, "/bin/true succeeds");
        NS_TEST_EXPECT_MSG_EQ(results[0].Describe(), "exit status 0", "/bin/true");
        NS_TEST_EXPECT_MSG_EQ(results[1].Succeeded(), false, "/bin/false fails");
        NS_TEST_EXPECT_MSG_EQ(results[1].exited, true, "/bin/false exits");
        NS_TEST_EXPECT_MSG_EQ(results[1].exitStatus, 1, "/bin/false exits with 1");
        NS_TEST_EXPECT_MSG_EQ(results[1].Describe(), "exit status 1", "/bin/false");
        NS_TEST_EXPECT_MSG_EQ(results[2].started, true, "the shell started");
        NS_TEST_EXPECT_MSG_EQ(results[2].exited, false, "the shell was killed");
        NS_TEST_EXPECT_MSG_EQ(results[2].signal, SIGKILL, "by SIGKILL");
        NS_TEST_EXPECT_MSG_EQ(results[2].Describe(),
                              "killed by signal 9 (" + std::string(strsignal(SIGKILL)) + ")",
                              "the shell's description");
        NS_TEST_EXPECT_MSG_EQ(results[3].started, false, "a missing program does not start");
        NS_TEST_EXPECT_MSG_EQ(results[3].startError, ENOENT, "ENOENT");
        NS_TEST_EXPECT_MSG_EQ(results[4].Succeeded(), true, "echo succeeds");
        NS_TEST_EXPECT_MSG_EQ(ReadText(dir / "echo.log"), "out put\n", "echo's captured output");
        NS_TEST_EXPECT_MSG_EQ(results[5].exitStatus, 3, "the function's return value");
        NS_TEST_EXPECT_MSG_EQ(results[6].exited, false, "the function raised SIGTERM");
        NS_TEST_EXPECT_MSG_EQ(results[6].signal, SIGTERM, "SIGTERM");
        std::filesystem::remove_all(dir);
    }
};

/** More jobs than slots: never more running than the slots, results in job order. */
class ChildProcessPoolSlotsTestCase : public TestCase
{
  public:
    ChildProcessPoolSlotsTestCase()
        : TestCase("more jobs than slots: at most the slots at once, results in the jobs' order")
    {
    }

  private:
    void DoRun() override
    {
        const std::filesystem::path dir = MakeDirectory();
        NS_TEST_ASSERT_MSG_EQ(dir.empty(), false, "no temporary directory");
        // Each job counts the jobs running beside it: a marker file per running job.
        const uint32_t slots = 2;
        const uint32_t count = 7;
        std::vector<ChildProcessPool::Job> jobs(count);
        for (uint32_t k = 0; k < count; ++k)
        {
            const std::string marker = (dir / ("running-" + std::to_string(k))).string();
            const std::string seen = (dir / ("seen-" + std::to_string(k))).string();
            // Later jobs are shorter, so that they end before earlier ones.
            const std::string sleep = k % 2 ? "0.05" : "0.2";
            jobs[k].name = "job-" + std::to_string(k);
            jobs[k].command = {"/bin/sh",
                               "-c",
                               "touch " + marker + "; ls " + dir.string() +
                                   " | grep -c running- > " + seen + "; sleep " + sleep + "; rm " +
                                   marker + "; exit " + std::to_string(k)};
        }
        ChildProcessPool pool(slots);
        std::vector<std::size_t> finished;
        pool.SetFinishedCallback([&finished](std::size_t index, const ChildProcessPool::Result&) {
            finished.push_back(index);
        });
        const std::vector<ChildProcessPool::Result> results = pool.Run(jobs);
        NS_TEST_ASSERT_MSG_EQ(results.size(), count, "one result per job");
        NS_TEST_ASSERT_MSG_EQ(finished.size(), count, "one callback per job");
        std::vector<bool> ordered(count + 1, false);
        for (uint32_t k = 0; k < count; ++k)
        {
            NS_TEST_EXPECT_MSG_EQ(results[k].exited, true, "job " << k << " exited");
            NS_TEST_EXPECT_MSG_EQ(results[k].exitStatus,
                                  static_cast<int>(k),
                                  "job " << k << "'s result is in its place");
            const int running = std::atoi(ReadText(dir / ("seen-" + std::to_string(k))).c_str());
            NS_TEST_EXPECT_MSG_GT(running, 0, "job " << k << " saw itself");
            NS_TEST_EXPECT_MSG_LT_OR_EQ(running,
                                        static_cast<int>(slots),
                                        "job " << k << " ran beside at most one other");
            NS_TEST_EXPECT_MSG_EQ(results[finished[k]].order, k + 1, "the callback order");
            ordered[results[k].order] = true;
        }
        for (uint32_t k = 1; k <= count; ++k)
        {
            NS_TEST_EXPECT_MSG_EQ(ordered[k], true, "some job ended " << k << "th");
        }
        // Job 1 (short) started beside job 0 (long) and ended first.
        NS_TEST_EXPECT_MSG_EQ(finished.front(), 1, "the shorter job 1 ends first");
        std::filesystem::remove_all(dir);
    }
};

/** The ChildProcessPool suite: single jobs, then more jobs than slots. */
class ChildProcessPoolTestSuite : public TestSuite
{
  public:
    ChildProcessPoolTestSuite()
        : TestSuite("wan-training-child-process-pool", UNIT)
    {
        AddTestCase(new ChildProcessPoolStatusTestCase(), TestCase::QUICK);
        AddTestCase(new ChildProcessPoolSlotsTestCase(), TestCase::QUICK);
    }
};

/** The suite's static instance. */
static ChildProcessPoolTestSuite g_childProcessPoolTestSuite;
