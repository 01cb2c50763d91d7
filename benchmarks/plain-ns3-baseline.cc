/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "plain-ns3-baseline.h"

#include "group-copy-discard-queue.h"
#include "island-sync-header.h"
#include "pim-multicast-helper.h"
#include "training-island-application.h"
#include "wan-topology-helper.h"

#include "ns3/abort.h"
#include "ns3/application-container.h"
#include "ns3/inet-socket-address.h"
#include "ns3/ipv4.h"
#include "ns3/log.h"
#include "ns3/names.h"
#include "ns3/node.h"
#include "ns3/packet-sink-helper.h"
#include "ns3/packet-sink.h"
#include "ns3/point-to-point-net-device.h"
#include "ns3/queue-disc.h"
#include "ns3/queue.h"
#include "ns3/simulator.h"
#include "ns3/traffic-control-layer.h"
#include "ns3/udp-client-server-helper.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <memory>
#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("WanTrainingPlainNs3Baseline");

namespace
{

/** The UDP port of every flow (the module's port, so packets look alike on the wire). */
constexpr uint16_t PORT = TrainingIslandApplication::DEFAULT_PORT;

/** Seconds since a steady-clock instant. */
double
SecondsSince(std::chrono::steady_clock::time_point start)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

/**
 * @param target a flow target
 * @return its JSON name
 */
const char*
TargetName(PlainNs3Baseline::Target target)
{
    switch (target)
    {
    case PlainNs3Baseline::Target::ISLAND:
        return "island";
    case PlainNs3Baseline::Target::ROUTER:
        return "router";
    case PlainNs3Baseline::Target::GROUP:
        return "group";
    }
    return "island";
}

/**
 * @param name a JSON target name
 * @return the target
 */
PlainNs3Baseline::Target
TargetFromName(const std::string& name)
{
    if (name == "router")
    {
        return PlainNs3Baseline::Target::ROUTER;
    }
    if (name == "group")
    {
        return PlainNs3Baseline::Target::GROUP;
    }
    NS_ABORT_MSG_UNLESS(name == "island", "PlainNs3Baseline: unknown flow target '" << name << "'");
    return PlainNs3Baseline::Target::ISLAND;
}

/**
 * @param node a node
 * @param interface one of its Ipv4 interfaces
 * @return the interface's first address
 */
Ipv4Address
InterfaceAddress(Ptr<Node> node, uint32_t interface)
{
    return node->GetObject<Ipv4>()->GetAddress(interface, 0).GetLocal();
}

} // namespace

nlohmann::json
PlainNs3Baseline::ToJson(const Traffic& traffic)
{
    nlohmann::json flows = nlohmann::json::array();
    for (const Flow& flow : traffic.flows)
    {
        nlohmann::json sizes = nlohmann::json::array();
        for (const auto& [bytes, packets] : flow.sizes)
        {
            sizes.push_back({bytes, packets});
        }
        std::ostringstream group;
        if (flow.target == Target::GROUP)
        {
            group << flow.group;
        }
        flows.push_back({{"source", flow.source},
                         {"from_router", flow.fromRouter},
                         {"target", TargetName(flow.target)},
                         {"destination", flow.destination},
                         {"group", group.str()},
                         {"start_s", flow.startS},
                         {"rate_bps", flow.rateBps},
                         {"sizes", sizes}});
    }
    return {{"flows", flows},
            {"multicast", traffic.multicast},
            {"absorb_at_member_routers", traffic.absorbAtMemberRouters}};
}

PlainNs3Baseline::Traffic
PlainNs3Baseline::FromJson(const nlohmann::json& json)
{
    Traffic traffic;
    traffic.multicast = json.at("multicast").get<bool>();
    traffic.absorbAtMemberRouters = json.at("absorb_at_member_routers").get<bool>();
    for (const nlohmann::json& f : json.at("flows"))
    {
        Flow flow;
        flow.source = f.at("source").get<uint32_t>();
        flow.fromRouter = f.at("from_router").get<bool>();
        flow.target = TargetFromName(f.at("target").get<std::string>());
        flow.destination = f.at("destination").get<uint32_t>();
        if (flow.target == Target::GROUP)
        {
            flow.group = Ipv4Address(f.at("group").get<std::string>().c_str());
        }
        flow.startS = f.at("start_s").get<double>();
        flow.rateBps = f.at("rate_bps").get<double>();
        for (const nlohmann::json& size : f.at("sizes"))
        {
            flow.sizes.emplace_back(size.at(0).get<uint32_t>(), size.at(1).get<uint64_t>());
        }
        traffic.flows.push_back(std::move(flow));
    }
    return traffic;
}

