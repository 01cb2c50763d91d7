/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "clique-schedule.h"
#include "link-load-model.h"
#include "pim-multicast-helper.h"
#include "wan-input-error.h"
#include "wan-topology-helper.h"
#include "wan-topology.h"

#include "ns3/inet-socket-address.h"
#include "ns3/ipv4-header.h"
#include "ns3/ipv4-list-routing.h"
#include "ns3/ipv4-routing-table-entry.h"
#include "ns3/ipv4-static-routing-helper.h"
#include "ns3/ipv4-static-routing.h"
#include "ns3/ipv4.h"
#include "ns3/names.h"
#include "ns3/node.h"
#include "ns3/nstime.h"
#include "ns3/packet.h"
#include "ns3/ppp-header.h"
#include "ns3/simulator.h"
#include "ns3/socket.h"
#include "ns3/test.h"
#include "ns3/udp-header.h"
#include "ns3/udp-l4-protocol.h"
#include "ns3/udp-socket-factory.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

/**
 * @file
 * @ingroup wan-training-tests
 * PimMulticastHelper test suite: group allocation and range validation; on the nine-city
 * topology, packets sent to every source tree of a schedule with cliques of 2 to 9 islands,
 * counted on every device (MacTx) and every island socket against the union of WanTopology's
 * routes; multicast TTL; join delay, prune, and round joins and prunes.
 */

using namespace ns3;

namespace
{

/** The nine-city topology, relative to the test data directory. */
const std::string NINE_CITY = "../topologies/doublezero-nine-city.json";
/** UDP port of every island's socket. */
const uint16_t PORT = 9000;
/** UDP payload of a test packet: group (4 bytes), sequence number (4 bytes), padding. */
const uint32_t PROBE_BYTES = 100;

/**
 * A schedule whose cliques have 2 to 9 islands, with varied memberships:
 * sizes {3, 6}, {4, 5}, {7, 2}, {8} (chi idles), {9}, {3, 3, 3}.
 */
const std::string MIXED_SCHEDULE = R"({"rounds": [
  [["nyc", "lon", "sin"], ["chi", "lax", "ams", "fra", "prg", "tyo"]],
  [["chi", "ams", "prg", "sin"], ["nyc", "lax", "lon", "fra", "tyo"]],
  [["nyc", "chi", "lax", "lon", "fra", "prg", "tyo"], ["ams", "sin"]],
  [["nyc", "lax", "lon", "ams", "fra", "prg", "tyo", "sin"]],
  [["nyc", "chi", "lax", "lon", "ams", "fra", "prg", "tyo", "sin"]],
  [["lax", "fra", "tyo"], ["nyc", "ams", "prg"], ["chi", "lon", "sin"]]
]})";

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
 * @param ms a latency in ms
 * @return it as a Time
 */
Time
Ms(double ms)
{
    return Time::FromDouble(ms, Time::MS);
}

/**
 * @param topology a topology
 * @param d a directed link
 * @param wireBytes the bytes of a frame on it
 * @return the time from the start of its transmission to its arrival at the far end, in ms
 */
double
HopMs(const WanTopology& topology, uint32_t d, uint32_t wireBytes)
{
    return topology.GetDirectedLinkLatencyMs(d) +
           8.0 * wireBytes / (topology.GetDirectedLinkCapacityGbps(d) * 1e6);
}

/** The expected shape of a source tree, from WanTopology's routes alone. */
struct ExpectedTree
{
    std::vector<uint32_t> links;             //!< union of the routes' links, sorted
    std::vector<uint32_t> replicationPoints; //!< routers with more than one next link, sorted
    uint32_t requiredTtl{0};                 //!< most routers on a route, plus one
};

/**
 * @param topology a topology
 * @param source the source island
 * @param members the members (the source excluded)
 * @return the tree as the union of the routes source -> member
 */
ExpectedTree
ExpectTree(const WanTopology& topology, uint32_t source, const std::vector<uint32_t>& members)
{
    ExpectedTree tree;
    std::set<uint32_t> links;
    std::map<uint32_t, std::set<uint32_t>> next;
    for (uint32_t member : members)
    {
        const WanRoute& route = topology.GetRoute(source, member);
        links.insert(route.links.begin(), route.links.end());
        for (std::size_t p = 0; p < route.cities.size(); ++p)
        {
            next[route.cities[p]].insert(
                p + 1 < route.cities.size()
                    ? topology.GetWanDirectedLink(route.cities[p], route.cities[p + 1])
                    : topology.GetAccessDownLink(member));
        }
        tree.requiredTtl =
            std::max(tree.requiredTtl, static_cast<uint32_t>(route.cities.size()) + 1);
    }
    tree.links.assign(links.begin(), links.end());
    for (const auto& [router, out] : next)
    {
        if (out.size() > 1)
        {
            tree.replicationPoints.push_back(router);
        }
    }
    return tree;
}

/**
 * @param node a node
 * @param group a group
 * @return the node's multicast routes for the group
 */
std::vector<Ipv4MulticastRoutingTableEntry>
MulticastRoutes(Ptr<Node> node, Ipv4Address group)
{
    Ipv4StaticRoutingHelper helper;
    Ptr<Ipv4StaticRouting> routing = helper.GetStaticRouting(node->GetObject<Ipv4>());
    std::vector<Ipv4MulticastRoutingTableEntry> routes;
    for (uint32_t i = 0; i < routing->GetNMulticastRoutes(); ++i)
    {
        Ipv4MulticastRoutingTableEntry route = routing->GetMulticastRoute(i);
        if (route.GetGroup() == group)
        {
            routes.push_back(route);
        }
    }
    return routes;
}

/**
 * @param node a node
 * @param group a group
 * @return whether the node has a host route to the group
 */
bool
HasHostRoute(Ptr<Node> node, Ipv4Address group)
{
    Ipv4StaticRoutingHelper helper;
    Ptr<Ipv4StaticRouting> routing = helper.GetStaticRouting(node->GetObject<Ipv4>());
    for (uint32_t i = 0; i < routing->GetNRoutes(); ++i)
    {
        if (routing->GetRoute(i).IsHost() && routing->GetRoute(i).GetDest() == group)
        {
            return true;
        }
    }
    return false;
}

/**
 * @brief Sends test packets from island sockets and counts them on every directed link (MacTx
 * of WanTopologyHelper's Tx devices) and at every island socket.
 */
class MulticastObserver
{
  public:
    /**
     * @param scenario an installed scenario
     */
    explicit MulticastObserver(const WanTopologyHelper& scenario);

    /**
     * @brief Schedule a packet to a group.
     * @param island the sending island
     * @param group the group
     * @param seq the packet's sequence number
     * @param ttl the multicast TTL to send with
     * @param at the send time
     */
    void Send(uint32_t island, Ipv4Address group, uint32_t seq, uint8_t ttl, Time at);

