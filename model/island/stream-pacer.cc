/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "stream-pacer.h"

#include "island-timing.h"
#include "send-stream.h"

#include "ns3/simulator.h"

#include <algorithm>

namespace ns3
{

StreamPacer::StreamPacer()
{
}

StreamPacer::~StreamPacer()
{
    m_sendEvent.Cancel();
}

void
StreamPacer::Configure(Policy policy, Callback<void> send)
{
    m_policy = policy;
    m_send = send;
}

bool
StreamPacer::HasWork(const SendStream& self, const std::map<uint32_t, SendStream>& streams) const
{
    if (!self.m_pending.IsEmpty())
    {
        return true;
    }
    switch (m_policy)
    {
    case LOWEST_STEP:
        return std::any_of(streams.begin(), streams.end(), [](const auto& entry) {
            return !entry.second.m_done && !entry.second.m_waitingStep &&
                   !entry.second.m_pending.IsEmpty();
        });
    case GROUP:
        return std::any_of(streams.begin(), streams.end(), [](const auto& entry) {
            return !entry.second.m_done && !entry.second.m_pending.IsEmpty();
        });
    default:
        return false;
    }
}

SendStream&
StreamPacer::Pick(SendStream& self, std::map<uint32_t, SendStream>& streams)
{
    if (m_policy == LOWEST_STEP)
    {
        // The lowest step with chunks to send: repairs of earlier steps go first.
        for (auto& [step, stream] : streams)
        {
            if (!stream.m_done && !stream.m_waitingStep && !stream.m_pending.IsEmpty())
            {
                return stream;
            }
        }
    }
    else if (m_policy == GROUP)
    {
        // Repairs first, one member after the other; then the next chunk for the group.
        auto it = streams.lower_bound(m_nextRepair);
        for (std::size_t k = 0; k < streams.size(); ++k, ++it)
        {
            if (it == streams.end())
            {
                it = streams.begin();
            }
            if (!it->second.m_done && !it->second.m_pending.IsEmpty())
            {
                m_nextRepair = it->first + 1;
                return it->second;
            }
        }
    }
    return self;
}

bool
StreamPacer::IsSending() const
{
    return m_sending;
}

void
StreamPacer::Start()
{
    double delay = m_nextSendS - Simulator::Now().GetSeconds();
    m_sendEvent =
        Simulator::Schedule(IslandTiming::CeilNanoSeconds(delay), &StreamPacer::Fire, this);
    m_sending = true;
}

void
StreamPacer::Stop()
{
    m_sending = false;
    m_sendEvent.Cancel();
}

void
StreamPacer::Fire()
{
    m_sending = false;
    // The owner may destroy this pacer in the callback: call a copy.
    Callback<void> send = m_send;
    send();
}

void
StreamPacer::RestartNow()
{
    m_nextSendS = Simulator::Now().GetSeconds();
}

void
StreamPacer::NotBeforeNow()
{
    m_nextSendS = std::max(m_nextSendS, Simulator::Now().GetSeconds());
}

void
StreamPacer::Delay(double seconds)
{
    m_nextSendS += seconds;
}

double
StreamPacer::Advance(uint32_t wireBytes, double rateBps)
{
    // Exact send times (no drift from nanosecond rounding); an idle stream restarts now.
    const double now = Simulator::Now().GetSeconds();
    const double start = std::max(m_nextSendS, now - 1e-9);
    m_nextSendS = start + 8.0 * wireBytes / rateBps;
    return m_nextSendS;
}

void
StreamPacer::AdvanceAfterProbe(uint32_t wireBytes, double rateBps)
{
    m_nextSendS = std::max(m_nextSendS, Simulator::Now().GetSeconds()) + 8.0 * wireBytes / rateBps;
}

double
StreamPacer::GetNextSendS() const
{
    return m_nextSendS;
}

} // namespace ns3
