/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "wan-rtt-probe-helper.h"
#include "wan-topology-helper.h"
#include "wan-topology.h"

#include "ns3/channel.h"
#include "ns3/data-rate.h"
#include "ns3/ipv4-header.h"
#include "ns3/ipv4.h"
#include "ns3/loopback-net-device.h"
#include "ns3/names.h"
#include "ns3/node-list.h"
#include "ns3/nstime.h"
#include "ns3/packet.h"
#include "ns3/point-to-point-net-device.h"
#include "ns3/ppp-header.h"
#include "ns3/simulator.h"
#include "ns3/test.h"

#include <cmath>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <tuple>
#include <vector>

/**
 * @file
 * @ingroup wan-training-tests
 * WanTopologyHelper test suite: the ns-3 objects it builds (names, devices, link parameters,
 * addresses), island-to-island RTTs against the closed form, and the forwarding path of every
 * ordered pair observed from packet traces against the reference routes.
 */

using namespace ns3;

namespace
{

/** The nine-city topology, relative to the test data directory. */
const std::string NINE_CITY = "../topologies/doublezero-nine-city.json";
/** The reference topology, relative to the test data directory. */
const std::string REFERENCE_WAN = "../topologies/reference-wan.json";
/** The reference values computed independently from the schedule model for REFERENCE_WAN. */
const std::string REFERENCE_VALUES = "data/reference-values.json";

/**
 * A synthetic WAN whose routes are asymmetric: a->z and z->a tie on latency (3 ms) and hops (3),
 * so the lexicographic rule picks a b e z one way and z d c a the other. It also has per-city
 * access links (a zero latency, uneven capacities), a 1500-byte link and a fractional capacity.
 */
const std::string ASYMMETRIC_WAN = R"({
  "name": "asymmetric-wan",
  "defaults": {"mtu_bytes": 9000, "island_access": {"capacity_gbps": 10, "latency_ms": 0.1}},
  "cities": [
    {"id": "a", "access_latency_ms": 0},
    {"id": "b", "access_capacity_gbps": 2.5},
    {"id": "c"},
    {"id": "d", "access_latency_ms": 0.25, "access_capacity_gbps": 40},
    {"id": "e"},
    {"id": "z", "access_latency_ms": 0.05}
  ],
  "links": [
    {"a": "a", "b": "b", "latency_ms": 1, "capacity_gbps": 10},
    {"a": "b", "b": "e", "latency_ms": 1, "capacity_gbps": 0.8},
    {"a": "e", "b": "z", "latency_ms": 1, "capacity_gbps": 100},
    {"a": "a", "b": "c", "latency_ms": 1, "capacity_gbps": 10},
    {"a": "c", "b": "d", "latency_ms": 1, "capacity_gbps": 1, "mtu_bytes": 1500},
    {"a": "d", "b": "z", "latency_ms": 1, "capacity_gbps": 25}
  ]
})";

/** Where a test case's topology comes from: a file under the test data directory or text. */
struct TopologyInput
{
    std::string name; //!< short name, used in test names
    std::string file; //!< file relative to the test data directory, or empty
    std::string text; //!< JSON text when file is empty
};

/**
 * @param file a topology file relative to the test data directory
 * @return the input, named after the file (test names may not contain '/')
 */
TopologyInput
FromFile(const std::string& file)
{
    return {file.substr(file.rfind('/') + 1), file, ""};
}

/**
 * @brief End a test case: destroy the simulation and forget the node names (ns3::Names outlive
 * Simulator::Destroy()).
 */
void
EndSimulation()
{
    Simulator::Destroy();
    Names::Clear();
}

/**
 * @param topology a topology
 * @param x a city index
 * @param y another city index
 * @return the WAN link between the two cities, found by scanning the topology's links
 */
const WanLink*
FindWanLink(const WanTopology& topology, uint32_t x, uint32_t y)
{
    for (uint32_t l = 0; l < topology.GetNLinks(); ++l)
    {
        const WanLink& link = topology.GetLink(l);
        if ((link.a == x && link.b == y) || (link.a == y && link.b == x))
        {
            return &link;
        }
    }
    return nullptr;
}

