/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "aggregation-exchange.h"
#include "both-exchange.h"
#include "clique-membership.h"
#include "exchange-planner.h"
#include "island-exchange.h"
#include "multicast-exchange.h"
#include "ring-exchange.h"
#include "round-exchanges.h"
#include "star-exchange.h"
#include "test-utils.h"

#include "ns3/simulator.h"
#include "ns3/test.h"

#include <map>
#include <vector>

/**
 * @file
 * @ingroup wan-training-tests
 * The exchanges of the capability modes on their own: the factory's choice per mode, a star
 * chunk's content, awaited members and average, and a three-member ring's segments,
 * contributors, steps (found back from headers), awaited members, chunk checks, stored sums,
 * chunk values and average, against hand-computed values.
 */

using namespace ns3;

namespace
{

/**
 * @return the plan of island 5 in a ring 2 -> 5 -> 7 (place 1): 6 chunks of 4 values, two
 *         chunks per segment, 24 parameters
 */
ExchangePlan
RingPlan()
{
    ExchangePlan plan;
    plan.mode = CapabilityMode::RING;
    plan.modelBytes = 96;
    plan.valueCount = 24;
    plan.parameterCount = 24;
    plan.island = 5;
    plan.clique = 3;
    plan.members = {2, 5, 7};
    plan.chunkValues = 4;
    plan.chunkBytes = 16;
    plan.chunkCount = 6;
    plan.ring = {2, 5, 7};
    plan.ringPosition = 1;
    plan.predecessor = 2;
    plan.successor = 7;
    plan.segmentFirst = {0, 2, 4, 6};
    return plan;
}

/** The factory makes the exchange of each mode. */
class IslandExchangeFactoryTestCase : public TestCase
{
  public:
    IslandExchangeFactoryTestCase()
        : TestCase("IslandExchange::Create: a ring exchange for ring mode, a star exchange for "
                   "the others; star chunks carry the sender's own values")
    {
    }

