/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef WAN_UNICAST_ROUTING_H
#define WAN_UNICAST_ROUTING_H

#include "wan-topology.h"

#include "ns3/ipv4-address.h"
#include "ns3/net-device.h"
#include "ns3/node.h"
#include "ns3/object.h"
#include "ns3/ptr.h"
#include "ns3/traced-callback.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ns3
{

/**
 * @ingroup wan-training
 * @brief The unicast routes of a WAN scenario during the simulation: it owns the routing
 * topology whose routes are installed now, installs the Ipv4StaticRouting unicast routes of every
 * router and island along that topology's routes, and reinstalls them on a reroute.
 *
 * Every island has a default route to its router. Every router r has, for every other city j
 * that the routing topology connects to it, a route to j's access network whose next hop is the
 * city after r on WanTopology's route from any island whose route to j crosses r (the
 * tie-breaking of doc/schedule-model.rst, "Routes", makes the routes suffix consistent, so
 * destination-based forwarding reproduces them, asymmetric routes included); the object aborts,
 * naming two routes, when they are not. After installing, it walks the forwarding tables for
 * every ordered pair of islands the routing topology connects and aborts with a message naming
 * the pair if the path differs from WanTopology::GetRoute.
 *
 * Reroute replaces the routing topology by another state of the same WAN (links down or
 * repaired, WanTopology::WithLinksDown): the routes the object installed toward the access
 * networks are removed from every router, those of the new state installed and checked the same
 * way, then the Rerouted trace fires. A router has no route toward an island the new state does
 * not connect to it (a partitioned WAN): such packets are dropped there. The helper
 * (WanTopologyHelper) builds the nodes and links and hands this object the scenario's nodes,
 * devices, interfaces and addresses; doc/wan-training.rst describes routes and reroutes.
 */
class WanUnicastRouting : public Object
{
  public:
    /**
     * @brief The scenario's nodes, devices and addresses, by city and by directed link of the
     * topology.
     */
    struct Scenario
    {
        std::vector<Ptr<Node>> routers;           //!< router node per city
        std::vector<Ptr<Node>> islands;           //!< island node per city
        std::vector<Ipv4Address> islandAddresses; //!< island address per city
        std::vector<Ipv4Address> accessNetworks;  //!< access network per city
        Ipv4Mask accessMask;                      //!< mask of every access network
        std::vector<Ptr<NetDevice>> txDevices;    //!< per directed link: transmitting device
        std::vector<Ptr<NetDevice>> rxDevices;    //!< per directed link: receiving device
        std::vector<uint32_t> txInterfaces;       //!< per directed link: Ipv4 interface of Tx
        std::vector<Ipv4Address> rxAddresses;     //!< per directed link: address of Rx
    };

    /**
     * @brief Signature of the Rerouted trace.
     * @param routing the topology whose routes are installed from now on
     */
    typedef void (*RerouteTracedCallback)(const WanTopology& routing);

    /**
     * @brief Get the type ID.
     * @return the object TypeId
     */
    static TypeId GetTypeId();

    WanUnicastRouting();
    ~WanUnicastRouting() override;

    /**
     * @brief Give the object its WAN and install the routes of every island and router along
     * the topology's routes (once); aborts if they do not reproduce them.
     * @param topology the scenario's topology (the initial routing)
     * @param scenario its nodes, devices and addresses, sized by the topology's cities and
     *        directed links
     */
    void Install(const WanTopology& topology, const Scenario& scenario);
    /**
     * @brief Reinstall the routes of every router along the routes of another state of the
     * same WAN, now, and check them by walking the forwarding tables; then fire Rerouted.
     *
     * A packet follows the routes installed when it reaches each router.
     * @param routing the same cities and links (names and numbering), with its own down links
     */
    void Reroute(const WanTopology& routing);
    /** @return the topology whose routes are installed now (the initial one until Reroute) */
    const WanTopology& GetRouting() const;
    /**
     * @brief Follow the installed forwarding tables from one island to another.
     * @param src source city index
     * @param dst destination city index, different from src
     * @return the directed links a packet from src's island to dst's island crosses now, or an
     *         empty vector when a node on the way has no route
     */
    std::vector<uint32_t> GetForwardingPath(uint32_t src, uint32_t dst) const;

  protected:
    void DoDispose() override;

  private:
    /**
     * @brief Install the static routes of the routers along m_routing's routes (removing the
     * ones installed before).
     * @param caller the public method, for the messages
     */
    void InstallRoutes(const char* caller);
    /**
     * @brief Walk the forwarding tables for every connected ordered pair; compare with
     * m_routing.
     * @param caller the public method, for the messages
     */
    void VerifyRoutes(const char* caller) const;
    /**
     * @brief Follow the forwarding tables from one island to another.
     * @param src source city index
     * @param dst destination city index
     * @param caller the public method whose message names a node without a route, or null for
     *        an empty result instead
     * @return the directed links the forwarding tables send a packet along
     */
    std::vector<uint32_t> WalkForwarding(uint32_t src, uint32_t dst, const char* caller) const;
    /**
     * @param links directed links
     * @return their names, space separated
     */
    std::string DescribeLinks(const std::vector<uint32_t>& links) const;

    std::optional<WanTopology> m_routing;                  //!< the routing topology now
    Scenario m_scenario;                                   //!< nodes, devices and addresses
    std::map<const NetDevice*, uint32_t> m_linkOfTxDevice; //!< Tx device -> directed link
    TracedCallback<const WanTopology&> m_reroutedTrace;    //!< Rerouted
};

} // namespace ns3

#endif /* WAN_UNICAST_ROUTING_H */