/**
 * @param node a node
 * @return the IPv4 addresses of its non-loopback interfaces
 */
std::set<Ipv4Address>
NodeAddresses(Ptr<Node> node)
{
    std::set<Ipv4Address> addresses;
    Ptr<Ipv4> ipv4 = node->GetObject<Ipv4>();
    for (uint32_t i = 0; i < ipv4->GetNInterfaces(); ++i)
    {
        if (DynamicCast<LoopbackNetDevice>(ipv4->GetNetDevice(i)))
        {
            continue;
        }
        for (uint32_t a = 0; a < ipv4->GetNAddresses(i); ++a)
        {
            addresses.insert(ipv4->GetAddress(i, a).GetLocal());
        }
    }
    return addresses;
}

/**
 * @param device a point-to-point device
 * @return the device at the other end of its channel
 */
Ptr<NetDevice>
PeerDevice(Ptr<NetDevice> device)
{
    Ptr<Channel> channel = device->GetChannel();
    for (std::size_t k = 0; k < channel->GetNDevices(); ++k)
    {
        if (channel->GetDevice(k) != device)
        {
            return channel->GetDevice(k);
        }
    }
    return nullptr;
}

} // namespace

/**
 * @ingroup wan-training-tests
 * @brief The objects WanTopologyHelper builds: nodes and names, devices of every directed link,
 * link parameters from the JSON, interfaces and addresses.
 */
class WanTopologyHelperStructureTestCase : public TestCase
{
  public:
    /**
     * @param input the topology
     */
    explicit WanTopologyHelperStructureTestCase(const TopologyInput& input);

  private:
    void DoRun() override;

    TopologyInput m_input; //!< the topology
};

WanTopologyHelperStructureTestCase::WanTopologyHelperStructureTestCase(const TopologyInput& input)
    : TestCase("names, devices, link parameters and addresses of " + input.name),
      m_input(input)
{
}

