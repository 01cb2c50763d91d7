/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AGGREGATOR_HELPER_H
#define AGGREGATOR_HELPER_H

#include "aggregator-net-device.h"

#include "ns3/attribute.h"
#include "ns3/net-device-container.h"
#include "ns3/object-factory.h"
#include "ns3/ptr.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

class CliqueSchedule;
class WanTopologyHelper;

/**
 * @ingroup wan-training
 * @brief Places the in-line FPGAs (AggregatorNetDevice) of a scenario and configures them from
 * a clique schedule.
 *
 * Use in two steps around WanTopologyHelper::Install(), because the FPGA is the router's
 * access device itself and must exist when the links are built:
 * @code
 *   WanTopologyHelper scenario(topology);
 *   AggregatorHelper aggregators;
 *   aggregators.SetAttribute("SlotCount", UintegerValue(4096));
 *   aggregators.Install(scenario);        // before scenario.Install(): every city
 *   scenario.Install();
 *   aggregators.SetSchedule(scenario, schedule, jobId); // after: what each FPGA sums
 *   Ptr<AggregatorNetDevice> fpga = aggregators.GetAggregator(scenario, city);
 * @endcode
 *
 * Placement follows the topology's capabilities: Install() aborts when the topology's
 * `capabilities.aggregation` is false. SetSchedule() gives the FPGA of island i, for every
 * schedule round and every clique C of that round containing i with |C| >= 2, the expected
 * contributor bitmap C \ {i} under the clique's index in the round (the clique id the
 * islands put in IslandSyncHeader); rounds are mapped modulo the schedule's period.
 */
class AggregatorHelper
{
  public:
    AggregatorHelper();

    /**
     * @brief Set an attribute of the AggregatorNetDevices to create (SlotCount,
     * ProcessingDelay, LineRate, Timeout, Port, or a PointToPointNetDevice attribute other than
     * DataRate and Mtu, which come from the topology).
     * @param name the attribute name
     * @param value its value
     */
    void SetAttribute(const std::string& name, const AttributeValue& value);

    /**
     * @brief Place an FPGA in every city; call before scenario.Install().
     * @param scenario the scenario (not installed yet)
     */
    void Install(WanTopologyHelper& scenario) const;
    /**
     * @brief Place FPGAs in some cities; call before scenario.Install().
     * @param scenario the scenario (not installed yet)
     * @param cities the city indices
     */
    void Install(WanTopologyHelper& scenario, const std::vector<uint32_t>& cities) const;

    /**
     * @brief Configure every placed FPGA's expectations for a job from a schedule (replaces the
     * job's earlier expectations); call after scenario.Install().
     * @param scenario the installed scenario
     * @param schedule the clique schedule the islands follow (same island count)
     * @param jobId the job id the islands put in IslandSyncHeader
     */
    void SetSchedule(const WanTopologyHelper& scenario,
                     const CliqueSchedule& schedule,
                     uint16_t jobId) const;
    /**
     * @brief Remove a job's expectations from every placed FPGA (they become transparent for
     * it).
     * @param scenario the installed scenario
     * @param jobId the job
     */
    void ClearSchedule(const WanTopologyHelper& scenario, uint16_t jobId) const;

    /**
     * @param scenario the installed scenario
     * @param city a city index
     * @return the city's FPGA, or null when it has none
     */
    Ptr<AggregatorNetDevice> GetAggregator(const WanTopologyHelper& scenario, uint32_t city) const;
    /**
     * @param scenario the installed scenario
     * @return every placed FPGA, in city index order
     */
    NetDeviceContainer GetAggregators(const WanTopologyHelper& scenario) const;

  private:
    ObjectFactory m_factory; //!< creates the AggregatorNetDevices
};

} // namespace ns3

#endif /* AGGREGATOR_HELPER_H */
