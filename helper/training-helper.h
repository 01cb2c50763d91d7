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
#include <memory>
#include <string>
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
 * The capability mode decides what else the scenario needs (doc/schedule-model.rst, "Streams per
 * directed link"):
 * - multicast and both: the schedule's source trees (PimMulticastHelper::InstallSchedule) and
 *   SetMulticast(pim), which hands every application the group it sends to in each schedule
 *   round (PimMulticastHelper::GetGroup(round, clique, island)) and the multicast TTL, so the
 *   model does not depend on the helper;
 * - aggregation and both: an in-line FPGA in every city (AggregatorHelper::Install before
 *   WanTopologyHelper::Install, AggregatorHelper::SetSchedule after it, before the simulation
 *   runs). Install() aborts when an island of a clique has no FPGA, and sets each
 *   application's AggregationTimeout to its FPGA's Timeout;
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
 *   aggregators.SetSchedule(scenario, schedule, 1);
 *   PimMulticastHelper pim(scenario);             // multicast and both modes
 *   pim.InstallSchedule(schedule);
 *   TrainingHelper training(scenario, schedule);
 *   training.SetMode(CapabilityMode::BOTH);
 *   training.SetMulticast(pim);
 *   training.SetAttribute("ModelBytes", UintegerValue(100000000));
 *   ApplicationContainer apps = training.Install();
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
     * @brief Set an attribute of the applications to install.
     * @param name the attribute name
     * @param value its value
     */
    void SetAttribute(const std::string& name, const AttributeValue& value);

    /**
     * @brief Set the capability mode of the applications to install.
     * @param mode the mode
     */
    void SetMode(CapabilityMode mode);

    /**
     * @brief Take the multicast groups of the schedule from an installed PimMulticastHelper
     * (needed in multicast and both modes, ignored otherwise).
     *
     * For every schedule round and every island in a clique of two or more, the group is
     * pim.GetGroup(round, clique, island); the helper checks that the group's tree reaches
     * exactly the other members of the clique (call pim.InstallSchedule(schedule) first) and
     * aborts otherwise. The TTL is pim.GetMulticastTtl(), or ttl when it is larger (e.g. to
     * reach members along the longer routes a link failure leaves).
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
};

} // namespace ns3

#endif /* TRAINING_HELPER_H */
