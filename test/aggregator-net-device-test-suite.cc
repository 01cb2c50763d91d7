/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "aggregator-helper.h"
#include "aggregator-net-device.h"
#include "clique-schedule.h"
#include "island-sync-header.h"
#include "island-timing.h"
#include "training-island-application.h"
#include "wan-topology-helper.h"
#include "wan-topology.h"

#include "ns3/boolean.h"
#include "ns3/data-rate.h"
#include "ns3/global-value.h"
#include "ns3/inet-socket-address.h"
#include "ns3/ipv4-header.h"
#include "ns3/names.h"
#include "ns3/nstime.h"
#include "ns3/packet.h"
#include "ns3/point-to-point-channel.h"
#include "ns3/ppp-header.h"
#include "ns3/simulator.h"
#include "ns3/socket.h"
#include "ns3/test.h"
#include "ns3/udp-header.h"
#include "ns3/udp-socket-factory.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

/**
 * @file
 * @ingroup wan-training-tests
 * AggregatorNetDevice test suite: DATA chunks with real values sent with plain UDP sockets
 * between islands of the nine-city scenario with in-line FPGAs; the receiver checks the
 * aggregates against sums computed here, the contributor bitmaps and counts, the ingress on its
 * access link, pass-through of other traffic, slot exhaustion, timeouts, duplicates, the slot
 * high-water mark, and the placement and configuration done by the helpers.
 */

using namespace ns3;

namespace
{

/** The nine-city topology, relative to the test data directory. */
const std::string NINE_CITY = "../topologies/doublezero-nine-city.json";
/** The job id of the test exchanges. */
const uint16_t JOB = 7;
/** The sync port. */
const uint16_t PORT = TrainingIslandApplication::DEFAULT_PORT;
/** A port for non-sync traffic. */
const uint16_t OTHER_PORT = 5000;
/** Float values per chunk (except the last chunk, which carries none). */
const uint32_t CHUNK_VALUES = 8;
/** UDP payload bytes of every chunk: sync header, values and zero padding. */
const uint32_t CHUNK_PAYLOAD = 1000;
/** First network of the access link block (the documented address plan). */
const uint32_t ACCESS_BLOCK_BASE = 0x0A800000;

/**
 * @param island an island index
 * @return its contributor bit
 */
uint64_t
Bit(uint32_t island)
{
    return uint64_t{1} << island;
}

/**
 * @param chunk a chunk index
 * @param chunkCount the chunks of the stream
 * @return the number of values of the chunk (the last chunk has none)
 */
uint32_t
ValueCount(uint32_t chunk, uint32_t chunkCount)
{
    return chunk + 1 == chunkCount ? 0 : CHUNK_VALUES;
}

/**
 * @param sender a contributing island
 * @param chunk a chunk index
 * @param chunkCount the chunks of the stream
 * @return the sender's values of the chunk: pseudo-random in [-1, 1], fixed per (sender, chunk)
 */
std::vector<float>
ContributionValues(uint32_t sender, uint32_t chunk, uint32_t chunkCount)
{
    std::mt19937 generator(1000 * sender + chunk + 1);
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    std::vector<float> values(ValueCount(chunk, chunkCount));
    for (float& value : values)
    {
        value = uniform(generator);
    }
    return values;
}

/**
 * @brief AggregateOut sink: count complete aggregates.
 * @param count the counter
 * @param header the aggregate's header
 * @param complete whether it is complete
 */
void
CountComplete(uint32_t* count, const IslandSyncHeader& /* header */, bool complete)
{
    *count += complete ? 1 : 0;
}

/**
 * @brief ContributionIn sink: count contributions.
 * @param count the counter
 * @param header the contribution's header
 */
void
CountHeader(uint32_t* count, const IslandSyncHeader& /* header */)
{
    ++*count;
}

/**
 * @brief ContributionIn sink: the time of each chunk's first contribution.
 * @param opened chunk index -> time
 * @param header the contribution's header
 */
void
NoteOpened(std::map<uint32_t, Time>* opened, const IslandSyncHeader& header)
{
    opened->emplace(header.GetChunkIndex(), Simulator::Now());
}

/**
 * @brief Timeout sink: when each chunk was released and whom it lacked.
 * @param released chunk index -> time
 * @param missing chunk index -> missing contributors
 * @param header the partial aggregate's header
 * @param lacking the missing contributors
 */
void
NoteTimeout(std::map<uint32_t, Time>* released,
            std::map<uint32_t, uint64_t>* missing,
            const IslandSyncHeader& header,
            uint64_t lacking)
{
    (*released)[header.GetChunkIndex()] = Simulator::Now();
    (*missing)[header.GetChunkIndex()] = lacking;
}

/**
 * @brief ContributionIn sink: when each sender's contribution to each chunk left the pipeline
 * (the first time).
 * @param exits (sender, chunk) -> time
 * @param header the contribution's header
 */
void
NoteExit(std::map<std::pair<uint32_t, uint32_t>, Time>* exits, const IslandSyncHeader& header)
{
    exits->emplace(std::make_pair(uint32_t{header.GetSender()}, header.GetChunkIndex()),
                   Simulator::Now());
}

/**
 * @brief SlotsInUse sink: the largest value.
 * @param max the largest value so far
 * @param oldValue the previous value
 * @param newValue the new value
 */
void
NoteMax(uint32_t* max, uint32_t /* oldValue */, uint32_t newValue)
{
    *max = std::max(*max, newValue);
}

/** What the receiving island got on one socket. */
struct Received
{
    bool sync{false};           //!< whether the payload parsed as an IslandSyncHeader
    IslandSyncHeader header;    //!< the header when sync
    uint32_t payloadBytes{0};   //!< UDP payload bytes
    std::vector<uint8_t> bytes; //!< the UDP payload
    InetSocketAddress from{Ipv4Address::GetAny(), 0}; //!< the sender's address and port
    Time at;                                          //!< when it was received
};

/**
 * @ingroup wan-training-tests
 * @brief Shared machinery: the nine-city scenario with FPGAs, one round of cliques, UDP
 * senders and a receiving socket, and the reference sums.
 */
class AggregatorTestCase : public TestCase
{
  public:
    /**
     * @param name the test case name
     */
    explicit AggregatorTestCase(const std::string& name);

  protected:
    /**
     * @brief Build the scenario with an FPGA in every city and configure them for a
     * one-round schedule.
     * @param cliques the cliques of the round, by city id
     */
    void Build(const std::vector<std::vector<std::string>>& cliques);
    /** End the test case: destroy the simulation and forget the node names. */
    void End();

    /**
     * @param id a city id
     * @return its index
     */
    uint32_t City(const std::string& id) const;
    /**
     * @brief Open the receiving sockets (sync port and OTHER_PORT) on an island.
     * @param island the island
     */
    void Listen(uint32_t island);
    /**
     * @brief Count the sync packets arriving on an island's access link (its `A:down`).
     * @param island the island
     */
    void CountIngress(uint32_t island);
    /**
     * @brief Schedule one DATA chunk from one island to another with a plain UDP socket.
     * @param at when to send
     * @param sender the contributing island
     * @param receiver the receiving island
     * @param clique the clique id
     * @param chunk the chunk index
     * @param chunkCount the chunks of the stream
     */
    void SendData(Time at,
                  uint32_t sender,
                  uint32_t receiver,
                  uint16_t clique,
                  uint32_t chunk,
                  uint32_t chunkCount);
    /**
     * @brief Schedule a UDP datagram with a given payload.
     * @param at when to send
     * @param sender the sending island
     * @param receiver the receiving island
     * @param port the destination port
     * @param payload the UDP payload
     */
    void SendRaw(Time at,
                 uint32_t sender,
                 uint32_t receiver,
                 uint16_t port,
                 const std::vector<uint8_t>& payload);
    /**
     * @param header a DATA header
     * @return the UDP payload of a chunk with that header
     */
    static std::vector<uint8_t> ChunkPayload(const IslandSyncHeader& header);
    /**
     * @param clique the clique id
     * @param sender the contributing island
     * @param chunk the chunk index
     * @param chunkCount the chunks of the stream
     * @return the DATA header the test sends
     */
    static IslandSyncHeader DataHeader(uint16_t clique,
                                       uint32_t sender,
                                       uint32_t chunk,
                                       uint32_t chunkCount);
    /**
     * @brief Check the values of an aggregate (or of a sum of received packets) against the
     * exact sum of the contributors' values, relative error <= 1e-6.
     * @param got the values received
     * @param contributors the contributing islands
     * @param chunk the chunk index
     * @param chunkCount the chunks of the stream
     * @param what a label for the messages
     */
    void CheckSum(const std::vector<double>& got,
                  uint64_t contributors,
                  uint32_t chunk,
                  uint32_t chunkCount,
                  const std::string& what);
    /**
     * @param island an island
     * @return the island's FPGA
     */
    Ptr<AggregatorNetDevice> Fpga(uint32_t island) const;
    /**
     * @brief The scenario of the timeout cases: FPGAs with a Timeout, one clique {nyc, chi, lax,
     * lon}, lon listening; for lon's FPGA, m_opened, m_released and m_missing record when each
     * chunk's slot opened (its first ContributionIn), when it timed out and whom it lacked.
     * @param timeout the FPGAs' Timeout
     * @return lon's FPGA
     */
    Ptr<AggregatorNetDevice> BuildTimeoutScenario(Time timeout);

