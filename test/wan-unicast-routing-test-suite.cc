/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "wan-topology-helper.h"
#include "wan-topology.h"
#include "wan-unicast-routing.h"

#include "ns3/callback.h"
#include "ns3/ipv4-routing-table-entry.h"
#include "ns3/ipv4-static-routing-helper.h"
#include "ns3/ipv4-static-routing.h"
#include "ns3/ipv4.h"
#include "ns3/names.h"
#include "ns3/simulator.h"
#include "ns3/test.h"

#include <cmath>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <vector>

/**
 * @file
 * @ingroup wan-training-tests
 * WanUnicastRouting test suite: the routes installed on the reference WAN are the shortest paths
 * by latency (computed here by Floyd-Warshall over the topology's links), each router's static
 * route toward an access network leaves on the first link of the route from that router, and a
 * Reroute with a link down (or with the WAN partitioned) moves every forwarding path onto the
 * shortest path of the links that are up, fires Rerouted once, and leaves no route across a
 * partition; rerouting back restores the original routes.
 */

using namespace ns3;

namespace
{

/** The reference topology, relative to the test data directory. */
const std::string REFERENCE_WAN = "../topologies/reference-wan.json";
/** Tolerance for sums of latencies, in ms. */
const double LATENCY_TOLERANCE_MS = 1e-9;
/** Marks two cities the links that are up do not connect. */
const double UNREACHABLE = std::numeric_limits<double>::infinity();

/**
 * @param topology a topology
 * @param a a city id
 * @param b another city id
 * @return the index of the WAN link between them
 */
uint32_t
FindLink(const WanTopology& topology, const std::string& a, const std::string& b)
{
    const uint32_t ia = topology.GetCityIndex(a);
    const uint32_t ib = topology.GetCityIndex(b);
    for (uint32_t l = 0; l < topology.GetNLinks(); ++l)
    {
        const WanLink& link = topology.GetLink(l);
        if ((link.a == ia && link.b == ib) || (link.a == ib && link.b == ia))
        {
            return l;
        }
    }
    NS_ABORT_MSG("no link " << a << "-" << b);
    return 0;
}

/**
 * @param topology a topology
 * @param down WAN links to leave out
 * @return the latency in ms of the shortest path between every two cities over the other WAN
 *         links (Floyd-Warshall; UNREACHABLE when none)
 */
std::vector<std::vector<double>>
ShortestLatenciesMs(const WanTopology& topology, const std::set<uint32_t>& down)
{
    const uint32_t n = topology.GetNCities();
    std::vector<std::vector<double>> dist(n, std::vector<double>(n, UNREACHABLE));
    for (uint32_t i = 0; i < n; ++i)
    {
        dist[i][i] = 0;
    }
    for (uint32_t l = 0; l < topology.GetNLinks(); ++l)
    {
        if (down.count(l) == 0)
        {
            const WanLink& link = topology.GetLink(l);
            dist[link.a][link.b] = std::min(dist[link.a][link.b], link.latencyMs);
            dist[link.b][link.a] = std::min(dist[link.b][link.a], link.latencyMs);
        }
    }
    for (uint32_t k = 0; k < n; ++k)
    {
        for (uint32_t i = 0; i < n; ++i)
        {
            for (uint32_t j = 0; j < n; ++j)
            {
                dist[i][j] = std::min(dist[i][j], dist[i][k] + dist[k][j]);
            }
        }
    }
    return dist;
}

/**
 * @param topology a topology
 * @param path directed links
 * @return the latency in ms of the WAN links on the path (directed links 2l and 2l + 1 are
 *         the two directions of WAN link l)
 */
double
WanLatencyMs(const WanTopology& topology, const std::vector<uint32_t>& path)
{
    double ms = 0;
    for (uint32_t d : path)
    {
        if (d < 2 * topology.GetNLinks())
        {
            ms += topology.GetLink(d / 2).latencyMs;
        }
    }
    return ms;
}

/**
 * @param topology a topology
 * @param path directed links
 * @return the path's directed link names, space separated
 */
std::string
Describe(const WanTopology& topology, const std::vector<uint32_t>& path)
{
    std::string text;
    for (uint32_t d : path)
    {
        text += (text.empty() ? "" : " ") + topology.GetDirectedLinkName(d);
    }
    return text;
}

/**
 * @param node a node with an Ipv4StaticRouting
 * @return the node's gateway routes other than a default route, by destination network
 */
std::multimap<Ipv4Address, Ipv4RoutingTableEntry>
GatewayRoutes(Ptr<Node> node)
{
    Ptr<Ipv4StaticRouting> routing =
        Ipv4StaticRoutingHelper().GetStaticRouting(node->GetObject<Ipv4>());
    std::multimap<Ipv4Address, Ipv4RoutingTableEntry> routes;
    for (uint32_t k = 0; k < routing->GetNRoutes(); ++k)
    {
        const Ipv4RoutingTableEntry entry = routing->GetRoute(k);
        routes.emplace(entry.IsGateway() ? entry.GetDestNetwork() : Ipv4Address::GetAny(), entry);
    }
    routes.erase(Ipv4Address::GetAny());
    return routes;
}

/**
 * @param node a node with an Ipv4StaticRouting
 * @param network a destination network
 * @return the node's gateway routes toward the network
 */
std::vector<Ipv4RoutingTableEntry>
GatewayRoutesTo(Ptr<Node> node, Ipv4Address network)
{
    std::vector<Ipv4RoutingTableEntry> routes;
    const std::multimap<Ipv4Address, Ipv4RoutingTableEntry> all = GatewayRoutes(node);
    for (auto [it, end] = all.equal_range(network); it != end; ++it)
    {
        routes.push_back(it->second);
    }
    return routes;
}

/**
 * @param scenario an installed scenario
 * @param d a directed link
 * @return the address of its receiving device's interface (the next hop of a route on it)
 */
Ipv4Address
RxAddress(const WanTopologyHelper& scenario, uint32_t d)
{
    Ptr<Ipv4> ipv4 = scenario.GetRxDevice(d)->GetNode()->GetObject<Ipv4>();
    return ipv4->GetAddress(scenario.GetRxInterface(d), 0).GetLocal();
}

/**
 * @param scenario an installed scenario
 * @param city a city index
 * @return its island's access /30 network (the island's address with the last two bits cleared)
 */
Ipv4Address
AccessNetwork(const WanTopologyHelper& scenario, uint32_t city)
{
    return scenario.GetIslandAddress(city).CombineMask(Ipv4Mask("255.255.255.252"));
}

} // namespace

