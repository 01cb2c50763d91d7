/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "test-utils.h"
#include "wan-topology.h"

#include <cmath>
#include <fstream>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sstream>

/**
 * @file
 * @ingroup wan-training-tests
 * GoogleTest cases for WanTopology: parsing, validation messages, directed links and routes.
 */

using namespace ns3;

namespace
{

const std::string SRC = WAN_TRAINING_SOURCE_DIR;

} // namespace

TEST(WanTopology, NineCityNumbersMatchTheSharedData)
{
    WanTopology t = WanTopology::LoadFile(SRC + "/topologies/doublezero-nine-city.json");
    EXPECT_EQ(t.GetName(), "doublezero-nine-city");
    ASSERT_EQ(t.GetNCities(), 9u);
    ASSERT_EQ(t.GetNLinks(), 11u);
    EXPECT_EQ(t.GetNDirectedLinks(), 2u * 11 + 2u * 9);
    EXPECT_TRUE(t.HasMulticast());
    EXPECT_TRUE(t.HasAggregation());
    // This project's assumption (the file's provenance): every device's FPGA can sum.
    EXPECT_TRUE(t.HasCore());
    EXPECT_EQ(t.GetDefaultMtuBytes(), 9000u);
    uint32_t nyc = t.GetCityIndex("nyc");
    EXPECT_DOUBLE_EQ(t.GetCity(nyc).accessCapacityGbps, 10.0);
    EXPECT_DOUBLE_EQ(t.GetCity(nyc).accessLatencyMs, 0.05);
    const WanLink& fraPrg = t.GetLink(7);
    EXPECT_EQ(t.GetCity(fraPrg.a).id, "fra");
    EXPECT_EQ(t.GetCity(fraPrg.b).id, "prg");
    EXPECT_DOUBLE_EQ(fraPrg.latencyMs, 3.5);
    EXPECT_EQ(fraPrg.source, "committed");
    EXPECT_EQ(fraPrg.mtuBytes, 9000u);
}

TEST(WanTopology, NineCityNearTiesFollowLatencyNotHops)
{
    WanTopology t = WanTopology::LoadFile(SRC + "/topologies/doublezero-nine-city.json");
    auto route = [&t](const std::string& a, const std::string& b) {
        return GetCityIds(t, t.GetRoute(t.GetCityIndex(a), t.GetCityIndex(b)).cities);
    };
    // nyc->lax direct 34.21 ms beats nyc->chi->lax 9.89 + 24.429 = 34.319 ms.
    EXPECT_EQ(route("nyc", "lax"), (std::vector<std::string>{"nyc", "lax"}));
    // lon->fra direct 5.532 ms beats lon->ams->fra 2.881 + 3.082 = 5.963 ms.
    EXPECT_EQ(route("lon", "fra"), (std::vector<std::string>{"lon", "fra"}));
    // chi->lon goes through nyc: 9.89 + 33.648.
    const WanRoute& r = t.GetRoute(t.GetCityIndex("chi"), t.GetCityIndex("lon"));
    EXPECT_EQ(GetCityIds(t, r.cities), (std::vector<std::string>{"chi", "nyc", "lon"}));
    EXPECT_NEAR(r.wanLatencyMs, 9.89 + 33.648, 1e-12);
    EXPECT_NEAR(r.latencyMs, 0.05 + 9.89 + 33.648 + 0.05, 1e-12);
    // prg->sin: prg-fra-lon-sin = 3.5 + 5.532 + 76.684.
    EXPECT_EQ(route("prg", "sin"), (std::vector<std::string>{"prg", "fra", "lon", "sin"}));
}

TEST(WanTopology, OptionalLinksOnlyWhenAsked)
{
    std::string path = SRC + "/topologies/doublezero-nine-city.json";
    WanTopology plain = WanTopology::LoadFile(path);
    WanTopology extended = WanTopology::LoadFile(path, true);
    // fra-sin and fra-tyo are new; nyc-lon (100 Gbps) replaces the 10 Gbps nyc-lon link.
    EXPECT_EQ(extended.GetNLinks(), plain.GetNLinks() + 2);
    uint32_t nyc = extended.GetCityIndex("nyc");
    uint32_t lon = extended.GetCityIndex("lon");
    uint32_t d = extended.GetWanDirectedLink(lon, nyc);
    EXPECT_DOUBLE_EQ(extended.GetDirectedLinkCapacityGbps(d), 100.0);
    EXPECT_DOUBLE_EQ(extended.GetDirectedLinkLatencyMs(d), 32.08);
    EXPECT_EQ(d, plain.GetWanDirectedLink(lon, nyc));
    EXPECT_DOUBLE_EQ(plain.GetDirectedLinkCapacityGbps(d), 10.0);
}

