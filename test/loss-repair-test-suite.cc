/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "aggregator-net-device.h"
#include "clique-schedule.h"
#include "island-sync-header.h"
#include "island-timing.h"
#include "sync-protocol.h"
#include "training-results.h"
#include "training-run.h"
#include "wan-topology-helper.h"
#include "wan-topology.h"

#include "ns3/data-rate.h"
#include "ns3/error-model.h"
#include "ns3/ipv4-address.h"
#include "ns3/nstime.h"
#include "ns3/pointer.h"
#include "ns3/simulator.h"
#include "ns3/test.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>

/**
 * @file
 * @ingroup wan-training-tests
 * Loss repair (issue 23): one lost chunk costs one repair, about a round trip, in unicast at the
 * middle and at the tail of a stream, and a gap with a lost tail one round trip too; a lost
 * repair is asked for again at its due time (and with two copies of each repair costs nothing
 * more); behind an edge FPGA the slot of a chunk whose contribution is known lost leaves at once,
 * a chunk lost from every contributor is NACKed once it is settled, and either repair costs
 * about a round trip too; in tree mode a lost contribution and a lost total cost a round trip;
 * in ring mode losses in every step cost one round trip, not one per step.
 */

using namespace ns3;

namespace
{

/** Three cities aaa-bbb-ccc in a line, MTU 1500, no multicast or aggregation capability. */
const std::string TINY = "data/tiny-valid.json";
/** The nine-city reference WAN (multicast and aggregation capable). */
const std::string REFERENCE_WAN = "../topologies/reference-wan.json";

/**
 * @ingroup wan-training-tests
 * @brief A receive error model that drops chosen chunks: the first arrivals (one by default)
 * of each given chunk index in messages of one type (DATA, or AGGREGATE) from a given sender to
 * a given destination (or any); later arrivals (retransmissions) pass.
 */
class DropChunksErrorModel : public ErrorModel
{
  public:
    /**
     * @brief Get the type ID.
     * @return the object TypeId
     */
    static TypeId GetTypeId()
    {
        static TypeId tid = TypeId("ns3::WanTrainingTest::DropChunksErrorModel")
                                .SetParent<ErrorModel>()
                                .SetGroupName("WanTraining");
        return tid;
    }

    /**
     * @param type the message type to drop (DATA or AGGREGATE; none: both)
     * @param sender the sender's island
     * @param destination the datagram's destination address (none: any)
     * @param chunks the chunk indices to drop
     * @param times how many arrivals of each to drop (the first transmission, then repairs)
     */
    void Set(std::optional<IslandSyncHeader::Type> type,
             uint32_t sender,
             std::optional<Ipv4Address> destination,
             const std::set<uint32_t>& chunks,
             uint32_t times)
    {
        m_type = type;
        m_sender = sender;
        m_destination = destination;
        for (uint32_t chunk : chunks)
        {
            m_chunks[chunk] = times;
        }
    }

    /** @return when the last drop happened (none if not every drop did) */
    std::optional<Time> GetDropTime() const
    {
        return m_chunks.empty() ? m_droppedAt : std::nullopt;
    }

  private:
    bool DoCorrupt(Ptr<Packet> packet) override
    {
        IslandSyncHeader header;
        uint32_t to = 0;
        if (IslandSyncHeader::ReadFromPacket(packet,
                                             IslandSyncHeader::PPP_FRAME,
                                             SyncProtocol::DEFAULT_PORT,
                                             header,
                                             &to) == 0 ||
            (header.GetType() != IslandSyncHeader::DATA &&
             header.GetType() != IslandSyncHeader::AGGREGATE) ||
            (m_type && header.GetType() != *m_type) || header.GetSender() != m_sender ||
            m_chunks.count(header.GetChunkIndex()) == 0 ||
            (m_destination && Ipv4Address(to) != *m_destination))
        {
            return false;
        }
        if (--m_chunks[header.GetChunkIndex()] == 0)
        {
            m_chunks.erase(header.GetChunkIndex());
        }
        m_droppedAt = Simulator::Now();
        return true;
    }

    void DoReset() override
    {
    }

