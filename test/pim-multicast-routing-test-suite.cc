/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "pim-multicast-helper.h"
#include "pim-multicast-routing.h"
#include "wan-topology-helper.h"
#include "wan-topology.h"

#include "ns3/boolean.h"
#include "ns3/ipv4-routing-table-entry.h"
#include "ns3/ipv4-static-routing-helper.h"
#include "ns3/ipv4-static-routing.h"
#include "ns3/ipv4.h"
#include "ns3/names.h"
#include "ns3/nstime.h"
#include "ns3/simulator.h"
#include "ns3/test.h"

#include <algorithm>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

/**
 * @file
 * @ingroup wan-training-tests
 * PimMulticastRouting test suite: joins and prunes scheduled on the object take effect at their
 * times (immediately, or after the WAN latency of the new branch) and change the routers'
 * Ipv4StaticRouting multicast routes to exactly those of the route from the source, computed
 * here from WanTopology's route and the scenario's interfaces; the MemberJoined and MemberLeft
 * traces fire then; a reroute moves the routes off a link that is down.
 */

using namespace ns3;

namespace
{

/** The nine-city topology, relative to the test data directory. */
const std::string NINE_CITY = "../topologies/doublezero-nine-city.json";

/** One multicast route: input interface and output interfaces. */
typedef std::pair<uint32_t, std::vector<uint32_t>> Route;

/**
 * @param node a node with an Ipv4StaticRouting
 * @param origin the source address
 * @param group the group
 * @param count where to store how many routes (origin, group) the node has
 * @return the node's route for (origin, group) (the last one when several)
 */
Route
FindRoute(Ptr<Node> node, Ipv4Address origin, Ipv4Address group, uint32_t* count)
{
    Ipv4StaticRoutingHelper helper;
    Ptr<Ipv4StaticRouting> routing = helper.GetStaticRouting(node->GetObject<Ipv4>());
    Route route;
    *count = 0;
    for (uint32_t i = 0; i < routing->GetNMulticastRoutes(); ++i)
    {
        Ipv4MulticastRoutingTableEntry entry = routing->GetMulticastRoute(i);
        if (entry.GetOrigin() == origin && entry.GetGroup() == group)
        {
            ++*count;
            route = Route(entry.GetInputInterface(), entry.GetOutputInterfaces());
        }
    }
    return route;
}

/**
 * @param scenario an installed scenario
 * @param route a route from an island to another island
 * @return for every router the route crosses: its multicast route (input: the interface the
 * route enters it by; output: the interface it leaves by)
 */
std::map<uint32_t, Route>
ExpectedRoutes(const WanTopologyHelper& scenario, const WanRoute& route)
{
    std::map<uint32_t, Route> routes;
    // links[p] enters cities[p]'s router, links[p + 1] leaves it.
    for (std::size_t p = 0; p < route.cities.size(); ++p)
    {
        routes[route.cities[p]] = Route(scenario.GetRxInterface(route.links[p]),
                                        {scenario.GetTxInterface(route.links[p + 1])});
    }
    return routes;
}

/**
 * @param island an island node
 * @param group a group
 * @return how many host routes to the group the island has
 */
uint32_t
HostRoutes(Ptr<Node> island, Ipv4Address group)
{
    Ipv4StaticRoutingHelper helper;
    Ptr<Ipv4StaticRouting> routing = helper.GetStaticRouting(island->GetObject<Ipv4>());
    uint32_t count = 0;
    for (uint32_t i = 0; i < routing->GetNRoutes(); ++i)
    {
        Ipv4RoutingTableEntry entry = routing->GetRoute(i);
        count += entry.IsHost() && entry.GetDest() == group ? 1 : 0;
    }
    return count;
}

} // namespace

