/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "pim-multicast-helper.h"

#include "link-load-model.h"
#include "wan-input-error.h"
#include "wan-topology-helper.h"
#include "wan-topology.h"

#include "ns3/abort.h"
#include "ns3/ipv4-list-routing.h"
#include "ns3/ipv4-routing-table-entry.h"
#include "ns3/ipv4-static-routing-helper.h"
#include "ns3/ipv4-static-routing.h"
#include "ns3/ipv4.h"
#include "ns3/log.h"
#include "ns3/names.h"
#include "ns3/node.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <limits>
#include <map>
#include <set>
#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("WanTrainingPimMulticastHelper");

namespace
{

/** Marks "no router" (an island endpoint) and "no link". */
const uint32_t NONE = std::numeric_limits<uint32_t>::max();
/** The source name of group range errors. */
const char* const RANGE_SOURCE = "<group-range>";
/** The path of group range errors. */
const char* const RANGE_PATH = "groupRange";
/** The link-local multicast block 224.0.0.0/24 (Ipv4Address::IsLocalMulticast). */
const uint32_t LOCAL_MULTICAST_NETWORK = 0xE0000000;
/** Prefix length of the link-local multicast block. */
const uint32_t LOCAL_MULTICAST_PREFIX = 24;

/** The multicast route of one router for one group. */
struct RouterRoute
{
    uint32_t input{0};             //!< input interface
    std::vector<uint32_t> outputs; //!< output interfaces, sorted

    /**
     * @param other another route
     * @return whether both have the same interfaces
     */
    bool operator==(const RouterRoute& other) const
    {
        return input == other.input && outputs == other.outputs;
    }
};

/** A source tree as routes. */
struct TreeShape
{
    std::vector<uint32_t> links;             //!< directed links, sorted
    std::map<uint32_t, RouterRoute> routes;  //!< router city -> its route
    std::vector<uint32_t> replicationPoints; //!< routers with > 1 output, sorted
    uint32_t maxRouterHops{0};               //!< most routers on a path to a member
};

/** One group: its key, its members and the routes installed for it. */
struct GroupState
{
    uint32_t round{0};                         //!< round slot
    uint32_t clique{0};                        //!< clique index
    uint32_t source{0};                        //!< source island
    Ipv4Address group;                         //!< group address
    std::set<uint32_t> members;                //!< members whose join took effect
    std::map<uint32_t, uint64_t> pendingJoins; //!< member -> token of its pending join
    TreeShape installed;                       //!< what is installed now
};

/**
 * @param prefix a prefix length, at most 32
 * @return its mask as a host-order integer
 */
uint32_t
PrefixMask(uint32_t prefix)
{
    return prefix == 0 ? 0 : ~uint32_t{0} << (32 - prefix);
}

/**
 * @param text a decimal number
 * @param maxValue the largest accepted value
 * @param value where to store it
 * @return whether text is a decimal number (1 to 3 digits) not above maxValue
 */
bool
ParseSmallDecimal(const std::string& text, uint32_t maxValue, uint32_t& value)
{
    if (text.empty() || text.size() > 3 ||
        text.find_first_not_of("0123456789") != std::string::npos)
    {
        return false;
    }
    value = static_cast<uint32_t>(std::stoul(text));
    return value <= maxValue;
}

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

/** The helper's state, shared by its copies and by the events it schedules. */
struct PimMulticastHelper::State : public std::enable_shared_from_this<PimMulticastHelper::State>
{
    /**
     * @param scenario an installed scenario
     */
    explicit State(const WanTopologyHelper& scenario);

