/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "tree-exchange.h"

#include "clique-membership.h"
#include "island-timing.h"
#include "payload-codec.h"
#include "wan-topology.h"

#include "ns3/log.h"
#include "ns3/simulator.h"

#include <bitset>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("WanTrainingTreeExchange");

NS_OBJECT_ENSURE_REGISTERED(TreeExchange);

namespace
{

/** An island's contributor bit (IslandSyncHeader::GetContributorBit). */
constexpr auto Bit = &IslandSyncHeader::GetContributorBit;

} // namespace

TypeId
TreeExchange::GetTypeId()
{
    static TypeId tid = TypeId("ns3::WanTraining::TreeExchange")
                            .SetParent<MulticastExchange>()
                            .SetGroupName("WanTraining")
                            .AddConstructor<TreeExchange>();
    return tid;
}

CapabilityMode
TreeExchange::GetMode() const
{
    return CapabilityMode::TREE;
}

bool
TreeExchange::IsRoot() const
{
    return GetPlan().treeRoot == m_ctx.island;
}

void
TreeExchange::FillChunk(const ExchangePlan& plan,
                        uint32_t step,
                        const std::vector<float>& snapshot,
                        const RingValues* sums,
                        uint32_t offset,
                        uint32_t count,
                        IslandSyncHeader& header) const
{
    StarExchange::FillChunk(plan, step, snapshot, sums, offset, count, header);
    if (plan.island == plan.treeRoot)
    {
        // The root's send side holds the totals: the sum of every member's values.
        header.SetType(IslandSyncHeader::AGGREGATE);
        header.SetContributors(plan.GetMemberBits());
    }
}

void
TreeExchange::AddOwn(const ExchangePlan& plan,
                     const std::vector<float>& snapshot,
                     std::vector<double>& sum) const
{
    // A member's own values reach it inside the root's total.
    if (plan.island == plan.treeRoot)
    {
        StarExchange::AddOwn(plan, snapshot, sum);
    }
}

std::vector<uint32_t>
TreeExchange::GetAwaited(const ExchangePlan& plan,
                         const SendStream* pacer,
                         const std::map<uint32_t, SendStream>* sendStreams,
                         const std::map<uint32_t, ReceiveStream>* receiveStreams) const
{
    if (plan.island == plan.treeRoot)
    {
        return StarExchange::GetAwaited(plan, pacer, sendStreams, receiveStreams);
    }
    std::vector<uint32_t> awaited;
    for (uint32_t member : plan.members)
    {
        if (member == plan.island)
        {
            continue;
        }
        bool waiting = sendStreams != nullptr && (m_notReady & Bit(member)) != 0;
        if (member == plan.treeRoot && receiveStreams != nullptr)
        {
            auto it = receiveStreams->find(member);
            waiting = waiting || (it != receiveStreams->end() && !it->second.IsStarted() &&
                                  !it->second.IsComplete());
        }
        if (waiting)
        {
            awaited.push_back(member);
        }
    }
    return awaited;
}

void
TreeExchange::ChunkHeld(uint32_t chunk)
{
    if (IsRoot())
    {
        ReleaseTotals(chunk, chunk + 1);
    }
}

void
TreeExchange::PeerStarted(uint32_t island)
{
    if (IsRoot())
    {
        StarExchange::PeerStarted(island);
        return;
    }
    if (!m_tx || !(m_notReady & Bit(island)))
    {
        return;
    }
    m_notReady &= ~Bit(island);
    --m_tx->awaited;
    if (m_tx->awaited == 0)
    {
        // Every member is ready: the stream to the root starts with the others'.
        SendStream& stream = m_tx->streams.at(GetPlan().treeRoot);
        stream.GetPacer().RestartNow();
        stream.GetPacer().Delay(GetStartDelayS(GetPlan()));
        ResumeStream(stream);
    }
}

double
TreeExchange::GetStartDelayS(const ExchangePlan& plan) const
{
    if (m_ctx.overlap)
    {
        // A member announces a round ahead, at its previous snapshot, and snapshots when its
        // compute and the previous round's average are done, which differ from member to
        // member: nothing here tells when its stream starts. Start at once (the FPGAs' slots
        // hold the early contributions for the skew).
        return 0;
    }
    // When each member started the round: its announcement's arrival minus its latency to
    // here (round 0 is announced by nobody: every member is taken to start with this one).
    const WanTopology& topology = *m_ctx.topology;
    const CliqueMembership& membership = *m_ctx.membership;
    const double now = Simulator::Now().GetSeconds();
    auto latencyS = [&topology](uint32_t from, uint32_t to) {
        return from == to ? 0.0 : 1e-3 * topology.GetRoute(from, to).latencyMs;
    };
    const double ownStartS = membership.GetPeerAnnouncedAt(plan.island).GetSeconds();
    std::map<uint32_t, double> startS;
    for (uint32_t member : plan.members)
    {
        const bool announced = m_round > 0 && membership.GetPeerRound(member) == m_round;
        startS[member] = member == plan.island || !announced
                             ? ownStartS
                             : membership.GetPeerAnnouncedAt(member).GetSeconds() -
                                   latencyS(member, plan.island);
    }
    // Each member's stream starts after its local compute (taken as long as this island's) and,
    // in rounds >= 1 with the barrier, once every member's READY has reached it; the last
    // contribution reaches the root its route latency later.
    const double computeS = m_beginS - ownStartS;
    double arrivalS = 0;
    for (uint32_t member : plan.members)
    {
        if (member == plan.treeRoot)
        {
            continue;
        }
        double streamS = startS[member] + computeS;
        if (m_round > 0 && m_ctx.cliqueBarrier)
        {
            for (uint32_t other : plan.members)
            {
                streamS = std::max(streamS, startS[other] + latencyS(other, member));
            }
        }
        arrivalS = std::max(arrivalS, streamS + latencyS(member, plan.treeRoot));
    }
    return std::max(0.0, arrivalS - latencyS(plan.island, plan.treeRoot) - now);
}

