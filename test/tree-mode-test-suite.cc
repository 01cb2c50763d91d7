/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "aggregator-net-device.h"
#include "clique-schedule.h"
#include "exchange-plan.h"
#include "fault-plan.h"
#include "fixed-point-sum.h"
#include "inline-fpga.h"
#include "island-sync-header.h"
#include "link-load-model.h"
#include "schedule-metrics.h"
#include "training-island-application.h"
#include "training-mode-test-run.h"
#include "training-results.h"
#include "training-run.h"
#include "wan-topology-helper.h"
#include "wan-topology.h"

#include "ns3/ipv4-header.h"
#include "ns3/packet.h"
#include "ns3/ppp-header.h"
#include "ns3/simulator.h"
#include "ns3/test.h"

#include <algorithm>
#include <cmath>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

/**
 * @file
 * @ingroup wan-training-tests
 * Tree mode on the wire (issue 19): in-network reduction by the in-line FPGA of every router
 * (InlineFpga, AggregatorNetDevice tree expectations) toward the clique's root, which adds its
 * own values and multicasts the total. On the reference WAN: the streams per directed link
 * equal the schedule model's tree row (1 on the union of the routes i -> root and root -> i, 0
 * elsewhere; the links worked out here from the routes and the root, the root recomputed here
 * from the route latencies); an uncontended round is within 5% of T_comm (the closed form
 * recomputed here); every aggregate an FPGA sends and every total the root sends equals the
 * double sum of the contributions it names within its float32 roundings, and every partial
 * aggregate is addressed to the root; loss, duplication, reordering, a link down mid-round, a
 * crashed member, a crashed root (the round falls back to unicast among the rest, in a new
 * epoch) and a straggler: every completed round is verified, every other one is reported, and
 * the run ends by itself.
 */

using namespace ns3;

namespace
{

/** The reference WAN, relative to the test data directory. */
const std::string REFERENCE_WAN = "../topologies/reference-wan.json";
/** float32's relative rounding bound (half an ulp at 1): 2^-24. */
const double HALF_ULP = std::ldexp(1.0, -24);

/**
 * @param clique a clique
 * @return its member bitmap
 */
uint64_t
Bits(const CliqueSchedule::Clique& clique)
{
    uint64_t bits = 0;
    for (uint32_t member : clique)
    {
        bits |= uint64_t{1} << member;
    }
    return bits;
}

/**
 * @param topology the WAN
 * @param ids city ids
 * @return their indices
 */
CliqueSchedule::Clique
Cities(const WanTopology& topology, const std::vector<std::string>& ids)
{
    CliqueSchedule::Clique clique;
    for (const std::string& id : ids)
    {
        clique.push_back(topology.GetCityIndex(id));
    }
    std::sort(clique.begin(), clique.end());
    return clique;
}

/**
 * @param latencyMs a route latency
 * @return it in whole nanoseconds (the wire compares latencies exactly)
 */
int64_t
Nanoseconds(double latencyMs)
{
    return std::llround(latencyMs * 1e6);
}

/**
 * @brief The tree root recomputed from the routes: the member with the smallest largest route
 * latency into it plus largest route latency out of it (whole nanoseconds), then the smallest
 * index.
 * @param topology the WAN
 * @param clique the members
 * @return the root
 */
uint32_t
RecomputeRoot(const WanTopology& topology, const CliqueSchedule::Clique& clique)
{
    uint32_t best = clique.front();
    int64_t bestScore = INT64_MAX;
    for (uint32_t root : clique)
    {
        int64_t into = 0;
        int64_t out = 0;
        for (uint32_t member : clique)
        {
            if (member != root)
            {
                into = std::max(into, Nanoseconds(topology.GetRoute(member, root).latencyMs));
                out = std::max(out, Nanoseconds(topology.GetRoute(root, member).latencyMs));
            }
        }
        if (into + out < bestScore || (into + out == bestScore && root < best))
        {
            best = root;
            bestScore = into + out;
        }
    }
    return best;
}

/**
 * @param topology the WAN
 * @param clique the members
 * @param root the root
 * @return the directed links of the routes member -> root and root -> member
 */
std::set<uint32_t>
TreeLinks(const WanTopology& topology, const CliqueSchedule::Clique& clique, uint32_t root)
{
    std::set<uint32_t> links;
    for (uint32_t member : clique)
    {
        if (member == root)
        {
            continue;
        }
        for (uint32_t d : topology.GetRoute(member, root).links)
        {
            links.insert(d);
        }
        for (uint32_t d : topology.GetRoute(root, member).links)
        {
            links.insert(d);
        }
    }
    return links;
}

/**
 * @param topology the WAN
 * @param clique the members
 * @return the most links on a route between two members (an upper bound on how many FPGAs
 *         summed into one partial aggregate, one after another)
 */
uint32_t
LongestRoute(const WanTopology& topology, const CliqueSchedule::Clique& clique)
{
    std::size_t longest = 0;
    for (uint32_t a : clique)
    {
        for (uint32_t b : clique)
        {
            if (a != b)
            {
                longest = std::max(longest, topology.GetRoute(a, b).links.size());
            }
        }
    }
    return static_cast<uint32_t>(longest);
}

/**
 * @ingroup wan-training-tests
 * @brief Sinks of a tree-mode run beyond TrainingModeTestRun's: the aggregates of every FPGA
 * port (AggregateOut), every AGGREGATE on every directed link (PhyTxBegin: its IPv4 source and
 * destination), the NACKs per requester (RepairRequested) and the abandoned rounds.
 *
 * Each aggregate and each total is compared with the double sum of the contributions its
 * bitmap names (the contributors' parameters at their exchange start, TrainingModeTestRun::pre)
 * within R float32 roundings of the sum of their magnitudes, R = the most links on a route of
 * the clique for an FPGA aggregate, one more for a total. Why: an FPGA sums in double and rounds
 * once to float32 (relative error at most 2^-24 of what it rounds, itself at most the sum of
 * the magnitudes below it); a contribution crosses at most one FPGA port per link of its route
 * to the root, and the root rounds the total once more. The double sums of at most 64 float32
 * terms add at most 64 x 2^-53 of the magnitudes, which the relative slack of 1e-9 covers.
 */
class TreeObserver
{
  public:
    /**
     * @param roundings R of an FPGA aggregate
     */
    explicit TreeObserver(uint32_t roundings)
        : m_roundings(roundings)
    {
    }

