/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "pim-multicast-routing.h"

#include "clique-schedule.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/ipv4-list-routing.h"
#include "ns3/ipv4-routing-table-entry.h"
#include "ns3/ipv4-static-routing-helper.h"
#include "ns3/ipv4-static-routing.h"
#include "ns3/ipv4.h"
#include "ns3/log.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <limits>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("WanTrainingPimMulticastRouting");

NS_OBJECT_ENSURE_REGISTERED(PimMulticastRouting);

const uint32_t PimMulticastRouting::NO_ROUTER = std::numeric_limits<uint32_t>::max();

namespace
{

/**
 * @param ms a latency in ms
 * @return it as a Time, converted as WanTopologyHelper converts channel delays
 */
Time
MsToTime(double ms)
{
    return Time::FromDouble(ms, Time::MS);
}

} // namespace

TypeId
PimMulticastRouting::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::WanTraining::PimMulticastRouting")
            .SetParent<Object>()
            .SetGroupName("WanTraining")
            .AddConstructor<PimMulticastRouting>()
            .AddAttribute("JoinDelay",
                          "Whether a join takes effect only when its control message has "
                          "crossed the WAN links of the new branch.",
                          BooleanValue(true),
                          MakeBooleanAccessor(&PimMulticastRouting::m_joinDelay),
                          MakeBooleanChecker())
            .AddTraceSource("MemberJoined",
                            "A member's join took effect: its branch is installed.",
                            MakeTraceSourceAccessor(&PimMulticastRouting::m_memberJoinedTrace),
                            "ns3::PimMulticastRouting::MembershipTracedCallback")
            .AddTraceSource("MemberLeft",
                            "A member left its group: the routes that only served it are gone.",
                            MakeTraceSourceAccessor(&PimMulticastRouting::m_memberLeftTrace),
                            "ns3::PimMulticastRouting::MembershipTracedCallback");
    return tid;
}

PimMulticastRouting::PimMulticastRouting()
{
    NS_LOG_FUNCTION(this);
}

PimMulticastRouting::~PimMulticastRouting()
{
    NS_LOG_FUNCTION(this);
}

void
PimMulticastRouting::DoDispose()
{
    NS_LOG_FUNCTION(this);
    m_groups.clear();
    m_scenario = Scenario();
    Object::DoDispose();
}

void
PimMulticastRouting::SetScenario(const WanTopology& topology, const Scenario& scenario)
{
    NS_LOG_FUNCTION(this << topology.GetName());
    NS_ABORT_MSG_UNLESS(m_groups.empty(),
                        "PimMulticastRouting::SetScenario(): groups are already in use");
    const uint32_t n = topology.GetNCities();
    const uint32_t links = topology.GetNDirectedLinks();
    NS_ABORT_MSG_UNLESS(
        scenario.routers.size() == n && scenario.islands.size() == n &&
            scenario.islandAddresses.size() == n && scenario.fromRouter.size() == links &&
            scenario.toRouter.size() == links && scenario.txInterface.size() == links &&
            scenario.rxInterface.size() == links,
        "PimMulticastRouting::SetScenario(): the scenario does not have the "
            << n << " cities and " << links << " directed links of topology '" << topology.GetName()
            << "'");
    m_topology = topology;
    m_model = LinkLoadModel(topology);
    m_n = n;
    m_scenario = scenario;
}

const WanTopology&
PimMulticastRouting::GetRouting() const
{
    NS_ABORT_MSG_UNLESS(m_topology, "PimMulticastRouting::GetRouting(): call SetScenario() first");
    return *m_topology;
}

Ipv4Address
PimMulticastRouting::GetOrigin(uint32_t island) const
{
    NS_ABORT_MSG_UNLESS(island < m_n,
                        "PimMulticastRouting::GetOrigin(): " << island << " is not an island");
    return m_scenario.islandAddresses[island];
}

bool
PimMulticastRouting::HasGroups() const
{
    return !m_groups.empty();
}

bool
PimMulticastRouting::HasGroup(Ipv4Address group) const
{
    return m_groups.count(group) > 0;
}

