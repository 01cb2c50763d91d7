/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "child-process-pool.h"

#include "ns3/abort.h"
#include "ns3/log.h"

#include <boost/process/args.hpp>
#include <boost/process/child.hpp>
#include <boost/process/exe.hpp>
#include <boost/process/extend.hpp>
#include <boost/process/io.hpp>
#include <boost/process/search_path.hpp>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <exception>
#include <fcntl.h>
#include <iostream>
#include <map>
#include <sys/resource.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("WanTrainingChildProcessPool");

namespace bp = boost::process;

bool
ChildProcessPool::Result::Succeeded() const
{
    return started && exited && exitStatus == 0;
}

std::string
ChildProcessPool::Result::Describe() const
{
    if (!started)
    {
        return std::string("not started: ") + std::strerror(startError);
    }
    if (exited)
    {
        return "exit status " + std::to_string(exitStatus);
    }
    return "killed by signal " + std::to_string(signal) + " (" + strsignal(signal) + ")";
}

ChildProcessPool::ChildProcessPool(uint32_t slots)
    : m_slots(slots)
{
    NS_ABORT_MSG_IF(slots == 0, "ChildProcessPool needs at least one slot");
}

void
ChildProcessPool::SetFinishedCallback(FinishedCallback callback)
{
    m_finished = std::move(callback);
}

int
ChildProcessPool::Start(const Job& job, Result& result) const
{
    NS_LOG_FUNCTION(this << job.name);
    std::cout << std::flush;
    std::cerr << std::flush;
    if (job.command.empty())
    {
        pid_t pid = fork();
        if (pid < 0)
        {
            result.startError = errno;
            return -1;
        }
        if (pid == 0)
        {
            int status = 1;
            try
            {
                status = job.function();
            }
            catch (const std::exception& error)
            {
                std::cerr << error.what() << std::endl;
            }
            std::cout << std::flush;
            std::cerr << std::flush;
            _exit(status);
        }
        result.started = true;
        return pid;
    }

    const std::string& program = job.command.front();
    const boost::filesystem::path exe =
        program.find('/') == std::string::npos ? bp::search_path(program) : program;
    if (exe.empty())
    {
        result.startError = ENOENT;
        return -1;
    }
    const std::vector<std::string> args(job.command.begin() + 1, job.command.end());
    std::error_code error;
    // A child whose exec failed has exited: reap it.
    auto reap = bp::extend::on_error = [](auto& executor, const std::error_code&) {
        if (executor.pid > 0)
        {
            waitpid(executor.pid, nullptr, 0);
        }
    };
    bp::child child;
    if (job.outputFile.empty())
    {
        child = bp::child(bp::exe = exe, bp::args = args, reap, error);
    }
    else
    {
        int fd = open(job.outputFile.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        FILE* output = fd < 0 ? nullptr : fdopen(fd, "w");
        if (output == nullptr)
        {
            result.startError = errno;
            if (fd >= 0)
            {
                close(fd);
            }
            return -1;
        }
        child = bp::child(bp::exe = exe,
                          bp::args = args,
                          bp::std_in<bp::null, (bp::std_out & bp::std_err)> output,
                          reap,
                          error);
        fclose(output);
    }
    if (error || !child.valid())
    {
        result.startError = error ? error.value() : ECHILD;
        return -1;
    }
    // The pool waits for the process itself (wait4, for the resource usage).
    child.detach();
    result.started = true;
    return child.id();
}

std::vector<ChildProcessPool::Result>
ChildProcessPool::Run(const std::vector<Job>& jobs)
{
    NS_LOG_FUNCTION(this << jobs.size());
    using Clock = std::chrono::steady_clock;
    std::vector<Result> results(jobs.size());
    std::map<pid_t, std::pair<std::size_t, Clock::time_point>> running;
    std::size_t next = 0;
    std::size_t ended = 0;
    auto finish = [&](std::size_t index) {
        results[index].order = ++ended;
        if (m_finished)
        {
            m_finished(index, results[index]);
        }
    };
    while (ended < jobs.size())
    {
        while (next < jobs.size() && running.size() < m_slots)
        {
            const Clock::time_point start = Clock::now();
            pid_t pid = Start(jobs[next], results[next]);
            if (pid < 0)
            {
                finish(next);
            }
            else
            {
                running[pid] = {next, start};
            }
            ++next;
        }
        if (running.empty())
        {
            continue;
        }
        // Wait until some child has ended, without reaping it: only our own are reaped.
        siginfo_t info{};
        if (waitid(P_ALL, 0, &info, WEXITED | WNOWAIT) != 0)
        {
            NS_ABORT_MSG_IF(errno != EINTR, "waitid failed: " << std::strerror(errno));
            continue;
        }
        pid_t ready = info.si_pid;
        if (running.find(ready) == running.end())
        {
            // Another part of the program's child: find one of ours without blocking.
            ready = 0;
            for (const auto& entry : running)
            {
                siginfo_t own{};
                if (waitid(P_PID, entry.first, &own, WEXITED | WNOWAIT | WNOHANG) == 0 &&
                    own.si_pid == entry.first)
                {
                    ready = entry.first;
                    break;
                }
            }
            if (ready == 0)
            {
                std::this_thread::sleep_for(std::chrono::milliseconds(10));
                continue;
            }
        }
        int status = 0;

        struct rusage usage
        {
        };

        if (wait4(ready, &status, 0, &usage) != ready)
        {
            continue;
        }
        auto entry = running.find(ready);
        const std::size_t index = entry->second.first;
        Result& result = results[index];
        result.wallS = std::chrono::duration<double>(Clock::now() - entry->second.second).count();
        result.exited = WIFEXITED(status);
        result.exitStatus = result.exited ? WEXITSTATUS(status) : -1;
        result.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
        result.cpuS = usage.ru_utime.tv_sec + usage.ru_utime.tv_usec * 1e-6 +
                      usage.ru_stime.tv_sec + usage.ru_stime.tv_usec * 1e-6;
        result.peakRssMb = usage.ru_maxrss / 1024.0;
        running.erase(entry);
        finish(index);
    }
    return results;
}

} // namespace ns3