    /**
     * @param run the run whose contributions are the reference (pre)
     */
    void SetReference(const TrainingModeTestRun* run)
    {
        m_run = run;
    }

    /**
     * @brief Connect the sinks (TrainingModeTestRun::Config::onBuilt).
     * @param run the built run
     */
    void Connect(TrainingRun& run)
    {
        const WanTopologyHelper& scenario = run.GetScenario();
        const WanTopology& topology = run.GetTopology();
        m_scenario = &scenario;
        m_schedule = &run.GetSchedule();
        m_model = std::make_unique<LinkLoadModel>(topology);
        m_apps.clear();
        for (uint32_t city = 0; city < topology.GetNCities(); ++city)
        {
            if (Ptr<InlineFpga> fpga = scenario.GetFpga(city))
            {
                for (AggregatorNetDevice* port : fpga->GetPorts())
                {
                    port->TraceConnectWithoutContext(
                        "AggregateOut",
                        MakeCallback(&TreeObserver::OnAggregate, this).Bind(city));
                }
            }
            Ptr<TrainingIslandApplication> app = run.GetApp(city);
            app->TraceConnectWithoutContext("RepairRequested",
                                            MakeCallback(&TreeObserver::OnRepair, this));
            app->TraceConnectWithoutContext("RoundAbandoned",
                                            MakeCallback(&TreeObserver::OnAbandoned, this));
            // Raw pointers: a Ptr bound into the app's own trace would keep it alive.
            m_apps.push_back(PeekPointer(app));
            app->TraceConnectWithoutContext("RoundFinished",
                                            MakeCallback(&TreeObserver::OnRoundFinished, this));
        }
        for (uint32_t d = 0; d < topology.GetNDirectedLinks(); ++d)
        {
            scenario.GetTxDevice(d)->TraceConnectWithoutContext(
                "PhyTxBegin",
                MakeCallback(&TreeObserver::OnTx, this));
        }
    }

    /**
     * @param round a round
     * @param cliqueIndex a clique index of its schedule round
     * @return the clique's members
     */
    const CliqueSchedule::Clique& GetClique(uint32_t round, uint32_t cliqueIndex) const
    {
        return m_schedule->GetRound(round % m_schedule->GetNRounds()).at(cliqueIndex);
    }

    /**
     * @param round a round
     * @param cliqueIndex a clique index of its schedule round
     * @return the clique's root
     */
    uint32_t GetRoot(uint32_t round, uint32_t cliqueIndex) const
    {
        return m_model->GetTreeRoot(GetClique(round, cliqueIndex));
    }

    uint64_t aggregates{0};        //!< FPGA aggregates checked
    uint64_t partialAggregates{0}; //!< of which incomplete (Timeout)
    uint64_t nonRootAggregates{0}; //!< FPGA aggregates of a router other than the root's
    uint64_t transitAggregates{0}; //!< FPGA aggregates of a router whose island is no member
    uint64_t partialsOnWire{0};    //!< FPGA aggregates seen leaving on a link
    uint64_t partialsNotToRoot{0}; //!< of which not addressed to the root island
    uint64_t totals{0};            //!< totals (and total repairs) of a root seen on a link
    uint64_t sumsChecked{0};       //!< values compared with their exact sums
    uint64_t outOfBound{0};        //!< values beyond the bound
    double worstRatio{0}; //!< largest |value - exact sum| / (2^-24 x the sum of magnitudes)
    std::map<uint32_t, uint64_t> nacksBy; //!< NACKs (RepairRequested) per requesting island
    std::map<std::pair<uint32_t, uint32_t>, std::string> abandoned; //!< (round, island) -> why
    /** (round, island) -> the island's plan of the round when it ended the round (the view
     * after its exclusions; TrainingIslandApplication forgets it later) */
    std::map<std::pair<uint32_t, uint32_t>, ExchangePlan> plans;

  private:
    /**
     * @brief Compare the values of a sum with the double sum of its contributors' values.
     * @param header the aggregate or total
     * @param roundings how many float32 roundings it may hold
     */
    void CheckSum(const IslandSyncHeader& header, uint32_t roundings)
    {
        const std::vector<float>& values = header.GetValues();
        for (std::size_t v = 0; v < values.size(); ++v)
        {
            double sum = 0;
            double magnitude = 0;
            for (uint32_t j = 0; j < IslandSyncHeader::MAX_ISLANDS; ++j)
            {
                if (header.GetContributors() & (uint64_t{1} << j))
                {
                    const double x =
                        m_run->pre.at({header.GetRound(), j}).at(header.GetValueOffset() + v);
                    sum += x;
                    magnitude += std::abs(x);
                }
            }
            const double error = std::abs(static_cast<double>(values[v]) - sum);
            ++sumsChecked;
            // Each float32 rounding, plus the FPGAs' fixed-point conversions: at most one per
            // contributor and router input, half an LSB each (FixedPointSum).
            const double bound = roundings * HALF_ULP * magnitude * (1 + 1e-9) +
                                 header.GetContributorCount() * FixedPointSum::RESOLUTION;
            outOfBound += error > bound ? 1 : 0;
            if (magnitude > 0)
            {
                worstRatio = std::max(worstRatio, error / (HALF_ULP * magnitude));
            }
        }
    }

    /**
     * @param city the FPGA's city
     * @param header the aggregate
     * @param complete whether every expected contribution is in it
     */
    void OnAggregate(uint32_t city, const IslandSyncHeader& header, bool complete)
    {
        ++aggregates;
        partialAggregates += complete ? 0 : 1;
        nonRootAggregates += city != GetRoot(header.GetRound(), header.GetCliqueIndex()) ? 1 : 0;
        const CliqueSchedule::Clique& clique =
            GetClique(header.GetRound(), header.GetCliqueIndex());
        transitAggregates += std::find(clique.begin(), clique.end(), city) == clique.end() ? 1 : 0;
        CheckSum(header, m_roundings);
    }

