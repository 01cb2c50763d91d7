/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef TRAINING_HELPER_H
#define TRAINING_HELPER_H

#include "clique-schedule.h"
#include "link-load-model.h"
#include "wan-topology.h"

#include "ns3/application-container.h"
#include "ns3/attribute.h"
#include "ns3/ipv4-address.h"
#include "ns3/node-container.h"
#include "ns3/nstime.h"
#include "ns3/object-factory.h"
#include "ns3/ptr.h"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

class PimMulticastHelper;
class WanFaultErrorModel;
class WanTopologyHelper;

/**
 * @ingroup wan-training
 * @brief Installs TrainingIslandApplications on the islands of a WanTopologyHelper scenario.
 *
 * Every application shares the scenario's topology, the clique schedule and the island
 * addresses; the attributes set here (ModelBytes, Rounds, LocalSteps, ...) apply to every
 * application installed afterwards.
 *
 * Each clique exchanges by the algorithm the schedule gives it, or by one mode forced on every
 * clique (SetMode). The algorithms decide what else the scenario needs (doc/schedule-model.rst,
 * "Streams per directed link" and "Capability sets and mixed rounds"); a schedule that mixes
 * algorithms needs what each of them needs:
 * - multicast, both and tree: the schedule's source trees (PimMulticastHelper::InstallSchedule)
 *   and SetMulticast(pim), which hands every application the group it sends to in each
 *   schedule round (PimMulticastHelper::GetGroup(round, clique, island)) and the multicast TTL,
 *   so the model does not depend on the helper (in tree mode only the root sends to its group);
 * - aggregation, both and tree: the in-line FPGAs of the topology's FPGA cities
 *   (AggregatorHelper::Install(scenario, cities, AggregatorHelper::GetPortsFor(mode)) before
 *   WanTopologyHelper::Install, AggregatorHelper::SetSchedule(..., mode) after it, before the
 *   simulation runs). Install() aborts when an island of a clique has no FPGA although the
 *   topology gives its city one, and sets each application's AggregationTimeout to its FPGA's
 *   Timeout (0 for a city without one: its contributions arrive unsummed);
 * - ring: nothing else: the islands send unicast chunks along each clique's ring
 *   (LinkLoadModel::GetRingOrder) over the scenario's unicast routes. In-line FPGAs, if the
 *   scenario has them, must not be given the job's schedule (AggregatorHelper::SetSchedule):
 *   they would hold the ring's first-step chunks until their Timeout, waiting for a sum that
 *   never completes.
 *
 * @code
 *   WanTopologyHelper scenario(topology);
 *   AggregatorHelper aggregators;                 // aggregation and both modes
 *   aggregators.Install(scenario);
 *   scenario.Install();
 *   aggregators.SetSchedule(scenario, schedule, 1, CapabilityMode::BOTH);
 *   PimMulticastHelper pim(scenario);             // multicast and both modes
 *   pim.InstallSchedule(schedule);
 *   TrainingHelper training(scenario, schedule);
 *   training.SetMode(CapabilityMode::BOTH);
 *   training.SetMulticast(pim);
 *   training.SetAttribute("ModelBytes", UintegerValue(100000000));
 *   ApplicationContainer apps = training.Install();
 *   training.EnableRoundTimes(apps);             // GetCliqueRoundTime after the run
 * @endcode
 */
class TrainingHelper
{
  public:
    /**
     * @brief Create a helper for an installed scenario.
     * @param scenario the scenario (Install() must have been called)
     * @param schedule the clique schedule over the scenario's islands
     */
    TrainingHelper(const WanTopologyHelper& scenario, const CliqueSchedule& schedule);

    /**
     * @brief Check, before a scenario is built, that the packet model simulates a mode and that
     * a topology's routers can carry it (its `capabilities`).
     * @param topology the topology
     * @param mode the capability mode
     * @throws WanConfigError on field `mode` for a multicast mode (tree included: its root
     *         multicasts the total) on a topology without multicast, for an aggregated mode
     *         (tree included) on one without in-line aggregation, and for tree on one without
     *         `core` (FPGAs that sum on the routers)
     */
    static void CheckMode(const WanTopology& topology, CapabilityMode mode);

    /**
     * @brief Set an attribute of the applications to install.
     * @param name the attribute name
     * @param value its value
     */
    void SetAttribute(const std::string& name, const AttributeValue& value);

    /**
     * @brief Force one capability mode on every clique of the applications to install (their
     * Mode attribute), or let each clique use the algorithm the schedule gives it.
     * @param mode the mode, or none for the schedule's algorithms (the default)
     */
    void SetMode(std::optional<CapabilityMode> mode);

    /**
     * @brief Take the multicast groups of the schedule from an installed PimMulticastHelper
     * (needed in multicast, both and tree cliques, ignored otherwise).
     *
     * For every schedule round and every island in a clique of two or more whose tree pim
     * installed, the group is pim.GetGroup(round, clique, island); the helper checks that the
     * group's tree reaches exactly the other members of the clique and aborts otherwise.
     * Install() aborts for an island of a multicast or both clique without a group (call
     * pim.InstallSchedule(schedule) first). The TTL is pim.GetMulticastTtl(), or ttl when it is
     * larger (e.g. to reach members along the longer routes a link failure leaves).
     * @param pim the multicast helper of the same scenario
     * @param ttl the smallest multicast TTL to give the applications (0: pim's alone)
     */
    void SetMulticast(const PimMulticastHelper& pim, uint8_t ttl = 0);

