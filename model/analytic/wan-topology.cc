/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "wan-topology.h"

#include "wan-config-error.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>

namespace ns3
{

namespace
{

using Json = nlohmann::json;

/**
 * The largest one-way latency accepted on a link (1000 s): the sum over any route stays finite
 * and far inside the range of an ns-3 Time.
 */
constexpr double MAX_LATENCY_MS = 1e6;
/** The smallest capacity accepted: 1 bit/s, which must not round to a DataRate of 0. */
constexpr double MIN_CAPACITY_GBPS = 1e-9;
/** The largest capacity accepted: 1 Pbit/s, well inside a DataRate's 64-bit bit/s. */
constexpr double MAX_CAPACITY_GBPS = 1e6;

/** Reads JSON values under a path, raising WanInputError with the file and path on any fault. */
class JsonReader
{
  public:
    explicit JsonReader(const std::string& source)
        : m_source(source)
    {
    }

    [[noreturn]] void Fail(const std::string& path, const std::string& reason) const
    {
        throw WanInputError(m_source, path, reason);
    }

    static std::string TypeName(const Json& v)
    {
        return v.type_name();
    }

    const Json& Member(const Json& obj,
                       const std::string& path,
                       const std::string& key,
                       Json::value_t type) const
    {
        auto it = obj.find(key);
        if (it == obj.end())
        {
            Fail(path, "missing required field '" + key + "'");
        }
        CheckType(*it, path + "." + key, type);
        return *it;
    }

    void CheckType(const Json& v, const std::string& path, Json::value_t type) const
    {
        bool ok = false;
        std::string want;
        switch (type)
        {
        case Json::value_t::object:
            ok = v.is_object();
            want = "an object";
            break;
        case Json::value_t::array:
            ok = v.is_array();
            want = "an array";
            break;
        case Json::value_t::string:
            ok = v.is_string();
            want = "a string";
            break;
        case Json::value_t::boolean:
            ok = v.is_boolean();
            want = "a boolean";
            break;
        default:
            ok = v.is_number();
            want = "a number";
            break;
        }
        if (!ok)
        {
            Fail(path, "must be " + want + " (got " + TypeName(v) + ")");
        }
    }

    /** Reject keys that the schema does not know: a typo must not become a silent default. */
    void OnlyKeys(const Json& obj, const std::string& path, const std::set<std::string>& keys) const
    {
        for (auto it = obj.begin(); it != obj.end(); ++it)
        {
            if (keys.count(it.key()) == 0)
            {
                std::string known;
                for (const auto& k : keys)
                {
                    known += (known.empty() ? "" : ", ") + k;
                }
                Fail(path + "." + it.key(), "unknown field (known: " + known + ")");
            }
        }
    }

    double Number(const Json& obj, const std::string& path, const std::string& key) const
    {
        return Member(obj, path, key, Json::value_t::number_float).get<double>();
    }

    double Positive(const Json& obj, const std::string& path, const std::string& key) const
    {
        double v = Number(obj, path, key);
        if (!std::isfinite(v) || v <= 0)
        {
            Fail(path + "." + key, "must be a positive finite number (got " + Format(v) + ")");
        }
        return v;
    }

    double NonNegative(const Json& obj, const std::string& path, const std::string& key) const
    {
        double v = Number(obj, path, key);
        if (!std::isfinite(v) || v < 0)
        {
            Fail(path + "." + key, "must be a non-negative finite number (got " + Format(v) + ")");
        }
        return v;
    }

    /** A one-way latency in ms: positive (or, with mayBeZero, non-negative) and at most 1000 s. */
    double Latency(const Json& obj,
                   const std::string& path,
                   const std::string& key,
                   bool mayBeZero) const
    {
        double v = mayBeZero ? NonNegative(obj, path, key) : Positive(obj, path, key);
        if (v > MAX_LATENCY_MS)
        {
            Fail(path + "." + key,
                 "must be at most " + Format(MAX_LATENCY_MS) + " ms (got " + Format(v) + ")");
        }
        return v;
    }

    /** A capacity in Gbps: from 1 bit/s to 1 Pbit/s. */
    double Capacity(const Json& obj, const std::string& path, const std::string& key) const
    {
        double v = Positive(obj, path, key);
        if (v < MIN_CAPACITY_GBPS || v > MAX_CAPACITY_GBPS)
        {
            Fail(path + "." + key,
                 "must be from " + Format(MIN_CAPACITY_GBPS) + " Gbps (1 bit/s) to " +
                     Format(MAX_CAPACITY_GBPS) + " Gbps (got " + Format(v) + ")");
        }
        return v;
    }

