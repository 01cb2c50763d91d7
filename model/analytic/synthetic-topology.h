/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef SYNTHETIC_TOPOLOGY_H
#define SYNTHETIC_TOPOLOGY_H

#include "wan-topology.h"

#include <cstdint>
#include <string>

namespace ns3
{

/**
 * @ingroup wan-training
 * @brief A seeded generator of N-island WAN topologies, for scaling the optimizer.
 *
 * The generator is deterministic for a seed on every platform (it draws from std::mt19937_64,
 * whose sequence the standard fixes, and maps draws to numbers itself):
 * 1. **Regions.** The first `regions` of eight fixed world region centres (North America,
 *    Europe, East Asia, South-East Asia, South America, Oceania, Africa, Middle East).
 * 2. **Cities.** City i (id `cNN`, zero-padded so ids sort like indices) lies in region
 *    i mod regions, at the centre plus a uniform offset of up to +-8 degrees of latitude and
 *    +-15 degrees of longitude.
 * 3. **Latency.** Great-circle distance x 1.5 (route factor) / 199.8616 km per ms (2/3 c),
 *    rounded to 1 us, at least 0.1 ms.
 * 4. **Links.** Inside a region: a minimum spanning tree by distance, plus each city's link to
 *    its nearest neighbour in the region, at `intraCapacityGbps`. Between regions r and r+1
 *    (mod regions, a ring of regions): the closest pair of their cities, at
 *    `interCapacityGbps`. The graph is therefore connected.
 * 5. **Islands.** Every island's access link has `accessCapacityGbps` and `accessLatencyMs`
 *    (the JSON `defaults.island_access`); multicast and aggregation capabilities are on.
 *
 * WanTopology is only built by parsing, so the generator writes the JSON text and parses it.
 */
class SyntheticTopology
{
  public:
    /** The generator's knobs. */
    struct Options
    {
        uint32_t islands{32};           //!< number of cities (= islands), >= 2
        uint64_t seed{1};               //!< seed of the city positions
        uint32_t regions{4};            //!< number of regions, 1 to 8
        double intraCapacityGbps{400};  //!< capacity of links inside a region
        double interCapacityGbps{100};  //!< capacity of links between regions
        double accessCapacityGbps{100}; //!< island access capacity
        double accessLatencyMs{0.05};   //!< island access latency
    };

    /**
     * @param options the knobs
     * @return the topology as JSON text in WanTopology's format
     * @throws WanInputError (source `<synthetic>`) when a knob is out of range
     */
    static std::string GenerateJson(const Options& options);

    /**
     * @param options the knobs
     * @return the parsed topology, named `synthetic-N-seed-K`
     */
    static WanTopology Generate(const Options& options);
};

} // namespace ns3

#endif /* SYNTHETIC_TOPOLOGY_H */