    std::optional<IslandSyncHeader::Type> m_type; //!< the message type (none: DATA or AGGREGATE)
    uint32_t m_sender{0};                         //!< the sender's island
    std::optional<Ipv4Address> m_destination;     //!< the destination (none: any)
    std::map<uint32_t, uint32_t> m_chunks;        //!< the chunks still to drop, and how often
    std::optional<Time> m_droppedAt;              //!< when the last one was dropped
};

/** What one run of a case gives. */
struct Outcome
{
    double commS{0};                    //!< the receiver's clique's communication time
    uint64_t repairs{0};                //!< repair packets the senders of the drops sent
    uint64_t allRepairs{0};             //!< repair packets every island sent
    uint64_t repairedChunks{0};         //!< the receiver: chunks that arrived after a NACK
    double repairWaitMaxS{0};           //!< the receiver: the longest wait from a NACK to its chunk
    std::optional<Time> dropped;        //!< when the last drop happened (none: not every one did)
    uint64_t knownLost{0};              //!< the receiver's FPGA: known-lost releases
    uint64_t timeouts{0};               //!< the receiver's FPGA: Timeout releases
    uint64_t shadowServes{0};           //!< the receiver's FPGA: aggregates served again
    uint64_t rebuilt{0};                //!< the receiver: chunks rebuilt from a PARITY
    uint64_t paritiesSent{0};           //!< PARITY packets every island sent
    uint32_t chunkCount{0};             //!< chunks per stream
    uint32_t treeRoot{0};               //!< tree mode: the receiver's clique's root
    uint32_t successor{0};              //!< ring mode: the receiver's successor
    uint32_t ringPosition{0};           //!< ring mode: the receiver's place on the ring
    std::vector<uint32_t> segmentFirst; //!< ring mode: the first chunk of each segment, and the end
};

/** Chunks to drop from one sender on one directed link. */
struct Drop
{
    uint32_t sender{0};        //!< the island whose chunks are dropped
    uint32_t link{0};          //!< the directed link on whose receiving device they are
    std::set<uint32_t> chunks; //!< the chunk indices
    uint32_t times{1};         //!< arrivals of each dropped (first transmission, repairs)
    /** the message type: DATA, or AGGREGATE (a tree's totals to the group, ring steps after
     *  the first); none: both (ring steps) */
    std::optional<IslandSyncHeader::Type> type{IslandSyncHeader::DATA};
    bool anyDestination{false}; //!< DATA to any destination (a multicast group), not the receiver
};

/**
 * @param topology the topology
 * @param schedule a one-round schedule
 * @param config the configuration (one round)
 * @param receiver the island the dropped chunks are sent to
 * @param drops what to drop (none: a lossless run)
 * @param shadowCopies the receiver's FPGA's ShadowCopies (none: the default)
 * @return the outcome
 */
Outcome
RunWithLosses(const WanTopology& topology,
              const CliqueSchedule& schedule,
              const TrainingRun::Config& config,
              uint32_t receiver,
              const std::vector<Drop>& drops,
              std::optional<uint32_t> shadowCopies = std::nullopt)
{
    Outcome outcome;
    TrainingRun run(topology, schedule, config);
    run.Build();
    if (shadowCopies)
    {
        run.GetScenario().GetAggregator(receiver)->SetAttribute("ShadowCopies",
                                                                UintegerValue(*shadowCopies));
    }
    std::vector<Ptr<DropChunksErrorModel>> models;
    for (const Drop& drop : drops)
    {
        models.push_back(CreateObject<DropChunksErrorModel>());
        std::optional<Ipv4Address> to;
        if (drop.type != IslandSyncHeader::AGGREGATE && !drop.anyDestination)
        {
            to = run.GetScenario().GetIslandAddress(receiver);
        }
        models.back()->Set(drop.type, drop.sender, to, drop.chunks, drop.times);
        run.GetScenario().GetRxDevice(drop.link)->SetAttribute("ReceiveErrorModel",
                                                               PointerValue(models.back()));
    }
    run.Run();
    NS_ABORT_MSG_UNLESS(run.Passed(), "the run passes");
    const nlohmann::json results = nlohmann::json::parse(run.GetResults().ToJson());
    const std::string id = topology.GetCity(receiver).id;
    for (const nlohmann::json& clique : results.at("rounds").at(0).at("cliques"))
    {
        for (const nlohmann::json& member : clique.at("members"))
        {
            if (member.get<std::string>() == id)
            {
                outcome.commS = clique.at("comm_s").get<double>();
            }
        }
    }
    std::set<uint32_t> senders;
    for (const Drop& drop : drops)
    {
        senders.insert(drop.sender);
    }
    for (uint32_t i = 0; i < topology.GetNCities(); ++i)
    {
        outcome.allRepairs += run.GetResults().GetIslandCounters(i).repairs;
        outcome.paritiesSent += run.GetResults().GetIslandCounters(i).paritiesSent;
    }
    outcome.rebuilt = run.GetResults().GetIslandCounters(receiver).chunksRebuilt;
    for (uint32_t sender : senders)
    {
        outcome.repairs += run.GetResults().GetIslandCounters(sender).repairs;
    }
    for (const Ptr<DropChunksErrorModel>& model : models)
    {
        const std::optional<Time> at = model->GetDropTime();
        if (!at)
        {
            outcome.dropped.reset();
            break;
        }
        outcome.dropped = outcome.dropped ? std::max(*outcome.dropped, *at) : *at;
    }
    if (Ptr<AggregatorNetDevice> fpga = run.GetScenario().GetAggregator(receiver))
    {
        outcome.knownLost = fpga->GetKnownLostReleases();
        outcome.timeouts = fpga->GetTimeouts();
        outcome.shadowServes = fpga->GetShadowServes();
    }
    outcome.chunkCount = run.GetApp(receiver)->GetPlan(0).chunkCount;
    outcome.treeRoot = run.GetApp(receiver)->GetPlan(0).treeRoot;
    outcome.repairedChunks = run.GetResults().GetIslandCounters(receiver).repairedChunks;
    outcome.repairWaitMaxS = run.GetResults().GetIslandCounters(receiver).repairWaitMaxS;
    outcome.successor = run.GetApp(receiver)->GetPlan(0).successor;
    outcome.ringPosition = run.GetApp(receiver)->GetPlan(0).ringPosition;
    outcome.segmentFirst = run.GetApp(receiver)->GetPlan(0).segmentFirst;
    return outcome;
}

/**
 * @param mode the mode
 * @param modelBytes ModelBytes
 * @return a one-round configuration with one quick local step and one copy of each repair
 *         (the repair paths, not the copies, are under test unless a case sets more)
 */
TrainingRun::Config
OneRound(CapabilityMode mode, uint64_t modelBytes)
{
    TrainingRun::Config config;
    config.mode = mode;
    config.rounds = 1;
    config.modelBytes = modelBytes;
    config.localSteps = 1;
    config.stepTime = MilliSeconds(1);
    config.repairCopies = 1;
    return config;
}

} // namespace

