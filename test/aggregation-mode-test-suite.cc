/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "aggregator-net-device.h"
#include "clique-schedule.h"
#include "island-sync-header.h"
#include "link-load-model.h"
#include "schedule-metrics.h"
#include "training-island-application.h"
#include "training-mode-test-run.h"
#include "wan-topology.h"

#include "ns3/test.h"

#include <algorithm>
#include <cmath>
#include <iostream>
#include <set>
#include <string>
#include <vector>

/**
 * @file
 * @ingroup wan-training-tests
 * Aggregation and both modes (issue 5) of TrainingIslandApplication with in-line FPGAs
 * (AggregatorNetDevice): every aggregate equals the exact sum of the traced contributions it
 * names, every clique average is exact (checked here and by TrainingResults' verification),
 * each island's ingress per round is one model (S) on cliques of 3..9 islands, rounds complete
 * with exact averages under 1% WAN loss (partial aggregates, NACKs to the missing contributors)
 * and with a tiny slot memory (pass-throughs); on the reference WAN the streams per link and
 * round equal reference-values.json's aggregation and both columns; for one clique both <=
 * multicast and aggregation <= unicast round time; the round time of an uncontended clique is
 * within 5% of the schedule model's T_comm (doc/schedule-model.rst, "Time").
 */

using namespace ns3;

namespace
{

/** The nine-city topology, relative to the test data directory. */
const std::string NINE_CITY = "../topologies/doublezero-nine-city.json";

} // namespace

/**
 * @ingroup wan-training-tests
 * @brief Exact sums and averages through the FPGAs, and one model of ingress per round.
 *
 * Cliques of 3..9 islands on the nine-city topology in aggregation or both mode. Always: every
 * aggregate an FPGA sends equals the float32 of the exact sum of the contributions its bitmap
 * names (traced at the contributors' exchange start, summed here in double; relative error <=
 * 1e-7, i.e. one float32 rounding), every member's new parameters equal the average of the
 * members' contributions (within 1e-6 x max(1, |avg|)), idle islands keep theirs, every round is
 * verified by TrainingResults and no island fails.
 *
 * Lossless with the default slot memory: each member's ingress per round (model bytes on its
 * :down link, and what its application credits) is S within 1%, its :down link carries one
 * AGGREGATE per chunk and no DATA, every contributor is credited for every chunk exactly once,
 * its egress is (k-1) S (aggregation) or S (both), no aggregate is partial, no DATA passes an
 * FPGA unaggregated, and nothing is repaired. With loss: packets were lost and repaired by
 * unicast. With a tiny slot memory: contributions passed through (NO_SLOT) and the slot
 * high-water mark never exceeded the memory.
 */
class AggregationExactTestCase : public TestCase
{
  public:
    /**
     * @param mode aggregation or both
     * @param lossRate packet error rate on every WAN link
     * @param slots the FPGAs' SlotCount
     */
    AggregationExactTestCase(CapabilityMode mode, double lossRate, uint32_t slots);

  private:
    void DoRun() override;

    CapabilityMode m_mode; //!< the mode
    double m_lossRate;     //!< WAN packet error rate
    uint32_t m_slots;      //!< FPGA slots
};

AggregationExactTestCase::AggregationExactTestCase(CapabilityMode mode,
                                                   double lossRate,
                                                   uint32_t slots)
    : TestCase(CapabilityModeToString(mode) + ", cliques of 3..9: exact aggregates and averages" +
               (lossRate > 0 ? ", 1% WAN loss" : "") +
               (slots < 100 ? ", " + std::to_string(slots) + " FPGA slots" : "") +
               (lossRate == 0 && slots >= 100 ? ", one model of ingress per round" : "")),
      m_mode(mode),
      m_lossRate(lossRate),
      m_slots(slots)
{
}

