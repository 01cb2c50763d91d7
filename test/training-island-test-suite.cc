/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "clique-schedule.h"
#include "island-sync-header.h"
#include "link-load-model.h"
#include "schedule-metrics.h"
#include "training-helper.h"
#include "training-island-application.h"
#include "training-results.h"
#include "wan-config-error.h"
#include "wan-topology-helper.h"
#include "wan-topology.h"

#include "ns3/ipv4-header.h"
#include "ns3/names.h"
#include "ns3/packet.h"
#include "ns3/ppp-header.h"
#include "ns3/simulator.h"
#include "ns3/test.h"
#include "ns3/udp-header.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iostream>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <tuple>
#include <vector>

/**
 * @file
 * @ingroup wan-training-tests
 * TrainingIslandApplication test suites on the nine-city topology: exact clique averages for
 * cliques of 2..9 islands (checked against averages computed here from the traced
 * contributions), per-link and per-island model bytes against the unicast stream count, repair
 * under 1% loss on every WAN link, and exchange times against the schedule model (an uncontended
 * pair, and a contended all-island round); TrainingHelper's round times and mode checks.
 */

using namespace ns3;

namespace
{

/** The nine-city topology, relative to the test data directory. */
const std::string NINE_CITY = "../topologies/doublezero-nine-city.json";

/** A chunk: (round, sender, receiver, chunk index). */
using ChunkKey = std::tuple<uint32_t, uint32_t, uint32_t, uint32_t>;

/** What the test observes of a run, through trace sinks only. */
struct Observed
{
    std::map<std::pair<uint32_t, uint32_t>, std::vector<float>> pre;       //!< (round, island)
    std::map<std::pair<uint32_t, uint32_t>, std::vector<float>> post;      //!< (round, island)
    std::map<std::pair<uint32_t, uint32_t>, double> startS;                //!< (round, island)
    std::map<std::pair<uint32_t, uint32_t>, double> exchangeS;             //!< (round, island)
    std::map<std::tuple<uint32_t, uint32_t, uint32_t>, double> firstSendS; //!< (r, src, dst)
    std::map<std::pair<uint32_t, uint32_t>, double> finishS;               //!< (round, island)
    std::map<std::pair<uint32_t, uint32_t>, uint64_t> egress;              //!< (round, island)
    std::map<std::pair<uint32_t, uint32_t>, uint64_t> ingress;             //!< (round, island)
    std::set<ChunkKey> resent;                                             //!< chunks sent again
    std::set<ChunkKey> lost;                      //!< chunks lost on a link
    uint64_t repairRequests{0};                   //!< NACKs
    uint64_t resends{0};                          //!< chunks sent again
    std::map<uint32_t, uint32_t> islandOfAddress; //!< address -> island
};

/**
 * @param observed the record
 * @param island the island
 * @param round the round
 */
void
OnRoundStarted(Observed* observed, uint32_t island, uint32_t round)
{
    observed->startS[{round, island}] = Simulator::Now().GetSeconds();
}

/**
 * @param observed the record
 * @param island the island
 * @param round the round
 * @param clique its clique
 * @param parameters its contribution
 */
void
OnExchangeStarted(Observed* observed,
                  uint32_t island,
                  uint32_t round,
                  uint32_t /* clique */,
                  const std::vector<float>& parameters)
{
    observed->pre[{round, island}] = parameters;
    observed->exchangeS[{round, island}] = Simulator::Now().GetSeconds();
}

/**
 * @param observed the record
 * @param island the island
 * @param round the round
 * @param clique its clique
 * @param parameters its new parameters
 */
void
OnRoundFinished(Observed* observed,
                uint32_t island,
                uint32_t round,
                uint32_t /* clique */,
                const std::vector<float>& parameters)
{
    observed->post[{round, island}] = parameters;
    observed->finishS[{round, island}] = Simulator::Now().GetSeconds();
}

/**
 * @param observed the record
 * @param island the sender
 * @param destination the receiver
 * @param header the chunk header
 * @param modelBytes model bytes of the chunk
 * @param resent whether it was sent before
 */
void
OnChunkSent(Observed* observed,
            uint32_t island,
            uint32_t destination,
            const IslandSyncHeader& header,
            uint32_t modelBytes,
            bool resent)
{
    observed->egress[{header.GetRound(), island}] += modelBytes;
    observed->firstSendS.emplace(std::make_tuple(header.GetRound(), island, destination),
                                 Simulator::Now().GetSeconds());
    if (resent)
    {
        ++observed->resends;
        observed->resent.insert({header.GetRound(), island, destination, header.GetChunkIndex()});
    }
}

/**
 * @param observed the record
 * @param island the receiver
 * @param header the chunk header
 * @param modelBytes model bytes of the chunk
 * @param duplicate whether it added nothing
 */
void
OnChunkReceived(Observed* observed,
                uint32_t island,
                const IslandSyncHeader& header,
                uint32_t modelBytes,
                bool duplicate)
{
    if (!duplicate)
    {
        observed->ingress[{header.GetRound(), island}] += modelBytes;
    }
}

/**
 * @param observed the record
 * @param island the requester
 * @param source the contributor
 * @param round the round
 * @param chunks chunks requested
 */
void
OnRepairRequested(Observed* observed,
                  uint32_t /* island */,
                  uint32_t /* source */,
                  uint32_t /* round */,
                  uint32_t /* chunks */)
{
    ++observed->repairRequests;
}

/**
 * @brief A packet lost to a receive error model: remember which chunk it carried.
 * @param observed the record
 * @param packet the lost packet, PPP header included
 */
void
OnPhyRxDrop(Observed* observed, Ptr<const Packet> packet)
{
    Ptr<Packet> copy = packet->Copy();
    PppHeader ppp;
    Ipv4Header ip;
    UdpHeader udp;
    IslandSyncHeader sync;
    copy->RemoveHeader(ppp);
    copy->RemoveHeader(ip);
    copy->RemoveHeader(udp);
    if (copy->PeekHeader(sync) != 0 && sync.GetType() == IslandSyncHeader::DATA)
    {
        uint32_t destination = observed->islandOfAddress.at(ip.GetDestination().Get());
        observed->lost.insert(
            {sync.GetRound(), sync.GetSender(), destination, sync.GetChunkIndex()});
    }
}

/** A training run on the nine-city topology. */
struct TrainingRun
{
    WanTopology topology;                        //!< the topology
    std::unique_ptr<WanTopologyHelper> scenario; //!< the scenario
    std::unique_ptr<CliqueSchedule> schedule;    //!< the schedule
    ApplicationContainer apps;                   //!< the applications
    std::unique_ptr<TrainingResults> results;    //!< the results recorder
    Observed observed;                           //!< what the test sinks saw