void
PimMulticastRouting::AddGroup(Ipv4Address group, uint32_t source)
{
    NS_LOG_FUNCTION(this << group << source);
    NS_ABORT_MSG_UNLESS(m_model, "PimMulticastRouting::AddGroup(): call SetScenario() first");
    NS_ABORT_MSG_UNLESS(group.IsMulticast(),
                        "PimMulticastRouting::AddGroup(): " << group << " is not multicast");
    NS_ABORT_MSG_UNLESS(source < m_n,
                        "PimMulticastRouting::AddGroup(): source " << source
                                                                   << " is not an island");
    auto it = m_groups.find(group);
    if (it != m_groups.end())
    {
        NS_ABORT_MSG_UNLESS(it->second.source == source,
                            "PimMulticastRouting::AddGroup(): group "
                                << group << " already has source " << it->second.source);
        return;
    }
    GroupState state;
    state.source = source;
    state.group = group;
    m_groups.emplace(group, state);
}

PimMulticastRouting::GroupState&
PimMulticastRouting::FindGroup(Ipv4Address group, const char* caller)
{
    auto it = m_groups.find(group);
    NS_ABORT_MSG_IF(it == m_groups.end(),
                    "PimMulticastRouting::" << caller << "(): unknown group " << group);
    return it->second;
}

void
PimMulticastRouting::AddMembers(Ipv4Address group, const std::vector<uint32_t>& members)
{
    NS_LOG_FUNCTION(this << group << members.size());
    GroupState& state = FindGroup(group, "AddMembers");
    std::set<uint32_t> next = state.members;
    for (uint32_t member : members)
    {
        NS_ABORT_MSG_UNLESS(member < m_n && member != state.source,
                            "PimMulticastRouting::AddMembers(): " << member << " cannot join "
                                                                  << group);
        state.pendingJoins.erase(member);
        next.insert(member);
    }
    Apply(state, next);
}

void
PimMulticastRouting::ScheduleChange(Ipv4Address group, uint32_t member, Time at, bool join)
{
    const char* caller = join ? "ScheduleJoin" : "SchedulePrune";
    const GroupState& state = FindGroup(group, caller);
    NS_ABORT_MSG_UNLESS(member < m_n && member != state.source,
                        "PimMulticastRouting::" << caller << "(): island " << member
                                                << " is not a possible member of " << group);
    NS_ABORT_MSG_IF(at < Simulator::Now(),
                    "PimMulticastRouting::" << caller << "(): time " << at.As(Time::S)
                                            << " is in the past");
    Ptr<PimMulticastRouting> self = this;
    Simulator::Schedule(at - Simulator::Now(), [self, group, member, join]() {
        if (join)
        {
            self->JoinNow(group, member);
        }
        else
        {
            self->PruneNow(group, member);
        }
    });
}

void
PimMulticastRouting::ScheduleJoin(Ipv4Address group, uint32_t member, Time at)
{
    NS_LOG_FUNCTION(this << group << member << at);
    ScheduleChange(group, member, at, true);
}

void
PimMulticastRouting::SchedulePrune(Ipv4Address group, uint32_t member, Time at)
{
    NS_LOG_FUNCTION(this << group << member << at);
    ScheduleChange(group, member, at, false);
}

Time
PimMulticastRouting::GetJoinDelay(Ipv4Address group, uint32_t member) const
{
    auto it = m_groups.find(group);
    NS_ABORT_MSG_IF(it == m_groups.end(),
                    "PimMulticastRouting::GetJoinDelay(): unknown group " << group);
    return JoinDelay(it->second, member);
}

Time
PimMulticastRouting::GetBranchDelay(uint32_t source, uint32_t member) const
{
    GroupState empty;
    empty.source = source;
    return JoinDelay(empty, member);
}

