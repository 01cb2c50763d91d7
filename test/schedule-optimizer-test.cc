/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "capability-set.h"
#include "clique-schedule.h"
#include "link-load-model.h"
#include "schedule-metrics.h"
#include "schedule-optimizer.h"
#include "synthetic-topology.h"
#include "wan-config-error.h"
#include "wan-topology.h"

#include <cmath>
#include <fstream>
#include <gtest/gtest.h>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

/**
 * @file
 * @ingroup wan-training-tests
 * GoogleTest cases for ScheduleOptimizer and SyntheticTopology: determinism, never worse than
 * the baselines, valid output, and the generator's promises.
 */

using namespace ns3;

namespace
{

const std::string SRC = WAN_TRAINING_SOURCE_DIR;

ScheduleMetrics::Settings
Settings(double modelBytes, double computeS, bool overlap)
{
    ScheduleMetrics::Settings s;
    s.modelBytes = modelBytes;
    s.computeS = computeS;
    s.overlap = overlap;
    return s;
}

/** A small budget keeps the default test run fast. */
ScheduleOptimizer::Options
Quick(uint64_t seed)
{
    ScheduleOptimizer::Options o;
    o.seed = seed;
    o.maxEvaluations = 4000;
    return o;
}

/**
 * Two regions of four cities, each a full mesh of fat links (1000 Gbps, 2 ms), joined by one
 * long thin link a1-b1 (10 Gbps, 30 ms); access links of 100 Gbps. Inside a region a clique
 * that multicasts and sums costs about one transfer on the access links, where a ring costs
 * about two; across the thin link a ring of all eight sends 2 x 7/8 streams each way, where
 * multicast sends one per member of the other region.
 * @param fpgaInB whether the routers of region b have an FPGA
 * @return the topology (multicast, aggregation, core)
 */
WanTopology
TwoRegions(bool fpgaInB)
{
    nlohmann::json doc;
    doc["name"] = "two-regions";
    doc["defaults"] = {{"mtu_bytes", 9000},
                       {"island_access", {{"capacity_gbps", 100}, {"latency_ms", 0.05}}}};
    for (const char* region : {"a", "b"})
    {
        for (int i = 1; i <= 4; ++i)
        {
            const std::string id = region + std::to_string(i);
            doc["cities"].push_back({{"id", id}, {"fpga", *region == 'a' || fpgaInB}});
            for (int j = i + 1; j <= 4; ++j)
            {
                doc["links"].push_back({{"a", id},
                                        {"b", region + std::to_string(j)},
                                        {"latency_ms", 2},
                                        {"capacity_gbps", 1000}});
            }
        }
    }
    doc["links"].push_back({{"a", "a1"}, {"b", "b1"}, {"latency_ms", 30}, {"capacity_gbps", 10}});
    doc["capabilities"] = {{"multicast", true}, {"aggregation", true}, {"core", true}};
    return WanTopology::Parse(doc.dump(), "two-regions.json");
}

/**
 * @param schedule a schedule whose cliques carry their algorithms
 * @return the distinct algorithms of its cliques of two or more members
 */
std::set<CapabilityMode>
AlgorithmsOf(const CliqueSchedule& schedule)
{
    std::set<CapabilityMode> used;
    for (uint32_t r = 0; r < schedule.GetNRounds(); ++r)
    {
        for (uint32_t c = 0; c < schedule.GetRound(r).size(); ++c)
        {
            if (schedule.GetRound(r)[c].size() >= 2)
            {
                used.insert(schedule.GetAlgorithm(r, c).value());
            }
        }
    }
    return used;
}

/**
 * @param text a capability set as --capabilities takes it
 * @return the set
 */
CapabilitySet
ParseSet(const std::string& text)
{
    return CapabilitySet::Parse(text, "test", "--capabilities");
}

} // namespace