    /** @return one application on every island, in city order */
    ApplicationContainer Install() const;

    /**
     * @param islands island nodes of the scenario
     * @return one application on each
     */
    ApplicationContainer Install(NodeContainer islands) const;

    /**
     * @param island an island node of the scenario
     * @return its application
     */
    ApplicationContainer Install(Ptr<Node> island) const;

    /**
     * @param islandName the Names name of an island node ("nyc-island")
     * @return its application
     */
    ApplicationContainer Install(const std::string& islandName) const;

    /**
     * @brief Record when every application starts and ends each round (its RoundStarted and
     * RoundFinished traces), for GetCliqueRoundTime() and GetRoundTime(); call after Install()
     * and before Simulator::Run(). Copies of this helper share the record.
     * @param apps applications installed by this helper
     */
    void EnableRoundTimes(const ApplicationContainer& apps);

    /**
     * @brief The time a clique took in a round of the run: from its last member's round start
     * (a clique exchanges once all its members are there) to its last member's average.
     * EnableRoundTimes() must have been called.
     * @param round a round of the run; its cliques are those of schedule round
     *        round mod CliqueSchedule::GetNRounds()
     * @param clique the clique's index in that schedule round
     * @return the time, or a negative time when a member has not started or ended the round
     */
    Time GetCliqueRoundTime(uint32_t round, uint32_t clique) const;

    /**
     * @param round a round of the run
     * @return the longest GetCliqueRoundTime() of its cliques, or a negative time when a clique
     *         has not ended the round
     */
    Time GetRoundTime(uint32_t round) const;

    /**
     * @brief Put a random packet error model (a WanFaultErrorModel with only its LossRate, one
     * uniform draw per packet) on the receiving device of every WAN direction (not on access
     * links).
     * @param scenario the installed scenario
     * @param rate the packet error rate, in [0, 1)
     * @param stream the first random stream index to assign
     * @return the number of random streams assigned
     */
    static int64_t SetWanPacketErrorRate(const WanTopologyHelper& scenario,
                                         double rate,
                                         int64_t stream);

    /**
     * @brief Put a WanFaultErrorModel on the receiving device of every WAN direction (not on
     * access links): random loss, reordering and duplication, and the switch that takes a
     * direction down.
     * @param scenario the installed scenario
     * @param lossRate probability that a packet is lost, in [0, 1)
     * @param reorderRate probability that a packet is delivered late, after later ones, in [0, 1)
     * @param duplicateRate probability that a packet is delivered twice, in [0, 1)
     * @param stream the first random stream index to assign (three per direction)
     * @return the models, by WAN directed link (index d < 2 x GetNLinks())
     */
    static std::vector<Ptr<WanFaultErrorModel>> InstallWanFaultModels(
        const WanTopologyHelper& scenario,
        double lossRate,
        double reorderRate,
        double duplicateRate,
        int64_t stream);

  private:
    /** When one island started and ended one round (negative: not yet). */
    struct RoundTime
    {
        Time started{Seconds(-1)};  //!< RoundStarted
        Time finished{Seconds(-1)}; //!< RoundFinished
    };

    /** RoundTime by (round, island), filled by the sinks of EnableRoundTimes(). */
    using RoundTimes = std::map<std::pair<uint32_t, uint32_t>, RoundTime>;

    /**
     * @brief RoundStarted sink of EnableRoundTimes().
     * @param times the record
     * @param island the island
     * @param round the round
     */
    static void RecordRoundStarted(std::shared_ptr<RoundTimes> times,
                                   uint32_t island,
                                   uint32_t round);

    /**
     * @brief RoundFinished sink of EnableRoundTimes() (the clique and the new parameters are
     * not needed).
     * @param times the record
     * @param island the island
     * @param round the round
     */
    static void RecordRoundFinished(std::shared_ptr<RoundTimes> times,
                                    uint32_t island,
                                    uint32_t round,
                                    uint32_t,
                                    const std::vector<float>&);

    /**
     * @param node an island node
     * @return the application installed on it
     */
    Ptr<Application> InstallPriv(Ptr<Node> node) const;

    ObjectFactory m_factory;                        //!< application factory
    std::vector<std::vector<Ipv4Address>> m_groups; //!< [island][schedule round] its group
    uint8_t m_multicastTtl{0};                      //!< multicast TTL (0: SetMulticast not called)
    std::vector<Time> m_aggregatorTimeouts;         //!< FPGA Timeout by city (negative: none)
    std::shared_ptr<const WanTopology> m_topology;  //!< the scenario's topology
    std::shared_ptr<const CliqueSchedule> m_schedule; //!< the schedule
    std::vector<Ipv4Address> m_addresses;             //!< island address by city
    NodeContainer m_islands;                          //!< island node by city
    std::shared_ptr<RoundTimes> m_roundTimes; //!< round times (null: EnableRoundTimes not called)
};

} // namespace ns3

#endif /* TRAINING_HELPER_H */
