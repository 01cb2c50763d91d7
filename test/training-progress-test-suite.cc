/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "clique-schedule.h"
#include "exchange-planner.h"
#include "island-sync-header.h"
#include "training-island-application.h"
#include "training-progress.h"
#include "training-run.h"
#include "wan-topology.h"

#include "ns3/test.h"

#include <cmath>
#include <cstdint>
#include <map>
#include <sstream>
#include <string>
#include <vector>

/**
 * @file
 * @ingroup wan-training-tests
 * TrainingProgress: the estimate's closed form, the planned bytes of a round against the
 * closed forms of the modes, and a tiny run whose percents follow the bytes received, never go
 * back, and reach 100 % when a round has ended on every island, with an injected wall clock.
 */

using namespace ns3;

namespace
{

/** Three cities aaa-bbb-ccc in a line, MTU 1500, no multicast or aggregation capability. */
const std::string TINY = "data/tiny-valid.json";

/** Model bytes of the tiny runs. */
constexpr uint64_t MODEL_BYTES = 40000;

/**
 * @return rounds that idle one island, then another, then none: {aaa bbb} {ccc};
 *         {bbb ccc} {aaa}; {aaa bbb ccc}
 */
CliqueSchedule
TinySchedule()
{
    return CliqueSchedule(3, {{{0, 1}, {2}}, {{1, 2}, {0}}, {{0, 1, 2}}});
}

/**
 * @param mode the mode forced on every clique
 * @return a small, fast configuration for the tiny topology: four rounds
 */
TrainingRun::Config
TinyConfig(CapabilityMode mode)
{
    TrainingRun::Config config;
    config.mode = mode;
    config.rounds = 4;
    config.modelBytes = MODEL_BYTES;
    config.parameterCount = 256;
    config.localSteps = 2;
    config.stepTime = MilliSeconds(1);
    return config;
}

/**
 * @param topology the topology
 * @param config a configuration
 * @return the planned bytes of its run (TrainingProgress::GetPlannedBytes)
 */
std::vector<std::vector<uint64_t>>
Planned(const WanTopology& topology, const TrainingRun::Config& config)
{
    ExchangePlanner::Config planning;
    planning.mode = config.mode;
    planning.modelBytes = config.modelBytes;
    planning.parameterCount = config.parameterCount;
    return TrainingProgress::GetPlannedBytes(ExchangePlanner(topology, TinySchedule(), planning),
                                             TinySchedule(),
                                             config.rounds);
}

} // namespace

/**
 * @ingroup wan-training-tests
 * @brief EstimateRemainingS is elapsed x (1 - f) / f, none at f = 0, 0 at f = 1.
 */
class TrainingProgressEstimateTestCase : public TestCase
{
  public:
    TrainingProgressEstimateTestCase()
        : TestCase("the expected time left: elapsed x (1 - f) over f")
    {
    }

  private:
    void DoRun() override
    {
        NS_TEST_EXPECT_MSG_EQ(TrainingProgress::EstimateRemainingS(10, 0).has_value(),
                              false,
                              "nothing done: unknown");
        NS_TEST_EXPECT_MSG_EQ_TOL(*TrainingProgress::EstimateRemainingS(10, 0.25),
                                  30.0,
                                  1e-12,
                                  "a quarter in 10 s: 30 s left");
        NS_TEST_EXPECT_MSG_EQ_TOL(*TrainingProgress::EstimateRemainingS(6, 0.75),
                                  2.0,
                                  1e-12,
                                  "three quarters in 6 s: 2 s left");
        NS_TEST_EXPECT_MSG_EQ_TOL(*TrainingProgress::EstimateRemainingS(42, 1),
                                  0.0,
                                  1e-12,
                                  "all done: nothing left");
        // A synthetic feed at a constant rate of 2 % per second: the finish is always at 50 s.
        for (double t = 1; t < 50; t += 7)
        {
            NS_TEST_EXPECT_MSG_EQ_TOL(t + *TrainingProgress::EstimateRemainingS(t, 0.02 * t),
                                      50.0,
                                      1e-9,
                                      "at " << t << " s");
        }
    }
};

/**
 * @ingroup wan-training-tests
 * @brief The planned bytes of a round: k (k - 1) S for a star clique of k, 2 (k - 1) S for a
 * ring of k; nothing for an idle island.
 */
