/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef CLIQUE_SCHEDULE_H
#define CLIQUE_SCHEDULE_H

#include "capability-mode.h"
#include "wan-input-error.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace ns3
{

class WanTopology;

/**
 * @ingroup wan-training
 * @brief A period of rounds, each a partition of the islands into cliques.
 *
 * Round r lists disjoint cliques of island (city) indices. An island named in no clique of a
 * round idles in it (it is a singleton clique: it keeps its model). A clique replaces its
 * members' models by their average. The schedule repeats with its period.
 *
 * A clique may carry the exchange algorithm it uses (doc/schedule-model.rst, "Capability
 * sets and mixed rounds"); a clique without one takes the run's mode (WithMode).
 *
 * JSON form, by city id (the form of the reference values):
 * `{"rounds": [[["nyc","chi","lax"], ["lon","fra","ams"]], [["nyc","lon"]]]}`, a clique with
 * its algorithm as `{"members": ["nyc","lon"], "algorithm": "ring"}`.
 * Validated: at least one round, every clique non-empty, known ids, no island twice in a round,
 * known algorithms.
 */
class CliqueSchedule
{
  public:
    /** A clique: island indices, in the order given. */
    using Clique = std::vector<uint32_t>;
    /** A round: disjoint cliques; islands in none of them idle. */
    using Round = std::vector<Clique>;

    /** The algorithm of each clique of a round (none: the run's mode). */
    using RoundAlgorithms = std::vector<std::optional<CapabilityMode>>;

    /** The clique index of an island that idles in a round. */
    static constexpr uint32_t IDLE = UINT32_MAX;

    /**
     * @brief Build and validate a schedule.
     * @param nIslands number of islands
     * @param rounds the rounds
     * @throws WanInputError (source `<schedule>`) when the rounds are not valid
     */
    CliqueSchedule(uint32_t nIslands, std::vector<Round> rounds);
    /**
     * @brief Build and validate a schedule whose cliques may carry their algorithms.
     * @param nIslands number of islands
     * @param rounds the rounds
     * @param algorithms per round, one entry per clique (none: the run's mode)
     * @throws WanInputError (source `<schedule>`) when the rounds are not valid or the
     *         algorithms do not have the rounds' shape
     */
    CliqueSchedule(uint32_t nIslands,
                   std::vector<Round> rounds,
                   std::vector<RoundAlgorithms> algorithms);

    /**
     * @brief Parse and validate a schedule file against a topology's city ids.
     * @param path the file
     * @param topology the topology whose city ids the file names
     * @return the schedule
     * @throws WanInputError naming the file, the JSON path and the reason
     */
    static CliqueSchedule LoadFile(const std::string& path, const WanTopology& topology);

    /**
     * @brief Parse and validate a schedule from JSON text.
     * @param text the JSON document
     * @param sourceName the name used in error messages
     * @param topology the topology whose city ids the document names
     * @return the schedule
     * @throws WanInputError naming the source, the JSON path and the reason
     */
    static CliqueSchedule Parse(const std::string& text,
                                const std::string& sourceName,
                                const WanTopology& topology);

    /**
     * @param topology the topology whose city ids to write
     * @return the schedule's JSON form (pretty printed)
     */
    std::string ToJson(const WanTopology& topology) const;

    /**
     * @brief Write the schedule's JSON form to a file.
     * @param path the file
     * @param topology the topology whose city ids to write
     * @throws WanInputError when the file cannot be written
     */
    void SaveFile(const std::string& path, const WanTopology& topology) const;

    /** @return the number of islands */
    uint32_t GetNIslands() const;
    /** @return the number of rounds in the period */
    uint32_t GetNRounds() const;
    /**
     * @param r a round index, 0 <= r < GetNRounds()
     * @return the round
     */
    const Round& GetRound(uint32_t r) const;
    /** @return every round */
    const std::vector<Round>& GetRounds() const;
    /**
     * @param r a round index
     * @param c a clique index in it
     * @return the clique's algorithm (none: it takes the run's mode)
     */
    std::optional<CapabilityMode> GetAlgorithm(uint32_t r, uint32_t c) const;
    /** @return whether any clique carries an algorithm */
    bool HasAlgorithms() const;
    /**
     * @brief The algorithms of a resolved round (Resolve), as ScheduleMetrics::GetRoundCost and
     * LinkLoadModel::GetRoundLoads take them.
     * @param r a round index
     * @return the algorithm of each clique of round r (a one-member clique, which idles:
     *         unicast, which it never uses)
     * @throws WanConfigError (field `mode`) naming the round and clique of a clique of two or
     *         more members without an algorithm
     */
    std::vector<CapabilityMode> GetRoundAlgorithms(uint32_t r) const;
    /**
     * @param r a round index
     * @param island an island index
     * @param forced the mode forced on every clique (none: the schedule's own algorithms)
     * @return the algorithm of the island's clique in round r (forced, else the clique's),
     *         none when the island idles or its clique has no algorithm
     */
    std::optional<CapabilityMode> GetAlgorithmOf(uint32_t r,
                                                 uint32_t island,
                                                 std::optional<CapabilityMode> forced) const;
    /**
     * @param test a property of an algorithm, e.g. UsesMulticast
     * @return whether some clique of two or more members carries an algorithm that has it
     */
    bool UsesAlgorithm(const std::function<bool(CapabilityMode)>& test) const;
    /**
     * @param mode an algorithm
     * @return this schedule with every clique of two or more members using it (what a forced
     *         mode, --mode, does; a one-member clique idles and has none)
     */
    CliqueSchedule WithMode(CapabilityMode mode) const;
    /**
     * @brief The algorithms every clique uses: a forced mode's, or the schedule's own.
     * @param mode the forced mode (none: the schedule's)
     * @param source the schedule's file, for the error
     * @return the schedule with an algorithm on every clique
     * @throws WanInputError naming the round and clique of a clique of two or more members
     *         without an algorithm when no mode is forced (a plain list takes --mode)
     */
    CliqueSchedule Resolve(std::optional<CapabilityMode> mode, const std::string& source) const;

    /**
     * @param r a round index
     * @param island an island index
     * @return the index of the island's clique in round r, or IDLE
     */
    uint32_t GetCliqueOf(uint32_t r, uint32_t island) const;
    /**
     * @return whether the union of all rounds' clique graphs is connected (the schedule mixes)
     */
    bool Mixes() const;

    /**
     * @param nIslands number of islands
     * @return one round with one clique of every island
     */
    static CliqueSchedule AllReduce(uint32_t nIslands);
    /**
     * @brief Round-robin pairs by the circle method: every pair meets once per period.
     * @param nIslands number of islands (>= 2); with an odd count one island idles per round
     * @return N-1 rounds (N even) or N rounds (N odd) of pairs
     */
    static CliqueSchedule RoundRobinPairs(uint32_t nIslands);
    /**
     * @brief "Latin" orthogonal triples for nine islands: the rows of a 3x3 grid, then its
     * columns, so that the period's product is exactly the averaging matrix J.
     * @param nIslands must be 9
     * @return two rounds of three triples
     * @throws WanInputError when nIslands is not 9
     */
    static CliqueSchedule LatinTriples(uint32_t nIslands);
    /**
     * @brief Regional cliques by latency: one round of cliques of about cliqueSize islands,
     * grown greedily from the first free island in file order around the nearest islands (by
     * route latency).
     * @param topology the topology
     * @param cliqueSize target clique size (>= 1)
     * @return a one-round schedule
     */
    static CliqueSchedule Regional(const WanTopology& topology, uint32_t cliqueSize);

  private:
    /** Validate and build the island -> clique index. */
    void Index();

    uint32_t m_nIslands;                         //!< number of islands
    std::vector<Round> m_rounds;                 //!< the rounds
    std::vector<RoundAlgorithms> m_algorithms;   //!< [round][clique] -> algorithm or none
    std::vector<std::vector<uint32_t>> m_member; //!< [round][island] -> clique or IDLE
};

} // namespace ns3

#endif /* CLIQUE_SCHEDULE_H */
