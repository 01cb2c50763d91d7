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
#include "round-cost-cache.h"
#include "schedule-metrics.h"
#include "schedule-neighbourhood.h"
#include "wan-topology.h"

#include <cstdint>
#include <map>
#include <optional>
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
 * For a topology, S, tau_c, a forced capability mode or a capability set, and overlap, the
 * optimizer minimises Xi (ScheduleMetrics::GetScheduleXi: with overlap, Xi under overlap) over
 * schedules of period P <= maxPeriod. Every clique of the search carries its exchange
 * algorithm; under a forced mode it is that mode for every clique.
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
 *    swap two islands, merge two cliques, split one, change one clique's algorithm, insert,
 *    replace or drop a round; first improvement in a seeded random order.
 * 4. **Polish**: best improvement over moves, swaps and algorithm changes until a local optimum.
 *
 * For a capability set (the second constructor) Optimize searches in three steps, each once
 * per call: the optimum of every single algorithm the set allows (a forced-mode search with
 * the same options), the optimum of every smaller set (CapabilitySet::GetSmallerSets, the same
 * way), then a local search over schedules whose cliques pick their algorithms, seeded with all
 * of those optima; its round pool is the union of the single-mode pools and the seeds' rounds.
 * A clique a move creates takes the algorithm of the clique its island came from (a merge: each
 * of the two), or, made of idle islands, the algorithm that times it alone fastest; a clique
 * that cannot run tree (LinkLoadModel::FindRouterWithoutFpga) never takes it. The result is the
 * best of the search and its seeds by ScheduleMetrics::Evaluate, so it is never worse than any
 * of them.
 *
 * Everything random draws from one std::mt19937_64 seeded with `seed`, and the budget is a
 * count of Xi evaluations, never wall time: the result is deterministic for a given seed.
 * The baselines (all-reduce, round-robin pairs, Latin triples for N = 9) are evaluated under
 * the same settings; should one beat a forced-mode search (round-robin pairs may have a period
 * above maxPeriod), it is returned and named as such, so the result is never worse than them.
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
        uint64_t maxEvaluations{60000}; //!< budget of Xi evaluations of each search (>= 1)
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
        std::string origin;                     //!< "search", a baseline's name, or for a set
                                                //!< the seed or "mixed search (set)"
        ScheduleMetrics::Evaluation evaluation; //!< its metrics
        std::vector<Candidate> baselines;       //!< the baselines under the same settings
        uint64_t evaluations{0};                //!< Xi evaluations spent
    };

    /**
     * @brief Set up a search under a forced mode: every clique uses it.
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
     * @brief Set up a search for a capability set: every clique picks an algorithm the set
     * allows (tree only where the clique is a tree clique).
     * @param topology the topology (at most 64 islands)
     * @param settings S, tau_c, overlap, eps
     * @param set the capability set
     * @param options the options of each of its searches
     * @throws WanInputError when the topology has more than 64 islands or an option is out of
     * range
     */
    ScheduleOptimizer(const WanTopology& topology,
                      const ScheduleMetrics::Settings& settings,
                      const CapabilitySet& set,
                      const Options& options);

    /** The cost cache and the moves refer to the optimizer's own evaluator: no copies. */
    ScheduleOptimizer(const ScheduleOptimizer&) = delete;
    /** @return nothing: no assignment either */
    ScheduleOptimizer& operator=(const ScheduleOptimizer&) = delete;

    /**
     * @brief Run the search.
     *
     * Under a forced mode the schedule's cliques carry no algorithm (they take the mode). For a
     * set every clique of two or more members carries its own; the result is the best of the
     * mixed search and its seeds, the optimum of every single mode the set allows ("search,
     * ring": that mode's origin and the mode) and of every smaller set, each a search of the
     * same options; evaluations sums all of them.
     * @return the best schedule, its metrics and the baselines
     */
    Result Optimize();

    /**
     * @brief The best schedule for a capability set: ScheduleOptimizer(topology, settings, set,
     * options).Optimize(), never worse than the optimum of any single algorithm the set allows
     * or of any smaller set under the same options.
     * @param topology the topology
     * @param settings S, tau_c, overlap, eps
     * @param set the capability set
     * @param options the options of every search
     * @return the best: every clique of two or more members with its algorithm
     */
    static Result OptimizeSet(const WanTopology& topology,
                              const ScheduleMetrics::Settings& settings,
                              const CapabilitySet& set,
                              const Options& options);

    /**
     * @param schedule a schedule on the topology's islands; under a forced mode its cliques'
     *        algorithms are ignored (the mode overrides them), for a set every clique of two or
     *        more members needs one (CliqueSchedule::Resolve)
     * @return its Xi under the optimizer's settings and mode or the cliques' algorithms
     * @throws WanInputError for a set: a clique without an algorithm or with one the set does
     *         not allow
     * @throws WanConfigError for a set: a tree clique across a router without an FPGA
     */
    double GetXi(const CliqueSchedule& schedule);

    /**
     * @return the baselines: all-reduce, round-robin pairs, and Latin triples when N = 9; for a
     * set each under every algorithm that all its cliques can use ("all-reduce, ring")
     */
    std::vector<Candidate> GetBaselines();

    /**
     * @param schedule a schedule
     * @return its clique-size profile, e.g. "3+3+3 | 9" (singletons as 1, rounds by " | ")
     */
    static std::string GetProfile(const CliqueSchedule& schedule);

  private:
    /** A clique as a bit mask of islands. */
    using Mask = IslandMask;

    /** A scored schedule. */
    struct Scored
    {
        MaskSchedule schedule; //!< the schedule
        double xiS;            //!< its Xi (infinity when it does not mix)
    };

    /** The searches of one set search (Optimize for a set), so that none runs twice. */
    struct Searches
    {
        std::map<CapabilityMode, std::optional<Result>> modes;  //!< each mode's optimum, with
                                                                //!< the mode on its cliques
                                                                //!< (none: the mode is refused)
        std::map<CapabilityMode, std::vector<MaskRound>> pools; //!< each mode's round pool
        std::map<std::string, Result> sets;                     //!< each set's optimum, by name
        uint64_t evaluations{0};                                //!< Xi evaluations of them all
    };

    /**
     * @brief The checks both public constructors share.
     * @param topology the topology
     * @param settings the settings
     * @param algorithms the algorithms a clique may use (the forced mode alone, or the set's)
     * @param set the capability set (none: a forced mode)
     * @param options the search options
     */
    ScheduleOptimizer(const WanTopology& topology,
                      const ScheduleMetrics::Settings& settings,
                      std::vector<CapabilityMode> algorithms,
                      std::optional<CapabilitySet> set,
                      const Options& options);

    /**
     * @param schedule a schedule
     * @return its Xi, cached; counts an evaluation when it is new
     */
    double Score(const MaskSchedule& schedule);
    /**
     * @param groups cliques as member lists (singletons allowed)
     * @param algorithms their algorithms (empty, or none for a clique: the first algorithm
     *        the optimizer allows, a forced mode's mode)
     * @return the canonical mask round
     */
    MaskRound ToMaskRound(const CliqueSchedule::Round& groups,
                          const CliqueSchedule::RoundAlgorithms& algorithms = {}) const;
    /**
     * @param schedule a schedule (for a set, every clique of two or more members with its
     *        algorithm; under a forced mode its algorithms are ignored)
     * @return it as a mask schedule
     * @throws WanInputError for a set: a clique without an algorithm
     */
    MaskSchedule ToMasks(const CliqueSchedule& schedule) const;
    /**
     * @param round a mask round
     * @param algorithms when given, set to the algorithm of each returned clique
     * @return it as cliques of island indices, sorted
     */
    CliqueSchedule::Round ToRound(const MaskRound& round,
                                  CliqueSchedule::RoundAlgorithms* algorithms = nullptr) const;
    /**
     * @param schedule a mask schedule
     * @return it as a CliqueSchedule: for a set with each clique's algorithm, under a forced
     *         mode without (the cliques take the mode)
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
     * @brief Local search from the best distinct seeds, sharing the budget, then the polish.
     * @param seeds the seeds, best first (Better), the first mixing
     * @return the best schedule reached, a period that repeats a shorter one cut to it
     */
    Scored Search(const std::vector<Scored>& seeds);
    /**
     * @brief The search for the optimizer's set: its modes' and smaller sets' optima (each
     * once in done), then the mixed search seeded with them.
     * @param done the searches of this call so far; gains this set's and those it runs
     * @return the set's optimum
     */
    Result SearchSet(Searches& done);
    /**
     * @param schedule a schedule
     * @param polish whether to restrict to moves, swaps and algorithm changes, best
     *        improvement
     * @return the local optimum reached
     */
    Scored LocalSearch(Scored schedule, bool polish);
    /**
     * @param a a scored schedule
     * @param b another
     * @return whether a ranks first: smaller Xi, then shorter period, then clique order
     */
    static bool Better(const Scored& a, const Scored& b);
    /** @return the clique of every island */
    Mask AllIslands() const;
    /** @return whether the evaluation budget is spent */
    bool Exhausted() const;

    WanTopology m_topology;                   //!< the topology
    ScheduleMetrics m_metrics;                //!< the evaluator
    std::vector<CapabilityMode> m_algorithms; //!< what a clique may use (a forced mode alone)
    std::optional<CapabilitySet> m_set;       //!< the capability set (none: a forced mode)
    Options m_options;                        //!< the options
    uint32_t m_n;                             //!< number of islands
    RoundCostCache m_costs;                   //!< clique and round costs
    ScheduleNeighbourhood m_neighbourhood;    //!< the local search's moves
    std::mt19937_64 m_random;                 //!< every random choice
    std::map<MaskSchedule, double> m_scores;  //!< Xi cache
    std::vector<MaskRound> m_pool;            //!< the round pool
    uint64_t m_evaluations{0};                //!< Xi evaluations so far
};

} // namespace ns3

#endif /* SCHEDULE_OPTIMIZER_H */
