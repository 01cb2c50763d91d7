/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "pim-multicast-helper.h"
#include "pim-multicast-routing.h"
#include "training-helper.h"
#include "wan-fault-error-model.h"
#include "wan-fault-injector.h"
#include "wan-topology-helper.h"
#include "wan-topology.h"

#include "ns3/callback.h"
#include "ns3/names.h"
#include "ns3/nstime.h"
#include "ns3/packet.h"
#include "ns3/simulator.h"
#include "ns3/test.h"

#include <algorithm>
#include <string>
#include <tuple>
#include <vector>

/**
 * @file
 * @ingroup wan-training-tests
 * WanFaultInjector test suite: a link state scheduled on the injector takes effect at its time:
 * both directions of the link drop what reaches them (and only while it is down), the unicast
 * forwarding path and the multicast tree move off the link through the reroute callbacks, in the
 * order they were added, and LinkStateChanged reports the links down and the routing topology;
 * bringing the link up restores everything.
 */

using namespace ns3;

namespace
{

/** The nine-city topology, relative to the test data directory. */
const std::string NINE_CITY = "../topologies/doublezero-nine-city.json";

} // namespace

/**
 * @ingroup wan-training-tests
 * @brief nyc-lon down at 0.2 s and up at 0.6 s, on an injector with the scenario's unicast
 * reroute and a PimMulticastRouting's reroute as callbacks.
 */
class WanFaultInjectorLinkDownTestCase : public TestCase
{
  public:
    WanFaultInjectorLinkDownTestCase()
        : TestCase("a link down at t drops on both directions and reroutes unicast and multicast "
                   "at t; up again restores them")
    {
    }

  private:
    void DoRun() override;
    /**
     * @brief Check the state now.
     * @param down whether nyc-lon must be down
     * @param what the check, for the messages
     */
    void Check(bool down, std::string what);
    /**
     * @brief LinkStateChanged sink.
     * @param downLinks the links down
     * @param routing the routing topology
     */
    void OnLinkState(const std::vector<uint32_t>& downLinks, const WanTopology& routing);
    /**
     * @brief A reroute callback that records its call.
     * @param tag which callback
     * @param routing the routing topology
     */
    void OnReroute(std::string tag, const WanTopology& routing);

    const WanTopologyHelper* m_scenario{};         //!< the scenario
    std::vector<Ptr<WanFaultErrorModel>> m_models; //!< by WAN directed link
    Ptr<PimMulticastRouting> m_routing;            //!< multicast routing
    Ipv4Address m_group;                           //!< nyc's group toward lon
    uint32_t m_link{0};                            //!< nyc-lon
    uint32_t m_nyc{0};                             //!< nyc
    uint32_t m_lon{0};                             //!< lon
    std::vector<Time> m_changes;                   //!< LinkStateChanged times
    std::vector<std::vector<uint32_t>> m_downs;    //!< LinkStateChanged links down
    std::vector<std::string> m_calls;              //!< callbacks and trace, in call order
};

void
WanFaultInjectorLinkDownTestCase::OnLinkState(const std::vector<uint32_t>& downLinks,
                                              const WanTopology& routing)
{
    m_changes.push_back(Simulator::Now());
    m_downs.push_back(downLinks);
    NS_TEST_EXPECT_MSG_EQ((routing.GetDownLinks() == downLinks),
                          true,
                          "the routing topology has the links down");
    // The routes are installed when the trace fires.
    NS_TEST_EXPECT_MSG_EQ((m_scenario->GetRouting().GetDownLinks() == downLinks),
                          true,
                          "the unicast routes follow the new routing");
    m_calls.push_back("trace");
}

void
WanFaultInjectorLinkDownTestCase::OnReroute(std::string tag, const WanTopology& routing)
{
    m_calls.push_back(tag + std::to_string(routing.GetDownLinks().size()));
}

void
WanFaultInjectorLinkDownTestCase::Check(bool down, std::string what)
{
    const WanTopology& topology = m_scenario->GetTopology();
    for (uint32_t d = 0; d < m_models.size(); ++d)
    {
        const bool expected = down && d / 2 == m_link;
        NS_TEST_EXPECT_MSG_EQ(m_models[d]->IsLinkDown(),
                              expected,
                              what << ": " << topology.GetDirectedLinkName(d));
    }
    // A packet reaching either direction's receiving device is dropped iff the link is down.
    for (uint32_t d : {2 * m_link, 2 * m_link + 1})
    {
        const uint64_t before = m_models[d]->GetLinkDownDrops();
        const bool corrupt = m_models[d]->IsCorrupt(Create<Packet>(100));
        NS_TEST_EXPECT_MSG_EQ(corrupt, down, what << ": a packet on " << d << " is dropped");
        NS_TEST_EXPECT_MSG_EQ(m_models[d]->GetLinkDownDrops() - before,
                              (down ? 1u : 0u),
                              what << ": counted as a link-down drop");
    }
    const std::vector<uint32_t> path = m_scenario->GetForwardingPath(m_nyc, m_lon);
    NS_TEST_EXPECT_MSG_EQ(path.empty(), false, what << ": nyc reaches lon");
    const bool direct = std::find(path.begin(), path.end(), 2 * m_link) != path.end() ||
                        std::find(path.begin(), path.end(), 2 * m_link + 1) != path.end();
    NS_TEST_EXPECT_MSG_EQ(direct, !down, what << ": unicast nyc -> lon crosses nyc-lon");
    const WanTopology state = down ? topology.WithLinksDown({m_link}) : topology;
    const WanRoute& route = state.GetRoute(m_nyc, m_lon);
    NS_TEST_EXPECT_MSG_EQ((path == route.links),
                          true,
                          what << ": the forwarding path is the route");
    std::vector<uint32_t> expectedTree(route.links.begin(), route.links.end());
    std::sort(expectedTree.begin(), expectedTree.end());
    NS_TEST_EXPECT_MSG_EQ((m_routing->GetTree(m_group).links == expectedTree),
                          true,
                          what << ": the multicast tree is the route");
}