/**
 * @ingroup wan-training-tests
 * @brief Unicast: a chunk lost in the middle of a stream is NACKed when the next one arrives,
 * one lost at its tail when the stream stalls; either costs one repair and at most a round trip
 * (plus the stall time at the tail) over the lossless run.
 */
class UnicastSingleLossTestCase : public TestCase
{
  public:
    UnicastSingleLossTestCase()
        : TestCase("unicast: one lost chunk costs one repair, at most a round trip")
    {
    }

  private:
    void DoRun() override
    {
        const WanTopology tiny = WanTopology::LoadFile(CreateDataDirFilename(TINY));
        // aaa and ccc exchange across bbb; bbb idles.
        const CliqueSchedule schedule(3, {{{0, 2}, {1}}});
        const TrainingRun::Config config = OneRound(CapabilityMode::UNICAST, 2000000);
        const uint32_t aaa = 0;
        const uint32_t ccc = 2;
        const uint32_t link = tiny.GetWanDirectedLink(0, 1);
        const Time rtt = IslandTiming::GetRoundTripTime(tiny, aaa, ccc);
        const Outcome lossless = RunWithLosses(tiny, schedule, config, ccc, {});
        NS_TEST_ASSERT_MSG_EQ(lossless.repairs, 0u, "no repair without a loss");
        NS_TEST_ASSERT_MSG_GT(lossless.chunkCount, 1000u, "a long stream");
        auto drop = [&](const std::set<uint32_t>& chunks) {
            return RunWithLosses(tiny, schedule, config, ccc, {{aaa, link, chunks, 1}});
        };

        const Outcome middle = drop({lossless.chunkCount / 2});
        NS_TEST_ASSERT_MSG_EQ(middle.dropped.has_value(), true, "the middle chunk was dropped");
        NS_TEST_EXPECT_MSG_EQ(middle.repairs, 1u, "one repair");
        // The NACK's way to aaa and the repair's way back, plus a packet's time on the wire.
        NS_TEST_EXPECT_MSG_EQ(middle.repairedChunks, 1u, "one chunk repaired");
        NS_TEST_EXPECT_MSG_GT_OR_EQ(middle.repairWaitMaxS,
                                    rtt.GetSeconds(),
                                    "at least a round trip");
        NS_TEST_EXPECT_MSG_LT_OR_EQ(middle.repairWaitMaxS,
                                    rtt.GetSeconds() + 1e-3,
                                    "the repair comes a round trip after its NACK");
        NS_TEST_EXPECT_MSG_GT_OR_EQ(middle.commS, lossless.commS, "a loss costs time");
        NS_TEST_EXPECT_MSG_LT_OR_EQ(middle.commS - lossless.commS,
                                    rtt.GetSeconds() + 1e-3,
                                    "a middle loss costs at most a round trip");

        const Outcome tail = drop({lossless.chunkCount - 1});
        NS_TEST_ASSERT_MSG_EQ(tail.dropped.has_value(), true, "the last chunk was dropped");
        NS_TEST_EXPECT_MSG_EQ(tail.repairs, 1u, "one repair");
        // The tail is seen by the stall: max(NackTimeout, 4 packet intervals) after the last
        // arrival (5 ms here, the intervals being about 1.2 us).
        const double stallS = 5e-3;
        NS_TEST_EXPECT_MSG_LT_OR_EQ(tail.commS - lossless.commS,
                                    rtt.GetSeconds() + stallS + 1e-3,
                                    "a tail loss costs at most the stall and a round trip");
        // A gap near the end is NACKed, and the last chunk is lost too: the stall NACKs the
        // last chunk at once, without waiting for the earlier NACK's answer to be overdue.
        const Outcome both = drop({lossless.chunkCount - 10, lossless.chunkCount - 1});
        NS_TEST_ASSERT_MSG_EQ(both.dropped.has_value(), true, "both chunks were dropped");
        NS_TEST_EXPECT_MSG_EQ(both.repairs, 2u, "two repairs");
        NS_TEST_EXPECT_MSG_LT_OR_EQ(both.commS - lossless.commS,
                                    rtt.GetSeconds() + stallS + 1e-3,
                                    "a gap and a lost tail cost one round trip, not two");
        NS_TEST_EXPECT_MSG_GT(tail.commS - lossless.commS,
                              rtt.GetSeconds() / 2,
                              "the tail's repair cannot come sooner than the NACK's way there "
                              "and the chunk's way back");
    }
};

