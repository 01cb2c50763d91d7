/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "payload-format.h"
#include "wan-input-error.h"

#include <gtest/gtest.h>

/**
 * @file
 * @ingroup wan-training-tests
 * GoogleTest cases for PayloadFormat: the names and the wire size S of P parameters in each
 * format (doc/schedule-model.rst, "Payload formats").
 */

using namespace ns3;

TEST(PayloadFormat, NamesRoundTripAndUnknownNamesAreInputErrors)
{
    ASSERT_EQ(GetAllPayloadFormats().size(), 3U);
    EXPECT_EQ(GetAllPayloadFormats().front(), PayloadFormat::FP32);
    for (PayloadFormat format : GetAllPayloadFormats())
    {
        EXPECT_EQ(PayloadFormatFromString(PayloadFormatToString(format)), format);
    }
    EXPECT_EQ(PayloadFormatToString(PayloadFormat::BF16), "bf16");
    EXPECT_THROW(PayloadFormatFromString("fp16"), WanInputError);
    EXPECT_THROW(PayloadFormatFromString("FP32"), WanInputError);
    EXPECT_THROW(PayloadFormatFromString(""), WanInputError);
}

TEST(PayloadFormat, WireSizeOfEachFormat)
{
    // fp32: 4 bytes a value; bf16: 2; int8: 1 byte a value plus a 4-byte scale per block of
    // 1024 values (a last partial block has a scale too).
    for (uint64_t p : {uint64_t{1}, uint64_t{1023}, uint64_t{1024}, uint64_t{7000000000}})
    {
        EXPECT_EQ(GetEncodedBytes(PayloadFormat::FP32, p), 4 * p) << p;
        EXPECT_EQ(GetEncodedBytes(PayloadFormat::BF16, p), 2 * p) << p;
    }
    EXPECT_EQ(GetEncodedBytes(PayloadFormat::INT8, 1), 5U);
    EXPECT_EQ(GetEncodedBytes(PayloadFormat::INT8, 1024), 1028U);
    EXPECT_EQ(GetEncodedBytes(PayloadFormat::INT8, 1025), 1033U);
    EXPECT_EQ(GetEncodedBytes(PayloadFormat::INT8, 2048), 2056U);
    // 7e9 values: 6835938 blocks (the last one partial).
    EXPECT_EQ(GetEncodedBytes(PayloadFormat::INT8, 7000000000), 7000000000U + 4 * 6835938U);
    for (PayloadFormat format : GetAllPayloadFormats())
    {
        EXPECT_EQ(GetEncodedBytes(format, 0), 0U);
    }
    // int8's share of fp32's size: (1 + 4/1024) / 4 for whole blocks.
    EXPECT_DOUBLE_EQ(static_cast<double>(GetEncodedBytes(PayloadFormat::INT8, 1024 * 1000)) /
                         GetEncodedBytes(PayloadFormat::FP32, 1024 * 1000),
                     (1 + 4.0 / 1024) / 4);
}

TEST(PayloadFormat, ValueCapacityInvertsTheWireSize)
{
    // Every encoding's size gives its value count back; GetChunkQuantum is what chunks carry
    // whole.
    for (PayloadFormat format : GetAllPayloadFormats())
    {
        for (uint64_t p : {uint64_t{0},
                           uint64_t{1},
                           uint64_t{1023},
                           uint64_t{1024},
                           uint64_t{1025},
                           uint64_t{24414062},
                           uint64_t{7000000000}})
        {
            EXPECT_EQ(GetValueCapacity(format, GetEncodedBytes(format, p)), p)
                << PayloadFormatToString(format) << " " << p;
        }
    }
    EXPECT_EQ(GetChunkQuantum(PayloadFormat::FP32), 1U);
    EXPECT_EQ(GetChunkQuantum(PayloadFormat::BF16), 1U);
    EXPECT_EQ(GetChunkQuantum(PayloadFormat::INT8), INT8_BLOCK_VALUES);
    // Sizes that are no encoding: the capacity is the most values that fit.
    EXPECT_EQ(GetValueCapacity(PayloadFormat::FP32, 1000001), 250000U);
    EXPECT_EQ(GetValueCapacity(PayloadFormat::BF16, 1001), 500U);
    // int8: 1 to 4 bytes after the whole blocks hold no value (a scale needs 4).
    EXPECT_EQ(GetValueCapacity(PayloadFormat::INT8, 1028 + 4), 1024U);
    EXPECT_EQ(GetValueCapacity(PayloadFormat::INT8, 1028 + 5), 1025U);
    EXPECT_EQ(GetValueCapacity(PayloadFormat::INT8, 4), 0U);
    // S = 1e8 in int8: 97276 whole blocks, then 272 bytes (a scale and 268 values).
    EXPECT_EQ(GetValueCapacity(PayloadFormat::INT8, 100000000), 97276U * 1024 + 268);
}
