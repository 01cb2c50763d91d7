/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "slot-fill-estimator.h"

#include <gtest/gtest.h>

/**
 * @file
 * @ingroup wan-training-tests
 * SlotFillEstimator: RFC 6298's smoothed fill time and deviation, the largest sample, the
 * margin, the 1 ms floor, the backoff after timeouts and the cap.
 */

using namespace ns3;

TEST(SlotFillEstimator, FollowsRfc6298)
{
    SlotFillEstimator fill;
    const Time most = Seconds(1);
    EXPECT_EQ(fill.GetWait(MilliSeconds(10), most), most) << "no sample: the longest wait";
    fill.Sample(MilliSeconds(20));
    EXPECT_EQ(fill.GetSmoothed(), MilliSeconds(20));
    EXPECT_EQ(fill.GetDeviation(), MilliSeconds(10));
    EXPECT_EQ(fill.GetWait(MilliSeconds(10), most), MilliSeconds(20 + 40 + 10));
    fill.Sample(MilliSeconds(4));
    // V = 3/4 10 + 1/4 |20 - 4| = 11.5; A = 7/8 20 + 1/8 4 = 18.
    EXPECT_EQ(fill.GetDeviation(), MicroSeconds(11500));
    EXPECT_EQ(fill.GetSmoothed(), MilliSeconds(18));
    EXPECT_EQ(fill.GetLargest(), MilliSeconds(20));
    EXPECT_EQ(fill.GetWait(Time(), most), MilliSeconds(18 + 46));
    EXPECT_EQ(fill.GetSamples(), 2u);
}

TEST(SlotFillEstimator, LargestSampleFloorAndBackoff)
{
    SlotFillEstimator fill;
    const Time most = Seconds(1);
    fill.Sample(MilliSeconds(100));
    for (int i = 0; i < 40; ++i)
    {
        fill.Sample(MilliSeconds(1));
    }
    // A and V have decayed to a few ms; the largest sample still bounds the wait.
    EXPECT_LT(fill.GetSmoothed() + 4 * fill.GetDeviation(), MilliSeconds(100));
    EXPECT_EQ(fill.GetWait(MilliSeconds(5), most), MilliSeconds(105));

    SlotFillEstimator zero;
    zero.Sample(Time());
    EXPECT_EQ(zero.GetWait(Time(), most), NanoSeconds(SlotFillEstimator::MIN_WAIT_NS))
        << "never less than the floor";

    fill.TimedOut();
    EXPECT_EQ(fill.GetBackoff(), 1u);
    EXPECT_EQ(fill.GetWait(MilliSeconds(5), most), MilliSeconds(210));
    fill.TimedOut();
    EXPECT_EQ(fill.GetWait(MilliSeconds(5), most), MilliSeconds(420));
    fill.TimedOut();
    fill.TimedOut();
    EXPECT_EQ(fill.GetWait(MilliSeconds(5), most), most) << "1680 ms: the cap";
    fill.Sample(MilliSeconds(1));
    EXPECT_EQ(fill.GetBackoff(), 0u) << "a completed slot resets the backoff";
    EXPECT_EQ(fill.GetWait(MilliSeconds(5), most), MilliSeconds(105));
}
