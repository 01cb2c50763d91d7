/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "ring-exchange.h"

#include "clique-membership.h"
#include "island-timing.h"
#include "payload-codec.h"

#include "ns3/log.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <bitset>
#include <iterator>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("WanTrainingRingExchange");

NS_OBJECT_ENSURE_REGISTERED(RingExchange);

namespace
{

/**
 * @param partial a decoded partial sum
 * @param own our decoded value
 * @return their sum, added in double and rounded to float (what a step sends)
 */
float
AddDecoded(float partial, float own)
{
    return static_cast<float>(static_cast<double>(partial) + static_cast<double>(own));
}

} // namespace

TypeId
RingExchange::GetTypeId()
{
    static TypeId tid = TypeId("ns3::WanTraining::RingExchange")
                            .SetParent<IslandExchange>()
                            .SetGroupName("WanTraining")
                            .AddConstructor<RingExchange>();
    return tid;
}

CapabilityMode
RingExchange::GetMode() const
{
    return CapabilityMode::RING;
}

uint32_t
RingExchange::GetSteps(const ExchangePlan& plan) const
{
    return 2 * (static_cast<uint32_t>(plan.ring.size()) - 1);
}

uint32_t
RingExchange::GetSegment(const ExchangePlan& plan, uint32_t position, uint32_t step) const
{
    const uint32_t k = plan.ring.size();
    if (step + 1 < k)
    {
        // Reduce-scatter step s: segment t - s.
        return (position + k - step) % k;
    }
    // All-gather step s: segment t + 1 - s.
    return (position + 1 + k - (step - (k - 1))) % k;
}

std::pair<uint32_t, uint32_t>
RingExchange::GetStepChunks(const ExchangePlan& plan, uint32_t position, uint32_t step) const
{
    const uint32_t segment = GetSegment(plan, position, step);
    return {plan.segmentFirst[segment], plan.segmentFirst[segment + 1]};
}

uint32_t
RingExchange::GetPredecessorPosition(const ExchangePlan& plan) const
{
    const uint32_t k = plan.ring.size();
    return (plan.ringPosition + k - 1) % k;
}

uint64_t
RingExchange::GetContributors(const ExchangePlan& plan, uint32_t position, uint32_t step) const
{
    const uint32_t k = plan.ring.size();
    const uint32_t count = step + 1 < k ? step + 1 : k;
    uint64_t bitmap = 0;
    for (uint32_t i = 0; i < count; ++i)
    {
        bitmap |= uint64_t{1} << plan.ring[(position + k - i) % k];
    }
    return bitmap;
}

uint32_t
RingExchange::FindStep(const ExchangePlan& plan,
                       uint32_t position,
                       uint64_t contributors,
                       uint32_t chunk) const
{
    const uint32_t k = plan.ring.size();
    if (chunk >= plan.chunkCount || position >= k)
    {
        return NO_STEP;
    }
    const uint32_t segment = plan.GetSegmentOfChunk(chunk);
    const uint32_t count = std::bitset<64>(contributors).count();
    uint32_t step = NO_STEP;
    if (count == k)
    {
        // All-gather: the segment tells the step.
        uint32_t s = (position + 1 + k - segment) % k;
        if (s + 2 > k)
        {
            return NO_STEP;
        }
        step = k - 1 + s;
    }
    else if (count >= 1 && count < k)
    {
        // Reduce-scatter: the number of contributors tells the step.
        step = count - 1;
    }
    else
    {
        return NO_STEP;
    }
    if (GetSegment(plan, position, step) != segment ||
        GetContributors(plan, position, step) != contributors)
    {
        return NO_STEP;
    }
    return step;
}

uint32_t
RingExchange::GetStepOf(const ExchangePlan& plan, const IslandSyncHeader& header) const
{
    if ((header.GetType() != IslandSyncHeader::DATA &&
         header.GetType() != IslandSyncHeader::AGGREGATE) ||
        plan.ring.size() < 2 || header.GetCliqueIndex() != plan.clique ||
        header.GetEpoch() != plan.epoch || header.GetChunkCount() != plan.chunkCount)
    {
        return NO_STEP;
    }
    auto it = std::find(plan.ring.begin(), plan.ring.end(), header.GetSender());
    if (it == plan.ring.end())
    {
        return NO_STEP;
    }
    return FindStep(plan,
                    static_cast<uint32_t>(std::distance(plan.ring.begin(), it)),
                    header.GetContributors(),
                    header.GetChunkIndex());
}

