/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "aggregator-net-device.h"
#include "clique-schedule.h"
#include "fault-plan.h"
#include "island-sync-header.h"
#include "pim-multicast-helper.h"
#include "training-island-application.h"
#include "training-results.h"
#include "training-run.h"
#include "wan-config-error.h"
#include "wan-fault-error-model.h"
#include "wan-topology-helper.h"
#include "wan-topology.h"

#include "ns3/callback.h"
#include "ns3/double.h"
#include "ns3/names.h"
#include "ns3/net-device.h"
#include "ns3/node-container.h"
#include "ns3/packet.h"
#include "ns3/point-to-point-helper.h"
#include "ns3/point-to-point-net-device.h"
#include "ns3/pointer.h"
#include "ns3/simulator.h"
#include "ns3/string.h"
#include "ns3/test.h"

#include <algorithm>
#include <bitset>
#include <cmath>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

/**
 * @file
 * @ingroup wan-training-tests
 * Fault injection (issue 10): the faults of FaultPlan and the WAN loss, one at a time and
 * link-down plus 2% loss together, on the nine-city topology in every capability mode. Every
 * round that completes is checked against an independent recomputation: the average of the
 * contributions recorded here (ExchangeStarted) over the contributors expected from the fault
 * (the schedule's clique, less the crashed island or the side of a partition), next to the
 * results' own verification; the routes after a link failure equal the routes of the topology
 * parsed again without the link, and the ones worked out by hand from its latencies; a
 * partition is reported; a crashed island sends nothing from its crash on; rounds that cannot
 * complete are reported with a reason; the time limit stops a run and says why; bad knob values
 * are rejected with messages that name the entry.
 */

using namespace ns3;

namespace
{

/** The nine-city topology, relative to the test data directory. */
const std::string NINE_CITY = "../topologies/doublezero-nine-city.json";
/** The program name errors are reported under. */
const std::string PROGRAM = "fault-test";
/** The relative tolerance of the recomputed averages (as TrainingResults'). */
const double TOLERANCE = 1e-6;

/** (round, island). */
using RoundIsland = std::pair<uint32_t, uint32_t>;

/** What the traces of a run show, recorded independently of TrainingResults. */
struct Record
{
    std::vector<Ptr<TrainingIslandApplication>> apps;      //!< by city
    std::map<RoundIsland, std::vector<float>> contributed; //!< ExchangeStarted parameters
    std::map<RoundIsland, std::vector<float>> averaged;    //!< RoundFinished parameters
    std::map<RoundIsland, uint64_t> contributors;          //!< GetRoundContributors()
    std::map<RoundIsland, std::string> abandoned;          //!< RoundAbandoned reasons
    std::map<RoundIsland, Time> started;                   //!< RoundStarted times
    std::map<RoundIsland, Time> exchanged;                 //!< ExchangeStarted times
    std::map<RoundIsland, Time> finished;                  //!< RoundFinished times
    std::map<std::tuple<uint32_t, uint32_t, uint32_t>, Time> excluded; //!< (round, by, whom)
    std::map<uint32_t, uint32_t> crashed;                              //!< island -> crash round
    std::vector<std::tuple<uint32_t, uint32_t, Time>> chunksSent;      //!< (island, round, when)
};

/**
 * @param record the record
 * @param island the island
 * @param round the round
 */
void
OnRoundStarted(Record* record, uint32_t island, uint32_t round)
{
    record->started[{round, island}] = Simulator::Now();
}

/**
 * @param record the record
 * @param island the island
 * @param round the round
 * @param parameters its contribution
 */
void
OnExchangeStarted(Record* record,
                  uint32_t island,
                  uint32_t round,
                  uint32_t /* clique */,
                  const std::vector<float>& parameters)
{
    record->contributed[{round, island}] = parameters;
    record->exchanged[{round, island}] = Simulator::Now();
}

/**
 * @param record the record
 * @param island the island
 * @param round the round
 * @param parameters its new parameters
 */
void
OnRoundFinished(Record* record,
                uint32_t island,
                uint32_t round,
                uint32_t /* clique */,
                const std::vector<float>& parameters)
{
    record->averaged[{round, island}] = parameters;
    record->contributors[{round, island}] = record->apps[island]->GetRoundContributors();
    record->finished[{round, island}] = Simulator::Now();
}

/**
 * @param record the record
 * @param island the island
 * @param round the round
 * @param reason why
 */
void
OnRoundAbandoned(Record* record,
                 uint32_t island,
                 uint32_t round,
                 uint32_t /* clique */,
                 const std::string& reason)
{
    record->abandoned[{round, island}] = reason;
}

/**
 * @param record the record
 * @param island who excludes
 * @param round the round
 * @param member whom
 */
void
OnMemberExcluded(Record* record,
                 uint32_t island,
                 uint32_t round,
                 uint32_t member,
                 const std::string& /* reason */)
{
    record->excluded.emplace(std::make_tuple(round, island, member), Simulator::Now());
}

/**
 * @param record the record
 * @param island the island
 * @param round its crash round
 */
void
OnCrashed(Record* record, uint32_t island, uint32_t round)
{
    record->crashed[island] = round;
}

/**
 * @param record the record
 * @param island the sender
 * @param header the chunk
 */
void
OnChunkSent(Record* record,
            uint32_t island,
            uint32_t /* destination */,
            const IslandSyncHeader& header,
            uint32_t /* modelBytes */,
            bool /* resent */)
{
    record->chunksSent.emplace_back(island, header.GetRound(), Simulator::Now());
}

/**
 * @param times where to record
 * @param packet the packet handed to the device (MacTx) or received (PhyRxEnd)
 */
void
OnMacTx(std::vector<Time>* times, Ptr<const Packet> /* packet */)
{
    times->push_back(Simulator::Now());
}

/**
 * @return a small, fast configuration of the nine-city runs
 */
TrainingRun::Config
SmallConfig(CapabilityMode mode)
{
    TrainingRun::Config config;
    config.mode = mode;
    config.rounds = 4;
    config.modelBytes = 200000;
    config.parameterCount = 2048;
    config.localSteps = 3;
    config.stepTime = MilliSeconds(10);
    config.fpgaTimeout = MilliSeconds(50);
    return config;
}

/**
 * @param topology a WAN
 * @param cities a path as city ids
 * @return its directed links: the source's up, the WAN hops, the destination's down
 */
std::vector<uint32_t>
PathLinks(const WanTopology& topology, const std::vector<std::string>& cities)
{
    std::vector<uint32_t> links{topology.GetAccessUpLink(topology.GetCityIndex(cities.front()))};
    for (std::size_t k = 0; k + 1 < cities.size(); ++k)
    {
        links.push_back(topology.GetWanDirectedLink(topology.GetCityIndex(cities[k]),
                                                    topology.GetCityIndex(cities[k + 1])));
    }
    links.push_back(topology.GetAccessDownLink(topology.GetCityIndex(cities.back())));
    return links;
}

/**
 * @param path a topology file
 * @param a a city id
 * @param b another city id
 * @return the topology parsed again without the link a-b (an independent graph)
 */
WanTopology
LoadWithoutLink(const std::string& path, const std::string& a, const std::string& b)
{
    std::ifstream in(path);
    nlohmann::json doc = nlohmann::json::parse(in);
    nlohmann::json links = nlohmann::json::array();
    for (const auto& link : doc["links"])
    {
        const std::string x = link["a"].get<std::string>();
        const std::string y = link["b"].get<std::string>();
        if (!((x == a && y == b) || (x == b && y == a)))
        {
            links.push_back(link);
        }
    }
    doc["links"] = links;
    return WanTopology::Parse(doc.dump(), path + " without " + a + "-" + b);
}

/**
 * @param check what may throw
 * @return the field and the reason of the WanConfigError it threw ("FIELD: REASON"), or ""
 *         when it threw none
 */
std::string
ErrorOf(const std::function<void()>& check)
{
    try
    {
        check();
    }
    catch (const WanConfigError& error)
    {
        return error.GetField() + ": " + error.GetReason();
    }
    return "";
}

} // namespace

/**
 * @ingroup wan-training-tests
 * @brief The base of the fault cases: build and run a TrainingRun with its traces recorded,
 * and check its rounds against expected outcomes.
 */
class FaultTestCase : public TestCase
{
  public:
    /**
     * @param name the case name
     */
    explicit FaultTestCase(const std::string& name)
        : TestCase(name)
    {
    }

  protected:
    /** The expected outcome of a round on an island. */
    struct Expected
    {
        bool crashed{false};      //!< the island crashed before the round
        uint64_t contributors{0}; //!< the contributors of its average (when not crashed)
    };