void
WanTopologyHelperStructureTestCase::DoRun()
{
    WanTopology topology = m_input.file.empty()
                               ? WanTopology::Parse(m_input.text, m_input.name)
                               : WanTopology::LoadFile(CreateDataDirFilename(m_input.file));
    WanTopologyHelper helper(topology);
    helper.Install();
    const uint32_t n = topology.GetNCities();
    const uint32_t nLinks = topology.GetNLinks();

    NS_TEST_EXPECT_MSG_EQ(helper.GetRouters().GetN(), n, "one router per city");
    NS_TEST_EXPECT_MSG_EQ(helper.GetIslands().GetN(), n, "one island per city");
    if (helper.GetRouters().GetN() != n || helper.GetIslands().GetN() != n)
    {
        EndSimulation();
        return;
    }
    NS_TEST_EXPECT_MSG_EQ(NodeList::GetNNodes(), 2 * n, "no other nodes");

    std::set<Ipv4Address> islandAddresses;
    for (uint32_t i = 0; i < n; ++i)
    {
        const std::string& id = topology.GetCity(i).id;
        NS_TEST_EXPECT_MSG_EQ(helper.GetRouters().Get(i), helper.GetRouter(i), "router order");
        NS_TEST_EXPECT_MSG_EQ(helper.GetIslands().Get(i), helper.GetIsland(i), "island order");
        NS_TEST_EXPECT_MSG_EQ(Names::Find<Node>(id), helper.GetRouter(i), "router name " << id);
        NS_TEST_EXPECT_MSG_EQ(Names::Find<Node>(id + "-island"),
                              helper.GetIsland(i),
                              "island name " << id);
        // Loopback plus one device per link end.
        uint32_t degree = 0;
        for (uint32_t l = 0; l < nLinks; ++l)
        {
            degree += (topology.GetLink(l).a == i) + (topology.GetLink(l).b == i);
        }
        NS_TEST_EXPECT_MSG_EQ(helper.GetRouter(i)->GetNDevices(),
                              degree + 2,
                              "router " << id << ": loopback, " << degree << " WAN, 1 access");
        NS_TEST_EXPECT_MSG_EQ(helper.GetIsland(i)->GetNDevices(),
                              2,
                              "island " << id << ": loopback and access");

        std::set<Ipv4Address> own = NodeAddresses(helper.GetIsland(i));
        NS_TEST_EXPECT_MSG_EQ(own.size(), 1, "island " << id << " has one address");
        NS_TEST_EXPECT_MSG_EQ(own.count(helper.GetIslandAddress(i)),
                              1,
                              "GetIslandAddress(" << id << ") is the island's address");
        islandAddresses.insert(helper.GetIslandAddress(i));
    }
    NS_TEST_EXPECT_MSG_EQ(islandAddresses.size(), n, "island addresses are distinct");

    std::set<Ptr<NetDevice>> txDevices;
    for (uint32_t d = 0; d < topology.GetNDirectedLinks(); ++d)
    {
        // The expected endpoints from WanTopology's documented numbering.
        Ptr<Node> from;
        Ptr<Node> to;
        double latencyMs;
        double capacityGbps;
        uint32_t mtu;
        if (d < 2 * nLinks)
        {
            const WanLink& link = topology.GetLink(d / 2);
            from = Names::Find<Node>(topology.GetCity(d % 2 == 0 ? link.a : link.b).id);
            to = Names::Find<Node>(topology.GetCity(d % 2 == 0 ? link.b : link.a).id);
            latencyMs = link.latencyMs;
            capacityGbps = link.capacityGbps;
            mtu = link.mtuBytes;
        }
        else
        {
            bool up = d < 2 * nLinks + n;
            const WanCity& city = topology.GetCity((d - 2 * nLinks) % n);
            Ptr<Node> router = Names::Find<Node>(city.id);
            Ptr<Node> island = Names::Find<Node>(city.id + "-island");
            from = up ? island : router;
            to = up ? router : island;
            latencyMs = city.accessLatencyMs;
            capacityGbps = city.accessCapacityGbps;
            mtu = topology.GetDefaultMtuBytes();
        }
        std::string name = topology.GetDirectedLinkName(d);

        Ptr<NetDevice> tx = helper.GetTxDevice(d);
        Ptr<NetDevice> rx = helper.GetRxDevice(d);
        NS_TEST_EXPECT_MSG_NE(tx, nullptr, name << ": Tx device");
        NS_TEST_EXPECT_MSG_NE(rx, nullptr, name << ": Rx device");
        if (!tx || !rx)
        {
            continue;
        }
        NS_TEST_EXPECT_MSG_EQ(tx->GetNode(), from, name << ": Tx device's node");
        NS_TEST_EXPECT_MSG_EQ(rx->GetNode(), to, name << ": Rx device's node");
        NS_TEST_EXPECT_MSG_EQ(PeerDevice(tx), rx, name << ": Rx device is the channel's other end");
        NS_TEST_EXPECT_MSG_EQ(helper.GetDirectedLinkOfTxDevice(tx), d, name << ": inverse");
        txDevices.insert(tx);

        DataRateValue rate;
        tx->GetAttribute("DataRate", rate);
        NS_TEST_EXPECT_MSG_EQ(rate.Get().GetBitRate(),
                              static_cast<uint64_t>(std::llround(capacityGbps * 1e9)),
                              name << ": DataRate");
        TimeValue delay;
        tx->GetChannel()->GetAttribute("Delay", delay);
        NS_TEST_EXPECT_MSG_EQ_TOL(delay.Get().GetSeconds(),
                                  latencyMs * 1e-3,
                                  1e-9,
                                  name << ": channel Delay");
        NS_TEST_EXPECT_MSG_EQ(tx->GetMtu(), mtu, name << ": Mtu");

        Ptr<Ipv4> txIpv4 = from->GetObject<Ipv4>();
        Ptr<Ipv4> rxIpv4 = to->GetObject<Ipv4>();
        NS_TEST_EXPECT_MSG_EQ(txIpv4->GetInterfaceForDevice(tx),
                              static_cast<int32_t>(helper.GetTxInterface(d)),
                              name << ": Tx interface");
        NS_TEST_EXPECT_MSG_EQ(rxIpv4->GetInterfaceForDevice(rx),
                              static_cast<int32_t>(helper.GetRxInterface(d)),
                              name << ": Rx interface");
        NS_TEST_EXPECT_MSG_EQ(txIpv4->IsUp(helper.GetTxInterface(d)), true, name << ": Tx up");
        Ipv4InterfaceAddress txAddress = txIpv4->GetAddress(helper.GetTxInterface(d), 0);
        Ipv4InterfaceAddress rxAddress = rxIpv4->GetAddress(helper.GetRxInterface(d), 0);
        NS_TEST_EXPECT_MSG_EQ(
            txAddress.GetMask().IsMatch(txAddress.GetLocal(), rxAddress.GetLocal()),
            true,
            name << ": both ends share a subnet");
        NS_TEST_EXPECT_MSG_NE(txAddress.GetLocal(), rxAddress.GetLocal(), name << ": addresses");
    }

    // Every non-loopback device is the Tx device of exactly one directed link.
    uint32_t nDevices = 0;
    for (auto node = NodeList::Begin(); node != NodeList::End(); ++node)
    {
        for (uint32_t k = 0; k < (*node)->GetNDevices(); ++k)
        {
            nDevices += DynamicCast<PointToPointNetDevice>((*node)->GetDevice(k)) ? 1 : 0;
        }
    }
    NS_TEST_EXPECT_MSG_EQ(txDevices.size(), topology.GetNDirectedLinks(), "distinct Tx devices");
    NS_TEST_EXPECT_MSG_EQ(nDevices, topology.GetNDirectedLinks(), "one device per directed link");

    EndSimulation();
}

