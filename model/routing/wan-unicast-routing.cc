/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "wan-unicast-routing.h"

#include "ns3/abort.h"
#include "ns3/ipv4-header.h"
#include "ns3/ipv4-route.h"
#include "ns3/ipv4-routing-protocol.h"
#include "ns3/ipv4-routing-table-entry.h"
#include "ns3/ipv4-static-routing-helper.h"
#include "ns3/ipv4-static-routing.h"
#include "ns3/ipv4.h"
#include "ns3/log.h"
#include "ns3/names.h"
#include "ns3/packet.h"
#include "ns3/socket.h"

#include <algorithm>
#include <sstream>
#include <utility>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("WanTrainingWanUnicastRouting");

NS_OBJECT_ENSURE_REGISTERED(WanUnicastRouting);

TypeId
WanUnicastRouting::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::WanTraining::WanUnicastRouting")
            .SetParent<Object>()
            .SetGroupName("WanTraining")
            .AddConstructor<WanUnicastRouting>()
            .AddTraceSource("Rerouted",
                            "The unicast routes of every router were reinstalled along the "
                            "routes of another routing topology, and checked.",
                            MakeTraceSourceAccessor(&WanUnicastRouting::m_reroutedTrace),
                            "ns3::WanUnicastRouting::RerouteTracedCallback");
    return tid;
}

WanUnicastRouting::WanUnicastRouting()
{
    NS_LOG_FUNCTION(this);
}

WanUnicastRouting::~WanUnicastRouting()
{
    NS_LOG_FUNCTION(this);
}

void
WanUnicastRouting::DoDispose()
{
    NS_LOG_FUNCTION(this);
    m_scenario = Scenario();
    m_linkOfTxDevice.clear();
    Object::DoDispose();
}

void
WanUnicastRouting::Install(const WanTopology& topology, const Scenario& scenario)
{
    NS_LOG_FUNCTION(this << topology.GetName());
    NS_ABORT_MSG_IF(m_routing,
                    "WanUnicastRouting::Install(): called twice (the routes are installed once; "
                    "use Reroute)");
    const uint32_t n = topology.GetNCities();
    const uint32_t links = topology.GetNDirectedLinks();
    NS_ABORT_MSG_UNLESS(
        scenario.routers.size() == n && scenario.islands.size() == n &&
            scenario.islandAddresses.size() == n && scenario.accessNetworks.size() == n &&
            scenario.txDevices.size() == links && scenario.rxDevices.size() == links &&
            scenario.txInterfaces.size() == links && scenario.rxAddresses.size() == links,
        "WanUnicastRouting::Install(): the scenario does not have the "
            << n << " cities and " << links << " directed links of topology '" << topology.GetName()
            << "'");
    m_routing = topology;
    m_scenario = scenario;
    for (uint32_t d = 0; d < links; ++d)
    {
        m_linkOfTxDevice[PeekPointer(scenario.txDevices[d])] = d;
    }
    Ipv4StaticRoutingHelper staticRouting;
    for (uint32_t i = 0; i < n; ++i)
    {
        uint32_t up = topology.GetAccessUpLink(i);
        Ptr<Ipv4StaticRouting> routing =
            staticRouting.GetStaticRouting(m_scenario.islands[i]->GetObject<Ipv4>());
        routing->SetDefaultRoute(m_scenario.rxAddresses[up], m_scenario.txInterfaces[up]);
    }
    InstallRoutes("WanUnicastRouting::Install()");
    VerifyRoutes("WanUnicastRouting::Install()");
}