    /**
     * @param d a directed link
     * @param group a group
     * @param seq a sequence number
     * @return how many times the packet crossed the link
     */
    uint32_t OnLink(uint32_t d, Ipv4Address group, uint32_t seq) const;
    /**
     * @param d a directed link
     * @param group a group
     * @return how many packets of the group crossed the link
     */
    uint32_t OnLink(uint32_t d, Ipv4Address group) const;
    /**
     * @param island an island
     * @param group a group
     * @param seq a sequence number
     * @return how many times the island's socket received the packet
     */
    uint32_t Received(uint32_t island, Ipv4Address group, uint32_t seq) const;
    /**
     * @param group a group
     * @return the routers that transmitted packets of the group on more than one device
     */
    std::vector<uint32_t> ReplicatingRouters(Ipv4Address group) const;
    /** @return transmissions that were not test packets (ICMP, ...) or were malformed */
    uint32_t GetStray() const;
    /** @return packets whose IPv4 source or UDP source was not their sender's */
    uint32_t GetWrongOrigin() const;
    /** @return sends the socket refused */
    uint32_t GetSendFailures() const;

  private:
    /**
     * @brief MacTx sink.
     * @param d the directed link of the device
     * @param packet the frame
     */
    void MacTx(uint32_t d, Ptr<const Packet> packet);
    /**
     * @brief Receive callback of an island's socket.
     * @param island the island
     * @param socket its socket
     */
    void Receive(uint32_t island, Ptr<Socket> socket);
    /**
     * @brief Send a packet now.
     * @param island the sending island
     * @param group the group
     * @param seq the sequence number
     * @param ttl the multicast TTL
     */
    void DoSend(uint32_t island, Ipv4Address group, uint32_t seq, uint8_t ttl);
    /**
     * @param packet a payload
     * @param group where to store the group it names
     * @param seq where to store its sequence number
     * @return whether it is a test payload
     */
    static bool Parse(Ptr<const Packet> packet, Ipv4Address& group, uint32_t& seq);

    /** A packet: group address, sequence number. */
    using Key = std::pair<uint32_t, uint32_t>;

    std::vector<Ptr<Socket>> m_sockets;                   //!< socket per island
    std::vector<Ipv4Address> m_addresses;                 //!< address per island
    std::vector<uint32_t> m_txRouter;                     //!< router city of a Tx device, or NONE
    std::map<uint32_t, Ipv4Address> m_origin;             //!< group -> its sender's address
    std::map<std::tuple<uint32_t, Key>, uint32_t> m_link; //!< (link, packet) -> crossings
    std::map<std::tuple<uint32_t, Key>, uint32_t> m_rx;   //!< (island, packet) -> receptions
    uint32_t m_stray{0};                                  //!< non-test transmissions
    uint32_t m_wrongOrigin{0};                            //!< packets with a wrong source
    uint32_t m_sendFailures{0};                           //!< refused sends
};

MulticastObserver::MulticastObserver(const WanTopologyHelper& scenario)
{
    const WanTopology& topology = scenario.GetTopology();
    for (uint32_t i = 0; i < topology.GetNCities(); ++i)
    {
        Ptr<Socket> socket =
            Socket::CreateSocket(scenario.GetIsland(i), UdpSocketFactory::GetTypeId());
        socket->Bind(InetSocketAddress(Ipv4Address::GetAny(), PORT));
        socket->SetRecvCallback(MakeCallback(&MulticastObserver::Receive, this, i));
        m_sockets.push_back(socket);
        m_addresses.push_back(scenario.GetIslandAddress(i));
    }
    for (uint32_t d = 0; d < topology.GetNDirectedLinks(); ++d)
    {
        uint32_t router = UINT32_MAX;
        for (uint32_t i = 0; i < topology.GetNCities(); ++i)
        {
            if (scenario.GetTxDevice(d)->GetNode() == scenario.GetRouter(i))
            {
                router = i;
            }
        }
        m_txRouter.push_back(router);
        scenario.GetTxDevice(d)->TraceConnectWithoutContext(
            "MacTx",
            MakeCallback(&MulticastObserver::MacTx, this, d));
    }
}

void
MulticastObserver::Send(uint32_t island, Ipv4Address group, uint32_t seq, uint8_t ttl, Time at)
{
    m_origin[group.Get()] = m_addresses[island];
    Simulator::Schedule(at - Simulator::Now(),
                        &MulticastObserver::DoSend,
                        this,
                        island,
                        group,
                        seq,
                        ttl);
}

void
MulticastObserver::DoSend(uint32_t island, Ipv4Address group, uint32_t seq, uint8_t ttl)
{
    uint8_t buffer[PROBE_BYTES] = {};
    uint32_t fields[2] = {group.Get(), seq};
    for (uint32_t f = 0; f < 2; ++f)
    {
        for (uint32_t b = 0; b < 4; ++b)
        {
            buffer[4 * f + b] = static_cast<uint8_t>(fields[f] >> (24 - 8 * b));
        }
    }
    m_sockets[island]->SetAttribute("IpMulticastTtl", UintegerValue(ttl));
    int sent = m_sockets[island]->SendTo(Create<Packet>(buffer, PROBE_BYTES),
                                         0,
                                         InetSocketAddress(group, PORT));
    m_sendFailures += sent == static_cast<int>(PROBE_BYTES) ? 0 : 1;
}

bool
MulticastObserver::Parse(Ptr<const Packet> packet, Ipv4Address& group, uint32_t& seq)
{
    if (packet->GetSize() != PROBE_BYTES)
    {
        return false;
    }
    uint8_t buffer[8];
    packet->CopyData(buffer, 8);
    uint32_t fields[2] = {0, 0};
    for (uint32_t f = 0; f < 2; ++f)
    {
        for (uint32_t b = 0; b < 4; ++b)
        {
            fields[f] = (fields[f] << 8) | buffer[4 * f + b];
        }
    }
    group = Ipv4Address(fields[0]);
    seq = fields[1];
    return true;
}

void
MulticastObserver::MacTx(uint32_t d, Ptr<const Packet> packet)
{
    Ptr<Packet> copy = packet->Copy();
    PppHeader ppp;
    Ipv4Header ip;
    UdpHeader udp;
    Ipv4Address group;
    uint32_t seq;
    if (!copy->RemoveHeader(ppp) || ppp.GetProtocol() != 0x0021 || !copy->RemoveHeader(ip) ||
        ip.GetProtocol() != UdpL4Protocol::PROT_NUMBER || !copy->RemoveHeader(udp) ||
        !Parse(copy, group, seq) || ip.GetDestination() != group)
    {
        ++m_stray;
        return;
    }
    auto origin = m_origin.find(group.Get());
    if (origin == m_origin.end() || origin->second != ip.GetSource() ||
        udp.GetSourcePort() != PORT || udp.GetDestinationPort() != PORT)
    {
        ++m_wrongOrigin;
    }
    ++m_link[{d, {group.Get(), seq}}];
}

void
MulticastObserver::Receive(uint32_t island, Ptr<Socket> socket)
{
    Address from;
    while (Ptr<Packet> packet = socket->RecvFrom(from))
    {
        Ipv4Address group;
        uint32_t seq;
        if (!Parse(packet, group, seq))
        {
            ++m_stray;
            continue;
        }
        auto origin = m_origin.find(group.Get());
        if (origin == m_origin.end() ||
            InetSocketAddress::ConvertFrom(from).GetIpv4() != origin->second)
        {
            ++m_wrongOrigin;
        }
        ++m_rx[{island, {group.Get(), seq}}];
    }
}

uint32_t
MulticastObserver::OnLink(uint32_t d, Ipv4Address group, uint32_t seq) const
{
    auto it = m_link.find({d, {group.Get(), seq}});
    return it == m_link.end() ? 0 : it->second;
}