TEST(WanTopology, DirectedLinkNamesAndNumbering)
{
    WanTopology t =
        ParseInlineTopology(10,
                            0,
                            R"([{"id": "a"}, {"id": "b"}, {"id": "c", "access_capacity_gbps": 40,
                              "access_latency_ms": 0.5}])",
                            R"([{"a": "a", "b": "b", "latency_ms": 1, "capacity_gbps": 100},
                               {"a": "c", "b": "b", "latency_ms": 2, "capacity_gbps": 200,
                                "mtu_bytes": 9000}])");
    ASSERT_EQ(t.GetNDirectedLinks(), 10u);
    std::vector<std::string> names;
    for (uint32_t d = 0; d < t.GetNDirectedLinks(); ++d)
    {
        names.push_back(t.GetDirectedLinkName(d));
    }
    EXPECT_EQ(names,
              (std::vector<std::string>{"a->b",
                                        "b->a",
                                        "c->b",
                                        "b->c",
                                        "a:up",
                                        "b:up",
                                        "c:up",
                                        "a:down",
                                        "b:down",
                                        "c:down"}));
    EXPECT_EQ(t.GetWanDirectedLink(1, 2), 3u);
    EXPECT_THROW(t.GetWanDirectedLink(0, 2), std::out_of_range);
    EXPECT_EQ(t.GetAccessUpLink(2), 6u);
    EXPECT_EQ(t.GetAccessDownLink(0), 7u);
    EXPECT_TRUE(t.IsAccessLink(4));
    EXPECT_FALSE(t.IsAccessLink(3));
    EXPECT_DOUBLE_EQ(t.GetDirectedLinkCapacityGbps(3), 200.0);
    EXPECT_DOUBLE_EQ(t.GetDirectedLinkCapacityGbps(6), 40.0);
    EXPECT_DOUBLE_EQ(t.GetDirectedLinkCapacityGbps(9), 40.0);
    EXPECT_DOUBLE_EQ(t.GetDirectedLinkCapacityGbps(7), 10.0);
    EXPECT_DOUBLE_EQ(t.GetDirectedLinkLatencyMs(9), 0.5);
    // a -> c: a:up, a->b, b->c, c:down; latency 0 + 1 + 2 + 0.5.
    const WanRoute& r = t.GetRoute(0, 2);
    EXPECT_EQ(r.links, (std::vector<uint32_t>{4, 0, 3, 9}));
    EXPECT_DOUBLE_EQ(r.latencyMs, 3.5);
    EXPECT_DOUBLE_EQ(r.wanLatencyMs, 3.0);
    EXPECT_EQ(t.GetPathMtuBytes(0, 2), 1500u);
    EXPECT_EQ(t.GetPathMtuBytes(1, 2), 1500u);
    EXPECT_THROW(t.GetCityIndex("zzz"), std::out_of_range);
}

TEST(WanTopology, TiesBreakByHopsThenLexicographicIds)
{
    // Equal latency (0.1 + 0.2 vs 0.3, equal up to rounding): the direct link has fewer hops.
    WanTopology hops =
        ParseInlineTopology(10,
                            0,
                            R"([{"id": "a"}, {"id": "b"}, {"id": "c"}])",
                            R"([{"a": "a", "b": "b", "latency_ms": 0.1, "capacity_gbps": 1},
                                  {"a": "b", "b": "c", "latency_ms": 0.2, "capacity_gbps": 1},
                                  {"a": "a", "b": "c", "latency_ms": 0.3, "capacity_gbps": 1}])");
    EXPECT_EQ(GetCityIds(hops, hops.GetRoute(0, 2).cities), (std::vector<std::string>{"a", "c"}));

    // Two equal three-hop paths a-b-y-z and a-c-x-z: from a the smaller sequence goes via b;
    // from z the smaller sequence goes via x. The route need not be the reverse.
    WanTopology lex = ParseInlineTopology(
        10,
        0,
        R"([{"id": "a"}, {"id": "b"}, {"id": "c"}, {"id": "x"}, {"id": "y"}, {"id": "z"}])",
        R"([{"a": "a", "b": "b", "latency_ms": 1, "capacity_gbps": 1},
                   {"a": "b", "b": "y", "latency_ms": 1, "capacity_gbps": 1},
                   {"a": "y", "b": "z", "latency_ms": 1, "capacity_gbps": 1},
                   {"a": "a", "b": "c", "latency_ms": 1, "capacity_gbps": 1},
                   {"a": "c", "b": "x", "latency_ms": 1, "capacity_gbps": 1},
                   {"a": "x", "b": "z", "latency_ms": 1, "capacity_gbps": 1}])");
    uint32_t a = lex.GetCityIndex("a");
    uint32_t z = lex.GetCityIndex("z");
    EXPECT_EQ(GetCityIds(lex, lex.GetRoute(a, z).cities),
              (std::vector<std::string>{"a", "b", "y", "z"}));
    EXPECT_EQ(GetCityIds(lex, lex.GetRoute(z, a).cities),
              (std::vector<std::string>{"z", "x", "c", "a"}));
}

