/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "clique-schedule.h"
#include "link-load-model.h"
#include "test-utils.h"
#include "wan-topology.h"

#include <algorithm>
#include <gtest/gtest.h>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

/**
 * @file
 * @ingroup wan-training-tests
 * GoogleTest cases for LinkLoadModel: the streams per directed link of doc/schedule-model.rst
 * ("Streams per directed link") against the
 * independently computed reference values, ring orders, tree roots and load properties.
 */

using namespace ns3;

namespace
{

const std::string SRC = WAN_TRAINING_SOURCE_DIR;

/**
 * The four-city line a - b - c - d with 10 ms WAN links, multicast and an FPGA at every city
 * (the aggregation capability).
 */
WanTopology
Line()
{
    return ParseInlineTopology(100,
                               1,
                               R"([{"id": "a"}, {"id": "b"}, {"id": "c"}, {"id": "d"}])",
                               R"([{"a": "a", "b": "b", "latency_ms": 10, "capacity_gbps": 100},
                      {"a": "b", "b": "c", "latency_ms": 10, "capacity_gbps": 100},
                      {"a": "c", "b": "d", "latency_ms": 10, "capacity_gbps": 100}])",
                               R"({"multicast": true, "aggregation": true})");
}

} // namespace

TEST(LinkLoadModel, ModeNamesRoundTripAndUnknownNamesAreRejected)
{
    for (CapabilityMode mode : GetAllCapabilityModes())
    {
        EXPECT_EQ(CapabilityModeFromString(CapabilityModeToString(mode)), mode);
    }
    EXPECT_EQ(GetAllCapabilityModes().size(), 6U);
    try
    {
        CapabilityModeFromString("broadcast");
        FAIL() << "an unknown mode was accepted";
    }
    catch (const WanInputError& e)
    {
        EXPECT_EQ(std::string(e.what()),
                  "<mode>: mode: unknown mode 'broadcast' (known: unicast, multicast, "
                  "aggregation, both, ring, tree)");
    }
}

TEST(LinkLoadModel, ReferenceLoadsAreReproducedExactlyForEveryScheduleAndMode)
{
    WanTopology topology = WanTopology::LoadFile(SRC + "/topologies/reference-wan.json");
    LinkLoadModel model(topology);
    auto ref = nlohmann::json::parse(ReadTextFile(SRC + "/test/data/reference-values.json"));
    ASSERT_EQ(ref["schedules"].size(), 3U);
    uint32_t compared = 0;
    for (const auto& [name, entry] : ref["schedules"].items())
    {
        nlohmann::json doc;
        doc["rounds"] = entry["rounds"];
        CliqueSchedule schedule = CliqueSchedule::Parse(doc.dump(), name, topology);
        ASSERT_EQ(entry["modes"].size(), 6U) << name;
        for (const auto& [modeName, values] : entry["modes"].items())
        {
            CapabilityMode mode = CapabilityModeFromString(modeName);
            const auto& perRound = values["link_loads_in_S"];
            ASSERT_EQ(perRound.size(), schedule.GetNRounds()) << name << " " << modeName;
            for (uint32_t r = 0; r < schedule.GetNRounds(); ++r)
            {
                std::vector<double> loads = model.GetRoundLoads(schedule.GetRound(r), mode);
                ASSERT_EQ(loads.size(), topology.GetNDirectedLinks());
                // Every listed link carries exactly the listed streams ...
                std::map<std::string, double> expected;
                for (const auto& [link, streams] : perRound[r].items())
                {
                    expected[link] = streams.get<double>();
                }
                for (uint32_t d = 0; d < loads.size(); ++d)
                {
                    std::string link = topology.GetDirectedLinkName(d);
                    auto it = expected.find(link);
                    if (it == expected.end())
                    {
                        // ... and every link not listed carries nothing.
                        EXPECT_EQ(loads[d], 0.0)
                            << name << " " << modeName << " round " << r << " " << link;
                    }
                    else
                    {
                        EXPECT_DOUBLE_EQ(loads[d], it->second)
                            << name << " " << modeName << " round " << r << " " << link;
                        ++compared;
                        expected.erase(it);
                    }
                }
                EXPECT_TRUE(expected.empty())
                    << name << " " << modeName << ": reference names an unknown link "
                    << expected.begin()->first;
            }
        }
    }
    EXPECT_GT(compared, 1000U);
}

