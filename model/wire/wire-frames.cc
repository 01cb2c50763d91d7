/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "wire-frames.h"

#include "island-sync-header.h"
#include "sync-protocol.h"

namespace ns3
{

const uint32_t WireFrames::HEADER_BYTES = SyncProtocol::PPP_HEADER_BYTES +
                                          SyncProtocol::IP_UDP_HEADER_BYTES +
                                          IslandSyncHeader::FIXED_SIZE;

uint32_t
WireFrames::GetCapacity(uint32_t mtu, PayloadFormat format)
{
    const uint32_t headers = SyncProtocol::IP_UDP_HEADER_BYTES + IslandSyncHeader::FIXED_SIZE;
    if (mtu <= headers)
    {
        return 0;
    }
    return static_cast<uint32_t>(
        GetEncodedBytes(format, IslandSyncHeader::GetMaxValues(mtu - headers, format)));
}

uint32_t
WireFrames::GetCapacity(const WanTopology& topology, PayloadFormat format)
{
    return topology.GetFrameBytes() > 0 ? GetCapacity(topology.GetDefaultMtuBytes(), format) : 0;
}

uint32_t
WireFrames::GetFrames(uint64_t payloadBytes, uint32_t capacity)
{
    if (capacity == 0 || payloadBytes <= capacity)
    {
        return 1;
    }
    return static_cast<uint32_t>((payloadBytes + capacity - 1) / capacity);
}

uint32_t
WireFrames::GetExtraHeaderBytes(uint32_t frames)
{
    return frames > 1 ? (frames - 1) * HEADER_BYTES : 0;
}

uint32_t
WireFrames::GetFramesOfMessage(uint32_t bytesAfterFixedHeader, uint32_t capacity)
{
    if (capacity == 0 || bytesAfterFixedHeader <= capacity)
    {
        return 1;
    }
    // f frames give (f - 1)(capacity + HEADER_BYTES) < bytes <= f (capacity + HEADER_BYTES) -
    // HEADER_BYTES.
    const uint64_t step = uint64_t{capacity} + HEADER_BYTES;
    return static_cast<uint32_t>((bytesAfterFixedHeader + step - 1) / step);
}

} // namespace ns3