    /**
     * @brief Abort unless the index is an island of the topology.
     * @param island a city index
     * @param what what the index is, for the message
     */
    void CheckIsland(uint32_t island, const char* what) const;
    /**
     * @param round round slot
     * @param clique clique index
     * @param source source island
     * @return the group index (offset in the range)
     * @throws WanInputError when the range is too small
     */
    uint64_t GroupIndex(uint32_t round, uint32_t clique, uint32_t source) const;
    /**
     * @param round round slot
     * @param clique clique index
     * @param source source island
     * @return the group's state, created (without members) when new
     */
    GroupState& GetGroupState(uint32_t round, uint32_t clique, uint32_t source);
    /**
     * @param source the source island
     * @param members the members
     * @return the tree of the source toward the members, as links and routes
     */
    TreeShape Shape(uint32_t source, const std::set<uint32_t>& members) const;
    /**
     * @brief Make the installed routes of a group those of a member set.
     * @param group the group
     * @param members its new members
     */
    void Apply(GroupState& group, const std::set<uint32_t>& members);
    /**
     * @param group the group
     * @param member an island
     * @return the join delay of the member against the group's installed tree
     */
    Time JoinDelay(const GroupState& group, uint32_t member) const;
    /**
     * @param source the source island
     * @param member another island
     * @param tree directed links of the installed tree, sorted
     * @return the latency in ms of the WAN links of route(source, member) not in the tree
     */
    double BranchLatencyMs(uint32_t source,
                           uint32_t member,
                           const std::vector<uint32_t>& tree) const;
    /**
     * @brief A member's join is sent now.
     * @param index the group index
     * @param member the member
     */
    void JoinNow(uint64_t index, uint32_t member);
    /**
     * @brief A member's join reaches the tree now (unless a prune or InstallSchedule overtook it).
     * @param index the group index
     * @param member the member
     * @param token the token the join was recorded with
     */
    void CompleteJoin(uint64_t index, uint32_t member, uint64_t token);
    /**
     * @brief A member leaves now.
     * @param index the group index
     * @param member the member
     */
    void PruneNow(uint64_t index, uint32_t member);
    /**
     * @brief Abort unless an island delivers multicast to its sockets (it runs an
     * Ipv4ListRouting with an Ipv4StaticRouting inside, as WanTopologyHelper installs).
     * @param island the island's city index
     */
    void EnsureLocalDelivery(uint32_t island);
    /**
     * @param city a router's city index
     * @return the router's Ipv4StaticRouting
     */
    Ptr<Ipv4StaticRouting> RouterRouting(uint32_t city) const;
    /**
     * @param schedule a schedule
     * @param round one of its round slots
     * @param caller the public method, for the message
     */
    void CheckRound(const CliqueSchedule& schedule, uint32_t round, const char* caller) const;
    /**
     * @param group a group
     * @return the group as a SourceTree
     */
    SourceTree Describe(const GroupState& group) const;

