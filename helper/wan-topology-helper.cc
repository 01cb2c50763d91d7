/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "wan-topology-helper.h"

#include "aggregator-net-device.h"

#include "ns3/abort.h"
#include "ns3/data-rate.h"
#include "ns3/internet-stack-helper.h"
#include "ns3/ipv4-address-helper.h"
#include "ns3/ipv4-list-routing-helper.h"
#include "ns3/ipv4-static-routing-helper.h"
#include "ns3/log.h"
#include "ns3/mac48-address.h"
#include "ns3/names.h"
#include "ns3/net-device-queue-interface.h"
#include "ns3/nstime.h"
#include "ns3/point-to-point-channel.h"
#include "ns3/point-to-point-helper.h"
#include "ns3/point-to-point-net-device.h"
#include "ns3/queue-disc.h"
#include "ns3/queue-size.h"
#include "ns3/queue.h"
#include "ns3/traffic-control-helper.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("WanTrainingWanTopologyHelper");

namespace
{

/** First network of the WAN link /30 block (10.0.0.0/9). */
const uint32_t WAN_BLOCK_BASE = 0x0A000000;
/** First network of the access link /30 block (10.128.0.0/9). */
const uint32_t ACCESS_BLOCK_BASE = 0x0A800000;
/** Number of /30 networks in each block. */
const uint32_t NETWORKS_PER_BLOCK = 1u << 21;
/** The /30 mask every link uses. */
const Ipv4Mask LINK_MASK("255.255.255.252");
/** The device queue of every port: a FIFO of WanTopology::GetPortBufferBytes bytes. */
const char* const PORT_QUEUE = "ns3::DropTailQueue<Packet>";
/** The JSON path of the queue disc's name, for errors. */
const char* const QUEUE_DISC_NAME_PATH = "$.defaults.router_queue.name";

/**
 * @param gbps a capacity in Gbps
 * @return the same capacity as an ns-3 DataRate (bit/s, rounded to the nearest bit/s)
 */
DataRate
GbpsToDataRate(double gbps)
{
    return DataRate(static_cast<uint64_t>(std::llround(gbps * 1e9)));
}

/**
 * @param ms a latency in ms
 * @return the latency as an ns-3 Time (rounded to the simulator's resolution)
 */
Time
MsToTime(double ms)
{
    return Time::FromDouble(ms, Time::MS);
}

} // namespace

WanTopologyHelper::WanTopologyHelper(const WanTopology& topology)
    : m_topology(topology)
{
    NS_LOG_FUNCTION(this << topology.GetName());
    CheckRouterQueue(m_topology);
    m_aggregatorFactory.SetTypeId(AggregatorNetDevice::GetTypeId());
    m_fpgaFactory.SetTypeId(InlineFpga::GetTypeId());
}

void
WanTopologyHelper::CheckRouterQueue(const WanTopology& topology)
{
    const WanRouterQueue& queue = topology.GetRouterQueue();
    if (queue.type != WanRouterQueue::QUEUE_DISC)
    {
        return;
    }
    const std::string& name = queue.queueDiscName;
    TypeId tid;
    if (!TypeId::LookupByNameFailSafe(name, &tid))
    {
        throw WanInputError(topology.GetSourceName(),
                            QUEUE_DISC_NAME_PATH,
                            "unknown ns-3 TypeId '" + name +
                                "' (a queue disc such as \"ns3::FqCoDelQueueDisc\" or "
                                "\"ns3::FifoQueueDisc\")");
    }
    if (tid != QueueDisc::GetTypeId() && !tid.IsChildOf(QueueDisc::GetTypeId()))
    {
        throw WanInputError(topology.GetSourceName(),
                            QUEUE_DISC_NAME_PATH,
                            "'" + name + "' is not a queue disc (its parent is '" +
                                tid.GetParent().GetName() + "', not a subclass of ns3::QueueDisc)");
    }
    if (!tid.HasConstructor())
    {
        throw WanInputError(topology.GetSourceName(),
                            QUEUE_DISC_NAME_PATH,
                            "'" + name + "' cannot be created (an abstract queue disc)");
    }
}

const WanRouterQueue&
WanTopologyHelper::GetRouterQueue() const
{
    return m_topology.GetRouterQueue();
}

