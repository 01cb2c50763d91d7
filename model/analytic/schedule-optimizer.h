/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef SCHEDULE_OPTIMIZER_H
#define SCHEDULE_OPTIMIZER_H

#include "capability-set.h"
#include "clique-schedule.h"
#include "link-load-model.h"
#include "schedule-metrics.h"
#include "wan-topology.h"

#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

namespace ns3
{

/**
 * @ingroup wan-training
 * @brief Search for the schedule of rotating cliques with the smallest Xi (doc/schedule-model.rst,
 * "Search").
 *
 * For a topology, S, tau_c, a capability mode and overlap, the optimizer minimises Xi
 * (ScheduleMetrics::GetScheduleXi: with overlap, Xi under overlap) over schedules of period
 * P <= maxPeriod:
 * 1. **Round pool.** For N <= 10 every set partition is enumerated (Bell(10) = 115975) and the
 *    three cheapest (by T_comm) of each clique-size profile are kept; beyond, for each clique size
 *    k the latency-regional partition and seeded random partitions of near-equal cliques are
 *    improved to a local optimum of T_comm by swapping islands. Each pool round's "transversal"
 *    (one member of each of its cliques, the Latin construction) joins the pool too.
 * 2. **Seeds.** The all-island clique, every pool round with its transversal (Latin pairs), the
 *    Latin triples for N = 9, and a beam search (width beamWidth) over sequences of pool rounds
 *    of length up to maxPeriod, scored by Xi (non-mixing prefixes by their number of connected
 *    components, then their period).
 * 3. **Local search** from the best distinct seeds: move an island to another clique (or out),
 *    swap two islands, merge two cliques, split one, insert, replace or drop a round; first
 *    improvement in a seeded random order.
 * 4. **Polish**: best improvement over moves and swaps until a local optimum.
 *
 * Everything random draws from one std::mt19937_64 seeded with `seed`, and the budget is a
 * count of Xi evaluations, never wall time: the result is deterministic for a given seed.
 * The baselines (all-reduce, round-robin pairs, Latin triples for N = 9) are evaluated under
 * the same settings; should one beat the search (round-robin pairs may have a period above
 * maxPeriod), it is returned and named as such, so the result is never worse than them.
 *
 * In tree mode every clique the optimizer can return is a tree clique
 * (LinkLoadModel::FindRouterWithoutFpga): a clique's in-tree crosses its members' own routers,
 * so every clique is a tree clique when every city has an FPGA, and an island without one is
 * in none; the constructor refuses tree mode on a topology where some city has no FPGA (no
 * schedule of tree cliques mixes there).
 */
class ScheduleOptimizer
{
  public:
    /** Search options. */
    struct Options
    {
        uint32_t maxPeriod{4};          //!< the largest period P (>= 1)
        uint64_t seed{1};               //!< seed of every random choice
        uint32_t beamWidth{8};          //!< beam width of the seed search
        uint32_t localSearchStarts{3};  //!< distinct seeds the local search starts from
        uint64_t maxEvaluations{60000}; //!< budget of Xi evaluations (>= 1)
    };

    /** A named schedule and its Xi. */
    struct Candidate
    {
        std::string name;        //!< where it comes from
        CliqueSchedule schedule; //!< the schedule
        double xiS;              //!< its Xi under the optimizer's settings
    };

    /** The outcome of a search. */
    struct Result
    {
        CliqueSchedule schedule;                //!< the best schedule found
        std::string origin;                     //!< "search" or the name of the baseline
        ScheduleMetrics::Evaluation evaluation; //!< its metrics
        std::vector<Candidate> baselines;       //!< the baselines under the same settings
        uint64_t evaluations{0};                //!< Xi evaluations spent
    };

    /**
     * @brief Set up a search.
     * @param topology the topology (at most 64 islands)
     * @param settings S, tau_c, overlap, eps
     * @param mode the capability mode
     * @param options the search options
     * @throws WanInputError when the topology has more than 64 islands or an option is out of
     * range
     * @throws WanConfigError (field `fpga`) in tree mode when a city has no FPGA, naming them
     */
    ScheduleOptimizer(const WanTopology& topology,
                      const ScheduleMetrics::Settings& settings,
                      CapabilityMode mode,
                      const Options& options);

    /**
     * @brief Run the search.
     * @return the best schedule, its metrics and the baselines
     */
    Result Optimize();

    /**
     * @brief The best schedule for a capability set, as far as the search goes today: the
     * optimum of every single algorithm the set allows (each its own search, same settings,
     * seed and budget), the best of them with that algorithm on every clique of two or more
     * members. So it is never worse than any of those modes, and a larger set's never worse
     * than a smaller one's. Cliques of one schedule do not mix algorithms yet (issue 21: a
     * move that changes one clique's algorithm).
     *
     * Tree is left out where the topology cannot run it everywhere (a city without an FPGA).
     * @param topology the topology
     * @param settings S, tau_c, overlap, eps
     * @param set the capability set
     * @param options the search options (every mode's search)
     * @return the best: origin names the search and the algorithm ("search, ring"),
     *         evaluations sums every search's
     */
    static Result OptimizeSet(const WanTopology& topology,
                              const ScheduleMetrics::Settings& settings,
                              const CapabilitySet& set,
                              const Options& options);

