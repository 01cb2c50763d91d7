/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "pim-multicast-helper.h"

#include "pim-multicast-routing.h"
#include "wan-input-error.h"
#include "wan-topology-helper.h"
#include "wan-topology.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <limits>
#include <map>
#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("WanTrainingPimMulticastHelper");

namespace
{

/** The source name of group range errors. */
const char* const RANGE_SOURCE = "<group-range>";
/** The path of group range errors. */
const char* const RANGE_PATH = "groupRange";
/** The link-local multicast block 224.0.0.0/24 (Ipv4Address::IsLocalMulticast). */
const uint32_t LOCAL_MULTICAST_NETWORK = 0xE0000000;
/** Prefix length of the link-local multicast block. */
const uint32_t LOCAL_MULTICAST_PREFIX = 24;

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

} // namespace

PimMulticastHelper::PimMulticastHelper(const WanTopologyHelper& scenario)
    : m_range(std::make_shared<GroupRange>())
{
    NS_LOG_FUNCTION(this);
    // The scenario's getters abort with a clear message when it is not installed.
    const WanTopology& topology = scenario.GetTopology();
    m_n = topology.GetNCities();
    PimMulticastRouting::Scenario handles;
    std::map<uint32_t, uint32_t> cityOfRouter;
    for (uint32_t i = 0; i < m_n; ++i)
    {
        handles.routers.push_back(scenario.GetRouter(i));
        handles.islands.push_back(scenario.GetIsland(i));
        handles.islandAddresses.push_back(scenario.GetIslandAddress(i));
        cityOfRouter[scenario.GetRouter(i)->GetId()] = i;
    }
    auto routerOf = [&cityOfRouter](Ptr<NetDevice> device) {
        auto it = cityOfRouter.find(device->GetNode()->GetId());
        return it == cityOfRouter.end() ? PimMulticastRouting::NO_ROUTER : it->second;
    };
    for (uint32_t d = 0; d < topology.GetNDirectedLinks(); ++d)
    {
        handles.fromRouter.push_back(routerOf(scenario.GetTxDevice(d)));
        handles.toRouter.push_back(routerOf(scenario.GetRxDevice(d)));
        handles.txInterface.push_back(scenario.GetTxInterface(d));
        handles.rxInterface.push_back(scenario.GetRxInterface(d));
    }
    m_routing = CreateObject<PimMulticastRouting>();
    m_routing->SetScenario(topology, handles);
    SetGroupRange(DEFAULT_GROUP_RANGE);
}

void
PimMulticastHelper::CheckIsland(uint32_t island, const char* what) const
{
    NS_ABORT_MSG_UNLESS(island < m_n,
                        "PimMulticastHelper: "
                            << what << " " << island << " is not an island of topology '"
                            << m_routing->GetRouting().GetName() << "' (" << m_n << " islands)");
}

uint64_t
PimMulticastHelper::GroupIndex(uint32_t round, uint32_t clique, uint32_t source) const
{
    CheckIsland(source, "source");
    NS_ABORT_MSG_UNLESS(clique < m_n,
                        "PimMulticastHelper: clique index "
                            << clique << " out of range (a round of " << m_n
                            << " islands has at most " << m_n << " cliques)");
    const uint32_t n = m_n;
    const uint32_t prefix = m_range->prefix;
    uint64_t index = (uint64_t{round} * n + clique) * n + source;
    uint64_t size = uint64_t{1} << (32 - prefix);
    if (index >= size)
    {
        std::ostringstream reason;
        reason << "the range " << m_range->network << "/" << prefix << " holds " << size
               << " groups, but (round " << round << ", clique " << clique << ", source " << source
               << ") needs group index " << index << " = (round x " << n << " + clique) x " << n
               << " + source; use a larger range";
        throw WanInputError(RANGE_SOURCE, RANGE_PATH, reason.str());
    }
    return index;
}

Ipv4Address
PimMulticastHelper::AddGroup(uint32_t round, uint32_t clique, uint32_t source)
{
    Ipv4Address group = GetGroup(round, clique, source);
    m_routing->AddGroup(group, source);
    return group;
}

void
PimMulticastHelper::CheckRound(const CliqueSchedule& schedule,
                               uint32_t round,
                               const char* caller) const
{
    NS_ABORT_MSG_UNLESS(schedule.GetNIslands() == m_n,
                        "PimMulticastHelper::" << caller << "(): the schedule has "
                                               << schedule.GetNIslands() << " islands, topology '"
                                               << m_routing->GetRouting().GetName() << "' has "
                                               << m_n);
    NS_ABORT_MSG_UNLESS(round < schedule.GetNRounds(),
                        "PimMulticastHelper::" << caller << "(): round slot " << round
                                               << " out of range (the schedule has "
                                               << schedule.GetNRounds() << ")");
}