void
WanTopologyHelper::SetAggregationCities(const std::vector<uint32_t>& cities)
{
    ObjectFactory factory;
    factory.SetTypeId(AggregatorNetDevice::GetTypeId());
    SetAggregationCities(cities, factory);
}

void
WanTopologyHelper::SetAggregationCities(const std::vector<uint32_t>& cities,
                                        const ObjectFactory& factory)
{
    ObjectFactory fpgaFactory;
    fpgaFactory.SetTypeId(InlineFpga::GetTypeId());
    SetAggregationCities(cities, factory, fpgaFactory, ACCESS_PORT);
}

void
WanTopologyHelper::SetAggregationCities(const std::vector<uint32_t>& cities,
                                        const ObjectFactory& factory,
                                        const ObjectFactory& fpgaFactory,
                                        FpgaPorts ports)
{
    NS_LOG_FUNCTION(this << cities.size());
    NS_ABORT_MSG_IF(m_installed,
                    "WanTopologyHelper::SetAggregationCities(): call it before Install() (the "
                    "devices are created by Install())");
    TypeId tid = factory.GetTypeId();
    NS_ABORT_MSG_UNLESS(
        tid == AggregatorNetDevice::GetTypeId() || tid.IsChildOf(AggregatorNetDevice::GetTypeId()),
        "WanTopologyHelper::SetAggregationCities(): the factory creates "
            << tid.GetName() << ", not an " << AggregatorNetDevice::GetTypeId().GetName());
    std::vector<uint32_t> chosen;
    for (uint32_t city : cities)
    {
        NS_ABORT_MSG_UNLESS(city < m_topology.GetNCities(),
                            "WanTopologyHelper::SetAggregationCities(): unknown city index "
                                << city << " (topology '" << m_topology.GetName() << "' has "
                                << m_topology.GetNCities() << " cities)");
        chosen.push_back(city);
    }
    std::sort(chosen.begin(), chosen.end());
    chosen.erase(std::unique(chosen.begin(), chosen.end()), chosen.end());
    m_aggregationCities = chosen;
    m_aggregatorFactory = factory;
    m_fpgaFactory = fpgaFactory;
    m_fpgaPorts = ports;
}

WanTopologyHelper::FpgaPorts
WanTopologyHelper::GetFpgaPorts() const
{
    return m_fpgaPorts;
}

Ptr<InlineFpga>
WanTopologyHelper::GetFpga(uint32_t city) const
{
    CheckCity(city, "GetFpga");
    return m_routers.Get(city)->GetObject<InlineFpga>();
}

std::vector<uint32_t>
WanTopologyHelper::GetAggregationCities() const
{
    return m_aggregationCities;
}

Ptr<AggregatorNetDevice>
WanTopologyHelper::GetAggregator(uint32_t city) const
{
    CheckCity(city, "GetAggregator");
    return DynamicCast<AggregatorNetDevice>(m_aggregators[city]);
}

void
WanTopologyHelper::Install()
{
    NS_LOG_FUNCTION(this);
    NS_ABORT_MSG_IF(m_installed,
                    "WanTopologyHelper::Install(): called twice for topology '"
                        << m_topology.GetName() << "' (the scenario can be built only once)");
    NS_ABORT_MSG_IF(m_topology.GetNLinks() > NETWORKS_PER_BLOCK ||
                        m_topology.GetNCities() > NETWORKS_PER_BLOCK,
                    "WanTopologyHelper::Install(): topology '"
                        << m_topology.GetName() << "' has more than " << NETWORKS_PER_BLOCK
                        << " links or cities, more than the address plan holds");
    m_installed = true;
    CreateNodes();

    // Routers: a bare Ipv4StaticRouting (unicast routes, and the multicast routes of
    // PimMulticastHelper). Islands: Ipv4StaticRouting at priority 0 inside an Ipv4ListRouting,
    // because in ns-3.37 only Ipv4ListRouting hands multicast datagrams to the node's sockets.
    InternetStackHelper routerStack;
    routerStack.SetIpv6StackInstall(false);
    routerStack.SetRoutingHelper(Ipv4StaticRoutingHelper());
    routerStack.Install(m_routers);
    Ipv4ListRoutingHelper islandRouting;
    islandRouting.Add(Ipv4StaticRoutingHelper(), 0);
    InternetStackHelper islandStack;
    islandStack.SetIpv6StackInstall(false);
    islandStack.SetRoutingHelper(islandRouting);
    islandStack.Install(m_islands);

    CreateLinks();
    WanUnicastRouting::Scenario scenario;
    for (uint32_t i = 0; i < m_topology.GetNCities(); ++i)
    {
        scenario.routers.push_back(m_routers.Get(i));
        scenario.islands.push_back(m_islands.Get(i));
    }
    scenario.islandAddresses = m_islandAddresses;
    scenario.accessNetworks = m_accessNetworks;
    scenario.accessMask = LINK_MASK;
    scenario.txDevices = m_txDevices;
    scenario.rxDevices = m_rxDevices;
    scenario.txInterfaces = m_txInterfaces;
    scenario.rxAddresses = m_rxAddresses;
    m_unicast = CreateObject<WanUnicastRouting>();
    m_unicast->Install(m_topology, scenario);
}

