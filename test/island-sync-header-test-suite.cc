/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "island-sync-header.h"
#include "payload-codec.h"
#include "sync-test-frame.h"

#include "ns3/ipv4-header.h"
#include "ns3/packet.h"
#include "ns3/pcap-file.h"
#include "ns3/ppp-header.h"
#include "ns3/test.h"
#include "ns3/udp-header.h"

#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>
#include <limits>
#include <set>
#include <sstream>
#include <string>
#include <vector>

/**
 * @file
 * @ingroup wan-training-tests
 * IslandSyncHeader test suite: round trips of every message type, the wire layout checked byte
 * by byte against the documented offsets, rejection of truncated and corrupt headers
 * (including semantically invalid ones that carry a correct checksum), finding the header
 * in a datagram or frame (ReadFromPacket, PeekTypeInPacket), the payload formats (bf16, int8:
 * sizes, round trips, the format field, int8 block alignment, the checksum over the encoded
 * bytes), and the test captures of every message kind (test/data/pcap/message-kinds/) and of the
 * payload formats (test/data/pcap/payload-formats/) that the pcap decoder and the Wireshark
 * dissector decode too.
 */

using namespace ns3;

namespace
{

/**
 * @param packet a packet
 * @return its bytes
 */
std::vector<uint8_t>
Bytes(Ptr<const Packet> packet)
{
    std::vector<uint8_t> bytes(packet->GetSize());
    packet->CopyData(bytes.data(), bytes.size());
    return bytes;
}

/**
 * @param bytes serialized bytes
 * @param offset an offset
 * @return the big-endian 32-bit word at offset
 */
uint32_t
ReadBe32(const std::vector<uint8_t>& bytes, size_t offset)
{
    return (uint32_t{bytes[offset]} << 24) | (uint32_t{bytes[offset + 1]} << 16) |
           (uint32_t{bytes[offset + 2]} << 8) | uint32_t{bytes[offset + 3]};
}

/**
 * @param bytes serialized bytes
 * @param offset an offset
 * @param value the big-endian 32-bit word to write at offset
 */
void
WriteBe32(std::vector<uint8_t>& bytes, size_t offset, uint32_t value)
{
    bytes[offset] = value >> 24;
    bytes[offset + 1] = (value >> 16) & 0xff;
    bytes[offset + 2] = (value >> 8) & 0xff;
    bytes[offset + 3] = value & 0xff;
}

/**
 * @brief Recompute the header checksum (RFC 1071, written here independently of the header
 * code) over the first `size` bytes, with the checksum field (offset 38) zeroed.
 * @param bytes serialized header bytes
 * @param size the header size
 */
void
FixChecksum(std::vector<uint8_t>& bytes, size_t size)
{
    bytes[38] = 0;
    bytes[39] = 0;
    uint32_t sum = 0;
    for (size_t i = 0; i + 1 < size; i += 2)
    {
        sum += (uint32_t{bytes[i]} << 8) | bytes[i + 1];
    }
    while (sum >> 16)
    {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    uint16_t checksum = static_cast<uint16_t>(~sum);
    bytes[38] = checksum >> 8;
    bytes[39] = checksum & 0xff;
}

/**
 * @param bytes serialized bytes
 * @return whether IslandSyncHeader accepts them
 */
bool
Accepts(const std::vector<uint8_t>& bytes)
{
    Ptr<Packet> packet = Create<Packet>(bytes.data(), bytes.size());
    IslandSyncHeader header;
    return packet->PeekHeader(header) != 0;
}

/**
 * @return a DATA header with special float values
 */
IslandSyncHeader
MakeData()
{
    IslandSyncHeader header;
    header.SetType(IslandSyncHeader::DATA);
    header.SetJobId(0xBEEF);
    header.SetRound(123456789);
    header.SetCliqueId(7);
    header.SetSender(42);
    header.SetChunkIndex(111956);
    header.SetChunkCount(111957);
    header.SetContributors(uint64_t{1} << 42);
    header.SetValueOffset(250000000);
    header.SetValues({1.5f,
                      -0.0f,
                      std::numeric_limits<float>::denorm_min(),
                      std::numeric_limits<float>::max(),
                      -std::numeric_limits<float>::infinity(),
                      3.14159265f});
    return header;
}

} // namespace

/**
 * @ingroup wan-training-tests
 * @brief Round trips of DATA, AGGREGATE, NACK and DONE headers, followed by padding.
 */
class IslandSyncHeaderRoundTripTestCase : public TestCase
{
  public:
    IslandSyncHeaderRoundTripTestCase();

