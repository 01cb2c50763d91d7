/*
 * Copyright (c) 2026 The wan-training authors
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "aggregator-helper.h"
#include "aggregator-net-device.h"
#include "capability-mode.h"
#include "clique-schedule.h"
#include "pim-multicast-helper.h"
#include "training-run-summary.h"
#include "training-run.h"
#include "wan-config-error.h"
#include "wan-input-error.h"
#include "wan-topology-helper.h"
#include "wan-topology.h"

#include "ns3/test.h"

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

/**
 * @file
 * @ingroup wan-training-tests
 * Mixed rounds in the packet simulation (doc/schedule-model.rst, "Capability sets and mixed
 * rounds"): in one round, each clique exchanges by the algorithm the schedule gives it. What
 * each algorithm needs is installed for its cliques only (FPGA expectations for the cliques
 * that sum, multicast trees for the cliques that multicast); every round verifies; each
 * clique's simulated time matches the schedule model's time of that clique under the round's
 * mixed loads; a forced mode overrides the schedule's algorithms; a schedule that asks the
 * topology for more than it has, or a clique without an algorithm, is refused.
 */

using namespace ns3;

namespace
{

/** The nine-city WAN: multicast, an FPGA on every router, core. */
const std::string NINE_CITY = "../topologies/doublezero-nine-city.json";
/** Three cities aaa-bbb-ccc in a line: no multicast, no FPGAs. */
const std::string TINY = "data/tiny-valid.json";

/**
 * Round 0: a both clique, a tree clique, a ring pair; round 1: a unicast, an aggregation and a
 * multicast triple (each meets every clique of round 0, so the schedule mixes).
 */
const std::string MIXED = R"({"rounds": [
  [{"members": ["nyc", "chi", "lax"], "algorithm": "both"},
   {"members": ["lon", "fra", "ams", "prg"], "algorithm": "tree"},
   {"members": ["tyo", "sin"], "algorithm": "ring"}],
  [{"members": ["nyc", "lon", "tyo"], "algorithm": "unicast"},
   {"members": ["chi", "fra", "sin"], "algorithm": "aggregation"},
   {"members": ["lax", "ams", "prg"], "algorithm": "multicast"}]]})";

/**
 * @ingroup wan-training-tests
 * The mixed schedule simulated: installation per clique, verification, per-clique times.
 */
class MixedRoundRunTestCase : public TestCase
{
  public:
    MixedRoundRunTestCase()
        : TestCase("cliques of one round exchange by their own algorithms, each timed as the "
                   "schedule model says under the round's mixed loads")
    {
    }

