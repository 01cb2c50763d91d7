/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef WIRE_FRAMES_H
#define WIRE_FRAMES_H

#include "payload-format.h"
#include "wan-topology.h"

#include <cstdint>

namespace ns3
{

/**
 * @ingroup wan-training
 * @brief The wire accounting of coarse simulation frames: how many frames of the real MTU a
 * chunk stands for, and the header bytes those frames add.
 *
 * With coarse frames (WanTopology::GetFrameBytes) a DATA or AGGREGATE chunk is one simulated
 * packet of up to ~64 KB of model bytes, while the wire it models carries the same model bytes
 * in frames of the real MTU, each with its own PPP, IPv4, UDP and IslandSyncHeader headers
 * (HEADER_BYTES). The simulated packet carries the headers of its other frames as zero bytes
 * after its payload, so its size on a point-to-point link, the link's occupancy and the bytes
 * a pcap sees are those of the real frames: a chunk of frames f carries
 * GetExtraHeaderBytes(f) = (f - 1) x HEADER_BYTES of them. A real frame carries
 * GetCapacity(mtu, format) model bytes (whole int8 blocks), so a chunk of payload p takes
 * GetFrames(p, capacity) frames, and since a coarse message's size grows with p without two
 * frame counts giving the same size, the frame count is read back from the message's size
 * alone (GetFramesOfMessage): what the recorder, the trace decoders and the dissector do.
 * See doc/wan-training.rst, "Coarse frames".
 */
struct WireFrames
{
    /** Bytes around each real frame's payload: PPP, IPv4, UDP and the fixed sync header. */
    static const uint32_t HEADER_BYTES;

    /**
     * @param mtu the real IP MTU
     * @param format the payload format
     * @return the model bytes one real frame carries: the encoding of the most values (int8:
     *         whole blocks) that fit after the IPv4, UDP and fixed sync headers (0 when not one
     *         value, or one block, fits)
     */
    static uint32_t GetCapacity(uint32_t mtu, PayloadFormat format);

    /**
     * @param topology a WAN
     * @param format the payload format
     * @return the model bytes of one wire frame of its chunks: GetCapacity of its one MTU with
     *         coarse frames (WanTopology::GetFrameBytes), 0 with exact frames (a chunk is one
     *         frame)
     */
    static uint32_t GetCapacity(const WanTopology& topology, PayloadFormat format);

    /**
     * @param payloadBytes a chunk's model bytes (values and padding, no headers)
     * @param capacity the model bytes of one real frame (GetCapacity; 0: exact frames, one per
     *        chunk)
     * @return the real frames the chunk takes (at least 1)
     */
    static uint32_t GetFrames(uint64_t payloadBytes, uint32_t capacity);

    /**
     * @param frames the real frames a chunk stands for (at least 1)
     * @return the header bytes of all but the first, which the simulated packet carries as
     *         zero bytes after its payload
     */
    static uint32_t GetExtraHeaderBytes(uint32_t frames);

    /**
     * @param bytesAfterFixedHeader the UDP payload bytes of a DATA or AGGREGATE message after
     *        its fixed sync header (model bytes plus the extra header bytes)
     * @param capacity the model bytes of one real frame (GetCapacity; 0: exact frames)
     * @return the real frames the message stands for: the one frame count f whose chunks of
     *         ((f - 1) x capacity, f x capacity] model bytes give that size
     */
    static uint32_t GetFramesOfMessage(uint32_t bytesAfterFixedHeader, uint32_t capacity);
};

} // namespace ns3

#endif /* WIRE_FRAMES_H */
