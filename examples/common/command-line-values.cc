/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "command-line-values.h"

#include "config-value-parser.h"
#include "wan-config-error.h"
#include "wan-input-error.h"

#include "ns3/abort.h"
#include "ns3/global-value.h"
#include "ns3/log.h"
#include "ns3/priority-queue-scheduler.h"
#include "ns3/type-id.h"

#include <cmath>
#include <iostream>
#include <sstream>
#include <utility>
#include <vector>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("WanTrainingCommandLineValues");

namespace
{

/**
 * @brief Read a number as ParseNumber() reads it: the whole text by `std::istream >> double`.
 * @param text the text
 * @param value the number read
 * @return whether the whole text is a finite number
 */
bool
ReadNumber(const std::string& text, double& value)
{
    std::istringstream in(text);
    value = 0;
    in >> value;
    return !text.empty() && !in.fail() && in.eof() && std::isfinite(value);
}

/**
 * @brief Run a parser of names whose WanInputError names no option, and word its error as the
 * option's.
 * @param program the program name, for the message
 * @param option the option name, for the message
 * @param parse the parser
 * @return what it returns
 * @throws WanInputError(program, option, the parser's reason)
 */
template <typename Parse>
auto
AsOptionError(const std::string& program, const std::string& option, Parse parse)
    -> decltype(parse())
{
    try
    {
        return parse();
    }
    catch (const WanInputError& error)
    {
        throw WanInputError(program, option, error.GetReason());
    }
}

} // namespace

double
CommandLineValues::ParseNumber(const std::string& program,
                               const std::string& option,
                               const std::string& text,
                               double minimum,
                               bool inclusive)
{
    double value = 0;
    if (!ReadNumber(text, value) || (inclusive ? value < minimum : value <= minimum))
    {
        std::ostringstream reason;
        reason << "must be a finite number " << (inclusive ? ">= " : "> ") << minimum << " (got '"
               << text << "')";
        throw WanInputError(program, option, reason.str());
    }
    return value;
}

uint64_t
CommandLineValues::ParseWholeNumber(const std::string& program,
                                    const std::string& option,
                                    const std::string& text,
                                    uint64_t minValue,
                                    uint64_t maxValue)
{
    NS_ABORT_MSG_IF(maxValue > (uint64_t{1} << 53),
                    "CommandLineValues::ParseWholeNumber(): the maximum "
                        << maxValue << " exceeds 2^53, where doubles stop being exact");
    double value = 0;
    if (!ReadNumber(text, value) || value != std::floor(value) ||
        value < static_cast<double>(minValue) || value > static_cast<double>(maxValue))
    {
        throw WanInputError(program,
                            option,
                            "must be a whole number in [" + std::to_string(minValue) + ", " +
                                std::to_string(maxValue) + "], e.g. 1e9 (got '" + text + "')");
    }
    return static_cast<uint64_t>(value);
}

double
CommandLineValues::ParseFraction(const std::string& program,
                                 const std::string& option,
                                 const std::string& text)
{
    double value = ParseNumber(program, option, text, 0, false);
    if (value >= 1)
    {
        throw WanInputError(program, option, "must be < 1 (got '" + text + "')");
    }
    return value;
}

double
CommandLineValues::ParseNumberInRange(const std::string& program,
                                      const std::string& option,
                                      const std::string& text,
                                      double minValue,
                                      double maxValue,
                                      bool maxOpen)
{
    try
    {
        return ConfigValueParser::ParseNumberInRange(option, text, minValue, maxValue, maxOpen);
    }
    catch (const WanConfigError& error)
    {
        throw WanInputError(program, option, error.GetReason());
    }
}

uint64_t
CommandLineValues::ParseWhole(const std::string& program,
                              const std::string& option,
                              const std::string& text,
                              uint64_t minimum)
{
    bool digits = !text.empty() && text.size() <= 19 &&
                  text.find_first_not_of("0123456789") == std::string::npos;
    uint64_t value = digits ? std::stoull(text) : 0;
    if (!digits || value < minimum)
    {
        throw WanInputError(program,
                            option,
                            "must be a whole number >= " + std::to_string(minimum) + " (got '" +
                                text + "')");
    }
    return value;
}

uint64_t
CommandLineValues::ParseUnsigned(const std::string& program,
                                 const std::string& option,
                                 const std::string& text,
                                 uint64_t minValue,
                                 uint64_t maxValue)
{
    bool digits = !text.empty() && text.size() <= 19 &&
                  text.find_first_not_of("0123456789") == std::string::npos;
    uint64_t value = digits ? std::stoull(text) : 0;
    if (!digits || value < minValue || value > maxValue)
    {
        throw WanInputError(program,
                            option,
                            "must be an integer in [" + std::to_string(minValue) + ", " +
                                std::to_string(maxValue) + "] (got '" + text + "')");
    }
    return value;
}