    /**
     * @brief Build a run and connect the recording sinks.
     * @param schedule the schedule
     * @param config the configuration
     * @return the built run (not run yet)
     */
    std::unique_ptr<TrainingRun> Build(const CliqueSchedule& schedule,
                                       const TrainingRun::Config& config)
    {
        m_record = Record();
        auto run = std::make_unique<TrainingRun>(Topology(), schedule, config);
        run->SetFaultLog(nullptr);
        run->Build();
        for (uint32_t i = 0; i < Topology().GetNCities(); ++i)
        {
            Ptr<TrainingIslandApplication> app = run->GetApp(i);
            m_record.apps.push_back(app);
            app->TraceConnectWithoutContext("RoundStarted",
                                            MakeBoundCallback(&OnRoundStarted, &m_record));
            app->TraceConnectWithoutContext("ExchangeStarted",
                                            MakeBoundCallback(&OnExchangeStarted, &m_record));
            app->TraceConnectWithoutContext("RoundFinished",
                                            MakeBoundCallback(&OnRoundFinished, &m_record));
            app->TraceConnectWithoutContext("RoundAbandoned",
                                            MakeBoundCallback(&OnRoundAbandoned, &m_record));
            app->TraceConnectWithoutContext("MemberExcluded",
                                            MakeBoundCallback(&OnMemberExcluded, &m_record));
            app->TraceConnectWithoutContext("Crashed", MakeBoundCallback(&OnCrashed, &m_record));
            app->TraceConnectWithoutContext("ChunkSent",
                                            MakeBoundCallback(&OnChunkSent, &m_record));
        }
        return run;
    }

    /**
     * @param schedule a schedule
     * @param round a round
     * @param island an island
     * @return the members of the island's clique in that round (the island alone when idle)
     */
    uint64_t CliqueBits(const CliqueSchedule& schedule, uint32_t round, uint32_t island) const
    {
        const uint32_t sr = round % schedule.GetNRounds();
        const uint32_t clique = schedule.GetCliqueOf(sr, island);
        if (clique == CliqueSchedule::IDLE)
        {
            return uint64_t{1} << island;
        }
        uint64_t bits = 0;
        for (uint32_t member : schedule.GetRound(sr)[clique])
        {
            bits |= uint64_t{1} << member;
        }
        return bits;
    }

    /**
     * @brief Check one completed round on one island against the recorded contributions.
     * @param round the round
     * @param island the island
     * @param contributors the expected contributors
     */
    void CheckAverage(uint32_t round, uint32_t island, uint64_t contributors)
    {
        const std::string where =
            "round " + std::to_string(round) + ", " + Topology().GetCity(island).id;
        auto finished = m_record.averaged.find({round, island});
        NS_TEST_ASSERT_MSG_EQ((finished != m_record.averaged.end()), true, where << " completed");
        if (finished == m_record.averaged.end())
        {
            return; // the failure is reported
        }
        NS_TEST_EXPECT_MSG_EQ(m_record.contributors.at({round, island}),
                              contributors,
                              where << ": contributors "
                                    << std::bitset<9>(m_record.contributors.at({round, island}))
                                    << ", expected " << std::bitset<9>(contributors));
        // The average of the contributions recorded at exchange start, in double.
        std::vector<double> average(finished->second.size(), 0.0);
        uint32_t count = 0;
        for (uint32_t member = 0; member < Topology().GetNCities(); ++member)
        {
            if (!(contributors & (uint64_t{1} << member)))
            {
                continue;
            }
            auto contribution = m_record.contributed.find({round, member});
            NS_TEST_ASSERT_MSG_EQ((contribution != m_record.contributed.end()),
                                  true,
                                  where << ": " << Topology().GetCity(member).id << " contributed");
            for (std::size_t v = 0; v < average.size(); ++v)
            {
                average[v] += contribution->second[v];
            }
            ++count;
        }
        double worst = 0;
        for (std::size_t v = 0; v < average.size(); ++v)
        {
            average[v] /= count;
            worst = std::max(worst,
                             std::abs(finished->second[v] - average[v]) /
                                 std::max(1.0, std::abs(average[v])));
        }
        NS_TEST_EXPECT_MSG_LT_OR_EQ(worst, TOLERANCE, where << ": the exact average");
    }

    /**
     * @brief Check every round of a run that completes despite its faults.
     * @param run the run (after Run())
     * @param expected the outcome of (round, island)
     */
    void CheckAllRounds(const TrainingRun& run,
                        const std::function<Expected(uint32_t, uint32_t)>& expected)
    {
        const TrainingResults& results = run.GetResults();
        const uint32_t rounds = run.GetConfig().rounds;
        for (uint32_t r = 0; r < rounds; ++r)
        {
            for (uint32_t i = 0; i < Topology().GetNCities(); ++i)
            {
                const Expected outcome = expected(r, i);
                if (outcome.crashed)
                {
                    NS_TEST_EXPECT_MSG_EQ(m_record.averaged.count({r, i}),
                                          0u,
                                          "round " << r << ": crashed " << i << " did not end it");
                    NS_TEST_EXPECT_MSG_EQ(results.GetRoundStatus(r, i),
                                          TrainingResults::CRASHED,
                                          "round " << r << ", island " << i << ": crashed");
                    continue;
                }
                CheckAverage(r, i, outcome.contributors);
                NS_TEST_EXPECT_MSG_EQ(results.GetRoundStatus(r, i),
                                      TrainingResults::COMPLETED,
                                      "round " << r << ", island " << i << ": completed");
                NS_TEST_EXPECT_MSG_EQ(results.IsMemberVerified(r, i),
                                      true,
                                      "round " << r << ", island " << i << ": results verified");
                NS_TEST_EXPECT_MSG_EQ(results.GetContributors(r, i),
                                      outcome.contributors,
                                      "round " << r << ", island " << i
                                               << ": results' contributors");
            }
        }
        NS_TEST_EXPECT_MSG_EQ(m_record.abandoned.size(), 0u, "no round abandoned");
        NS_TEST_EXPECT_MSG_EQ(results.WasStoppedByTimeLimit(), false, "not stopped");
        NS_TEST_EXPECT_MSG_EQ(results.GetRoundsVerified(), rounds, "every round verified");
        NS_TEST_EXPECT_MSG_EQ(results.IsComplete(), true, "complete");
        NS_TEST_EXPECT_MSG_EQ(run.Passed(), true, "passed");
    }

    /**
     * @param a a city id
     * @param b a neighbour's id
     * @return the directed link a->b
     */
    uint32_t Link(const std::string& a, const std::string& b) const
    {
        return Topology().GetWanDirectedLink(Topology().GetCityIndex(a),
                                             Topology().GetCityIndex(b));
    }

    /**
     * @param a a city id
     * @param b a neighbour's id
     * @return the WAN link index (GetLink numbering) between them
     */
    uint32_t LinkIndex(const std::string& a, const std::string& b) const
    {
        return Link(a, b) / 2;
    }

    /** Load the nine-city topology (call from DoRun). */
    void LoadTopology()
    {
        m_topologyFile = CreateDataDirFilename(NINE_CITY);
        m_loaded = std::make_unique<WanTopology>(WanTopology::LoadFile(m_topologyFile));
    }

    /** @return the nine-city topology (after LoadTopology) */
    const WanTopology& Topology() const
    {
        return *m_loaded;
    }

    std::string m_topologyFile;            //!< the topology file
    std::unique_ptr<WanTopology> m_loaded; //!< the topology (LoadTopology)
    Record m_record;                       //!< the last run's traces
};

/**
 * @ingroup wan-training-tests
 * @brief A crash: tyo leaves at round 1 of the Latin schedule. Its cliques finish without it
 * (every survivor's average is over the rest of its clique), later rounds leave it out by their
 * start for the islands that excluded it before (no new wait), tyo sends no chunk from round 1 on,
 * the rounds before are complete, and the results say who contributed.
 */
class CrashTestCase : public FaultTestCase
{
  public:
    /**
     * @param mode the capability mode
     * @param lossRate the WAN loss
     */
    CrashTestCase(CapabilityMode mode, double lossRate)
        : FaultTestCase("crash of tyo at round 1, mode " + CapabilityModeToString(mode) +
                        ", loss " + std::to_string(lossRate)),
          m_mode(mode),
          m_lossRate(lossRate)
    {
    }