uint32_t
MulticastObserver::OnLink(uint32_t d, Ipv4Address group) const
{
    uint32_t count = 0;
    for (const auto& [key, crossings] : m_link)
    {
        if (std::get<0>(key) == d && std::get<1>(key).first == group.Get())
        {
            count += crossings;
        }
    }
    return count;
}

uint32_t
MulticastObserver::Received(uint32_t island, Ipv4Address group, uint32_t seq) const
{
    auto it = m_rx.find({island, {group.Get(), seq}});
    return it == m_rx.end() ? 0 : it->second;
}

std::vector<uint32_t>
MulticastObserver::ReplicatingRouters(Ipv4Address group) const
{
    std::map<uint32_t, std::set<uint32_t>> devices;
    for (const auto& [key, crossings] : m_link)
    {
        uint32_t d = std::get<0>(key);
        if (std::get<1>(key).first == group.Get() && m_txRouter[d] != UINT32_MAX)
        {
            devices[m_txRouter[d]].insert(d);
        }
    }
    std::vector<uint32_t> routers;
    for (const auto& [router, links] : devices)
    {
        if (links.size() > 1)
        {
            routers.push_back(router);
        }
    }
    return routers;
}

uint32_t
MulticastObserver::GetStray() const
{
    return m_stray;
}

uint32_t
MulticastObserver::GetWrongOrigin() const
{
    return m_wrongOrigin;
}

uint32_t
MulticastObserver::GetSendFailures() const
{
    return m_sendFailures;
}

/**
 * @param cities city indices
 * @param topology the topology
 * @return their ids, bracketed
 */
std::string
Describe(const std::vector<uint32_t>& cities, const WanTopology& topology)
{
    std::string text;
    for (uint32_t c : cities)
    {
        text += (text.empty() ? "" : " ") + topology.GetCity(c).id;
    }
    return "[" + text + "]";
}

} // namespace

/**
 * @ingroup wan-training-tests
 * @brief Group allocation (the documented mapping) and validation of the group range.
 */
class PimMulticastGroupTestCase : public TestCase
{
  public:
    PimMulticastGroupTestCase();

  private:
    void DoRun() override;
    /**
     * @brief Expect SetGroupRange(range) to throw a WanInputError on the group range.
     * @param range the range text
     * @param words a fragment the reason must contain
     */
    void ExpectBadRange(const std::string& range, const std::string& words);
};

PimMulticastGroupTestCase::PimMulticastGroupTestCase()
    : TestCase("group allocation per (round, clique, source) and group range validation")
{
}

void
PimMulticastGroupTestCase::ExpectBadRange(const std::string& range, const std::string& words)
{
    WanTopology topology = WanTopology::LoadFile(CreateDataDirFilename(NINE_CITY));
    WanTopologyHelper scenario(topology);
    scenario.Install();
    PimMulticastHelper pim(scenario);
    bool thrown = false;
    try
    {
        pim.SetGroupRange(range);
    }
    catch (const WanInputError& error)
    {
        thrown = true;
        NS_TEST_EXPECT_MSG_EQ(error.GetFile(), "<group-range>", range << ": error source");
        NS_TEST_EXPECT_MSG_EQ(error.GetPath(), "groupRange", range << ": error path");
        NS_TEST_EXPECT_MSG_NE(error.GetReason().find(words),
                              std::string::npos,
                              range << ": reason '" << error.GetReason() << "' lacks '" << words
                                    << "'");
    }
    NS_TEST_EXPECT_MSG_EQ(thrown, true, range << " must be rejected");
    NS_TEST_EXPECT_MSG_EQ(pim.GetGroupNetwork(),
                          Ipv4Address("232.1.0.0"),
                          range << ": a rejected range leaves the range unchanged");
    EndSimulation();
}

void
PimMulticastGroupTestCase::DoRun()
{
    WanTopology topology = WanTopology::LoadFile(CreateDataDirFilename(NINE_CITY));
    const uint32_t n = topology.GetNCities();
    {
        WanTopologyHelper scenario(topology);
        scenario.Install();
        PimMulticastHelper pim(scenario);

        // The default range and the documented mapping network + (round x N + clique) x N + source.
        NS_TEST_EXPECT_MSG_EQ(pim.GetGroupNetwork(), Ipv4Address("232.1.0.0"), "default network");
        NS_TEST_EXPECT_MSG_EQ(pim.GetGroupMask(), Ipv4Mask("255.255.0.0"), "default mask");
        NS_TEST_EXPECT_MSG_EQ(pim.GetGroupRangeSize(), 65536, "a /16 holds 65536 groups");
        std::set<Ipv4Address> groups;
        for (uint32_t r = 0; r < 4; ++r)
        {
            for (uint32_t c = 0; c < n; ++c)
            {
                for (uint32_t s = 0; s < n; ++s)
                {
                    Ipv4Address group = pim.GetGroup(r, c, s);
                    NS_TEST_EXPECT_MSG_EQ(group,
                                          Ipv4Address(0xE8010000 + (r * 9 + c) * 9 + s),
                                          "group of (" << r << ", " << c << ", " << s << ")");
                    NS_TEST_EXPECT_MSG_EQ(group.IsMulticast(), true, "a multicast address");
                    groups.insert(group);
                }
            }
        }
        NS_TEST_EXPECT_MSG_EQ(groups.size(), 4 * n * n, "distinct groups");
        NS_TEST_EXPECT_MSG_EQ(pim.GetGroup(2, 1, 3), Ipv4Address("232.1.0.174"), "(2, 1, 3)");

        // Another valid range: the organisation-local scope 239.192.0.0/14.
        pim.SetGroupRange("239.192.0.0/14");
        NS_TEST_EXPECT_MSG_EQ(pim.GetGroupRangeSize(), 262144, "a /14 holds 2^18 groups");
        NS_TEST_EXPECT_MSG_EQ(pim.GetGroup(2, 1, 3), Ipv4Address("239.192.0.174"), "(2, 1, 3)");
        pim.SetGroupRange(Ipv4Address("232.7.0.0"), Ipv4Mask("/16"));
        NS_TEST_EXPECT_MSG_EQ(pim.GetGroup(0, 0, 8), Ipv4Address("232.7.0.8"), "(0, 0, 8)");

        // A range too small for a schedule: 16 groups; Latin triples need indices up to 107.
        pim.SetGroupRange("232.1.0.0/28");
        NS_TEST_EXPECT_MSG_EQ(pim.GetGroup(0, 1, 6), Ipv4Address("232.1.0.15"), "last group");
        bool thrown = false;
        try
        {
            pim.GetGroup(0, 1, 7);
        }
        catch (const WanInputError& error)
        {
            thrown = error.GetReason().find("holds 16 groups") != std::string::npos;
        }
        NS_TEST_EXPECT_MSG_EQ(thrown, true, "group index 16 of a /28 is rejected");
        thrown = false;
        try
        {
            pim.InstallSchedule(CliqueSchedule::LatinTriples(n));
        }
        catch (const WanInputError& error)
        {
            thrown = error.GetPath() == "groupRange";
        }
        NS_TEST_EXPECT_MSG_EQ(thrown, true, "a schedule that does not fit is rejected");
        NS_TEST_EXPECT_MSG_EQ(pim.GetTrees().size(), 0, "nothing installed after the error");
        for (uint32_t i = 0; i < n; ++i)
        {
            Ipv4StaticRoutingHelper helper;
            NS_TEST_EXPECT_MSG_EQ(helper.GetStaticRouting(scenario.GetRouter(i)->GetObject<Ipv4>())
                                      ->GetNMulticastRoutes(),
                                  0,
                                  "no multicast route on " << topology.GetCity(i).id
                                                           << " after the error");
        }
        EndSimulation();
    }

    ExpectBadRange("10.0.0.0/8", "not a multicast range");
    ExpectBadRange("240.0.0.0/4", "not a multicast range");
    ExpectBadRange("0.0.0.0/0", "not a multicast range");
    ExpectBadRange("224.0.0.0/3", "not a multicast range");
    ExpectBadRange("224.0.0.0/4", "link-local");
    ExpectBadRange("224.0.0.0/24", "link-local");
    ExpectBadRange("224.0.0.128/25", "link-local");
    ExpectBadRange("232.1.0.1/16", "not a network");
    ExpectBadRange("232.1.0.0", "no '/P'");
    ExpectBadRange("232.1.0.0/33", "prefix length");
    ExpectBadRange("232.1.0.0/x", "prefix length");
    ExpectBadRange("232.1.0/16", "four dotted parts");
    ExpectBadRange("232.1.0.0.0/16", "four dotted parts");
    ExpectBadRange("232.1.0.256/24", "[0, 255]");
    ExpectBadRange("232.-1.0.0/16", "[0, 255]");
}