void
WanFaultInjectorLinkDownTestCase::DoRun()
{
    WanTopology topology = WanTopology::LoadFile(CreateDataDirFilename(NINE_CITY));
    WanTopologyHelper scenario(topology);
    scenario.Install();
    m_scenario = &scenario;
    m_models = TrainingHelper::InstallWanFaultModels(scenario, 0, 0, 0, 100);
    NS_TEST_ASSERT_MSG_EQ(m_models.size(), 2 * topology.GetNLinks(), "two models per link");
    m_nyc = topology.GetCityIndex("nyc");
    m_lon = topology.GetCityIndex("lon");
    m_link = topology.GetNLinks();
    for (uint32_t l = 0; l < topology.GetNLinks(); ++l)
    {
        const WanLink& link = topology.GetLink(l);
        if ((link.a == m_nyc && link.b == m_lon) || (link.a == m_lon && link.b == m_nyc))
        {
            m_link = l;
        }
    }
    NS_TEST_ASSERT_MSG_LT(m_link, topology.GetNLinks(), "nyc-lon exists");

    PimMulticastHelper pim(scenario);
    m_routing = pim.GetMulticastRouting();
    m_group = Ipv4Address("232.7.0.3");
    m_routing->AddGroup(m_group, m_nyc);
    m_routing->AddMembers(m_group, {m_lon});

    Ptr<WanFaultInjector> injector = CreateObject<WanFaultInjector>();
    injector->SetTopology(topology);
    injector->SetErrorModels(m_models);
    injector->AddRerouteCallback(MakeCallback(&WanTopologyHelper::Reroute, &scenario));
    injector->AddRerouteCallback(
        MakeCallback(&WanFaultInjectorLinkDownTestCase::OnReroute, this).Bind(std::string("a")));
    injector->AddRerouteCallback(MakeCallback(&PimMulticastRouting::Reroute, m_routing));
    injector->AddRerouteCallback(
        MakeCallback(&WanFaultInjectorLinkDownTestCase::OnReroute, this).Bind(std::string("b")));
    injector->TraceConnectWithoutContext(
        "LinkStateChanged",
        MakeCallback(&WanFaultInjectorLinkDownTestCase::OnLinkState, this));
    const Time down = Seconds(0.2);
    const Time up = Seconds(0.6);
    injector->ScheduleLinkState(down, {m_link});
    injector->ScheduleLinkState(up, {});
    NS_TEST_EXPECT_MSG_EQ(injector->GetNApplied(), 0u, "nothing applied at set-up");

    Check(false, "at set-up");
    for (auto [t, isDown, what] : {std::make_tuple(down - NanoSeconds(1), false, "before down"),
                                   std::make_tuple(down, true, "at down"),
                                   std::make_tuple(up - NanoSeconds(1), true, "before up"),
                                   std::make_tuple(up, false, "at up")})
    {
        // Scheduled after the injector's events: at equal times they run after them.
        Simulator::Schedule(t,
                            &WanFaultInjectorLinkDownTestCase::Check,
                            this,
                            isDown,
                            std::string(what));
    }
    Simulator::Run();

    NS_TEST_EXPECT_MSG_EQ(injector->GetNApplied(), 2u, "both states applied");
    NS_TEST_EXPECT_MSG_EQ(injector->GetLinksDown().empty(), true, "every link up at the end");
    NS_TEST_ASSERT_MSG_EQ(m_changes.size(), 2u, "two LinkStateChanged");
    NS_TEST_EXPECT_MSG_EQ(m_changes[0], down, "the first at the down time");
    NS_TEST_EXPECT_MSG_EQ(m_changes[1], up, "the second at the up time");
    NS_TEST_EXPECT_MSG_EQ((m_downs[0] == std::vector<uint32_t>{m_link}), true, "nyc-lon down");
    NS_TEST_EXPECT_MSG_EQ(m_downs[1].empty(), true, "then every link up");
    const std::vector<std::string> calls{"a1", "b1", "trace", "a0", "b0", "trace"};
    NS_TEST_EXPECT_MSG_EQ((m_calls == calls), true, "reroutes in order, then the trace");
    injector->Dispose();
    m_routing = nullptr;
    m_models.clear();
    Simulator::Destroy();
    Names::Clear();
}

/**
 * @ingroup wan-training-tests
 * @brief The WanFaultInjector test suite.
 */
class WanFaultInjectorTestSuite : public TestSuite
{
  public:
    WanFaultInjectorTestSuite()
        : TestSuite("wan-training-fault-injector", UNIT)
    {
        SetDataDir(NS_TEST_SOURCEDIR);
        AddTestCase(new WanFaultInjectorLinkDownTestCase(), TestCase::QUICK);
    }
};

/** The suite's instance. */
static WanFaultInjectorTestSuite g_wanFaultInjectorTestSuite;