  private:
    void DoRun() override;
};

IslandSyncHeaderRoundTripTestCase::IslandSyncHeaderRoundTripTestCase()
    : TestCase("round trip of every message type, wire layout")
{
}

void
IslandSyncHeaderRoundTripTestCase::DoRun()
{
    // DATA with padding after it.
    IslandSyncHeader data = MakeData();
    NS_TEST_EXPECT_MSG_EQ(data.GetSerializedSize(), 40u + 4 * 6, "fixed part plus 6 values");
    Ptr<Packet> packet = Create<Packet>(1000);
    packet->AddHeader(data);
    NS_TEST_EXPECT_MSG_EQ(packet->GetSize(), 1000u + 64, "header plus padding");

    std::vector<uint8_t> bytes = Bytes(packet);
    NS_TEST_EXPECT_MSG_EQ(bytes[0], 0x57, "magic high byte");
    NS_TEST_EXPECT_MSG_EQ(bytes[1], 0x54, "magic low byte");
    NS_TEST_EXPECT_MSG_EQ(bytes[2], 2, "version");
    NS_TEST_EXPECT_MSG_EQ(bytes[3], 1, "type DATA");
    NS_TEST_EXPECT_MSG_EQ(ReadBe32(bytes, 8), 123456789u, "round at offset 8, big endian");
    NS_TEST_EXPECT_MSG_EQ(ReadBe32(bytes, 16), 111956u, "chunk index at offset 16");
    NS_TEST_EXPECT_MSG_EQ(ReadBe32(bytes, 24), uint32_t{1} << 10, "bitmap high word: island 42");
    NS_TEST_EXPECT_MSG_EQ(ReadBe32(bytes, 28), 0u, "bitmap low word");
    NS_TEST_EXPECT_MSG_EQ(bytes[37], 6, "value count at offset 36");
    uint32_t bits;
    float value = 1.5f;
    std::memcpy(&bits, &value, sizeof(bits));
    NS_TEST_EXPECT_MSG_EQ(ReadBe32(bytes, 40), bits, "first value as IEEE 754 bits");
    for (size_t i = 64; i < bytes.size(); ++i)
    {
        NS_TEST_ASSERT_MSG_EQ(bytes[i], 0, "padding is zero at byte " << i);
    }

    IslandSyncHeader decoded;
    NS_TEST_EXPECT_MSG_EQ(packet->RemoveHeader(decoded), 64u, "bytes consumed");
    NS_TEST_EXPECT_MSG_EQ(packet->GetSize(), 1000u, "the padding remains");
    NS_TEST_EXPECT_MSG_EQ(decoded.GetType(), IslandSyncHeader::DATA, "type");
    NS_TEST_EXPECT_MSG_EQ(decoded.GetJobId(), 0xBEEF, "job");
    NS_TEST_EXPECT_MSG_EQ(decoded.GetRound(), 123456789u, "round");
    NS_TEST_EXPECT_MSG_EQ(decoded.GetCliqueId(), 7, "clique");
    NS_TEST_EXPECT_MSG_EQ(decoded.GetSender(), 42, "sender");
    NS_TEST_EXPECT_MSG_EQ(decoded.GetChunkIndex(), 111956u, "chunk index");
    NS_TEST_EXPECT_MSG_EQ(decoded.GetChunkCount(), 111957u, "chunk count");
    NS_TEST_EXPECT_MSG_EQ(decoded.GetContributors(), uint64_t{1} << 42, "bitmap");
    NS_TEST_EXPECT_MSG_EQ(decoded.GetContributorCount(), 1, "count");
    NS_TEST_EXPECT_MSG_EQ(decoded.GetValueOffset(), 250000000u, "value offset");
    NS_TEST_ASSERT_MSG_EQ(decoded.GetValues().size(), 6u, "value count");
    for (size_t v = 0; v < 6; ++v)
    {
        float expected = data.GetValues()[v];
        float got = decoded.GetValues()[v];
        NS_TEST_EXPECT_MSG_EQ(std::memcmp(&expected, &got, sizeof(float)),
                              0,
                              "value " << v << " bit for bit");
    }

    // AGGREGATE of islands 0, 5 and 63.
    IslandSyncHeader aggregate = MakeData();
    aggregate.SetType(IslandSyncHeader::AGGREGATE);
    aggregate.SetSender(5);
    aggregate.SetContributors((uint64_t{1} << 63) | (uint64_t{1} << 5) | 1);
    Ptr<Packet> aggregatePacket = Create<Packet>(0);
    aggregatePacket->AddHeader(aggregate);
    IslandSyncHeader aggregateDecoded;
    NS_TEST_EXPECT_MSG_EQ(aggregatePacket->PeekHeader(aggregateDecoded), 64u, "aggregate accepted");
    NS_TEST_EXPECT_MSG_EQ(aggregateDecoded.GetType(), IslandSyncHeader::AGGREGATE, "type");
    NS_TEST_EXPECT_MSG_EQ(aggregateDecoded.GetContributorCount(), 3, "three contributors");
    NS_TEST_EXPECT_MSG_EQ(aggregateDecoded.GetContributors(),
                          ((uint64_t{1} << 63) | (uint64_t{1} << 5) | 1),
                          "bitmap with island 63");

    // NACK with ranges.
    IslandSyncHeader nack;
    nack.SetType(IslandSyncHeader::NACK);
    nack.SetRound(3);
    nack.SetSender(2);
    nack.SetChunkCount(1000);
    nack.SetContributors(uint64_t{1} << 8);
    nack.SetRanges({{0, 1}, {17, 40}, {999, 1000}});
    NS_TEST_EXPECT_MSG_EQ(nack.GetSerializedSize(), 40u + 3 * 8, "fixed part plus 3 ranges");
    Ptr<Packet> nackPacket = Create<Packet>(0);
    nackPacket->AddHeader(nack);
    IslandSyncHeader nackDecoded;
    NS_TEST_EXPECT_MSG_EQ(nackPacket->PeekHeader(nackDecoded), 64u, "NACK accepted");
    NS_TEST_EXPECT_MSG_EQ(nackDecoded.GetType(), IslandSyncHeader::NACK, "type");
    NS_TEST_ASSERT_MSG_EQ(nackDecoded.GetRanges().size(), 3u, "three ranges");
    NS_TEST_EXPECT_MSG_EQ(nackDecoded.GetRanges()[1].first, 17u, "range begin");
    NS_TEST_EXPECT_MSG_EQ(nackDecoded.GetRanges()[1].second, 40u, "range end");
    NS_TEST_EXPECT_MSG_EQ(nackDecoded.GetRanges()[2].second, 1000u, "last range end");
    NS_TEST_EXPECT_MSG_EQ(nackDecoded.GetValues().size(), 0u, "no values");

    // DONE.
    IslandSyncHeader done;
    done.SetType(IslandSyncHeader::DONE);
    done.SetRound(4);
    done.SetSender(1);
    done.SetChunkCount(9);
    done.SetContributors(uint64_t{1} << 3);
    Ptr<Packet> donePacket = Create<Packet>(0);
    donePacket->AddHeader(done);
    NS_TEST_EXPECT_MSG_EQ(donePacket->GetSize(), 40u, "DONE is the fixed part only");
    IslandSyncHeader doneDecoded;
    NS_TEST_EXPECT_MSG_EQ(donePacket->PeekHeader(doneDecoded), 40u, "DONE accepted");
    NS_TEST_EXPECT_MSG_EQ(doneDecoded.GetType(), IslandSyncHeader::DONE, "type");
    NS_TEST_EXPECT_MSG_EQ(doneDecoded.GetRound(), 4u, "round");
    NS_TEST_EXPECT_MSG_EQ(doneDecoded.GetContributors(), uint64_t{1} << 3, "bitmap");

    // READY with a chunk index (version 1's answer request): still a READY, the index kept.
    IslandSyncHeader ready;
    ready.SetType(IslandSyncHeader::READY);
    ready.SetRound(17);
    ready.SetSender(6);
    ready.SetChunkIndex(1);
    ready.SetContributors(uint64_t{1} << 6);
    Ptr<Packet> readyPacket = Create<Packet>(0);
    readyPacket->AddHeader(ready);
    IslandSyncHeader readyDecoded;
    NS_TEST_EXPECT_MSG_EQ(readyPacket->PeekHeader(readyDecoded), 40u, "READY accepted");
    NS_TEST_EXPECT_MSG_EQ(readyDecoded.GetType(), IslandSyncHeader::READY, "type");
    NS_TEST_EXPECT_MSG_EQ(readyDecoded.GetRound(), 17u, "round");
    NS_TEST_EXPECT_MSG_EQ(readyDecoded.GetChunkIndex(), 1u, "answer requested");

    // READY_ASK and VIEW: the fixed part only, the view's bitmap and clique kept.
    for (IslandSyncHeader::Type type : {IslandSyncHeader::READY_ASK, IslandSyncHeader::VIEW})
    {
        IslandSyncHeader barrier;
        barrier.SetType(type);
        barrier.SetRound(18);
        barrier.SetSender(6);
        barrier.SetCliqueIndex(3);
        barrier.SetContributors(type == IslandSyncHeader::VIEW ? 0x4c : uint64_t{1} << 6);
        Ptr<Packet> barrierPacket = Create<Packet>(0);
        barrierPacket->AddHeader(barrier);
        const std::vector<uint8_t> barrierBytes = Bytes(barrierPacket);
        NS_TEST_EXPECT_MSG_EQ(barrierBytes.size(), 40u, "the fixed part only");
        NS_TEST_EXPECT_MSG_EQ(barrierBytes[3], type, "type byte");
        IslandSyncHeader barrierDecoded;
        NS_TEST_EXPECT_MSG_EQ(barrierPacket->PeekHeader(barrierDecoded), 40u, "accepted");
        NS_TEST_EXPECT_MSG_EQ(barrierDecoded.GetType(), type, "type");
        NS_TEST_EXPECT_MSG_EQ(barrierDecoded.GetRound(), 18u, "round");
        NS_TEST_EXPECT_MSG_EQ(barrierDecoded.GetCliqueIndex(), 3, "clique");
        NS_TEST_EXPECT_MSG_EQ(barrierDecoded.GetContributors(),
                              barrier.GetContributors(),
                              "bitmap (the view's members)");
    }
    NS_TEST_EXPECT_MSG_EQ(std::string(IslandSyncHeader::TypeToString(IslandSyncHeader::READY_ASK)),
                          "ready-ask",
                          "READY_ASK's name");
    NS_TEST_EXPECT_MSG_EQ(std::string(IslandSyncHeader::TypeToString(IslandSyncHeader::VIEW)),
                          "view",
                          "VIEW's name");

    // The clique field: the index in bits 0-5, the exclusion epoch in bits 6-15.
    IslandSyncHeader ring = MakeData();
    ring.SetCliqueIndex(37);
    ring.SetEpoch(IslandSyncHeader::MAX_EPOCH);
    NS_TEST_EXPECT_MSG_EQ(ring.GetCliqueId(), 37 + 64 * 63, "the whole field");
    ring.SetCliqueIndex(9);
    NS_TEST_EXPECT_MSG_EQ(ring.GetEpoch(), 63, "setting the index keeps the epoch");
    ring.SetEpoch(5);
    NS_TEST_EXPECT_MSG_EQ(ring.GetCliqueIndex(), 9, "setting the epoch keeps the index");
    Ptr<Packet> ringPacket = Create<Packet>(0);
    ringPacket->AddHeader(ring);
    const std::vector<uint8_t> ringBytes = Bytes(ringPacket);
    const uint16_t field = (ringBytes[12] << 8) | ringBytes[13];
    NS_TEST_EXPECT_MSG_EQ(field, (9 | (5 << 6)), "field at offset 12");
    IslandSyncHeader ringDecoded;
    NS_TEST_EXPECT_MSG_EQ(ringPacket->PeekHeader(ringDecoded), 64u, "accepted");
    NS_TEST_EXPECT_MSG_EQ(ringDecoded.GetCliqueIndex(), 9, "index decoded");
    NS_TEST_EXPECT_MSG_EQ(ringDecoded.GetEpoch(), 5, "epoch decoded");
    NS_TEST_EXPECT_MSG_EQ(ringDecoded.GetCliqueId(), 9 + 64 * 5, "whole field decoded");
    IslandSyncHeader whole;
    whole.SetCliqueId(2 + 64 * 3);
    NS_TEST_EXPECT_MSG_EQ(whole.GetCliqueIndex(), 2, "SetCliqueId: the index");
    NS_TEST_EXPECT_MSG_EQ(whole.GetEpoch(), 3, "SetCliqueId: the epoch");

    // The largest value count the maximum IPv4 datagram allows.
    NS_TEST_EXPECT_MSG_EQ(IslandSyncHeader::GetMaxValues(8932), 2233u, "a 9000-byte MTU chunk");
}

/**
 * @ingroup wan-training-tests
 * @brief Truncated and corrupt headers are rejected (return 0) without reading out of bounds.
 */
class IslandSyncHeaderRejectTestCase : public TestCase
{
  public:
    IslandSyncHeaderRejectTestCase();