void
WanUnicastRouting::Reroute(const WanTopology& routing)
{
    NS_LOG_FUNCTION(this << routing.GetDownLinks().size());
    NS_ABORT_MSG_UNLESS(m_routing, "WanUnicastRouting::Reroute(): call Install() first");
    // The routing topology always has the cities and links of the one given to Install().
    const WanTopology& installed = *m_routing;
    bool same = routing.GetNCities() == installed.GetNCities() &&
                routing.GetNLinks() == installed.GetNLinks();
    for (uint32_t d = 0; same && d < installed.GetNDirectedLinks(); ++d)
    {
        same = routing.GetDirectedLinkName(d) == installed.GetDirectedLinkName(d);
    }
    NS_ABORT_MSG_UNLESS(same,
                        "WanUnicastRouting::Reroute(): the routing topology '"
                            << routing.GetName() << "' does not have the cities and links of '"
                            << installed.GetName() << "'");
    m_routing = routing;
    InstallRoutes("WanUnicastRouting::Reroute()");
    VerifyRoutes("WanUnicastRouting::Reroute()");
    m_reroutedTrace(*m_routing);
}

const WanTopology&
WanUnicastRouting::GetRouting() const
{
    NS_ABORT_MSG_UNLESS(m_routing, "WanUnicastRouting::GetRouting(): call Install() first");
    return *m_routing;
}

std::vector<uint32_t>
WanUnicastRouting::GetForwardingPath(uint32_t src, uint32_t dst) const
{
    NS_ABORT_MSG_UNLESS(m_routing, "WanUnicastRouting::GetForwardingPath(): call Install() first");
    NS_ABORT_MSG_UNLESS(src < m_routing->GetNCities() && dst < m_routing->GetNCities(),
                        "WanUnicastRouting::GetForwardingPath(): unknown city index "
                            << std::max(src, dst) << " (topology '" << m_routing->GetName()
                            << "' has " << m_routing->GetNCities() << " cities)");
    NS_ABORT_MSG_IF(src == dst, "WanUnicastRouting::GetForwardingPath(): src == dst");
    return WalkForwarding(src, dst, nullptr);
}

void
WanUnicastRouting::InstallRoutes(const char* caller)
{
    NS_LOG_FUNCTION(this);
    const WanTopology& topology = *m_routing;
    uint32_t n = topology.GetNCities();
    Ipv4StaticRoutingHelper staticRouting;

    // nextHop[r][j]: the directed link router r forwards traffic for island j on, and the route
    // that first required it (for the error message).
    const uint32_t none = topology.GetNDirectedLinks();
    std::vector<std::vector<uint32_t>> nextHop(n, std::vector<uint32_t>(n, none));
    std::vector<std::vector<std::pair<uint32_t, uint32_t>>> firstRoute(
        n,
        std::vector<std::pair<uint32_t, uint32_t>>(n));
    for (uint32_t src = 0; src < n; ++src)
    {
        for (uint32_t dst = 0; dst < n; ++dst)
        {
            if (src == dst || !topology.HasRoute(src, dst))
            {
                continue;
            }
            const WanRoute& route = topology.GetRoute(src, dst);
            for (std::size_t p = 0; p + 1 < route.cities.size(); ++p)
            {
                uint32_t r = route.cities[p];
                uint32_t d = topology.GetWanDirectedLink(r, route.cities[p + 1]);
                if (nextHop[r][dst] == none)
                {
                    nextHop[r][dst] = d;
                    firstRoute[r][dst] = {src, dst};
                }
                NS_ABORT_MSG_IF(
                    nextHop[r][dst] != d,
                    caller << ": routes of topology '" << topology.GetName()
                           << "' are not destination-based: at router " << topology.GetCity(r).id
                           << " the route " << topology.GetCity(src).id << "->"
                           << topology.GetCity(dst).id << " leaves on "
                           << topology.GetDirectedLinkName(d) << " but the route "
                           << topology.GetCity(firstRoute[r][dst].first).id << "->"
                           << topology.GetCity(firstRoute[r][dst].second).id << " leaves on "
                           << topology.GetDirectedLinkName(nextHop[r][dst]));
            }
        }
    }

    for (uint32_t r = 0; r < n; ++r)
    {
        Ptr<Ipv4StaticRouting> routing =
            staticRouting.GetStaticRouting(m_scenario.routers[r]->GetObject<Ipv4>());
        // Remove the routes installed before (toward access networks through a gateway); the
        // routes of connected networks stay.
        for (uint32_t k = routing->GetNRoutes(); k-- > 0;)
        {
            Ipv4RoutingTableEntry entry = routing->GetRoute(k);
            if (entry.IsGateway() && entry.GetDestNetworkMask() == m_scenario.accessMask &&
                std::find(m_scenario.accessNetworks.begin(),
                          m_scenario.accessNetworks.end(),
                          entry.GetDestNetwork()) != m_scenario.accessNetworks.end())
            {
                routing->RemoveRoute(k);
            }
        }
        for (uint32_t dst = 0; dst < n; ++dst)
        {
            uint32_t d = nextHop[r][dst];
            if (d == none)
            {
                // r == dst: the access network is connected.
                continue;
            }
            routing->AddNetworkRouteTo(m_scenario.accessNetworks[dst],
                                       m_scenario.accessMask,
                                       m_scenario.rxAddresses[d],
                                       m_scenario.txInterfaces[d]);
        }
    }
}

