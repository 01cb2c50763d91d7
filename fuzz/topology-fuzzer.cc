/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "clique-schedule.h"
#include "fuzz-targets.h"
#include "wan-input-error.h"
#include "wan-topology.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <limits>
#include <set>
#include <sstream>
#include <string>
#include <vector>

/**
 * @file
 * @ingroup wan-training-tests
 * Fuzz target of the topology parser (WanTopology::Parse): any bytes either give a
 * WanInputError or a topology whose numbering, routes and MTUs keep the documented properties.
 * Regional cliques and round-robin pairs of every accepted topology are checked as well.
 */

namespace ns3
{

namespace
{

/** The source name given to the parser. */
const std::string FUZZ_SOURCE = "<fuzz>";

/**
 * @param x a value
 * @return it as text, for messages
 */
std::string
Str(double x)
{
    std::ostringstream os;
    os << std::setprecision(17) << x;
    return os.str();
}

/**
 * @param gbps a capacity
 * @return whether ns-3 can carry it: a DataRate of at least 1 bit/s that fits 63 bits
 */
bool
IsDataRate(double gbps)
{
    return std::isfinite(gbps) && gbps * 1e9 >= 0.5 && gbps * 1e9 < 9.2e18;
}

/**
 * @param ms a latency
 * @return whether ns-3 can hold it: a finite, non-negative Time of 63-bit nanoseconds
 */
bool
IsTime(double ms)
{
    return std::isfinite(ms) && ms >= 0 && ms * 1e6 < 9.2e18;
}

/**
 * @brief Shortest one-way WAN latency from a source to every city, by a plain Dijkstra without
 * tie-breaking (independent of WanTopology's composite labels).
 * @param t the topology
 * @param source the source city
 * @return the distances (infinity where unreachable)
 */
std::vector<double>
ShortestWanLatencies(const WanTopology& t, uint32_t source)
{
    const uint32_t n = t.GetNCities();
    std::vector<double> dist(n, std::numeric_limits<double>::infinity());
    std::vector<bool> done(n, false);
    dist[source] = 0;
    for (uint32_t step = 0; step < n; ++step)
    {
        uint32_t u = n;
        for (uint32_t v = 0; v < n; ++v)
        {
            if (!done[v] && std::isfinite(dist[v]) && (u == n || dist[v] < dist[u]))
            {
                u = v;
            }
        }
        if (u == n)
        {
            break;
        }
        done[u] = true;
        for (uint32_t l = 0; l < t.GetNLinks(); ++l)
        {
            const WanLink& link = t.GetLink(l);
            if (link.a == u || link.b == u)
            {
                uint32_t v = link.a == u ? link.b : link.a;
                dist[v] = std::min(dist[v], dist[u] + link.latencyMs);
            }
        }
    }
    return dist;
}

/**
 * @brief Check cities, links and the dense directed-link numbering.
 * @param t the topology
 */
void
CheckNumbering(const WanTopology& t)
{
    const uint32_t n = t.GetNCities();
    const uint32_t nLinks = t.GetNLinks();
    FuzzCheck(n >= 1, "an accepted topology has no city");
    FuzzCheck(t.GetNDirectedLinks() == 2 * nLinks + 2 * n,
              "directed links " + std::to_string(t.GetNDirectedLinks()) + " != 2L + 2N");
    FuzzCheck(t.GetDefaultMtuBytes() >= WanTopology::MIN_MTU_BYTES &&
                  t.GetDefaultMtuBytes() <= WanTopology::MAX_MTU_BYTES,
              "default MTU out of range: " + std::to_string(t.GetDefaultMtuBytes()));
    const WanRouterQueue& queue = t.GetRouterQueue();
    FuzzCheck(std::isfinite(queue.bufferMs) && queue.bufferMs > 0 &&
                  queue.bufferMs <= WanRouterQueue::MAX_BUFFER_MS &&
                  (queue.type == WanRouterQueue::QUEUE_DISC) == !queue.queueDiscName.empty(),
              "router queue " + queue.GetTypeName() + " of " + Str(queue.bufferMs) + " ms");
    for (uint32_t d = 0; d < t.GetNDirectedLinks(); ++d)
    {
        FuzzCheck(t.GetPortBufferBytes(d) >= WanRouterQueue::MIN_BUFFER_BYTES,
                  "port buffer of " + t.GetDirectedLinkName(d) + " below the floor");
    }
    for (uint32_t i = 0; i < n; ++i)
    {
        const WanCity& c = t.GetCity(i);
        FuzzCheck(t.HasCity(c.id) && t.GetCityIndex(c.id) == i,
                  "city '" + c.id + "' does not map back to index " + std::to_string(i));
        FuzzCheck(IsDataRate(c.accessCapacityGbps),
                  "access capacity of '" + c.id + "' is " + Str(c.accessCapacityGbps));
        FuzzCheck(IsTime(c.accessLatencyMs),
                  "access latency of '" + c.id + "' is " + Str(c.accessLatencyMs));
        uint32_t up = t.GetAccessUpLink(i);
        uint32_t down = t.GetAccessDownLink(i);
        FuzzCheck(up == 2 * nLinks + i && down == 2 * nLinks + n + i,
                  "access links of '" + c.id + "' are not numbered densely");
        FuzzCheck(t.IsAccessLink(up) && t.IsAccessLink(down), "access link not flagged as such");
        FuzzCheck(t.GetDirectedLinkName(up) == c.id + ":up" &&
                      t.GetDirectedLinkName(down) == c.id + ":down",
                  "access link names of '" + c.id + "'");
        FuzzCheck(t.GetDirectedLinkCapacityGbps(up) == c.accessCapacityGbps &&
                      t.GetDirectedLinkLatencyMs(down) == c.accessLatencyMs,
                  "access link numbers of '" + c.id + "'");
        FuzzCheck(t.HasFpga(i) == c.fpga && (t.HasAggregation() || !c.fpga),
                  "city '" + c.id + "' has an FPGA without the aggregation capability");
    }
    std::vector<uint32_t> fpgaCities;
    for (uint32_t i = 0; i < n; ++i)
    {
        if (t.HasFpga(i))
        {
            fpgaCities.push_back(i);
        }
    }
    FuzzCheck(t.GetFpgaCities() == fpgaCities,
              "GetFpgaCities is not the cities with an FPGA in increasing index");
    for (uint32_t l = 0; l < nLinks; ++l)
    {
        const WanLink& link = t.GetLink(l);
        FuzzCheck(link.a < n && link.b < n && link.a != link.b,
                  "link " + std::to_string(l) + " has bad endpoints");
        FuzzCheck(IsTime(link.latencyMs) && link.latencyMs > 0,
                  "link " + std::to_string(l) + " latency " + Str(link.latencyMs));
        FuzzCheck(IsDataRate(link.capacityGbps),
                  "link " + std::to_string(l) + " capacity " + Str(link.capacityGbps));
        FuzzCheck(link.mtuBytes >= WanTopology::MIN_MTU_BYTES &&
                      link.mtuBytes <= WanTopology::MAX_MTU_BYTES,
                  "link " + std::to_string(l) + " MTU " + std::to_string(link.mtuBytes));
        FuzzCheck(t.GetWanDirectedLink(link.a, link.b) == 2 * l &&
                      t.GetWanDirectedLink(link.b, link.a) == 2 * l + 1,
                  "link " + std::to_string(l) + " directions are not 2l and 2l+1");
        const std::string& a = t.GetCity(link.a).id;
        const std::string& b = t.GetCity(link.b).id;
        FuzzCheck(t.GetDirectedLinkName(2 * l) == a + "->" + b &&
                      t.GetDirectedLinkName(2 * l + 1) == b + "->" + a,
                  "names of link " + std::to_string(l));
        FuzzCheck(!t.IsAccessLink(2 * l) && !t.IsAccessLink(2 * l + 1),
                  "WAN link flagged as access");
    }
}

/**
 * @brief Check every route: its shape, its latencies (shortest, finite, summed exactly) and its
 * path MTU.
 * @param t the topology
 */
void
CheckRoutes(const WanTopology& t)
{
    const uint32_t n = t.GetNCities();
    for (uint32_t s = 0; s < n; ++s)
    {
        std::vector<double> shortest = ShortestWanLatencies(t, s);
        for (uint32_t d = 0; d < n; ++d)
        {
            if (d == s)
            {
                continue;
            }
            const WanRoute& r = t.GetRoute(s, d);
            std::string name = t.GetCity(s).id + " to " + t.GetCity(d).id;
            FuzzCheck(r.cities.size() >= 2 && r.cities.front() == s && r.cities.back() == d,
                      "route " + name + " does not join its ends");
            FuzzCheck(std::set<uint32_t>(r.cities.begin(), r.cities.end()).size() ==
                          r.cities.size(),
                      "route " + name + " visits a city twice");
            FuzzCheck(r.links.size() == r.cities.size() + 1 &&
                          r.links.front() == t.GetAccessUpLink(s) &&
                          r.links.back() == t.GetAccessDownLink(d),
                      "route " + name + " lacks its access links");
            double wan = 0;
            for (std::size_t h = 0; h + 1 < r.cities.size(); ++h)
            {
                uint32_t link = t.GetWanDirectedLink(r.cities[h], r.cities[h + 1]);
                FuzzCheck(r.links[h + 1] == link, "route " + name + " link list mismatch");
                wan += t.GetDirectedLinkLatencyMs(link);
            }
            FuzzCheck(IsTime(r.wanLatencyMs) && IsTime(r.latencyMs),
                      "route " + name + " latency is not an ns-3 Time: " + Str(r.latencyMs));
            FuzzCheck(r.wanLatencyMs == wan,
                      "route " + name + " WAN latency " + Str(r.wanLatencyMs) +
                          " != sum of its links " + Str(wan));
            FuzzCheck(r.latencyMs ==
                          t.GetCity(s).accessLatencyMs + wan + t.GetCity(d).accessLatencyMs,
                      "route " + name + " latency is not up + WAN + down");
            // Ties within a relative 1e-9 may pick a path that is longer by that much per hop.
            FuzzCheck(wan <= shortest[d] * (1 + 1e-9 * n),
                      "route " + name + " is not shortest: " + Str(wan) + " > " + Str(shortest[d]));
            uint32_t mtu = t.GetPathMtuBytes(s, d);
            FuzzCheck(mtu >= WanTopology::MIN_MTU_BYTES && mtu <= t.GetDefaultMtuBytes(),
                      "path MTU of " + name + " is " + std::to_string(mtu));
        }
    }
}

/**
 * @brief Check the schedules built from a topology: regional cliques partition the islands,
 * round-robin pairs meet every pair exactly once.
 * @param t the topology
 * @param cliqueSize the regional clique size
 */
void
CheckGeneratedSchedules(const WanTopology& t, uint32_t cliqueSize)
{
    const uint32_t n = t.GetNCities();
    CliqueSchedule regional = CliqueSchedule::Regional(t, cliqueSize);
    FuzzCheck(regional.GetNRounds() == 1, "regional schedule has several rounds");
    std::vector<uint32_t> seen(n, 0);
    for (const auto& clique : regional.GetRound(0))
    {
        FuzzCheck(!clique.empty() && clique.size() <= cliqueSize,
                  "regional clique of size " + std::to_string(clique.size()));
        for (uint32_t island : clique)
        {
            ++seen[island];
        }
    }
    FuzzCheck(std::all_of(seen.begin(), seen.end(), [](uint32_t k) { return k == 1; }),
              "regional cliques do not cover every island once");
    if (n < 2)
    {
        return;
    }
    CliqueSchedule pairs = CliqueSchedule::RoundRobinPairs(n);
    std::vector<std::vector<uint32_t>> met(n, std::vector<uint32_t>(n, 0));
    for (const auto& round : pairs.GetRounds())
    {
        for (const auto& clique : round)
        {
            FuzzCheck(clique.size() == 2, "round-robin clique is not a pair");
            ++met[clique[0]][clique[1]];
            ++met[clique[1]][clique[0]];
        }
    }
    for (uint32_t i = 0; i < n; ++i)
    {
        for (uint32_t j = 0; j < n; ++j)
        {
            FuzzCheck(i == j || met[i][j] == 1, "round-robin pairs do not meet exactly once");
        }
    }
}

} // namespace

void
FuzzTopology(const uint8_t* data, std::size_t size)
{
    const std::string text(reinterpret_cast<const char*>(data), size);
    for (bool optional : {false, true})
    {
        try
        {
            WanTopology t = WanTopology::Parse(text, FUZZ_SOURCE, optional);
            CheckNumbering(t);
            CheckRoutes(t);
            CheckGeneratedSchedules(t, 1 + size % 4);
        }
        catch (const WanInputError& e)
        {
            FuzzCheck(e.GetFile() == FUZZ_SOURCE && !e.GetPath().empty() && e.GetPath()[0] == '$' &&
                          !e.GetReason().empty(),
                      std::string("malformed input error: ") + e.what());
        }
    }
}

} // namespace ns3

#ifdef WAN_TRAINING_LIBFUZZER
/**
 * @brief The libFuzzer entry point (only in the fuzzer binary).
 * @param data the input bytes
 * @param size the number of bytes
 * @return 0
 */
extern "C" int
LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size)
{
    ns3::FuzzTopology(data, size);
    return 0;
}
#endif