TEST(ScheduleOptimizer, NeverWorseThanTheBaselinesOnTheReferenceWan)
{
    WanTopology topology = WanTopology::LoadFile(SRC + "/topologies/reference-wan.json");
    const uint32_t n = topology.GetNCities();
    for (const auto& settings : {Settings(1e11, 30, false), Settings(1e9, 0.5, true)})
    {
        ScheduleMetrics metrics(topology, settings);
        for (CapabilityMode mode : GetAllCapabilityModes())
        {
            ScheduleOptimizer optimizer(topology, settings, mode, Quick(1));
            ScheduleOptimizer::Result result = optimizer.Optimize();
            std::string what = CapabilityModeToString(mode);
            // The baselines, evaluated here independently of the optimizer.
            double xi = result.evaluation.xiS;
            for (const CliqueSchedule& baseline : {CliqueSchedule::AllReduce(n),
                                                   CliqueSchedule::LatinTriples(n),
                                                   CliqueSchedule::RoundRobinPairs(n)})
            {
                EXPECT_LE(xi, metrics.Evaluate(baseline, mode).xiS * (1 + 1e-12)) << what;
            }
            // The reported metrics are the schedule's own.
            ScheduleMetrics::Evaluation again = metrics.Evaluate(result.schedule, mode);
            EXPECT_DOUBLE_EQ(again.xiS, xi) << what;
            EXPECT_TRUE(again.mixes) << what;
            EXPECT_GE(xi, result.evaluation.xiLowerBoundS * (1 - 1e-12)) << what;
            EXPECT_GE(xi, result.evaluation.xiColocatedS) << what;
            if (result.origin == "search")
            {
                EXPECT_LE(result.schedule.GetNRounds(), 4U) << what;
            }
            EXPECT_GT(result.evaluations, 0U);
        }
    }
}

TEST(ScheduleOptimizer, ASetsOptimumIsNoWorseThanItsModesOrASmallerSet)
{
    // The nine-city WAN at S = 10 GB, tau_c = 30 s: both mode's own optimum is far worse than
    // the ring's, so a network that multicasts and sums must still pick the ring.
    WanTopology topology = WanTopology::LoadFile(SRC + "/topologies/doublezero-nine-city.json");
    const ScheduleMetrics::Settings settings = Settings(1e10, 30, false);
    ScheduleMetrics metrics(topology, settings);
    std::map<CapabilityMode, double> modeXi;
    for (CapabilityMode mode : GetAllCapabilityModes())
    {
        modeXi[mode] =
            ScheduleOptimizer(topology, settings, mode, Quick(1)).Optimize().evaluation.xiS;
    }
    // Every set, smaller ones first (GetSmallerSets of each comes before it).
    std::map<std::string, double> setXi;
    for (const std::string name : {"none",
                                   "multicast",
                                   "aggregation",
                                   "multicast,aggregation",
                                   "aggregation,core",
                                   "multicast,aggregation,core"})
    {
        const CapabilitySet set = ParseSet(name);
        const ScheduleOptimizer::Result result =
            ScheduleOptimizer::OptimizeSet(topology, settings, set, Quick(1));
        // Every clique of two or more members names an algorithm the set allows, and the
        // metrics are the schedule's own.
        set.CheckSchedule(result.schedule, name, "the set");
        const ScheduleMetrics::Evaluation again =
            metrics.Evaluate(result.schedule.Resolve({}, name));
        EXPECT_EQ(again.xiS, result.evaluation.xiS) << name;
        for (CapabilityMode mode : set.GetAlgorithms())
        {
            EXPECT_LE(result.evaluation.xiS, modeXi[mode])
                << name << " against " << CapabilityModeToString(mode);
        }
        for (const CapabilitySet& smaller : set.GetSmallerSets())
        {
            ASSERT_EQ(setXi.count(smaller.ToString()), 1U) << smaller.ToString();
            EXPECT_LE(result.evaluation.xiS, setXi[smaller.ToString()])
                << name << " against " << smaller.ToString();
        }
        setXi[name] = result.evaluation.xiS;
    }
    // The motivating case: both alone is worse than the ring (the loop above: its set is not).
    EXPECT_GT(modeXi[CapabilityMode::BOTH], modeXi[CapabilityMode::RING]);
}