    std::unique_ptr<WanTopology> m_topology;       //!< the nine-city topology
    std::unique_ptr<WanTopologyHelper> m_scenario; //!< the scenario
    AggregatorHelper m_aggregators;                //!< places and configures the FPGAs
    std::vector<Received> m_received;              //!< what the listening island got
    uint32_t m_ingressSync{0};              //!< sync packets on the listening island's access link
    uint32_t m_ingressOther{0};             //!< other packets on the listening island's access link
    std::map<uint32_t, Time> m_opened;      //!< BuildTimeoutScenario: chunk -> slot opened
    std::map<uint32_t, Time> m_released;    //!< BuildTimeoutScenario: chunk -> partial release
    std::map<uint32_t, uint64_t> m_missing; //!< BuildTimeoutScenario: chunk -> contributors lacking

  private:
    /**
     * @brief Receive callback of the listening sockets.
     * @param socket the socket
     */
    void Receive(Ptr<Socket> socket);
    /**
     * @brief MacRx sink of the listening island's access device.
     * @param packet the packet with its PPP header
     */
    void Ingress(Ptr<const Packet> packet);

    std::map<uint32_t, Ptr<Socket>> m_senders; //!< one UDP socket per sending island
};

AggregatorTestCase::AggregatorTestCase(const std::string& name)
    : TestCase(name)
{
}

void
AggregatorTestCase::Build(const std::vector<std::vector<std::string>>& cliques)
{
    m_topology =
        std::make_unique<WanTopology>(WanTopology::LoadFile(CreateDataDirFilename(NINE_CITY)));
    m_scenario = std::make_unique<WanTopologyHelper>(*m_topology);
    m_aggregators.Install(*m_scenario);
    m_scenario->Install();
    CliqueSchedule::Round round;
    for (const auto& ids : cliques)
    {
        CliqueSchedule::Clique clique;
        for (const auto& id : ids)
        {
            clique.push_back(City(id));
        }
        round.push_back(clique);
    }
    CliqueSchedule schedule(m_topology->GetNCities(), {round});
    m_aggregators.SetSchedule(*m_scenario, schedule.WithMode(CapabilityMode::AGGREGATION), JOB);
}

void
AggregatorTestCase::End()
{
    m_senders.clear();
    Simulator::Destroy();
    Names::Clear();
}

uint32_t
AggregatorTestCase::City(const std::string& id) const
{
    return m_topology->GetCityIndex(id);
}

Ptr<AggregatorNetDevice>
AggregatorTestCase::Fpga(uint32_t island) const
{
    return m_aggregators.GetAggregator(*m_scenario, island);
}

Ptr<AggregatorNetDevice>
AggregatorTestCase::BuildTimeoutScenario(Time timeout)
{
    m_aggregators.SetAttribute("Timeout", TimeValue(timeout));
    Build({{"nyc", "chi", "lax", "lon"}});
    Listen(City("lon"));
    Ptr<AggregatorNetDevice> fpga = Fpga(City("lon"));
    fpga->TraceConnectWithoutContext("ContributionIn", MakeBoundCallback(&NoteOpened, &m_opened));
    fpga->TraceConnectWithoutContext("Timeout",
                                     MakeBoundCallback(&NoteTimeout, &m_released, &m_missing));
    return fpga;
}

void
AggregatorTestCase::Listen(uint32_t island)
{
    for (uint16_t port : {PORT, OTHER_PORT})
    {
        Ptr<Socket> socket =
            Socket::CreateSocket(m_scenario->GetIsland(island), UdpSocketFactory::GetTypeId());
        NS_TEST_ASSERT_MSG_EQ(socket->Bind(InetSocketAddress(Ipv4Address::GetAny(), port)),
                              0,
                              "bind the receiving socket");
        socket->SetRecvCallback(MakeCallback(&AggregatorTestCase::Receive, this));
    }
}

void
AggregatorTestCase::CountIngress(uint32_t island)
{
    m_scenario->GetRxDevice(m_topology->GetAccessDownLink(island))
        ->TraceConnectWithoutContext("MacRx", MakeCallback(&AggregatorTestCase::Ingress, this));
}

void
AggregatorTestCase::Receive(Ptr<Socket> socket)
{
    Address from;
    while (Ptr<Packet> packet = socket->RecvFrom(from))
    {
        Received received;
        received.payloadBytes = packet->GetSize();
        received.bytes.resize(packet->GetSize());
        packet->CopyData(received.bytes.data(), packet->GetSize());
        received.from = InetSocketAddress::ConvertFrom(from);
        received.sync = packet->PeekHeader(received.header) != 0;
        received.at = Simulator::Now();
        m_received.push_back(received);
    }
}

void
AggregatorTestCase::Ingress(Ptr<const Packet> packet)
{
    Ptr<Packet> copy = packet->Copy();
    PppHeader ppp;
    Ipv4Header ip;
    UdpHeader udp;
    IslandSyncHeader header;
    copy->RemoveHeader(ppp);
    copy->RemoveHeader(ip);
    copy->RemoveHeader(udp);
    if (udp.GetDestinationPort() == PORT && copy->PeekHeader(header) != 0)
    {
        ++m_ingressSync;
    }
    else
    {
        ++m_ingressOther;
    }
}

IslandSyncHeader
AggregatorTestCase::DataHeader(uint16_t clique,
                               uint32_t sender,
                               uint32_t chunk,
                               uint32_t chunkCount)
{
    IslandSyncHeader header;
    header.SetType(IslandSyncHeader::DATA);
    header.SetJobId(JOB);
    header.SetRound(0);
    header.SetCliqueId(clique);
    header.SetSender(static_cast<uint16_t>(sender));
    header.SetChunkIndex(chunk);
    header.SetChunkCount(chunkCount);
    header.SetContributors(Bit(sender));
    header.SetValueOffset(chunk * CHUNK_VALUES);
    header.SetValues(ContributionValues(sender, chunk, chunkCount));
    return header;
}

std::vector<uint8_t>
AggregatorTestCase::ChunkPayload(const IslandSyncHeader& header)
{
    Ptr<Packet> packet = Create<Packet>(CHUNK_PAYLOAD - header.GetSerializedSize());
    packet->AddHeader(header);
    std::vector<uint8_t> bytes(packet->GetSize());
    packet->CopyData(bytes.data(), bytes.size());
    return bytes;
}

void
AggregatorTestCase::SendRaw(Time at,
                            uint32_t sender,
                            uint32_t receiver,
                            uint16_t port,
                            const std::vector<uint8_t>& payload)
{
    Ptr<Socket>& socket = m_senders[sender];
    if (!socket)
    {
        socket = Socket::CreateSocket(m_scenario->GetIsland(sender), UdpSocketFactory::GetTypeId());
        NS_TEST_ASSERT_MSG_EQ(socket->Bind(), 0, "bind a sending socket");
    }
    InetSocketAddress to(m_scenario->GetIslandAddress(receiver), port);
    Ptr<Socket> s = socket;
    Simulator::Schedule(at - Simulator::Now(), [s, to, payload]() {
        s->SendTo(Create<Packet>(payload.data(), payload.size()), 0, to);
    });
}

void
AggregatorTestCase::SendData(Time at,
                             uint32_t sender,
                             uint32_t receiver,
                             uint16_t clique,
                             uint32_t chunk,
                             uint32_t chunkCount)
{
    SendRaw(at,
            sender,
            receiver,
            PORT,
            ChunkPayload(DataHeader(clique, sender, chunk, chunkCount)));
}

void
AggregatorTestCase::CheckSum(const std::vector<double>& got,
                             uint64_t contributors,
                             uint32_t chunk,
                             uint32_t chunkCount,
                             const std::string& what)
{
    std::vector<long double> exact(ValueCount(chunk, chunkCount), 0.0L);
    for (uint32_t island = 0; island < IslandSyncHeader::MAX_ISLANDS; ++island)
    {
        if (contributors & Bit(island))
        {
            std::vector<float> values = ContributionValues(island, chunk, chunkCount);
            for (std::size_t v = 0; v < values.size(); ++v)
            {
                exact[v] += values[v];
            }
        }
    }
    NS_TEST_ASSERT_MSG_EQ(got.size(), exact.size(), what << ": number of values");
    for (std::size_t v = 0; v < exact.size(); ++v)
    {
        long double error = std::fabs(static_cast<long double>(got[v]) - exact[v]);
        NS_TEST_EXPECT_MSG_LT_OR_EQ(static_cast<double>(error),
                                    1e-6 * static_cast<double>(std::fabs(exact[v])),
                                    what << ": value " << v << " is " << got[v]
                                         << ", the exact sum is " << static_cast<double>(exact[v]));
    }
}

/**
 * @ingroup wan-training-tests
 * @brief Four members send every chunk to a fifth: exactly one aggregate per chunk with the
 * exact sum, the union bitmap and the count, the wire size of a contribution, from the router's
 * access address; one sync packet per chunk on the receiver's access link; non-sync traffic,
 * a NACK and DATA without expectation pass unchanged.
 */
class AggregatorCompleteTestCase : public AggregatorTestCase
{
  public:
    /**
     * @param checksums whether IPv4 and UDP checksums are computed and verified
     *        (ns3::GlobalValue ChecksumEnabled)
     */
    explicit AggregatorCompleteTestCase(bool checksums);

