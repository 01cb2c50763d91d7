/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef SLOT_FILL_ESTIMATOR_H
#define SLOT_FILL_ESTIMATOR_H

#include "ns3/nstime.h"

#include <cstdint>

namespace ns3
{

/**
 * @ingroup wan-training
 * @brief How long an FPGA slot of one clique exchange takes to fill, learnt from the slots that
 * completed, the way TCP learns the round trip (RFC 6298): a smoothed fill time A and its mean
 * deviation V.
 *
 * A slot opens with a chunk's first contribution and completes with its last, so its fill time
 * is the arrival skew between the contributors' streams at the port: the difference of their
 * path latencies and start times, and the queueing that other traffic adds on their paths. The
 * first sample s sets A = s, V = s / 2; each later one V <- 3/4 V + 1/4 |A - s|, then
 * A <- 7/8 A + 1/8 s (in nanoseconds, rounded down); M is the largest sample.
 *
 * The wait for a missing contribution (GetWait) is max(A + 4 V, M) plus a margin (the
 * clique's largest round trip, which AggregatorNetDevice passes), at least MIN_WAIT_NS (1 ms),
 * doubled after every slot that timed out since the last sample (TimedOut; TCP's backoff), at most
 * the device's Timeout. The skew grows when other streams start to queue on the contributors'
 * paths; a slot that times out then is not a sample (it did not complete), so without the backoff
 * the estimate could stay below the skew for good.
 */
class SlotFillEstimator
{
  public:
    /** The shortest wait after a sample (as TCP's minimum RTO: zero skew and a zero round trip,
     * e.g. between colocated islands, must not release every slot as it opens). */
    static constexpr int64_t MIN_WAIT_NS = 1000000;

    /**
     * @brief Learn from a slot that completed.
     * @param fill the time from its first to its last contribution
     */
    void Sample(Time fill);

    /** @brief A slot timed out: the next waits are twice as long, until the next sample. */
    void TimedOut();

    /** @return the number of samples */
    uint64_t GetSamples() const;
    /** @return the smoothed fill time A (0 before a sample) */
    Time GetSmoothed() const;
    /** @return the mean deviation V (0 before a sample) */
    Time GetDeviation() const;
    /** @return the largest sample M (0 before a sample) */
    Time GetLargest() const;
    /** @return the timeouts since the last sample */
    uint32_t GetBackoff() const;

    /**
     * @param margin what is added to max(A + 4 V, M) (the clique's largest round trip)
     * @param most the longest wait (the device's Timeout)
     * @return min(most, max(MIN_WAIT, max(A + 4 V, M) + margin) x 2^backoff), or most before a
     *         sample
     */
    Time GetWait(Time margin, Time most) const;

  private:
    uint64_t m_samples{0};    //!< samples taken
    int64_t m_smoothedNs{0};  //!< A, in nanoseconds
    int64_t m_deviationNs{0}; //!< V, in nanoseconds
    int64_t m_largestNs{0};   //!< M, in nanoseconds
    uint32_t m_backoff{0};    //!< timeouts since the last sample
};

} // namespace ns3

#endif /* SLOT_FILL_ESTIMATOR_H */
