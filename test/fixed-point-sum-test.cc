/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "fixed-point-sum.h"

#include <cmath>
#include <cstdint>
#include <gtest/gtest.h>
#include <limits>
#include <random>
#include <vector>

/**
 * @file
 * @ingroup wan-training-tests
 * GoogleTest cases for FixedPointSum, the in-line FPGA's 64-bit fixed-point accumulator: exact
 * conversions, the error bound of a sum against the exact double sum (m contributions: m x
 * 2^-33 plus one float32 rounding), all-or-nothing overflow at 2^31, and the safe magnitude
 * that lets a contribution be summed without a check.
 */

using namespace ns3;

TEST(FixedPointSum, ConversionsAreExactOnTheGrid)
{
    // Multiples of 2^-32 below 2^31 convert exactly (a float32 has 24 significant bits).
    for (float x : {0.0f, 1.0f, -1.0f, 0.5f, 1.5e9f, -2.0e9f, std::ldexp(1.0f, -32), 3.25f})
    {
        int64_t q = 0;
        ASSERT_TRUE(FixedPointSum::ToFixed(x, q)) << x;
        EXPECT_EQ(static_cast<double>(q), std::ldexp(static_cast<double>(x), 32)) << x;
        EXPECT_EQ(FixedPointSum::ToFloat(q), x) << x;
    }
    // Below the resolution: round half to even (2^-33 is a tie, goes to 0; 3 x 2^-33 to 2).
    int64_t q = 7;
    ASSERT_TRUE(FixedPointSum::ToFixed(std::ldexp(1.0f, -33), q));
    EXPECT_EQ(q, 0);
    ASSERT_TRUE(FixedPointSum::ToFixed(3 * std::ldexp(1.0f, -33), q));
    EXPECT_EQ(q, 2);
    ASSERT_TRUE(FixedPointSum::ToFixed(-3 * std::ldexp(1.0f, -33), q));
    EXPECT_EQ(q, -2);
}

TEST(FixedPointSum, OutOfRangeValuesAreRefused)
{
    int64_t q = 7;
    EXPECT_FALSE(FixedPointSum::ToFixed(2147483648.0f, q)); // 2^31
    EXPECT_FALSE(FixedPointSum::ToFixed(-2147483648.0f, q));
    EXPECT_FALSE(FixedPointSum::ToFixed(std::numeric_limits<float>::infinity(), q));
    EXPECT_FALSE(FixedPointSum::ToFixed(-std::numeric_limits<float>::infinity(), q));
    EXPECT_FALSE(FixedPointSum::ToFixed(std::numeric_limits<float>::quiet_NaN(), q));
    EXPECT_EQ(q, 7) << "unchanged when refused";
    // The largest float32 below 2^31 is in range.
    EXPECT_TRUE(FixedPointSum::ToFixed(std::nextafter(2147483648.0f, 0.0f), q));
}

TEST(FixedPointSum, SumsStayWithinTheBoundOfTheExactSum)
{
    // Values from 2^-40 to 2^12 in magnitude: every one is a multiple of 2^-63, so the exact sum
    // is an integer at the scale 2^63 (an __int128, exact for 64 of them).
    std::mt19937 random(20261201);
    std::uniform_real_distribution<float> magnitude(-40.0f, 12.0f);
    std::uniform_int_distribution<int> sign(0, 1);
    for (uint32_t contributors : {2u, 9u, 64u})
    {
        const std::size_t n = 2000;
        std::vector<int64_t> sums(n, 0);
        std::vector<__int128> exact(n, 0);
        for (uint32_t c = 0; c < contributors; ++c)
        {
            std::vector<float> values(n);
            for (float& x : values)
            {
                x = (sign(random) ? 1.0f : -1.0f) * std::exp2(magnitude(random));
            }
            ASSERT_TRUE(FixedPointSum::Add(sums, values));
            for (std::size_t v = 0; v < n; ++v)
            {
                exact[v] +=
                    static_cast<__int128>(std::ldexp(static_cast<long double>(values[v]), 63));
            }
        }
        for (std::size_t v = 0; v < n; ++v)
        {
            // m conversions of at most half an LSB (2^-33, i.e. 2^30 at the scale 2^63) each.
            __int128 error = static_cast<__int128>(sums[v]) * (__int128{1} << 31) - exact[v];
            error = error < 0 ? -error : error;
            EXPECT_LE(error, static_cast<__int128>(contributors) * (__int128{1} << 30)) << v;
            // Then one rounding to float32 (half an ulp of the fixed-point sum read back).
            const long double exactValue = std::ldexp(static_cast<long double>(exact[v]), -63);
            const long double sent = FixedPointSum::ToFloat(sums[v]);
            EXPECT_LE(std::fabs(sent - exactValue),
                      contributors * FixedPointSum::RESOLUTION / 2 * (1 + std::ldexp(1.0, -24)) +
                          std::ldexp(std::fabs(exactValue), -24))
                << v;
        }
    }
}

TEST(FixedPointSum, AnOverflowingContributionAddsNothing)
{
    std::vector<int64_t> sums(3, 0);
    ASSERT_TRUE(FixedPointSum::Add(sums, {1.5e9f, 1.0f, -1.5e9f}));
    const std::vector<int64_t> before = sums;
    // The last two values fit, the first pushes its sum over 2^31: nothing is added.
    EXPECT_FALSE(FixedPointSum::Add(sums, {1.0e9f, 1.0f, -1.0f}));
    EXPECT_EQ(sums, before);
    EXPECT_FALSE(FixedPointSum::Add(sums, {0.0f, 0.0f, -1.0e9f})) << "below -2^31";
    EXPECT_EQ(sums, before);
    EXPECT_FALSE(FixedPointSum::Add(sums, {0.0f, std::numeric_limits<float>::quiet_NaN(), 0.0f}));
    EXPECT_EQ(sums, before);
    EXPECT_FALSE(FixedPointSum::Add(sums, {0.0f, 3.0e9f, 0.0f})) << "a value beyond 2^31";
    EXPECT_EQ(sums, before);
    // What still fits is added.
    EXPECT_TRUE(FixedPointSum::Add(sums, {5.0e8f, -2.0f, 5.0e8f}));
    EXPECT_EQ(FixedPointSum::ToFloat(sums[0]), 2.0e9f);
    EXPECT_EQ(FixedPointSum::ToFloat(sums[1]), -1.0f);
    EXPECT_EQ(FixedPointSum::ToFloat(sums[2]), -1.0e9f);
}

TEST(FixedPointSum, SafeContributionsCannotOverflowTogether)
{
    // 64 contributions just below the safe magnitude sum to just below 2^31.
    const float largest = std::nextafter(static_cast<float>(FixedPointSum::SAFE_MAGNITUDE), 0.0f);
    std::vector<int64_t> sums(1, 0);
    for (int c = 0; c < 64; ++c)
    {
        ASSERT_TRUE(FixedPointSum::IsSafe({largest}, 1));
        ASSERT_TRUE(FixedPointSum::Add(sums, {largest})) << c;
    }
    EXPECT_FALSE(FixedPointSum::IsSafe({static_cast<float>(FixedPointSum::SAFE_MAGNITUDE)}, 1));
    EXPECT_TRUE(FixedPointSum::IsSafe({static_cast<float>(FixedPointSum::SAFE_MAGNITUDE)}, 2))
        << "a partial sum of two may be twice as large";
    EXPECT_FALSE(FixedPointSum::IsSafe({std::numeric_limits<float>::infinity()}, 64));
}