    /**
     * @param topologyFile the topology file
     */
    explicit TrainingRun(const std::string& topologyFile)
        : topology(WanTopology::LoadFile(topologyFile))
    {
    }
};

/**
 * @brief Build and run a training scenario.
 * @param run the run (topology loaded)
 * @param rounds the schedule's rounds
 * @param nRounds rounds to run
 * @param modelBytes ModelBytes
 * @param parameterCount ParameterCount
 * @param localSteps LocalSteps
 * @param lossRate packet error rate on every WAN link
 */
void
Simulate(TrainingRun& run,
         const std::vector<CliqueSchedule::Round>& rounds,
         uint32_t nRounds,
         uint64_t modelBytes,
         uint32_t parameterCount,
         uint32_t localSteps,
         double lossRate)
{
    const uint32_t n = run.topology.GetNCities();
    run.scenario = std::make_unique<WanTopologyHelper>(run.topology);
    run.scenario->Install();
    run.schedule = std::make_unique<CliqueSchedule>(n, rounds);
    if (lossRate > 0)
    {
        TrainingHelper::SetWanPacketErrorRate(*run.scenario, lossRate, 100);
    }
    TrainingHelper training(*run.scenario, *run.schedule);
    training.SetMode(CapabilityMode::UNICAST);
    training.SetAttribute("Rounds", UintegerValue(nRounds));
    training.SetAttribute("ModelBytes", UintegerValue(modelBytes));
    training.SetAttribute("ParameterCount", UintegerValue(parameterCount));
    training.SetAttribute("LocalSteps", UintegerValue(localSteps));
    training.SetAttribute("StepTime", TimeValue(MilliSeconds(1)));
    run.apps = training.Install();
    run.results = std::make_unique<TrainingResults>(*run.scenario, *run.schedule, run.apps);

    Observed* observed = &run.observed;
    for (uint32_t i = 0; i < n; ++i)
    {
        observed->islandOfAddress[run.scenario->GetIslandAddress(i).Get()] = i;
        Ptr<Application> app = run.apps.Get(i);
        app->TraceConnectWithoutContext("RoundStarted",
                                        MakeBoundCallback(&OnRoundStarted, observed));
        app->TraceConnectWithoutContext("ExchangeStarted",
                                        MakeBoundCallback(&OnExchangeStarted, observed));
        app->TraceConnectWithoutContext("RoundFinished",
                                        MakeBoundCallback(&OnRoundFinished, observed));
        app->TraceConnectWithoutContext("ChunkSent", MakeBoundCallback(&OnChunkSent, observed));
        app->TraceConnectWithoutContext("ChunkReceived",
                                        MakeBoundCallback(&OnChunkReceived, observed));
        app->TraceConnectWithoutContext("RepairRequested",
                                        MakeBoundCallback(&OnRepairRequested, observed));
    }
    for (uint32_t d = 0; d < run.topology.GetNDirectedLinks(); ++d)
    {
        run.scenario->GetRxDevice(d)->TraceConnectWithoutContext(
            "PhyRxDrop",
            MakeBoundCallback(&OnPhyRxDrop, observed));
    }
    Simulator::Run();
}

/** End a test case: destroy the simulation and forget the node names. */
void
EndSimulation()
{
    Simulator::Destroy();
    Names::Clear();
}

} // namespace

