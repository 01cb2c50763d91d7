/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "contributor-sequence.h"

#include <gtest/gtest.h>

/**
 * @file
 * @ingroup wan-training-tests
 * ContributorSequence: gaps of first transmissions are losses; repairs, duplicates and a
 * sender's first chunk show none; old rounds and jobs are forgotten.
 */

using ns3::ContributorSequence;

TEST(ContributorSequence, GapShowsLossesRepairsDoNot)
{
    ContributorSequence sequence;
    EXPECT_EQ(sequence.Note(1, 0, 0, 3, 0), 0u);
    EXPECT_EQ(sequence.Note(1, 0, 0, 3, 1), 1u) << "in order: no gap";
    EXPECT_EQ(sequence.Note(1, 0, 0, 3, 5), 2u) << "chunks 2 to 4 are lost";
    EXPECT_EQ(sequence.Note(1, 0, 0, 3, 3), 3u) << "a repair goes back: no gap";
    EXPECT_EQ(sequence.Note(1, 0, 0, 3, 5), 5u) << "a duplicate: no gap";
    EXPECT_EQ(sequence.Note(1, 0, 0, 3, 6), 6u) << "in order again";
    // Another sender, clique or round is a stream of its own.
    EXPECT_EQ(sequence.Note(1, 0, 0, 4, 7), 7u) << "a sender's first chunk shows nothing";
    EXPECT_EQ(sequence.Note(1, 0, 0, 4, 9), 8u);
    EXPECT_EQ(sequence.Note(1, 0, 1, 3, 2), 2u);
    EXPECT_EQ(sequence.GetSize(), 3u);
}

TEST(ContributorSequence, ForgetsOldRoundsAndJobs)
{
    ContributorSequence sequence;
    sequence.Note(1, 0, 0, 3, 0);
    sequence.Note(1, 1, 0, 3, 0);
    sequence.Note(2, 0, 0, 3, 0);
    EXPECT_EQ(sequence.GetSize(), 3u);
    sequence.Note(1, 2, 0, 3, 0);
    EXPECT_EQ(sequence.GetSize(), 3u) << "round 2 of job 1 forgets its round 0";
    // A late repair of the forgotten round is a first chunk again: no gap.
    EXPECT_EQ(sequence.Note(1, 0, 0, 3, 40), 40u);
    sequence.Forget(1);
    EXPECT_EQ(sequence.GetSize(), 1u) << "job 2 stays";
    EXPECT_EQ(sequence.Note(2, 0, 0, 3, 2), 1u) << "job 2's sender still has its place";
}