void
TreeExchange::FitToView()
{
    NS_LOG_FUNCTION(this << m_round);
    const ExchangePlan& plan = GetPlan();
    if (m_tx && !IsRoot())
    {
        m_notReady &= ~plan.excluded;
        m_tx->awaited = static_cast<uint32_t>(std::bitset<64>(m_notReady).count());
    }
    StarExchange::FitToView();
    if (IsRoot())
    {
        // Chunks that waited only for the members left out are complete now.
        ReleaseTotals(0, plan.chunkCount);
    }
}

std::optional<Time>
TreeExchange::GetReceiveTimeLeft() const
{
    // A member's receive stream is the total, which the reduction holds back.
    return std::nullopt;
}

uint64_t
TreeExchange::GetHeldFrom() const
{
    if (IsRoot())
    {
        return StarExchange::GetHeldFrom();
    }
    const ExchangePlan& plan = GetPlan();
    if (!m_rx)
    {
        return 0;
    }
    auto it = m_rx->streams.find(plan.treeRoot);
    // A total holds every member's values.
    return it != m_rx->streams.end() && it->second.IsStarted()
               ? plan.GetMemberBits() & ~Bit(m_ctx.island)
               : 0;
}

std::vector<IslandExchange::ReceiveRange>
TreeExchange::GetReceiveRanges(const ExchangePlan& plan) const
{
    if (plan.island == plan.treeRoot)
    {
        return StarExchange::GetReceiveRanges(plan);
    }
    if (plan.members.size() < 2)
    {
        return {};
    }
    return {{plan.treeRoot, plan.treeRoot, 0, 0, plan.chunkCount}};
}

void
TreeExchange::AddReceiveStreams(const ExchangePlan& plan)
{
    if (plan.island == plan.treeRoot)
    {
        StarExchange::AddReceiveStreams(plan);
        return;
    }
    GetSum().assign(plan.parameterCount, 0.0);
    // The totals come from the root unsummed (the FPGAs pass AGGREGATEs of the out-tree): a gap
    // is a lost total, or one the root has not sent yet (it waits for a repair). NACK it at
    // once: the root resends only totals it sent, and the due checks ask again for the rest.
    ReceiveStream::Timing timing = GetReceiveTiming(plan, plan.treeRoot);
    timing.behindFpga = false;
    for (const ReceiveRange& range : GetReceiveRanges(plan))
    {
        AddReceiveStream(range, timing);
    }
}

void
TreeExchange::AddSendStreams(const ExchangePlan& plan)
{
    if (plan.island == plan.treeRoot)
    {
        // The group stream sends the totals as they complete, not the contribution.
        MulticastExchange::AddSendStreams(plan);
        m_tx->group.m_pending = ChunkRangeSet();
        return;
    }
    const uint32_t root = plan.treeRoot;
    m_beginS = Simulator::Now().GetSeconds();
    SendStream& stream = m_tx->streams[root];
    stream.m_destination = root;
    stream.SetProbeCallback(MakeCallback(&TreeExchange::Probe, this).Bind(root));
    stream.GetPacer().Configure(StreamPacer::OWN,
                                MakeCallback(&TreeExchange::SendNext, this).Bind(root));
    stream.m_pending.Insert(0, plan.chunkCount);
    stream.GetPacer().RestartNow();
    stream.GetPacer().Delay(GetStartDelayS(plan));
}

void
TreeExchange::MarkAwaited(const ExchangePlan& plan)
{
    if (plan.island == plan.treeRoot)
    {
        StarExchange::MarkAwaited(plan);
        return;
    }
    // One stream, to the root, but it starts with every member's.
    m_notReady = 0;
    for (uint32_t member : plan.members)
    {
        if (member != plan.island && m_ctx.cliqueBarrier &&
            m_ctx.membership->GetPeerRound(member) < m_round)
        {
            m_notReady |= Bit(member);
        }
    }
    m_tx->awaited = static_cast<uint32_t>(std::bitset<64>(m_notReady).count());
}