/**
 * @ingroup wan-training-tests
 * @brief Every source of a schedule with cliques of 2 to 9 islands sends packets to its group:
 * counted on every directed link and at every island against the union of the routes.
 */
class PimMulticastTreesTestCase : public TestCase
{
  public:
    PimMulticastTreesTestCase();

  private:
    void DoRun() override;
};

PimMulticastTreesTestCase::PimMulticastTreesTestCase()
    : TestCase("every source tree of cliques of 2..9 islands carries each packet once per link")
{
}

void
PimMulticastTreesTestCase::DoRun()
{
    WanTopology topology = WanTopology::LoadFile(CreateDataDirFilename(NINE_CITY));
    const uint32_t n = topology.GetNCities();
    CliqueSchedule schedule = CliqueSchedule::Parse(MIXED_SCHEDULE, "mixed-schedule", topology);
    WanTopologyHelper scenario(topology);
    scenario.Install();
    PimMulticastHelper pim(scenario);
    pim.InstallSchedule(schedule);
    MulticastObserver observer(scenario);
    LinkLoadModel model(topology);

    const uint32_t packets = 3;
    std::set<uint32_t> sizes;
    uint32_t nTrees = 0;
    for (uint32_t r = 0; r < schedule.GetNRounds(); ++r)
    {
        const CliqueSchedule::Round& round = schedule.GetRound(r);
        for (uint32_t c = 0; c < round.size(); ++c)
        {
            sizes.insert(round[c].size());
            for (uint32_t source : round[c])
            {
                Ipv4Address group = pim.GetGroup(r, c, source);
                for (uint32_t k = 0; k < packets; ++k)
                {
                    observer.Send(source,
                                  group,
                                  k,
                                  pim.GetMulticastTtl(),
                                  Seconds(1 + r) + MilliSeconds(10 * k) + MicroSeconds(source));
                }
                ++nTrees;
            }
        }
    }
    NS_TEST_EXPECT_MSG_EQ(*sizes.begin(), 2, "the schedule has pairs");
    NS_TEST_EXPECT_MSG_EQ(*sizes.rbegin(), 9, "the schedule has a clique of every island");
    NS_TEST_EXPECT_MSG_EQ(sizes.size(), 8, "the schedule has every size from 2 to 9");
    NS_TEST_EXPECT_MSG_EQ(pim.GetTrees().size(), nTrees, "one tree per source of every clique");
    Simulator::Stop(Seconds(2 + schedule.GetNRounds()));
    Simulator::Run();

    NS_TEST_EXPECT_MSG_EQ(observer.GetSendFailures(), 0, "every send accepted");
    NS_TEST_EXPECT_MSG_EQ(observer.GetStray(), 0, "no other packet on any link (no ICMP)");
    NS_TEST_EXPECT_MSG_EQ(observer.GetWrongOrigin(), 0, "every packet from its source");

    for (uint32_t r = 0; r < schedule.GetNRounds(); ++r)
    {
        const CliqueSchedule::Round& round = schedule.GetRound(r);
        for (uint32_t c = 0; c < round.size(); ++c)
        {
            for (uint32_t source : round[c])
            {
                std::vector<uint32_t> members;
                for (uint32_t j : round[c])
                {
                    if (j != source)
                    {
                        members.push_back(j);
                    }
                }
                std::sort(members.begin(), members.end());
                const std::string name = "round " + std::to_string(r) + " source " +
                                         topology.GetCity(source).id + " to " +
                                         Describe(members, topology);
                ExpectedTree expected = ExpectTree(topology, source, members);
                PimMulticastHelper::SourceTree tree = pim.GetTree(r, c, source);
                Ipv4Address group = pim.GetGroup(r, c, source);

                NS_TEST_EXPECT_MSG_EQ(tree.group, group, name << ": group");
                NS_TEST_EXPECT_MSG_EQ(tree.source, source, name << ": source");
                NS_TEST_EXPECT_MSG_EQ(tree.origin,
                                      scenario.GetIslandAddress(source),
                                      name << ": origin");
                NS_TEST_EXPECT_MSG_EQ((tree.round == r && tree.clique == c),
                                      true,
                                      name << ": round and clique");
                NS_TEST_EXPECT_MSG_EQ((tree.members == members), true, name << ": members");
                NS_TEST_EXPECT_MSG_EQ((tree.links == expected.links),
                                      true,
                                      name << ": links are the union of the routes");
                NS_TEST_EXPECT_MSG_EQ((tree.links == model.GetSourceTree(source, round[c])),
                                      true,
                                      name << ": links are LinkLoadModel's source tree");
                NS_TEST_EXPECT_MSG_EQ(tree.linkNames.size(), tree.links.size(), name);
                for (std::size_t k = 0; k < tree.links.size() && k < tree.linkNames.size(); ++k)
                {
                    NS_TEST_EXPECT_MSG_EQ(tree.linkNames[k],
                                          topology.GetDirectedLinkName(tree.links[k]),
                                          name << ": link name");
                }
                NS_TEST_EXPECT_MSG_EQ(Describe(tree.replicationPoints, topology),
                                      Describe(expected.replicationPoints, topology),
                                      name << ": replication points");
                NS_TEST_EXPECT_MSG_EQ(Describe(observer.ReplicatingRouters(group), topology),
                                      Describe(expected.replicationPoints, topology),
                                      name << ": routers seen replicating");
                NS_TEST_EXPECT_MSG_EQ(tree.requiredTtl, expected.requiredTtl, name << ": TTL");
                NS_TEST_EXPECT_MSG_EQ((tree.requiredTtl <= pim.GetMulticastTtl()),
                                      true,
                                      name << ": GetMulticastTtl() covers the tree");

                // Every link of the tree carries each packet exactly once, no other link any.
                std::set<uint32_t> inTree(expected.links.begin(), expected.links.end());
                for (uint32_t d = 0; d < topology.GetNDirectedLinks(); ++d)
                {
                    for (uint32_t k = 0; k < packets; ++k)
                    {
                        NS_TEST_EXPECT_MSG_EQ(observer.OnLink(d, group, k),
                                              inTree.count(d),
                                              name << ": packet " << k << " on "
                                                   << topology.GetDirectedLinkName(d));
                    }
                }
                NS_TEST_EXPECT_MSG_EQ(observer.OnLink(topology.GetAccessUpLink(source), group),
                                      packets,
                                      name << ": the source's up link carries each packet once");

                // Every member receives each packet once; nobody else receives any.
                for (uint32_t i = 0; i < n; ++i)
                {
                    bool member = std::binary_search(members.begin(), members.end(), i);
                    for (uint32_t k = 0; k < packets; ++k)
                    {
                        NS_TEST_EXPECT_MSG_EQ(observer.Received(i, group, k),
                                              member ? 1 : 0,
                                              name << ": packet " << k << " at island "
                                                   << topology.GetCity(i).id);
                    }
                }
            }
        }
    }
    EndSimulation();
}