  private:
    void DoRun() override
    {
        for (CapabilityMode mode : {CapabilityMode::UNICAST,
                                    CapabilityMode::MULTICAST,
                                    CapabilityMode::AGGREGATION,
                                    CapabilityMode::BOTH})
        {
            Ptr<IslandExchange> exchange = IslandExchange::Create(mode);
            NS_TEST_ASSERT_MSG_NE(DynamicCast<StarExchange>(exchange), nullptr, "a star");
            // One class per mode: multicast and both send to the group, FPGAs sum in
            // aggregation and both.
            const bool group = DynamicCast<MulticastExchange>(exchange) != nullptr;
            const bool groupMode =
                mode == CapabilityMode::MULTICAST || mode == CapabilityMode::BOTH;
            NS_TEST_ASSERT_MSG_EQ(group, groupMode, "a multicast exchange in the group modes");
            const bool aggregation = DynamicCast<AggregationExchange>(exchange) != nullptr;
            const bool aggregationMode = mode == CapabilityMode::AGGREGATION;
            NS_TEST_ASSERT_MSG_EQ(aggregation, aggregationMode, "an aggregation exchange");
            const bool both = DynamicCast<BothExchange>(exchange) != nullptr;
            const bool bothMode = mode == CapabilityMode::BOTH;
            NS_TEST_ASSERT_MSG_EQ(both, bothMode, "a both exchange");
            NS_TEST_ASSERT_MSG_EQ(static_cast<int>(exchange->GetMode()),
                                  static_cast<int>(mode),
                                  "its mode");
        }
        Ptr<IslandExchange> ring = IslandExchange::Create(CapabilityMode::RING);
        NS_TEST_ASSERT_MSG_NE(DynamicCast<RingExchange>(ring), nullptr, "a ring");
        NS_TEST_ASSERT_MSG_EQ(static_cast<int>(ring->GetMode()),
                              static_cast<int>(CapabilityMode::RING),
                              "its mode");

        ExchangePlan plan = RingPlan();
        plan.mode = CapabilityMode::UNICAST;
        std::vector<float> snapshot(24);
        for (uint32_t i = 0; i < 24; ++i)
        {
            snapshot[i] = static_cast<float>(i);
        }
        IslandSyncHeader header;
        header.SetType(IslandSyncHeader::DATA);
        Ptr<IslandExchange> star = IslandExchange::Create(CapabilityMode::UNICAST);
        star->FillChunk(plan, 0, snapshot, nullptr, 8, 4, header);
        NS_TEST_ASSERT_MSG_EQ(header.GetType(), IslandSyncHeader::DATA, "a DATA chunk");
        NS_TEST_ASSERT_MSG_EQ(header.GetContributors(), uint64_t{1} << 5, "the sender alone");
        NS_TEST_ASSERT_MSG_EQ(header.GetValues().size(), 4U, "four values");
        NS_TEST_ASSERT_MSG_EQ(header.GetValues()[0], 8.0F, "from the offset");
        NS_TEST_ASSERT_MSG_EQ(header.GetValues()[3], 11.0F, "to the end of the slice");
        NS_TEST_ASSERT_MSG_EQ(star->GetStepOf(plan, header), IslandExchange::NO_STEP, "no steps");

        // A member is awaited while its stream waits for its READY.
        std::map<uint32_t, SendStream> sendStreams;
        sendStreams[2].m_waitingReady = true;
        sendStreams[7];
        std::vector<uint32_t> awaited = star->GetAwaited(plan, nullptr, &sendStreams, nullptr);
        NS_TEST_ASSERT_MSG_EQ(awaited.size(), 1U, "one member awaited");
        NS_TEST_ASSERT_MSG_EQ(awaited[0], 2U, "island 2");

        // The star's average: the own snapshot added to the sum, divided by the members.
        std::vector<double> sum(24, 4.0);
        star->AddOwn(plan, snapshot, sum);
        NS_TEST_ASSERT_MSG_EQ(sum[2], 6.0, "own values added");
        star->Average(plan, sum, nullptr, snapshot);
        NS_TEST_ASSERT_MSG_EQ(snapshot[2], 2.0F, "(4 + 2) / 3");
        NS_TEST_ASSERT_MSG_EQ(snapshot[23], 9.0F, "(4 + 23) / 3");
    }
};

/** The ring's steps on a three-member ring. */
class RingExchangeTestCase : public TestCase
{
  public:
    RingExchangeTestCase()
        : TestCase("RingExchange: segments, contributors, steps, values and average of a "
                   "three-member ring")
    {
    }

