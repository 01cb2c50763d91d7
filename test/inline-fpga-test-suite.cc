/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "aggregator-helper.h"
#include "aggregator-net-device.h"
#include "inline-fpga.h"
#include "island-sync-header.h"
#include "sync-test-frame.h"
#include "training-island-application.h"
#include "wan-topology-helper.h"
#include "wan-topology.h"

#include "ns3/ipv4-l3-protocol.h"
#include "ns3/names.h"
#include "ns3/nstime.h"
#include "ns3/packet.h"
#include "ns3/simulator.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

/**
 * @file
 * @ingroup wan-training-tests
 * The in-line FPGA of a router in tree mode (InlineFpga and its AggregatorNetDevice ports with
 * tree expectations), device by device: crafted sync datagrams are handed to a WAN port of a
 * router of the reference WAN with an FPGA on every port (WanTopologyHelper::EVERY_PORT), as
 * the router's IPv4 stack hands the packets it forwards, and what the port transmits is decoded.
 * Covered: an AGGREGATE from below summed with DATA into one aggregate with the union bitmap
 * addressed to the root (complete, and partial at Timeout); a partial aggregate overlapping its
 * slot passes unchanged (OVERLAP) and the slot still completes; a DATA duplicate absorbed;
 * datagrams of a tree entry not addressed to the root, or from an unexpected contributor, pass
 * (NO_EXPECTATION); a VIEW addressed to the root narrows the expectation (an open slot with
 * nothing in the pipeline completes at once, new slots expect less), one addressed elsewhere
 * does not; SlotCount is shared by the router's ports (a slot taken on one port makes the other
 * pass NO_SLOT); the router's counters are the sums of its ports'.
 */

using namespace ns3;

namespace
{

/** The reference WAN, relative to the test data directory. */
const std::string REFERENCE_WAN = "../topologies/reference-wan.json";
/** The job id of the test datagrams. */
const uint16_t JOB = 3;
/** Chunks of every test stream. */
const uint32_t CHUNKS = 4;
/** Values per chunk. */
const uint32_t VALUES = 6;
/** UDP payload bytes of every contribution (header, values, zero padding). */
const uint32_t PAYLOAD = 400;

/**
 * @param island an island index
 * @return its contributor bit
 */
uint64_t
Bit(uint32_t island)
{
    return uint64_t{1} << island;
}

/** What a port transmitted: the decoded sync header and the IPv4 destination. */
struct Sent
{
    IslandSyncHeader header;   //!< its sync header
    Ipv4Address destination;   //!< its IPv4 destination
    std::vector<uint8_t> ipv4; //!< the IPv4 datagram's bytes (without the PPP header)
};

/**
 * @brief PhyTxBegin sink: decode a sync frame.
 * @param sent where to record it
 * @param packet the PPP frame
 */
void
OnTx(std::vector<Sent>* sent, Ptr<const Packet> packet)
{
    Sent entry;
    uint32_t to = 0;
    if (IslandSyncHeader::ReadFromPacket(packet,
                                         IslandSyncHeader::PPP_FRAME,
                                         TrainingIslandApplication::DEFAULT_PORT,
                                         entry.header,
                                         &to) == 0)
    {
        return;
    }
    entry.destination = Ipv4Address(to);
    entry.ipv4.resize(packet->GetSize() - 2);
    std::vector<uint8_t> frame(packet->GetSize());
    packet->CopyData(frame.data(), frame.size());
    std::copy(frame.begin() + 2, frame.end(), entry.ipv4.begin());
    sent->push_back(entry);
}

} // namespace

/**
 * @ingroup wan-training-tests
 * @brief Shared machinery: the reference WAN with an FPGA on every router port, the FPGA ports
 * of NYC toward LON (root LON) and toward FRA, crafted datagrams handed to a port at given
 * times, and what the ports transmit.
 */
class InlineFpgaTestCase : public TestCase
{
  public:
    /**
     * @param name the case name
     */
    explicit InlineFpgaTestCase(const std::string& name)
        : TestCase(name)
    {
    }

