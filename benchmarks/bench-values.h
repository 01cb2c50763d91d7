/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef BENCH_VALUES_H
#define BENCH_VALUES_H

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace ns3
{

/**
 * @ingroup wan-training
 * @brief The numbers of the benchmark's case results as BenchRunner and BenchTargets read and
 * print them: a failed case's missing number is NaN, printed "-" and written null.
 */
class BenchValues
{
  public:
    /**
     * @param json a case result
     * @param key a numeric field
     * @return its value, NaN when the case failed or lacks it
     */
    static double Number(const nlohmann::json& json, const std::string& key);
    /**
     * @param json a case result
     * @return whether the case ran and passed its own checks
     */
    static bool Passed(const nlohmann::json& json);
    /**
     * @param value a number (NaN for a failed case)
     * @return it as JSON: null when it is not finite
     */
    static nlohmann::json NumberOrNull(double value);
    /**
     * @param values numbers
     * @return their median (the mean of the middle two for an even count; NaN when empty)
     */
    static double Median(std::vector<double> values);
    /**
     * @param bytes a size
     * @return it in decimal units ("64 MB", "1 GB", "500 kB")
     */
    static std::string BytesText(double bytes);
    /**
     * @param value a number
     * @param precision digits after the point
     * @return it in fixed notation, or "-" when it is not finite
     */
    static std::string Fixed(double value, int precision);
};

} // namespace ns3

#endif /* BENCH_VALUES_H */