TEST(ScheduleOptimizer, MixingAlgorithmsBeatsEverySingleModeDeterministically)
{
    // Two regions joined by a thin link, S = 10 GB, tau_c = 30 s, a network that multicasts
    // and sums at the edges: the regions average among themselves by both, the thin link is
    // crossed by a ring. No single mode does both.
    const WanTopology topology = TwoRegions(true);
    const ScheduleMetrics::Settings settings = Settings(1e10, 30, false);
    const CapabilitySet set = ParseSet("multicast,aggregation");
    const ScheduleOptimizer::Result result =
        ScheduleOptimizer::OptimizeSet(topology, settings, set, Quick(1));
    const double xi = ScheduleMetrics(topology, settings).Evaluate(result.schedule).xiS;
    EXPECT_EQ(result.evaluation.xiS, xi);
    EXPECT_EQ(result.origin, "mixed search (multicast,aggregation)");
    EXPECT_GE(AlgorithmsOf(result.schedule).size(), 2U) << result.schedule.ToJson(topology);
    set.CheckSchedule(result.schedule, "result", "the set");
    uint64_t evaluations = 0;
    for (CapabilityMode mode : set.GetAlgorithms())
    {
        const ScheduleOptimizer::Result single =
            ScheduleOptimizer(topology, settings, mode, Quick(1)).Optimize();
        EXPECT_LT(xi, single.evaluation.xiS) << CapabilityModeToString(mode);
        evaluations += single.evaluations;
    }
    // The modes' searches are part of the set's.
    EXPECT_GT(result.evaluations, evaluations);
    // Deterministic per seed: the same search again gives the same schedule, Xi and count.
    const ScheduleOptimizer::Result again =
        ScheduleOptimizer(topology, settings, set, Quick(1)).Optimize();
    EXPECT_EQ(again.schedule.ToJson(topology), result.schedule.ToJson(topology));
    EXPECT_EQ(again.evaluation.xiS, result.evaluation.xiS);
    EXPECT_EQ(again.evaluations, result.evaluations);
    EXPECT_EQ(again.origin, result.origin);
}

TEST(ScheduleOptimizer, SetSearchKeepsToTheSetAndTheTreeCliques)
{
    // Region b has no FPGAs: tree mode alone is refused there, yet with core a clique of
    // region a may still be a tree. Every set's optimum uses only algorithms of the set, and
    // tree only on tree cliques.
    const WanTopology topology = TwoRegions(false);
    const ScheduleMetrics::Settings settings = Settings(1e11, 1, false);
    EXPECT_THROW(ScheduleOptimizer(topology, settings, CapabilityMode::TREE, Quick(1)),
                 WanConfigError);
    const LinkLoadModel links(topology);
    ScheduleMetrics metrics(topology, settings);
    const CapabilitySet full = ParseSet("multicast,aggregation,core");
    std::vector<CapabilitySet> sets = full.GetSmallerSets();
    sets.push_back(full);
    bool tree = false;
    for (const CapabilitySet& set : sets)
    {
        const ScheduleOptimizer::Result result =
            ScheduleOptimizer::OptimizeSet(topology, settings, set, Quick(1));
        EXPECT_NO_THROW(set.CheckSchedule(result.schedule, "result", set.ToString()));
        for (uint32_t r = 0; r < result.schedule.GetNRounds(); ++r)
        {
            for (uint32_t c = 0; c < result.schedule.GetRound(r).size(); ++c)
            {
                if (result.schedule.GetAlgorithm(r, c) == CapabilityMode::TREE)
                {
                    tree = true;
                    EXPECT_EQ(links.FindRouterWithoutFpga(result.schedule.GetRound(r)[c]),
                              LinkLoadModel::NO_CITY);
                }
            }
        }
        EXPECT_EQ(metrics.Evaluate(result.schedule).xiS, result.evaluation.xiS) << set.ToString();
    }
    EXPECT_TRUE(tree) << "no tree clique in region a: the case tests nothing";
    // A set's optimizer scores a schedule by its cliques' own algorithms and refuses others.
    ScheduleOptimizer optimizer(topology, settings, ParseSet("multicast"), Quick(1));
    const CliqueSchedule all = CliqueSchedule::AllReduce(8);
    EXPECT_DOUBLE_EQ(optimizer.GetXi(all.WithMode(CapabilityMode::RING)),
                     metrics.Evaluate(all, CapabilityMode::RING).xiS);
    EXPECT_THROW(optimizer.GetXi(all), WanInputError);
    EXPECT_THROW(optimizer.GetXi(all.WithMode(CapabilityMode::BOTH)), WanInputError);
}