  private:
    void DoRun() override;
};

IslandSyncHeaderRejectTestCase::IslandSyncHeaderRejectTestCase()
    : TestCase("truncated and corrupt headers are rejected")
{
}

void
IslandSyncHeaderRejectTestCase::DoRun()
{
    Ptr<Packet> packet = Create<Packet>(0);
    packet->AddHeader(MakeData());
    std::vector<uint8_t> bytes = Bytes(packet);
    NS_TEST_ASSERT_MSG_EQ(Accepts(bytes), true, "the intact header is accepted");

    // Every truncation, from empty to one byte short.
    for (size_t length = 0; length < bytes.size(); ++length)
    {
        std::vector<uint8_t> truncated(bytes.begin(), bytes.begin() + length);
        NS_TEST_EXPECT_MSG_EQ(Accepts(truncated), false, "truncated to " << length << " bytes");
    }

    // Every single-byte corruption is caught (checksum, magic, version, type or a count).
    for (size_t i = 0; i < bytes.size(); ++i)
    {
        std::vector<uint8_t> corrupt = bytes;
        corrupt[i] ^= 0x5A;
        NS_TEST_EXPECT_MSG_EQ(Accepts(corrupt), false, "byte " << i << " corrupted");
    }

    // Semantically invalid headers with a correct checksum.
    {
        std::vector<uint8_t> bad = bytes;
        bad[37] = 200; // value count beyond the buffer
        FixChecksum(bad, bytes.size());
        NS_TEST_EXPECT_MSG_EQ(Accepts(bad), false, "value count beyond the buffer");
    }
    for (uint8_t version : {1, 3})
    {
        std::vector<uint8_t> bad = bytes;
        bad[2] = version; // version 1 (READY kinds in the chunk index) or unknown
        FixChecksum(bad, bytes.size());
        NS_TEST_EXPECT_MSG_EQ(Accepts(bad), false, "version " << int(version));
    }
    for (uint8_t type : {0, 8, 9})
    {
        std::vector<uint8_t> bad = bytes;
        bad[3] = type; // unknown type
        FixChecksum(bad, bytes.size());
        NS_TEST_EXPECT_MSG_EQ(Accepts(bad), false, "unknown type " << int(type));
    }
    for (uint16_t epoch : {63, 64, 1023})
    {
        // Clique 7 in epoch 63 (the most), or more exclusions than a clique of 64 allows.
        std::vector<uint8_t> bad = bytes;
        const uint16_t field = (epoch << 6) | 7;
        bad[12] = field >> 8;
        bad[13] = field & 0xff;
        FixChecksum(bad, bytes.size());
        NS_TEST_EXPECT_MSG_EQ(Accepts(bad), (epoch <= 63), "epoch " << epoch);
    }
    {
        // READY_ASK and VIEW carry no area, as DONE and READY.
        IslandSyncHeader view;
        view.SetType(IslandSyncHeader::VIEW);
        view.SetContributors(3);
        Ptr<Packet> viewPacket = Create<Packet>(8);
        viewPacket->AddHeader(view);
        std::vector<uint8_t> bad = Bytes(viewPacket);
        bad[37] = 2;
        FixChecksum(bad, bad.size());
        NS_TEST_EXPECT_MSG_EQ(Accepts(bad), false, "VIEW with a value area");
        bad[3] = IslandSyncHeader::READY_ASK;
        FixChecksum(bad, bad.size());
        NS_TEST_EXPECT_MSG_EQ(Accepts(bad), false, "READY_ASK with a value area");
    }
    {
        std::vector<uint8_t> bad = bytes;
        WriteBe32(bad, 16, 111957); // chunk index == chunk count
        FixChecksum(bad, bytes.size());
        NS_TEST_EXPECT_MSG_EQ(Accepts(bad), false, "chunk index out of range");
    }
    {
        std::vector<uint8_t> bad = bytes;
        WriteBe32(bad, 28, 3); // DATA bitmap not the sender alone, count consistent
        bad[15] = 3;
        FixChecksum(bad, bytes.size());
        NS_TEST_EXPECT_MSG_EQ(Accepts(bad), false, "DATA from more than its sender");
    }
    {
        std::vector<uint8_t> bad = bytes;
        bad[15] = 2; // contributor count disagrees with the bitmap
        FixChecksum(bad, bytes.size());
        NS_TEST_EXPECT_MSG_EQ(Accepts(bad), false, "contributor count");
    }
    {
        std::vector<uint8_t> good = bytes;
        FixChecksum(good, bytes.size());
        NS_TEST_EXPECT_MSG_EQ(Accepts(good), true, "the independent checksum agrees");
    }

    IslandSyncHeader nack;
    nack.SetType(IslandSyncHeader::NACK);
    nack.SetChunkCount(100);
    nack.SetContributors(1);
    nack.SetRanges({{10, 20}});
    Ptr<Packet> nackPacket = Create<Packet>(0);
    nackPacket->AddHeader(nack);
    std::vector<uint8_t> nackBytes = Bytes(nackPacket);
    {
        std::vector<uint8_t> bad = nackBytes;
        WriteBe32(bad, 40, 20); // begin == end
        FixChecksum(bad, nackBytes.size());
        NS_TEST_EXPECT_MSG_EQ(Accepts(bad), false, "empty NACK range");
    }
    {
        std::vector<uint8_t> bad = nackBytes;
        WriteBe32(bad, 44, 101); // end beyond the chunk count
        FixChecksum(bad, nackBytes.size());
        NS_TEST_EXPECT_MSG_EQ(Accepts(bad), false, "NACK range beyond the stream");
    }
}

/**
 * @ingroup wan-training-tests
 * @brief ReadFromPacket and PeekTypeInPacket on datagrams and frames built with ns-3's own
 * headers: the sync header's offset (IPv4 20 + UDP 8, plus PPP 2), its fields, and the packets
 * that are not of the transport. ReadFromPacket validates the whole header, PeekTypeInPacket
 * only its magic, version and type.
 */
class IslandSyncHeaderInPacketTestCase : public TestCase
{
  public:
    IslandSyncHeaderInPacketTestCase()
        : TestCase("ReadFromPacket and PeekTypeInPacket: offset, fields, what is not a sync packet")
    {
    }