/**
 * @ingroup wan-training-tests
 * @brief A join and a prune scheduled on a PimMulticastRouting change the static multicast
 * routes at their times: before the join no router has a route for the group; from the time
 * the join takes effect (the join time, plus the route's WAN latency when JoinDelay is on) every
 * router of route(nyc, prg) has exactly the route of that path and the source island a host
 * route to the group; from the prune on none of them has any. The traces fire at those times.
 */
class PimMulticastRoutingJoinPruneTestCase : public TestCase
{
  public:
    /**
     * @param joinDelay the JoinDelay attribute
     */
    explicit PimMulticastRoutingJoinPruneTestCase(bool joinDelay);

  private:
    void DoRun() override;
    /**
     * @brief Check the routes of the group now.
     * @param member whether the member's join has taken effect
     * @param what the check, for the messages
     */
    void Check(bool member, std::string what);
    /**
     * @brief MemberJoined sink.
     * @param group the group
     * @param member the member
     */
    void OnJoined(Ipv4Address group, uint32_t member);
    /**
     * @brief MemberLeft sink.
     * @param group the group
     * @param member the member
     */
    void OnLeft(Ipv4Address group, uint32_t member);

    bool m_joinDelay;                      //!< the JoinDelay attribute
    const WanTopologyHelper* m_scenario{}; //!< the scenario
    Ipv4Address m_group;                   //!< the group
    uint32_t m_source{0};                  //!< nyc
    uint32_t m_member{0};                  //!< prg
    std::vector<Time> m_joined;            //!< MemberJoined times
    std::vector<Time> m_left;              //!< MemberLeft times
};

PimMulticastRoutingJoinPruneTestCase::PimMulticastRoutingJoinPruneTestCase(bool joinDelay)
    : TestCase(std::string("a scheduled join (JoinDelay ") + (joinDelay ? "on" : "off") +
               ") and prune change the routers' multicast routes at their times"),
      m_joinDelay(joinDelay)
{
}

void
PimMulticastRoutingJoinPruneTestCase::OnJoined(Ipv4Address group, uint32_t member)
{
    NS_TEST_EXPECT_MSG_EQ(group, m_group, "the joined group");
    NS_TEST_EXPECT_MSG_EQ(member, m_member, "the joined member");
    m_joined.push_back(Simulator::Now());
}

void
PimMulticastRoutingJoinPruneTestCase::OnLeft(Ipv4Address group, uint32_t member)
{
    NS_TEST_EXPECT_MSG_EQ(group, m_group, "the left group");
    NS_TEST_EXPECT_MSG_EQ(member, m_member, "the leaving member");
    m_left.push_back(Simulator::Now());
}

void
PimMulticastRoutingJoinPruneTestCase::Check(bool member, std::string what)
{
    const WanTopology& topology = m_scenario->GetTopology();
    const Ipv4Address origin = m_scenario->GetIslandAddress(m_source);
    const std::map<uint32_t, Route> expected =
        ExpectedRoutes(*m_scenario, topology.GetRoute(m_source, m_member));
    for (uint32_t city = 0; city < topology.GetNCities(); ++city)
    {
        uint32_t count = 0;
        Route route = FindRoute(m_scenario->GetRouter(city), origin, m_group, &count);
        auto it = expected.find(city);
        const bool onPath = member && it != expected.end();
        NS_TEST_EXPECT_MSG_EQ(count,
                              (onPath ? 1u : 0u),
                              what << ": routes of router " << topology.GetCity(city).id);
        if (onPath && count == 1)
        {
            NS_TEST_EXPECT_MSG_EQ(route.first,
                                  it->second.first,
                                  what << ": input of " << topology.GetCity(city).id);
            NS_TEST_EXPECT_MSG_EQ((route.second == it->second.second),
                                  true,
                                  what << ": outputs of " << topology.GetCity(city).id);
        }
    }
    NS_TEST_EXPECT_MSG_EQ(HostRoutes(m_scenario->GetIsland(m_source), m_group),
                          (member ? 1u : 0u),
                          what << ": the source island's route to the group");
}

