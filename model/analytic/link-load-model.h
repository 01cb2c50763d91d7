/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef LINK_LOAD_MODEL_H
#define LINK_LOAD_MODEL_H

#include "capability-mode.h"
#include "clique-schedule.h"
#include "wan-topology.h"

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace ns3
{

/**
 * @ingroup wan-training
 * @brief Check that every clique of a schedule can use its algorithm on the topology's FPGAs
 * (LinkLoadModel::CheckFpgaPlacement for each round): every router of every tree clique's
 * in-tree must have one; the other algorithms always pass.
 * @param topology the topology
 * @param schedule a schedule on its islands, every clique with its algorithm
 *        (CliqueSchedule::Resolve; CliqueSchedule::WithMode for one mode)
 * @throws WanConfigError (field `fpga`) naming the schedule round (from 0), the clique, the
 * tree's root and the first city on its in-tree without an FPGA
 */
void CheckFpgaPlacement(const WanTopology& topology, const CliqueSchedule& schedule);

/**
 * @ingroup wan-training
 * @brief Streams per directed link for a clique or a round, as the table of
 * doc/schedule-model.rst, "Streams per directed link", defines them.
 *
 * A stream is one model-sized transfer (S bytes). Loads are indexed by WanTopology's dense
 * directed-link numbering and expressed in units of S. For a clique C of size k:
 *
 * | mode | sender up | WAN links | receiver down |
 * |---|---|---|---|
 * | unicast | k-1 | +1 on every link of every route i->j | k-1 |
 * | multicast | 1 | +1 on the union over j of route i->j | k-1 |
 * | aggregation | k-1 | as unicast | 1 (k-1 without an FPGA at the receiver) |
 * | both | 1 | as multicast | 1 (k-1 without an FPGA at the receiver) |
 * | ring | 2(k-1)/k | 2(k-1)/k on route c_t -> c_t+1 | 2(k-1)/k |
 * | tree | 1 | 1 on the union of routes i->root and root->i | 1 |
 *
 * A clique of one island (or none) exchanges nothing.
 *
 * Where the FPGAs are (WanTopology::HasFpga, doc/schedule-model.rst, "Where the FPGAs are"):
 * an aggregation or both receiver whose router has no FPGA receives the k-1 copies unsummed. A
 * clique is a tree clique only when every router of its in-tree (GetTreeRouters) has an FPGA
 * (FindRouterWithoutFpga); the loads and latency of the tree mode are those of the tree for
 * any clique, and it is ScheduleMetrics and CheckFpgaPlacement that refuse a clique that is
 * not a tree clique.
 *
 * Ring order (doc/schedule-model.rst, "Ring order"): among the Hamiltonian cycles of the clique
 * over route latencies, the one that minimises (largest hop latency, sum of hop latencies), then
 * the lexicographically smallest sequence of city indices (the topology file's order) starting
 * from the smallest index.
 * Indices, not ids, order these ties: that is how the reference values read the rule (their Latin
 * triples' rings run NYC -> LON -> TYO, file order, not LON -> NYC -> TYO, id order). A ring and
 * its reverse always tie, so listing the cities in another order can reverse a ring (same
 * times on the reference WAN's symmetric links, mirrored per-link loads). It is
 * computed exactly (bottleneck search plus Held-Karp dynamic programming) for cliques of up to
 * MAX_EXACT_RING_SIZE members; larger cliques use a deterministic heuristic (nearest neighbour
 * under the smallest feasible bottleneck found, then 2-opt on the sum), documented as such.
 * Latency ties are equal within a relative 1e-9, as for routes.
 */
class LinkLoadModel
{
  public:
    /** The largest clique whose ring order is computed exactly. */
    static constexpr uint32_t MAX_EXACT_RING_SIZE = 12;
    /** FindRouterWithoutFpga's answer when every router of the in-tree has an FPGA. */
    static constexpr uint32_t NO_CITY = std::numeric_limits<uint32_t>::max();

    /**
     * @brief Build the model of a topology.
     * @param topology the topology (copied)
     */
    explicit LinkLoadModel(const WanTopology& topology);

    /** @return the topology */
    const WanTopology& GetTopology() const;

    /**
     * @param clique the member islands (distinct city indices)
     * @param mode the capability mode
     * @return streams (units of S) per directed link for this clique alone; aggregation and
     * both count k-1 on the down link of a member whose router has no FPGA; tree counts the
     * tree's loads whether or not the clique is a tree clique (FindRouterWithoutFpga)
     */
    std::vector<double> GetCliqueLoads(const CliqueSchedule::Clique& clique,
                                       CapabilityMode mode) const;

    /**
     * @param round the cliques of a round
     * @param mode the capability mode
     * @return streams per directed link summed over the cliques (singletons add nothing)
     */
    std::vector<double> GetRoundLoads(const CliqueSchedule::Round& round,
                                      CapabilityMode mode) const;
    /**
     * @param round the cliques of a round
     * @param algorithms the algorithm of each clique (mixed rounds)
     * @return streams per directed link, each clique's by its own algorithm's row
     */
    std::vector<double> GetRoundLoads(const CliqueSchedule::Round& round,
                                      const std::vector<CapabilityMode>& algorithms) const;

    /**
     * @param source the sending island
     * @param clique the clique (may or may not list the source)
     * @return the multicast source tree of `source` toward the other members: the union of the
     * routes source -> j, as sorted directed-link indices (source:up and each member's :down
     * included); empty when there is no other member
     */
    std::vector<uint32_t> GetSourceTree(uint32_t source,
                                        const CliqueSchedule::Clique& clique) const;

    /**
     * @param clique the member islands
     * @return the ring order (the schedule model's rule), starting at the smallest city index;
     * the members sorted when there are fewer than three
     */
    std::vector<uint32_t> GetRingOrder(const CliqueSchedule::Clique& clique) const;

    /**
     * @param clique the member islands (non-empty)
     * @return the tree root: minimises (largest route latency into the root + largest route
     * latency out of it), then the smallest city index
     */
    uint32_t GetTreeRoot(const CliqueSchedule::Clique& clique) const;

    /**
     * @brief The routers of a clique's in-tree, the ones that sum in tree mode.
     *
     * These are the cities of the routes i -> root for every member i but the root
     * (GetTreeRoot), endpoints included: every member's own router and the root's, whose FPGA
     * sums toward the root island, and every router in between.
     * @param clique the member islands (distinct city indices)
     * @return the cities, in increasing index; empty for fewer than two members
     */
    std::vector<uint32_t> GetTreeRouters(const CliqueSchedule::Clique& clique) const;

    /**
     * @param clique the member islands (distinct city indices)
     * @return the smallest city of GetTreeRouters(clique) whose router has no FPGA
     * (WanTopology::HasFpga), or NO_CITY when the clique is a tree clique (always for fewer
     * than two members)
     */
    uint32_t FindRouterWithoutFpga(const CliqueSchedule::Clique& clique) const;

    /**
     * @brief Check that a round's cliques can use a mode on the topology's FPGAs.
     *
     * Under TREE, a clique of two or more members whose in-tree crosses a router without an
     * FPGA is refused. Every other mode passes: an aggregation or both receiver without an FPGA
     * receives unsummed copies (GetCliqueLoads counts them).
     * @param round the cliques of a round
     * @param mode the capability mode
     * @param roundName how the error names the round, e.g. "schedule round 2"
     * @throws WanConfigError (field `fpga`) naming the round, the clique, the tree's root and
     * the city without an FPGA
     */
    void CheckFpgaPlacement(const CliqueSchedule::Round& round,
                            CapabilityMode mode,
                            const std::string& roundName) const;
    /**
     * @brief The same for a round whose cliques use their own algorithms: every tree clique is
     * checked.
     * @param round the cliques of a round
     * @param algorithms the algorithm of each clique
     * @param roundName how the error names the round
     * @throws WanConfigError as above
     */
    void CheckFpgaPlacement(const CliqueSchedule::Round& round,
                            const std::vector<CapabilityMode>& algorithms,
                            const std::string& roundName) const;

    /**
     * @brief Lat(C) of doc/schedule-model.rst, "Time".
     *
     * A ring has no latency term of its own: ScheduleMetrics times it by the step recursion of
     * "The ring". For a ring this returns 2(k-1) x the largest hop latency, an upper bound of
     * the latency on the recursion's critical chain (2(k-1) hops at most), kept as that bound
     * only; it is not the ring's time.
     * @param clique the member islands
     * @param mode the capability mode
     * @return the clique's latency term in ms: the largest route latency inside the clique;
     * ring: the bound 2(k-1) x the largest hop latency; tree: largest latency into the root +
     * largest out of it; 0 for a clique of fewer than two members
     */
    double GetCliqueLatencyMs(const CliqueSchedule::Clique& clique, CapabilityMode mode) const;

    /**
     * @param src a city index
     * @param dst another city index
     * @return the latency of route src -> dst in ms (0 when src == dst)
     */
    double GetRouteLatencyMs(uint32_t src, uint32_t dst) const;

  private:
    /**
     * @param clique the clique to check
     * @return the members, sorted and checked to be distinct known islands
     */
    std::vector<uint32_t> Members(const CliqueSchedule::Clique& clique) const;
    /**
     * @param members sorted members, at most MAX_EXACT_RING_SIZE of them
     * @return the exact ring order
     */
    std::vector<uint32_t> ExactRingOrder(const std::vector<uint32_t>& members) const;
    /**
     * @param members sorted members
     * @return a heuristic ring order for large cliques
     */
    std::vector<uint32_t> HeuristicRingOrder(const std::vector<uint32_t>& members) const;

    WanTopology m_topology;                       //!< the topology
    uint32_t m_nCities;                           //!< number of islands
    uint32_t m_nDirected;                         //!< number of directed links
    std::vector<std::vector<double>> m_latencyMs; //!< [src][dst] route latency
};

} // namespace ns3

#endif /* LINK_LOAD_MODEL_H */
