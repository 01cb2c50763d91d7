/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "chunk-range-set.h"

#include "ns3/test.h"

#include <random>
#include <set>
#include <vector>

/**
 * @file
 * @ingroup wan-training-tests
 * ChunkRangeSet test suite: merging, missing ranges and pops, and a randomized comparison with
 * a std::set of indices.
 */

using namespace ns3;

/**
 * @ingroup wan-training-tests
 * @brief Hand-checked interval operations.
 */
class ChunkRangeSetBasicTestCase : public TestCase
{
  public:
    ChunkRangeSetBasicTestCase();

  private:
    void DoRun() override;
};

ChunkRangeSetBasicTestCase::ChunkRangeSetBasicTestCase()
    : TestCase("merging, missing ranges and pops")
{
}

void
ChunkRangeSetBasicTestCase::DoRun()
{
    ChunkRangeSet set;
    NS_TEST_EXPECT_MSG_EQ(set.IsEmpty(), true, "new set is empty");
    NS_TEST_EXPECT_MSG_EQ(set.Covers(0), true, "covers nothing");
    NS_TEST_EXPECT_MSG_EQ(set.Covers(1), false, "does not cover [0, 1)");
    NS_TEST_EXPECT_MSG_EQ(set.Insert(5), true, "5 is new");
    NS_TEST_EXPECT_MSG_EQ(set.Insert(5), false, "5 is held");
    set.Insert(7, 10);
    NS_TEST_EXPECT_MSG_EQ(set.GetNRanges(), 2u, "[5,6) and [7,10)");
    set.Insert(6);
    NS_TEST_EXPECT_MSG_EQ(set.GetNRanges(), 1u, "merged into [5,10)");
    NS_TEST_EXPECT_MSG_EQ(set.GetCount(), 5u, "five indices");
    set.Insert(0, 3);
    set.Insert(2, 6); // overlaps both
    NS_TEST_EXPECT_MSG_EQ(set.GetNRanges(), 1u, "merged into [0,10)");
    NS_TEST_EXPECT_MSG_EQ(set.GetCount(), 10u, "ten indices");
    NS_TEST_EXPECT_MSG_EQ(set.Covers(10), true, "covers [0,10)");
    NS_TEST_EXPECT_MSG_EQ(set.Covers(11), false, "not [0,11)");
    set.Insert(20, 25);
    set.Insert(30);
    auto missing = set.GetMissing(40, 10);
    NS_TEST_ASSERT_MSG_EQ(missing.size(), 3u, "three gaps");
    NS_TEST_EXPECT_MSG_EQ(missing[0].first, 10u, "gap 1 begin");
    NS_TEST_EXPECT_MSG_EQ(missing[0].second, 20u, "gap 1 end");
    NS_TEST_EXPECT_MSG_EQ(missing[1].first, 25u, "gap 2 begin");
    NS_TEST_EXPECT_MSG_EQ(missing[1].second, 30u, "gap 2 end");
    NS_TEST_EXPECT_MSG_EQ(missing[2].first, 31u, "tail begin");
    NS_TEST_EXPECT_MSG_EQ(missing[2].second, 40u, "tail end");
    NS_TEST_EXPECT_MSG_EQ(set.GetMissing(40, 2).size(), 2u, "capped at two ranges");
    NS_TEST_EXPECT_MSG_EQ(set.GetMissing(22, 10).size(), 1u, "count inside a held range");
    NS_TEST_EXPECT_MSG_EQ(set.PopFront(), 0u, "smallest first");
    NS_TEST_EXPECT_MSG_EQ(set.PopFront(), 1u, "then the next");
    NS_TEST_EXPECT_MSG_EQ(set.Contains(0), false, "popped");
    NS_TEST_EXPECT_MSG_EQ(set.Contains(2), true, "still held");
    NS_TEST_EXPECT_MSG_EQ(set.Contains(30), true, "single index");
    NS_TEST_EXPECT_MSG_EQ(set.Contains(31), false, "after the single index");
    // Held now: [2,10) [20,25) [30,31).
    using Ranges = std::vector<ChunkRangeSet::Range>;
    NS_TEST_EXPECT_MSG_EQ((set.GetRangesWithin(5, 22) == Ranges{{5, 10}, {20, 22}}),
                          true,
                          "clipped at both ends");
    NS_TEST_EXPECT_MSG_EQ((set.GetRangesWithin(0, 40) == set.GetRanges()), true, "all of it");
    NS_TEST_EXPECT_MSG_EQ(set.GetRangesWithin(10, 20).empty(), true, "a gap holds nothing");
    NS_TEST_EXPECT_MSG_EQ((set.GetRangesWithin(30, 31) == Ranges{{30, 31}}), true, "one index");
    NS_TEST_EXPECT_MSG_EQ(set.GetRangesWithin(7, 7).empty(), true, "an empty range");
    set.Clear();
    NS_TEST_EXPECT_MSG_EQ(set.GetCount(), 0u, "cleared");

    // A 1 GB model in 8932-byte chunks, held in one interval.
    ChunkRangeSet large;
    large.Insert(0, 111957);
    NS_TEST_EXPECT_MSG_EQ(large.GetNRanges(), 1u, "one interval for 111957 chunks");
    NS_TEST_EXPECT_MSG_EQ(large.Covers(111957), true, "covers the model");
}

