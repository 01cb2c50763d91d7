/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "payload-codec.h"

#include "sync-protocol.h"

#include "ns3/assert.h"
#include "ns3/fatal-error.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace ns3
{

namespace
{

/** The smallest subnormal float, 2^-149: the smallest nonzero int8 scale. */
const double MIN_SCALE = std::ldexp(1.0, -149);

/**
 * @brief The bits of a value as another type of their size (std::bit_cast of C++20), inline
 * where the exported PayloadCodec::FloatToBits and BitsToFloat would be calls.
 * @param from the value
 * @return its bits as a To
 */
template <typename To, typename From>
To
BitCast(From from)
{
    static_assert(sizeof(To) == sizeof(From), "a bit cast keeps the size");
    To to;
    std::memcpy(&to, &from, sizeof(to));
    return to;
}

// The protocol's network byte order.
constexpr auto GetU32 = &SyncProtocol::GetU32; //!< SyncProtocol::GetU32
constexpr auto PutU32 = &SyncProtocol::PutU32; //!< SyncProtocol::PutU32

/**
 * @brief Round a positive scale to the int8 scale grid: INT8_SCALE_BITS significant bits
 * (nearest, ties to even), a multiple of 2^-149, at least 2^-149, and 127 times it finite.
 * @param r the exact scale wanted (max |x| / 127 for a finite max |x| > 0)
 * @return the scale
 */
float
RoundScale(double r)
{
    int exponent = 0;
    std::frexp(r, &exponent); // r = f 2^exponent, f in [0.5, 1)
    const double step = std::ldexp(1.0, std::max(exponent - PayloadCodec::INT8_SCALE_BITS, -149));
    double s = std::max(std::nearbyint(r / step) * step, MIN_SCALE);
    if (PayloadCodec::INT8_MAX_CODE * s > std::numeric_limits<float>::max())
    {
        s -= step;
    }
    return static_cast<float>(s);
}

/**
 * @param value a float
 * @param bits the significand bits of the format (24 for fp32, 8 for bf16)
 * @return half an ulp of the format at value (infinite for a NaN or an infinity)
 */
double
HalfUlp(float value, int bits)
{
    if (!std::isfinite(value))
    {
        return std::numeric_limits<double>::infinity();
    }
    const int exponent = value == 0 ? -126 : std::max(std::ilogb(value), -126);
    return std::ldexp(1.0, exponent - bits);
}

/**
 * @brief The scale and codes of one int8 block.
 * @param values the block's values
 * @param count how many
 * @param codes receives count codes
 * @return the scale
 */
float
EncodeInt8Block(const float* values, uint32_t count, int8_t* codes)
{
    const float scale = PayloadCodec::GetInt8Scale(values, count);
    if (scale == 0 || std::isnan(scale))
    {
        std::fill(codes, codes + count, int8_t{0});
        return scale;
    }
    const double s = scale;
    for (uint32_t k = 0; k < count; ++k)
    {
        const double q = std::nearbyint(values[k] / s);
        codes[k] = static_cast<int8_t>(std::clamp(q,
                                                  double{-PayloadCodec::INT8_MAX_CODE},
                                                  double{PayloadCodec::INT8_MAX_CODE}));
    }
    return scale;
}

/**
 * @brief Decode one int8 block, refusing what EncodeInt8Block cannot write.
 * @param scale the block's scale
 * @param codes its codes
 * @param count how many
 * @param values receives count values
 * @return whether the block is an encoding EncodeInt8Block writes
 */
bool
DecodeInt8Block(float scale, const int8_t* codes, uint32_t count, float* values)
{
    const uint32_t bits = BitCast<uint32_t>(scale);
    const bool zeroCodes = std::all_of(codes, codes + count, [](int8_t code) { return code == 0; });
    if (bits == 0 || bits == PayloadCodec::INT8_NAN_SCALE_BITS)
    {
        std::fill(values, values + count, scale);
        return zeroCodes;
    }
    if ((bits >> 31) != 0 || !std::isfinite(scale) || RoundScale(scale) != scale)
    {
        return false;
    }
    int32_t largest = 0;
    for (uint32_t k = 0; k < count; ++k)
    {
        largest = std::max(largest, std::abs(int32_t{codes[k]}));
        values[k] = static_cast<float>(codes[k]) * scale;
    }
    return largest == PayloadCodec::INT8_MAX_CODE;
}

/**
 * @param value a float
 * @return its bf16 bits: rounded to nearest, ties to even (NaN: BF16_QUIET_NAN)
 */
uint16_t
ToBf16(float value)
{
    if (std::isnan(value))
    {
        return PayloadCodec::BF16_QUIET_NAN;
    }
    // Round to nearest, ties to even: add just under half of the dropped part's unit, plus the
    // kept part's lowest bit. Infinities stay; a finite value carries into infinity.
    const uint32_t bits = BitCast<uint32_t>(value);
    const uint32_t rounding = 0x7fff + ((bits >> 16) & 1);
    return static_cast<uint16_t>((bits + rounding) >> 16);
}

/**
 * @param bits bf16 bits
 * @return the float they stand for (exact)
 */
float
FromBf16(uint16_t bits)
{
    return BitCast<float>(uint32_t{bits} << 16);
}

} // namespace

uint32_t
PayloadCodec::FloatToBits(float value)
{
    return BitCast<uint32_t>(value);
}

float
PayloadCodec::BitsToFloat(uint32_t bits)
{
    return BitCast<float>(bits);
}

uint16_t
PayloadCodec::EncodeBf16(float value)
{
    return ToBf16(value);
}

float
PayloadCodec::DecodeBf16(uint16_t bits)
{
    return FromBf16(bits);
}

float
PayloadCodec::GetInt8Scale(const float* values, uint32_t count)
{
    NS_ASSERT_MSG(count <= INT8_BLOCK_VALUES, "an int8 block of " << count << " values");
    float largest = 0;
    for (uint32_t k = 0; k < count; ++k)
    {
        if (!std::isfinite(values[k]))
        {
            return BitCast<float>(INT8_NAN_SCALE_BITS);
        }
        largest = std::max(largest, std::fabs(values[k]));
    }
    return largest == 0 ? 0.0f : RoundScale(double{largest} / INT8_MAX_CODE);
}

void
PayloadCodec::Encode(PayloadFormat format, const float* values, uint32_t count, uint8_t* out)
{
    switch (format)
    {
    case PayloadFormat::FP32:
        for (uint32_t k = 0; k < count; ++k)
        {
            PutU32(out + 4 * k, BitCast<uint32_t>(values[k]));
        }
        return;
    case PayloadFormat::BF16:
        for (uint32_t k = 0; k < count; ++k)
        {
            const uint16_t bits = ToBf16(values[k]);
            out[2 * k] = static_cast<uint8_t>(bits >> 8);
            out[2 * k + 1] = static_cast<uint8_t>(bits);
        }
        return;
    case PayloadFormat::INT8:
        for (uint32_t first = 0; first < count; first += INT8_BLOCK_VALUES)
        {
            const uint32_t n = std::min(INT8_BLOCK_VALUES, count - first);
            const float scale =
                EncodeInt8Block(values + first, n, reinterpret_cast<int8_t*>(out + 4));
            PutU32(out, BitCast<uint32_t>(scale));
            out += INT8_SCALE_BYTES + n;
        }
        return;
    }
    NS_FATAL_ERROR("unknown payload format " << static_cast<int>(format));
}

bool
PayloadCodec::Decode(PayloadFormat format, const uint8_t* in, uint32_t count, float* values)
{
    switch (format)
    {
    case PayloadFormat::FP32:
        for (uint32_t k = 0; k < count; ++k)
        {
            values[k] = BitCast<float>(GetU32(in + 4 * k));
        }
        return true;
    case PayloadFormat::BF16:
        for (uint32_t k = 0; k < count; ++k)
        {
            const uint16_t bits = static_cast<uint16_t>((in[2 * k] << 8) | in[2 * k + 1]);
            values[k] = FromBf16(bits);
            if (std::isnan(values[k]) && bits != BF16_QUIET_NAN)
            {
                return false;
            }
        }
        return true;
    case PayloadFormat::INT8:
        for (uint32_t first = 0; first < count; first += INT8_BLOCK_VALUES)
        {
            const uint32_t n = std::min(INT8_BLOCK_VALUES, count - first);
            const float scale = BitCast<float>(GetU32(in));
            if (!DecodeInt8Block(scale,
                                 reinterpret_cast<const int8_t*>(in + INT8_SCALE_BYTES),
                                 n,
                                 values + first))
            {
                return false;
            }
            in += INT8_SCALE_BYTES + n;
        }
        return true;
    }
    return false;
}

void
PayloadCodec::Quantize(PayloadFormat format, float* values, uint32_t count)
{
    switch (format)
    {
    case PayloadFormat::FP32:
        return;
    case PayloadFormat::BF16:
        for (uint32_t k = 0; k < count; ++k)
        {
            values[k] = FromBf16(ToBf16(values[k]));
        }
        return;
    case PayloadFormat::INT8: {
        int8_t codes[INT8_BLOCK_VALUES];
        for (uint32_t first = 0; first < count; first += INT8_BLOCK_VALUES)
        {
            const uint32_t n = std::min(INT8_BLOCK_VALUES, count - first);
            const float scale = EncodeInt8Block(values + first, n, codes);
            DecodeInt8Block(scale, codes, n, values + first);
        }
        return;
    }
    }
    NS_FATAL_ERROR("unknown payload format " << static_cast<int>(format));
}

void
PayloadCodec::Quantize(PayloadFormat format, std::vector<float>& values)
{
    Quantize(format, values.data(), static_cast<uint32_t>(values.size()));
}

std::vector<double>
PayloadCodec::GetHalfSteps(PayloadFormat format, const std::vector<float>& decoded)
{
    std::vector<double> steps(decoded.size());
    switch (format)
    {
    case PayloadFormat::FP32:
    case PayloadFormat::BF16: {
        const int bits = format == PayloadFormat::FP32 ? 24 : 8;
        for (std::size_t k = 0; k < decoded.size(); ++k)
        {
            steps[k] = HalfUlp(decoded[k], bits);
        }
        return steps;
    }
    case PayloadFormat::INT8:
        for (std::size_t first = 0; first < decoded.size(); first += INT8_BLOCK_VALUES)
        {
            const uint32_t n = static_cast<uint32_t>(
                std::min<std::size_t>(INT8_BLOCK_VALUES, decoded.size() - first));
            const float scale = GetInt8Scale(decoded.data() + first, n);
            const double half =
                std::isnan(scale) ? std::numeric_limits<double>::infinity() : double{scale} / 2;
            std::fill(steps.begin() + first, steps.begin() + first + n, half);
        }
        return steps;
    }
    NS_FATAL_ERROR("unknown payload format " << static_cast<int>(format));
    return steps;
}

} // namespace ns3