  private:
    void DoRun() override;

    bool m_checksums; //!< whether checksums are enabled
};

AggregatorCompleteTestCase::AggregatorCompleteTestCase(bool checksums)
    : AggregatorTestCase(std::string("complete aggregates: exact sums, bitmap, count, one per "
                                     "chunk; other traffic passes unchanged") +
                         (checksums ? " (checksums enabled)" : "")),
      m_checksums(checksums)
{
}

void
AggregatorCompleteTestCase::DoRun()
{
    SetDataDir(NS_TEST_SOURCEDIR);
    GlobalValue::Bind("ChecksumEnabled", BooleanValue(m_checksums));
    Build({{"prg", "ams"}, {"nyc", "chi", "lax", "lon", "fra"}});
    const uint16_t clique = 1;
    const uint32_t chunks = 12;
    const uint32_t receiver = City("lon");
    const std::vector<uint32_t> senders{City("nyc"), City("chi"), City("lax"), City("fra")};
    uint64_t others = 0;
    for (uint32_t sender : senders)
    {
        others |= Bit(sender);
    }
    Listen(receiver);
    CountIngress(receiver);

    uint32_t aggregateTraces = 0;
    uint32_t contributionTraces = 0;
    Ptr<AggregatorNetDevice> fpga = Fpga(receiver);
    fpga->TraceConnectWithoutContext("AggregateOut",
                                     MakeBoundCallback(&CountComplete, &aggregateTraces));
    fpga->TraceConnectWithoutContext("ContributionIn",
                                     MakeBoundCallback(&CountHeader, &contributionTraces));

    for (uint32_t c = 0; c < chunks; ++c)
    {
        for (uint32_t sender : senders)
        {
            SendData(Seconds(1) + MicroSeconds(20 * c), sender, receiver, clique, c, chunks);
        }
    }
    // Traffic the FPGA must forward unchanged: plain UDP, a NACK, and DATA of a sender (ams)
    // that is not a member of the receiver's clique.
    std::vector<uint8_t> plain(700);
    for (std::size_t k = 0; k < plain.size(); ++k)
    {
        plain[k] = static_cast<uint8_t>(k * 7 + 3);
    }
    SendRaw(Seconds(1.5), City("chi"), receiver, OTHER_PORT, plain);
    IslandSyncHeader nack;
    nack.SetType(IslandSyncHeader::NACK);
    nack.SetJobId(JOB);
    nack.SetCliqueId(clique);
    nack.SetSender(static_cast<uint16_t>(City("nyc")));
    nack.SetChunkCount(chunks);
    nack.SetContributors(Bit(receiver));
    nack.SetRanges({{2, 5}});
    Ptr<Packet> nackPacket = Create<Packet>();
    nackPacket->AddHeader(nack);
    std::vector<uint8_t> nackBytes(nackPacket->GetSize());
    nackPacket->CopyData(nackBytes.data(), nackBytes.size());
    SendRaw(Seconds(1.5), City("nyc"), receiver, PORT, nackBytes);
    std::vector<uint8_t> foreign = ChunkPayload(DataHeader(clique, City("ams"), 0, chunks));
    SendRaw(Seconds(1.5), City("ams"), receiver, PORT, foreign);

    Simulator::Run();

    std::set<uint32_t> chunksSeen;
    uint32_t aggregates = 0;
    uint32_t plainSeen = 0;
    uint32_t nackSeen = 0;
    uint32_t foreignSeen = 0;
    const Ipv4Address routerAccess(ACCESS_BLOCK_BASE + 4 * receiver + 1);
    for (const Received& received : m_received)
    {
        if (received.bytes == plain)
        {
            ++plainSeen;
            continue;
        }
        if (received.bytes == nackBytes)
        {
            ++nackSeen;
            continue;
        }
        if (received.bytes == foreign)
        {
            ++foreignSeen;
            continue;
        }
        NS_TEST_ASSERT_MSG_EQ(received.sync, true, "an unexpected packet arrived");
        const IslandSyncHeader& header = received.header;
        NS_TEST_ASSERT_MSG_EQ(header.GetType(),
                              IslandSyncHeader::AGGREGATE,
                              "a contribution reached the island without being aggregated");
        ++aggregates;
        uint32_t c = header.GetChunkIndex();
        NS_TEST_EXPECT_MSG_EQ(chunksSeen.insert(c).second, true, "two aggregates of chunk " << c);
        NS_TEST_EXPECT_MSG_EQ(header.GetContributors(), others, "union bitmap of chunk " << c);
        NS_TEST_EXPECT_MSG_EQ(header.GetContributorCount(), senders.size(), "count, chunk " << c);
        NS_TEST_EXPECT_MSG_EQ(header.GetJobId(), JOB, "job");
        NS_TEST_EXPECT_MSG_EQ(header.GetRound(), 0, "round");
        NS_TEST_EXPECT_MSG_EQ(header.GetCliqueId(), clique, "clique");
        NS_TEST_EXPECT_MSG_EQ(header.GetChunkCount(), chunks, "chunk count");
        NS_TEST_EXPECT_MSG_EQ(header.GetSender(), receiver, "sender: the receiver's FPGA");
        NS_TEST_EXPECT_MSG_EQ(header.GetValueOffset(), c * CHUNK_VALUES, "value offset");
        NS_TEST_EXPECT_MSG_EQ(received.payloadBytes,
                              CHUNK_PAYLOAD,
                              "the aggregate has the size of a contribution");
        NS_TEST_EXPECT_MSG_EQ(received.from.GetIpv4(),
                              routerAccess,
                              "source: the router's access address");
        NS_TEST_EXPECT_MSG_EQ(received.from.GetPort(), PORT, "source port");
        std::vector<double> got(header.GetValues().begin(), header.GetValues().end());
        CheckSum(got, others, c, chunks, "aggregate of chunk " + std::to_string(c));
    }
    NS_TEST_EXPECT_MSG_EQ(aggregates, chunks, "one aggregate per chunk");
    NS_TEST_EXPECT_MSG_EQ(chunksSeen.size(), chunks, "every chunk");
    NS_TEST_EXPECT_MSG_EQ(plainSeen, 1, "plain UDP passes unchanged");
    NS_TEST_EXPECT_MSG_EQ(nackSeen, 1, "a NACK passes unchanged");
    NS_TEST_EXPECT_MSG_EQ(foreignSeen, 1, "DATA without expectation passes unchanged");
    // Ingress: one sync packet per chunk, plus the NACK and the foreign DATA.
    NS_TEST_EXPECT_MSG_EQ(m_ingressSync, chunks + 2, "sync packets on the access link");
    NS_TEST_EXPECT_MSG_EQ(m_ingressOther, 1, "other packets on the access link");

    NS_TEST_EXPECT_MSG_EQ(fpga->GetContributionsIn(), senders.size() * chunks, "contributions");
    NS_TEST_EXPECT_MSG_EQ(fpga->GetContributionsSummed(), senders.size() * chunks, "summed");
    NS_TEST_EXPECT_MSG_EQ(fpga->GetAggregatesOut(), chunks, "aggregates out");
    NS_TEST_EXPECT_MSG_EQ(fpga->GetTimeouts(), 0, "timeouts");
    NS_TEST_EXPECT_MSG_EQ(fpga->GetDuplicates(), 0, "duplicates");
    NS_TEST_EXPECT_MSG_EQ(fpga->GetPassThroughs(AggregatorNetDevice::NOT_SYNC), 1, "non-sync");
    NS_TEST_EXPECT_MSG_EQ(fpga->GetPassThroughs(AggregatorNetDevice::NOT_DATA), 1, "NACK");
    NS_TEST_EXPECT_MSG_EQ(fpga->GetPassThroughs(AggregatorNetDevice::NO_EXPECTATION),
                          1,
                          "foreign DATA");
    NS_TEST_EXPECT_MSG_EQ(fpga->GetPassThroughs(), 3, "pass-throughs");
    NS_TEST_EXPECT_MSG_EQ(fpga->GetSlotsInUse(), 0, "every slot is free at the end");
    NS_TEST_EXPECT_MSG_EQ(aggregateTraces, chunks, "AggregateOut trace (complete)");
    NS_TEST_EXPECT_MSG_EQ(contributionTraces, senders.size() * chunks, "ContributionIn trace");
    // The senders' own FPGAs saw no contribution (nothing was sent to them).
    for (uint32_t sender : senders)
    {
        NS_TEST_EXPECT_MSG_EQ(Fpga(sender)->GetContributionsIn(), 0, "sender FPGA idle");
    }
    GlobalValue::Bind("ChecksumEnabled", BooleanValue(false));
    End();
}

/**
 * @ingroup wan-training-tests
 * @brief A two-slot memory: contributions that find no slot pass through; the receiver gets
 * every contribution exactly once, inside one aggregate or on its own, with exact sums.
 */
class AggregatorTinySlotTestCase : public AggregatorTestCase
{
  public:
    AggregatorTinySlotTestCase();