  private:
    void DoRun() override
    {
        LoadTopology();
        const CliqueSchedule schedule = CliqueSchedule::LatinTriples(9);
        TrainingRun::Config config = SmallConfig(m_mode);
        config.wanLossRate = m_lossRate;
        const uint32_t tyo = Topology().GetCityIndex("tyo");
        const uint32_t crashRound = 1;
        config.faults.crashes.push_back({tyo, crashRound});
        auto run = Build(schedule, config);
        run->Run();

        CheckAllRounds(*run, [&](uint32_t r, uint32_t i) {
            Expected e;
            e.crashed = i == tyo && r >= crashRound;
            e.contributors = CliqueBits(schedule, r, i);
            if (r >= crashRound)
            {
                e.contributors &= ~(uint64_t{1} << tyo);
            }
            return e;
        });
        NS_TEST_EXPECT_MSG_EQ(m_record.crashed.count(tyo), 1u, "tyo crashed");
        for (const auto& [island, round, when] : m_record.chunksSent)
        {
            NS_TEST_EXPECT_MSG_EQ((island == tyo && round >= crashRound),
                                  false,
                                  "tyo sends no chunk of round " << round);
        }
        // Round 1: {chi ams tyo}; round 3 again. Round 2: {prg tyo sin}, who never met the
        // crash before: they find out by themselves.
        for (const std::string survivor : {"chi", "ams"})
        {
            const uint32_t s = Topology().GetCityIndex(survivor);
            NS_TEST_EXPECT_MSG_EQ(m_record.excluded.count({1, s, tyo}),
                                  1u,
                                  survivor << " excluded tyo in round 1");
            auto later = m_record.excluded.find({3, s, tyo});
            NS_TEST_ASSERT_MSG_EQ((later != m_record.excluded.end()),
                                  true,
                                  survivor << " left tyo out of round 3");
            NS_TEST_EXPECT_MSG_LT_OR_EQ(later->second,
                                        m_record.started.at({3, s}),
                                        survivor << " left tyo out of round 3 by its start");
        }
        for (const std::string survivor : {"prg", "sin"})
        {
            const uint32_t s = Topology().GetCityIndex(survivor);
            NS_TEST_EXPECT_MSG_EQ(m_record.excluded.count({2, s, tyo}),
                                  1u,
                                  survivor << " excluded tyo in round 2");
        }
        // The results JSON says per round who contributed.
        const nlohmann::json doc = nlohmann::json::parse(run->GetResults().ToJson());
        const nlohmann::json& clique = doc["rounds"][2]["cliques"][2];
        NS_TEST_EXPECT_MSG_EQ(clique["status"]["tyo"].get<std::string>(), "crashed", "status");
        NS_TEST_EXPECT_MSG_EQ(clique["groups"].dump(), R"([["prg","sin"]])", "contributors");
        NS_TEST_EXPECT_MSG_EQ(clique["consistent"].get<bool>(), true, "consistent");
        NS_TEST_EXPECT_MSG_EQ(doc["faults"]["crashed_islands"].get<uint32_t>(), 1u, "crashes");
        NS_TEST_EXPECT_MSG_EQ(doc["verification"]["passed"].get<bool>(), true, "passed");
    }

    CapabilityMode m_mode; //!< the mode
    double m_lossRate;     //!< the WAN loss
};

/**
 * @ingroup wan-training-tests
 * @brief Crashes that leave a member alone (round-robin pairs) or that happen before the first
 * round: the partner ends the round with its own contribution, exactly; an island crashed at
 * round 0 contributes to nothing.
 */
class CrashAloneTestCase : public FaultTestCase
{
  public:
    CrashAloneTestCase()
        : FaultTestCase("crashes at round 0 and 2 in round-robin pairs, unicast")
    {
    }

  private:
    void DoRun() override
    {
        LoadTopology();
        const CliqueSchedule schedule = CliqueSchedule::RoundRobinPairs(9);
        TrainingRun::Config config = SmallConfig(CapabilityMode::UNICAST);
        config.rounds = 5;
        const uint32_t lax = Topology().GetCityIndex("lax");
        const uint32_t fra = Topology().GetCityIndex("fra");
        config.faults.crashes.push_back({lax, 0});
        config.faults.crashes.push_back({fra, 2});
        auto run = Build(schedule, config);
        run->Run();
        auto gone = [&](uint32_t r) {
            return (uint64_t{1} << lax) | (r >= 2 ? uint64_t{1} << fra : 0);
        };
        CheckAllRounds(*run, [&](uint32_t r, uint32_t i) {
            Expected e;
            e.crashed = (gone(r) >> i) & 1;
            e.contributors = CliqueBits(schedule, r, i) & ~gone(r);
            return e;
        });
        // A partner left alone keeps its own contribution, bit for bit.
        for (uint32_t r = 0; r < config.rounds; ++r)
        {
            for (uint32_t i = 0; i < 9; ++i)
            {
                const uint64_t clique = CliqueBits(schedule, r, i);
                if (!((gone(r) >> i) & 1) && clique != (uint64_t{1} << i) &&
                    (clique & ~gone(r)) == (uint64_t{1} << i))
                {
                    NS_TEST_EXPECT_MSG_EQ(
                        (m_record.averaged.at({r, i}) == m_record.contributed.at({r, i})),
                        true,
                        "round " << r << ": " << i << " alone keeps its model");
                }
            }
        }
    }
};

/**
 * @ingroup wan-training-tests
 * @brief A WAN link down during round 1 and up again: in the meantime no packet enters it, both
 * directions lose what is in flight (repaired), the forwarding follows the shortest route of
 * the graph without the link (worked out by hand from the latencies, and equal to the routes of
 * the topology parsed again without the link), multicast trees follow it too, and after the
 * repair the direct route is back; every round completes with exact averages (also with 2%
 * loss).
 */
class LinkDownTestCase : public FaultTestCase
{
  public:
    /**
     * @param mode the capability mode
     * @param lossRate the WAN loss
     */
    LinkDownTestCase(CapabilityMode mode, double lossRate)
        : FaultTestCase("nyc-lon down and up in round 1, mode " + CapabilityModeToString(mode) +
                        ", loss " + std::to_string(lossRate)),
          m_mode(mode),
          m_lossRate(lossRate)
    {
    }