/**
 * @ingroup wan-training-tests
 * @brief Unicast: a repair that is lost too. Its NACK's due check asks again at once, while the
 * stream still flows (a long, slowly paced stream: the loss costs nothing at its end); in a short
 * stream a second round trip with one copy of each repair, none with two copies (the default).
 */
class UnicastLostRepairTestCase : public TestCase
{
  public:
    UnicastLostRepairTestCase()
        : TestCase("unicast: a lost repair is asked again at its due time; two copies save it")
    {
    }

  private:
    void DoRun() override
    {
        const WanTopology tiny = WanTopology::LoadFile(CreateDataDirFilename(TINY));
        const CliqueSchedule schedule(3, {{{0, 2}, {1}}});
        const uint32_t aaa = 0;
        const uint32_t ccc = 2;
        const uint32_t link = tiny.GetWanDirectedLink(0, 1);
        const Time rtt = IslandTiming::GetRoundTripTime(tiny, aaa, ccc);
        const TrainingRun::Config config = OneRound(CapabilityMode::UNICAST, 2000000);

        // 2 MB at 100 Mb/s: a stream of 160 ms, about 7 round trips.
        TrainingRun::Config slow = config;
        slow.streamRate = DataRate("100Mbps");
        const Outcome slowLossless = RunWithLosses(tiny, schedule, slow, ccc, {});
        const double intervalS = slowLossless.commS / slowLossless.chunkCount;
        const Outcome flowing = RunWithLosses(tiny,
                                              schedule,
                                              slow,
                                              ccc,
                                              {{aaa, link, {slowLossless.chunkCount / 10}, 2}});
        NS_TEST_ASSERT_MSG_EQ(flowing.dropped.has_value(), true, "chunk and repair dropped");
        NS_TEST_EXPECT_MSG_EQ(flowing.repairs, 2u, "two repairs");
        // Both repairs took a packet slot of the stream; the second came before its end.
        NS_TEST_EXPECT_MSG_LT_OR_EQ(flowing.commS - slowLossless.commS,
                                    3 * intervalS,
                                    "repaired twice while the stream flowed: no delay at its end");

        const Outcome lossless = RunWithLosses(tiny, schedule, config, ccc, {});
        const std::set<uint32_t> middle{lossless.chunkCount / 2};
        const Outcome once = RunWithLosses(tiny, schedule, config, ccc, {{aaa, link, middle, 2}});
        NS_TEST_ASSERT_MSG_EQ(once.dropped.has_value(), true, "chunk and repair dropped");
        NS_TEST_EXPECT_MSG_EQ(once.repairs, 2u, "two repairs");
        NS_TEST_EXPECT_MSG_GT(once.commS - lossless.commS,
                              rtt.GetSeconds() + 1e-3,
                              "one copy: the lost repair costs a second round trip");
        NS_TEST_EXPECT_MSG_LT_OR_EQ(once.commS - lossless.commS,
                                    2 * rtt.GetSeconds() + 2 * config.nackTimeout.GetSeconds() +
                                        1e-3,
                                    "one copy: at most two repair waits");

        TrainingRun::Config copies = config;
        copies.repairCopies = 2;
        const Outcome twice = RunWithLosses(tiny, schedule, copies, ccc, {{aaa, link, middle, 2}});
        NS_TEST_ASSERT_MSG_EQ(twice.dropped.has_value(), true, "chunk and a repair copy dropped");
        NS_TEST_EXPECT_MSG_EQ(twice.repairs, 2u, "one repair, two copies");
        NS_TEST_EXPECT_MSG_LT_OR_EQ(twice.repairWaitMaxS,
                                    rtt.GetSeconds() + 1e-3,
                                    "two copies: repaired a round trip after the NACK");
        // One copy: the NACK is due a round trip plus NackTimeout (and a packet) later, then
        // asked again; its repair comes a round trip after that.
        NS_TEST_EXPECT_MSG_GT(once.repairWaitMaxS,
                              2 * rtt.GetSeconds() + config.nackTimeout.GetSeconds(),
                              "one copy: a second NACK's round trip");
        NS_TEST_EXPECT_MSG_LT_OR_EQ(once.repairWaitMaxS,
                                    2 * rtt.GetSeconds() + config.nackTimeout.GetSeconds() + 1e-3,
                                    "one copy: not more");
        NS_TEST_EXPECT_MSG_LT_OR_EQ(twice.commS - lossless.commS,
                                    rtt.GetSeconds() + 1e-3,
                                    "two copies: the second copy repairs, one round trip");
    }
};

/**
 * @param reference the nine-city reference WAN
 * @param clique one clique
 * @return a one-round schedule: the clique, every other island alone
 */
