/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef SYNC_PROTOCOL_H
#define SYNC_PROTOCOL_H

#include <cstdint>

namespace ns3
{

/**
 * @ingroup wan-training
 * @brief The constants of the island synchronization protocol that every party on the wire
 * shares: the islands, the in-line FPGAs, the baseline and the trace decoders; and its network
 * byte order, for the header and its payload codec.
 *
 * The message layout itself is IslandSyncHeader's; this names the transport around it.
 */
struct SyncProtocol
{
    /** The module's UDP port for island synchronization. */
    static constexpr uint16_t DEFAULT_PORT = 9477;
    /** Bytes of the IPv4 (no options) and UDP headers of every sync packet. */
    static constexpr uint32_t IP_UDP_HEADER_BYTES = 28;
    /** Bytes of the PPP header on every point-to-point link. */
    static constexpr uint32_t PPP_HEADER_BYTES = 2;
    /**
     * The file of a directory of captures (one pcap per device) that says how its frames are
     * read: a JSON object with the wire MTU and the simulation frame (`mtu_bytes`,
     * `frame_bytes`; WireFrames). Without it the frames are exact.
     */
    static constexpr const char* CAPTURE_INFO_FILE = "capture.json";

    /**
     * @param p where to write
     * @param value a 16-bit value, written in network byte order
     */
    static void PutU16(uint8_t* p, uint16_t value)
    {
        p[0] = static_cast<uint8_t>(value >> 8);
        p[1] = static_cast<uint8_t>(value);
    }

    /**
     * @param p where to write
     * @param value a 32-bit value, written in network byte order
     */
    static void PutU32(uint8_t* p, uint32_t value)
    {
        PutU16(p, static_cast<uint16_t>(value >> 16));
        PutU16(p + 2, static_cast<uint16_t>(value));
    }

    /**
     * @param p where to read
     * @return the 16-bit value in network byte order there
     */
    static uint16_t GetU16(const uint8_t* p)
    {
        return static_cast<uint16_t>((p[0] << 8) | p[1]);
    }

    /**
     * @param p where to read
     * @return the 32-bit value in network byte order there
     */
    static uint32_t GetU32(const uint8_t* p)
    {
        return (uint32_t{GetU16(p)} << 16) | GetU16(p + 2);
    }
};

} // namespace ns3

#endif /* SYNC_PROTOCOL_H */
