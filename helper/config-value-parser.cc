/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "config-value-parser.h"

#include "wan-config-error.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <sstream>
#include <utility>
#include <vector>

namespace ns3
{

double
ConfigValueParser::ParseNumberInRange(const std::string& field,
                                      const std::string& text,
                                      double minValue,
                                      double maxValue,
                                      bool maxOpen)
{
    char* end = nullptr;
    errno = 0;
    double value = text.empty() ? 0 : std::strtod(text.c_str(), &end);
    bool parsed =
        !text.empty() && end == text.c_str() + text.size() && errno == 0 && std::isfinite(value);
    if (!parsed || value < minValue || value > maxValue || (maxOpen && value == maxValue))
    {
        std::ostringstream range;
        range << "[" << minValue << ", " << maxValue << (maxOpen ? ")" : "]");
        throw WanConfigError(field, "must be a number in " + range.str() + " (got '" + text + "')");
    }
    return value;
}

Time
ConfigValueParser::ParseDuration(const std::string& field, const std::string& text, bool allowZero)
{
    static const std::vector<std::pair<std::string, double>> units{{"ms", 1e-3},
                                                                   {"us", 1e-6},
                                                                   {"ns", 1e-9},
                                                                   {"s", 1.0}};
    std::string number = text;
    double scale = 1.0;
    for (const auto& [suffix, factor] : units)
    {
        if (text.size() > suffix.size() &&
            text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0)
        {
            number = text.substr(0, text.size() - suffix.size());
            scale = factor;
            break;
        }
    }
    char* end = nullptr;
    double value = number.empty() ? -1 : std::strtod(number.c_str(), &end);
    bool parsed = !number.empty() && end == number.c_str() + number.size() &&
                  std::isfinite(value) && value >= 0 && value * scale <= 86400 &&
                  (allowZero || value > 0);
    if (!parsed)
    {
        throw WanConfigError(field,
                             std::string("must be a ") + (allowZero ? "non-negative" : "positive") +
                                 " duration up to one day, e.g. 10ms, 0.5s, 200us (got '" + text +
                                 "')");
    }
    return NanoSeconds(static_cast<int64_t>(std::llround(value * scale * 1e9)));
}

} // namespace ns3