  private:
    void DoRun() override
    {
        const WanTopology topology = WanTopology::LoadFile(CreateDataDirFilename(NINE_CITY));
        const CliqueSchedule schedule = CliqueSchedule::Parse(MIXED, "mixed", topology);
        TrainingRun::Config config; // no mode forced: each clique's own
        config.rounds = 4;
        config.modelBytes = 4000000;
        config.parameterCount = 256;
        TrainingRun run(topology, schedule, config);
        run.Build();

        // What each algorithm needs, for its cliques only.
        const std::vector<Ptr<AggregatorNetDevice>> ports =
            AggregatorHelper::GetPorts(run.GetScenario());
        NS_TEST_ASSERT_MSG_EQ(ports.empty(), false, "a clique sums: FPGAs installed");
        NS_TEST_EXPECT_MSG_EQ(run.GetScenario().GetFpgaPorts(),
                              WanTopologyHelper::EVERY_PORT,
                              "a clique uses tree: FPGAs on every port");
        for (uint32_t r = 0; r < schedule.GetNRounds(); ++r)
        {
            for (uint32_t c = 0; c < schedule.GetRound(r).size(); ++c)
            {
                const CapabilityMode algorithm = *schedule.GetAlgorithm(r, c);
                const std::string name = "round " + std::to_string(r) + " clique " +
                                         std::to_string(c) + " (" +
                                         CapabilityModeToString(algorithm) + ")";
                uint32_t expecting = 0;
                for (const Ptr<AggregatorNetDevice>& port : ports)
                {
                    expecting += port->GetExpectation(config.jobId, r, c) != nullptr;
                }
                NS_TEST_EXPECT_MSG_EQ((expecting > 0),
                                      UsesAggregation(algorithm),
                                      name << ": FPGA ports expect it iff it sums");
                if (algorithm == CapabilityMode::AGGREGATION || algorithm == CapabilityMode::BOTH)
                {
                    // Each member's access port expects the other members.
                    for (uint32_t member : schedule.GetRound(r)[c])
                    {
                        Ptr<AggregatorNetDevice> port = run.GetScenario().GetAggregator(member);
                        const AggregatorNetDevice::Expectation* e =
                            port ? port->GetExpectation(config.jobId, r, c) : nullptr;
                        NS_TEST_ASSERT_MSG_NE(e, nullptr, name << ": edge expectation");
                        uint64_t others = 0;
                        for (uint32_t other : schedule.GetRound(r)[c])
                        {
                            others |= other == member ? 0 : uint64_t{1} << other;
                        }
                        NS_TEST_EXPECT_MSG_EQ(e->contributors, others, name << ": C \\ {i}");
                    }
                }
                for (uint32_t source : schedule.GetRound(r)[c])
                {
                    const bool tree = !run.GetPim().GetTree(r, c, source).members.empty();
                    NS_TEST_EXPECT_MSG_EQ(tree,
                                          UsesMulticast(algorithm),
                                          name << ": a multicast tree iff it multicasts");
                }
            }
        }

        run.Run();
        NS_TEST_ASSERT_MSG_EQ(run.Passed(), true, "every round completed and verified");
        const TrainingRunSummary summary =
            TrainingRunSummary::Parse(run.GetResults().ToJson(), "mixed-run");
        NS_TEST_EXPECT_MSG_EQ(summary.config.mode, "schedule", "no mode forced");
        NS_TEST_EXPECT_MSG_EQ(summary.config.scheduleAlgorithms[0][1], "tree", "recorded");
        NS_TEST_EXPECT_MSG_GT(summary.summary.fpgaAggregates, 0, "the FPGAs summed");
        for (const TrainingRunSummary::Round& round : summary.rounds)
        {
            const uint32_t r = round.round % schedule.GetNRounds();
            NS_TEST_ASSERT_MSG_EQ(round.cliques.size(), 3, "three cliques");
            double longest = 0;
            for (const TrainingRunSummary::Clique& clique : round.cliques)
            {
                const std::string name = "round " + std::to_string(round.round) + " clique " +
                                         std::to_string(clique.clique) + " (" + clique.algorithm +
                                         ")";
                NS_TEST_EXPECT_MSG_EQ(
                    clique.algorithm,
                    CapabilityModeToString(*schedule.GetAlgorithm(r, clique.clique)),
                    name << ": ran its own algorithm");
                NS_TEST_ASSERT_MSG_EQ(clique.commS.has_value(), true, name << ": completed");
                // Latency + the bytes over the busiest link its streams use (ring: the step
                // recursion) under the loads of every clique of the round. In the first period
                // every clique starts together; later a clique's members start at different
                // times and comm_s (from the latest member's start) can be shorter. 7 %: the
                // aggregation triple chi-fra-sin takes 6.4 % over the model in one-mode
                // aggregation runs too.
                if (round.round < schedule.GetNRounds())
                {
                    NS_TEST_EXPECT_MSG_EQ_TOL(*clique.commS,
                                              clique.predictedCommS,
                                              0.07 * clique.predictedCommS,
                                              name << ": the schedule model's time of the clique");
                }
                longest = std::max(longest, clique.predictedCommS);
            }
            // The round's T_comm (doc/schedule-model.rst, "Time of a mixed round") bounds every
            // clique's own time.
            NS_TEST_EXPECT_MSG_GT_OR_EQ(round.predictedCommS * (1 + 1e-12),
                                        longest,
                                        "T_comm >= every clique's time");
        }
    }
};

/**
 * @ingroup wan-training-tests
 * A forced mode replaces every clique's algorithm; the run installs what that mode needs only.
 */
class MixedRoundForcedModeTestCase : public TestCase
{
  public:
    MixedRoundForcedModeTestCase()
        : TestCase("a forced mode overrides the schedule's algorithms")
    {
    }