/**
 * @ingroup wan-training-tests
 * @brief Routes on a routing state of the reference WAN: checks shared by the test cases.
 */
class WanUnicastRoutingTestCase : public TestCase
{
  public:
    /**
     * @brief Constructor.
     * @param name the test case's name
     */
    explicit WanUnicastRoutingTestCase(std::string name)
        : TestCase(name)
    {
    }

  protected:
    /**
     * @brief Check the installed routes against the shortest paths of the links that are up.
     *
     * For every ordered pair of islands: when the links that are up connect them, the
     * forwarding path starts at src:up, ends at dst:down, crosses no down link, its WAN latency
     * is the shortest (Floyd-Warshall), it is the route of `state`, and every router on it has
     * exactly one route toward dst's access network, through the path's next link; otherwise
     * the forwarding path is empty and src's router has no route toward dst's access network.
     * @param scenario the installed scenario
     * @param state the topology with the links down
     * @param what the state, for the messages
     */
    void CheckRoutes(const WanTopologyHelper& scenario, const WanTopology& state, std::string what)
    {
        const WanTopology& topology = scenario.GetTopology();
        const std::set<uint32_t> down(state.GetDownLinks().begin(), state.GetDownLinks().end());
        const std::vector<std::vector<double>> shortest = ShortestLatenciesMs(topology, down);
        Ptr<WanUnicastRouting> routing = scenario.GetUnicastRouting();
        for (uint32_t src = 0; src < topology.GetNCities(); ++src)
        {
            for (uint32_t dst = 0; dst < topology.GetNCities(); ++dst)
            {
                if (src == dst)
                {
                    continue;
                }
                const std::string pair =
                    what + ": " + topology.GetCity(src).id + "->" + topology.GetCity(dst).id;
                const std::vector<uint32_t> path = routing->GetForwardingPath(src, dst);
                NS_TEST_EXPECT_MSG_EQ((scenario.GetForwardingPath(src, dst) == path),
                                      true,
                                      pair << ": the helper reports the routing object's path");
                if (shortest[src][dst] == UNREACHABLE)
                {
                    NS_TEST_EXPECT_MSG_EQ(path.empty(), true, pair << ": no path");
                    NS_TEST_EXPECT_MSG_EQ(
                        GatewayRoutesTo(scenario.GetRouter(src), AccessNetwork(scenario, dst))
                            .size(),
                        0u,
                        pair << ": no route at the source's router");
                    continue;
                }
                NS_TEST_ASSERT_MSG_GT(path.size(), 1u, pair << ": a path");
                NS_TEST_EXPECT_MSG_EQ(path.front(), topology.GetAccessUpLink(src), pair);
                NS_TEST_EXPECT_MSG_EQ(path.back(), topology.GetAccessDownLink(dst), pair);
                for (uint32_t d : path)
                {
                    NS_TEST_EXPECT_MSG_EQ((d < 2 * topology.GetNLinks() && down.count(d / 2)),
                                          false,
                                          pair << ": crosses " << topology.GetDirectedLinkName(d));
                }
                NS_TEST_EXPECT_MSG_EQ_TOL(WanLatencyMs(topology, path),
                                          shortest[src][dst],
                                          LATENCY_TOLERANCE_MS,
                                          pair << ": the shortest path ["
                                               << Describe(topology, path) << "]");
                NS_TEST_EXPECT_MSG_EQ((path == state.GetRoute(src, dst).links),
                                      true,
                                      pair << ": the route of the state");
                // The router after path[p] forwards toward dst on path[p + 1].
                for (std::size_t p = 1; p + 1 < path.size(); ++p)
                {
                    Ptr<Node> router = scenario.GetTxDevice(path[p])->GetNode();
                    std::vector<Ipv4RoutingTableEntry> routes =
                        GatewayRoutesTo(router, AccessNetwork(scenario, dst));
                    NS_TEST_ASSERT_MSG_EQ(routes.size(),
                                          1u,
                                          pair << ": one route at " << Names::FindName(router));
                    NS_TEST_EXPECT_MSG_EQ(routes[0].GetInterface(),
                                          scenario.GetTxInterface(path[p]),
                                          pair << ": its interface");
                    NS_TEST_EXPECT_MSG_EQ(routes[0].GetGateway(),
                                          RxAddress(scenario, path[p]),
                                          pair << ": its gateway");
                }
            }
        }
    }
};