void
AggregationExactTestCase::DoRun()
{
    TrainingModeTestRun::Config config;
    config.topologyFile = CreateDataDirFilename(NINE_CITY);
    config.mode = m_mode;
    config.rounds = TrainingModeTestRun::CliquesOfThreeToNine();
    config.nRounds = config.rounds.size();
    config.modelBytes = 100000;
    config.parameterCount = 20000; // 80 kB of real values in the first chunks
    config.lossRate = m_lossRate;
    config.fpgaSlots = m_slots;
    TrainingModeTestRun run(config);
    run.Run();
    const WanTopology& topology = run.GetTopology();
    const uint32_t n = topology.GetNCities();
    const double s = static_cast<double>(config.modelBytes);
    const bool clean = m_lossRate == 0 && m_slots >= 65536;

    double maxError = 0;
    double maxIngressError = 0;
    uint64_t ingressChecks = 0;
    for (uint32_t r = 0; r < config.nRounds; ++r)
    {
        for (const CliqueSchedule::Clique& clique : config.rounds[r])
        {
            for (uint32_t i : clique)
            {
                NS_TEST_ASSERT_MSG_EQ(run.post.count({r, i}), 1u, "island " << i << " ended " << r);
            }
            if (clique.size() < 2)
            {
                NS_TEST_EXPECT_MSG_EQ((run.post.at({r, clique[0]}) == run.pre.at({r, clique[0]})),
                                      true,
                                      "an idle island keeps its parameters");
                continue;
            }
            const uint32_t k = clique.size();
            for (uint32_t i : clique)
            {
                maxError = std::max(maxError, run.GetAverageError(r, i, clique));
                if (!clean)
                {
                    continue;
                }
                const uint32_t down = topology.GetAccessDownLink(i);
                const uint32_t chunks = run.GetApp(i)->GetPlan(r).chunkCount;
                double downBytes = static_cast<double>(run.modelBytesOnLink[{r, down}]);
                double credited = static_cast<double>(run.ingress[{r, i}]);
                maxIngressError = std::max(maxIngressError, std::abs(downBytes - s) / s);
                ++ingressChecks;
                NS_TEST_EXPECT_MSG_EQ_TOL(downBytes,
                                          s,
                                          0.01 * s,
                                          "ingress of " << topology.GetCity(i).id << " in round "
                                                        << r << " (clique of " << k << ")");
                NS_TEST_EXPECT_MSG_EQ_TOL(credited,
                                          s,
                                          0.01 * s,
                                          "model bytes credited by " << topology.GetCity(i).id);
                NS_TEST_EXPECT_MSG_EQ((run.aggregatesOnLink[{r, down}]),
                                      chunks,
                                      "one aggregate per chunk toward " << topology.GetCity(i).id);
                double egress = static_cast<double>(run.egress[{r, i}]);
                double expectedEgress = m_mode == CapabilityMode::BOTH ? s : (k - 1) * s;
                NS_TEST_EXPECT_MSG_EQ_TOL(egress,
                                          expectedEgress,
                                          0.01 * expectedEgress,
                                          "egress of " << topology.GetCity(i).id);
                for (uint32_t j : clique)
                {
                    for (uint32_t c = 0; j != i && c < chunks; ++c)
                    {
                        auto it = run.credits.find({r, i, j, c});
                        NS_TEST_EXPECT_MSG_EQ((it == run.credits.end() ? 0 : it->second),
                                              1u,
                                              topology.GetCity(i).id
                                                  << " credits chunk " << c << " of "
                                                  << topology.GetCity(j).id << " once");
                    }
                }
            }
        }
    }
    std::set<uint32_t> downLinks;
    for (uint32_t i = 0; i < n; ++i)
    {
        downLinks.insert(topology.GetAccessDownLink(i));
    }
    uint64_t dataOnDown = 0;
    for (const auto& [key, copies] : run.dataOnLink)
    {
        if (downLinks.count(std::get<1>(key)))
        {
            dataOnDown += copies;
        }
    }
    uint64_t passedData = 0;
    uint64_t noSlot = 0;
    uint64_t closed = 0;
    uint32_t highWater = 0;
    uint64_t aggregates = 0;
    for (uint32_t i = 0; i < n; ++i)
    {
        Ptr<AggregatorNetDevice> fpga = run.GetAggregator(i);
        NS_TEST_ASSERT_MSG_NE(fpga, nullptr, "an FPGA in every city");
        passedData += fpga->GetPassThroughs(AggregatorNetDevice::CLOSED) +
                      fpga->GetPassThroughs(AggregatorNetDevice::NO_SLOT) +
                      fpga->GetPassThroughs(AggregatorNetDevice::MISMATCH) +
                      fpga->GetPassThroughs(AggregatorNetDevice::NO_EXPECTATION);
        noSlot += fpga->GetPassThroughs(AggregatorNetDevice::NO_SLOT);
        closed += fpga->GetPassThroughs(AggregatorNetDevice::CLOSED);
        highWater = std::max(highWater, fpga->GetSlotHighWaterMark());
        aggregates += fpga->GetAggregatesOut();
        NS_TEST_EXPECT_MSG_EQ(run.GetApp(i)->GetFailure(), "", "island " << i << " did not fail");
        NS_TEST_EXPECT_MSG_EQ(run.GetApp(i)->GetCounters().rejectedPackets, 0u, "nothing rejected");
    }
    NS_TEST_EXPECT_MSG_EQ(run.FindControlMismatch(),
                          "",
                          "ControlSent traces every READY, DONE and NACK the islands sent");

    const TrainingResults& results = run.GetResults();
    std::cout << "  " << GetName() << ":\n    max relative error: averages " << maxError
              << ", aggregates " << run.maxAggregateError << " (" << run.aggregatesChecked
              << " aggregates, " << run.partialAggregates << " partial)\n    " << run.lostPackets
              << " packets lost, " << run.nacks << " NACKs, " << run.resends
              << " chunks resent; FPGA pass-throughs of DATA: " << passedData << " (closed "
              << closed << ", no slot " << noSlot << "), slot high-water mark " << highWater
              << std::endl;
    NS_TEST_EXPECT_MSG_LT_OR_EQ(maxError, 1e-6, "exact averages");
    NS_TEST_EXPECT_MSG_GT(run.aggregatesChecked, 0u, "aggregates were checked");
    NS_TEST_EXPECT_MSG_LT_OR_EQ(run.maxAggregateError,
                                1e-7,
                                "aggregates are the float32 of the exact sums");
    NS_TEST_EXPECT_MSG_EQ(results.IsComplete(), true, "every island ran every round");
    NS_TEST_EXPECT_MSG_EQ(results.GetRoundsVerified(),
                          config.nRounds,
                          "TrainingResults verifies every round");
    NS_TEST_EXPECT_MSG_EQ(run.multicastResends, 0u, "repairs are unicast");
    NS_TEST_EXPECT_MSG_LT_OR_EQ(highWater, m_slots, "slots never exceed the memory");
    if (clean)
    {
        std::cout << "    ingress per round of " << ingressChecks
                  << " (island, round) pairs: largest |ingress/S - 1| = " << maxIngressError
                  << std::endl;
        NS_TEST_EXPECT_MSG_GT(ingressChecks, 0u, "ingress was checked");
        NS_TEST_EXPECT_MSG_EQ(run.partialAggregates, 0u, "no partial aggregate without loss");
        NS_TEST_EXPECT_MSG_EQ(passedData, 0u, "every contribution is summed");
        NS_TEST_EXPECT_MSG_EQ(dataOnDown, 0u, "no DATA reaches an island");
        NS_TEST_EXPECT_MSG_EQ(run.nacks, 0u, "no repair without loss");
        NS_TEST_EXPECT_MSG_EQ(run.resends, 0u, "no resend without loss");
    }
    if (m_lossRate > 0)
    {
        NS_TEST_EXPECT_MSG_GT(run.lostPackets, 0u, "the error models dropped packets");
        NS_TEST_EXPECT_MSG_GT(run.resends, 0u, "lost contributions were resent");
    }
    if (m_slots < 100)
    {
        NS_TEST_EXPECT_MSG_GT(noSlot, 0u, "contributions passed through for want of a slot");
    }
}

