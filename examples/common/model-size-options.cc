/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "model-size-options.h"

#include "command-line-values.h"

#include "ns3/command-line.h"

#include <sstream>

namespace ns3
{

bool
ModelSizeOptions::Size::IsDefault() const
{
    return format == PayloadFormat::FP32 && parameters == 0;
}

std::string
ModelSizeOptions::Size::Describe() const
{
    if (IsDefault())
    {
        return "";
    }
    std::ostringstream out;
    out << ", format " << PayloadFormatToString(format);
    if (parameters > 0)
    {
        out << " (" << parameters << " parameters)";
    }
    return out.str();
}

void
ModelSizeOptions::AddValues(CommandLine& cmd, const std::string& modelBytesHelp)
{
    cmd.AddValue("modelBytes", modelBytesHelp, modelBytes);
    cmd.AddValue("modelParameters",
                 "instead of --modelBytes: the model in parameters P (e.g. 7e9); S is P's size "
                 "in --format",
                 modelParameters);
    cmd.AddValue("format", "payload format on the wire: fp32, bf16 or int8", format);
}

ModelSizeOptions::Size
ModelSizeOptions::Parse(const std::string& program,
                        bool wholeBytes,
                        const std::string& defaultBytes) const
{
    Size size;
    size.format = CommandLineValues::ParseFormat(program, "--format", format);
    CommandLineValues::RequireOneModelSize(program, !modelBytes.empty(), !modelParameters.empty());
    const std::string bytes =
        modelBytes.empty() && modelParameters.empty() ? defaultBytes : modelBytes;
    if (!modelParameters.empty())
    {
        size.parameters =
            CommandLineValues::ParseModelParameters(program, "--modelParameters", modelParameters);
        size.bytes = static_cast<double>(GetEncodedBytes(size.format, size.parameters));
    }
    else if (wholeBytes)
    {
        size.bytes = static_cast<double>(CommandLineValues::ParseWholeNumber(program,
                                                                             "--modelBytes",
                                                                             bytes,
                                                                             1,
                                                                             uint64_t{1} << 50));
    }
    else
    {
        size.bytes = CommandLineValues::ParseNumber(program, "--modelBytes", bytes, 0, false);
    }
    return size;
}

} // namespace ns3