uint32_t
RingExchange::CheckChunk(const ExchangePlan& plan,
                         const IslandSyncHeader& header,
                         uint32_t paddingBytes) const
{
    const uint32_t chunk = header.GetChunkIndex();
    const uint32_t step =
        FindStep(plan, GetPredecessorPosition(plan), header.GetContributors(), chunk);
    if (step == NO_STEP)
    {
        return NO_STEP;
    }
    if ((header.GetType() == IslandSyncHeader::DATA) != (step == 0) ||
        !plan.HasChunkLayout(header, paddingBytes))
    {
        return NO_STEP;
    }
    return step;
}

void
RingExchange::Store(const ExchangePlan& plan,
                    uint32_t step,
                    const IslandSyncHeader& header,
                    RingValues& sums) const
{
    std::vector<float>& target = step + 1 < plan.ring.size() ? sums.partial : sums.reduced;
    const std::vector<float>& values = header.GetValues();
    std::copy(values.begin(),
              values.end(),
              target.begin() + plan.GetValueSlice(header.GetChunkIndex()).first);
}

std::vector<float>
RingExchange::GetValues(const ExchangePlan& plan,
                        const std::vector<float>& snapshot,
                        const RingValues& sums,
                        uint32_t step,
                        uint32_t offset,
                        uint32_t count) const
{
    const uint32_t k = plan.ring.size();
    std::vector<float> values(count);
    for (uint32_t v = 0; v < count; ++v)
    {
        const uint32_t i = offset + v;
        if (step == 0)
        {
            values[v] = snapshot[i];
        }
        else if (step < k)
        {
            // The predecessor's partial sum plus our own values, added in double (at step
            // k-1, the full sum of our segment); the header encodes it in the format.
            values[v] = AddDecoded(sums.partial[i], snapshot[i]);
        }
        else
        {
            values[v] = sums.reduced[i];
        }
    }
    return values;
}

void
RingExchange::FillChunk(const ExchangePlan& plan,
                        uint32_t step,
                        const std::vector<float>& snapshot,
                        const RingValues* sums,
                        uint32_t offset,
                        uint32_t count,
                        IslandSyncHeader& header) const
{
    // Step 0 carries our own values, later steps sums: an AGGREGATE naming its contributors.
    header.SetType(step == 0 ? IslandSyncHeader::DATA : IslandSyncHeader::AGGREGATE);
    header.SetContributors(GetContributors(plan, plan.ringPosition, step));
    header.SetValues(GetValues(plan, snapshot, *sums, step, offset, count));
}

void
RingExchange::AddOwn(const ExchangePlan& /* plan */,
                     const std::vector<float>& /* snapshot */,
                     std::vector<double>& /* sum */) const
{
    // Our values enter the sums as the steps are sent (GetValues).
}

std::vector<uint32_t>
RingExchange::GetAwaited(const ExchangePlan& plan,
                         const SendStream* pacer,
                         const std::map<uint32_t, SendStream>* /* sendStreams */,
                         const std::map<uint32_t, ReceiveStream>* receiveStreams) const
{
    std::vector<uint32_t> awaited;
    if (pacer != nullptr && pacer->m_waitingReady)
    {
        awaited.push_back(plan.successor);
    }
    if (receiveStreams != nullptr)
    {
        // The predecessor, while the step it must send next has brought nothing.
        for (const auto& [step, stream] : *receiveStreams)
        {
            if (!stream.IsComplete())
            {
                if (!stream.IsStarted() &&
                    std::find(awaited.begin(), awaited.end(), plan.predecessor) == awaited.end())
                {
                    awaited.push_back(plan.predecessor);
                }
                break;
            }
        }
    }
    return awaited;
}