class TrainingProgressPlannedTestCase : public TestCase
{
  public:
    TrainingProgressPlannedTestCase()
        : TestCase("planned bytes: k(k-1)S per star clique, 2(k-1)S per ring")
    {
    }

  private:
    void DoRun() override
    {
        const WanTopology tiny = WanTopology::LoadFile(CreateDataDirFilename(TINY));
        const uint64_t s = MODEL_BYTES;
        // Rounds {aaa bbb} {ccc}; {bbb ccc} {aaa}; {aaa bbb ccc}; again the first.
        const std::vector<uint32_t> k{2, 2, 3, 2};
        for (CapabilityMode mode : {CapabilityMode::UNICAST, CapabilityMode::RING})
        {
            const std::vector<std::vector<uint64_t>> planned = Planned(tiny, TinyConfig(mode));
            NS_TEST_ASSERT_MSG_EQ(planned.size(), 4u, "a row per round");
            for (uint32_t r = 0; r < 4; ++r)
            {
                uint64_t sum = 0;
                for (uint64_t bytes : planned[r])
                {
                    sum += bytes;
                }
                const uint64_t expected =
                    mode == CapabilityMode::RING ? 2 * (k[r] - 1) * s : k[r] * (k[r] - 1) * s;
                NS_TEST_EXPECT_MSG_EQ(sum,
                                      expected,
                                      CapabilityModeToString(mode) << " round " << r);
            }
            NS_TEST_EXPECT_MSG_EQ(planned[0][2], 0u, "ccc idles in round 0");
            NS_TEST_EXPECT_MSG_EQ(planned[1][0], 0u, "aaa idles in round 1");
        }
    }
};

/**
 * @ingroup wan-training-tests
 * @brief A tiny run (unicast, then ring) with a reporter on an injected clock (one second per
 * reading, a line per check): at every chunk received the percent of each round is 100 x the
 * first-arrival model bytes of the round received before it (ChunkReceived, counted here) over
 * the planned bytes, no percent goes back, each round is at 100 % once it ended on every
 * island, and the last line says every round ended at 100 %.
 */
class TrainingProgressRunTestCase : public TestCase
{
  public:
    TrainingProgressRunTestCase()
        : TestCase("a tiny run: percents follow the bytes, monotone, 100 % at the end")
    {
    }

  private:
    /** What the test observes of a run. */
    struct Observed
    {
        TrainingProgress* progress{nullptr}; //!< the reporter
        std::vector<uint64_t> planned;       //!< planned bytes by round
        std::vector<uint64_t> received;      //!< first-arrival bytes by round
        std::vector<double> last;            //!< the last percent seen, by round
        std::map<uint32_t, uint32_t> ended;  //!< islands that ended, by round
        uint32_t chunks{0};                  //!< chunks checked
        uint32_t backwards{0};               //!< percents that went back
        uint32_t mismatches{0};              //!< percents off the count
        uint32_t notFull{0};                 //!< ended rounds below 100 %
        uint32_t islands{0};                 //!< islands of the run
    };

    /**
     * @brief ChunkReceived sink: count, update, compare.
     * @param observed the observations
     * @param header the chunk's header
     * @param modelBytes its model bytes
     * @param duplicate whether it added nothing
     */
    static void OnChunk(Observed* observed,
                        uint32_t /* island */,
                        const IslandSyncHeader& header,
                        uint32_t modelBytes,
                        bool duplicate)
    {
        // The trace fires before the streams take the chunk: it counts from the next one on.
        observed->progress->Update();
        ++observed->chunks;
        for (uint32_t r = 0; r < observed->planned.size(); ++r)
        {
            const double percent = observed->progress->GetRoundPercent(r);
            observed->backwards += percent < observed->last[r] ? 1 : 0;
            observed->last[r] = percent;
            const double expected = 100.0 * observed->received[r] / observed->planned[r];
            observed->mismatches += std::abs(percent - expected) > 1e-9 ? 1 : 0;
        }
        if (!duplicate)
        {
            observed->received[header.GetRound()] += modelBytes;
        }
    }

    /**
     * @brief RoundFinished sink: once every island ended the round, it is at 100 %.
     * @param observed the observations
     * @param round the round
     */
    static void OnRoundFinished(Observed* observed,
                                uint32_t /* island */,
                                uint32_t round,
                                uint32_t /* clique */,
                                const std::vector<float>& /* parameters */)
    {
        if (++observed->ended[round] == observed->islands)
        {
            observed->progress->Update();
            observed->notFull += observed->progress->GetRoundPercent(round) == 100.0 ? 0 : 1;
        }
    }

