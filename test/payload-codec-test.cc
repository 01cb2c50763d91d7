/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "payload-codec.h"

#include <cmath>
#include <cstring>
#include <gtest/gtest.h>
#include <limits>
#include <random>
#include <vector>

/**
 * @file
 * @ingroup wan-training-tests
 * PayloadCodec: the error bounds of bf16 (2^-8 relative) and int8 (scale / 2) on random values,
 * ties to even, all-zero and one-value blocks, the neighbourhood of the int8 clamp, overflow and
 * underflow, NaN and infinity as documented, what Decode refuses, and idempotence (encoding
 * decoded values gives the same bytes), against numbers computed here.
 */

using namespace ns3;

namespace
{

/** Values of an int8 block. */
constexpr uint32_t B = INT8_BLOCK_VALUES;

/** @return the bits of a float (PayloadCodec::FloatToBits) */
constexpr auto Bits = &PayloadCodec::FloatToBits;
/** @return the float of bits (PayloadCodec::BitsToFloat) */
constexpr auto FromBits = &PayloadCodec::BitsToFloat;

/**
 * @param format a format
 * @param values values
 * @return their encoding
 */
std::vector<uint8_t>
Encoded(PayloadFormat format, const std::vector<float>& values)
{
    std::vector<uint8_t> bytes(GetEncodedBytes(format, values.size()));
    PayloadCodec::Encode(format, values.data(), values.size(), bytes.data());
    return bytes;
}

/**
 * @param format a format
 * @param bytes an encoding of count values
 * @param count how many
 * @param ok receives whether Decode accepted them
 * @return the decoded values
 */
std::vector<float>
Decoded(PayloadFormat format, const std::vector<uint8_t>& bytes, uint32_t count, bool& ok)
{
    std::vector<float> values(count);
    ok = PayloadCodec::Decode(format, bytes.data(), count, values.data());
    return values;
}

/**
 * @param format a format
 * @param values values
 * @return Quantize(values)
 */
std::vector<float>
Quantized(PayloadFormat format, std::vector<float> values)
{
    PayloadCodec::Quantize(format, values);
    return values;
}

/**
 * @param a values
 * @param b values
 * @return whether they are equal bit for bit
 */
bool
SameBits(const std::vector<float>& a, const std::vector<float>& b)
{
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), 4 * a.size()) == 0;
}

/**
 * @param seed a seed
 * @param count how many
 * @param minExponent the smallest binary exponent
 * @param maxExponent the largest
 * @return random finite values of both signs over the exponents, some zeros among them
 */
std::vector<float>
RandomValues(uint32_t seed, uint32_t count, int minExponent, int maxExponent)
{
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> mantissa(1.0, 2.0);
    std::uniform_int_distribution<int> exponent(minExponent, maxExponent);
    std::vector<float> values(count);
    for (auto& v : values)
    {
        v = (rng() % 64 == 0) ? 0.0f
                              : static_cast<float>((rng() % 2 ? -1 : 1) *
                                                   std::ldexp(mantissa(rng), exponent(rng)));
    }
    return values;
}

/**
 * @param bytes an int8 encoding
 * @param block a block index (every block before it full)
 * @return the block's scale
 */
float
ScaleOf(const std::vector<uint8_t>& bytes, uint32_t block)
{
    const uint8_t* p = bytes.data() + block * (4 + B);
    return FromBits((uint32_t{p[0]} << 24) | (uint32_t{p[1]} << 16) | (uint32_t{p[2]} << 8) | p[3]);
}

/**
 * @param bytes an int8 encoding
 * @param k a value index (every block before its block full)
 * @return its code
 */
int
CodeOf(const std::vector<uint8_t>& bytes, uint32_t k)
{
    return static_cast<int8_t>(bytes[(k / B) * (4 + B) + 4 + k % B]);
}

} // namespace