void
RingExchange::Average(const ExchangePlan& plan,
                      const std::vector<double>& /* sum */,
                      const RingValues* sums,
                      std::vector<float>& parameters) const
{
    // The full sum of every segment: ours is the predecessor's last reduce-scatter partial
    // plus our values (as sent in step k-1, and decoded as its receivers decode it), the
    // others arrived in the all-gather (decoded already: quantizing them changes nothing).
    const double k = static_cast<double>(plan.members.size());
    const uint32_t own = (plan.ringPosition + 1) % plan.ring.size();
    std::vector<float> totals(plan.parameterCount);
    for (uint32_t v = 0; v < plan.parameterCount; ++v)
    {
        totals[v] = plan.GetSegmentOfChunk(v / plan.chunkValues) == own
                        ? AddDecoded(sums->partial[v], parameters[v])
                        : sums->reduced[v];
    }
    PayloadCodec::Quantize(plan.format, totals);
    for (uint32_t v = 0; v < plan.parameterCount; ++v)
    {
        parameters[v] = static_cast<float>(totals[v] / k);
    }
}

std::vector<IslandExchange::ReceiveRange>
RingExchange::GetReceiveRanges(const ExchangePlan& plan) const
{
    std::vector<ReceiveRange> ranges;
    if (plan.ring.size() < 2)
    {
        return ranges;
    }
    const uint32_t predecessorPosition = GetPredecessorPosition(plan);
    for (uint32_t step = 0; step < GetSteps(plan); ++step)
    {
        auto [first, end] = GetStepChunks(plan, predecessorPosition, step);
        ranges.push_back({step, plan.predecessor, step, first, end});
    }
    return ranges;
}

void
RingExchange::AddReceiveStreams(const ExchangePlan& plan)
{
    m_sums.partial.assign(plan.parameterCount, 0.0F);
    m_sums.reduced.assign(plan.parameterCount, 0.0F);
    for (const ReceiveRange& range : GetReceiveRanges(plan))
    {
        AddReceiveStream(range, GetReceiveTiming(plan, range.source));
    }
}

void
RingExchange::AddSendStreams(const ExchangePlan& plan)
{
    // One stream per step toward the successor, all sent by the ring's pacer.
    SendStream& pacer = m_tx->group;
    pacer.m_destination = plan.successor;
    pacer.GetPacer().Configure(StreamPacer::LOWEST_STEP,
                               MakeCallback(&RingExchange::SendNext, this).Bind(plan.successor));
    pacer.GetPacer().RestartNow();
    for (uint32_t step = 0; step < GetSteps(plan); ++step)
    {
        SendStream& stream = m_tx->streams[step];
        stream.m_destination = plan.successor;
        stream.m_step = step;
        stream.SetProbeCallback(MakeCallback(&RingExchange::Probe, this).Bind(step));
        auto [first, end] = GetStepChunks(plan, plan.ringPosition, step);
        stream.m_pending.Insert(first, end);
        stream.GetPacer().RestartNow();
        // A step's values are held once the predecessor's previous step is; a step that has
        // arrived but for repairs sends what it holds.
        stream.m_waitingStep = step > 0 && !IsArrived(step);
        if (step > 0 && !stream.m_waitingStep)
        {
            HoldBackUnheld(step, stream);
        }
    }
}

void
RingExchange::MarkAwaited(const ExchangePlan& plan)
{
    // The ring's pacer waits for the successor alone.
    if (m_ctx.cliqueBarrier && m_ctx.membership->GetPeerRound(plan.successor) < m_round)
    {
        m_tx->group.m_waitingReady = true;
        ++m_tx->awaited;
    }
}

void
RingExchange::AddOwnToSums(const ExchangePlan& /* plan */, const std::vector<float>& /* snapshot */)
{
    // Nothing to add: our values enter the sums as the steps are sent (GetValues).
}

void
RingExchange::AverageSums(const ExchangePlan& plan, std::vector<float>& parameters)
{
    Average(plan, {}, &m_sums, parameters);
}

const RingValues*
RingExchange::GetSums() const
{
    return &m_sums;
}

bool
RingExchange::UsesGroupPacer() const
{
    return true;
}

bool
RingExchange::IsRebuiltByViews() const
{
    return true;
}

bool
RingExchange::RearmsReadyTimer() const
{
    return true;
}

bool
RingExchange::IsSentOut(const SendStream& stream)
{
    return stream.m_pending.IsEmpty() && stream.m_unheld.empty();
}

