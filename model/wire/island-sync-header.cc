/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "island-sync-header.h"

#include "payload-codec.h"
#include "sync-protocol.h"

#include "ns3/assert.h"
#include "ns3/fatal-error.h"
#include "ns3/log.h"

#include <algorithm>
#include <bitset>
#include <cstring>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("WanTrainingIslandSyncHeader");

NS_OBJECT_ENSURE_REGISTERED(IslandSyncHeader);

static_assert(IslandSyncHeader::MAX_CLIQUES >= IslandSyncHeader::MAX_ISLANDS,
              "the clique index must name every clique of a round of MAX_ISLANDS islands");

namespace
{

/** Byte offset of the checksum field. */
constexpr uint32_t CHECKSUM_OFFSET = 38;

/** Bytes of a value or range area that Serialize and Deserialize keep on the stack. */
constexpr uint32_t SMALL_AREA_BYTES = 216;

/**
 * @param type a message type
 * @return whether it carries values (and so a payload format)
 */
bool
HasValues(uint8_t type)
{
    return type == IslandSyncHeader::DATA || type == IslandSyncHeader::AGGREGATE;
}

/**
 * @param type a message type
 * @return whether it names a payload format (DATA, AGGREGATE, and PARITY: its chunks')
 */
bool
HasFormat(uint8_t type)
{
    return HasValues(type) || type == IslandSyncHeader::PARITY;
}

/**
 * @param bitmap a contributor bitmap
 * @return its population count
 */
uint16_t
PopCount(uint64_t bitmap)
{
    return static_cast<uint16_t>(std::bitset<64>(bitmap).count());
}

// The protocol's network byte order.
constexpr auto GetU16 = &SyncProtocol::GetU16; //!< SyncProtocol::GetU16
constexpr auto GetU32 = &SyncProtocol::GetU32; //!< SyncProtocol::GetU32
constexpr auto PutU16 = &SyncProtocol::PutU16; //!< SyncProtocol::PutU16
constexpr auto PutU32 = &SyncProtocol::PutU32; //!< SyncProtocol::PutU32

/**
 * @brief Copy bytes out of a buffer in 32-bit words (the last 1-3 bytes one by one).
 * @param i the iterator, advanced past the bytes
 * @param to where to copy
 * @param bytes how many
 */
void
ReadWords(Buffer::Iterator& i, uint8_t* to, uint32_t bytes)
{
    uint32_t k = 0;
    for (; k + 4 <= bytes; k += 4)
    {
        PutU32(to + k, i.ReadNtohU32());
    }
    for (; k < bytes; ++k)
    {
        to[k] = i.ReadU8();
    }
}

/**
 * @brief The Internet checksum exactly as Buffer::Iterator::CalculateIpChecksum computes it:
 * the ones' complement of the ones' complement sum of the bytes read as 16-bit words low byte
 * first (an odd last byte on its own).
 * @param data the bytes
 * @param size how many
 * @return the checksum (0 over bytes that include a correct checksum)
 */
uint16_t
Checksum(const uint8_t* data, uint32_t size)
{
    uint32_t sum = 0;
    uint32_t k = 0;
    for (; k + 1 < size; k += 2)
    {
        sum += data[k] | (uint32_t{data[k + 1]} << 8);
    }
    if (k < size)
    {
        sum += data[k];
    }
    while (sum >> 16)
    {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    return static_cast<uint16_t>(~sum);
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
    case READY_ASK:
        return "ready-ask";
    case VIEW:
        return "view";
    case PARITY:
        return "parity";
    }
    return "unknown";
}

void
IslandSyncHeader::Print(std::ostream& os) const
{
    os << TypeToString(m_type) << " job=" << m_jobId << " round=" << m_round
       << " clique=" << GetCliqueIndex() << " epoch=" << GetEpoch() << " sender=" << m_sender
       << " chunk=" << m_chunkIndex << "/" << m_chunkCount << " contributors=0x" << std::hex
       << m_contributors << std::dec << " count=" << GetContributorCount();
    if (m_type == NACK)
    {
        os << " ranges=" << m_ranges.size();
        for (const auto& range : m_ranges)
        {
            os << " [" << range.first << "," << range.second << ")";
        }
    }
    else if (m_type == PARITY)
    {
        os << " block=" << m_valueOffset << " parity=" << m_parity.size() << "B";
        if (m_format != PayloadFormat::FP32)
        {
            os << " format=" << PayloadFormatToString(m_format);
        }
    }
    else
    {
        os << " values=" << m_values.size() << "@" << m_valueOffset;
        if (m_format != PayloadFormat::FP32 && HasValues(m_type))
        {
            os << " format=" << PayloadFormatToString(m_format);
        }
    }
}

uint32_t
IslandSyncHeader::GetSerializedSize() const
{
    if (m_type == NACK)
    {
        return FIXED_SIZE + RANGE_BYTES * static_cast<uint32_t>(m_ranges.size());
    }
    if (m_type == PARITY)
    {
        return FIXED_SIZE + static_cast<uint32_t>(m_parity.size());
    }
    if (m_type == DATA || m_type == AGGREGATE)
    {
        const auto count = static_cast<uint32_t>(m_values.size());
        return FIXED_SIZE + (m_format == PayloadFormat::FP32
                                 ? VALUE_BYTES * count
                                 : static_cast<uint32_t>(GetEncodedBytes(m_format, count)));
    }
    return FIXED_SIZE;
}

void
IslandSyncHeader::Serialize(Buffer::Iterator start) const
{
    // Built in a flat array and written at once: one bulk write and a checksum over
    // contiguous bytes instead of one Buffer::Iterator call per field and per checksum word.
    uint32_t size = GetSerializedSize();
    NS_ASSERT_MSG(size <= MAX_SIZE, "IslandSyncHeader larger than an IPv4 datagram");
    uint8_t fixed[FIXED_SIZE + SMALL_AREA_BYTES];
    std::vector<uint8_t> large;
    uint8_t* bytes = fixed;
    if (size > sizeof(fixed))
    {
        large.resize(size);
        bytes = large.data();
    }
    uint16_t areaCount = 0;
    if (m_type == NACK)
    {
        areaCount = static_cast<uint16_t>(m_ranges.size());
    }
    else if (m_type == PARITY)
    {
        areaCount = static_cast<uint16_t>(m_parity.size());
    }
    else if (m_type == DATA || m_type == AGGREGATE)
    {
        areaCount = static_cast<uint16_t>(m_values.size());
    }
    NS_ASSERT_MSG(m_format != PayloadFormat::INT8 || !HasValues(m_type) ||
                      m_valueOffset % INT8_BLOCK_VALUES == 0,
                  "int8 value offset " << m_valueOffset << " is not on a block boundary");
    PutU16(bytes, MAGIC);
    bytes[2] = VERSION;
    const uint8_t format = HasFormat(m_type) ? static_cast<uint8_t>(m_format) : 0;
    bytes[3] = static_cast<uint8_t>(m_type | (format << FORMAT_SHIFT));
    PutU16(bytes + 4, m_jobId);
    PutU16(bytes + 6, m_sender);
    PutU32(bytes + 8, m_round);
    PutU16(bytes + 12, m_cliqueId);
    PutU16(bytes + 14, GetContributorCount());
    PutU32(bytes + 16, m_chunkIndex);
    PutU32(bytes + 20, m_chunkCount);
    PutU32(bytes + 24, static_cast<uint32_t>(m_contributors >> 32));
    PutU32(bytes + 28, static_cast<uint32_t>(m_contributors));
    PutU32(bytes + 32, m_valueOffset);
    PutU16(bytes + 36, areaCount);
    bytes[CHECKSUM_OFFSET] = 0;
    bytes[CHECKSUM_OFFSET + 1] = 0;
    uint8_t* area = bytes + FIXED_SIZE;
    if (m_type == NACK)
    {
        for (const auto& range : m_ranges)
        {
            PutU32(area, range.first);
            PutU32(area + 4, range.second);
            area += RANGE_BYTES;
        }
    }
    else if (m_type == PARITY && !m_parity.empty())
    {
        // memcpy from an empty vector's data() (null) is undefined even for 0 bytes.
        std::memcpy(area, m_parity.data(), m_parity.size());
    }
    else if (m_type == DATA || m_type == AGGREGATE)
    {
        PayloadCodec::Encode(m_format, m_values.data(), areaCount, area);
    }
    // Stored as Buffer::Iterator::WriteU16 stores it (low byte first), which makes
    // Buffer::Iterator::CalculateIpChecksum over the header 0.
    uint16_t checksum = Checksum(bytes, size);
    bytes[CHECKSUM_OFFSET] = static_cast<uint8_t>(checksum & 0xff);
    bytes[CHECKSUM_OFFSET + 1] = static_cast<uint8_t>(checksum >> 8);
    start.Write(bytes, size);
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
    // The fixed part is read in 32-bit words (Buffer::Iterator::ReadNtohU32 reads straight
    // from the buffer's data, where Read() goes byte by byte); the value or range area
    // (first chunks, NACKs: multiples of 4 bytes) is read the same way once its size is known.
    uint8_t fixed[FIXED_SIZE + SMALL_AREA_BYTES];
    Buffer::Iterator i = start;
    ReadWords(i, fixed, FIXED_SIZE);
    uint32_t size = PeekSerializedSize(fixed);
    if (size <= FIXED_SIZE || size > available)
    {
        return DeserializeFrom(fixed, FIXED_SIZE);
    }
    if (size <= sizeof(fixed))
    {
        ReadWords(i, fixed + FIXED_SIZE, size - FIXED_SIZE);
        return DeserializeFrom(fixed, size);
    }
    std::vector<uint8_t> whole(size);
    std::memcpy(whole.data(), fixed, FIXED_SIZE);
    ReadWords(i, whole.data() + FIXED_SIZE, size - FIXED_SIZE);
    return DeserializeFrom(whole.data(), size);
}

uint32_t
IslandSyncHeader::PeekSerializedSize(const uint8_t* fixed)
{
    const uint8_t type = fixed[3];
    const uint32_t areaCount = GetU16(fixed + 36);
    if (type == DATA || type == AGGREGATE)
    {
        return FIXED_SIZE + VALUE_BYTES * areaCount;
    }
    if (type == NACK)
    {
        return FIXED_SIZE + RANGE_BYTES * areaCount;
    }
    if ((type & TYPE_MASK) == PARITY)
    {
        return FIXED_SIZE + areaCount;
    }
    const uint8_t format = type >> FORMAT_SHIFT;
    if (HasValues(type & TYPE_MASK) && format <= static_cast<uint8_t>(PayloadFormat::INT8))
    {
        return FIXED_SIZE + static_cast<uint32_t>(
                                GetEncodedBytes(static_cast<PayloadFormat>(format), areaCount));
    }
    return FIXED_SIZE;
}

namespace
{

constexpr uint32_t PPP_BYTES = 2;       //!< the PPP header
constexpr uint32_t MAX_IPV4_BYTES = 60; //!< the longest IPv4 header (15 words)
constexpr uint32_t UDP_BYTES = 8;       //!< the UDP header

/** The first bytes of a packet: enough for the framing, IPv4, UDP and fixed sync headers. */
using PacketHead = uint8_t[PPP_BYTES + MAX_IPV4_BYTES + UDP_BYTES + IslandSyncHeader::FIXED_SIZE];

/**
 * @brief Copy a packet's first bytes and find where the sync header of the transport starts:
 * the PPP protocol (PPP_FRAME) is IPv4, the packet is an unfragmented IPv4 UDP datagram to
 * `port`, and the payload is long enough for the fixed sync header (which is not checked).
 * @param packet the packet
 * @param framing how it starts
 * @param port the transport's UDP destination port
 * @param head receives the packet's first bytes
 * @param copied receives how many bytes head holds
 * @return the sync header's byte offset, or 0 when the packet is not of the transport
 */
uint32_t
LocateSyncHeader(Ptr<const Packet> packet,
                 IslandSyncHeader::Framing framing,
                 uint16_t port,
                 PacketHead& head,
                 uint32_t& copied)
{
    constexpr uint16_t PPP_IPV4 = 0x0021;
    constexpr uint32_t MIN_IPV4_BYTES = 20;
    constexpr uint8_t UDP_PROTOCOL = 17;
    copied = packet->CopyData(head, std::min<uint32_t>(packet->GetSize(), sizeof(head)));
    uint32_t ip = 0;
    if (framing == IslandSyncHeader::PPP_FRAME)
    {
        if (copied < PPP_BYTES || GetU16(head) != PPP_IPV4)
        {
            return 0;
        }
        ip = PPP_BYTES;
    }
    // The fields checked are those Ipv4Header and UdpHeader would deserialize.
    if (copied < ip + MIN_IPV4_BYTES || (head[ip] >> 4) != 4)
    {
        return 0;
    }
    const uint32_t ipBytes = 4 * (head[ip] & 0x0f);
    const bool moreFragments = head[ip + 6] & 0x20;
    const uint32_t fragmentOffset = ((head[ip + 6] & 0x1f) << 8) | head[ip + 7];
    const uint32_t udp = ip + ipBytes;
    const uint32_t sync = udp + UDP_BYTES;
    if (ipBytes < MIN_IPV4_BYTES || head[ip + 9] != UDP_PROTOCOL || fragmentOffset != 0 ||
        moreFragments || copied < sync || GetU16(head + udp + 2) != port ||
        copied < sync + IslandSyncHeader::FIXED_SIZE)
    {
        return 0;
    }
    return sync;
}

/**
 * @param fixed the first bytes of a serialized header (at least 4)
 * @return whether they start with the magic, the version, a known message type and a known
 *         payload format (fp32 for a type without values)
 */
bool
HasKnownPrefix(const uint8_t* fixed)
{
    if (GetU16(fixed) != IslandSyncHeader::MAGIC || fixed[2] != IslandSyncHeader::VERSION)
    {
        return false;
    }
    const uint8_t type = fixed[3] & IslandSyncHeader::TYPE_MASK;
    const uint8_t format = fixed[3] >> IslandSyncHeader::FORMAT_SHIFT;
    return type >= IslandSyncHeader::DATA && type <= IslandSyncHeader::PARITY &&
           (format == 0 ||
            (HasFormat(type) && format <= static_cast<uint8_t>(PayloadFormat::INT8)));
}

} // namespace

uint32_t
IslandSyncHeader::ReadFromPacket(Ptr<const Packet> packet,
                                 Framing framing,
                                 uint16_t port,
                                 IslandSyncHeader& header,
                                 uint32_t* ipv4Destination)
{
    PacketHead head;
    uint32_t copied = 0;
    const uint32_t sync = LocateSyncHeader(packet, framing, port, head, copied);
    if (sync == 0)
    {
        return 0;
    }
    if (ipv4Destination != nullptr)
    {
        // LocateSyncHeader checked that the IPv4 header is there.
        const uint32_t ip = framing == PPP_FRAME ? PPP_BYTES : 0;
        *ipv4Destination = GetU32(head + ip + 16);
    }
    const uint32_t end = sync + PeekSerializedSize(head + sync);
    uint32_t headerBytes = 0;
    if (end <= copied)
    {
        headerBytes = header.DeserializeFrom(head + sync, copied - sync);
    }
    else if (end <= packet->GetSize())
    {
        // A header with a value or range area (first chunks, NACKs): copy all of it.
        std::vector<uint8_t> whole(end);
        packet->CopyData(whole.data(), end);
        headerBytes = header.DeserializeFrom(whole.data() + sync, end - sync);
    }
    return headerBytes == 0 ? 0 : sync;
}

uint32_t
IslandSyncHeader::PeekTypeInPacket(Ptr<const Packet> packet,
                                   Framing framing,
                                   uint16_t port,
                                   Type& type,
                                   PayloadFormat& format)
{
    PacketHead head;
    uint32_t copied = 0;
    const uint32_t sync = LocateSyncHeader(packet, framing, port, head, copied);
    if (sync == 0)
    {
        return 0;
    }
    const uint8_t* fixed = head + sync;
    if (!HasKnownPrefix(fixed))
    {
        return 0;
    }
    type = static_cast<Type>(fixed[3] & TYPE_MASK);
    format = static_cast<PayloadFormat>(fixed[3] >> FORMAT_SHIFT);
    return sync;
}

uint32_t
IslandSyncHeader::DeserializeFrom(const uint8_t* data, uint32_t available)
{
    if (available < FIXED_SIZE)
    {
        NS_LOG_LOGIC("truncated: " << available << " bytes");
        return 0;
    }
    const uint8_t type = data[3] & TYPE_MASK;
    const auto format = static_cast<PayloadFormat>(data[3] >> FORMAT_SHIFT);
    uint16_t jobId = GetU16(data + 4);
    uint16_t sender = GetU16(data + 6);
    uint32_t round = GetU32(data + 8);
    uint16_t cliqueId = GetU16(data + 12);
    uint16_t contributorCount = GetU16(data + 14);
    uint32_t chunkIndex = GetU32(data + 16);
    uint32_t chunkCount = GetU32(data + 20);
    uint64_t contributors = (uint64_t{GetU32(data + 24)} << 32) | GetU32(data + 28);
    uint32_t valueOffset = GetU32(data + 32);
    uint16_t areaCount = GetU16(data + 36);

    if (!HasKnownPrefix(data))
    {
        NS_LOG_LOGIC("bad magic, version, type or format");
        return 0;
    }
    if (sender >= MAX_ISLANDS || contributors == 0 || contributorCount != PopCount(contributors))
    {
        NS_LOG_LOGIC("bad sender or contributors");
        return 0;
    }
    if ((cliqueId >> CLIQUE_BITS) > MAX_EPOCH)
    {
        NS_LOG_LOGIC("bad epoch " << (cliqueId >> CLIQUE_BITS));
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
        if (format == PayloadFormat::INT8 && valueOffset % INT8_BLOCK_VALUES != 0)
        {
            NS_LOG_LOGIC("int8 value offset " << valueOffset << " not on a block boundary");
            return 0;
        }
        areaBytes = format == PayloadFormat::FP32
                        ? VALUE_BYTES * areaCount
                        : static_cast<uint32_t>(GetEncodedBytes(format, areaCount));
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
    else if (type == PARITY)
    {
        if (valueOffset == 0 || chunkIndex >= chunkCount || valueOffset > chunkCount - chunkIndex ||
            contributors != (uint64_t{1} << sender))
        {
            NS_LOG_LOGIC("bad PARITY block or contributor");
            return 0;
        }
        areaBytes = areaCount;
    }
    else if (areaCount != 0)
    {
        NS_LOG_LOGIC("DONE, READY, READY_ASK or VIEW with a value area");
        return 0;
    }
    uint32_t size = FIXED_SIZE + areaBytes;
    if (size > available || size > MAX_SIZE)
    {
        NS_LOG_LOGIC("truncated value area: need " << size << " bytes, have " << available);
        return 0;
    }
    if (Checksum(data, size) != 0)
    {
        NS_LOG_LOGIC("bad checksum");
        return 0;
    }

    std::vector<float> values;
    std::vector<Range> ranges;
    std::vector<uint8_t> parity;
    const uint8_t* area = data + FIXED_SIZE;
    if (type == DATA || type == AGGREGATE)
    {
        values.resize(areaCount);
        if (!PayloadCodec::Decode(format, area, areaCount, values.data()))
        {
            NS_LOG_LOGIC("values not encoded as " << PayloadFormatToString(format) << " encodes");
            return 0;
        }
    }
    else if (type == NACK)
    {
        ranges.reserve(areaCount);
        for (uint16_t k = 0; k < areaCount; ++k)
        {
            uint32_t begin = GetU32(area + RANGE_BYTES * k);
            uint32_t end = GetU32(area + RANGE_BYTES * k + 4);
            if (begin >= end || end > chunkCount)
            {
                NS_LOG_LOGIC("bad NACK range [" << begin << "," << end << ")");
                return 0;
            }
            ranges.emplace_back(begin, end);
        }
    }
    else if (type == PARITY)
    {
        parity.assign(area, area + areaCount);
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
    m_format = HasFormat(type) ? format : PayloadFormat::FP32;
    m_values = std::move(values);
    m_ranges = std::move(ranges);
    m_parity = std::move(parity);
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
    NS_ASSERT_MSG(GetEpoch() <= MAX_EPOCH, "exclusion epoch " << GetEpoch() << " > " << MAX_EPOCH);
}

uint16_t
IslandSyncHeader::GetCliqueId() const
{
    return m_cliqueId;
}

void
IslandSyncHeader::SetCliqueIndex(uint16_t index)
{
    NS_ASSERT_MSG(index < MAX_CLIQUES, "clique index " << index << " >= " << MAX_CLIQUES);
    m_cliqueId = static_cast<uint16_t>((GetEpoch() << CLIQUE_BITS) | index);
}

uint16_t
IslandSyncHeader::GetCliqueIndex() const
{
    return m_cliqueId & (MAX_CLIQUES - 1);
}

void
IslandSyncHeader::SetEpoch(uint16_t epoch)
{
    NS_ASSERT_MSG(epoch <= MAX_EPOCH, "exclusion epoch " << epoch << " > " << MAX_EPOCH);
    m_cliqueId = static_cast<uint16_t>((epoch << CLIQUE_BITS) | GetCliqueIndex());
}

uint16_t
IslandSyncHeader::GetEpoch() const
{
    return m_cliqueId >> CLIQUE_BITS;
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
IslandSyncHeader::SetFormat(PayloadFormat format)
{
    m_format = format;
    PayloadCodec::Quantize(m_format, m_values);
}

PayloadFormat
IslandSyncHeader::GetFormat() const
{
    return m_format;
}

void
IslandSyncHeader::SetValues(std::vector<float> values)
{
    NS_ASSERT_MSG(values.size() <= UINT16_MAX &&
                      GetEncodedBytes(m_format, values.size()) <= MAX_SIZE - FIXED_SIZE,
                  "too many values for one header: " << values.size());
    m_values = std::move(values);
    PayloadCodec::Quantize(m_format, m_values);
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

void
IslandSyncHeader::SetParity(uint32_t blockChunks, std::vector<uint8_t> bytes)
{
    NS_ASSERT_MSG(blockChunks >= 1 && bytes.size() <= MAX_SIZE - FIXED_SIZE,
                  "a PARITY covers at least one chunk, in one datagram");
    m_valueOffset = blockChunks;
    m_parity = std::move(bytes);
}

uint32_t
IslandSyncHeader::GetBlockChunks() const
{
    return m_valueOffset;
}

const std::vector<uint8_t>&
IslandSyncHeader::GetParity() const
{
    return m_parity;
}

const std::vector<IslandSyncHeader::Range>&
IslandSyncHeader::GetRanges() const
{
    return m_ranges;
}

uint32_t
IslandSyncHeader::GetMaxValues(uint32_t payloadBytes, PayloadFormat format)
{
    // Whole chunk quanta (int8 blocks) of what the bytes hold, and of the value count's range.
    const uint64_t quantum = GetChunkQuantum(format);
    const uint64_t fit = GetValueCapacity(format, payloadBytes) / quantum * quantum;
    return static_cast<uint32_t>(std::min<uint64_t>(fit, UINT16_MAX / quantum * quantum));
}

} // namespace ns3
