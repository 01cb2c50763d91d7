/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "aggregator-helper.h"
#include "aggregator-net-device.h"
#include "inline-fpga.h"
#include "island-sync-header.h"
#include "payload-codec.h"
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

#include <cmath>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
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

/** The test streams: the reference WAN (relative to the test data directory), the job id, the
 * chunks of every stream, the values per chunk and the UDP payload bytes of every contribution
 * (header, values, zero padding). */
const std::string REFERENCE_WAN = "../topologies/reference-wan.json";
constexpr uint16_t JOB = 3;
constexpr uint32_t CHUNKS = 4;
constexpr uint32_t VALUES = 6;
constexpr uint32_t PAYLOAD = 400;
/** The sync types of the test datagrams. */
constexpr IslandSyncHeader::Type DATA = IslandSyncHeader::DATA;
constexpr IslandSyncHeader::Type AGGREGATE = IslandSyncHeader::AGGREGATE;
constexpr IslandSyncHeader::Type VIEW = IslandSyncHeader::VIEW;

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
    /** A scenario: one of the member functions below. */
    using Scenario = void (InlineFpgaTestCase::*)();

    /**
     * @param name the case name
     * @param scenario what it runs
     */
    InlineFpgaTestCase(const std::string& name, Scenario scenario)
        : TestCase(name),
          m_scenario(scenario)
    {
    }

    /**
     * @brief An AGGREGATE from a router below ({LAX, TYO}) and a DATA (CHI), in either order,
     * summed into one complete aggregate of the three addressed to the root (LON), with the sum
     * of all three; with one more contributor expected (SIN) that never comes, the slot leaves at
     * Timeout as a partial aggregate with the union bitmap, still addressed to the root.
     */
    void Sum()
    {
        Build(65536, MilliSeconds(10));
        const uint64_t below = Bits({"LAX", "TYO"});
        const uint64_t all = Bits({"LAX", "TYO", "CHI"});
        Expect(m_toLon, 0, all, "LON");
        // Chunk 0: the AGGREGATE first; chunk 1: the DATA first.
        Play(m_toLon,
             0,
             {{1, AGGREGATE, "LAX", below, 0, "LON"},
              {2, DATA, "CHI", 0, 0, "LON"},
              {3, DATA, "CHI", 0, 1, "LON"},
              {4, AGGREGATE, "LAX", below, 1, "LON"}});
        Simulator::Run();
        std::vector<Sent> aggregates = OfType(m_sentLon, AGGREGATE);
        NS_TEST_ASSERT_MSG_EQ(m_sentLon.size(), 2u, "two packets out: the aggregates only");
        NS_TEST_ASSERT_MSG_EQ(aggregates.size(), 2u, "one aggregate per chunk");
        CheckAggregate(aggregates, 0, all, 0, "chunk 0", Sum(below, 0), below);
        CheckAggregate(aggregates, 1, all, 1, "chunk 1", Sum(below, 1), below);
        ExpectCounters({4, 4, 2, 0, 0, 0}, "AGGREGATE and DATA");
        End();

        // SIN expected too, and it never comes: a partial aggregate at Timeout.
        m_sentLon.clear();
        Build(65536, MilliSeconds(10));
        Expect(m_toLon, 0, all | Bits({"SIN"}), "LON");
        Play(m_toLon, 0, {{1, AGGREGATE, "LAX", below, 0, "LON"}, {2, DATA, "CHI", 0, 0, "LON"}});
        Simulator::Run();
        NS_TEST_ASSERT_MSG_EQ(m_sentLon.size(), 1u, "one packet out");
        CheckAggregate(m_sentLon, 0, all, 0, "the partial aggregate", Sum(below, 0), below);
        NS_TEST_EXPECT_MSG_EQ(m_toLon->GetTimeouts(), 1u, "released by Timeout");
        End();
    }

    /**
     * @brief Overlap and duplicates: with {CHI, LAX, TYO} expected and LAX's DATA in the slot, an
     * AGGREGATE of {LAX, TYO} passes unchanged (OVERLAP, byte for byte) and the slot still
     * completes with TYO's and CHI's DATA; CHI's DATA sent twice is absorbed once (Duplicate), not
     * summed twice and not forwarded.
     */
    void Overlap()
    {
        Build(65536, MilliSeconds(10));
        const uint64_t all = Bits({"CHI", "LAX", "TYO"});
        const Ipv4Address root = Address("LON");
        Expect(m_toLon, 0, all, "LON");
        const IslandSyncHeader overlapping =
            Header(IslandSyncHeader::AGGREGATE, 0, City("LAX"), Bits({"LAX", "TYO"}), 0);
        Play(m_toLon, 0, {{1, DATA, "LAX", 0, 0, "LON"}});
        Inject(MilliSeconds(2), m_toLon, overlapping, root);
        Play(m_toLon, 0, {{3, DATA, "TYO", 0, 0, "LON"}, {4, DATA, "CHI", 0, 0, "LON"}});
        // Chunk 1: CHI's DATA twice.
        Play(m_toLon,
             0,
             {{5, DATA, "CHI", 0, 1, "LON"},
              {6, DATA, "CHI", 0, 1, "LON"},
              {7, DATA, "LAX", 0, 1, "LON"},
              {8, DATA, "TYO", 0, 1, "LON"}});
        Simulator::Run();

        NS_TEST_ASSERT_MSG_EQ(m_sentLon.size(), 3u, "the overlapping aggregate and two aggregates");
        const Ptr<Packet> original = Datagram(overlapping, root);
        std::vector<uint8_t> bytes(original->GetSize());
        original->CopyData(bytes.data(), bytes.size());
        NS_TEST_EXPECT_MSG_EQ((!m_sentLon.empty() && m_sentLon[0].ipv4 == bytes),
                              true,
                              "the overlap passes unchanged");
        CheckAggregate(m_sentLon, 1, all, 0, "chunk 0, after the overlap");
        CheckAggregate(m_sentLon, 2, all, 1, "chunk 1, CHI once");
        const uint64_t overlaps = m_toLon->GetPassThroughs(AggregatorNetDevice::OVERLAP);
        NS_TEST_EXPECT_MSG_EQ(overlaps, 1u, "one OVERLAP");
        // In 8, summed 6 (the overlap passed, the duplicate absorbed), 2 aggregates.
        ExpectCounters({8, 6, 2, 0, 1, 1}, "overlap and duplicate");
        End();
    }

    /**
     * @brief The fixed-point accumulator cannot take a contribution: with {CHI, LAX, TYO}
     * expected and LAX's DATA in the slot, a DATA of TYO with a value beyond 2^31 (chunk 0), or
     * one that takes a sum beyond it (chunk 1: 1.5e9 + 1.5e9), passes unchanged (OVERFLOW), the
     * slot leaves at once as a partial aggregate of LAX (no Timeout), and CHI's DATA after it
     * passes (CLOSED): the receiver sums what passed.
     */
    void Overflow()
    {
        Build(65536, MilliSeconds(10));
        const uint64_t all = Bits({"CHI", "LAX", "TYO"});
        const Ipv4Address root = Address("LON");
        Expect(m_toLon, 0, all, "LON");
        auto data = [this](const std::string& city, uint32_t chunk, float first) {
            IslandSyncHeader header = Header(IslandSyncHeader::DATA, 0, City(city), 0, chunk);
            header.SetContributors(Bits({city}));
            std::vector<float> values = Values(City(city), chunk);
            values[0] = first;
            header.SetValues(values);
            return header;
        };
        const IslandSyncHeader lax0 = data("LAX", 0, Values(City("LAX"), 0)[0]);
        const IslandSyncHeader tyo0 = data("TYO", 0, 3.0e9f);
        const IslandSyncHeader lax1 = data("LAX", 1, 1.5e9f);
        const IslandSyncHeader tyo1 = data("TYO", 1, 1.5e9f);
        Inject(MilliSeconds(1), m_toLon, lax0, root);
        Inject(MilliSeconds(2), m_toLon, tyo0, root);
        Play(m_toLon, 0, {{3, DATA, "CHI", 0, 0, "LON"}});
        Inject(MilliSeconds(4), m_toLon, lax1, root);
        Inject(MilliSeconds(5), m_toLon, tyo1, root);
        Play(m_toLon, 0, {{6, DATA, "CHI", 0, 1, "LON"}});
        Simulator::Run();

        NS_TEST_ASSERT_MSG_EQ(m_sentLon.size(), 6u, "per chunk: TYO, LAX's partial, CHI");
        for (uint32_t chunk = 0; chunk < 2; ++chunk)
        {
            const std::string where = "chunk " + std::to_string(chunk);
            const Sent& passed = m_sentLon[3 * chunk];
            NS_TEST_EXPECT_MSG_EQ(passed.header.GetType(), DATA, where << ": TYO passes");
            NS_TEST_EXPECT_MSG_EQ(passed.header.GetSender(), City("TYO"), where << ": TYO");
            NS_TEST_EXPECT_MSG_EQ(
                (passed.header.GetValues() == (chunk == 0 ? tyo0 : tyo1).GetValues()),
                true,
                where << ": unchanged");
            const Sent& partial = m_sentLon[3 * chunk + 1];
            NS_TEST_EXPECT_MSG_EQ(partial.header.GetType(), AGGREGATE, where << ": a partial");
            NS_TEST_EXPECT_MSG_EQ(partial.header.GetContributors(),
                                  Bits({"LAX"}),
                                  where << ": of LAX alone");
            NS_TEST_EXPECT_MSG_EQ(
                (partial.header.GetValues() == (chunk == 0 ? lax0 : lax1).GetValues()),
                true,
                where << ": LAX's values, exact");
            NS_TEST_EXPECT_MSG_EQ(partial.destination, root, where << ": to the root");
            NS_TEST_EXPECT_MSG_EQ(m_sentLon[3 * chunk + 2].header.GetSender(),
                                  City("CHI"),
                                  where << ": CHI passes after it");
        }
        NS_TEST_EXPECT_MSG_EQ(m_toLon->GetPassThroughs(AggregatorNetDevice::OVERFLOW),
                              2u,
                              "two OVERFLOW");
        NS_TEST_EXPECT_MSG_EQ(m_toLon->GetPassThroughs(AggregatorNetDevice::CLOSED),
                              2u,
                              "two CLOSED");
        // In 6, summed 2 (LAX's), 2 partial aggregates, no Timeout, 4 passed.
        ExpectCounters({6, 2, 2, 0, 4, 0}, "overflow");
        End();
    }

    /**
     * @brief Payload formats: with {CHI, LAX, TYO} expected, bf16 DATA of LAX opens the slot,
     * TYO's int8 DATA differs in format and passes unchanged (MISMATCH, no longer expected), and
     * CHI's bf16 DATA completes the slot: the aggregate of {LAX, CHI} is their fixed-point sum
     * rounded to float and encoded in bf16. Then every DATA in int8: an int8 aggregate.
     */
    void Formats()
    {
        auto data = [this](const std::string& city, PayloadFormat format) {
            IslandSyncHeader header = Header(IslandSyncHeader::DATA, 0, City(city), 0, 0);
            header.SetContributors(Bits({city}));
            header.SetFormat(format);
            return header;
        };
        auto fixedSum = [](const std::vector<IslandSyncHeader>& headers) {
            std::vector<int64_t> sums(VALUES, 0);
            for (const IslandSyncHeader& header : headers)
            {
                for (uint32_t v = 0; v < VALUES; ++v)
                {
                    sums[v] += Fixed(header.GetValues()[v]);
                }
            }
            return sums;
        };

        Build(65536, MilliSeconds(10));
        Ipv4Address root = Address("LON");
        Expect(m_toLon, 0, Bits({"CHI", "LAX", "TYO"}), "LON");
        const IslandSyncHeader lax = data("LAX", PayloadFormat::BF16);
        const IslandSyncHeader tyo = data("TYO", PayloadFormat::INT8);
        const IslandSyncHeader chi = data("CHI", PayloadFormat::BF16);
        Inject(MilliSeconds(1), m_toLon, lax, root);
        Inject(MilliSeconds(2), m_toLon, tyo, root);
        Inject(MilliSeconds(3), m_toLon, chi, root);
        Simulator::Run();
        NS_TEST_ASSERT_MSG_EQ(m_sentLon.size(), 2u, "TYO passes, then the aggregate");
        NS_TEST_EXPECT_MSG_EQ(m_sentLon[0].header.GetSender(), City("TYO"), "TYO passes");
        NS_TEST_EXPECT_MSG_EQ((m_sentLon[0].header.GetFormat() == PayloadFormat::INT8),
                              true,
                              "in its own format");
        NS_TEST_EXPECT_MSG_EQ(m_toLon->GetPassThroughs(AggregatorNetDevice::MISMATCH),
                              1u,
                              "one MISMATCH");
        const IslandSyncHeader& bf16 = m_sentLon[1].header;
        NS_TEST_EXPECT_MSG_EQ(bf16.GetType(), AGGREGATE, "an aggregate");
        NS_TEST_EXPECT_MSG_EQ(bf16.GetContributors(), Bits({"LAX", "CHI"}), "of LAX and CHI");
        NS_TEST_EXPECT_MSG_EQ((bf16.GetFormat() == PayloadFormat::BF16), true, "in bf16");
        std::vector<float> expected = ToFloats(fixedSum({lax, chi}));
        PayloadCodec::Quantize(PayloadFormat::BF16, expected);
        NS_TEST_EXPECT_MSG_EQ((bf16.GetValues() == expected),
                              true,
                              "the fixed-point sum, encoded in bf16");
        ExpectCounters({3, 2, 1, 0, 1, 0}, "bf16 with an int8 contribution");
        End();

        m_sentLon.clear();
        Build(65536, MilliSeconds(10));
        root = Address("LON");
        Expect(m_toLon, 0, Bits({"CHI", "LAX", "TYO"}), "LON");
        std::vector<IslandSyncHeader> int8;
        for (const char* city : {"LAX", "TYO", "CHI"})
        {
            int8.push_back(data(city, PayloadFormat::INT8));
            Inject(MilliSeconds(int8.size()), m_toLon, int8.back(), root);
        }
        Simulator::Run();
        NS_TEST_ASSERT_MSG_EQ(m_sentLon.size(), 1u, "one aggregate");
        expected = ToFloats(fixedSum(int8));
        PayloadCodec::Quantize(PayloadFormat::INT8, expected);
        NS_TEST_EXPECT_MSG_EQ((m_sentLon[0].header.GetFormat() == PayloadFormat::INT8),
                              true,
                              "in int8");
        NS_TEST_EXPECT_MSG_EQ((m_sentLon[0].header.GetValues() == expected),
                              true,
                              "the fixed-point sum, encoded in int8");
        ExpectCounters({3, 3, 1, 0, 0, 0}, "int8");
        End();
    }

    /**
     * @brief What a tree entry does not take passes at once (NO_EXPECTATION), unchanged: DATA and
     * an AGGREGATE of expected contributors addressed to an island other than the root, DATA of a
     * contributor not expected, an AGGREGATE naming one; the expected ones addressed to the root
     * are still summed.
     */
    void NoExpectation()
    {
        Build(65536, MilliSeconds(10));
        const uint64_t expected = Bits({"CHI", "LAX"});
        Expect(m_toLon, 0, expected, "LON");
        Play(m_toLon,
             0,
             {{1, DATA, "CHI", 0, 0, "AMS"},
              {2, AGGREGATE, "LAX", expected, 1, "AMS"},
              {3, DATA, "SIN", 0, 0, "LON"},
              {4, AGGREGATE, "LAX", Bits({"LAX", "SIN"}), 0, "LON"}});
        Play(m_toLon, 0, {{5, DATA, "CHI", 0, 0, "LON"}, {6, DATA, "LAX", 0, 0, "LON"}});
        Simulator::Run();
        NS_TEST_EXPECT_MSG_EQ(m_toLon->GetPassThroughs(AggregatorNetDevice::NO_EXPECTATION),
                              4u,
                              "four pass: NO_EXPECTATION");
        NS_TEST_EXPECT_MSG_EQ(m_toLon->GetPassThroughs(), 4u, "nothing else passed");
        NS_TEST_EXPECT_MSG_EQ(m_toLon->GetContributionsIn(), 2u, "two contributions");
        NS_TEST_ASSERT_MSG_EQ(m_sentLon.size(), 5u, "four passed, one aggregate");
        if (m_sentLon.size() >= 2)
        {
            NS_TEST_EXPECT_MSG_EQ(m_sentLon[0].destination, Address("AMS"), "passed as it came");
            NS_TEST_EXPECT_MSG_EQ(m_sentLon[1].header.GetContributors(), expected, "unchanged");
        }
        CheckAggregate(m_sentLon, 4, expected, 0, "the expected ones");
        End();
    }

    /**
     * @brief A VIEW addressed to the root narrows the tree expectation of its (job, round, clique):
     * with {CHI, LAX, TYO} expected and CHI's and LAX's DATA of chunk 0 in a slot, a VIEW to
     * another island changes nothing; a VIEW to the root that leaves TYO out releases the slot at
     * once as a complete aggregate of {CHI, LAX}; chunk 1 then completes without TYO; the VIEWs
     * pass unchanged (NOT_DATA); the expectation of another clique is untouched.
     */
    void View()
    {
        Build(65536, MilliSeconds(50));
        const uint64_t all = Bits({"CHI", "LAX", "TYO"});
        const uint64_t left = Bits({"CHI", "LAX"});
        AggregatorNetDevice::Expectation expectation;
        expectation.contributors = all;
        expectation.root = Address("LON");
        m_toLon->SetExpectations(JOB, {{{0, expectation}, {1, expectation}}});
        const uint64_t view = Bits({"CHI", "LAX", "LON"});
        Play(m_toLon,
             0,
             {{1, DATA, "CHI", 0, 0, "LON"},
              {2, DATA, "LAX", 0, 0, "LON"},
              {3, VIEW, "CHI", view, 0, "AMS"}});
        uint64_t afterOther = 0;
        std::size_t sentAfterOther = 0;
        Simulator::Schedule(MicroSeconds(3100), [&]() {
            afterOther = m_toLon->GetExpectedContributors(JOB, 0, 0);
            sentAfterOther = OfType(m_sentLon, AGGREGATE).size();
        });
        Play(m_toLon, 0, {{4, VIEW, "CHI", view, 0, "LON"}});
        std::size_t sentAfterView = 0;
        Simulator::Schedule(MicroSeconds(4100),
                            [&]() { sentAfterView = OfType(m_sentLon, AGGREGATE).size(); });
        Play(m_toLon, 0, {{5, DATA, "CHI", 0, 1, "LON"}, {6, DATA, "LAX", 0, 1, "LON"}});
        Simulator::Run();

        NS_TEST_EXPECT_MSG_EQ(afterOther, all, "a VIEW to another island: unchanged");
        NS_TEST_EXPECT_MSG_EQ(sentAfterOther, 0u, "and the slot stays open");
        NS_TEST_EXPECT_MSG_EQ(sentAfterView, 1u, "the open slot completes at the VIEW");
        NS_TEST_EXPECT_MSG_EQ(m_toLon->GetExpectedContributors(JOB, 0, 0), left, "narrowed");
        NS_TEST_EXPECT_MSG_EQ(m_toLon->GetExpectedContributors(JOB, 0, 1),
                              all,
                              "another clique untouched");
        std::vector<Sent> aggregates = OfType(m_sentLon, AGGREGATE);
        NS_TEST_ASSERT_MSG_EQ(aggregates.size(), 2u, "two aggregates");
        CheckAggregate(aggregates, 0, left, 0, "chunk 0 at the VIEW");
        CheckAggregate(aggregates, 1, left, 1, "chunk 1 without TYO");
        NS_TEST_EXPECT_MSG_EQ(m_toLon->GetTimeouts(), 0u, "both complete");
        NS_TEST_EXPECT_MSG_EQ(OfType(m_sentLon, IslandSyncHeader::VIEW).size(), 2u, "VIEWs pass");
        NS_TEST_EXPECT_MSG_EQ(m_toLon->GetPassThroughs(AggregatorNetDevice::NOT_DATA),
                              2u,
                              "VIEWs: NOT_DATA");
        End();
    }

    /**
     * @brief One FPGA per router: with SlotCount 1, a slot open on NYC's port toward LON makes a
     * contribution that needs a slot on its port toward FRA pass through (NO_SLOT, its chunk then
     * closed: the next contribution of that chunk passes as CLOSED); once the first slot completes,
     * the other port opens one. The router's FPGA counts every port: its totals are the sums of
     * its ports' counters, and its slot high-water mark is 1.
     */
    void SharedSlots()
    {
        Build(1, MilliSeconds(50));
        Expect(m_toLon, 0, Bits({"CHI", "LAX"}), "LON");
        Expect(m_toFra, 1, Bits({"LAX", "TYO"}), "FRA");
        Ptr<InlineFpga> fpga = m_wan->GetFpga(City("NYC"));
        NS_TEST_ASSERT_MSG_EQ(fpga, m_toLon->GetFpga(), "the port's FPGA is the router's");
        NS_TEST_ASSERT_MSG_EQ(fpga, m_toFra->GetFpga(), "one FPGA for both ports");
        uint32_t inUse = 0;
        Play(m_toLon, 0, {{1, DATA, "CHI", 0, 0, "LON"}, {4, DATA, "LAX", 0, 0, "LON"}});
        Play(m_toFra, 1, {{2, DATA, "LAX", 0, 0, "FRA"}, {3, DATA, "TYO", 0, 0, "FRA"}});
        Play(m_toFra, 1, {{5, DATA, "LAX", 0, 1, "FRA"}, {6, DATA, "TYO", 0, 1, "FRA"}});
        Simulator::Schedule(MicroSeconds(1100), [&]() { inUse = fpga->GetSlotsInUse(); });
        Simulator::Run();

        NS_TEST_EXPECT_MSG_EQ(inUse, 1u, "the slot taken by the port toward LON");
        const uint64_t noSlot = m_toFra->GetPassThroughs(AggregatorNetDevice::NO_SLOT);
        const uint64_t closed = m_toFra->GetPassThroughs(AggregatorNetDevice::CLOSED);
        NS_TEST_EXPECT_MSG_EQ(noSlot, 1u, "no slot left for the port toward FRA");
        NS_TEST_EXPECT_MSG_EQ(closed, 1u, "its chunk closed");
        NS_TEST_EXPECT_MSG_EQ(m_toLon->GetAggregatesOut(), 1u, "the port toward LON completes");
        NS_TEST_EXPECT_MSG_EQ(m_toFra->GetAggregatesOut(), 1u, "then the port toward FRA sums");
        NS_TEST_EXPECT_MSG_EQ(fpga->GetSlotHighWaterMark(), 1u, "one slot at most");
        NS_TEST_EXPECT_MSG_EQ(fpga->GetSlotsInUse(), 0u, "every slot free at the end");
        // NYC's ports: toward CHI, LAX, LON and FRA, and toward its island.
        NS_TEST_EXPECT_MSG_EQ(fpga->GetPorts().size(), 5u, "one FPGA port per router port");
        uint64_t totals[4] = {0, 0, 0, 0};
        for (AggregatorNetDevice* port : fpga->GetPorts())
        {
            totals[0] += port->GetContributionsIn();
            totals[1] += port->GetContributionsSummed();
            totals[2] += port->GetAggregatesOut();
            totals[3] += port->GetPassThroughs();
        }
        const uint64_t router[4] = {fpga->GetContributionsIn(),
                                    fpga->GetContributionsSummed(),
                                    fpga->GetAggregatesOut(),
                                    fpga->GetPassThroughs()};
        const uint64_t expected[4] = {6, 4, 2, 2};
        const char* names[4] = {"contributions in", "summed", "aggregates out", "pass-throughs"};
        for (uint32_t k = 0; k < 4; ++k)
        {
            NS_TEST_EXPECT_MSG_EQ(router[k], totals[k], names[k] << ": the sum over the ports");
            NS_TEST_EXPECT_MSG_EQ(router[k], expected[k], names[k]);
        }
        End();
    }

  private:
    void DoRun() override
    {
        (this->*m_scenario)();
    }

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
        m_wan = std::make_unique<WanTopologyHelper>(*m_topology);
        AggregatorHelper aggregators;
        aggregators.SetAttribute("SlotCount", UintegerValue(slots));
        aggregators.SetAttribute("Timeout", TimeValue(timeout));
        aggregators.Install(*m_wan, WanTopologyHelper::EVERY_PORT);
        m_wan->Install();
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
            m_wan->GetTxDevice(m_topology->GetWanDirectedLink(City(from), City(to))));
        NS_ABORT_MSG_UNLESS(port, from << "->" << to << " is no FPGA port");
        return port;
    }

    /**
     * @param id a city id
     * @return its island's address
     */
    Ipv4Address Address(const std::string& id) const
    {
        return m_wan->GetIslandAddress(City(id));
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
     * @param x a float32 input of an FPGA
     * @return it in the FPGA's accumulator: round-half-even(x 2^32) (64-bit fixed point)
     */
    static int64_t Fixed(float x)
    {
        return static_cast<int64_t>(std::nearbyint(std::ldexp(static_cast<double>(x), 32)));
    }

    /**
     * @param sums fixed-point sums
     * @return them read back as the FPGA sends them: float32(sum 2^-32)
     */
    static std::vector<float> ToFloats(const std::vector<int64_t>& sums)
    {
        std::vector<float> values(sums.size());
        for (std::size_t v = 0; v < sums.size(); ++v)
        {
            values[v] = static_cast<float>(std::ldexp(static_cast<double>(sums[v]), -32));
        }
        return values;
    }

    /**
     * @param contributors some contributors
     * @param chunk a chunk
     * @return their values summed in the FPGA's fixed point (each input converted once)
     */
    static std::vector<int64_t> FixedSum(uint64_t contributors, uint32_t chunk)
    {
        std::vector<int64_t> sums(VALUES, 0);
        for (uint32_t island = 0; island < IslandSyncHeader::MAX_ISLANDS; ++island)
        {
            if (contributors & (uint64_t{1} << island))
            {
                const std::vector<float> values = Values(island, chunk);
                for (uint32_t v = 0; v < VALUES; ++v)
                {
                    sums[v] += Fixed(values[v]);
                }
            }
        }
        return sums;
    }

    /**
     * @param contributors some contributors
     * @param chunk a chunk
     * @return their values summed as an FPGA sums them (FixedSum), rounded once to float32
     */
    static std::vector<float> Sum(uint64_t contributors, uint32_t chunk)
    {
        return ToFloats(FixedSum(contributors, chunk));
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

    /** One datagram of a test: when, what, from whom, to which island. */
    struct Step
    {
        uint32_t ms;                 //!< when, in ms
        IslandSyncHeader::Type type; //!< DATA, AGGREGATE or VIEW
        std::string sender;          //!< the sender's city id
        uint64_t bits;               //!< AGGREGATE, VIEW: the bitmap (DATA: the sender's bit)
        uint32_t chunk;              //!< the chunk
        std::string to;              //!< the IPv4 destination's city id
    };

    /**
     * @brief Hand datagrams to a port (Inject).
     * @param port the port
     * @param clique their clique id
     * @param steps the datagrams
     */
    void Play(Ptr<AggregatorNetDevice> port, uint16_t clique, const std::vector<Step>& steps)
    {
        for (const Step& step : steps)
        {
            const uint64_t bits =
                step.type == IslandSyncHeader::DATA ? Bits({step.sender}) : step.bits;
            Inject(MilliSeconds(step.ms),
                   port,
                   Header(step.type, clique, City(step.sender), bits, step.chunk),
                   Address(step.to));
        }
    }

    /**
     * @param ids city ids
     * @return their contributor bitmap
     */
    uint64_t Bits(const std::vector<std::string>& ids) const
    {
        uint64_t bits = 0;
        for (const std::string& id : ids)
        {
            bits |= uint64_t{1} << City(id);
        }
        return bits;
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
     * @brief Check the counters of the port toward LON.
     * @param expected contributions in, summed, aggregates out, timeouts, pass-throughs,
     *        duplicates
     * @param what a label
     */
    void ExpectCounters(const std::vector<uint64_t>& expected, const std::string& what)
    {
        const std::vector<uint64_t> counters{m_toLon->GetContributionsIn(),
                                             m_toLon->GetContributionsSummed(),
                                             m_toLon->GetAggregatesOut(),
                                             m_toLon->GetTimeouts(),
                                             m_toLon->GetPassThroughs(),
                                             m_toLon->GetDuplicates()};
        const char* names[] = {"in", "summed", "aggregates", "timeouts", "passed", "duplicates"};
        for (std::size_t k = 0; k < counters.size(); ++k)
        {
            NS_TEST_EXPECT_MSG_EQ(counters[k], expected.at(k), what << ": " << names[k]);
        }
    }

    /**
     * @brief Check an aggregate the port sent.
     * @param sentPackets what the port transmitted
     * @param index the aggregate's place in it
     * @param contributors the union bitmap expected
     * @param chunk its chunk
     * @param what a label
     * @param below the values of the partial aggregate summed into it (empty: none; the
     *        contributors' DATA values are summed instead)
     * @param belowBits the contributors of that partial aggregate
     */
    void CheckAggregate(const std::vector<Sent>& sentPackets,
                        std::size_t index,
                        uint64_t contributors,
                        uint32_t chunk,
                        const std::string& what,
                        const std::vector<float>& below = {},
                        uint64_t belowBits = 0)
    {
        // What the FPGA adds: each float32 input (the DATA, and the partial aggregate from
        // below as one input) in 64-bit fixed point, read back and rounded once to float32.
        std::vector<int64_t> sums = FixedSum(contributors & ~belowBits, chunk);
        for (std::size_t v = 0; v < below.size(); ++v)
        {
            sums[v] += Fixed(below[v]);
        }
        const std::vector<float> expected = ToFloats(sums);
        if (index >= sentPackets.size())
        {
            NS_TEST_EXPECT_MSG_LT(index, sentPackets.size(), what << ": sent");
            return;
        }
        const Sent& sent = sentPackets[index];
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

    Scenario m_scenario;                      //!< what the case runs
    std::unique_ptr<WanTopology> m_topology;  //!< the reference WAN
    std::unique_ptr<WanTopologyHelper> m_wan; //!< the scenario
    Ptr<AggregatorNetDevice> m_toLon;         //!< NYC's port toward LON
    Ptr<AggregatorNetDevice> m_toFra;         //!< NYC's port toward FRA
    std::vector<Sent> m_sentLon;              //!< what m_toLon transmitted
    std::vector<Sent> m_sentFra;              //!< what m_toFra transmitted
};

/**
 * @ingroup wan-training-tests
 * @brief The in-line FPGA suite (issue 19): one case per scenario of InlineFpgaTestCase.
 */
static class InlineFpgaTestSuite : public TestSuite
{
  public:
    InlineFpgaTestSuite()
        : TestSuite("wan-training-inline-fpga", UNIT)
    {
        const std::vector<std::pair<std::string, InlineFpgaTestCase::Scenario>> scenarios{
            {"an AGGREGATE and a DATA summed into one aggregate to the root, "
             "complete and partial",
             &InlineFpgaTestCase::Sum},
            {"a partial aggregate overlapping its slot passes (OVERLAP), the slot "
             "completes; a DATA duplicate is absorbed",
             &InlineFpgaTestCase::Overlap},
            {"a contribution the fixed-point sum cannot take passes (OVERFLOW), the slot "
             "leaves at once as a partial aggregate, the chunk closes",
             &InlineFpgaTestCase::Overflow},
            {"payload formats: the aggregate is encoded in its slot's format; a contribution "
             "in another format passes (MISMATCH)",
             &InlineFpgaTestCase::Formats},
            {"tree entry: not to the root, or an unexpected contributor: "
             "NO_EXPECTATION",
             &InlineFpgaTestCase::NoExpectation},
            {"a VIEW to the root narrows the expectation: the open slot completes "
             "at once, new slots expect less",
             &InlineFpgaTestCase::View},
            {"SlotCount is shared by the router's ports; router counters are "
             "the sums over its ports",
             &InlineFpgaTestCase::SharedSlots},
        };
        for (const auto& [name, scenario] : scenarios)
        {
            AddTestCase(new InlineFpgaTestCase(name, scenario), TestCase::QUICK);
        }
    }
} g_inlineFpgaTestSuite; //!< the suite's instance