  private:
    void DoRun() override;
};

AggregatorTinySlotTestCase::AggregatorTinySlotTestCase()
    : AggregatorTestCase("a tiny slot memory passes contributions through without loss or "
                         "corruption")
{
}

void
AggregatorTinySlotTestCase::DoRun()
{
    SetDataDir(NS_TEST_SOURCEDIR);
    m_aggregators.SetAttribute("SlotCount", UintegerValue(2));
    Build({{"nyc", "chi", "lon", "ams", "fra"}});
    const uint32_t chunks = 20;
    const uint32_t receiver = City("ams");
    const std::vector<uint32_t> senders{City("nyc"), City("chi"), City("lon"), City("fra")};
    uint64_t others = 0;
    for (uint32_t sender : senders)
    {
        others |= Bit(sender);
    }
    Listen(receiver);
    for (uint32_t c = 0; c < chunks; ++c)
    {
        for (uint32_t sender : senders)
        {
            SendData(Seconds(1) + MicroSeconds(c), sender, receiver, 0, c, chunks);
        }
    }
    Simulator::Run();

    // Per chunk: how often each contributor arrived, and the sum of everything received.
    std::map<uint32_t, std::map<uint32_t, uint32_t>> seen;
    std::map<uint32_t, std::vector<double>> sums;
    uint32_t passedData = 0;
    for (const Received& received : m_received)
    {
        NS_TEST_ASSERT_MSG_EQ(received.sync, true, "an unexpected packet arrived");
        const IslandSyncHeader& header = received.header;
        uint32_t c = header.GetChunkIndex();
        NS_TEST_EXPECT_MSG_EQ(received.payloadBytes, CHUNK_PAYLOAD, "wire size");
        if (header.GetType() == IslandSyncHeader::DATA)
        {
            ++passedData;
            NS_TEST_EXPECT_MSG_EQ(
                (received.bytes == ChunkPayload(DataHeader(0, header.GetSender(), c, chunks))),
                true,
                "a passed-through contribution is unchanged");
        }
        for (uint32_t island = 0; island < IslandSyncHeader::MAX_ISLANDS; ++island)
        {
            if (header.GetContributors() & Bit(island))
            {
                ++seen[c][island];
            }
        }
        std::vector<double>& sum = sums[c];
        sum.resize(header.GetValues().size(), 0.0);
        for (std::size_t v = 0; v < header.GetValues().size(); ++v)
        {
            sum[v] += header.GetValues()[v];
        }
    }
    NS_TEST_EXPECT_MSG_EQ(seen.size(), chunks, "every chunk arrived");
    for (uint32_t c = 0; c < chunks; ++c)
    {
        for (uint32_t sender : senders)
        {
            NS_TEST_EXPECT_MSG_EQ(seen[c][sender],
                                  1,
                                  "chunk " << c << " of island " << sender << " exactly once");
        }
        NS_TEST_EXPECT_MSG_EQ(seen[c].size(), senders.size(), "no foreign contributor");
        CheckSum(sums[c], others, c, chunks, "received sum of chunk " + std::to_string(c));
    }

    Ptr<AggregatorNetDevice> fpga = Fpga(receiver);
    uint64_t noSlot = fpga->GetPassThroughs(AggregatorNetDevice::NO_SLOT);
    uint64_t closed = fpga->GetPassThroughs(AggregatorNetDevice::CLOSED);
    NS_TEST_EXPECT_MSG_GT(noSlot, 0, "the tiny memory overflowed");
    NS_TEST_EXPECT_MSG_EQ(fpga->GetSlotHighWaterMark(), 2, "high-water mark = SlotCount");
    NS_TEST_EXPECT_MSG_EQ(fpga->GetContributionsIn(), senders.size() * chunks, "contributions");
    NS_TEST_EXPECT_MSG_EQ(fpga->GetContributionsSummed() + noSlot + closed,
                          senders.size() * chunks,
                          "every contribution is summed or passed through");
    NS_TEST_EXPECT_MSG_EQ(passedData, noSlot + closed, "pass-throughs reach the island");
    NS_TEST_EXPECT_MSG_EQ(m_received.size(),
                          fpga->GetAggregatesOut() + noSlot + closed,
                          "packets at the island");
    NS_TEST_EXPECT_MSG_EQ(fpga->GetSlotsInUse(), 0, "every slot is free at the end");
    End();
}

/**
 * @ingroup wan-training-tests
 * @brief A member that does not send: each chunk is released as a partial aggregate exactly
 * Timeout after its slot opened, with the bitmap of the members that sent and their exact sum;
 * the late contributions then pass through unchanged.
 */
class AggregatorTimeoutTestCase : public AggregatorTestCase
{
  public:
    AggregatorTimeoutTestCase();

  private:
    void DoRun() override;
};

AggregatorTimeoutTestCase::AggregatorTimeoutTestCase()
    : AggregatorTestCase("a missing contributor: partial aggregates after Timeout, late "
                         "contributions pass through")
{
}

void
AggregatorTimeoutTestCase::DoRun()
{
    SetDataDir(NS_TEST_SOURCEDIR);
    const Time timeout = MilliSeconds(50);
    Ptr<AggregatorNetDevice> fpga = BuildTimeoutScenario(timeout);
    const uint32_t chunks = 6;
    const uint32_t receiver = City("lon");
    const uint32_t late = City("lax");
    const uint64_t present = Bit(City("nyc")) | Bit(City("chi"));

    for (uint32_t c = 0; c < chunks; ++c)
    {
        SendData(Seconds(1) + MicroSeconds(10 * c), City("nyc"), receiver, 0, c, chunks);
        SendData(Seconds(1) + MicroSeconds(10 * c), City("chi"), receiver, 0, c, chunks);
        SendData(Seconds(2) + MicroSeconds(10 * c), late, receiver, 0, c, chunks);
    }
    Simulator::Run();

    uint32_t partials = 0;
    uint32_t lateData = 0;
    for (const Received& received : m_received)
    {
        NS_TEST_ASSERT_MSG_EQ(received.sync, true, "an unexpected packet arrived");
        const IslandSyncHeader& header = received.header;
        uint32_t c = header.GetChunkIndex();
        if (header.GetType() == IslandSyncHeader::AGGREGATE)
        {
            ++partials;
            NS_TEST_EXPECT_MSG_EQ(header.GetContributors(), present, "partial bitmap");
            NS_TEST_EXPECT_MSG_EQ(header.GetContributorCount(), 2, "partial count");
            std::vector<double> got(header.GetValues().begin(), header.GetValues().end());
            CheckSum(got, present, c, chunks, "partial aggregate of chunk " + std::to_string(c));
        }
        else
        {
            ++lateData;
            NS_TEST_EXPECT_MSG_EQ(header.GetSender(), late, "late contributor");
            NS_TEST_EXPECT_MSG_EQ((received.bytes == ChunkPayload(DataHeader(0, late, c, chunks))),
                                  true,
                                  "the late contribution is unchanged");
        }
    }
    NS_TEST_EXPECT_MSG_EQ(partials, chunks, "one partial aggregate per chunk");
    NS_TEST_EXPECT_MSG_EQ(lateData, chunks, "every late contribution passed through");
    NS_TEST_EXPECT_MSG_EQ(fpga->GetTimeouts(), chunks, "timeouts");
    NS_TEST_EXPECT_MSG_EQ(fpga->GetAggregatesOut(), chunks, "aggregates");
    NS_TEST_EXPECT_MSG_EQ(fpga->GetPassThroughs(AggregatorNetDevice::CLOSED), chunks, "closed");
    NS_TEST_EXPECT_MSG_EQ(m_released.size(), chunks, "Timeout trace per chunk");
    for (const auto& [c, at] : m_released)
    {
        NS_TEST_EXPECT_MSG_EQ(at - m_opened[c], timeout, "released Timeout after the slot opened");
        NS_TEST_EXPECT_MSG_EQ(m_missing[c], Bit(late), "the missing contributor");
    }
    End();
}

/**
 * @ingroup wan-training-tests
 * @brief A contribution known lost: when a contributor's later chunk arrives, the slots of the
 * chunks it skipped stop expecting it and leave at once as partial aggregates (not after
 * Timeout), a slot opened after the loss was seen never expects it, and its repair passes the
 * closed chunk unchanged.
 */
class AggregatorKnownLostTestCase : public AggregatorTestCase
{
  public:
    AggregatorKnownLostTestCase();