TEST(PayloadCodec, Fp32IsTheIeeeBitsBigEndian)
{
    const std::vector<float> values{1.5f, -0.0f, FromBits(0x7fa00001), FromBits(0x00000001)};
    const std::vector<uint8_t> bytes = Encoded(PayloadFormat::FP32, values);
    ASSERT_EQ(bytes.size(), 16u);
    EXPECT_EQ(bytes[0], 0x3f);
    EXPECT_EQ(bytes[1], 0xc0);
    EXPECT_EQ(bytes[4], 0x80);
    bool ok = false;
    EXPECT_TRUE(SameBits(Decoded(PayloadFormat::FP32, bytes, 4, ok), values)) << "NaN payload kept";
    EXPECT_TRUE(ok);
    EXPECT_TRUE(SameBits(Quantized(PayloadFormat::FP32, values), values));
}

TEST(PayloadCodec, Bf16ErrorWithinTwoToMinusEightRelative)
{
    const std::vector<float> values = RandomValues(11, 100000, -100, 100);
    const std::vector<float> decoded = Quantized(PayloadFormat::BF16, values);
    const std::vector<double> halfSteps = PayloadCodec::GetHalfSteps(PayloadFormat::BF16, decoded);
    for (std::size_t k = 0; k < values.size(); ++k)
    {
        const double error = std::fabs(double{values[k]} - decoded[k]);
        ASSERT_LE(error, std::ldexp(std::fabs(values[k]), -8)) << k;
        // The half step: half of 2^(e - 7) at the decoded value's binade e.
        ASSERT_LE(error, halfSteps[k]) << k;
        ASSERT_LE(halfSteps[k], std::ldexp(std::fabs(decoded[k]), -8) + (decoded[k] == 0)) << k;
        ASSERT_EQ(Bits(decoded[k]) & 0xffff, 0u) << "bf16 keeps the upper half only";
    }
    EXPECT_EQ(PayloadCodec::GetHalfSteps(PayloadFormat::BF16, {1.0f, 1.99f, 0.0f}),
              (std::vector<double>{std::ldexp(1.0, -8), std::ldexp(1.0, -8), std::ldexp(1, -134)}));
    EXPECT_EQ(
        PayloadCodec::GetHalfSteps(PayloadFormat::FP32, {1.0f, -3.0f, 0.0f}),
        (std::vector<double>{std::ldexp(1.0, -24), std::ldexp(1.0, -23), std::ldexp(1, -150)}));
}

TEST(PayloadCodec, Bf16RoundsTiesToEven)
{
    // 1 + 2^-8 lies halfway between 1 (even) and 1 + 2^-7 (odd): down. 1 + 3 x 2^-8 lies halfway
    // between 1 + 2^-7 (odd) and 1 + 2^-6 (even): up. Just above a tie: up.
    EXPECT_EQ(PayloadCodec::EncodeBf16(1.0f + std::ldexp(1.0f, -8)), 0x3f80);
    EXPECT_EQ(PayloadCodec::EncodeBf16(1.0f + 3 * std::ldexp(1.0f, -8)), 0x3f82);
    EXPECT_EQ(PayloadCodec::EncodeBf16(-(1.0f + std::ldexp(1.0f, -8))), 0xbf80);
    EXPECT_EQ(PayloadCodec::EncodeBf16(-(1.0f + 3 * std::ldexp(1.0f, -8))), 0xbf82);
    EXPECT_EQ(PayloadCodec::EncodeBf16(1.0f + std::ldexp(1.0f, -8) + std::ldexp(1.0f, -23)),
              0x3f81);
    EXPECT_EQ(PayloadCodec::EncodeBf16(1.0f + std::ldexp(1.0f, -8) - std::ldexp(1.0f, -23)),
              0x3f80);
    // A tie carrying into the next binade: (2 - 2^-8) x 2^0 is halfway to 2, which is even.
    EXPECT_EQ(PayloadCodec::EncodeBf16(2.0f - std::ldexp(1.0f, -8)), 0x4000);
    EXPECT_EQ(PayloadCodec::DecodeBf16(0x3f82), 1.0f + std::ldexp(1.0f, -6));
}