  private:
    void DoRun() override
    {
        const ExchangePlan plan = RingPlan();
        Ptr<RingExchange> ring = CreateObject<RingExchange>();
        NS_TEST_ASSERT_MSG_EQ(ring->GetSteps(plan), 4U, "2(k-1) steps");
        // Place 1: reduce-scatter sends segments 1, 0; all-gather segments 2, 1.
        const uint32_t segments[] = {1, 0, 2, 1};
        const uint64_t bits2 = uint64_t{1} << 2;
        const uint64_t bits5 = uint64_t{1} << 5;
        const uint64_t bits7 = uint64_t{1} << 7;
        const uint64_t contributors[] = {bits5,
                                         bits5 | bits2,
                                         bits2 | bits5 | bits7,
                                         bits2 | bits5 | bits7};
        for (uint32_t step = 0; step < 4; ++step)
        {
            NS_TEST_ASSERT_MSG_EQ(ring->GetSegment(plan, 1, step), segments[step], "segment");
            NS_TEST_ASSERT_MSG_EQ(ring->GetContributors(plan, 1, step),
                                  contributors[step],
                                  "contributors");
            const uint32_t chunk = plan.segmentFirst[segments[step]] + 1;
            NS_TEST_ASSERT_MSG_EQ(ring->FindStep(plan, 1, contributors[step], chunk),
                                  step,
                                  "the step found back");
            IslandSyncHeader header;
            header.SetType(step == 0 ? IslandSyncHeader::DATA : IslandSyncHeader::AGGREGATE);
            header.SetRound(0);
            header.SetCliqueIndex(3);
            header.SetSender(5);
            header.SetChunkIndex(chunk);
            header.SetChunkCount(6);
            header.SetContributors(contributors[step]);
            NS_TEST_ASSERT_MSG_EQ(ring->GetStepOf(plan, header), step, "the header's step");
        }
        NS_TEST_ASSERT_MSG_EQ(ring->FindStep(plan, 1, bits5, 0),
                              IslandExchange::NO_STEP,
                              "step 0 sends segment 1, not 0");
        NS_TEST_ASSERT_MSG_EQ(ring->FindStep(plan, 1, bits7, 2),
                              IslandExchange::NO_STEP,
                              "a bitmap without the sender");

        NS_TEST_ASSERT_MSG_EQ(ring->GetPredecessorPosition(plan), 0U, "island 2 at place 0");
        NS_TEST_ASSERT_MSG_EQ(ring->GetStepChunks(plan, 1, 0).first, 2U, "segment 1 from chunk 2");
        NS_TEST_ASSERT_MSG_EQ(ring->GetStepChunks(plan, 1, 0).second, 4U, "to chunk 4");

        // Island 2's step 1 sends segment 2 (chunks 4, 5) summed over {2, 7}.
        IslandSyncHeader fromPredecessor;
        fromPredecessor.SetType(IslandSyncHeader::AGGREGATE);
        fromPredecessor.SetChunkIndex(5);
        fromPredecessor.SetChunkCount(6);
        fromPredecessor.SetContributors(bits2 | bits7);
        fromPredecessor.SetValueOffset(20);
        fromPredecessor.SetValues({5.0F, 6.0F, 7.0F, 8.0F});
        NS_TEST_ASSERT_MSG_EQ(ring->CheckChunk(plan, fromPredecessor, 0), 1U, "step 1");
        NS_TEST_ASSERT_MSG_EQ(ring->CheckChunk(plan, fromPredecessor, 4),
                              IslandExchange::NO_STEP,
                              "padding beyond the payload");
        RingValues received;
        received.partial.assign(24, 0.0F);
        received.reduced.assign(24, 0.0F);
        ring->Store(plan, 1, fromPredecessor, received);
        NS_TEST_ASSERT_MSG_EQ(received.partial[20], 5.0F, "a partial sum, at its offset");
        NS_TEST_ASSERT_MSG_EQ(received.partial[23], 8.0F, "to the end of the chunk");
        NS_TEST_ASSERT_MSG_EQ(received.reduced[20], 0.0F, "no full sum");
        fromPredecessor.SetType(IslandSyncHeader::DATA);
        NS_TEST_ASSERT_MSG_EQ(ring->CheckChunk(plan, fromPredecessor, 0),
                              IslandExchange::NO_STEP,
                              "a sum sent as DATA");

        // The ring awaits its successor's READY.
        SendStream pacer;
        pacer.m_waitingReady = true;
        std::vector<uint32_t> awaited = ring->GetAwaited(plan, &pacer, nullptr, nullptr);
        NS_TEST_ASSERT_MSG_EQ(awaited.size(), 1U, "one member awaited");
        NS_TEST_ASSERT_MSG_EQ(awaited[0], 7U, "the successor");

        std::vector<float> snapshot(24, 1.0F);
        RingValues sums;
        sums.partial.assign(24, 2.0F);
        sums.reduced.assign(24, 9.0F);
        const float expected[] = {1.0F, 3.0F, 3.0F, 9.0F};
        for (uint32_t step = 0; step < 4; ++step)
        {
            IslandSyncHeader header;
            ring->FillChunk(plan, step, snapshot, &sums, 4, 4, header);
            NS_TEST_ASSERT_MSG_EQ(
                header.GetType(),
                (step == 0 ? IslandSyncHeader::DATA : IslandSyncHeader::AGGREGATE),
                "DATA, then AGGREGATE");
            NS_TEST_ASSERT_MSG_EQ(header.GetContributors(), contributors[step], "contributors");
            NS_TEST_ASSERT_MSG_EQ(header.GetValues().size(), 4U, "four values");
            NS_TEST_ASSERT_MSG_EQ(header.GetValues()[2], expected[step], "the step's values");
        }

        // Our own segment is (place + 1) mod k = 2 (values 16..23): partial + own; the others
        // arrived reduced.
        ring->Average(plan, {}, &sums, snapshot);
        NS_TEST_ASSERT_MSG_EQ(snapshot[0], 3.0F, "segment 0: reduced / 3");
        NS_TEST_ASSERT_MSG_EQ(snapshot[8], 3.0F, "segment 1: reduced / 3");
        NS_TEST_ASSERT_MSG_EQ(snapshot[16], 1.0F, "segment 2: (partial + own) / 3");
    }
};

/**
 * An island's exchanges by round (RoundExchanges) with a real planner and membership: island 0
 * of a triangle, all three cities in one clique.
 */
class RoundExchangesTestCase : public TestCase
{
  public:
    RoundExchangesTestCase()
        : TestCase("RoundExchanges: one exchange per round for its plan's algorithm; a chunk of "
                   "a round that is over is acknowledged again without state and the empty "
                   "exchange is dropped; foreign NACKs and rounds out of range are rejected")
    {
    }