PlainNs3Baseline::PlainNs3Baseline(const WanTopology& topology,
                                   const CliqueSchedule& schedule,
                                   const Traffic& traffic)
    : m_topology(topology),
      m_schedule(schedule),
      m_traffic(traffic)
{
    NS_LOG_FUNCTION(this << topology.GetName() << traffic.flows.size());
}

PlainNs3Baseline::~PlainNs3Baseline()
{
    NS_LOG_FUNCTION(this);
    m_sinks = ApplicationContainer();
    m_scenario.reset();
    Simulator::Destroy();
    Names::Clear();
}

void
PlainNs3Baseline::Build()
{
    NS_LOG_FUNCTION(this);
    NS_ABORT_MSG_IF(m_scenario, "PlainNs3Baseline::Build(): already built");
    auto setupStart = std::chrono::steady_clock::now();
    m_scenario = std::make_unique<WanTopologyHelper>(m_topology);
    WanTopologyHelper& scenario = *m_scenario;
    scenario.Install();
    PimMulticastHelper pim(scenario);
    if (m_traffic.multicast)
    {
        pim.InstallSchedule(m_schedule);
        if (m_traffic.absorbAtMemberRouters)
        {
            DiscardGroupCopiesAtMemberRouters(scenario);
        }
    }

    // Copies of a group's packet: one per member other than the source, delivered to the
    // islands, or discarded on the member routers' island ports.
    std::map<Ipv4Address, uint64_t> groupCopies;
    for (const PimMulticastHelper::SourceTree& tree : pim.GetTrees())
    {
        groupCopies[tree.group] = tree.members.size();
    }

    std::map<uint32_t, Ptr<Node>> sinkNodes; // by node id, so the set-up order is fixed
    m_expectedBytes = 0;
    m_expectedDiscards = 0;
    for (const Flow& flow : m_traffic.flows)
    {
        Ptr<Node> from =
            flow.fromRouter ? scenario.GetRouter(flow.source) : scenario.GetIsland(flow.source);
        Ipv4Address to;
        uint64_t receivers = 1;
        uint64_t copies = 0; // discarded at the member routers
        switch (flow.target)
        {
        case Target::ISLAND:
            to = scenario.GetIslandAddress(flow.destination);
            sinkNodes.emplace(scenario.GetIsland(flow.destination)->GetId(),
                              scenario.GetIsland(flow.destination));
            break;
        case Target::ROUTER: {
            uint32_t down = m_topology.GetAccessDownLink(flow.destination);
            to = InterfaceAddress(scenario.GetRouter(flow.destination),
                                  scenario.GetTxInterface(down));
            sinkNodes.emplace(scenario.GetRouter(flow.destination)->GetId(),
                              scenario.GetRouter(flow.destination));
            break;
        }
        case Target::GROUP: {
            auto it = groupCopies.find(flow.group);
            NS_ABORT_MSG_IF(it == groupCopies.end(),
                            "PlainNs3Baseline: no source tree for group " << flow.group);
            to = flow.group;
            receivers = m_traffic.absorbAtMemberRouters ? 0 : it->second;
            copies = m_traffic.absorbAtMemberRouters ? it->second : 0;
            for (uint32_t island = 0; island < m_topology.GetNCities(); ++island)
            {
                sinkNodes.emplace(scenario.GetIsland(island)->GetId(), scenario.GetIsland(island));
            }
            break;
        }
        }
        NS_ABORT_MSG_IF(flow.rateBps <= 0, "PlainNs3Baseline: a flow without a rate");
        double startS = flow.startS;
        for (const auto& [payloadBytes, packets] : flow.sizes)
        {
            // The pacing interval of one packet on the wire, rounded up to the nanosecond so
            // the flow never exceeds its rate.
            double wireBits = 8.0 * (TrainingIslandApplication::PPP_HEADER_BYTES +
                                     TrainingIslandApplication::IP_UDP_HEADER_BYTES + payloadBytes);
            Time interval =
                NanoSeconds(static_cast<int64_t>(std::ceil(wireBits / flow.rateBps * 1e9)));
            UdpClientHelper client(to, PORT);
            client.SetAttribute("MaxPackets", UintegerValue(packets));
            client.SetAttribute("Interval", TimeValue(interval));
            client.SetAttribute("PacketSize", UintegerValue(payloadBytes));
            ApplicationContainer app = client.Install(from);
            app.Start(Seconds(startS));
            startS += packets * interval.GetSeconds();
            m_expectedBytes += receivers * packets * payloadBytes;
            m_expectedDiscards += copies * packets;
        }
    }
    PacketSinkHelper sinkHelper("ns3::UdpSocketFactory",
                                InetSocketAddress(Ipv4Address::GetAny(), PORT));
    for (const auto& [id, node] : sinkNodes)
    {
        m_sinks.Add(sinkHelper.Install(node));
    }
    m_setupSeconds = SecondsSince(setupStart);
}