bool
RingExchange::IsArrived(uint32_t step) const
{
    const ReceiveStream& previous = m_rx->streams.at(step - 1);
    const uint32_t end =
        GetStepChunks(GetPlan(), GetPredecessorPosition(GetPlan()), step - 1).second;
    return previous.IsComplete() || previous.GetNextFirst() >= end;
}

void
RingExchange::HoldBackUnheld(uint32_t step, SendStream& stream) const
{
    const ReceiveStream& previous = m_rx->streams.at(step - 1);
    if (previous.IsComplete())
    {
        return;
    }
    ChunkRangeSet held;
    for (const auto& [first, end] : stream.m_pending.GetRanges())
    {
        for (uint32_t chunk = first; chunk < end; ++chunk)
        {
            if (previous.Holds(chunk))
            {
                held.Insert(chunk);
            }
            else
            {
                stream.m_unheld.insert(chunk);
            }
        }
    }
    stream.m_pending = held;
}

bool
RingExchange::NoteSent(const SendStream& /* paced */, SendStream& target, uint32_t chunk)
{
    // A chunk held back sends late, out of order, and is still a first transmission.
    const bool first = target.m_sent.Insert(chunk);
    auto late = target.m_lateSent.find(chunk);
    if (first && late != target.m_lateSent.end())
    {
        late->second = Simulator::Now();
    }
    return !first;
}

void
RingExchange::QueueRepairs(SendStream& stream, const std::vector<IslandSyncHeader::Range>& ranges)
{
    // Only chunks sent: the rest, held back or not sent yet, goes as a first transmission. A
    // chunk held back that went less than a repair wait ago is on its way: the successor's NACK
    // (of the gap it left) crossed it.
    const Time recent =
        Simulator::Now() -
        IslandTiming::GetRoundTripTime(*m_ctx.topology, m_ctx.island, stream.m_destination) -
        m_ctx.nackTimeout;
    for (const auto& range : ranges)
    {
        for (const auto& [first, stop] : stream.m_sent.GetRangesWithin(range.first, range.second))
        {
            uint32_t begin = first;
            for (auto late = stream.m_lateSent.lower_bound(begin);
                 late != stream.m_lateSent.end() && late->first < stop;
                 ++late)
            {
                if (late->second > recent)
                {
                    stream.m_pending.Insert(begin, late->first);
                    begin = late->first + 1;
                }
            }
            if (begin < stop)
            {
                stream.m_pending.Insert(begin, stop);
            }
        }
    }
}

void
RingExchange::ChunkLeft(SendStream& target, double lastSendEndS)
{
    if (IsSentOut(target))
    {
        // The step's last chunk has left: wait for its DONE.
        ScheduleProbe(target, lastSendEndS);
    }
}

void
RingExchange::PacerDrained(SendStream& /* paced */, double lastSendEndS)
{
    // Probes wait while the pacer is busy: restart those of every step sent out.
    for (auto& [step, stream] : m_tx->streams)
    {
        if (!stream.m_done && !stream.m_waitingStep && IsSentOut(stream))
        {
            ScheduleProbe(stream, lastSendEndS);
        }
    }
}

uint32_t
RingExchange::GetProbeChunk(const ExchangePlan& plan, const SendStream& stream) const
{
    // The last chunk of the step's segment.
    return GetStepChunks(plan, plan.ringPosition, stream.m_step).second - 1;
}

uint32_t
RingExchange::FindRequestedStream(const ExchangePlan& plan, const IslandSyncHeader& header) const
{
    // The successor names one step by its bitmap and the first chunk of its segment; a NACK
    // asks for chunks of that step only.
    const uint32_t step =
        FindStep(plan, plan.ringPosition, header.GetContributors(), header.GetChunkIndex());
    if (header.GetSender() != plan.successor || step == NO_STEP || !m_tx->streams.count(step))
    {
        return NO_STEP;
    }
    auto [first, end] = GetStepChunks(plan, plan.ringPosition, step);
    for (const auto& range : header.GetRanges())
    {
        if (range.first < first || range.second > end)
        {
            return NO_STEP;
        }
    }
    return step;
}

void
RingExchange::OnStreamExhausted(uint32_t source, const std::string& reason)
{
    // The ring state is rebuilt over the other members: nothing of this one is kept.
    m_ctx.membership->ExcludeMember(m_round, source, reason);
}