  private:
    static constexpr uint16_t PORT = 9999; //!< the transport's port

    /**
     * @param sync the sync header's bytes
     * @param port the UDP destination port
     * @param ppp whether to add the PPP header
     * @param fragment whether the IPv4 header says more fragments follow
     * @return a datagram (or frame) carrying them, then 100 padding bytes
     */
    static Ptr<Packet> Wrap(const std::vector<uint8_t>& sync,
                            uint16_t port,
                            bool ppp,
                            bool fragment)
    {
        Ptr<Packet> payload = Create<Packet>(sync.data(), sync.size());
        payload->AddAtEnd(Create<Packet>(100));
        SyncFrameFields fields;
        fields.sourcePort = PORT;
        fields.destinationPort = port;
        fields.ppp = ppp;
        fields.fragment = fragment;
        return MakeSyncFrame(payload, fields);
    }

    void DoRun() override
    {
        const IslandSyncHeader data = MakeData();
        Ptr<Packet> serialized = Create<Packet>(0);
        serialized->AddHeader(data);
        const std::vector<uint8_t> bytes = Bytes(serialized);

        for (bool ppp : {false, true})
        {
            const auto framing =
                ppp ? IslandSyncHeader::PPP_FRAME : IslandSyncHeader::IPV4_DATAGRAM;
            const uint32_t offset = (ppp ? 2 : 0) + 20 + 8;
            Ptr<Packet> packet = Wrap(bytes, PORT, ppp, false);
            IslandSyncHeader read;
            NS_TEST_EXPECT_MSG_EQ(IslandSyncHeader::ReadFromPacket(packet, framing, PORT, read),
                                  offset,
                                  "the sync header follows the IPv4 and UDP headers");
            NS_TEST_EXPECT_MSG_EQ(read.GetChunkIndex(), data.GetChunkIndex(), "fields read");
            NS_TEST_EXPECT_MSG_EQ(read.GetValues().size(), data.GetValues().size(), "values read");
            NS_TEST_EXPECT_MSG_EQ(read.GetValues()[5], data.GetValues()[5], "values exact");
            IslandSyncHeader::Type type = IslandSyncHeader::DONE;
            PayloadFormat format = PayloadFormat::INT8;
            NS_TEST_EXPECT_MSG_EQ(
                IslandSyncHeader::PeekTypeInPacket(packet, framing, PORT, type, format),
                offset,
                "PeekTypeInPacket finds the header where ReadFromPacket does");
            NS_TEST_EXPECT_MSG_EQ(type, IslandSyncHeader::DATA, "type peeked");
            NS_TEST_EXPECT_MSG_EQ((format == data.GetFormat()), true, "format peeked");

            // Not of the transport: another port, a fragment.
            for (Ptr<Packet> other :
                 {Wrap(bytes, PORT + 1, ppp, false), Wrap(bytes, PORT, ppp, true)})
            {
                type = IslandSyncHeader::DONE;
                NS_TEST_EXPECT_MSG_EQ(IslandSyncHeader::ReadFromPacket(other, framing, PORT, read),
                                      0u,
                                      "not a sync packet");
                NS_TEST_EXPECT_MSG_EQ(
                    IslandSyncHeader::PeekTypeInPacket(other, framing, PORT, type, format),
                    0u,
                    "not a sync packet");
                NS_TEST_EXPECT_MSG_EQ(type, IslandSyncHeader::DONE, "type unchanged");
            }

            // A value byte flipped: the checksum fails, which only ReadFromPacket checks.
            std::vector<uint8_t> flipped = bytes;
            flipped[IslandSyncHeader::FIXED_SIZE] ^= 0x40;
            Ptr<Packet> corrupt = Wrap(flipped, PORT, ppp, false);
            NS_TEST_EXPECT_MSG_EQ(IslandSyncHeader::ReadFromPacket(corrupt, framing, PORT, read),
                                  0u,
                                  "a corrupt header is refused");
            NS_TEST_EXPECT_MSG_EQ(
                IslandSyncHeader::PeekTypeInPacket(corrupt, framing, PORT, type, format),
                offset,
                "the type of a corrupt header is still read");

            // A wrong magic, version or type: neither reads it.
            for (size_t at : {0, 2, 3})
            {
                std::vector<uint8_t> wrong = bytes;
                wrong.at(at) = at == 3 ? 0x7f : wrong.at(at) ^ 0x01;
                FixChecksum(wrong, wrong.size());
                Ptr<Packet> packetOfWrong = Wrap(wrong, PORT, ppp, false);
                NS_TEST_EXPECT_MSG_EQ(
                    IslandSyncHeader::ReadFromPacket(packetOfWrong, framing, PORT, read),
                    0u,
                    "wrong byte " << at << " refused");
                NS_TEST_EXPECT_MSG_EQ(
                    IslandSyncHeader::PeekTypeInPacket(packetOfWrong, framing, PORT, type, format),
                    0u,
                    "wrong byte " << at << " refused by PeekTypeInPacket");
            }
        }
    }
};

namespace
{

/**
 * @param format a format
 * @param values the values
 * @param offset the value offset
 * @return a DATA header of MakeData()'s fields in the format carrying the values
 */
IslandSyncHeader
MakeFormatData(PayloadFormat format, const std::vector<float>& values, uint32_t offset)
{
    IslandSyncHeader header = MakeData();
    header.SetFormat(format);
    header.SetValueOffset(offset);
    header.SetValues(values);
    return header;
}

/**
 * @param header a header
 * @return its serialized bytes
 */
std::vector<uint8_t>
Serialized(const IslandSyncHeader& header)
{
    Ptr<Packet> packet = Create<Packet>(0);
    packet->AddHeader(header);
    return Bytes(packet);
}

/**
 * @param a values
 * @param b values
 * @return whether they are equal bit for bit
 */
bool
SameBits(const std::vector<float>& a, const std::vector<float>& b)
{
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), 4 * a.size()) == 0;
}

} // namespace

/**
 * @ingroup wan-training-tests
 * @brief The payload formats on the wire: the format in the type byte's high bits, sizes,
 * round trips (the sender's decoded values are the receiver's), GetMaxValues and
 * PeekSerializedSize per format, and what Deserialize refuses: an unknown format, a format on a
 * message without values, an int8 value offset off a block boundary, a bad checksum over the
 * encoded bytes, an encoding the codec never writes.
 */
class IslandSyncHeaderFormatTestCase : public TestCase
{
  public:
    IslandSyncHeaderFormatTestCase()
        : TestCase("payload formats: format field, sizes, round trips, rejections")
    {
    }

