/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "island-sync-header.h"
#include "pcap-direction-resolver.h"
#include "pcap-trace-report.h"
#include "sync-packet-decoder.h"
#include "sync-pcap-reader.h"
#include "sync-test-frame.h"
#include "training-island-application.h"
#include "wan-input-error.h"

#include "ns3/ipv4-header.h"
#include "ns3/packet.h"
#include "ns3/pcap-file.h"
#include "ns3/ppp-header.h"
#include "ns3/udp-header.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <gtest/gtest.h>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

/**
 * @file
 * @ingroup wan-training-tests
 * GoogleTest cases for pcap-report's library: the frame decoder on frames built here byte by
 * byte and by ns-3's own header classes, the pcap reader on files written by ns-3's PcapFile,
 * the direction resolver on synthetic channels, and the report on a capture directory written
 * here with known traffic.
 */

using namespace ns3;

namespace
{

/** The sync port used throughout: the transport's. */
constexpr uint16_t PORT = SyncPacketDecoder::DEFAULT_PORT;
static_assert(PORT == TrainingIslandApplication::DEFAULT_PORT,
              "pcap-report's default port must be the transport's");

/** Fields of a sync message to build. */
struct Message
{
    uint16_t magic{0x5754};            //!< magic
    uint8_t version{2};                //!< version
    uint8_t type{1};                   //!< type
    uint16_t job{7};                   //!< job
    uint16_t sender{3};                //!< sender
    uint32_t round{0x01020304};        //!< round
    uint16_t clique{5};                //!< clique
    int32_t count{-1};                 //!< contributor count (-1: the bitmap's population count)
    uint32_t chunk{9};                 //!< chunk index
    uint32_t chunks{12};               //!< chunk count
    uint64_t bitmap{uint64_t{1} << 3}; //!< contributor bitmap
    uint32_t offset{1000};             //!< value offset
    std::vector<float> values{1.5f, -2.25f};           //!< values
    std::vector<std::pair<uint32_t, uint32_t>> ranges; //!< NACK ranges
    int32_t areaCount{-1};       //!< area count field (-1: from values or ranges)
    uint32_t padding{100};       //!< zero bytes after the area
    bool corruptChecksum{false}; //!< whether to break the checksum
};

/** Append big-endian bytes. */
void
Put(std::vector<uint8_t>& out, uint64_t value, int bytes)
{
    for (int i = bytes - 1; i >= 0; --i)
    {
        out.push_back(static_cast<uint8_t>(value >> (8 * i)));
    }
}

/** RFC 1071 checksum of bytes (big-endian words). */
uint16_t
InternetChecksum(const std::vector<uint8_t>& bytes, size_t size)
{
    uint32_t sum = 0;
    for (size_t i = 0; i + 1 < size; i += 2)
    {
        sum += (bytes[i] << 8) | bytes[i + 1];
    }
    while (sum >> 16)
    {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    return static_cast<uint16_t>(~sum);
}

/** The UDP payload of a sync message, written from the documented layout. */
std::vector<uint8_t>
BuildMessage(const Message& m)
{
    std::vector<uint8_t> out;
    Put(out, m.magic, 2);
    Put(out, m.version, 1);
    Put(out, m.type, 1);
    Put(out, m.job, 2);
    Put(out, m.sender, 2);
    Put(out, m.round, 4);
    Put(out, m.clique, 2);
    int popcount = __builtin_popcountll(m.bitmap);
    Put(out, m.count >= 0 ? m.count : popcount, 2);
    Put(out, m.chunk, 4);
    Put(out, m.chunks, 4);
    Put(out, m.bitmap, 8);
    Put(out, m.offset, 4);
    size_t area = m.type == 3 ? m.ranges.size() : m.values.size();
    Put(out, m.areaCount >= 0 ? m.areaCount : area, 2);
    Put(out, 0, 2);
    for (float v : m.values)
    {
        uint32_t bits;
        std::memcpy(&bits, &v, 4);
        Put(out, bits, 4);
    }
    for (const auto& [begin, end] : m.ranges)
    {
        Put(out, begin, 4);
        Put(out, end, 4);
    }
    uint16_t checksum = InternetChecksum(out, out.size());
    if (m.corruptChecksum)
    {
        checksum ^= 0x0100;
    }
    out[38] = checksum >> 8;
    out[39] = checksum & 0xff;
    out.resize(out.size() + m.padding, 0);
    return out;
}

/** An IPv4 address from its four bytes. */
uint32_t
Ip(uint8_t a, uint8_t b, uint8_t c, uint8_t d)
{
    return (uint32_t{a} << 24) | (uint32_t{b} << 16) | (uint32_t{c} << 8) | d;
}

/** Frame options. */
struct FrameSpec
{
    uint32_t source{Ip(10, 128, 0, 2)};      //!< IPv4 source
    uint32_t destination{Ip(10, 128, 0, 6)}; //!< IPv4 destination
    uint8_t ttl{64};                         //!< TTL
    uint16_t id{0x1234};                     //!< identification
    uint8_t protocol{17};                    //!< IP protocol
    uint16_t fragment{0};                    //!< flags and fragment offset
    uint16_t sourcePort{PORT};               //!< UDP source port
    uint16_t destinationPort{PORT};          //!< UDP destination port
    uint16_t ppp{0x0021};                    //!< PPP protocol
};

/** A PPP frame: PPP, IPv4 (20 bytes), UDP, payload. */
std::vector<uint8_t>
BuildFrame(const FrameSpec& f, const std::vector<uint8_t>& payload)
{
    std::vector<uint8_t> out;
    Put(out, f.ppp, 2);
    Put(out, 0x45, 1);
    Put(out, 0, 1);
    Put(out, 20 + 8 + payload.size(), 2);
    Put(out, f.id, 2);
    Put(out, f.fragment, 2);
    Put(out, f.ttl, 1);
    Put(out, f.protocol, 1);
    Put(out, 0, 2);
    Put(out, f.source, 4);
    Put(out, f.destination, 4);
    Put(out, f.sourcePort, 2);
    Put(out, f.destinationPort, 2);
    Put(out, 8 + payload.size(), 2);
    Put(out, 0, 2);
    out.insert(out.end(), payload.begin(), payload.end());
    return out;
}

/** Decode a whole frame. */
DecodedSyncPacket
DecodeAll(const std::vector<uint8_t>& frame, bool withValues = true)
{
    SyncPacketDecoder decoder(PORT);
    return decoder.Decode(frame.data(), frame.size(), frame.size(), withValues);
}

/** A fresh empty directory under the system's temporary directory. */
std::string
TempDir(const std::string& name)
{
    auto dir = std::filesystem::temp_directory_path() /
               ("pcap-report-test-" + name + "-" + std::to_string(::getpid()));
    std::filesystem::remove_all(dir);
    std::filesystem::create_directories(dir);
    return dir.string();
}

/** The whole text of a file. */
std::string
ReadText(const std::string& path)
{
    std::ifstream in(path);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

/** One record to write. */
struct Rec
{
    uint64_t timeNs;           //!< timestamp
    std::vector<uint8_t> data; //!< the whole frame
};

/** Write records (sorted by time) with ns-3's PcapFile. */
void
WriteCapture(const std::string& path,
             std::vector<Rec> records,
             uint32_t snapLen = 65535,
             bool nanosecond = false,
             uint32_t linkType = 9)
{
    std::stable_sort(records.begin(), records.end(), [](const Rec& a, const Rec& b) {
        return a.timeNs < b.timeNs;
    });
    PcapFile file;
    file.Open(path, std::ios::out);
    file.Init(linkType, snapLen, 0, false, nanosecond);
    for (const Rec& r : records)
    {
        uint32_t sec = static_cast<uint32_t>(r.timeNs / 1000000000);
        uint32_t sub = static_cast<uint32_t>(r.timeNs % 1000000000);
        file.Write(sec, nanosecond ? sub : sub / 1000, r.data.data(), r.data.size());
    }
    file.Close();
}

/** Expect a WanInputError naming the file, the place and a reason containing text. */
void
ExpectInputError(const std::function<void()>& action,
                 const std::string& file,
                 const std::string& place,
                 const std::string& text)
{
    try
    {
        action();
        ADD_FAILURE() << "no error for " << file;
    }
    catch (const WanInputError& e)
    {
        EXPECT_EQ(e.GetFile(), file);
        EXPECT_EQ(e.GetPath(), place);
        EXPECT_NE(e.GetReason().find(text), std::string::npos) << e.what();
    }
}

// ------------------------------------------------------------------------------------------
// SyncPacketDecoder
// ------------------------------------------------------------------------------------------

TEST(SyncPacketDecoder, DecodesEveryFieldOfAHandBuiltDataFrame)
{
    Message m;
    std::vector<uint8_t> frame = BuildFrame(FrameSpec(), BuildMessage(m));
    DecodedSyncPacket d = DecodeAll(frame);
    ASSERT_EQ(d.sync, DecodedSyncPacket::VALID) << d.invalidReason;
    EXPECT_TRUE(d.IsSync());
    EXPECT_EQ(d.wireBytes, frame.size());
    EXPECT_EQ(d.pppProtocol, 0x0021);
    EXPECT_EQ(d.source, Ip(10, 128, 0, 2));
    EXPECT_EQ(d.destination, Ip(10, 128, 0, 6));
    EXPECT_FALSE(d.IsMulticast());
    EXPECT_EQ(d.ttl, 64);
    EXPECT_EQ(d.identification, 0x1234);
    EXPECT_EQ(d.sourcePort, PORT);
    EXPECT_EQ(d.destinationPort, PORT);
    EXPECT_EQ(d.header.magic, 0x5754);
    EXPECT_EQ(d.header.version, 2);
    EXPECT_EQ(d.header.type, 1);
    EXPECT_EQ(d.header.jobId, 7);
    EXPECT_EQ(d.header.sender, 3);
    EXPECT_EQ(d.header.round, 0x01020304u);
    EXPECT_EQ(d.header.cliqueId, 5);
    EXPECT_EQ(d.header.GetCliqueIndex(), 5);
    EXPECT_EQ(d.header.GetEpoch(), 0);
    EXPECT_EQ(d.header.contributorCount, 1);
    EXPECT_EQ(d.header.chunkIndex, 9u);
    EXPECT_EQ(d.header.chunkCount, 12u);
    EXPECT_EQ(d.header.contributors, uint64_t{8});
    EXPECT_EQ(d.header.valueOffset, 1000u);
    EXPECT_EQ(d.header.areaCount, 2);
    EXPECT_EQ(d.checksum, DecodedSyncPacket::GOOD);
    EXPECT_EQ(d.syncBytes, 40u + 8 + 100);
    EXPECT_EQ(d.modelBytes, 8u + 100); // values and padding after the fixed header
    ASSERT_EQ(d.values.size(), 2u);
    EXPECT_EQ(d.values[0], 1.5f);
    EXPECT_EQ(d.values[1], -2.25f);
    EXPECT_STREQ(SyncPacketDecoder::TypeToString(d.header.type), "data");
}

TEST(SyncPacketDecoder, CountsWireBytesOfHeadersOnlyCaptures)
{
    Message m;
    m.values.assign(200, 0.5f);
    m.padding = 1000;
    std::vector<uint8_t> frame = BuildFrame(FrameSpec(), BuildMessage(m));
    SyncPacketDecoder decoder(PORT);
    // 70 bytes: PPP (2) + IPv4 (20) + UDP (8) + the fixed header (40).
    DecodedSyncPacket d = decoder.Decode(frame.data(), 70, frame.size(), true);
    ASSERT_EQ(d.sync, DecodedSyncPacket::VALID) << d.invalidReason;
    EXPECT_EQ(d.checksum, DecodedSyncPacket::UNVERIFIED);
    EXPECT_EQ(d.wireBytes, 2u + 20 + 8 + 40 + 800 + 1000);
    EXPECT_EQ(d.capturedBytes, 70u);
    EXPECT_EQ(d.modelBytes, 800u + 1000);
    EXPECT_EQ(d.header.round, 0x01020304u);
    EXPECT_TRUE(d.values.empty());
    // Three values captured: they are extracted, the checksum still unverified.
    DecodedSyncPacket three = decoder.Decode(frame.data(), 70 + 12, frame.size(), true);
    EXPECT_EQ(three.values.size(), 3u);
    EXPECT_EQ(three.checksum, DecodedSyncPacket::UNVERIFIED);
    // A capture that ends inside the fixed header.
    DecodedSyncPacket cut = decoder.Decode(frame.data(), 60, frame.size());
    EXPECT_EQ(cut.sync, DecodedSyncPacket::TRUNCATED);
    EXPECT_TRUE(cut.hasUdp);
    EXPECT_EQ(cut.wireBytes, frame.size());
    EXPECT_EQ(cut.modelBytes, 0u);
}

TEST(SyncPacketDecoder, RejectsWhatDeserializeRejects)
{
    struct Case
    {
        const char* name;
        std::function<void(Message&)> change;
    };

    std::vector<Case> cases{
        {"magic", [](Message& m) { m.magic = 0x5755; }},
        {"version 1 (READY kinds in the chunk index)", [](Message& m) { m.version = 1; }},
        {"version 3", [](Message& m) { m.version = 3; }},
        {"type 0", [](Message& m) { m.type = 0; }},
        {"type 8", [](Message& m) { m.type = 8; }},
        {"epoch 64", [](Message& m) { m.clique = 5 | (64 << 6); }},
        {"epoch 1023", [](Message& m) { m.clique = 0xffff; }},
        {"sender 64", [](Message& m) { m.sender = 64; }},
        {"empty bitmap", [](Message& m) { m.bitmap = 0; }},
        {"count", [](Message& m) { m.count = 2; }},
        {"DATA bitmap", [](Message& m) { m.bitmap = 0x18; }},
        {"chunk index", [](Message& m) { m.chunk = 12; }},
        {"value offset overflow", [](Message& m) { m.offset = 0xffffffff; }},
        {"area beyond datagram",
         [](Message& m) {
             m.areaCount = 40;
             m.padding = 0;
         }},
        {"checksum", [](Message& m) { m.corruptChecksum = true; }},
        {"empty NACK",
         [](Message& m) {
             m.type = 3;
             m.values.clear();
         }},
        {"NACK range reversed",
         [](Message& m) {
             m.type = 3;
             m.values.clear();
             m.ranges = {{5, 5}};
         }},
        {"NACK range beyond count",
         [](Message& m) {
             m.type = 3;
             m.values.clear();
             m.ranges = {{5, 13}};
         }},
        {"READY with values", [](Message& m) { m.type = 5; }},
        {"READY_ASK with values", [](Message& m) { m.type = 6; }},
        {"VIEW with values", [](Message& m) { m.type = 7; }},
    };
    for (const auto& c : cases)
    {
        SCOPED_TRACE(c.name);
        Message m;
        c.change(m);
        DecodedSyncPacket d = DecodeAll(BuildFrame(FrameSpec(), BuildMessage(m)));
        EXPECT_EQ(d.sync, DecodedSyncPacket::INVALID);
        EXPECT_FALSE(d.IsSync());
        EXPECT_STRNE(d.invalidReason, "");
        EXPECT_EQ(d.modelBytes, 0u);
    }
    // A datagram shorter than the fixed header.
    std::vector<uint8_t> runt = BuildFrame(FrameSpec(), std::vector<uint8_t>(20, 0x57));
    EXPECT_EQ(DecodeAll(runt).sync, DecodedSyncPacket::INVALID);
}

TEST(SyncPacketDecoder, DecodesNackAggregateDoneAndReady)
{
    Message nack;
    nack.type = 3;
    nack.values.clear();
    nack.ranges = {{0, 4}, {7, 12}};
    nack.padding = 0;
    DecodedSyncPacket d = DecodeAll(BuildFrame(FrameSpec(), BuildMessage(nack)));
    ASSERT_EQ(d.sync, DecodedSyncPacket::VALID) << d.invalidReason;
    EXPECT_EQ(d.ranges, (std::vector<std::pair<uint32_t, uint32_t>>{{0, 4}, {7, 12}}));
    EXPECT_EQ(d.modelBytes, 0u);

    Message aggregate;
    aggregate.type = 2;
    aggregate.bitmap = 0x8000000000000011ULL; // islands 0, 4 and 63
    aggregate.sender = 4;
    d = DecodeAll(BuildFrame(FrameSpec(), BuildMessage(aggregate)));
    ASSERT_EQ(d.sync, DecodedSyncPacket::VALID) << d.invalidReason;
    EXPECT_EQ(d.header.contributors, 0x8000000000000011ULL);
    EXPECT_EQ(d.header.contributorCount, 3);
    EXPECT_EQ(d.modelBytes, 108u);

    for (uint8_t type : {4, 5, 6, 7})
    {
        Message m;
        m.type = type;
        m.values.clear();
        m.padding = 0;
        d = DecodeAll(BuildFrame(FrameSpec(), BuildMessage(m)));
        EXPECT_EQ(d.sync, DecodedSyncPacket::VALID) << d.invalidReason;
        EXPECT_EQ(d.modelBytes, 0u);
    }
    Message ring;
    ring.clique = 5 | (63 << 6); // clique 5 in epoch 63, the most exclusions
    d = DecodeAll(BuildFrame(FrameSpec(), BuildMessage(ring)));
    ASSERT_EQ(d.sync, DecodedSyncPacket::VALID) << d.invalidReason;
    EXPECT_EQ(d.header.GetCliqueIndex(), 5);
    EXPECT_EQ(d.header.GetEpoch(), 63);
}

TEST(SyncPacketDecoder, LeavesOtherTrafficAloneAndNeverOverreads)
{
    std::vector<uint8_t> payload = BuildMessage(Message());
    FrameSpec otherPort;
    otherPort.destinationPort = 9;
    DecodedSyncPacket d = DecodeAll(BuildFrame(otherPort, payload));
    EXPECT_EQ(d.sync, DecodedSyncPacket::NOT_SYNC);
    EXPECT_TRUE(d.hasUdp);
    EXPECT_EQ(d.destinationPort, 9);

    FrameSpec fragment;
    fragment.fragment = 0x00b9; // offset 185 x 8 bytes
    d = DecodeAll(BuildFrame(fragment, payload));
    EXPECT_TRUE(d.isFragment);
    EXPECT_FALSE(d.hasUdp);
    EXPECT_EQ(d.sync, DecodedSyncPacket::NOT_SYNC);

    FrameSpec tcp;
    tcp.protocol = 6;
    d = DecodeAll(BuildFrame(tcp, payload));
    EXPECT_TRUE(d.hasIpv4Addresses);
    EXPECT_EQ(d.sync, DecodedSyncPacket::NOT_SYNC);

    FrameSpec ipv6;
    ipv6.ppp = 0x0057;
    d = DecodeAll(BuildFrame(ipv6, payload));
    EXPECT_TRUE(d.hasPpp);
    EXPECT_FALSE(d.hasIpv4Addresses);

    FrameSpec multicast;
    multicast.destination = Ip(232, 1, 0, 7);
    EXPECT_TRUE(DecodeAll(BuildFrame(multicast, payload)).IsMulticast());

    // Every prefix of a valid frame decodes without reading past it (ASan would tell).
    std::vector<uint8_t> frame = BuildFrame(FrameSpec(), payload);
    SyncPacketDecoder decoder(PORT);
    for (size_t n = 0; n <= frame.size(); ++n)
    {
        std::vector<uint8_t> prefix(frame.begin(), frame.begin() + n);
        DecodedSyncPacket p = decoder.Decode(prefix.data(), n, frame.size(), true);
        EXPECT_EQ(p.wireBytes, frame.size());
        EXPECT_EQ(p.hasPpp, n >= 2);
        EXPECT_EQ(p.hasIpv4Addresses, n >= 22);
        if (n >= 70)
        {
            EXPECT_EQ(p.sync, DecodedSyncPacket::VALID);
        }
    }
    EXPECT_EQ(decoder.Decode(nullptr, 0, 0).sync, DecodedSyncPacket::NOT_SYNC);
    // A record that claims more captured bytes than were on the wire is cut to the wire length.
    // On a 30-byte wire the UDP datagram is empty: no room for the fixed header.
    DecodedSyncPacket liar = decoder.Decode(frame.data(), frame.size(), 30);
    EXPECT_EQ(liar.sync, DecodedSyncPacket::INVALID);
    EXPECT_EQ(liar.syncBytes, 0u);
}

TEST(SyncPacketDecoder, AgreesWithNs3Serialization)
{
    // The same frames serialized by ns-3's PppHeader, Ipv4Header, UdpHeader and the module's
    // IslandSyncHeader: an independent writer of the same wire format.
    struct Case
    {
        IslandSyncHeader::Type type;
        uint64_t contributors;
        std::vector<float> values;
        std::vector<IslandSyncHeader::Range> ranges;
    };

    std::vector<Case> cases{{IslandSyncHeader::DATA, uint64_t{1} << 6, {0.25f, -8.0f, 3e9f}, {}},
                            {IslandSyncHeader::AGGREGATE, 0x45, {1.0f}, {}},
                            {IslandSyncHeader::NACK, 0x40, {}, {{1, 3}, {8, 9}}},
                            {IslandSyncHeader::DONE, 0x41, {}, {}},
                            {IslandSyncHeader::READY, 0x40, {}, {}},
                            {IslandSyncHeader::READY_ASK, 0x40, {}, {}},
                            {IslandSyncHeader::VIEW, 0x4d, {}, {}}};
    for (const auto& c : cases)
    {
        SCOPED_TRACE(IslandSyncHeader::TypeToString(c.type));
        IslandSyncHeader sync;
        sync.SetType(c.type);
        sync.SetJobId(11);
        sync.SetSender(6);
        sync.SetRound(77);
        sync.SetCliqueId(2);
        sync.SetChunkIndex(8);
        sync.SetChunkCount(10);
        sync.SetContributors(c.contributors);
        sync.SetValueOffset(4242);
        sync.SetValues(c.values);
        sync.SetRanges(c.ranges);
        const uint32_t padding = c.type == IslandSyncHeader::DATA ? 500 : 0;
        Ptr<Packet> packet = Create<Packet>(padding);
        packet->AddHeader(sync);
        SyncFrameFields fields;
        fields.source = Ipv4Address("10.128.0.26");
        fields.destination = Ipv4Address("232.1.0.3");
        fields.sourcePort = PORT;
        fields.destinationPort = PORT;
        fields.ttl = 5;
        fields.identification = 99;
        packet = MakeSyncFrame(packet, fields);
        std::vector<uint8_t> bytes(packet->GetSize());
        packet->CopyData(bytes.data(), bytes.size());

        DecodedSyncPacket d = DecodeAll(bytes);
        ASSERT_EQ(d.sync, DecodedSyncPacket::VALID) << d.invalidReason;
        EXPECT_EQ(d.checksum, DecodedSyncPacket::GOOD);
        EXPECT_EQ(d.source, Ip(10, 128, 0, 26));
        EXPECT_EQ(d.destination, Ip(232, 1, 0, 3));
        EXPECT_TRUE(d.IsMulticast());
        EXPECT_EQ(d.ttl, 5);
        EXPECT_EQ(d.identification, 99);
        EXPECT_EQ(d.header.type, static_cast<uint8_t>(c.type));
        EXPECT_EQ(d.header.jobId, 11);
        EXPECT_EQ(d.header.sender, 6);
        EXPECT_EQ(d.header.round, 77u);
        EXPECT_EQ(d.header.cliqueId, 2);
        EXPECT_EQ(d.header.chunkIndex, 8u);
        EXPECT_EQ(d.header.chunkCount, 10u);
        EXPECT_EQ(d.header.contributors, c.contributors);
        EXPECT_EQ(d.header.contributorCount,
                  static_cast<uint16_t>(__builtin_popcountll(c.contributors)));
        EXPECT_EQ(d.header.valueOffset, 4242u);
        EXPECT_EQ(d.values, c.values);
        EXPECT_EQ(d.ranges, c.ranges);
        bool chunk = c.type == IslandSyncHeader::DATA || c.type == IslandSyncHeader::AGGREGATE;
        EXPECT_EQ(d.modelBytes, chunk ? 4 * c.values.size() + padding : 0u);

        // And what the decoder accepts, ns-3 deserializes to the same header.
        IslandSyncHeader back;
        Ptr<Packet> copy = Create<Packet>(bytes.data() + 30, bytes.size() - 30);
        ASSERT_NE(copy->RemoveHeader(back), 0u);
        EXPECT_EQ(back.GetRound(), d.header.round);
        EXPECT_EQ(back.GetContributors(), d.header.contributors);
    }
}

TEST(SyncPacketDecoder, AcceptsTheTreeAggregateSeedsOfTheHeaderFuzzer)
{
    // fuzz/corpus/island-sync-header/aggregate-tree-*.bin: a root's total (sender 0, every
    // member of 0-4), a router's partial (sender 1, islands 1-3), a partial from a router whose
    // island is no member (sender 5, islands 2-3).
    const std::string corpus =
        std::string(WAN_TRAINING_SOURCE_DIR) + "/fuzz/corpus/island-sync-header/";
    const std::map<std::string, std::pair<uint16_t, uint64_t>> seeds{
        {"aggregate-tree-total.bin", {0, 0x1f}},
        {"aggregate-tree-partial.bin", {1, 0x0e}},
        {"aggregate-tree-partial-no-own.bin", {5, 0x0c}}};
    for (const auto& [file, expect] : seeds)
    {
        SCOPED_TRACE(file);
        std::ifstream in(corpus + file, std::ios::binary);
        std::vector<uint8_t> payload((std::istreambuf_iterator<char>(in)),
                                     std::istreambuf_iterator<char>());
        ASSERT_EQ(payload.size(), 48u);
        DecodedSyncPacket d = DecodeAll(BuildFrame(FrameSpec(), payload));
        ASSERT_EQ(d.sync, DecodedSyncPacket::VALID) << d.invalidReason;
        EXPECT_EQ(d.checksum, DecodedSyncPacket::GOOD);
        EXPECT_EQ(d.header.type, SyncPacketDecoder::TYPE_AGGREGATE);
        EXPECT_EQ(d.header.sender, expect.first);
        EXPECT_EQ(d.header.contributors, expect.second);
        IslandSyncHeader header;
        Ptr<Packet> packet = Create<Packet>(payload.data(), payload.size());
        ASSERT_NE(packet->RemoveHeader(header), 0u);
        EXPECT_EQ(header.GetSender(), expect.first);
        EXPECT_EQ(header.GetContributors(), expect.second);
    }
}

// ------------------------------------------------------------------------------------------
// SyncPcapReader
// ------------------------------------------------------------------------------------------

/** The test capture of every message kind and its table (test/data/pcap/message-kinds/). */
const std::string MESSAGE_KINDS =
    std::string(WAN_TRAINING_SOURCE_DIR) + "/test/data/pcap/message-kinds";

/** One row of message-kinds/messages.tsv: the fields every decoder must read from a frame. */
struct KindRow
{
    uint32_t frame{0};        //!< frame number, from 1
    uint32_t type{0};         //!< type number
    std::string name;         //!< type name
    uint32_t version{0};      //!< version
    uint32_t job{0};          //!< job
    uint32_t sender{0};       //!< sender
    uint32_t round{0};        //!< round
    uint32_t clique{0};       //!< clique index
    uint32_t epoch{0};        //!< exclusion epoch
    uint32_t count{0};        //!< contributor count
    uint32_t chunk{0};        //!< chunk index
    uint32_t chunks{0};       //!< chunk count
    uint64_t contributors{0}; //!< bitmap
    uint32_t offset{0};       //!< value offset
    uint32_t area{0};         //!< value or range count
    uint32_t frameBytes{0};   //!< frame length
};

/** @return the rows of message-kinds/messages.tsv */
std::vector<KindRow>
ReadKindRows()
{
    std::ifstream in(MESSAGE_KINDS + "/messages.tsv");
    std::vector<KindRow> rows;
    std::string line;
    while (std::getline(in, line))
    {
        if (line.empty() || line[0] == '#')
        {
            continue;
        }
        std::istringstream row(line);
        KindRow r;
        std::string contributors;
        row >> r.frame >> r.type >> r.name >> r.version >> r.job >> r.sender >> r.round >>
            r.clique >> r.epoch >> r.count >> r.chunk >> r.chunks >> contributors >> r.offset >>
            r.area >> r.frameBytes;
        EXPECT_FALSE(row.fail()) << line;
        r.contributors = std::stoull(contributors, nullptr, 16);
        rows.push_back(r);
    }
    return rows;
}

TEST(SyncPacketDecoder, DecodesTheMessageKindsCaptureAsListed)
{
    // The same capture and table as the IslandSyncHeader test suite and pcap-tshark.sh.
    const std::vector<KindRow> rows = ReadKindRows();
    ASSERT_EQ(rows.size(), 8u);
    SyncPcapReader reader(MESSAGE_KINDS + "/aaa-up.pcap");
    SyncPacketDecoder decoder(PORT);
    std::set<uint32_t> types;
    for (const KindRow& row : rows)
    {
        SCOPED_TRACE(row.name);
        SyncPcapReader::Record record;
        ASSERT_TRUE(reader.Next(record));
        DecodedSyncPacket d =
            decoder.Decode(record.data, record.capturedBytes, record.wireBytes, true);
        ASSERT_EQ(d.sync, DecodedSyncPacket::VALID) << d.invalidReason;
        EXPECT_EQ(d.checksum, DecodedSyncPacket::GOOD);
        EXPECT_EQ(d.wireBytes, row.frameBytes);
        EXPECT_EQ(d.header.type, row.type);
        EXPECT_EQ(SyncPacketDecoder::TypeToString(d.header.type), row.name);
        EXPECT_EQ(IslandSyncHeader::TypeToString(IslandSyncHeader::Type(d.header.type)), row.name);
        EXPECT_EQ(d.header.version, row.version);
        EXPECT_EQ(d.header.jobId, row.job);
        EXPECT_EQ(d.header.sender, row.sender);
        EXPECT_EQ(d.header.round, row.round);
        EXPECT_EQ(d.header.GetCliqueIndex(), row.clique);
        EXPECT_EQ(d.header.GetEpoch(), row.epoch);
        EXPECT_EQ(d.header.cliqueId, row.clique + 64 * row.epoch);
        EXPECT_EQ(d.header.contributorCount, row.count);
        EXPECT_EQ(d.header.chunkIndex, row.chunk);
        EXPECT_EQ(d.header.chunkCount, row.chunks);
        EXPECT_EQ(d.header.contributors, row.contributors);
        EXPECT_EQ(d.header.valueOffset, row.offset);
        EXPECT_EQ(d.header.areaCount, row.area);
        if (d.header.type != SyncPacketDecoder::TYPE_PARITY)
        {
            EXPECT_EQ(d.values.size() + d.ranges.size(), row.area);
        }
        types.insert(d.header.type);
    }
    SyncPcapReader::Record extra;
    EXPECT_FALSE(reader.Next(extra)) << "a frame beyond the table's";
    EXPECT_EQ(types.size(), 8u) << "every message type";
}

/** The test capture of the payload formats and its table (test/data/pcap/payload-formats/). */
const std::string PAYLOAD_FORMATS =
    std::string(WAN_TRAINING_SOURCE_DIR) + "/test/data/pcap/payload-formats";

TEST(SyncPacketDecoder, DecodesThePayloadFormatsCaptureAsListed)
{
    // The same capture and table as the IslandSyncHeader test suite and pcap-tshark.sh.
    const std::vector<FormatCaptureRow> rows =
        ReadFormatCaptureRows(PAYLOAD_FORMATS + "/formats.tsv");
    ASSERT_EQ(rows.size(), 4u);
    SyncPcapReader reader(PAYLOAD_FORMATS + "/formats.pcap");
    SyncPacketDecoder decoder(PORT);
    std::set<std::string> formats;
    for (const FormatCaptureRow& row : rows)
    {
        SCOPED_TRACE(row.frame);
        SyncPcapReader::Record record;
        ASSERT_TRUE(reader.Next(record));
        const DecodedSyncPacket d =
            decoder.Decode(record.data, record.capturedBytes, record.wireBytes, true);
        ASSERT_TRUE(d.IsSync()) << d.invalidReason;
        EXPECT_EQ(d.checksum, DecodedSyncPacket::GOOD);
        EXPECT_EQ(d.wireBytes, row.frameBytes);
        EXPECT_EQ(d.header.type, row.type);
        EXPECT_EQ(SyncPacketDecoder::TypeToString(d.header.type), row.name);
        EXPECT_EQ(SyncPacketDecoder::FormatToString(d.header.format), row.format);
        EXPECT_EQ(d.header.valueOffset, row.offset);
        EXPECT_EQ(d.header.areaCount, row.count);
        EXPECT_EQ(d.modelBytes, row.frameBytes - 2 - 20 - 8 - 40);
        ASSERT_EQ(d.values.size(), row.count);
        EXPECT_EQ(std::vector<float>(d.values.begin(), d.values.begin() + row.firstValues.size()),
                  row.firstValues);
        // What IslandSyncHeader decodes, bit for bit.
        IslandSyncHeader header;
        ASSERT_NE(Create<Packet>(record.data + 30, record.capturedBytes - 30)->RemoveHeader(header),
                  0u);
        EXPECT_EQ(d.values, header.GetValues());
        formats.insert(row.format);
    }
    SyncPcapReader::Record extra;
    EXPECT_FALSE(reader.Next(extra)) << "a frame beyond the table's";
    EXPECT_EQ(formats, (std::set<std::string>{"bf16", "int8"}));
}

TEST(SyncPacketDecoder, RejectsMalformedFormatsAndEncodings)
{
    // The format in the type byte's high bits: unknown, or on a message without values.
    for (uint8_t typeByte : {0x31, 0xf2, 0x13, 0x14, 0x25})
    {
        SCOPED_TRACE(int{typeByte});
        Message m;
        m.type = typeByte;
        if ((typeByte & 0x0f) >= 3)
        {
            m.values.clear();
            if ((typeByte & 0x0f) == 3)
            {
                m.ranges = {{0, 4}};
            }
        }
        DecodedSyncPacket d = DecodeAll(BuildFrame(FrameSpec(), BuildMessage(m)));
        EXPECT_EQ(d.sync, DecodedSyncPacket::INVALID);
        EXPECT_STREQ(d.invalidReason, "unknown format, or a format on a message without values");
    }
    // An int8 DATA (two values, scale 0.25) with its offset off a block boundary or a code of
    // -128, the checksum fixed: what Deserialize refuses too.
    IslandSyncHeader h;
    h.SetType(IslandSyncHeader::DATA);
    h.SetFormat(PayloadFormat::INT8);
    h.SetSender(3);
    h.SetContributors(8);
    h.SetChunkCount(4);
    h.SetValueOffset(2048);
    h.SetValues({31.75f, 0.5f});
    Ptr<Packet> packet = Create<Packet>(10);
    packet->AddHeader(h);
    std::vector<uint8_t> good(packet->GetSize());
    packet->CopyData(good.data(), good.size());
    auto fixed = [](std::vector<uint8_t> bytes) {
        bytes[38] = 0;
        bytes[39] = 0;
        const uint16_t checksum = InternetChecksum(bytes, 40 + 6);
        bytes[38] = checksum >> 8;
        bytes[39] = checksum & 0xff;
        return bytes;
    };
    EXPECT_EQ(fixed(good), good) << "the checksum covers the encoded bytes";
    DecodedSyncPacket d = DecodeAll(BuildFrame(FrameSpec(), good));
    ASSERT_EQ(d.sync, DecodedSyncPacket::VALID) << d.invalidReason;
    EXPECT_EQ(d.header.format, SyncPacketDecoder::FORMAT_INT8);
    EXPECT_EQ(d.values, (std::vector<float>{31.75f, 0.5f}));
    EXPECT_EQ(d.modelBytes, 6u + 10);
    std::vector<uint8_t> moved = good;
    moved[35] = 0x10;
    std::vector<uint8_t> code = good;
    code[44] = 0x80;
    for (const auto& bad : {fixed(moved), fixed(code)})
    {
        d = DecodeAll(BuildFrame(FrameSpec(), bad));
        EXPECT_EQ(d.sync, DecodedSyncPacket::INVALID);
        Ptr<Packet> refused = Create<Packet>(bad.data(), bad.size());
        IslandSyncHeader header;
        EXPECT_EQ(refused->PeekHeader(header), 0u) << "Deserialize refuses it too";
    }
    // A headers-only capture: valid, checksum unverified, the captured codes decoded.
    const std::vector<uint8_t> frame = BuildFrame(FrameSpec(), good);
    SyncPacketDecoder decoder(PORT);
    d = decoder.Decode(frame.data(), 2 + 28 + 45, frame.size(), true);
    ASSERT_EQ(d.sync, DecodedSyncPacket::VALID) << d.invalidReason;
    EXPECT_EQ(d.checksum, DecodedSyncPacket::UNVERIFIED);
    EXPECT_EQ(d.values, (std::vector<float>{31.75f}));
}

TEST(PcapTraceReport, CountsEachMessageKind)
{
    const std::vector<KindRow> rows = ReadKindRows();
    PcapTraceReport report(PORT);
    report.Analyze(MESSAGE_KINDS);
    const auto& up = report.GetLinks().at("aaa:up");
    EXPECT_EQ(up.total.packets, rows.size());
    EXPECT_EQ(up.ambiguous, 0u);
    ASSERT_EQ(up.kinds.size(), rows.size());
    nlohmann::json json = nlohmann::json::parse(report.ToJson());
    for (const KindRow& row : rows)
    {
        SCOPED_TRACE(row.name);
        const PcapTraceReport::Counters& kind = up.kinds.at(row.type);
        EXPECT_EQ(kind.packets, 1u);
        EXPECT_EQ(kind.bytes, row.frameBytes);
        EXPECT_EQ(json["links"]["aaa:up"]["messages"][row.name]["packets"], 1);
        EXPECT_EQ(json["links"]["aaa:up"]["messages"][row.name]["bytes"], row.frameBytes);
        EXPECT_EQ(json["messages"][row.name]["packets"], 1);
    }
    EXPECT_TRUE(report.GetLinks().at("aaa:down").kinds.empty()) << "received, not sent";
}

TEST(SyncPcapReader, ReadsMicrosecondAndNanosecondCaptures)
{
    std::string dir = TempDir("reader");
    std::vector<uint8_t> frame = BuildFrame(FrameSpec(), BuildMessage(Message()));
    for (bool nano : {false, true})
    {
        SCOPED_TRACE(nano ? "ns" : "us");
        std::string path = dir + (nano ? "/ns.pcap" : "/us.pcap");
        WriteCapture(path, {{1500000123, frame}, {2000000456, frame}}, 70, nano);
        SyncPcapReader reader(path);
        EXPECT_EQ(reader.GetSnapLen(), 70u);
        EXPECT_EQ(reader.GetResolutionNs(), nano ? 1u : 1000u);
        SyncPcapReader::Record r;
        ASSERT_TRUE(reader.Next(r));
        EXPECT_EQ(r.timeNs, nano ? 1500000123u : 1500000000u);
        EXPECT_EQ(r.capturedBytes, 70u);
        EXPECT_EQ(r.wireBytes, frame.size());
        EXPECT_EQ(std::memcmp(r.data, frame.data(), 70), 0);
        ASSERT_TRUE(reader.Next(r));
        EXPECT_EQ(r.timeNs, nano ? 2000000456u : 2000000000u);
        EXPECT_FALSE(reader.Next(r));
        EXPECT_EQ(reader.GetRecordsRead(), 2u);
    }
    std::filesystem::remove_all(dir);
}

TEST(SyncPcapReader, RejectsBadFilesWithAClearError)
{
    std::string dir = TempDir("reader-bad");
    std::vector<uint8_t> frame = BuildFrame(FrameSpec(), BuildMessage(Message()));
    auto open = [](const std::string& path) { return [path]() { SyncPcapReader r(path); }; };
    auto readAll = [](const std::string& path) {
        return [path]() {
            SyncPcapReader r(path);
            SyncPcapReader::Record record;
            while (r.Next(record))
            {
            }
        };
    };

    ExpectInputError(open(dir + "/absent.pcap"), dir + "/absent.pcap", "file", "cannot open");
    ExpectInputError(open(dir), dir, "file", "not a regular file");

    std::string empty = dir + "/empty.pcap";
    std::ofstream(empty).close();
    ExpectInputError(open(empty), empty, "file header", "empty file");

    std::string text = dir + "/text.pcap";
    std::ofstream(text) << "not a capture at all\n";
    ExpectInputError(open(text), text, "file header", "not a pcap or pcapng capture");

    std::string ethernet = dir + "/ethernet.pcap";
    WriteCapture(ethernet, {{0, frame}}, 65535, false, 1);
    ExpectInputError(open(ethernet), ethernet, "file header", "link type 1");

    std::string whole = dir + "/whole.pcap";
    WriteCapture(whole, {{0, frame}, {1000, frame}});
    const uintmax_t size = std::filesystem::file_size(whole);

    struct Cut
    {
        uintmax_t bytes;
        const char* place;
        const char* reason;
    };

    for (const Cut& cut : {Cut{3, "file header", "truncated: 3 bytes"},
                           Cut{20, "file header", "truncated dump file"},
                           Cut{24 + 10, "record 1", "truncated dump file"},
                           Cut{24 + 16 + 10, "record 1", "truncated dump file"},
                           Cut{size - 1, "record 2", "truncated dump file"}})
    {
        SCOPED_TRACE(cut.bytes);
        std::string path = dir + "/cut-" + std::to_string(cut.bytes) + ".pcap";
        std::filesystem::copy_file(whole, path);
        std::filesystem::resize_file(path, cut.bytes);
        ExpectInputError(readAll(path), path, cut.place, cut.reason);
    }
    std::filesystem::remove_all(dir);
}

// ------------------------------------------------------------------------------------------
// PcapDirectionResolver
// ------------------------------------------------------------------------------------------

/** An IPv4 flow. */
PcapDirectionResolver::Flow
F(uint32_t source, uint32_t destination)
{
    return PcapDirectionResolver::Flow{true, source, destination};
}

TEST(PcapDirectionResolver, DecidesByTimingCountAndSequence)
{
    PcapDirectionResolver r;
    // Flow 1 -> 2 sent by capture 1 (received 5 us later by capture 0).
    r.Add(1, 100000, F(1, 2));
    r.Add(0, 105000, F(1, 2));
    // Flow 3 -> 4 seen only by capture 0 (every copy lost).
    r.Add(0, 100000, F(3, 4));
    // Flow 5 -> 6: first records tie; capture 1 holds more (one lost): capture 1 sent it.
    r.Add(0, 200000, F(5, 6));
    r.Add(1, 200000, F(5, 6));
    r.Add(1, 201000, F(5, 6));
    // Flow 7 -> 8: first records tie, the second pair differs: capture 0 sent it.
    r.Add(0, 300000, F(7, 8));
    r.Add(0, 301000, F(7, 8));
    r.Add(1, 300000, F(7, 8));
    r.Add(1, 302000, F(7, 8));
    r.Resolve();
    EXPECT_EQ(r.GetTransmitter(F(1, 2)), 1u);
    EXPECT_EQ(r.GetMethod(F(1, 2)), PcapDirectionResolver::FIRST_TIME);
    EXPECT_EQ(r.GetTransmitter(F(3, 4)), 0u);
    EXPECT_EQ(r.GetMethod(F(3, 4)), PcapDirectionResolver::ONE_SIDED);
    EXPECT_EQ(r.GetTransmitter(F(5, 6)), 1u);
    EXPECT_EQ(r.GetMethod(F(5, 6)), PcapDirectionResolver::COUNT);
    EXPECT_EQ(r.GetTransmitter(F(7, 8)), 0u);
    EXPECT_EQ(r.GetMethod(F(7, 8)), PcapDirectionResolver::SEQUENCE);
    EXPECT_EQ(r.GetRecords(PcapDirectionResolver::FIRST_TIME), 2u);
    EXPECT_EQ(r.GetRecords(PcapDirectionResolver::ONE_SIDED), 1u);
    EXPECT_EQ(r.GetRecords(PcapDirectionResolver::COUNT), 3u);
    EXPECT_EQ(r.GetRecords(PcapDirectionResolver::SEQUENCE), 4u);
    EXPECT_EQ(r.GetRecords(PcapDirectionResolver::AMBIGUOUS), 0u);
}

TEST(PcapDirectionResolver, PropagatesSidesThroughAddresses)
{
    PcapDirectionResolver r;
    // Decided: 10 -> 20 sent by capture 1, so 10 is on side 1 and 20 on side 0.
    r.Add(1, 0, F(10, 20));
    r.Add(0, 7000, F(10, 20));
    // Tied: 10 -> 30 (same source: capture 1), 30 -> 10 (reverse: capture 0), 40 -> 30 (40 on
    // 30's opposite side: capture 1), and 50 -> 60 (no link to a decided flow: ambiguous).
    for (auto flow : {F(10, 30), F(30, 10), F(40, 30), F(50, 60)})
    {
        r.Add(0, 50000, flow);
        r.Add(1, 50000, flow);
    }
    r.Resolve();
    EXPECT_EQ(r.GetTransmitter(F(10, 30)), 1u);
    EXPECT_EQ(r.GetMethod(F(10, 30)), PcapDirectionResolver::ADDRESS);
    EXPECT_EQ(r.GetTransmitter(F(30, 10)), 0u);
    EXPECT_EQ(r.GetTransmitter(F(40, 30)), 1u);
    EXPECT_EQ(r.GetMethod(F(50, 60)), PcapDirectionResolver::AMBIGUOUS);
    EXPECT_EQ(r.GetTransmitter(F(50, 60)), 0u);
    EXPECT_EQ(r.GetRecords(PcapDirectionResolver::ADDRESS), 6u);
    EXPECT_EQ(r.GetRecords(PcapDirectionResolver::AMBIGUOUS), 2u);
}

TEST(PcapDirectionResolver, UsesAnchorsAndAccessTtls)
{
    // A WAN channel where everything ties: the island address 70 anchored on capture 1.
    PcapDirectionResolver wan;
    wan.AddAnchor(70, 1);
    for (auto flow : {F(70, 80), F(80, 70)})
    {
        wan.Add(0, 0, flow);
        wan.Add(1, 0, flow);
    }
    wan.Resolve();
    EXPECT_EQ(wan.GetTransmitter(F(70, 80)), 1u);
    EXPECT_EQ(wan.GetTransmitter(F(80, 70)), 0u);
    EXPECT_EQ(wan.GetMethod(F(70, 80)), PcapDirectionResolver::ADDRESS);

    // An access channel whose island's device is capture 1: the island sends with TTL 64,
    // what it receives crossed two routers (TTL 62).
    PcapDirectionResolver access;
    access.SetHostCapture(1);
    access.Add(0, 0, F(90, 91), 64);
    access.Add(1, 0, F(90, 91), 64);
    access.Add(0, 0, F(91, 90), 62);
    access.Add(1, 0, F(91, 90), 62);
    access.Resolve();
    EXPECT_EQ(access.GetTransmitter(F(90, 91)), 1u);
    EXPECT_EQ(access.GetTransmitter(F(91, 90)), 0u);
    EXPECT_EQ(access.GetMethod(F(90, 91)), PcapDirectionResolver::TTL);

    // Contradicting anchors leave a tied group ambiguous.
    PcapDirectionResolver conflict;
    conflict.AddAnchor(1, 0);
    conflict.AddAnchor(2, 0);
    conflict.Add(0, 0, F(1, 2));
    conflict.Add(1, 0, F(1, 2));
    conflict.Resolve();
    EXPECT_EQ(conflict.GetMethod(F(1, 2)), PcapDirectionResolver::AMBIGUOUS);
}

// ------------------------------------------------------------------------------------------
// PcapTraceReport
// ------------------------------------------------------------------------------------------

/**
 * A capture directory written frame by frame (two cities unless other links are given), with
 * the expected per-link counts summed as the frames are "transmitted".
 */
class Scenario
{
  public:
    /** Counts of one directed link. */
    struct Expect
    {
        uint64_t packets{0};    //!< packets
        uint64_t bytes{0};      //!< bytes
        uint64_t modelBytes{0}; //!< model bytes
    };

    /**
     * Transmit a frame on a directed link at a time; the peer device records it `delayNs`
     * later unless lost.
     */
    void Send(const std::string& link,
              uint64_t timeNs,
              const std::vector<uint8_t>& frame,
              uint64_t modelBytes,
              bool lost = false,
              uint64_t delayNs = 40000)
    {
        m_records[link].push_back({timeNs, frame});
        if (!lost)
        {
            m_records[Peer(link)].push_back({timeNs + delayNs, frame});
        }
        Expect& e = expected[link];
        ++e.packets;
        e.bytes += frame.size();
        e.modelBytes += modelBytes;
    }

    /** Write the captures of every directed link. */
    void Write(const std::string& dir, uint32_t snapLen)
    {
        for (const std::string& link : links)
        {
            WriteCapture(dir + "/" + File(link), m_records[link], snapLen);
        }
    }

    std::map<std::string, Expect> expected; //!< per directed link
    /** The directed links (both directions of every channel). */
    std::vector<std::string> links{"aaa->bbb",
                                   "bbb->aaa",
                                   "aaa:up",
                                   "aaa:down",
                                   "bbb:up",
                                   "bbb:down"};

  private:
    static std::string Peer(const std::string& link)
    {
        size_t arrow = link.find("->");
        if (arrow != std::string::npos)
        {
            return link.substr(arrow + 2) + "->" + link.substr(0, arrow);
        }
        size_t colon = link.find(':');
        return link.substr(0, colon) + (link.substr(colon) == ":up" ? ":down" : ":up");
    }

    static std::string File(std::string link)
    {
        size_t arrow = link.find("->");
        if (arrow != std::string::npos)
        {
            link.replace(arrow, 2, "-");
        }
        std::replace(link.begin(), link.end(), ':', '-');
        return link + ".pcap";
    }

    std::map<std::string, std::vector<Rec>> m_records; //!< per directed link
};

/** Island addresses and the router address facing aaa's island. */
const uint32_t AAA = Ip(10, 128, 0, 2);
const uint32_t BBB = Ip(10, 128, 0, 6);
const uint32_t AAA_ROUTER = Ip(10, 128, 0, 1);

/** A DATA, AGGREGATE or READY frame and its model bytes. */
std::pair<std::vector<uint8_t>, uint64_t>
Sync(uint8_t type,
     uint32_t source,
     uint32_t destination,
     uint8_t ttl,
     uint16_t id,
     uint16_t sender,
     uint32_t round,
     uint32_t chunk,
     uint64_t bitmap)
{
    Message m;
    m.type = type;
    m.job = 1;
    m.sender = sender;
    m.round = round;
    m.clique = 0;
    m.chunk = chunk;
    m.chunks = 3;
    m.bitmap = bitmap;
    m.offset = 4 * chunk;
    m.values = type == 5 ? std::vector<float>{} : std::vector<float>{1, 2, 3, 4};
    m.padding = type == 5 ? 0 : 984;
    FrameSpec f;
    f.source = source;
    f.destination = destination;
    f.ttl = ttl;
    f.id = id;
    return {BuildFrame(f, BuildMessage(m)), type == 5 ? 0 : 1000};
}

/**
 * @brief Expect how many links and copies a stream's chunks had at the least and the most.
 * @param stats the stream
 * @param minLinks fewest links of a chunk
 * @param maxLinks most links of a chunk
 * @param minCopies fewest copies of a chunk
 * @param maxCopies most copies of a chunk
 */
void
ExpectSpread(const PcapTraceReport::ReplicationStats& stats,
             uint32_t minLinks,
             uint32_t maxLinks,
             uint64_t minCopies,
             uint64_t maxCopies)
{
    EXPECT_EQ(stats.minLinksPerChunk, minLinks);
    EXPECT_EQ(stats.maxLinksPerChunk, maxLinks);
    EXPECT_EQ(stats.minCopiesPerChunk, minCopies);
    EXPECT_EQ(stats.maxCopiesPerChunk, maxCopies);
}

/**
 * @brief Write a scenario's captures, analyze them and expect every directed link counted as
 * it was transmitted.
 * @param s the scenario
 * @param dir the directory to write them to
 * @param snapLen the snapshot length to write them with
 * @param report the report that analyzes them
 */
void
AnalyzeScenario(Scenario& s, const std::string& dir, uint32_t snapLen, PcapTraceReport& report)
{
    s.Write(dir, snapLen);
    report.Analyze(dir);
    ASSERT_EQ(report.GetLinks().size(), s.links.size());
    for (const auto& [name, expect] : s.expected)
    {
        SCOPED_TRACE(name);
        const auto& link = report.GetLinks().at(name);
        EXPECT_EQ(link.total.packets, expect.packets);
        EXPECT_EQ(link.total.bytes, expect.bytes);
        EXPECT_EQ(link.total.modelBytes, expect.modelBytes);
        EXPECT_EQ(link.ambiguous, 0u);
        EXPECT_EQ(link.snapLen, snapLen);
    }
}

/**
 * @brief Transmit a frame hop by hop along links, 100 us apart, the TTL one less after each
 * router.
 * @param s the scenario
 * @param links the directed links of its path
 * @param t the first transmission
 * @param frame the frame and its model bytes
 * @param lostOn the hop on which it is lost (transmitted, not received, not forwarded); -1: none
 */
void
SendAlong(Scenario& s,
          const std::vector<std::string>& links,
          uint64_t t,
          std::pair<std::vector<uint8_t>, uint64_t> frame,
          int lostOn = -1)
{
    for (size_t i = 0; i < links.size(); ++i)
    {
        // The TTL drops by one at each router (byte 2 + 8 of the frame).
        s.Send(links[i], t + 100000 * i, frame.first, frame.second, int(i) == lostOn);
        if (int(i) == lostOn)
        {
            return;
        }
        frame.first[10] -= 1;
    }
}

/**
 * Round 0: aaa sends chunks 0-2 to bbb, chunk 1 lost on aaa->bbb and resent; bbb sends chunks
 * 0-1 to aaa, whose FPGA emits one AGGREGATE of chunk 0 and passes chunk 1 through; one READY
 * each way. Round 1: aaa sends chunk 0 to bbb. Plus a non-sync datagram bbb -> aaa.
 */
Scenario
BuildScenario()
{
    Scenario s;
    auto along = [&s](const std::vector<std::string>& links,
                      uint64_t t,
                      std::pair<std::vector<uint8_t>, uint64_t> frame,
                      int lostOn = -1) { SendAlong(s, links, t, frame, lostOn); };
    const std::vector<std::string> toBbb{"aaa:up", "aaa->bbb", "bbb:down"};
    const std::vector<std::string> toAaa{"bbb:up", "bbb->aaa"};
    along(toBbb, 1000000, Sync(5, AAA, BBB, 64, 1, 0, 0, 0, 1));
    along({"bbb:up", "bbb->aaa", "aaa:down"}, 1000000, Sync(5, BBB, AAA, 64, 1, 1, 0, 0, 2));
    along(toBbb, 2000000, Sync(1, AAA, BBB, 64, 2, 0, 0, 0, 1));
    along(toBbb, 2010000, Sync(1, AAA, BBB, 64, 3, 0, 0, 1, 1), 1);
    along(toBbb, 2020000, Sync(1, AAA, BBB, 64, 4, 0, 0, 2, 1));
    along(toBbb, 3000000, Sync(1, AAA, BBB, 64, 5, 0, 0, 1, 1)); // the repair
    along(toAaa, 2000000, Sync(1, BBB, AAA, 64, 2, 1, 0, 0, 2));
    along(toAaa, 2010000, Sync(1, BBB, AAA, 64, 3, 1, 0, 1, 2));
    auto aggregate = Sync(2, AAA_ROUTER, AAA, 64, 1, 0, 0, 0, 2);
    s.Send("aaa:down", 2300000, aggregate.first, aggregate.second);
    auto passed = Sync(1, BBB, AAA, 62, 3, 1, 0, 1, 2);
    s.Send("aaa:down", 2310000, passed.first, passed.second);
    along(toBbb, 5000000, Sync(1, AAA, BBB, 64, 6, 0, 1, 0, 1));
    FrameSpec other;
    other.source = BBB;
    other.destination = AAA;
    other.destinationPort = 53;
    std::vector<uint8_t> dns = BuildFrame(other, std::vector<uint8_t>(30, 1));
    along({"bbb:up", "bbb->aaa", "aaa:down"}, 6000000, {dns, 0});
    return s;
}

TEST(PcapTraceReport, CountsEachTransmissionOnceOnItsDirectedLink)
{
    for (uint32_t snapLen : {65535u, 70u})
    {
        SCOPED_TRACE(snapLen);
        std::string dir = TempDir("report-" + std::to_string(snapLen));
        Scenario s = BuildScenario();
        PcapTraceReport report(PORT);
        AnalyzeScenario(s, dir, snapLen, report);
        ASSERT_EQ(report.GetLinks().size(), 6u);
        // Hand counts of the scenario: aaa:up carries READY, 4 DATA of round 0, 1 of round 1.
        const auto& up = report.GetLinks().at("aaa:up");
        EXPECT_EQ(up.total.packets, 6u);
        EXPECT_EQ(up.rounds.at(0).packets, 5u);
        EXPECT_EQ(up.rounds.at(1).packets, 1u);
        EXPECT_EQ(up.rounds.at(0).modelBytes, 4000u);
        EXPECT_EQ(up.kinds.size(), 2u);
        EXPECT_EQ(up.kinds.at(SyncPacketDecoder::TYPE_READY).packets, 1u);
        EXPECT_EQ(up.kinds.at(SyncPacketDecoder::TYPE_DATA).packets, 5u);
        EXPECT_EQ(up.kinds.at(SyncPacketDecoder::TYPE_DATA).modelBytes, 5000u);
        EXPECT_TRUE(up.access);
        EXPECT_TRUE(up.up);
        EXPECT_EQ(up.city, "aaa");
        const auto& wan = report.GetLinks().at("aaa->bbb");
        EXPECT_FALSE(wan.access);
        EXPECT_EQ(wan.from, "aaa");
        EXPECT_EQ(wan.to, "bbb");
        EXPECT_EQ(wan.total.packets, 6u); // the lost frame counts: it was transmitted
        EXPECT_EQ(wan.records, 6u + 4u);  // its capture also holds the 4 frames bbb sent it
        EXPECT_EQ(report.GetLinks().at("bbb:down").total.packets, 5u);
        const auto& down = report.GetLinks().at("aaa:down");
        EXPECT_EQ(down.other.packets, 1u); // the non-sync datagram
        EXPECT_EQ(down.total.packets, 4u);

        // Rounds: 2 DATA from bbb + READY + ... every sync transmission of round 0.
        EXPECT_EQ(report.GetRounds().size(), 2u);
        EXPECT_EQ(report.GetRounds().at(1).total.packets, 3u);
        EXPECT_EQ(report.GetRounds().at(1).span.firstNs, 5000000u);
        EXPECT_EQ(report.GetRounds().at(1).span.lastNs, 5200000u);

        // Islands: index and address from what they send; egress/ingress per round.
        const auto& aaa = report.GetIslands().at("aaa");
        EXPECT_EQ(aaa.index, 0);
        EXPECT_EQ(aaa.address, AAA);
        EXPECT_EQ(aaa.rounds.at(0).egress.packets, 5u);
        EXPECT_EQ(aaa.rounds.at(0).ingress.packets, 3u); // READY, AGGREGATE, passed DATA
        EXPECT_EQ(aaa.rounds.at(0).span.firstNs, 1000000u);
        EXPECT_EQ(report.GetIslands().at("bbb").index, 1);

        // Aggregation: 2 DATA from bbb reached router aaa; out: 1 AGGREGATE + 1 DATA.
        const auto& fpga = report.GetAggregation().at("aaa");
        EXPECT_EQ(fpga.packetsIn, 2u);
        EXPECT_EQ(fpga.packetsOut, 2u);
        EXPECT_EQ(fpga.aggregatesOut, 1u);
        EXPECT_EQ(fpga.dataOut, 1u);
        // bbb: 4 DATA of round 0 transmitted toward it, one lost before router bbb; round 1: 1.
        EXPECT_EQ(report.GetAggregation().at("bbb").packetsIn, 4u);
        EXPECT_EQ(report.GetAggregation().at("bbb").packetsOut, 4u);

        // Replication of aaa's round-0 stream: chunk 1 went out twice, lost once.
        const auto& stream = report.GetReplication().at({1, 0, 0, 0});
        EXPECT_EQ(stream.chunks, 3u);
        EXPECT_EQ(stream.chunkCount, 3u);
        EXPECT_EQ(stream.links.at("aaa:up"), (std::pair<uint32_t, uint64_t>{3, 4}));
        EXPECT_EQ(stream.links.at("aaa->bbb"), (std::pair<uint32_t, uint64_t>{3, 4}));
        EXPECT_EQ(stream.links.at("bbb:down"), (std::pair<uint32_t, uint64_t>{3, 3}));
        ExpectSpread(stream, 3, 3, 3, 5);
        const auto& fromBbb = report.GetReplication().at({1, 0, 0, 1});
        EXPECT_EQ(fromBbb.links.at("aaa:down"), (std::pair<uint32_t, uint64_t>{1, 1}));

        // JSON and CSV carry the same numbers.
        nlohmann::json json = nlohmann::json::parse(report.ToJson());
        EXPECT_EQ(json["links"]["aaa->bbb"]["packets"], 6);
        EXPECT_EQ(json["links"]["aaa:up"]["messages"]["ready"]["packets"], 1);
        EXPECT_EQ(json["links"]["aaa:down"]["messages"]["aggregate"]["packets"], 1);
        EXPECT_EQ(json["islands"]["aaa"]["address"], "10.128.0.2");
        EXPECT_EQ(json["aggregation"]["aaa"]["reduction_ratio"], 1.0);
        EXPECT_EQ(json["ambiguous_packets"], 0);
        std::string csv = dir + "/out/report.csv";
        std::filesystem::create_directories(dir + "/out");
        // Every sync message belongs to one (job, round, clique): the cliques add up to the
        // rounds; labels from a run's results name each clique's members and algorithm.
        uint64_t cliqueBytes = 0;
        uint64_t roundBytes = 0;
        for (const auto& clique : json["cliques"])
        {
            cliqueBytes += clique["bytes"].get<uint64_t>();
            EXPECT_TRUE(clique["algorithm"].is_null()) << "no labels yet";
        }
        for (const auto& round : json["rounds"])
        {
            roundBytes += round["bytes"].get<uint64_t>();
        }
        EXPECT_EQ(cliqueBytes, roundBytes);
        ASSERT_FALSE(json["cliques"].empty());
        report.SetCliqueLabels({{{"aaa", "bbb"}}}, {{"ring"}}, "schedule");
        json = nlohmann::json::parse(report.ToJson());
        EXPECT_EQ(json["cliques"][0]["algorithm"], "ring");
        EXPECT_EQ(json["cliques"][0]["members"], (nlohmann::json{"aaa", "bbb"}));
        report.SetCliqueLabels({{{"aaa", "bbb"}}}, {{""}}, "both");
        EXPECT_EQ(report.GetCliqueLabel(0, 0)->algorithm, "both") << "a forced mode";
        std::vector<std::string> files = report.WriteCsv(csv);
        ASSERT_EQ(files.size(), 5u);
        EXPECT_EQ(files[1], dir + "/out/report-islands.csv");
        EXPECT_EQ(files[4], dir + "/out/report-cliques.csv");
        EXPECT_NE(ReadText(files[4]).find("1,0,0,both,"), std::string::npos) << ReadText(files[4]);
        std::string text = ReadText(csv);
        EXPECT_NE(text.find("aaa->bbb,total,6,"), std::string::npos) << text;
        EXPECT_NE(text.find("aaa:up,1,1,"), std::string::npos) << text;
        std::filesystem::remove_all(dir);
    }
}

TEST(PcapTraceReport, PlotsWithGnuplotOrSaysWhyNot)
{
    std::string dir = TempDir("plot");
    BuildScenario().Write(dir, 70);
    PcapTraceReport report(PORT);
    report.Analyze(dir);
    std::string png = dir + "/bytes.png";
    std::string skipped = report.WritePlot(png);
    if (skipped.empty())
    {
        std::ifstream in(png, std::ios::binary);
        char magic[4] = {0, 0, 0, 0};
        in.read(magic, 4);
        EXPECT_EQ(std::string(magic + 1, 3), "PNG");
    }
    else
    {
        EXPECT_NE(skipped.find("gnuplot"), std::string::npos) << skipped;
        EXPECT_FALSE(std::filesystem::exists(png));
    }
    std::filesystem::remove_all(dir);
}

TEST(PcapTraceReport, NamesFilesAfterDirectedLinks)
{
    std::vector<uint8_t> frame = BuildFrame(FrameSpec(), BuildMessage(Message()));
    auto make = [&frame](const std::string& dir, const std::vector<std::string>& files) {
        for (const auto& file : files)
        {
            WriteCapture(dir + "/" + file, {{0, frame}});
        }
    };
    // A city called "up": up-aaa.pcap and aaa-up.pcap are the WAN link aaa <-> up.
    std::string dir = TempDir("names");
    make(dir, {"up-aaa.pcap", "aaa-up.pcap"});
    std::ofstream(dir + "/results.json") << "{}";
    {
        PcapTraceReport report(PORT);
        report.Analyze(dir);
        EXPECT_EQ(report.GetLinks().count("aaa->up"), 1u);
        EXPECT_EQ(report.GetLinks().count("up->aaa"), 1u);
        EXPECT_FALSE(report.GetLinks().at("aaa->up").access);
    }
    // With aaa-down.pcap too, aaa-up.pcap could be either link.
    make(dir, {"aaa-down.pcap"});
    ExpectInputError([&dir]() { PcapTraceReport(PORT).Analyze(dir); },
                     dir + "/aaa-up.pcap",
                     "file name",
                     "ambiguous");
    std::filesystem::remove_all(dir);

    dir = TempDir("names-bad");
    make(dir, {"node-0-1.pcap"});
    ExpectInputError([&dir]() { PcapTraceReport(PORT).Analyze(dir); },
                     dir + "/node-0-1.pcap",
                     "file name",
                     "not the capture of a directed link");
    std::filesystem::remove_all(dir);

    dir = TempDir("names-peer");
    make(dir, {"aaa-bbb.pcap"});
    ExpectInputError([&dir]() { PcapTraceReport(PORT).Analyze(dir); },
                     dir + "/aaa-bbb.pcap",
                     "file name",
                     "bbb-aaa.pcap, is missing");
    std::filesystem::remove_all(dir);

    dir = TempDir("names-none");
    ExpectInputError([&dir]() { PcapTraceReport(PORT).Analyze(dir); },
                     dir,
                     "directory",
                     "no .pcap captures");
    ExpectInputError([&dir]() { PcapTraceReport(PORT).Analyze(dir + "/absent"); },
                     dir + "/absent",
                     "directory",
                     "no such directory");
    std::filesystem::remove_all(dir);
}

/**
 * Tree mode on five cities, root aaa (island 0): bbb (1) behind aaa with ccc (2) and ddd (3)
 * behind bbb, eee (4) behind aaa; one clique of all five in round 0, 3 chunks.
 *
 *     ccc --\
 *            bbb -- aaa -- eee
 *     ddd --/
 *
 * Up: ccc, ddd, bbb and eee send DATA to aaa's island; routers ccc, ddd and eee pass their
 * island's single contribution on; bbb's FPGA sums bbb, ccc, ddd into a partial aggregate from
 * its address on aaa-bbb; aaa's FPGA sums it with eee's DATA into an aggregate from its access
 * address to the root (an edge aggregate). ddd's chunk 1 is lost on ddd->bbb: bbb's partial of
 * chunk 1 holds bbb and ccc only, aaa's holds bbb, ccc, eee, and ddd resends chunk 1 to the root
 * (passed unsummed by bbb and aaa). Down: aaa's island multicasts the total of each chunk to
 * the group; routers replicate it on every out-tree link; chunk 2 is lost on bbb->ccc and the
 * root resends it to ccc by unicast (a total repair). Also: an AGGREGATE from bbb's address to
 * an address that is no island's (other), and in round 1 an AGGREGATE from island eee to island
 * aaa (an island aggregate: not a tree clique).
 */
Scenario
BuildTreeScenario()
{
    Scenario s;
    s.links = {"aaa->bbb",
               "bbb->aaa",
               "bbb->ccc",
               "ccc->bbb",
               "bbb->ddd",
               "ddd->bbb",
               "aaa->eee",
               "eee->aaa",
               "aaa:up",
               "aaa:down",
               "bbb:up",
               "bbb:down",
               "ccc:up",
               "ccc:down",
               "ddd:up",
               "ddd:down",
               "eee:up",
               "eee:down"};
    const uint32_t island[5] = {Ip(10, 128, 0, 2),
                                Ip(10, 128, 0, 6),
                                Ip(10, 128, 0, 10),
                                Ip(10, 128, 0, 14),
                                Ip(10, 128, 0, 18)};
    const uint32_t bbbOnAaaBbb = Ip(10, 0, 0, 2);
    const uint32_t aaaAccess = Ip(10, 128, 0, 1);
    const uint32_t group = Ip(225, 1, 0, 0);
    const uint64_t all = 0x1f;
    uint16_t id = 1;
    // The root's READY (its island index: islands are known by what else than AGGREGATE they send).
    SendAlong(s,
              {"aaa:up", "aaa->bbb", "bbb:down"},
              500000,
              Sync(5, island[0], island[1], 64, id++, 0, 0, 0, 1));
    for (uint32_t c = 0; c < 3; ++c)
    {
        const uint64_t t = 1000000 + 100000 * c;
        const bool dddLost = c == 1;
        SendAlong(s,
                  {"ccc:up", "ccc->bbb"},
                  t,
                  Sync(1, island[2], island[0], 64, id++, 2, 0, c, 4));
        SendAlong(s,
                  {"ddd:up", "ddd->bbb"},
                  t,
                  Sync(1, island[3], island[0], 64, id++, 3, 0, c, 8),
                  dddLost ? 1 : -1);
        SendAlong(s, {"bbb:up"}, t, Sync(1, island[1], island[0], 64, id++, 1, 0, c, 2));
        SendAlong(s,
                  {"eee:up", "eee->aaa"},
                  t,
                  Sync(1, island[4], island[0], 64, id++, 4, 0, c, 16));
        const uint64_t partial = dddLost ? 0x6 : 0xe;
        SendAlong(s,
                  {"bbb->aaa"},
                  t + 300000,
                  Sync(2, bbbOnAaaBbb, island[0], 64, id++, 1, 0, c, partial));
        SendAlong(s,
                  {"aaa:down"},
                  t + 500000,
                  Sync(2, aaaAccess, island[0], 64, id++, 0, 0, c, partial | 0x10));
    }
    // ddd's chunk 1 resent to the root: passes bbb and aaa unsummed.
    SendAlong(s,
              {"ddd:up", "ddd->bbb", "bbb->aaa", "aaa:down"},
              3000000,
              Sync(1, island[3], island[0], 64, id++, 3, 0, 1, 8));
    // The totals: aaa's island to the group, replicated on the out-tree.
    for (uint32_t c = 0; c < 3; ++c)
    {
        const uint64_t t = 4000000 + 100000 * c;
        auto total = Sync(2, island[0], group, 64, id++, 0, 0, c, all);
        s.Send("aaa:up", t, total.first, total.second);
        total.first[10] -= 1;
        for (const char* link : {"aaa->bbb", "aaa->eee"})
        {
            s.Send(link, t + 100000, total.first, total.second);
        }
        SendAlong(s, {"eee:down"}, t + 200000, {total.first, total.second});
        total.first[10] -= 1;
        SendAlong(s, {"bbb->ddd", "ddd:down"}, t + 200000, total);
        SendAlong(s, {"bbb:down"}, t + 200000, total);
        SendAlong(s, {"bbb->ccc", "ccc:down"}, t + 200000, total, c == 2 ? 0 : -1);
    }
    // ccc's lost total of chunk 2, resent by the root by unicast.
    SendAlong(s,
              {"aaa:up", "aaa->bbb", "bbb->ccc", "ccc:down"},
              5000000,
              Sync(2, island[0], island[2], 64, id++, 0, 0, 2, all));
    // An aggregate to no island's address, and round 1's island aggregate.
    SendAlong(s,
              {"bbb->aaa"},
              5500000,
              Sync(2, bbbOnAaaBbb, Ip(10, 99, 0, 1), 64, id++, 1, 0, 0, 0x6));
    SendAlong(s,
              {"eee:up", "eee->aaa", "aaa:down"},
              6000000,
              Sync(2, island[4], island[0], 64, id++, 4, 1, 0, 0x11));
    return s;
}

TEST(PcapTraceReport, ClassifiesTreeAggregatesAndCountsEachRoutersReduction)
{
    for (uint32_t snapLen : {65535u, 70u})
    {
        SCOPED_TRACE(snapLen);
        // Per-link counts: every transmission once, on its link.
        Scenario s = BuildTreeScenario();
        PcapTraceReport report(PORT);
        std::string dir = TempDir("tree-" + std::to_string(snapLen));
        AnalyzeScenario(s, dir, snapLen, report);
        ASSERT_EQ(report.GetLinks().size(), 18u);

        // Router addresses: bbb's on aaa-bbb and aaa's access address.
        const PcapTreeAnalysis& tree = report.GetTree();
        EXPECT_TRUE(tree.HasTreeTraffic());
        EXPECT_EQ(tree.GetRouterAddresses(),
                  (std::map<uint32_t, std::string>{{Ip(10, 0, 0, 2), "bbb"},
                                                   {Ip(10, 128, 0, 1), "aaa"}}));

        // Classes per link, with the contributors summed (popcounts) from the scenario.
        auto counts = [&tree](const std::string& link, PcapTreeAnalysis::AggregateClass c) {
            auto it = tree.GetLinks().find(link);
            if (it == tree.GetLinks().end())
            {
                return std::pair<uint64_t, uint64_t>{0, 0};
            }
            return std::pair<uint64_t, uint64_t>{it->second[c].packets, it->second[c].contributors};
        };
        using Pair = std::pair<uint64_t, uint64_t>;
        // bbb's partials: {bbb, ccc, ddd} twice, {bbb, ccc} once.
        EXPECT_EQ(counts("bbb->aaa", PcapTreeAnalysis::PARTIAL), (Pair{3, 8}));
        EXPECT_EQ(counts("bbb->aaa", PcapTreeAnalysis::OTHER), (Pair{1, 2}));
        // aaa's sums toward its island: + eee.
        EXPECT_EQ(counts("aaa:down", PcapTreeAnalysis::EDGE), (Pair{3, 11}));
        EXPECT_EQ(counts("aaa:down", PcapTreeAnalysis::PARTIAL), (Pair{0, 0}));
        EXPECT_EQ(counts("aaa:down", PcapTreeAnalysis::ISLAND), (Pair{1, 2}));
        // The total: one copy per chunk on every out-tree link, chunk 2 lost before ccc:down.
        for (const char* link : {"aaa:up",
                                 "aaa->bbb",
                                 "aaa->eee",
                                 "bbb->ccc",
                                 "bbb->ddd",
                                 "bbb:down",
                                 "ddd:down",
                                 "eee:down"})
        {
            SCOPED_TRACE(link);
            EXPECT_EQ(counts(link, PcapTreeAnalysis::TOTAL), (Pair{3, 15}));
        }
        EXPECT_EQ(counts("ccc:down", PcapTreeAnalysis::TOTAL), (Pair{2, 10}));
        for (const char* link : {"aaa:up", "aaa->bbb", "bbb->ccc", "ccc:down"})
        {
            SCOPED_TRACE(link);
            EXPECT_EQ(counts(link, PcapTreeAnalysis::TOTAL_REPAIR), (Pair{1, 5}));
        }
        EXPECT_EQ(counts("bbb->ddd", PcapTreeAnalysis::TOTAL_REPAIR), (Pair{0, 0}));
        EXPECT_EQ(counts("eee->aaa", PcapTreeAnalysis::ISLAND), (Pair{1, 2}));
        EXPECT_EQ(counts("eee->aaa", PcapTreeAnalysis::PARTIAL), (Pair{0, 0}));

        // Routers: contributions in, aggregates out, passed on.
        const auto& routers = tree.GetRouters();
        ASSERT_EQ(routers.size(), 5u);
        const auto& bbb = routers.at("bbb");
        EXPECT_EQ(bbb.in.packets, 9u); // its island 3, ccc 3, ddd 2 + the resent chunk
        EXPECT_EQ(bbb.in.contributors, 9u);
        EXPECT_EQ(bbb.aggregatesOut.packets, 3u);
        EXPECT_EQ(bbb.aggregatesOut.contributors, 8u);
        EXPECT_EQ(bbb.passedOut.packets, 1u);
        EXPECT_DOUBLE_EQ(bbb.GetReduction(), 9.0 / 4.0);
        const auto& aaa = routers.at("aaa");
        EXPECT_EQ(aaa.in.packets, 7u); // 3 partials, eee's 3 DATA, ddd's resent chunk
        EXPECT_EQ(aaa.in.contributors, 12u);
        EXPECT_EQ(aaa.aggregatesOut.packets, 3u);
        EXPECT_EQ(aaa.aggregatesOut.contributors, 11u);
        EXPECT_EQ(aaa.passedOut.packets, 1u);
        EXPECT_DOUBLE_EQ(aaa.GetReduction(), 7.0 / 4.0);
        for (const auto& [city, in] :
             std::map<std::string, uint64_t>{{"ccc", 3}, {"ddd", 4}, {"eee", 3}})
        {
            SCOPED_TRACE(city);
            EXPECT_EQ(routers.at(city).in.packets, in);
            EXPECT_EQ(routers.at(city).aggregatesOut.packets, 0u);
            EXPECT_EQ(routers.at(city).passedOut.packets, in);
            EXPECT_DOUBLE_EQ(routers.at(city).GetReduction(), 1.0);
        }

        // The total's replication: 9 links per chunk but chunk 2 (8); DATA streams unchanged.
        ASSERT_EQ(report.GetTotalReplication().size(), 1u);
        const auto& total = report.GetTotalReplication().at({1, 0, 0, 0});
        EXPECT_EQ(total.chunks, 3u);
        EXPECT_EQ(total.chunkCount, 3u);
        EXPECT_EQ(total.links.size(), 9u);
        EXPECT_EQ(total.links.at("bbb->ddd"), (std::pair<uint32_t, uint64_t>{3, 3}));
        EXPECT_EQ(total.links.at("ccc:down"), (std::pair<uint32_t, uint64_t>{2, 2}));
        ExpectSpread(total, 8, 9, 8, 9);
        EXPECT_EQ(report.GetReplication().size(), 4u); // the DATA of ccc, ddd, bbb, eee
        EXPECT_EQ(report.GetReplication().count({1, 0, 0, 0}), 0u);

        // JSON and CSV carry the same numbers.
        nlohmann::json json = nlohmann::json::parse(report.ToJson());
        EXPECT_EQ(json["tree"]["has_tree_traffic"], true);
        EXPECT_EQ(json["tree"]["aggregates"]["bbb->aaa"]["partial"]["packets"], 3);
        EXPECT_EQ(json["tree"]["aggregates"]["bbb->aaa"]["partial"]["contributors"], 8);
        EXPECT_EQ(json["tree"]["routers"]["bbb"]["reduction_ratio"], 2.25);
        EXPECT_EQ(json["tree"]["router_addresses"]["10.0.0.2"], "bbb");
        EXPECT_EQ(json["tree"]["totals"][0]["links"]["ccc:down"]["copies"], 2);
        EXPECT_EQ(json["tree"]["totals"][0]["source_island"], "aaa");
        std::string csv = dir + "/out/report.csv";
        std::filesystem::create_directories(dir + "/out");
        std::vector<std::string> files = report.WriteCsv(csv);
        ASSERT_EQ(files.size(), 8u);
        EXPECT_EQ(files[5], dir + "/out/report-tree.csv");
        std::string text = ReadText(files[5]);
        EXPECT_NE(text.find("bbb->aaa,partial,3,"), std::string::npos) << text;
        std::string routersCsv = ReadText(files[6]);
        EXPECT_NE(routersCsv.find("bbb,9,9,3,8,1,1,2.25"), std::string::npos) << routersCsv;
        std::filesystem::remove_all(dir);
    }
}

TEST(PcapTraceReport, FindsNoTreeTrafficInTheOtherModes)
{
    std::string dir = TempDir("no-tree");
    Scenario s = BuildScenario();
    PcapTraceReport report(PORT);
    AnalyzeScenario(s, dir, 70, report);
    const PcapTreeAnalysis& tree = report.GetTree();
    EXPECT_FALSE(tree.HasTreeTraffic());
    EXPECT_TRUE(tree.GetRouters().empty());
    EXPECT_TRUE(report.GetTotalReplication().empty());
    // aaa's FPGA aggregate toward its island is an edge aggregate.
    EXPECT_EQ(tree.GetLinks().at("aaa:down")[PcapTreeAnalysis::EDGE].packets, 1u);
    EXPECT_EQ(tree.GetLinks().size(), 1u);
    std::filesystem::remove_all(dir);
}

} // namespace
