/*
 * Copyright (c) 2026 The wan-training authors
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "clique-schedule.h"
#include "exchange-plan.h"
#include "link-load-model.h"
#include "local-objective.h"
#include "schedule-metrics.h"
#include "training-island-application.h"
#include "training-results.h"
#include "training-run-summary.h"
#include "training-run.h"
#include "wan-topology.h"

#include "ns3/callback.h"
#include "ns3/nstime.h"
#include "ns3/simulator.h"
#include "ns3/test.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

/**
 * @file
 * @ingroup wan-training-tests
 * Overlap (streaming) in the islands: round r+1's local steps run while round r's exchange is on
 * the wire, round r's average is applied when it arrives as x <- x + (avg_r - x_r), and round
 * r+1's snapshot waits for it. Checked against closed forms: compute-bound rounds take exactly
 * tau_c from snapshot to snapshot; communication-bound rounds (T_comm >= 2 tau_c) take the
 * exchange plus the READY of the next round, and the exchange itself is the route latency plus
 * the wire bytes over the bottleneck share; the islands' parameters follow the delayed
 * correction step by step (replayed here with the island's own objective, bit for bit).
 */

using namespace ns3;

namespace
{

/** Three cities aaa-bbb-ccc in a line (10 Gbps, 5 ms links, MTU 1500). */
const std::string TINY = "data/tiny-valid.json";
/** The nine-city reference WAN (multicast and aggregation capable, MTU 9000). */
const std::string REFERENCE_WAN = "../topologies/reference-wan.json";
/** The nine-city WAN (an FPGA on every router: tree mode). */
const std::string NINE_CITY = "../topologies/doublezero-nine-city.json";

/** What one island did in one round. */
struct IslandRoundRecord
{
    double snapshotS{-1};        //!< ExchangeStarted
    double finishS{-1};          //!< RoundFinished
    std::vector<float> snapshot; //!< x_r
    std::vector<float> average;  //!< avg_r
};

/** A run with its per-round records. */
class OverlapRun
{
  public:
    /**
     * @param topologyFile the topology
     * @param rounds the schedule's rounds
     * @param config the run's configuration
     */
    OverlapRun(const std::string& topologyFile,
               const std::vector<CliqueSchedule::Round>& rounds,
               const TrainingRun::Config& config)
        : OverlapRun(WanTopology::LoadFile(topologyFile), rounds, config)
    {
    }

    /**
     * @param topology the topology
     * @param rounds the schedule's rounds
     * @param config the run's configuration
     */
    OverlapRun(const WanTopology& topology,
               const std::vector<CliqueSchedule::Round>& rounds,
               const TrainingRun::Config& config)
    {
        // One simulation at a time: the run is destroyed (Simulator::Destroy) before the next.
        TrainingRun run(topology, CliqueSchedule(topology.GetNCities(), rounds), config);
        run.Build();
        for (uint32_t i = 0; i < topology.GetNCities(); ++i)
        {
            run.GetApp(i)->TraceConnectWithoutContext(
                "ExchangeStarted",
                MakeCallback(&OverlapRun::OnExchangeStarted, this));
            run.GetApp(i)->TraceConnectWithoutContext(
                "RoundFinished",
                MakeCallback(&OverlapRun::OnRoundFinished, this));
        }
        run.Run();
        m_roundsVerified = run.GetResults().GetRoundsVerified();
        m_summary = TrainingRunSummary::Parse(run.GetResults().ToJson(), "overlap-run");
        for (uint32_t i = 0; i < topology.GetNCities(); ++i)
        {
            m_final.push_back(run.GetApp(i)->GetParameters());
            m_objectives.push_back(run.GetApp(i)->GetObjective());
        }
        const ExchangePlan& plan = run.GetApp(0)->GetPlan(0);
        for (uint32_t c = 0; c < plan.chunkCount; ++c)
        {
            m_wireBytes += plan.GetWireBytes(c);
        }
    }

    /** @return the run's results, typed */
    const TrainingRunSummary& GetSummary() const
    {
        return m_summary;
    }

