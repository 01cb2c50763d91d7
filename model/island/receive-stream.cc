/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "receive-stream.h"

#include "island-timing.h"

#include "ns3/simulator.h"

#include <algorithm>

namespace ns3
{

ReceiveStream::ReceiveStream(uint32_t source,
                             uint32_t step,
                             uint32_t first,
                             uint32_t end,
                             const Timing& timing)
    : m_source(source),
      m_step(step),
      m_first(first),
      m_end(end),
      m_timing(timing),
      m_nextFirst(first)
{
}

ReceiveStream::~ReceiveStream()
{
    Cancel();
}

void
ReceiveStream::SetCallbacks(NackCallback nack, ExhaustedCallback exhausted)
{
    m_nack = nack;
    m_exhausted = exhausted;
}

bool
ReceiveStream::Holds(uint32_t chunk) const
{
    return m_held.Contains(chunk);
}

Time
ReceiveStream::GetRepairDue(uint64_t chunks) const
{
    return Simulator::Now() + m_timing.repairWait +
           IslandTiming::CeilNanoSeconds(chunks * m_timing.intervalS);
}

bool
ReceiveStream::Accept(uint32_t chunk)
{
    const Time now = Simulator::Now();
    m_held.Insert(chunk);
    m_lastArrival = now;
    m_attempts = 0;
    m_started = true;
    if (chunk > m_nextFirst && m_timing.behindFpga)
    {
        // Behind an FPGA the gap's chunks may still wait in slots for another contributor:
        // NACK what is missing once their (partial) aggregates must have left.
        m_gapChecks.push_back({now + m_timing.patience, m_nextFirst, chunk});
        if (!m_gapEvent.IsRunning())
        {
            m_gapEvent = Simulator::Schedule(m_timing.patience, &ReceiveStream::GapCheck, this);
        }
    }
    else if (chunk > m_nextFirst)
    {
        // First transmissions of a stream arrive in order: a gap is a loss.
        Request({{m_nextFirst, chunk}});
    }
    m_nextFirst = std::max(m_nextFirst, chunk + 1);
    m_complete = m_first == 0 ? m_held.Covers(m_end) : m_held.GetCount() == m_end - m_first;
    if (m_complete)
    {
        Cancel();
        m_gapChecks.clear();
        return true;
    }
    if (!m_timer.IsRunning())
    {
        // The stall timer runs from the first chunk: a wait before the stream starts (ring:
        // between steps) is no loss.
        m_timer = Simulator::Schedule(m_timing.behindFpga ? m_timing.patience : m_timing.stallTime,
                                      &ReceiveStream::Timeout,
                                      this);
    }
    return false;
}

void
ReceiveStream::Cancel()
{
    m_timer.Cancel();
    m_gapEvent.Cancel();
}

void
ReceiveStream::NackAbsent(uint32_t chunk)
{
    if (!m_timing.behindFpga || m_complete || chunk < m_first || chunk >= m_end ||
        m_held.Contains(chunk))
    {
        return;
    }
    Request({{chunk, chunk + 1}});
}

void
ReceiveStream::Request(const std::vector<ChunkRangeSet::Range>& ranges)
{
    uint64_t chunks = 0;
    for (const auto& range : ranges)
    {
        chunks += range.second - range.first;
        m_requested.Insert(range.first, range.second);
    }
    m_nack(ranges);
    m_holdUntil = std::max(m_holdUntil, GetRepairDue(chunks));
}

void
ReceiveStream::Timeout()
{
    if (m_complete)
    {
        return;
    }
    const Time now = Simulator::Now();
    // Behind an FPGA, a first stall may be a slot waiting for a slower contributor or for its
    // Timeout: wait until its (partial) aggregate must have left.
    const Time idle =
        m_timing.behindFpga && m_attempts == 0 ? m_timing.patience : m_timing.stallTime;
    const Time stalled = m_lastArrival + idle;
    if (now < stalled)
    {
        m_timer = Simulator::Schedule(stalled - now, &ReceiveStream::Timeout, this);
        return;
    }
    if (now < m_holdUntil)
    {
        // Stalled while earlier NACKs are still due: ask now for what none of them asked for
        // (a lost last chunk, which no later chunk reveals), and wait for the rest.
        std::vector<ChunkRangeSet::Range> fresh;
        for (const auto& range : GetMissingIn(m_held, m_first, m_end, m_timing.maxRanges))
        {
            for (const auto& part :
                 GetMissingIn(m_requested, range.first, range.second, m_timing.maxRanges))
            {
                if (fresh.size() < m_timing.maxRanges)
                {
                    fresh.push_back(part);
                }
            }
        }
        if (!fresh.empty())
        {
            Request(fresh);
        }
        m_timer = Simulator::Schedule(m_holdUntil - now, &ReceiveStream::Timeout, this);
        return;
    }
    if (++m_attempts > m_timing.maxAttempts)
    {
        // The owner may destroy this stream in the callback: call a copy and touch nothing.
        ExhaustedCallback exhausted = m_exhausted;
        exhausted();
        return;
    }
    std::vector<ChunkRangeSet::Range> missing =
        GetMissingIn(m_held, m_first, m_end, m_timing.maxRanges);
    uint64_t chunks = 0;
    for (const auto& range : missing)
    {
        chunks += range.second - range.first;
    }
    // Every earlier NACK is overdue: ask again for everything missing.
    m_requested = ChunkRangeSet();
    for (const auto& range : missing)
    {
        m_requested.Insert(range.first, range.second);
    }
    m_nack(missing);
    m_holdUntil = GetRepairDue(chunks);
    m_timer = Simulator::Schedule(m_holdUntil - now, &ReceiveStream::Timeout, this);
}

void
ReceiveStream::GapCheck()
{
    const Time now = Simulator::Now();
    // What is still missing in the gaps whose patience is over: lost, not waiting in a slot.
    // Each gap is checked once; the stall timer repeats NACKs that were not answered.
    std::vector<ChunkRangeSet::Range> missing;
    while (!m_gapChecks.empty() && m_gapChecks.front().due <= now)
    {
        const GapCheckEntry& gap = m_gapChecks.front();
        for (uint32_t chunk = gap.first; chunk < gap.end && !m_complete; ++chunk)
        {
            if (m_held.Contains(chunk))
            {
                continue;
            }
            if (!missing.empty() && missing.back().second == chunk)
            {
                missing.back().second = chunk + 1;
            }
            else if (missing.size() < m_timing.maxRanges)
            {
                missing.emplace_back(chunk, chunk + 1);
            }
        }
        m_gapChecks.pop_front();
    }
    if (!m_gapChecks.empty())
    {
        m_gapEvent =
            Simulator::Schedule(m_gapChecks.front().due - now, &ReceiveStream::GapCheck, this);
    }
    if (missing.empty())
    {
        return;
    }
    Request(missing);
}

std::vector<ChunkRangeSet::Range>
ReceiveStream::GetMissingIn(const ChunkRangeSet& held,
                            uint32_t first,
                            uint32_t end,
                            uint32_t maxRanges)
{
    std::vector<ChunkRangeSet::Range> missing;
    uint32_t next = first;
    for (const auto& range : held.GetRanges())
    {
        if (missing.size() >= maxRanges)
        {
            return missing;
        }
        if (range.second <= next || range.first >= end)
        {
            continue;
        }
        if (range.first > next)
        {
            missing.emplace_back(next, range.first);
        }
        next = std::max(next, range.second);
    }
    if (next < end && missing.size() < maxRanges)
    {
        missing.emplace_back(next, end);
    }
    return missing;
}

uint32_t
ReceiveStream::GetSource() const
{
    return m_source;
}

uint32_t
ReceiveStream::GetStep() const
{
    return m_step;
}

bool
ReceiveStream::IsStarted() const
{
    return m_started;
}

bool
ReceiveStream::IsComplete() const
{
    return m_complete;
}

uint64_t
ReceiveStream::GetHeldCount() const
{
    return m_held.GetCount();
}

Time
ReceiveStream::GetTimeLeft() const
{
    return IslandTiming::CeilNanoSeconds((m_end - m_first - GetHeldCount()) * m_timing.intervalS);
}

uint32_t
ReceiveStream::GetAttempts() const
{
    return m_attempts;
}

} // namespace ns3