  private:
    void DoRun() override
    {
        // 1030 values: two int8 blocks (1024 and 6), of varied magnitudes.
        std::vector<float> values(1030);
        for (uint32_t k = 0; k < values.size(); ++k)
        {
            values[k] = std::ldexp(std::sin(0.37 * k + 0.1), static_cast<int>(k % 13) - 6);
        }

        struct Expected
        {
            PayloadFormat format;
            uint32_t areaBytes;
        };

        for (const Expected& e : {Expected{PayloadFormat::FP32, 4 * 1030},
                                  Expected{PayloadFormat::BF16, 2 * 1030},
                                  Expected{PayloadFormat::INT8, 1030 + 4 * 2}})
        {
            const std::string name = PayloadFormatToString(e.format);
            const IslandSyncHeader sent = MakeFormatData(e.format, values, 2048);
            NS_TEST_EXPECT_MSG_EQ(PayloadFormatToString(sent.GetFormat()), name, "GetFormat");
            NS_TEST_EXPECT_MSG_EQ(sent.GetSerializedSize(), 40 + e.areaBytes, name << " size");
            std::vector<float> quantized = values;
            PayloadCodec::Quantize(e.format, quantized);
            NS_TEST_EXPECT_MSG_EQ(SameBits(sent.GetValues(), quantized),
                                  true,
                                  name << ": SetValues quantizes");
            const std::vector<uint8_t> bytes = Serialized(sent);
            NS_TEST_ASSERT_MSG_EQ(bytes.size(), 40 + e.areaBytes, name << " bytes");
            const int typeByte = (static_cast<int>(e.format) << 4) | IslandSyncHeader::DATA;
            NS_TEST_EXPECT_MSG_EQ(int{bytes[3]},
                                  typeByte,
                                  name << ": the format in the type byte's high bits");
            NS_TEST_EXPECT_MSG_EQ(int{bytes[2]}, 2, name << ": version 2");
            NS_TEST_EXPECT_MSG_EQ(((bytes[36] << 8) | bytes[37]), 1030, "the count is of values");
            NS_TEST_EXPECT_MSG_EQ(IslandSyncHeader::PeekSerializedSize(bytes.data()),
                                  40 + e.areaBytes,
                                  name << " PeekSerializedSize");
            // The value area is the codec's encoding, the checksum over it (FixChecksum
            // recomputes it independently: the same bytes).
            std::vector<uint8_t> area(e.areaBytes);
            PayloadCodec::Encode(e.format, values.data(), 1030, area.data());
            NS_TEST_EXPECT_MSG_EQ((std::vector<uint8_t>(bytes.begin() + 40, bytes.end()) == area),
                                  true,
                                  name << ": the value area is the encoding");
            std::vector<uint8_t> rechecked = bytes;
            FixChecksum(rechecked, rechecked.size());
            NS_TEST_EXPECT_MSG_EQ((rechecked == bytes), true, name << ": checksum");

            IslandSyncHeader received;
            Ptr<Packet> packet = Create<Packet>(bytes.data(), bytes.size());
            packet->AddAtEnd(Create<Packet>(37));
            NS_TEST_ASSERT_MSG_EQ(packet->RemoveHeader(received),
                                  40 + e.areaBytes,
                                  name << " accepted");
            NS_TEST_EXPECT_MSG_EQ(PayloadFormatToString(received.GetFormat()), name, "format read");
            NS_TEST_EXPECT_MSG_EQ(received.GetValueOffset(), 2048u, name);
            NS_TEST_EXPECT_MSG_EQ(SameBits(received.GetValues(), sent.GetValues()),
                                  true,
                                  name << ": the receiver decodes the sender's values");
            NS_TEST_EXPECT_MSG_EQ((Serialized(received) == bytes),
                                  true,
                                  name << ": re-encoding what was received gives the same bytes");

            // ReadFromPacket and PeekTypeInPacket in a frame.
            Ptr<Packet> frame = MakeSyncFrame(Create<Packet>(bytes.data(), bytes.size()), {});
            IslandSyncHeader read;
            NS_TEST_EXPECT_MSG_EQ(
                IslandSyncHeader::ReadFromPacket(frame, IslandSyncHeader::PPP_FRAME, 9477, read),
                30u,
                name << " ReadFromPacket");
            NS_TEST_EXPECT_MSG_EQ(SameBits(read.GetValues(), sent.GetValues()), true, name);
            NS_TEST_EXPECT_MSG_EQ(PayloadFormatToString(read.GetFormat()), name, "format");
            IslandSyncHeader::Type type = IslandSyncHeader::DONE;
            PayloadFormat format = PayloadFormat::FP32;
            NS_TEST_EXPECT_MSG_EQ(IslandSyncHeader::PeekTypeInPacket(frame,
                                                                     IslandSyncHeader::PPP_FRAME,
                                                                     9477,
                                                                     type,
                                                                     format),
                                  30u,
                                  name << " PeekTypeInPacket");
            NS_TEST_EXPECT_MSG_EQ(PayloadFormatToString(format), name, "format peeked");
            NS_TEST_EXPECT_MSG_EQ(type, IslandSyncHeader::DATA, name << ": the type alone");

            // Any byte of the encoded area flipped: the checksum refuses it.
            for (size_t i : {size_t{40}, size_t{44}, bytes.size() - 1})
            {
                std::vector<uint8_t> corrupt = bytes;
                corrupt[i] ^= 0x21;
                NS_TEST_EXPECT_MSG_EQ(Accepts(corrupt), false, name << ": byte " << i);
            }
            // Truncated by one byte.
            NS_TEST_EXPECT_MSG_EQ(Accepts(std::vector<uint8_t>(bytes.begin(), bytes.end() - 1)),
                                  false,
                                  name << " truncated");
        }

        // The type byte: unknown formats, and a format on a message without values.
        const std::vector<uint8_t> bf16 =
            Serialized(MakeFormatData(PayloadFormat::BF16, values, 0));
        for (uint8_t format = 3; format < 16; ++format)
        {
            std::vector<uint8_t> bad = bf16;
            bad[3] = static_cast<uint8_t>((format << 4) | IslandSyncHeader::DATA);
            FixChecksum(bad, bad.size());
            NS_TEST_EXPECT_MSG_EQ(Accepts(bad), false, "unknown format " << int(format));
            Ptr<Packet> frame = MakeSyncFrame(Create<Packet>(bad.data(), bad.size()), {});
            IslandSyncHeader::Type type = IslandSyncHeader::DONE;
            PayloadFormat peeked = PayloadFormat::FP32;
            NS_TEST_EXPECT_MSG_EQ(IslandSyncHeader::PeekTypeInPacket(frame,
                                                                     IslandSyncHeader::PPP_FRAME,
                                                                     9477,
                                                                     type,
                                                                     peeked),
                                  0u,
                                  "PeekTypeInPacket refuses format " << int(format));
        }
        IslandSyncHeader done;
        done.SetType(IslandSyncHeader::DONE);
        done.SetContributors(2);
        done.SetFormat(PayloadFormat::INT8);
        const std::vector<uint8_t> doneBytes = Serialized(done);
        NS_TEST_EXPECT_MSG_EQ(doneBytes[3], IslandSyncHeader::DONE, "DONE carries no format");
        for (uint8_t type : {3, 4, 5, 6, 7})
        {
            std::vector<uint8_t> bad = doneBytes;
            bad[3] = static_cast<uint8_t>(0x10 | type);
            if (type == IslandSyncHeader::NACK)
            {
                bad[23] = 10; // a chunk count and one range [0, 1)
                bad[37] = 1;
                bad.insert(bad.end(), {0, 0, 0, 0, 0, 0, 0, 1});
            }
            FixChecksum(bad, bad.size());
            NS_TEST_EXPECT_MSG_EQ(Accepts(bad), false, "bf16 on type " << int(type));
            bad[3] = type;
            FixChecksum(bad, bad.size());
            NS_TEST_EXPECT_MSG_EQ(Accepts(bad), true, "the same without the format " << int(type));
        }

        // int8: the value offset must be a multiple of 1024 (chunks carry whole blocks).
        const std::vector<uint8_t> int8 =
            Serialized(MakeFormatData(PayloadFormat::INT8, values, 0));
        for (uint32_t offset : {1024u, 4096u * 1024u, 512u, 1u, 1023u})
        {
            std::vector<uint8_t> moved = int8;
            WriteBe32(moved, 32, offset);
            FixChecksum(moved, moved.size());
            NS_TEST_EXPECT_MSG_EQ(Accepts(moved), (offset % 1024 == 0), "int8 offset " << offset);
        }
        // An fp32 header whose type byte says int8: the area and checksum the format names
        // are not there.
        {
            std::vector<uint8_t> fp32 = Serialized(MakeFormatData(PayloadFormat::FP32, values, 0));
            fp32[3] = 0x21;
            FixChecksum(fp32, fp32.size());
            NS_TEST_EXPECT_MSG_EQ(Accepts(fp32), false, "fp32 values read as int8");
        }
        // A non-canonical int8 scale (a low mantissa bit set) with a correct checksum.
        {
            std::vector<uint8_t> bad = int8;
            bad[43] ^= 0x01;
            FixChecksum(bad, bad.size());
            NS_TEST_EXPECT_MSG_EQ(Accepts(bad), false, "an int8 scale Encode never writes");
        }

        // How many values a chunk carries, and SetFormat quantizes what is held.
        NS_TEST_EXPECT_MSG_EQ(IslandSyncHeader::GetMaxValues(8932, PayloadFormat::FP32), 2233u, "");
        NS_TEST_EXPECT_MSG_EQ(IslandSyncHeader::GetMaxValues(8932, PayloadFormat::BF16), 4466u, "");
        NS_TEST_EXPECT_MSG_EQ(IslandSyncHeader::GetMaxValues(8932, PayloadFormat::INT8),
                              8u * 1024,
                              "whole blocks of 1028 bytes");
        NS_TEST_EXPECT_MSG_EQ(IslandSyncHeader::GetMaxValues(1027, PayloadFormat::INT8), 0u, "");
        NS_TEST_EXPECT_MSG_EQ(IslandSyncHeader::GetMaxValues(1028, PayloadFormat::INT8), 1024u, "");
        NS_TEST_EXPECT_MSG_EQ(IslandSyncHeader::GetMaxValues(65495, PayloadFormat::INT8),
                              63u * 1024,
                              "at most 63 blocks: the count is a u16");
        NS_TEST_EXPECT_MSG_EQ(IslandSyncHeader::GetMaxValues(65495, PayloadFormat::BF16),
                              32747u,
                              "the largest datagram");
        IslandSyncHeader later = MakeData();
        later.SetValues({1.0f + std::ldexp(1.0f, -10)});
        later.SetFormat(PayloadFormat::BF16);
        NS_TEST_EXPECT_MSG_EQ(later.GetValues()[0], 1.0f, "SetFormat quantizes the values held");
        std::ostringstream printed;
        later.Print(printed);
        NS_TEST_EXPECT_MSG_EQ((printed.str().find("format=bf16") != std::string::npos),
                              true,
                              printed.str());
    }
};

