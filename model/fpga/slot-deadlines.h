/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef SLOT_DEADLINES_H
#define SLOT_DEADLINES_H

#include "ns3/callback.h"
#include "ns3/event-id.h"
#include "ns3/nstime.h"

#include <cstdint>
#include <functional>
#include <queue>
#include <tuple>
#include <vector>

namespace ns3
{

/**
 * @ingroup wan-training
 * @brief The deadlines of an FPGA port's open slots, in a min-heap (by deadline, then by
 * opening order) with one simulator event pending, at the earliest deadline of a slot still open:
 * the timeouts do not weigh on the simulator's event set. A slot that completes is not removed;
 * its deadline is dropped when it reaches the top (the owner says which slots are still open).
 */
class SlotDeadlines
{
  public:
    /** (job, round, clique, chunk): the chunk a slot sums. */
    using ChunkKey = std::tuple<uint16_t, uint32_t, uint16_t, uint32_t>;
    /** Whether the slot of a chunk opened with an opening number is still open. */
    typedef Callback<bool, const ChunkKey&, uint64_t> OpenCallback;
    /** The earliest deadline has come: the owner takes the due slots (PopDue). */
    typedef Callback<void> DueCallback;

    /** Cancels the pending event. */
    ~SlotDeadlines();

    /**
     * @param isOpen tells whether a slot is still open
     * @param due told when a deadline has come
     */
    void SetCallbacks(OpenCallback isOpen, DueCallback due);
    /**
     * @brief A slot opens: remember its deadline (Reschedule then arms the event).
     * @param deadline when it is released if still open
     * @param key its chunk
     * @return its opening number
     */
    uint64_t Add(Time deadline, const ChunkKey& key);
    /**
     * @brief Take the next slot due: a deadline no later than now of a slot still open.
     * @param now the time
     * @param key receives its chunk
     * @return whether there was one
     */
    bool PopDue(Time now, ChunkKey& key);
    /**
     * @brief Drop the deadlines of slots no longer open from the top, and have the event
     * pending at the earliest remaining deadline (unless it is pending earlier).
     */
    void Reschedule();

  private:
    /** The event: tell the owner. */
    void Fire();

    /** (deadline, opening order, chunk) */
    using Deadline = std::tuple<Time, uint64_t, ChunkKey>;

    std::priority_queue<Deadline, std::vector<Deadline>, std::greater<Deadline>>
        m_heap;             //!< deadlines, earliest on top
    uint64_t m_openings{0}; //!< slots opened so far
    EventId m_event;        //!< the pending event, at m_eventAt
    Time m_eventAt;         //!< when m_event fires
    OpenCallback m_isOpen;  //!< whether a slot is still open
    DueCallback m_due;      //!< told when a deadline has come
};

} // namespace ns3

#endif /* SLOT_DEADLINES_H */