/**
 * @ingroup wan-training-tests
 * @brief The multicast TTL: one less than the tree's required TTL misses exactly the members
 * behind the most routers, the required TTL reaches everyone; no ICMP either way.
 */
class PimMulticastTtlTestCase : public TestCase
{
  public:
    PimMulticastTtlTestCase();

  private:
    void DoRun() override;
};

PimMulticastTtlTestCase::PimMulticastTtlTestCase()
    : TestCase("multicast TTL: routers on the longest path + 1, expiry is silent")
{
}

void
PimMulticastTtlTestCase::DoRun()
{
    WanTopology topology = WanTopology::LoadFile(CreateDataDirFilename(NINE_CITY));
    const uint32_t n = topology.GetNCities();
    WanTopologyHelper scenario(topology);
    scenario.Install();
    PimMulticastHelper pim(scenario);
    pim.InstallSchedule(CliqueSchedule::AllReduce(n));
    MulticastObserver observer(scenario);

    uint32_t longest = 0;
    for (uint32_t s = 0; s < n; ++s)
    {
        for (uint32_t j = 0; j < n; ++j)
        {
            if (s != j)
            {
                longest =
                    std::max(longest, static_cast<uint32_t>(topology.GetRoute(s, j).cities.size()));
            }
        }
    }
    NS_TEST_EXPECT_MSG_EQ(uint32_t{pim.GetMulticastTtl()}, longest + 1, "GetMulticastTtl()");

    const uint32_t source = topology.GetCityIndex("nyc");
    PimMulticastHelper::SourceTree tree = pim.GetTree(0, 0, source);
    const uint32_t ttls[3] = {tree.requiredTtl - 1, tree.requiredTtl, pim.GetMulticastTtl()};
    for (uint32_t k = 0; k < 3; ++k)
    {
        observer.Send(source, tree.group, k, static_cast<uint8_t>(ttls[k]), Seconds(1 + k));
    }
    Simulator::Stop(Seconds(5));
    Simulator::Run();

    NS_TEST_EXPECT_MSG_EQ(observer.GetStray(), 0, "no ICMP when the TTL runs out");
    uint32_t missed = 0;
    for (uint32_t j = 0; j < n; ++j)
    {
        if (j == source)
        {
            continue;
        }
        uint32_t routers = topology.GetRoute(source, j).cities.size();
        for (uint32_t k = 0; k < 3; ++k)
        {
            bool reaches = routers + 1 <= ttls[k];
            missed += reaches ? 0 : 1;
            NS_TEST_EXPECT_MSG_EQ(observer.Received(j, tree.group, k),
                                  reaches ? 1 : 0,
                                  "TTL " << ttls[k] << " to " << topology.GetCity(j).id
                                         << " behind " << routers << " routers");
        }
    }
    NS_TEST_EXPECT_MSG_GT(missed, 0, "a TTL one short misses the farthest members");
    EndSimulation();
}

/**
 * @ingroup wan-training-tests
 * @brief A join takes effect one new-branch latency after it is sent (or at once with the
 * delay off): packets that reach the graft router earlier do not reach the new member, later
 * ones do.
 */
class PimMulticastJoinTestCase : public TestCase
{
  public:
    /**
     * @param joinDelay whether joins are delayed
     */
    explicit PimMulticastJoinTestCase(bool joinDelay);

  private:
    void DoRun() override;
    /**
     * @brief Record the members of the tree now.
     * @param pim the helper
     * @param source the source
     * @param slot where to store the member count
     */
    void Snapshot(PimMulticastHelper pim, uint32_t source, uint32_t* slot);

    bool m_joinDelay;     //!< whether joins are delayed
    uint32_t m_before{0}; //!< members just before the join takes effect
    uint32_t m_after{0};  //!< members just after
};

PimMulticastJoinTestCase::PimMulticastJoinTestCase(bool joinDelay)
    : TestCase(std::string("join ") + (joinDelay ? "after the new branch's latency" : "at once") +
               ": earlier packets miss the new member, later ones reach it"),
      m_joinDelay(joinDelay)
{
}

void
PimMulticastJoinTestCase::Snapshot(PimMulticastHelper pim, uint32_t source, uint32_t* slot)
{
    *slot = pim.GetTree(0, 0, source).members.size();
}