void
PlainNs3Baseline::Run()
{
    NS_LOG_FUNCTION(this);
    if (!m_scenario)
    {
        Build();
    }
    const WanTopologyHelper& scenario = *m_scenario;
    auto runStart = std::chrono::steady_clock::now();
    Simulator::Run();
    m_wallSeconds = SecondsSince(runStart);
    m_simulatedSeconds = Simulator::Now().GetSeconds();
    m_events = Simulator::GetEventCount();

    m_deliveredBytes = 0;
    for (auto app = m_sinks.Begin(); app != m_sinks.End(); ++app)
    {
        m_deliveredBytes += DynamicCast<PacketSink>(*app)->GetTotalRx();
    }
    m_links.assign(m_topology.GetNDirectedLinks(), 0);
    m_drops = 0;
    m_discardedCopies = 0;
    for (uint32_t d = 0; d < m_topology.GetNDirectedLinks(); ++d)
    {
        Ptr<PointToPointNetDevice> device =
            DynamicCast<PointToPointNetDevice>(scenario.GetTxDevice(d));
        NS_ABORT_MSG_UNLESS(device, "PlainNs3Baseline: not a point-to-point device");
        // Every packet a point-to-point device transmits passes through its queue.
        m_links[d] = device->GetQueue()->GetTotalReceivedPackets();
        m_drops += device->GetQueue()->GetTotalDroppedPackets();
        if (Ptr<GroupCopyDiscardQueue> discard =
                DynamicCast<GroupCopyDiscardQueue>(device->GetQueue()))
        {
            m_discardedCopies += discard->GetDiscardedPackets();
        }
        Ptr<TrafficControlLayer> tc = device->GetNode()->GetObject<TrafficControlLayer>();
        Ptr<QueueDisc> disc = tc ? tc->GetRootQueueDiscOnDevice(device) : nullptr;
        if (disc)
        {
            m_drops += disc->GetStats().nTotalDroppedPackets;
        }
    }
}

void
PlainNs3Baseline::DiscardGroupCopiesAtMemberRouters(const WanTopologyHelper& scenario)
{
    for (uint32_t city = 0; city < m_topology.GetNCities(); ++city)
    {
        Ptr<PointToPointNetDevice> device = DynamicCast<PointToPointNetDevice>(
            scenario.GetTxDevice(m_topology.GetAccessDownLink(city)));
        NS_ABORT_MSG_UNLESS(device, "PlainNs3Baseline: not a point-to-point device");
        Ptr<GroupCopyDiscardQueue> queue = CreateObject<GroupCopyDiscardQueue>();
        queue->SetMaxSize(device->GetQueue()->GetMaxSize());
        device->SetQueue(queue);
    }
}

double
PlainNs3Baseline::GetWallSeconds() const
{
    return m_wallSeconds;
}

double
PlainNs3Baseline::GetSetupSeconds() const
{
    return m_setupSeconds;
}

double
PlainNs3Baseline::GetSimulatedSeconds() const
{
    return m_simulatedSeconds;
}

uint64_t
PlainNs3Baseline::GetEvents() const
{
    return m_events;
}

const std::vector<uint64_t>&
PlainNs3Baseline::GetLinkPackets() const
{
    return m_links;
}

uint64_t
PlainNs3Baseline::GetDrops() const
{
    return m_drops;
}

uint64_t
PlainNs3Baseline::GetDeliveredBytes() const
{
    return m_deliveredBytes;
}

uint64_t
PlainNs3Baseline::GetDiscardedCopies() const
{
    return m_discardedCopies;
}

uint64_t
PlainNs3Baseline::GetExpectedDiscardedCopies() const
{
    return m_expectedDiscards;
}

uint64_t
PlainNs3Baseline::GetExpectedBytes() const
{
    return m_expectedBytes;
}

} // namespace ns3
