/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "slot-fill-estimator.h"

#include <algorithm>
#include <cstdlib>

namespace ns3
{

void
SlotFillEstimator::Sample(Time fill)
{
    const int64_t s = std::max<int64_t>(fill.GetNanoSeconds(), 0);
    if (m_samples == 0)
    {
        m_smoothedNs = s;
        m_deviationNs = s / 2;
    }
    else
    {
        m_deviationNs = (3 * m_deviationNs + std::llabs(m_smoothedNs - s)) / 4;
        m_smoothedNs = (7 * m_smoothedNs + s) / 8;
    }
    m_largestNs = std::max(m_largestNs, s);
    m_backoff = 0;
    ++m_samples;
}

void
SlotFillEstimator::TimedOut()
{
    // Beyond 2^20 x any wait the Timeout applies anyway.
    m_backoff = std::min<uint32_t>(m_backoff + 1, 20);
}

uint64_t
SlotFillEstimator::GetSamples() const
{
    return m_samples;
}

Time
SlotFillEstimator::GetSmoothed() const
{
    return NanoSeconds(m_smoothedNs);
}

Time
SlotFillEstimator::GetDeviation() const
{
    return NanoSeconds(m_deviationNs);
}

Time
SlotFillEstimator::GetLargest() const
{
    return NanoSeconds(m_largestNs);
}

uint32_t
SlotFillEstimator::GetBackoff() const
{
    return m_backoff;
}

Time
SlotFillEstimator::GetWait(Time margin, Time most) const
{
    if (m_samples == 0)
    {
        return most;
    }
    const int64_t waitNs =
        std::max(std::max(m_smoothedNs + 4 * m_deviationNs, m_largestNs) + margin.GetNanoSeconds(),
                 MIN_WAIT_NS);
    // Doubling cannot overflow before it passes most (at most a few hours in nanoseconds).
    const int64_t mostNs = most.GetNanoSeconds();
    int64_t backedOffNs = waitNs;
    for (uint32_t b = 0; b < m_backoff && backedOffNs < mostNs; ++b)
    {
        backedOffNs *= 2;
    }
    return NanoSeconds(std::min(backedOffNs, mostNs));
}

} // namespace ns3
