/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef PIM_MULTICAST_ROUTING_H
#define PIM_MULTICAST_ROUTING_H

#include "link-load-model.h"
#include "wan-topology.h"

#include "ns3/ipv4-address.h"
#include "ns3/node.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/ptr.h"
#include "ns3/traced-callback.h"

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <vector>

namespace ns3
{

class Ipv4StaticRouting;

/**
 * @ingroup wan-training
 * @brief The multicast control plane of a WAN scenario during the simulation: it owns every
 * group's members, its pending joins and the Ipv4StaticRouting multicast routes installed for
 * it, and applies joins, prunes and reroutes at their times.
 *
 * A group has one source island s; its tree toward the effective members M is
 * LinkLoadModel::GetSourceTree(s, M) on the current routing topology (the union of the unicast
 * routes s -> j, reverse-path consistent with unicast forwarding; the object aborts when the
 * union is not a tree). On every router of the tree it installs `AddMulticastRoute(origin = s's
 * island address, group, input interface, output interfaces)`, on s's island a host route to the
 * group on its access interface while the tree has members, and nothing anywhere else. Whenever
 * membership or routing changes, only the routes that differ are removed and added.
 *
 * - AddMembers: members join at once (no delay), their pending joins are dropped.
 * - ScheduleJoin: at time `at` the join is sent; it takes effect after GetJoinDelay (the WAN
 *   latency of the new branch of the tree installed at `at`; 0 when `JoinDelay` is false or the
 *   member is already on the tree). Joining a member (effective or pending) again does nothing.
 * - SchedulePrune: at time `at` the member leaves (its pending join is cancelled) and the routes
 *   that only served it are removed; pruning a non-member does nothing.
 * - Reroute: every tree is recomputed on another state of the same WAN (links down or repaired)
 *   now; a member the new routes do not reach stays a member but gets nothing until a later
 *   Reroute reaches it again.
 * The MemberJoined and MemberLeft traces fire when a membership change takes effect. An island
 * becoming a member must deliver multicast to its sockets (an Ipv4ListRouting around an
 * Ipv4StaticRouting, as WanTopologyHelper installs); the object aborts otherwise. The helper
 * (PimMulticastHelper) allocates the groups, computes the set-up trees and hands this object the
 * scenario's nodes and interfaces; doc/wan-training.rst describes the protocol.
 */
class PimMulticastRouting : public Object
{
  public:
    /** Marks "no router" (an island endpoint of a directed link). */
    static const uint32_t NO_ROUTER;

    /**
     * @brief The scenario's nodes and interfaces, by city and by directed link of the topology.
     */
    struct Scenario
    {
        std::vector<Ptr<Node>> routers;           //!< router node per city
        std::vector<Ptr<Node>> islands;           //!< island node per city
        std::vector<Ipv4Address> islandAddresses; //!< island address per city
        std::vector<uint32_t> fromRouter;  //!< per directed link: sending router or NO_ROUTER
        std::vector<uint32_t> toRouter;    //!< per directed link: receiving router or NO_ROUTER
        std::vector<uint32_t> txInterface; //!< per directed link: Ipv4 interface of Tx
        std::vector<uint32_t> rxInterface; //!< per directed link: Ipv4 interface of Rx
    };

    /**
     * @brief One group's tree as installed now.
     */
    struct Tree
    {
        uint32_t source{0};                      //!< source island (city index)
        Ipv4Address origin;                      //!< the source island's address (S)
        Ipv4Address group;                       //!< the group address (G)
        std::vector<uint32_t> members;           //!< islands whose join took effect, sorted
        std::vector<uint32_t> links;             //!< directed links of the tree, sorted
        std::vector<uint32_t> replicationPoints; //!< router cities with > 1 output, sorted
        uint32_t maxRouterHops{0};               //!< most routers on a path to a member
    };

    /**
     * @brief Signature of the MemberJoined and MemberLeft traces.
     * @param group the group
     * @param member the island that joined or left
     */
    typedef void (*MembershipTracedCallback)(Ipv4Address group, uint32_t member);

    /**
     * @brief Get the type ID.
     * @return the object TypeId
     */
    static TypeId GetTypeId();

    PimMulticastRouting();
    ~PimMulticastRouting() override;

    /**
     * @brief Give the object its WAN (once, before any group).
     * @param topology the scenario's topology (the initial routing)
     * @param scenario its nodes and interfaces, sized by the topology's cities and directed links
     */
    void SetScenario(const WanTopology& topology, const Scenario& scenario);
    /** @return the topology whose routes the trees follow now (the initial one until Reroute) */
    const WanTopology& GetRouting() const;
    /**
     * @param island a city index
     * @return the island's address (the origin of its groups)
     */
    Ipv4Address GetOrigin(uint32_t island) const;

