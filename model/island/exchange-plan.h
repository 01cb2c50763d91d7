/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef EXCHANGE_PLAN_H
#define EXCHANGE_PLAN_H

#include "clique-schedule.h"
#include "link-load-model.h"

#include "ns3/ipv4-address.h"

#include <cstdint>
#include <map>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * @ingroup wan-training
 * @brief What one island does in one schedule round: its clique, the algorithm the clique
 * exchanges with, the chunking of a contribution, the pacing rates, and (ring) the ring.
 *
 * ExchangePlanner builds every plan once, before the simulation, from the topology, the
 * schedule and the configuration; a plan never changes afterwards except by an exclusion,
 * which makes a new plan for the remaining members (ExchangePlanner::MakeViewPlan). A clique
 * uses one chunking for all of its members. The model's byte layout is the parameterCount
 * float32 values followed by zero padding up to modelBytes; chunk c carries the slice of the
 * values given by GetValueSlice (see doc/wan-training.rst, "The island's exchange").
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
     * @return the index of its first value and its number of values
     */
    std::pair<uint32_t, uint32_t> GetValueSlice(uint32_t chunk) const;
    /**
     * @param chunk a chunk index
     * @return the bytes of the chunk's packet on a point-to-point link (PPP, IPv4, UDP and
     *         IslandSyncHeader headers and the payload)
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
    uint64_t modelBytes{0};                       //!< wire size of a contribution
    uint32_t parameterCount{0};                   //!< float32 values carried in the chunks
    uint32_t island{0};                           //!< the island the plan is for
    uint32_t clique{CliqueSchedule::IDLE};        //!< clique index, IDLE when idle
    std::vector<uint32_t> members;                //!< clique members (empty when idle)
    uint32_t chunkBytes{0};                       //!< model bytes per chunk
    uint32_t chunkCount{0};                       //!< chunks per contribution
    std::map<uint32_t, double> sendRateBps;       //!< destination -> pacing rate
    std::map<uint32_t, double> recvRateBps;       //!< source -> its pacing rate toward us
    Ipv4Address group;                            //!< multicast group we send to
    double groupRateBps{0};                       //!< pacing rate of our multicast stream
    std::vector<uint32_t> ring;                   //!< ring mode: the members in ring order
    uint32_t ringPosition{0};                     //!< ring mode: our index in ring
    uint32_t predecessor{0};                      //!< ring mode: the member we receive from
    uint32_t successor{0};                        //!< ring mode: the member we send to
    std::vector<uint32_t> segmentFirst;           //!< ring mode: k + 1 segment bounds (chunks)
    uint32_t treeRoot{0};                         //!< tree mode: the member that sums and sends
    uint16_t epoch{0};    //!< exclusion epoch on the wire (ring: members excluded, a new ring)
    uint64_t excluded{0}; //!< members of the clique excluded (bitmap)
};

} // namespace ns3

#endif /* EXCHANGE_PLAN_H */