void
PimMulticastRouting::Reroute(const WanTopology& routing)
{
    NS_LOG_FUNCTION(this << routing.GetDownLinks().size());
    NS_ABORT_MSG_UNLESS(m_topology, "PimMulticastRouting::Reroute(): call SetScenario() first");
    bool same = routing.GetNCities() == m_topology->GetNCities() &&
                routing.GetNLinks() == m_topology->GetNLinks();
    for (uint32_t d = 0; same && d < m_topology->GetNDirectedLinks(); ++d)
    {
        same = routing.GetDirectedLinkName(d) == m_topology->GetDirectedLinkName(d);
    }
    NS_ABORT_MSG_UNLESS(same,
                        "PimMulticastRouting::Reroute(): the routing topology '"
                            << routing.GetName() << "' does not have the cities and links of '"
                            << m_topology->GetName() << "'");
    m_topology = routing;
    m_model = LinkLoadModel(routing);
    for (auto& [address, group] : m_groups)
    {
        std::set<uint32_t> members = group.members;
        Apply(group, members);
    }
}

PimMulticastRouting::Tree
PimMulticastRouting::GetTree(Ipv4Address group) const
{
    auto it = m_groups.find(group);
    NS_ABORT_MSG_IF(it == m_groups.end(),
                    "PimMulticastRouting::GetTree(): unknown group " << group);
    return Describe(it->second);
}

std::vector<PimMulticastRouting::Tree>
PimMulticastRouting::GetTrees() const
{
    std::vector<Tree> trees;
    for (const auto& [address, group] : m_groups)
    {
        trees.push_back(Describe(group));
    }
    return trees;
}

PimMulticastRouting::TreeShape
PimMulticastRouting::Shape(uint32_t source, const std::set<uint32_t>& members) const
{
    TreeShape shape;
    // Members the current routes do not reach from the source (a partitioned WAN) get nothing.
    std::set<uint32_t> reached;
    for (uint32_t member : members)
    {
        if (m_topology->HasRoute(source, member))
        {
            reached.insert(member);
        }
    }
    if (reached.empty())
    {
        return shape;
    }
    CliqueSchedule::Clique clique(reached.begin(), reached.end());
    clique.push_back(source);
    shape.links = m_model->GetSourceTree(source, clique);

    const std::vector<uint32_t>& fromRouter = m_scenario.fromRouter;
    const std::vector<uint32_t>& toRouter = m_scenario.toRouter;
    std::map<uint32_t, uint32_t> incoming;
    std::map<uint32_t, std::vector<uint32_t>> outgoing;
    for (uint32_t d : shape.links)
    {
        uint32_t to = toRouter[d];
        if (to != NO_ROUTER)
        {
            NS_ABORT_MSG_IF(incoming.count(to),
                            "PimMulticastRouting: the routes from island "
                                << m_topology->GetCity(source).id << " do not form a tree: router "
                                << m_topology->GetCity(to).id << " is entered by both "
                                << m_topology->GetDirectedLinkName(incoming[to]) << " and "
                                << m_topology->GetDirectedLinkName(d));
            incoming[to] = d;
        }
        if (fromRouter[d] != NO_ROUTER)
        {
            outgoing[fromRouter[d]].push_back(d);
        }
    }
    NS_ABORT_MSG_UNLESS(incoming.size() == outgoing.size(),
                        "PimMulticastRouting: the tree of island "
                            << m_topology->GetCity(source).id
                            << " has a router without an input or without an output link");
    for (const auto& [router, links] : outgoing)
    {
        auto in = incoming.find(router);
        NS_ABORT_MSG_IF(in == incoming.end(),
                        "PimMulticastRouting: router "
                            << m_topology->GetCity(router).id << " of the tree of island "
                            << m_topology->GetCity(source).id << " has no input link");
        RouterRoute route;
        route.input = m_scenario.rxInterface[in->second];
        for (uint32_t d : links)
        {
            route.outputs.push_back(m_scenario.txInterface[d]);
        }
        std::sort(route.outputs.begin(), route.outputs.end());
        if (route.outputs.size() > 1)
        {
            shape.replicationPoints.push_back(router);
        }
        shape.routes[router] = route;
    }

    // Walk up from every member to the source's router, counting routers.
    for (uint32_t member : reached)
    {
        uint32_t hops = 0;
        uint32_t router = fromRouter[m_topology->GetAccessDownLink(member)];
        while (router != NO_ROUTER && hops <= m_n)
        {
            ++hops;
            router = fromRouter[incoming.at(router)];
        }
        NS_ABORT_MSG_IF(hops > m_n,
                        "PimMulticastRouting: the tree of island " << m_topology->GetCity(source).id
                                                                   << " has a loop");
        shape.maxRouterHops = std::max(shape.maxRouterHops, hops);
    }
    return shape;
}