/**
 * @ingroup wan-training-tests
 * @brief Exact clique averages (and byte counts) for every round of a scenario.
 *
 * Every member's new parameters must equal the average of the members' contributions as
 * traced at exchange start, computed here in double precision, within 1e-6 x max(1, |avg|);
 * idle islands keep their parameters bit for bit. Without loss, each island's egress and
 * ingress per round are (k - 1) S model bytes (within 1%), and each directed link carries S
 * model bytes per unicast stream whose route crosses it, counted here from the routes.
 */
class TrainingIslandAveragesTestCase : public TestCase
{
  public:
    /**
     * @param name the case name
     * @param rounds the schedule's rounds
     * @param nRounds rounds to run
     * @param modelBytes ModelBytes
     * @param lossRate packet error rate on every WAN link
     */
    TrainingIslandAveragesTestCase(const std::string& name,
                                   std::vector<CliqueSchedule::Round> rounds,
                                   uint32_t nRounds,
                                   uint64_t modelBytes,
                                   double lossRate);

  private:
    void DoRun() override;

    std::vector<CliqueSchedule::Round> m_rounds; //!< the schedule's rounds
    uint32_t m_nRounds;                          //!< rounds to run
    uint64_t m_modelBytes;                       //!< ModelBytes
    double m_lossRate;                           //!< WAN packet error rate
};

TrainingIslandAveragesTestCase::TrainingIslandAveragesTestCase(
    const std::string& name,
    std::vector<CliqueSchedule::Round> rounds,
    uint32_t nRounds,
    uint64_t modelBytes,
    double lossRate)
    : TestCase(name),
      m_rounds(std::move(rounds)),
      m_nRounds(nRounds),
      m_modelBytes(modelBytes),
      m_lossRate(lossRate)
{
}

