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

#include "ns3/error-model.h"
#include "ns3/ipv4-address.h"
#include "ns3/nstime.h"
#include "ns3/pointer.h"
#include "ns3/simulator.h"
#include "ns3/test.h"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>

/**
 * @file
 * @ingroup wan-training-tests
 * Loss repair (issue 23): one lost chunk costs one repair, about a round trip, in unicast at the
 * middle and at the tail of a stream, and a gap with a lost tail one round trip too; behind an edge
 * FPGA the slot of a chunk whose contribution is known lost leaves at once, and the repair costs
 * about a round trip too.
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
 * @brief A receive error model that drops chosen DATA chunks: the first arrival of each given
 * chunk index from a given sender to a given destination (a retransmission passes).
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
     * @param sender the sender's island
     * @param destination the datagram's destination address
     * @param chunks the chunk indices to drop
     */
    void Set(uint32_t sender, Ipv4Address destination, const std::set<uint32_t>& chunks)
    {
        m_sender = sender;
        m_destination = destination;
        m_chunks = chunks;
    }

    /** @return when the last chunk was dropped (none if not every chunk was) */
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
            header.GetType() != IslandSyncHeader::DATA || header.GetSender() != m_sender ||
            m_chunks.count(header.GetChunkIndex()) == 0 || Ipv4Address(to) != m_destination)
        {
            return false;
        }
        m_chunks.erase(header.GetChunkIndex());
        m_droppedAt = Simulator::Now();
        return true;
    }

    void DoReset() override
    {
    }

    uint32_t m_sender{0};            //!< the sender's island
    Ipv4Address m_destination;       //!< the datagram's destination
    std::set<uint32_t> m_chunks;     //!< the chunks still to drop
    std::optional<Time> m_droppedAt; //!< when the last one was dropped
};

/** What one run of a case gives. */
struct Outcome
{
    double commS{0};             //!< the sender's clique's communication time
    uint64_t repairs{0};         //!< chunks the sender sent again
    std::optional<Time> dropped; //!< when the chunk was dropped
    uint64_t knownLost{0};       //!< the receiver's FPGA: known-lost releases
    uint64_t timeouts{0};        //!< the receiver's FPGA: Timeout releases
    uint32_t chunkCount{0};      //!< chunks per stream
};

/**
 * @param topology the topology
 * @param schedule a one-round schedule
 * @param config the configuration (one round)
 * @param sender the island whose chunk is dropped
 * @param receiver the island it is sent to
 * @param link the directed link on whose receiving device it is dropped
 * @param chunks the chunk indices to drop (none: a lossless run)
 * @return the outcome
 */