  private:
    void DoRun() override;
};

AggregatorKnownLostTestCase::AggregatorKnownLostTestCase()
    : AggregatorTestCase("a contribution known lost: its slot leaves before Timeout, its repair "
                         "passes through")
{
}

void
AggregatorKnownLostTestCase::DoRun()
{
    SetDataDir(NS_TEST_SOURCEDIR);
    const Time timeout = Seconds(5);
    Ptr<AggregatorNetDevice> fpga = BuildTimeoutScenario(timeout);
    std::map<uint32_t, Time> released;
    std::map<uint32_t, uint64_t> missing;
    fpga->TraceConnectWithoutContext("KnownLost",
                                     MakeBoundCallback(&NoteTimeout, &released, &missing));
    const uint32_t chunks = 8;
    const uint32_t receiver = City("lon");
    const uint32_t lossy = City("lax");
    const uint64_t all = Bit(City("nyc")) | Bit(City("chi")) | Bit(lossy);
    const uint64_t others = all & ~Bit(lossy);
    // lax's chunk 2 is lost on the way: its chunk 3 reaches lon's FPGA after the others' chunk
    // 2 (lax is farther), so the slot is open then. Its chunk 5 is lost too, and the others
    // send from chunk 5 on 200 ms later: lax's chunk 6 arrives before chunk 5's slot opens.
    const std::set<uint32_t> lost{2, 5};
    for (uint32_t c = 0; c < chunks; ++c)
    {
        const Time at = Seconds(1) + MicroSeconds(100 * c);
        const Time others = c >= 5 ? at + MilliSeconds(200) : at;
        SendData(others, City("nyc"), receiver, 0, c, chunks);
        SendData(others, City("chi"), receiver, 0, c, chunks);
        if (!lost.count(c))
        {
            SendData(at, lossy, receiver, 0, c, chunks);
        }
    }
    std::map<std::pair<uint32_t, uint32_t>, Time> exits; // (sender, chunk) -> pipeline exit
    fpga->TraceConnectWithoutContext("ContributionIn", MakeBoundCallback(&NoteExit, &exits));
    // The receiver's repair request is answered: lax sends chunk 2 again.
    const Time repairAt = Seconds(2);
    SendData(repairAt, lossy, receiver, 0, 2, chunks);
    Simulator::Run();

    uint32_t partials = 0;
    uint32_t complete = 0;
    uint32_t passed = 0;
    for (const Received& received : m_received)
    {
        NS_TEST_ASSERT_MSG_EQ(received.sync, true, "an unexpected packet arrived");
        const IslandSyncHeader& header = received.header;
        const uint32_t c = header.GetChunkIndex();
        std::vector<double> got(header.GetValues().begin(), header.GetValues().end());
        if (header.GetType() != IslandSyncHeader::AGGREGATE)
        {
            ++passed;
            NS_TEST_EXPECT_MSG_EQ(header.GetSender(), lossy, "the repair's sender");
            NS_TEST_EXPECT_MSG_EQ(c, 2u, "the repaired chunk");
            NS_TEST_EXPECT_MSG_EQ((received.bytes == ChunkPayload(DataHeader(0, lossy, c, chunks))),
                                  true,
                                  "the repair is unchanged");
        }
        else if (lost.count(c))
        {
            ++partials;
            NS_TEST_EXPECT_MSG_EQ(header.GetContributors(), others, "partial bitmap of " << c);
            CheckSum(got, others, c, chunks, "partial aggregate of chunk " + std::to_string(c));
        }
        else
        {
            ++complete;
            NS_TEST_EXPECT_MSG_EQ(header.GetContributors(), all, "bitmap of " << c);
            CheckSum(got, all, c, chunks, "aggregate of chunk " + std::to_string(c));
        }
    }
    NS_TEST_EXPECT_MSG_EQ(partials, 2u, "one partial aggregate per lost contribution");
    NS_TEST_EXPECT_MSG_EQ(complete, chunks - 2, "the other chunks complete");
    NS_TEST_EXPECT_MSG_EQ(passed, 1u, "the repair passed through");
    NS_TEST_EXPECT_MSG_EQ(fpga->GetKnownLostReleases(), 2u, "known-lost releases");
    NS_TEST_EXPECT_MSG_EQ(fpga->GetTimeouts(), 0u, "no slot waited for its Timeout");
    NS_TEST_EXPECT_MSG_EQ(fpga->GetPassThroughs(AggregatorNetDevice::CLOSED), 1u, "closed");
    NS_TEST_EXPECT_MSG_EQ(fpga->GetSlotsInUse(), 0u, "every slot freed");
    NS_TEST_EXPECT_MSG_EQ(released.size(), 2u, "KnownLost trace per lost contribution");
    for (const auto& [c, at] : released)
    {
        NS_TEST_EXPECT_MSG_EQ(missing[c], Bit(lossy), "the lost contributor of " << c);
        // Long before Timeout: as soon as the slot holds the others' contributions and lax's
        // next chunk has shown the loss (chunk 2: lax's chunk 3 came last; chunk 5: the
        // others' chunk 5 came last, its slot expecting them alone from the start).
        const Time shown = std::max({exits[std::make_pair(City("nyc"), c)],
                                     exits[std::make_pair(City("chi"), c)],
                                     exits[std::make_pair(lossy, c + 1)]});
        NS_TEST_EXPECT_MSG_EQ(at, shown, "released when the loss was known: chunk " << c);
        NS_TEST_EXPECT_MSG_LT(at - m_opened[c], timeout / 10, "long before Timeout: " << c);
    }
    const Time othersTwo = exits[std::make_pair(City("chi"), 2u)];
    const Time lossyThree = exits[std::make_pair(lossy, 3u)];
    const Time lossySix = exits[std::make_pair(lossy, 6u)];
    const Time othersFive = exits[std::make_pair(City("nyc"), 5u)];
    NS_TEST_EXPECT_MSG_LT(othersTwo, lossyThree, "slot 2 was open when the loss was seen");
    NS_TEST_EXPECT_MSG_LT(lossySix, othersFive, "slot 5 was not yet open then");
    End();
}

/**
 * @ingroup wan-training-tests
 * @brief The slots' deadlines: a slot that completes never times out, and a slot opened after
 * Timeout was shortened is released at its own deadline, before an older slot's later one.
 */
class AggregatorDeadlineOrderTestCase : public AggregatorTestCase
{
  public:
    AggregatorDeadlineOrderTestCase();