void
TrainingIslandAveragesTestCase::DoRun()
{
    const uint32_t parameterCount = 20000; // 80 kB of real values: the first 9 chunks
    TrainingRun run(CreateDataDirFilename(NINE_CITY));
    Simulate(run, m_rounds, m_nRounds, m_modelBytes, parameterCount, 3, m_lossRate);
    const WanTopology& topology = run.topology;
    const uint32_t n = topology.GetNCities();
    const Observed& observed = run.observed;
    const double s = static_cast<double>(m_modelBytes);

    std::vector<double> expectedLinkModelBytes(topology.GetNDirectedLinks(), 0.0);
    double maxError = 0;
    double maxSpread = 0;
    for (uint32_t r = 0; r < m_nRounds; ++r)
    {
        const CliqueSchedule::Round& round = m_rounds[r % m_rounds.size()];
        std::vector<bool> inClique(n, false);
        for (const auto& clique : round)
        {
            for (uint32_t i : clique)
            {
                inClique[i] = clique.size() >= 2;
            }
        }
        for (uint32_t i = 0; i < n; ++i)
        {
            NS_TEST_ASSERT_MSG_EQ(observed.post.count({r, i}),
                                  1u,
                                  "island " << topology.GetCity(i).id << " ended round " << r);
            if (!inClique[i])
            {
                NS_TEST_EXPECT_MSG_EQ((observed.post.at({r, i}) == observed.pre.at({r, i})),
                                      true,
                                      "an idle island keeps its parameters");
            }
        }
        for (const auto& clique : round)
        {
            if (clique.size() < 2)
            {
                continue;
            }
            const uint32_t k = clique.size();
            std::vector<double> average(parameterCount, 0.0);
            for (uint32_t j : clique)
            {
                const std::vector<float>& pre = observed.pre.at({r, j});
                NS_TEST_ASSERT_MSG_EQ(pre.size(), parameterCount, "contribution length");
                for (uint32_t v = 0; v < parameterCount; ++v)
                {
                    average[v] += pre[v];
                }
                double spread = 0;
                for (uint32_t v = 0; v < parameterCount; ++v)
                {
                    spread =
                        std::max<double>(spread,
                                         std::abs(pre[v] - observed.pre.at({r, clique[0]})[v]));
                }
                maxSpread = std::max(maxSpread, spread);
            }
            for (double& value : average)
            {
                value /= k;
            }
            for (uint32_t i : clique)
            {
                const std::vector<float>& post = observed.post.at({r, i});
                NS_TEST_ASSERT_MSG_EQ(post.size(), parameterCount, "parameter length");
                for (uint32_t v = 0; v < parameterCount; ++v)
                {
                    double error = std::abs(post[v] - average[v]);
                    maxError = std::max(maxError, error / std::max(1.0, std::abs(average[v])));
                    NS_TEST_ASSERT_MSG_LT_OR_EQ(error,
                                                1e-6 * std::max(1.0, std::abs(average[v])),
                                                "round " << r << " island "
                                                         << topology.GetCity(i).id << " value " << v
                                                         << " (clique of " << k << ")");
                }
                double expected = (k - 1) * s;
                if (m_lossRate == 0)
                {
                    double egress = observed.egress.at({r, i});
                    NS_TEST_EXPECT_MSG_EQ_TOL(egress,
                                              expected,
                                              0.01 * expected,
                                              "egress of " << topology.GetCity(i).id << " in round "
                                                           << r);
                }
                double ingress = observed.ingress.at({r, i});
                NS_TEST_EXPECT_MSG_EQ_TOL(ingress,
                                          expected,
                                          0.01 * expected,
                                          "distinct ingress of " << topology.GetCity(i).id
                                                                 << " in round " << r);
                for (uint32_t j : clique)
                {
                    if (j != i)
                    {
                        for (uint32_t d : topology.GetRoute(i, j).links)
                        {
                            expectedLinkModelBytes[d] += s;
                        }
                        // The clique barrier: no chunk toward j before j has started the round
                        // and its announcement has crossed route j -> i.
                        double barrierS = observed.startS.at({r, j});
                        if (r > 0)
                        {
                            barrierS += topology.GetRoute(j, i).latencyMs * 1e-3;
                        }
                        NS_TEST_EXPECT_MSG_GT_OR_EQ(
                            observed.firstSendS.at({r, i, j}),
                            barrierS - 1e-9,
                            "round " << r << ": " << topology.GetCity(i).id << " streams to "
                                     << topology.GetCity(j).id << " before it is ready");
                    }
                }
            }
        }
    }
    std::cout << "  max relative error of the averages: " << maxError << std::endl;
    NS_TEST_EXPECT_MSG_GT(maxSpread, 0.1, "the islands' contributions differ (a real test)");

    const TrainingResults& results = *run.results;
    NS_TEST_EXPECT_MSG_EQ(results.IsComplete(), true, "every island ran every round");
    NS_TEST_EXPECT_MSG_EQ(results.GetRoundsVerified(), m_nRounds, "results verify every round");
    NS_TEST_EXPECT_MSG_LT_OR_EQ(results.GetMaxRelError(), 1e-6, "results' shadow verification");

    if (m_lossRate == 0)
    {
        for (uint32_t d = 0; d < topology.GetNDirectedLinks(); ++d)
        {
            NS_TEST_EXPECT_MSG_EQ_TOL(static_cast<double>(results.GetLinkCounters(d).modelBytes),
                                      expectedLinkModelBytes[d],
                                      0.01 * expectedLinkModelBytes[d],
                                      "model bytes on " << topology.GetDirectedLinkName(d));
            NS_TEST_EXPECT_MSG_EQ(results.GetLinkCounters(d).queueDrops,
                                  0u,
                                  "no queue drop on " << topology.GetDirectedLinkName(d));
        }
        NS_TEST_EXPECT_MSG_EQ(observed.repairRequests, 0u, "no repair without loss");
        NS_TEST_EXPECT_MSG_EQ(observed.resends, 0u, "no resend without loss");
    }
    else
    {
        std::cout << "  " << observed.lost.size() << " chunks lost, " << observed.repairRequests
                  << " NACKs, " << observed.resends << " chunks resent" << std::endl;
        NS_TEST_EXPECT_MSG_GT(observed.lost.size(), 0u, "the error models dropped chunks");
        NS_TEST_EXPECT_MSG_GT(observed.repairRequests, 0u, "repairs were requested");
        for (const ChunkKey& key : observed.lost)
        {
            NS_TEST_EXPECT_MSG_EQ(observed.resent.count(key),
                                  1u,
                                  "lost chunk " << std::get<3>(key) << " of round "
                                                << std::get<0>(key) << " was resent");
        }
        uint64_t repairs = 0;
        for (uint32_t i = 0; i < n; ++i)
        {
            repairs += results.GetIslandCounters(i).repairs;
        }
        NS_TEST_EXPECT_MSG_EQ(repairs, observed.resends, "results count the repairs");
    }
    EndSimulation();
}

