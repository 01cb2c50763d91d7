/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "clique-schedule.h"
#include "link-load-model.h"
#include "schedule-metrics.h"
#include "schedule-optimizer.h"
#include "test-utils.h"
#include "wan-config-error.h"
#include "wan-topology.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

/**
 * @file
 * @ingroup wan-training-tests
 * GoogleTest cases for where the FPGAs are (doc/schedule-model.rst, "Where the FPGAs are"):
 * the topology's `fpga` field and its errors, the loads of aggregation and both at a city
 * without an FPGA, the routers of a tree and the check of tree cliques, in the link-load
 * model, the metrics and the optimizer. Expected routes and roots of the reference WAN are
 * worked by hand from topologies/reference-wan.json (access latency 0, symmetric links).
 */

using namespace ns3;

namespace
{

const std::string SRC = WAN_TRAINING_SOURCE_DIR;

/** City indices of topologies/reference-wan.json (the file's order). */
enum ReferenceCity : uint32_t
{
    NYC = 0,
    CHI = 1,
    LAX = 2,
    LON = 3,
    FRA = 4,
    AMS = 5,
    TYO = 6,
    SIN = 7,
    HKG = 8
};

/**
 * @param fields `fpga` values to set, by city index
 * @return the reference WAN's JSON with those fields
 */
std::string
ReferenceWithFpga(const std::vector<std::pair<uint32_t, nlohmann::json>>& fields)
{
    auto doc = nlohmann::json::parse(ReadTextFile(SRC + "/topologies/reference-wan.json"));
    for (const auto& [city, value] : fields)
    {
        doc["cities"][city]["fpga"] = value;
    }
    return doc.dump();
}

/** @return the reference WAN where London's router has no FPGA */
WanTopology
ReferenceWithoutLondon()
{
    return WanTopology::Parse(ReferenceWithFpga({{LON, false}}), "no-lon");
}

/**
 * @param text a topology's JSON
 * @return the error that parsing it raises (a failure when it parses)
 */
WanInputError
ParseError(const std::string& text)
{
    try
    {
        WanTopology::Parse(text, "bad");
    }
    catch (const WanInputError& error)
    {
        return error;
    }
    ADD_FAILURE() << "accepted: " << text;
    return WanInputError("", "", "");
}

/**
 * @param mask a set of islands
 * @param n the number of islands
 * @return the clique of its members
 */
CliqueSchedule::Clique
CliqueOf(uint32_t mask, uint32_t n)
{
    CliqueSchedule::Clique clique;
    for (uint32_t i = 0; i < n; ++i)
    {
        if (mask & (1U << i))
        {
            clique.push_back(i);
        }
    }
    return clique;
}

} // namespace

TEST(FpgaPlacement, WithoutTheFieldEveryCityFollowsTheAggregationCapability)
{
    for (const std::string file :
         {"topologies/reference-wan.json", "topologies/doublezero-nine-city.json"})
    {
        WanTopology t = WanTopology::LoadFile(SRC + "/" + file);
        ASSERT_TRUE(t.HasAggregation()) << file;
        EXPECT_EQ(t.GetFpgaCities(), (std::vector<uint32_t>{0, 1, 2, 3, 4, 5, 6, 7, 8})) << file;
    }
    WanTopology tiny = WanTopology::LoadFile(SRC + "/test/data/tiny-valid.json");
    ASSERT_FALSE(tiny.HasAggregation());
    EXPECT_TRUE(tiny.GetFpgaCities().empty());
    for (uint32_t i = 0; i < tiny.GetNCities(); ++i)
    {
        EXPECT_FALSE(tiny.HasFpga(i));
    }
    EXPECT_THROW(tiny.HasFpga(tiny.GetNCities()), std::out_of_range);
}