  private:
    void DoRun() override
    {
        LoadTopology();
        const CliqueSchedule schedule = CliqueSchedule::LatinTriples(9);
        TrainingRun::Config config = SmallConfig(m_mode);
        config.wanLossRate = m_lossRate;
        const uint32_t nycLon = Link("nyc", "lon");
        const uint32_t lonNyc = Link("lon", "nyc");

        // When does round 1 use nyc->lon? A run without the fault tells (nyc, lon and prg are a
        // clique of round 1, chi->ams goes through nyc and lon too).
        Time busyFrom;
        Time busyTo;
        {
            auto baseline = Build(schedule, config);
            std::vector<Time> sent;
            baseline->GetScenario().GetTxDevice(nycLon)->TraceConnectWithoutContext(
                "MacTx",
                MakeBoundCallback(&OnMacTx, &sent));
            baseline->Run();
            const uint32_t nyc = Topology().GetCityIndex("nyc");
            const Time roundStart = m_record.exchanged.at({1, nyc});
            const Time roundEnd = m_record.finished.at({1, nyc});
            std::vector<Time> inRound;
            for (Time t : sent)
            {
                if (t >= roundStart && t <= roundEnd)
                {
                    inRound.push_back(t);
                }
            }
            NS_TEST_ASSERT_MSG_GT(inRound.size(), 10u, "round 1 uses nyc->lon");
            busyFrom = inRound.front();
            busyTo = inRound.back();
        }
        const Time down = MicroSeconds(((busyFrom + busyTo) / 2).GetMicroSeconds());
        const Time up = down + MilliSeconds(400);
        FaultPlan::LinkOutage outage;
        outage.link = LinkIndex("nyc", "lon");
        outage.down = down;
        outage.restored = true;
        outage.up = up;
        config.faults.linkOutages.push_back(outage);

        auto run = Build(schedule, config);
        std::vector<Time> entered;
        for (uint32_t d : {nycLon, lonNyc})
        {
            run->GetScenario().GetTxDevice(d)->TraceConnectWithoutContext(
                "MacTx",
                MakeBoundCallback(&OnMacTx, &entered));
        }
        const uint32_t nyc = Topology().GetCityIndex("nyc");
        const uint32_t lon = Topology().GetCityIndex("lon");
        const uint32_t prg = Topology().GetCityIndex("prg");
        std::vector<uint32_t> nycToLonDown;
        std::vector<uint32_t> lonToNycDown;
        std::vector<uint32_t> nycToLonUp;
        std::vector<uint32_t> treeDown;
        const WanTopologyHelper& scenario = run->GetScenario();
        Simulator::Schedule(down + NanoSeconds(1), [&]() {
            nycToLonDown = scenario.GetForwardingPath(nyc, lon);
            lonToNycDown = scenario.GetForwardingPath(lon, nyc);
            if (m_mode == CapabilityMode::MULTICAST || m_mode == CapabilityMode::BOTH)
            {
                treeDown = run->GetPim().GetTree(1, schedule.GetCliqueOf(1, nyc), nyc).links;
            }
        });
        Simulator::Schedule(up + NanoSeconds(1),
                            [&]() { nycToLonUp = scenario.GetForwardingPath(nyc, lon); });
        run->Run();

        // By hand (one-way ms): nyc-lax 34.21 + lax-tyo 49.38 + tyo-sin 33.612 + sin-lon 76.684
        // = 193.886 beats nyc-chi-lax-tyo-sin-lon = 193.995; every other path is longer.
        const std::vector<uint32_t> byHand =
            PathLinks(Topology(), {"nyc", "lax", "tyo", "sin", "lon"});
        const std::vector<uint32_t> byHandBack =
            PathLinks(Topology(), {"lon", "sin", "tyo", "lax", "nyc"});
        NS_TEST_EXPECT_MSG_EQ((nycToLonDown == byHand), true, "nyc->lon while the link is down");
        NS_TEST_EXPECT_MSG_EQ((lonToNycDown == byHandBack), true, "lon->nyc while down");
        // The same as the routes of the graph without the link, parsed on its own; the links of
        // both topologies are named alike, so compare by name.
        const WanTopology without = LoadWithoutLink(m_topologyFile, "nyc", "lon");
        auto names = [](const WanTopology& t, const std::vector<uint32_t>& links) {
            std::vector<std::string> n;
            for (uint32_t d : links)
            {
                n.push_back(t.GetDirectedLinkName(d));
            }
            return n;
        };
        NS_TEST_EXPECT_MSG_EQ(
            (names(Topology(), nycToLonDown) == names(without, without.GetRoute(nyc, lon).links)),
            true,
            "the shortest route of the graph without nyc-lon");
        NS_TEST_EXPECT_MSG_EQ((nycToLonUp == PathLinks(Topology(), {"nyc", "lon"})),
                              true,
                              "the direct route is back once the link is up");
        if (m_mode == CapabilityMode::MULTICAST || m_mode == CapabilityMode::BOTH)
        {
            std::set<std::string> expected;
            for (uint32_t member : {lon, prg})
            {
                for (const auto& name : names(without, without.GetRoute(nyc, member).links))
                {
                    expected.insert(name);
                }
            }
            std::vector<std::string> tree = names(Topology(), treeDown);
            NS_TEST_EXPECT_MSG_EQ((std::set<std::string>(tree.begin(), tree.end()) == expected),
                                  true,
                                  "nyc's round-1 tree is the union of the new routes");
        }
        for (Time t : entered)
        {
            NS_TEST_EXPECT_MSG_EQ((t > down && t < up), false, "no packet enters nyc-lon at " << t);
        }
        const TrainingResults& results = run->GetResults();
        const uint64_t inFlight = results.GetLinkCounters(nycLon).linkDownDrops +
                                  results.GetLinkCounters(lonNyc).linkDownDrops;
        NS_TEST_EXPECT_MSG_GT(inFlight, 0u, "packets in flight on nyc-lon were lost");
        for (uint32_t d = 0; d < Topology().GetNDirectedLinks(); ++d)
        {
            if (d != nycLon && d != lonNyc)
            {
                NS_TEST_EXPECT_MSG_EQ(results.GetLinkCounters(d).linkDownDrops,
                                      0u,
                                      Topology().GetDirectedLinkName(d) << " was never down");
            }
        }
        CheckAllRounds(*run, [&](uint32_t r, uint32_t i) {
            Expected e;
            e.contributors = CliqueBits(schedule, r, i);
            return e;
        });
        const nlohmann::json doc = nlohmann::json::parse(results.ToJson());
        NS_TEST_EXPECT_MSG_EQ(doc["faults"]["route_changes"].size(), 2u, "down, then up");
        NS_TEST_EXPECT_MSG_EQ(doc["faults"]["route_changes"][0]["links_down"].dump(),
                              R"(["nyc-lon"])",
                              "the link down");
        NS_TEST_EXPECT_MSG_EQ(doc["faults"]["partitioned"].get<bool>(), false, "connected");
    }

    CapabilityMode m_mode; //!< the mode
    double m_lossRate;     //!< the WAN loss
};

/**
 * @ingroup wan-training-tests
 * @brief A partition from the start: fra-prg is prg's only link. The results and the fault log
 * report the two components; the cliques with prg average over the members they can reach, prg over
 * itself, and every round completes consistently; no route leads to prg.
 */
class PartitionTestCase : public FaultTestCase
{
  public:
    /**
     * @param mode the capability mode
     */
    explicit PartitionTestCase(CapabilityMode mode)
        : FaultTestCase("fra-prg down from the start (partition), mode " +
                        CapabilityModeToString(mode)),
          m_mode(mode)
    {
    }

  private:
    void DoRun() override
    {
        LoadTopology();
        const CliqueSchedule schedule = CliqueSchedule::LatinTriples(9);
        TrainingRun::Config config = SmallConfig(m_mode);
        FaultPlan::LinkOutage outage;
        outage.link = LinkIndex("fra", "prg");
        config.faults.linkOutages.push_back(outage);
        auto run = Build(schedule, config);
        std::ostringstream log;
        run->SetFaultLog(&log, PROGRAM);
        run->Run();
        NS_TEST_EXPECT_MSG_EQ(log.str(),
                              PROGRAM +
                                  ": t = 0 s: links down: fra-prg; routes and multicast trees "
                                  "reinstalled; the WAN is PARTITIONED into {nyc chi lax lon "
                                  "ams fra tyo sin} {prg} (cliques across it exclude the "
                                  "members they cannot reach)\n",
                              "the partition on the fault log");
        const uint32_t prg = Topology().GetCityIndex("prg");
        CheckAllRounds(*run, [&](uint32_t r, uint32_t i) {
            Expected e;
            const uint64_t clique = CliqueBits(schedule, r, i);
            e.contributors = i == prg ? uint64_t{1} << prg : clique & ~(uint64_t{1} << prg);
            return e;
        });
        const TrainingResults& results = run->GetResults();
        NS_TEST_EXPECT_MSG_EQ(results.WasPartitioned(), true, "partition reported");
        const nlohmann::json doc = nlohmann::json::parse(results.ToJson());
        NS_TEST_EXPECT_MSG_EQ(doc["faults"]["route_changes"][0]["components"].dump(),
                              R"([["nyc","chi","lax","lon","ams","fra","tyo","sin"],["prg"]])",
                              "the components");
        NS_TEST_EXPECT_MSG_EQ(
            run->GetScenario().GetForwardingPath(Topology().GetCityIndex("nyc"), prg).empty(),
            true,
            "no route to prg");
        const nlohmann::json& clique = doc["rounds"][0]["cliques"][2];
        NS_TEST_EXPECT_MSG_EQ(clique["groups"].dump(),
                              R"([["prg"],["tyo","sin"]])",
                              "each side of the partition averages over itself");
    }

    CapabilityMode m_mode; //!< the mode
};

/**
 * @ingroup wan-training-tests
 * @brief A partition that cuts an exchange halfway: fra-prg goes down while the round-0
 * contributions of tyo and sin stream into prg. A member holding part of a contribution it can
 * no longer complete abandons the round with a reason naming the stream; every average that
 * completes is exact; the later rounds complete without prg; the run ends by itself (no time
 * limit).
 */
class PartitionMidExchangeTestCase : public FaultTestCase
{
  public:
    PartitionMidExchangeTestCase()
        : FaultTestCase("fra-prg down while streams reach prg in round 0, unicast")
    {
    }

