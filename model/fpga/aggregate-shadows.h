/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AGGREGATE_SHADOWS_H
#define AGGREGATE_SHADOWS_H

#include "island-sync-header.h"

#include "ns3/ipv4-address.h"
#include "ns3/nstime.h"
#include "ns3/packet.h"
#include "ns3/ptr.h"

#include <cstdint>
#include <tuple>
#include <vector>

namespace ns3
{

/**
 * @ingroup wan-training
 * @brief The shadow copies an FPGA port keeps of the aggregates it sent to its island, so that
 * a lost aggregate is served again from the port instead of being rebuilt from the contributors
 * (SwitchML's shadow copy).
 *
 * Memory: at most `capacity` aggregates in a ring, the oldest overwritten first (an island asks
 * for a lost aggregate as soon as a later one names every contributor, so the newest ones are
 * those asked for). Each copy shares its bytes with the datagram that was sent (Packet::Copy).
 * Keeping a copy costs no search; a NACK (rare) scans the ring.
 *
 * **Answering a NACK** (AnswerNack). A NACK from the island asks some contributors (its bitmap) for
 * chunk ranges. A chunk whose shadow holds every contributor the NACK addresses is answered
 * here: the shadow is served once (its datagram goes to the island again) and the chunk is
 * taken out of the NACK, so the contributors are not asked. The island sends a NACK to each
 * contributor it lacks (and RepairCopies copies of each), all crossing the shadow on their way:
 * for a `holdoff` after the shadow was served (the time the served copy needs to reach the
 * island plus the time a NACK sent before then needs to come back), the chunk is still taken
 * out of the NACKs without serving it again. A NACK of the chunk after the holdoff means the
 * served copy did not help (it was lost too, or the island holds part of the aggregate from
 * elsewhere, and a sum cannot be split): the shadow is forgotten and the NACK goes on to the
 * contributors, whose repairs pass the closed chunk to the island. So every chunk is asked of
 * the contributors at most one repair wait later than without shadows, and never endlessly of
 * the port.
 */
class AggregateShadows
{
  public:
    /** (job, round, clique, chunk): one chunk of one clique exchange. */
    using ChunkKey = std::tuple<uint16_t, uint32_t, uint16_t, uint32_t>;

    /**
     * NACK ranges that fit the 576-byte datagram every IPv4 path carries (RFC 791): a NACK
     * answered in part may grow to this many ranges, or as many as it had.
     */
    static constexpr uint32_t MIN_PATH_RANGES =
        (576 - 20 - 8 - IslandSyncHeader::FIXED_SIZE) / IslandSyncHeader::RANGE_BYTES;

    /** What a NACK got from the shadows. */
    struct Answer
    {
        std::vector<Ptr<Packet>> serve;              //!< datagrams to send to the island now
        std::vector<IslandSyncHeader::Range> ranges; //!< what the contributors are still asked
        uint32_t answered{0};                        //!< chunks taken out of the NACK
    };

    /**
     * @brief Set the number of copies kept (0: none; the oldest beyond it are forgotten).
     * @param capacity the number of copies
     */
    void SetCapacity(uint32_t capacity);
    /** @return the number of copies kept at most */
    uint32_t GetCapacity() const;

    /**
     * @brief Keep a copy of an aggregate sent to the island (replaces one of the same chunk).
     * @param key its chunk
     * @param contributors its contributor bitmap
     * @param datagram the IPv4 datagram sent (copied)
     */
    void Keep(const ChunkKey& key, uint64_t contributors, Ptr<const Packet> datagram);

    /**
     * @brief Answer a NACK from the island (see the class documentation).
     * @param nack the NACK (job, round, clique, addressed bitmap, ranges)
     * @param now the time
     * @param holdoff how long after a shadow is served NACKs of its chunk are taken for ones
     *        that crossed it
     * @return what to serve and what to ask of the contributors
     */
    Answer AnswerNack(const IslandSyncHeader& nack, Time now, Time holdoff);

    /** What a NACK datagram got from the shadows. */
    struct DatagramAnswer
    {
        std::vector<Ptr<Packet>> serve; //!< datagrams to send to the island now
        /** what goes on: the NACK, the NACK rewritten without the chunks answered (same IPv4
         *  addresses, identification and TTL), or nullptr when every chunk was answered */
        Ptr<const Packet> forward;
        uint32_t answered{0}; //!< chunks taken out of the NACK
    };

    /**
     * @brief Answer a NACK datagram from the island (AnswerNack on its header).
     * @param datagram an IPv4 datagram arriving from the island (anything else goes on as is)
     * @param island the island's address (only its NACKs are answered)
     * @param port the sync UDP port
     * @param now the time
     * @param holdoff see AnswerNack
     * @return what to serve and what goes on
     */
    DatagramAnswer AnswerDatagram(Ptr<const Packet> datagram,
                                  Ipv4Address island,
                                  uint16_t port,
                                  Time now,
                                  Time holdoff);

    /** @return the copies held */
    std::size_t GetSize() const;
    /** @return whether no copy is held */
    bool IsEmpty() const;

  private:
    /** One shadow copy. */
    struct Shadow
    {
        ChunkKey key;             //!< its chunk
        uint64_t contributors{0}; //!< the aggregate's contributor bitmap
        Ptr<Packet> datagram;     //!< the aggregate's IPv4 datagram (null: no copy here)
        bool served{false};       //!< whether it was served again
        Time heldUntil;           //!< served: until when NACKs of its chunk crossed it
    };

    uint32_t m_capacity{0};     //!< copies kept at most
    std::vector<Shadow> m_ring; //!< the copies, overwritten oldest first
    std::size_t m_next{0};      //!< the place of the next copy in m_ring
    std::size_t m_size{0};      //!< copies held
};

} // namespace ns3

#endif /* AGGREGATE_SHADOWS_H */