  private:
    /** A message the exchanges handed to the socket. */
    struct Sent
    {
        IslandSyncHeader header; //!< its header
        uint32_t destination;    //!< where to
    };

    void DoRun() override
    {
        const WanTopology topology =
            ParseInlineTopology(100,
                                1,
                                R"([{"id": "a"}, {"id": "b"}, {"id": "c"}])",
                                R"([{"a": "a", "b": "b", "latency_ms": 10, "capacity_gbps": 10},
                      {"a": "b", "b": "c", "latency_ms": 10, "capacity_gbps": 10},
                      {"a": "a", "b": "c", "latency_ms": 10, "capacity_gbps": 10}])");
        const CliqueSchedule schedule = CliqueSchedule::AllReduce(3);
        ExchangePlanner::Config config;
        config.mode = CapabilityMode::UNICAST;
        config.modelBytes = 100000;
        config.parameterCount = 8;
        const uint32_t rounds = 3;
        ExchangePlanner planner(topology, schedule, config);
        CliqueMembership
            membership(0, 1, rounds, topology, planner, planner.GetPlans(0), 50, MilliSeconds(5));
        CliqueMembership::Callbacks callbacks;
        callbacks.send = MakeCallback(&RoundExchangesTestCase::Send, this);
        callbacks.peerStarted = MakeCallback(&RoundExchangesTestCase::PeerStarted, this);
        callbacks.memberExcluded = MakeCallback(&RoundExchangesTestCase::Excluded, this);
        callbacks.viewChanged = MakeCallback(&RoundExchangesTestCase::RoundEvent, this);
        callbacks.viewApplied = MakeCallback(&RoundExchangesTestCase::RoundEvent, this);
        callbacks.heldFrom = MakeCallback(&RoundExchangesTestCase::HeldFrom, this);
        callbacks.rejected = MakeCallback(&RoundExchangesTestCase::Rejected, this);
        callbacks.currentRound = MakeCallback(&RoundExchangesTestCase::GetCurrentRound, this);
        callbacks.active = MakeCallback(&RoundExchangesTestCase::IsActive, this);
        membership.SetCallbacks(callbacks);