  private:
    void DoRun() override
    {
        LoadTopology();
        const CliqueSchedule schedule = CliqueSchedule::LatinTriples(9);
        TrainingRun::Config config = SmallConfig(CapabilityMode::UNICAST);
        const uint32_t prg = Topology().GetCityIndex("prg");
        Time cut;
        {
            // When do the round-0 streams reach prg's router? A run without the fault.
            auto baseline = Build(schedule, config);
            std::vector<Time> arrived;
            baseline->GetScenario()
                .GetRxDevice(Link("fra", "prg"))
                ->TraceConnectWithoutContext("PhyRxEnd", MakeBoundCallback(&OnMacTx, &arrived));
            baseline->Run();
            std::vector<Time> round0;
            for (Time t : arrived)
            {
                if (t <= m_record.finished.at({0, prg}))
                {
                    round0.push_back(t);
                }
            }
            NS_TEST_ASSERT_MSG_GT(round0.size(), 10u, "streams reach prg in round 0");
            // Most of them are the contributions (a few are control messages): the median is
            // inside their burst.
            cut = round0[round0.size() / 2];
        }
        FaultPlan::LinkOutage outage;
        outage.link = LinkIndex("fra", "prg");
        outage.down = cut;
        config.faults.linkOutages.push_back(outage);
        auto run = Build(schedule, config);
        run->Run();
        const TrainingResults& results = run->GetResults();
        NS_TEST_EXPECT_MSG_EQ(results.WasStoppedByTimeLimit(), false, "ended by itself");
        NS_TEST_EXPECT_MSG_GT(m_record.abandoned.size(), 0u, "the cut exchange is abandoned");
        for (const auto& [key, reason] : m_record.abandoned)
        {
            NS_TEST_EXPECT_MSG_EQ(key.first, 0u, "only round 0 is abandoned");
            NS_TEST_EXPECT_MSG_EQ(results.GetRoundStatus(key.first, key.second),
                                  TrainingResults::ABANDONED,
                                  "reported as abandoned");
            NS_TEST_EXPECT_MSG_EQ(results.GetReason(key.first, key.second), reason, "reason");
            NS_TEST_EXPECT_MSG_NE(reason.find("no progress on the stream from"),
                                  std::string::npos,
                                  "the reason names the stream: " << reason);
        }
        // Every completed average is exact over its contributors (whatever they are).
        for (const auto& [key, contributors] : m_record.contributors)
        {
            CheckAverage(key.first, key.second, contributors);
            NS_TEST_EXPECT_MSG_EQ(results.IsMemberVerified(key.first, key.second),
                                  true,
                                  "results verified");
        }
        // After round 0 the sides average apart.
        for (uint32_t r = 1; r < config.rounds; ++r)
        {
            for (uint32_t i = 0; i < 9; ++i)
            {
                const uint64_t clique = CliqueBits(schedule, r, i);
                CheckAverage(r, i, i == prg ? uint64_t{1} << prg : clique & ~(uint64_t{1} << prg));
            }
        }
        NS_TEST_EXPECT_MSG_EQ(results.IsComplete(), false, "round 0 did not complete");
        const nlohmann::json doc = nlohmann::json::parse(results.ToJson());
        NS_TEST_EXPECT_MSG_EQ(doc["rounds"][0]["complete"].get<bool>(), false, "round 0");
        NS_TEST_EXPECT_MSG_GT(doc["rounds"][0]["unfinished"].size(), 0u, "reported");
        for (const auto& entry : doc["rounds"][0]["unfinished"])
        {
            NS_TEST_EXPECT_MSG_EQ(entry["reason"].get<std::string>().empty(), false, "a reason");
        }
        NS_TEST_EXPECT_MSG_EQ(results.GetRoundsVerified(), config.rounds - 1, "the others");
    }
};

/**
 * @ingroup wan-training-tests
 * @brief A straggler: sin computes 4 times slower; its local compute takes exactly 4 x
 * LocalSteps x StepTime, the others' LocalSteps x StepTime; its cliques wait for it and every
 * round completes with exact averages.
 */
class StragglerTestCase : public FaultTestCase
{
  public:
    StragglerTestCase()
        : FaultTestCase("straggler sin x4, unicast")
    {
    }

  private:
    void DoRun() override
    {
        LoadTopology();
        const CliqueSchedule schedule = CliqueSchedule::LatinTriples(9);
        TrainingRun::Config config = SmallConfig(CapabilityMode::UNICAST);
        const uint32_t sin = Topology().GetCityIndex("sin");
        config.faults.stragglers.push_back({sin, 4});
        auto run = Build(schedule, config);
        run->Run();
        CheckAllRounds(*run, [&](uint32_t r, uint32_t i) {
            Expected e;
            e.contributors = CliqueBits(schedule, r, i);
            return e;
        });
        const Time compute = config.stepTime * config.localSteps;
        for (uint32_t r = 0; r < config.rounds; ++r)
        {
            for (uint32_t i = 0; i < 9; ++i)
            {
                NS_TEST_EXPECT_MSG_EQ(m_record.exchanged.at({r, i}) - m_record.started.at({r, i}),
                                      (i == sin ? compute * 4 : compute),
                                      "round " << r << ", island " << i << ": compute time");
                if (i != sin && (CliqueBits(schedule, r, i) & (uint64_t{1} << sin)))
                {
                    NS_TEST_EXPECT_MSG_GT(m_record.finished.at({r, i}),
                                          m_record.exchanged.at({r, sin}),
                                          "round " << r << ": " << i << " waited for sin");
                }
            }
        }
    }
};

/**
 * @ingroup wan-training-tests
 * @brief Duplicated and reordered WAN packets (and loss): every round completes with exact
 * averages; the fault models did duplicate and reorder, and the islands saw duplicates.
 */
class DuplicateReorderTestCase : public FaultTestCase
{
  public:
    /**
     * @param mode the capability mode
     * @param lossRate the WAN loss
     * @param duplicateRate the duplicate probability
     * @param reorderRate the reorder probability
     */
    DuplicateReorderTestCase(CapabilityMode mode,
                             double lossRate,
                             double duplicateRate,
                             double reorderRate)
        : FaultTestCase("loss " + std::to_string(lossRate) + ", duplicate " +
                        std::to_string(duplicateRate) + ", reorder " + std::to_string(reorderRate) +
                        ", mode " + CapabilityModeToString(mode)),
          m_mode(mode),
          m_lossRate(lossRate),
          m_duplicateRate(duplicateRate),
          m_reorderRate(reorderRate)
    {
    }

  private:
    void DoRun() override
    {
        LoadTopology();
        const CliqueSchedule schedule = CliqueSchedule::LatinTriples(9);
        TrainingRun::Config config = SmallConfig(m_mode);
        config.wanLossRate = m_lossRate;
        config.faults.duplicateRate = m_duplicateRate;
        config.faults.reorderRate = m_reorderRate;
        auto run = Build(schedule, config);
        run->Run();
        CheckAllRounds(*run, [&](uint32_t r, uint32_t i) {
            Expected e;
            e.contributors = CliqueBits(schedule, r, i);
            return e;
        });
        uint64_t lost = 0;
        uint64_t duplicated = 0;
        uint64_t reordered = 0;
        for (const auto& model : run->GetFaultModels())
        {
            lost += model->GetLost();
            duplicated += model->GetDuplicated();
            reordered += model->GetReordered();
        }
        const TrainingResults& results = run->GetResults();
        uint64_t errorDrops = 0;
        for (uint32_t d = 0; d < Topology().GetNDirectedLinks(); ++d)
        {
            errorDrops += results.GetLinkCounters(d).errorDrops;
        }
        NS_TEST_EXPECT_MSG_EQ(errorDrops, lost, "the results count the random losses");
        NS_TEST_EXPECT_MSG_EQ((lost > 0), (m_lossRate > 0), "losses");
        NS_TEST_EXPECT_MSG_EQ((duplicated > 0), (m_duplicateRate > 0), "duplicates");
        NS_TEST_EXPECT_MSG_EQ((reordered > 0), (m_reorderRate > 0), "late deliveries");
    }

    CapabilityMode m_mode;  //!< the mode
    double m_lossRate;      //!< loss
    double m_duplicateRate; //!< duplicate probability
    double m_reorderRate;   //!< reorder probability
};

/**
 * @ingroup wan-training-tests
 * @brief FPGA slot exhaustion: with one slot per FPGA most contributions pass through (NO_SLOT)
 * and the islands sum them; every round completes with exact averages.
 */
class SlotExhaustionTestCase : public FaultTestCase
{
  public:
    /**
     * @param mode aggregation or both
     */
    explicit SlotExhaustionTestCase(CapabilityMode mode)
        : FaultTestCase("FPGA slot exhaustion (1 slot), mode " + CapabilityModeToString(mode)),
          m_mode(mode)
    {
    }

  private:
    void DoRun() override
    {
        LoadTopology();
        const CliqueSchedule schedule = CliqueSchedule::LatinTriples(9);
        TrainingRun::Config config = SmallConfig(m_mode);
        config.fpgaSlots = 1;
        auto run = Build(schedule, config);
        run->Run();
        CheckAllRounds(*run, [&](uint32_t r, uint32_t i) {
            Expected e;
            e.contributors = CliqueBits(schedule, r, i);
            return e;
        });
        uint64_t noSlot = 0;
        for (uint32_t i = 0; i < 9; ++i)
        {
            noSlot +=
                run->GetScenario().GetAggregator(i)->GetPassThroughs(AggregatorNetDevice::NO_SLOT);
        }
        NS_TEST_EXPECT_MSG_GT(noSlot, 0u, "contributions passed through for want of a slot");
    }

    CapabilityMode m_mode; //!< the mode
};

/**
 * @ingroup wan-training-tests
 * @brief The guard: a time limit far too short stops the run; the unfinished rounds are
 * reported with the limit as the reason, the completed ones are exact. The derived limit of a
 * normal run does not stop it.
 */