    /**
     * @param packet a frame a transmitting device starts to send
     */
    void OnTx(Ptr<const Packet> packet)
    {
        IslandSyncHeader sync;
        if (IslandSyncHeader::ReadFromPacket(packet,
                                             IslandSyncHeader::PPP_FRAME,
                                             TrainingIslandApplication::DEFAULT_PORT,
                                             sync) == 0 ||
            sync.GetType() != IslandSyncHeader::AGGREGATE)
        {
            return;
        }
        Ptr<Packet> copy = packet->Copy();
        PppHeader ppp;
        Ipv4Header ip;
        copy->RemoveHeader(ppp);
        copy->RemoveHeader(ip);
        const Ipv4Address root =
            m_scenario->GetIslandAddress(GetRoot(sync.GetRound(), sync.GetCliqueIndex()));
        if (ip.GetSource() == root)
        {
            // A total (to the group, or a repair to a member): one more rounding, the root's.
            ++totals;
            CheckSum(sync, m_roundings + 1);
            return;
        }
        ++partialsOnWire;
        partialsNotToRoot += ip.GetDestination() == root ? 0 : 1;
    }

    /**
     * @param island the requester
     * @param source the contributor asked
     * @param round the round
     * @param chunks chunks requested
     */
    void OnRepair(uint32_t island, uint32_t /* source */, uint32_t /* round */, uint32_t chunks)
    {
        nacksBy[island] += chunks > 0 ? 1 : 0;
    }

    /**
     * @param island the island
     * @param round the round
     * @param clique its clique
     * @param reason why
     */
    void OnAbandoned(uint32_t island,
                     uint32_t round,
                     uint32_t /* clique */,
                     const std::string& reason)
    {
        abandoned[{round, island}] = reason;
    }

    /**
     * @param island the island
     * @param round the round
     * @param clique its clique
     * @param parameters its new parameters
     */
    void OnRoundFinished(uint32_t island,
                         uint32_t round,
                         uint32_t /* clique */,
                         const std::vector<float>& /* parameters */)
    {
        plans[{round, island}] = m_apps.at(island)->GetPlan(round);
    }

    uint32_t m_roundings;                                 //!< R of an FPGA aggregate
    const TrainingModeTestRun* m_run{nullptr};            //!< the reference contributions
    const WanTopologyHelper* m_scenario{nullptr};         //!< the scenario
    const CliqueSchedule* m_schedule{nullptr};            //!< the schedule
    std::unique_ptr<LinkLoadModel> m_model;               //!< the roots
    std::vector<const TrainingIslandApplication*> m_apps; //!< the applications, by city
};

/**
 * @brief Run a tree-mode configuration with a TreeObserver connected.
 * @param config the configuration (its onBuilt is replaced)
 * @param observer the observer
 * @return the run, after Run()
 */
std::unique_ptr<TrainingModeTestRun>
RunObserved(TrainingModeTestRun::Config config, TreeObserver& observer)
{
    config.onBuilt = [&observer](TrainingRun& built) { observer.Connect(built); };
    auto run = std::make_unique<TrainingModeTestRun>(config);
    observer.SetReference(run.get());
    run->Run();
    return run;
}

/**
 * @param config a run's configuration (topologyFile and rounds set)
 * @return R of its FPGA aggregates: the most links on a route inside one of its cliques
 */
uint32_t
Roundings(const TrainingModeTestRun::Config& config)
{
    const WanTopology topology = WanTopology::LoadFile(config.topologyFile);
    uint32_t roundings = 1;
    for (const CliqueSchedule::Round& round : config.rounds)
    {
        for (const CliqueSchedule::Clique& clique : round)
        {
            if (clique.size() >= 2)
            {
                roundings = std::max(roundings, LongestRoute(topology, clique));
            }
        }
    }
    return roundings;
}

/**
 * @param topology the reference WAN
 * @return round 0: the all-island clique; round 1: CHI LAX LON AMS TYO SIN (whose routes to
 *         their root cross routers of the others) and NYC FRA HKG
 */
std::vector<CliqueSchedule::Round>
TwoTreeRounds(const WanTopology& topology)
{
    return {{Cities(topology, {"NYC", "CHI", "LAX", "LON", "FRA", "AMS", "TYO", "SIN", "HKG"})},
            {Cities(topology, {"CHI", "LAX", "LON", "AMS", "TYO", "SIN"}),
             Cities(topology, {"NYC", "FRA", "HKG"})}};
}

/**
 * @param file the topology file
 * @param rounds the schedule's rounds
 * @param nRounds rounds to run
 * @param modelBytes S
 * @return a tree-mode run of them, without per-chunk link counts
 */
TrainingModeTestRun::Config
TreeConfig(const std::string& file,
           std::vector<CliqueSchedule::Round> rounds,
           uint32_t nRounds,
           uint64_t modelBytes)
{
    TrainingModeTestRun::Config config;
    config.topologyFile = file;
    config.mode = CapabilityMode::TREE;
    config.rounds.swap(rounds);
    config.nRounds = nRounds;
    config.modelBytes = modelBytes;
    config.recordChunks = false;
    return config;
}

/**
 * @param topology the WAN
 * @param clique a clique
 * @return the clique as city ids, for messages
 */
std::string
Names(const WanTopology& topology, const CliqueSchedule::Clique& clique)
{
    std::string text;
    for (uint32_t member : clique)
    {
        text += (text.empty() ? "" : " ") + topology.GetCity(member).id;
    }
    return text;
}

} // namespace

/**
 * @ingroup wan-training-tests
 * @brief Lossless tree rounds on the reference WAN (TwoTreeRounds): streams per directed link,
 * exact sums at every router, partial aggregates toward the root.
 *
 * Per round and directed link, the model bytes on the wire / S (PhyTxBegin) equal 1 on the
 * links of the routes member -> root and root -> member worked out here (the root recomputed
 * here from the route latencies, and equal to LinkLoadModel::GetTreeRoot), summed over the
 * round's cliques, and 0 elsewhere; LinkLoadModel::GetCliqueLoads(clique, TREE) says the same;
 * the results JSON's links.*.model_streams is the sum over the rounds. Every aggregate of every
 * FPGA port and every total of a root equals the double sum of its contributors within its
 * float32 roundings (TreeObserver); no aggregate is partial; every FPGA aggregate on a link is
 * addressed to the root island; FPGAs other than the root's summed, transit routers (of
 * islands outside the clique) among them; the results JSON's router counters are the sums over
 * the router's ports and equal InlineFpga's; nothing is repaired; every round is verified and
 * the run passed.
 */