void
WanTopologyHelper::CreateNodes()
{
    NS_LOG_FUNCTION(this);
    uint32_t n = m_topology.GetNCities();
    m_routers.Create(n);
    m_islands.Create(n);
    for (uint32_t i = 0; i < n; ++i)
    {
        const std::string& id = m_topology.GetCity(i).id;
        for (const std::string& name : {id, id + "-island"})
        {
            NS_ABORT_MSG_IF(
                Names::Find<Object>(name),
                "WanTopologyHelper::Install(): the name '"
                    << name << "' of city '" << id
                    << "' is already taken (one WanTopologyHelper per simulation; ns3::Names "
                       "outlive Simulator::Destroy(), so call Names::Clear() before "
                       "building another scenario in the same process)");
        }
        Names::Add(id, m_routers.Get(i));
        Names::Add(id + "-island", m_islands.Get(i));
    }
}

void
WanTopologyHelper::CreateLinks()
{
    NS_LOG_FUNCTION(this);
    uint32_t nDirected = m_topology.GetNDirectedLinks();
    m_txDevices.assign(nDirected, nullptr);
    m_rxDevices.assign(nDirected, nullptr);
    m_txInterfaces.assign(nDirected, 0);
    m_rxInterfaces.assign(nDirected, 0);
    m_rxAddresses.assign(nDirected, Ipv4Address());

    // Connect first and second with a /30 network; the directed link first -> second is
    // forward, second -> first is backward.
    // The first device is created by firstFactory when it is given (an aggregator), else
    // PointToPointHelper builds the link. Every device queue holds the port's buffer of bytes;
    // with a queue disc model each port with flow control gets the disc before the addresses
    // are assigned (so Ipv4AddressHelper installs no default one), without it no port has one.
    const WanRouterQueue& queueModel = m_topology.GetRouterQueue();
    const bool queueDisc = queueModel.type == WanRouterQueue::QUEUE_DISC;
    auto connect = [this, &queueModel, queueDisc](Ptr<Node> first,
                                                  Ptr<Node> second,
                                                  DataRate rate,
                                                  Time delay,
                                                  uint32_t mtu,
                                                  uint32_t network,
                                                  uint32_t forward,
                                                  uint32_t backward,
                                                  const ObjectFactory* firstFactory,
                                                  const ObjectFactory* secondFactory) {
        NetDeviceContainer devices;
        // Both directions of a link have the same rate, hence the same buffer.
        const uint32_t bufferBytes = m_topology.GetPortBufferBytes(forward);
        NS_ASSERT(bufferBytes == m_topology.GetPortBufferBytes(backward));
        if (firstFactory || secondFactory)
        {
            devices = InstallLink(first,
                                  second,
                                  firstFactory,
                                  secondFactory,
                                  rate,
                                  delay,
                                  mtu,
                                  bufferBytes);
        }
        else
        {
            PointToPointHelper p2p;
            p2p.SetDeviceAttribute("DataRate", DataRateValue(rate));
            p2p.SetDeviceAttribute("Mtu", UintegerValue(mtu));
            p2p.SetChannelAttribute("Delay", TimeValue(delay));
            p2p.SetQueue(PORT_QUEUE,
                         "MaxSize",
                         QueueSizeValue(QueueSize(QueueSizeUnit::BYTES, bufferBytes)));
            if (!queueDisc)
            {
                // No NetDeviceQueueInterface: Ipv4AddressHelper installs no queue disc, and a
                // frame the full FIFO refuses is the device's drop (MacTxDrop).
                p2p.DisableFlowControl();
            }
            devices = p2p.Install(first, second);
        }
        if (queueDisc)
        {
            TrafficControlHelper discs;
            discs.SetRootQueueDisc(queueModel.queueDiscName);
            for (uint32_t k = 0; k < devices.GetN(); ++k)
            {
                // An FPGA port has no flow control, hence no queue disc (its FIFO is hardware).
                if (devices.Get(k)->GetObject<NetDeviceQueueInterface>())
                {
                    discs.Install(devices.Get(k));
                }
            }
        }

        Ipv4AddressHelper addresses(Ipv4Address(network), LINK_MASK);
        Ipv4InterfaceContainer interfaces = addresses.Assign(devices);

        const uint32_t direction[2] = {forward, backward};
        for (uint32_t k = 0; k < 2; ++k)
        {
            uint32_t d = direction[k];
            m_txDevices[d] = devices.Get(k);
            m_rxDevices[d] = devices.Get(1 - k);
            m_txInterfaces[d] = interfaces.Get(k).second;
            m_rxInterfaces[d] = interfaces.Get(1 - k).second;
            m_rxAddresses[d] = interfaces.GetAddress(1 - k);
            m_linkOfTxDevice[PeekPointer(devices.Get(k))] = d;
        }
    };

    // One FPGA per city that has one, shared by its ports.
    auto hasFpga = [this](uint32_t city) {
        return std::binary_search(m_aggregationCities.begin(), m_aggregationCities.end(), city);
    };
    for (uint32_t city : m_aggregationCities)
    {
        Ptr<InlineFpga> fpga = m_fpgaFactory.Create<InlineFpga>();
        fpga->SetCity(city);
        m_routers.Get(city)->AggregateObject(fpga);
    }
    const bool wanPorts = m_fpgaPorts == EVERY_PORT;
    for (uint32_t l = 0; l < m_topology.GetNLinks(); ++l)
    {
        const WanLink& link = m_topology.GetLink(l);
        const uint32_t forward = m_topology.GetWanDirectedLink(link.a, link.b);
        const uint32_t backward = m_topology.GetWanDirectedLink(link.b, link.a);
        const bool portA = wanPorts && hasFpga(link.a);
        const bool portB = wanPorts && hasFpga(link.b);
        connect(m_routers.Get(link.a),
                m_routers.Get(link.b),
                GbpsToDataRate(link.capacityGbps),
                MsToTime(link.latencyMs),
                m_topology.GetDeviceMtuBytes(link.mtuBytes),
                WAN_BLOCK_BASE + 4 * l,
                forward,
                backward,
                portA ? &m_aggregatorFactory : nullptr,
                portB ? &m_aggregatorFactory : nullptr);
        // A WAN port's own address is the receiver's address of the opposite direction.
        const uint32_t ends[2][3] = {{link.a, forward, backward}, {link.b, backward, forward}};
        for (const auto& [city, out, in] : ends)
        {
            if (Ptr<AggregatorNetDevice> port = DynamicCast<AggregatorNetDevice>(m_txDevices[out]))
            {
                port->SetRouterPort(city, m_rxAddresses[in]);
                port->SetFpga(m_routers.Get(city)->GetObject<InlineFpga>());
                NS_LOG_INFO("city " << m_topology.GetCity(city).id << ": FPGA port on "
                                    << m_topology.GetDirectedLinkName(out));
            }
        }
    }

    m_islandAddresses.assign(m_topology.GetNCities(), Ipv4Address());
    m_accessNetworks.assign(m_topology.GetNCities(), Ipv4Address());
    m_aggregators.assign(m_topology.GetNCities(), nullptr);
    for (uint32_t i = 0; i < m_topology.GetNCities(); ++i)
    {
        const WanCity& city = m_topology.GetCity(i);
        bool aggregated =
            std::binary_search(m_aggregationCities.begin(), m_aggregationCities.end(), i);
        uint32_t network = ACCESS_BLOCK_BASE + 4 * i;
        uint32_t up = m_topology.GetAccessUpLink(i);
        uint32_t down = m_topology.GetAccessDownLink(i);
        // The router is the first endpoint so that it gets network + 1 and the island network + 2.
        connect(m_routers.Get(i),
                m_islands.Get(i),
                GbpsToDataRate(city.accessCapacityGbps),
                MsToTime(city.accessLatencyMs),
                m_topology.GetDeviceMtuBytes(m_topology.GetDefaultMtuBytes()),
                network,
                down,
                up,
                aggregated ? &m_aggregatorFactory : nullptr,
                nullptr);
        m_accessNetworks[i] = Ipv4Address(network);
        m_islandAddresses[i] = m_rxAddresses[down];
        NS_LOG_INFO("city " << city.id << ": island " << m_islandAddresses[i]);
        if (aggregated)
        {
            Ptr<AggregatorNetDevice> aggregator =
                DynamicCast<AggregatorNetDevice>(m_txDevices[down]);
            // The router's address on the access link is the receiver's address of A:up.
            aggregator->SetIsland(i, m_islandAddresses[i], m_rxAddresses[up]);
            aggregator->SetFpga(m_routers.Get(i)->GetObject<InlineFpga>());
            m_aggregators[i] = aggregator;
            NS_LOG_INFO("city " << city.id << ": in-line aggregator on " << city.id << ":down");
        }
    }
}