    /** @return whether any group exists */
    bool HasGroups() const;
    /**
     * @param group a group address
     * @return whether the group exists
     */
    bool HasGroup(Ipv4Address group) const;
    /**
     * @brief Create a group without members (nothing when it exists with that source).
     * @param group the group address (multicast)
     * @param source its source island
     */
    void AddGroup(Ipv4Address group, uint32_t source);
    /**
     * @brief Members join a group now, without delay; their pending joins are dropped.
     * @param group an existing group
     * @param members islands other than the source
     */
    void AddMembers(Ipv4Address group, const std::vector<uint32_t>& members);
    /**
     * @brief At time `at`, `member` sends its join to an existing group.
     * @param group the group
     * @param member an island other than the group's source
     * @param at absolute simulation time, not in the past
     */
    void ScheduleJoin(Ipv4Address group, uint32_t member, Time at);
    /**
     * @brief At time `at`, `member` leaves an existing group.
     * @param group the group
     * @param member an island other than the group's source
     * @param at absolute simulation time, not in the past
     */
    void SchedulePrune(Ipv4Address group, uint32_t member, Time at);
    /**
     * @param group an existing group
     * @param member an island other than its source
     * @return the delay a join of `member` sent now would take against the tree installed now
     * (0 when it is already a member or delays are off)
     */
    Time GetJoinDelay(Ipv4Address group, uint32_t member) const;
    /**
     * @param source a source island
     * @param member another island
     * @return the delay of a join of `member` to an empty tree of `source`: the WAN latency of
     * the route from source to member (0 when delays are off)
     */
    Time GetBranchDelay(uint32_t source, uint32_t member) const;

    /**
     * @brief Recompute every group's tree on another state of the same WAN and reinstall the
     * routes that change, now.
     * @param routing the same cities and links (names and numbering), with its own down links
     */
    void Reroute(const WanTopology& routing);

    /**
     * @param group an existing group
     * @return its tree as installed now
     */
    Tree GetTree(Ipv4Address group) const;
    /** @return the tree of every group, by group address */
    std::vector<Tree> GetTrees() const;

  protected:
    void DoDispose() override;

  private:
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

    /** One group: its source, its members and the routes installed for it. */
    struct GroupState
    {
        uint32_t source{0};                        //!< source island
        Ipv4Address group;                         //!< group address
        std::set<uint32_t> members;                //!< members whose join took effect
        std::map<uint32_t, uint64_t> pendingJoins; //!< member -> token of its pending join
        TreeShape installed;                       //!< what is installed now
    };

    /**
     * @param group a group address
     * @param caller the public method, for the message
     * @return the group's state; aborts when it does not exist
     */
    GroupState& FindGroup(Ipv4Address group, const char* caller);
    /**
     * @brief Schedule a join or a prune of `member` at `at` (aborts when it is not possible).
     * @param group an existing group
     * @param member an island other than its source
     * @param at not in the past
     * @param join a join (true) or a prune (false)
     */
    void ScheduleChange(Ipv4Address group, uint32_t member, Time at, bool join);
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
     * @param group the group
     * @param member the member
     */
    void JoinNow(Ipv4Address group, uint32_t member);
    /**
     * @brief A member's join reaches the tree now (unless a prune or AddMembers overtook it).
     * @param group the group
     * @param member the member
     * @param token the token the join was recorded with
     */
    void CompleteJoin(Ipv4Address group, uint32_t member, uint64_t token);
    /**
     * @brief A member leaves now.
     * @param group the group
     * @param member the member
     */
    void PruneNow(Ipv4Address group, uint32_t member);
    /**
     * @brief Abort unless an island delivers multicast to its sockets.
     * @param island the island's city index
     */
    void EnsureLocalDelivery(uint32_t island);
    /**
     * @param city a router's city index
     * @return the router's Ipv4StaticRouting
     */
    Ptr<Ipv4StaticRouting> RouterRouting(uint32_t city) const;
    /**
     * @param group a group
     * @return the group as a Tree
     */
    Tree Describe(const GroupState& group) const;

    std::optional<WanTopology> m_topology;      //!< the routing topology now (once set)
    std::optional<LinkLoadModel> m_model;       //!< source trees on m_topology
    uint32_t m_n{0};                            //!< number of islands
    Scenario m_scenario;                        //!< nodes and interfaces
    bool m_joinDelay{true};                     //!< whether joins are delayed
    std::map<Ipv4Address, GroupState> m_groups; //!< group address -> state
    std::set<uint32_t> m_localDelivery;         //!< islands known to deliver multicast locally
    uint64_t m_nextToken{0};                    //!< token of the next pending join
    TracedCallback<Ipv4Address, uint32_t> m_memberJoinedTrace; //!< a join took effect
    TracedCallback<Ipv4Address, uint32_t> m_memberLeftTrace;   //!< a member left
};

} // namespace ns3

#endif /* PIM_MULTICAST_ROUTING_H */
