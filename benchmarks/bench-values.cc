/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "bench-values.h"

#include "ns3/log.h"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <limits>
#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("WanTrainingBenchValues");

double
BenchValues::Number(const nlohmann::json& json, const std::string& key)
{
    if (!json.is_object() || !json.contains(key) || !json.at(key).is_number())
    {
        return std::numeric_limits<double>::quiet_NaN();
    }
    return json.at(key).get<double>();
}

bool
BenchValues::Passed(const nlohmann::json& json)
{
    return json.is_object() && json.value("passed", false);
}

nlohmann::json
BenchValues::NumberOrNull(double value)
{
    return std::isfinite(value) ? nlohmann::json(value) : nlohmann::json(nullptr);
}

double
BenchValues::Median(std::vector<double> values)
{
    if (values.empty())
    {
        return std::numeric_limits<double>::quiet_NaN();
    }
    std::sort(values.begin(), values.end());
    const std::size_t middle = values.size() / 2;
    return values.size() % 2 == 1 ? values[middle] : (values[middle - 1] + values[middle]) / 2;
}

std::string
BenchValues::BytesText(double bytes)
{
    std::ostringstream out;
    if (bytes >= 1e9)
    {
        out << bytes / 1e9 << " GB";
    }
    else if (bytes >= 1e6)
    {
        out << bytes / 1e6 << " MB";
    }
    else if (bytes >= 1e3)
    {
        out << bytes / 1e3 << " kB";
    }
    else
    {
        out << bytes << " B";
    }
    return out.str();
}

std::string
BenchValues::Fixed(double value, int precision)
{
    if (!std::isfinite(value))
    {
        return "-";
    }
    std::ostringstream out;
    out << std::fixed << std::setprecision(precision) << value;
    return out.str();
}

} // namespace ns3