CliqueSchedule
OneClique(const WanTopology& reference, const std::vector<uint32_t>& clique)
{
    std::vector<std::vector<uint32_t>> cliques{clique};
    for (uint32_t i = 0; i < reference.GetNCities(); ++i)
    {
        if (std::find(clique.begin(), clique.end(), i) == clique.end())
        {
            cliques.push_back({i});
        }
    }
    return CliqueSchedule(reference.GetNCities(), {cliques});
}

/**
 * @ingroup wan-training-tests
 * @brief Aggregation mode: a contribution lost in the middle of a stream is known lost at the
 * receiver's FPGA when the sender's next chunk arrives; the slot leaves at once (no Timeout)
 * and the island NACKs the sender at once, so the loss costs about a round trip, not the
 * FPGA's Timeout. A chunk lost from every contributor opens no slot at all; the island NACKs it
 * once aggregates of later chunks named every contributor (the FPGA holds nothing of it).
 */
class AggregationSingleLossTestCase : public TestCase
{
  public:
    AggregationSingleLossTestCase()
        : TestCase("aggregation: a lost contribution closes its FPGA slot early, one repair")
    {
    }

  private:
    void DoRun() override
    {
        const WanTopology reference = WanTopology::LoadFile(CreateDataDirFilename(REFERENCE_WAN));
        const uint32_t nyc = reference.GetCityIndex("NYC");
        const uint32_t chi = reference.GetCityIndex("CHI");
        const uint32_t lax = reference.GetCityIndex("LAX");
        const CliqueSchedule schedule = OneClique(reference, {nyc, chi, lax});
        const TrainingRun::Config config = OneRound(CapabilityMode::AGGREGATION, 20000000);
        // chi's contributions to lax, dropped as they enter chi's router.
        const uint32_t chiUp = reference.GetAccessUpLink(chi);
        const Time rtt = IslandTiming::GetRoundTripTime(reference, chi, lax);
        const Outcome lossless = RunWithLosses(reference, schedule, config, lax, {});
        NS_TEST_ASSERT_MSG_EQ(lossless.repairs, 0u, "no repair without a loss");

        const std::set<uint32_t> middle{lossless.chunkCount / 2};
        const Outcome lost =
            RunWithLosses(reference, schedule, config, lax, {{chi, chiUp, middle}});
        NS_TEST_ASSERT_MSG_EQ(lost.dropped.has_value(), true, "the contribution was dropped");
        NS_TEST_EXPECT_MSG_EQ(lost.repairs, 1u, "one repair");
        NS_TEST_EXPECT_MSG_EQ(lost.knownLost, 1u, "lax's FPGA knew the contribution lost");
        NS_TEST_EXPECT_MSG_EQ(lost.timeouts, 0u, "no slot waited for the FPGA's Timeout");
        NS_TEST_EXPECT_MSG_LT_OR_EQ(lost.commS - lossless.commS,
                                    rtt.GetSeconds() + 1e-3,
                                    "the loss costs at most a round trip (not the 500 ms "
                                    "Timeout)");

        // The same chunk from nyc and from chi: no slot opens at lax's FPGA.
        const Outcome everywhere =
            RunWithLosses(reference,
                          schedule,
                          config,
                          lax,
                          {{chi, chiUp, middle}, {nyc, reference.GetAccessUpLink(nyc), middle}});
        const Time farthest = std::max(rtt, IslandTiming::GetRoundTripTime(reference, nyc, lax));
        NS_TEST_ASSERT_MSG_EQ(everywhere.dropped.has_value(), true, "both contributions dropped");
        NS_TEST_EXPECT_MSG_EQ(everywhere.repairs, 2u, "one repair from each");
        // The first repair to arrive opens the chunk's slot, which expects no one else (the
        // other contribution is known lost), so it leaves at once; the second passes.
        NS_TEST_EXPECT_MSG_EQ(everywhere.knownLost, 1u, "the first repair's slot");
        NS_TEST_EXPECT_MSG_EQ(everywhere.timeouts, 0u, "no slot waited for the Timeout");
        NS_TEST_EXPECT_MSG_LT_OR_EQ(everywhere.commS - lossless.commS,
                                    farthest.GetSeconds() + 1e-3,
                                    "NACKed once settled: at most the farther round trip (not "
                                    "the 505 ms patience)");
    }
};

/**
 * @ingroup wan-training-tests
 * @brief Forward error correction (FecBlock): in unicast, a lost last chunk is rebuilt from its
 * block's PARITY (no repair wait: at most a millisecond over the lossless run with FEC, where
 * without FEC it costs the stall and a round trip); two losses in one block still cost a
 * repair wait, after which the parity rebuilds the other; the parities cost one chunk per block;
 * in multicast a receiver rebuilds its own loss.
 */
class FecTestCase : public TestCase
{
  public:
    FecTestCase()
        : TestCase("FEC: a lost chunk is rebuilt from its block's parity without a round trip")
    {
    }