namespace
{

/** One header of the test capture and the zero padding after it in its datagram. */
struct CaptureMessage
{
    IslandSyncHeader header; //!< the header
    uint32_t padding{0};     //!< zero bytes after it
};

/**
 * @return one header of every message kind, as test/data/pcap/message-kinds/messages.tsv lists
 *         them (aggregate and nack in epoch 2, done in clique 63 and epoch 63)
 */
std::vector<CaptureMessage>
CaptureMessages()
{
    auto make = [](IslandSyncHeader::Type type,
                   uint32_t round,
                   uint16_t clique,
                   uint16_t epoch,
                   uint32_t chunk,
                   uint32_t chunks,
                   uint64_t contributors) {
        IslandSyncHeader h;
        h.SetType(type);
        h.SetJobId(3);
        h.SetSender(0);
        h.SetRound(round);
        h.SetCliqueIndex(clique);
        h.SetEpoch(epoch);
        h.SetChunkIndex(chunk);
        h.SetChunkCount(chunks);
        h.SetContributors(contributors);
        return h;
    };
    std::vector<CaptureMessage> messages(8);
    messages[0].header = make(IslandSyncHeader::DATA, 2, 5, 0, 4, 10, 0x1);
    messages[0].header.SetValueOffset(1000);
    messages[0].header.SetValues({1.5f, -2.25f});
    messages[0].padding = 100;
    messages[1].header = make(IslandSyncHeader::AGGREGATE, 2, 5, 2, 7, 10, 0xb);
    messages[1].header.SetValueOffset(2000);
    messages[1].header.SetValues({0.5f, 0.25f, 4.0f});
    messages[2].header = make(IslandSyncHeader::NACK, 2, 5, 2, 0, 10, 0x2);
    messages[2].header.SetRanges({{1, 3}, {8, 10}});
    messages[3].header = make(IslandSyncHeader::DONE, 2, 63, 63, 0, 10, 0x2);
    messages[4].header = make(IslandSyncHeader::READY, 3, 0, 0, 0, 0, 0x1);
    messages[5].header = make(IslandSyncHeader::READY_ASK, 3, 0, 0, 0, 0, 0x1);
    messages[6].header = make(IslandSyncHeader::VIEW, 3, 5, 0, 0, 0, 0xd);
    messages[7].header = make(IslandSyncHeader::PARITY, 2, 5, 0, 0, 10, 0x1);
    messages[7].header.SetParity(4, {0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc});
    messages[7].padding = 100;
    return messages;
}

/**
 * @param message a header and its padding
 * @param identification the IPv4 identification
 * @return the PPP frame aaa's island sends to bbb's with it
 */
std::vector<uint8_t>
CaptureFrame(const CaptureMessage& message, uint16_t identification)
{
    Ptr<Packet> packet = Create<Packet>(message.padding);
    packet->AddHeader(message.header);
    SyncFrameFields fields;
    fields.identification = identification;
    return Bytes(MakeSyncFrame(packet, fields));
}

/**
 * @brief Write a PPP capture of messages, frame k at k ms plus a delay.
 * @param messages the headers and their padding
 * @param path the capture to write
 * @param delayUs the delay
 */
void
WriteCapture(const std::vector<CaptureMessage>& messages, const std::string& path, uint32_t delayUs)
{
    PcapFile file;
    file.Open(path, std::ios::out | std::ios::binary);
    file.Init(9, 65535, 0);
    for (uint32_t k = 0; k < messages.size(); ++k)
    {
        const std::vector<uint8_t> frame = CaptureFrame(messages[k], k + 1);
        file.Write(0, 1000 * (k + 1) + delayUs, frame.data(), frame.size());
    }
    file.Close();
}

/**
 * @param path a file
 * @return its bytes (empty when it cannot be read)
 */
std::vector<uint8_t>
FileBytes(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    return std::vector<uint8_t>(std::istreambuf_iterator<char>(in),
                                std::istreambuf_iterator<char>());
}

} // namespace

/**
 * @ingroup wan-training-tests
 * @brief The test capture of every message kind: test/data/pcap/message-kinds/aaa-up.pcap (and
 * aaa-down.pcap) are what Serialize writes for CaptureMessages(), and Deserialize reads from it
 * exactly the fields of messages.tsv, which the pcap decoder (pcap-report-test.cc) and the
 * Wireshark dissector (pcap-tshark.sh) must read too.
 */
class IslandSyncHeaderCaptureTestCase : public TestCase
{
  public:
    IslandSyncHeaderCaptureTestCase()
        : TestCase("the test capture of every message kind: written by Serialize, read as listed")
    {
    }