TEST(ScheduleOptimizer, ASetsOptimizerTimesMixedRoundsAsTheReferenceValues)
{
    // The optimizer's own round cost (cached per clique and algorithm) against the mixed
    // reference values, computed independently of the module.
    WanTopology topology = WanTopology::LoadFile(SRC + "/topologies/reference-wan.json");
    std::ifstream in(SRC + "/test/data/reference-values-mixed.json");
    const nlohmann::json ref = nlohmann::json::parse(in);
    ScheduleMetrics::Settings settings =
        Settings(ref["params"]["model_bytes"], ref["params"]["tau_c_s"], false);
    settings.eps = ref["params"]["eps"];
    ScheduleOptimizer optimizer(topology,
                                settings,
                                ParseSet("multicast,aggregation,core"),
                                Quick(1));
    uint32_t schedules = 0;
    for (const auto& [name, entry] : ref["schedules"].items())
    {
        const CliqueSchedule schedule =
            CliqueSchedule::Parse(entry["schedule"].dump(), name, topology);
        const double xi = entry["metrics"]["Xi_s"];
        EXPECT_NEAR(optimizer.GetXi(schedule), xi, 1e-6 * xi) << name;
        ++schedules;
    }
    EXPECT_EQ(schedules, 4U);
}

TEST(ScheduleOptimizer, DeterministicPerSeedAndRespectsMaxPeriod)
{
    WanTopology topology = WanTopology::LoadFile(SRC + "/topologies/doublezero-nine-city.json");
    auto settings = Settings(1e9, 1.0, false);
    ScheduleOptimizer::Options options = Quick(7);
    options.maxPeriod = 3;
    ScheduleOptimizer a(topology, settings, CapabilityMode::UNICAST, options);
    ScheduleOptimizer b(topology, settings, CapabilityMode::UNICAST, options);
    ScheduleOptimizer::Result x = a.Optimize();
    ScheduleOptimizer::Result y = b.Optimize();
    EXPECT_EQ(x.schedule.GetRounds(), y.schedule.GetRounds());
    EXPECT_EQ(x.evaluation.xiS, y.evaluation.xiS);
    EXPECT_EQ(x.evaluations, y.evaluations);
    if (x.origin == "search")
    {
        EXPECT_LE(x.schedule.GetNRounds(), 3U);
    }
    // The schedule's JSON loads back as the same rounds.
    CliqueSchedule loaded = CliqueSchedule::Parse(x.schedule.ToJson(topology), "out", topology);
    EXPECT_EQ(loaded.GetRounds(), x.schedule.GetRounds());
}

TEST(ScheduleOptimizer, PeriodOneCanOnlyBeTheAllIslandClique)
{
    // With P = 1 a single round must connect every island: one clique of all.
    WanTopology topology = WanTopology::LoadFile(SRC + "/topologies/reference-wan.json");
    ScheduleOptimizer::Options options = Quick(1);
    options.maxPeriod = 1;
    auto settings = Settings(1e10, 5, false);
    ScheduleOptimizer optimizer(topology, settings, CapabilityMode::BOTH, options);
    ScheduleOptimizer::Result result = optimizer.Optimize();
    ScheduleMetrics metrics(topology, settings);
    double allReduce = metrics.Evaluate(CliqueSchedule::AllReduce(9), CapabilityMode::BOTH).xiS;
    EXPECT_NEAR(result.evaluation.xiS, allReduce, 1e-12 * allReduce);
    // All-reduce: Xi = (N-1)/N T/2 with T = tau_c + T_comm.
    double t = result.evaluation.periodS;
    EXPECT_NEAR(result.evaluation.xiS, 8.0 / 9 * t / 2, 1e-9 * t);
}

TEST(ScheduleOptimizer, SmallSyntheticSearchBeyondEnumeration)
{
    // Twelve islands: the pool is built by the regional and random partitions, not enumerated.
    SyntheticTopology::Options generator;
    generator.islands = 12;
    generator.seed = 3;
    WanTopology topology = SyntheticTopology::Generate(generator);
    auto settings = Settings(1e10, 2, false);
    ScheduleOptimizer::Options options = Quick(2);
    ScheduleOptimizer optimizer(topology, settings, CapabilityMode::MULTICAST, options);
    ScheduleOptimizer::Result result = optimizer.Optimize();
    ScheduleMetrics metrics(topology, settings);
    EXPECT_LE(result.evaluation.xiS,
              metrics.Evaluate(CliqueSchedule::AllReduce(12), CapabilityMode::MULTICAST).xiS);
    EXPECT_LE(result.evaluation.xiS,
              metrics.Evaluate(CliqueSchedule::RoundRobinPairs(12), CapabilityMode::MULTICAST).xiS);
    EXPECT_TRUE(result.evaluation.mixes);
    EXPECT_LE(result.evaluations, options.maxEvaluations + 3);
}

