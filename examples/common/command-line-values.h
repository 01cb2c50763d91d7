/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef COMMAND_LINE_VALUES_H
#define COMMAND_LINE_VALUES_H

#include "link-load-model.h"
#include "payload-format.h"
#include "wan-config-error.h"
#include "wan-input-error.h"

#include "ns3/nstime.h"

#include <cstdint>
#include <fstream>
#include <functional>
#include <map>
#include <string>

namespace ns3
{

/**
 * @ingroup wan-training
 * @brief Strict parsing of command-line values and the error edge of the module's programs.
 *
 * Every parser takes the program name and the option (with its dashes, e.g. `--modelBytes`) and
 * throws WanInputError(program, option, reason) when the value is malformed or out of range, so
 * that every program reports bad values the same way. RunProgram() is the edge that catches
 * those errors, prints them and turns them into exit status 1; given the options that set the
 * fields of a configuration (FieldOptions), it reports the library's WanConfigError(field,
 * reason) as `PROGRAM: --option: REASON` too. This is the programs' side of the module (the
 * library names no option): it is linked by the examples, tools and benchmarks only.
 */
class CommandLineValues
{
  public:
    /**
     * The option that sets each configuration field a program reports errors of: field (e.g.
     * `modelBytes`, `faults.crashes`) -> option with its dashes (`--modelBytes`, `--crash`).
     */
    using FieldOptions = std::map<std::string, std::string>;

    /**
     * @brief Parse a finite number with a lower bound (read as by `std::istream >> double`).
     * @param program the program name, for the message
     * @param option the option name, for the message
     * @param text the value given
     * @param minimum the smallest accepted value
     * @param inclusive whether the minimum itself is accepted
     * @return the value
     * @throws WanInputError "must be a finite number >= MIN (got 'TEXT')" (or "> MIN") when the
     *         text is not a finite number in range
     */
    static double ParseNumber(const std::string& program,
                              const std::string& option,
                              const std::string& text,
                              double minimum,
                              bool inclusive);

    /**
     * @brief Parse a whole number written as ParseNumber() reads it, so that sizes can be given
     * in the same forms everywhere (1000000000, 1e9, 2.5e8), in a closed range.
     * @param program the program name, for the message
     * @param option the option name, for the message
     * @param text the value given
     * @param minValue the smallest accepted value
     * @param maxValue the largest accepted value (at most 2^53, where doubles stop being exact)
     * @return the value
     * @throws WanInputError "must be a whole number in [MIN, MAX], e.g. 1e9 (got 'TEXT')" unless
     *         the text is a finite number without a fractional part in the range
     */
    static uint64_t ParseWholeNumber(const std::string& program,
                                     const std::string& option,
                                     const std::string& text,
                                     uint64_t minValue,
                                     uint64_t maxValue);

    /**
     * @brief Parse a fraction strictly between 0 and 1, read as ParseNumber() reads it.
     * @param program the program name, for the message
     * @param option the option name, for the message
     * @param text the value given
     * @return the value
     * @throws WanInputError "must be a finite number > 0 (got 'TEXT')" or "must be < 1 (got
     *         'TEXT')" otherwise
     */
    static double ParseFraction(const std::string& program,
                                const std::string& option,
                                const std::string& text);

    /**
     * @brief Parse a finite decimal number in a closed or right-open range (read by strtod).
     * @param program the program name, for the message
     * @param option the option name, for the message
     * @param text the value given
     * @param minValue the smallest accepted value
     * @param maxValue the largest accepted value (exclusive when maxOpen)
     * @param maxOpen whether maxValue itself is excluded
     * @return the value
     * @throws WanInputError "must be a number in [MIN, MAX] (got 'TEXT')" (or "[MIN, MAX)")
     *         unless text is a finite number in the range
     */
    static double ParseNumberInRange(const std::string& program,
                                     const std::string& option,
                                     const std::string& text,
                                     double minValue,
                                     double maxValue,
                                     bool maxOpen);

    /**
     * @brief Parse a whole number (decimal digits only, at most 19) with a lower bound.
     * @param program the program name, for the message
     * @param option the option name, for the message
     * @param text the value given
     * @param minimum the smallest accepted value
     * @return the value
     * @throws WanInputError "must be a whole number >= MIN (got 'TEXT')" otherwise
     */
    static uint64_t ParseWhole(const std::string& program,
                               const std::string& option,
                               const std::string& text,
                               uint64_t minimum);

    /**
     * @brief Parse an unsigned decimal integer (digits only, at most 19) in a closed range.
     * @param program the program name, for the message
     * @param option the option name, for the message
     * @param text the value given
     * @param minValue the smallest accepted value
     * @param maxValue the largest accepted value
     * @return the value
     * @throws WanInputError "must be an integer in [MIN, MAX] (got 'TEXT')" otherwise
     */
    static uint64_t ParseUnsigned(const std::string& program,
                                  const std::string& option,
                                  const std::string& text,
                                  uint64_t minValue,
                                  uint64_t maxValue);

    /**
     * @brief Parse a duration: a number with an optional unit s, ms, us or ns (default s).
     * @param program the program name, for the message
     * @param option the option name, for the message
     * @param text the value given
     * @param allowZero whether 0 is accepted
     * @return the duration, rounded to nanoseconds
     * @throws WanInputError "must be a non-negative (or positive) duration up to one day, ..."
     *         unless text is a finite duration in range
     */
    static Time ParseDuration(const std::string& program,
                              const std::string& option,
                              const std::string& text,
                              bool allowZero);

