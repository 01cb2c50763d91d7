/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "ring-exchange.h"

#include "ns3/log.h"

#include <algorithm>
#include <bitset>
#include <iterator>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("WanTrainingRingExchange");

NS_OBJECT_ENSURE_REGISTERED(RingExchange);

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
    auto [offset, count] = plan.GetValueSlice(chunk);
    if ((header.GetType() == IslandSyncHeader::DATA) != (step == 0) ||
        header.GetValues().size() != count || (count > 0 && header.GetValueOffset() != offset) ||
        IslandSyncHeader::VALUE_BYTES * count + paddingBytes != plan.GetPayloadBytes(chunk))
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
            // The predecessor's partial sum plus our own values, added in float32 (at step
            // k-1, the full sum of our segment).
            values[v] = static_cast<float>(sums.partial[i] + snapshot[i]);
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
    // plus our values (as sent in step k-1), the others arrived in the all-gather.
    const double k = static_cast<double>(plan.members.size());
    const uint32_t own = (plan.ringPosition + 1) % plan.ring.size();
    const uint32_t valuesPerChunk = plan.chunkBytes / IslandSyncHeader::VALUE_BYTES;
    for (uint32_t v = 0; v < plan.parameterCount; ++v)
    {
        float total = plan.GetSegmentOfChunk(v / valuesPerChunk) == own
                          ? static_cast<float>(sums->partial[v] + parameters[v])
                          : sums->reduced[v];
        parameters[v] = static_cast<float>(total / k);
    }
}

} // namespace ns3