  protected:
    /**
     * @brief Build the scenario: every port of every router an FPGA port.
     * @param slots the FPGAs' SlotCount
     * @param timeout the ports' Timeout
     */
    void Build(uint32_t slots, Time timeout)
    {
        SetDataDir(NS_TEST_SOURCEDIR);
        m_topology = std::make_unique<WanTopology>(
            WanTopology::LoadFile(CreateDataDirFilename(REFERENCE_WAN)));
        m_scenario = std::make_unique<WanTopologyHelper>(*m_topology);
        AggregatorHelper aggregators;
        aggregators.SetAttribute("SlotCount", UintegerValue(slots));
        aggregators.SetAttribute("Timeout", TimeValue(timeout));
        aggregators.Install(*m_scenario, WanTopologyHelper::EVERY_PORT);
        m_scenario->Install();
        m_toLon = Port("NYC", "LON");
        m_toFra = Port("NYC", "FRA");
        m_toLon->TraceConnectWithoutContext("PhyTxBegin", MakeBoundCallback(&OnTx, &m_sentLon));
        m_toFra->TraceConnectWithoutContext("PhyTxBegin", MakeBoundCallback(&OnTx, &m_sentFra));
    }

    /** Destroy the simulation. */
    void End()
    {
        Simulator::Destroy();
        Names::Clear();
    }

    /**
     * @param id a city id
     * @return its index
     */
    uint32_t City(const std::string& id) const
    {
        return m_topology->GetCityIndex(id);
    }

    /**
     * @param from a city id
     * @param to a neighbour's id
     * @return the FPGA port of from's router on the link toward to
     */
    Ptr<AggregatorNetDevice> Port(const std::string& from, const std::string& to) const
    {
        Ptr<AggregatorNetDevice> port = DynamicCast<AggregatorNetDevice>(
            m_scenario->GetTxDevice(m_topology->GetWanDirectedLink(City(from), City(to))));
        NS_ABORT_MSG_UNLESS(port, from << "->" << to << " is no FPGA port");
        return port;
    }

    /**
     * @param id a city id
     * @return its island's address
     */
    Ipv4Address Address(const std::string& id) const
    {
        return m_scenario->GetIslandAddress(City(id));
    }

    /**
     * @brief Give a port one tree expectation for round 0 of JOB.
     * @param port the port
     * @param clique the clique id
     * @param contributors the contributors it sums
     * @param root the root's city id
     */
    void Expect(Ptr<AggregatorNetDevice> port,
                uint16_t clique,
                uint64_t contributors,
                const std::string& root)
    {
        AggregatorNetDevice::Expectation expectation;
        expectation.contributors = contributors;
        expectation.root = Address(root);
        port->SetExpectations(JOB, {{{clique, expectation}}});
    }

    /**
     * @param island a contributor
     * @param chunk a chunk
     * @return its test values of the chunk
     */
    static std::vector<float> Values(uint32_t island, uint32_t chunk)
    {
        std::vector<float> values(VALUES);
        for (uint32_t v = 0; v < VALUES; ++v)
        {
            values[v] = 0.1f * static_cast<float>(island + 1) + 0.37f * static_cast<float>(v) -
                        0.011f * static_cast<float>(chunk);
        }
        return values;
    }

    /**
     * @param contributors some contributors
     * @param chunk a chunk
     * @return their values summed as an FPGA sums: in double, rounded once to float32
     */
    static std::vector<float> Sum(uint64_t contributors, uint32_t chunk)
    {
        std::vector<double> sums(VALUES, 0.0);
        for (uint32_t island = 0; island < IslandSyncHeader::MAX_ISLANDS; ++island)
        {
            if (contributors & Bit(island))
            {
                const std::vector<float> values = Values(island, chunk);
                for (uint32_t v = 0; v < VALUES; ++v)
                {
                    sums[v] += values[v];
                }
            }
        }
        return std::vector<float>(sums.begin(), sums.end());
    }

    /**
     * @param type DATA, AGGREGATE or VIEW
     * @param clique the clique id
     * @param sender the sender field
     * @param contributors the bitmap (DATA: the sender's bit; VIEW: the members kept)
     * @param chunk the chunk (DATA, AGGREGATE)
     * @return the header: DATA the sender's values, AGGREGATE the FPGA sum of the contributors'
     */
    static IslandSyncHeader Header(IslandSyncHeader::Type type,
                                   uint16_t clique,
                                   uint32_t sender,
                                   uint64_t contributors,
                                   uint32_t chunk)
    {
        IslandSyncHeader header;
        header.SetType(type);
        header.SetJobId(JOB);
        header.SetRound(0);
        header.SetCliqueId(clique);
        header.SetSender(static_cast<uint16_t>(sender));
        header.SetContributors(contributors);
        if (type != IslandSyncHeader::VIEW)
        {
            header.SetChunkIndex(chunk);
            header.SetChunkCount(CHUNKS);
            header.SetValueOffset(chunk * VALUES);
            header.SetValues(type == IslandSyncHeader::DATA ? Values(sender, chunk)
                                                            : Sum(contributors, chunk));
        }
        return header;
    }