/**
 * @ingroup wan-training-tests
 * @brief Round times of one clique in the four modes: both <= multicast and aggregation <=
 * unicast, and each within 5% of the schedule model's T_comm.
 *
 * The clique exchanges alone (the other islands idle, no local steps). Summing at the
 * receiver's edge only removes load (its :down link carries one stream), and the aggregation
 * and both modes pace every stream of the clique at the clique's smallest share, which is what
 * bounds the round anyway, so the fluid times are ordered; the packet simulation may differ by
 * pacing granularity and the FPGA's processing delay (0.5 us per contribution), which the
 * stated tolerance covers: time <= other time x 1.005 + 0.1 ms. Each measured time (last
 * member's exchange start to last member's end) is within 5% of
 * ScheduleMetrics::GetRoundCost(round, mode).commS, the latency term plus the bottleneck term
 * (S much larger than the bandwidth-delay product, headers add 0.8%).
 */
class AggregationRoundTimeTestCase : public TestCase
{
  public:
    /**
     * @param clique the clique on the nine cities
     * @param modelBytes S
     */
    AggregationRoundTimeTestCase(CliqueSchedule::Clique clique, uint64_t modelBytes);

  private:
    void DoRun() override;

    CliqueSchedule::Clique m_clique; //!< the clique
    uint64_t m_modelBytes;           //!< S
};

AggregationRoundTimeTestCase::AggregationRoundTimeTestCase(CliqueSchedule::Clique clique,
                                                           uint64_t modelBytes)
    : TestCase("one clique of " + std::to_string(clique.size()) + ", " +
               std::to_string(modelBytes / 1000000) +
               " MB: both <= multicast, aggregation <= unicast, each within 5% of T_comm"),
      m_clique(std::move(clique)),
      m_modelBytes(modelBytes)
{
}