void
PimMulticastJoinTestCase::DoRun()
{
    WanTopology topology = WanTopology::LoadFile(CreateDataDirFilename(NINE_CITY));
    WanTopologyHelper scenario(topology);
    scenario.Install();
    PimMulticastHelper pim(scenario);
    pim.SetJoinDelayEnabled(m_joinDelay);
    NS_TEST_EXPECT_MSG_EQ(pim.IsJoinDelayEnabled(), m_joinDelay, "setter");
    MulticastObserver observer(scenario);

    // nyc's tree reaches lon first; prg joins later: its route nyc lon fra prg grafts at lon.
    const uint32_t s = topology.GetCityIndex("nyc");
    const uint32_t a = topology.GetCityIndex("lon");
    const uint32_t b = topology.GetCityIndex("prg");
    const WanRoute& toA = topology.GetRoute(s, a);
    const WanRoute& toB = topology.GetRoute(s, b);
    std::set<uint32_t> treeA(toA.links.begin(), toA.links.end());
    // The graft router is the last city of route(s, b) that route(s, a) also crosses; the new
    // branch is the rest of route(s, b).
    std::size_t graft = 0;
    for (std::size_t p = 0; p < toB.cities.size(); ++p)
    {
        if (std::find(toA.cities.begin(), toA.cities.end(), toB.cities[p]) != toA.cities.end())
        {
            graft = p;
        }
    }
    NS_TEST_EXPECT_MSG_EQ(topology.GetCity(toB.cities[graft]).id, "lon", "graft router");
    double branchMs = 0;
    std::vector<uint32_t> branch;
    for (std::size_t p = graft + 1; p < toB.links.size(); ++p)
    {
        branch.push_back(toB.links[p]);
        if (!topology.IsAccessLink(toB.links[p]))
        {
            branchMs += topology.GetDirectedLinkLatencyMs(toB.links[p]);
        }
    }
    const double delayMs = m_joinDelay ? branchMs : 0;
    NS_TEST_EXPECT_MSG_GT(branchMs, 5.0, "the new branch lon fra prg is several ms long");

    const Time joinA = Seconds(0);
    const Time joinB = Seconds(1);
    pim.Join(0, 0, s, a, joinA);
    pim.Join(0, 0, s, b, joinB);
    const Time effective = joinB + Ms(delayMs);
    Simulator::Schedule(effective - NanoSeconds(1),
                        &PimMulticastJoinTestCase::Snapshot,
                        this,
                        pim,
                        s,
                        &m_before);
    Simulator::Schedule(effective + NanoSeconds(1),
                        &PimMulticastJoinTestCase::Snapshot,
                        this,
                        pim,
                        s,
                        &m_after);

    // One packet per 0.25 ms from 60 ms before the join to 60 ms after it takes effect.
    const Ipv4Address group = pim.GetGroup(0, 0, s);
    const uint32_t wireBytes = PROBE_BYTES + 8 + 20 + 2;
    double toGraftMs = 0;
    for (std::size_t p = 0; p <= graft; ++p)
    {
        toGraftMs += HopMs(topology, toB.links[p], wireBytes);
    }
    std::vector<Time> sendTimes;
    for (Time t = joinB - MilliSeconds(60); t < effective + MilliSeconds(60);
         t += MicroSeconds(250))
    {
        observer.Send(s, group, sendTimes.size(), pim.GetMulticastTtl(), t);
        sendTimes.push_back(t);
    }
    Simulator::Stop(effective + Seconds(1));
    Simulator::Run();

    NS_TEST_EXPECT_MSG_EQ(m_before, 1, "before the join takes effect: lon only");
    NS_TEST_EXPECT_MSG_EQ(m_after, 2, "after: lon and prg");
    NS_TEST_EXPECT_MSG_EQ(observer.GetStray(), 0, "no other packet on any link");
    uint32_t reached = 0;
    uint32_t missedAfterJoinSent = 0;
    for (uint32_t k = 0; k < sendTimes.size(); ++k)
    {
        // The packet reaches lon at this time; lon forwards it toward prg iff the join has
        // taken effect by then.
        Time atGraft = sendTimes[k] + Ms(toGraftMs);
        NS_TEST_EXPECT_MSG_EQ(observer.Received(a, group, k), 1, "lon receives packet " << k);
        if (atGraft > effective - MicroSeconds(20) && atGraft < effective + MicroSeconds(20))
        {
            continue;
        }
        bool expected = atGraft >= effective;
        reached += expected ? 1 : 0;
        missedAfterJoinSent += (!expected && atGraft >= joinB) ? 1 : 0;
        NS_TEST_EXPECT_MSG_EQ(observer.Received(b, group, k),
                              expected ? 1 : 0,
                              "prg and packet " << k << " at lon "
                                                << (atGraft - effective).As(Time::MS)
                                                << " after the join took effect");
        for (uint32_t d : branch)
        {
            NS_TEST_EXPECT_MSG_EQ(observer.OnLink(d, group, k),
                                  expected ? 1 : 0,
                                  "packet " << k << " on " << topology.GetDirectedLinkName(d));
        }
    }
    NS_TEST_EXPECT_MSG_GT(reached, 100, "prg receives the later packets");
    if (m_joinDelay)
    {
        NS_TEST_EXPECT_MSG_GT(missedAfterJoinSent,
                              10,
                              "packets at lon after the join was sent, before it arrived, miss");
    }
    EndSimulation();
}

/**
 * @ingroup wan-training-tests
 * @brief A prune removes the member's branch at once; pruning the last member removes every
 * route of the group, the source island's included.
 */
class PimMulticastPruneTestCase : public TestCase
{
  public:
    PimMulticastPruneTestCase();

  private:
    void DoRun() override;
    /**
     * @brief Check the routes just after the first prune.
     * @param scenario the scenario
     * @param pim the helper
     */
    void AfterFirstPrune(const WanTopologyHelper* scenario, PimMulticastHelper pim);
};

PimMulticastPruneTestCase::PimMulticastPruneTestCase()
    : TestCase("prune removes the branch's routes; pruning every member removes the tree")
{
}

void
PimMulticastPruneTestCase::AfterFirstPrune(const WanTopologyHelper* scenario,
                                           PimMulticastHelper pim)
{
    const WanTopology& topology = scenario->GetTopology();
    const uint32_t s = topology.GetCityIndex("nyc");
    const uint32_t a = topology.GetCityIndex("lon");
    PimMulticastHelper::SourceTree tree = pim.GetTree(0, 0, s);
    NS_TEST_EXPECT_MSG_EQ(Describe(tree.members, topology), "[lon]", "members after the prune");
    std::vector<uint32_t> route = topology.GetRoute(s, a).links;
    std::sort(route.begin(), route.end());
    NS_TEST_EXPECT_MSG_EQ((tree.links == route), true, "the tree is route nyc -> lon");
    for (const char* id : {"fra", "prg"})
    {
        NS_TEST_EXPECT_MSG_EQ(
            MulticastRoutes(scenario->GetRouter(topology.GetCityIndex(id)), tree.group).size(),
            0,
            "no route left on " << id);
    }
    std::vector<Ipv4MulticastRoutingTableEntry> lon =
        MulticastRoutes(scenario->GetRouter(a), tree.group);
    NS_TEST_EXPECT_MSG_EQ(lon.size(), 1, "one route on lon");
    if (lon.size() == 1)
    {
        NS_TEST_EXPECT_MSG_EQ(lon[0].GetNOutputInterfaces(), 1, "lon forwards to its island only");
        NS_TEST_EXPECT_MSG_EQ(lon[0].GetOutputInterface(0),
                              scenario->GetTxInterface(topology.GetAccessDownLink(a)),
                              "lon's output is lon:down");
        NS_TEST_EXPECT_MSG_EQ(lon[0].GetInputInterface(),
                              scenario->GetRxInterface(topology.GetWanDirectedLink(s, a)),
                              "lon's input is nyc->lon");
    }
}