TEST(FpgaPlacement, ListedFieldsOverrideTheDefault)
{
    WanTopology t = WanTopology::Parse(
        ReferenceWithFpga({{LON, false}, {SIN, false}, {NYC, true}, {CHI, true}}),
        "listed");
    EXPECT_EQ(t.GetFpgaCities(), (std::vector<uint32_t>{NYC, CHI, LAX, FRA, AMS, TYO, HKG}));
    EXPECT_FALSE(t.HasFpga(LON));
    EXPECT_FALSE(t.HasFpga(SIN));
    EXPECT_TRUE(t.HasFpga(NYC));
    // A plain unicast network may say that a city has none.
    WanTopology none =
        ParseInlineTopology(10,
                            0,
                            R"([{"id": "a", "fpga": false}, {"id": "b"}])",
                            R"([{"a": "a", "b": "b", "latency_ms": 1, "capacity_gbps": 10}])");
    EXPECT_TRUE(none.GetFpgaCities().empty());
    // Links down do not move FPGAs.
    EXPECT_EQ(t.WithLinksDown({0}).GetFpgaCities(), t.GetFpgaCities());
}

TEST(FpgaPlacement, BadFieldsNameTheFileTheFieldAndTheCity)
{
    for (const nlohmann::json& value : {nlohmann::json(1),
                                        nlohmann::json(nullptr),
                                        nlohmann::json("true"),
                                        nlohmann::json::array()})
    {
        WanInputError error = ParseError(ReferenceWithFpga({{LON, value}}));
        EXPECT_EQ(error.GetFile(), "bad");
        EXPECT_EQ(error.GetPath(), "$.cities[3].fpga");
        EXPECT_EQ(error.GetReason(),
                  "must be a boolean, whether the router of city 'LON' has an FPGA (got " +
                      std::string(value.type_name()) + ")");
        EXPECT_EQ(std::string(error.what()), "bad: $.cities[3].fpga: " + error.GetReason());
    }
    // An FPGA in a topology without the aggregation capability, false or absent.
    auto doc = nlohmann::json::parse(ReferenceWithFpga({{FRA, true}}));
    doc["capabilities"]["aggregation"] = false;
    doc["capabilities"].erase("core"); // core needs aggregation
    const std::string reason = "city 'FRA' has an FPGA, but the topology lacks the aggregation "
                               "capability ($.capabilities.aggregation is not true): an FPGA is "
                               "what aggregates";
    WanInputError error = ParseError(doc.dump());
    EXPECT_EQ(error.GetPath(), "$.cities[4].fpga");
    EXPECT_EQ(error.GetReason(), reason);
    doc.erase("capabilities");
    error = ParseError(doc.dump());
    EXPECT_EQ(error.GetPath(), "$.cities[4].fpga");
    EXPECT_EQ(error.GetReason(), reason);
    // Without an FPGA there, the same topology is valid.
    doc["cities"][FRA]["fpga"] = false;
    EXPECT_TRUE(WanTopology::Parse(doc.dump(), "good").GetFpgaCities().empty());
}