  private:
    void DoRun() override;
};

AggregatorDeadlineOrderTestCase::AggregatorDeadlineOrderTestCase()
    : AggregatorTestCase("deadlines: completed slots never time out, a shortened Timeout applies "
                         "to the slots opened after it")
{
}

void
AggregatorDeadlineOrderTestCase::DoRun()
{
    SetDataDir(NS_TEST_SOURCEDIR);
    const Time longTimeout = Seconds(1);
    const Time shortTimeout = MilliSeconds(20);
    Ptr<AggregatorNetDevice> fpga = BuildTimeoutScenario(longTimeout);
    const uint32_t chunks = 3;
    const uint32_t receiver = City("lon");
    const uint32_t late = City("lax");
    const uint64_t present = Bit(City("nyc")) | Bit(City("chi"));

    // Chunk 0 lacks lax (deadline: opening + 1 s); chunk 1 is complete (every contribution
    // arrives within tens of ms); Timeout becomes 20 ms before chunk 2, which lacks lax, opens
    // (deadline: opening + 20 ms, before chunk 0's).
    SendData(Seconds(1), City("nyc"), receiver, 0, 0, chunks);
    SendData(Seconds(1), City("chi"), receiver, 0, 0, chunks);
    for (uint32_t sender : {City("nyc"), City("chi"), late})
    {
        SendData(Seconds(1) + MicroSeconds(10), sender, receiver, 0, 1, chunks);
    }
    Simulator::Schedule(Seconds(1.2), [fpga, shortTimeout]() {
        fpga->SetAttribute("Timeout", TimeValue(shortTimeout));
    });
    SendData(Seconds(1.3), City("nyc"), receiver, 0, 2, chunks);
    SendData(Seconds(1.3), City("chi"), receiver, 0, 2, chunks);
    SendData(Seconds(3), late, receiver, 0, 0, chunks);
    SendData(Seconds(3), late, receiver, 0, 2, chunks);
    Simulator::Run();

    std::map<uint32_t, uint64_t> aggregates;
    for (const Received& received : m_received)
    {
        NS_TEST_ASSERT_MSG_EQ(received.sync, true, "an unexpected packet arrived");
        if (received.header.GetType() == IslandSyncHeader::AGGREGATE)
        {
            aggregates[received.header.GetChunkIndex()] = received.header.GetContributors();
        }
    }
    NS_TEST_EXPECT_MSG_EQ(aggregates.size(), chunks, "one aggregate per chunk");
    NS_TEST_EXPECT_MSG_EQ(aggregates[0], present, "chunk 0 is partial");
    NS_TEST_EXPECT_MSG_EQ(aggregates[1], (present | Bit(late)), "chunk 1 is complete");
    NS_TEST_EXPECT_MSG_EQ(aggregates[2], present, "chunk 2 is partial");
    NS_TEST_EXPECT_MSG_EQ(fpga->GetTimeouts(), 2, "timeouts");
    NS_TEST_EXPECT_MSG_EQ(m_released.count(1), 0, "the complete slot did not time out");
    NS_TEST_ASSERT_MSG_EQ(m_released.size(), 2, "Timeout trace of chunks 0 and 2");
    NS_TEST_EXPECT_MSG_EQ(m_released[0] - m_opened[0],
                          longTimeout,
                          "chunk 0: the Timeout it opened with");
    NS_TEST_EXPECT_MSG_EQ(m_released[2] - m_opened[2],
                          shortTimeout,
                          "chunk 2: the shortened Timeout");
    NS_TEST_EXPECT_MSG_EQ((m_released[2] < m_released[0]), true, "the later slot timed out first");
    NS_TEST_EXPECT_MSG_EQ(m_missing[0], Bit(late), "chunk 0 lacked lax");
    NS_TEST_EXPECT_MSG_EQ(m_missing[2], Bit(late), "chunk 2 lacked lax");
    NS_TEST_EXPECT_MSG_EQ(fpga->GetPassThroughs(AggregatorNetDevice::CLOSED), 2, "late ones");
    NS_TEST_EXPECT_MSG_EQ(fpga->GetSlotsInUse(), 0, "every slot is free at the end");
    End();
}

/**
 * @ingroup wan-training-tests
 * @brief Deferred summation changes nothing but the event count: the same scenario (complete
 * chunks of four contributors, a retransmission while the slot is open, chunks whose fourth
 * contributor comes after Timeout) run with a ContributionIn sink (every contribution its own
 * exit event) and without one delivers the same packets, bytes and times, and the counters agree
 * at every probe time, with fewer events.
 */
class AggregatorDeferredTestCase : public AggregatorTestCase
{
  public:
    AggregatorDeferredTestCase();

  private:
    void DoRun() override;

    /** What one run of the scenario produced. */
    struct Outcome
    {
        std::vector<Received> received;              //!< what the island got
        std::vector<std::vector<uint64_t>> counters; //!< the FPGA's counters at each probe
        uint64_t events{0};                          //!< events executed
    };

    /**
     * @brief Build and run the scenario once.
     * @param eachExit whether a ContributionIn sink is connected
     * @return what it produced
     */
    Outcome RunScenario(bool eachExit);
};

AggregatorDeferredTestCase::AggregatorDeferredTestCase()
    : AggregatorTestCase("deferred summation: same packets, times and counters as one exit "
                         "event per contribution, fewer events")
{
}

/**
 * @brief The counters of an FPGA, in a fixed order.
 * @param fpga the FPGA
 * @param counters where to append them
 */
void
NoteCounters(Ptr<AggregatorNetDevice> fpga, std::vector<std::vector<uint64_t>>* counters)
{
    counters->push_back({fpga->GetContributionsIn(),
                         fpga->GetContributionsSummed(),
                         fpga->GetDuplicates(),
                         fpga->GetAggregatesOut(),
                         fpga->GetTimeouts(),
                         fpga->GetPassThroughs(AggregatorNetDevice::CLOSED),
                         fpga->GetSlotsInUse()});
}

AggregatorDeferredTestCase::Outcome
AggregatorDeferredTestCase::RunScenario(bool eachExit)
{
    m_aggregators.SetAttribute("Timeout", TimeValue(MilliSeconds(200)));
    Build({{"nyc", "chi", "lax", "ams", "lon"}});
    const uint32_t receiver = City("lon");
    const uint32_t chunks = 24;
    const uint32_t firstPartial = 20;
    Listen(receiver);
    Ptr<AggregatorNetDevice> fpga = Fpga(receiver);
    uint32_t exits = 0;
    if (eachExit)
    {
        fpga->TraceConnectWithoutContext("ContributionIn", MakeBoundCallback(&CountHeader, &exits));
    }
    for (uint32_t c = 0; c < chunks; ++c)
    {
        const Time at = Seconds(1) + MicroSeconds(10 * c);
        for (const char* id : {"nyc", "chi", "lax"})
        {
            SendData(at, City(id), receiver, 0, c, chunks);
        }
        SendData(c < firstPartial ? at : Seconds(2), City("ams"), receiver, 0, c, chunks);
    }
    // A retransmission that reaches the FPGA while chunk 5's slot is open (ams is farther).
    SendData(Seconds(1) + MicroSeconds(51), City("chi"), receiver, 0, 5, chunks);

    Outcome outcome;
    for (Time probe = Seconds(1); probe <= Seconds(2.2); probe += MicroSeconds(997))
    {
        Simulator::Schedule(probe, &NoteCounters, fpga, &outcome.counters);
    }
    Simulator::Run();
    NS_TEST_EXPECT_MSG_EQ(fpga->GetContributionsIn(), 4 * chunks + 1, "every contribution left");
    NS_TEST_EXPECT_MSG_EQ(fpga->GetDuplicates(), 1, "the retransmission was absorbed");
    NS_TEST_EXPECT_MSG_EQ(fpga->GetTimeouts(), chunks - firstPartial, "partial aggregates");
    if (eachExit)
    {
        NS_TEST_EXPECT_MSG_EQ(exits, 4 * chunks + 1, "ContributionIn fired for each");
    }
    outcome.received = m_received;
    outcome.events = Simulator::GetEventCount();
    m_received.clear();
    End();
    return outcome;
}

void
AggregatorDeferredTestCase::DoRun()
{
    SetDataDir(NS_TEST_SOURCEDIR);
    const Outcome each = RunScenario(true);
    const Outcome deferred = RunScenario(false);

    NS_TEST_ASSERT_MSG_EQ(deferred.received.size(), each.received.size(), "packets received");
    for (std::size_t i = 0; i < each.received.size(); ++i)
    {
        const std::string what = "packet " + std::to_string(i);
        NS_TEST_EXPECT_MSG_EQ(deferred.received[i].at, each.received[i].at, what + " time");
        NS_TEST_EXPECT_MSG_EQ((deferred.received[i].bytes == each.received[i].bytes),
                              true,
                              what + " bytes");
    }
    NS_TEST_ASSERT_MSG_EQ(deferred.counters.size(), each.counters.size(), "probes");
    for (std::size_t i = 0; i < each.counters.size(); ++i)
    {
        NS_TEST_EXPECT_MSG_EQ((deferred.counters[i] == each.counters[i]),
                              true,
                              "counters at probe " + std::to_string(i));
    }
    // Two of the four contributions of each complete chunk are neither its first nor its last.
    NS_TEST_EXPECT_MSG_LT(deferred.events + 30,
                          each.events,
                          "deferred contributions have no event");
}

/**
 * @ingroup wan-training-tests
 * @brief A contribution retransmitted while its slot is open is not summed twice; one
 * retransmitted after the aggregate left passes through; the slot high-water mark counts the
 * chunks held while the second contributor is still far away.
 */
class AggregatorDuplicateTestCase : public AggregatorTestCase
{
  public:
    AggregatorDuplicateTestCase();

