/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef SLOT_WAITS_H
#define SLOT_WAITS_H

#include "slot-fill-estimator.h"

#include "ns3/nstime.h"

#include <cstdint>
#include <map>
#include <tuple>

namespace ns3
{

/**
 * @ingroup wan-training
 * @brief How long an FPGA port's slots wait for a missing contribution (AggregatorNetDevice's
 * AdaptiveWait): one SlotFillEstimator per clique exchange (job, round, clique), fed by the
 * exchange's slots as they leave, and the waits given.
 *
 * Adaptive, a slot of an exchange waits SlotFillEstimator::GetWait(2 R, Timeout), R the
 * exchange's largest round trip: a lost contribution's repair reaches the slot within two round
 * trips, one for the receiver to learn of the loss and one for its NACK and the repair; Timeout
 * before the exchange's first slot completed. Otherwise every slot waits Timeout. A job's
 * exchanges two rounds and more before the newest one are forgotten.
 */
class SlotWaits
{
  public:
    /** (job, round, clique): one clique exchange. */
    using StreamKey = std::tuple<uint16_t, uint32_t, uint16_t>;

    /** @param adaptive whether the waits follow the fill times */
    void SetAdaptive(bool adaptive);
    /** @return whether the waits follow the fill times */
    bool IsAdaptive() const;

    /**
     * @param stream an exchange
     * @param roundTrip its largest round trip R
     * @param timeout the longest wait
     * @return the wait of a slot of the exchange opened now
     */
    Time GetWait(const StreamKey& stream, Time roundTrip, Time timeout) const;
    /**
     * @brief A slot opens: its wait (GetWait), counted.
     * @param stream its exchange
     * @param roundTrip the exchange's largest round trip
     * @param timeout the longest wait
     * @return the wait
     */
    Time Open(const StreamKey& stream, Time roundTrip, Time timeout);
    /**
     * @brief A slot leaves: a completed one's fill time is a sample, a timed-out one backs the
     * exchange's wait off (nothing else is learnt; nothing when not adaptive).
     * @param stream its exchange
     * @param fill the time since it opened
     * @param complete whether it completed
     * @param timedOut whether its wait ran out
     */
    void Learn(const StreamKey& stream, Time fill, bool complete, bool timedOut);
    /**
     * @brief Forget a job's exchanges.
     * @param jobId the job
     */
    void Forget(uint16_t jobId);

    /** @return the slots opened */
    uint64_t GetSlotsOpened() const;
    /** @return the mean wait given to them (0 before one opened) */
    Time GetMeanWait() const;

  private:
    bool m_adaptive{true};                          //!< whether waits follow the fill times
    std::map<StreamKey, SlotFillEstimator> m_fills; //!< fill times by exchange
    uint64_t m_opened{0};                           //!< slots opened
    int64_t m_waitSumNs{0};                         //!< their waits, summed
};

} // namespace ns3

#endif /* SLOT_WAITS_H */