/**
 * @ingroup wan-training-tests
 * @brief Exchange time of one round against the schedule model (doc/schedule-model.rst, "Time").
 *
 * The communication time of every clique (from its last member's exchange start to its last
 * member's end) must be within 5% of Lat(C) + max_l 8 S n_l / capacity_l. For an uncontended
 * pair the expected value is computed here from the topology's link numbers; for a contended
 * round it is ScheduleMetrics' T_comm.
 */
class TrainingIslandTimeTestCase : public TestCase
{
  public:
    /**
     * @param name the case name
     * @param round the one round of the schedule
     * @param modelBytes ModelBytes
     */
    TrainingIslandTimeTestCase(const std::string& name,
                               CliqueSchedule::Round round,
                               uint64_t modelBytes);

  private:
    void DoRun() override;

    CliqueSchedule::Round m_round; //!< the round
    uint64_t m_modelBytes;         //!< ModelBytes
};

TrainingIslandTimeTestCase::TrainingIslandTimeTestCase(const std::string& name,
                                                       CliqueSchedule::Round round,
                                                       uint64_t modelBytes)
    : TestCase(name),
      m_round(std::move(round)),
      m_modelBytes(modelBytes)
{
}

void
TrainingIslandTimeTestCase::DoRun()
{
    TrainingRun run(CreateDataDirFilename(NINE_CITY));
    const WanTopology& topology = run.topology;
    const double s = static_cast<double>(m_modelBytes);
    double expectedS = 0;
    if (m_round.size() == 1 && m_round[0].size() == 2)
    {
        // An uncontended pair: one stream per direction, each alone on its links.
        uint32_t a = m_round[0][0];
        uint32_t b = m_round[0][1];
        for (auto [src, dst] : {std::make_pair(a, b), std::make_pair(b, a)})
        {
            const WanRoute& route = topology.GetRoute(src, dst);
            double latencyMs = 0;
            double capacityGbps = std::numeric_limits<double>::infinity();
            for (uint32_t d : route.links)
            {
                latencyMs += topology.GetDirectedLinkLatencyMs(d);
                capacityGbps = std::min(capacityGbps, topology.GetDirectedLinkCapacityGbps(d));
            }
            expectedS = std::max(expectedS, latencyMs * 1e-3 + 8 * s / (capacityGbps * 1e9));
        }
    }
    else
    {
        ScheduleMetrics::Settings settings;
        settings.modelBytes = s;
        ScheduleMetrics metrics(topology, settings);
        expectedS = metrics.GetRoundCost(m_round, CapabilityMode::UNICAST).commS;
    }

    Simulate(run, {m_round}, 1, m_modelBytes, 1024, 0, 0);
    double measuredS = 0;
    for (const auto& clique : m_round)
    {
        double start = 0;
        double end = 0;
        for (uint32_t i : clique)
        {
            NS_TEST_ASSERT_MSG_EQ(run.observed.finishS.count({0, i}), 1u, "the round ended");
            start = std::max(start, run.observed.exchangeS.at({0, i}));
            end = std::max(end, run.observed.finishS.at({0, i}));
        }
        measuredS = std::max(measuredS, end - start);
    }
    double ratio = measuredS / expectedS;
    std::cout << "  " << GetName() << ": simulated " << measuredS * 1e3 << " ms, model "
              << expectedS * 1e3 << " ms, ratio " << ratio << std::endl;
    NS_TEST_EXPECT_MSG_EQ_TOL(ratio, 1.0, 0.05, "within 5% of the schedule model's time");
    NS_TEST_EXPECT_MSG_EQ(run.observed.repairRequests, 0u, "no repair: pacing never overloads");
    for (uint32_t d = 0; d < topology.GetNDirectedLinks(); ++d)
    {
        NS_TEST_EXPECT_MSG_EQ(run.results->GetLinkCounters(d).queueDrops,
                              0u,
                              "no queue drop on " << topology.GetDirectedLinkName(d));
    }
    EndSimulation();
}