void
AggregationRoundTimeTestCase::DoRun()
{
    const double relativeTolerance = 0.005;
    const double absoluteToleranceS = 1e-4;
    const CapabilityMode modes[4] = {CapabilityMode::UNICAST,
                                     CapabilityMode::MULTICAST,
                                     CapabilityMode::AGGREGATION,
                                     CapabilityMode::BOTH};
    double times[4] = {0, 0, 0, 0};
    const CliqueSchedule::Round round = TrainingModeTestRun::AloneWith(9, m_clique);
    for (uint32_t m = 0; m < 4; ++m)
    {
        TrainingModeTestRun::Config config;
        config.topologyFile = CreateDataDirFilename(NINE_CITY);
        config.mode = modes[m];
        config.rounds = {round};
        config.nRounds = 1;
        config.modelBytes = m_modelBytes;
        config.localSteps = 0;
        config.recordChunks = false;
        TrainingModeTestRun run(config);
        run.Run();
        NS_TEST_ASSERT_MSG_EQ(run.GetResults().GetRoundsVerified(), 1u, "round verified");
        NS_TEST_EXPECT_MSG_EQ(run.nacks, 0u, "no repair: pacing never overloads a link");
        NS_TEST_EXPECT_MSG_EQ(run.partialAggregates, 0u, "no partial aggregate");
        times[m] = run.GetCommTime(0, 0);

        ScheduleMetrics::Settings settings;
        settings.modelBytes = static_cast<double>(m_modelBytes);
        ScheduleMetrics metrics(run.GetTopology(), settings);
        double model = metrics.GetRoundCost(round, modes[m]).commS;
        std::cout << "  " << CapabilityModeToString(modes[m]) << ": simulated " << times[m] * 1e3
                  << " ms, model T_comm " << model * 1e3 << " ms, ratio " << times[m] / model
                  << std::endl;
        NS_TEST_EXPECT_MSG_EQ_TOL(times[m] / model,
                                  1.0,
                                  0.05,
                                  CapabilityModeToString(modes[m]) << " within 5% of T_comm");
    }
    std::cout << "  both / multicast = " << times[3] / times[1]
              << ", aggregation / unicast = " << times[2] / times[0] << std::endl;
    NS_TEST_EXPECT_MSG_LT_OR_EQ(times[3],
                                times[1] * (1 + relativeTolerance) + absoluteToleranceS,
                                "both is not slower than multicast");
    NS_TEST_EXPECT_MSG_LT_OR_EQ(times[2],
                                times[0] * (1 + relativeTolerance) + absoluteToleranceS,
                                "aggregation is not slower than unicast");
}

/**
 * @ingroup wan-training-tests
 * @brief The aggregation and both modes suite (issue 5).
 */
class AggregationModeTestSuite : public TestSuite
{
  public:
    AggregationModeTestSuite();
};

AggregationModeTestSuite::AggregationModeTestSuite()
    : TestSuite("wan-training-aggregation-mode", SYSTEM)
{
    SetDataDir(NS_TEST_SOURCEDIR);
    for (CapabilityMode mode : {CapabilityMode::AGGREGATION, CapabilityMode::BOTH})
    {
        AddTestCase(new AggregationExactTestCase(mode, 0, 65536), TestCase::QUICK);
        AddTestCase(new AggregationExactTestCase(mode, 0.01, 65536), TestCase::QUICK);
        AddTestCase(new AggregationExactTestCase(mode, 0, 2), TestCase::QUICK);
        AddTestCase(new TrainingReferenceStreamsTestCase(mode), TestCase::QUICK);
    }
    // nyc chi lax: with both, every link of the three source trees carries one stream (half
    // the other modes' bottleneck); lon ams fra prg: fra->prg carries three streams in every
    // mode. 10 MB each.
    AddTestCase(new AggregationRoundTimeTestCase({0, 1, 2}, 10000000), TestCase::QUICK);
    AddTestCase(new AggregationRoundTimeTestCase({3, 4, 5, 6}, 10000000), TestCase::QUICK);
}

/** Static instance of the suite. */
static AggregationModeTestSuite g_aggregationModeTestSuite;

/**
 * @ingroup wan-training-tests
 * @brief The long aggregation suite: a 100 MB model.
 */
class AggregationModeLongTestSuite : public TestSuite
{
  public:
    AggregationModeLongTestSuite();
};

AggregationModeLongTestSuite::AggregationModeLongTestSuite()
    : TestSuite("wan-training-aggregation-mode-long", SYSTEM)
{
    SetDataDir(NS_TEST_SOURCEDIR);
    // nyc chi lax, 100 MB (the bandwidth-delay product of nyc-lax is 43 MB).
    AddTestCase(new AggregationRoundTimeTestCase({0, 1, 2}, 100000000), TestCase::QUICK);
}

/** Static instance of the long suite. */
static AggregationModeLongTestSuite g_aggregationModeLongTestSuite;
