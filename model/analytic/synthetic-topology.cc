/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "synthetic-topology.h"

#include "ns3/log.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <random>
#include <set>
#include <sstream>
#include <vector>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("WanTrainingSyntheticTopology");

namespace
{

/** A world region centre. */
struct Region
{
    const char* name; //!< region name
    double lat;       //!< degrees north
    double lon;       //!< degrees east
};

/** The fixed region centres, in the order they are used. */
const Region REGIONS[] = {{"North America", 40, -95},
                          {"Europe", 50, 10},
                          {"East Asia", 35, 125},
                          {"South-East Asia", 5, 105},
                          {"South America", -15, -55},
                          {"Oceania", -30, 145},
                          {"Africa", 0, 20},
                          {"Middle East", 25, 50}};

/** Route factor over the great circle. */
constexpr double ROUTE_FACTOR = 1.5;
/** Signal speed in fibre, km per ms (2/3 c). */
constexpr double KM_PER_MS = 199.8616;
/** Mean Earth radius in km. */
constexpr double EARTH_RADIUS_KM = 6371.0;

/**
 * @param random the generator
 * @return a uniform number in [0, 1), from the top 53 bits of one draw
 */
double
Uniform(std::mt19937_64& random)
{
    return static_cast<double>(random() >> 11) * 0x1.0p-53;
}

/**
 * @param value a number
 * @param option its name
 * @param positive whether it must be > 0 (else >= 0)
 */
void
CheckFinite(double value, const std::string& option, bool positive)
{
    if (!std::isfinite(value) || value < 0 || (positive && value == 0))
    {
        std::ostringstream reason;
        reason << "must be a " << (positive ? "positive" : "non-negative") << " finite number (got "
               << value << ")";
        throw WanInputError("<synthetic>", option, reason.str());
    }
}

} // namespace