    /**
     * @param schedule a schedule on the topology's islands
     * @return its Xi under the optimizer's settings and mode
     */
    double GetXi(const CliqueSchedule& schedule);

    /** @return the baselines: all-reduce, round-robin pairs, and Latin triples when N = 9 */
    std::vector<Candidate> GetBaselines();

    /**
     * @param schedule a schedule
     * @return its clique-size profile, e.g. "3+3+3 | 9" (singletons as 1, rounds by " | ")
     */
    static std::string GetProfile(const CliqueSchedule& schedule);

  private:
    /** A clique as a bit mask of islands. */
    using Mask = uint64_t;
    /** A round: the masks of its cliques of two or more islands, sorted. */
    using MaskRound = std::vector<Mask>;
    /** A schedule of mask rounds. */
    using MaskSchedule = std::vector<MaskRound>;

    /** The cost of one clique, cached. */
    struct CliqueCost
    {
        double latencyS;                                //!< Lat(C) (0 for a ring)
        std::vector<std::pair<uint32_t, double>> links; //!< seconds per loaded directed link
        ScheduleMetrics::RingHops ring;                 //!< a ring's hops (empty otherwise)
    };

    /** A scored schedule. */
    struct Scored
    {
        MaskSchedule schedule; //!< the schedule
        double xiS;            //!< its Xi (infinity when it does not mix)
    };

    /**
     * @param mask a clique
     * @return its cached cost
     */
    const CliqueCost& GetCliqueCost(Mask mask);
    /**
     * @param round a round
     * @return its T_comm, cached
     */
    double GetCommS(const MaskRound& round);
    /**
     * @param round a round
     * @return its T_comm as ScheduleMetrics::GetRoundCost defines it, from the cached clique
     * costs (the round itself is not cached)
     */
    double ComputeCommS(const MaskRound& round);
    /**
     * @param schedule a schedule
     * @return its Xi, cached; counts an evaluation when it is new
     */
    double Score(const MaskSchedule& schedule);
    /**
     * @param round a round, made canonical in place (singletons dropped, masks sorted)
     */
    static void Canonical(MaskRound& round);
    /**
     * @param groups cliques as member lists (singletons allowed)
     * @return the canonical mask round
     */
    static MaskRound ToMaskRound(const CliqueSchedule::Round& groups);
    /**
     * @param round a mask round
     * @return it as cliques of island indices
     */
    CliqueSchedule::Round ToRound(const MaskRound& round) const;
    /**
     * @param schedule a mask schedule
     * @return it as a CliqueSchedule
     */
    CliqueSchedule ToSchedule(const MaskSchedule& schedule) const;
    /**
     * @param groups a partition as member lists (every island listed once)
     * @param sameGroup when not empty, only islands with equal entries may swap
     * @return the partition after swapping islands while that lowers T_comm
     */
    CliqueSchedule::Round ImproveBySwaps(CliqueSchedule::Round groups,
                                         const std::vector<uint32_t>& sameGroup);
    /**
     * @param groups a partition as member lists
     * @return its transversal: clique t holds member t of every group
     */
    static CliqueSchedule::Round Transversal(const CliqueSchedule::Round& groups);
    /** Build the round pool. */
    void BuildPool();
    /**
     * @return the seed schedules (all-island, Latin pairs of the pool, beam search)
     */
    std::vector<Scored> Seeds();
    /**
     * @param schedule a schedule
     * @param polish whether to restrict to moves and swaps, best improvement
     * @return the local optimum reached
     */
    Scored LocalSearch(Scored schedule, bool polish);
    /**
     * @param schedule a schedule
     * @param polish whether to list only moves and swaps
     * @return its neighbours
     */
    std::vector<MaskSchedule> Neighbours(const MaskSchedule& schedule, bool polish);
    /**
     * @param a a scored schedule
     * @param b another
     * @return whether a ranks first: smaller Xi, then shorter period, then mask order
     */
    static bool Better(const Scored& a, const Scored& b);
    /** @return the clique of every island */
    Mask AllIslands() const;
    /** @return whether the evaluation budget is spent */
    bool Exhausted() const;

    WanTopology m_topology;                         //!< the topology
    ScheduleMetrics m_metrics;                      //!< the evaluator
    CapabilityMode m_mode;                          //!< the mode
    Options m_options;                              //!< the options
    uint32_t m_n;                                   //!< number of islands
    std::vector<double> m_capacityBps;              //!< per directed link
    std::mt19937_64 m_random;                       //!< every random choice
    std::unordered_map<Mask, CliqueCost> m_cliques; //!< clique cost cache
    std::map<MaskRound, double> m_rounds;           //!< T_comm cache
    std::map<MaskSchedule, double> m_scores;        //!< Xi cache
    std::vector<MaskRound> m_pool;                  //!< the round pool
    std::vector<double> m_scratch;                  //!< per-link seconds of a round
    uint64_t m_evaluations{0};                      //!< Xi evaluations so far
};

} // namespace ns3

#endif /* SCHEDULE_OPTIMIZER_H */
