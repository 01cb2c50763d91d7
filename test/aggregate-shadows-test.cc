/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "aggregate-shadows.h"

#include "ns3/packet.h"

#include <gtest/gtest.h>

/**
 * @file
 * @ingroup wan-training-tests
 * AggregateShadows: a NACK whose contributors are all in a kept aggregate is answered (served
 * once, the chunk taken out of the NACK), the NACKs crossing a served copy are answered without
 * serving it again, a NACK after the holdoff goes on to the contributors, the NACK never grows,
 * and the oldest copies are forgotten first.
 */

using namespace ns3;

namespace
{

/** Job, round and clique of the shadows under test. */
constexpr uint16_t JOB = 1;
constexpr uint32_t ROUND = 4;
constexpr uint16_t CLIQUE = 2;

/**
 * @param addressed the contributors the NACK asks
 * @param ranges the chunk ranges
 * @return a NACK of JOB, ROUND and CLIQUE
 */
IslandSyncHeader
Nack(uint64_t addressed, std::vector<IslandSyncHeader::Range> ranges)
{
    IslandSyncHeader nack;
    nack.SetType(IslandSyncHeader::NACK);
    nack.SetJobId(JOB);
    nack.SetRound(ROUND);
    nack.SetCliqueId(CLIQUE);
    nack.SetContributors(addressed);
    nack.SetRanges(std::move(ranges));
    return nack;
}

/**
 * @param chunk a chunk index
 * @return its key in JOB, ROUND and CLIQUE
 */
AggregateShadows::ChunkKey
Key(uint32_t chunk)
{
    return {JOB, ROUND, CLIQUE, chunk};
}

using Ranges = std::vector<IslandSyncHeader::Range>;

} // namespace

TEST(AggregateShadows, AnswersWhatACopyHoldsOnce)
{
    AggregateShadows shadows;
    shadows.SetCapacity(8);
    const uint64_t both = 0b110; // islands 1 and 2
    shadows.Keep(Key(5), both, Create<Packet>(100));
    shadows.Keep(Key(7), 0b010, Create<Packet>(101)); // a partial aggregate: island 1 only
    const Time holdoff = MilliSeconds(1);

    // Island 2 is asked for 4..9: chunk 5 is answered (7 does not hold island 2).
    AggregateShadows::Answer answer =
        shadows.AnswerNack(Nack(0b100, {{4, 9}}), Seconds(1), holdoff);
    ASSERT_EQ(answer.serve.size(), 1u);
    EXPECT_EQ(answer.serve[0]->GetSize(), 100u) << "chunk 5's copy";
    EXPECT_EQ(answer.answered, 1u);
    EXPECT_EQ(answer.ranges, (Ranges{{4, 5}, {6, 9}}));

    // Island 1's NACK of the same burst: chunk 5 crossed its copy (not served again); chunk 7's
    // partial aggregate holds island 1 and is served.
    answer = shadows.AnswerNack(Nack(0b010, {{4, 9}}), Seconds(1) + MicroSeconds(1), holdoff);
    ASSERT_EQ(answer.serve.size(), 1u);
    EXPECT_EQ(answer.serve[0]->GetSize(), 101u) << "chunk 7's copy";
    EXPECT_EQ(answer.answered, 2u);
    EXPECT_EQ(answer.ranges, (Ranges{{4, 5}, {6, 7}, {8, 9}}));

    // A NACK naming both islands is answered by a copy holding both only.
    answer = shadows.AnswerNack(Nack(both, {{7, 8}}), Seconds(1), holdoff);
    EXPECT_EQ(answer.answered, 0u);
    EXPECT_EQ(answer.ranges, (Ranges{{7, 8}}));

    // After the holdoff the island asks again: the copy did not help; the contributors answer,
    // and the copy is forgotten.
    answer = shadows.AnswerNack(Nack(0b100, {{5, 6}}), Seconds(1) + holdoff, holdoff);
    EXPECT_TRUE(answer.serve.empty());
    EXPECT_EQ(answer.answered, 0u);
    EXPECT_EQ(answer.ranges, (Ranges{{5, 6}}));
    EXPECT_EQ(shadows.GetSize(), 1u) << "chunk 7's copy stays";
}