void
PimMulticastRoutingJoinPruneTestCase::DoRun()
{
    WanTopology topology = WanTopology::LoadFile(CreateDataDirFilename(NINE_CITY));
    WanTopologyHelper scenario(topology);
    scenario.Install();
    m_scenario = &scenario;
    PimMulticastHelper pim(scenario);
    Ptr<PimMulticastRouting> routing = pim.GetMulticastRouting();
    routing->SetAttribute("JoinDelay", BooleanValue(m_joinDelay));
    routing->TraceConnectWithoutContext(
        "MemberJoined",
        MakeCallback(&PimMulticastRoutingJoinPruneTestCase::OnJoined, this));
    routing->TraceConnectWithoutContext(
        "MemberLeft",
        MakeCallback(&PimMulticastRoutingJoinPruneTestCase::OnLeft, this));

    m_source = topology.GetCityIndex("nyc");
    m_member = topology.GetCityIndex("prg");
    m_group = Ipv4Address("232.7.0.1");
    routing->AddGroup(m_group, m_source);
    NS_TEST_EXPECT_MSG_EQ(routing->HasGroup(m_group), true, "the group exists");

    double routeMs = 0;
    for (uint32_t d : topology.GetRoute(m_source, m_member).links)
    {
        routeMs += topology.IsAccessLink(d) ? 0 : topology.GetDirectedLinkLatencyMs(d);
    }
    NS_TEST_EXPECT_MSG_GT(routeMs, 30.0, "nyc to prg crosses the Atlantic");
    const Time join = Seconds(1);
    const Time effective = join + (m_joinDelay ? Time::FromDouble(routeMs, Time::MS) : Time(0));
    const Time prune = Seconds(2);
    NS_TEST_EXPECT_MSG_EQ(routing->GetJoinDelay(m_group, m_member),
                          effective - join,
                          "the join delay against the empty tree");
    routing->ScheduleJoin(m_group, m_member, join);
    routing->SchedulePrune(m_group, m_member, prune);

    Check(false, "at set-up");
    const std::vector<std::tuple<Time, bool, std::string>> checks{
        {effective - NanoSeconds(1), false, "just before the join takes effect"},
        {effective + NanoSeconds(1), true, "just after the join takes effect"},
        {prune - NanoSeconds(1), true, "just before the prune"},
        {prune + NanoSeconds(1), false, "just after the prune"}};
    for (const auto& [at, isMember, what] : checks)
    {
        Simulator::Schedule(at, &PimMulticastRoutingJoinPruneTestCase::Check, this, isMember, what);
    }
    Simulator::Run();

    NS_TEST_EXPECT_MSG_EQ(m_joined.size(), 1u, "one MemberJoined");
    NS_TEST_EXPECT_MSG_EQ(m_left.size(), 1u, "one MemberLeft");
    if (m_joined.size() == 1 && m_left.size() == 1)
    {
        NS_TEST_EXPECT_MSG_EQ(m_joined[0], effective, "MemberJoined when the join takes effect");
        NS_TEST_EXPECT_MSG_EQ(m_left[0], prune, "MemberLeft at the prune");
    }
    NS_TEST_EXPECT_MSG_EQ(routing->GetTree(m_group).members.empty(), true, "no member left");
    Simulator::Destroy();
    Names::Clear();
}

/**
 * @ingroup wan-training-tests
 * @brief Reroute: with lon a member of nyc's group, taking nyc-lon down and rerouting moves the
 * routes onto the new route(nyc, lon) of the degraded topology (none uses nyc->lon); bringing
 * it up again restores the direct route.
 */
class PimMulticastRoutingRerouteTestCase : public TestCase
{
  public:
    PimMulticastRoutingRerouteTestCase()
        : TestCase("a reroute moves the multicast routes onto the routes of the links that are up")
    {
    }