/**
 * @ingroup wan-training-tests
 * @brief TrainingHelper's round times: GetCliqueRoundTime() and GetRoundTime() after
 * EnableRoundTimes() against the times computed here from the test's own RoundStarted and
 * RoundFinished sinks (last member's start to last member's end, the rounds mapped onto the
 * schedule's period); negative before the run and for a round that was not run.
 */
class TrainingHelperRoundTimesTestCase : public TestCase
{
  public:
    TrainingHelperRoundTimesTestCase();

  private:
    void DoRun() override;
};

TrainingHelperRoundTimesTestCase::TrainingHelperRoundTimesTestCase()
    : TestCase("TrainingHelper: clique and round times from the round traces")
{
}

void
TrainingHelperRoundTimesTestCase::DoRun()
{
    const WanTopology topology = WanTopology::LoadFile(CreateDataDirFilename(NINE_CITY));
    const uint32_t n = topology.GetNCities();
    // Two schedule rounds, run three times: run round 2 takes the cliques of schedule round 0.
    const CliqueSchedule schedule(n, {{{0, 1}, {2, 3, 4}}, {{5, 6, 7, 8}, {0, 3}}});
    const uint32_t rounds = 3;
    WanTopologyHelper scenario(topology);
    scenario.Install();
    TrainingHelper training(scenario, schedule);
    training.SetMode(CapabilityMode::UNICAST);
    training.SetAttribute("Rounds", UintegerValue(rounds));
    training.SetAttribute("ModelBytes", UintegerValue(40000));
    training.SetAttribute("LocalSteps", UintegerValue(2));
    training.SetAttribute("StepTime", TimeValue(MilliSeconds(1)));
    ApplicationContainer apps = training.Install();
    training.EnableRoundTimes(apps);
    Observed observed;
    for (auto app = apps.Begin(); app != apps.End(); ++app)
    {
        (*app)->TraceConnectWithoutContext("RoundStarted",
                                           MakeBoundCallback(&OnRoundStarted, &observed));
        (*app)->TraceConnectWithoutContext("RoundFinished",
                                           MakeBoundCallback(&OnRoundFinished, &observed));
    }
    NS_TEST_ASSERT_MSG_EQ(training.GetCliqueRoundTime(0, 0).IsStrictlyNegative(),
                          true,
                          "no time before the run");
    NS_TEST_ASSERT_MSG_EQ(training.GetRoundTime(0).IsStrictlyNegative(),
                          true,
                          "no round time before the run");

    Simulator::Run();
    for (uint32_t r = 0; r < rounds; ++r)
    {
        const CliqueSchedule::Round& cliques = schedule.GetRound(r % schedule.GetNRounds());
        double longestS = 0;
        for (uint32_t c = 0; c < cliques.size(); ++c)
        {
            double startS = 0;
            double endS = 0;
            for (uint32_t island : cliques[c])
            {
                NS_TEST_ASSERT_MSG_EQ(observed.finishS.count({r, island}), 1u, "round ended");
                startS = std::max(startS, observed.startS.at({r, island}));
                endS = std::max(endS, observed.finishS.at({r, island}));
            }
            NS_TEST_ASSERT_MSG_GT(endS - startS, 0, "a clique takes time");
            NS_TEST_EXPECT_MSG_EQ_TOL(training.GetCliqueRoundTime(r, c).GetSeconds(),
                                      endS - startS,
                                      1e-9,
                                      "round " << r << " clique " << c);
            longestS = std::max(longestS, endS - startS);
        }
        NS_TEST_EXPECT_MSG_EQ_TOL(training.GetRoundTime(r).GetSeconds(),
                                  longestS,
                                  1e-9,
                                  "round " << r << ": its longest clique");
    }
    NS_TEST_EXPECT_MSG_EQ(training.GetCliqueRoundTime(rounds, 0).IsStrictlyNegative(),
                          true,
                          "no time for a round that was not run");
    NS_TEST_EXPECT_MSG_EQ(training.GetRoundTime(rounds).IsStrictlyNegative(),
                          true,
                          "no round time for a round that was not run");
    EndSimulation();
}

