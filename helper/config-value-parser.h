/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef CONFIG_VALUE_PARSER_H
#define CONFIG_VALUE_PARSER_H

#include "ns3/nstime.h"

#include <string>

namespace ns3
{

/**
 * @ingroup wan-training
 * @brief Strict parsing of configuration values given as text (a rate, a duration), for the
 * text forms of the library's configurations (FaultPlan::Texts) and for the programs.
 *
 * Every parser takes the configuration field the value is for (e.g. `faults.reorderRate`) and
 * throws WanConfigError(field, reason) when the value is malformed or out of range; a program
 * that read the text from an option names the option instead.
 */
class ConfigValueParser
{
  public:
    /**
     * @brief Parse a finite decimal number in a closed or right-open range (read by strtod).
     * @param field the configuration field, for the error
     * @param text the value given
     * @param minValue the smallest accepted value
     * @param maxValue the largest accepted value (exclusive when maxOpen)
     * @param maxOpen whether maxValue itself is excluded
     * @return the value
     * @throws WanConfigError "must be a number in [MIN, MAX] (got 'TEXT')" (or "[MIN, MAX)")
     *         unless text is a finite number in the range
     */
    static double ParseNumberInRange(const std::string& field,
                                     const std::string& text,
                                     double minValue,
                                     double maxValue,
                                     bool maxOpen);

    /**
     * @brief Parse a duration: a number with an optional unit s, ms, us or ns (default s).
     * @param field the configuration field, for the error
     * @param text the value given
     * @param allowZero whether 0 is accepted
     * @return the duration, rounded to nanoseconds
     * @throws WanConfigError "must be a non-negative (or positive) duration up to one day, ..."
     *         unless text is a finite duration in range
     */
    static Time ParseDuration(const std::string& field, const std::string& text, bool allowZero);
};

} // namespace ns3

#endif /* CONFIG_VALUE_PARSER_H */