TEST(LinkLoadModel, UnicastMulticastAggregationOnALine)
{
    // a - b - c - d, clique {a, c, d}: worked by hand from the table of streams per link.
    WanTopology t = Line();
    LinkLoadModel model(t);
    auto d = [&t](uint32_t from, uint32_t to) { return t.GetWanDirectedLink(from, to); };
    const uint32_t a = 0;
    const uint32_t b = 1;
    const uint32_t c = 2;
    const uint32_t e = 3; // city "d"
    CliqueSchedule::Clique clique{e, a, c};

    std::vector<double> unicast = model.GetCliqueLoads(clique, CapabilityMode::UNICAST);
    // Routes: a->c, a->d cross a->b and b->c; c->d is c->d; a->d also crosses c->d.
    EXPECT_EQ(unicast[d(a, b)], 2.0);
    EXPECT_EQ(unicast[d(b, c)], 2.0);
    EXPECT_EQ(unicast[d(c, e)], 2.0);
    EXPECT_EQ(unicast[d(e, c)], 2.0);
    EXPECT_EQ(unicast[d(c, b)], 2.0);
    EXPECT_EQ(unicast[d(b, a)], 2.0);
    EXPECT_EQ(unicast[t.GetAccessUpLink(a)], 2.0);
    EXPECT_EQ(unicast[t.GetAccessDownLink(c)], 2.0);
    EXPECT_EQ(unicast[t.GetAccessUpLink(b)], 0.0);

    std::vector<double> multicast = model.GetCliqueLoads(clique, CapabilityMode::MULTICAST);
    // a's tree {a->b, b->c, c->d}; c's tree {c->b, b->a, c->d}; d's tree {d->c, c->b, b->a}.
    EXPECT_EQ(multicast[d(a, b)], 1.0);
    EXPECT_EQ(multicast[d(b, c)], 1.0);
    EXPECT_EQ(multicast[d(c, e)], 2.0);
    EXPECT_EQ(multicast[d(e, c)], 1.0);
    EXPECT_EQ(multicast[d(c, b)], 2.0);
    EXPECT_EQ(multicast[d(b, a)], 2.0);
    EXPECT_EQ(multicast[t.GetAccessUpLink(a)], 1.0);
    EXPECT_EQ(multicast[t.GetAccessDownLink(a)], 2.0);

    std::vector<double> aggregation = model.GetCliqueLoads(clique, CapabilityMode::AGGREGATION);
    EXPECT_EQ(aggregation[t.GetAccessUpLink(c)], 2.0);
    EXPECT_EQ(aggregation[t.GetAccessDownLink(c)], 1.0);
    EXPECT_EQ(aggregation[d(b, c)], 2.0);

    std::vector<double> both = model.GetCliqueLoads(clique, CapabilityMode::BOTH);
    EXPECT_EQ(both[t.GetAccessUpLink(e)], 1.0);
    EXPECT_EQ(both[t.GetAccessDownLink(e)], 1.0);
    EXPECT_EQ(both[d(c, b)], 2.0);

    std::vector<uint32_t> tree = model.GetSourceTree(a, clique);
    std::vector<uint32_t> expected{d(a, b),
                                   d(b, c),
                                   d(c, e),
                                   t.GetAccessUpLink(a),
                                   t.GetAccessDownLink(c),
                                   t.GetAccessDownLink(e)};
    std::sort(expected.begin(), expected.end());
    EXPECT_EQ(tree, expected);

    // Lat(C): the largest route latency inside the clique, a -> d = 1 + 30 + 1 ms.
    EXPECT_DOUBLE_EQ(model.GetCliqueLatencyMs(clique, CapabilityMode::UNICAST), 32.0);
    // A singleton or an empty clique exchanges nothing.
    std::vector<double> none = model.GetCliqueLoads({b}, CapabilityMode::UNICAST);
    EXPECT_TRUE(std::all_of(none.begin(), none.end(), [](double x) { return x == 0; }));
    EXPECT_EQ(model.GetCliqueLatencyMs({b}, CapabilityMode::RING), 0.0);
    EXPECT_TRUE(model.GetSourceTree(a, {a}).empty());
}

TEST(LinkLoadModel, RingOrderAndTreeRootFollowModelRules)
{
    WanTopology t = Line();
    LinkLoadModel model(t);
    // The line's hop latencies (12, 22, 32 ms including access) leave one optimal cycle up to
    // orientation, a b d c: hops 12, 22, 12, 22 ms (largest 22 ms); a c d b has the same cycle
    // reversed, a b c d has a 32 ms hop. Lexicographic order picks a b d c.
    EXPECT_EQ(model.GetRingOrder({3, 2, 1, 0}), (std::vector<uint32_t>{0, 1, 3, 2}));
    EXPECT_DOUBLE_EQ(model.GetCliqueLatencyMs({0, 1, 2, 3}, CapabilityMode::RING), 2.0 * 3 * 22.0);
    std::vector<double> ring = model.GetCliqueLoads({0, 1, 2, 3}, CapabilityMode::RING);
    // Hops a->b, b->d, d->c, c->a: b->c carries b->d and c->b carries c->a.
    EXPECT_DOUBLE_EQ(ring[t.GetWanDirectedLink(1, 2)], 1.5);
    EXPECT_DOUBLE_EQ(ring[t.GetWanDirectedLink(2, 1)], 1.5);
    EXPECT_DOUBLE_EQ(ring[t.GetWanDirectedLink(0, 1)], 1.5);
    EXPECT_DOUBLE_EQ(ring[t.GetWanDirectedLink(1, 0)], 1.5);
    EXPECT_DOUBLE_EQ(ring[t.GetAccessUpLink(3)], 1.5);
    // Tree root: b and c both give 22 + 22 ms; the smaller index wins.
    EXPECT_EQ(model.GetTreeRoot({0, 1, 2, 3}), 1U);
    EXPECT_DOUBLE_EQ(model.GetCliqueLatencyMs({0, 1, 2, 3}, CapabilityMode::TREE), 44.0);
    EXPECT_EQ(model.GetTreeRoot({2, 3}), 2U);
    std::vector<double> tree = model.GetCliqueLoads({0, 1, 2, 3}, CapabilityMode::TREE);
    for (uint32_t from = 0; from < 3; ++from)
    {
        EXPECT_EQ(tree[t.GetWanDirectedLink(from, from + 1)], 1.0);
        EXPECT_EQ(tree[t.GetWanDirectedLink(from + 1, from)], 1.0);
    }
}