    /**
     * @brief Parse a capability mode name.
     * @param program the program name, for the message
     * @param option the option name, for the message
     * @param text a mode name
     * @return the mode
     * @throws WanInputError naming the option, with the reason of CapabilityModeFromString()
     */
    static CapabilityMode ParseMode(const std::string& program,
                                    const std::string& option,
                                    const std::string& text);

    /**
     * @brief Parse a payload format name.
     * @param program the program name, for the message
     * @param option the option name, for the message
     * @param text a format name: fp32, bf16 or int8
     * @return the format
     * @throws WanInputError naming the option, with the reason of PayloadFormatFromString()
     */
    static PayloadFormat ParseFormat(const std::string& program,
                                     const std::string& option,
                                     const std::string& text);

    /**
     * @brief Parse a model size in parameters P, written as ParseWholeNumber() reads it
     * (7000000000 or 7e9), in [1, 2^48].
     * @param program the program name, for the message
     * @param option the option name, for the message
     * @param text the value given
     * @return P
     * @throws WanInputError as ParseWholeNumber()
     */
    static uint64_t ParseModelParameters(const std::string& program,
                                         const std::string& option,
                                         const std::string& text);

    /**
     * @brief Check that at most one of --modelBytes (S, the wire size in every format) and
     * --modelParameters (P, from which the format derives S) was given.
     * @param program the program name, for the message
     * @param bytesGiven whether --modelBytes was given
     * @param parametersGiven whether --modelParameters was given
     * @throws WanInputError on --modelParameters when both were given
     */
    static void RequireOneModelSize(const std::string& program,
                                    bool bytesGiven,
                                    bool parametersGiven);

    /**
     * @brief Check that exactly one topology source was given: a file or a synthetic topology.
     * @param program the program name, for the message
     * @param topologyFile the value of --topology (empty when not given)
     * @param syntheticIslands the value of --syntheticIslands (0 when off)
     * @throws WanInputError on --topology when neither is given, on --syntheticIslands when both
     */
    static void RequireOneTopologySource(const std::string& program,
                                         const std::string& topologyFile,
                                         uint64_t syntheticIslands);

    /**
     * @brief Open an output file given on the command line.
     * @param program the program name, for the message
     * @param option the option name, for the message
     * @param file the file name
     * @param out the stream to open on it
     * @throws WanInputError "cannot write 'FILE'" when it cannot be opened
     */
    static void OpenOutput(const std::string& program,
                           const std::string& option,
                           const std::string& file,
                           std::ofstream& out);

    /**
     * @brief Close an output file opened by OpenOutput() and check that everything was written.
     * @param program the program name, for the message
     * @param option the option name, for the message
     * @param file the file name
     * @param out the stream to close
     * @throws WanInputError "cannot write 'FILE'" when a write failed
     */
    static void CloseOutput(const std::string& program,
                            const std::string& option,
                            const std::string& file,
                            std::ofstream& out);

    /**
     * @brief Write a text to a file given on the command line.
     * @param program the program name, for the message
     * @param option the option name, for the message
     * @param file the file name
     * @param text the content, written as is
     * @throws WanInputError "cannot write FILE" (file name unquoted) when writing fails
     */
    static void WriteText(const std::string& program,
                          const std::string& option,
                          const std::string& file,
                          const std::string& text);

    /**
     * @brief Make ns3::PriorityQueueScheduler the default of the SchedulerType global value:
     * call it before CommandLine::Parse(), so that `--SchedulerType=ns3::MapScheduler` (ns-3's
     * own default) or any other scheduler can still be chosen on the command line.
     *
     * Every ns-3 scheduler runs the events in the same order (by time, then by the order they
     * were scheduled), so the results do not depend on the choice; the binary heap of
     * std::priority_queue runs this module's simulations about 8 % faster than the red-black
     * tree of MapScheduler (benchmarks/README.md, "Scale (issue 22)").
     */
    static void SetSchedulerDefault();

    /**
     * @brief The error edge of a program: run it, and report a WanInputError as exit status 1.
     * @param run the program proper, returning its exit status
     * @param prefix printed before the error message on stderr (e.g. "pcap-report: "), unless
     *        the message starts with it already
     * @return the status of run, or 1 after printing the message of a WanInputError to stderr
     */
    static int RunProgram(const std::function<int()>& run, const std::string& prefix = "");

    /**
     * @brief The error edge of a program that configures the library: as RunProgram() above,
     * and a WanConfigError is reported as ToInputError() words it.
     * @param program the program name the message of a WanConfigError starts with
     * @param options the option of each configuration field
     * @param run the program proper, returning its exit status
     * @return the status of run, or 1 after printing the message of an error to stderr
     */
    static int RunProgram(const std::string& program,
                          const FieldOptions& options,
                          const std::function<int()>& run);

    /**
     * @brief Word a configuration error as the program's option error.
     * @param program the program name
     * @param options the option of each configuration field; a field without one is named as is
     * @param error the library's error
     * @return WanInputError(program, the field's option, the reason with every `{field}` in it
     *         replaced by that field's option), e.g. `wan-training-simulate: --parameterCount: 4
     *         bytes x 1024 values exceed --modelBytes=1000`
     */
    static WanInputError ToInputError(const std::string& program,
                                      const FieldOptions& options,
                                      const WanConfigError& error);
};

} // namespace ns3

#endif /* COMMAND_LINE_VALUES_H */
