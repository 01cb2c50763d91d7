/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef CONTRIBUTOR_SEQUENCE_H
#define CONTRIBUTOR_SEQUENCE_H

#include <cstdint>
#include <map>
#include <tuple>

namespace ns3
{

/**
 * @ingroup wan-training
 * @brief Where each contributor stands in its stream of chunks toward one FPGA port, to tell
 * a lost contribution from a late one.
 *
 * The path from a contributor to the port is FIFO and the contributor sends its chunks in
 * index order (repairs aside, which go back): a chunk of index c arriving after chunk p < c - 1
 * shows that chunks p+1 .. c-1 of the sender are lost. The first chunk of a sender seen in an
 * exchange shows nothing (a stream starts at chunk 0, but a sender forgotten with its round must
 * not look like a gap). AggregatorNetDevice uses it on edge ports ("A contribution known lost").
 *
 * Memory: one entry per (job, round, clique, sender) seen; a new round of a job forgets the
 * job's rounds two and more before it, and Forget() a whole job.
 */
class ContributorSequence
{
  public:
    /**
     * @brief Note a DATA chunk of a sender arriving.
     * @param job the job
     * @param round the round
     * @param clique the clique id
     * @param sender the sender's island
     * @param index the chunk index
     * @return the first chunk of the gap it shows (the sender's chunks from there to index are
     *         lost), or index when it shows none
     */
    uint32_t Note(uint16_t job, uint32_t round, uint16_t clique, uint16_t sender, uint32_t index);

    /**
     * @brief Forget every sender of a job.
     * @param job the job
     */
    void Forget(uint16_t job);

    /** @return the senders remembered (job, round, clique, sender) */
    std::size_t GetSize() const;

  private:
    /** (job, round, clique, sender): one contributor's stream of one clique exchange. */
    using SenderKey = std::tuple<uint16_t, uint32_t, uint16_t, uint16_t>;

    std::map<SenderKey, uint32_t> m_next; //!< next chunk expected of each sender
};

} // namespace ns3

#endif /* CONTRIBUTOR_SEQUENCE_H */
