/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef TEST_UTILS_H
#define TEST_UTILS_H

#include "wan-topology.h"

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

/**
 * @file
 * @ingroup wan-training-tests
 * Small utilities shared by the GoogleTest cases: reading a file, an inline topology and the
 * city ids of a route.
 */

namespace ns3
{

/**
 * @ingroup wan-training-tests
 * @param path a file
 * @return its whole content (empty when it cannot be read)
 */
inline std::string
ReadTextFile(const std::string& path)
{
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

/**
 * @ingroup wan-training-tests
 * @brief A topology from inline JSON, with an MTU of 1500 bytes and the given island access.
 * @param accessCapacityGbps capacity of every island's access links
 * @param accessLatencyMs latency of every island's access links
 * @param cities the JSON array of the cities
 * @param links the JSON array of the links
 * @param capabilities the JSON object of the capabilities (none when empty)
 * @return the parsed topology (source name "inline")
 */
inline WanTopology
ParseInlineTopology(double accessCapacityGbps,
                    double accessLatencyMs,
                    const std::string& cities,
                    const std::string& links,
                    const std::string& capabilities = "")
{
    std::ostringstream json;
    json << R"({"defaults": {"mtu_bytes": 1500,
        "island_access": {"capacity_gbps": )"
         << accessCapacityGbps << R"(, "latency_ms": )" << accessLatencyMs << R"(}}, "cities": )"
         << cities << R"(, "links": )" << links;
    if (!capabilities.empty())
    {
        json << R"(, "capabilities": )" << capabilities;
    }
    json << "}";
    return WanTopology::Parse(json.str(), "inline");
}

/**
 * @ingroup wan-training-tests
 * @param topology a topology
 * @param cities city indices, e.g. the cities of a route
 * @return their ids, in the same order
 */
inline std::vector<std::string>
GetCityIds(const WanTopology& topology, const std::vector<uint32_t>& cities)
{
    std::vector<std::string> ids;
    for (uint32_t c : cities)
    {
        ids.push_back(topology.GetCity(c).id);
    }
    return ids;
}

} // namespace ns3

#endif /* TEST_UTILS_H */