    /**
     * @param header a sync header
     * @param to the IPv4 destination
     * @return the IPv4 datagram (from a WAN address, PAYLOAD bytes of UDP payload for a
     *         contribution)
     */
    static Ptr<Packet> Datagram(const IslandSyncHeader& header, Ipv4Address to)
    {
        const bool chunk = header.GetType() != IslandSyncHeader::VIEW;
        Ptr<Packet> payload = Create<Packet>(chunk ? PAYLOAD - header.GetSerializedSize() : 0);
        payload->AddHeader(header);
        SyncFrameFields fields;
        fields.source = Ipv4Address("10.0.0.1");
        fields.destination = to;
        fields.sourcePort = TrainingIslandApplication::DEFAULT_PORT;
        fields.destinationPort = TrainingIslandApplication::DEFAULT_PORT;
        fields.ppp = false;
        return MakeSyncFrame(payload, fields);
    }

    /**
     * @brief Hand a datagram to a port at a time, as the router's IPv4 stack does.
     * @param at when
     * @param port the port
     * @param header its sync header
     * @param to its IPv4 destination
     */
    void Inject(Time at,
                Ptr<AggregatorNetDevice> port,
                const IslandSyncHeader& header,
                Ipv4Address to)
    {
        Ptr<Packet> packet = Datagram(header, to);
        Simulator::Schedule(at, [port, packet]() {
            port->Send(packet->Copy(), port->GetBroadcast(), Ipv4L3Protocol::PROT_NUMBER);
        });
    }

    /**
     * @param sent what a port transmitted
     * @param type a sync type
     * @return those of that type
     */
    static std::vector<Sent> OfType(const std::vector<Sent>& sent, IslandSyncHeader::Type type)
    {
        std::vector<Sent> selected;
        for (const Sent& entry : sent)
        {
            if (entry.header.GetType() == type)
            {
                selected.push_back(entry);
            }
        }
        return selected;
    }

    /**
     * @brief Check an aggregate the port sent.
     * @param sent the transmitted aggregate
     * @param contributors the union bitmap expected
     * @param chunk its chunk
     * @param what a label
     * @param below the values of the partial aggregate summed into it (empty: none; the
     *        contributors' DATA values are summed instead)
     * @param belowBits the contributors of that partial aggregate
     */
    void CheckAggregate(const Sent& sent,
                        uint64_t contributors,
                        uint32_t chunk,
                        const std::string& what,
                        const std::vector<float>& below = {},
                        uint64_t belowBits = 0)
    {
        // What the FPGA adds: the float32 values of its inputs, in double, rounded once.
        std::vector<float> expected = Sum(contributors & ~belowBits, chunk);
        for (std::size_t v = 0; v < below.size(); ++v)
        {
            expected[v] = static_cast<float>(
                static_cast<double>(Sum(contributors & ~belowBits, chunk)[v]) + below[v]);
        }
        const IslandSyncHeader& header = sent.header;
        NS_TEST_EXPECT_MSG_EQ(header.GetType(), IslandSyncHeader::AGGREGATE, what << ": type");
        NS_TEST_EXPECT_MSG_EQ(header.GetContributors(), contributors, what << ": union bitmap");
        NS_TEST_EXPECT_MSG_EQ(header.GetChunkIndex(), chunk, what << ": chunk");
        NS_TEST_EXPECT_MSG_EQ(header.GetSender(), City("NYC"), what << ": the router's city");
        NS_TEST_EXPECT_MSG_EQ(sent.destination, Address("LON"), what << ": to the root");
        NS_TEST_EXPECT_MSG_EQ((header.GetValues() == expected),
                              true,
                              what << ": the sum of the contributions");
        NS_TEST_EXPECT_MSG_EQ(sent.ipv4.size(),
                              20u + 8u + PAYLOAD,
                              what << ": the wire size of a contribution");
    }

    std::unique_ptr<WanTopology> m_topology;       //!< the reference WAN
    std::unique_ptr<WanTopologyHelper> m_scenario; //!< the scenario
    Ptr<AggregatorNetDevice> m_toLon;              //!< NYC's port toward LON
    Ptr<AggregatorNetDevice> m_toFra;              //!< NYC's port toward FRA
    std::vector<Sent> m_sentLon;                   //!< what m_toLon transmitted
    std::vector<Sent> m_sentFra;                   //!< what m_toFra transmitted
};

