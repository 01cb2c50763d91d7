/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "payload-format.h"

#include "wan-input-error.h"

#include "ns3/fatal-error.h"

#include <sstream>

namespace ns3
{

std::string
PayloadFormatToString(PayloadFormat format)
{
    switch (format)
    {
    case PayloadFormat::FP32:
        return "fp32";
    case PayloadFormat::BF16:
        return "bf16";
    case PayloadFormat::INT8:
        return "int8";
    }
    NS_FATAL_ERROR("unknown payload format " << static_cast<int>(format));
    return "";
}

std::vector<PayloadFormat>
GetAllPayloadFormats()
{
    return {PayloadFormat::FP32, PayloadFormat::BF16, PayloadFormat::INT8};
}

PayloadFormat
PayloadFormatFromString(const std::string& name)
{
    std::ostringstream known;
    for (PayloadFormat format : GetAllPayloadFormats())
    {
        if (PayloadFormatToString(format) == name)
        {
            return format;
        }
        known << (known.tellp() > 0 ? ", " : "") << PayloadFormatToString(format);
    }
    throw WanInputError("<format>",
                        "format",
                        "unknown format '" + name + "' (known: " + known.str() + ")");
}

uint64_t
GetEncodedBytes(PayloadFormat format, uint64_t values)
{
    switch (format)
    {
    case PayloadFormat::FP32:
        return 4 * values;
    case PayloadFormat::BF16:
        return 2 * values;
    case PayloadFormat::INT8:
        return values + INT8_SCALE_BYTES * ((values + INT8_BLOCK_VALUES - 1) / INT8_BLOCK_VALUES);
    }
    NS_FATAL_ERROR("unknown payload format " << static_cast<int>(format));
    return 0;
}

uint64_t
GetValueCapacity(PayloadFormat format, uint64_t bytes)
{
    switch (format)
    {
    case PayloadFormat::FP32:
        return bytes / 4;
    case PayloadFormat::BF16:
        return bytes / 2;
    case PayloadFormat::INT8: {
        const uint64_t blockBytes = GetEncodedBytes(format, INT8_BLOCK_VALUES);
        const uint64_t rest = bytes % blockBytes;
        return bytes / blockBytes * INT8_BLOCK_VALUES +
               (rest > INT8_SCALE_BYTES ? rest - INT8_SCALE_BYTES : 0);
    }
    }
    NS_FATAL_ERROR("unknown payload format " << static_cast<int>(format));
    return 0;
}

uint32_t
GetChunkQuantum(PayloadFormat format)
{
    return format == PayloadFormat::INT8 ? INT8_BLOCK_VALUES : 1;
}

} // namespace ns3