    /** @return rounds verified */
    uint32_t GetRoundsVerified() const
    {
        return m_roundsVerified;
    }

    /** @return the wire bytes of island 0's contribution in round 0 (every header included) */
    double GetWireBytes() const
    {
        return m_wireBytes;
    }

    /**
     * @param island an island
     * @return its objective
     */
    const LocalObjective& GetObjective(uint32_t island) const
    {
        return m_objectives.at(island);
    }

    /**
     * @param island an island
     * @param round a round
     * @return its record
     */
    const IslandRoundRecord& Get(uint32_t island, uint32_t round) const
    {
        return m_records.at({island, round});
    }

    /**
     * @param island an island
     * @return its parameters when the run ended
     */
    const std::vector<float>& GetFinal(uint32_t island) const
    {
        return m_final.at(island);
    }

    /**
     * @param round a round
     * @param members the clique
     * @return the latest snapshot among the members
     */
    double LatestSnapshot(uint32_t round, const CliqueSchedule::Clique& members) const
    {
        double latest = 0;
        for (uint32_t m : members)
        {
            latest = std::max(latest, Get(m, round).snapshotS);
        }
        return latest;
    }

    /**
     * @param round a round
     * @param members the clique
     * @return the latest finish among the members
     */
    double LatestFinish(uint32_t round, const CliqueSchedule::Clique& members) const
    {
        double latest = 0;
        for (uint32_t m : members)
        {
            latest = std::max(latest, Get(m, round).finishS);
        }
        return latest;
    }

  private:
    /**
     * @param island the island
     * @param round the round
     * @param parameters its snapshot
     */
    void OnExchangeStarted(uint32_t island,
                           uint32_t round,
                           uint32_t /* clique */,
                           const std::vector<float>& parameters)
    {
        IslandRoundRecord& record = m_records[{island, round}];
        record.snapshotS = Simulator::Now().GetSeconds();
        record.snapshot = parameters;
    }

    /**
     * @param island the island
     * @param round the round
     * @param parameters the clique average
     */
    void OnRoundFinished(uint32_t island,
                         uint32_t round,
                         uint32_t /* clique */,
                         const std::vector<float>& parameters)
    {
        IslandRoundRecord& record = m_records[{island, round}];
        record.finishS = Simulator::Now().GetSeconds();
        record.average = parameters;
    }

    uint32_t m_roundsVerified{0};                                         //!< rounds verified
    TrainingRunSummary m_summary;                                         //!< the results
    double m_wireBytes{0};                                                //!< island 0's, round 0
    std::vector<LocalObjective> m_objectives;                             //!< by island
    std::map<std::pair<uint32_t, uint32_t>, IslandRoundRecord> m_records; //!< by (island, round)
    std::vector<std::vector<float>> m_final;                              //!< parameters at the end
};

/**
 * @param mode the mode
 * @param modelBytes S
 * @param localSteps LocalSteps
 * @param stepTime StepTime
 * @param rounds Rounds
 * @param overlap Overlap
 * @return a configuration
 */
TrainingRun::Config
MakeConfig(CapabilityMode mode,
           uint64_t modelBytes,
           uint32_t localSteps,
           Time stepTime,
           uint32_t rounds,
           bool overlap)
{
    TrainingRun::Config config;
    config.mode = mode;
    config.modelBytes = modelBytes;
    config.parameterCount = 256;
    config.localSteps = localSteps;
    config.stepTime = stepTime;
    config.rounds = rounds;
    config.overlap = overlap;
    return config;
}

/** The all-island clique of a topology of n islands. */
std::vector<CliqueSchedule::Round>
AllIslands(uint32_t n)
{
    CliqueSchedule::Clique clique;
    for (uint32_t i = 0; i < n; ++i)
    {
        clique.push_back(i);
    }
    return {{clique}};
}

/**
 * @ingroup wan-training-tests
 * Compute-bound: every snapshot is exactly tau_c after the one before (the average arrives
 * while the next round computes), in unicast and ring on the tiny line and in both mode on the
 * reference WAN; every round verified; without overlap the rounds take tau_c + T_comm.
 */
class OverlapComputeBoundTestCase : public TestCase
{
  public:
    OverlapComputeBoundTestCase()
        : TestCase("compute-bound overlapped rounds take tau_c from snapshot to snapshot")
    {
    }

