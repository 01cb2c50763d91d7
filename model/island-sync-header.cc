/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "island-sync-header.h"

#include "ns3/assert.h"
#include "ns3/log.h"

#include <algorithm>
#include <bitset>
#include <cstring>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("WanTrainingIslandSyncHeader");

NS_OBJECT_ENSURE_REGISTERED(IslandSyncHeader);

namespace
{

/** Byte offset of the checksum field. */
constexpr uint32_t CHECKSUM_OFFSET = 38;

/**
 * @param bitmap a contributor bitmap
 * @return its population count
 */
uint16_t
PopCount(uint64_t bitmap)
{
    return static_cast<uint16_t>(std::bitset<64>(bitmap).count());
}

/**
 * @param value a float
 * @return its IEEE 754 bits
 */
uint32_t
FloatToBits(float value)
{
    static_assert(sizeof(float) == sizeof(uint32_t), "float must be 32 bits");
    uint32_t bits;
    std::memcpy(&bits, &value, sizeof(bits));
    return bits;
}

/**
 * @param bits IEEE 754 bits
 * @return the float
 */
float
BitsToFloat(uint32_t bits)
{
    float value;
    std::memcpy(&value, &bits, sizeof(value));
    return value;
}

} // namespace

IslandSyncHeader::IslandSyncHeader()
{
    NS_LOG_FUNCTION(this);
}

TypeId
IslandSyncHeader::GetTypeId()
{
    static TypeId tid = TypeId("ns3::WanTraining::IslandSyncHeader")
                            .SetParent<Header>()
                            .SetGroupName("WanTraining")
                            .AddConstructor<IslandSyncHeader>();
    return tid;
}

TypeId
IslandSyncHeader::GetInstanceTypeId() const
{
    return GetTypeId();
}

const char*
IslandSyncHeader::TypeToString(Type type)
{
    switch (type)
    {
    case DATA:
        return "data";
    case AGGREGATE:
        return "aggregate";
    case NACK:
        return "nack";
    case DONE:
        return "done";
    case READY:
        return "ready";
    }
    return "unknown";
}

void
IslandSyncHeader::Print(std::ostream& os) const
{
    os << TypeToString(m_type) << " job=" << m_jobId << " round=" << m_round
       << " clique=" << m_cliqueId << " sender=" << m_sender << " chunk=" << m_chunkIndex << "/"
       << m_chunkCount << " contributors=0x" << std::hex << m_contributors << std::dec
       << " count=" << GetContributorCount();
    if (m_type == NACK)
    {
        os << " ranges=" << m_ranges.size();
        for (const auto& range : m_ranges)
        {
            os << " [" << range.first << "," << range.second << ")";
        }
    }
    else
    {
        os << " values=" << m_values.size() << "@" << m_valueOffset;
    }
}

uint32_t
IslandSyncHeader::GetSerializedSize() const
{
    if (m_type == NACK)
    {
        return FIXED_SIZE + RANGE_BYTES * static_cast<uint32_t>(m_ranges.size());
    }
    if (m_type == DONE || m_type == READY)
    {
        return FIXED_SIZE;
    }
    return FIXED_SIZE + VALUE_BYTES * static_cast<uint32_t>(m_values.size());
}

