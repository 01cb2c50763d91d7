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

} // namespace ns3