Ptr<Ipv4StaticRouting>
PimMulticastRouting::RouterRouting(uint32_t city) const
{
    Ipv4StaticRoutingHelper helper;
    Ptr<Ipv4StaticRouting> routing =
        helper.GetStaticRouting(m_scenario.routers[city]->GetObject<Ipv4>());
    NS_ABORT_MSG_UNLESS(routing,
                        "PimMulticastRouting: router " << m_topology->GetCity(city).id
                                                       << " has no Ipv4StaticRouting");
    return routing;
}

void
PimMulticastRouting::EnsureLocalDelivery(uint32_t island)
{
    if (m_localDelivery.count(island))
    {
        return;
    }
    // WanTopologyHelper gives every island an Ipv4ListRouting (around its Ipv4StaticRouting),
    // the only ns-3.37 routing protocol that hands multicast datagrams to the node's sockets.
    Ptr<Ipv4> ipv4 = m_scenario.islands[island]->GetObject<Ipv4>();
    Ptr<Ipv4RoutingProtocol> current = ipv4->GetRoutingProtocol();
    NS_ABORT_MSG_UNLESS(DynamicCast<Ipv4ListRouting>(current),
                        "PimMulticastRouting: island "
                            << m_topology->GetCity(island).id << " runs "
                            << (current ? current->GetInstanceTypeId().GetName() : "no routing")
                            << ", which does not deliver multicast to its sockets; islands need "
                               "an Ipv4ListRouting (WanTopologyHelper installs one)");
    Ipv4StaticRoutingHelper helper;
    NS_ABORT_MSG_UNLESS(helper.GetStaticRouting(ipv4),
                        "PimMulticastRouting: island " << m_topology->GetCity(island).id
                                                       << " has no Ipv4StaticRouting in its "
                                                          "Ipv4ListRouting");
    m_localDelivery.insert(island);
}

void
PimMulticastRouting::Apply(GroupState& group, const std::set<uint32_t>& members)
{
    NS_LOG_FUNCTION(this << group.group << members.size());
    TreeShape next = Shape(group.source, members);
    for (uint32_t member : members)
    {
        EnsureLocalDelivery(member);
    }
    const Ipv4Address origin = m_scenario.islandAddresses[group.source];
    for (const auto& [router, route] : group.installed.routes)
    {
        auto it = next.routes.find(router);
        if (it == next.routes.end() || !(it->second == route))
        {
            bool removed =
                RouterRouting(router)->RemoveMulticastRoute(origin, group.group, route.input);
            NS_ABORT_MSG_UNLESS(removed,
                                "PimMulticastRouting: the route of group "
                                    << group.group << " vanished from router "
                                    << m_topology->GetCity(router).id);
        }
    }
    for (const auto& [router, route] : next.routes)
    {
        auto it = group.installed.routes.find(router);
        if (it == group.installed.routes.end() || !(it->second == route))
        {
            NS_LOG_INFO("router " << m_topology->GetCity(router).id << ": (" << origin << ", "
                                  << group.group << ") in " << route.input << ", "
                                  << route.outputs.size() << " out");
            RouterRouting(router)->AddMulticastRoute(origin,
                                                     group.group,
                                                     route.input,
                                                     route.outputs);
        }
    }

    // The source island's route to the group, present while the tree has members.
    Ipv4StaticRoutingHelper helper;
    const uint32_t up = m_topology->GetAccessUpLink(group.source);
    Ptr<Ipv4StaticRouting> sourceRouting =
        helper.GetStaticRouting(m_scenario.islands[group.source]->GetObject<Ipv4>());
    NS_ABORT_MSG_UNLESS(sourceRouting,
                        "PimMulticastRouting: island " << m_topology->GetCity(group.source).id
                                                       << " has no Ipv4StaticRouting");
    if (group.installed.links.empty() && !next.links.empty())
    {
        sourceRouting->AddHostRouteTo(group.group, m_scenario.txInterface[up]);
    }
    else if (!group.installed.links.empty() && next.links.empty())
    {
        for (uint32_t i = 0; i < sourceRouting->GetNRoutes(); ++i)
        {
            Ipv4RoutingTableEntry route = sourceRouting->GetRoute(i);
            if (route.IsHost() && route.GetDest() == group.group &&
                route.GetInterface() == m_scenario.txInterface[up])
            {
                sourceRouting->RemoveRoute(i);
                break;
            }
        }
    }
    group.installed = next;
    const std::set<uint32_t> before = group.members;
    group.members = members;
    for (uint32_t member : members)
    {
        if (!before.count(member))
        {
            m_memberJoinedTrace(group.group, member);
        }
    }
    for (uint32_t member : before)
    {
        if (!members.count(member))
        {
            m_memberLeftTrace(group.group, member);
        }
    }
}

