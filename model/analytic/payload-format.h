/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef PAYLOAD_FORMAT_H
#define PAYLOAD_FORMAT_H

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * @ingroup wan-training
 * @brief How the values of a contribution are encoded on the wire (doc/schedule-model.rst,
 * "Payload formats"): the wire size S of a model of P parameters is 4P in fp32, 2P in bf16
 * and P + 4 ceil(P / 1024) in int8 (blocks of INT8_BLOCK_VALUES values, each with a float32
 * scale). To the schedule model a smaller format is a smaller model; the packet model encodes
 * and decodes the real values.
 */
enum class PayloadFormat : uint8_t
{
    FP32 = 0, //!< IEEE 754 binary32, 4 bytes a value (the default)
    BF16 = 1, //!< bfloat16 (the upper half of binary32, rounded to nearest even), 2 bytes
    INT8 = 2, //!< int8 codes in blocks of INT8_BLOCK_VALUES, a float32 scale per block
};

/** Values per int8 block (one float32 scale each). */
constexpr uint32_t INT8_BLOCK_VALUES = 1024;
/** Bytes of an int8 block's scale. */
constexpr uint32_t INT8_SCALE_BYTES = 4;

/**
 * @ingroup wan-training
 * @param format a format
 * @return its name: "fp32", "bf16" or "int8"
 */
std::string PayloadFormatToString(PayloadFormat format);

/**
 * @ingroup wan-training
 * @param name a format name as PayloadFormatToString writes it
 * @return the format
 * @throws WanInputError (source `<format>`, path `format`) naming the known formats when the
 *         name is unknown
 */
PayloadFormat PayloadFormatFromString(const std::string& name);

/**
 * @ingroup wan-training
 * @return every format, fp32 first
 */
std::vector<PayloadFormat> GetAllPayloadFormats();

/**
 * @ingroup wan-training
 * @param format a format
 * @param values a number of values (parameters)
 * @return their encoded bytes: 4 values (fp32), 2 values (bf16), values + 4 ceil(values /
 *         1024) (int8)
 */
uint64_t GetEncodedBytes(PayloadFormat format, uint64_t values);

/**
 * @ingroup wan-training
 * @param format a format
 * @param bytes a byte count
 * @return the most values whose encoding (GetEncodedBytes) fits in that many bytes; the
 *         bytes are exactly an encoding when GetEncodedBytes(format, result) == bytes (in
 *         int8 not when 1 to 4 bytes remain after the whole blocks: a block needs its scale
 *         and a value)
 */
uint64_t GetValueCapacity(PayloadFormat format, uint64_t bytes);

/**
 * @ingroup wan-training
 * @param format a format
 * @return the values a chunk's size is a whole multiple of: 1, or INT8_BLOCK_VALUES in int8
 *         (chunks carry whole blocks)
 */
uint32_t GetChunkQuantum(PayloadFormat format);

} // namespace ns3

#endif /* PAYLOAD_FORMAT_H */