        IslandExchange::Context context;
        context.island = 0;
        context.topology = &topology;
        context.membership = &membership;
        context.currentRound = callbacks.currentRound;
        context.exchanging = MakeCallback(&RoundExchangesTestCase::IsExchanging, this);
        context.progress = MakeCallback(&RoundExchangesTestCase::RoundEvent, this);
        context.abandon = MakeCallback(&RoundExchangesTestCase::Abandon, this);
        context.idle = MakeCallback(&RoundExchangesTestCase::Idle, this);
        context.send = MakeCallback(&RoundExchangesTestCase::SendPacket, this);
        context.chunkSent = MakeCallback(&RoundExchangesTestCase::ChunkSent, this);
        context.chunkReceived = MakeCallback(&RoundExchangesTestCase::ChunkReceived, this);
        context.nackSent = MakeCallback(&RoundExchangesTestCase::NackSent, this);
        context.rejected = callbacks.rejected;
        RoundExchanges exchanges(context, rounds);

        Ptr<IslandExchange> first = exchanges.Get(0);
        NS_TEST_ASSERT_MSG_NE(DynamicCast<StarExchange>(first), nullptr, "unicast: a star");
        NS_TEST_ASSERT_MSG_EQ(exchanges.Get(0), first, "one exchange per round");
        NS_TEST_ASSERT_MSG_EQ(exchanges.Find(1), nullptr, "none made for round 1");

        // Round 0 is over here: a chunk of b's is a duplicate, acknowledged by a DONE to b,
        // and it leaves no state behind.
        m_current = 1;
        const ExchangePlan& plan = membership.GetPlan(0);
        auto [offset, count] = plan.GetValueSlice(0);
        IslandSyncHeader chunk;
        chunk.SetType(IslandSyncHeader::DATA);
        chunk.SetJobId(1);
        chunk.SetRound(0);
        chunk.SetCliqueIndex(static_cast<uint16_t>(plan.clique));
        chunk.SetSender(1);
        chunk.SetContributors(uint64_t{1} << 1);
        chunk.SetChunkIndex(0);
        chunk.SetChunkCount(plan.chunkCount);
        chunk.SetValueOffset(offset);
        chunk.SetValues(std::vector<float>(count, 1.0F));
        exchanges.HandleMessage(chunk, plan.GetPaddingBytes(0));
        NS_TEST_ASSERT_MSG_EQ(m_duplicates, 1U, "a duplicate");
        NS_TEST_ASSERT_MSG_EQ(m_sent.size(), 1U, "one message sent");
        NS_TEST_ASSERT_MSG_EQ(m_sent[0].header.GetType(), IslandSyncHeader::DONE, "a DONE");
        NS_TEST_ASSERT_MSG_EQ(m_sent[0].destination, 1U, "to b");
        NS_TEST_ASSERT_MSG_EQ(m_sent[0].header.GetContributors(),
                              uint64_t{1} << 1,
                              "naming b's stream");
        NS_TEST_ASSERT_MSG_EQ(first->HasSendSide() || first->HasReceiveSide(), false, "empty");
        exchanges.Prune();
        NS_TEST_ASSERT_MSG_EQ(exchanges.Find(0), nullptr, "dropped at Prune");

        // A chunk of a later round makes that round's receive side (it arrived early).
        chunk.SetRound(2);
        exchanges.HandleMessage(chunk, plan.GetPaddingBytes(0));
        Ptr<IslandExchange> early = exchanges.Find(2);
        NS_TEST_ASSERT_MSG_NE(early, nullptr, "an exchange for round 2");
        NS_TEST_ASSERT_MSG_EQ(early->HasReceiveSide(), true, "its receive side");
        NS_TEST_ASSERT_MSG_EQ(early->HasSendSide(), false, "nothing sent yet");
        NS_TEST_ASSERT_MSG_EQ(exchanges.GetHeldFrom(2), uint64_t{1} << 1, "b's chunk is held");
        exchanges.Prune();
        NS_TEST_ASSERT_MSG_EQ(exchanges.Find(2), early, "kept: it holds a chunk");