Time
PimMulticastRouting::JoinDelay(const GroupState& group, uint32_t member) const
{
    if (!m_joinDelay || group.members.count(member))
    {
        return Seconds(0);
    }
    return MsToTime(BranchLatencyMs(group.source, member, group.installed.links));
}

double
PimMulticastRouting::BranchLatencyMs(uint32_t source,
                                     uint32_t member,
                                     const std::vector<uint32_t>& tree) const
{
    double ms = 0;
    for (uint32_t d : m_topology->GetRoute(source, member).links)
    {
        if (!m_topology->IsAccessLink(d) && !std::binary_search(tree.begin(), tree.end(), d))
        {
            ms += m_topology->GetDirectedLinkLatencyMs(d);
        }
    }
    return ms;
}

void
PimMulticastRouting::JoinNow(Ipv4Address address, uint32_t member)
{
    GroupState& group = m_groups.at(address);
    if (group.members.count(member) || group.pendingJoins.count(member))
    {
        NS_LOG_LOGIC("island " << member << " already joined " << group.group);
        return;
    }
    Time delay = JoinDelay(group, member);
    NS_LOG_INFO("island " << m_topology->GetCity(member).id << " joins " << group.group
                          << ", effective in " << delay.As(Time::MS));
    if (delay.IsZero())
    {
        std::set<uint32_t> members = group.members;
        members.insert(member);
        Apply(group, members);
        return;
    }
    Ptr<PimMulticastRouting> self = this;
    uint64_t token = m_nextToken++;
    group.pendingJoins[member] = token;
    Simulator::Schedule(delay, [self, address, member, token]() {
        self->CompleteJoin(address, member, token);
    });
}

void
PimMulticastRouting::CompleteJoin(Ipv4Address address, uint32_t member, uint64_t token)
{
    GroupState& group = m_groups.at(address);
    auto pending = group.pendingJoins.find(member);
    if (pending == group.pendingJoins.end() || pending->second != token)
    {
        return;
    }
    group.pendingJoins.erase(pending);
    std::set<uint32_t> members = group.members;
    members.insert(member);
    Apply(group, members);
}

void
PimMulticastRouting::PruneNow(Ipv4Address address, uint32_t member)
{
    GroupState& group = m_groups.at(address);
    group.pendingJoins.erase(member);
    if (group.members.count(member))
    {
        NS_LOG_INFO("island " << m_topology->GetCity(member).id << " leaves " << group.group);
        std::set<uint32_t> members = group.members;
        members.erase(member);
        Apply(group, members);
    }
}

PimMulticastRouting::Tree
PimMulticastRouting::Describe(const GroupState& group) const
{
    Tree tree;
    tree.source = group.source;
    tree.origin = m_scenario.islandAddresses[group.source];
    tree.group = group.group;
    tree.members.assign(group.members.begin(), group.members.end());
    tree.links = group.installed.links;
    tree.replicationPoints = group.installed.replicationPoints;
    tree.maxRouterHops = group.installed.maxRouterHops;
    return tree;
}

} // namespace ns3