class TreeStreamsTestCase : public TestCase
{
  public:
    TreeStreamsTestCase()
        : TestCase("reference WAN, lossless: streams per link = the tree row, exact sums at every "
                   "router, partial aggregates toward the root")
    {
    }

  private:
    void DoRun() override
    {
        const std::string file = CreateDataDirFilename(REFERENCE_WAN);
        const WanTopology topology = WanTopology::LoadFile(file);
        const LinkLoadModel model(topology);
        TrainingModeTestRun::Config config = TreeConfig(file, TwoTreeRounds(topology), 2, 1000000);
        config.parameterCount = 20000; // 80 kB of real values in the first chunks
        TreeObserver observer(Roundings(config));
        std::unique_ptr<TrainingModeTestRun> run = RunObserved(config, observer);

        const uint32_t links = topology.GetNDirectedLinks();
        std::vector<double> overRounds(links, 0.0);
        uint64_t checked = 0;
        for (uint32_t r = 0; r < config.nRounds; ++r)
        {
            std::vector<double> expected(links, 0.0);
            std::vector<double> row(links, 0.0);
            for (const CliqueSchedule::Clique& clique : config.rounds[r])
            {
                const uint32_t root = RecomputeRoot(topology, clique);
                NS_TEST_EXPECT_MSG_EQ(model.GetTreeRoot(clique),
                                      root,
                                      "the load model's root of " << Names(topology, clique));
                std::set<uint32_t> tree = TreeLinks(topology, clique, root);
                std::cout << "  round " << r << ": clique " << Names(topology, clique) << ", root "
                          << topology.GetCity(root).id << ", " << tree.size() << " directed links"
                          << std::endl;
                for (uint32_t d : tree)
                {
                    expected[d] += 1;
                }
                const std::vector<double> loads =
                    model.GetCliqueLoads(clique, CapabilityMode::TREE);
                for (uint32_t d = 0; d < links; ++d)
                {
                    row[d] += loads[d];
                }
            }
            const std::vector<double> measured = run->GetRoundLinkStreams(r);
            for (uint32_t d = 0; d < links; ++d)
            {
                const std::string where =
                    "round " + std::to_string(r) + ", " + topology.GetDirectedLinkName(d);
                NS_TEST_EXPECT_MSG_EQ_TOL(row[d], expected[d], 1e-12, where << ": the tree row");
                NS_TEST_EXPECT_MSG_EQ_TOL(measured[d], expected[d], 1e-9, where << ": streams");
                overRounds[d] += expected[d];
                ++checked;
            }
        }
        const nlohmann::json doc = nlohmann::json::parse(run->GetResults().ToJson());
        for (uint32_t d = 0; d < links; ++d)
        {
            const std::string name = topology.GetDirectedLinkName(d);
            NS_TEST_EXPECT_MSG_EQ_TOL(doc["links"][name]["model_streams"].get<double>(),
                                      overRounds[d],
                                      1e-9,
                                      name << ": model_streams in the results");
        }
        // The router counters are the sums of its ports'.
        const WanTopologyHelper& scenario = run->GetScenario();
        for (uint32_t city = 0; city < topology.GetNCities(); ++city)
        {
            const std::string id = topology.GetCity(city).id;
            const nlohmann::json& router = doc["fpga"][id];
            Ptr<InlineFpga> fpga = scenario.GetFpga(city);
            NS_TEST_ASSERT_MSG_NE(fpga, nullptr, id << " has an FPGA");
            NS_TEST_EXPECT_MSG_EQ(router["ports"].size(), fpga->GetPorts().size(), id << " ports");
            for (const std::string key :
                 {"contributions_in", "contributions_summed", "aggregates_out", "pass_throughs"})
            {
                uint64_t sum = 0;
                for (const auto& [link, port] : router["ports"].items())
                {
                    sum += port[key].get<uint64_t>();
                }
                NS_TEST_EXPECT_MSG_EQ(router[key].get<uint64_t>(), sum, id << ": " << key);
            }
            NS_TEST_EXPECT_MSG_EQ(router["contributions_summed"].get<uint64_t>(),
                                  fpga->GetContributionsSummed(),
                                  id << ": InlineFpga's contributions summed");
            NS_TEST_EXPECT_MSG_EQ(router["aggregates_out"].get<uint64_t>(),
                                  fpga->GetAggregatesOut(),
                                  id << ": InlineFpga's aggregates");
        }

        std::cout << "  " << checked << " (round, directed link) stream counts checked; "
                  << observer.aggregates << " FPGA aggregates (" << observer.nonRootAggregates
                  << " not at the root's router, " << observer.transitAggregates
                  << " at transit routers), " << observer.totals << " totals, "
                  << observer.sumsChecked << " values checked, largest error "
                  << observer.worstRatio << " x 2^-24 x sum |x| (bound " << Roundings(config)
                  << ", totals one more)" << std::endl;
        NS_TEST_EXPECT_MSG_GT(observer.sumsChecked, 0u, "sums were checked");
        NS_TEST_EXPECT_MSG_EQ(observer.outOfBound, 0u, "exact sums at every router and root");
        NS_TEST_EXPECT_MSG_EQ(observer.partialAggregates, 0u, "no partial aggregate");
        NS_TEST_EXPECT_MSG_GT(observer.nonRootAggregates, 0u, "routers below the root summed");
        NS_TEST_EXPECT_MSG_GT(observer.transitAggregates, 0u, "transit routers summed");
        NS_TEST_EXPECT_MSG_GT(observer.totals, 0u, "totals were checked");
        NS_TEST_EXPECT_MSG_GT(observer.partialsOnWire, 0u, "partial aggregates on the links");
        NS_TEST_EXPECT_MSG_EQ(observer.partialsNotToRoot, 0u, "partial aggregates go to the root");
        NS_TEST_EXPECT_MSG_EQ(run->nacks, 0u, "no repair without loss");
        NS_TEST_EXPECT_MSG_EQ(run->resends, 0u, "no resend without loss");
        NS_TEST_EXPECT_MSG_EQ(run->GetResults().GetRoundsVerified(), 2u, "every round verified");
        NS_TEST_EXPECT_MSG_EQ(run->GetRun().Passed(), true, "the run passed");
    }
};