TEST(ScheduleOptimizer, ProfilesAndBadOptions)
{
    CliqueSchedule s(9, {{{0, 1, 2}, {3, 4}}, {{0, 1, 2, 3, 4, 5, 6, 7, 8}}});
    EXPECT_EQ(ScheduleOptimizer::GetProfile(s), "3+2+1+1+1+1 | 9");
    WanTopology topology = WanTopology::LoadFile(SRC + "/topologies/reference-wan.json");
    ScheduleOptimizer::Options options;
    options.maxPeriod = 0;
    EXPECT_THROW(ScheduleOptimizer(topology, Settings(1, 1, false), CapabilityMode::RING, options),
                 WanInputError);
    EXPECT_THROW(ScheduleOptimizer(topology, Settings(-1, 1, false), CapabilityMode::RING, {}),
                 WanInputError);
    SyntheticTopology::Options big;
    big.islands = 65;
    EXPECT_THROW(ScheduleOptimizer(SyntheticTopology::Generate(big),
                                   Settings(1, 1, false),
                                   CapabilityMode::UNICAST,
                                   {}),
                 WanInputError);
}

TEST(SyntheticTopology, SeededConnectedAndDocumented)
{
    SyntheticTopology::Options options;
    options.islands = 32;
    options.seed = 11;
    std::string a = SyntheticTopology::GenerateJson(options);
    EXPECT_EQ(a, SyntheticTopology::GenerateJson(options));
    options.seed = 12;
    EXPECT_NE(a, SyntheticTopology::GenerateJson(options));
    options.seed = 11;
    WanTopology t = SyntheticTopology::Generate(options);
    ASSERT_EQ(t.GetNCities(), 32U);
    EXPECT_EQ(t.GetName(), "synthetic-32-seed-11");
    EXPECT_EQ(t.GetCity(7).id, "c07");
    EXPECT_TRUE(t.HasMulticast());
    EXPECT_TRUE(t.HasAggregation());
    auto doc = nlohmann::json::parse(a);
    uint32_t inter = 0;
    for (const auto& link : doc["links"])
    {
        inter += link["source"] == "synthetic inter-region";
    }
    // A ring of four regions: four inter-region links.
    EXPECT_EQ(inter, 4U);
    // Every route exists (the graph is connected) and access comes from the options.
    for (uint32_t i = 0; i < 32; ++i)
    {
        EXPECT_EQ(t.GetCity(i).accessCapacityGbps, 100.0);
        EXPECT_EQ(t.GetCity(i).accessLatencyMs, 0.05);
        for (uint32_t j = 0; j < 32; ++j)
        {
            if (i != j)
            {
                EXPECT_GE(t.GetRoute(i, j).cities.size(), 2U);
            }
        }
    }
    options.regions = 9;
    EXPECT_THROW(SyntheticTopology::GenerateJson(options), WanInputError);
}

TEST(ScheduleOptimizer, OverlapScoresTheLateAverage)
{
    // Under overlap the optimizer's objective is Xi under overlap (ScheduleMetrics::
    // GetOverlapXi), not the serial form of the overlapped round times.
    WanTopology topology = WanTopology::LoadFile(SRC + "/topologies/reference-wan.json");
    const uint32_t n = topology.GetNCities();
    auto settings = Settings(1e11, 30, true);
    ScheduleMetrics metrics(topology, settings);
    for (CapabilityMode mode : {CapabilityMode::UNICAST, CapabilityMode::BOTH})
    {
        ScheduleOptimizer optimizer(topology, settings, mode, Quick(3));
        for (const CliqueSchedule& s : {CliqueSchedule::AllReduce(n),
                                        CliqueSchedule::LatinTriples(n),
                                        CliqueSchedule::RoundRobinPairs(n)})
        {
            ScheduleMetrics::Evaluation e = metrics.Evaluate(s, mode);
            std::vector<double> times;
            std::vector<double> comm;
            for (const auto& round : e.rounds)
            {
                times.push_back(round.roundS);
                comm.push_back(round.commS);
            }
            double overlapXi = ScheduleMetrics::GetOverlapXi(n, s.GetRounds(), times, comm);
            EXPECT_NEAR(optimizer.GetXi(s), overlapXi, 1e-12 * overlapXi);
            EXPECT_DOUBLE_EQ(e.xiS, overlapXi);
            EXPECT_GT(overlapXi, ScheduleMetrics::GetXi(n, s.GetRounds(), times));
        }
        ScheduleOptimizer::Result result = optimizer.Optimize();
        EXPECT_GE(result.evaluation.xiS, result.evaluation.xiLowerBoundS);
    }
}