/**
 * @ingroup wan-training-tests
 * @brief RTT of every ordered pair of islands against the closed form, and the forwarding path
 * of every probe, observed on the devices' MacTx traces, against the expected routes.
 */
class WanTopologyHelperProbeTestCase : public TestCase
{
  public:
    /** A path that must be observed: source id, destination id, node names and why. */
    struct SpotCheck
    {
        std::string src;    //!< source city id
        std::string dst;    //!< destination city id
        std::string path;   //!< expected node names, space separated
        std::string reason; //!< what the check is about
    };

    /**
     * @param input the topology
     * @param referenceRoutes whether the expected routes are REFERENCE_VALUES' `routes` (else
     *        WanTopology::GetRoute)
     * @param probeBytes UDP payload of a probe (large, so that serialization matters at 1 us)
     * @param spotChecks paths that must be observed
     */
    WanTopologyHelperProbeTestCase(const TopologyInput& input,
                                   bool referenceRoutes,
                                   uint32_t probeBytes,
                                   const std::vector<SpotCheck>& spotChecks);

  private:
    void DoRun() override;
    /**
     * @brief MacTx sink: one hop of a packet.
     * @param from name of the transmitting node
     * @param to name of the node at the other end of the channel
     * @param packet the packet (starting with its PPP and IPv4 headers)
     */
    void MacTx(std::string from, std::string to, Ptr<const Packet> packet);

    /** A packet's identity: uid, IPv4 source, IPv4 destination. */
    using PacketKey = std::tuple<uint64_t, Ipv4Address, Ipv4Address>;

    TopologyInput m_input;                                 //!< the topology
    bool m_referenceRoutes;                                //!< routes from REFERENCE_VALUES
    uint32_t m_probeBytes;                                 //!< UDP payload of a probe
    std::vector<SpotCheck> m_spotChecks;                   //!< paths that must be observed
    std::map<PacketKey, std::vector<std::string>> m_paths; //!< node names a packet crossed
    std::map<PacketKey, bool> m_sizeOk; //!< whether every hop carried probe + UDP + IPv4 + PPP
};