  private:
    void DoRun() override
    {
        struct Case
        {
            std::string topology;
            CapabilityMode mode;
            uint32_t islands;
        };

        const std::vector<Case> cases = {{TINY, CapabilityMode::UNICAST, 3},
                                         {TINY, CapabilityMode::RING, 3},
                                         {REFERENCE_WAN, CapabilityMode::BOTH, 9}};
        const uint32_t rounds = 4;
        const Time step = MilliSeconds(50);
        const uint32_t steps = 10; // tau_c = 0.5 s, far above the exchanges of 200 kB
        const double tauC = steps * step.GetSeconds();
        for (const Case& c : cases)
        {
            std::ostringstream name;
            name << CapabilityModeToString(c.mode) << " on " << c.topology << ": ";
            const auto schedule = AllIslands(c.islands);
            OverlapRun run(CreateDataDirFilename(c.topology),
                           schedule,
                           MakeConfig(c.mode, 200000, steps, step, rounds, true));
            NS_TEST_ASSERT_MSG_EQ(run.GetRoundsVerified(),
                                  rounds,
                                  name.str() << "every round verified");
            for (uint32_t i = 0; i < c.islands; ++i)
            {
                NS_TEST_ASSERT_MSG_EQ_TOL(run.Get(i, 0).snapshotS,
                                          tauC,
                                          1e-9,
                                          name.str() << "the first snapshot after tau_c");
                for (uint32_t r = 1; r < rounds; ++r)
                {
                    NS_TEST_ASSERT_MSG_EQ_TOL(run.Get(i, r).snapshotS - run.Get(i, r - 1).snapshotS,
                                              tauC,
                                              1e-9,
                                              name.str() << "island " << i << " round " << r
                                                         << ": snapshot to snapshot is tau_c");
                    NS_TEST_ASSERT_MSG_LT(run.Get(i, r - 1).finishS,
                                          run.Get(i, r).snapshotS,
                                          name.str() << "round " << r - 1
                                                     << "'s average arrives before the next "
                                                        "snapshot");
                }
            }
            // Without overlap a round's steps start when its average is held: snapshot to
            // snapshot is T_comm + tau_c.
            OverlapRun serial(CreateDataDirFilename(c.topology),
                              schedule,
                              MakeConfig(c.mode, 200000, steps, step, rounds, false));
            for (uint32_t i = 0; i < c.islands; ++i)
            {
                for (uint32_t r = 1; r < rounds; ++r)
                {
                    NS_TEST_ASSERT_MSG_GT(serial.Get(i, r - 1).finishS,
                                          serial.Get(i, r - 1).snapshotS,
                                          name.str() << "an exchange takes time");
                    NS_TEST_ASSERT_MSG_EQ_TOL(serial.Get(i, r).snapshotS,
                                              serial.Get(i, r - 1).finishS + tauC,
                                              1e-9,
                                              name.str() << "without overlap a round is T_comm "
                                                            "+ tau_c");
                }
            }
        }
    }
};

/**
 * @ingroup wan-training-tests
 * Communication-bound (T_comm >= 2 tau_c) on the tiny line: an overlapped round takes its
 * exchange from snapshot to snapshot (the snapshot follows the average at once), and the
 * exchange of every round, the first included, costs what the first round's does, where every
 * member starts together, or less (ring: hops that start early end early): no stream of a
 * later round waits for a READY (they go out at the snapshot before). Unicast: that exchange is the
 * route latency plus the wire bytes of the busiest link over its capacity (closed form, within 2
 * %).
 */
class OverlapCommBoundTestCase : public TestCase
{
  public:
    OverlapCommBoundTestCase()
        : TestCase("communication-bound overlapped rounds take T_comm from snapshot to snapshot")
    {
    }