/**
 * @ingroup wan-training-tests
 * @brief An AGGREGATE from a router below ({LAX, TYO}) and a DATA (CHI), in either order,
 * summed into one complete aggregate of the three addressed to the root (LON), with the sum
 * of all three; with one more contributor expected (SIN) that never comes, the slot leaves at
 * Timeout as a partial aggregate with the union bitmap, still addressed to the root.
 */
class InlineFpgaSumTestCase : public InlineFpgaTestCase
{
  public:
    InlineFpgaSumTestCase()
        : InlineFpgaTestCase("an AGGREGATE and a DATA summed into one aggregate to the root, "
                             "complete and partial")
    {
    }

  private:
    void DoRun() override
    {
        Build(65536, MilliSeconds(10));
        const uint64_t below = Bit(City("LAX")) | Bit(City("TYO"));
        const uint64_t chi = Bit(City("CHI"));
        const uint64_t sin = Bit(City("SIN"));
        const Ipv4Address root = Address("LON");
        Expect(m_toLon, 0, below | chi, "LON");
        // Chunk 0: the AGGREGATE first; chunk 1: the DATA first.
        Inject(MilliSeconds(1),
               m_toLon,
               Header(IslandSyncHeader::AGGREGATE, 0, City("LAX"), below, 0),
               root);
        Inject(MilliSeconds(2),
               m_toLon,
               Header(IslandSyncHeader::DATA, 0, City("CHI"), chi, 0),
               root);
        Inject(MilliSeconds(3),
               m_toLon,
               Header(IslandSyncHeader::DATA, 0, City("CHI"), chi, 1),
               root);
        Inject(MilliSeconds(4),
               m_toLon,
               Header(IslandSyncHeader::AGGREGATE, 0, City("LAX"), below, 1),
               root);
        Simulator::Run();
        std::vector<Sent> aggregates = OfType(m_sentLon, IslandSyncHeader::AGGREGATE);
        NS_TEST_ASSERT_MSG_EQ(m_sentLon.size(), 2u, "two packets out: the aggregates only");
        NS_TEST_ASSERT_MSG_EQ(aggregates.size(), 2u, "one aggregate per chunk");
        CheckAggregate(aggregates[0], below | chi, 0, "chunk 0", Sum(below, 0), below);
        CheckAggregate(aggregates[1], below | chi, 1, "chunk 1", Sum(below, 1), below);
        NS_TEST_EXPECT_MSG_EQ(m_toLon->GetContributionsIn(), 4u, "contributions in");
        NS_TEST_EXPECT_MSG_EQ(m_toLon->GetContributionsSummed(), 4u, "summed");
        NS_TEST_EXPECT_MSG_EQ(m_toLon->GetAggregatesOut(), 2u, "aggregates out");
        NS_TEST_EXPECT_MSG_EQ(m_toLon->GetTimeouts(), 0u, "complete");
        NS_TEST_EXPECT_MSG_EQ(m_toLon->GetPassThroughs(), 0u, "nothing passed");
        End();

        // SIN expected too, and it never comes: a partial aggregate at Timeout.
        m_sentLon.clear();
        Build(65536, MilliSeconds(10));
        Expect(m_toLon, 0, below | chi | sin, "LON");
        Inject(MilliSeconds(1),
               m_toLon,
               Header(IslandSyncHeader::AGGREGATE, 0, City("LAX"), below, 0),
               root);
        Inject(MilliSeconds(2),
               m_toLon,
               Header(IslandSyncHeader::DATA, 0, City("CHI"), chi, 0),
               root);
        Simulator::Run();
        NS_TEST_ASSERT_MSG_EQ(m_sentLon.size(), 1u, "one packet out");
        CheckAggregate(m_sentLon[0], below | chi, 0, "the partial aggregate", Sum(below, 0), below);
        NS_TEST_EXPECT_MSG_EQ(m_toLon->GetTimeouts(), 1u, "released by Timeout");
        End();
    }
};

/**
 * @ingroup wan-training-tests
 * @brief Overlap and duplicates: with {CHI, LAX, TYO} expected and LAX's DATA in the slot, an
 * AGGREGATE of {LAX, TYO} passes unchanged (OVERLAP, byte for byte) and the slot still
 * completes with TYO's and CHI's DATA; CHI's DATA sent twice is absorbed once (Duplicate), not
 * summed twice and not forwarded.
 */