  private:
    void DoRun() override
    {
        const WanTopology tiny = WanTopology::LoadFile(CreateDataDirFilename(TINY));
        const CliqueSchedule schedule(3, {{{0, 2}, {1}}});
        TrainingRun::Config config = OneRound(CapabilityMode::UNICAST, 2000000);
        const uint32_t aaa = 0;
        const uint32_t ccc = 2;
        const uint32_t link = tiny.GetWanDirectedLink(0, 1);
        const Time rtt = IslandTiming::GetRoundTripTime(tiny, aaa, ccc);
        const uint32_t n = 10;
        const Outcome plain = RunWithLosses(tiny, schedule, config, ccc, {});
        config.fecBlock = n;
        const Outcome lossless = RunWithLosses(tiny, schedule, config, ccc, {});
        const uint32_t count = lossless.chunkCount;
        NS_TEST_EXPECT_MSG_EQ(lossless.rebuilt, 0u, "nothing to rebuild");
        // Each island sends one stream: a parity per block.
        NS_TEST_EXPECT_MSG_EQ(lossless.paritiesSent, 2u * ((count + n - 1) / n), "parities");
        NS_TEST_EXPECT_MSG_LT_OR_EQ(lossless.commS,
                                    plain.commS * (1.0 + 1.0 / n) + 1e-4,
                                    "the parities cost a chunk per block");

        const Outcome tail =
            RunWithLosses(tiny, schedule, config, ccc, {{aaa, link, {count - 1}, 1}});
        NS_TEST_ASSERT_MSG_EQ(tail.dropped.has_value(), true, "the last chunk was dropped");
        NS_TEST_EXPECT_MSG_EQ(tail.rebuilt, 1u, "rebuilt from the parity");
        NS_TEST_EXPECT_MSG_LT_OR_EQ(tail.commS - lossless.commS,
                                    1e-3,
                                    "no repair wait (the stall and a round trip without FEC)");

        // Two losses at the end of one block: the parity cannot rebuild them; once the first
        // repair arrives (a round trip after the gap's NACK) it rebuilds the other.
        const uint32_t lastBlock = (count - 1) / n * n;
        const std::set<uint32_t> pair = count - lastBlock >= 2
                                            ? std::set<uint32_t>{lastBlock, count - 1}
                                            : std::set<uint32_t>{lastBlock - 2, lastBlock - 1};
        const Outcome two = RunWithLosses(tiny, schedule, config, ccc, {{aaa, link, pair, 1}});
        NS_TEST_ASSERT_MSG_EQ(two.dropped.has_value(), true, "both chunks were dropped");
        NS_TEST_EXPECT_MSG_EQ(two.rebuilt, 1u, "the second, after the first one's repair");
        NS_TEST_EXPECT_MSG_GT(two.commS - lossless.commS, rtt.GetSeconds() / 2, "a repair wait");
        NS_TEST_EXPECT_MSG_LT_OR_EQ(two.commS - lossless.commS,
                                    rtt.GetSeconds() + 5e-3 + 1e-3,
                                    "at most the stall and a round trip");

        // Multicast: chi's last chunk lost on lax's access link only.
        const WanTopology reference = WanTopology::LoadFile(CreateDataDirFilename(REFERENCE_WAN));
        const uint32_t nyc = reference.GetCityIndex("NYC");
        const uint32_t chi = reference.GetCityIndex("CHI");
        const uint32_t lax = reference.GetCityIndex("LAX");
        const CliqueSchedule clique = OneClique(reference, {nyc, chi, lax});
        TrainingRun::Config multicast = OneRound(CapabilityMode::MULTICAST, 20000000);
        multicast.fecBlock = n;
        const Outcome group = RunWithLosses(reference, clique, multicast, lax, {});
        Drop last{chi, reference.GetAccessDownLink(lax), {group.chunkCount - 1}};
        last.anyDestination = true;
        const Outcome lost = RunWithLosses(reference, clique, multicast, lax, {last});
        NS_TEST_ASSERT_MSG_EQ(lost.dropped.has_value(), true, "lax's copy was dropped");
        NS_TEST_EXPECT_MSG_EQ(lost.rebuilt, 1u, "lax rebuilt it");
        NS_TEST_EXPECT_MSG_LT_OR_EQ(lost.commS - group.commS, 1e-3, "no repair wait");
    }
};

/**
 * @ingroup wan-training-tests
 * @brief Aggregation: an aggregate lost on the FPGA's link to the island is served again from
 * the port's shadow copy (no contributor resends; it costs the access round trip, 0 here), and
 * without shadow copies it costs a repair from every contributor and the farther round trip; a
 * served copy lost too is asked of the contributors once its holdoff is over.
 */
class AggregationLostAggregateTestCase : public TestCase
{
  public:
    AggregationLostAggregateTestCase()
        : TestCase("aggregation: a lost aggregate is served again from the FPGA's shadow copy")
    {
    }

