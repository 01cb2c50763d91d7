/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "island-sync-header.h"

#include "ns3/ipv4-header.h"
#include "ns3/packet.h"
#include "ns3/ppp-header.h"
#include "ns3/test.h"
#include "ns3/udp-header.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

/**
 * @file
 * @ingroup wan-training-tests
 * IslandSyncHeader test suite: round trips of every message type, the wire layout checked byte
 * by byte against the documented offsets, rejection of truncated and corrupt headers
 * (including semantically invalid ones that carry a correct checksum), and finding the header
 * in a datagram or frame (ReadFromPacket, PeekTypeInPacket).
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
    NS_TEST_EXPECT_MSG_EQ(bytes[2], 1, "version");
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

    // READY asking for an answer.
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
    {
        std::vector<uint8_t> bad = bytes;
        bad[2] = 2; // unknown version
        FixChecksum(bad, bytes.size());
        NS_TEST_EXPECT_MSG_EQ(Accepts(bad), false, "unknown version");
    }
    {
        std::vector<uint8_t> bad = bytes;
        bad[3] = 9; // unknown type
        FixChecksum(bad, bytes.size());
        NS_TEST_EXPECT_MSG_EQ(Accepts(bad), false, "unknown type");
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
        UdpHeader udp;
        udp.SetSourcePort(PORT);
        udp.SetDestinationPort(port);
        payload->AddHeader(udp);
        Ipv4Header ip;
        ip.SetProtocol(17);
        ip.SetPayloadSize(payload->GetSize());
        if (fragment)
        {
            ip.SetMoreFragments();
        }
        payload->AddHeader(ip);
        if (ppp)
        {
            PppHeader header;
            header.SetProtocol(0x0021);
            payload->AddHeader(header);
        }
        return payload;
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
            NS_TEST_EXPECT_MSG_EQ(IslandSyncHeader::PeekTypeInPacket(packet, framing, PORT, type),
                                  offset,
                                  "PeekTypeInPacket finds the header where ReadFromPacket does");
            NS_TEST_EXPECT_MSG_EQ(type, IslandSyncHeader::DATA, "type peeked");

            // Not of the transport: another port, a fragment.
            for (Ptr<Packet> other :
                 {Wrap(bytes, PORT + 1, ppp, false), Wrap(bytes, PORT, ppp, true)})
            {
                type = IslandSyncHeader::DONE;
                NS_TEST_EXPECT_MSG_EQ(IslandSyncHeader::ReadFromPacket(other, framing, PORT, read),
                                      0u,
                                      "not a sync packet");
                NS_TEST_EXPECT_MSG_EQ(
                    IslandSyncHeader::PeekTypeInPacket(other, framing, PORT, type),
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
            NS_TEST_EXPECT_MSG_EQ(IslandSyncHeader::PeekTypeInPacket(corrupt, framing, PORT, type),
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
                    IslandSyncHeader::PeekTypeInPacket(packetOfWrong, framing, PORT, type),
                    0u,
                    "wrong byte " << at << " refused by PeekTypeInPacket");
            }
        }
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
}

/** Static instance of the suite. */
static IslandSyncHeaderTestSuite g_islandSyncHeaderTestSuite;
