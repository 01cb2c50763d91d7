/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "fuzz-targets.h"
#include "island-sync-header.h"
#include "payload-codec.h"

#include "ns3/buffer.h"
#include "ns3/packet.h"

#include <algorithm>
#include <bitset>
#include <sstream>
#include <string>
#include <vector>

/**
 * @file
 * @ingroup wan-training-tests
 * Fuzz target of IslandSyncHeader::Deserialize: any bytes are either rejected (0) or give a
 * header that keeps the documented field constraints, depends only on its own bytes, and
 * serializes back to the same bytes (in bf16 and int8 too: Deserialize accepts only the
 * encodings PayloadCodec writes, and re-encoding decoded values gives them back).
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
        if (PayloadCodec::FloatToBits(a.GetValues()[k]) !=
            PayloadCodec::FloatToBits(b.GetValues()[k]))
        {
            return false;
        }
    }
    return a.GetType() == b.GetType() && a.GetFormat() == b.GetFormat() &&
           a.GetJobId() == b.GetJobId() && a.GetSender() == b.GetSender() &&
           a.GetRound() == b.GetRound() && a.GetCliqueId() == b.GetCliqueId() &&
           a.GetChunkIndex() == b.GetChunkIndex() && a.GetChunkCount() == b.GetChunkCount() &&
           a.GetContributors() == b.GetContributors() && a.GetValueOffset() == b.GetValueOffset() &&
           a.GetRanges() == b.GetRanges();
}

/**
 * @brief Check the field constraints Deserialize() promises for an accepted header.
 * @param h the header
 */