NetDeviceContainer
WanTopologyHelper::InstallLink(Ptr<Node> first,
                               Ptr<Node> second,
                               const ObjectFactory* firstFactory,
                               const ObjectFactory* secondFactory,
                               DataRate rate,
                               Time delay,
                               uint32_t mtu,
                               uint32_t bufferBytes) const
{
    NS_LOG_FUNCTION(this << first << second << rate << delay << mtu << bufferBytes);
    const bool flowControl = m_topology.GetRouterQueue().type == WanRouterQueue::QUEUE_DISC;
    ObjectFactory queueFactory;
    queueFactory.SetTypeId(PORT_QUEUE);
    queueFactory.Set("MaxSize", QueueSizeValue(QueueSize(QueueSizeUnit::BYTES, bufferBytes)));
    const ObjectFactory* factories[2] = {firstFactory, secondFactory};
    Ptr<PointToPointNetDevice> devices[2] = {
        firstFactory ? firstFactory->Create<PointToPointNetDevice>()
                     : CreateObject<PointToPointNetDevice>(),
        secondFactory ? secondFactory->Create<PointToPointNetDevice>()
                      : CreateObject<PointToPointNetDevice>()};
    Ptr<Node> nodes[2] = {first, second};
    NetDeviceContainer container;
    for (uint32_t k = 0; k < 2; ++k)
    {
        Ptr<PointToPointNetDevice> device = devices[k];
        device->SetAttribute("DataRate", DataRateValue(rate));
        device->SetAttribute("Mtu", UintegerValue(mtu));
        device->SetAddress(Mac48Address::Allocate());
        nodes[k]->AddDevice(device);
        Ptr<Queue<Packet>> queue = queueFactory.Create<Queue<Packet>>();
        device->SetQueue(queue);
        // A router's FPGA port: its egress FIFO is the device queue, without flow control
        // toward the traffic control layer (hence without a queue disc) whatever the model.
        // Another device has flow control (as PointToPointHelper enables it) only in front of
        // a queue disc.
        if (factories[k] == nullptr && flowControl)
        {
            Ptr<NetDeviceQueueInterface> queueInterface = CreateObject<NetDeviceQueueInterface>();
            queueInterface->GetTxQueue(0)->ConnectQueueTraces(queue);
            device->AggregateObject(queueInterface);
        }
        container.Add(device);
    }
    Ptr<PointToPointChannel> channel = CreateObject<PointToPointChannel>();
    channel->SetAttribute("Delay", TimeValue(delay));
    devices[0]->Attach(channel);
    devices[1]->Attach(channel);
    return container;
}