/**
 * @ingroup wan-training-tests
 * @brief One uncontended tree round (the clique alone, no local steps) within 5% of the
 * schedule model's T_comm, recomputed here in its closed form: Lat = the largest route latency
 * into the root + the largest out of it, plus 8 S / (the smallest capacity on the tree's links
 * x 1e9) (one stream per link); the results' predicted_comm_s and ScheduleMetrics agree with
 * it. The time beyond Lat is within 5% of the bandwidth term as well (headers add 0.5% at a
 * 9000-byte MTU), so that the comparison does not rest on the latency alone.
 */
class TreeCommTimeTestCase : public TestCase
{
  public:
    /**
     * @param ids the clique's city ids on the reference WAN
     * @param modelBytes S
     * @param slots the FPGAs' SlotCount
     */
    TreeCommTimeTestCase(std::vector<std::string> ids, uint64_t modelBytes, uint32_t slots = 65536)
        : TestCase("one tree round of " + std::to_string(ids.size()) +
                   " islands, S = " + std::to_string(modelBytes / 1000000) + " MB, " +
                   std::to_string(slots) + " FPGA slots: within 5% of T_comm"),
          m_ids(std::move(ids)),
          m_modelBytes(modelBytes),
          m_slots(slots)
    {
    }

  private:
    void DoRun() override
    {
        const std::string file = CreateDataDirFilename(REFERENCE_WAN);
        const WanTopology topology = WanTopology::LoadFile(file);
        const CliqueSchedule::Clique clique = Cities(topology, m_ids);
        const CliqueSchedule::Round round =
            TrainingModeTestRun::AloneWith(topology.GetNCities(), clique);
        TrainingModeTestRun::Config config = TreeConfig(file, {round}, 1, m_modelBytes);
        config.localSteps = 0;
        config.fpgaSlots = m_slots;
        TrainingModeTestRun run(config);
        run.Run();

        // The closed form.
        const uint32_t root = RecomputeRoot(topology, clique);
        double intoMs = 0;
        double outMs = 0;
        for (uint32_t member : clique)
        {
            intoMs = std::max(intoMs, topology.GetRoute(member, root).latencyMs);
            outMs = std::max(outMs, topology.GetRoute(root, member).latencyMs);
        }
        double capacityGbps = std::numeric_limits<double>::infinity();
        for (uint32_t d : TreeLinks(topology, clique, root))
        {
            capacityGbps = std::min(capacityGbps, topology.GetDirectedLinkCapacityGbps(d));
        }
        const double latencyS = (intoMs + outMs) / 1e3;
        const double bandwidthS = 8.0 * m_modelBytes / (capacityGbps * 1e9);
        const double closedForm = latencyS + bandwidthS;

        ScheduleMetrics::Settings settings;
        settings.modelBytes = static_cast<double>(m_modelBytes);
        const double metrics =
            ScheduleMetrics(topology, settings).GetRoundCost(round, CapabilityMode::TREE).commS;
        const nlohmann::json doc = nlohmann::json::parse(run.GetResults().ToJson());
        const double predicted = doc["rounds"][0]["predicted_comm_s"].get<double>();
        const double simulated = run.GetCommTime(0, 0);
        std::cout << "  clique " << Names(topology, clique) << ", root "
                  << topology.GetCity(root).id << ": Lat " << latencyS * 1e3 << " ms + "
                  << bandwidthS * 1e3 << " ms (" << capacityGbps << " Gbps) = " << closedForm * 1e3
                  << " ms; results' prediction " << predicted * 1e3 << " ms; simulated "
                  << simulated * 1e3 << " ms, ratio " << simulated / closedForm
                  << ", beyond Lat / bandwidth term " << (simulated - latencyS) / bandwidthS
                  << std::endl;
        NS_TEST_ASSERT_MSG_EQ(run.GetResults().GetRoundsVerified(), 1u, "round verified");
        NS_TEST_EXPECT_MSG_EQ(run.nacks, 0u, "no repair: pacing never overloads a link");
        NS_TEST_EXPECT_MSG_EQ_TOL(predicted, closedForm, 1e-9, "predicted_comm_s");
        NS_TEST_EXPECT_MSG_EQ_TOL(metrics, closedForm, 1e-9, "ScheduleMetrics' T_comm");
        NS_TEST_EXPECT_MSG_EQ_TOL(simulated / closedForm, 1.0, 0.05, "within 5% of T_comm");
        NS_TEST_EXPECT_MSG_EQ_TOL((simulated - latencyS) / bandwidthS,
                                  1.0,
                                  0.05,
                                  "the time beyond Lat within 5% of the bandwidth term");
    }

    std::vector<std::string> m_ids; //!< the clique
    uint64_t m_modelBytes;          //!< S
    uint32_t m_slots;               //!< SlotCount
};

/**
 * @ingroup wan-training-tests
 * @brief Tree rounds under one fault (TwoTreeRounds, four rounds, small model): every round
 * that completes is verified (the results' verification and the average recomputed here over
 * the contributors expected), every other is reported with a reason, and the run ends by itself
 * before its time limit; every FPGA aggregate and every total is exact within its roundings and
 * every partial aggregate goes to the root (TreeObserver).
 *
 * - LOSS: random WAN loss: packets were lost, the roots NACKed missing contributors and
 *   chunks were resent, and the totals are still exact (partial-total repair);
 * - DUPLICATE, REORDER: WAN packets delivered twice or late;
 * - LINK_DOWN: the tree's WAN link of largest latency goes down while round 0's contributions
 *   cross it (found by a run without the fault) and up 0.5 s later: packets were lost to it;
 * - CRASH_MEMBER: a member of both rounds' cliques other than their roots leaves at round 1:
 *   the survivors average without it, in tree mode;
 * - CRASH_ROOT: the root of the all-island clique leaves at round 1: in the rounds of that
 *   clique from then on the survivors' plan is unicast in a new epoch (excluding the root), and
 *   their rounds complete and verify;
 * - STRAGGLER: a member computes 4 times slower;
 * - COMBINED: all at once (the root crashed, 2% loss, 1% duplicates and reordering, the link
 *   down, a straggler 2 times slower): a completed round is verified over the contributors its
 *   island reports (exclusions may leave out more than the crashed root), and rounds may be
 *   reported instead of completed.
 */