TEST(PayloadCodec, Bf16NanAndInfinityAsDocumented)
{
    const float inf = std::numeric_limits<float>::infinity();
    EXPECT_EQ(PayloadCodec::EncodeBf16(inf), 0x7f80);
    EXPECT_EQ(PayloadCodec::EncodeBf16(-inf), 0xff80);
    // A finite value beyond the largest bf16 (0x7f7f) rounds to infinity; the largest stays.
    EXPECT_EQ(PayloadCodec::EncodeBf16(std::numeric_limits<float>::max()), 0x7f80);
    EXPECT_EQ(PayloadCodec::EncodeBf16(PayloadCodec::DecodeBf16(0x7f7f)), 0x7f7f);
    // Every NaN, quiet, signalling or negative, becomes the quiet NaN 0x7fc0.
    for (uint32_t nan : {0x7fc00000u, 0x7f800001u, 0xffc00000u, 0x7fffffffu, 0x7f810000u})
    {
        EXPECT_EQ(PayloadCodec::EncodeBf16(FromBits(nan)), PayloadCodec::BF16_QUIET_NAN) << nan;
    }
    const std::vector<float> decoded =
        Quantized(PayloadFormat::BF16, {FromBits(0xffc00001), inf, 1.0f});
    EXPECT_EQ(Bits(decoded[0]), 0x7fc00000u);
    EXPECT_EQ(decoded[1], inf);
    const std::vector<double> halfSteps = PayloadCodec::GetHalfSteps(PayloadFormat::BF16, decoded);
    EXPECT_TRUE(std::isinf(halfSteps[0]) && std::isinf(halfSteps[1]));
    // Decode refuses the NaNs Encode never writes, and takes every other pattern.
    for (uint16_t bits : {0x7f81, 0xffc0, 0x7fff, 0xff81})
    {
        bool ok = true;
        Decoded(PayloadFormat::BF16, {uint8_t(bits >> 8), uint8_t(bits)}, 1, ok);
        EXPECT_FALSE(ok) << bits;
    }
    for (uint16_t bits : {0x7fc0, 0x7f80, 0xff80, 0x0001, 0x8000, 0x7f7f})
    {
        bool ok = false;
        Decoded(PayloadFormat::BF16, {uint8_t(bits >> 8), uint8_t(bits)}, 1, ok);
        EXPECT_TRUE(ok) << bits;
    }
}

TEST(PayloadCodec, Int8ErrorWithinHalfTheScale)
{
    // Five blocks (the last of 904 values), each of its own magnitude.
    std::vector<float> values;
    for (uint32_t block = 0; block < 5; ++block)
    {
        const int e = -60 + 30 * static_cast<int>(block);
        const std::vector<float> part = RandomValues(100 + block, block < 4 ? B : 904, e - 8, e);
        values.insert(values.end(), part.begin(), part.end());
    }
    const std::vector<uint8_t> bytes = Encoded(PayloadFormat::INT8, values);
    ASSERT_EQ(bytes.size(), values.size() + 4 * 5);
    bool ok = false;
    const std::vector<float> decoded = Decoded(PayloadFormat::INT8, bytes, values.size(), ok);
    ASSERT_TRUE(ok);
    EXPECT_TRUE(SameBits(decoded, Quantized(PayloadFormat::INT8, values))) << "sender = receiver";
    const std::vector<double> halfSteps = PayloadCodec::GetHalfSteps(PayloadFormat::INT8, decoded);
    for (uint32_t block = 0; block < 5; ++block)
    {
        const uint32_t first = block * B;
        const uint32_t n = std::min<uint32_t>(B, values.size() - first);
        double largest = 0;
        for (uint32_t k = first; k < first + n; ++k)
        {
            largest = std::max(largest, std::fabs(double{values[k]}));
        }
        // The scale: max |x| / 127 to 17 significant bits.
        const double scale = ScaleOf(bytes, block);
        EXPECT_NEAR(scale, largest / 127, largest / 127 * std::ldexp(1.0, -17)) << block;
        int frexpExponent = 0;
        const double significand = std::frexp(scale, &frexpExponent);
        EXPECT_EQ(std::ldexp(significand, 17), std::floor(std::ldexp(significand, 17)))
            << "17 significant bits";
        int largestCode = 0;
        for (uint32_t k = first; k < first + n; ++k)
        {
            const int code = CodeOf(bytes, k);
            largestCode = std::max(largestCode, std::abs(code));
            ASSERT_EQ(double{decoded[k]}, code * scale) << "decoded exactly q s at " << k;
            ASSERT_LE(std::fabs(double{values[k]} - decoded[k]), scale / 2) << k;
            ASSERT_EQ(halfSteps[k], scale / 2) << k;
        }
        EXPECT_EQ(largestCode, 127) << block;
    }
}