TEST(FpgaPlacement, AggregationWithoutAnFpgaDeliversKMinusOneCopies)
{
    // By hand: {NYC, LON, FRA} under aggregation, LON without an FPGA: LON's island receives
    // the two copies from NYC and FRA, the others one aggregate each; nothing else changes.
    WanTopology all = WanTopology::LoadFile(SRC + "/topologies/reference-wan.json");
    WanTopology t = ReferenceWithoutLondon();
    LinkLoadModel model(t);
    LinkLoadModel full(all);
    std::vector<double> loads = model.GetCliqueLoads({NYC, LON, FRA}, CapabilityMode::AGGREGATION);
    EXPECT_EQ(loads[t.GetAccessDownLink(LON)], 2.0);
    EXPECT_EQ(loads[t.GetAccessDownLink(NYC)], 1.0);
    EXPECT_EQ(loads[t.GetAccessDownLink(FRA)], 1.0);
    EXPECT_EQ(loads[t.GetAccessUpLink(LON)], 2.0);

    // Every clique: the closed form k-1 on LON:down for a member LON (what unicast and
    // multicast deliver), every other link as with an FPGA at every city.
    const uint32_t n = t.GetNCities();
    const uint32_t lonDown = t.GetAccessDownLink(LON);
    for (uint32_t mask = 1; mask < (1U << n); ++mask)
    {
        CliqueSchedule::Clique clique = CliqueOf(mask, n);
        const double k = clique.size();
        const bool member = (mask & (1U << LON)) != 0;
        for (const auto& [mode, plain] :
             {std::make_pair(CapabilityMode::AGGREGATION, CapabilityMode::UNICAST),
              std::make_pair(CapabilityMode::BOTH, CapabilityMode::MULTICAST)})
        {
            std::vector<double> without = model.GetCliqueLoads(clique, mode);
            std::vector<double> with = full.GetCliqueLoads(clique, mode);
            for (uint32_t d = 0; d < t.GetNDirectedLinks(); ++d)
            {
                if (d != lonDown)
                {
                    ASSERT_EQ(without[d], with[d]) << mask << " " << t.GetDirectedLinkName(d);
                }
            }
            ASSERT_EQ(without[lonDown], member && k > 1 ? k - 1 : 0.0) << mask;
            ASSERT_EQ(with[lonDown], member && k > 1 ? 1.0 : 0.0) << mask;
            ASSERT_EQ(without[lonDown], model.GetCliqueLoads(clique, plain)[lonDown]) << mask;
        }
    }
    // A round sums its cliques: LON receives 3 copies in {LON, NYC, CHI, LAX}.
    ScheduleMetrics::Settings settings;
    settings.modelBytes = 1e9;
    ScheduleMetrics metrics(t, settings);
    ScheduleMetrics::RoundCost cost =
        metrics.GetRoundCost({{LON, NYC, CHI, LAX}, {FRA, AMS}}, CapabilityMode::BOTH);
    EXPECT_EQ(cost.loads[lonDown], 3.0);
    EXPECT_EQ(cost.loads[t.GetAccessDownLink(AMS)], 1.0);
}

TEST(FpgaPlacement, TreeRoutersOfTheReferenceWanWorkedByHand)
{
    WanTopology t = WanTopology::LoadFile(SRC + "/topologies/reference-wan.json");
    LinkLoadModel model(t);
    // {CHI, AMS, TYO}: CHI-AMS 44.2 ms (CHI-NYC-LON-AMS; via NYC-FRA 46.7), CHI-TYO 72.6 ms
    // (CHI-LAX-TYO), AMS-TYO 113.4 ms (AMS-FRA-SIN-HKG-TYO; via LON-NYC-LAX 115.7). Root
    // scores (into + out): CHI 2 x 72.6, AMS and TYO 2 x 113.4: the root is CHI, and the
    // in-tree is AMS-LON-NYC-CHI and TYO-LAX-CHI.
    EXPECT_EQ(model.GetTreeRoot({CHI, AMS, TYO}), CHI);
    EXPECT_EQ(model.GetTreeRouters({TYO, AMS, CHI}),
              (std::vector<uint32_t>{NYC, CHI, LAX, LON, AMS, TYO}));
    // {AMS, NYC}: 37.0 ms each way (AMS-LON-NYC; via FRA 39.5), a tie won by NYC (index 0).
    EXPECT_EQ(model.GetTreeRoot({AMS, NYC}), NYC);
    EXPECT_EQ(model.GetTreeRouters({AMS, NYC}), (std::vector<uint32_t>{NYC, LON, AMS}));
    // {CHI, TYO}: 72.6 ms each way, root CHI, TYO-LAX-CHI (via NYC 85.9).
    EXPECT_EQ(model.GetTreeRouters({TYO, CHI}), (std::vector<uint32_t>{CHI, LAX, TYO}));
    // {LAX, NYC, LON, FRA}: root NYC (2 x 37.2 ms), every member one hop from it.
    EXPECT_EQ(model.GetTreeRoot({LAX, NYC, LON, FRA}), NYC);
    EXPECT_EQ(model.GetTreeRouters({LAX, NYC, LON, FRA}),
              (std::vector<uint32_t>{NYC, LAX, LON, FRA}));
    // A clique of one has no tree.
    EXPECT_TRUE(model.GetTreeRouters({SIN}).empty());
    EXPECT_TRUE(model.GetTreeRouters({}).empty());
}