class TreeFaultTestCase : public TestCase
{
  public:
    /** The fault. */
    enum Fault
    {
        LOSS,
        DUPLICATE,
        REORDER,
        LINK_DOWN,
        CRASH_MEMBER,
        CRASH_ROOT,
        STRAGGLER,
        COMBINED,
    };

    /**
     * @param fault the fault
     * @param rate the loss, duplicate or reorder probability
     * @param modelBytes S
     */
    TreeFaultTestCase(Fault fault, double rate, uint64_t modelBytes)
        : TestCase("reference WAN, " + Describe(fault, rate) +
                   ", S = " + std::to_string(modelBytes / 1000) +
                   " kB: completed rounds verified, the "
                   "others reported, no hang"),
          m_fault(fault),
          m_rate(rate),
          m_modelBytes(modelBytes)
    {
    }

  private:
    /**
     * @param fault a fault
     * @param rate its probability
     * @return its description
     */
    static std::string Describe(Fault fault, double rate)
    {
        const std::string percent = std::to_string(static_cast<int>(std::lround(rate * 100)));
        switch (fault)
        {
        case LOSS:
            return percent + "% WAN loss";
        case DUPLICATE:
            return percent + "% duplicates";
        case REORDER:
            return percent + "% reordering";
        case LINK_DOWN:
            return "a tree link down mid-round";
        case CRASH_MEMBER:
            return "a member crashed";
        case CRASH_ROOT:
            return "the root crashed";
        case STRAGGLER:
            return "a straggler";
        case COMBINED:
            return "every fault at once";
        }
        return "";
    }

    /**
     * @param topology the reference WAN
     * @return the base configuration
     */
    TrainingModeTestRun::Config BaseConfig(const WanTopology& topology)
    {
        TrainingModeTestRun::Config config = TreeConfig(CreateDataDirFilename(REFERENCE_WAN),
                                                        TwoTreeRounds(topology),
                                                        4,
                                                        m_modelBytes);
        config.parameterCount = 2048;
        config.localSteps = 3;
        config.stepTime = MilliSeconds(10);
        config.fpgaTimeout = MilliSeconds(50);
        return config;
    }

    /**
     * @param topology the reference WAN
     * @param config the configuration without the outage
     * @return the outage: the all-island tree's WAN link of largest latency, down half its
     *         latency after round 0's first packet entered it, up 0.5 s later
     */
    FaultPlan::LinkOutage FindOutage(const WanTopology& topology,
                                     const TrainingModeTestRun::Config& config)
    {
        const CliqueSchedule::Clique& all = config.rounds[0][0];
        uint32_t busiest = 0;
        double latencyMs = -1;
        for (uint32_t d : TreeLinks(topology, all, RecomputeRoot(topology, all)))
        {
            if (d < 2 * topology.GetNLinks() && topology.GetLink(d / 2).latencyMs > latencyMs)
            {
                busiest = d;
                latencyMs = topology.GetLink(d / 2).latencyMs;
            }
        }
        Time first = Time::Max();
        TrainingModeTestRun::Config baseline = config;
        baseline.nRounds = 1;
        baseline.onBuilt = [busiest, &first](TrainingRun& built) {
            built.GetScenario().GetTxDevice(busiest)->TraceConnectWithoutContext(
                "PhyTxBegin",
                MakeBoundCallback(&TreeFaultTestCase::NoteFirst, &first));
        };
        TrainingModeTestRun run(baseline);
        run.Run();
        NS_ABORT_MSG_IF(first == Time::Max(), "the tree's link carried nothing");
        FaultPlan::LinkOutage outage;
        outage.link = busiest / 2;
        outage.down = first + Seconds(latencyMs / 2e3);
        outage.restored = true;
        outage.up = outage.down + MilliSeconds(500);
        std::cout << "  " << topology.GetDirectedLinkName(busiest) << " (" << latencyMs
                  << " ms) down at " << outage.down.As(Time::MS) << ", up at "
                  << outage.up.As(Time::MS) << std::endl;
        return outage;
    }

    /**
     * @param first the earliest time so far
     * @param packet a frame
     */
    static void NoteFirst(Time* first, Ptr<const Packet> /* packet */)
    {
        *first = std::min(*first, Simulator::Now());
    }

