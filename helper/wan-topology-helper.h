/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef WAN_TOPOLOGY_HELPER_H
#define WAN_TOPOLOGY_HELPER_H

#include "wan-topology.h"
#include "wan-unicast-routing.h"

#include "ns3/data-rate.h"
#include "ns3/ipv4-address.h"
#include "ns3/net-device-container.h"
#include "ns3/net-device.h"
#include "ns3/node-container.h"
#include "ns3/nstime.h"
#include "ns3/object-factory.h"
#include "ns3/ptr.h"

#include <cstdint>
#include <map>
#include <vector>

namespace ns3
{

class AggregatorNetDevice;
class InlineFpga;

/**
 * @ingroup wan-training
 * @brief Builds the ns-3 scenario of a WanTopology: nodes, point-to-point links, IPv4 addresses,
 * and the routing object that installs static unicast routes along exactly the topology's routes.
 *
 * Install() creates, for every city (index i, id `ID`):
 * - a router node named `ID` (ns3::Names) and an island node named `ID-island`;
 * - an access link island <-> router: a point-to-point link with the city's access capacity
 *   (DataRate of both devices), access latency (channel Delay, may be 0) and the topology's default
 *   MTU (WanTopology::GetDefaultMtuBytes);
 *
 * and for every WAN link a point-to-point link between the two routers with the JSON's
 * `capacity_gbps` (DataRate), `latency_ms` (Delay) and `mtu_bytes` (Mtu). With coarse frames
 * (WanTopology::GetFrameBytes) every device's Mtu is the simulation frame instead, so that a
 * coarse chunk is never an IPv4 fragment (WanTopology::GetDeviceMtuBytes). Every node gets an
 * IPv4-only InternetStack with static routing only (no global routing):
 * - routers run a bare Ipv4StaticRouting (the unicast routes below, and the multicast routes
 *   PimMulticastHelper adds);
 * - islands run an Ipv4ListRouting holding one Ipv4StaticRouting at priority 0. In ns-3.37 only
 *   Ipv4ListRouting delivers a multicast datagram to the node's own sockets (a bare
 *   Ipv4StaticRouting only forwards multicast), so this is what lets an island receive its
 *   clique's multicast groups. Ipv4StaticRoutingHelper::GetStaticRouting finds the inner
 *   Ipv4StaticRouting as usual.
 *
 * Addresses (every link is a /30; the lower address belongs to the first endpoint):
 * - WAN link l: network 10.0.0.0 + 4 l; city `a` of the link gets network + 1, city `b`
 *   network + 2. The block 10.0.0.0/9 holds 2^21 links.
 * - access link of city i: network 10.128.0.0 + 4 i; the router gets network + 1, the island
 *   network + 2 (GetIslandAddress). The block 10.128.0.0/9 holds 2^21 cities.
 * The addresses are registered with ns-3's Ipv4AddressGenerator, so a collision with addresses
 * assigned elsewhere in the same simulation aborts.
 *
 * Routes: Install() hands the nodes, devices and addresses to one WanUnicastRouting object
 * (GetUnicastRouting), which installs the static unicast routes of every island and router
 * along exactly WanTopology's routes, checks them by walking the forwarding tables, and
 * reinstalls them on a reroute (links down or repaired); the helper's Reroute, GetRouting and
 * GetForwardingPath hand over to it.
 *
 * Devices are identified by WanTopology's directed-link numbering (GetTxDevice, GetRxDevice); the
 * helper makes no assumption about device or interface indices (node device 0 and Ipv4 interface 0
 * are the loopback).
 *
 * Names persist across Simulator::Destroy() (ns-3 behaviour): a program that builds a second
 * scenario in the same process calls Names::Clear() first, or Install() aborts on the taken names.
 *
 * Queues: every port (both devices of every WAN and access link) gets the topology's queue
 * model (WanTopology::GetRouterQueue, `defaults.router_queue`; GetRouterQueue): a
 * DropTailQueue device queue of WanTopology::GetPortBufferBytes bytes of frames (`buffer_ms` of
 * the port's DataRate, at least WanRouterQueue::MIN_BUFFER_BYTES), and
 * - drop_tail (the default): nothing else. No device carries a NetDeviceQueueInterface, so
 *   Ipv4AddressHelper installs no queue disc (not ns-3's default FqCoDel) and the traffic
 *   control layer hands every packet straight to the device: a frame the full FIFO refuses is
 *   dropped by the device and traced (MacTxDrop, the queue's Drop).
 * - queue_disc: the named queue disc (default attributes) as the root queue disc of every port
 *   but the FPGA ports, in front of the device queue with flow control (as PointToPointHelper
 *   enables it). The constructor checks the name (CheckRouterQueue).
 *
 * A router's FPGA port (an in-line aggregator, below) has the same byte FIFO and never a queue
 * disc or flow control, whatever the model: it is the egress FIFO of a hardware switch port.
 * Every contribution the FPGA absorbs crosses that port, and a queue disc there (enqueue,
 * dequeue, its traces) costs about 6 % of a both-mode run (benchmarks/README.md) for packets
 * that never wait. To study a queue disc there, aggregate a NetDeviceQueueInterface to
 * GetTxDevice of `A:down` (connected to its queue) and install the disc with
 * TrafficControlHelper after Install().
 *
 * In-line aggregation: before Install(), SetAggregationCities() chooses the cities whose router
 * has an in-line FPGA (one InlineFpga per router, aggregated to the router's Node) and which of
 * its ports are FPGA ports: the router-side access device (the transmitting device of
 * `A:down`, ACCESS_PORT: what aggregation and both modes sum on), or that and every WAN port of
 * the router (EVERY_PORT: tree mode sums on the in-trees). An FPGA port is an
 * AggregatorNetDevice instead of a PointToPointNetDevice, with the FIFO described above (a
 * WAN FPGA port is the egress FIFO of a hardware switch port as well). That link is built like
 * every other one (same DataRate, Mtu, Delay, same MAC allocation order, addresses, routes and
 * queue model on the other end, the router's port the FIFO above); after addressing, Install()
 * calls AggregatorNetDevice::SetIsland with the city index, the island's address and the router's
 * address on the access link. The device has no expectations yet, so it forwards everything
 * unchanged until AggregatorHelper configures it. The topology's `capabilities.aggregation` flag is
 * AggregatorHelper's policy; this mechanism does not check it.
 */
class WanTopologyHelper
{
  public:
    /**
     * @brief Create a helper for a topology.
     * @param topology the topology (copied)
     * @throws WanInputError when its queue model names no queue disc (CheckRouterQueue)
     */
    explicit WanTopologyHelper(const WanTopology& topology);

