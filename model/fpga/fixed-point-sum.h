/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef FIXED_POINT_SUM_H
#define FIXED_POINT_SUM_H

#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * @ingroup wan-training
 * @brief The in-line FPGA's accumulator: what an FPGA adds at line rate is integers, not
 * floats (SwitchML converts to 32-bit fixed point; this one is 64-bit).
 *
 * A value x is held as the int64 q = round-half-even(x 2^FRACTION_BITS): a resolution of 2^-32
 * (2.3e-10; each conversion is off by at most half of it) and a range of |x| < 2^31 (2.1e9) for
 * every value and every sum. A float32 in that range converts exactly to a double and from
 * there to q with one rounding; a sum is read back as float32(q 2^-32) (one rounding to
 * float32, after the exact or, above 2^21, 2^-53-relative conversion to double). So the sum of
 * m float32 contributions is off from their exact sum by at most m x 2^-33 plus the half step
 * of its float32 (or of the clique's format, once encoded). Add() is all or nothing: a
 * contribution with a value outside the range (or NaN or infinite), or whose addition would
 * take a sum out of it, adds nothing and reports it, so that the FPGA can send the slot's
 * partial aggregate and let the contribution pass.
 */
class FixedPointSum
{
  public:
    /** Fractional bits of the accumulator. */
    static constexpr int FRACTION_BITS = 32;
    /** Value of one least significant bit: 2^-32. */
    static constexpr double RESOLUTION = 1.0 / 4294967296.0;
    /** Every value and every sum stays strictly below this magnitude: 2^31. */
    static constexpr double MAX_MAGNITUDE = 2147483648.0;
    /**
     * A contribution of c contributors none of whose values reaches c x SAFE_MAGNITUDE (2^25)
     * can never overflow a slot: the at most 64 contributors of a slot stay below 2^31.
     */
    static constexpr double SAFE_MAGNITUDE = MAX_MAGNITUDE / 64;

    /**
     * @param x a value
     * @param q receives its fixed-point form (unchanged when this returns false)
     * @return whether x is finite and within the range
     */
    static bool ToFixed(float x, int64_t& q);
    /**
     * @param q a fixed-point value
     * @return it as float32 (rounded to nearest)
     */
    static float ToFloat(int64_t q);
    /**
     * @brief Add a contribution to running sums, all or nothing.
     * @param sums the running sums (one per value; as long as values)
     * @param values the contribution
     * @return false (sums unchanged) when a value is out of range or a sum would leave it
     */
    static bool Add(std::vector<int64_t>& sums, const std::vector<float>& values);
    /**
     * @param values a contribution
     * @param contributors how many contributors it holds (1 for DATA)
     * @return whether every value is finite and below contributors x SAFE_MAGNITUDE, so that no
     *         sum of at most 64 contributors that includes it can overflow
     */
    static bool IsSafe(const std::vector<float>& values, uint32_t contributors);
};

} // namespace ns3

#endif /* FIXED_POINT_SUM_H */