std::string
SyntheticTopology::GenerateJson(const Options& options)
{
    if (options.islands < 2 || options.islands > 999)
    {
        throw WanInputError("<synthetic>",
                            "islands",
                            "must lie between 2 and 999 (got " + std::to_string(options.islands) +
                                ")");
    }
    if (options.regions < 1 || options.regions > 8)
    {
        throw WanInputError("<synthetic>",
                            "regions",
                            "must lie between 1 and 8 (got " + std::to_string(options.regions) +
                                ")");
    }
    CheckFinite(options.intraCapacityGbps, "intraCapacityGbps", true);
    CheckFinite(options.interCapacityGbps, "interCapacityGbps", true);
    CheckFinite(options.accessCapacityGbps, "accessCapacityGbps", true);
    CheckFinite(options.accessLatencyMs, "accessLatencyMs", false);

    const uint32_t n = options.islands;
    const uint32_t regions = std::min(options.regions, n);
    std::mt19937_64 random(options.seed);
    std::vector<double> lat(n);
    std::vector<double> lon(n);
    std::vector<uint32_t> region(n);
    for (uint32_t i = 0; i < n; ++i)
    {
        region[i] = i % regions;
        lat[i] = REGIONS[region[i]].lat + (2 * Uniform(random) - 1) * 8;
        lon[i] = REGIONS[region[i]].lon + (2 * Uniform(random) - 1) * 15;
    }
    auto latencyMs = [&](uint32_t a, uint32_t b) {
        const double rad = M_PI / 180;
        double dLat = (lat[b] - lat[a]) * rad;
        double dLon = (lon[b] - lon[a]) * rad;
        double h = std::sin(dLat / 2) * std::sin(dLat / 2) +
                   std::cos(lat[a] * rad) * std::cos(lat[b] * rad) * std::sin(dLon / 2) *
                       std::sin(dLon / 2);
        double km = 2 * EARTH_RADIUS_KM * std::asin(std::min(1.0, std::sqrt(h)));
        return std::max(0.1, std::round(km * ROUTE_FACTOR / KM_PER_MS * 1000) / 1000);
    };
    // (a, b) with a < b -> capacity.
    std::set<std::pair<uint32_t, uint32_t>> intra;
    std::set<std::pair<uint32_t, uint32_t>> inter;
    auto edge = [](uint32_t a, uint32_t b) {
        return std::make_pair(std::min(a, b), std::max(a, b));
    };
    for (uint32_t r = 0; r < regions; ++r)
    {
        std::vector<uint32_t> members;
        for (uint32_t i = r; i < n; i += regions)
        {
            members.push_back(i);
        }
        // Prim's minimum spanning tree from the first member.
        std::vector<bool> in(members.size(), false);
        in[0] = true;
        for (std::size_t added = 1; added < members.size(); ++added)
        {
            double best = 0;
            std::pair<uint32_t, uint32_t> chosen{0, 0};
            bool found = false;
            for (std::size_t x = 0; x < members.size(); ++x)
            {
                for (std::size_t y = 0; y < members.size() && in[x]; ++y)
                {
                    if (!in[y] && (!found || latencyMs(members[x], members[y]) < best))
                    {
                        best = latencyMs(members[x], members[y]);
                        chosen = {static_cast<uint32_t>(x), static_cast<uint32_t>(y)};
                        found = true;
                    }
                }
            }
            in[chosen.second] = true;
            intra.insert(edge(members[chosen.first], members[chosen.second]));
        }
        // Each city's nearest neighbour in its region.
        for (uint32_t a : members)
        {
            uint32_t nearest = a;
            for (uint32_t b : members)
            {
                if (b != a && (nearest == a || latencyMs(a, b) < latencyMs(a, nearest)))
                {
                    nearest = b;
                }
            }
            if (nearest != a)
            {
                intra.insert(edge(a, nearest));
            }
        }
    }
    for (uint32_t r = 0; regions > 1 && r < (regions == 2 ? 1 : regions); ++r)
    {
        uint32_t s = (r + 1) % regions;
        std::pair<uint32_t, uint32_t> closest{n, n};
        for (uint32_t a = r; a < n; a += regions)
        {
            for (uint32_t b = s; b < n; b += regions)
            {
                if (closest.first == n ||
                    latencyMs(a, b) < latencyMs(closest.first, closest.second))
                {
                    closest = {a, b};
                }
            }
        }
        inter.insert(edge(closest.first, closest.second));
    }

    std::ostringstream json;
    json << std::setprecision(10);
    json << "{\n  \"name\": \"synthetic-" << n << "-seed-" << options.seed << "\",\n"
         << "  \"description\": \"Synthetic WAN from SyntheticTopology (" << n << " islands, "
         << regions << " regions, seed " << options.seed << "): not a real network.\",\n"
         << "  \"defaults\": {\"mtu_bytes\": 9000, \"island_access\": {\"capacity_gbps\": "
         << options.accessCapacityGbps << ", \"latency_ms\": " << options.accessLatencyMs
         << "}},\n  \"cities\": [\n";
    for (uint32_t i = 0; i < n; ++i)
    {
        json << "    {\"id\": \"c" << std::setw(n > 99 ? 3 : 2) << std::setfill('0') << i
             << std::setfill(' ') << std::setw(0) << "\", \"name\": \"Synthetic city " << i << " ("
             << REGIONS[region[i]].name << ")\", \"lat\": " << lat[i] << ", \"lon\": " << lon[i]
             << "}" << (i + 1 < n ? "," : "") << "\n";
    }
    json << "  ],\n  \"links\": [\n";
    bool first = true;
    auto link = [&](const std::pair<uint32_t, uint32_t>& e, double capacity, const char* source) {
        json << (first ? "" : ",\n") << "    {\"a\": \"c" << std::setw(n > 99 ? 3 : 2)
             << std::setfill('0') << e.first << "\", \"b\": \"c" << std::setw(n > 99 ? 3 : 2)
             << e.second << std::setfill(' ') << std::setw(0)
             << "\", \"latency_ms\": " << latencyMs(e.first, e.second)
             << ", \"capacity_gbps\": " << capacity << ", \"source\": \"" << source << "\"}";
        first = false;
    };
    for (const auto& e : intra)
    {
        link(e, options.intraCapacityGbps, "synthetic intra-region");
    }
    for (const auto& e : inter)
    {
        if (!intra.count(e))
        {
            link(e, options.interCapacityGbps, "synthetic inter-region");
        }
    }
    json << "\n  ],\n  \"capabilities\": {\"multicast\": true, \"aggregation\": true, \"core\": "
            "true}\n}\n";
    return json.str();
}

WanTopology
SyntheticTopology::Generate(const Options& options)
{
    std::string name =
        "synthetic-" + std::to_string(options.islands) + "-seed-" + std::to_string(options.seed);
    return WanTopology::Parse(GenerateJson(options), name);
}

} // namespace ns3