class InlineFpgaOverlapTestCase : public InlineFpgaTestCase
{
  public:
    InlineFpgaOverlapTestCase()
        : InlineFpgaTestCase("a partial aggregate overlapping its slot passes (OVERLAP), the slot "
                             "completes; a DATA duplicate is absorbed")
    {
    }

  private:
    void DoRun() override
    {
        Build(65536, MilliSeconds(10));
        const uint64_t chi = Bit(City("CHI"));
        const uint64_t lax = Bit(City("LAX"));
        const uint64_t tyo = Bit(City("TYO"));
        const Ipv4Address root = Address("LON");
        Expect(m_toLon, 0, chi | lax | tyo, "LON");
        const IslandSyncHeader overlapping =
            Header(IslandSyncHeader::AGGREGATE, 0, City("LAX"), lax | tyo, 0);
        Inject(MilliSeconds(1),
               m_toLon,
               Header(IslandSyncHeader::DATA, 0, City("LAX"), lax, 0),
               root);
        Inject(MilliSeconds(2), m_toLon, overlapping, root);
        Inject(MilliSeconds(3),
               m_toLon,
               Header(IslandSyncHeader::DATA, 0, City("TYO"), tyo, 0),
               root);
        Inject(MilliSeconds(4),
               m_toLon,
               Header(IslandSyncHeader::DATA, 0, City("CHI"), chi, 0),
               root);
        // Chunk 1: CHI's DATA twice.
        Inject(MilliSeconds(5),
               m_toLon,
               Header(IslandSyncHeader::DATA, 0, City("CHI"), chi, 1),
               root);
        Inject(MilliSeconds(6),
               m_toLon,
               Header(IslandSyncHeader::DATA, 0, City("CHI"), chi, 1),
               root);
        Inject(MilliSeconds(7),
               m_toLon,
               Header(IslandSyncHeader::DATA, 0, City("LAX"), lax, 1),
               root);
        Inject(MilliSeconds(8),
               m_toLon,
               Header(IslandSyncHeader::DATA, 0, City("TYO"), tyo, 1),
               root);
        Simulator::Run();

        NS_TEST_ASSERT_MSG_EQ(m_sentLon.size(), 3u, "the overlapping aggregate and two aggregates");
        const Ptr<Packet> original = Datagram(overlapping, root);
        std::vector<uint8_t> bytes(original->GetSize());
        original->CopyData(bytes.data(), bytes.size());
        NS_TEST_EXPECT_MSG_EQ((m_sentLon[0].ipv4 == bytes), true, "the overlap passes unchanged");
        CheckAggregate(m_sentLon[1], chi | lax | tyo, 0, "chunk 0, after the overlap");
        CheckAggregate(m_sentLon[2], chi | lax | tyo, 1, "chunk 1, CHI once");
        NS_TEST_EXPECT_MSG_EQ(m_toLon->GetPassThroughs(AggregatorNetDevice::OVERLAP),
                              1u,
                              "overlap");
        NS_TEST_EXPECT_MSG_EQ(m_toLon->GetPassThroughs(), 1u, "nothing else passed");
        NS_TEST_EXPECT_MSG_EQ(m_toLon->GetDuplicates(), 1u, "one duplicate");
        NS_TEST_EXPECT_MSG_EQ(m_toLon->GetContributionsSummed(), 6u, "summed");
        NS_TEST_EXPECT_MSG_EQ(m_toLon->GetContributionsIn(), 8u, "contributions in");
        NS_TEST_EXPECT_MSG_EQ(m_toLon->GetTimeouts(), 0u, "both complete");
        End();
    }
};

/**
 * @ingroup wan-training-tests
 * @brief What a tree entry does not take passes at once (NO_EXPECTATION), unchanged: DATA and
 * an AGGREGATE of expected contributors addressed to an island other than the root, DATA of a
 * contributor not expected, an AGGREGATE naming one; the expected ones addressed to the root
 * are still summed.
 */
class InlineFpgaNoExpectationTestCase : public InlineFpgaTestCase
{
  public:
    InlineFpgaNoExpectationTestCase()
        : InlineFpgaTestCase("tree entry: not to the root, or an unexpected contributor: "
                             "NO_EXPECTATION")
    {
    }