PimMulticastHelper::SourceTree
PimMulticastHelper::Describe(const PimMulticastRouting::Tree& installed) const
{
    const uint64_t index = installed.group.Get() - m_range->network.Get();
    SourceTree tree;
    tree.round = static_cast<uint32_t>(index / (uint64_t{m_n} * m_n));
    tree.clique = static_cast<uint32_t>(index / m_n % m_n);
    tree.source = installed.source;
    tree.origin = installed.origin;
    tree.group = installed.group;
    tree.members = installed.members;
    tree.links = installed.links;
    const WanTopology& topology = m_routing->GetRouting();
    for (uint32_t d : tree.links)
    {
        tree.linkNames.push_back(topology.GetDirectedLinkName(d));
    }
    tree.replicationPoints = installed.replicationPoints;
    tree.maxRouterHops = installed.maxRouterHops;
    tree.requiredTtl = tree.members.empty() ? 0 : tree.maxRouterHops + 1;
    return tree;
}

Ptr<PimMulticastRouting>
PimMulticastHelper::GetMulticastRouting() const
{
    return m_routing;
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
    NS_ABORT_MSG_IF(m_routing->HasGroups(),
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
    m_range->network = network;
    m_range->prefix = prefix;
}

Ipv4Address
PimMulticastHelper::GetGroupNetwork() const
{
    return m_range->network;
}

Ipv4Mask
PimMulticastHelper::GetGroupMask() const
{
    return Ipv4Mask(PrefixMask(m_range->prefix));
}

uint64_t
PimMulticastHelper::GetGroupRangeSize() const
{
    return uint64_t{1} << (32 - m_range->prefix);
}

void
PimMulticastHelper::SetJoinDelayEnabled(bool enabled)
{
    NS_LOG_FUNCTION(this << enabled);
    m_routing->SetAttribute("JoinDelay", BooleanValue(enabled));
}

bool
PimMulticastHelper::IsJoinDelayEnabled() const
{
    BooleanValue enabled;
    m_routing->GetAttribute("JoinDelay", enabled);
    return enabled.Get();
}

Ipv4Address
PimMulticastHelper::GetGroup(uint32_t round, uint32_t clique, uint32_t source) const
{
    uint64_t index = GroupIndex(round, clique, source);
    return Ipv4Address(m_range->network.Get() + static_cast<uint32_t>(index));
}

uint8_t
PimMulticastHelper::GetMulticastTtl() const
{
    const WanTopology& topology = m_routing->GetRouting();
    std::size_t routers = 0;
    for (uint32_t s = 0; s < m_n; ++s)
    {
        for (uint32_t j = 0; j < m_n; ++j)
        {
            if (s != j)
            {
                routers = std::max(routers, topology.GetRoute(s, j).cities.size());
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
    NS_ABORT_MSG_UNLESS(schedule.GetNIslands() == m_n,
                        "PimMulticastHelper::InstallSchedule(): the schedule has "
                            << schedule.GetNIslands() << " islands, topology '"
                            << m_routing->GetRouting().GetName() << "' has " << m_n);
    // Check every group against the range before installing anything.
    for (uint32_t r = 0; r < schedule.GetNRounds(); ++r)
    {
        const CliqueSchedule::Round& round = schedule.GetRound(r);
        for (uint32_t c = 0; c < round.size(); ++c)
        {
            for (uint32_t source : round[c])
            {
                GroupIndex(r, c, source);
            }
        }
    }
    for (uint32_t r = 0; r < schedule.GetNRounds(); ++r)
    {
        const CliqueSchedule::Round& round = schedule.GetRound(r);
        for (uint32_t c = 0; c < round.size(); ++c)
        {
            const std::optional<CapabilityMode> algorithm = schedule.GetAlgorithm(r, c);
            if (round[c].size() < 2 || (algorithm && !UsesMulticast(*algorithm)))
            {
                // A clique whose algorithm does not multicast gets no trees.
                continue;
            }
            for (uint32_t source : round[c])
            {
                std::vector<uint32_t> members;
                for (uint32_t member : round[c])
                {
                    if (member != source)
                    {
                        members.push_back(member);
                    }
                }
                m_routing->AddMembers(AddGroup(r, c, source), members);
            }
        }
    }
}

void
PimMulticastHelper::JoinRound(const CliqueSchedule& schedule, uint32_t round, Time at)
{
    NS_LOG_FUNCTION(this << round << at);
    CheckRound(schedule, round, "JoinRound");
    const CliqueSchedule::Round& cliques = schedule.GetRound(round);
    for (uint32_t c = 0; c < cliques.size(); ++c)
    {
        for (uint32_t source : cliques[c])
        {
            GroupIndex(round, c, source);
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
    CheckRound(schedule, round, "PruneRound");
    const CliqueSchedule::Round& cliques = schedule.GetRound(round);
    for (uint32_t c = 0; c < cliques.size(); ++c)
    {
        for (uint32_t source : cliques[c])
        {
            GroupIndex(round, c, source);
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
    CheckRound(schedule, round, "GetRoundJoinDelay");
    if (!IsJoinDelayEnabled())
    {
        return Seconds(0);
    }
    // The longest route's delay (Time conversion is monotone: the largest latency's delay).
    Time delay = Seconds(0);
    for (const CliqueSchedule::Clique& clique : schedule.GetRound(round))
    {
        for (uint32_t source : clique)
        {
            for (uint32_t member : clique)
            {
                if (member != source)
                {
                    delay = std::max(delay, m_routing->GetBranchDelay(source, member));
                }
            }
        }
    }
    return delay;
}

void
PimMulticastHelper::Join(uint32_t round, uint32_t clique, uint32_t source, uint32_t member, Time at)
{
    NS_LOG_FUNCTION(this << round << clique << source << member << at);
    CheckIsland(member, "member");
    NS_ABORT_MSG_IF(member == source,
                    "PimMulticastHelper::Join(): island " << member
                                                          << " cannot join its own group");
    NS_ABORT_MSG_IF(at < Simulator::Now(),
                    "PimMulticastHelper::Join(): time " << at.As(Time::S) << " is in the past (now "
                                                        << Simulator::Now().As(Time::S) << ")");
    m_routing->ScheduleJoin(AddGroup(round, clique, source), member, at);
}

void
PimMulticastHelper::Prune(uint32_t round,
                          uint32_t clique,
                          uint32_t source,
                          uint32_t member,
                          Time at)
{
    NS_LOG_FUNCTION(this << round << clique << source << member << at);
    CheckIsland(member, "member");
    NS_ABORT_MSG_IF(member == source,
                    "PimMulticastHelper::Prune(): island " << member
                                                           << " is the source of the group");
    NS_ABORT_MSG_IF(at < Simulator::Now(),
                    "PimMulticastHelper::Prune(): time "
                        << at.As(Time::S) << " is in the past (now " << Simulator::Now().As(Time::S)
                        << ")");
    m_routing->SchedulePrune(AddGroup(round, clique, source), member, at);
}

Time
PimMulticastHelper::GetJoinDelay(uint32_t round,
                                 uint32_t clique,
                                 uint32_t source,
                                 uint32_t member) const
{
    CheckIsland(member, "member");
    NS_ABORT_MSG_IF(member == source,
                    "PimMulticastHelper::GetJoinDelay(): island " << member
                                                                  << " is the source of the group");
    const Ipv4Address group = GetGroup(round, clique, source);
    if (m_routing->HasGroup(group))
    {
        return m_routing->GetJoinDelay(group, member);
    }
    return m_routing->GetBranchDelay(source, member);
}

void
PimMulticastHelper::Reroute(const WanTopology& routing)
{
    NS_LOG_FUNCTION(this << routing.GetDownLinks().size());
    m_routing->Reroute(routing);
}

PimMulticastHelper::SourceTree
PimMulticastHelper::GetTree(uint32_t round, uint32_t clique, uint32_t source) const
{
    const Ipv4Address group = GetGroup(round, clique, source);
    if (m_routing->HasGroup(group))
    {
        return Describe(m_routing->GetTree(group));
    }
    PimMulticastRouting::Tree empty;
    empty.source = source;
    empty.origin = m_routing->GetOrigin(source);
    empty.group = group;
    return Describe(empty);
}

std::vector<PimMulticastHelper::SourceTree>
PimMulticastHelper::GetTrees() const
{
    std::vector<SourceTree> trees;
    for (const PimMulticastRouting::Tree& tree : m_routing->GetTrees())
    {
        if (!tree.members.empty())
        {
            trees.push_back(Describe(tree));
        }
    }
    return trees;
}

} // namespace ns3