    /**
     * @brief Check that a topology's queue model can be installed: a `queue_disc` must name an
     * ns-3 TypeId that exists, is a QueueDisc and can be created (the analytic WanTopology
     * cannot look TypeIds up). The constructor calls it.
     * @param topology the topology
     * @throws WanInputError naming the topology's file, `$.defaults.router_queue.name` and the
     *         reason
     */
    static void CheckRouterQueue(const WanTopology& topology);

    /** @return the queue model installed on every port (the topology's) */
    const WanRouterQueue& GetRouterQueue() const;

    /**
     * @brief Build the scenario: nodes, links, InternetStack, addresses and static routes.
     *
     * May be called once; aborts if called again, if a node name is already taken, or if the
     * installed forwarding does not reproduce WanTopology's routes.
     */
    void Install();

    /** Which ports of a router with an FPGA are FPGA ports. */
    enum FpgaPorts
    {
        ACCESS_PORT, //!< the port toward the city's island (aggregation, both)
        EVERY_PORT,  //!< that and every WAN port (tree)
    };

    /**
     * @brief Before Install(): make the router-side access device of these cities an
     * AggregatorNetDevice with default attributes (replaces an earlier choice).
     * @param cities city indices (duplicates are ignored)
     */
    void SetAggregationCities(const std::vector<uint32_t>& cities);
    /**
     * @brief Before Install(): make the router-side access device of these cities an
     * AggregatorNetDevice created by a factory (replaces an earlier choice).
     * @param cities city indices (duplicates are ignored)
     * @param factory creates the devices; its TypeId must be AggregatorNetDevice or a subclass
     *        (its attributes are applied; DataRate and Mtu are then set from the topology)
     */
    void SetAggregationCities(const std::vector<uint32_t>& cities, const ObjectFactory& factory);
    /**
     * @brief Before Install(): give these cities' routers an FPGA made by a factory, with FPGA
     * ports made by another (replaces an earlier choice).
     * @param cities city indices (duplicates are ignored)
     * @param factory creates the ports; its TypeId must be AggregatorNetDevice or a subclass
     *        (its attributes are applied; DataRate and Mtu are then set from the topology)
     * @param fpgaFactory creates the routers' InlineFpga (SlotCount, LineRate)
     * @param ports which ports of those routers are FPGA ports
     */
    void SetAggregationCities(const std::vector<uint32_t>& cities,
                              const ObjectFactory& factory,
                              const ObjectFactory& fpgaFactory,
                              FpgaPorts ports);
    /** @return which ports of the cities with an FPGA are FPGA ports */
    FpgaPorts GetFpgaPorts() const;
    /**
     * @param city a city index
     * @return the city router's FPGA, or null when it has none
     */
    Ptr<InlineFpga> GetFpga(uint32_t city) const;
    /** @return the cities chosen by SetAggregationCities, in increasing order */
    std::vector<uint32_t> GetAggregationCities() const;
    /**
     * @param city a city index
     * @return the city's in-line aggregator (GetTxDevice of `A:down`), or null when the city
     *         has none
     */
    Ptr<AggregatorNetDevice> GetAggregator(uint32_t city) const;