    void DoRun() override
    {
        const WanTopology topology = WanTopology::LoadFile(CreateDataDirFilename(REFERENCE_WAN));
        const LinkLoadModel model(topology);
        TrainingModeTestRun::Config config = BaseConfig(topology);
        const CliqueSchedule::Clique& all = config.rounds[0][0];
        const uint32_t allRoot = model.GetTreeRoot(all);
        const uint32_t sixRoot = model.GetTreeRoot(config.rounds[1][0]);
        // A member of the clique of six and of all that is neither root.
        uint32_t member = 0;
        for (uint32_t candidate : config.rounds[1][0])
        {
            if (candidate != allRoot && candidate != sixRoot)
            {
                member = candidate;
                break;
            }
        }
        const uint32_t crashRound = 1;
        uint32_t crashed = UINT32_MAX;
        switch (m_fault)
        {
        case LOSS:
            config.lossRate = m_rate;
            break;
        case DUPLICATE:
            config.faults.duplicateRate = m_rate;
            break;
        case REORDER:
            config.faults.reorderRate = m_rate;
            break;
        case LINK_DOWN:
            config.faults.linkOutages.push_back(FindOutage(topology, config));
            break;
        case CRASH_MEMBER:
            crashed = member;
            break;
        case CRASH_ROOT:
            crashed = allRoot;
            break;
        case STRAGGLER:
            config.faults.stragglers.push_back({member, 4});
            break;
        case COMBINED:
            config.lossRate = 0.02;
            config.faults.duplicateRate = 0.01;
            config.faults.reorderRate = 0.01;
            config.faults.linkOutages.push_back(FindOutage(topology, config));
            config.faults.stragglers.push_back({member, 2});
            crashed = allRoot;
            break;
        }
        if (crashed != UINT32_MAX)
        {
            config.faults.crashes.push_back({crashed, crashRound});
            std::cout << "  " << topology.GetCity(crashed).id << " crashes at round " << crashRound
                      << " (roots: " << topology.GetCity(allRoot).id << " of all, "
                      << topology.GetCity(sixRoot).id << " of the six)" << std::endl;
        }
        TreeObserver observer(Roundings(config));
        std::unique_ptr<TrainingModeTestRun> run = RunObserved(config, observer);
        const TrainingResults& results = run->GetResults();

        uint32_t completed = 0;
        uint32_t reported = 0;
        uint32_t fallbacks = 0;
        for (uint32_t r = 0; r < config.nRounds; ++r)
        {
            const CliqueSchedule::Round& round = config.rounds[r % config.rounds.size()];
            for (const CliqueSchedule::Clique& clique : round)
            {
                CliqueSchedule::Clique survivors;
                for (uint32_t i : clique)
                {
                    if (i != crashed || r < crashRound)
                    {
                        survivors.push_back(i);
                    }
                }
                const bool rootGone =
                    std::find(survivors.begin(), survivors.end(), model.GetTreeRoot(clique)) ==
                    survivors.end();
                for (uint32_t i : clique)
                {
                    const std::string where =
                        "round " + std::to_string(r) + ", " + topology.GetCity(i).id;
                    const auto status = results.GetRoundStatus(r, i);
                    if (i == crashed && r >= crashRound)
                    {
                        NS_TEST_EXPECT_MSG_EQ(status, TrainingResults::CRASHED, where);
                        continue;
                    }
                    if (status != TrainingResults::COMPLETED)
                    {
                        ++reported;
                        NS_TEST_EXPECT_MSG_EQ(results.GetReason(r, i).empty(),
                                              false,
                                              where << ": not completed, and a reason");
                        continue;
                    }
                    ++completed;
                    NS_TEST_EXPECT_MSG_EQ(results.IsMemberVerified(r, i), true, where);
                    if (m_fault == COMBINED)
                    {
                        // Over the contributors the island reports.
                        CliqueSchedule::Clique reportedSet;
                        for (uint32_t j : clique)
                        {
                            if (results.GetContributors(r, i) & (uint64_t{1} << j))
                            {
                                reportedSet.push_back(j);
                            }
                        }
                        NS_TEST_EXPECT_MSG_LT_OR_EQ(run->GetAverageError(r, i, reportedSet),
                                                    1e-6,
                                                    where << ": the exact average");
                        continue;
                    }
                    NS_TEST_EXPECT_MSG_EQ(results.GetContributors(r, i),
                                          Bits(survivors),
                                          where << ": contributors");
                    if (survivors.size() >= 2)
                    {
                        NS_TEST_EXPECT_MSG_LT_OR_EQ(run->GetAverageError(r, i, survivors),
                                                    1e-6,
                                                    where << ": the exact average");
                    }
                    const ExchangePlan& plan = observer.plans.at({r, i});
                    if (rootGone && survivors.size() >= 2)
                    {
                        ++fallbacks;
                        NS_TEST_EXPECT_MSG_EQ(CapabilityModeToString(plan.mode),
                                              "unicast",
                                              where << ": without its root, unicast");
                        NS_TEST_EXPECT_MSG_GT(plan.epoch, 0, where << ": in a new epoch");
                        NS_TEST_EXPECT_MSG_EQ(plan.excluded,
                                              uint64_t{1} << crashed,
                                              where << ": the root excluded");
                    }
                    else if (survivors.size() >= 2)
                    {
                        NS_TEST_EXPECT_MSG_EQ(CapabilityModeToString(plan.mode),
                                              "tree",
                                              where << ": tree");
                    }
                }
            }
        }
        std::set<uint32_t> roots;
        for (const CliqueSchedule::Round& round : config.rounds)
        {
            for (const CliqueSchedule::Clique& clique : round)
            {
                roots.insert(model.GetTreeRoot(clique));
            }
        }
        uint64_t rootNacks = 0;
        for (uint32_t root : roots)
        {
            auto it = observer.nacksBy.find(root);
            rootNacks += it == observer.nacksBy.end() ? 0 : it->second;
        }
        const nlohmann::json doc = nlohmann::json::parse(results.ToJson());
        std::cout << "  " << completed << " (round, island) completed (" << fallbacks
                  << " without their root), " << reported << " reported; " << run->lostPackets
                  << " packets lost, " << doc["summary"]["link_down_drops"]
                  << " lost to the link down, " << run->nacks << " NACKs (" << rootNacks
                  << " by roots), " << run->resends << " chunks resent; " << observer.aggregates
                  << " FPGA aggregates (" << observer.partialAggregates << " partial), "
                  << observer.totals << " totals, largest error " << observer.worstRatio
                  << " x 2^-24 x sum |x|; simulated " << doc["summary"]["training_time_s"] << " s"
                  << std::endl;
        NS_TEST_EXPECT_MSG_EQ(results.WasStoppedByTimeLimit(), false, "ended by itself");
        NS_TEST_EXPECT_MSG_EQ(observer.abandoned.size(), reported, "abandoned rounds reported");
        NS_TEST_EXPECT_MSG_EQ(observer.outOfBound, 0u, "exact sums and totals");
        NS_TEST_EXPECT_MSG_EQ(observer.partialsNotToRoot, 0u, "partial aggregates to the root");
        NS_TEST_EXPECT_MSG_GT(observer.sumsChecked, 0u, "sums were checked");
        if (m_fault == COMBINED)
        {
            NS_TEST_EXPECT_MSG_GT(completed, 0u, "rounds completed");
            return;
        }
        // One fault at a time: every round completes.
        NS_TEST_EXPECT_MSG_EQ(reported, 0u, "every round completed");
        NS_TEST_EXPECT_MSG_EQ(run->GetRun().Passed(), true, "the run passed");
        if (m_fault == LOSS)
        {
            NS_TEST_EXPECT_MSG_GT(run->lostPackets, 0u, "packets were lost");
            NS_TEST_EXPECT_MSG_GT(rootNacks, 0u, "the roots NACKed missing contributors");
            NS_TEST_EXPECT_MSG_GT(run->resends, 0u, "chunks were resent");
            NS_TEST_EXPECT_MSG_GT(observer.totals, 0u, "totals were checked");
        }
        if (m_fault == CRASH_ROOT)
        {
            NS_TEST_EXPECT_MSG_GT(fallbacks, 0u, "rounds completed without their root");
        }
        if (m_fault == LINK_DOWN)
        {
            NS_TEST_EXPECT_MSG_GT(doc["summary"]["link_down_drops"].get<uint64_t>(),
                                  0u,
                                  "packets were lost to the link down");
        }
        if (m_fault == DUPLICATE)
        {
            NS_TEST_EXPECT_MSG_GT(doc["summary"]["duplicated"].get<uint64_t>(), 0u, "duplicated");
        }
        if (m_fault == REORDER)
        {
            NS_TEST_EXPECT_MSG_GT(doc["summary"]["reordered"].get<uint64_t>(), 0u, "reordered");
        }
    }