WanTopologyHelperProbeTestCase::WanTopologyHelperProbeTestCase(
    const TopologyInput& input,
    bool referenceRoutes,
    uint32_t probeBytes,
    const std::vector<SpotCheck>& spotChecks)
    : TestCase("RTTs and forwarding paths of every pair of islands of " + input.name),
      m_input(input),
      m_referenceRoutes(referenceRoutes),
      m_probeBytes(probeBytes),
      m_spotChecks(spotChecks)
{
}

void
WanTopologyHelperProbeTestCase::MacTx(std::string from, std::string to, Ptr<const Packet> packet)
{
    Ptr<Packet> copy = packet->Copy();
    PppHeader ppp;
    copy->RemoveHeader(ppp);
    Ipv4Header ip;
    copy->RemoveHeader(ip);
    PacketKey key{packet->GetUid(), ip.GetSource(), ip.GetDestination()};
    std::vector<std::string>& path = m_paths[key];
    if (path.empty())
    {
        path.push_back(from);
        m_sizeOk[key] = true;
    }
    else if (path.back() != from)
    {
        path.push_back("?" + from); // a hop that does not continue the previous one
    }
    path.push_back(to);
    m_sizeOk[key] = m_sizeOk[key] && ppp.GetProtocol() == 0x0021 &&
                    packet->GetSize() == m_probeBytes + 8 + 20 + 2;
}