std::vector<uint32_t>
WanUnicastRouting::WalkForwarding(uint32_t src, uint32_t dst, const char* caller) const
{
    const WanTopology& topology = *m_routing;
    std::vector<uint32_t> links;
    Ipv4Header header;
    header.SetSource(m_scenario.islandAddresses[src]);
    header.SetDestination(m_scenario.islandAddresses[dst]);
    Ptr<Node> node = m_scenario.islands[src];
    Ptr<Node> target = m_scenario.islands[dst];
    // A loop-free path crosses every router at most once.
    const std::size_t maxLinks = topology.GetNCities() + 2;
    while (node != target && links.size() <= maxLinks)
    {
        Socket::SocketErrno error = Socket::ERROR_NOTERROR;
        Ptr<Ipv4Route> route =
            node->GetObject<Ipv4>()->GetRoutingProtocol()->RouteOutput(Create<Packet>(),
                                                                       header,
                                                                       nullptr,
                                                                       error);
        if (!route && !caller)
        {
            return {};
        }
        NS_ABORT_MSG_IF(!route,
                        caller << ": node " << Names::FindName(node) << " has no route to island "
                               << topology.GetCity(dst).id << " ("
                               << m_scenario.islandAddresses[dst] << ")");
        auto it = m_linkOfTxDevice.find(PeekPointer(route->GetOutputDevice()));
        NS_ABORT_MSG_IF(it == m_linkOfTxDevice.end(),
                        (caller ? caller : "WanUnicastRouting::GetForwardingPath()")
                            << ": node " << Names::FindName(node) << " forwards traffic for island "
                            << topology.GetCity(dst).id << " to a device of no directed link");
        links.push_back(it->second);
        node = m_scenario.rxDevices[it->second]->GetNode();
    }
    return links;
}

void
WanUnicastRouting::VerifyRoutes(const char* caller) const
{
    NS_LOG_FUNCTION(this);
    const WanTopology& topology = *m_routing;
    for (uint32_t src = 0; src < topology.GetNCities(); ++src)
    {
        for (uint32_t dst = 0; dst < topology.GetNCities(); ++dst)
        {
            if (src == dst || !topology.HasRoute(src, dst))
            {
                continue;
            }
            std::vector<uint32_t> forwarded = WalkForwarding(src, dst, caller);
            const std::vector<uint32_t>& expected = topology.GetRoute(src, dst).links;
            NS_ABORT_MSG_IF(forwarded != expected,
                            caller << ": the static routes of topology '" << topology.GetName()
                                   << "' do not reproduce the route " << topology.GetCity(src).id
                                   << "->" << topology.GetCity(dst).id << ": forwarding follows ["
                                   << DescribeLinks(forwarded) << "], WanTopology says ["
                                   << DescribeLinks(expected) << "]");
        }
    }
}

std::string
WanUnicastRouting::DescribeLinks(const std::vector<uint32_t>& links) const
{
    std::ostringstream os;
    for (std::size_t k = 0; k < links.size(); ++k)
    {
        os << (k ? " " : "") << m_routing->GetDirectedLinkName(links[k]);
    }
    return os.str();
}

} // namespace ns3
