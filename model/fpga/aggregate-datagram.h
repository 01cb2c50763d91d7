/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AGGREGATE_DATAGRAM_H
#define AGGREGATE_DATAGRAM_H

#include "island-sync-header.h"

#include "ns3/ipv4-address.h"
#include "ns3/packet.h"
#include "ns3/ptr.h"

#include <cstdint>

namespace ns3
{

/**
 * @ingroup wan-training
 * @brief The IPv4 datagram an in-line FPGA sends: a sync header (an AGGREGATE) and its zero
 * padding in UDP from and to the sync port, in IPv4 from the router's address on the port's link
 * (or, for a NACK the FPGA answered in part, the NACK rebuilt with the island's addresses).
 *
 * The device hands it to the point-to-point layer below IPv4, so it carries every header a
 * router's IPv4 would have added; UDP and IPv4 checksums as Node::ChecksumEnabled() says.
 */
class AggregateDatagram
{
  public:
    /** TTL of the aggregates' IPv4 header. */
    static constexpr uint8_t TTL = 64;

    /**
     * @param header the sync header
     * @param paddingBytes the zero bytes after it
     * @param source the IPv4 source (the router's address on the port's link)
     * @param destination the IPv4 destination (the island, or the tree's root)
     * @param port the UDP source and destination port
     * @param identification the IPv4 identification
     * @param ttl the IPv4 TTL
     * @return the datagram
     */
    static Ptr<Packet> Build(const IslandSyncHeader& header,
                             uint32_t paddingBytes,
                             Ipv4Address source,
                             Ipv4Address destination,
                             uint16_t port,
                             uint16_t identification,
                             uint8_t ttl = TTL);
};

} // namespace ns3

#endif /* AGGREGATE_DATAGRAM_H */