/**
 * @ingroup wan-training-tests
 * @brief Install on the reference WAN: every island's default route and the shortest paths.
 */
class WanUnicastRoutingInstallTestCase : public WanUnicastRoutingTestCase
{
  public:
    WanUnicastRoutingInstallTestCase()
        : WanUnicastRoutingTestCase("Install: the forwarding paths are the shortest paths")
    {
    }

  private:
    void DoRun() override
    {
        WanTopology topology = WanTopology::LoadFile(CreateDataDirFilename(REFERENCE_WAN));
        WanTopologyHelper scenario(topology);
        scenario.Install();
        Ptr<WanUnicastRouting> routing = scenario.GetUnicastRouting();
        NS_TEST_ASSERT_MSG_NE(PeekPointer(routing),
                              nullptr,
                              "the helper installed a routing object");
        NS_TEST_EXPECT_MSG_EQ(routing->GetRouting().GetDownLinks().empty(),
                              true,
                              "the routing topology has every link up");
        NS_TEST_EXPECT_MSG_EQ(&scenario.GetRouting(),
                              &routing->GetRouting(),
                              "the helper reports the object's routing topology");
        for (uint32_t i = 0; i < topology.GetNCities(); ++i)
        {
            Ipv4StaticRoutingHelper helper;
            Ptr<Ipv4StaticRouting> island =
                helper.GetStaticRouting(scenario.GetIsland(i)->GetObject<Ipv4>());
            const uint32_t up = topology.GetAccessUpLink(i);
            Ipv4RoutingTableEntry route = island->GetDefaultRoute();
            NS_TEST_EXPECT_MSG_EQ(route.GetGateway(),
                                  RxAddress(scenario, up),
                                  "island " << i << ": default route to its router");
            NS_TEST_EXPECT_MSG_EQ(route.GetInterface(),
                                  scenario.GetTxInterface(up),
                                  "island " << i << ": on its access link");
        }
        CheckRoutes(scenario, topology, "installed");
        Simulator::Destroy();
        Names::Clear();
    }
};