  private:
    void DoRun() override
    {
        const uint32_t rounds = 4;
        const Time step = MilliSeconds(5);
        const uint32_t steps = 2; // tau_c = 10 ms
        const double tauC = steps * step.GetSeconds();
        const uint64_t modelBytes = 20000000;
        const auto schedule = AllIslands(3);
        const CliqueSchedule::Clique& all = schedule[0][0];
        const std::string tiny = CreateDataDirFilename(TINY);
        const WanTopology topology = WanTopology::LoadFile(tiny);
        for (CapabilityMode mode : {CapabilityMode::UNICAST, CapabilityMode::RING})
        {
            const std::string name = CapabilityModeToString(mode) + ": ";
            OverlapRun run(tiny, schedule, MakeConfig(mode, modelBytes, steps, step, rounds, true));
            NS_TEST_ASSERT_MSG_EQ(run.GetRoundsVerified(), rounds, name << "every round verified");
            const double first = run.LatestFinish(0, all) - run.LatestSnapshot(0, all);
            NS_TEST_ASSERT_MSG_GT_OR_EQ(first, 2 * tauC, name << "communication-bound");
            if (mode == CapabilityMode::UNICAST)
            {
                // aaa->bbb carries aaa's streams to bbb and ccc (and bbb->ccc likewise): two
                // streams of the contribution's wire bytes at 10 Gbps, after the route latency.
                const double closedForm =
                    1e-3 * topology.GetRoute(0, 2).latencyMs + 2 * 8 * run.GetWireBytes() / 10e9;
                NS_TEST_ASSERT_MSG_EQ_TOL(first / closedForm,
                                          1,
                                          0.02,
                                          name << "latency + wire bytes / rate");
            }
            for (uint32_t r = 1; r < rounds; ++r)
            {
                const double comm = run.LatestFinish(r, all) - run.LatestSnapshot(r, all);
                if (mode == CapabilityMode::RING)
                {
                    // A ring's hops that start early (their members got the last average
                    // first) end early: measured from the last snapshot it can only be shorter.
                    NS_TEST_ASSERT_MSG_LT_OR_EQ(comm / first,
                                                1.02,
                                                name << "round " << r
                                                     << ": no READY wait, at most the first "
                                                        "round's exchange");
                }
                else
                {
                    NS_TEST_ASSERT_MSG_EQ_TOL(comm / first,
                                              1,
                                              0.02,
                                              name << "round " << r
                                                   << ": no READY wait, the first round's "
                                                      "exchange");
                }
                for (uint32_t i : all)
                {
                    NS_TEST_ASSERT_MSG_EQ_TOL(run.Get(i, r).snapshotS,
                                              run.Get(i, r - 1).finishS,
                                              1e-9,
                                              name << "island " << i << " round " << r
                                                   << ": the snapshot follows the average");
                }
            }
        }
    }
};

/**
 * @param file a topology file
 * @param factor what every link's and island access's capacity is multiplied by
 * @return the topology with those capacities
 */
WanTopology
LoadScaled(const std::string& file, double factor)
{
    std::ifstream in(file);
    nlohmann::json doc = nlohmann::json::parse(in);
    for (auto& link : doc["links"])
    {
        link["capacity_gbps"] = link["capacity_gbps"].get<double>() * factor;
    }
    auto& access = doc["defaults"]["island_access"]["capacity_gbps"];
    access = access.get<double>() * factor;
    return WanTopology::Parse(doc.dump(), file);
}

/**
 * @ingroup wan-training-tests
 * Rotating cliques, communication-bound, with overlap, where a contribution takes longer than
 * a round trip (the nine-city WAN at 1 Gbps, S = 1e7: 80 ms): the members snapshot at
 * different times, as their last cliques ended at different times. Unicast and both: a member
 * tells a sender of the next round (READY) once its exchange has one round trip to it left,
 * so the next round's chunks arrive as its exchange ends and never share its links with it
 * (told at the snapshot, as before, unicast had 21 queue drops and ended 17 % late, both 7,842
 * FPGA slots timed out waiting for members still in the round before and it ended 3.4 times
 * late). Tree: the streams start at once, not by a stagger estimated for a common start (with
 * it, 39 % late at 10 Gbps, S = 2e7; where a contribution takes less than a round trip, the
 * READY of the round before still waits, and a clique takes up to 9 % longer). Every clique's
 * exchange, from its last member's snapshot to its last member's average, takes at most 5 % more
 * than its round's T_comm; the run ends (and longer than a contribution takes through an access
 * link); the run ends no later than ScheduleMetrics::GetRoundEnds says (+5 %): earlier where a
 * clique does not wait for the cliques of the round before that none of its members was in, as the
 * schedule model's rounds do. Nothing is dropped and no FPGA slot times out.
 */
class OverlapRotatingTestCase : public TestCase
{
  public:
    OverlapRotatingTestCase()
        : TestCase("rotating cliques with overlap: each clique's exchange within its round's "
                   "T_comm, no drop, no FPGA timeout")
    {
    }