void
IslandSyncHeader::Serialize(Buffer::Iterator start) const
{
    uint32_t size = GetSerializedSize();
    NS_ASSERT_MSG(size <= MAX_SIZE, "IslandSyncHeader larger than an IPv4 datagram");
    Buffer::Iterator i = start;
    i.WriteHtonU16(MAGIC);
    i.WriteU8(VERSION);
    i.WriteU8(m_type);
    i.WriteHtonU16(m_jobId);
    i.WriteHtonU16(m_sender);
    i.WriteHtonU32(m_round);
    i.WriteHtonU16(m_cliqueId);
    i.WriteHtonU16(GetContributorCount());
    i.WriteHtonU32(m_chunkIndex);
    i.WriteHtonU32(m_chunkCount);
    i.WriteHtonU64(m_contributors);
    i.WriteHtonU32(m_valueOffset);
    if (m_type == NACK)
    {
        i.WriteHtonU16(static_cast<uint16_t>(m_ranges.size()));
        i.WriteU16(0);
        for (const auto& range : m_ranges)
        {
            i.WriteHtonU32(range.first);
            i.WriteHtonU32(range.second);
        }
    }
    else if (m_type == DONE || m_type == READY)
    {
        i.WriteHtonU16(0);
        i.WriteU16(0);
    }
    else
    {
        i.WriteHtonU16(static_cast<uint16_t>(m_values.size()));
        i.WriteU16(0);
        for (float value : m_values)
        {
            i.WriteHtonU32(FloatToBits(value));
        }
    }
    Buffer::Iterator sum = start;
    uint16_t checksum = sum.CalculateIpChecksum(static_cast<uint16_t>(size));
    Buffer::Iterator field = start;
    field.Next(CHECKSUM_OFFSET);
    field.WriteU16(checksum);
}

uint32_t
IslandSyncHeader::Deserialize(Buffer::Iterator start)
{
    uint32_t available = start.GetRemainingSize();
    if (available < FIXED_SIZE)
    {
        NS_LOG_LOGIC("truncated: " << available << " bytes");
        return 0;
    }
    Buffer::Iterator i = start;
    uint16_t magic = i.ReadNtohU16();
    uint8_t version = i.ReadU8();
    uint8_t type = i.ReadU8();
    uint16_t jobId = i.ReadNtohU16();
    uint16_t sender = i.ReadNtohU16();
    uint32_t round = i.ReadNtohU32();
    uint16_t cliqueId = i.ReadNtohU16();
    uint16_t contributorCount = i.ReadNtohU16();
    uint32_t chunkIndex = i.ReadNtohU32();
    uint32_t chunkCount = i.ReadNtohU32();
    uint64_t contributors = i.ReadNtohU64();
    uint32_t valueOffset = i.ReadNtohU32();
    uint16_t areaCount = i.ReadNtohU16();
    i.ReadU16(); // checksum, verified over the whole header below

    if (magic != MAGIC || version != VERSION || type < DATA || type > READY)
    {
        NS_LOG_LOGIC("bad magic, version or type");
        return 0;
    }
    if (sender >= MAX_ISLANDS || contributors == 0 || contributorCount != PopCount(contributors))
    {
        NS_LOG_LOGIC("bad sender or contributors");
        return 0;
    }
    uint32_t areaBytes = 0;
    if (type == DATA || type == AGGREGATE)
    {
        if (chunkIndex >= chunkCount ||
            static_cast<uint64_t>(valueOffset) + areaCount > UINT32_MAX ||
            (type == DATA && contributors != (uint64_t{1} << sender)))
        {
            NS_LOG_LOGIC("bad chunk index, value range or DATA contributor");
            return 0;
        }
        areaBytes = VALUE_BYTES * areaCount;
    }
    else if (type == NACK)
    {
        if (chunkCount == 0 || areaCount == 0)
        {
            NS_LOG_LOGIC("empty NACK");
            return 0;
        }
        areaBytes = RANGE_BYTES * areaCount;
    }
    else if (areaCount != 0)
    {
        NS_LOG_LOGIC("DONE or READY with a value area");
        return 0;
    }
    uint32_t size = FIXED_SIZE + areaBytes;
    if (size > available || size > MAX_SIZE)
    {
        NS_LOG_LOGIC("truncated value area: need " << size << " bytes, have " << available);
        return 0;
    }
    Buffer::Iterator sum = start;
    if (sum.CalculateIpChecksum(static_cast<uint16_t>(size)) != 0)
    {
        NS_LOG_LOGIC("bad checksum");
        return 0;
    }

    std::vector<float> values;
    std::vector<Range> ranges;
    if (type == DATA || type == AGGREGATE)
    {
        values.reserve(areaCount);
        for (uint16_t k = 0; k < areaCount; ++k)
        {
            values.push_back(BitsToFloat(i.ReadNtohU32()));
        }
    }
    else if (type == NACK)
    {
        ranges.reserve(areaCount);
        for (uint16_t k = 0; k < areaCount; ++k)
        {
            uint32_t begin = i.ReadNtohU32();
            uint32_t end = i.ReadNtohU32();
            if (begin >= end || end > chunkCount)
            {
                NS_LOG_LOGIC("bad NACK range [" << begin << "," << end << ")");
                return 0;
            }
            ranges.emplace_back(begin, end);
        }
    }

    m_type = static_cast<Type>(type);
    m_jobId = jobId;
    m_sender = sender;
    m_round = round;
    m_cliqueId = cliqueId;
    m_chunkIndex = chunkIndex;
    m_chunkCount = chunkCount;
    m_contributors = contributors;
    m_valueOffset = valueOffset;
    m_values = std::move(values);
    m_ranges = std::move(ranges);
    return size;
}