/**
 * @ingroup wan-training-tests
 * @brief UsesMulticast, UsesAggregation and CheckMode: which modes need which
 * capability, and the WanConfigError (field `mode`) for tree and for a topology that lacks one.
 */
class TrainingHelperCheckModeTestCase : public TestCase
{
  public:
    TrainingHelperCheckModeTestCase();

  private:
    void DoRun() override;

    /**
     * @param topology a topology
     * @param mode a mode
     * @return the reason CheckMode gives (its field checked to be `mode`), empty when it accepts
     */
    std::string Reason(const WanTopology& topology, CapabilityMode mode);
};

TrainingHelperCheckModeTestCase::TrainingHelperCheckModeTestCase()
    : TestCase("TrainingHelper: the capabilities a mode needs")
{
}

std::string
TrainingHelperCheckModeTestCase::Reason(const WanTopology& topology, CapabilityMode mode)
{
    try
    {
        TrainingHelper::CheckMode(topology, mode);
    }
    catch (const WanConfigError& error)
    {
        NS_TEST_EXPECT_MSG_EQ(error.GetField(), "mode", "the error names the field");
        return error.GetReason();
    }
    return "";
}

void
TrainingHelperCheckModeTestCase::DoRun()
{
    using M = CapabilityMode;
    for (M mode : {M::UNICAST, M::MULTICAST, M::AGGREGATION, M::BOTH, M::RING, M::TREE})
    {
        const std::string name = CapabilityModeToString(mode);
        const bool groups = name == "multicast" || name == "both" || name == "tree";
        const bool summed = name == "aggregation" || name == "both" || name == "tree";
        NS_TEST_EXPECT_MSG_EQ(UsesMulticast(mode), groups, name << " sends to groups");
        NS_TEST_EXPECT_MSG_EQ(UsesAggregation(mode), summed, name << " is summed");
    }

    const std::string file = CreateDataDirFilename(NINE_CITY);
    const WanTopology nineCity = WanTopology::LoadFile(file);
    for (M mode : {M::UNICAST, M::MULTICAST, M::AGGREGATION, M::BOTH, M::RING, M::TREE})
    {
        NS_TEST_EXPECT_MSG_EQ(Reason(nineCity, mode), "", "the nine cities can do every mode");
    }

    // The nine cities without FPGAs that sum on the routers: every mode but tree.
    std::ifstream in(file);
    nlohmann::json document = nlohmann::json::parse(in);
    document["capabilities"]["core"] = false;
    const WanTopology noCore = WanTopology::Parse(document.dump(), "no-core.json");
    for (M mode : {M::UNICAST, M::MULTICAST, M::AGGREGATION, M::BOTH, M::RING})
    {
        NS_TEST_EXPECT_MSG_EQ(Reason(noCore, mode), "", "no core: every mode but tree");
    }
    NS_TEST_EXPECT_MSG_EQ(Reason(noCore, M::TREE),
                          "mode 'tree' needs FPGAs that sum on the routers, but topology '" +
                              noCore.GetName() + "' has capabilities.core false",
                          "tree needs core");

    // The nine cities without in-line aggregation (nor core, which needs it).
    document["capabilities"]["aggregation"] = false;
    const WanTopology noFpga = WanTopology::Parse(document.dump(), "no-fpga.json");
    NS_TEST_EXPECT_MSG_EQ(Reason(noFpga, M::MULTICAST), "", "multicast needs no FPGA");
    for (const std::string name : {"aggregation", "both", "tree"})
    {
        NS_TEST_EXPECT_MSG_EQ(Reason(noFpga, CapabilityModeFromString(name)),
                              "mode '" + name + "' needs in-line aggregation, but topology '" +
                                  noFpga.GetName() + "' has capabilities.aggregation false",
                              name << " needs FPGAs");
    }

    // A topology without capabilities: neither multicast nor aggregation.
    const WanTopology tiny = WanTopology::LoadFile(CreateDataDirFilename("data/tiny-valid.json"));
    NS_TEST_EXPECT_MSG_EQ(Reason(tiny, M::UNICAST), "", "unicast needs nothing");
    NS_TEST_EXPECT_MSG_EQ(Reason(tiny, M::RING), "", "the ring needs nothing");
    for (const std::string name : {"multicast", "both", "tree"})
    {
        NS_TEST_EXPECT_MSG_EQ(Reason(tiny, CapabilityModeFromString(name)),
                              "mode '" + name +
                                  "' needs multicast, but topology 'tiny' has "
                                  "capabilities.multicast false",
                              name << " needs multicast routers");
    }
    NS_TEST_EXPECT_MSG_EQ(Reason(tiny, M::AGGREGATION),
                          "mode 'aggregation' needs in-line aggregation, but topology 'tiny' has "
                          "capabilities.aggregation false",
                          "aggregation needs FPGAs");
}