Time
CommandLineValues::ParseDuration(const std::string& program,
                                 const std::string& option,
                                 const std::string& text,
                                 bool allowZero)
{
    try
    {
        return ConfigValueParser::ParseDuration(option, text, allowZero);
    }
    catch (const WanConfigError& error)
    {
        throw WanInputError(program, option, error.GetReason());
    }
}

CapabilityMode
CommandLineValues::ParseMode(const std::string& program,
                             const std::string& option,
                             const std::string& text)
{
    return AsOptionError(program, option, [&text]() { return CapabilityModeFromString(text); });
}

PayloadFormat
CommandLineValues::ParseFormat(const std::string& program,
                               const std::string& option,
                               const std::string& text)
{
    return AsOptionError(program, option, [&text]() { return PayloadFormatFromString(text); });
}

uint64_t
CommandLineValues::ParseModelParameters(const std::string& program,
                                        const std::string& option,
                                        const std::string& text)
{
    return ParseWholeNumber(program, option, text, 1, uint64_t{1} << 48);
}

void
CommandLineValues::RequireOneModelSize(const std::string& program,
                                       bool bytesGiven,
                                       bool parametersGiven)
{
    const std::string reason = "give either --modelBytes (the wire size S in every format) or "
                               "--modelParameters (S derived from the format), not both";
    if (bytesGiven && parametersGiven)
    {
        throw WanInputError(program, "--modelParameters", reason);
    }
}

void
CommandLineValues::RequireOneTopologySource(const std::string& program,
                                            const std::string& topologyFile,
                                            uint64_t syntheticIslands)
{
    if (syntheticIslands == 0 && topologyFile.empty())
    {
        throw WanInputError(program, "--topology", "required (or --syntheticIslands=N)");
    }
    if (syntheticIslands > 0 && !topologyFile.empty())
    {
        throw WanInputError(program,
                            "--syntheticIslands",
                            "give either --topology or --syntheticIslands, not both");
    }
}

void
CommandLineValues::OpenOutput(const std::string& program,
                              const std::string& option,
                              const std::string& file,
                              std::ofstream& out)
{
    out.open(file);
    if (!out)
    {
        throw WanInputError(program, option, "cannot write '" + file + "'");
    }
}

void
CommandLineValues::CloseOutput(const std::string& program,
                               const std::string& option,
                               const std::string& file,
                               std::ofstream& out)
{
    out.close();
    if (!out)
    {
        throw WanInputError(program, option, "cannot write '" + file + "'");
    }
}

void
CommandLineValues::WriteText(const std::string& program,
                             const std::string& option,
                             const std::string& file,
                             const std::string& text)
{
    std::ofstream out(file);
    out << text;
    if (!out)
    {
        throw WanInputError(program, option, "cannot write " + file);
    }
}

void
CommandLineValues::SetSchedulerDefault()
{
    GlobalValue::Bind("SchedulerType", TypeIdValue(PriorityQueueScheduler::GetTypeId()));
}

int
CommandLineValues::RunProgram(const std::function<int()>& run, const std::string& prefix)
{
    try
    {
        return run();
    }
    catch (const WanInputError& error)
    {
        // A message that names the program already (an option error) is not prefixed again.
        const std::string message = error.what();
        const bool named = !prefix.empty() && message.compare(0, prefix.size(), prefix) == 0;
        std::cerr << (named ? "" : prefix) << message << std::endl;
        return 1;
    }
}

int
CommandLineValues::RunProgram(const std::string& program,
                              const FieldOptions& options,
                              const std::function<int()>& run)
{
    return RunProgram([&]() {
        try
        {
            return run();
        }
        catch (const WanConfigError& error)
        {
            throw ToInputError(program, options, error);
        }
    });
}

WanInputError
CommandLineValues::ToInputError(const std::string& program,
                                const FieldOptions& options,
                                const WanConfigError& error)
{
    auto optionOf = [&options](const std::string& field) {
        auto it = options.find(field);
        return it == options.end() ? field : it->second;
    };
    // Every {field} of the reason becomes the option that set it.
    std::string reason;
    const std::string& text = error.GetReason();
    std::size_t start = 0;
    while (start < text.size())
    {
        const std::size_t open = text.find('{', start);
        const std::size_t close = open == std::string::npos ? open : text.find('}', open);
        if (close == std::string::npos)
        {
            reason += text.substr(start);
            break;
        }
        reason +=
            text.substr(start, open - start) + optionOf(text.substr(open + 1, close - open - 1));
        start = close + 1;
    }
    return WanInputError(program, optionOf(error.GetField()), reason);
}

} // namespace ns3