TEST(PayloadCodec, Int8ZeroBlocksAndABlockWithOneValue)
{
    std::vector<float> values(3 * B, 0.0f);
    values[B + 17] = -3.5f;
    values[2 * B + 5] = -0.0f;
    const std::vector<uint8_t> bytes = Encoded(PayloadFormat::INT8, values);
    for (uint32_t block : {0u, 2u})
    {
        EXPECT_EQ(Bits(ScaleOf(bytes, block)), 0u) << "an all-zero block: scale +0";
        for (uint32_t k = block * B; k < (block + 1) * B; ++k)
        {
            ASSERT_EQ(CodeOf(bytes, k), 0) << k;
        }
    }
    const double scale = ScaleOf(bytes, 1);
    EXPECT_NEAR(scale, 3.5 / 127, 3.5 / 127 * std::ldexp(1.0, -17));
    EXPECT_EQ(CodeOf(bytes, B + 17), -127);
    bool ok = false;
    const std::vector<float> decoded = Decoded(PayloadFormat::INT8, bytes, values.size(), ok);
    ASSERT_TRUE(ok);
    EXPECT_EQ(double{decoded[B + 17]}, -127 * scale);
    EXPECT_LE(std::fabs(decoded[B + 17] + 3.5), scale / 2);
    for (uint32_t k = 0; k < values.size(); ++k)
    {
        if (k != B + 17)
        {
            ASSERT_EQ(Bits(decoded[k]), 0u) << k;
        }
    }
    const std::vector<double> halfSteps = PayloadCodec::GetHalfSteps(PayloadFormat::INT8, decoded);
    EXPECT_EQ(halfSteps[0], 0.0);
    EXPECT_EQ(halfSteps[B], scale / 2);
    EXPECT_EQ(halfSteps[2 * B + 1], 0.0);
}

TEST(PayloadCodec, Int8RoundsHalfToEven)
{
    // max |x| = 31.75 = 127 x 0.25: the scale is 0.25 exactly, and x / 0.25 = k + 0.5 is a tie.
    std::vector<float> values{31.75f, 0.625f, 0.875f, -0.625f, -0.875f, 0.125f, -0.125f, 0.375f};
    const std::vector<uint8_t> bytes = Encoded(PayloadFormat::INT8, values);
    EXPECT_EQ(ScaleOf(bytes, 0), 0.25f);
    const std::vector<int> expected{127, 2, 4, -2, -4, 0, 0, 2};
    for (uint32_t k = 0; k < values.size(); ++k)
    {
        EXPECT_EQ(CodeOf(bytes, k), expected[k]) << values[k] / 0.25;
    }
    // Just off a tie: 2.5 x 0.25 plus one ulp goes up.
    values[1] = std::nextafter(0.625f, 1.0f);
    EXPECT_EQ(CodeOf(Encoded(PayloadFormat::INT8, values), 1), 3);
}