TEST(FpgaPlacement, ATreeCliqueNeedsAnFpgaOnEveryRouterOfItsInTree)
{
    const uint32_t none = LinkLoadModel::NO_CITY;
    WanTopology all = WanTopology::LoadFile(SRC + "/topologies/reference-wan.json");
    LinkLoadModel full(all);
    const uint32_t n = all.GetNCities();
    for (uint32_t mask = 1; mask < (1U << n); ++mask)
    {
        ASSERT_EQ(full.FindRouterWithoutFpga(CliqueOf(mask, n)), none) << mask;
    }
    LinkLoadModel model(ReferenceWithoutLondon());
    EXPECT_EQ(model.FindRouterWithoutFpga({CHI, AMS, TYO}), LON); // LON between AMS and NYC
    EXPECT_EQ(model.FindRouterWithoutFpga({AMS, NYC}), LON);
    EXPECT_EQ(model.FindRouterWithoutFpga({LON, FRA}), LON); // a member's own router
    EXPECT_EQ(model.FindRouterWithoutFpga({CHI, TYO}), none);
    EXPECT_EQ(model.FindRouterWithoutFpga({LAX, NYC, FRA}), none);
    EXPECT_EQ(model.FindRouterWithoutFpga({LON}), none); // idles
    // The first city without an FPGA, by index.
    LinkLoadModel two(
        WanTopology::Parse(ReferenceWithFpga({{AMS, false}, {LON, false}, {TYO, false}}), "two"));
    EXPECT_EQ(two.FindRouterWithoutFpga({CHI, AMS, TYO}), LON);
    EXPECT_EQ(two.FindRouterWithoutFpga({CHI, TYO}), TYO);
    // Every clique: a city of GetTreeRouters without an FPGA, or none at all.
    for (uint32_t mask = 1; mask < (1U << n); ++mask)
    {
        CliqueSchedule::Clique clique = CliqueOf(mask, n);
        std::vector<uint32_t> routers = model.GetTreeRouters(clique);
        bool crossesLondon = std::find(routers.begin(), routers.end(), LON) != routers.end();
        ASSERT_EQ(model.FindRouterWithoutFpga(clique), crossesLondon ? LON : none) << mask;
    }
}

