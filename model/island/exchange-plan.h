/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef EXCHANGE_PLAN_H
#define EXCHANGE_PLAN_H

#include "clique-schedule.h"
#include "link-load-model.h"
#include "payload-format.h"

#include "ns3/ipv4-address.h"

#include <cstdint>
#include <map>
#include <utility>
#include <vector>

namespace ns3
{

class IslandSyncHeader;

/**
 * @ingroup wan-training
 * @brief What one island does in one schedule round: its clique, the algorithm the clique
 * exchanges with, the chunking of a contribution, the pacing rates, and (ring) the ring.
 *
 * ExchangePlanner builds every plan once, before the simulation, from the topology, the
 * schedule and the configuration; a plan never changes afterwards except by an exclusion,
 * which makes a new plan for the remaining members (ExchangePlanner::MakeViewPlan). A clique
 * uses one chunking for all of its members. A contribution is valueCount values encoded in the
 * payload format, modelBytes = GetEncodedBytes(format, valueCount) on the wire: the
 * parameterCount real values, then zeros (the padding, which the packets carry as the zero
 * bytes that encode zeros in every format). Chunk c carries chunkValues values from value
 * c x chunkValues (the last chunk the rest), a whole number of int8 blocks, so its payload is
 * the encoding of those values and its real values are the slice GetValueSlice gives (see
 * doc/wan-training.rst, "The island's exchange").
 */
struct ExchangePlan
{
    /**
     * @param chunk a chunk index (< chunkCount)
     * @return the chunk's model payload bytes (chunkBytes, the last chunk the rest)
     */
    uint32_t GetPayloadBytes(uint32_t chunk) const;
    /**
     * @param chunk a chunk index
     * @return the index of its first real value and its number of real values (the values
     *         of the parameter vector it carries; none for a chunk of padding only)
     */
    std::pair<uint32_t, uint32_t> GetValueSlice(uint32_t chunk) const;
    /**
     * @param chunk a chunk index
     * @return the bytes of its payload after the values GetValueSlice names: the encoded zeros
     *         of the padding, then (coarse frames) the headers of its other wire frames
     */
    uint32_t GetPaddingBytes(uint32_t chunk) const;
    /**
     * @param chunk a chunk index
     * @return the frames of the wire MTU it stands for (1 with exact frames; WireFrames)
     */
    uint32_t GetWireFrames(uint32_t chunk) const;
    /**
     * @param header a DATA or AGGREGATE header of this plan's clique
     * @param paddingBytes the payload bytes after it
     * @return whether it is laid out as this plan's chunk of its index: a chunk index below
     *         chunkCount, the chunk count, the format, the value offset (when it carries
     *         values), the value count and the padding
     */
    bool HasChunkLayout(const IslandSyncHeader& header, uint32_t paddingBytes) const;
    /**
     * @param chunk a chunk index
     * @return the bytes of the chunk's packet on a point-to-point link (PPP, IPv4, UDP and
     *         IslandSyncHeader headers and the payload; coarse frames: and the headers of its
     *         other wire frames), those of the real frames it stands for
     */
    uint32_t GetWireBytes(uint32_t chunk) const;
    /**
     * @return whether the island sends to the clique's multicast group (multicast and both
     *         modes, and the root in tree mode, in a clique of two or more)
     */
    bool SendsToGroup() const;
    /** @return the bitmap of the members (bit i: island i) */
    uint64_t GetMemberBits() const;
    /**
     * @param chunk a chunk index (< chunkCount; ring plans)
     * @return the ring segment holding it
     */
    uint32_t GetSegmentOfChunk(uint32_t chunk) const;

    CapabilityMode mode{CapabilityMode::UNICAST}; //!< the clique's exchange algorithm
    PayloadFormat format{PayloadFormat::FP32};    //!< the encoding of the values on the wire
    uint64_t modelBytes{0};                       //!< wire size of a contribution
    uint64_t valueCount{0};                       //!< values modelBytes encodes (with padding)
    uint32_t parameterCount{0};                   //!< real values carried in the chunks
    uint32_t island{0};                           //!< the island the plan is for
    uint32_t clique{CliqueSchedule::IDLE};        //!< clique index, IDLE when idle
    std::vector<uint32_t> members;                //!< clique members (empty when idle)
    uint32_t chunkValues{0};                      //!< values per chunk (the last: the rest)
    uint32_t chunkBytes{0};                       //!< model bytes per chunk: their encoding
    uint32_t chunkCount{0};                       //!< chunks per contribution
    uint32_t frameCapacity{0}; //!< model bytes of one wire frame (coarse frames; 0: exact)
    std::map<uint32_t, double> sendRateBps; //!< destination -> pacing rate
    std::map<uint32_t, double> recvRateBps; //!< source -> its pacing rate toward us
    Ipv4Address group;                      //!< multicast group we send to
    double groupRateBps{0};                 //!< pacing rate of our multicast stream
    std::vector<uint32_t> ring;             //!< ring mode: the members in ring order
    uint32_t ringPosition{0};               //!< ring mode: our index in ring
    uint32_t predecessor{0};                //!< ring mode: the member we receive from
    uint32_t successor{0};                  //!< ring mode: the member we send to
    std::vector<uint32_t> segmentFirst;     //!< ring mode: k + 1 segment bounds (chunks)
    uint32_t treeRoot{0};                   //!< tree mode: the member that sums and sends
    uint16_t epoch{0};    //!< exclusion epoch on the wire (ring: members excluded, a new ring)
    uint64_t excluded{0}; //!< members of the clique excluded (bitmap)
};

} // namespace ns3

#endif /* EXCHANGE_PLAN_H */
