/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "island-timing.h"

#include <cmath>
#include <cstdint>

namespace ns3
{

Time
IslandTiming::CeilNanoSeconds(double seconds)
{
    if (seconds <= 0)
    {
        return Time(0);
    }
    return NanoSeconds(static_cast<int64_t>(std::ceil(seconds * 1e9)));
}

Time
IslandTiming::GetRoundTripTime(const WanTopology& topology, uint32_t a, uint32_t b)
{
    const double ms = topology.GetRoute(a, b).latencyMs + topology.GetRoute(b, a).latencyMs;
    return CeilNanoSeconds(ms * 1e-3);
}

} // namespace ns3