  private:
    void DoRun() override
    {
        const uint32_t rounds = 6;
        const Time step = MilliSeconds(5);
        const uint32_t steps = 2; // tau_c = 10 ms
        const double tauC = steps * step.GetSeconds();
        // Pairs of unequal latency, then cliques that mix their members (nyc 0, chi 1, lax 2,
        // lon 3, ams 4, fra 5, prg 6, tyo 7, sin 8).
        const std::vector<CliqueSchedule::Round> star = {{{0, 3}, {1, 2}, {4, 5}, {7, 8}},
                                                         {{0, 1, 2}, {3, 5}, {4, 6}, {7, 8}},
                                                         {{0, 5, 6}, {1, 2, 7}, {3, 4, 8}}};
        const std::vector<CliqueSchedule::Round> tree = {{{0, 1, 2, 3, 4, 5, 6}, {7, 8}},
                                                         {{0, 1, 2, 3, 4, 5}, {6, 7, 8}}};

        const double factor = 0.1; // 1 Gbps links and access
        const uint64_t modelBytes = 10000000;
        const WanTopology topology = LoadScaled(CreateDataDirFilename(NINE_CITY), factor);

        const struct
        {
            CapabilityMode mode;
            const std::vector<CliqueSchedule::Round>* schedule;
        } cases[] = {{CapabilityMode::UNICAST, &star},
                     {CapabilityMode::BOTH, &star},
                     {CapabilityMode::TREE, &tree}};

        for (const auto& c : cases)
        {
            const std::string name = CapabilityModeToString(c.mode) + ": ";
            OverlapRun run(topology,
                           *c.schedule,
                           MakeConfig(c.mode, modelBytes, steps, step, rounds, true));
            const TrainingRunSummary& summary = run.GetSummary();
            NS_TEST_ASSERT_MSG_EQ(run.GetRoundsVerified(), rounds, name << "every round verified");
            std::vector<double> predictedComm;
            for (uint32_t r = 0; r < rounds; ++r)
            {
                const double commS = summary.rounds.at(r).predictedCommS;
                predictedComm.push_back(commS);
                NS_TEST_ASSERT_MSG_GT_OR_EQ(commS, 2 * tauC, name << "communication-bound");
                for (const CliqueSchedule::Clique& clique : c.schedule->at(r % c.schedule->size()))
                {
                    const double exchangeS =
                        run.LatestFinish(r, clique) - run.LatestSnapshot(r, clique);
                    NS_TEST_ASSERT_MSG_LT_OR_EQ(exchangeS / commS,
                                                1.05,
                                                name << "round " << r << ", clique of "
                                                     << clique.front()
                                                     << ": the exchange against T_comm");
                    // Every member takes in a contribution's worth through its access link.
                    NS_TEST_ASSERT_MSG_GT(exchangeS,
                                          8.0 * modelBytes / (factor * 10e9),
                                          name << "round " << r << ", clique of " << clique.front()
                                               << ": the access link's time");
                }
            }
            const double predicted =
                ScheduleMetrics::GetRoundEnds(tauC, predictedComm, true).back();
            NS_TEST_ASSERT_MSG_LT_OR_EQ(summary.summary.trainingTimeS / predicted,
                                        1.05,
                                        name << "the last round's end against the model's");
            NS_TEST_ASSERT_MSG_EQ(summary.summary.fpgaPartialAggregates,
                                  0,
                                  name << "no FPGA slot timed out");
            NS_TEST_ASSERT_MSG_EQ(summary.summary.queueDrops, 0, name << "no queue drop");
        }
    }
};

/**
 * @ingroup wan-training-tests
 * The delayed correction on the quadratic objectives: each island's snapshots and final
 * parameters equal, bit for bit, a replay that takes LocalSteps steps of the island's own
 * objective per round from round r's snapshot on and adds avg_r - x_r to the parameters at
 * the first step boundary after round r's average arrived (or before the next snapshot, when
 * it arrives after the steps); the averages are the members' mean (the verifier), in a
 * compute-bound and a communication-bound run.
 */
class OverlapDelayedCorrectionTestCase : public TestCase
{
  public:
    OverlapDelayedCorrectionTestCase()
        : TestCase("overlap applies x <- x + (avg_r - x_r), step by step as a replay")
    {
    }

