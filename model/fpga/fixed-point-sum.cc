/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "fixed-point-sum.h"

#include <cmath>

namespace ns3
{

bool
FixedPointSum::ToFixed(float x, int64_t& q)
{
    const double value = static_cast<double>(x);
    // NaN fails both comparisons; infinities fail the second.
    if (!(std::fabs(value) < MAX_MAGNITUDE))
    {
        return false;
    }
    // Exact in double (a float32 times a power of two: a multiplication, cheaper than
    // ldexp), then rounded half to even.
    q = static_cast<int64_t>(std::nearbyint(value / RESOLUTION));
    return true;
}

float
FixedPointSum::ToFloat(int64_t q)
{
    return static_cast<float>(static_cast<double>(q) * RESOLUTION);
}

bool
FixedPointSum::Add(std::vector<int64_t>& sums, const std::vector<float>& values)
{
    // First check every value (a sum must stay strictly below 2^31: |q| < 2^63), then add:
    // converting twice is cheaper than a buffer per contribution.
    for (std::size_t v = 0; v < values.size(); ++v)
    {
        int64_t q = 0;
        int64_t sum = 0;
        if (!ToFixed(values[v], q) || __builtin_add_overflow(sums[v], q, &sum) || sum == INT64_MIN)
        {
            return false;
        }
    }
    for (std::size_t v = 0; v < values.size(); ++v)
    {
        int64_t q = 0;
        ToFixed(values[v], q);
        sums[v] += q;
    }
    return true;
}

bool
FixedPointSum::IsSafe(const std::vector<float>& values, uint32_t contributors)
{
    const double bound = contributors * SAFE_MAGNITUDE;
    for (float x : values)
    {
        if (!(std::fabs(static_cast<double>(x)) < bound))
        {
            return false;
        }
    }
    return true;
}

} // namespace ns3