  private:
    void DoRun() override
    {
        const WanTopology reference = WanTopology::LoadFile(CreateDataDirFilename(REFERENCE_WAN));
        const uint32_t nyc = reference.GetCityIndex("NYC");
        const uint32_t chi = reference.GetCityIndex("CHI");
        const uint32_t lax = reference.GetCityIndex("LAX");
        NS_TEST_ASSERT_MSG_EQ(reference.GetCity(lax).accessLatencyMs, 0.0, "the access round trip");
        const CliqueSchedule schedule = OneClique(reference, {nyc, chi, lax});
        const TrainingRun::Config config = OneRound(CapabilityMode::AGGREGATION, 20000000);
        const Time farthest = std::max(IslandTiming::GetRoundTripTime(reference, chi, lax),
                                       IslandTiming::GetRoundTripTime(reference, nyc, lax));
        const Outcome lossless = RunWithLosses(reference, schedule, config, lax, {});
        NS_TEST_ASSERT_MSG_EQ(lossless.shadowServes, 0u, "nothing served again without a loss");

        // lax's FPGA names itself the aggregate's sender; dropped as it arrives at lax.
        Drop aggregate{lax, reference.GetAccessDownLink(lax), {lossless.chunkCount / 2}};
        aggregate.type = IslandSyncHeader::AGGREGATE;
        const Outcome served = RunWithLosses(reference, schedule, config, lax, {aggregate});
        NS_TEST_ASSERT_MSG_EQ(served.dropped.has_value(), true, "the aggregate was dropped");
        NS_TEST_EXPECT_MSG_EQ(served.shadowServes, 1u, "served again once");
        NS_TEST_EXPECT_MSG_EQ(served.allRepairs, 0u, "no contributor was asked");
        NS_TEST_EXPECT_MSG_LT_OR_EQ(served.commS - lossless.commS,
                                    1e-3,
                                    "the access round trip (0) and the chunks ahead of the copy");

        const Outcome without = RunWithLosses(reference, schedule, config, lax, {aggregate}, 0);
        NS_TEST_EXPECT_MSG_EQ(without.shadowServes, 0u, "no copy kept");
        NS_TEST_EXPECT_MSG_EQ(without.allRepairs, 2u, "a repair from each contributor");
        NS_TEST_EXPECT_MSG_LT_OR_EQ(without.commS - lossless.commS,
                                    farthest.GetSeconds() + 1e-3,
                                    "without copies: the farther round trip");
        NS_TEST_EXPECT_MSG_GT(without.commS - lossless.commS,
                              served.commS - lossless.commS,
                              "the copy saves time");

        // The copy lost too: the island asks again after its repair wait, the contributors answer.
        aggregate.times = 2;
        const Outcome twice = RunWithLosses(reference, schedule, config, lax, {aggregate});
        NS_TEST_ASSERT_MSG_EQ(twice.dropped.has_value(), true, "aggregate and copy dropped");
        NS_TEST_EXPECT_MSG_EQ(twice.shadowServes, 1u, "the copy is served once only");
        NS_TEST_EXPECT_MSG_EQ(twice.allRepairs, 2u, "then a repair from each contributor");
        NS_TEST_EXPECT_MSG_LT_OR_EQ(twice.commS - lossless.commS,
                                    2 * farthest.GetSeconds() + config.nackTimeout.GetSeconds() +
                                        2e-3,
                                    "one repair wait, then the farther round trip");
    }
};

/**
 * @ingroup wan-training-tests
 * @brief Tree mode: a member's contribution lost on its way to the root is NACKed by the root
 * once a later chunk is held from everyone (the FPGA slot waiting for it is completed by the
 * repair, no Timeout); a total lost on its way to a member is NACKed by the member at once.
 * Either costs at most the round trip between the root and that member.
 */
class TreeSingleLossTestCase : public TestCase
{
  public:
    TreeSingleLossTestCase()
        : TestCase("tree: a lost contribution or total costs one round trip, no Timeout")
    {
    }

  private:
    void DoRun() override
    {
        const WanTopology reference = WanTopology::LoadFile(CreateDataDirFilename(REFERENCE_WAN));
        const std::vector<uint32_t> clique{reference.GetCityIndex("NYC"),
                                           reference.GetCityIndex("CHI"),
                                           reference.GetCityIndex("LAX"),
                                           reference.GetCityIndex("LON")};
        const CliqueSchedule schedule = OneClique(reference, clique);
        const TrainingRun::Config config = OneRound(CapabilityMode::TREE, 20000000);
        const Outcome lossless = RunWithLosses(reference, schedule, config, clique[0], {});
        const uint32_t root = lossless.treeRoot;
        // The member farthest from the root.
        uint32_t member = root == clique[0] ? clique[1] : clique[0];
        for (uint32_t i : clique)
        {
            if (i != root && IslandTiming::GetRoundTripTime(reference, i, root) >
                                 IslandTiming::GetRoundTripTime(reference, member, root))
            {
                member = i;
            }
        }
        const Time rtt = IslandTiming::GetRoundTripTime(reference, member, root);
        const std::set<uint32_t> middle{lossless.chunkCount / 2};

        const Outcome in = RunWithLosses(reference,
                                         schedule,
                                         config,
                                         root,
                                         {{member, reference.GetAccessUpLink(member), middle}});
        NS_TEST_ASSERT_MSG_EQ(in.dropped.has_value(), true, "the contribution was dropped");
        NS_TEST_EXPECT_MSG_EQ(in.repairs, 1u, "one repair");
        NS_TEST_EXPECT_MSG_EQ(in.timeouts, 0u, "no slot waited for the FPGA's Timeout");
        NS_TEST_EXPECT_MSG_LT_OR_EQ(in.commS - lossless.commS,
                                    rtt.GetSeconds() + 2e-3,
                                    "a lost contribution costs at most the round trip to the root");

        Drop total{root, reference.GetAccessDownLink(member), middle};
        total.type = IslandSyncHeader::AGGREGATE;
        const Outcome out = RunWithLosses(reference, schedule, config, member, {total});
        NS_TEST_ASSERT_MSG_EQ(out.dropped.has_value(), true, "the total was dropped");
        NS_TEST_EXPECT_MSG_EQ(out.repairs, 1u, "the root resent it");
        NS_TEST_EXPECT_MSG_LT_OR_EQ(out.commS - lossless.commS,
                                    rtt.GetSeconds() + 2e-3,
                                    "a lost total costs at most the round trip to the root (not "
                                    "twice the Timeout)");
    }
};