void
PimMulticastPruneTestCase::DoRun()
{
    WanTopology topology = WanTopology::LoadFile(CreateDataDirFilename(NINE_CITY));
    const uint32_t n = topology.GetNCities();
    WanTopologyHelper scenario(topology);
    scenario.Install();
    PimMulticastHelper pim(scenario);
    pim.SetJoinDelayEnabled(false);
    MulticastObserver observer(scenario);

    const uint32_t s = topology.GetCityIndex("nyc");
    const uint32_t a = topology.GetCityIndex("lon");
    const uint32_t b = topology.GetCityIndex("prg");
    pim.Join(0, 0, s, a, Seconds(0));
    pim.Join(0, 0, s, b, Seconds(0));
    const Time pruneB = Seconds(1);
    const Time pruneA = Seconds(2);
    pim.Prune(0, 0, s, b, pruneB);
    pim.Prune(0, 0, s, a, pruneA);
    Simulator::Schedule(pruneB + NanoSeconds(1),
                        &PimMulticastPruneTestCase::AfterFirstPrune,
                        this,
                        &scenario,
                        pim);

    const Ipv4Address group = pim.GetGroup(0, 0, s);
    const WanRoute& toB = topology.GetRoute(s, b);
    const uint32_t wireBytes = PROBE_BYTES + 8 + 20 + 2;
    // atCityMs[p]: when a packet reaches router toB.cities[p], after links 0..p of route(s, b).
    std::vector<double> atCityMs;
    double ms = 0;
    for (std::size_t p = 0; p < toB.cities.size(); ++p)
    {
        ms += HopMs(topology, toB.links[p], wireBytes);
        atCityMs.push_back(ms);
    }
    std::vector<Time> sendTimes;
    for (Time t = pruneB - MilliSeconds(100); t < pruneB + MilliSeconds(40); t += MicroSeconds(250))
    {
        observer.Send(s, group, sendTimes.size(), pim.GetMulticastTtl(), t);
        sendTimes.push_back(t);
    }
    const uint32_t late = sendTimes.size();
    observer.Send(s, group, late, pim.GetMulticastTtl(), pruneA + MilliSeconds(50));
    Simulator::Stop(pruneA + Seconds(1));
    Simulator::Run();

    // The prune removes the branch's routes on every router at once: a packet crosses a link of
    // the branch (lon->fra, fra->prg, prg:down) iff it reached the link's router before the
    // prune; one in flight on the branch is dropped by the next router.
    NS_TEST_EXPECT_MSG_EQ(observer.GetStray(), 0, "no other packet on any link");
    uint32_t reached = 0;
    uint32_t missed = 0;
    for (uint32_t k = 0; k < late; ++k)
    {
        NS_TEST_EXPECT_MSG_EQ(observer.Received(a, group, k), 1, "lon receives packet " << k);
        for (std::size_t p = 2; p < toB.links.size(); ++p)
        {
            Time atRouter = sendTimes[k] + Ms(atCityMs[p - 1]);
            if (atRouter > pruneB - MicroSeconds(20) && atRouter < pruneB + MicroSeconds(20))
            {
                continue;
            }
            bool expected = atRouter < pruneB;
            NS_TEST_EXPECT_MSG_EQ(observer.OnLink(toB.links[p], group, k),
                                  expected ? 1 : 0,
                                  "packet "
                                      << k << " on " << topology.GetDirectedLinkName(toB.links[p])
                                      << ", at its router " << (atRouter - pruneB).As(Time::MS)
                                      << " after the prune");
            if (p + 1 == toB.links.size())
            {
                reached += expected ? 1 : 0;
                missed += expected ? 0 : 1;
                NS_TEST_EXPECT_MSG_EQ(observer.Received(b, group, k),
                                      expected ? 1 : 0,
                                      "prg and packet " << k);
            }
        }
    }
    NS_TEST_EXPECT_MSG_GT(reached, 10, "packets through before the prune reach prg");
    NS_TEST_EXPECT_MSG_GT(missed, 100, "packets after the prune do not");

    // After the last prune: no route anywhere; the late packet only crosses nyc:up (the island's
    // default route) and is dropped by nyc's router.
    for (uint32_t i = 0; i < n; ++i)
    {
        NS_TEST_EXPECT_MSG_EQ(MulticastRoutes(scenario.GetRouter(i), group).size(),
                              0,
                              "no route left on " << topology.GetCity(i).id);
        NS_TEST_EXPECT_MSG_EQ(observer.Received(i, group, late), 0, "nobody gets the late packet");
    }
    NS_TEST_EXPECT_MSG_EQ(HasHostRoute(scenario.GetIsland(s), group),
                          false,
                          "the source island's route is gone");
    NS_TEST_EXPECT_MSG_EQ(pim.GetTrees().size(), 0, "no tree left");
    for (uint32_t d = 0; d < topology.GetNDirectedLinks(); ++d)
    {
        NS_TEST_EXPECT_MSG_EQ(observer.OnLink(d, group, late),
                              (d == topology.GetAccessUpLink(s) ? 1 : 0),
                              "late packet on " << topology.GetDirectedLinkName(d));
    }
    EndSimulation();
}

/**
 * @ingroup wan-training-tests
 * @brief Local delivery: member islands run an Ipv4ListRouting around an Ipv4StaticRouting with
 * their unicast routes, routers keep their bare Ipv4StaticRouting, and unicast between member
 * islands still follows the route.
 */
class PimMulticastLocalDeliveryTestCase : public TestCase
{
  public:
    PimMulticastLocalDeliveryTestCase();

  private:
    void DoRun() override;
};

PimMulticastLocalDeliveryTestCase::PimMulticastLocalDeliveryTestCase()
    : TestCase("member islands deliver multicast locally and still route unicast")
{
}

void
PimMulticastLocalDeliveryTestCase::DoRun()
{
    WanTopology topology = WanTopology::LoadFile(CreateDataDirFilename(NINE_CITY));
    const uint32_t n = topology.GetNCities();
    WanTopologyHelper scenario(topology);
    scenario.Install();
    PimMulticastHelper pim(scenario);
    pim.InstallSchedule(CliqueSchedule::AllReduce(n));
    MulticastObserver observer(scenario);

    for (uint32_t i = 0; i < n; ++i)
    {
        const std::string& id = topology.GetCity(i).id;
        Ptr<Ipv4> router = scenario.GetRouter(i)->GetObject<Ipv4>();
        NS_TEST_EXPECT_MSG_NE(DynamicCast<Ipv4StaticRouting>(router->GetRoutingProtocol()),
                              nullptr,
                              "router " << id << " keeps its bare Ipv4StaticRouting");
        Ptr<Ipv4> island = scenario.GetIsland(i)->GetObject<Ipv4>();
        Ptr<Ipv4ListRouting> list = DynamicCast<Ipv4ListRouting>(island->GetRoutingProtocol());
        NS_TEST_EXPECT_MSG_NE(list, nullptr, "island " << id << " runs an Ipv4ListRouting");
        if (!list)
        {
            continue;
        }
        NS_TEST_EXPECT_MSG_EQ(list->GetNRoutingProtocols(), 1, "island " << id << ": one protocol");
        int16_t priority = -1;
        Ptr<Ipv4StaticRouting> routing =
            DynamicCast<Ipv4StaticRouting>(list->GetRoutingProtocol(0, priority));
        NS_TEST_EXPECT_MSG_NE(routing, nullptr, "island " << id << ": Ipv4StaticRouting inside");
        NS_TEST_EXPECT_MSG_EQ(priority, 0, "island " << id << ": at priority 0");
        if (!routing)
        {
            continue;
        }
        // Loopback and access networks, the default route via the router, one host route per
        // group the island sends to (one: the all-island clique).
        const uint32_t up = topology.GetAccessUpLink(i);
        uint32_t defaults = 0;
        uint32_t hosts = 0;
        for (uint32_t k = 0; k < routing->GetNRoutes(); ++k)
        {
            Ipv4RoutingTableEntry route = routing->GetRoute(k);
            defaults += route.IsDefault() && route.GetInterface() == scenario.GetTxInterface(up);
            hosts += route.IsHost() && route.GetDest() == pim.GetGroup(0, 0, i);
        }
        NS_TEST_EXPECT_MSG_EQ(routing->GetNRoutes(), 4, "island " << id << ": routes");
        NS_TEST_EXPECT_MSG_EQ(defaults, 1, "island " << id << ": default route kept");
        NS_TEST_EXPECT_MSG_EQ(hosts, 1, "island " << id << ": route to its group");
    }

    // Unicast between two wrapped islands.
    const uint32_t from = topology.GetCityIndex("lon");
    const uint32_t to = topology.GetCityIndex("prg");
    const Ipv4Address destination = scenario.GetIslandAddress(to);
    observer.Send(from, destination, 0, 1, Seconds(1));
    Simulator::Stop(Seconds(2));
    Simulator::Run();

    NS_TEST_EXPECT_MSG_EQ(observer.Received(to, destination, 0), 1, "prg receives the unicast");
    const std::vector<uint32_t>& route = topology.GetRoute(from, to).links;
    for (uint32_t d = 0; d < topology.GetNDirectedLinks(); ++d)
    {
        bool onRoute = std::find(route.begin(), route.end(), d) != route.end();
        NS_TEST_EXPECT_MSG_EQ(observer.OnLink(d, destination, 0),
                              onRoute ? 1 : 0,
                              "unicast on " << topology.GetDirectedLinkName(d));
    }
    NS_TEST_EXPECT_MSG_EQ(observer.GetStray(), 0, "no other packet");
    EndSimulation();
}