void
WanTopologyHelperProbeTestCase::DoRun()
{
    WanTopology topology = m_input.file.empty()
                               ? WanTopology::Parse(m_input.text, m_input.name)
                               : WanTopology::LoadFile(CreateDataDirFilename(m_input.file));
    m_paths.clear();
    m_sizeOk.clear();
    WanTopologyHelper helper(topology);
    helper.Install();
    WanRttProbeHelper prober(helper);
    prober.SetProbeBytes(m_probeBytes);
    prober.Install(Seconds(1));
    const uint32_t n = topology.GetNCities();

    // Observe every transmission on every point-to-point device, named by its two end nodes.
    for (auto node = NodeList::Begin(); node != NodeList::End(); ++node)
    {
        for (uint32_t k = 0; k < (*node)->GetNDevices(); ++k)
        {
            Ptr<NetDevice> device = (*node)->GetDevice(k);
            if (!DynamicCast<PointToPointNetDevice>(device))
            {
                continue;
            }
            device->TraceConnectWithoutContext(
                "MacTx",
                MakeCallback(&WanTopologyHelperProbeTestCase::MacTx,
                             this,
                             Names::FindName(*node),
                             Names::FindName(PeerDevice(device)->GetNode())));
        }
    }
    Simulator::Stop(prober.GetStopTime());
    Simulator::Run();

    // Expected routes: city ids from source to destination router.
    std::map<std::pair<uint32_t, uint32_t>, std::vector<std::string>> routes;
    if (m_referenceRoutes)
    {
        std::ifstream in(CreateDataDirFilename(REFERENCE_VALUES));
        NS_TEST_EXPECT_MSG_EQ(in.good(), true, "cannot read " << REFERENCE_VALUES);
        nlohmann::json reference = nlohmann::json::parse(in);
        NS_TEST_EXPECT_MSG_EQ(reference.at("routes").size(), n * (n - 1), "reference routes");
        for (const auto& [name, route] : reference.at("routes").items())
        {
            std::size_t arrow = name.find("->");
            uint32_t src = topology.GetCityIndex(name.substr(0, arrow));
            uint32_t dst = topology.GetCityIndex(name.substr(arrow + 2));
            routes[{src, dst}] = route.at("nodes").get<std::vector<std::string>>();
        }
    }
    else
    {
        for (uint32_t src = 0; src < n; ++src)
        {
            for (uint32_t dst = 0; dst < n; ++dst)
            {
                if (src != dst)
                {
                    for (uint32_t c : topology.GetRoute(src, dst).cities)
                    {
                        routes[{src, dst}].push_back(topology.GetCity(c).id);
                    }
                }
            }
        }
    }

    // Closed form: on every hop there and back, propagation + serialization of the probe with
    // its UDP (8), IPv4 (20) and PPP (2) headers.
    const double wireBits = 8.0 * (m_probeBytes + 8 + 20 + 2);
    auto oneWaySeconds = [&](const std::vector<std::string>& route) {
        const WanCity& first = topology.GetCity(topology.GetCityIndex(route.front()));
        const WanCity& last = topology.GetCity(topology.GetCityIndex(route.back()));
        double seconds = first.accessLatencyMs * 1e-3 + wireBits / (first.accessCapacityGbps * 1e9);
        for (std::size_t k = 0; k + 1 < route.size(); ++k)
        {
            const WanLink* link = FindWanLink(topology,
                                              topology.GetCityIndex(route[k]),
                                              topology.GetCityIndex(route[k + 1]));
            NS_TEST_EXPECT_MSG_NE(link, nullptr, "no WAN link " << route[k] << "-" << route[k + 1]);
            if (!link)
            {
                return std::nan("");
            }
            seconds += link->latencyMs * 1e-3 + wireBits / (link->capacityGbps * 1e9);
        }
        return seconds + last.accessLatencyMs * 1e-3 + wireBits / (last.accessCapacityGbps * 1e9);
    };

    // The island of every address, from the nodes themselves.
    std::map<Ipv4Address, uint32_t> islandOfAddress;
    for (uint32_t i = 0; i < n; ++i)
    {
        for (const Ipv4Address& address :
             NodeAddresses(Names::Find<Node>(topology.GetCity(i).id + "-island")))
        {
            islandOfAddress[address] = i;
        }
    }

    for (uint32_t src = 0; src < n; ++src)
    {
        for (uint32_t dst = 0; dst < n; ++dst)
        {
            if (src == dst)
            {
                continue;
            }
            std::string pair = topology.GetCity(src).id + "->" + topology.GetCity(dst).id;
            NS_TEST_EXPECT_MSG_EQ(prober.HasRtt(src, dst), true, pair << ": probe came back");
            if (!prober.HasRtt(src, dst))
            {
                continue;
            }
            NS_TEST_EXPECT_MSG_EQ((routes.count({src, dst}) && routes.count({dst, src})),
                                  true,
                                  pair << ": expected routes both ways");
            if (!routes.count({src, dst}) || !routes.count({dst, src}))
            {
                continue;
            }
            double expected =
                oneWaySeconds(routes.at({src, dst})) + oneWaySeconds(routes.at({dst, src}));
            NS_TEST_EXPECT_MSG_EQ_TOL(prober.GetRtt(src, dst).GetSeconds(),
                                      expected,
                                      1e-6,
                                      pair << ": RTT against latency + serialization");
        }
    }

    // Every probe and every echo crossed exactly the nodes of its route; each ordered pair's
    // route carries two packets (the probe src->dst and the echo of the probe dst->src).
    std::map<std::pair<uint32_t, uint32_t>, uint32_t> traversals;
    for (const auto& [key, path] : m_paths)
    {
        auto src = islandOfAddress.find(std::get<1>(key));
        auto dst = islandOfAddress.find(std::get<2>(key));
        bool islands = src != islandOfAddress.end() && dst != islandOfAddress.end();
        NS_TEST_EXPECT_MSG_EQ(islands,
                              true,
                              "a packet between " << std::get<1>(key) << " and " << std::get<2>(key)
                                                  << " is not island traffic");
        if (!islands)
        {
            continue;
        }
        std::string pair =
            topology.GetCity(src->second).id + "->" + topology.GetCity(dst->second).id;
        std::vector<std::string> expected{topology.GetCity(src->second).id + "-island"};
        auto route = routes.find({src->second, dst->second});
        if (route != routes.end())
        {
            expected.insert(expected.end(), route->second.begin(), route->second.end());
        }
        expected.push_back(topology.GetCity(dst->second).id + "-island");
        std::string observedText;
        std::string expectedText;
        for (const std::string& name : path)
        {
            observedText += " " + name;
        }
        for (const std::string& name : expected)
        {
            expectedText += " " + name;
        }
        NS_TEST_EXPECT_MSG_EQ(observedText, expectedText, pair << ": forwarding path");
        NS_TEST_EXPECT_MSG_EQ(m_sizeOk[key], true, pair << ": probe size on the wire");
        ++traversals[{src->second, dst->second}];
    }
    NS_TEST_EXPECT_MSG_EQ(traversals.size(), n * (n - 1), "every ordered pair was crossed");
    for (const auto& [pair, count] : traversals)
    {
        NS_TEST_EXPECT_MSG_EQ(count,
                              2,
                              topology.GetCity(pair.first).id << "->"
                                                              << topology.GetCity(pair.second).id
                                                              << ": a probe and an echo");
    }

    // Paths named in the suite: near-ties and asymmetric routes.
    for (const SpotCheck& check : m_spotChecks)
    {
        std::set<Ipv4Address> from = NodeAddresses(Names::Find<Node>(check.src + "-island"));
        std::set<Ipv4Address> to = NodeAddresses(Names::Find<Node>(check.dst + "-island"));
        std::string observed = "(no packet)";
        for (const auto& [key, path] : m_paths)
        {
            if (from.count(std::get<1>(key)) && to.count(std::get<2>(key)))
            {
                observed.clear();
                for (const std::string& name : path)
                {
                    observed += (observed.empty() ? "" : " ") + name;
                }
            }
        }
        NS_TEST_EXPECT_MSG_EQ(observed, check.path, check.reason);
    }

    EndSimulation();
}