Outcome
RunWithLosses(const WanTopology& topology,
              const CliqueSchedule& schedule,
              const TrainingRun::Config& config,
              uint32_t sender,
              uint32_t receiver,
              uint32_t link,
              const std::set<uint32_t>& chunks)
{
    Outcome outcome;
    TrainingRun run(topology, schedule, config);
    run.Build();
    Ptr<DropChunksErrorModel> model;
    if (!chunks.empty())
    {
        model = CreateObject<DropChunksErrorModel>();
        model->Set(sender, run.GetScenario().GetIslandAddress(receiver), chunks);
        run.GetScenario().GetRxDevice(link)->SetAttribute("ReceiveErrorModel", PointerValue(model));
    }
    run.Run();
    NS_ABORT_MSG_UNLESS(run.Passed(), "the run passes");
    const nlohmann::json results = nlohmann::json::parse(run.GetResults().ToJson());
    const std::string id = topology.GetCity(sender).id;
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
    outcome.repairs = run.GetResults().GetIslandCounters(sender).repairs;
    outcome.dropped = model ? model->GetDropTime() : std::nullopt;
    if (Ptr<AggregatorNetDevice> fpga = run.GetScenario().GetAggregator(receiver))
    {
        outcome.knownLost = fpga->GetKnownLostReleases();
        outcome.timeouts = fpga->GetTimeouts();
    }
    outcome.chunkCount = run.GetApp(sender)->GetPlan(0).chunkCount;
    return outcome;
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
        TrainingRun::Config config;
        config.mode = CapabilityMode::UNICAST;
        config.rounds = 1;
        config.modelBytes = 2000000;
        config.localSteps = 1;
        config.stepTime = MilliSeconds(1);
        const uint32_t aaa = 0;
        const uint32_t ccc = 2;
        const uint32_t link = tiny.GetWanDirectedLink(0, 1);
        const Time rtt = IslandTiming::GetRoundTripTime(tiny, aaa, ccc);
        const Outcome lossless = RunWithLosses(tiny, schedule, config, aaa, ccc, link, {});
        NS_TEST_ASSERT_MSG_EQ(lossless.repairs, 0u, "no repair without a loss");
        NS_TEST_ASSERT_MSG_GT(lossless.chunkCount, 1000u, "a long stream");

        const Outcome middle =
            RunWithLosses(tiny, schedule, config, aaa, ccc, link, {lossless.chunkCount / 2});
        NS_TEST_ASSERT_MSG_EQ(middle.dropped.has_value(), true, "the middle chunk was dropped");
        NS_TEST_EXPECT_MSG_EQ(middle.repairs, 1u, "one repair");
        NS_TEST_EXPECT_MSG_GT_OR_EQ(middle.commS, lossless.commS, "a loss costs time");
        NS_TEST_EXPECT_MSG_LT_OR_EQ(middle.commS - lossless.commS,
                                    rtt.GetSeconds() + 1e-3,
                                    "a middle loss costs at most a round trip");

        const Outcome tail =
            RunWithLosses(tiny, schedule, config, aaa, ccc, link, {lossless.chunkCount - 1});
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
        const std::set<uint32_t> gapAndTail{lossless.chunkCount - 10, lossless.chunkCount - 1};
        const Outcome both = RunWithLosses(tiny, schedule, config, aaa, ccc, link, gapAndTail);
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
 * @brief Aggregation mode: a contribution lost in the middle of a stream is known lost at the
 * receiver's FPGA when the sender's next chunk arrives; the slot leaves at once (no Timeout)
 * and the island NACKs the sender at once, so the loss costs about a round trip, not the
 * FPGA's Timeout.
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
        std::vector<std::vector<uint32_t>> cliques{{nyc, chi, lax}};
        for (uint32_t i = 0; i < reference.GetNCities(); ++i)
        {
            if (i != nyc && i != chi && i != lax)
            {
                cliques.push_back({i});
            }
        }
        const CliqueSchedule schedule(reference.GetNCities(), {cliques});
        TrainingRun::Config config;
        config.mode = CapabilityMode::AGGREGATION;
        config.rounds = 1;
        config.modelBytes = 20000000;
        config.localSteps = 1;
        config.stepTime = MilliSeconds(1);
        // chi's contributions to lax, dropped as they enter chi's router.
        const uint32_t link = reference.GetAccessUpLink(chi);
        const Time rtt = IslandTiming::GetRoundTripTime(reference, chi, lax);
        const Outcome lossless = RunWithLosses(reference, schedule, config, chi, lax, link, {});
        NS_TEST_ASSERT_MSG_EQ(lossless.repairs, 0u, "no repair without a loss");

        const Outcome lost =
            RunWithLosses(reference, schedule, config, chi, lax, link, {lossless.chunkCount / 2});
        NS_TEST_ASSERT_MSG_EQ(lost.dropped.has_value(), true, "the contribution was dropped");
        NS_TEST_EXPECT_MSG_EQ(lost.repairs, 1u, "one repair");
        NS_TEST_EXPECT_MSG_EQ(lost.knownLost, 1u, "lax's FPGA knew the contribution lost");
        NS_TEST_EXPECT_MSG_EQ(lost.timeouts, 0u, "no slot waited for the FPGA's Timeout");
        NS_TEST_EXPECT_MSG_LT_OR_EQ(lost.commS - lossless.commS,
                                    rtt.GetSeconds() + 1e-3,
                                    "the loss costs at most a round trip (not the 500 ms "
                                    "Timeout)");
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
        AddTestCase(new AggregationSingleLossTestCase(), TestCase::QUICK);
    }
};

/** The suite's static instance. */
static LossRepairTestSuite g_lossRepairTestSuite;
