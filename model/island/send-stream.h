/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef SEND_STREAM_H
#define SEND_STREAM_H

#include "chunk-range-set.h"
#include "parity-blocks.h"
#include "stream-pacer.h"

#include "ns3/callback.h"
#include "ns3/event-id.h"
#include "ns3/nstime.h"

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <vector>

namespace ns3
{

/**
 * @ingroup wan-training
 * @brief The send side of one stream of one round: toward one member (its chunks, or in
 * multicast and both modes its repairs), one ring step toward the successor, or the clique-wide
 * stream (the multicast group's chunks, or the ring's pacer).
 *
 * It holds the chunks still to send, how far the first transmissions got, whether the receiver
 * has announced the round and acknowledged the stream, and the DONE timeout: a sender that has
 * sent everything and hears no DONE probes (resends the last chunk) up to MaxRepairAttempts
 * times. The timeout reports through a callback. A stream that paces itself (and the group
 * stream) sends through its StreamPacer. Destroying the stream cancels its events.
 */
class SendStream
{
  public:
    SendStream();
    /** Cancels the DONE timeout. */
    ~SendStream();
    SendStream(const SendStream&) = delete;
    SendStream& operator=(const SendStream&) = delete;

    /**
     * @param probe told when the DONE timeout expires
     */
    void SetProbeCallback(Callback<void> probe);
    /**
     * @brief (Re)start the DONE timeout.
     * @param delay until it expires
     */
    void ScheduleProbe(Time delay);
    /**
     * @brief Count one probe.
     * @param maxAttempts the most probes without progress
     * @return whether the attempts are exhausted
     */
    bool CountProbe(uint32_t maxAttempts);
    /** The receiver acknowledged everything (or the stream was given up): stop. */
    void Close();
    /** Stop the events. */
    void Cancel();
    /** @return the stream's pacer (used when it paces itself, or as the group's pacer) */
    StreamPacer& GetPacer();
    /** @return the stream's pacer */
    const StreamPacer& GetPacer() const;

    uint32_t m_destination{0};   //!< receiving island, or ALL_MEMBERS
    uint32_t m_step{0};          //!< ring mode: the step
    bool m_waitingStep{false};   //!< ring mode: the previous step is not held yet
    ChunkRangeSet m_pending;     //!< chunks to send
    ChunkRangeSet m_sent;        //!< ring mode: chunks sent at least once
    std::set<uint32_t> m_unheld; //!< ring mode: chunks of a released step whose values are not
                                 //!< held yet (the previous step's chunk is being repaired)
    /** ring mode: chunks that were held back, and when they went (Time::Max(): not yet) */
    std::map<uint32_t, Time> m_lateSent;
    uint32_t m_sentFirst{0};    //!< one past the highest chunk index sent
    bool m_done{false};         //!< whether the receiver acknowledged everything
    bool m_waitingReady{false}; //!< whether the receiver has not announced the round yet
    uint32_t m_attempts{0};     //!< probes without progress
    std::unique_ptr<ParityBlocks> m_parity; //!< FecBlock: the blocks of the first transmissions
    std::vector<ChunkRangeSet::Range> m_lastNack; //!< ranges of the last NACK served
    Time m_lastNackAt;                            //!< when it arrived

  private:
    /** The DONE timeout expired. */
    void FireProbe();

    StreamPacer m_pacer;    //!< paces the stream (own, group or ring pacer)
    EventId m_probeEvent;   //!< DONE timeout
    Callback<void> m_probe; //!< told when it expires
};

} // namespace ns3

#endif /* SEND_STREAM_H */