  private:
    void DoRun() override
    {
        const WanTopology topology = WanTopology::LoadFile(CreateDataDirFilename(NINE_CITY));
        const CliqueSchedule schedule = CliqueSchedule::Parse(MIXED, "mixed", topology);
        TrainingRun::Config config;
        config.mode = CapabilityMode::UNICAST;
        config.rounds = 2;
        config.modelBytes = 400000;
        config.parameterCount = 64;
        TrainingRun run(topology, schedule, config);
        run.Build();
        NS_TEST_EXPECT_MSG_EQ(AggregatorHelper::GetPorts(run.GetScenario()).empty(),
                              true,
                              "unicast forced: no FPGAs");
        run.Run();
        NS_TEST_ASSERT_MSG_EQ(run.Passed(), true, "every round verified");
        const TrainingRunSummary summary =
            TrainingRunSummary::Parse(run.GetResults().ToJson(), "forced-run");
        NS_TEST_EXPECT_MSG_EQ(summary.config.mode, "unicast", "the forced mode");
        for (const TrainingRunSummary::Round& round : summary.rounds)
        {
            for (const TrainingRunSummary::Clique& clique : round.cliques)
            {
                NS_TEST_EXPECT_MSG_EQ(clique.algorithm, "unicast", "every clique unicast");
            }
        }
    }
};

/**
 * @ingroup wan-training-tests
 * What a mixed schedule asks of the topology is checked clique by clique before anything runs.
 */
class MixedRoundRefusalTestCase : public TestCase
{
  public:
    MixedRoundRefusalTestCase()
        : TestCase("a clique's algorithm the topology lacks, or no algorithm at all, is refused")
    {
    }

  private:
    void DoRun() override
    {
        const WanTopology tiny = WanTopology::LoadFile(CreateDataDirFilename(TINY));
        TrainingRun::Config config;
        config.modelBytes = 40000;
        config.parameterCount = 16;
        const CliqueSchedule multicast = CliqueSchedule::Parse(
            R"({"rounds": [[{"members": ["aaa", "bbb"], "algorithm": "ring"},
                            {"members": ["ccc"], "algorithm": "unicast"}],
                           [{"members": ["bbb", "ccc"], "algorithm": "multicast"}]]})",
            "s.json",
            tiny);
        try
        {
            TrainingRun::Validate(tiny, multicast, config);
            NS_TEST_EXPECT_MSG_EQ(true, false, "a multicast clique on a unicast WAN ran");
        }
        catch (const WanInputError& error)
        {
            NS_TEST_EXPECT_MSG_EQ(error.GetPath(),
                                  "$.rounds[1][0].algorithm",
                                  "names the round and clique");
            NS_TEST_EXPECT_MSG_EQ(
                (std::string(error.what()).find("multicast needs multicast") != std::string::npos),
                true,
                error.what());
        }
        // The same schedule with ring forced runs on the plain WAN.
        config.mode = CapabilityMode::RING;
        TrainingRun::Validate(tiny, multicast, config);

        // A plain list and no forced mode: which algorithm is not said.
        config.mode.reset();
        try
        {
            TrainingRun::Validate(tiny, CliqueSchedule::AllReduce(3), config);
            NS_TEST_EXPECT_MSG_EQ(true, false, "a clique without an algorithm ran");
        }
        catch (const WanConfigError& error)
        {
            NS_TEST_EXPECT_MSG_EQ(error.GetField(), "mode", "the field");
            NS_TEST_EXPECT_MSG_EQ(
                (std::string(error.what()).find("round 0, clique 0") != std::string::npos),
                true,
                error.what());
        }
    }
};

/**
 * @ingroup wan-training-tests
 * Mixed rounds in the packet simulation.
 */
class MixedRoundsTestSuite : public TestSuite
{
  public:
    MixedRoundsTestSuite()
        : TestSuite("wan-training-mixed-rounds", UNIT)
    {
        SetDataDir(NS_TEST_SOURCEDIR);
        AddTestCase(new MixedRoundRunTestCase, TestCase::QUICK);
        AddTestCase(new MixedRoundForcedModeTestCase, TestCase::QUICK);
        AddTestCase(new MixedRoundRefusalTestCase, TestCase::QUICK);
    }
};

/** Static instance that registers the suite. */
MixedRoundsTestSuite g_mixedRoundsTestSuite;

} // namespace