const WanTopology&
WanTopologyHelper::GetTopology() const
{
    return m_topology;
}

void
WanTopologyHelper::Reroute(const WanTopology& routing)
{
    NS_LOG_FUNCTION(this << routing.GetDownLinks().size());
    NS_ABORT_MSG_UNLESS(m_installed, "WanTopologyHelper::Reroute(): call Install() first");
    m_unicast->Reroute(routing);
}

const WanTopology&
WanTopologyHelper::GetRouting() const
{
    return m_unicast ? m_unicast->GetRouting() : m_topology;
}

std::vector<uint32_t>
WanTopologyHelper::GetForwardingPath(uint32_t src, uint32_t dst) const
{
    CheckCity(src, "GetForwardingPath");
    CheckCity(dst, "GetForwardingPath");
    NS_ABORT_MSG_IF(src == dst, "WanTopologyHelper::GetForwardingPath(): src == dst");
    return m_unicast->GetForwardingPath(src, dst);
}

Ptr<WanUnicastRouting>
WanTopologyHelper::GetUnicastRouting() const
{
    NS_ABORT_MSG_UNLESS(m_installed,
                        "WanTopologyHelper::GetUnicastRouting(): call Install() first");
    return m_unicast;
}

void
WanTopologyHelper::CheckCity(uint32_t city, const char* caller) const
{
    NS_ABORT_MSG_UNLESS(m_installed, "WanTopologyHelper::" << caller << "(): call Install() first");
    NS_ABORT_MSG_UNLESS(city < m_topology.GetNCities(),
                        "WanTopologyHelper::" << caller << "(): unknown city index " << city
                                              << " (topology '" << m_topology.GetName() << "' has "
                                              << m_topology.GetNCities() << " cities)");
}