TEST(PayloadCodec, Int8AtTheClampAndTheEndsOfTheRange)
{
    // The scale's rounding to 17 bits can put max |x| / s just above 127: the code is 127 (the
    // clamp's neighbourhood; -128 is never written), the error still within s / 2.
    const float above = static_cast<float>(127 * (1 + 0.45 * std::ldexp(1.0, -16)));
    for (float top : {above, -above})
    {
        const std::vector<float> values{top, 1.0f};
        const std::vector<uint8_t> bytes = Encoded(PayloadFormat::INT8, values);
        const double scale = ScaleOf(bytes, 0);
        EXPECT_EQ(scale, 1.0) << "127.0007 / 127 rounds to 1 at 17 bits";
        EXPECT_GT(std::fabs(top) / scale, 127.0);
        EXPECT_EQ(CodeOf(bytes, 0), top > 0 ? 127 : -127);
        EXPECT_LE(std::fabs(double{top} - 127 * scale * (top > 0 ? 1 : -1)), scale / 2);
    }
    // The largest float: 127 s stays finite (the scale one step lower).
    const float max = std::numeric_limits<float>::max();
    const std::vector<float> huge = Quantized(PayloadFormat::INT8, {max, -max / 3});
    const double hugeScale = PayloadCodec::GetInt8Scale(huge.data(), 2);
    EXPECT_TRUE(std::isfinite(huge[0]));
    EXPECT_LE(std::fabs(double{max} - huge[0]), hugeScale / 2);
    EXPECT_LE(std::fabs(-double{max} / 3 - huge[1]), hugeScale / 2);
    // Tiny blocks: the scale is at least the smallest subnormal, the error within s / 2.
    const float tiny = std::numeric_limits<float>::denorm_min();
    const std::vector<float> smallest = Quantized(PayloadFormat::INT8, {tiny, 0.0f});
    EXPECT_EQ(smallest[0], tiny);
    EXPECT_EQ(PayloadCodec::GetInt8Scale(&tiny, 1), tiny);
    const std::vector<float> small{1e-40f, -3e-41f, 7e-42f};
    const std::vector<float> smallDecoded = Quantized(PayloadFormat::INT8, small);
    const double smallScale = PayloadCodec::GetInt8Scale(small.data(), 3);
    for (uint32_t k = 0; k < small.size(); ++k)
    {
        EXPECT_LE(std::fabs(double{small[k]} - smallDecoded[k]), smallScale / 2) << k;
    }
}

TEST(PayloadCodec, Int8NanOrInfinityPoisonsItsBlockOnly)
{
    for (float bad : {std::numeric_limits<float>::quiet_NaN(),
                      std::numeric_limits<float>::infinity(),
                      -std::numeric_limits<float>::infinity()})
    {
        // 31.75 = 127 x 0.25: the next block's scale is 0.25, its values exact.
        std::vector<float> values(B + 3, 31.75f);
        values[10] = bad;
        const std::vector<uint8_t> bytes = Encoded(PayloadFormat::INT8, values);
        EXPECT_EQ(Bits(ScaleOf(bytes, 0)), PayloadCodec::INT8_NAN_SCALE_BITS);
        EXPECT_EQ(CodeOf(bytes, 0), 0);
        bool ok = false;
        const std::vector<float> decoded = Decoded(PayloadFormat::INT8, bytes, values.size(), ok);
        ASSERT_TRUE(ok);
        for (uint32_t k = 0; k < B; ++k)
        {
            ASSERT_EQ(Bits(decoded[k]), PayloadCodec::INT8_NAN_SCALE_BITS) << k;
        }
        EXPECT_EQ(decoded[B], 31.75f) << "the next block is unharmed";
        EXPECT_TRUE(SameBits(decoded, Quantized(PayloadFormat::INT8, values)));
        const std::vector<double> halfSteps =
            PayloadCodec::GetHalfSteps(PayloadFormat::INT8, decoded);
        EXPECT_TRUE(std::isinf(halfSteps[0]) && std::isinf(halfSteps[B - 1]));
        EXPECT_EQ(halfSteps[B], 0.125);
    }
}

