/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "chunk-range-set.h"

#include "ns3/assert.h"
#include "ns3/log.h"

#include <algorithm>
#include <iterator>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("WanTrainingChunkRangeSet");

bool
ChunkRangeSet::Insert(uint32_t index)
{
    uint64_t before = m_count;
    Insert(index, index + 1);
    return m_count != before;
}

void
ChunkRangeSet::Insert(uint32_t begin, uint32_t end)
{
    if (begin >= end)
    {
        return;
    }
    // First interval that could touch [begin, end): the last one starting at or before begin.
    auto it = m_ranges.upper_bound(begin);
    if (it != m_ranges.begin())
    {
        auto prev = std::prev(it);
        if (prev->second >= begin)
        {
            if (it == m_ranges.end() || it->first > end)
            {
                // The common case (chunks arrive in order): the interval grows at its end,
                // in place.
                if (end > prev->second)
                {
                    m_count += end - prev->second;
                    prev->second = end;
                }
                return;
            }
            it = prev;
        }
    }
    uint32_t newBegin = begin;
    uint32_t newEnd = end;
    while (it != m_ranges.end() && it->first <= newEnd)
    {
        newBegin = std::min(newBegin, it->first);
        newEnd = std::max(newEnd, it->second);
        m_count -= it->second - it->first;
        it = m_ranges.erase(it);
    }
    m_ranges.emplace_hint(it, newBegin, newEnd);
    m_count += newEnd - newBegin;
}

bool
ChunkRangeSet::Contains(uint32_t index) const
{
    auto it = m_ranges.upper_bound(index);
    if (it == m_ranges.begin())
    {
        return false;
    }
    --it;
    return index < it->second;
}

bool
ChunkRangeSet::IsEmpty() const
{
    return m_ranges.empty();
}

uint64_t
ChunkRangeSet::GetCount() const
{
    return m_count;
}

uint32_t
ChunkRangeSet::GetNRanges() const
{
    return static_cast<uint32_t>(m_ranges.size());
}

bool
ChunkRangeSet::Covers(uint32_t count) const
{
    if (count == 0)
    {
        return true;
    }
    return !m_ranges.empty() && m_ranges.begin()->first == 0 && m_ranges.begin()->second >= count;
}

uint32_t
ChunkRangeSet::PopFront()
{
    NS_ASSERT_MSG(!m_ranges.empty(), "PopFront on an empty ChunkRangeSet");
    auto it = m_ranges.begin();
    uint32_t index = it->first;
    if (index + 1 < it->second)
    {
        // Shrink the first interval in place: its new begin stays below its end, so below
        // every later interval, and the order holds (flat_map's value_type is a plain
        // std::pair, whose key may be written).
        it->first = index + 1;
    }
    else
    {
        m_ranges.erase(it);
    }
    --m_count;
    return index;
}

std::vector<ChunkRangeSet::Range>
ChunkRangeSet::GetMissing(uint32_t count, uint32_t maxRanges) const
{
    std::vector<Range> missing;
    uint32_t next = 0;
    for (auto it = m_ranges.begin(); it != m_ranges.end() && next < count; ++it)
    {
        if (missing.size() >= maxRanges)
        {
            return missing;
        }
        if (it->first > next)
        {
            missing.emplace_back(next, std::min(it->first, count));
        }
        next = std::max(next, it->second);
    }
    if (next < count && missing.size() < maxRanges)
    {
        missing.emplace_back(next, count);
    }
    return missing;
}

std::vector<ChunkRangeSet::Range>
ChunkRangeSet::GetRanges() const
{
    return std::vector<Range>(m_ranges.begin(), m_ranges.end());
}

std::vector<ChunkRangeSet::Range>
ChunkRangeSet::GetRangesWithin(uint32_t begin, uint32_t end) const
{
    std::vector<Range> within;
    auto it = m_ranges.upper_bound(begin);
    if (it != m_ranges.begin())
    {
        // The interval that starts at or before begin may reach into the range.
        --it;
    }
    for (; it != m_ranges.end() && it->first < end; ++it)
    {
        const uint32_t first = std::max(it->first, begin);
        const uint32_t last = std::min(it->second, end);
        if (first < last)
        {
            within.emplace_back(first, last);
        }
    }
    return within;
}

void
ChunkRangeSet::Clear()
{
    m_ranges.clear();
    m_count = 0;
}

} // namespace ns3