    uint32_t Mtu(const Json& obj, const std::string& path, const std::string& key) const
    {
        const Json& v = Member(obj, path, key, Json::value_t::number_integer);
        double d = v.get<double>();
        if (!v.is_number_integer() || d < WanTopology::MIN_MTU_BYTES ||
            d > WanTopology::MAX_MTU_BYTES)
        {
            Fail(path + "." + key,
                 "must be a whole number of bytes from " +
                     std::to_string(WanTopology::MIN_MTU_BYTES) +
                     " (the smallest MTU that carries IPv4 + UDP + IslandSyncHeader with values) "
                     "to " +
                     std::to_string(WanTopology::MAX_MTU_BYTES) + " (got " + v.dump() + ")");
        }
        return v.get<uint32_t>();
    }

    static std::string Format(double v)
    {
        std::ostringstream os;
        os << v;
        return os.str();
    }

  private:
    std::string m_source; //!< file or source name
};

/**
 * @brief Read `defaults.router_queue`.
 * @param r the reader (file name for errors)
 * @param queue the JSON object
 * @param path its JSON path
 * @return the queue model
 */
WanRouterQueue
ReadRouterQueue(const JsonReader& r, const Json& queue, const std::string& path)
{
    r.OnlyKeys(queue, path, {"type", "buffer_ms", "name"});
    WanRouterQueue model;
    const std::string type =
        r.Member(queue, path, "type", Json::value_t::string).get<std::string>();
    if (type == "drop_tail")
    {
        model.type = WanRouterQueue::DROP_TAIL;
    }
    else if (type == "queue_disc")
    {
        model.type = WanRouterQueue::QUEUE_DISC;
    }
    else
    {
        r.Fail(path + ".type", "must be \"drop_tail\" or \"queue_disc\" (got '" + type + "')");
    }
    if (queue.contains("buffer_ms"))
    {
        model.bufferMs = r.Positive(queue, path, "buffer_ms");
        if (model.bufferMs > WanRouterQueue::MAX_BUFFER_MS)
        {
            r.Fail(path + ".buffer_ms",
                   "must be at most " + JsonReader::Format(WanRouterQueue::MAX_BUFFER_MS) +
                       " ms of the port's rate (got " + JsonReader::Format(model.bufferMs) + ")");
        }
    }
    if (model.type == WanRouterQueue::QUEUE_DISC)
    {
        model.queueDiscName =
            r.Member(queue, path, "name", Json::value_t::string).get<std::string>();
        if (model.queueDiscName.empty())
        {
            r.Fail(path + ".name",
                   "must name an ns-3 queue disc by its TypeId, e.g. \"ns3::FqCoDelQueueDisc\" "
                   "(got an empty string)");
        }
    }
    else if (queue.contains("name"))
    {
        r.Fail(path + ".name", "only a \"queue_disc\" has a name (the type is \"drop_tail\")");
    }
    return model;
}

/** A route label: compared by latency (relative 1e-9), then hops, then the city-id sequence. */
struct Label
{
    double latency{std::numeric_limits<double>::infinity()};
    std::vector<uint32_t> path; //!< city indices from the source
};

bool
SameLatency(double a, double b)
{
    return std::fabs(a - b) <= 1e-9 * std::max(std::fabs(a), std::fabs(b));
}

} // namespace

uint32_t
WanRouterQueue::GetBufferBytes(double capacityGbps) const
{
    const double bitsPerSecond = static_cast<double>(std::llround(capacityGbps * 1e9));
    const double exact = bufferMs * bitsPerSecond / 8000;
    // A relative 1e-12 below: bufferMs x rate that is a whole number of bytes stays that number
    // though bufferMs is not exact in binary (0.3 ms).
    const double bytes = std::ceil(exact - 1e-12 * exact);
    if (bytes >= static_cast<double>(std::numeric_limits<uint32_t>::max()))
    {
        return std::numeric_limits<uint32_t>::max();
    }
    return std::max(MIN_BUFFER_BYTES, static_cast<uint32_t>(bytes));
}

std::string
WanRouterQueue::GetTypeName() const
{
    return type == DROP_TAIL ? "drop_tail" : "queue_disc";
}

WanTopology
WanTopology::LoadFile(const std::string& path, bool includeOptionalLinks)
{
    std::ifstream in(path);
    if (!in)
    {
        throw WanInputError(path, "$", "cannot open the file for reading");
    }
    std::stringstream text;
    text << in.rdbuf();
    return Parse(text.str(), path, includeOptionalLinks);
}

WanTopology
WanTopology::Parse(const std::string& text,
                   const std::string& sourceName,
                   bool includeOptionalLinks)
{
    JsonReader r(sourceName);
    Json doc;
    try
    {
        doc = Json::parse(text);
    }
    catch (const Json::exception& e)
    {
        r.Fail("$", std::string("not valid JSON: ") + e.what());
    }
    r.CheckType(doc, "$", Json::value_t::object);
    r.OnlyKeys(doc,
               "$",
               {"name",
                "description",
                "defaults",
                "cities",
                "links",
                "capabilities",
                "provenance",
                "optional_links",
                "note"});

    WanTopology t;
    t.m_source = sourceName;
    if (doc.contains("name"))
    {
        t.m_name = r.Member(doc, "$", "name", Json::value_t::string).get<std::string>();
    }

    const Json& defaults = r.Member(doc, "$", "defaults", Json::value_t::object);
    r.OnlyKeys(defaults,
               "$.defaults",
               {"mtu_bytes", "frame_bytes", "island_access", "router_queue"});
    t.m_defaultMtu = r.Mtu(defaults, "$.defaults", "mtu_bytes");
    uint32_t frameBytes = 0;
    if (defaults.contains("frame_bytes"))
    {
        const Json& v =
            r.Member(defaults, "$.defaults", "frame_bytes", Json::value_t::number_integer);
        if (!v.is_number_integer() || v.get<double>() < 0 ||
            v.get<double>() > WanTopology::MAX_MTU_BYTES)
        {
            r.Fail("$.defaults.frame_bytes",
                   "must be 0 (exact frames) or a whole number of IP bytes up to " +
                       std::to_string(WanTopology::MAX_MTU_BYTES) + " (got " + v.dump() + ")");
        }
        frameBytes = v.get<uint32_t>();
    }
    const Json& access = r.Member(defaults, "$.defaults", "island_access", Json::value_t::object);
    r.OnlyKeys(access, "$.defaults.island_access", {"capacity_gbps", "latency_ms"});
    double accessGbps = r.Capacity(access, "$.defaults.island_access", "capacity_gbps");
    double accessMs = r.Latency(access, "$.defaults.island_access", "latency_ms", true);
    if (defaults.contains("router_queue"))
    {
        t.m_routerQueue =
            ReadRouterQueue(r,
                            r.Member(defaults, "$.defaults", "router_queue", Json::value_t::object),
                            "$.defaults.router_queue");
    }

    const Json& cities = r.Member(doc, "$", "cities", Json::value_t::array);
    if (cities.empty())
    {
        r.Fail("$.cities", "the city list is empty");
    }
    // Each city's `fpga` field, when it has one (else it follows the aggregation capability).
    std::vector<std::optional<bool>> listedFpga(cities.size());
    for (std::size_t i = 0; i < cities.size(); ++i)
    {
        std::string p = "$.cities[" + std::to_string(i) + "]";
        r.CheckType(cities[i], p, Json::value_t::object);
        r.OnlyKeys(
            cities[i],
            p,
            {"id", "name", "lat", "lon", "access_capacity_gbps", "access_latency_ms", "fpga"});
        WanCity c;
        c.id = r.Member(cities[i], p, "id", Json::value_t::string).get<std::string>();
        if (c.id.empty() || c.id.find_first_of(" \t/:>-") != std::string::npos)
        {
            r.Fail(p + ".id",
                   "must be a non-empty id without spaces, '/', ':', '-' or '>' (got '" + c.id +
                       "'): ids name nodes and directed links such as 'nyc->chi'");
        }
        if (t.m_index.count(c.id))
        {
            r.Fail(p + ".id",
                   "duplicate city id '" + c.id + "' (first at $.cities[" +
                       std::to_string(t.m_index[c.id]) + "])");
        }
        c.name = cities[i].contains("name")
                     ? r.Member(cities[i], p, "name", Json::value_t::string).get<std::string>()
                     : c.id;
        if (cities[i].contains("lat"))
        {
            c.latitude = r.Number(cities[i], p, "lat");
        }
        if (cities[i].contains("lon"))
        {
            c.longitude = r.Number(cities[i], p, "lon");
        }
        c.accessCapacityGbps = cities[i].contains("access_capacity_gbps")
                                   ? r.Capacity(cities[i], p, "access_capacity_gbps")
                                   : accessGbps;
        c.accessLatencyMs = cities[i].contains("access_latency_ms")
                                ? r.Latency(cities[i], p, "access_latency_ms", true)
                                : accessMs;
        if (cities[i].contains("fpga"))
        {
            const Json& fpga = cities[i]["fpga"];
            if (!fpga.is_boolean())
            {
                r.Fail(p + ".fpga",
                       "must be a boolean, whether the router of city '" + c.id +
                           "' has an FPGA (got " + JsonReader::TypeName(fpga) + ")");
            }
            listedFpga[i] = fpga.get<bool>();
        }
        t.m_index[c.id] = t.m_cities.size();
        t.m_cities.push_back(c);
    }

    // An optional link between two cities that are already linked is an alternative for that
    // pair: it replaces the default link's numbers (e.g. DoubleZero's 100 Gbps nyc-lon link).
    auto readLinks = [&](const Json& links, const std::string& base, bool optional) {
        std::set<std::pair<uint32_t, uint32_t>> seen;
        for (std::size_t i = 0; i < links.size(); ++i)
        {
            std::string p = base + "[" + std::to_string(i) + "]";
            r.CheckType(links[i], p, Json::value_t::object);
            r.OnlyKeys(links[i],
                       p,
                       {"a", "b", "latency_ms", "capacity_gbps", "mtu_bytes", "source"});
            WanLink l;
            std::string ends[2];
            for (int e = 0; e < 2; ++e)
            {
                std::string key = e == 0 ? "a" : "b";
                ends[e] = r.Member(links[i], p, key, Json::value_t::string).get<std::string>();
                if (!t.m_index.count(ends[e]))
                {
                    r.Fail(p + "." + key, "unknown city '" + ends[e] + "' (not in $.cities)");
                }
            }
            l.a = t.m_index[ends[0]];
            l.b = t.m_index[ends[1]];
            if (l.a == l.b)
            {
                r.Fail(p, "self-loop: both ends are '" + ends[0] + "'");
            }
            l.latencyMs = r.Latency(links[i], p, "latency_ms", false);
            l.capacityGbps = r.Capacity(links[i], p, "capacity_gbps");
            l.mtuBytes =
                links[i].contains("mtu_bytes") ? r.Mtu(links[i], p, "mtu_bytes") : t.m_defaultMtu;
            if (links[i].contains("source"))
            {
                l.source =
                    r.Member(links[i], p, "source", Json::value_t::string).get<std::string>();
            }
            auto existing = t.m_directed.find({l.a, l.b});
            if (optional && existing != t.m_directed.end() && !seen.count({l.a, l.b}))
            {
                // Keep the existing endpoints so the directed-link numbering does not change.
                WanLink& replaced = t.m_links[existing->second / 2];
                replaced.latencyMs = l.latencyMs;
                replaced.capacityGbps = l.capacityGbps;
                replaced.mtuBytes = l.mtuBytes;
                replaced.source = l.source;
                seen.insert({l.a, l.b});
                seen.insert({l.b, l.a});
                continue;
            }
            if (existing != t.m_directed.end())
            {
                r.Fail(p,
                       "duplicate link between '" + ends[0] + "' and '" + ends[1] +
                           "' (links are full duplex: list each pair once)");
            }
            seen.insert({l.a, l.b});
            seen.insert({l.b, l.a});
            uint32_t index = t.m_links.size();
            t.m_directed[{l.a, l.b}] = 2 * index;
            t.m_directed[{l.b, l.a}] = 2 * index + 1;
            t.m_links.push_back(l);
        }
    };

    readLinks(r.Member(doc, "$", "links", Json::value_t::array), "$.links", false);
    if (doc.contains("optional_links"))
    {
        const Json& optional = r.Member(doc, "$", "optional_links", Json::value_t::array);
        if (includeOptionalLinks)
        {
            readLinks(optional, "$.optional_links", true);
        }
    }
    const std::string frameProblem = t.CheckFrameBytes(frameBytes);
    if (!frameProblem.empty())
    {
        r.Fail("$.defaults.frame_bytes", frameProblem);
    }
    t.m_frameBytes = frameBytes;

    if (doc.contains("capabilities"))
    {
        const Json& caps = r.Member(doc, "$", "capabilities", Json::value_t::object);
        r.OnlyKeys(caps, "$.capabilities", {"multicast", "aggregation", "core"});
        if (caps.contains("multicast"))
        {
            t.m_multicast =
                r.Member(caps, "$.capabilities", "multicast", Json::value_t::boolean).get<bool>();
        }
        if (caps.contains("aggregation"))
        {
            t.m_aggregation =
                r.Member(caps, "$.capabilities", "aggregation", Json::value_t::boolean).get<bool>();
        }
        if (caps.contains("core"))
        {
            t.m_core = r.Member(caps, "$.capabilities", "core", Json::value_t::boolean).get<bool>();
            if (t.m_core && !t.m_aggregation)
            {
                r.Fail("$.capabilities.core",
                       "FPGAs on the routers (core) imply the edge FPGAs of aggregation, but "
                       "$.capabilities.aggregation is not true");
            }
        }
    }

    for (std::size_t i = 0; i < t.m_cities.size(); ++i)
    {
        WanCity& c = t.m_cities[i];
        if (listedFpga[i].value_or(false) && !t.m_aggregation)
        {
            r.Fail("$.cities[" + std::to_string(i) + "].fpga",
                   "city '" + c.id +
                       "' has an FPGA, but the topology lacks the aggregation capability "
                       "($.capabilities.aggregation is not true): an FPGA is what aggregates");
        }
        c.fpga = listedFpga[i].value_or(t.m_aggregation);
    }

    t.ComputeRoutes();
    for (uint32_t j = 1; j < t.GetNCities(); ++j)
    {
        if (t.m_routes[0][j].cities.empty())
        {
            r.Fail("$.links",
                   "the graph is disconnected: no path from '" + t.m_cities[0].id + "' to '" +
                       t.m_cities[j].id + "'");
        }
    }
    return t;
}

void
WanTopology::ComputeRoutes()
{
    const uint32_t n = GetNCities();
    std::vector<std::vector<std::pair<uint32_t, double>>> adjacent(n);
    for (uint32_t index = 0; index < m_links.size(); ++index)
    {
        if (IsLinkDown(index))
        {
            continue;
        }
        const WanLink& l = m_links[index];
        adjacent[l.a].emplace_back(l.b, l.latencyMs);
        adjacent[l.b].emplace_back(l.a, l.latencyMs);
    }
    // Lexicographic comparison of city-id sequences (ids, not indices).
    auto idLess = [this](const std::vector<uint32_t>& x, const std::vector<uint32_t>& y) {
        return std::lexicographical_compare(
            x.begin(),
            x.end(),
            y.begin(),
            y.end(),
            [this](uint32_t a, uint32_t b) { return m_cities[a].id < m_cities[b].id; });
    };
    auto better = [&idLess](const Label& x, const Label& y) {
        if (!SameLatency(x.latency, y.latency))
        {
            return x.latency < y.latency;
        }
        if (x.path.size() != y.path.size())
        {
            return x.path.size() < y.path.size();
        }
        return idLess(x.path, y.path);
    };

    m_routes.assign(n, std::vector<WanRoute>(n));
    for (uint32_t s = 0; s < n; ++s)
    {
        // Dijkstra over the composite label; the order is monotone under extension, so every
        // prefix of an optimal route is optimal and label setting is exact.
        std::vector<Label> best(n);
        std::vector<bool> done(n, false);
        best[s].latency = 0;
        best[s].path = {s};
        for (uint32_t step = 0; step < n; ++step)
        {
            int u = -1;
            for (uint32_t v = 0; v < n; ++v)
            {
                if (!done[v] && !best[v].path.empty() && (u < 0 || better(best[v], best[u])))
                {
                    u = v;
                }
            }
            if (u < 0)
            {
                break;
            }
            done[u] = true;
            for (const auto& [v, ms] : adjacent[u])
            {
                if (done[v])
                {
                    continue;
                }
                Label candidate{best[u].latency + ms, best[u].path};
                candidate.path.push_back(v);
                if (best[v].path.empty() || better(candidate, best[v]))
                {
                    best[v] = std::move(candidate);
                }
            }
        }
        for (uint32_t d = 0; d < n; ++d)
        {
            if (d == s || best[d].path.empty())
            {
                continue;
            }
            WanRoute& route = m_routes[s][d];
            route.cities = best[d].path;
            route.links.push_back(GetAccessUpLink(s));
            for (std::size_t h = 0; h + 1 < route.cities.size(); ++h)
            {
                uint32_t link = GetWanDirectedLink(route.cities[h], route.cities[h + 1]);
                route.links.push_back(link);
                route.wanLatencyMs += GetDirectedLinkLatencyMs(link);
            }
            route.links.push_back(GetAccessDownLink(d));
            route.latencyMs =
                m_cities[s].accessLatencyMs + route.wanLatencyMs + m_cities[d].accessLatencyMs;
        }
    }
}

const std::string&
WanTopology::GetName() const
{
    return m_name;
}

const std::string&
WanTopology::GetSourceName() const
{
    return m_source;
}

uint32_t
WanTopology::GetNCities() const
{
    return m_cities.size();
}

const WanCity&
WanTopology::GetCity(uint32_t index) const
{
    return m_cities.at(index);
}

bool
WanTopology::HasCity(const std::string& id) const
{
    return m_index.count(id) != 0;
}

uint32_t
WanTopology::GetCityIndex(const std::string& id) const
{
    auto it = m_index.find(id);
    if (it == m_index.end())
    {
        throw std::out_of_range("unknown city id '" + id + "' in topology " + m_source);
    }
    return it->second;
}

uint32_t
WanTopology::GetNLinks() const
{
    return m_links.size();
}

const WanLink&
WanTopology::GetLink(uint32_t index) const
{
    return m_links.at(index);
}

uint32_t
WanTopology::GetNDirectedLinks() const
{
    return 2 * GetNLinks() + 2 * GetNCities();
}

std::string
WanTopology::GetDirectedLinkName(uint32_t d) const
{
    const uint32_t wan = 2 * GetNLinks();
    if (d < wan)
    {
        const WanLink& l = m_links[d / 2];
        uint32_t from = d % 2 == 0 ? l.a : l.b;
        uint32_t to = d % 2 == 0 ? l.b : l.a;
        return m_cities[from].id + "->" + m_cities[to].id;
    }
    if (d < wan + GetNCities())
    {
        return m_cities[d - wan].id + ":up";
    }
    return m_cities.at(d - wan - GetNCities()).id + ":down";
}

double
WanTopology::GetDirectedLinkCapacityGbps(uint32_t d) const
{
    const uint32_t wan = 2 * GetNLinks();
    if (d < wan)
    {
        return m_links[d / 2].capacityGbps;
    }
    return m_cities.at((d - wan) % GetNCities()).accessCapacityGbps;
}

double
WanTopology::GetDirectedLinkLatencyMs(uint32_t d) const
{
    const uint32_t wan = 2 * GetNLinks();
    if (d < wan)
    {
        return m_links[d / 2].latencyMs;
    }
    return m_cities.at((d - wan) % GetNCities()).accessLatencyMs;
}

bool
WanTopology::IsAccessLink(uint32_t d) const
{
    return d >= 2 * GetNLinks() && d < GetNDirectedLinks();
}

uint32_t
WanTopology::GetWanDirectedLink(uint32_t from, uint32_t to) const
{
    auto it = m_directed.find({from, to});
    if (it == m_directed.end())
    {
        throw std::out_of_range("no WAN link from city " + std::to_string(from) + " to city " +
                                std::to_string(to) + " in topology " + m_source);
    }
    return it->second;
}

uint32_t
WanTopology::GetAccessUpLink(uint32_t city) const
{
    return 2 * GetNLinks() + city;
}

uint32_t
WanTopology::GetAccessDownLink(uint32_t city) const
{
    return 2 * GetNLinks() + GetNCities() + city;
}

const WanRoute&
WanTopology::GetRoute(uint32_t src, uint32_t dst) const
{
    return m_routes.at(src).at(dst);
}

bool
WanTopology::HasRoute(uint32_t src, uint32_t dst) const
{
    return src == dst || !GetRoute(src, dst).cities.empty();
}

WanTopology
WanTopology::WithLinksDown(const std::vector<uint32_t>& downLinks) const
{
    WanTopology t = *this;
    t.m_downLinks.clear();
    for (uint32_t link : downLinks)
    {
        if (link >= m_links.size())
        {
            throw std::out_of_range("no WAN link " + std::to_string(link) + " in topology " +
                                    m_source + " (it has " + std::to_string(m_links.size()) +
                                    " links)");
        }
        t.m_downLinks.push_back(link);
    }
    std::sort(t.m_downLinks.begin(), t.m_downLinks.end());
    t.m_downLinks.erase(std::unique(t.m_downLinks.begin(), t.m_downLinks.end()),
                        t.m_downLinks.end());
    t.ComputeRoutes();
    return t;
}

const std::vector<uint32_t>&
WanTopology::GetDownLinks() const
{
    return m_downLinks;
}

bool
WanTopology::IsLinkDown(uint32_t link) const
{
    return std::binary_search(m_downLinks.begin(), m_downLinks.end(), link);
}

std::vector<std::vector<uint32_t>>
WanTopology::GetComponents() const
{
    std::vector<std::vector<uint32_t>> components;
    std::vector<bool> placed(GetNCities(), false);
    for (uint32_t s = 0; s < GetNCities(); ++s)
    {
        if (placed[s])
        {
            continue;
        }
        std::vector<uint32_t> component;
        for (uint32_t j = s; j < GetNCities(); ++j)
        {
            if (!placed[j] && HasRoute(s, j))
            {
                placed[j] = true;
                component.push_back(j);
            }
        }
        components.push_back(std::move(component));
    }
    return components;
}

bool
WanTopology::HasMulticast() const
{
    return m_multicast;
}

bool
WanTopology::HasAggregation() const
{
    return m_aggregation;
}

bool
WanTopology::HasCore() const
{
    return m_core;
}

bool
WanTopology::HasFpga(uint32_t city) const
{
    return GetCity(city).fpga;
}

std::vector<uint32_t>
WanTopology::GetFpgaCities() const
{
    std::vector<uint32_t> cities;
    for (uint32_t i = 0; i < GetNCities(); ++i)
    {
        if (m_cities[i].fpga)
        {
            cities.push_back(i);
        }
    }
    return cities;
}

uint32_t
WanTopology::GetDefaultMtuBytes() const
{
    return m_defaultMtu;
}

uint32_t
WanTopology::GetFrameBytes() const
{
    return m_frameBytes;
}

uint32_t
WanTopology::GetDeviceMtuBytes(uint32_t mtu) const
{
    return std::max(mtu, m_frameBytes);
}

std::string
WanTopology::CheckFrameBytes(uint32_t frameBytes) const
{
    if (frameBytes == 0)
    {
        return "";
    }
    if (frameBytes > MAX_MTU_BYTES)
    {
        return "a simulation frame of " + std::to_string(frameBytes) +
               " bytes is over the largest IPv4 datagram, " + std::to_string(MAX_MTU_BYTES) +
               " bytes";
    }
    for (const WanLink& link : m_links)
    {
        if (link.mtuBytes != m_defaultMtu)
        {
            return "coarse frames model one wire MTU, but link " + m_cities[link.a].id + "-" +
                   m_cities[link.b].id + " has an MTU of " + std::to_string(link.mtuBytes) +
                   " bytes and defaults.mtu_bytes is " + std::to_string(m_defaultMtu);
        }
    }
    if (frameBytes < m_defaultMtu)
    {
        return "a simulation frame of " + std::to_string(frameBytes) +
               " bytes is smaller than the wire MTU, " + std::to_string(m_defaultMtu) +
               " bytes (use 0 for exact frames)";
    }
    return "";
}

WanTopology
WanTopology::WithFrameBytes(uint32_t frameBytes) const
{
    const std::string problem = CheckFrameBytes(frameBytes);
    if (!problem.empty())
    {
        throw WanConfigError("frameBytes", problem + " (topology " + m_source + ")");
    }
    WanTopology t = *this;
    t.m_frameBytes = frameBytes;
    return t;
}

uint32_t
WanTopology::GetPathMtuBytes(uint32_t src, uint32_t dst) const
{
    uint32_t mtu = m_defaultMtu;
    for (uint32_t d : GetRoute(src, dst).links)
    {
        if (d < 2 * GetNLinks())
        {
            mtu = std::min(mtu, m_links[d / 2].mtuBytes);
        }
    }
    return mtu;
}

const WanRouterQueue&
WanTopology::GetRouterQueue() const
{
    return m_routerQueue;
}

uint32_t
WanTopology::GetPortBufferBytes(uint32_t d) const
{
    return m_routerQueue.GetBufferBytes(GetDirectedLinkCapacityGbps(d));
}

} // namespace ns3