  private:
    void DoRun() override
    {
        SetDataDir(NS_TEST_SOURCEDIR);
        const std::string dir = "data/pcap/message-kinds/";
        const std::vector<CaptureMessage> messages = CaptureMessages();
        // Frame k at k ms on aaa:up, received 100 us later by the router (aaa-down.pcap).
        for (uint32_t delayUs : {0, 100})
        {
            const std::string name = delayUs == 0 ? "aaa-up.pcap" : "aaa-down.pcap";
            const std::string written = CreateTempDirFilename(name);
            WriteCapture(messages, written, delayUs);
            NS_TEST_EXPECT_MSG_EQ(
                (FileBytes(written) == FileBytes(CreateDataDirFilename(dir + name))),
                true,
                name << " is not what Serialize writes now: " << written << " is (copy it to test/"
                     << dir << " when the wire "
                     << "format changed on purpose)");
        }

        std::ifstream table(CreateDataDirFilename(dir + "messages.tsv"));
        NS_TEST_ASSERT_MSG_EQ(table.good(), true, "messages.tsv");
        PcapFile capture;
        capture.Open(CreateDataDirFilename(dir + "aaa-up.pcap"), std::ios::in | std::ios::binary);
        NS_TEST_ASSERT_MSG_EQ(capture.Fail(), false, "aaa-up.pcap opens");
        NS_TEST_EXPECT_MSG_EQ(capture.GetDataLinkType(), 9u, "a PPP capture");
        std::vector<std::string> lines;
        for (std::string line; std::getline(table, line);)
        {
            if (!line.empty() && line[0] != '#')
            {
                lines.push_back(line);
            }
        }
        NS_TEST_EXPECT_MSG_EQ(lines.size(), messages.size(), "a row per frame");
        std::set<int> types;
        bool epochSeen = false;
        for (const std::string& line : lines)
        {
            std::istringstream row(line);
            uint32_t frame, type, version, job, sender, round, clique, epoch, count, chunk, chunks;
            uint32_t offset, area, frameBytes;
            std::string name, contributors;
            row >> frame >> type >> name >> version >> job >> sender >> round >> clique >> epoch >>
                count >> chunk >> chunks >> contributors >> offset >> area >> frameBytes;
            NS_TEST_ASSERT_MSG_EQ(row.fail(), false, "messages.tsv row " << line);

            uint8_t data[65536];
            uint32_t sec, usec, included, original, read;
            capture.Read(data, sizeof(data), sec, usec, included, original, read);
            NS_TEST_ASSERT_MSG_EQ(capture.Fail(), false, "frame " << frame << " read");
            NS_TEST_EXPECT_MSG_EQ(original, frameBytes, "frame " << frame << " bytes");
            Ptr<Packet> packet = Create<Packet>(data, included);
            PppHeader ppp;
            Ipv4Header ip;
            UdpHeader udp;
            packet->RemoveHeader(ppp);
            packet->RemoveHeader(ip);
            packet->RemoveHeader(udp);
            NS_TEST_EXPECT_MSG_EQ(udp.GetDestinationPort(), 9477, "frame " << frame << " port");
            IslandSyncHeader h;
            NS_TEST_ASSERT_MSG_NE(packet->RemoveHeader(h), 0u, "frame " << frame << " accepted");
            NS_TEST_EXPECT_MSG_EQ(uint32_t{h.GetType()}, type, "frame " << frame << " type");
            NS_TEST_EXPECT_MSG_EQ(std::string(IslandSyncHeader::TypeToString(h.GetType())),
                                  name,
                                  "frame " << frame << " type name");
            NS_TEST_EXPECT_MSG_EQ(uint32_t{data[2 + 20 + 8 + 2]}, version, "frame " << frame);
            NS_TEST_EXPECT_MSG_EQ(h.GetJobId(), job, "frame " << frame << " job");
            NS_TEST_EXPECT_MSG_EQ(h.GetSender(), sender, "frame " << frame << " sender");
            NS_TEST_EXPECT_MSG_EQ(h.GetRound(), round, "frame " << frame << " round");
            NS_TEST_EXPECT_MSG_EQ(h.GetCliqueIndex(), clique, "frame " << frame << " clique");
            NS_TEST_EXPECT_MSG_EQ(h.GetEpoch(), epoch, "frame " << frame << " epoch");
            NS_TEST_EXPECT_MSG_EQ(h.GetContributorCount(), count, "frame " << frame << " count");
            NS_TEST_EXPECT_MSG_EQ(h.GetChunkIndex(), chunk, "frame " << frame << " chunk index");
            NS_TEST_EXPECT_MSG_EQ(h.GetChunkCount(), chunks, "frame " << frame << " chunk count");
            NS_TEST_EXPECT_MSG_EQ(h.GetContributors(),
                                  std::stoull(contributors, nullptr, 16),
                                  "frame " << frame << " contributors");
            NS_TEST_EXPECT_MSG_EQ(h.GetValueOffset(), offset, "frame " << frame << " offset");
            NS_TEST_EXPECT_MSG_EQ(h.GetValues().size() + h.GetRanges().size() +
                                      h.GetParity().size(),
                                  area,
                                  "frame " << frame << " area count");
            types.insert(h.GetType());
            epochSeen = epochSeen || h.GetEpoch() > 0;
        }
        NS_TEST_EXPECT_MSG_EQ(types.size(), 8u, "every message type");
        NS_TEST_EXPECT_MSG_EQ(epochSeen, true, "an epoch above 0");
        uint8_t data[65536];
        uint32_t sec, usec, included, original, read;
        capture.Read(data, sizeof(data), sec, usec, included, original, read);
        NS_TEST_EXPECT_MSG_EQ(capture.Eof(), true, "no frame beyond the table's");
    }
};

namespace
{

/**
 * @return one DATA and one AGGREGATE in bf16 and in int8, as
 *         test/data/pcap/payload-formats/formats.tsv lists them: every value shown there is
 *         exact in its format (the int8 blocks have the scale 0.25)
 */
std::vector<CaptureMessage>
FormatCaptureMessages()
{
    auto make = [](IslandSyncHeader::Type type,
                   PayloadFormat format,
                   uint32_t chunk,
                   uint64_t contributors,
                   uint32_t offset,
                   const std::vector<float>& values,
                   uint32_t padding) {
        CaptureMessage m;
        m.header.SetType(type);
        m.header.SetFormat(format);
        m.header.SetJobId(3);
        m.header.SetRound(2);
        m.header.SetCliqueIndex(5);
        m.header.SetChunkIndex(chunk);
        m.header.SetChunkCount(10);
        m.header.SetContributors(contributors);
        m.header.SetValueOffset(offset);
        m.header.SetValues(values);
        m.padding = padding;
        return m;
    };
    // Two int8 blocks (1024 and 6 values), multiples of 0.25 up to 31.75 = 127 x 0.25.
    std::vector<float> blocks(1030);
    for (uint32_t k = 0; k < blocks.size(); ++k)
    {
        blocks[k] = 0.25f * (static_cast<int>((37 * k) % 255) - 127);
    }
    blocks[0] = 31.75f;
    blocks[1] = 0.5f;
    blocks[2] = -1.25f;
    blocks[1024] = -31.75f;
    return {
        make(IslandSyncHeader::DATA, PayloadFormat::BF16, 4, 0x1, 1000, {1.5f, -2.25f, 3.13f}, 100),
        make(IslandSyncHeader::AGGREGATE,
             PayloadFormat::BF16,
             7,
             0xb,
             2000,
             {0.5f, 0.25f, 4.0f},
             0),
        make(IslandSyncHeader::DATA, PayloadFormat::INT8, 1, 0x1, 1024, blocks, 0),
        make(IslandSyncHeader::AGGREGATE,
             PayloadFormat::INT8,
             0,
             0x7,
             0,
             {31.75f, 0.5f, -1.25f},
             20),
    };
}

} // namespace

/**
 * @ingroup wan-training-tests
 * @brief The test capture of the payload formats: test/data/pcap/payload-formats/formats.pcap is
 * what Serialize writes for FormatCaptureMessages(), and Deserialize reads from it the format,
 * fields and first values of formats.tsv, which the pcap decoder (pcap-report-test.cc) and the
 * Wireshark dissector (pcap-tshark.sh) must read too.
 */
class IslandSyncHeaderFormatCaptureTestCase : public TestCase
{
  public:
    IslandSyncHeaderFormatCaptureTestCase()
        : TestCase("the test capture of the payload formats: written by Serialize, read as listed")
    {
        SetDataDir(NS_TEST_SOURCEDIR);
    }