/**
 * @ingroup wan-training-tests
 * @brief NYC-LON down: Reroute moves NYC->LON onto NYC-FRA-LON (37.2 + 4.0 = 41.2 ms, against
 * 41.7 ms by AMS) and NYC->AMS onto NYC-FRA-AMS (39.5 ms); every path is the shortest of the
 * links that are up; Rerouted fires once per Reroute; rerouting to every link up restores the
 * routes.
 */
class WanUnicastRoutingLinkDownTestCase : public WanUnicastRoutingTestCase
{
  public:
    WanUnicastRoutingLinkDownTestCase()
        : WanUnicastRoutingTestCase("Reroute with a link down: the shortest paths of the rest")
    {
    }

  private:
    /**
     * @brief Rerouted sink.
     * @param routing the routing topology installed now
     */
    void OnRerouted(const WanTopology& routing)
    {
        m_rerouted.push_back(routing.GetDownLinks());
    }

    void DoRun() override
    {
        WanTopology topology = WanTopology::LoadFile(CreateDataDirFilename(REFERENCE_WAN));
        WanTopologyHelper scenario(topology);
        scenario.Install();
        Ptr<WanUnicastRouting> routing = scenario.GetUnicastRouting();
        routing->TraceConnectWithoutContext(
            "Rerouted",
            MakeCallback(&WanUnicastRoutingLinkDownTestCase::OnRerouted, this));
        const uint32_t nycLon = FindLink(topology, "NYC", "LON");
        const uint32_t nyc = topology.GetCityIndex("NYC");
        const uint32_t lon = topology.GetCityIndex("LON");
        const uint32_t ams = topology.GetCityIndex("AMS");
        NS_TEST_EXPECT_MSG_EQ(Describe(topology, routing->GetForwardingPath(nyc, lon)),
                              "NYC:up NYC->LON LON:down",
                              "NYC->LON direct while the link is up");

        const WanTopology degraded = topology.WithLinksDown({nycLon});
        routing->Reroute(degraded);
        NS_TEST_ASSERT_MSG_EQ(m_rerouted.size(), 1u, "Rerouted fired once");
        NS_TEST_EXPECT_MSG_EQ((m_rerouted[0] == std::vector<uint32_t>{nycLon}),
                              true,
                              "with NYC-LON down");
        NS_TEST_EXPECT_MSG_EQ(
            (routing->GetRouting().GetDownLinks() == std::vector<uint32_t>{nycLon}),
            true,
            "the routing topology has NYC-LON down");
        NS_TEST_EXPECT_MSG_EQ(Describe(topology, routing->GetForwardingPath(nyc, lon)),
                              "NYC:up NYC->FRA FRA->LON LON:down",
                              "NYC->LON by FRA (41.2 ms)");
        NS_TEST_EXPECT_MSG_EQ(Describe(topology, routing->GetForwardingPath(nyc, ams)),
                              "NYC:up NYC->FRA FRA->AMS AMS:down",
                              "NYC->AMS by FRA (39.5 ms)");
        CheckRoutes(scenario, degraded, "NYC-LON down");

        // Through the helper, as a program that holds only the helper reroutes.
        scenario.Reroute(topology);
        NS_TEST_ASSERT_MSG_EQ(m_rerouted.size(), 2u, "Rerouted fired again");
        NS_TEST_EXPECT_MSG_EQ(m_rerouted[1].empty(), true, "with every link up");
        NS_TEST_EXPECT_MSG_EQ(Describe(topology, routing->GetForwardingPath(nyc, lon)),
                              "NYC:up NYC->LON LON:down",
                              "NYC->LON direct again");
        CheckRoutes(scenario, topology, "NYC-LON up again");
        Simulator::Destroy();
        Names::Clear();
    }