void
CheckFields(const IslandSyncHeader& h)
{
    const uint8_t type = h.GetType();
    FuzzCheck(type >= IslandSyncHeader::DATA && type <= IslandSyncHeader::PARITY,
              "accepted type " + std::to_string(type));
    FuzzCheck(h.GetSender() < IslandSyncHeader::MAX_ISLANDS,
              "accepted sender " + std::to_string(h.GetSender()));
    FuzzCheck(h.GetContributors() != 0, "accepted an empty contributor bitmap");
    FuzzCheck(h.GetContributorCount() == std::bitset<64>(h.GetContributors()).count(),
              "contributor count is not the bitmap's population");
    FuzzCheck(h.GetEpoch() <= IslandSyncHeader::MAX_EPOCH &&
                  h.GetCliqueIndex() < IslandSyncHeader::MAX_CLIQUES &&
                  h.GetCliqueId() ==
                      h.GetCliqueIndex() + IslandSyncHeader::MAX_CLIQUES * h.GetEpoch(),
              "accepted clique field " + std::to_string(h.GetCliqueId()));
    const auto format = static_cast<uint8_t>(h.GetFormat());
    if (type == IslandSyncHeader::DATA || type == IslandSyncHeader::AGGREGATE)
    {
        FuzzCheck(format <= static_cast<uint8_t>(PayloadFormat::INT8),
                  "accepted format " + std::to_string(format));
        FuzzCheck(h.GetFormat() != PayloadFormat::INT8 ||
                      h.GetValueOffset() % INT8_BLOCK_VALUES == 0,
                  "accepted an int8 value offset off a block boundary");
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
    if (type == IslandSyncHeader::PARITY)
    {
        FuzzCheck(h.GetValues().empty() && h.GetRanges().empty(), "PARITY area");
        FuzzCheck(h.GetBlockChunks() >= 1 && h.GetChunkIndex() < h.GetChunkCount() &&
                      h.GetBlockChunks() <= h.GetChunkCount() - h.GetChunkIndex(),
                  "PARITY block beyond the chunk count");
        FuzzCheck(h.GetContributors() == uint64_t{1} << h.GetSender(),
                  "PARITY contributors are not exactly the sender");
        FuzzCheck(format <= static_cast<uint8_t>(PayloadFormat::INT8),
                  "accepted format " + std::to_string(format));
    }
    if (type != IslandSyncHeader::DATA && type != IslandSyncHeader::AGGREGATE &&
        type != IslandSyncHeader::PARITY)
    {
        FuzzCheck(h.GetFormat() == PayloadFormat::FP32, "a format on a message without values");
    }
    if (type == IslandSyncHeader::DONE || type == IslandSyncHeader::READY ||
        type == IslandSyncHeader::READY_ASK || type == IslandSyncHeader::VIEW)
    {
        FuzzCheck(h.GetValues().empty() && h.GetRanges().empty() && h.GetParity().empty(),
                  "DONE/READY/READY_ASK/VIEW with an area");
    }
}

/** The UDP port of the datagrams built around the input. */
constexpr uint16_t PORT = 9000;
/** The IPv4 destination of the datagrams built around the input: 10.0.0.2. */
constexpr uint32_t DATAGRAM_DESTINATION = 0x0A000002;

/**
 * @param payload the UDP payload
 * @param ppp whether to put a PPP header (protocol IPv4) in front
 * @return an unfragmented IPv4 UDP datagram to PORT carrying the payload, as a packet
 */
Ptr<Packet>
Datagram(const std::vector<uint8_t>& payload, bool ppp)
{
    std::vector<uint8_t> frame;
    if (ppp)
    {
        frame = {0x00, 0x21};
    }
    const std::size_t total = 20 + 8 + payload.size();
    const uint8_t ipv4[20] = {
        0x45, 0, uint8_t(total >> 8), uint8_t(total), 0, 0, 0, 0, 64, 17, 0, 0, 10, 0, 0, 1, 10, 0,
        0,    2};
    const uint8_t udp[8] = {0x30, 0x39, PORT >> 8, PORT & 0xff, 0, 0, 0, 0};
    frame.insert(frame.end(), ipv4, ipv4 + sizeof(ipv4));
    frame.insert(frame.end(), udp, udp + sizeof(udp));
    frame.insert(frame.end(), payload.begin(), payload.end());
    return Create<Packet>(frame.data(), static_cast<uint32_t>(frame.size()));
}

/**
 * @brief Check IslandSyncHeader::ReadFromPacket and PeekTypeInPacket against Deserialize on
 * the same bytes.
 * @param bytes the input
 * @param read what Deserialize returned for them
 * @param header what it read (when read > 0)
 */
void
CheckReadFromPacket(const std::vector<uint8_t>& bytes,
                    uint32_t read,
                    const IslandSyncHeader& header)
{
    // The bytes themselves as a datagram and as a frame: any answer, but never a read beyond them.
    for (auto framing : {IslandSyncHeader::IPV4_DATAGRAM, IslandSyncHeader::PPP_FRAME})
    {
        Ptr<Packet> raw = Create<Packet>(bytes.data(), static_cast<uint32_t>(bytes.size()));
        IslandSyncHeader any;
        const uint32_t offset = IslandSyncHeader::ReadFromPacket(raw, framing, PORT, any);
        FuzzCheck(offset == 0 || offset + any.GetSerializedSize() <= bytes.size(),
                  "ReadFromPacket read beyond the packet");
        IslandSyncHeader::Type type = IslandSyncHeader::DONE;
        PayloadFormat format = PayloadFormat::FP32;
        const uint32_t peeked =
            IslandSyncHeader::PeekTypeInPacket(raw, framing, PORT, type, format);
        FuzzCheck(peeked == 0 || peeked + IslandSyncHeader::FIXED_SIZE <= bytes.size(),
                  "PeekTypeInPacket read beyond the packet");
    }
    // Wrapped in IPv4 and UDP (and PPP): exactly what Deserialize says, at the payload's offset.
    for (bool ppp : {false, true})
    {
        IslandSyncHeader flat;
        uint32_t destination = 0;
        const uint32_t offset = IslandSyncHeader::ReadFromPacket(
            Datagram(bytes, ppp),
            ppp ? IslandSyncHeader::PPP_FRAME : IslandSyncHeader::IPV4_DATAGRAM,
            PORT,
            flat,
            &destination);
        const uint32_t expected = read == 0 ? 0 : (ppp ? 2 : 0) + 28;
        FuzzCheck(offset == expected,
                  "ReadFromPacket returned " + std::to_string(offset) + ", Deserialize " +
                      std::to_string(read));
        // The tree FPGA's other input: the datagram's destination (10.0.0.2, Datagram's).
        FuzzCheck(offset == 0 || destination == DATAGRAM_DESTINATION,
                  "ReadFromPacket read the IPv4 destination " + std::to_string(destination));
        FuzzCheck(read == 0 || SameFields(header, flat),
                  "ReadFromPacket and Deserialize read different fields");
        // PeekTypeInPacket finds the same header and type, and checks less: it may also find
        // one that Deserialize refuses, never at another offset.
        IslandSyncHeader::Type type = IslandSyncHeader::DONE;
        PayloadFormat format = PayloadFormat::FP32;
        const uint32_t peeked = IslandSyncHeader::PeekTypeInPacket(
            Datagram(bytes, ppp),
            ppp ? IslandSyncHeader::PPP_FRAME : IslandSyncHeader::IPV4_DATAGRAM,
            PORT,
            type,
            format);
        FuzzCheck(read == 0 || (peeked == expected && type == header.GetType() &&
                                format == header.GetFormat()),
                  "PeekTypeInPacket and Deserialize disagree on a valid header");
        FuzzCheck(peeked == 0 || peeked == (ppp ? 2 : 0) + 28,
                  "PeekTypeInPacket returned " + std::to_string(peeked));
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
    CheckReadFromPacket(bytes, read, header);
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