  private:
    void DoRun() override
    {
        Build(65536, MilliSeconds(10));
        const uint64_t chi = Bit(City("CHI"));
        const uint64_t lax = Bit(City("LAX"));
        const uint64_t sin = Bit(City("SIN"));
        const Ipv4Address root = Address("LON");
        const Ipv4Address other = Address("AMS");
        Expect(m_toLon, 0, chi | lax, "LON");
        Inject(MilliSeconds(1),
               m_toLon,
               Header(IslandSyncHeader::DATA, 0, City("CHI"), chi, 0),
               other);
        Inject(MilliSeconds(2),
               m_toLon,
               Header(IslandSyncHeader::AGGREGATE, 0, City("LAX"), chi | lax, 1),
               other);
        Inject(MilliSeconds(3),
               m_toLon,
               Header(IslandSyncHeader::DATA, 0, City("SIN"), sin, 0),
               root);
        Inject(MilliSeconds(4),
               m_toLon,
               Header(IslandSyncHeader::AGGREGATE, 0, City("LAX"), lax | sin, 0),
               root);
        Inject(MilliSeconds(5),
               m_toLon,
               Header(IslandSyncHeader::DATA, 0, City("CHI"), chi, 0),
               root);
        Inject(MilliSeconds(6),
               m_toLon,
               Header(IslandSyncHeader::DATA, 0, City("LAX"), lax, 0),
               root);
        Simulator::Run();
        NS_TEST_EXPECT_MSG_EQ(m_toLon->GetPassThroughs(AggregatorNetDevice::NO_EXPECTATION),
                              4u,
                              "four pass: NO_EXPECTATION");
        NS_TEST_EXPECT_MSG_EQ(m_toLon->GetPassThroughs(), 4u, "nothing else passed");
        NS_TEST_EXPECT_MSG_EQ(m_toLon->GetContributionsIn(), 2u, "two contributions");
        NS_TEST_ASSERT_MSG_EQ(m_sentLon.size(), 5u, "four passed, one aggregate");
        NS_TEST_EXPECT_MSG_EQ(m_sentLon[0].destination, other, "passed as it came");
        NS_TEST_EXPECT_MSG_EQ(m_sentLon[1].header.GetContributors(), (chi | lax), "unchanged");
        CheckAggregate(m_sentLon[4], chi | lax, 0, "the expected ones");
        End();
    }
};

/**
 * @ingroup wan-training-tests
 * @brief A VIEW addressed to the root narrows the tree expectation of its (job, round, clique):
 * with {CHI, LAX, TYO} expected and CHI's and LAX's DATA of chunk 0 in a slot, a VIEW to
 * another island changes nothing; a VIEW to the root that leaves TYO out releases the slot at
 * once as a complete aggregate of {CHI, LAX}; chunk 1 then completes without TYO; the VIEWs
 * pass unchanged (NOT_DATA); the expectation of another clique is untouched.
 */
class InlineFpgaViewTestCase : public InlineFpgaTestCase
{
  public:
    InlineFpgaViewTestCase()
        : InlineFpgaTestCase("a VIEW to the root narrows the expectation: the open slot completes "
                             "at once, new slots expect less")
    {
    }