        // Rejected: a round out of range, a NACK that names another island.
        chunk.SetRound(rounds);
        exchanges.HandleMessage(chunk, plan.GetPaddingBytes(0));
        NS_TEST_ASSERT_MSG_EQ(m_rejected, 1U, "a round out of range");
        IslandSyncHeader nack;
        nack.SetType(IslandSyncHeader::NACK);
        nack.SetJobId(1);
        nack.SetRound(2);
        nack.SetSender(1);
        nack.SetContributors(uint64_t{1} << 2);
        exchanges.HandleMessage(nack, 0);
        NS_TEST_ASSERT_MSG_EQ(m_rejected, 2U, "a NACK for c's stream");
        exchanges.Stop();
        NS_TEST_ASSERT_MSG_EQ(early->HasReceiveSide(), false, "Stop empties it");
        exchanges.Dispose();
        Simulator::Destroy();
    }

    /**
     * @param header a membership message
     * @param destination where to
     */
    void Send(const IslandSyncHeader& header, uint32_t destination)
    {
        m_sent.push_back({header, destination});
    }

    /**
     * @param header a message
     * @param padding its padding
     * @param destination where to
     */
    void SendPacket(const IslandSyncHeader& header, uint32_t /* padding */, uint32_t destination)
    {
        m_sent.push_back({header, destination});
    }

    /**
     * @param island a peer
     * @param round the round it started
     */
    void PeerStarted(uint32_t /* island */, uint32_t /* round */)
    {
    }

    /**
     * @param round a round
     * @param member a member
     * @param reason why
     */
    void Excluded(uint32_t /* round */, uint32_t /* member */, const std::string& /* reason */)
    {
    }

    /** @param round a round */
    void RoundEvent(uint32_t /* round */)
    {
    }

    /**
     * @param round a round
     * @return the members held from (none: nothing is excluded here)
     */
    uint64_t HeldFrom(uint32_t /* round */)
    {
        return 0;
    }

    /** A rejected packet. */
    void Rejected()
    {
        ++m_rejected;
    }

    /** @return the island's current round */
    uint32_t GetCurrentRound()
    {
        return m_current;
    }

    /** @return whether the island runs */
    bool IsActive()
    {
        return true;
    }

    /**
     * @param round a round
     * @return whether the island exchanges in it (never here)
     */
    bool IsExchanging(uint32_t /* round */)
    {
        return false;
    }

    /** @param reason why a round cannot complete */
    void Abandon(const std::string& /* reason */)
    {
    }

    /** A send side was released. */
    void Idle()
    {
    }

    /**
     * @param destination where to
     * @param header the chunk
     * @param modelBytes its bytes
     * @param resent whether sent before
     */
    void ChunkSent(uint32_t /* destination */,
                   const IslandSyncHeader& /* header */,
                   uint32_t /* modelBytes */,
                   bool /* resent */)
    {
    }

    /**
     * @param header the chunk
     * @param modelBytes its bytes
     * @param duplicate whether it added nothing
     */
    void ChunkReceived(const IslandSyncHeader& /* header */,
                       uint32_t /* modelBytes */,
                       bool duplicate)
    {
        m_duplicates += duplicate ? 1 : 0;
    }

    /**
     * @param source asked to resend
     * @param round the round
     * @param chunks the chunks
     */
    void NackSent(uint32_t /* source */, uint32_t /* round */, uint32_t /* chunks */)
    {
    }

    std::vector<Sent> m_sent; //!< what was sent
    uint32_t m_current{0};    //!< the island's current round
    uint32_t m_rejected{0};   //!< packets rejected
    uint32_t m_duplicates{0}; //!< duplicate chunks
};

/** The exchanges of the capability modes. */
class IslandExchangeTestSuite : public TestSuite
{
  public:
    IslandExchangeTestSuite();
};

IslandExchangeTestSuite::IslandExchangeTestSuite()
    : TestSuite("wan-training-island-exchange", UNIT)
{
    AddTestCase(new IslandExchangeFactoryTestCase(), TestCase::QUICK);
    AddTestCase(new RingExchangeTestCase(), TestCase::QUICK);
    AddTestCase(new RoundExchangesTestCase(), TestCase::QUICK);
}

/** Static instance of the suite. */
IslandExchangeTestSuite g_islandExchangeTestSuite;

} // namespace
