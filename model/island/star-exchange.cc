/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "star-exchange.h"

#include "ns3/abort.h"
#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("WanTrainingStarExchange");

NS_OBJECT_ENSURE_REGISTERED(StarExchange);

TypeId
StarExchange::GetTypeId()
{
    static TypeId tid = TypeId("ns3::WanTraining::StarExchange")
                            .SetParent<IslandExchange>()
                            .SetGroupName("WanTraining")
                            .AddConstructor<StarExchange>();
    return tid;
}

StarExchange::StarExchange()
    : StarExchange(CapabilityMode::UNICAST)
{
}

StarExchange::StarExchange(CapabilityMode mode)
    : m_mode(mode)
{
    NS_ABORT_MSG_IF(mode == CapabilityMode::RING || mode == CapabilityMode::TREE,
                    "a star exchange is unicast, multicast, aggregation or both");
}

CapabilityMode
StarExchange::GetMode() const
{
    return m_mode;
}

void
StarExchange::FillChunk(const ExchangePlan& plan,
                        uint32_t /* step */,
                        const std::vector<float>& snapshot,
                        const RingValues* /* sums */,
                        uint32_t offset,
                        uint32_t count,
                        IslandSyncHeader& header) const
{
    header.SetContributors(uint64_t{1} << plan.island);
    header.SetValues(
        std::vector<float>(snapshot.begin() + offset, snapshot.begin() + offset + count));
}

void
StarExchange::AddOwn(const ExchangePlan& plan,
                     const std::vector<float>& snapshot,
                     std::vector<double>& sum) const
{
    for (uint32_t v = 0; v < plan.parameterCount; ++v)
    {
        sum[v] += snapshot[v];
    }
}

std::vector<uint32_t>
StarExchange::GetAwaited(const ExchangePlan& plan,
                         const SendStream* /* pacer */,
                         const std::map<uint32_t, SendStream>* sendStreams,
                         const std::map<uint32_t, ReceiveStream>* receiveStreams) const
{
    std::vector<uint32_t> awaited;
    for (uint32_t member : plan.members)
    {
        if (member == plan.island)
        {
            continue;
        }
        bool waiting = false;
        if (sendStreams != nullptr)
        {
            auto it = sendStreams->find(member);
            waiting = it != sendStreams->end() && it->second.m_waitingReady;
        }
        if (receiveStreams != nullptr)
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
StarExchange::Average(const ExchangePlan& plan,
                      const std::vector<double>& sum,
                      const RingValues* /* sums */,
                      std::vector<float>& parameters) const
{
    const double k = static_cast<double>(plan.members.size());
    for (uint32_t v = 0; v < plan.parameterCount; ++v)
    {
        parameters[v] = static_cast<float>(sum[v] / k);
    }
}

} // namespace ns3
