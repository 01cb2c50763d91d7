/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "multicast-exchange.h"

#include <algorithm>

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(MulticastExchange);

TypeId
MulticastExchange::GetTypeId()
{
    static TypeId tid = TypeId("ns3::WanTraining::MulticastExchange")
                            .SetParent<StarExchange>()
                            .SetGroupName("WanTraining")
                            .AddConstructor<MulticastExchange>();
    return tid;
}

CapabilityMode
MulticastExchange::GetMode() const
{
    return CapabilityMode::MULTICAST;
}

void
MulticastExchange::AddSendStreams(const ExchangePlan& plan)
{
    StarExchange::AddSendStreams(plan);
    // One stream to the group; the members' streams carry only their repairs.
    SendStream& group = m_tx->group;
    group.m_destination = ALL_MEMBERS;
    group.GetPacer().Configure(StreamPacer::GROUP,
                               MakeCallback(&MulticastExchange::SendNext, this).Bind(ALL_MEMBERS));
    group.m_pending.Insert(0, plan.chunkCount);
    group.GetPacer().RestartNow();
}

bool
MulticastExchange::UsesGroupPacer() const
{
    return true;
}

bool
MulticastExchange::IsCliqueWide() const
{
    return true;
}

bool
MulticastExchange::NoteSent(const SendStream& paced, SendStream& target, uint32_t chunk)
{
    // The group's own chunks are first transmissions; a member's are its repairs.
    if (&target != &paced)
    {
        return true;
    }
    target.m_sentFirst = std::max(target.m_sentFirst, chunk + 1);
    return false;
}

double
MulticastExchange::GetPacingRate(const ExchangePlan& plan, const SendStream& /* stream */) const
{
    return plan.groupRateBps;
}

void
MulticastExchange::PacerDrained(SendStream& /* paced */, double lastSendEndS)
{
    for (auto& [member, stream] : m_tx->streams)
    {
        if (!stream.m_done)
        {
            ScheduleProbe(stream, lastSendEndS);
        }
    }
}

} // namespace ns3