  private:
    void DoRun() override;
};

AggregatorDuplicateTestCase::AggregatorDuplicateTestCase()
    : AggregatorTestCase("duplicates are not summed twice; slot high-water mark")
{
}

void
AggregatorDuplicateTestCase::DoRun()
{
    SetDataDir(NS_TEST_SOURCEDIR);
    m_aggregators.SetAttribute("Timeout", TimeValue(Seconds(5)));
    Build({{"nyc", "lon", "fra"}});
    const uint32_t chunks = 10;
    const uint32_t receiver = City("fra");
    const uint32_t first = City("nyc");
    const uint32_t second = City("lon");
    const uint64_t others = Bit(first) | Bit(second);
    Listen(receiver);
    Ptr<AggregatorNetDevice> fpga = Fpga(receiver);
    uint32_t maxInUse = 0;
    fpga->TraceConnectWithoutContext("SlotsInUse", MakeBoundCallback(&NoteMax, &maxInUse));

    // nyc sends every chunk twice; lon sends long after every nyc chunk is held, so all
    // chunks occupy a slot at once; then nyc repeats chunk 3 after its aggregate left.
    for (uint32_t c = 0; c < chunks; ++c)
    {
        SendData(Seconds(1) + MicroSeconds(10 * c), first, receiver, 0, c, chunks);
        SendData(Seconds(1.1) + MicroSeconds(10 * c), first, receiver, 0, c, chunks);
        SendData(Seconds(2) + MicroSeconds(10 * c), second, receiver, 0, c, chunks);
    }
    SendData(Seconds(3), first, receiver, 0, 3, chunks);
    Simulator::Run();

    uint32_t aggregates = 0;
    uint32_t repairs = 0;
    for (const Received& received : m_received)
    {
        NS_TEST_ASSERT_MSG_EQ(received.sync, true, "an unexpected packet arrived");
        const IslandSyncHeader& header = received.header;
        uint32_t c = header.GetChunkIndex();
        if (header.GetType() == IslandSyncHeader::AGGREGATE)
        {
            ++aggregates;
            NS_TEST_EXPECT_MSG_EQ(header.GetContributors(), others, "bitmap");
            std::vector<double> got(header.GetValues().begin(), header.GetValues().end());
            CheckSum(got, others, c, chunks, "aggregate of chunk " + std::to_string(c));
        }
        else
        {
            ++repairs;
            NS_TEST_EXPECT_MSG_EQ(c, 3, "the repair");
            NS_TEST_EXPECT_MSG_EQ((received.bytes == ChunkPayload(DataHeader(0, first, 3, chunks))),
                                  true,
                                  "the repair is unchanged");
        }
    }
    NS_TEST_EXPECT_MSG_EQ(aggregates, chunks, "one aggregate per chunk");
    NS_TEST_EXPECT_MSG_EQ(repairs, 1, "the late repair passed through");
    NS_TEST_EXPECT_MSG_EQ(fpga->GetDuplicates(), chunks, "duplicates absorbed");
    NS_TEST_EXPECT_MSG_EQ(fpga->GetContributionsSummed(), 2 * chunks, "summed once each");
    NS_TEST_EXPECT_MSG_EQ(fpga->GetPassThroughs(AggregatorNetDevice::CLOSED), 1, "repair");
    NS_TEST_EXPECT_MSG_EQ(fpga->GetSlotHighWaterMark(), chunks, "every chunk held at once");
    NS_TEST_EXPECT_MSG_EQ(maxInUse, chunks, "SlotsInUse trace");
    NS_TEST_EXPECT_MSG_EQ(fpga->GetSlotsInUse(), 0, "every slot is free at the end");
    NS_TEST_EXPECT_MSG_EQ(fpga->GetTimeouts(), 0, "no timeout");
    End();
}

/**
 * @ingroup wan-training-tests
 * @brief Placement in chosen cities (devices, link parameters, addresses unchanged), helper
 * attributes, and the expectations configured from a schedule.
 */
class AggregatorPlacementTestCase : public TestCase
{
  public:
    AggregatorPlacementTestCase();

  private:
    void DoRun() override;
};

AggregatorPlacementTestCase::AggregatorPlacementTestCase()
    : TestCase("placement in chosen cities and expectations from a schedule")
{
}

void
AggregatorPlacementTestCase::DoRun()
{
    SetDataDir(NS_TEST_SOURCEDIR);
    WanTopology topology = WanTopology::LoadFile(CreateDataDirFilename(NINE_CITY));
    WanTopologyHelper scenario(topology);
    AggregatorHelper aggregators;
    aggregators.SetAttribute("SlotCount", UintegerValue(7));
    aggregators.SetAttribute("ProcessingDelay", TimeValue(NanoSeconds(300)));
    const uint32_t lon = topology.GetCityIndex("lon");
    const uint32_t sin = topology.GetCityIndex("sin");
    aggregators.Install(scenario, {sin, lon, lon});
    scenario.Install();

    NS_TEST_EXPECT_MSG_EQ(aggregators.GetAggregators(scenario).GetN(), 2, "two FPGAs");
    for (uint32_t i = 0; i < topology.GetNCities(); ++i)
    {
        const WanCity& city = topology.GetCity(i);
        uint32_t down = topology.GetAccessDownLink(i);
        Ptr<NetDevice> device = scenario.GetTxDevice(down);
        Ptr<AggregatorNetDevice> fpga = DynamicCast<AggregatorNetDevice>(device);
        bool placed = i == lon || i == sin;
        NS_TEST_EXPECT_MSG_EQ(bool(fpga), placed, city.id << ":down device type");
        NS_TEST_EXPECT_MSG_EQ(aggregators.GetAggregator(scenario, i), fpga, city.id);
        NS_TEST_EXPECT_MSG_EQ(scenario.GetDirectedLinkOfTxDevice(device), down, city.id);
        NS_TEST_EXPECT_MSG_EQ(device->GetNode(), scenario.GetRouter(i), city.id << " router");
        NS_TEST_EXPECT_MSG_EQ(scenario.GetRxDevice(down)->GetNode(),
                              scenario.GetIsland(i),
                              city.id << " island");
        NS_TEST_EXPECT_MSG_EQ(scenario.GetIslandAddress(i),
                              Ipv4Address(ACCESS_BLOCK_BASE + 4 * i + 2),
                              city.id << " island address");
        DataRateValue rate;
        device->GetAttribute("DataRate", rate);
        NS_TEST_EXPECT_MSG_EQ(rate.Get(),
                              DataRate(static_cast<uint64_t>(city.accessCapacityGbps * 1e9)),
                              city.id << " access rate");
        NS_TEST_EXPECT_MSG_EQ(device->GetMtu(), topology.GetDefaultMtuBytes(), city.id);
        TimeValue delay;
        device->GetChannel()->GetAttribute("Delay", delay);
        NS_TEST_EXPECT_MSG_EQ(delay.Get(),
                              Time::FromDouble(city.accessLatencyMs, Time::MS),
                              city.id << " access delay");
        if (fpga)
        {
            NS_TEST_EXPECT_MSG_EQ(fpga->GetIsland(), i, "island index");
            NS_TEST_EXPECT_MSG_EQ(fpga->GetIslandAddress(), scenario.GetIslandAddress(i), "dst");
            NS_TEST_EXPECT_MSG_EQ(fpga->GetSourceAddress(),
                                  Ipv4Address(ACCESS_BLOCK_BASE + 4 * i + 1),
                                  "source: the router's access address");
            NS_TEST_EXPECT_MSG_EQ(fpga->GetFpga(), scenario.GetFpga(i), "the router's FPGA");
            NS_TEST_EXPECT_MSG_EQ(fpga->GetFpga()->GetSlotCount(), 7, "SlotCount from the helper");
            TimeValue processing;
            fpga->GetAttribute("ProcessingDelay", processing);
            NS_TEST_EXPECT_MSG_EQ(processing.Get(), NanoSeconds(300), "ProcessingDelay");
        }
    }

    // Expectations from the Latin triples: island i of clique C expects C \ {i}.
    CliqueSchedule schedule = CliqueSchedule::LatinTriples(topology.GetNCities());
    aggregators.SetSchedule(scenario, schedule.WithMode(CapabilityMode::AGGREGATION), JOB);
    for (uint32_t island : {lon, sin})
    {
        Ptr<AggregatorNetDevice> fpga = aggregators.GetAggregator(scenario, island);
        for (uint32_t r = 0; r < 2 * schedule.GetNRounds(); ++r)
        {
            const CliqueSchedule::Round& round = schedule.GetRound(r % schedule.GetNRounds());
            for (uint32_t c = 0; c < round.size(); ++c)
            {
                uint64_t expected = 0;
                bool member = false;
                for (uint32_t m : round[c])
                {
                    member = member || m == island;
                    expected |= m == island ? 0 : Bit(m);
                }
                NS_TEST_EXPECT_MSG_EQ(fpga->GetExpectedContributors(JOB, r, c),
                                      member ? expected : 0,
                                      "island " << island << " round " << r << " clique " << c);
            }
            NS_TEST_EXPECT_MSG_EQ(fpga->GetExpectedContributors(JOB + 1, r, 0), 0, "another job");
        }
    }
    aggregators.ClearSchedule(scenario, JOB);
    NS_TEST_EXPECT_MSG_EQ(aggregators.GetAggregator(scenario, lon)
                              ->GetExpectedContributors(JOB, 0, schedule.GetCliqueOf(0, lon)),
                          0,
                          "cleared");
    Simulator::Destroy();
    Names::Clear();
}

} // namespace