class TimeLimitTestCase : public FaultTestCase
{
  public:
    TimeLimitTestCase()
        : FaultTestCase("time limit")
    {
    }

  private:
    void DoRun() override
    {
        LoadTopology();
        const CliqueSchedule schedule = CliqueSchedule::LatinTriples(9);
        TrainingRun::Config config = SmallConfig(CapabilityMode::UNICAST);
        double trainingS = 0;
        {
            auto run = Build(schedule, config);
            run->Run();
            NS_TEST_EXPECT_MSG_EQ(run->GetResults().WasStoppedByTimeLimit(), false, "derived");
            NS_TEST_EXPECT_MSG_EQ(run->Passed(), true, "a normal run passes");
            trainingS = run->GetResults().GetTrainingTimeS();
            NS_TEST_EXPECT_MSG_GT(run->GetTimeLimit().GetSeconds(), 10 * trainingS, "generous");
        }
        config.faults.timeLimit = Seconds(trainingS / 2);
        auto run = Build(schedule, config);
        run->Run();
        const TrainingResults& results = run->GetResults();
        NS_TEST_EXPECT_MSG_EQ(results.WasStoppedByTimeLimit(), true, "stopped");
        NS_TEST_EXPECT_MSG_EQ(run->Passed(), false, "not every round completed");
        uint32_t pending = 0;
        for (uint32_t r = 0; r < config.rounds; ++r)
        {
            for (uint32_t i = 0; i < 9; ++i)
            {
                if (results.GetRoundStatus(r, i) == TrainingResults::PENDING)
                {
                    ++pending;
                    NS_TEST_EXPECT_MSG_NE(results.GetReason(r, i).find("time limit"),
                                          std::string::npos,
                                          "the reason: " << results.GetReason(r, i));
                }
                else
                {
                    CheckAverage(r, i, CliqueBits(schedule, r, i));
                }
            }
        }
        NS_TEST_EXPECT_MSG_GT(pending, 0u, "rounds left");
    }
};

/**
 * @ingroup wan-training-tests
 * @brief WanFaultErrorModel on its own: two nodes, one link, 400 packets one microsecond apart;
 * what arrives is counted against the model's counters (down: nothing; loss: sent - lost;
 * duplicate: sent + duplicated, each packet once or twice; reorder: every packet once, some out
 * of order).
 */
class FaultModelTestCase : public TestCase
{
  public:
    FaultModelTestCase()
        : TestCase("WanFaultErrorModel: down, loss, duplicate, reorder")
    {
    }

  private:
    /**
     * @param arrivals where to record
     * @param packet what arrived
     * @return true
     */
    static bool Receive(std::vector<uint32_t>* arrivals,
                        Ptr<NetDevice> /* device */,
                        Ptr<const Packet> packet,
                        uint16_t /* protocol */,
                        const Address& /* from */)
    {
        arrivals->push_back(packet->GetSize());
        return true;
    }

    /**
     * @param attribute the model attribute to set ("" for none)
     * @param value its value
     * @param down whether the link is down
     * @param model where the model goes
     * @return the sizes of the packets that arrived, in order (sizes 100..499 were sent)
     */
    std::vector<uint32_t> Send(const std::string& attribute,
                               double value,
                               bool down,
                               Ptr<WanFaultErrorModel>& model)
    {
        NodeContainer nodes;
        nodes.Create(2);
        PointToPointHelper p2p;
        p2p.SetDeviceAttribute("DataRate", StringValue("10Gbps"));
        p2p.SetChannelAttribute("Delay", StringValue("1ms"));
        p2p.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", StringValue("1000p"));
        NetDeviceContainer devices = p2p.Install(nodes);
        Ptr<PointToPointNetDevice> receiver = DynamicCast<PointToPointNetDevice>(devices.Get(1));
        model = CreateObject<WanFaultErrorModel>();
        if (!attribute.empty())
        {
            model->SetAttribute(attribute, DoubleValue(value));
        }
        model->SetAttribute("ReorderDelay", TimeValue(MicroSeconds(50)));
        model->AssignStreams(7);
        model->SetDevice(receiver);
        model->SetLinkDown(down);
        receiver->SetAttribute("ReceiveErrorModel", PointerValue(model));
        std::vector<uint32_t> arrivals;
        receiver->SetReceiveCallback(MakeBoundCallback(&Receive, &arrivals));
        Ptr<NetDevice> sender = devices.Get(0);
        for (uint32_t k = 0; k < 400; ++k)
        {
            Simulator::Schedule(MicroSeconds(k), [sender, receiver, k]() {
                sender->Send(Create<Packet>(100 + k), receiver->GetAddress(), 0x0800);
            });
        }
        Simulator::Run();
        Simulator::Destroy();
        return arrivals;
    }

    void DoRun() override
    {
        Ptr<WanFaultErrorModel> model;
        std::vector<uint32_t> got = Send("", 0, true, model);
        NS_TEST_EXPECT_MSG_EQ(got.size(), 0u, "down: nothing arrives");
        NS_TEST_EXPECT_MSG_EQ(model->GetLinkDownDrops(), 400u, "down: every packet counted");

        got = Send("LossRate", 0.2, false, model);
        NS_TEST_EXPECT_MSG_GT(model->GetLost(), 0u, "loss: some lost");
        NS_TEST_EXPECT_MSG_EQ(got.size(), 400u - model->GetLost(), "loss: the rest arrives");

        got = Send("DuplicateRate", 0.3, false, model);
        NS_TEST_EXPECT_MSG_GT(model->GetDuplicated(), 0u, "duplicate: some copied");
        NS_TEST_EXPECT_MSG_EQ(got.size(), 400u + model->GetDuplicated(), "duplicate: count");
        std::map<uint32_t, uint32_t> copies;
        for (uint32_t size : got)
        {
            ++copies[size];
        }
        NS_TEST_EXPECT_MSG_EQ(copies.size(), 400u, "duplicate: every packet arrives");
        uint64_t twice = 0;
        for (const auto& [size, count] : copies)
        {
            NS_TEST_EXPECT_MSG_LT_OR_EQ(count, 2u, "at most twice");
            twice += count == 2 ? 1 : 0;
        }
        NS_TEST_EXPECT_MSG_EQ(twice, model->GetDuplicated(), "duplicate: the copied ones twice");

        got = Send("ReorderRate", 0.3, false, model);
        NS_TEST_EXPECT_MSG_GT(model->GetReordered(), 0u, "reorder: some held back");
        NS_TEST_EXPECT_MSG_EQ(got.size(), 400u, "reorder: every packet arrives");
        std::vector<uint32_t> sorted = got;
        std::sort(sorted.begin(), sorted.end());
        bool all = true;
        for (uint32_t k = 0; k < 400; ++k)
        {
            all = all && sorted[k] == 100 + k;
        }
        NS_TEST_EXPECT_MSG_EQ(all, true, "reorder: each packet once");
        NS_TEST_EXPECT_MSG_EQ(std::is_sorted(got.begin(), got.end()), false, "out of order");
    }
};

/**
 * @ingroup wan-training-tests
 * @brief WanTopology::WithLinksDown: the numbering stays, the routes are those of the graph
 * parsed without the link, a bridge partitions the graph into the expected components.
 */
class LinksDownTopologyTestCase : public FaultTestCase
{
  public:
    LinksDownTopologyTestCase()
        : FaultTestCase("WanTopology::WithLinksDown")
    {
    }

  private:
    void DoRun() override
    {
        LoadTopology();
        const WanTopology cut = Topology().WithLinksDown({LinkIndex("nyc", "lon")});
        const WanTopology without = LoadWithoutLink(m_topologyFile, "nyc", "lon");
        NS_TEST_EXPECT_MSG_EQ(cut.GetNDirectedLinks(), Topology().GetNDirectedLinks(), "size");
        for (uint32_t d = 0; d < cut.GetNDirectedLinks(); ++d)
        {
            NS_TEST_EXPECT_MSG_EQ(cut.GetDirectedLinkName(d),
                                  Topology().GetDirectedLinkName(d),
                                  "names");
        }
        for (uint32_t a = 0; a < 9; ++a)
        {
            for (uint32_t b = 0; b < 9; ++b)
            {
                if (a == b)
                {
                    continue;
                }
                NS_TEST_EXPECT_MSG_EQ((cut.GetRoute(a, b).cities == without.GetRoute(a, b).cities),
                                      true,
                                      "route " << a << "->" << b);
                NS_TEST_EXPECT_MSG_EQ(cut.GetRoute(a, b).latencyMs,
                                      without.GetRoute(a, b).latencyMs,
                                      "latency " << a << "->" << b);
            }
        }
        NS_TEST_EXPECT_MSG_EQ(cut.GetComponents().size(), 1u, "still connected");
        const WanTopology island = Topology().WithLinksDown({LinkIndex("fra", "prg")});
        const uint32_t prg = Topology().GetCityIndex("prg");
        NS_TEST_EXPECT_MSG_EQ(island.GetComponents().size(), 2u, "partitioned");
        NS_TEST_EXPECT_MSG_EQ((island.GetComponents()[1] == std::vector<uint32_t>{prg}),
                              true,
                              "prg alone");
        NS_TEST_EXPECT_MSG_EQ(island.HasRoute(0, prg), false, "no route to prg");
        NS_TEST_EXPECT_MSG_EQ(island.GetRoute(0, prg).links.empty(), true, "empty route");
        const WanTopology back = island.WithLinksDown({});
        NS_TEST_EXPECT_MSG_EQ((back.GetRoute(0, prg).cities == Topology().GetRoute(0, prg).cities),
                              true,
                              "back up");
    }
};