  private:
    void DoRun() override
    {
        const uint32_t rounds = 5;
        const Time step = MilliSeconds(3);
        const uint32_t steps = 4;
        for (uint64_t modelBytes : {uint64_t{100000}, uint64_t{10000000}})
        {
            const auto schedule = AllIslands(3);
            OverlapRun run(
                CreateDataDirFilename(TINY),
                schedule,
                MakeConfig(CapabilityMode::UNICAST, modelBytes, steps, step, rounds, true));
            NS_TEST_ASSERT_MSG_EQ(run.GetRoundsVerified(), rounds, "every round verified");
            for (uint32_t i = 0; i < 3; ++i)
            {
                const LocalObjective& objective = run.GetObjective(i);
                const double learningRate = 0.05;
                std::vector<float> x(256, 0.0f);
                for (uint32_t k = 0; k < steps; ++k)
                {
                    objective.Step(x, learningRate);
                }
                for (uint32_t r = 0; r < rounds; ++r)
                {
                    const IslandRoundRecord& record = run.Get(i, r);
                    NS_TEST_ASSERT_MSG_EQ((x == record.snapshot),
                                          true,
                                          "island " << i << " snapshot of round " << r);
                    // Round r+1's steps start at round r's snapshot; round r's correction
                    // lands between the steps whose times bracket its arrival.
                    bool corrected = false;
                    auto correct = [&]() {
                        for (std::size_t v = 0; v < x.size(); ++v)
                        {
                            x[v] += record.average[v] - record.snapshot[v];
                        }
                        corrected = true;
                    };
                    const uint32_t nextSteps = r + 1 < rounds ? steps : 0;
                    for (uint32_t k = 1; k <= nextSteps; ++k)
                    {
                        const double stepS = record.snapshotS + k * step.GetSeconds();
                        NS_TEST_ASSERT_MSG_NE(stepS,
                                              record.finishS,
                                              "the replay needs the order of the two");
                        if (!corrected && record.finishS < stepS)
                        {
                            correct();
                        }
                        objective.Step(x, learningRate);
                    }
                    if (!corrected)
                    {
                        correct();
                    }
                }
                NS_TEST_ASSERT_MSG_EQ((x == run.GetFinal(i)),
                                      true,
                                      "island " << i << " final parameters, S = " << modelBytes);
            }
        }
    }
};

/**
 * @ingroup wan-training-tests
 * The overlap suite.
 */
class OverlapTestSuite : public TestSuite
{
  public:
    OverlapTestSuite()
        : TestSuite("wan-training-overlap", UNIT)
    {
        SetDataDir(NS_TEST_SOURCEDIR);
        AddTestCase(new OverlapComputeBoundTestCase, TestCase::QUICK);
        AddTestCase(new OverlapCommBoundTestCase, TestCase::QUICK);
        AddTestCase(new OverlapRotatingTestCase, TestCase::QUICK);
        AddTestCase(new OverlapDelayedCorrectionTestCase, TestCase::QUICK);
    }
};

/** The suite's one instance. */
OverlapTestSuite g_overlapTestSuite;

} // namespace
