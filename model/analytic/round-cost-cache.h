/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef ROUND_COST_CACHE_H
#define ROUND_COST_CACHE_H

#include "capability-mode.h"
#include "clique-schedule.h"
#include "schedule-metrics.h"

#include <cstdint>
#include <map>
#include <unordered_map>
#include <utility>
#include <vector>

namespace ns3
{

/** @ingroup wan-training
 *  A set of islands as a bit mask (island i is bit i; at most 64 islands). */
using IslandMask = uint64_t;

/**
 * @ingroup wan-training
 * @param mask a set of islands
 * @return how many islands it holds
 */
inline uint32_t
CountIslands(IslandMask mask)
{
    return static_cast<uint32_t>(__builtin_popcountll(mask));
}

/**
 * @ingroup wan-training
 * @brief A clique of the schedule search (ScheduleOptimizer): its islands and its exchange
 * algorithm.
 */
struct MaskClique
{
    IslandMask members;       //!< the islands
    CapabilityMode algorithm; //!< its algorithm (meaningless for fewer than two members)

    /**
     * @param other another clique
     * @return whether this one sorts first: by members, then algorithm
     */
    bool operator<(const MaskClique& other) const;
    /**
     * @param other another clique
     * @return whether both have the same members and algorithm
     */
    bool operator==(const MaskClique& other) const;
};

/** @ingroup wan-training
 *  A round of the search: its cliques of two or more islands, sorted (RoundCostCache::Canonical).
 */
using MaskRound = std::vector<MaskClique>;
/** @ingroup wan-training
 *  A schedule of the search: its rounds in order. */
using MaskSchedule = std::vector<MaskRound>;

/**
 * @ingroup wan-training
 * @brief The schedule search's cost of cliques and rounds (doc/schedule-model.rst, "Time" and
 * "Time of a mixed round"), computed once and cached: per clique under its algorithm its
 * latency, its seconds on every directed link it loads and a ring's hops; per round its T_comm,
 * exactly as ScheduleMetrics::GetRoundCost defines it. Also which algorithm a clique can run
 * (tree: only a tree clique) and which of the allowed ones serves it best alone.
 */
class RoundCostCache
{
  public:
    /**
     * @param metrics the schedule model (S, the topology's links; must outlive the cache)
     * @param algorithms the algorithms a clique may use (a forced mode alone, or a set's)
     */
    RoundCostCache(const ScheduleMetrics& metrics, std::vector<CapabilityMode> algorithms);

    /**
     * @param clique a clique
     * @return whether it can use its algorithm (tree: only a tree clique,
     *         LinkLoadModel::FindRouterWithoutFpga)
     */
    bool CanRun(const MaskClique& clique);
    /**
     * @param members a clique's islands (two or more)
     * @return the allowed algorithm it can use with the smallest T_comm alone (ties: the first
     *         in the allowed order); with one algorithm allowed, that one
     */
    CapabilityMode GetBestAlgorithm(IslandMask members);
    /**
     * @param round a round, made canonical in place: a clique that cannot run its algorithm
     *        takes GetBestAlgorithm, then Canonical
     */
    void Fit(MaskRound& round);
    /**
     * @param round a round
     * @return its T_comm, cached
     */
    double GetCommS(const MaskRound& round);
    /**
     * @param round a round
     * @return its T_comm as ScheduleMetrics::GetRoundCost defines it for a mixed round, from
     *         the cached clique costs (the round itself is not cached: for rounds looked at
     *         once)
     */
    double ComputeCommS(const MaskRound& round);

    /**
     * @param round a round, made canonical in place (singletons dropped, cliques sorted)
     */
    static void Canonical(MaskRound& round);
    /**
     * @param mask a set of islands
     * @return its island indices, increasing
     */
    static CliqueSchedule::Clique GetMembers(IslandMask mask);

  private:
    /** The hash of a MaskClique, for the clique cache. */
    struct MaskCliqueHash
    {
        /**
         * @param clique a clique
         * @return its hash
         */
        std::size_t operator()(const MaskClique& clique) const;
    };

    /** The cost of one clique under its algorithm. */
    struct CliqueCost
    {
        double latencyS;                                //!< Lat(C) (0 for a ring)
        std::vector<std::pair<uint32_t, double>> links; //!< seconds per loaded directed link
        ScheduleMetrics::RingHops ring;                 //!< a ring's hops (empty otherwise)
        bool runs;                                      //!< false for a tree across a router
                                                        //!< without an FPGA
    };

    /**
     * @param clique a clique
     * @return its cached cost
     */
    const CliqueCost& GetCliqueCost(const MaskClique& clique);

    const ScheduleMetrics& m_metrics;         //!< the schedule model
    std::vector<CapabilityMode> m_algorithms; //!< what a clique may use
    std::vector<double> m_capacityBps;        //!< per directed link
    std::vector<double> m_scratch;            //!< per-link seconds of a round (zero between)
    std::unordered_map<MaskClique, CliqueCost, MaskCliqueHash> m_cliques; //!< clique costs
    std::unordered_map<IslandMask, CapabilityMode> m_best; //!< GetBestAlgorithm cache
    std::map<MaskRound, double> m_rounds;                  //!< T_comm cache
};

} // namespace ns3

#endif /* ROUND_COST_CACHE_H */