    /** @return the topology (the helper's copy, as given: every link up) */
    const WanTopology& GetTopology() const;

    /**
     * @brief Reinstall the unicast routes of every router along the routes of another state of
     * the same WAN, e.g. after a link failure (WanTopology::WithLinksDown) or its repair: calls
     * WanUnicastRouting::Reroute on GetUnicastRouting(), which checks the new routes by walking
     * the forwarding tables and leaves a router without a route toward an island that `routing`
     * does not connect to it. Call it after Install(), at any time of the simulation.
     * @param routing the same cities and links (names and numbering), with its own down links
     */
    void Reroute(const WanTopology& routing);
    /** @return the topology whose routes are installed now (GetTopology() until Reroute) */
    const WanTopology& GetRouting() const;
    /**
     * @brief Follow the installed forwarding tables from one island to another
     * (WanUnicastRouting::GetForwardingPath).
     * @param src source city index
     * @param dst destination city index, different from src
     * @return the directed links a packet from src's island to dst's island crosses now, or an
     *         empty vector when a node on the way has no route
     */
    std::vector<uint32_t> GetForwardingPath(uint32_t src, uint32_t dst) const;
    /**
     * @return the routing object that owns the unicast routes and reinstalls them on a reroute
     * (e.g. for a fault injector's reroute callback, or to connect its Rerouted trace)
     */
    Ptr<WanUnicastRouting> GetUnicastRouting() const;

    /**
     * @param city a city index
     * @return the router node of the city (named with the city id)
     */
    Ptr<Node> GetRouter(uint32_t city) const;
    /**
     * @param city a city index
     * @return the island node of the city (named `ID-island`)
     */
    Ptr<Node> GetIsland(uint32_t city) const;
    /** @return the router nodes, in city index order */
    NodeContainer GetRouters() const;
    /** @return the island nodes, in city index order */
    NodeContainer GetIslands() const;

    /**
     * @param city a city index
     * @return the IPv4 address of the city's island (on its access link)
     */
    Ipv4Address GetIslandAddress(uint32_t city) const;