/**
 * @ingroup wan-training-tests
 * @brief JoinRound and PruneRound: every tree of a round slot is complete once the slot's
 * longest join delay has passed, and gone after the prune.
 */
class PimMulticastRoundTestCase : public TestCase
{
  public:
    PimMulticastRoundTestCase();

  private:
    void DoRun() override;
    /**
     * @brief Record how many trees of the slot are complete now.
     * @param pim the helper
     * @param schedule the schedule
     * @param slot where to store the count
     */
    void CountComplete(PimMulticastHelper pim, const CliqueSchedule* schedule, uint32_t* slot);

    uint32_t m_before{0}; //!< complete trees just before the longest delay has passed
    uint32_t m_after{0};  //!< complete trees just after
};

PimMulticastRoundTestCase::PimMulticastRoundTestCase()
    : TestCase("round joins complete after the slot's longest join delay; round prunes")
{
}

void
PimMulticastRoundTestCase::CountComplete(PimMulticastHelper pim,
                                         const CliqueSchedule* schedule,
                                         uint32_t* slot)
{
    *slot = 0;
    const CliqueSchedule::Round& round = schedule->GetRound(1);
    for (uint32_t c = 0; c < round.size(); ++c)
    {
        for (uint32_t source : round[c])
        {
            *slot += pim.GetTree(1, c, source).members.size() + 1 == round[c].size() ? 1 : 0;
        }
    }
}

void
PimMulticastRoundTestCase::DoRun()
{
    WanTopology topology = WanTopology::LoadFile(CreateDataDirFilename(NINE_CITY));
    const uint32_t n = topology.GetNCities();
    CliqueSchedule schedule = CliqueSchedule::LatinTriples(n);
    WanTopologyHelper scenario(topology);
    scenario.Install();
    PimMulticastHelper pim(scenario);

    // The slot's longest join delay: the largest WAN latency of a route inside a clique.
    double longestMs = 0;
    for (const CliqueSchedule::Clique& clique : schedule.GetRound(1))
    {
        for (uint32_t i : clique)
        {
            for (uint32_t j : clique)
            {
                if (i != j)
                {
                    double ms = 0;
                    for (uint32_t d : topology.GetRoute(i, j).links)
                    {
                        ms += topology.IsAccessLink(d) ? 0 : topology.GetDirectedLinkLatencyMs(d);
                    }
                    longestMs = std::max(longestMs, ms);
                }
            }
        }
    }
    NS_TEST_EXPECT_MSG_EQ_TOL(pim.GetRoundJoinDelay(schedule, 1).GetSeconds(),
                              longestMs * 1e-3,
                              1e-9,
                              "GetRoundJoinDelay");
    // Before any join, a join's delay is the WAN latency of its route.
    const uint32_t s = schedule.GetRound(1)[0][0];
    const uint32_t j = schedule.GetRound(1)[0][1];
    NS_TEST_EXPECT_MSG_EQ_TOL(pim.GetJoinDelay(1, 0, s, j).GetSeconds(),
                              topology.GetRoute(s, j).wanLatencyMs * 1e-3,
                              1e-9,
                              "GetJoinDelay on an empty tree");

    const Time join = Seconds(1);
    const Time prune = Seconds(2);
    pim.JoinRound(schedule, 1, join);
    pim.PruneRound(schedule, 1, prune);
    // A prune sent while a join is on its way cancels the join.
    const Time cancelled = Seconds(3);
    pim.Join(0, 0, s, j, cancelled);
    pim.Prune(0, 0, s, j, cancelled + pim.GetJoinDelay(0, 0, s, j) / 2);
    const Time complete = join + Ms(longestMs);
    Simulator::Schedule(complete - NanoSeconds(1),
                        &PimMulticastRoundTestCase::CountComplete,
                        this,
                        pim,
                        &schedule,
                        &m_before);
    Simulator::Schedule(complete + NanoSeconds(1),
                        &PimMulticastRoundTestCase::CountComplete,
                        this,
                        pim,
                        &schedule,
                        &m_after);
    Simulator::Stop(cancelled + Seconds(1));
    Simulator::Run();

    NS_TEST_EXPECT_MSG_LT(m_before, 9, "some tree is still incomplete before the longest delay");
    NS_TEST_EXPECT_MSG_EQ(m_after, 9, "every tree of the three triples is complete after it");
    NS_TEST_EXPECT_MSG_EQ(pim.GetTrees().size(),
                          0,
                          "the round prune removed every tree; the cancelled join added none");
    for (uint32_t i = 0; i < n; ++i)
    {
        Ipv4StaticRoutingHelper helper;
        NS_TEST_EXPECT_MSG_EQ(helper.GetStaticRouting(scenario.GetRouter(i)->GetObject<Ipv4>())
                                  ->GetNMulticastRoutes(),
                              0,
                              "no multicast route left on " << topology.GetCity(i).id);
    }
    EndSimulation();
}

/**
 * @ingroup wan-training-tests
 * @brief The PimMulticastHelper test suite.
 */
class PimMulticastHelperTestSuite : public TestSuite
{
  public:
    PimMulticastHelperTestSuite();
};

PimMulticastHelperTestSuite::PimMulticastHelperTestSuite()
    : TestSuite("wan-training-pim-multicast", UNIT)
{
    SetDataDir(NS_TEST_SOURCEDIR);
    AddTestCase(new PimMulticastGroupTestCase(), TestCase::QUICK);
    AddTestCase(new PimMulticastTreesTestCase(), TestCase::QUICK);
    AddTestCase(new PimMulticastTtlTestCase(), TestCase::QUICK);
    AddTestCase(new PimMulticastJoinTestCase(true), TestCase::QUICK);
    AddTestCase(new PimMulticastJoinTestCase(false), TestCase::QUICK);
    AddTestCase(new PimMulticastPruneTestCase(), TestCase::QUICK);
    AddTestCase(new PimMulticastRoundTestCase(), TestCase::QUICK);
    AddTestCase(new PimMulticastLocalDeliveryTestCase(), TestCase::QUICK);
}

/** The static instance that registers the suite. */
static PimMulticastHelperTestSuite g_pimMulticastHelperTestSuite;
