/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "slot-waits.h"

namespace ns3
{

void
SlotWaits::SetAdaptive(bool adaptive)
{
    m_adaptive = adaptive;
}

bool
SlotWaits::IsAdaptive() const
{
    return m_adaptive;
}

Time
SlotWaits::GetWait(const StreamKey& stream, Time roundTrip, Time timeout) const
{
    if (!m_adaptive)
    {
        return timeout;
    }
    // A repair takes up to two round trips to reach the slot: one for the receiver to learn of
    // the loss (the later chunks' way to it), one for its NACK and the repair.
    auto it = m_fills.find(stream);
    return it == m_fills.end() ? timeout : it->second.GetWait(2 * roundTrip, timeout);
}

Time
SlotWaits::Open(const StreamKey& stream, Time roundTrip, Time timeout)
{
    const Time wait = GetWait(stream, roundTrip, timeout);
    ++m_opened;
    m_waitSumNs += wait.GetNanoSeconds();
    return wait;
}

void
SlotWaits::Learn(const StreamKey& stream, Time fill, bool complete, bool timedOut)
{
    if (!m_adaptive || (!complete && !timedOut))
    {
        return;
    }
    auto it = m_fills.find(stream);
    if (it == m_fills.end())
    {
        // A new exchange: forget the job's exchanges two rounds and more before it.
        const auto [job, round, clique] = stream;
        if (round >= 2)
        {
            m_fills.erase(m_fills.lower_bound(StreamKey{job, 0, 0}),
                          m_fills.lower_bound(StreamKey{job, round - 1, 0}));
        }
        it = m_fills.emplace(stream, SlotFillEstimator()).first;
    }
    if (complete)
    {
        it->second.Sample(fill);
    }
    else
    {
        it->second.TimedOut();
    }
}

void
SlotWaits::Forget(uint16_t jobId)
{
    for (auto it = m_fills.lower_bound(StreamKey{jobId, 0, 0});
         it != m_fills.end() && std::get<0>(it->first) == jobId;)
    {
        it = m_fills.erase(it);
    }
}

uint64_t
SlotWaits::GetSlotsOpened() const
{
    return m_opened;
}

Time
SlotWaits::GetMeanWait() const
{
    return m_opened == 0 ? Time() : NanoSeconds(m_waitSumNs / static_cast<int64_t>(m_opened));
}

} // namespace ns3
