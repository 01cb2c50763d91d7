/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef STREAM_PACER_H
#define STREAM_PACER_H

#include "ns3/callback.h"
#include "ns3/event-id.h"

#include <cstdint>
#include <map>

namespace ns3
{

class SendStream;

/**
 * @ingroup wan-training
 * @brief Paces one sender's chunks on the wire: exact send times in seconds counted in
 * on-the-wire bytes (PPP, IPv4, UDP and IslandSyncHeader headers and the payload) at the
 * stream's rate, one send event at a time, and the choice of what to send next.
 *
 * Three policies: OWN (a unicast or aggregation stream sends its own chunks), GROUP (the
 * multicast stream interleaves the repairs of its members' streams, one member after the other,
 * with its own chunks for the group) and LOWEST_STEP (the ring's single pacer sends the lowest
 * step with chunks to send whose values are held). The pacer reports through a callback when a
 * send is due; its owner sends and tells the pacer the bytes. Destroying it cancels its event.
 */
class StreamPacer
{
  public:
    /** What the pacer sends. */
    enum Policy
    {
        OWN,        //!< its stream's chunks
        GROUP,      //!< members' repairs first (round robin), then the group's chunks
        LOWEST_STEP //!< the lowest ring step with chunks to send
    };

    StreamPacer();
    /** Cancels the pending send. */
    ~StreamPacer();
    StreamPacer(const StreamPacer&) = delete;
    StreamPacer& operator=(const StreamPacer&) = delete;

    /**
     * @param policy what the pacer sends
     * @param send told when a send is due
     */
    void Configure(Policy policy, Callback<void> send);

    /**
     * @param self the pacer's own stream
     * @param streams the streams it serves (GROUP: the members' streams; LOWEST_STEP: the steps)
     * @return whether there is something to send
     */
    bool HasWork(const SendStream& self, const std::map<uint32_t, SendStream>& streams) const;
    /**
     * @param self the pacer's own stream
     * @param streams the streams it serves
     * @return the stream whose next chunk goes now (HasWork must hold)
     */
    SendStream& Pick(SendStream& self, std::map<uint32_t, SendStream>& streams);

    /** @return whether a send event is pending */
    bool IsSending() const;
    /** Schedule the next send at the earliest send time (rounded up to the nanosecond). */
    void Start();
    /** Cancel the pending send. */
    void Stop();
    /** The pending send fired (called from the event). */
    void Fire();
    /** The stream (re)starts now: the next send is due at once. */
    void RestartNow();
    /** The next send is due now at the earliest. */
    void NotBeforeNow();
    /**
     * @brief Put the next send off (before Start).
     * @param seconds how much later it is due (>= 0)
     */
    void Delay(double seconds);
    /**
     * @brief A packet left: the next send is due its wire time later (an idle pacer restarts
     * now).
     * @param wireBytes the packet's bytes on a point-to-point link
     * @param rateBps the pacing rate, bit/s
     * @return when the packet ends, exact seconds
     */
    double Advance(uint32_t wireBytes, double rateBps);
    /**
     * @brief A probe left outside the paced sequence: it delays the next send.
     * @param wireBytes the probe's bytes on a point-to-point link
     * @param rateBps the pacing rate, bit/s
     */
    void AdvanceAfterProbe(uint32_t wireBytes, double rateBps);
    /** @return the earliest time of the next send, exact seconds */
    double GetNextSendS() const;

  private:
    Policy m_policy{OWN};     //!< what the pacer sends
    Callback<void> m_send;    //!< told when a send is due
    double m_nextSendS{0};    //!< earliest time of the next send, exact seconds
    bool m_sending{false};    //!< whether a send event is pending
    EventId m_sendEvent;      //!< next paced send
    uint32_t m_nextRepair{0}; //!< GROUP: first member of the repair round robin
};

} // namespace ns3

#endif /* STREAM_PACER_H */
