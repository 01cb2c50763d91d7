/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "aggregate-shadows.h"

#include "aggregate-datagram.h"

#include "ns3/ipv4-header.h"
#include "ns3/log.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("WanTrainingAggregateShadows");

void
AggregateShadows::SetCapacity(uint32_t capacity)
{
    // Keep the newest copies that fit, oldest first.
    std::vector<Shadow> kept;
    for (std::size_t i = 0; i < m_ring.size(); ++i)
    {
        Shadow& shadow = m_ring[(m_next + i) % m_ring.size()];
        if (shadow.datagram)
        {
            kept.push_back(std::move(shadow));
        }
    }
    if (kept.size() > capacity)
    {
        kept.erase(kept.begin(), kept.end() - capacity);
    }
    m_capacity = capacity;
    m_size = kept.size();
    m_ring = std::move(kept);
    m_next = m_ring.size() % std::max<uint32_t>(capacity, 1);
}

uint32_t
AggregateShadows::GetCapacity() const
{
    return m_capacity;
}

void
AggregateShadows::Keep(const ChunkKey& key, uint64_t contributors, Ptr<const Packet> datagram)
{
    if (m_capacity == 0)
    {
        return;
    }
    if (m_ring.size() < m_capacity)
    {
        m_ring.emplace_back();
    }
    Shadow& shadow = m_ring[m_next];
    m_size += shadow.datagram ? 0 : 1;
    shadow = Shadow{key, contributors, datagram->Copy(), false, Time()};
    m_next = (m_next + 1) % m_capacity;
}

AggregateShadows::Answer
AggregateShadows::AnswerNack(const IslandSyncHeader& nack, Time now, Time holdoff)
{
    Answer answer;
    const uint64_t addressed = nack.GetContributors();
    const std::vector<IslandSyncHeader::Range>& ranges = nack.GetRanges();
    // The copies of the chunks the NACK asks for, in chunk order.
    std::vector<Shadow*> asked;
    for (Shadow& shadow : m_ring)
    {
        const auto& [job, round, clique, chunk] = shadow.key;
        if (!shadow.datagram || job != nack.GetJobId() || round != nack.GetRound() ||
            clique != nack.GetCliqueId())
        {
            continue;
        }
        for (const IslandSyncHeader::Range& range : ranges)
        {
            if (chunk >= range.first && chunk < range.second)
            {
                asked.push_back(&shadow);
                break;
            }
        }
    }
    std::sort(asked.begin(), asked.end(), [](const Shadow* a, const Shadow* b) {
        return std::get<3>(a->key) < std::get<3>(b->key);
    });
    std::vector<uint32_t> answered; // in increasing order
    for (Shadow* shadow : asked)
    {
        const uint32_t chunk = std::get<3>(shadow->key);
        if ((addressed & ~shadow->contributors) != 0)
        {
            // Someone the NACK asks is not in this aggregate: the contributors answer.
            continue;
        }
        if (shadow->served && now >= shadow->heldUntil)
        {
            // Asked again after the served copy could have arrived: it did not help.
            NS_LOG_LOGIC("chunk " << chunk << " asked again: the contributors answer");
            shadow->datagram = nullptr;
            --m_size;
            continue;
        }
        if (!shadow->served)
        {
            NS_LOG_LOGIC("chunk " << chunk << " served from its shadow copy");
            shadow->served = true;
            shadow->heldUntil = now + holdoff;
            answer.serve.push_back(shadow->datagram->Copy());
        }
        answered.push_back(chunk);
    }
    answer.answered = static_cast<uint32_t>(answered.size());
    // What the contributors are still asked: the ranges without the chunks answered.
    for (const IslandSyncHeader::Range& range : ranges)
    {
        uint32_t first = range.first;
        for (auto next = std::lower_bound(answered.begin(), answered.end(), range.first);
             next != answered.end() && *next < range.second;
             ++next)
        {
            if (first < *next)
            {
                answer.ranges.emplace_back(first, *next);
            }
            first = *next + 1;
        }
        if (first < range.second)
        {
            answer.ranges.emplace_back(first, range.second);
        }
    }
    // The NACK must still fit the path: no more ranges than it had, or than fit the 576 bytes
    // every IPv4 path carries. Beyond that, rejoin the ranges closest to each other (the
    // contributors then resend a few chunks the shadows answered too).
    const std::size_t most = std::max<std::size_t>(ranges.size(), MIN_PATH_RANGES);
    while (answer.ranges.size() > most)
    {
        std::size_t closest = 0;
        for (std::size_t r = 1; r + 1 < answer.ranges.size(); ++r)
        {
            if (answer.ranges[r + 1].first - answer.ranges[r].second <
                answer.ranges[closest + 1].first - answer.ranges[closest].second)
            {
                closest = r;
            }
        }
        answer.ranges[closest].second = answer.ranges[closest + 1].second;
        answer.ranges.erase(answer.ranges.begin() + closest + 1);
    }
    return answer;
}

AggregateShadows::DatagramAnswer
AggregateShadows::AnswerDatagram(Ptr<const Packet> datagram,
                                 Ipv4Address island,
                                 uint16_t port,
                                 Time now,
                                 Time holdoff)
{
    DatagramAnswer result;
    result.forward = datagram;
    IslandSyncHeader nack;
    const uint32_t syncStart =
        IslandSyncHeader::ReadFromPacket(datagram, IslandSyncHeader::IPV4_DATAGRAM, port, nack);
    Ipv4Header ip;
    if (syncStart == 0 || nack.GetType() != IslandSyncHeader::NACK ||
        datagram->PeekHeader(ip) == 0 || ip.GetSource() != island)
    {
        // Not a valid NACK of the island: it goes on.
        return result;
    }
    Answer answer = AnswerNack(nack, now, holdoff);
    result.serve = std::move(answer.serve);
    result.answered = answer.answered;
    if (answer.answered == 0)
    {
        return result;
    }
    NS_LOG_LOGIC("NACK " << nack << ": " << answer.answered << " chunks answered, "
                         << result.serve.size() << " served again");
    if (answer.ranges.empty())
    {
        result.forward = nullptr;
        return result;
    }
    const uint32_t paddingBytes = datagram->GetSize() - syncStart - nack.GetSerializedSize();
    nack.SetRanges(std::move(answer.ranges));
    result.forward = AggregateDatagram::Build(nack,
                                              paddingBytes,
                                              ip.GetSource(),
                                              ip.GetDestination(),
                                              port,
                                              ip.GetIdentification(),
                                              ip.GetTtl());
    return result;
}

std::size_t
AggregateShadows::GetSize() const
{
    return m_size;
}

bool
AggregateShadows::IsEmpty() const
{
    return m_size == 0;
}

} // namespace ns3
