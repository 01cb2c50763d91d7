/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "slot-deadlines.h"

#include "ns3/simulator.h"

namespace ns3
{

SlotDeadlines::~SlotDeadlines()
{
    m_event.Cancel();
}

void
SlotDeadlines::SetCallbacks(OpenCallback isOpen, DueCallback due)
{
    m_isOpen = isOpen;
    m_due = due;
}

uint64_t
SlotDeadlines::Add(Time deadline, const ChunkKey& key)
{
    const uint64_t opening = m_openings++;
    m_heap.emplace(deadline, opening, key);
    return opening;
}

bool
SlotDeadlines::PopDue(Time now, ChunkKey& key)
{
    while (!m_heap.empty() && std::get<0>(m_heap.top()) <= now)
    {
        const auto [deadline, opening, chunk] = m_heap.top();
        m_heap.pop();
        if (m_isOpen(chunk, opening))
        {
            key = chunk;
            return true;
        }
    }
    return false;
}

void
SlotDeadlines::Reschedule()
{
    while (!m_heap.empty() && !m_isOpen(std::get<2>(m_heap.top()), std::get<1>(m_heap.top())))
    {
        m_heap.pop();
    }
    if (m_heap.empty())
    {
        return;
    }
    const Time deadline = std::get<0>(m_heap.top());
    if (m_event.IsRunning() && m_eventAt <= deadline)
    {
        return;
    }
    if (m_event.IsRunning())
    {
        m_event.Remove(); // a shorter wait was given since it was scheduled
    }
    m_eventAt = deadline;
    m_event = Simulator::Schedule(deadline - Simulator::Now(), &SlotDeadlines::Fire, this);
}

void
SlotDeadlines::Fire()
{
    m_due();
}

} // namespace ns3
