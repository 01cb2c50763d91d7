/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef SCHEDULE_NEIGHBOURHOOD_H
#define SCHEDULE_NEIGHBOURHOOD_H

#include "capability-mode.h"
#include "link-load-model.h"
#include "round-cost-cache.h"

#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * @ingroup wan-training
 * @brief The moves of the schedule search's local search (doc/schedule-model.rst, "Search"):
 * every schedule one move away from a given one.
 *
 * Per round: move an island to another clique or out of its own, swap two islands of two
 * cliques, change one clique's algorithm to another allowed one it can run; and, outside the
 * polish, merge two cliques (under either's algorithm), split one in two around its farthest
 * pair, replace the round by a pool round or drop it, and insert a pool round anywhere while
 * the period stays within the largest. A clique a move creates from idle islands takes the
 * algorithm of the clique its island left, or, from two idle islands, the one that serves them
 * best (RoundCostCache::GetBestAlgorithm); every new round is fitted
 * (RoundCostCache::Fit).
 */
class ScheduleNeighbourhood
{
  public:
    /**
     * @param nIslands the number of islands
     * @param algorithms the algorithms a clique may use (a forced mode alone, or a set's)
     * @param costs the search's cost cache (must outlive this object)
     * @param links the topology's load model: route latencies for the split
     *        (must outlive this object)
     */
    ScheduleNeighbourhood(uint32_t nIslands,
                          std::vector<CapabilityMode> algorithms,
                          RoundCostCache& costs,
                          const LinkLoadModel& links);

    /**
     * @param schedule a schedule
     * @param polish whether to list only moves, swaps and algorithm changes
     * @param pool the round pool (rounds to replace or insert)
     * @param maxPeriod the largest period
     * @return its neighbours, in a fixed order
     */
    std::vector<MaskSchedule> Get(const MaskSchedule& schedule,
                                  bool polish,
                                  const std::vector<MaskRound>& pool,
                                  uint32_t maxPeriod);

  private:
    uint32_t m_n;                             //!< number of islands
    std::vector<CapabilityMode> m_algorithms; //!< what a clique may use
    RoundCostCache& m_costs;                  //!< fits new rounds, picks algorithms
    const LinkLoadModel& m_links;             //!< route latencies
};

} // namespace ns3

#endif /* SCHEDULE_NEIGHBOURHOOD_H */
