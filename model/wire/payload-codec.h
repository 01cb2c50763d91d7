/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef PAYLOAD_CODEC_H
#define PAYLOAD_CODEC_H

#include "payload-format.h"

#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * @ingroup wan-training
 * @brief Encodes and decodes the float values of a contribution in a PayloadFormat, as the
 * value area of an IslandSyncHeader carries them (network byte order):
 *
 * - fp32: the IEEE 754 bits, 4 bytes a value; exact, NaN payloads kept.
 * - bf16: the upper 16 bits of the binary32 after rounding to nearest, ties to even, 2 bytes a
 *   value. Infinities stay infinite, a finite value beyond the largest bf16 rounds to infinity
 *   (as rounding to nearest does), every NaN becomes the quiet NaN 0x7fc0 (sign and payload
 *   dropped).
 * - int8: blocks of INT8_BLOCK_VALUES values counted from the first value (the last block may
 *   be shorter), each the float32 scale s then one int8 code a value: s = max |x| / 127 over the
 *   block, rounded to nearest (ties to even) to 17 significant bits, at least the smallest
 *   subnormal, and one step lower should 127 s overflow; a block of zeros has s = 0 and codes 0;
 *   q = clamp(round-half-even(x / s), -127, 127) with x / s in double (exact for deciding ties);
 *   the decoded value is q s. With 17 bits q s is exact in float32, so the decoded value is off
 *   by at most s / 2 and encoding decoded values again gives the same scale, codes and values.
 *   A block holding a NaN or an infinity cannot be scaled: it encodes as the quiet NaN scale
 *   0x7fc00000 with codes 0 and decodes to quiet NaNs throughout.
 *
 * Quantization is idempotent in every format: Encode(Decode(Encode(x))) == Encode(x) byte for
 * byte, so whoever re-encodes a decoded vector (a ring step, an FPGA's sum of one contribution)
 * sends what it holds, and a sender's decoded values (Quantize()) equal its receivers' bit for
 * bit. Decode() accepts exactly what Encode() writes (see there).
 */
class PayloadCodec
{
  public:
    /** The quiet NaN every NaN becomes in bf16. */
    static constexpr uint16_t BF16_QUIET_NAN = 0x7fc0;
    /** The bits of the scale of an int8 block that held a NaN or an infinity. */
    static constexpr uint32_t INT8_NAN_SCALE_BITS = 0x7fc00000;
    /** The largest int8 code magnitude (-128 is never written). */
    static constexpr int32_t INT8_MAX_CODE = 127;
    /** Significant bits of an int8 scale: with 7 bits of code, q s is exact in float32. */
    static constexpr int INT8_SCALE_BITS = 17;

    /**
     * @brief Encode values.
     * @param format the format
     * @param values the values (the first starts an int8 block)
     * @param count how many
     * @param out receives GetEncodedBytes(format, count) bytes
     */
    static void Encode(PayloadFormat format, const float* values, uint32_t count, uint8_t* out);

    /**
     * @brief Decode values, accepting only what Encode() writes: bf16 NaNs other than
     * BF16_QUIET_NAN are refused; an int8 block is refused unless its scale is +0 with codes 0,
     * the NaN scale with codes 0, or a positive finite scale of at most INT8_SCALE_BITS
     * significant bits with 127 s finite, codes in [-127, 127] and one of them of magnitude 127.
     * @param format the format
     * @param in GetEncodedBytes(format, count) bytes
     * @param count how many values
     * @param values receives count decoded values (unspecified when this returns false)
     * @return whether the bytes are an encoding Encode() writes
     */
    static bool Decode(PayloadFormat format, const uint8_t* in, uint32_t count, float* values);

    /**
     * @brief Quantize in place: values become Decode(Encode(values)), what every member of a
     * clique averages. Nothing changes in fp32.
     * @param format the format
     * @param values the values (the first starts an int8 block)
     * @param count how many
     */
    static void Quantize(PayloadFormat format, float* values, uint32_t count);

    /**
     * @brief Quantize a vector in place (see the pointer form).
     * @param format the format
     * @param values the values (the first starts an int8 block)
     */
    static void Quantize(PayloadFormat format, std::vector<float>& values);

    /**
     * @brief The half step of each decoded value: a bound on |y - d| for every real y that the
     * format rounds to the decoded value d, for a verifier that checks a sum encoded m times
     * within m half steps (plus its accumulator's resolution).
     *
     * fp32: half an ulp of binary32 at d, 2^(max(e, -126) - 24) with e = floor(log2 |d|) (so
     * 2^-150 for 0 and subnormals); bf16: half an ulp of bfloat16 at d, 2^(max(e, -126) - 8),
     * at most |d| 2^-8 for a normal d (d's binade is never below that of what rounded to it);
     * int8: s / 2 of d's block (s recomputed from the decoded block, which gives its scale back;
     * 0 for a block of zeros, which only zeros encode to). A NaN or infinite d, and every value of
     * an int8 block holding one, has an infinite half step. A double sum rounded to float
     * before it is encoded adds the fp32 half step.
     * @param format the format
     * @param decoded decoded values (the first starts an int8 block)
     * @return the half step of each value
     */
    static std::vector<double> GetHalfSteps(PayloadFormat format,
                                            const std::vector<float>& decoded);

    /**
     * @param value a float
     * @return its IEEE 754 bits (its fp32 encoding, in host order)
     */
    static uint32_t FloatToBits(float value);

    /**
     * @param bits IEEE 754 bits
     * @return the float
     */
    static float BitsToFloat(uint32_t bits);

    /**
     * @param value a float
     * @return its bf16 bits: rounded to nearest, ties to even (NaN: BF16_QUIET_NAN)
     */
    static uint16_t EncodeBf16(float value);

    /**
     * @param bits bf16 bits
     * @return the float they stand for (exact)
     */
    static float DecodeBf16(uint16_t bits);

    /**
     * @param values the values of one int8 block
     * @param count how many (at most INT8_BLOCK_VALUES)
     * @return the block's scale (the NaN scale when a value is not finite)
     */
    static float GetInt8Scale(const float* values, uint32_t count);
};

} // namespace ns3

#endif /* PAYLOAD_CODEC_H */
