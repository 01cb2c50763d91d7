/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef RECEIVE_STREAM_H
#define RECEIVE_STREAM_H

#include "chunk-range-set.h"

#include "ns3/callback.h"
#include "ns3/event-id.h"
#include "ns3/nstime.h"

#include <cstdint>
#include <deque>
#include <map>
#include <vector>

namespace ns3
{

/**
 * @ingroup wan-training
 * @brief The receive side of one stream: the chunks of one contributor held in one round (ring
 * mode: one step's segment), with gap and stall detection and the repair attempts.
 *
 * First transmissions of a stream arrive in order, so a chunk beyond the next expected one
 * reveals a gap, which is NACKed at once (behind an in-line FPGA: at once when an aggregate
 * shows the FPGA closed the chunk without it, else after the patience). Every NACK is due one
 * repair wait plus the resend time later; a due check then NACKs again, at once, what it asked
 * for and did not get (a repair or the NACK was lost), while the stream still flows. A stream
 * that stays silent for the stall time NACKs what no NACK asked for yet (a lost tail). The
 * stream reports through callbacks: a NACK to send, and the repair attempts exhausted (more
 * than MaxRepairAttempts due checks without progress, at most one per repair wait). Destroying
 * the stream cancels its timers.
 */
class ReceiveStream
{
  public:
    /** What the stream's timers depend on (constant for the stream's plan). */
    struct Timing
    {
        Time stallTime;          //!< silence before a stall NACK: max(NackTimeout, 4 intervals)
        Time patience;           //!< behind an FPGA: AggregationTimeout + stallTime
        Time repairWait;         //!< round-trip time to the contributor plus NackTimeout
        double intervalS{0};     //!< seconds between two packets of the contributor's stream
        uint32_t maxRanges{1};   //!< NACK ranges that fit one packet
        uint32_t maxAttempts{1}; //!< NACKs without progress before the stream is exhausted
        bool behindFpga{false};  //!< whether gaps wait for the patience
    };

    /** A NACK of missing chunk ranges to send to the contributor. */
    typedef Callback<void, const std::vector<ChunkRangeSet::Range>&> NackCallback;
    /** The repair attempts are exhausted. */
    typedef Callback<void> ExhaustedCallback;
    /** A chunk NACKed arrived: how long after its first NACK (the repair's wait). */
    typedef Callback<void, Time> RepairedCallback;

    /**
     * @param source the contributor (ring mode: the predecessor)
     * @param step ring mode: the step (0 otherwise)
     * @param first the first chunk of the stream
     * @param end one past its last chunk
     * @param timing its timers
     */
    ReceiveStream(uint32_t source,
                  uint32_t step,
                  uint32_t first,
                  uint32_t end,
                  const Timing& timing);
    /** Cancels the timers. */
    ~ReceiveStream();
    ReceiveStream(const ReceiveStream&) = delete;
    ReceiveStream& operator=(const ReceiveStream&) = delete;

    /**
     * @brief Set where the stream reports.
     * @param nack sends a NACK
     * @param exhausted told when the attempts are exhausted
     */
    void SetCallbacks(NackCallback nack, ExhaustedCallback exhausted);
    /**
     * @brief Set where the stream reports each chunk that arrives after a NACK asked for it
     * (optional).
     * @param repaired told the time from the chunk's first NACK to its arrival
     */
    void SetRepairedCallback(RepairedCallback repaired);

    /**
     * @param chunk a chunk index
     * @return whether it is held
     */
    bool Holds(uint32_t chunk) const;
    /**
     * @brief A new chunk arrived: hold it, NACK a gap before it, (re)arm the stall timer.
     * @param chunk the chunk (not held yet)
     * @return whether the stream is complete now (its timers are stopped then)
     */
    bool Accept(uint32_t chunk);
    /** Stop the timers. */
    void Cancel();
    /**
     * @brief After the attempts were reported exhausted and the owner kept the stream (it
     * cannot decide yet): count the attempts from zero and NACK what is missing again.
     */
    void Resume();

    /**
     * @brief An in-line FPGA's aggregate of a chunk arrived without this stream's source: the
     * FPGA closed the chunk without its contribution (lost, or past the FPGA's Timeout), so it
     * can only come as a repair. NACK it at once unless it is held or was asked for (behind
     * an FPGA only).
     * @param chunk the chunk
     */
    void NackAbsent(uint32_t chunk);

    /**
     * @brief Behind an in-line FPGA: every chunk before end is settled there (the FPGA holds no
     * slot for it any more), so what is missing before end can only come as a repair. NACK at
     * once what is missing there and was not asked for yet.
     * @param end one past the last settled chunk
     */
    void NackSettledBefore(uint32_t end);