/**
 * @ingroup wan-training-tests
 * @brief Ring mode: losses on three consecutive hops, in three consecutive steps, in one
 * segment (different chunks). Each step is released when the previous one has arrived but for
 * its repair, and a held-back chunk follows its repair, so the three repairs overlap: they cost
 * about the largest of the three round trips, where steps released only once held would pay
 * their sum.
 */
class RingLossesTestCase : public TestCase
{
  public:
    RingLossesTestCase()
        : TestCase("ring: losses in consecutive steps cost one round trip, not their sum")
    {
    }

  private:
    void DoRun() override
    {
        const WanTopology tiny = WanTopology::LoadFile(CreateDataDirFilename(TINY));
        const CliqueSchedule schedule(3, {{{0, 1, 2}}});
        const TrainingRun::Config config = OneRound(CapabilityMode::RING, 2000000);
        // The ring a -> b -> c -> a, from aaa.
        const uint32_t a = 0;
        const Outcome lossless = RunWithLosses(tiny, schedule, config, a, {});
        const uint32_t b = lossless.successor;
        const uint32_t c = RunWithLosses(tiny, schedule, config, b, {}).successor;
        // a's own segment t goes a -> b in step 0 (DATA), b -> c in step 1 and c -> a in step 2
        // (AGGREGATEs: reduce-scatter, then the first all-gather step).
        const uint32_t t = lossless.ringPosition;
        const uint32_t j = (lossless.segmentFirst[t] + lossless.segmentFirst[t + 1]) / 2;
        NS_TEST_ASSERT_MSG_GT(lossless.segmentFirst[t + 1], j + 20, "a long segment");
        Drop first{a, tiny.GetAccessUpLink(a), {j}};
        Drop second{b, tiny.GetAccessUpLink(b), {j + 10}};
        second.type = IslandSyncHeader::AGGREGATE;
        Drop third{c, tiny.GetAccessUpLink(c), {j + 20}};
        third.type = IslandSyncHeader::AGGREGATE;
        const Outcome lost = RunWithLosses(tiny, schedule, config, b, {first, second, third});
        NS_TEST_ASSERT_MSG_EQ(lost.dropped.has_value(), true, "the three chunks were dropped");
        const double ab = IslandTiming::GetRoundTripTime(tiny, a, b).GetSeconds();
        const double bc = IslandTiming::GetRoundTripTime(tiny, b, c).GetSeconds();
        const double ca = IslandTiming::GetRoundTripTime(tiny, c, a).GetSeconds();
        const double largest = std::max({ab, bc, ca});
        NS_TEST_EXPECT_MSG_GT_OR_EQ(lost.repairs, 3u, "a repair per loss");
        NS_TEST_EXPECT_MSG_GT(lost.commS - lossless.commS,
                              largest / 2,
                              "a repair cannot come sooner than the NACK's way there and back");
        NS_TEST_EXPECT_MSG_LT_OR_EQ(lost.commS - lossless.commS,
                                    largest + config.nackTimeout.GetSeconds() + 2e-3,
                                    "the repairs overlap: at most the largest round trip (their "
                                    "sum is "
                                        << ab + bc + ca << " s)");
    }
};

/**
 * @ingroup wan-training-tests
 * @brief Loss repair test suite.
 */
class LossRepairTestSuite : public TestSuite
{
  public:
    LossRepairTestSuite()
        : TestSuite("wan-training-loss-repair", UNIT)
    {
        SetDataDir(NS_TEST_SOURCEDIR);
        AddTestCase(new UnicastSingleLossTestCase(), TestCase::QUICK);
        AddTestCase(new UnicastLostRepairTestCase(), TestCase::QUICK);
        AddTestCase(new AggregationSingleLossTestCase(), TestCase::QUICK);
        AddTestCase(new AggregationLostAggregateTestCase(), TestCase::QUICK);
        AddTestCase(new FecTestCase(), TestCase::QUICK);
        AddTestCase(new TreeSingleLossTestCase(), TestCase::QUICK);
        AddTestCase(new RingLossesTestCase(), TestCase::QUICK);
    }
};

/** The suite's static instance. */
static LossRepairTestSuite g_lossRepairTestSuite;
