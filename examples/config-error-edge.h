/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef CONFIG_ERROR_EDGE_H
#define CONFIG_ERROR_EDGE_H

#include "command-line-values.h"
#include "wan-config-error.h"
#include "wan-input-error.h"

#include <functional>
#include <map>
#include <string>

namespace ns3
{

/**
 * @brief The error edge of a program that configures a library class from its options: runs
 * the program; a WanConfigError of the library is reported under the option that set its field
 * ("PROGRAM: --OPTION: REASON", exit status 1), as CommandLineValues::RunProgram reports a
 * WanInputError.
 * @param program the program's name
 * @param options the option of each configuration field (a field not listed: --FIELD)
 * @param run the program
 * @return its exit status, or 1 for an input error
 */
inline int
RunWithOptionNames(const std::string& program,
                   const std::map<std::string, std::string>& options,
                   const std::function<int()>& run)
{
    return CommandLineValues::RunProgram([&]() {
        try
        {
            return run();
        }
        catch (const WanConfigError& error)
        {
            auto option = options.find(error.GetField());
            throw WanInputError(program,
                                option == options.end() ? "--" + error.GetField() : option->second,
                                error.GetReason());
        }
    });
}

} // namespace ns3

#endif /* CONFIG_ERROR_EDGE_H */
