/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "exchange-plan.h"

#include "island-sync-header.h"
#include "sync-protocol.h"
#include "wire-frames.h"

#include <algorithm>

namespace ns3
{

uint32_t
ExchangePlan::GetPayloadBytes(uint32_t chunk) const
{
    if (chunk + 1 < chunkCount)
    {
        return chunkBytes;
    }
    return static_cast<uint32_t>(modelBytes - uint64_t{chunkBytes} * (chunkCount - 1));
}

std::pair<uint32_t, uint32_t>
ExchangePlan::GetValueSlice(uint32_t chunk) const
{
    const uint64_t offset = uint64_t{chunk} * chunkValues;
    if (offset >= parameterCount)
    {
        return {0, 0};
    }
    const uint64_t values = chunk + 1 < chunkCount ? chunkValues : valueCount - offset;
    const uint64_t count = std::min<uint64_t>(parameterCount - offset, values);
    return {static_cast<uint32_t>(offset), static_cast<uint32_t>(count)};
}

uint32_t
ExchangePlan::GetPaddingBytes(uint32_t chunk) const
{
    return GetPayloadBytes(chunk) -
           static_cast<uint32_t>(GetEncodedBytes(format, GetValueSlice(chunk).second)) +
           WireFrames::GetExtraHeaderBytes(GetWireFrames(chunk));
}

uint32_t
ExchangePlan::GetWireFrames(uint32_t chunk) const
{
    return WireFrames::GetFrames(GetPayloadBytes(chunk), frameCapacity);
}

bool
ExchangePlan::HasChunkLayout(const IslandSyncHeader& header, uint32_t paddingBytes) const
{
    const uint32_t chunk = header.GetChunkIndex();
    if (chunk >= chunkCount || header.GetChunkCount() != chunkCount || header.GetFormat() != format)
    {
        return false;
    }
    auto [offset, count] = GetValueSlice(chunk);
    return header.GetValues().size() == count &&
           (count == 0 || header.GetValueOffset() == offset) &&
           paddingBytes == GetPaddingBytes(chunk);
}

uint32_t
ExchangePlan::GetWireBytes(uint32_t chunk) const
{
    return WireFrames::HEADER_BYTES + GetPayloadBytes(chunk) +
           WireFrames::GetExtraHeaderBytes(GetWireFrames(chunk));
}

bool
ExchangePlan::SendsToGroup() const
{
    return UsesMulticast(mode) && members.size() >= 2 &&
           (mode != CapabilityMode::TREE || island == treeRoot);
}

uint64_t
ExchangePlan::GetMemberBits() const
{
    uint64_t bits = 0;
    for (uint32_t member : members)
    {
        bits |= uint64_t{1} << member;
    }
    return bits;
}

uint32_t
ExchangePlan::GetSegmentOfChunk(uint32_t chunk) const
{
    auto it = std::upper_bound(segmentFirst.begin(), segmentFirst.end(), chunk);
    return static_cast<uint32_t>(std::distance(segmentFirst.begin(), it)) - 1;
}

} // namespace ns3