/**
 * @ingroup wan-training-tests
 * @brief The fault texts and the ring checks of TrainingRun::Validate: errors that name the
 * field, the entry and the reason; boundaries accepted.
 */
class FaultValidationTestCase : public FaultTestCase
{
  public:
    FaultValidationTestCase()
        : FaultTestCase("fault knobs and ring chunk checks: messages")
    {
    }

  private:
    void DoRun() override
    {
        LoadTopology();
        auto parse = [this](FaultPlan::Texts texts) {
            return ErrorOf([&]() { FaultPlan::Parse(Topology(), 4, texts); });
        };
        FaultPlan::Texts t;
        NS_TEST_EXPECT_MSG_EQ(parse(t), "", "no faults");
        const std::vector<std::pair<std::string, std::string>> linkCases = {
            {"nyc-lon@0", ""},
            {"nyc-lon@2.5:4,fra-prg@100ms", ""},
            {"nyc-lon@1:2,lon-nyc@2", ""},
            {"nyc-xyz@2",
             "faults.linkOutages: 'nyc-xyz@2': unknown city 'xyz' (cities: nyc, chi, lax, lon, "
             "ams, fra, "
             "prg, tyo, sin)"},
            {"nyc-prg@2",
             "faults.linkOutages: 'nyc-prg@2': topology 'doublezero-nine-city' has no link between "
             "nyc "
             "and prg"},
            {"nyc-lon@abc",
             "faults.linkOutages: 'nyc-lon@abc': the down time must be a non-negative duration up "
             "to one "
             "day, in seconds or with a unit, e.g. 2, 2.5s, 500ms (got 'abc')"},
            {"nyc-lon@1:x",
             "faults.linkOutages: 'nyc-lon@1:x': the up time must be a non-negative duration up to "
             "one "
             "day, in seconds or with a unit, e.g. 2, 2.5s, 500ms (got 'x')"},
            {"nyc-lon@3:2",
             "faults.linkOutages: nyc-lon down at 3 s, up at 2 s: the down time must be >= 0 and "
             "the "
             "link must come back up after it goes down"},
            {"nyc-lon",
             "faults.linkOutages: 'nyc-lon': expected A-B@SECONDS[:UPSECONDS] with city ids A "
             "and B"},
            {"nyclon@1",
             "faults.linkOutages: 'nyclon@1': expected A-B@SECONDS[:UPSECONDS] with city ids "
             "A and B"},
            {"nyc-lon@1:3,lon-nyc@2",
             "faults.linkOutages: two outages of nyc-lon overlap (down at 1 s and at 2 s)"},
            {"nyc-lon@1,",
             "faults.linkOutages: 'nyc-lon@1,' has an empty entry (entries are separated by single "
             "commas)"},
        };
        for (const auto& [text, message] : linkCases)
        {
            FaultPlan::Texts texts;
            texts.linkOutages = text;
            NS_TEST_EXPECT_MSG_EQ(parse(texts), message, "linkOutages " << text);
        }
        const std::vector<std::pair<std::string, std::string>> crashCases = {
            {"nyc@3", ""},
            {"nyc@0,tyo@1", ""},
            {"xyz@1",
             "faults.crashes: 'xyz@1': unknown city 'xyz' (cities: nyc, chi, lax, lon, ams, fra, "
             "prg, "
             "tyo, sin)"},
            {"nyc@x", "faults.crashes: 'nyc@x': the round must be a whole number (got 'x')"},
            {"nyc@-1", "faults.crashes: 'nyc@-1': the round must be a whole number (got '-1')"},
            {"nyc", "faults.crashes: 'nyc': expected CITY@ROUND with a city id"},
            {"nyc@4",
             "faults.crashes: 'nyc@4': round 4 is not below {rounds}=4 (rounds count from 0)"},
            {"nyc@1,nyc@2", "faults.crashes: nyc is listed twice"},
        };
        for (const auto& [text, message] : crashCases)
        {
            FaultPlan::Texts texts;
            texts.crashes = text;
            NS_TEST_EXPECT_MSG_EQ(parse(texts), message, "crashes " << text);
        }
        const std::vector<std::pair<std::string, std::string>> stragglerCases = {
            {"nyc:1", ""},
            {"nyc:2.5,sin:1e6", ""},
            {"nyc:0.99",
             "faults.stragglers: 'nyc:0.99': the factor must be a number in [1, 1e+06] (got "
             "'0.99')"},
            {"nyc:inf",
             "faults.stragglers: 'nyc:inf': the factor must be a number in [1, 1e+06] (got 'inf')"},
            {"nyc", "faults.stragglers: 'nyc': expected CITY:FACTOR with a city id"},
            {"xyz:2",
             "faults.stragglers: 'xyz:2': unknown city 'xyz' (cities: nyc, chi, lax, lon, ams, "
             "fra, "
             "prg, tyo, sin)"},
            {"nyc:2,nyc:3", "faults.stragglers: nyc is listed twice"},
        };
        for (const auto& [text, message] : stragglerCases)
        {
            FaultPlan::Texts texts;
            texts.stragglers = text;
            NS_TEST_EXPECT_MSG_EQ(parse(texts), message, "stragglers " << text);
        }
        FaultPlan::Texts rates;
        rates.duplicateRate = "0.5";
        rates.reorderRate = "0";
        NS_TEST_EXPECT_MSG_EQ(parse(rates), "", "the largest rate");
        rates.duplicateRate = "0.51";
        NS_TEST_EXPECT_MSG_EQ(parse(rates),
                              "faults.duplicateRate: must be a number in [0, 0.5] (got '0.51')",
                              "duplicate");
        rates.duplicateRate = "0";
        rates.reorderRate = "x";
        NS_TEST_EXPECT_MSG_EQ(parse(rates),
                              "faults.reorderRate: must be a number in [0, 0.5] (got 'x')",
                              "reorder");

        // Plans built in code are checked too (TrainingRun::Validate).
        const CliqueSchedule latin = CliqueSchedule::LatinTriples(9);
        TrainingRun::Config config = SmallConfig(CapabilityMode::UNICAST);
        config.faults.crashes.push_back({0, 4});
        NS_TEST_EXPECT_MSG_EQ(
            ErrorOf([&]() { TrainingRun::Validate(Topology(), latin, config); }),
            "faults.crashes: 'nyc@4': round 4 is not below {rounds}=4 (rounds count from 0)",
            "a crash after the last round");

        // Ring cliques need a chunk per member (before: an abort in the application).
        TrainingRun::Config ring = SmallConfig(CapabilityMode::RING);
        ring.parameterCount = 1;
        ring.modelBytes = 8;
        NS_TEST_EXPECT_MSG_EQ(
            ErrorOf([&]() { TrainingRun::Validate(Topology(), latin, ring); }),
            "modelBytes: 8 bytes are too few for the ring of 3 members {nyc chi "
            "lax} of schedule round 0: each member's segment needs a chunk of at least "
            "one value (whole fp32 values of 4 bytes), so ring mode needs at least 12 bytes",
            "S < 4k");
        ring.modelBytes = 11;
        NS_TEST_EXPECT_MSG_EQ(
            ErrorOf([&]() { TrainingRun::Validate(Topology(), latin, ring); }),
            "modelBytes: 11 bytes are no fp32 contribution (whole fp32 values of 4 bytes): "
            "the nearest are 8 and 12 bytes",
            "S not a whole number of values");
        ring.modelBytes = 12;
        NS_TEST_EXPECT_MSG_EQ(ErrorOf([&]() { TrainingRun::Validate(Topology(), latin, ring); }),
                              "",
                              "S = 4k");
        ring.modelBytes = 8000;
        ring.chunkBytes = 4000;
        NS_TEST_EXPECT_MSG_EQ(
            ErrorOf([&]() { TrainingRun::Validate(Topology(), latin, ring); }),
            "chunkBytes: 4000 cuts {modelBytes}=8000 into 2 chunks, fewer than the "
            "members of the ring of 3 members {nyc chi lax} of schedule round 0 (each "
            "member's segment needs a chunk); use at most 2664 bytes, or 0",
            "fewer chunks than members");
        ring.chunkBytes = 2664;
        NS_TEST_EXPECT_MSG_EQ(ErrorOf([&]() { TrainingRun::Validate(Topology(), latin, ring); }),
                              "",
                              "three chunks for three members");
    }
};