TEST(FpgaPlacement, TreeScheduleCrossingARouterWithoutAnFpgaIsRefused)
{
    WanTopology t = ReferenceWithoutLondon();
    CliqueSchedule schedule(t.GetNCities(), {{{CHI, TYO}, {NYC, FRA}}, {{AMS, NYC}, {SIN, HKG}}});
    const std::string reason =
        "schedule round 1, clique [NYC AMS]: city 'LON' has no FPGA, but the clique's in-tree "
        "toward its root 'NYC' crosses its router (tree mode sums on every router of the "
        "in-tree: NYC LON AMS)";
    try
    {
        CheckFpgaPlacement(t, schedule.WithMode(CapabilityMode::TREE));
        ADD_FAILURE() << "a clique across LON was accepted";
    }
    catch (const WanConfigError& error)
    {
        EXPECT_EQ(error.GetField(), "fpga");
        EXPECT_EQ(error.GetReason(), reason);
    }
    // Every other mode runs without an FPGA at LON.
    for (CapabilityMode mode : GetAllCapabilityModes())
    {
        if (mode != CapabilityMode::TREE)
        {
            EXPECT_NO_THROW(CheckFpgaPlacement(t, schedule.WithMode(mode)))
                << CapabilityModeToString(mode);
        }
    }
    EXPECT_NO_THROW(CheckFpgaPlacement(
        t,
        CliqueSchedule(t.GetNCities(), {{{CHI, TYO}, {NYC, FRA}}}).WithMode(CapabilityMode::TREE)));

    // The schedule model has no cost for it: Evaluate names the round, GetRoundCost the clique.
    ScheduleMetrics::Settings settings;
    settings.modelBytes = 1e9;
    settings.computeS = 1;
    ScheduleMetrics metrics(t, settings);
    try
    {
        metrics.Evaluate(schedule, CapabilityMode::TREE);
        ADD_FAILURE() << "evaluated";
    }
    catch (const WanConfigError& error)
    {
        EXPECT_EQ(error.GetField(), "fpga");
        EXPECT_EQ(error.GetReason(), reason);
    }
    try
    {
        metrics.GetRoundCost(schedule.GetRound(1), CapabilityMode::TREE);
        ADD_FAILURE() << "costed";
    }
    catch (const WanConfigError& error)
    {
        EXPECT_EQ(error.GetReason().rfind("a round, clique [NYC AMS]: city 'LON'", 0), 0U)
            << error.GetReason();
    }
    EXPECT_GT(metrics.GetRoundCost(schedule.GetRound(0), CapabilityMode::TREE).commS, 0.0);
    EXPECT_NO_THROW(metrics.Evaluate(schedule, CapabilityMode::BOTH));
}

TEST(FpgaPlacement, TheOptimizerPicksOnlyCliquesThatPassTheCheck)
{
    ScheduleMetrics::Settings settings;
    settings.modelBytes = 1e10;
    settings.computeS = 10;
    ScheduleOptimizer::Options options;
    options.maxEvaluations = 3000;
    // An FPGA at every city: every clique of the tree optimum passes.
    WanTopology all = WanTopology::LoadFile(SRC + "/topologies/reference-wan.json");
    ScheduleOptimizer::Result tree =
        ScheduleOptimizer(all, settings, CapabilityMode::TREE, options).Optimize();
    LinkLoadModel full(all);
    for (const CliqueSchedule::Round& round : tree.schedule.GetRounds())
    {
        for (const CliqueSchedule::Clique& clique : round)
        {
            EXPECT_EQ(full.FindRouterWithoutFpga(clique), LinkLoadModel::NO_CITY);
        }
    }
    EXPECT_NO_THROW(CheckFpgaPlacement(all, tree.schedule.WithMode(CapabilityMode::TREE)));

    // Without an FPGA at LON and SIN no tree clique holds them, so no tree schedule mixes: the
    // optimizer refuses, naming both; aggregation and both optimize, costing LON's copies.
    WanTopology t = WanTopology::Parse(ReferenceWithFpga({{LON, false}, {SIN, false}}), "some");
    try
    {
        ScheduleOptimizer(t, settings, CapabilityMode::TREE, options);
        ADD_FAILURE() << "tree mode was accepted";
    }
    catch (const WanConfigError& error)
    {
        EXPECT_EQ(error.GetField(), "fpga");
        EXPECT_EQ(error.GetReason(),
                  "no schedule of tree cliques mixes on topology 'reference-wan': 'LON', 'SIN' "
                  "without an FPGA can join no tree clique (the in-tree of a clique crosses "
                  "every member's own router)");
    }
    ScheduleMetrics metrics(t, settings);
    for (CapabilityMode mode : {CapabilityMode::AGGREGATION, CapabilityMode::BOTH})
    {
        ScheduleOptimizer::Result result = ScheduleOptimizer(t, settings, mode, options).Optimize();
        EXPECT_NO_THROW(CheckFpgaPlacement(t, result.schedule.WithMode(mode)));
        EXPECT_DOUBLE_EQ(result.evaluation.xiS, metrics.Evaluate(result.schedule, mode).xiS);
        EXPECT_TRUE(result.evaluation.mixes);
    }
}
