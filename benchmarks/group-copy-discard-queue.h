/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef GROUP_COPY_DISCARD_QUEUE_H
#define GROUP_COPY_DISCARD_QUEUE_H

#include "ns3/drop-tail-queue.h"
#include "ns3/packet.h"

#include <cstdint>

namespace ns3
{

/**
 * @ingroup wan-training
 * @brief The baseline's stand-in for an in-line FPGA that absorbs a group's copies: a
 * point-to-point device's FIFO that refuses every IPv4 multicast packet and queues the rest
 * as DropTailQueue does.
 *
 * In both mode our router forwards every copy of a group to its island's port, where the
 * FPGA absorbs it. With this queue on the same port the plain-ns-3 baseline keeps the same
 * multicast routes: the router replicates and forwards each copy onto the port as ours does,
 * and the copy ends where ours ends, before the wire, while the unicast aggregates the
 * baseline's router sends to its island pass. A refused copy is counted here, not as a drop
 * of the queue (benchmarks/README.md, "The plain-ns-3 baseline").
 *
 * The packets reach a point-to-point device's queue with their PPP header in front of the
 * IPv4 header; the queue reads the destination address from it.
 */
class GroupCopyDiscardQueue : public DropTailQueue<Packet>
{
  public:
    /**
     * @brief Get the type ID.
     * @return the object TypeId
     */
    static TypeId GetTypeId();

    GroupCopyDiscardQueue();
    ~GroupCopyDiscardQueue() override;

    /**
     * @brief Queue a packet, unless it is an IPv4 multicast packet (then discard it).
     * @param item a PPP frame
     * @return true if the packet was queued
     */
    bool Enqueue(Ptr<Packet> item) override;

    /** @return the multicast packets discarded so far */
    uint64_t GetDiscardedPackets() const;

    /** The bytes of the PPP header before the IPv4 header. */
    static constexpr uint32_t PPP_HEADER_BYTES = 2;
    /** The offset of the destination address in the IPv4 header. */
    static constexpr uint32_t IPV4_DESTINATION_OFFSET = 16;

  private:
    uint64_t m_discarded{0}; //!< multicast packets discarded
};

} // namespace ns3

#endif /* GROUP_COPY_DISCARD_QUEUE_H */