  private:
    void DoRun() override
    {
        Build(65536, MilliSeconds(50));
        const uint64_t chi = Bit(City("CHI"));
        const uint64_t lax = Bit(City("LAX"));
        const uint64_t tyo = Bit(City("TYO"));
        const uint64_t lon = Bit(City("LON"));
        const Ipv4Address root = Address("LON");
        AggregatorNetDevice::Expectation expectation;
        expectation.contributors = chi | lax | tyo;
        expectation.root = root;
        m_toLon->SetExpectations(JOB, {{{0, expectation}, {1, expectation}}});
        Inject(MilliSeconds(1),
               m_toLon,
               Header(IslandSyncHeader::DATA, 0, City("CHI"), chi, 0),
               root);
        Inject(MilliSeconds(2),
               m_toLon,
               Header(IslandSyncHeader::DATA, 0, City("LAX"), lax, 0),
               root);
        const IslandSyncHeader view =
            Header(IslandSyncHeader::VIEW, 0, City("CHI"), chi | lax | lon, 0);
        Inject(MilliSeconds(3), m_toLon, view, Address("AMS"));
        uint64_t afterOther = 0;
        uint32_t sentAfterOther = 0;
        Simulator::Schedule(MilliSeconds(3) + MicroSeconds(100), [&]() {
            afterOther = m_toLon->GetExpectedContributors(JOB, 0, 0);
            sentAfterOther =
                static_cast<uint32_t>(OfType(m_sentLon, IslandSyncHeader::AGGREGATE).size());
        });
        Inject(MilliSeconds(4), m_toLon, view, root);
        uint32_t sentAfterView = 0;
        Simulator::Schedule(MilliSeconds(4) + MicroSeconds(100), [&]() {
            sentAfterView =
                static_cast<uint32_t>(OfType(m_sentLon, IslandSyncHeader::AGGREGATE).size());
        });
        Inject(MilliSeconds(5),
               m_toLon,
               Header(IslandSyncHeader::DATA, 0, City("CHI"), chi, 1),
               root);
        Inject(MilliSeconds(6),
               m_toLon,
               Header(IslandSyncHeader::DATA, 0, City("LAX"), lax, 1),
               root);
        Simulator::Run();

        NS_TEST_EXPECT_MSG_EQ(afterOther, (chi | lax | tyo), "a VIEW to another island: unchanged");
        NS_TEST_EXPECT_MSG_EQ(sentAfterOther, 0u, "and the slot stays open");
        NS_TEST_EXPECT_MSG_EQ(sentAfterView, 1u, "the open slot completes at the VIEW");
        NS_TEST_EXPECT_MSG_EQ(m_toLon->GetExpectedContributors(JOB, 0, 0), (chi | lax), "narrowed");
        NS_TEST_EXPECT_MSG_EQ(m_toLon->GetExpectedContributors(JOB, 0, 1),
                              (chi | lax | tyo),
                              "another clique untouched");
        std::vector<Sent> aggregates = OfType(m_sentLon, IslandSyncHeader::AGGREGATE);
        NS_TEST_ASSERT_MSG_EQ(aggregates.size(), 2u, "two aggregates");
        CheckAggregate(aggregates[0], chi | lax, 0, "chunk 0 at the VIEW");
        CheckAggregate(aggregates[1], chi | lax, 1, "chunk 1 without TYO");
        NS_TEST_EXPECT_MSG_EQ(m_toLon->GetTimeouts(), 0u, "both complete");
        NS_TEST_EXPECT_MSG_EQ(OfType(m_sentLon, IslandSyncHeader::VIEW).size(), 2u, "VIEWs pass");
        NS_TEST_EXPECT_MSG_EQ(m_toLon->GetPassThroughs(AggregatorNetDevice::NOT_DATA),
                              2u,
                              "VIEWs: NOT_DATA");
        End();
    }
};

/**
 * @ingroup wan-training-tests
 * @brief One FPGA per router: with SlotCount 1, a slot open on NYC's port toward LON makes a
 * contribution that needs a slot on its port toward FRA pass through (NO_SLOT, its chunk then
 * closed: the next contribution of that chunk passes as CLOSED); once the first slot completes,
 * the other port opens one. The router's FPGA counts every port: its totals are the sums of
 * its ports' counters, and its slot high-water mark is 1.
 */
class InlineFpgaSharedSlotsTestCase : public InlineFpgaTestCase
{
  public:
    InlineFpgaSharedSlotsTestCase()
        : InlineFpgaTestCase("SlotCount is shared by the router's ports; router counters are "
                             "the sums over its ports")
    {
    }