    /** @return one past the highest chunk index accepted (the stream's first chunk before) */
    uint32_t GetNextFirst() const;
    /** @return the contributor */
    uint32_t GetSource() const;
    /** @return the ring step */
    uint32_t GetStep() const;
    /** @return whether any chunk arrived */
    bool IsStarted() const;
    /** @return whether every chunk is held */
    bool IsComplete() const;
    /** @return the chunks held */
    uint64_t GetHeldCount() const;
    /** @return the repair waits without progress since the last chunk arrived */
    uint32_t GetAttempts() const;
    /** @return how long the chunks not held take at the contributor's pacing interval */
    Time GetTimeLeft() const;

  private:
    /** A NACK whose answer is awaited. */
    struct DueCheckEntry
    {
        Time due;                                 //!< when its repairs are due at the latest
        std::vector<ChunkRangeSet::Range> ranges; //!< what it asked for
    };

    /** A gap of first transmissions waiting for its deferred NACK (behind an FPGA). */
    struct GapCheckEntry
    {
        Time due;          //!< when the gap is NACKed (if still missing)
        uint32_t first{0}; //!< first chunk of the gap
        uint32_t end{0};   //!< one past its last chunk
    };

    /**
     * Stall timer: once the stream is silent for the stall time, NACK what no NACK asked for
     * yet (e.g. a lost last chunk, which no later chunk
     * reveals); the due checks repeat what was asked for.
     */
    void Timeout();
    /**
     * @brief Send a NACK and remember its chunks as requested until its answer is due.
     * @param ranges the ranges to ask for
     * @param why what revealed them (logged)
     */
    void Request(const std::vector<ChunkRangeSet::Range>& ranges, const char* why);
    /**
     * Due check: NACK again, at once, what earlier NACKs asked for and did not get by their due
     * time (a repair or its NACK was lost), or report the attempts exhausted.
     */
    void DueCheck();
    /** Stop every timer and report the attempts exhausted (once). */
    void Exhaust();
    /**
     * @param ranges chunk ranges of the stream
     * @param known chunks to leave out as well (e.g. those asked for already)
     * @return the chunks of ranges neither held nor known, at most maxRanges intervals
     */
    std::vector<ChunkRangeSet::Range> GetMissingOf(const std::vector<ChunkRangeSet::Range>& ranges,
                                                   const ChunkRangeSet& known) const;
    /** Deferred gap NACK: what is still missing in the gaps whose patience is over. */
    void GapCheck();
    /**
     * @param chunks chunks asked for
     * @return when the answer to a NACK of that many chunks is due at the latest
     */
    Time GetRepairDue(uint64_t chunks) const;
    /**
     * @param held the chunks held
     * @param first the first chunk of the stream
     * @param end one past its last chunk
     * @param maxRanges the largest number of intervals to return (the first ones)
     * @return the chunks of [first, end) that are not held, as intervals in increasing order
     */
    static std::vector<ChunkRangeSet::Range> GetMissingIn(const ChunkRangeSet& held,
                                                          uint32_t first,
                                                          uint32_t end,
                                                          uint32_t maxRanges);

    uint32_t m_source;                     //!< the contributor
    uint32_t m_step;                       //!< ring mode: the step
    uint32_t m_first;                      //!< first chunk of the stream
    uint32_t m_end;                        //!< one past its last chunk
    Timing m_timing;                       //!< timers
    ChunkRangeSet m_held;                  //!< chunks held
    uint32_t m_nextFirst;                  //!< one past the highest chunk index seen
    uint32_t m_settledEnd;                 //!< NackSettledBefore: checked before this chunk
    bool m_started{false};                 //!< whether any chunk arrived
    bool m_complete{false};                //!< whether every chunk is held
    Time m_lastArrival;                    //!< last time a chunk was accepted
    Time m_holdUntil;                      //!< no repeated NACK before this time
    ChunkRangeSet m_requested;             //!< chunks NACKed at least once
    EventId m_timer;                       //!< stall timer
    uint32_t m_attempts{0};                //!< repair waits without progress
    Time m_attemptAt;                      //!< when the last attempt was counted
    std::deque<GapCheckEntry> m_gapChecks; //!< deferred gap NACKs, by due time
    EventId m_gapEvent;                    //!< next deferred gap NACK
    std::deque<DueCheckEntry> m_dueChecks; //!< NACKs awaiting their answer, by due time
    EventId m_dueEvent;                    //!< next due check
    /** the first NACK of each chunk asked for: first chunk -> (one past the last, when) */
    std::map<uint32_t, std::pair<uint32_t, Time>> m_askedAt;
    NackCallback m_nack;           //!< sends a NACK
    RepairedCallback m_repaired;   //!< a chunk asked for arrived (may be null)
    ExhaustedCallback m_exhausted; //!< attempts exhausted
};

} // namespace ns3

#endif /* RECEIVE_STREAM_H */
