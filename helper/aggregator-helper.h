/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AGGREGATOR_HELPER_H
#define AGGREGATOR_HELPER_H

#include "aggregator-net-device.h"
#include "clique-schedule.h"
#include "link-load-model.h"
#include "wan-topology-helper.h"

#include "ns3/attribute.h"
#include "ns3/net-device-container.h"
#include "ns3/object-factory.h"
#include "ns3/ptr.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

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
 *   // schedule = plain.WithMode(mode), or a schedule whose cliques carry their algorithms
 *   aggregators.Install(scenario, AggregatorHelper::GetPortsFor(schedule)); // before
 *   scenario.Install();
 *   aggregators.SetSchedule(scenario, schedule, jobId); // after: what each port sums
 *   Ptr<AggregatorNetDevice> fpga = aggregators.GetAggregator(scenario, city);
 * @endcode
 *
 * Placement follows the topology's capabilities: Install() aborts when the topology's
 * `capabilities.aggregation` is false. Each city chosen gets one FPGA (InlineFpga: SlotCount
 * and LineRate, set here by name) shared by its ports (AggregatorNetDevice: every other
 * attribute): the access port (WanTopologyHelper::ACCESS_PORT, aggregation and both modes) or
 * every port (EVERY_PORT, tree mode). SetSchedule() gives, for every schedule round and every
 * clique C of that round with |C| >= 2, under the clique's index in the round (the clique id
 * the islands put in IslandSyncHeader; rounds are mapped modulo the schedule's period):
 * - aggregation and both: the access port of each member i the edge expectation C \ {i};
 * - tree: every FPGA port on the routes i -> root (the root is LinkLoadModel::GetTreeRoot)
 *   the tree expectation of its subtree, the members whose route to the root leaves by it;
 *   a port with a subtree of one member gets none (it would send what it receives).
 * Other modes give no expectation.
 */
class AggregatorHelper
{
  public:
    AggregatorHelper();

    /**
     * @brief Set an attribute of the FPGAs (SlotCount, LineRate: InlineFpga) or of their ports
     * to create (ProcessingDelay, Timeout, Port, or a PointToPointNetDevice attribute other
     * than DataRate and Mtu, which come from the topology).
     * @param name the attribute name
     * @param value its value
     */
    void SetAttribute(const std::string& name, const AttributeValue& value);

    /**
     * @brief Place an FPGA in every city; call before scenario.Install().
     * @param scenario the scenario (not installed yet)
     * @param ports which ports of the routers sum (the access port, or every port for tree)
     */
    void Install(WanTopologyHelper& scenario,
                 WanTopologyHelper::FpgaPorts ports = WanTopologyHelper::ACCESS_PORT) const;
    /**
     * @param schedule a schedule whose cliques carry their algorithms (CliqueSchedule::Resolve;
     *        WithMode for one mode)
     * @return the ports its FPGAs must sum on: EVERY_PORT when a clique uses tree, else
     *         ACCESS_PORT
     */
    static WanTopologyHelper::FpgaPorts GetPortsFor(const CliqueSchedule& schedule);
    /**
     * @brief Place FPGAs in some cities; call before scenario.Install().
     * @param scenario the scenario (not installed yet)
     * @param cities the city indices
     * @param ports which ports of the routers sum (the access port, or every port for tree)
     */
    void Install(WanTopologyHelper& scenario,
                 const std::vector<uint32_t>& cities,
                 WanTopologyHelper::FpgaPorts ports = WanTopologyHelper::ACCESS_PORT) const;

    /**
     * @brief Configure every placed FPGA's expectations for a job from a schedule (replaces the
     * job's earlier expectations); call after scenario.Install().
     * @param scenario the installed scenario
     * @param schedule the clique schedule the islands follow (same island count), every
     *        clique of two or more with its algorithm (a tree clique needs FPGAs on
     *        EVERY_PORT)
     * @param jobId the job id the islands put in IslandSyncHeader
     * @throws WanConfigError (field `mode`) for a clique without an algorithm
     */
    void SetSchedule(const WanTopologyHelper& scenario,
                     const CliqueSchedule& schedule,
                     uint16_t jobId) const;
    /**
     * @brief Configure the FPGAs as SetSchedule does, with the routes of a rerouted WAN (links
     * down): the tree roots stay the schedule's (the islands' plans name them), the subtrees
     * follow the routes toward them; a member without a route to its root is in no subtree.
     * Slots already open keep their expectations; the VIEWs seen stay in force.
     * @param scenario the installed scenario
     * @param schedule the clique schedule the islands follow, with its algorithms
     * @param jobId the job id the islands put in IslandSyncHeader
     * @param routing the topology whose routes the packets follow now (same numbering)
     */
    void SetSchedule(const WanTopologyHelper& scenario,
                     const CliqueSchedule& schedule,
                     uint16_t jobId,
                     const WanTopology& routing) const;
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

    /**
     * @param scenario the installed scenario
     * @return every FPGA port, by city, then in the order the ports were made
     */
    static std::vector<Ptr<AggregatorNetDevice>> GetPorts(const WanTopologyHelper& scenario);

    /**
     * @param scenario the installed scenario (FPGAs on EVERY_PORT)
     * @param model the topology's load model (tree roots)
     * @param routing the topology whose routes the contributions follow
     * @param clique a clique of two or more members
     * @return the tree expectation of every FPGA port of the clique's in-tree that sums
     */
    static std::map<Ptr<AggregatorNetDevice>, AggregatorNetDevice::Expectation> GetTreeExpectations(
        const WanTopologyHelper& scenario,
        const LinkLoadModel& model,
        const WanTopology& routing,
        const CliqueSchedule::Clique& clique);

  private:
    ObjectFactory m_factory;     //!< creates the AggregatorNetDevices
    ObjectFactory m_fpgaFactory; //!< creates the InlineFpgas
};

} // namespace ns3

#endif /* AGGREGATOR_HELPER_H */