    WanTopology topology;                     //!< the scenario's topology
    LinkLoadModel model;                      //!< source trees (MODEL.md)
    uint32_t n;                               //!< number of islands
    std::vector<Ptr<Node>> routers;           //!< router node per city
    std::vector<Ptr<Node>> islands;           //!< island node per city
    std::vector<Ipv4Address> islandAddresses; //!< island address per city
    std::vector<uint32_t> fromRouter;         //!< per directed link: sending router or NONE
    std::vector<uint32_t> toRouter;           //!< per directed link: receiving router or NONE
    std::vector<uint32_t> txInterface;        //!< per directed link: Ipv4 interface of Tx
    std::vector<uint32_t> rxInterface;        //!< per directed link: Ipv4 interface of Rx
    Ipv4Address network;                      //!< group range network
    uint32_t prefix{0};                       //!< group range prefix length
    bool joinDelay{true};                     //!< whether joins are delayed
    std::map<uint64_t, GroupState> groups;    //!< group index -> state
    std::set<uint32_t> localDelivery;         //!< islands known to deliver multicast locally
    uint64_t nextToken{0};                    //!< token of the next pending join
};

PimMulticastHelper::State::State(const WanTopologyHelper& scenario)
    : topology(scenario.GetTopology()),
      model(scenario.GetTopology()),
      n(scenario.GetTopology().GetNCities())
{
    // The scenario's getters abort with a clear message when it is not installed.
    std::map<uint32_t, uint32_t> cityOfRouter;
    for (uint32_t i = 0; i < n; ++i)
    {
        routers.push_back(scenario.GetRouter(i));
        islands.push_back(scenario.GetIsland(i));
        islandAddresses.push_back(scenario.GetIslandAddress(i));
        cityOfRouter[scenario.GetRouter(i)->GetId()] = i;
    }
    auto routerOf = [&cityOfRouter](Ptr<NetDevice> device) {
        auto it = cityOfRouter.find(device->GetNode()->GetId());
        return it == cityOfRouter.end() ? NONE : it->second;
    };
    for (uint32_t d = 0; d < topology.GetNDirectedLinks(); ++d)
    {
        fromRouter.push_back(routerOf(scenario.GetTxDevice(d)));
        toRouter.push_back(routerOf(scenario.GetRxDevice(d)));
        txInterface.push_back(scenario.GetTxInterface(d));
        rxInterface.push_back(scenario.GetRxInterface(d));
    }
}

void
PimMulticastHelper::State::CheckIsland(uint32_t island, const char* what) const
{
    NS_ABORT_MSG_UNLESS(island < n,
                        "PimMulticastHelper: " << what << " " << island
                                               << " is not an island of topology '"
                                               << topology.GetName() << "' (" << n << " islands)");
}

uint64_t
PimMulticastHelper::State::GroupIndex(uint32_t round, uint32_t clique, uint32_t source) const
{
    CheckIsland(source, "source");
    NS_ABORT_MSG_UNLESS(clique < n,
                        "PimMulticastHelper: clique index "
                            << clique << " out of range (a round of " << n
                            << " islands has at most " << n << " cliques)");
    uint64_t index = (uint64_t{round} * n + clique) * n + source;
    uint64_t size = uint64_t{1} << (32 - prefix);
    if (index >= size)
    {
        std::ostringstream reason;
        reason << "the range " << network << "/" << prefix << " holds " << size
               << " groups, but (round " << round << ", clique " << clique << ", source " << source
               << ") needs group index " << index << " = (round x " << n << " + clique) x " << n
               << " + source; use a larger range";
        throw WanInputError(RANGE_SOURCE, RANGE_PATH, reason.str());
    }
    return index;
}

GroupState&
PimMulticastHelper::State::GetGroupState(uint32_t round, uint32_t clique, uint32_t source)
{
    uint64_t index = GroupIndex(round, clique, source);
    auto it = groups.find(index);
    if (it == groups.end())
    {
        GroupState state;
        state.round = round;
        state.clique = clique;
        state.source = source;
        state.group = Ipv4Address(network.Get() + static_cast<uint32_t>(index));
        it = groups.emplace(index, state).first;
    }
    return it->second;
}

TreeShape
PimMulticastHelper::State::Shape(uint32_t source, const std::set<uint32_t>& members) const
{
    TreeShape shape;
    // Members the current routes do not reach from the source (a partitioned WAN) get nothing.
    std::set<uint32_t> reached;
    for (uint32_t member : members)
    {
        if (topology.HasRoute(source, member))
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
    shape.links = model.GetSourceTree(source, clique);

    std::map<uint32_t, uint32_t> incoming;
    std::map<uint32_t, std::vector<uint32_t>> outgoing;
    for (uint32_t d : shape.links)
    {
        uint32_t to = toRouter[d];
        if (to != NONE)
        {
            NS_ABORT_MSG_IF(incoming.count(to),
                            "PimMulticastHelper: the routes from island "
                                << topology.GetCity(source).id << " do not form a tree: router "
                                << topology.GetCity(to).id << " is entered by both "
                                << topology.GetDirectedLinkName(incoming[to]) << " and "
                                << topology.GetDirectedLinkName(d));
            incoming[to] = d;
        }
        if (fromRouter[d] != NONE)
        {
            outgoing[fromRouter[d]].push_back(d);
        }
    }
    NS_ABORT_MSG_UNLESS(incoming.size() == outgoing.size(),
                        "PimMulticastHelper: the tree of island "
                            << topology.GetCity(source).id
                            << " has a router without an input or without an output link");
    for (const auto& [router, links] : outgoing)
    {
        auto in = incoming.find(router);
        NS_ABORT_MSG_IF(in == incoming.end(),
                        "PimMulticastHelper: router "
                            << topology.GetCity(router).id << " of the tree of island "
                            << topology.GetCity(source).id << " has no input link");
        RouterRoute route;
        route.input = rxInterface[in->second];
        for (uint32_t d : links)
        {
            route.outputs.push_back(txInterface[d]);
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
        uint32_t router = fromRouter[topology.GetAccessDownLink(member)];
        while (router != NONE && hops <= n)
        {
            ++hops;
            router = fromRouter[incoming.at(router)];
        }
        NS_ABORT_MSG_IF(hops > n,
                        "PimMulticastHelper: the tree of island " << topology.GetCity(source).id
                                                                  << " has a loop");
        shape.maxRouterHops = std::max(shape.maxRouterHops, hops);
    }
    return shape;
}

Ptr<Ipv4StaticRouting>
PimMulticastHelper::State::RouterRouting(uint32_t city) const
{
    Ipv4StaticRoutingHelper helper;
    Ptr<Ipv4StaticRouting> routing = helper.GetStaticRouting(routers[city]->GetObject<Ipv4>());
    NS_ABORT_MSG_UNLESS(routing,
                        "PimMulticastHelper: router " << topology.GetCity(city).id
                                                      << " has no Ipv4StaticRouting");
    return routing;
}

void
PimMulticastHelper::State::EnsureLocalDelivery(uint32_t island)
{
    if (localDelivery.count(island))
    {
        return;
    }
    // WanTopologyHelper gives every island an Ipv4ListRouting (around its Ipv4StaticRouting),
    // the only ns-3.37 routing protocol that hands multicast datagrams to the node's sockets.
    Ptr<Ipv4> ipv4 = islands[island]->GetObject<Ipv4>();
    Ptr<Ipv4RoutingProtocol> current = ipv4->GetRoutingProtocol();
    NS_ABORT_MSG_UNLESS(DynamicCast<Ipv4ListRouting>(current),
                        "PimMulticastHelper: island "
                            << topology.GetCity(island).id << " runs "
                            << (current ? current->GetInstanceTypeId().GetName() : "no routing")
                            << ", which does not deliver multicast to its sockets; islands need "
                               "an Ipv4ListRouting (WanTopologyHelper installs one)");
    Ipv4StaticRoutingHelper helper;
    NS_ABORT_MSG_UNLESS(helper.GetStaticRouting(ipv4),
                        "PimMulticastHelper: island " << topology.GetCity(island).id
                                                      << " has no Ipv4StaticRouting in its "
                                                         "Ipv4ListRouting");
    localDelivery.insert(island);
}

void
PimMulticastHelper::State::Apply(GroupState& group, const std::set<uint32_t>& members)
{
    NS_LOG_FUNCTION(group.group << members.size());
    TreeShape next = Shape(group.source, members);
    for (uint32_t member : members)
    {
        EnsureLocalDelivery(member);
    }
    const Ipv4Address origin = islandAddresses[group.source];
    for (const auto& [router, route] : group.installed.routes)
    {
        auto it = next.routes.find(router);
        if (it == next.routes.end() || !(it->second == route))
        {
            bool removed =
                RouterRouting(router)->RemoveMulticastRoute(origin, group.group, route.input);
            NS_ABORT_MSG_UNLESS(removed,
                                "PimMulticastHelper: the route of group "
                                    << group.group << " vanished from router "
                                    << topology.GetCity(router).id);
        }
    }
    for (const auto& [router, route] : next.routes)
    {
        auto it = group.installed.routes.find(router);
        if (it == group.installed.routes.end() || !(it->second == route))
        {
            NS_LOG_INFO("router " << topology.GetCity(router).id << ": (" << origin << ", "
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
    const uint32_t up = topology.GetAccessUpLink(group.source);
    Ptr<Ipv4StaticRouting> sourceRouting =
        helper.GetStaticRouting(islands[group.source]->GetObject<Ipv4>());
    NS_ABORT_MSG_UNLESS(sourceRouting,
                        "PimMulticastHelper: island " << topology.GetCity(group.source).id
                                                      << " has no Ipv4StaticRouting");
    if (group.installed.links.empty() && !next.links.empty())
    {
        sourceRouting->AddHostRouteTo(group.group, txInterface[up]);
    }
    else if (!group.installed.links.empty() && next.links.empty())
    {
        for (uint32_t i = 0; i < sourceRouting->GetNRoutes(); ++i)
        {
            Ipv4RoutingTableEntry route = sourceRouting->GetRoute(i);
            if (route.IsHost() && route.GetDest() == group.group &&
                route.GetInterface() == txInterface[up])
            {
                sourceRouting->RemoveRoute(i);
                break;
            }
        }
    }
    group.installed = next;
    group.members = members;
}

Time
PimMulticastHelper::State::JoinDelay(const GroupState& group, uint32_t member) const
{
    if (!joinDelay || group.members.count(member))
    {
        return Seconds(0);
    }
    return MsToTime(BranchLatencyMs(group.source, member, group.installed.links));
}

double
PimMulticastHelper::State::BranchLatencyMs(uint32_t source,
                                           uint32_t member,
                                           const std::vector<uint32_t>& tree) const
{
    double ms = 0;
    for (uint32_t d : topology.GetRoute(source, member).links)
    {
        if (!topology.IsAccessLink(d) && !std::binary_search(tree.begin(), tree.end(), d))
        {
            ms += topology.GetDirectedLinkLatencyMs(d);
        }
    }
    return ms;
}

void
PimMulticastHelper::State::JoinNow(uint64_t index, uint32_t member)
{
    GroupState& group = groups.at(index);
    if (group.members.count(member) || group.pendingJoins.count(member))
    {
        NS_LOG_LOGIC("island " << member << " already joined " << group.group);
        return;
    }
    Time delay = JoinDelay(group, member);
    NS_LOG_INFO("island " << topology.GetCity(member).id << " joins " << group.group
                          << ", effective in " << delay.As(Time::MS));
    if (delay.IsZero())
    {
        std::set<uint32_t> members = group.members;
        members.insert(member);
        Apply(group, members);
        return;
    }
    // The event holds the state; the state holds only a token, so no reference cycle.
    std::shared_ptr<State> self = shared_from_this();
    uint64_t token = nextToken++;
    group.pendingJoins[member] = token;
    Simulator::Schedule(delay, [self, index, member, token]() {
        self->CompleteJoin(index, member, token);
    });
}

void
PimMulticastHelper::State::CompleteJoin(uint64_t index, uint32_t member, uint64_t token)
{
    GroupState& group = groups.at(index);
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
PimMulticastHelper::State::PruneNow(uint64_t index, uint32_t member)
{
    GroupState& group = groups.at(index);
    group.pendingJoins.erase(member);
    if (group.members.count(member))
    {
        NS_LOG_INFO("island " << topology.GetCity(member).id << " leaves " << group.group);
        std::set<uint32_t> members = group.members;
        members.erase(member);
        Apply(group, members);
    }
}

void
PimMulticastHelper::State::CheckRound(const CliqueSchedule& schedule,
                                      uint32_t round,
                                      const char* caller) const
{
    NS_ABORT_MSG_UNLESS(schedule.GetNIslands() == n,
                        "PimMulticastHelper::" << caller << "(): the schedule has "
                                               << schedule.GetNIslands() << " islands, topology '"
                                               << topology.GetName() << "' has " << n);
    NS_ABORT_MSG_UNLESS(round < schedule.GetNRounds(),
                        "PimMulticastHelper::" << caller << "(): round slot " << round
                                               << " out of range (the schedule has "
                                               << schedule.GetNRounds() << ")");
}

PimMulticastHelper::SourceTree
PimMulticastHelper::State::Describe(const GroupState& group) const
{
    SourceTree tree;
    tree.round = group.round;
    tree.clique = group.clique;
    tree.source = group.source;
    tree.origin = islandAddresses[group.source];
    tree.group = group.group;
    tree.members.assign(group.members.begin(), group.members.end());
    tree.links = group.installed.links;
    for (uint32_t d : tree.links)
    {
        tree.linkNames.push_back(topology.GetDirectedLinkName(d));
    }
    tree.replicationPoints = group.installed.replicationPoints;
    tree.maxRouterHops = group.installed.maxRouterHops;
    tree.requiredTtl = tree.members.empty() ? 0 : tree.maxRouterHops + 1;
    return tree;
}

PimMulticastHelper::PimMulticastHelper(const WanTopologyHelper& scenario)
    : m_state(std::make_shared<State>(scenario))
{
    NS_LOG_FUNCTION(this);
    SetGroupRange(DEFAULT_GROUP_RANGE);
}

void
PimMulticastHelper::SetGroupRange(const std::string& range)
{
    NS_LOG_FUNCTION(this << range);
    auto invalid = [&range](const std::string& why) {
        return WanInputError(RANGE_SOURCE,
                             RANGE_PATH,
                             "'" + range + "' is not a network A.B.C.D/P (" + why + ")");
    };
    std::size_t slash = range.find('/');
    if (slash == std::string::npos)
    {
        throw invalid("no '/P' prefix length");
    }
    uint32_t prefix;
    if (!ParseSmallDecimal(range.substr(slash + 1), 32, prefix))
    {
        throw invalid("the prefix length must be an integer in [0, 32]");
    }
    uint32_t address = 0;
    std::string rest = range.substr(0, slash);
    for (uint32_t k = 0; k < 4; ++k)
    {
        std::size_t dot = rest.find('.');
        if ((k < 3) != (dot != std::string::npos))
        {
            throw invalid("the address must have four dotted parts");
        }
        uint32_t octet;
        if (!ParseSmallDecimal(rest.substr(0, dot), 255, octet))
        {
            throw invalid("every part of the address must be an integer in [0, 255]");
        }
        address = (address << 8) | octet;
        rest = dot == std::string::npos ? "" : rest.substr(dot + 1);
    }
    SetGroupRange(Ipv4Address(address), Ipv4Mask(PrefixMask(prefix)));
}

void
PimMulticastHelper::SetGroupRange(Ipv4Address network, Ipv4Mask mask)
{
    NS_LOG_FUNCTION(this << network << mask);
    NS_ABORT_MSG_IF(!m_state->groups.empty(),
                    "PimMulticastHelper::SetGroupRange(): groups are already in use; set the "
                    "range before installing, joining or pruning any group");
    const uint32_t prefix = mask.GetPrefixLength();
    std::ostringstream name;
    name << network << "/" << prefix;
    if (mask.Get() != PrefixMask(prefix))
    {
        std::ostringstream reason;
        reason << "the mask " << mask << " is not a prefix mask";
        throw WanInputError(RANGE_SOURCE, RANGE_PATH, reason.str());
    }
    if (network.Get() != (network.Get() & mask.Get()))
    {
        std::ostringstream reason;
        reason << "'" << name.str() << "' is not a network: " << network
               << " has bits outside the /" << prefix << " prefix (the network is "
               << Ipv4Address(network.Get() & mask.Get()) << "/" << prefix << ")";
        throw WanInputError(RANGE_SOURCE, RANGE_PATH, reason.str());
    }
    if (prefix < 4 || !network.IsMulticast())
    {
        throw WanInputError(RANGE_SOURCE,
                            RANGE_PATH,
                            "'" + name.str() +
                                "' is not a multicast range (it must lie inside 224.0.0.0/4; the "
                                "SSM range is 232.0.0.0/8)");
    }
    const uint32_t shorter = PrefixMask(std::min(prefix, LOCAL_MULTICAST_PREFIX));
    if ((network.Get() & shorter) == (LOCAL_MULTICAST_NETWORK & shorter))
    {
        throw WanInputError(RANGE_SOURCE,
                            RANGE_PATH,
                            "'" + name.str() +
                                "' overlaps the link-local multicast block 224.0.0.0/24, which "
                                "routers never forward");
    }
    m_state->network = network;
    m_state->prefix = prefix;
}

Ipv4Address
PimMulticastHelper::GetGroupNetwork() const
{
    return m_state->network;
}

Ipv4Mask
PimMulticastHelper::GetGroupMask() const
{
    return Ipv4Mask(PrefixMask(m_state->prefix));
}

uint64_t
PimMulticastHelper::GetGroupRangeSize() const
{
    return uint64_t{1} << (32 - m_state->prefix);
}

void
PimMulticastHelper::SetJoinDelayEnabled(bool enabled)
{
    NS_LOG_FUNCTION(this << enabled);
    m_state->joinDelay = enabled;
}

bool
PimMulticastHelper::IsJoinDelayEnabled() const
{
    return m_state->joinDelay;
}

Ipv4Address
PimMulticastHelper::GetGroup(uint32_t round, uint32_t clique, uint32_t source) const
{
    uint64_t index = m_state->GroupIndex(round, clique, source);
    return Ipv4Address(m_state->network.Get() + static_cast<uint32_t>(index));
}

uint8_t
PimMulticastHelper::GetMulticastTtl() const
{
    std::size_t routers = 0;
    for (uint32_t s = 0; s < m_state->n; ++s)
    {
        for (uint32_t j = 0; j < m_state->n; ++j)
        {
            if (s != j)
            {
                routers = std::max(routers, m_state->topology.GetRoute(s, j).cities.size());
            }
        }
    }
    NS_ABORT_MSG_IF(routers + 1 > std::numeric_limits<uint8_t>::max(),
                    "PimMulticastHelper::GetMulticastTtl(): a route crosses "
                        << routers << " routers, more than an IPv4 TTL can reach");
    return static_cast<uint8_t>(routers + 1);
}

void
PimMulticastHelper::InstallSchedule(const CliqueSchedule& schedule)
{
    NS_LOG_FUNCTION(this << schedule.GetNRounds());
    State& state = *m_state;
    NS_ABORT_MSG_UNLESS(schedule.GetNIslands() == state.n,
                        "PimMulticastHelper::InstallSchedule(): the schedule has "
                            << schedule.GetNIslands() << " islands, topology '"
                            << state.topology.GetName() << "' has " << state.n);
    // Check every group against the range before installing anything.
    for (uint32_t r = 0; r < schedule.GetNRounds(); ++r)
    {
        const CliqueSchedule::Round& round = schedule.GetRound(r);
        for (uint32_t c = 0; c < round.size(); ++c)
        {
            for (uint32_t source : round[c])
            {
                state.GroupIndex(r, c, source);
            }
        }
    }
    for (uint32_t r = 0; r < schedule.GetNRounds(); ++r)
    {
        const CliqueSchedule::Round& round = schedule.GetRound(r);
        for (uint32_t c = 0; c < round.size(); ++c)
        {
            if (round[c].size() < 2)
            {
                continue;
            }
            for (uint32_t source : round[c])
            {
                GroupState& group = state.GetGroupState(r, c, source);
                std::set<uint32_t> members = group.members;
                for (uint32_t member : round[c])
                {
                    if (member == source)
                    {
                        continue;
                    }
                    group.pendingJoins.erase(member);
                    members.insert(member);
                }
                state.Apply(group, members);
            }
        }
    }
}

void
PimMulticastHelper::JoinRound(const CliqueSchedule& schedule, uint32_t round, Time at)
{
    NS_LOG_FUNCTION(this << round << at);
    m_state->CheckRound(schedule, round, "JoinRound");
    const CliqueSchedule::Round& cliques = schedule.GetRound(round);
    for (uint32_t c = 0; c < cliques.size(); ++c)
    {
        for (uint32_t source : cliques[c])
        {
            m_state->GroupIndex(round, c, source);
        }
    }
    for (uint32_t c = 0; c < cliques.size(); ++c)
    {
        for (uint32_t source : cliques[c])
        {
            for (uint32_t member : cliques[c])
            {
                if (member != source)
                {
                    Join(round, c, source, member, at);
                }
            }
        }
    }
}

void
PimMulticastHelper::PruneRound(const CliqueSchedule& schedule, uint32_t round, Time at)
{
    NS_LOG_FUNCTION(this << round << at);
    m_state->CheckRound(schedule, round, "PruneRound");
    const CliqueSchedule::Round& cliques = schedule.GetRound(round);
    for (uint32_t c = 0; c < cliques.size(); ++c)
    {
        for (uint32_t source : cliques[c])
        {
            m_state->GroupIndex(round, c, source);
        }
    }
    for (uint32_t c = 0; c < cliques.size(); ++c)
    {
        for (uint32_t source : cliques[c])
        {
            for (uint32_t member : cliques[c])
            {
                if (member != source)
                {
                    Prune(round, c, source, member, at);
                }
            }
        }
    }
}

Time
PimMulticastHelper::GetRoundJoinDelay(const CliqueSchedule& schedule, uint32_t round) const
{
    m_state->CheckRound(schedule, round, "GetRoundJoinDelay");
    if (!m_state->joinDelay)
    {
        return Seconds(0);
    }
    double ms = 0;
    for (const CliqueSchedule::Clique& clique : schedule.GetRound(round))
    {
        for (uint32_t source : clique)
        {
            for (uint32_t member : clique)
            {
                if (member != source)
                {
                    ms = std::max(ms, m_state->BranchLatencyMs(source, member, {}));
                }
            }
        }
    }
    return MsToTime(ms);
}

void
PimMulticastHelper::Join(uint32_t round, uint32_t clique, uint32_t source, uint32_t member, Time at)
{
    NS_LOG_FUNCTION(this << round << clique << source << member << at);
    m_state->CheckIsland(member, "member");
    NS_ABORT_MSG_IF(member == source,
                    "PimMulticastHelper::Join(): island " << member
                                                          << " cannot join its own group");
    NS_ABORT_MSG_IF(at < Simulator::Now(),
                    "PimMulticastHelper::Join(): time " << at.As(Time::S) << " is in the past (now "
                                                        << Simulator::Now().As(Time::S) << ")");
    uint64_t index = m_state->GroupIndex(round, clique, source);
    m_state->GetGroupState(round, clique, source);
    std::shared_ptr<State> state = m_state;
    Simulator::Schedule(at - Simulator::Now(),
                        [state, index, member]() { state->JoinNow(index, member); });
}

void
PimMulticastHelper::Prune(uint32_t round,
                          uint32_t clique,
                          uint32_t source,
                          uint32_t member,
                          Time at)
{
    NS_LOG_FUNCTION(this << round << clique << source << member << at);
    m_state->CheckIsland(member, "member");
    NS_ABORT_MSG_IF(member == source,
                    "PimMulticastHelper::Prune(): island " << member
                                                           << " is the source of the group");
    NS_ABORT_MSG_IF(at < Simulator::Now(),
                    "PimMulticastHelper::Prune(): time "
                        << at.As(Time::S) << " is in the past (now " << Simulator::Now().As(Time::S)
                        << ")");
    uint64_t index = m_state->GroupIndex(round, clique, source);
    m_state->GetGroupState(round, clique, source);
    std::shared_ptr<State> state = m_state;
    Simulator::Schedule(at - Simulator::Now(),
                        [state, index, member]() { state->PruneNow(index, member); });
}

Time
PimMulticastHelper::GetJoinDelay(uint32_t round,
                                 uint32_t clique,
                                 uint32_t source,
                                 uint32_t member) const
{
    m_state->CheckIsland(member, "member");
    NS_ABORT_MSG_IF(member == source,
                    "PimMulticastHelper::GetJoinDelay(): island " << member
                                                                  << " is the source of the group");
    uint64_t index = m_state->GroupIndex(round, clique, source);
    auto it = m_state->groups.find(index);
    if (it != m_state->groups.end())
    {
        return m_state->JoinDelay(it->second, member);
    }
    GroupState empty;
    empty.source = source;
    return m_state->JoinDelay(empty, member);
}

void
PimMulticastHelper::Reroute(const WanTopology& routing)
{
    NS_LOG_FUNCTION(this << routing.GetDownLinks().size());
    State& state = *m_state;
    bool same = routing.GetNCities() == state.topology.GetNCities() &&
                routing.GetNLinks() == state.topology.GetNLinks();
    for (uint32_t d = 0; same && d < state.topology.GetNDirectedLinks(); ++d)
    {
        same = routing.GetDirectedLinkName(d) == state.topology.GetDirectedLinkName(d);
    }
    NS_ABORT_MSG_UNLESS(same,
                        "PimMulticastHelper::Reroute(): the routing topology '"
                            << routing.GetName() << "' does not have the cities and links of '"
                            << state.topology.GetName() << "'");
    state.topology = routing;
    state.model = LinkLoadModel(routing);
    for (auto& [index, group] : state.groups)
    {
        std::set<uint32_t> members = group.members;
        state.Apply(group, members);
    }
}

PimMulticastHelper::SourceTree
PimMulticastHelper::GetTree(uint32_t round, uint32_t clique, uint32_t source) const
{
    uint64_t index = m_state->GroupIndex(round, clique, source);
    auto it = m_state->groups.find(index);
    if (it != m_state->groups.end())
    {
        return m_state->Describe(it->second);
    }
    GroupState empty;
    empty.round = round;
    empty.clique = clique;
    empty.source = source;
    empty.group = GetGroup(round, clique, source);
    return m_state->Describe(empty);
}

std::vector<PimMulticastHelper::SourceTree>
PimMulticastHelper::GetTrees() const
{
    std::vector<SourceTree> trees;
    for (const auto& [index, group] : m_state->groups)
    {
        if (!group.members.empty())
        {
            trees.push_back(m_state->Describe(group));
        }
    }
    return trees;
}

} // namespace ns3
