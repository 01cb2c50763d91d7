/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "clique-schedule.h"
#include "island-sync-header.h"
#include "link-load-model.h"
#include "pim-multicast-helper.h"
#include "training-island-application.h"
#include "training-mode-test-run.h"
#include "wan-topology.h"

#include "ns3/test.h"

#include <algorithm>
#include <cmath>
#include <iostream>
#include <iterator>
#include <set>
#include <sstream>
#include <string>
#include <vector>

/**
 * @file
 * @ingroup wan-training-tests
 * Multicast mode (issue 4) of TrainingIslandApplication: on the nine-city topology, every chunk
 * of a source crosses each directed link of its PIM source tree exactly once (counted from the
 * devices' PhyTxBegin traces) and no other link, every member credits it exactly once, the
 * source sends S per round, and the clique averages are exact with and without 1% loss; on the
 * reference WAN, the streams per directed link and round measured in the simulation equal
 * test/data/reference-values.json's unicast and multicast columns for every schedule there; a
 * multicast round is never slower than the unicast round of the same clique.
 */

using namespace ns3;

namespace
{

/** The nine-city topology, relative to the test data directory. */
const std::string NINE_CITY = "../topologies/doublezero-nine-city.json";

/**
 * @param topology a topology
 * @param source a source island
 * @param clique its clique
 * @return the union of the routes source -> j over the other members, sorted (computed here
 * from the topology's routes, independently of LinkLoadModel and PimMulticastHelper)
 */
std::vector<uint32_t>
UnionOfRoutes(const WanTopology& topology, uint32_t source, const CliqueSchedule::Clique& clique)
{
    std::set<uint32_t> links;
    for (uint32_t j : clique)
    {
        if (j != source)
        {
            const std::vector<uint32_t>& route = topology.GetRoute(source, j).links;
            links.insert(route.begin(), route.end());
        }
    }
    return {links.begin(), links.end()};
}

} // namespace

/**
 * @ingroup wan-training-tests
 * @brief Multicast replication on the source trees and exact averages, cliques of 3..9.
 *
 * Lossless: for every round, clique and source, PimMulticastHelper::GetTree's links equal the
 * union of the routes from the source to the other members (computed here), each of the
 * source's chunks crosses every such directed link exactly once and no other link, every other
 * member credits it exactly once, the source's model bytes on its :up link in the round are S
 * (within 1%), and nothing is repaired. With and without loss: every member's new parameters are
 * the average of the members' traced contributions (within 1e-6 x max(1, |avg|)), idle islands
 * keep theirs, every round is verified by TrainingResults, and repairs are unicast.
 */
class MulticastTreeTestCase : public TestCase
{
  public:
    /**
     * @param lossRate packet error rate on every WAN link
     */
    explicit MulticastTreeTestCase(double lossRate);

  private:
    void DoRun() override;

    double m_lossRate; //!< WAN packet error rate
};

MulticastTreeTestCase::MulticastTreeTestCase(double lossRate)
    : TestCase(lossRate > 0 ? "multicast, cliques of 3..9: exact averages with 1% WAN loss"
                            : "multicast, cliques of 3..9: each chunk once per tree link, exact "
                              "averages"),
      m_lossRate(lossRate)
{
}