TEST(WanTopology, RoutesReproduceTheReferenceValues)
{
    WanTopology t = WanTopology::LoadFile(SRC + "/topologies/reference-wan.json");
    auto ref = nlohmann::json::parse(ReadTextFile(SRC + "/test/data/reference-values.json"));
    const auto& routes = ref.at("routes");
    ASSERT_EQ(routes.size(), 72u);
    uint32_t checked = 0;
    for (uint32_t i = 0; i < t.GetNCities(); ++i)
    {
        for (uint32_t j = 0; j < t.GetNCities(); ++j)
        {
            if (i == j)
            {
                continue;
            }
            std::string key = t.GetCity(i).id + "->" + t.GetCity(j).id;
            ASSERT_TRUE(routes.contains(key)) << key;
            const WanRoute& r = t.GetRoute(i, j);
            EXPECT_EQ(GetCityIds(t, r.cities), routes[key]["nodes"].get<std::vector<std::string>>())
                << key;
            // Access latency is 0 in this topology: the route latency is the WAN latency.
            EXPECT_NEAR(r.latencyMs,
                        routes[key]["latency_ms"].get<double>(),
                        1e-9 * routes[key]["latency_ms"].get<double>())
                << key;
            ++checked;
        }
    }
    EXPECT_EQ(checked, 72u);
}

TEST(WanTopology, EveryMalformedInputHasItsOwnMessage)
{
    std::string dir = SRC + "/test/data/bad-topologies/";
    std::ifstream manifest(dir + "expected.tsv");
    ASSERT_TRUE(manifest.good());
    std::string line;
    uint32_t cases = 0;
    while (std::getline(manifest, line))
    {
        if (line.empty() || line[0] == '#')
        {
            continue;
        }
        std::istringstream fields(line);
        std::string file;
        std::string path;
        std::string reason;
        std::getline(fields, file, '\t');
        std::getline(fields, path, '\t');
        std::getline(fields, reason, '\t');
        SCOPED_TRACE(file);
        try
        {
            WanTopology::LoadFile(dir + file);
            ADD_FAILURE() << file << " was accepted";
        }
        catch (const WanInputError& e)
        {
            EXPECT_EQ(e.GetFile(), dir + file);
            EXPECT_EQ(e.GetPath(), path);
            EXPECT_NE(e.GetReason().find(reason), std::string::npos)
                << "reason '" << e.GetReason() << "' lacks '" << reason << "'";
            EXPECT_EQ(std::string(e.what()), dir + file + ": " + path + ": " + e.GetReason());
        }
        ++cases;
    }
    EXPECT_GE(cases, 12u);
}

TEST(WanTopology, MissingFileIsReported)
{
    try
    {
        WanTopology::LoadFile("/nonexistent/topology.json");
        ADD_FAILURE() << "a missing file was accepted";
    }
    catch (const WanInputError& e)
    {
        EXPECT_EQ(e.GetFile(), "/nonexistent/topology.json");
        EXPECT_NE(e.GetReason().find("cannot open"), std::string::npos);
    }
}

TEST(WanTopology, TheValidBaseOfTheMalformedCasesIsAccepted)
{
    // Guards the malformed cases: each differs from this valid file by one fault.
    WanTopology t = WanTopology::LoadFile(SRC + "/test/data/tiny-valid.json");
    EXPECT_EQ(t.GetNCities(), 3u);
    EXPECT_EQ(t.GetNLinks(), 2u);
    EXPECT_FALSE(t.HasMulticast());
    EXPECT_FALSE(t.HasAggregation());
}