TEST(LinkLoadModel, HeuristicRingOrderOnALargeCliqueIsAValidCycle)
{
    // A line of 20 cities: the best cycle runs out on every other city and back on the rest,
    // with a largest hop of two WAN links (20 ms) + access (2 ms).
    std::ostringstream cities;
    std::ostringstream links;
    const uint32_t n = 20;
    for (uint32_t i = 0; i < n; ++i)
    {
        cities << (i ? "," : "[") << R"({"id": "c)" << i << R"("})";
        if (i > 0)
        {
            links << (i > 1 ? "," : "[") << R"({"a": "c)" << i - 1 << R"(", "b": "c)" << i
                  << R"(", "latency_ms": 10, "capacity_gbps": 100})";
        }
    }
    WanTopology t = ParseInlineTopology(100, 1, cities.str() + "]", links.str() + "]");
    LinkLoadModel model(t);
    CliqueSchedule::Clique all(n);
    for (uint32_t i = 0; i < n; ++i)
    {
        all[i] = i;
    }
    std::vector<uint32_t> order = model.GetRingOrder(all);
    ASSERT_EQ(order.size(), n);
    EXPECT_EQ(order.front(), 0U);
    std::vector<uint32_t> sorted(order);
    std::sort(sorted.begin(), sorted.end());
    EXPECT_EQ(sorted, all);
    EXPECT_DOUBLE_EQ(model.GetCliqueLatencyMs(all, CapabilityMode::RING), 2.0 * (n - 1) * 22.0);
}

TEST(LinkLoadModel, MulticastNeverExceedsUnicastAndAggregationNeverRaisesAccessDown)
{
    for (const std::string file : {"reference-wan.json", "doublezero-nine-city.json"})
    {
        WanTopology t = WanTopology::LoadFile(SRC + "/topologies/" + file);
        LinkLoadModel model(t);
        const uint32_t n = t.GetNCities();
        // Every clique of the nine islands (all 2^9 subsets).
        for (uint32_t mask = 1; mask < (1U << n); ++mask)
        {
            CliqueSchedule::Clique clique;
            for (uint32_t i = 0; i < n; ++i)
            {
                if (mask & (1U << i))
                {
                    clique.push_back(i);
                }
            }
            std::vector<double> unicast = model.GetCliqueLoads(clique, CapabilityMode::UNICAST);
            std::vector<double> multicast = model.GetCliqueLoads(clique, CapabilityMode::MULTICAST);
            std::vector<double> aggregation =
                model.GetCliqueLoads(clique, CapabilityMode::AGGREGATION);
            std::vector<double> both = model.GetCliqueLoads(clique, CapabilityMode::BOTH);
            for (uint32_t d = 0; d < t.GetNDirectedLinks(); ++d)
            {
                ASSERT_LE(multicast[d], unicast[d]) << file << " " << mask << " " << d;
                ASSERT_LE(both[d], aggregation[d]) << file << " " << mask << " " << d;
                ASSERT_LE(both[d], multicast[d]) << file << " " << mask << " " << d;
            }
            for (uint32_t i = 0; i < n; ++i)
            {
                uint32_t down = t.GetAccessDownLink(i);
                ASSERT_LE(aggregation[down], unicast[down]) << file << " " << mask;
                ASSERT_LE(both[down], multicast[down]) << file << " " << mask;
                // Access up: k-1 copies unicast, 1 with multicast (the table of streams per link).
                double k = clique.size();
                double expectedUp = (mask & (1U << i)) && k > 1 ? k - 1 : 0;
                ASSERT_EQ(unicast[t.GetAccessUpLink(i)], expectedUp);
                ASSERT_EQ(multicast[t.GetAccessUpLink(i)], expectedUp > 0 ? 1.0 : 0.0);
            }
        }
    }
}
