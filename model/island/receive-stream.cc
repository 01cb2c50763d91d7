/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "receive-stream.h"

#include "island-timing.h"

#include "ns3/log.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <cstdint>
#include <iterator>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("WanTrainingReceiveStream");

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
      m_nextFirst(first),
      m_settledEnd(first)
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

void
ReceiveStream::SetRepairedCallback(RepairedCallback repaired)
{
    m_repaired = repaired;
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
    if (!m_repaired.IsNull() && m_requested.Contains(chunk))
    {
        auto asked = m_askedAt.upper_bound(chunk);
        if (asked != m_askedAt.begin() && chunk < std::prev(asked)->second.first)
        {
            m_repaired(now - std::prev(asked)->second.second);
        }
    }
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
        Request({{m_nextFirst, chunk}}, "gap");
    }
    m_nextFirst = std::max(m_nextFirst, chunk + 1);
    m_complete = m_first == 0 ? m_held.Covers(m_end) : m_held.GetCount() == m_end - m_first;
    if (m_complete)
    {
        Cancel();
        m_gapChecks.clear();
        m_dueChecks.clear();
        return true;
    }
    if (!m_timer.IsRunning())
    {
        // The stall timer runs from the first chunk: a wait before the stream starts (ring:
        // between steps) is no loss.
        m_timer = Simulator::Schedule(m_timing.stallTime, &ReceiveStream::Timeout, this);
    }
    return false;
}

void
ReceiveStream::Cancel()
{
    m_timer.Cancel();
    m_gapEvent.Cancel();
    m_dueEvent.Cancel();
}

void
ReceiveStream::Resume()
{
    m_attempts = 0;
    if (m_complete)
    {
        return;
    }
    // Every earlier NACK is forgotten: ask for what fits now, the stall asks for the rest.
    m_requested = ChunkRangeSet();
    m_askedAt.clear();
    const std::vector<ChunkRangeSet::Range> missing = GetMissingOf({{m_first, m_end}}, m_requested);
    if (!missing.empty())
    {
        Request(missing, "resumed");
    }
    if (!m_timer.IsRunning())
    {
        m_timer = Simulator::Schedule(m_timing.stallTime, &ReceiveStream::Timeout, this);
    }
}

void
ReceiveStream::NackAbsent(uint32_t chunk)
{
    // A chunk asked for already is asked again by its due check, if need be.
    if (!m_timing.behindFpga || m_complete || chunk < m_first || chunk >= m_end ||
        m_held.Contains(chunk) || m_requested.Contains(chunk))
    {
        return;
    }
    Request({{chunk, chunk + 1}}, "absent from an aggregate");
}

void
ReceiveStream::NackSettledBefore(uint32_t end)
{
    end = std::min(end, m_end);
    if (!m_timing.behindFpga || m_complete || end <= m_settledEnd)
    {
        return;
    }
    // Chunk by chunk: the settled end moves about one chunk per aggregate.
    std::vector<ChunkRangeSet::Range> fresh;
    uint32_t chunk = m_settledEnd;
    for (; chunk < end; ++chunk)
    {
        if (m_held.Contains(chunk) || m_requested.Contains(chunk))
        {
            continue;
        }
        if (!fresh.empty() && fresh.back().second == chunk)
        {
            fresh.back().second = chunk + 1;
        }
        else if (fresh.size() < m_timing.maxRanges)
        {
            fresh.emplace_back(chunk, chunk + 1);
        }
        else
        {
            break; // the rest at the next call
        }
    }
    m_settledEnd = chunk;
    if (!fresh.empty())
    {
        Request(fresh, "settled at the FPGA");
    }
}

uint32_t
ReceiveStream::GetNextFirst() const
{
    return m_nextFirst;
}

std::vector<ChunkRangeSet::Range>
ReceiveStream::GetMissingOf(const std::vector<ChunkRangeSet::Range>& ranges,
                            const ChunkRangeSet& known) const
{
    std::vector<ChunkRangeSet::Range> missing;
    for (const auto& range : ranges)
    {
        for (const auto& part : GetMissingIn(m_held, range.first, range.second, m_timing.maxRanges))
        {
            for (const auto& piece :
                 GetMissingIn(known, part.first, part.second, m_timing.maxRanges))
            {
                if (missing.size() == m_timing.maxRanges)
                {
                    return missing;
                }
                missing.push_back(piece);
            }
        }
    }
    return missing;
}

