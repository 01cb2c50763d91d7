/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "parity-blocks.h"

#include <gtest/gtest.h>

/**
 * @file
 * @ingroup wan-training-tests
 * ParityBlocks: blocks of n chunks (a shorter last one), the sender's parity is the XOR of the
 * block's areas zero-extended to the longest, the receiver rebuilds any one missing chunk,
 * whatever the order of arrival, and forgets finished blocks.
 */

using ns3::ParityBlocks;

namespace
{

/** Three chunks' encoded areas; the last is shorter (the stream's last chunk). */
const std::vector<std::vector<uint8_t>> AREAS{{0x12, 0x34, 0x56, 0x78},
                                              {0xff, 0x00, 0xa5, 0x5a},
                                              {0x0f, 0xf0}};

} // namespace

TEST(ParityBlocks, BlocksOfN)
{
    ParityBlocks blocks(0, 10, 4);
    EXPECT_EQ(blocks.GetBlock(0), 0u);
    EXPECT_EQ(blocks.GetBlock(3), 0u);
    EXPECT_EQ(blocks.GetBlock(4), 4u);
    EXPECT_EQ(blocks.GetBlock(9), 8u);
    EXPECT_EQ(blocks.GetBlockChunks(0), 4u);
    EXPECT_EQ(blocks.GetBlockChunks(8), 2u) << "the last block is shorter";
    ParityBlocks segment(5, 9, 3);
    EXPECT_EQ(segment.GetBlock(7), 5u) << "blocks start at the stream's first chunk";
    EXPECT_EQ(segment.GetBlock(8), 8u);
    EXPECT_EQ(segment.GetBlockChunks(8), 1u);
}

TEST(ParityBlocks, SenderParityIsTheXor)
{
    ParityBlocks sender(0, 3, 3);
    EXPECT_FALSE(sender.Add(0, AREAS[0]));
    EXPECT_FALSE(sender.Add(2, AREAS[2]));
    EXPECT_TRUE(sender.Add(1, AREAS[1])) << "every chunk of the block went";
    const std::vector<uint8_t> parity = sender.Take(0);
    EXPECT_EQ(
        parity,
        (std::vector<uint8_t>{0x12 ^ 0xff ^ 0x0f, 0x34 ^ 0x00 ^ 0xf0, 0x56 ^ 0xa5, 0x78 ^ 0x5a}));
    EXPECT_EQ(sender.GetOpenBlocks(), 0u) << "taken blocks are forgotten";
}

TEST(ParityBlocks, ReceiverRebuildsAnyOneMissing)
{
    ParityBlocks sender(0, 3, 3);
    for (uint32_t c = 0; c < 3; ++c)
    {
        sender.Add(c, AREAS[c]);
    }
    const std::vector<uint8_t> parity = sender.Take(0);
    for (uint32_t lost = 0; lost < 3; ++lost)
    {
        ParityBlocks receiver(0, 3, 3);
        bool parityFirst = lost % 2 == 0; // the parity before or after the other chunks
        if (parityFirst)
        {
            receiver.SetParity(0, parity);
            EXPECT_FALSE(receiver.CanRecover(0)) << "two chunks missing";
        }
        for (uint32_t c = 0; c < 3; ++c)
        {
            if (c != lost)
            {
                receiver.Add(c, AREAS[c]);
            }
        }
        if (!parityFirst)
        {
            EXPECT_FALSE(receiver.CanRecover(0)) << "no parity yet";
            receiver.SetParity(0, parity);
        }
        ASSERT_TRUE(receiver.CanRecover(0));
        EXPECT_EQ(receiver.Recover(0, static_cast<uint32_t>(AREAS[lost].size())), AREAS[lost])
            << "chunk " << lost;
        EXPECT_EQ(receiver.GetOpenBlocks(), 0u);
        // The rebuilt chunk taken as an arrival, then its repair: the finished block ignores
        // them.
        EXPECT_TRUE(receiver.IsFinished(0));
        EXPECT_FALSE(receiver.Add(lost, AREAS[lost]));
        EXPECT_FALSE(receiver.Add(lost, AREAS[lost]));
        EXPECT_EQ(receiver.GetOpenBlocks(), 0u) << "nothing reopens it";
    }
}

TEST(ParityBlocks, TwoMissingWaitForARepair)
{
    ParityBlocks receiver(0, 6, 3);
    receiver.Add(0, AREAS[0]);
    receiver.SetParity(0, {0, 0, 0, 0});
    EXPECT_FALSE(receiver.CanRecover(0));
    receiver.Add(3, AREAS[0]);
    EXPECT_EQ(receiver.GetOpenBlocks(), 2u);
    receiver.Forget(3);
    EXPECT_EQ(receiver.GetOpenBlocks(), 1u);
    receiver.SetParity(3, {1, 2, 3, 4});
    EXPECT_EQ(receiver.GetOpenBlocks(), 1u) << "a parity after the block finished is ignored";
}
