/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef ISLAND_TIMING_H
#define ISLAND_TIMING_H

#include "wan-topology.h"

#include "ns3/nstime.h"

#include <cstdint>

namespace ns3
{

/**
 * @ingroup wan-training
 * @brief How the island's collaborators turn exact send times (seconds, as doubles) into
 * simulator delays: always rounded up to the nanosecond, so that nothing is early; and the
 * round-trip times their timers wait for.
 */
class IslandTiming
{
  public:
    /**
     * @param seconds a delay in seconds (non-positive: none)
     * @return the delay rounded up to the next nanosecond (never early)
     */
    static Time CeilNanoSeconds(double seconds);
    /**
     * @param topology the topology
     * @param a an island
     * @param b another island
     * @return the round-trip time between them: the latencies of the routes a -> b and b -> a,
     *         rounded up to the nanosecond
     */
    static Time GetRoundTripTime(const WanTopology& topology, uint32_t a, uint32_t b);
};

} // namespace ns3

#endif /* ISLAND_TIMING_H */