/**
 * @ingroup wan-training-tests
 * @brief Random insertions and pops against std::set.
 */
class ChunkRangeSetRandomTestCase : public TestCase
{
  public:
    ChunkRangeSetRandomTestCase();

  private:
    void DoRun() override;
};

ChunkRangeSetRandomTestCase::ChunkRangeSetRandomTestCase()
    : TestCase("random operations agree with std::set")
{
}

void
ChunkRangeSetRandomTestCase::DoRun()
{
    std::mt19937 generator(12345);
    const uint32_t universe = 200;
    for (int trial = 0; trial < 50; ++trial)
    {
        ChunkRangeSet set;
        std::set<uint32_t> reference;
        for (int op = 0; op < 100; ++op)
        {
            uint32_t a = generator() % universe;
            uint32_t b = a + generator() % 12;
            switch (generator() % 3)
            {
            case 0:
                set.Insert(a);
                reference.insert(a);
                break;
            case 1:
                set.Insert(a, b);
                for (uint32_t i = a; i < b; ++i)
                {
                    reference.insert(i);
                }
                break;
            default:
                if (!reference.empty())
                {
                    NS_TEST_ASSERT_MSG_EQ(set.PopFront(), *reference.begin(), "pop");
                    reference.erase(reference.begin());
                }
            }
            NS_TEST_ASSERT_MSG_EQ(set.GetCount(), reference.size(), "count");
        }
        for (uint32_t i = 0; i < universe + 12; ++i)
        {
            NS_TEST_ASSERT_MSG_EQ(set.Contains(i), (reference.count(i) == 1), "index " << i);
        }
        uint64_t missing = 0;
        for (const auto& range : set.GetMissing(universe, universe))
        {
            for (uint32_t i = range.first; i < range.second; ++i)
            {
                NS_TEST_ASSERT_MSG_EQ(reference.count(i), 0u, "missing index is absent");
            }
            missing += range.second - range.first;
        }
        uint64_t heldBelow = 0;
        for (uint32_t i : reference)
        {
            heldBelow += i < universe ? 1 : 0;
        }
        NS_TEST_EXPECT_MSG_EQ(missing + heldBelow, universe, "missing + held = all");
    }
}

/**
 * @ingroup wan-training-tests
 * @brief The ChunkRangeSet test suite.
 */
class ChunkRangeSetTestSuite : public TestSuite
{
  public:
    ChunkRangeSetTestSuite();
};

ChunkRangeSetTestSuite::ChunkRangeSetTestSuite()
    : TestSuite("wan-training-chunk-range-set", UNIT)
{
    AddTestCase(new ChunkRangeSetBasicTestCase(), TestCase::QUICK);
    AddTestCase(new ChunkRangeSetRandomTestCase(), TestCase::QUICK);
}

/** Static instance of the suite. */
static ChunkRangeSetTestSuite g_chunkRangeSetTestSuite;