void
TreeExchange::AddOwnToSums(const ExchangePlan& plan, const std::vector<float>& snapshot)
{
    StarExchange::AddOwnToSums(plan, snapshot);
    if (plan.island == plan.treeRoot)
    {
        m_released = ChunkRangeSet();
        m_sentTotals = ChunkRangeSet();
        m_ownAdded = true;
        ReleaseTotals(0, plan.chunkCount);
    }
}

void
TreeExchange::ReleaseTotals(uint32_t first, uint32_t end)
{
    if (!m_ownAdded || !m_tx || !m_rx)
    {
        return;
    }
    const ExchangePlan& plan = GetPlan();
    const std::vector<double>& sum = GetSum();
    bool released = false;
    for (uint32_t chunk = first; chunk < end; ++chunk)
    {
        if (m_released.Contains(chunk))
        {
            continue;
        }
        bool complete = true;
        for (const auto& [source, stream] : m_rx->streams)
        {
            complete = complete && stream.Holds(chunk);
        }
        if (!complete)
        {
            continue;
        }
        auto [offset, count] = plan.GetValueSlice(chunk);
        for (uint32_t v = offset; v < offset + count; ++v)
        {
            m_tx->values[v] = static_cast<float>(sum[v]);
        }
        m_released.Insert(chunk);
        m_tx->group.m_pending.Insert(chunk);
        released = true;
    }
    if (released)
    {
        ResumeStream(m_tx->group);
    }
}

void
TreeExchange::Average(const ExchangePlan& plan,
                      const std::vector<double>& sum,
                      const RingValues* /* sums */,
                      std::vector<float>& parameters) const
{
    // The totals as the root sends them (rounded to float, encoded and decoded): the root's
    // own sums, or (other members) the root's decoded totals, which this leaves as they are.
    const double k = static_cast<double>(plan.members.size());
    std::vector<float> totals(sum.begin(), sum.begin() + plan.parameterCount);
    PayloadCodec::Quantize(plan.format, totals);
    for (uint32_t v = 0; v < plan.parameterCount; ++v)
    {
        parameters[v] = static_cast<float>(totals[v] / k);
    }
}

bool
TreeExchange::UsesGroupPacer() const
{
    return IsRoot();
}

bool
TreeExchange::IsBehindFpga() const
{
    return true;
}

bool
TreeExchange::AreAggregatesInOrder() const
{
    // The stagger makes a chunk's contributions meet at every router together, so lossless
    // slots complete in chunk order at every port on the way to the root.
    return IsRoot();
}

bool
TreeExchange::NoteSent(const SendStream& paced, SendStream& target, uint32_t chunk)
{
    if (!IsRoot())
    {
        return IslandExchange::NoteSent(paced, target, chunk);
    }
    if (&target == &paced)
    {
        m_sentTotals.Insert(chunk);
    }
    return MulticastExchange::NoteSent(paced, target, chunk);
}

double
TreeExchange::GetPacingRate(const ExchangePlan& plan, const SendStream& stream) const
{
    return plan.island == plan.treeRoot ? MulticastExchange::GetPacingRate(plan, stream)
                                        : IslandExchange::GetPacingRate(plan, stream);
}

void
TreeExchange::PacerDrained(SendStream& paced, double lastSendEndS)
{
    if (!IsRoot())
    {
        IslandExchange::PacerDrained(paced, lastSendEndS);
    }
    else if (m_sentTotals.Covers(GetPlan().chunkCount))
    {
        // Every total has gone: the members' DONE timeouts start.
        MulticastExchange::PacerDrained(paced, lastSendEndS);
    }
}

void
TreeExchange::QueueRepairs(SendStream& stream, const std::vector<IslandSyncHeader::Range>& ranges)
{
    if (!IsRoot())
    {
        IslandExchange::QueueRepairs(stream, ranges);
        return;
    }
    // Only totals that went to the group: the others are not complete or still pending.
    for (const auto& range : ranges)
    {
        for (const auto& [begin, end] : m_sentTotals.GetRangesWithin(range.first, range.second))
        {
            stream.m_pending.Insert(begin, end);
        }
    }
}

uint64_t
TreeExchange::GetAcceptedContributors(const ExchangePlan& plan) const
{
    // A member takes the root's totals, which name every member.
    return plan.island == plan.treeRoot ? StarExchange::GetAcceptedContributors(plan)
                                        : plan.GetMemberBits();
}

bool
TreeExchange::IsWhole(const ExchangePlan& plan, uint64_t contributors) const
{
    return plan.island == plan.treeRoot || contributors == plan.GetMemberBits();
}

std::vector<uint32_t>
TreeExchange::GetSourcesOf(const ExchangePlan& plan, uint64_t contributors) const
{
    if (plan.island == plan.treeRoot)
    {
        return StarExchange::GetSourcesOf(plan, contributors);
    }
    return {plan.treeRoot};
}

} // namespace ns3