/**
 * @ingroup wan-training-tests
 * @brief Every fault at once, on a larger model: a crash, a link going down and up, a
 * partition that heals, 2% loss, a straggler, duplicates and late packets. Whatever completes is
 * exact over the contributors its island reports (recomputed here), what does not complete is
 * reported with a reason (contributor sets that disagree included), and the run ends by itself.
 */
class CombinedFaultsTestCase : public FaultTestCase
{
  public:
    /**
     * @param mode the capability mode
     * @param seed the seed
     */
    CombinedFaultsTestCase(CapabilityMode mode, uint32_t seed)
        : FaultTestCase("every fault at once, mode " + CapabilityModeToString(mode) + ", seed " +
                        std::to_string(seed)),
          m_mode(mode),
          m_seed(seed)
    {
    }

  private:
    void DoRun() override
    {
        LoadTopology();
        const CliqueSchedule schedule = CliqueSchedule::LatinTriples(9);
        TrainingRun::Config config = SmallConfig(m_mode);
        config.seed = m_seed;
        config.rounds = 6;
        config.modelBytes = 2000000;
        config.wanLossRate = 0.02;
        config.faults.crashes.push_back({Topology().GetCityIndex("ams"), 3});
        config.faults.stragglers.push_back({Topology().GetCityIndex("lax"), 2});
        config.faults.duplicateRate = 0.01;
        config.faults.reorderRate = 0.01;
        FaultPlan::LinkOutage nycLon;
        nycLon.link = LinkIndex("nyc", "lon");
        nycLon.down = MilliSeconds(60);
        nycLon.restored = true;
        nycLon.up = MilliSeconds(700);
        config.faults.linkOutages.push_back(nycLon);
        FaultPlan::LinkOutage fraPrg;
        fraPrg.link = LinkIndex("fra", "prg");
        fraPrg.down = MilliSeconds(300);
        fraPrg.restored = true;
        fraPrg.up = Seconds(12);
        config.faults.linkOutages.push_back(fraPrg);
        auto run = Build(schedule, config);
        run->Run();
        const TrainingResults& results = run->GetResults();
        NS_TEST_EXPECT_MSG_EQ(results.WasStoppedByTimeLimit(), false, "ended by itself");
        NS_TEST_EXPECT_MSG_EQ(results.WasPartitioned(), true, "the partition is reported");
        for (const auto& [key, contributors] : m_record.contributors)
        {
            CheckAverage(key.first, key.second, contributors);
            NS_TEST_EXPECT_MSG_EQ(results.IsMemberVerified(key.first, key.second),
                                  true,
                                  "results verified");
        }
        const uint32_t ams = Topology().GetCityIndex("ams");
        for (uint32_t r = 0; r < config.rounds; ++r)
        {
            for (uint32_t i = 0; i < 9; ++i)
            {
                const auto status = results.GetRoundStatus(r, i);
                NS_TEST_EXPECT_MSG_EQ((status == TrainingResults::CRASHED),
                                      (i == ams && r >= 3),
                                      "round " << r << ", island " << i << ": crashed or not");
                if (status == TrainingResults::ABANDONED || status == TrainingResults::PENDING)
                {
                    NS_TEST_EXPECT_MSG_EQ(results.GetReason(r, i).empty(),
                                          false,
                                          "round " << r << ", island " << i << ": a reason");
                }
            }
        }
        const nlohmann::json doc = nlohmann::json::parse(results.ToJson());
        for (const auto& round : doc["rounds"])
        {
            NS_TEST_EXPECT_MSG_EQ(round["complete"].get<bool>(),
                                  round["unfinished"].empty(),
                                  "a round is complete unless something is reported");
            // Contributor sets that disagree (a cut exchange) are reported, never silent.
            const uint32_t r = round["round"].get<uint32_t>();
            for (const auto& clique : round["cliques"])
            {
                const uint32_t c = clique["clique"].get<uint32_t>();
                NS_TEST_EXPECT_MSG_EQ(clique["consistent"].get<bool>(),
                                      results.IsCliqueConsistent(r, c),
                                      "round " << r << ", clique " << c);
                if (!results.IsCliqueConsistent(r, c))
                {
                    bool reported = false;
                    for (const auto& entry : round["unfinished"])
                    {
                        reported =
                            reported ||
                            (entry.contains("clique") && entry["clique"].get<uint32_t>() == c &&
                             entry["status"].get<std::string>() == "inconsistent");
                    }
                    NS_TEST_EXPECT_MSG_EQ(reported, true, "round " << r << ", clique " << c);
                }
            }
        }
        NS_TEST_EXPECT_MSG_GT(doc["summary"]["link_down_drops"].get<uint64_t>() +
                                  doc["summary"]["exclusions"].get<uint64_t>(),
                              0u,
                              "the faults showed");
    }

    CapabilityMode m_mode; //!< the mode
    uint32_t m_seed;       //!< the seed
};

/**
 * @ingroup wan-training-tests
 * @brief The fault injection suite (issue 10).
 */
class FaultInjectionTestSuite : public TestSuite
{
  public:
    FaultInjectionTestSuite();
};

FaultInjectionTestSuite::FaultInjectionTestSuite()
    : TestSuite("wan-training-fault-injection", SYSTEM)
{
    SetDataDir(NS_TEST_SOURCEDIR);
    AddTestCase(new FaultValidationTestCase(), TestCase::QUICK);
    AddTestCase(new LinksDownTopologyTestCase(), TestCase::QUICK);
    AddTestCase(new FaultModelTestCase(), TestCase::QUICK);
    // Each fault alone, and link down with 2% loss, in every capability mode.
    for (CapabilityMode mode : {CapabilityMode::UNICAST,
                                CapabilityMode::MULTICAST,
                                CapabilityMode::AGGREGATION,
                                CapabilityMode::BOTH,
                                CapabilityMode::RING})
    {
        AddTestCase(new CrashTestCase(mode, 0), TestCase::QUICK);
        AddTestCase(new LinkDownTestCase(mode, 0), TestCase::QUICK);
        AddTestCase(new LinkDownTestCase(mode, 0.02), TestCase::QUICK);
        AddTestCase(new PartitionTestCase(mode), TestCase::QUICK);
        AddTestCase(new DuplicateReorderTestCase(mode, 0.05, 0, 0), TestCase::QUICK);
        AddTestCase(new DuplicateReorderTestCase(mode, 0, 0.05, 0), TestCase::QUICK);
        AddTestCase(new DuplicateReorderTestCase(mode, 0, 0, 0.05), TestCase::QUICK);
    }
    AddTestCase(new CrashAloneTestCase(), TestCase::QUICK);
    AddTestCase(new PartitionMidExchangeTestCase(), TestCase::QUICK);
    AddTestCase(new StragglerTestCase(), TestCase::QUICK);
    AddTestCase(new SlotExhaustionTestCase(CapabilityMode::AGGREGATION), TestCase::QUICK);
    AddTestCase(new SlotExhaustionTestCase(CapabilityMode::BOTH), TestCase::QUICK);
    AddTestCase(new TimeLimitTestCase(), TestCase::QUICK);
}

/** Static instance of the suite. */
static FaultInjectionTestSuite g_faultInjectionTestSuite;

/**
 * @ingroup wan-training-tests
 * @brief The long fault injection suite: every fault at once on a 2 MB model, in every mode,
 * for three seeds.
 */
class FaultInjectionLongTestSuite : public TestSuite
{
  public:
    FaultInjectionLongTestSuite();
};

FaultInjectionLongTestSuite::FaultInjectionLongTestSuite()
    : TestSuite("wan-training-fault-injection-long", SYSTEM)
{
    SetDataDir(NS_TEST_SOURCEDIR);
    for (CapabilityMode mode : {CapabilityMode::UNICAST,
                                CapabilityMode::MULTICAST,
                                CapabilityMode::AGGREGATION,
                                CapabilityMode::BOTH,
                                CapabilityMode::RING})
    {
        for (uint32_t seed : {1, 2, 3})
        {
            AddTestCase(new CombinedFaultsTestCase(mode, seed), TestCase::QUICK);
        }
    }
}

/** Static instance of the long suite. */
static FaultInjectionLongTestSuite g_faultInjectionLongTestSuite;