void
MulticastTreeTestCase::DoRun()
{
    TrainingModeTestRun::Config config;
    config.topologyFile = CreateDataDirFilename(NINE_CITY);
    config.mode = CapabilityMode::MULTICAST;
    config.rounds = TrainingModeTestRun::CliquesOfThreeToNine();
    config.nRounds = config.rounds.size();
    config.modelBytes = 100000;
    config.parameterCount = 20000; // 80 kB of real values in the first chunks
    config.lossRate = m_lossRate;
    TrainingModeTestRun run(config);
    run.Run();
    const WanTopology& topology = run.GetTopology();
    const uint32_t n = topology.GetNCities();
    const double s = static_cast<double>(config.modelBytes);

    uint64_t linkChecks = 0;
    uint64_t wrongCopies = 0;
    uint64_t creditChecks = 0;
    double maxEgressError = 0;
    double maxError = 0;
    for (uint32_t r = 0; r < config.nRounds; ++r)
    {
        const CliqueSchedule::Round& round = config.rounds[r];
        for (uint32_t c = 0; c < round.size(); ++c)
        {
            const CliqueSchedule::Clique& clique = round[c];
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
            // Exact average, computed from the traced contributions.
            for (uint32_t i : clique)
            {
                maxError = std::max(maxError, run.GetAverageError(r, i, clique));
            }
            if (m_lossRate > 0)
            {
                continue;
            }
            for (uint32_t source : clique)
            {
                PimMulticastHelper::SourceTree tree = run.GetPim().GetTree(r, c, source);
                std::vector<uint32_t> expectedTree = UnionOfRoutes(topology, source, clique);
                NS_TEST_ASSERT_MSG_EQ((tree.links == expectedTree),
                                      true,
                                      "the tree of " << topology.GetCity(source).id << " in round "
                                                     << r << " is the union of its routes");
                const uint32_t chunks = run.GetApp(source)->GetPlan(r).chunkCount;
                for (uint32_t k = 0; k < chunks; ++k)
                {
                    for (uint32_t d = 0; d < topology.GetNDirectedLinks(); ++d)
                    {
                        auto it = run.dataOnLink.find({r, d, source, k});
                        uint32_t copies = it == run.dataOnLink.end() ? 0 : it->second;
                        uint32_t expected =
                            std::binary_search(tree.links.begin(), tree.links.end(), d) ? 1 : 0;
                        ++linkChecks;
                        if (copies != expected)
                        {
                            ++wrongCopies;
                            NS_TEST_EXPECT_MSG_EQ(copies,
                                                  expected,
                                                  "round " << r << ", source "
                                                           << topology.GetCity(source).id
                                                           << ", chunk " << k << " on "
                                                           << topology.GetDirectedLinkName(d));
                        }
                    }
                    for (uint32_t j : clique)
                    {
                        if (j == source)
                        {
                            continue;
                        }
                        auto it = run.credits.find({r, j, source, k});
                        ++creditChecks;
                        NS_TEST_EXPECT_MSG_EQ((it == run.credits.end() ? 0 : it->second),
                                              1u,
                                              topology.GetCity(j).id << " holds chunk " << k
                                                                     << " of "
                                                                     << topology.GetCity(source).id
                                                                     << " once in round " << r);
                    }
                }
                // The source's egress: what crossed its access up link in this round.
                uint32_t up = topology.GetAccessUpLink(source);
                double upBytes = static_cast<double>(run.modelBytesOnLink[{r, up}]);
                maxEgressError = std::max(maxEgressError, std::abs(upBytes - s) / s);
                NS_TEST_EXPECT_MSG_EQ_TOL(upBytes,
                                          s,
                                          0.01 * s,
                                          "egress of " << topology.GetCity(source).id
                                                       << " in round " << r);
                NS_TEST_EXPECT_MSG_EQ_TOL(static_cast<double>(run.egress[{r, source}]),
                                          s,
                                          0.01 * s,
                                          "model bytes sent by " << topology.GetCity(source).id);
            }
        }
    }
    const TrainingResults& results = run.GetResults();
    std::cout << "  " << GetName() << ": max relative error of the averages " << maxError
              << std::endl;
    NS_TEST_EXPECT_MSG_LT_OR_EQ(maxError, 1e-6, "exact averages");
    NS_TEST_EXPECT_MSG_EQ(results.IsComplete(), true, "every island ran every round");
    NS_TEST_EXPECT_MSG_EQ(results.GetRoundsVerified(),
                          config.nRounds,
                          "TrainingResults verifies every round");
    NS_TEST_EXPECT_MSG_EQ(run.multicastResends, 0u, "repairs are unicast to the requester");
    for (uint32_t i = 0; i < n; ++i)
    {
        NS_TEST_EXPECT_MSG_EQ(run.GetApp(i)->GetFailure(), "", "island " << i << " did not fail");
        NS_TEST_EXPECT_MSG_EQ(run.GetApp(i)->GetCounters().rejectedPackets, 0u, "nothing rejected");
    }
    NS_TEST_EXPECT_MSG_EQ(run.FindControlMismatch(),
                          "",
                          "ControlSent traces every READY, DONE and NACK the islands sent");
    if (m_lossRate == 0)
    {
        std::cout << "  " << linkChecks << " (chunk, link) counts checked against the trees, "
                  << wrongCopies << " wrong; " << creditChecks
                  << " member credits checked; largest |egress/S - 1| per round " << maxEgressError
                  << std::endl;
        NS_TEST_EXPECT_MSG_EQ(wrongCopies, 0u, "each chunk once on each tree link, nowhere else");
        NS_TEST_EXPECT_MSG_GT(linkChecks, 0u, "trees were checked");
        NS_TEST_EXPECT_MSG_EQ(run.duplicates, 0u, "no member receives a chunk twice");
        NS_TEST_EXPECT_MSG_EQ(run.nacks, 0u, "no repair without loss");
        NS_TEST_EXPECT_MSG_EQ(run.resends, 0u, "no resend without loss");
    }
    else
    {
        std::cout << "  " << run.lostPackets << " packets lost on WAN links, " << run.nacks
                  << " NACKs, " << run.resends << " chunks resent by unicast" << std::endl;
        NS_TEST_EXPECT_MSG_GT(run.lostPackets, 0u, "the error models dropped packets");
        NS_TEST_EXPECT_MSG_GT(run.resends, 0u, "lost chunks were resent");
    }
}