    /**
     * @brief The transmitting device of a directed link.
     *
     * For `A->B` the device of router A facing B; for `A:up` the island's access device; for
     * `A:down` the router's device facing the island.
     * @param directedLink a directed link (WanTopology numbering)
     * @return the device
     */
    Ptr<NetDevice> GetTxDevice(uint32_t directedLink) const;
    /**
     * @param directedLink a directed link (WanTopology numbering)
     * @return the receiving device: the other end of GetTxDevice's channel
     */
    Ptr<NetDevice> GetRxDevice(uint32_t directedLink) const;
    /**
     * @param directedLink a directed link (WanTopology numbering)
     * @return the Ipv4 interface index of GetTxDevice(directedLink) on its node
     */
    uint32_t GetTxInterface(uint32_t directedLink) const;
    /**
     * @param directedLink a directed link (WanTopology numbering)
     * @return the Ipv4 interface index of GetRxDevice(directedLink) on its node
     */
    uint32_t GetRxInterface(uint32_t directedLink) const;
    /**
     * @brief The inverse of GetTxDevice; aborts for a device the helper did not create.
     * @param device a device created by Install()
     * @return the directed link the device transmits on
     */
    uint32_t GetDirectedLinkOfTxDevice(Ptr<const NetDevice> device) const;

  private:
    /**
     * @brief Abort unless Install() has run and the city index is valid.
     * @param city a city index
     * @param caller the public method's name, for the message
     */
    void CheckCity(uint32_t city, const char* caller) const;
    /**
     * @brief Abort unless Install() has run and the directed link index is valid.
     * @param directedLink a directed link index
     * @param caller the public method's name, for the message
     */
    void CheckDirectedLink(uint32_t directedLink, const char* caller) const;
    /** Create the nodes and give them their names. */
    void CreateNodes();
    /** Create the point-to-point links and assign their addresses. */
    void CreateLinks();
    /**
     * @brief Build a link with an FPGA port at one end or both: an FPGA port is created by a
     * factory, has a DropTailQueue of bufferBytes and no NetDeviceQueueInterface (so no queue
     * disc); a device without factory is built the way PointToPointHelper::Install builds one
     * with the same queue (flow control only with a queue disc model).
     * @param first the first node
     * @param second the second node
     * @param firstFactory creates the first node's device (a PointToPointNetDevice subclass),
     *        or nullptr
     * @param secondFactory creates the second node's device, or nullptr
     * @param rate the DataRate of both devices
     * @param delay the channel delay
     * @param mtu the Mtu of both devices
     * @param bufferBytes the MaxSize of both device queues, bytes
     * @return the two devices, first then second
     */
    NetDeviceContainer InstallLink(Ptr<Node> first,
                                   Ptr<Node> second,
                                   const ObjectFactory* firstFactory,
                                   const ObjectFactory* secondFactory,
                                   DataRate rate,
                                   Time delay,
                                   uint32_t mtu,
                                   uint32_t bufferBytes) const;
    WanTopology m_topology;                     //!< the topology (a copy)
    bool m_installed{false};                    //!< whether Install() has run
    NodeContainer m_routers;                    //!< router per city
    NodeContainer m_islands;                    //!< island per city
    std::vector<Ipv4Address> m_islandAddresses; //!< island address per city
    std::vector<Ipv4Address> m_accessNetworks;  //!< access /30 network per city
    std::vector<Ptr<NetDevice>> m_txDevices;    //!< transmitting device per directed link
    std::vector<Ptr<NetDevice>> m_rxDevices;    //!< receiving device per directed link
    std::vector<uint32_t> m_txInterfaces;       //!< Ipv4 interface of the Tx device
    std::vector<uint32_t> m_rxInterfaces;       //!< Ipv4 interface of the Rx device
    std::vector<Ipv4Address> m_rxAddresses;     //!< address of the Rx device's interface
    std::map<const NetDevice*, uint32_t> m_linkOfTxDevice; //!< Tx device -> directed link
    std::vector<uint32_t> m_aggregationCities;             //!< cities with an aggregator
    ObjectFactory m_aggregatorFactory;                     //!< creates the aggregators
    ObjectFactory m_fpgaFactory;                           //!< creates the routers' FPGAs
    FpgaPorts m_fpgaPorts{ACCESS_PORT};                    //!< which ports are FPGA ports
    std::vector<Ptr<NetDevice>> m_aggregators;             //!< aggregator per city, or null
    Ptr<WanUnicastRouting> m_unicast;                      //!< the unicast routes (once installed)
};

} // namespace ns3

#endif /* WAN_TOPOLOGY_HELPER_H */
