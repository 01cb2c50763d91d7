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
 * shares: the islands, the in-line FPGAs, the baseline and the trace decoders.
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
};

} // namespace ns3

#endif /* SYNC_PROTOCOL_H */
