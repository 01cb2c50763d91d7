/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "fuzz-targets.h"
#include "island-sync-header.h"

#include "ns3/buffer.h"

#include <algorithm>
#include <bitset>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

/**
 * @file
 * @ingroup wan-training-tests
 * Fuzz target of IslandSyncHeader::Deserialize: any bytes are either rejected (0) or give a
 * header that keeps the documented field constraints, depends only on its own bytes, and
 * serializes back to the same bytes.
 */

namespace ns3
{

namespace
{

/** Byte offset of the checksum field (IslandSyncHeader's documented layout). */
constexpr std::size_t CHECKSUM_OFFSET = 38;

/**
 * @param bytes the bytes
 * @return a Buffer holding exactly them
 */
Buffer
ToBuffer(const std::vector<uint8_t>& bytes)
{
    Buffer buffer;
    buffer.AddAtStart(bytes.size());
    buffer.Begin().Write(bytes.data(), bytes.size());
    return buffer;
}

/**
 * @param value a float
 * @return its bits
 */
uint32_t
Bits(float value)
{
    uint32_t bits;
    std::memcpy(&bits, &value, sizeof(bits));
    return bits;
}

/**
 * @brief Whether two headers carry the same fields (values compared bit for bit, so NaNs too).
 * @param a a header
 * @param b a header
 * @return whether every field is equal
 */
bool
SameFields(const IslandSyncHeader& a, const IslandSyncHeader& b)
{
    if (a.GetValues().size() != b.GetValues().size())
    {
        return false;
    }
    for (std::size_t k = 0; k < a.GetValues().size(); ++k)
    {
        if (Bits(a.GetValues()[k]) != Bits(b.GetValues()[k]))
        {
            return false;
        }
    }
    return a.GetType() == b.GetType() && a.GetJobId() == b.GetJobId() &&
           a.GetSender() == b.GetSender() && a.GetRound() == b.GetRound() &&
           a.GetCliqueId() == b.GetCliqueId() && a.GetChunkIndex() == b.GetChunkIndex() &&
           a.GetChunkCount() == b.GetChunkCount() && a.GetContributors() == b.GetContributors() &&
           a.GetValueOffset() == b.GetValueOffset() && a.GetRanges() == b.GetRanges();
}

/**
 * @brief Check the field constraints Deserialize() promises for an accepted header.
 * @param h the header
 */
void
CheckFields(const IslandSyncHeader& h)
{
    const uint8_t type = h.GetType();
    FuzzCheck(type >= IslandSyncHeader::DATA && type <= IslandSyncHeader::READY,
              "accepted type " + std::to_string(type));
    FuzzCheck(h.GetSender() < IslandSyncHeader::MAX_ISLANDS,
              "accepted sender " + std::to_string(h.GetSender()));
    FuzzCheck(h.GetContributors() != 0, "accepted an empty contributor bitmap");
    FuzzCheck(h.GetContributorCount() == std::bitset<64>(h.GetContributors()).count(),
              "contributor count is not the bitmap's population");
    if (type == IslandSyncHeader::DATA || type == IslandSyncHeader::AGGREGATE)
    {
        FuzzCheck(h.GetChunkIndex() < h.GetChunkCount(), "chunk index beyond the chunk count");
        FuzzCheck(uint64_t{h.GetValueOffset()} + h.GetValues().size() <= UINT32_MAX,
                  "value range beyond the parameter index space");
        FuzzCheck(h.GetRanges().empty(), "values header carries ranges");
    }
    if (type == IslandSyncHeader::DATA)
    {
        FuzzCheck(h.GetContributors() == uint64_t{1} << h.GetSender(),
                  "DATA contributors are not exactly the sender");
    }
    if (type == IslandSyncHeader::NACK)
    {
        FuzzCheck(!h.GetRanges().empty() && h.GetValues().empty(), "NACK area");
        for (const auto& range : h.GetRanges())
        {
            FuzzCheck(range.first < range.second && range.second <= h.GetChunkCount(),
                      "NACK range [" + std::to_string(range.first) + "," +
                          std::to_string(range.second) + ") accepted");
        }
    }
    if (type == IslandSyncHeader::DONE || type == IslandSyncHeader::READY)
    {
        FuzzCheck(h.GetValues().empty() && h.GetRanges().empty(), "DONE/READY with an area");
    }
}

} // namespace

void
FuzzIslandSyncHeader(const uint8_t* data, std::size_t size)
{
    // No header is larger than MAX_SIZE: bytes beyond it cannot change the outcome.
    const std::vector<uint8_t> bytes(data,
                                     data +
                                         std::min<std::size_t>(size, IslandSyncHeader::MAX_SIZE));
    IslandSyncHeader header;
    const uint32_t read = header.Deserialize(ToBuffer(bytes).Begin());
    if (read == 0)
    {
        return;
    }
    FuzzCheck(read >= IslandSyncHeader::FIXED_SIZE && read <= bytes.size() &&
                  read <= IslandSyncHeader::MAX_SIZE,
              "Deserialize returned " + std::to_string(read) + " for " +
                  std::to_string(bytes.size()) + " bytes");
    FuzzCheck(read == header.GetSerializedSize(),
              "Deserialize returned " + std::to_string(read) + " but GetSerializedSize() is " +
                  std::to_string(header.GetSerializedSize()));
    CheckFields(header);
    std::ostringstream printed;
    header.Print(printed);
    FuzzCheck(!printed.str().empty(), "Print() wrote nothing");

    // The header depends only on its own bytes, not on what follows it.
    std::vector<uint8_t> padded(bytes.begin(), bytes.begin() + read);
    padded.insert(padded.end(), 16, 0xa5);
    IslandSyncHeader fromPadded;
    FuzzCheck(fromPadded.Deserialize(ToBuffer(padded).Begin()) == read &&
                  SameFields(header, fromPadded),
              "the header depends on the bytes after it");

    // Serializing gives the same bytes (the checksum may be the other one's-complement zero).
    Buffer out;
    out.AddAtStart(read);
    header.Serialize(out.Begin());
    std::vector<uint8_t> written(read);
    out.CopyData(written.data(), read);
    for (std::size_t k = 0; k < read; ++k)
    {
        if (k != CHECKSUM_OFFSET && k != CHECKSUM_OFFSET + 1)
        {
            FuzzCheck(written[k] == bytes[k],
                      "serialized byte " + std::to_string(k) + " differs from the input");
        }
    }
    IslandSyncHeader again;
    FuzzCheck(again.Deserialize(out.Begin()) == read && SameFields(header, again),
              "the serialized header does not deserialize to the same fields");
}

} // namespace ns3

#ifdef WAN_TRAINING_LIBFUZZER
/**
 * @brief The libFuzzer entry point (only in the fuzzer binary).
 * @param data the input bytes
 * @param size the number of bytes
 * @return 0
 */
extern "C" int
LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size)
{
    ns3::FuzzIslandSyncHeader(data, size);
    return 0;
}
#endif