/**
 * @ingroup wan-training-tests
 * @brief The default TrainingIslandApplication suite.
 */
class TrainingIslandTestSuite : public TestSuite
{
  public:
    TrainingIslandTestSuite();
};

TrainingIslandTestSuite::TrainingIslandTestSuite()
    : TestSuite("wan-training-training-island", SYSTEM)
{
    SetDataDir(NS_TEST_SOURCEDIR);
    // Cliques of every size 2..9 on the nine cities (nyc chi lax lon ams fra prg tyo sin).
    std::vector<CliqueSchedule::Round> sizes{
        {{0, 1}, {2, 3, 4}, {5, 6, 7, 8}},
        {{8, 7, 6, 5, 4}, {0, 1, 2, 3}},
        {{3, 4, 5, 6, 7, 8}, {0, 1, 2}},
        {{1, 2, 3, 4, 5, 6, 7}, {0, 8}},
        {{0, 1, 2, 3, 4, 5, 7, 8}},
        {{0, 1, 2, 3, 4, 5, 6, 7, 8}},
    };
    AddTestCase(new TrainingIslandAveragesTestCase("exact averages, cliques of 2..9, lossless",
                                                   sizes,
                                                   6,
                                                   200000,
                                                   0),
                TestCase::QUICK);
    // Latin triples then everyone, twice, with 1% loss on every WAN link.
    std::vector<CliqueSchedule::Round> lossy{
        {{0, 1, 2}, {3, 4, 5}, {6, 7, 8}},
        {{0, 3, 6}, {1, 4, 7}, {2, 5, 8}},
        {{0, 1, 2, 3, 4, 5, 6, 7, 8}},
    };
    AddTestCase(new TrainingIslandAveragesTestCase("exact averages with 1% loss on WAN links",
                                                   lossy,
                                                   6,
                                                   300000,
                                                   0.01),
                TestCase::QUICK);
    // lon-ams: 2.98 ms one way, a bandwidth-delay product of 3.7 MB; S = 100 MB.
    AddTestCase(
        new TrainingIslandTimeTestCase("uncontended pair lon-ams, 100 MB", {{3, 4}}, 100000000),
        TestCase::QUICK);
    AddTestCase(new TrainingIslandTimeTestCase("contended all-island round, 10 MB",
                                               {{0, 1, 2, 3, 4, 5, 6, 7, 8}},
                                               10000000),
                TestCase::QUICK);
    AddTestCase(new TrainingHelperRoundTimesTestCase, TestCase::QUICK);
    AddTestCase(new TrainingHelperCheckModeTestCase, TestCase::QUICK);
}

/** Static instance of the suite. */
static TrainingIslandTestSuite g_trainingIslandTestSuite;

/**
 * @ingroup wan-training-tests
 * @brief The long TrainingIslandApplication suite: a 1 GB model.
 */
class TrainingIslandLongTestSuite : public TestSuite
{
  public:
    TrainingIslandLongTestSuite();
};

TrainingIslandLongTestSuite::TrainingIslandLongTestSuite()
    : TestSuite("wan-training-training-island-long", SYSTEM)
{
    SetDataDir(NS_TEST_SOURCEDIR);
    // nyc-lon: 33.7 ms one way, a bandwidth-delay product of 42 MB; S = 1 GB.
    AddTestCase(
        new TrainingIslandTimeTestCase("uncontended pair nyc-lon, 1 GB", {{0, 3}}, 1000000000),
        TestCase::QUICK);
}

/** Static instance of the long suite. */
static TrainingIslandLongTestSuite g_trainingIslandLongTestSuite;