    Fault m_fault;         //!< the fault
    double m_rate;         //!< its probability
    uint64_t m_modelBytes; //!< S
};

/**
 * @ingroup wan-training-tests
 * @brief The tree mode suite (issue 19).
 */
class TreeModeTestSuite : public TestSuite
{
  public:
    TreeModeTestSuite();
};

TreeModeTestSuite::TreeModeTestSuite()
    : TestSuite("wan-training-tree-mode", SYSTEM)
{
    SetDataDir(NS_TEST_SOURCEDIR);
    AddTestCase(new TreeStreamsTestCase(), TestCase::QUICK);
    // The all-island clique and the clique of six, S = 100 MB (the bandwidth-delay product of
    // the tree's 100 Gbps links over its 179 ms is 2.2 GB: the bandwidth term is 4% of T_comm).
    AddTestCase(
        new TreeCommTimeTestCase({"NYC", "CHI", "LAX", "LON", "FRA", "AMS", "TYO", "SIN", "HKG"},
                                 100000000),
        TestCase::QUICK);
    AddTestCase(new TreeCommTimeTestCase({"CHI", "LAX", "LON", "AMS", "TYO", "SIN"}, 100000000),
                TestCase::QUICK);
    const uint64_t small = 200000;
    AddTestCase(new TreeFaultTestCase(TreeFaultTestCase::LOSS, 0.01, small), TestCase::QUICK);
    AddTestCase(new TreeFaultTestCase(TreeFaultTestCase::LOSS, 0.05, small), TestCase::QUICK);
    AddTestCase(new TreeFaultTestCase(TreeFaultTestCase::DUPLICATE, 0.05, small), TestCase::QUICK);
    AddTestCase(new TreeFaultTestCase(TreeFaultTestCase::REORDER, 0.05, small), TestCase::QUICK);
    AddTestCase(new TreeFaultTestCase(TreeFaultTestCase::LINK_DOWN, 0, small), TestCase::QUICK);
    AddTestCase(new TreeFaultTestCase(TreeFaultTestCase::CRASH_MEMBER, 0, small), TestCase::QUICK);
    AddTestCase(new TreeFaultTestCase(TreeFaultTestCase::CRASH_ROOT, 0, small), TestCase::QUICK);
    AddTestCase(new TreeFaultTestCase(TreeFaultTestCase::STRAGGLER, 0, small), TestCase::QUICK);
    AddTestCase(new TreeFaultTestCase(TreeFaultTestCase::COMBINED, 0, small), TestCase::QUICK);
}

/** Static instance of the suite. */
static TreeModeTestSuite g_treeModeTestSuite;

/**
 * @ingroup wan-training-tests
 * @brief The long tree mode suite: a 1 GB round, and the faults on a 10 MB model.
 */
class TreeModeLongTestSuite : public TestSuite
{
  public:
    TreeModeLongTestSuite();
};

TreeModeLongTestSuite::TreeModeLongTestSuite()
    : TestSuite("wan-training-tree-mode-long", SYSTEM)
{
    SetDataDir(NS_TEST_SOURCEDIR);
    // S = 1 GB: the bandwidth term is 80 ms of T_comm's 259 ms, at 1.4 million chunks per
    // second. The members' route latencies into LAX differ by up to 72 ms: unstaggered, about
    // 100000 slots would be in use at LAX's router, more than the default 65536, chunks would
    // pass unsummed (NO_SLOT) and the round take 284 ms (+10%); the members' start stagger
    // (TreeExchange) keeps the default slots enough.
    AddTestCase(
        new TreeCommTimeTestCase({"NYC", "CHI", "LAX", "LON", "FRA", "AMS", "TYO", "SIN", "HKG"},
                                 1000000000),
        TestCase::QUICK);
    const uint64_t large = 10000000;
    for (TreeFaultTestCase::Fault fault : {TreeFaultTestCase::LINK_DOWN,
                                           TreeFaultTestCase::CRASH_MEMBER,
                                           TreeFaultTestCase::CRASH_ROOT,
                                           TreeFaultTestCase::STRAGGLER})
    {
        AddTestCase(new TreeFaultTestCase(fault, 0, large), TestCase::QUICK);
    }
    for (double rate : {0.01, 0.03, 0.05})
    {
        AddTestCase(new TreeFaultTestCase(TreeFaultTestCase::LOSS, rate, large), TestCase::QUICK);
    }
    AddTestCase(new TreeFaultTestCase(TreeFaultTestCase::DUPLICATE, 0.05, large), TestCase::QUICK);
    AddTestCase(new TreeFaultTestCase(TreeFaultTestCase::REORDER, 0.05, large), TestCase::QUICK);
    AddTestCase(new TreeFaultTestCase(TreeFaultTestCase::COMBINED, 0, large), TestCase::QUICK);
}

/** Static instance of the long suite. */
static TreeModeLongTestSuite g_treeModeLongTestSuite;