  private:
    void DoRun() override
    {
        WanTopology topology = WanTopology::LoadFile(CreateDataDirFilename(NINE_CITY));
        WanTopologyHelper scenario(topology);
        scenario.Install();
        PimMulticastHelper pim(scenario);
        Ptr<PimMulticastRouting> routing = pim.GetMulticastRouting();
        const uint32_t nyc = topology.GetCityIndex("nyc");
        const uint32_t lon = topology.GetCityIndex("lon");
        const Ipv4Address group("232.7.0.2");
        const Ipv4Address origin = scenario.GetIslandAddress(nyc);
        routing->AddGroup(group, nyc);
        routing->AddMembers(group, {lon});

        uint32_t link = topology.GetNLinks();
        for (uint32_t l = 0; l < topology.GetNLinks(); ++l)
        {
            const WanLink& wan = topology.GetLink(l);
            if ((wan.a == nyc && wan.b == lon) || (wan.a == lon && wan.b == nyc))
            {
                link = l;
            }
        }
        NS_TEST_ASSERT_MSG_LT(link, topology.GetNLinks(), "nyc-lon exists");
        const WanTopology degraded = topology.WithLinksDown({link});
        auto check = [&](const WanTopology& state, const std::string& what) {
            const WanRoute& route = state.GetRoute(nyc, lon);
            const std::map<uint32_t, Route> expected = ExpectedRoutes(scenario, route);
            for (uint32_t city = 0; city < topology.GetNCities(); ++city)
            {
                uint32_t count = 0;
                Route found = FindRoute(scenario.GetRouter(city), origin, group, &count);
                auto it = expected.find(city);
                NS_TEST_EXPECT_MSG_EQ(count,
                                      (it == expected.end() ? 0u : 1u),
                                      what << ": routes of " << topology.GetCity(city).id);
                if (it != expected.end() && count == 1)
                {
                    NS_TEST_EXPECT_MSG_EQ((found == it->second),
                                          true,
                                          what << ": route of " << topology.GetCity(city).id);
                }
            }
            std::vector<uint32_t> routeLinks(route.links.begin(), route.links.end());
            std::sort(routeLinks.begin(), routeLinks.end());
            const std::vector<uint32_t> links = routing->GetTree(group).links;
            NS_TEST_EXPECT_MSG_EQ((links == routeLinks), true, what << ": the tree is the route");
            const bool usesLink =
                std::find(links.begin(), links.end(), 2 * link) != links.end() ||
                std::find(links.begin(), links.end(), 2 * link + 1) != links.end();
            NS_TEST_EXPECT_MSG_EQ(usesLink,
                                  state.GetDownLinks().empty(),
                                  what << ": the tree crosses nyc-lon iff it is up");
        };
        check(topology, "every link up");
        routing->Reroute(degraded);
        NS_TEST_EXPECT_MSG_EQ(routing->GetRouting().GetDownLinks().size(), 1u, "the new routing");
        check(degraded, "nyc-lon down");
        routing->Reroute(topology);
        check(topology, "nyc-lon up again");
        Simulator::Destroy();
        Names::Clear();
    }
};

/**
 * @ingroup wan-training-tests
 * @brief The PimMulticastRouting test suite.
 */
class PimMulticastRoutingTestSuite : public TestSuite
{
  public:
    PimMulticastRoutingTestSuite()
        : TestSuite("wan-training-pim-multicast-routing", UNIT)
    {
        SetDataDir(NS_TEST_SOURCEDIR);
        AddTestCase(new PimMulticastRoutingJoinPruneTestCase(true), TestCase::QUICK);
        AddTestCase(new PimMulticastRoutingJoinPruneTestCase(false), TestCase::QUICK);
        AddTestCase(new PimMulticastRoutingRerouteTestCase(), TestCase::QUICK);
    }
};

/** The suite's instance. */
static PimMulticastRoutingTestSuite g_pimMulticastRoutingTestSuite;