TEST(PayloadCodec, Int8DecodeRefusesWhatEncodeNeverWrites)
{
    // A valid block of two values: scale 0.25 (0x3e800000), codes 127 and 2.
    const std::vector<uint8_t> valid{0x3e, 0x80, 0x00, 0x00, 127, 2};
    bool ok = false;
    const std::vector<float> decoded = Decoded(PayloadFormat::INT8, valid, 2, ok);
    EXPECT_TRUE(ok);
    EXPECT_EQ(decoded, (std::vector<float>{31.75f, 0.5f}));

    struct Bad
    {
        const char* what;
        std::vector<uint8_t> bytes;
    };

    const std::vector<Bad> bad{
        {"negative scale", {0xbe, 0x80, 0x00, 0x00, 127, 2}},
        {"negative zero scale", {0x80, 0x00, 0x00, 0x00, 0, 0}},
        {"infinite scale", {0x7f, 0x80, 0x00, 0x00, 127, 2}},
        {"scale of 24 significant bits", {0x3e, 0x80, 0x00, 0x01, 127, 2}},
        {"127 s overflows", {0x7f, 0x7f, 0xff, 0x00, 127, 2}},
        {"code -128", {0x3e, 0x80, 0x00, 0x00, 127, 0x80}},
        {"no code of magnitude 127", {0x3e, 0x80, 0x00, 0x00, 126, 2}},
        {"zero scale with a code", {0x00, 0x00, 0x00, 0x00, 0, 1}},
        {"NaN scale with a code", {0x7f, 0xc0, 0x00, 0x00, 0, 1}},
        {"another NaN scale", {0x7f, 0xc0, 0x00, 0x01, 0, 0}},
    };
    for (const Bad& b : bad)
    {
        Decoded(PayloadFormat::INT8, b.bytes, 2, ok);
        EXPECT_FALSE(ok) << b.what;
    }
}

TEST(PayloadCodec, QuantizationIsIdempotentInEveryFormat)
{
    for (PayloadFormat format : GetAllPayloadFormats())
    {
        SCOPED_TRACE(PayloadFormatToString(format));
        for (uint32_t seed = 0; seed < 20; ++seed)
        {
            const std::vector<float> values =
                RandomValues(seed, 3 * B + 77, -40 + 4 * seed, 4 * seed);
            const std::vector<uint8_t> bytes = Encoded(format, values);
            const std::vector<float> decoded = Quantized(format, values);
            EXPECT_EQ(Encoded(format, decoded), bytes) << "encoding decoded values, seed " << seed;
            EXPECT_TRUE(SameBits(Quantized(format, decoded), decoded)) << seed;
            bool ok = false;
            EXPECT_TRUE(SameBits(Decoded(format, bytes, values.size(), ok), decoded)) << seed;
            EXPECT_TRUE(ok);
        }
    }
}

TEST(PayloadCodec, Int8EveryScaleOfABinadeReencodesToItself)
{
    // Every 17-bit scale s of [1, 2) (every scale of a normal binade looks alike): the block
    // {127 s, q s} re-encodes to s with the same codes. With a 24-bit scale, float32 would round
    // 127 s, and about 0.8 % of the scales would come back one ulp off.
    std::vector<float> block(3);
    for (uint32_t m = 0; m < (1u << 16); ++m)
    {
        const float s = std::ldexp(static_cast<float>((1u << 16) + m), -16);
        block = {127 * s, -45 * s, 3 * s};
        const std::vector<uint8_t> bytes = Encoded(PayloadFormat::INT8, block);
        ASSERT_EQ(ScaleOf(bytes, 0), s) << m;
        ASSERT_EQ(CodeOf(bytes, 1), -45) << m;
        ASSERT_TRUE(SameBits(Quantized(PayloadFormat::INT8, block), block)) << m;
    }
}