void
ReceiveStream::Request(const std::vector<ChunkRangeSet::Range>& ranges, const char* why)
{
    uint64_t chunks = 0;
    const Time now = Simulator::Now();
    for (const auto& range : ranges)
    {
        chunks += range.second - range.first;
        // The first NACK of each part not asked for before.
        for (const auto& part : GetMissingIn(m_requested, range.first, range.second, UINT32_MAX))
        {
            m_askedAt[part.first] = {part.second, now};
        }
        m_requested.Insert(range.first, range.second);
    }
    NS_LOG_LOGIC("stream of " << m_source << " step " << m_step << ": NACK " << chunks
                              << " chunks from " << ranges.front().first << " (" << why << ")");
    m_nack(ranges);
    const Time due = GetRepairDue(chunks);
    m_holdUntil = std::max(m_holdUntil, due);
    // By due time (a NACK of fewer chunks may be due before an earlier one).
    auto at = std::upper_bound(m_dueChecks.begin(),
                               m_dueChecks.end(),
                               due,
                               [](Time t, const DueCheckEntry& entry) { return t < entry.due; });
    const bool first = at == m_dueChecks.begin();
    m_dueChecks.insert(at, {due, ranges});
    if (first)
    {
        m_dueEvent.Cancel();
        m_dueEvent = Simulator::Schedule(due - Simulator::Now(), &ReceiveStream::DueCheck, this);
    }
}

void
ReceiveStream::DueCheck()
{
    const Time now = Simulator::Now();
    // A repair that has not come by its due time was lost (or its NACK was): ask again at once,
    // while the stream flows, instead of waiting for it to stall.
    std::vector<ChunkRangeSet::Range> asked;
    while (!m_dueChecks.empty() && m_dueChecks.front().due <= now)
    {
        const auto& ranges = m_dueChecks.front().ranges;
        asked.insert(asked.end(), ranges.begin(), ranges.end());
        m_dueChecks.pop_front();
    }
    if (!m_dueChecks.empty())
    {
        m_dueEvent =
            Simulator::Schedule(m_dueChecks.front().due - now, &ReceiveStream::DueCheck, this);
    }
    const std::vector<ChunkRangeSet::Range> again = GetMissingOf(asked, ChunkRangeSet());
    if (again.empty())
    {
        return;
    }
    // One attempt per repair wait without progress, however many NACKs come due in it.
    if (m_attempts == 0 || now >= m_attemptAt + m_timing.repairWait)
    {
        m_attemptAt = now;
        if (++m_attempts > m_timing.maxAttempts)
        {
            Exhaust();
            return;
        }
    }
    Request(again, "repair overdue");
}

void
ReceiveStream::Exhaust()
{
    Cancel();
    m_gapChecks.clear();
    m_dueChecks.clear();
    // The owner may destroy this stream in the callback: call a copy and touch nothing.
    ExhaustedCallback exhausted = m_exhausted;
    exhausted();
}

void
ReceiveStream::Timeout()
{
    if (m_complete)
    {
        return;
    }
    const Time now = Simulator::Now();
    // Behind an FPGA too: the aggregates come at the slowest contributor's pace, so a silence
    // is a slot waiting for a lost contribution (e.g. of the last chunk, which no later chunk
    // reveals). A repair completes the slot; the others' repairs are absorbed as duplicates.
    const Time stalled = m_lastArrival + m_timing.stallTime;
    if (now < stalled)
    {
        m_timer = Simulator::Schedule(stalled - now, &ReceiveStream::Timeout, this);
        return;
    }
    // Stalled: ask for what no NACK asked for yet (e.g. a lost last chunk, which no later chunk
    // reveals). What was asked for is asked again by the due checks when its answer is overdue.
    const std::vector<ChunkRangeSet::Range> fresh = GetMissingOf({{m_first, m_end}}, m_requested);
    if (!fresh.empty())
    {
        Request(fresh, "stall");
    }
    // Again once these NACKs are due, for what did not fit into them.
    m_timer = Simulator::Schedule(std::max(m_holdUntil - now, m_timing.stallTime),
                                  &ReceiveStream::Timeout,
                                  this);
}

void
ReceiveStream::GapCheck()
{
    const Time now = Simulator::Now();
    // What is still missing in the gaps whose patience is over, and no NACK asked for: lost,
    // not waiting in a slot. Each gap is checked once; the due checks repeat NACKs.
    std::vector<ChunkRangeSet::Range> gaps;
    while (!m_gapChecks.empty() && m_gapChecks.front().due <= now)
    {
        gaps.emplace_back(m_gapChecks.front().first, m_gapChecks.front().end);
        m_gapChecks.pop_front();
    }
    if (!m_gapChecks.empty())
    {
        m_gapEvent =
            Simulator::Schedule(m_gapChecks.front().due - now, &ReceiveStream::GapCheck, this);
    }
    const std::vector<ChunkRangeSet::Range> missing = GetMissingOf(gaps, m_requested);
    if (!missing.empty())
    {
        Request(missing, "gap after the patience");
    }
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