  private:
    void DoRun() override
    {
        const std::string dir = "data/pcap/payload-formats/";
        const std::vector<CaptureMessage> messages = FormatCaptureMessages();
        const std::string written = CreateTempDirFilename("formats.pcap");
        WriteCapture(messages, written, 0);
        NS_TEST_EXPECT_MSG_EQ(
            (FileBytes(written) == FileBytes(CreateDataDirFilename(dir + "formats.pcap"))),
            true,
            "formats.pcap is not what Serialize writes now: "
                << written << " is (copy it to test/" << dir
                << " when the wire format changed on purpose)");

        NS_TEST_ASSERT_MSG_EQ(FileBytes(CreateDataDirFilename(dir + "formats.pcap")).empty(),
                              false,
                              "test/" << dir << "formats.pcap");
        const std::vector<FormatCaptureRow> rows =
            ReadFormatCaptureRows(CreateDataDirFilename(dir + "formats.tsv"));
        NS_TEST_EXPECT_MSG_EQ(rows.size(), messages.size(), "a row per frame");
        PcapFile capture;
        capture.Open(CreateDataDirFilename(dir + "formats.pcap"), std::ios::in | std::ios::binary);
        for (const FormatCaptureRow& row : rows)
        {
            std::vector<uint8_t> frame(65536);
            uint32_t sec, usec, captured, length, read;
            capture.Read(frame.data(), frame.size(), sec, usec, captured, length, read);
            NS_TEST_ASSERT_MSG_EQ((capture.Fail() || captured <= 30), false, "frame " << row.frame);
            NS_TEST_EXPECT_MSG_EQ(length, row.frameBytes, "frame " << row.frame << " bytes");
            // After the PPP, IPv4 and UDP headers (30 bytes).
            IslandSyncHeader h;
            NS_TEST_ASSERT_MSG_NE(Create<Packet>(frame.data() + 30, captured - 30)->RemoveHeader(h),
                                  0u,
                                  "frame " << row.frame << " accepted");
            NS_TEST_EXPECT_MSG_EQ(uint32_t{h.GetType()}, row.type, "frame " << row.frame);
            NS_TEST_EXPECT_MSG_EQ(PayloadFormatToString(h.GetFormat()), row.format, row.frame);
            NS_TEST_EXPECT_MSG_EQ(h.GetValueOffset(), row.offset, "frame " << row.frame);
            NS_TEST_ASSERT_MSG_EQ(h.GetValues().size(), row.count, "frame " << row.frame);
            NS_TEST_EXPECT_MSG_EQ(
                (std::vector<float>(h.GetValues().begin(),
                                    h.GetValues().begin() + row.firstValues.size()) ==
                 row.firstValues),
                true,
                "frame " << row.frame << " values");
        }
    }
};

/**
 * @ingroup wan-training-tests
 * @brief PARITY (forward error correction): round trips with and without bytes, the wire
 * layout (type byte with the format, the block's chunk count in the value offset field, the
 * byte count in the area count field), and rejection of a block beyond the chunk count, an empty
 * block and a contributor other than the sender (each with a correct checksum).
 */
class IslandSyncHeaderParityTestCase : public TestCase
{
  public:
    IslandSyncHeaderParityTestCase()
        : TestCase("PARITY: round trips, wire layout, invalid blocks rejected")
    {
    }

  private:
    void DoRun() override
    {
        IslandSyncHeader parity;
        parity.SetType(IslandSyncHeader::PARITY);
        parity.SetJobId(3);
        parity.SetRound(9);
        parity.SetCliqueId(5);
        parity.SetSender(4);
        parity.SetContributors(uint64_t{1} << 4);
        parity.SetChunkCount(250);
        parity.SetChunkIndex(200);
        parity.SetFormat(PayloadFormat::BF16);
        const std::vector<uint8_t> bytes{0x01, 0xff, 0x80, 0x00, 0x7f, 0x10};
        parity.SetParity(50, bytes);
        NS_TEST_EXPECT_MSG_EQ(parity.GetSerializedSize(),
                              IslandSyncHeader::FIXED_SIZE + bytes.size(),
                              "the area is the bytes");

        std::vector<uint8_t> wire = Serialized(parity);
        NS_TEST_ASSERT_MSG_EQ(wire.size(), IslandSyncHeader::FIXED_SIZE + bytes.size(), "size");
        NS_TEST_EXPECT_MSG_EQ(uint32_t{wire[3]},
                              uint32_t{IslandSyncHeader::PARITY | (1u << 4)},
                              "type 8, format bf16");
        NS_TEST_EXPECT_MSG_EQ(ReadBe32(wire, 32), 50u, "the block's chunks in the value offset");
        const uint32_t byteCount = (uint32_t{wire[36]} << 8) | wire[37];
        NS_TEST_EXPECT_MSG_EQ(byteCount, bytes.size(), "byte count");
        NS_TEST_EXPECT_MSG_EQ(std::memcmp(wire.data() + 40, bytes.data(), bytes.size()),
                              0,
                              "the bytes as given");

        Ptr<Packet> packet = Create<Packet>(wire.data(), wire.size());
        packet->AddPaddingAtEnd(100);
        IslandSyncHeader read;
        NS_TEST_ASSERT_MSG_EQ(packet->RemoveHeader(read), wire.size(), "accepted");
        NS_TEST_EXPECT_MSG_EQ(read.GetType(), IslandSyncHeader::PARITY, "type");
        NS_TEST_EXPECT_MSG_EQ(read.GetBlockChunks(), 50u, "block");
        NS_TEST_EXPECT_MSG_EQ(read.GetChunkIndex(), 200u, "first chunk");
        NS_TEST_EXPECT_MSG_EQ((read.GetParity() == bytes), true, "bytes");
        NS_TEST_EXPECT_MSG_EQ((read.GetFormat() == PayloadFormat::BF16), true, "format");
        NS_TEST_EXPECT_MSG_EQ(read.GetValues().empty(), true, "no values");
        NS_TEST_EXPECT_MSG_EQ(packet->GetSize(), 100u, "the padding is left");

        // Chunks without values (padding only): an empty parity.
        IslandSyncHeader empty = parity;
        empty.SetParity(50, {});
        const std::vector<uint8_t> emptyWire = Serialized(empty);
        NS_TEST_EXPECT_MSG_EQ(emptyWire.size(), IslandSyncHeader::FIXED_SIZE, "no area");
        NS_TEST_EXPECT_MSG_EQ(Accepts(emptyWire), true, "an empty parity is valid");

        // Invalid blocks, with a correct checksum.
        std::vector<uint8_t> beyond = wire;
        WriteBe32(beyond, 32, 51); // chunks 200 .. 250 of 250
        FixChecksum(beyond, beyond.size());
        NS_TEST_EXPECT_MSG_EQ(Accepts(beyond), false, "a block beyond the chunk count");
        std::vector<uint8_t> none = wire;
        WriteBe32(none, 32, 0);
        FixChecksum(none, none.size());
        NS_TEST_EXPECT_MSG_EQ(Accepts(none), false, "a block of no chunk");
        std::vector<uint8_t> other = wire;
        WriteBe32(other, 28, 1u << 5); // contributor 5, sender 4 (count still 1)
        FixChecksum(other, other.size());
        NS_TEST_EXPECT_MSG_EQ(Accepts(other), false, "a contributor other than the sender");
        std::vector<uint8_t> fixedOk = wire;
        FixChecksum(fixedOk, fixedOk.size());
        NS_TEST_EXPECT_MSG_EQ(Accepts(fixedOk), true, "the test's checksum is the header's");
    }
};

/**
 * @ingroup wan-training-tests
 * @brief The IslandSyncHeader test suite.
 */
class IslandSyncHeaderTestSuite : public TestSuite
{
  public:
    IslandSyncHeaderTestSuite();
};

IslandSyncHeaderTestSuite::IslandSyncHeaderTestSuite()
    : TestSuite("wan-training-island-sync-header", UNIT)
{
    AddTestCase(new IslandSyncHeaderRoundTripTestCase(), TestCase::QUICK);
    AddTestCase(new IslandSyncHeaderRejectTestCase(), TestCase::QUICK);
    AddTestCase(new IslandSyncHeaderInPacketTestCase(), TestCase::QUICK);
    AddTestCase(new IslandSyncHeaderFormatTestCase(), TestCase::QUICK);
    AddTestCase(new IslandSyncHeaderCaptureTestCase(), TestCase::QUICK);
    AddTestCase(new IslandSyncHeaderFormatCaptureTestCase(), TestCase::QUICK);
    AddTestCase(new IslandSyncHeaderParityTestCase(), TestCase::QUICK);
}

/** Static instance of the suite. */
static IslandSyncHeaderTestSuite g_islandSyncHeaderTestSuite;