    void DoRun() override
    {
        const WanTopology tiny = WanTopology::LoadFile(CreateDataDirFilename(TINY));
        for (CapabilityMode mode : {CapabilityMode::UNICAST, CapabilityMode::RING})
        {
            const std::string name = CapabilityModeToString(mode);
            const TrainingRun::Config config = TinyConfig(mode);
            std::ostringstream lines;
            double clockS = 100;
            Observed observed;
            {
                TrainingRun run(tiny, TinySchedule(), config);
                run.Build();
                TrainingProgress progress(run.GetApps(),
                                          Planned(tiny, config),
                                          lines,
                                          "tiny",
                                          0.5,
                                          [&clockS]() { return clockS += 1; });
                observed.progress = &progress;
                observed.islands = tiny.GetNCities();
                for (uint32_t r = 0; r < config.rounds; ++r)
                {
                    observed.planned.push_back(progress.GetPlannedBytes(r));
                }
                observed.received.assign(config.rounds, 0);
                observed.last.assign(config.rounds, 0);
                for (uint32_t i = 0; i < tiny.GetNCities(); ++i)
                {
                    run.GetApp(i)->TraceConnectWithoutContext(
                        "ChunkReceived",
                        MakeBoundCallback(&TrainingProgressRunTestCase::OnChunk, &observed));
                    run.GetApp(i)->TraceConnectWithoutContext(
                        "RoundFinished",
                        MakeBoundCallback(&TrainingProgressRunTestCase::OnRoundFinished,
                                          &observed));
                }
                progress.Start();
                run.Run();
                progress.Finish();
                NS_TEST_ASSERT_MSG_EQ(run.Passed(), true, name << ": the run passes");
                for (uint32_t r = 0; r < config.rounds; ++r)
                {
                    NS_TEST_EXPECT_MSG_EQ(progress.GetRoundPercent(r), 100.0, name << " " << r);
                }
                NS_TEST_EXPECT_MSG_EQ(progress.GetRunPercent(), 100.0, name << ": the run");
                NS_TEST_EXPECT_MSG_GT(progress.GetLines(), 10u, name << ": a line per check");
            }
            NS_TEST_EXPECT_MSG_GT(observed.chunks, 0u, name << ": chunks arrived");
            NS_TEST_EXPECT_MSG_EQ(observed.backwards, 0u, name << ": no percent goes back");
            NS_TEST_EXPECT_MSG_EQ(observed.mismatches, 0u, name << ": percents = bytes counted");
            NS_TEST_EXPECT_MSG_EQ(observed.notFull, 0u, name << ": 100 % once ended everywhere");
            const std::string text = lines.str();
            const std::string lastLine =
                text.substr(text.rfind('\n', text.size() - 2) + 1, std::string::npos);
            NS_TEST_EXPECT_MSG_EQ(
                lastLine.rfind("tiny: 4/4 rounds ended (run 100.0 %), simulated ", 0),
                0u,
                name << ": the last line: " << lastLine);
            NS_TEST_EXPECT_MSG_NE(text.find("tiny: round 1/4 "),
                                  std::string::npos,
                                  name << ": the first round is reported");
            NS_TEST_EXPECT_MSG_NE(text.find(" s left\n"),
                                  std::string::npos,
                                  name << ": an expected finish");
        }
    }
};

/**
 * @ingroup wan-training-tests
 * @brief The progress reports' suite.
 */
class TrainingProgressTestSuite : public TestSuite
{
  public:
    TrainingProgressTestSuite();
};

TrainingProgressTestSuite::TrainingProgressTestSuite()
    : TestSuite("wan-training-training-progress", UNIT)
{
    SetDataDir(NS_TEST_SOURCEDIR);
    AddTestCase(new TrainingProgressEstimateTestCase(), TestCase::QUICK);
    AddTestCase(new TrainingProgressPlannedTestCase(), TestCase::QUICK);
    AddTestCase(new TrainingProgressRunTestCase(), TestCase::QUICK);
}

/** The suite's one instance. */
static TrainingProgressTestSuite g_trainingProgressTestSuite;