  private:
    void DoRun() override
    {
        Build(1, MilliSeconds(50));
        const uint64_t chi = Bit(City("CHI"));
        const uint64_t lax = Bit(City("LAX"));
        const uint64_t tyo = Bit(City("TYO"));
        const Ipv4Address lon = Address("LON");
        const Ipv4Address fra = Address("FRA");
        Expect(m_toLon, 0, chi | lax, "LON");
        Expect(m_toFra, 1, lax | tyo, "FRA");
        Ptr<InlineFpga> fpga = m_scenario->GetFpga(City("NYC"));
        NS_TEST_ASSERT_MSG_EQ(fpga, m_toLon->GetFpga(), "the port's FPGA is the router's");
        NS_TEST_ASSERT_MSG_EQ(fpga, m_toFra->GetFpga(), "one FPGA for both ports");
        uint32_t inUse = 0;
        Inject(MilliSeconds(1),
               m_toLon,
               Header(IslandSyncHeader::DATA, 0, City("CHI"), chi, 0),
               lon);
        Simulator::Schedule(MilliSeconds(1) + MicroSeconds(100),
                            [&]() { inUse = fpga->GetSlotsInUse(); });
        Inject(MilliSeconds(2),
               m_toFra,
               Header(IslandSyncHeader::DATA, 1, City("LAX"), lax, 0),
               fra);
        Inject(MilliSeconds(3),
               m_toFra,
               Header(IslandSyncHeader::DATA, 1, City("TYO"), tyo, 0),
               fra);
        Inject(MilliSeconds(4),
               m_toLon,
               Header(IslandSyncHeader::DATA, 0, City("LAX"), lax, 0),
               lon);
        Inject(MilliSeconds(5),
               m_toFra,
               Header(IslandSyncHeader::DATA, 1, City("LAX"), lax, 1),
               fra);
        Inject(MilliSeconds(6),
               m_toFra,
               Header(IslandSyncHeader::DATA, 1, City("TYO"), tyo, 1),
               fra);
        Simulator::Run();

        NS_TEST_EXPECT_MSG_EQ(inUse, 1u, "the slot taken by the port toward LON");
        NS_TEST_EXPECT_MSG_EQ(m_toFra->GetPassThroughs(AggregatorNetDevice::NO_SLOT),
                              1u,
                              "no slot left for the port toward FRA");
        NS_TEST_EXPECT_MSG_EQ(m_toFra->GetPassThroughs(AggregatorNetDevice::CLOSED),
                              1u,
                              "its chunk closed");
        NS_TEST_EXPECT_MSG_EQ(m_toLon->GetAggregatesOut(), 1u, "the port toward LON completes");
        NS_TEST_EXPECT_MSG_EQ(m_toFra->GetAggregatesOut(), 1u, "then the port toward FRA sums");
        NS_TEST_EXPECT_MSG_EQ(fpga->GetSlotHighWaterMark(), 1u, "one slot at most");
        NS_TEST_EXPECT_MSG_EQ(fpga->GetSlotsInUse(), 0u, "every slot free at the end");
        uint64_t in = 0;
        uint64_t summed = 0;
        uint64_t out = 0;
        uint64_t passed = 0;
        for (AggregatorNetDevice* port : fpga->GetPorts())
        {
            in += port->GetContributionsIn();
            summed += port->GetContributionsSummed();
            out += port->GetAggregatesOut();
            passed += port->GetPassThroughs();
        }
        // NYC's ports: toward CHI, LAX, LON and FRA, and toward its island.
        NS_TEST_EXPECT_MSG_EQ(fpga->GetPorts().size(), 5u, "one FPGA port per router port");
        NS_TEST_EXPECT_MSG_EQ(fpga->GetContributionsIn(), in, "contributions in: the sum");
        NS_TEST_EXPECT_MSG_EQ(fpga->GetContributionsIn(), 6u, "contributions in");
        NS_TEST_EXPECT_MSG_EQ(fpga->GetContributionsSummed(), summed, "summed: the sum");
        NS_TEST_EXPECT_MSG_EQ(fpga->GetContributionsSummed(), 4u, "summed");
        NS_TEST_EXPECT_MSG_EQ(fpga->GetAggregatesOut(), out, "aggregates: the sum");
        NS_TEST_EXPECT_MSG_EQ(fpga->GetAggregatesOut(), 2u, "aggregates");
        NS_TEST_EXPECT_MSG_EQ(fpga->GetPassThroughs(), passed, "pass-throughs: the sum");
        NS_TEST_EXPECT_MSG_EQ(fpga->GetPassThroughs(), 2u, "pass-throughs");
        End();
    }
};

/**
 * @ingroup wan-training-tests
 * @brief The in-line FPGA suite (issue 19).
 */
class InlineFpgaTestSuite : public TestSuite
{
  public:
    InlineFpgaTestSuite();
};

InlineFpgaTestSuite::InlineFpgaTestSuite()
    : TestSuite("wan-training-inline-fpga", UNIT)
{
    AddTestCase(new InlineFpgaSumTestCase(), TestCase::QUICK);
    AddTestCase(new InlineFpgaOverlapTestCase(), TestCase::QUICK);
    AddTestCase(new InlineFpgaNoExpectationTestCase(), TestCase::QUICK);
    AddTestCase(new InlineFpgaViewTestCase(), TestCase::QUICK);
    AddTestCase(new InlineFpgaSharedSlotsTestCase(), TestCase::QUICK);
}

/** Static instance of the suite. */
static InlineFpgaTestSuite g_inlineFpgaTestSuite;
