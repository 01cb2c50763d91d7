/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef PIM_MULTICAST_HELPER_H
#define PIM_MULTICAST_HELPER_H

#include "clique-schedule.h"
#include "pim-multicast-routing.h"

#include "ns3/ipv4-address.h"
#include "ns3/nstime.h"
#include "ns3/ptr.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ns3
{

class WanTopologyHelper;

/**
 * @ingroup wan-training
 * @brief Installs PIM-SSM-style multicast source trees on a WanTopologyHelper scenario as
 * Ipv4StaticRouting multicast routes, one group per (round slot, clique, source island).
 *
 * The helper allocates the groups and sets up one PimMulticastRouting object for the scenario
 * (GetMulticastRouting), which owns every group's members, pending joins and routes and applies
 * the joins, prunes and reroutes during the simulation; the helper's Join, Prune and Reroute
 * hand them to that object.
 *
 * The tree of a source island toward its members is the union of the topology's unicast
 * routes from it (LinkLoadModel::GetSourceTree), reverse-path consistent with unicast
 * forwarding, installed on the routers of the tree only; groups, membership changes (joins with
 * their graft delay, immediate prunes), the TTL a source needs and what ns-3.37 does with these
 * routes are in doc/wan-training.rst, "Multicast source trees". Islands must use
 * Ipv4ListRouting (WanTopologyHelper installs it) to receive multicast.
 *
 * Copies of a helper share its PimMulticastRouting and its group range, and scheduled joins and
 * prunes stay valid after the helper goes out of scope (the events hold the routing object).
 *
 * @code
 *   WanTopologyHelper scenario(topology);
 *   scenario.Install();
 *   PimMulticastHelper pim(scenario);
 *   pim.InstallSchedule(schedule);
 *   Ipv4Address group = pim.GetGroup(r % schedule.GetNRounds(), clique, island);
 * @endcode
 */
class PimMulticastHelper
{
  public:
    /** The default group range: a /16 inside the SSM range 232.0.0.0/8. */
    static constexpr const char* DEFAULT_GROUP_RANGE = "232.1.0.0/16";

    /**
     * @brief One installed source tree, for tests and trace analysis.
     */
    struct SourceTree
    {
        uint32_t round{0};                       //!< round slot of the group
        uint32_t clique{0};                      //!< clique index within the round
        uint32_t source{0};                      //!< source island (city index)
        Ipv4Address origin;                      //!< the source island's address (S)
        Ipv4Address group;                       //!< the group address (G)
        std::vector<uint32_t> members;           //!< islands whose join took effect, sorted
        std::vector<uint32_t> links;             //!< directed links of the tree, sorted
        std::vector<std::string> linkNames;      //!< WanTopology name of each of `links`
        std::vector<uint32_t> replicationPoints; //!< router cities with > 1 output, sorted
        uint32_t maxRouterHops{0};               //!< most routers on a path to a member
        uint32_t requiredTtl{0};                 //!< smallest TTL reaching every member
    };

    /**
     * @brief Create a helper for an installed scenario.
     * @param scenario the scenario (Install() must have been called; the helper copies what it
     * needs, so the scenario helper may go out of scope)
     */
    explicit PimMulticastHelper(const WanTopologyHelper& scenario);

    /**
     * @brief Set the multicast range groups are allocated from.
     * @param range a network in CIDR form, e.g. "232.1.0.0/16"
     * @throws WanInputError (source `<group-range>`, path `groupRange`) when the text is not
     * `A.B.C.D/P`, the address is not the network of its prefix, the network is not multicast
     * or overlaps 224.0.0.0/24; aborts when groups are already installed
     */
    void SetGroupRange(const std::string& range);
    /**
     * @brief Set the multicast range groups are allocated from.
     * @param network the network address
     * @param mask its mask
     * @throws WanInputError as SetGroupRange(const std::string&)
     */
    void SetGroupRange(Ipv4Address network, Ipv4Mask mask);
    /** @return the group range's network */
    Ipv4Address GetGroupNetwork() const;
    /** @return the group range's mask */
    Ipv4Mask GetGroupMask() const;
    /** @return how many groups the range holds */
    uint64_t GetGroupRangeSize() const;

    /**
     * @brief Switch the join delay on (default) or off.
     * @param enabled whether a join waits for its control message to reach the tree
     */
    void SetJoinDelayEnabled(bool enabled);
    /** @return whether joins are delayed */
    bool IsJoinDelayEnabled() const;

    /**
     * @param round round slot (0 <= round)
     * @param clique clique index within the round (< number of islands)
     * @param source the sending island (< number of islands)
     * @return the group: network + (round x N + clique) x N + source
     * @throws WanInputError (source `<group-range>`, path `groupRange`) when the range is too
     * small for this group; aborts on an out-of-range clique or source
     */
    Ipv4Address GetGroup(uint32_t round, uint32_t clique, uint32_t source) const;

    /**
     * @return a multicast TTL that reaches every member of any tree on this topology: the most
     * routers on any route, plus one
     */
    uint8_t GetMulticastTtl() const;

    /**
     * @brief Install every group of a schedule now: for every round slot, every clique of two or
     * more islands and every member as source, the tree toward the other members (no join delay).
     * A clique whose algorithm does not multicast (unicast, aggregation, ring) gets none; a
     * clique without an algorithm gets its trees. Group addresses do not depend on which
     * cliques get trees (GetGroup).
     * @param schedule a schedule over the scenario's islands
     * @throws WanInputError when the group range is too small for the schedule (nothing is
     * installed then)
     */
    void InstallSchedule(const CliqueSchedule& schedule);

    /**
     * @brief At time `at`, every member of every clique of a round slot joins the group of
     * every other member of its clique (see the class documentation for when each join takes
     * effect).
     * @param schedule the schedule
     * @param round a round slot of the schedule
     * @param at absolute simulation time, not in the past
     */
    void JoinRound(const CliqueSchedule& schedule, uint32_t round, Time at);
    /**
     * @brief At time `at`, every member of every clique of a round slot leaves the groups of
     * its clique; the slot's trees are removed.
     * @param schedule the schedule
     * @param round a round slot of the schedule
     * @param at absolute simulation time, not in the past
     */
    void PruneRound(const CliqueSchedule& schedule, uint32_t round, Time at);
    /**
     * @param schedule the schedule
     * @param round a round slot of the schedule
     * @return the longest join delay of JoinRound(schedule, round, .) on empty trees: the
     * largest WAN latency of a route inside a clique of the slot (0 when delays are off)
     */
    Time GetRoundJoinDelay(const CliqueSchedule& schedule, uint32_t round) const;

    /**
     * @brief At time `at`, `member` joins the group of (round, clique, source).
     * @param round round slot
     * @param clique clique index within the round
     * @param source the sending island
     * @param member the joining island (not the source)
     * @param at absolute simulation time, not in the past
     */
    void Join(uint32_t round, uint32_t clique, uint32_t source, uint32_t member, Time at);
    /**
     * @brief At time `at`, `member` leaves the group of (round, clique, source).
     * @param round round slot
     * @param clique clique index within the round
     * @param source the sending island
     * @param member the leaving island (not the source)
     * @param at absolute simulation time, not in the past
     */
    void Prune(uint32_t round, uint32_t clique, uint32_t source, uint32_t member, Time at);
    /**
     * @param round round slot
     * @param clique clique index within the round
     * @param source the sending island
     * @param member an island other than the source
     * @return the delay a join of `member` sent now would take against the tree installed now
     * (0 when it is already a member or delays are off)
     */
    Time GetJoinDelay(uint32_t round, uint32_t clique, uint32_t source, uint32_t member) const;

    /**
     * @brief Recompute every group's tree on another state of the same WAN (e.g. after a link
     * failure, WanTopology::WithLinksDown, or its repair) and reinstall the routes that change,
     * now. Each tree becomes the union of the new routes from its source to the members the
     * new routes reach; a member that `routing` does not connect to the source stays a member
     * but gets nothing until a later Reroute reaches it again (a partitioned WAN). Pending joins
     * keep their timing; later joins, prunes and GetJoinDelay use the new routes.
     * @param routing the same cities and links (names and numbering), with its own down links
     */
    void Reroute(const WanTopology& routing);

    /**
     * @param round round slot
     * @param clique clique index within the round
     * @param source the sending island
     * @return the tree installed now for that group (no members and no links when none)
     */
    SourceTree GetTree(uint32_t round, uint32_t clique, uint32_t source) const;
    /** @return every tree installed now that has at least one member, by group address */
    std::vector<SourceTree> GetTrees() const;

    /**
     * @return the routing object that owns the groups, their members and routes, and applies
     * joins, prunes and reroutes during the simulation (e.g. for a fault injector's reroute
     * callback, or to connect its MemberJoined and MemberLeft traces)
     */
    Ptr<PimMulticastRouting> GetMulticastRouting() const;

  private:
    /** The range groups are allocated from, shared by the helper's copies. */
    struct GroupRange
    {
        Ipv4Address network; //!< group range network
        uint32_t prefix{0};  //!< group range prefix length
    };

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
     * @return the group, created in the routing object (without members) when new
     */
    Ipv4Address AddGroup(uint32_t round, uint32_t clique, uint32_t source);
    /**
     * @param schedule a schedule
     * @param round one of its round slots
     * @param caller the public method, for the message
     */
    void CheckRound(const CliqueSchedule& schedule, uint32_t round, const char* caller) const;
    /**
     * @param installed a tree of the routing object
     * @return it as a SourceTree
     */
    SourceTree Describe(const PimMulticastRouting::Tree& installed) const;

    uint32_t m_n{0};                     //!< number of islands
    Ptr<PimMulticastRouting> m_routing;  //!< groups, members, routes; applies them at run time
    std::shared_ptr<GroupRange> m_range; //!< the group range
};

} // namespace ns3

#endif /* PIM_MULTICAST_HELPER_H */