std::string
RingExchange::GetStreamLabel(const ReceiveStream& stream) const
{
    return " (ring step " + std::to_string(stream.GetStep()) + ")";
}

uint32_t
RingExchange::NameStream(const ExchangePlan& plan, uint32_t key, IslandSyncHeader& header) const
{
    // The step's contributor set and the first chunk of its segment name the step.
    const uint32_t position = GetPredecessorPosition(plan);
    header.SetContributors(GetContributors(plan, position, key));
    header.SetChunkIndex(GetStepChunks(plan, position, key).first);
    return plan.predecessor;
}

void
RingExchange::PeerStarted(uint32_t island)
{
    SendStream* pacer = m_tx ? &m_tx->group : nullptr;
    if (pacer == nullptr || !pacer->m_waitingReady || pacer->m_destination != island)
    {
        return;
    }
    pacer->m_waitingReady = false;
    --m_tx->awaited;
    pacer->GetPacer().RestartNow();
    ResumeStream(*pacer);
}

void
RingExchange::FitToView()
{
    // The ring's exchange starts again over the new ring: drop the old one's state.
    Stop();
}

void
RingExchange::ReleaseStep(uint32_t step)
{
    if (!m_tx)
    {
        // Not exchanging yet: Begin finds the previous step held.
        return;
    }
    auto it = m_tx->streams.find(step);
    if (it == m_tx->streams.end() || !it->second.m_waitingStep)
    {
        return;
    }
    it->second.m_waitingStep = false;
    HoldBackUnheld(step, it->second);
    ResumeStream(m_tx->group);
}

void
RingExchange::HandleChunk(const IslandSyncHeader& header, uint32_t paddingBytes)
{
    const ExchangePlan& plan = GetPlan();
    const uint32_t chunk = header.GetChunkIndex();
    if (plan.ring.size() < 2 || header.GetCliqueIndex() != plan.clique ||
        header.GetEpoch() != plan.epoch || header.GetChunkCount() != plan.chunkCount ||
        header.GetSender() != plan.predecessor)
    {
        m_ctx.rejected();
        if (m_round == m_ctx.currentRound() && header.GetSender() != plan.predecessor)
        {
            // A member on another view of the ring: tell it ours.
            m_ctx.membership->RefreshView(header.GetSender());
        }
        return;
    }
    const uint32_t step = CheckChunk(plan, header, paddingBytes);
    const uint64_t contributors = header.GetContributors();
    const uint32_t payload = plan.GetPayloadBytes(chunk);
    if (step == NO_STEP)
    {
        m_ctx.rejected();
        return;
    }
    // Whoever is summed in a round-r chunk has started round r.
    for (uint32_t member : plan.ring)
    {
        if (member != m_ctx.island && (contributors & (uint64_t{1} << member)))
        {
            m_ctx.membership->UpdatePeerRound(member, m_round);
        }
    }
    if (m_round < m_ctx.currentRound())
    {
        // The round is over here: every step is held. Acknowledge again (a DONE was lost or
        // the predecessor probes).
        AcknowledgeAgain(header, payload, {step});
        return;
    }

    ReceiveStream& stream = GetReceiveSide().streams.at(step);
    if (stream.Holds(chunk))
    {
        AcknowledgeAgain(header,
                         payload,
                         stream.IsComplete() ? std::vector<uint32_t>{step}
                                             : std::vector<uint32_t>{});
        return;
    }
    Store(plan, step, header, m_sums);
    m_ctx.chunkReceived(header, payload, false);

    if (stream.Accept(chunk))
    {
        ++m_rx->completeStreams;
        SendDone(step);
    }
    if (step + 1 < GetSteps(plan) && m_tx)
    {
        auto next = m_tx->streams.find(step + 1);
        if (next != m_tx->streams.end() && next->second.m_unheld.erase(chunk) > 0)
        {
            // A repair of a chunk the next step held back: it goes now.
            next->second.m_pending.Insert(chunk);
            next->second.m_lateSent[chunk] = Time::Max();
            ResumeStream(m_tx->group);
        }
        if (IsArrived(step + 1))
        {
            ReleaseStep(step + 1);
        }
    }
    m_ctx.progress(m_round);
}

} // namespace ns3
