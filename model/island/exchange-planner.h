/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef EXCHANGE_PLANNER_H
#define EXCHANGE_PLANNER_H

#include "clique-schedule.h"
#include "exchange-plan.h"
#include "link-load-model.h"

#include <cstdint>
#include <map>
#include <optional>
#include <vector>

namespace ns3
{

class WanTopology;

/**
 * @ingroup wan-training
 * @brief Builds the ExchangePlan of every island in every schedule round, once and without a
 * simulator: a pure function of the topology, the schedule and the configuration.
 *
 * The island (TrainingIslandApplication) plans its rounds with it when it starts, and
 * TrainingRun validates a configuration by planning every island and round with it, so that a
 * configuration the islands cannot run is rejected before anything runs. A contribution is
 * the values ModelBytes encodes in the Format (GetValueCapacity; ModelBytes must be exactly
 * such an encoding), the ParameterCount real values first. Chunking: ChunkBytes model bytes
 * per chunk (a whole number of values, in int8 of blocks), or (0) the most values, in int8
 * whole blocks, whose encoding fills the smallest path MTU between two members of the clique
 * minus the IPv4, UDP and IslandSyncHeader headers; a ring of k members needs at least k
 * chunks (with ChunkBytes 0 the chunks are made smaller). Rates are the bottleneck shares of
 * the round's loads (LinkLoadModel: each clique's streams by its own algorithm, the mixed
 * rounds of doc/schedule-model.rst), or StreamRate when set. A plan's ExchangePlan::mode is
 * its clique's algorithm: Config::mode when a mode is forced, else the schedule's (every clique
 * of two or more members must then carry one). A configuration that cannot be planned throws
 * WanConfigError with the field `mode`,
 * `format`, `modelBytes`, `chunkBytes` or `parameterCount` and the reason.
 */
class ExchangePlanner
{
  public:
    /** The configuration a plan depends on (the island's attributes of the same names). */
    struct Config
    {
        /** The mode forced on every clique (Mode); none: each clique's from the schedule */
        std::optional<CapabilityMode> mode;
        PayloadFormat format{PayloadFormat::FP32}; //!< Format of the values on the wire
        uint64_t modelBytes{100000000};            //!< ModelBytes
        uint32_t chunkBytes{0};                    //!< ChunkBytes (0: fill the path MTU)
        uint32_t parameterCount{1024};             //!< ParameterCount
        double streamRateBps{0};                   //!< StreamRate (0: bottleneck share)
    };

    /**
     * @brief Check the configuration against itself and keep what plans need.
     * @param topology the topology (must outlive the planner)
     * @param schedule the schedule over the topology's islands (copied), every clique of two
     *        or more members with its algorithm unless config.mode forces one
     * @param config the configuration
     * @throws WanConfigError for a clique without an algorithm (`mode`), a ChunkBytes that is no
     * whole number of values (in int8 of blocks) in the format (`chunkBytes`), a ModelBytes that is
     * no encoding in the format (`modelBytes`), more values than ModelBytes holds
     * (`parameterCount`)
     */
    ExchangePlanner(const WanTopology& topology,
                    const CliqueSchedule& schedule,
                    const Config& config);

    /**
     * @param scheduleRound a schedule round (< the schedule's period)
     * @param island an island
     * @return the island's plan of that round (multicast group not set: the caller gives it)
     * @throws WanConfigError for a ChunkBytes over the path MTU of the clique (`chunkBytes`),
     *         a path MTU below one int8 block's chunk (`format`),
     *         a ModelBytes that needs more than 2^32 chunks or is too small for a ring
     *         (`modelBytes`), a ring cut into fewer chunks than members (`chunkBytes`)
     */
    ExchangePlan GetPlan(uint32_t scheduleRound, uint32_t island) const;
    /**
     * @param island an island
     * @return its plan of every schedule round, in order
     * @throws WanConfigError as GetPlan
     */
    std::vector<ExchangePlan> GetPlans(uint32_t island) const;
    /**
     * @brief Give an island's plans the multicast groups it sends to.
     * @param plans the island's plan of every schedule round (GetPlans)
     * @param groups its group per schedule round (any address where it does not send to one)
     * @throws WanConfigError (field `groups`) when a plan that sends to a group (multicast and
     *         both) has no group, or a group that is not a multicast address
     */
    static void AssignGroups(std::vector<ExchangePlan>& plans,
                             const std::vector<Ipv4Address>& groups);
    /**
     * @brief Plan every island in every schedule round (round by round, clique by clique).
     * @throws WanConfigError as GetPlan, for the first plan that fails
     */
    void Validate() const;
    /**
     * @param base a plan of this planner
     * @param scheduleRound its schedule round
     * @param excluded members of its clique to leave out
     * @return the plan without them (ring: a new ring over the remaining members, with a clique
     *         id of its own on the wire)
     */
    ExchangePlan MakeViewPlan(const ExchangePlan& base,
                              uint32_t scheduleRound,
                              uint64_t excluded) const;

  private:
    /**
     * @param loads a round's link loads
     * @param links directed links
     * @return the smallest share capacity / load over the links, bit/s
     */
    double GetShare(const std::vector<double>& loads, const std::vector<uint32_t>& links) const;
    /**
     * @param scheduleRound a schedule round
     * @return its link loads, each clique's by its algorithm (computed once)
     */
    const std::vector<double>& GetRoundLoads(uint32_t scheduleRound) const;
    /**
     * @param plan a view plan (MakeViewPlan): its clique's remaining members and algorithm
     * @param scheduleRound its schedule round
     * @return the round's link loads with the clique as the plan has it, the other cliques as
     *         the schedule has them
     */
    std::vector<double> GetViewLoads(const ExchangePlan& plan, uint32_t scheduleRound) const;
    /**
     * @brief Ring mode: the ring order, place, neighbours, segments and rates of a plan whose
     * members (two or more) and chunk count are set.
     * @param plan the plan
     * @param loads the round's link loads
     */
    void SetRingPlan(ExchangePlan& plan, const std::vector<double>& loads) const;
    /**
     * @param scheduleRound a schedule round
     * @param members a clique
     * @return "the ring of k members {a b c} of schedule round r"
     */
    std::string DescribeRing(uint32_t scheduleRound, const std::vector<uint32_t>& members) const;

    const WanTopology& m_topology;                                //!< the topology
    CliqueSchedule m_schedule;                                    //!< with every algorithm
    Config m_config;                                              //!< the configuration
    LinkLoadModel m_loadModel;                                    //!< loads, trees, ring orders
    std::vector<std::vector<CapabilityMode>> m_algorithms;        //!< by schedule round, clique
    mutable std::map<uint32_t, std::vector<double>> m_roundLoads; //!< loads by schedule round
    uint64_t m_valueCount;                                        //!< values ModelBytes holds
};

} // namespace ns3

#endif /* EXCHANGE_PLANNER_H */