void
IslandSyncHeader::SetType(Type type)
{
    m_type = type;
}

IslandSyncHeader::Type
IslandSyncHeader::GetType() const
{
    return m_type;
}

void
IslandSyncHeader::SetJobId(uint16_t jobId)
{
    m_jobId = jobId;
}

uint16_t
IslandSyncHeader::GetJobId() const
{
    return m_jobId;
}

void
IslandSyncHeader::SetRound(uint32_t round)
{
    m_round = round;
}

uint32_t
IslandSyncHeader::GetRound() const
{
    return m_round;
}

void
IslandSyncHeader::SetCliqueId(uint16_t cliqueId)
{
    m_cliqueId = cliqueId;
}

uint16_t
IslandSyncHeader::GetCliqueId() const
{
    return m_cliqueId;
}

void
IslandSyncHeader::SetSender(uint16_t sender)
{
    NS_ASSERT_MSG(sender < MAX_ISLANDS, "sender island " << sender << " >= " << MAX_ISLANDS);
    m_sender = sender;
}

uint16_t
IslandSyncHeader::GetSender() const
{
    return m_sender;
}

void
IslandSyncHeader::SetChunkIndex(uint32_t index)
{
    m_chunkIndex = index;
}

uint32_t
IslandSyncHeader::GetChunkIndex() const
{
    return m_chunkIndex;
}

void
IslandSyncHeader::SetChunkCount(uint32_t count)
{
    m_chunkCount = count;
}

uint32_t
IslandSyncHeader::GetChunkCount() const
{
    return m_chunkCount;
}

void
IslandSyncHeader::SetContributors(uint64_t bitmap)
{
    m_contributors = bitmap;
}

uint64_t
IslandSyncHeader::GetContributors() const
{
    return m_contributors;
}

uint16_t
IslandSyncHeader::GetContributorCount() const
{
    return PopCount(m_contributors);
}

void
IslandSyncHeader::SetValueOffset(uint32_t offset)
{
    m_valueOffset = offset;
}

uint32_t
IslandSyncHeader::GetValueOffset() const
{
    return m_valueOffset;
}

void
IslandSyncHeader::SetValues(std::vector<float> values)
{
    NS_ASSERT_MSG(values.size() <= GetMaxValues(MAX_SIZE - FIXED_SIZE),
                  "too many values for one header: " << values.size());
    m_values = std::move(values);
}

const std::vector<float>&
IslandSyncHeader::GetValues() const
{
    return m_values;
}

void
IslandSyncHeader::SetRanges(std::vector<Range> ranges)
{
    NS_ASSERT_MSG(ranges.size() <= (MAX_SIZE - FIXED_SIZE) / RANGE_BYTES,
                  "too many ranges for one header: " << ranges.size());
    m_ranges = std::move(ranges);
}

const std::vector<IslandSyncHeader::Range>&
IslandSyncHeader::GetRanges() const
{
    return m_ranges;
}

uint32_t
IslandSyncHeader::GetMaxValues(uint32_t payloadBytes)
{
    return std::min<uint32_t>(payloadBytes / VALUE_BYTES, UINT16_MAX);
}

} // namespace ns3