/**
 * @ingroup wan-training-tests
 * @brief The WanTopologyHelper test suite.
 */
class WanTopologyHelperTestSuite : public TestSuite
{
  public:
    WanTopologyHelperTestSuite();
};

WanTopologyHelperTestSuite::WanTopologyHelperTestSuite()
    : TestSuite("wan-training-topology-helper", UNIT)
{
    SetDataDir(NS_TEST_SOURCEDIR);
    const TopologyInput nineCity = FromFile(NINE_CITY);
    const TopologyInput referenceWan = FromFile(REFERENCE_WAN);
    const TopologyInput asymmetricWan{"asymmetric-wan", "", ASYMMETRIC_WAN};
    AddTestCase(new WanTopologyHelperStructureTestCase(nineCity), TestCase::QUICK);
    AddTestCase(new WanTopologyHelperStructureTestCase(referenceWan), TestCase::QUICK);
    AddTestCase(new WanTopologyHelperStructureTestCase(asymmetricWan), TestCase::QUICK);
    AddTestCase(new WanTopologyHelperProbeTestCase(
                    nineCity,
                    false,
                    8000,
                    {{"nyc",
                      "lax",
                      "nyc-island nyc lax lax-island",
                      "nyc->lax goes direct (34.21 ms), not via chi (34.319 ms)"},
                     {"lon",
                      "fra",
                      "lon-island lon fra fra-island",
                      "lon->fra goes direct (5.532 ms), not via ams (5.963 ms)"}}),
                TestCase::QUICK);
    AddTestCase(new WanTopologyHelperProbeTestCase(referenceWan, true, 8000, {}), TestCase::QUICK);
    AddTestCase(new WanTopologyHelperProbeTestCase(
                    asymmetricWan,
                    false,
                    1400,
                    {{"a", "z", "a-island a b e z z-island", "a->z: tie broken by a b < a c"},
                     {"z", "a", "z-island z d c a a-island", "z->a: tie broken by z d < z e"}}),
                TestCase::QUICK);
}

/** The static instance that registers the suite. */
static WanTopologyHelperTestSuite g_wanTopologyHelperTestSuite;