/**
 * @ingroup wan-training-tests
 * @brief A multicast round is never slower than the unicast round of the same clique.
 *
 * Each clique of 3..9 islands of the nine-city topology exchanges S = 2 MB alone (the other
 * islands idle, no local steps), once in unicast and once in multicast mode. Multicast streams
 * are paced at their source tree's bottleneck share with multicast loads, which are at most the
 * unicast loads on every link, so the fluid completion time cannot be longer; the packet
 * simulation may differ by pacing granularity (nanosecond rounding, the last packet's
 * serialization, the chunk layout), which the stated tolerance covers: multicast time <=
 * unicast time x 1.005 + 0.1 ms.
 */
class MulticastNotSlowerTestCase : public TestCase
{
  public:
    MulticastNotSlowerTestCase();

  private:
    void DoRun() override;
};

MulticastNotSlowerTestCase::MulticastNotSlowerTestCase()
    : TestCase("a multicast round is never slower than the unicast round of the same clique")
{
}

void
MulticastNotSlowerTestCase::DoRun()
{
    const double relativeTolerance = 0.005;
    const double absoluteToleranceS = 1e-4;
    for (const CliqueSchedule::Round& round : TrainingModeTestRun::CliquesOfThreeToNine())
    {
        for (const CliqueSchedule::Clique& clique : round)
        {
            if (clique.size() < 2)
            {
                continue;
            }
            double times[2] = {0, 0};
            const CapabilityMode modes[2] = {CapabilityMode::UNICAST, CapabilityMode::MULTICAST};
            for (uint32_t m = 0; m < 2; ++m)
            {
                TrainingModeTestRun::Config config;
                config.topologyFile = CreateDataDirFilename(NINE_CITY);
                config.mode = modes[m];
                config.rounds = {TrainingModeTestRun::AloneWith(9, clique)};
                config.nRounds = 1;
                config.modelBytes = 2000000;
                config.localSteps = 0;
                config.recordChunks = false;
                TrainingModeTestRun run(config);
                run.Run();
                NS_TEST_ASSERT_MSG_EQ(run.GetResults().GetRoundsVerified(), 1u, "round verified");
                times[m] = run.GetCommTime(0, 0);
            }
            std::cout << "  clique of " << clique.size() << ": unicast " << times[0] * 1e3
                      << " ms, multicast " << times[1] * 1e3 << " ms, ratio " << times[1] / times[0]
                      << std::endl;
            NS_TEST_EXPECT_MSG_LT_OR_EQ(times[1],
                                        times[0] * (1 + relativeTolerance) + absoluteToleranceS,
                                        "multicast is not slower for the clique of "
                                            << clique.size());
        }
    }
}

/**
 * @ingroup wan-training-tests
 * @brief The multicast mode suite (issue 4).
 */
class MulticastModeTestSuite : public TestSuite
{
  public:
    MulticastModeTestSuite();
};

MulticastModeTestSuite::MulticastModeTestSuite()
    : TestSuite("wan-training-multicast-mode", SYSTEM)
{
    SetDataDir(NS_TEST_SOURCEDIR);
    AddTestCase(new MulticastTreeTestCase(0), TestCase::QUICK);
    AddTestCase(new MulticastTreeTestCase(0.01), TestCase::QUICK);
    AddTestCase(new TrainingReferenceStreamsTestCase(CapabilityMode::UNICAST), TestCase::QUICK);
    AddTestCase(new TrainingReferenceStreamsTestCase(CapabilityMode::MULTICAST), TestCase::QUICK);
    AddTestCase(new MulticastNotSlowerTestCase(), TestCase::QUICK);
}

/** Static instance of the suite. */
static MulticastModeTestSuite g_multicastModeTestSuite;