void
WanTopologyHelper::CheckDirectedLink(uint32_t directedLink, const char* caller) const
{
    NS_ABORT_MSG_UNLESS(m_installed, "WanTopologyHelper::" << caller << "(): call Install() first");
    NS_ABORT_MSG_UNLESS(directedLink < m_topology.GetNDirectedLinks(),
                        "WanTopologyHelper::"
                            << caller << "(): unknown directed link " << directedLink
                            << " (topology '" << m_topology.GetName() << "' has "
                            << m_topology.GetNDirectedLinks() << " directed links)");
}

Ptr<Node>
WanTopologyHelper::GetRouter(uint32_t city) const
{
    CheckCity(city, "GetRouter");
    return m_routers.Get(city);
}

Ptr<Node>
WanTopologyHelper::GetIsland(uint32_t city) const
{
    CheckCity(city, "GetIsland");
    return m_islands.Get(city);
}

NodeContainer
WanTopologyHelper::GetRouters() const
{
    NS_ABORT_MSG_UNLESS(m_installed, "WanTopologyHelper::GetRouters(): call Install() first");
    return m_routers;
}

NodeContainer
WanTopologyHelper::GetIslands() const
{
    NS_ABORT_MSG_UNLESS(m_installed, "WanTopologyHelper::GetIslands(): call Install() first");
    return m_islands;
}

Ipv4Address
WanTopologyHelper::GetIslandAddress(uint32_t city) const
{
    CheckCity(city, "GetIslandAddress");
    return m_islandAddresses[city];
}

Ptr<NetDevice>
WanTopologyHelper::GetTxDevice(uint32_t directedLink) const
{
    CheckDirectedLink(directedLink, "GetTxDevice");
    return m_txDevices[directedLink];
}

Ptr<NetDevice>
WanTopologyHelper::GetRxDevice(uint32_t directedLink) const
{
    CheckDirectedLink(directedLink, "GetRxDevice");
    return m_rxDevices[directedLink];
}

uint32_t
WanTopologyHelper::GetTxInterface(uint32_t directedLink) const
{
    CheckDirectedLink(directedLink, "GetTxInterface");
    return m_txInterfaces[directedLink];
}

uint32_t
WanTopologyHelper::GetRxInterface(uint32_t directedLink) const
{
    CheckDirectedLink(directedLink, "GetRxInterface");
    return m_rxInterfaces[directedLink];
}

uint32_t
WanTopologyHelper::GetDirectedLinkOfTxDevice(Ptr<const NetDevice> device) const
{
    NS_ABORT_MSG_UNLESS(m_installed,
                        "WanTopologyHelper::GetDirectedLinkOfTxDevice(): call Install() first");
    auto it = m_linkOfTxDevice.find(PeekPointer(device));
    NS_ABORT_MSG_IF(it == m_linkOfTxDevice.end(),
                    "WanTopologyHelper::GetDirectedLinkOfTxDevice(): the device is not one of the "
                    "point-to-point devices of topology '"
                        << m_topology.GetName() << "'");
    return it->second;
}

} // namespace ns3
