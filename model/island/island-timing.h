/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef ISLAND_TIMING_H
#define ISLAND_TIMING_H

#include "ns3/nstime.h"

namespace ns3
{

/**
 * @ingroup wan-training
 * @brief How the island's collaborators turn exact send times (seconds, as doubles) into
 * simulator delays: always rounded up to the nanosecond, so that nothing is early.
 */
class IslandTiming
{
  public:
    /**
     * @param seconds a delay in seconds (non-positive: none)
     * @return the delay rounded up to the next nanosecond (never early)
     */
    static Time CeilNanoSeconds(double seconds);
};

} // namespace ns3

#endif /* ISLAND_TIMING_H */