TEST(AggregateShadows, OtherExchangesAndWholeNacks)
{
    AggregateShadows shadows;
    shadows.SetCapacity(8);
    shadows.Keep(Key(0), 0b10, Create<Packet>(10));
    shadows.Keep(Key(1), 0b10, Create<Packet>(11));
    shadows.Keep({JOB, ROUND + 1, CLIQUE, 2}, 0b10, Create<Packet>(12)); // the next round
    shadows.Keep({JOB, ROUND, CLIQUE + 1, 2}, 0b10, Create<Packet>(13)); // another clique

    // Every chunk answered: nothing is left to ask.
    AggregateShadows::Answer answer =
        shadows.AnswerNack(Nack(0b10, {{0, 3}}), Seconds(0), MilliSeconds(1));
    EXPECT_EQ(answer.serve.size(), 2u);
    EXPECT_EQ(answer.answered, 2u);
    EXPECT_EQ(answer.ranges, (Ranges{{2, 3}})) << "chunk 2 of this exchange has no copy";
    answer = shadows.AnswerNack(Nack(0b10, {{0, 2}}), Seconds(0), MilliSeconds(1));
    EXPECT_TRUE(answer.serve.empty()) << "served just before";
    EXPECT_TRUE(answer.ranges.empty()) << "the whole NACK is answered";
}

TEST(AggregateShadows, NackStaysWithinThePath)
{
    AggregateShadows shadows;
    shadows.SetCapacity(8);
    shadows.Keep(Key(1), 0b10, Create<Packet>(10));
    shadows.Keep(Key(3), 0b10, Create<Packet>(11));
    // A few ranges may become more.
    AggregateShadows::Answer answer =
        shadows.AnswerNack(Nack(0b10, {{0, 5}}), Seconds(0), MilliSeconds(1));
    EXPECT_EQ(answer.ranges, (Ranges{{0, 1}, {2, 3}, {4, 5}}));

    // A NACK with as many ranges as fit every path: answering inside [0, 5) would add two, so
    // the closest ranges are joined again; the copies are served all the same.
    Ranges full{{0, 5}};
    for (uint32_t r = 1; r < AggregateShadows::MIN_PATH_RANGES; ++r)
    {
        full.emplace_back(10 + 2 * r, 11 + 2 * r);
    }
    AggregateShadows again;
    again.SetCapacity(8);
    again.Keep(Key(1), 0b10, Create<Packet>(10));
    again.Keep(Key(3), 0b10, Create<Packet>(11));
    answer = again.AnswerNack(Nack(0b10, full), Seconds(0), MilliSeconds(1));
    EXPECT_EQ(answer.serve.size(), 2u) << "both copies are served";
    EXPECT_EQ(answer.ranges, full) << "no more ranges than fit every path";
}

TEST(AggregateShadows, ForgetsTheOldestFirst)
{
    AggregateShadows shadows;
    shadows.SetCapacity(2);
    shadows.Keep(Key(0), 0b10, Create<Packet>(10));
    shadows.Keep(Key(1), 0b10, Create<Packet>(11));
    shadows.Keep(Key(2), 0b10, Create<Packet>(12));
    EXPECT_EQ(shadows.GetSize(), 2u);
    AggregateShadows::Answer answer =
        shadows.AnswerNack(Nack(0b10, {{0, 3}}), Seconds(0), MilliSeconds(1));
    EXPECT_EQ(answer.ranges, (Ranges{{0, 1}})) << "chunk 0's copy was forgotten";
    shadows.SetCapacity(0);
    EXPECT_TRUE(shadows.IsEmpty());
    shadows.Keep(Key(3), 0b10, Create<Packet>(13));
    EXPECT_TRUE(shadows.IsEmpty()) << "capacity 0 keeps nothing";
}