    std::vector<std::vector<uint32_t>> m_rerouted; //!< the down links of every Rerouted
};

/**
 * @ingroup wan-training-tests
 * @brief LAX-TYO and FRA-SIN down cut TYO, HKG and SIN off the rest: no path and no route
 * crosses the partition, each side keeps its shortest paths, and the routes come back.
 */
class WanUnicastRoutingPartitionTestCase : public WanUnicastRoutingTestCase
{
  public:
    WanUnicastRoutingPartitionTestCase()
        : WanUnicastRoutingTestCase("Reroute on a partitioned WAN: no route across the cut")
    {
    }

  private:
    void DoRun() override
    {
        WanTopology topology = WanTopology::LoadFile(CreateDataDirFilename(REFERENCE_WAN));
        WanTopologyHelper scenario(topology);
        scenario.Install();
        const WanTopology cut = topology.WithLinksDown(
            {FindLink(topology, "LAX", "TYO"), FindLink(topology, "FRA", "SIN")});
        scenario.GetUnicastRouting()->Reroute(cut);
        const uint32_t nyc = topology.GetCityIndex("NYC");
        const std::set<std::string> asia{"TYO", "HKG", "SIN"};
        for (uint32_t city = 0; city < topology.GetNCities(); ++city)
        {
            if (city == nyc)
            {
                continue;
            }
            const bool crosses = asia.count(topology.GetCity(city).id) > 0;
            NS_TEST_EXPECT_MSG_EQ(scenario.GetForwardingPath(nyc, city).empty(),
                                  crosses,
                                  "NYC reaches " << topology.GetCity(city).id
                                                 << " iff it is on its side");
        }
        CheckRoutes(scenario, cut, "partitioned");
        scenario.GetUnicastRouting()->Reroute(topology);
        CheckRoutes(scenario, topology, "joined again");
        Simulator::Destroy();
        Names::Clear();
    }
};

/**
 * @ingroup wan-training-tests
 * @brief The WanUnicastRouting test suite.
 */
class WanUnicastRoutingTestSuite : public TestSuite
{
  public:
    WanUnicastRoutingTestSuite()
        : TestSuite("wan-training-unicast-routing", UNIT)
    {
        SetDataDir(NS_TEST_SOURCEDIR);
        AddTestCase(new WanUnicastRoutingInstallTestCase(), TestCase::QUICK);
        AddTestCase(new WanUnicastRoutingLinkDownTestCase(), TestCase::QUICK);
        AddTestCase(new WanUnicastRoutingPartitionTestCase(), TestCase::QUICK);
    }
};

/** The suite's instance. */
static WanUnicastRoutingTestSuite g_wanUnicastRoutingTestSuite;