/**
 * @ingroup wan-training-tests
 * @brief The slots' wait follows the exchange's fill times (AdaptiveWait): the first slot waits
 * Timeout; after a slot completed in F, one lacking a contribution waits 3 F plus twice the
 * largest round trip R between the contributors and the island (A + 4 V with A = F,
 * V = F / 2); after it
 * timed out, the next waits twice that; a completed slot resets the backoff and the wait follows
 * RFC 6298's update. Without AdaptiveWait every slot waits Timeout.
 */
class AggregatorAdaptiveWaitTestCase : public AggregatorTestCase
{
  public:
    /** @param adaptive the AdaptiveWait attribute */
    explicit AggregatorAdaptiveWaitTestCase(bool adaptive);

  private:
    void DoRun() override;

    bool m_adaptive; //!< AdaptiveWait
};

AggregatorAdaptiveWaitTestCase::AggregatorAdaptiveWaitTestCase(bool adaptive)
    : AggregatorTestCase(adaptive ? "adaptive wait: fill times, round trip and backoff"
                                  : "without adaptive wait every slot waits Timeout"),
      m_adaptive(adaptive)
{
}

void
AggregatorAdaptiveWaitTestCase::DoRun()
{
    SetDataDir(NS_TEST_SOURCEDIR);
    const Time timeout = Seconds(1);
    m_aggregators.SetAttribute("AdaptiveWait", BooleanValue(m_adaptive));
    Ptr<AggregatorNetDevice> fpga = BuildTimeoutScenario(timeout);
    std::map<std::pair<uint32_t, uint32_t>, Time> exits;
    fpga->TraceConnectWithoutContext("ContributionIn", MakeBoundCallback(&NoteExit, &exits));
    const uint32_t chunks = 5;
    const uint32_t receiver = City("lon");
    const uint32_t late = City("lax");
    const std::vector<uint32_t> contributors{City("nyc"), City("chi"), late};
    int64_t roundTripNs = 0;
    for (uint32_t j : contributors)
    {
        roundTripNs =
            std::max(roundTripNs,
                     IslandTiming::GetRoundTripTime(*m_topology, j, receiver).GetNanoSeconds());
    }

    // Chunks 0 and 3 complete; 1, 2 and 4 lack lax until 5 s. Each chunk is sent after the
    // one before left (wait1 below is about 0.4 s, chunk 2 waits twice that).
    const std::map<uint32_t, Time> sent{{0, Seconds(1)},
                                        {1, Seconds(1.1)},
                                        {2, Seconds(2)},
                                        {3, Seconds(3.2)},
                                        {4, Seconds(3.5)}};
    for (const auto& [c, at] : sent)
    {
        SendData(at, City("nyc"), receiver, 0, c, chunks);
        SendData(at, City("chi"), receiver, 0, c, chunks);
        SendData(c == 0 || c == 3 ? at : Seconds(5), late, receiver, 0, c, chunks);
    }
    Simulator::Run();

    auto fill = [&exits, &contributors](uint32_t c) {
        Time first = Time::Max();
        Time last;
        for (uint32_t j : contributors)
        {
            first = std::min(first, exits.at({j, c}));
            last = std::max(last, exits.at({j, c}));
        }
        return (last - first).GetNanoSeconds();
    };
    NS_TEST_ASSERT_MSG_EQ(m_released.size(), 3u, "chunks 1, 2 and 4 timed out");
    NS_TEST_EXPECT_MSG_EQ(fpga->GetTimeouts(), 3u, "three timeouts");
    NS_TEST_EXPECT_MSG_EQ(fpga->GetSlotsOpened(), chunks, "a slot per chunk");
    if (!m_adaptive)
    {
        for (uint32_t c : {1u, 2u, 4u})
        {
            NS_TEST_EXPECT_MSG_EQ(m_released[c] - m_opened[c], timeout, "Timeout: " << c);
        }
        NS_TEST_EXPECT_MSG_EQ(fpga->GetMeanSlotWait(), timeout, "every wait");
        End();
        return;
    }
    // RFC 6298 in integer nanoseconds, as the estimator computes it.
    const int64_t f0 = fill(0);
    NS_TEST_ASSERT_MSG_GT(f0, 0, "the contributions arrive apart (different path latencies)");
    int64_t smoothed = f0;
    int64_t deviation = f0 / 2;
    const int64_t wait1 = std::max(smoothed + 4 * deviation, f0) + 2 * roundTripNs;
    NS_TEST_EXPECT_MSG_EQ((m_released[1] - m_opened[1]).GetNanoSeconds(),
                          wait1,
                          "after one sample: A + 4 V + 2 R");
    NS_TEST_EXPECT_MSG_EQ((m_released[2] - m_opened[2]).GetNanoSeconds(),
                          2 * wait1,
                          "after a timeout: twice as long");
    const int64_t f3 = fill(3);
    deviation = (3 * deviation + std::llabs(smoothed - f3)) / 4;
    smoothed = (7 * smoothed + f3) / 8;
    const int64_t wait4 = std::max(smoothed + 4 * deviation, std::max(f0, f3)) + 2 * roundTripNs;
    NS_TEST_EXPECT_MSG_EQ((m_released[4] - m_opened[4]).GetNanoSeconds(),
                          wait4,
                          "a completed slot resets the backoff; A and V updated");
    // Chunk 0 waited Timeout (no sample yet), chunk 3 four times wait1 (two timeouts before).
    const int64_t timeoutNs = timeout.GetNanoSeconds();
    NS_TEST_EXPECT_MSG_EQ(fpga->GetMeanSlotWait().GetNanoSeconds(),
                          (timeoutNs + wait1 + 2 * wait1 + std::min(4 * wait1, timeoutNs) + wait4) /
                              5,
                          "the mean wait");
    NS_TEST_EXPECT_MSG_EQ(fpga->GetSlotWait(JOB, 0, 0).GetNanoSeconds(),
                          std::min(2 * wait4, timeoutNs),
                          "the next slot's wait, backed off");

    End();
}

/**
 * @ingroup wan-training-tests
 * @brief The in-line FPGA test suite.
 */
class AggregatorNetDeviceTestSuite : public TestSuite
{
  public:
    AggregatorNetDeviceTestSuite();
};

AggregatorNetDeviceTestSuite::AggregatorNetDeviceTestSuite()
    : TestSuite("wan-training-aggregator", UNIT)
{
    AddTestCase(new AggregatorCompleteTestCase(false), TestCase::QUICK);
    AddTestCase(new AggregatorCompleteTestCase(true), TestCase::QUICK);
    AddTestCase(new AggregatorTinySlotTestCase(), TestCase::QUICK);
    AddTestCase(new AggregatorTimeoutTestCase(), TestCase::QUICK);
    AddTestCase(new AggregatorKnownLostTestCase(), TestCase::QUICK);
    AddTestCase(new AggregatorDeadlineOrderTestCase(), TestCase::QUICK);
    AddTestCase(new AggregatorAdaptiveWaitTestCase(true), TestCase::QUICK);
    AddTestCase(new AggregatorAdaptiveWaitTestCase(false), TestCase::QUICK);
    AddTestCase(new AggregatorDeferredTestCase(), TestCase::QUICK);
    AddTestCase(new AggregatorDuplicateTestCase(), TestCase::QUICK);
    AddTestCase(new AggregatorPlacementTestCase(), TestCase::QUICK);
}

/** The suite's static instance. */
static AggregatorNetDeviceTestSuite g_aggregatorNetDeviceTestSuite;
