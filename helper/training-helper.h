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
#include "ns3/object-factory.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ns3
{

class WanTopologyHelper;

/**
 * @ingroup wan-training
 * @brief Installs TrainingIslandApplications on the islands of a WanTopologyHelper scenario.
 *
 * Every application shares the scenario's topology, the clique schedule and the island
 * addresses; the attributes set here (ModelBytes, Rounds, LocalSteps, ...) apply to every
 * application installed afterwards.
 *
 * @code
 *   WanTopologyHelper scenario(topology);
 *   scenario.Install();
 *   TrainingHelper training(scenario, CliqueSchedule::RoundRobinPairs(9));
 *   training.SetMode(CapabilityMode::UNICAST);
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
     * @brief Put a random packet error model (RateErrorModel, per packet) on the receiving
     * device of every WAN direction (not on access links).
     * @param scenario the installed scenario
     * @param rate the packet error rate, in [0, 1)
     * @param stream the first random stream index to assign
     * @return the number of random streams assigned
     */
    static int64_t SetWanPacketErrorRate(const WanTopologyHelper& scenario,
                                         double rate,
                                         int64_t stream);

  private:
    /**
     * @param node an island node
     * @return the application installed on it
     */
    Ptr<Application> InstallPriv(Ptr<Node> node) const;

    ObjectFactory m_factory;                          //!< application factory
    std::shared_ptr<const WanTopology> m_topology;    //!< the scenario's topology
    std::shared_ptr<const CliqueSchedule> m_schedule; //!< the schedule
    std::vector<Ipv4Address> m_addresses;             //!< island address by city
    NodeContainer m_islands;                          //!< island node by city
};

} // namespace ns3

#endif /* TRAINING_HELPER_H */
