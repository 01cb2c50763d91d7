/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef CHUNK_RANGE_SET_H
#define CHUNK_RANGE_SET_H

#include <boost/container/flat_map.hpp>
#include <cstdint>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * @ingroup wan-training
 * @brief A set of chunk indices stored as disjoint half-open intervals [begin, end).
 *
 * The transport tracks which chunks of a stream are held, and which are still to be sent,
 * with this set: its memory grows with the number of gaps (losses), not with the number of
 * chunks, so a 1 GB model of about 112k chunks costs a few intervals when nothing is lost.
 * Adjacent and overlapping intervals are merged on insertion. The intervals are kept in a
 * boost::container::flat_map (a sorted vector): a stream holds few of them, and the per-chunk
 * operations (extend the last interval, pop the first, find the one holding an index) then touch
 * one contiguous array and allocate nothing (benchmarks/README.md, "Containers").
 */
class ChunkRangeSet
{
  public:
    /** A half-open interval of chunk indices [first, second). */
    using Range = std::pair<uint32_t, uint32_t>;

    ChunkRangeSet() = default;

    /**
     * @brief Add one chunk index.
     * @param index the chunk index
     * @return whether the index was absent before
     */
    bool Insert(uint32_t index);

    /**
     * @brief Add every index of [begin, end); an empty range adds nothing.
     * @param begin first index
     * @param end one past the last index
     */
    void Insert(uint32_t begin, uint32_t end);

    /**
     * @param index a chunk index
     * @return whether the set holds it
     */
    bool Contains(uint32_t index) const;

    /** @return whether the set is empty */
    bool IsEmpty() const;

    /** @return the number of indices held */
    uint64_t GetCount() const;

    /** @return the number of disjoint intervals */
    uint32_t GetNRanges() const;

    /**
     * @param count a number of chunks
     * @return whether the set holds every index of [0, count)
     */
    bool Covers(uint32_t count) const;

    /**
     * @brief Remove and return the smallest index.
     * @return the smallest index held; the set must not be empty
     */
    uint32_t PopFront();

    /**
     * @brief The indices of [0, count) that are not held, as intervals in increasing order.
     * @param count the number of chunks of the stream
     * @param maxRanges the largest number of intervals to return (the first ones)
     * @return the missing intervals
     */
    std::vector<Range> GetMissing(uint32_t count, uint32_t maxRanges) const;

    /** @return every held interval in increasing order */
    std::vector<Range> GetRanges() const;
    /**
     * @param begin first index
     * @param end one past the last index
     * @return the held intervals clipped to [begin, end), in increasing order (the set's
     *         intersection with the range)
     */
    std::vector<Range> GetRangesWithin(uint32_t begin, uint32_t end) const;

    /** Remove every index. */
    void Clear();

  private:
    boost::container::flat_map<uint32_t, uint32_t>
        m_ranges;        //!< begin -> end of disjoint, non-adjacent intervals
    uint64_t m_count{0}; //!< number of indices held
};

} // namespace ns3

#endif /* CHUNK_RANGE_SET_H */
