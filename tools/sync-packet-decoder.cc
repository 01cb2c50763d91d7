/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "sync-packet-decoder.h"

#include "payload-codec.h"
#include "wire-frames.h"

#include "ns3/log.h"

#include <algorithm>
#include <bitset>
#include <cstring>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("WanTrainingSyncPacketDecoder");

namespace
{

/**
 * @param p two bytes
 * @return them as a big-endian number
 */
uint16_t
ReadU16(const uint8_t* p)
{
    return static_cast<uint16_t>((p[0] << 8) | p[1]);
}

/**
 * @param p four bytes
 * @return them as a big-endian number
 */
uint32_t
ReadU32(const uint8_t* p)
{
    return (uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | p[3];
}

/**
 * @param p eight bytes
 * @return them as a big-endian number
 */
uint64_t
ReadU64(const uint8_t* p)
{
    return (uint64_t{ReadU32(p)} << 32) | ReadU32(p + 4);
}

/**
 * @param p bytes
 * @param size how many (even)
 * @return whether their Internet checksum (RFC 1071) verifies: the one's complement sum of
 *         the 16-bit words is 0xffff
 */
bool
ChecksumVerifies(const uint8_t* p, uint32_t size)
{
    uint32_t sum = 0;
    for (uint32_t i = 0; i + 1 < size; i += 2)
    {
        sum += ReadU16(p + i);
    }
    if (size % 2 == 1)
    {
        sum += uint32_t{p[size - 1]} << 8;
    }
    while (sum >> 16)
    {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    return sum == 0xffff;
}

/**
 * @brief Decode the values of a value area as far as the capture holds them (an int8 value
 * needs its block's scale and its code).
 * @param format the payload format number (known)
 * @param area the value area
 * @param captured how many of its bytes were captured
 * @param count the value count
 * @return the decoded values, in order, up to the first one not captured
 */
std::vector<float>
DecodeCapturedValues(uint8_t format, const uint8_t* area, uint32_t captured, uint32_t count)
{
    std::vector<float> values;
    if (format == SyncPacketDecoder::FORMAT_INT8)
    {
        for (uint32_t first = 0, at = 0; first < count && at + INT8_SCALE_BYTES <= captured;
             first += INT8_BLOCK_VALUES)
        {
            const uint32_t bits = ReadU32(area + at);
            float scale;
            std::memcpy(&scale, &bits, sizeof(scale));
            at += INT8_SCALE_BYTES;
            const uint32_t n = std::min(INT8_BLOCK_VALUES, count - first);
            for (uint32_t k = 0; k < n && at < captured; ++k, ++at)
            {
                values.push_back(static_cast<float>(static_cast<int8_t>(area[at])) * scale);
            }
        }
        return values;
    }
    const uint32_t valueBytes = format == SyncPacketDecoder::FORMAT_BF16 ? 2 : 4;
    for (uint32_t k = 0; k < count && valueBytes * (k + 1) <= captured; ++k)
    {
        const uint8_t* item = area + valueBytes * k;
        if (valueBytes == 2)
        {
            values.push_back(PayloadCodec::DecodeBf16(ReadU16(item)));
            continue;
        }
        const uint32_t bits = ReadU32(item);
        float value;
        std::memcpy(&value, &bits, sizeof(value));
        values.push_back(value);
    }
    return values;
}

} // namespace

uint32_t
SyncHeaderFields::GetAreaBytes() const
{
    if (type == SyncPacketDecoder::TYPE_NACK)
    {
        return 8u * areaCount;
    }
    if (type == SyncPacketDecoder::TYPE_PARITY)
    {
        return areaCount;
    }
    if (type == SyncPacketDecoder::TYPE_DATA || type == SyncPacketDecoder::TYPE_AGGREGATE)
    {
        return static_cast<uint32_t>(
            GetEncodedBytes(static_cast<PayloadFormat>(format), areaCount));
    }
    return 0;
}

uint16_t
SyncHeaderFields::GetCliqueIndex() const
{
    return cliqueId & ((1u << SyncPacketDecoder::SYNC_CLIQUE_BITS) - 1);
}

uint16_t
SyncHeaderFields::GetEpoch() const
{
    return cliqueId >> SyncPacketDecoder::SYNC_CLIQUE_BITS;
}

bool
DecodedSyncPacket::IsSync() const
{
    return sync == VALID;
}

bool
DecodedSyncPacket::IsMulticast() const
{
    return hasIpv4Addresses && (destination >> 28) == 0xe;
}

SyncPacketDecoder::SyncPacketDecoder(uint16_t port)
    : m_port(port)
{
    NS_LOG_FUNCTION(this << port);
}

void
SyncPacketDecoder::SetWireMtu(uint32_t mtu)
{
    m_wireMtu = mtu;
}

uint32_t
SyncPacketDecoder::GetWireMtu() const
{
    return m_wireMtu;
}

uint16_t
SyncPacketDecoder::GetPort() const
{
    return m_port;
}

const char*
SyncPacketDecoder::FormatToString(uint8_t format)
{
    static const char* const names[] = {"fp32", "bf16", "int8"}; // by PayloadFormat
    return format <= FORMAT_INT8 ? names[format] : "unknown";
}

const char*
SyncPacketDecoder::TypeToString(uint8_t type)
{
    switch (type)
    {
    case TYPE_DATA:
        return "data";
    case TYPE_AGGREGATE:
        return "aggregate";
    case TYPE_NACK:
        return "nack";
    case TYPE_DONE:
        return "done";
    case TYPE_READY:
        return "ready";
    case TYPE_READY_ASK:
        return "ready-ask";
    case TYPE_VIEW:
        return "view";
    case TYPE_PARITY:
        return "parity";
    default:
        return "unknown";
    }
}

DecodedSyncPacket
SyncPacketDecoder::Decode(const uint8_t* data,
                          uint32_t capturedBytes,
                          uint32_t wireBytes,
                          bool withValues) const
{
    DecodedSyncPacket d;
    d.wireBytes = wireBytes;
    d.capturedBytes = capturedBytes;
    // What can be trusted: the captured bytes, never more than the wire held.
    const uint32_t cap = std::min(capturedBytes, wireBytes);
    if (data == nullptr || cap < PPP_HEADER_BYTES)
    {
        return d;
    }
    d.hasPpp = true;
    d.pppProtocol = ReadU16(data);
    if (d.pppProtocol != PPP_IPV4)
    {
        return d;
    }

    // IPv4: version, header length, fragment offset, protocol, addresses.
    const uint8_t* ip = data + PPP_HEADER_BYTES;
    const uint32_t ipCap = cap - PPP_HEADER_BYTES;
    const uint32_t ipWire = wireBytes - PPP_HEADER_BYTES;
    if (ipCap < 20 || (ip[0] >> 4) != 4 || (ip[0] & 0x0f) < 5)
    {
        return d;
    }
    d.ipHeaderBytes = (ip[0] & 0x0f) * 4u;
    d.identification = ReadU16(ip + 4);
    d.isFragment = (ReadU16(ip + 6) & 0x1fff) != 0;
    d.ttl = ip[8];
    d.ipProtocol = ip[9];
    d.source = ReadU32(ip + 12);
    d.destination = ReadU32(ip + 16);
    d.hasIpv4Addresses = true;
    if (d.ipProtocol != IP_UDP || d.isFragment || ipCap < d.ipHeaderBytes + UDP_HEADER_BYTES ||
        ipWire < d.ipHeaderBytes + UDP_HEADER_BYTES)
    {
        return d;
    }

    // UDP.
    const uint8_t* udp = ip + d.ipHeaderBytes;
    d.hasUdp = true;
    d.sourcePort = ReadU16(udp);
    d.destinationPort = ReadU16(udp + 2);
    if (d.destinationPort != m_port)
    {
        return d;
    }

    // The sync message: measured on the wire, read from the capture.
    const uint8_t* s = udp + UDP_HEADER_BYTES;
    const uint32_t sCap = ipCap - d.ipHeaderBytes - UDP_HEADER_BYTES;
    const uint32_t sWire = ipWire - d.ipHeaderBytes - UDP_HEADER_BYTES;
    d.syncBytes = sWire;
    if (sWire < SYNC_FIXED_BYTES)
    {
        d.sync = DecodedSyncPacket::INVALID;
        d.invalidReason = "datagram shorter than the fixed header";
        return d;
    }
    if (sCap < SYNC_FIXED_BYTES)
    {
        d.sync = DecodedSyncPacket::TRUNCATED;
        return d;
    }
    SyncHeaderFields& h = d.header;
    h.magic = ReadU16(s);
    h.version = s[2];
    h.type = s[3] & 0x0f;
    h.format = s[3] >> 4;
    h.jobId = ReadU16(s + 4);
    h.sender = ReadU16(s + 6);
    h.round = ReadU32(s + 8);
    h.cliqueId = ReadU16(s + 12);
    h.contributorCount = ReadU16(s + 14);
    h.chunkIndex = ReadU32(s + 16);
    h.chunkCount = ReadU32(s + 20);
    h.contributors = ReadU64(s + 24);
    h.valueOffset = ReadU32(s + 32);
    h.areaCount = ReadU16(s + 36);
    h.checksum = ReadU16(s + 38);

    d.sync = DecodedSyncPacket::INVALID;
    if (h.magic != SYNC_MAGIC)
    {
        d.invalidReason = "bad magic";
        return d;
    }
    if (h.version != SYNC_VERSION)
    {
        d.invalidReason = "unknown version";
        return d;
    }
    if (h.type < TYPE_DATA || h.type > TYPE_PARITY)
    {
        d.invalidReason = "unknown type";
        return d;
    }
    const bool hasValues = h.type == TYPE_DATA || h.type == TYPE_AGGREGATE;
    if (h.format > FORMAT_INT8 || (h.format != FORMAT_FP32 && !hasValues && h.type != TYPE_PARITY))
    {
        d.invalidReason = "unknown format, or a format on a message without values";
        return d;
    }
    if (h.sender >= SYNC_MAX_ISLANDS || h.contributors == 0 ||
        h.contributorCount != std::bitset<64>(h.contributors).count())
    {
        d.invalidReason = "bad sender or contributors";
        return d;
    }
    if (h.GetEpoch() > SYNC_MAX_EPOCH)
    {
        d.invalidReason = "bad epoch";
        return d;
    }
    uint32_t areaBytes = 0;
    if (h.type == TYPE_DATA || h.type == TYPE_AGGREGATE)
    {
        if (h.chunkIndex >= h.chunkCount ||
            static_cast<uint64_t>(h.valueOffset) + h.areaCount > UINT32_MAX ||
            (h.type == TYPE_DATA && h.contributors != (uint64_t{1} << h.sender)))
        {
            d.invalidReason = "bad chunk index, value range or DATA contributor";
            return d;
        }
        if (h.format == FORMAT_INT8 && h.valueOffset % INT8_BLOCK_VALUES != 0)
        {
            d.invalidReason = "int8 value offset not on a block boundary";
            return d;
        }
        areaBytes = h.GetAreaBytes();
    }
    else if (h.type == TYPE_NACK)
    {
        if (h.chunkCount == 0 || h.areaCount == 0)
        {
            d.invalidReason = "empty NACK";
            return d;
        }
        areaBytes = h.GetAreaBytes();
    }
    else if (h.type == TYPE_PARITY)
    {
        if (h.valueOffset == 0 || h.chunkIndex >= h.chunkCount ||
            h.valueOffset > h.chunkCount - h.chunkIndex ||
            h.contributors != (uint64_t{1} << h.sender))
        {
            d.invalidReason = "bad PARITY block or contributor";
            return d;
        }
        areaBytes = h.GetAreaBytes();
    }
    else if (h.areaCount != 0)
    {
        d.invalidReason = "DONE, READY, READY_ASK or VIEW with a value area";
        return d;
    }
    const uint32_t size = SYNC_FIXED_BYTES + areaBytes;
    if (size > sWire || size > 65535)
    {
        d.invalidReason = "value area larger than the datagram";
        return d;
    }
    if (size <= sCap)
    {
        if (!ChecksumVerifies(s, size))
        {
            d.checksum = DecodedSyncPacket::BAD;
            d.invalidReason = "bad checksum";
            return d;
        }
        d.checksum = DecodedSyncPacket::GOOD;
        // Every fp32 area decodes; a bf16 or int8 area must be what PayloadCodec writes.
        std::vector<float> decoded(hasValues && h.format != FORMAT_FP32 ? h.areaCount : 0);
        if (!decoded.empty() && !PayloadCodec::Decode(static_cast<PayloadFormat>(h.format),
                                                      s + SYNC_FIXED_BYTES,
                                                      h.areaCount,
                                                      decoded.data()))
        {
            d.invalidReason = "values not encoded as their format encodes";
            return d;
        }
        if (h.type == TYPE_NACK)
        {
            for (uint32_t k = 0; k < h.areaCount; ++k)
            {
                uint32_t begin = ReadU32(s + SYNC_FIXED_BYTES + 8 * k);
                uint32_t end = ReadU32(s + SYNC_FIXED_BYTES + 8 * k + 4);
                if (begin >= end || end > h.chunkCount)
                {
                    d.invalidReason = "bad NACK range";
                    return d;
                }
            }
        }
    }
    d.sync = DecodedSyncPacket::VALID;
    d.invalidReason = "";
    if (h.type == TYPE_DATA || h.type == TYPE_AGGREGATE || h.type == TYPE_PARITY)
    {
        const uint32_t after = sWire - SYNC_FIXED_BYTES;
        const uint32_t capacity =
            m_wireMtu > 0 ? WireFrames::GetCapacity(m_wireMtu, static_cast<PayloadFormat>(h.format))
                          : 0;
        d.wireFrames = WireFrames::GetFramesOfMessage(after, capacity);
        // A PARITY stands for as many wire frames as a chunk, but carries no model bytes.
        d.modelBytes =
            h.type == TYPE_PARITY ? 0 : after - WireFrames::GetExtraHeaderBytes(d.wireFrames);
    }
    if (withValues && hasValues)
    {
        d.values = DecodeCapturedValues(h.format,
                                        s + SYNC_FIXED_BYTES,
                                        std::min(sCap, size) - SYNC_FIXED_BYTES,
                                        h.areaCount);
    }
    else if (withValues && h.type == TYPE_NACK)
    {
        const uint32_t captured = std::min<uint32_t>(h.areaCount, (sCap - SYNC_FIXED_BYTES) / 8);
        for (uint32_t k = 0; k < captured; ++k)
        {
            const uint8_t* item = s + SYNC_FIXED_BYTES + 8 * k;
            d.ranges.emplace_back(ReadU32(item), ReadU32(item + 4));
        }
    }
    return d;
}

} // namespace ns3