namespace
{

/**
 * @param routerQueue the `defaults.router_queue` JSON, or empty for none
 * @return a two-city topology: access 10 Gbps, the WAN link 0.01 Gbps (10 Mbit/s)
 */
WanTopology
ParseRouterQueue(const std::string& routerQueue)
{
    std::string json = R"({"defaults": {"mtu_bytes": 1500,
        "island_access": {"capacity_gbps": 10, "latency_ms": 0})";
    if (!routerQueue.empty())
    {
        json += R"(, "router_queue": )" + routerQueue;
    }
    json += R"(}, "cities": [{"id": "a"}, {"id": "b"}],
        "links": [{"a": "a", "b": "b", "latency_ms": 1, "capacity_gbps": 0.01}]})";
    return WanTopology::Parse(json, "inline");
}

} // namespace

TEST(WanTopology, RouterQueueDefaultsToDropTailOfTenMilliseconds)
{
    WanTopology t = ParseRouterQueue("");
    const WanRouterQueue& q = t.GetRouterQueue();
    EXPECT_EQ(q.type, WanRouterQueue::DROP_TAIL);
    EXPECT_EQ(q.GetTypeName(), "drop_tail");
    EXPECT_DOUBLE_EQ(q.bufferMs, 10.0);
    EXPECT_TRUE(q.queueDiscName.empty());
    // Two frames of 65535 IP bytes + 2 PPP bytes.
    EXPECT_EQ(WanRouterQueue::MIN_BUFFER_BYTES, 131074u);
    // Access 10 Gbit/s: 10 ms x 1e10 bit/s / 8 = 12.5e6 bytes, on both directions.
    EXPECT_EQ(t.GetPortBufferBytes(t.GetAccessUpLink(0)), 12500000u);
    EXPECT_EQ(t.GetPortBufferBytes(t.GetAccessDownLink(1)), 12500000u);
    // WAN 10 Mbit/s: 10 ms x 1e7 / 8 = 12,500 bytes, under the floor of 131,074.
    EXPECT_EQ(t.GetPortBufferBytes(t.GetWanDirectedLink(0, 1)), 131074u);
    EXPECT_EQ(t.GetPortBufferBytes(t.GetWanDirectedLink(1, 0)), 131074u);
}

TEST(WanTopology, RouterQueueParsesDropTailAndQueueDisc)
{
    WanTopology dropTail = ParseRouterQueue(R"({"type": "drop_tail", "buffer_ms": 200})");
    EXPECT_EQ(dropTail.GetRouterQueue().type, WanRouterQueue::DROP_TAIL);
    EXPECT_DOUBLE_EQ(dropTail.GetRouterQueue().bufferMs, 200.0);
    // 200 ms x 1e7 bit/s / 8 = 250,000 bytes (above the floor); 200 ms x 1e10 / 8 = 2.5e8.
    EXPECT_EQ(dropTail.GetPortBufferBytes(dropTail.GetWanDirectedLink(0, 1)), 250000u);
    EXPECT_EQ(dropTail.GetPortBufferBytes(dropTail.GetAccessUpLink(1)), 250000000u);

    WanTopology disc =
        ParseRouterQueue(R"({"type": "queue_disc", "name": "ns3::FqCoDelQueueDisc"})");
    EXPECT_EQ(disc.GetRouterQueue().type, WanRouterQueue::QUEUE_DISC);
    EXPECT_EQ(disc.GetRouterQueue().GetTypeName(), "queue_disc");
    EXPECT_EQ(disc.GetRouterQueue().queueDiscName, "ns3::FqCoDelQueueDisc");
    EXPECT_DOUBLE_EQ(disc.GetRouterQueue().bufferMs, WanRouterQueue::DEFAULT_BUFFER_MS);
}

TEST(WanTopology, RouterQueueBufferBytesClosedForm)
{
    WanRouterQueue q;
    // 0.3 ms at 100 Gbit/s: 3e-4 x 1e11 / 8 = 3,750,000 bytes exactly (0.3 is not exact in
    // binary).
    q.bufferMs = 0.3;
    EXPECT_EQ(q.GetBufferBytes(100), 3750000u);
    // A fraction of a byte rounds up: 1 ms at 1,000,000,001 bit/s = 125,000.125 -> 125,001.
    q.bufferMs = 1;
    EXPECT_EQ(q.GetBufferBytes(1.000000001), 131074u);
    q.bufferMs = 8;
    EXPECT_EQ(q.GetBufferBytes(1.000000001), 1000001u);
    // 1000 ms at 1 Pbit/s is 1.25e14 bytes: capped at an ns-3 QueueSize's 2^32 - 1.
    q.bufferMs = WanRouterQueue::MAX_BUFFER_MS;
    EXPECT_EQ(q.GetBufferBytes(1e6), 4294967295u);
}
