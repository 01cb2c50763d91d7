/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

/**
 * @file
 * @ingroup wan-training-tests
 * GoogleTest cases of coarse frames: WireFrames' closed forms (the capacity of a wire frame, the
 * frames of a chunk, reading the frame count back from a message's size), the coarse plans of
 * ExchangePlanner (whole wire frames per chunk, the same wire bytes as exact frames), and the
 * refusals of a simulation frame a topology cannot take (`defaults.frame_bytes`,
 * WanTopology::WithFrameBytes).
 */

#include "clique-schedule.h"
#include "exchange-planner.h"
#include "test-utils.h"
#include "wan-config-error.h"
#include "wan-input-error.h"
#include "wan-topology.h"
#include "wire-frames.h"

#include <gtest/gtest.h>
#include <string>

using namespace ns3;

namespace
{

/** IPv4 + UDP + the fixed sync header: what a frame's IP MTU holds besides its payload. */
constexpr uint32_t IP_OVERHEAD = 20 + 8 + 40;
/** The same with the 2-byte PPP header: each wire frame's bytes besides its payload. */
constexpr uint32_t FRAME_OVERHEAD = 2 + IP_OVERHEAD;

/**
 * @param mtu the IP MTU of every link
 * @param frameBytes the `defaults.frame_bytes` field to write (negative: none)
 * @param linkMtu an `mtu_bytes` of the first link (0: none)
 * @return the JSON of three cities in a line a - b - c of 10 Gb/s links
 */
std::string
LineJson(uint32_t mtu, long frameBytes, uint32_t linkMtu = 0)
{
    std::string json = R"({"defaults": {"mtu_bytes": )" + std::to_string(mtu);
    if (frameBytes >= 0)
    {
        json += R"(, "frame_bytes": )" + std::to_string(frameBytes);
    }
    json += R"(, "island_access": {"capacity_gbps": 100, "latency_ms": 0.05}},
        "cities": [{"id": "a"}, {"id": "b"}, {"id": "c"}],
        "links": [{"a": "a", "b": "b", "latency_ms": 10, "capacity_gbps": 10)";
    if (linkMtu > 0)
    {
        json += R"(, "mtu_bytes": )" + std::to_string(linkMtu);
    }
    json += R"(}, {"a": "b", "b": "c", "latency_ms": 10, "capacity_gbps": 10}]})";
    return json;
}

/**
 * @param topology a topology
 * @param format a payload format
 * @param modelBytes S
 * @param mode the forced mode
 * @return island 0's plan of the all-island clique
 */
ExchangePlan
PlanOf(const WanTopology& topology,
       PayloadFormat format,
       uint64_t modelBytes,
       CapabilityMode mode = CapabilityMode::UNICAST)
{
    ExchangePlanner::Config config;
    config.mode = mode;
    config.format = format;
    config.modelBytes = modelBytes;
    config.parameterCount = 100;
    ExchangePlanner planner(topology, CliqueSchedule::AllReduce(3), config);
    return planner.GetPlan(0, 0);
}

/**
 * @param plan a plan
 * @return the bytes of all its chunks on a link and their wire frames
 */
std::pair<uint64_t, uint64_t>
WireTotals(const ExchangePlan& plan)
{
    uint64_t bytes = 0;
    uint64_t frames = 0;
    for (uint32_t c = 0; c < plan.chunkCount; ++c)
    {
        bytes += plan.GetWireBytes(c);
        frames += plan.GetWireFrames(c);
    }
    return {bytes, frames};
}

/**
 * @param json a topology JSON
 * @return the WanInputError its parse throws
 */
WanInputError
ParseError(const std::string& json)
{
    try
    {
        WanTopology::Parse(json, "line.json");
    }
    catch (const WanInputError& error)
    {
        return error;
    }
    ADD_FAILURE() << "the topology was accepted";
    return WanInputError("", "", "");
}

} // namespace

TEST(WireFrames, CapacityIsTheWholeValuesAfterTheHeaders)
{
    EXPECT_EQ(WireFrames::HEADER_BYTES, FRAME_OVERHEAD);
    // 9000 - 68 = 8932 bytes: 2233 fp32 values, 4466 bf16 values, 8 int8 blocks of 1028 bytes.
    EXPECT_EQ(WireFrames::GetCapacity(9000, PayloadFormat::FP32), 8932U);
    EXPECT_EQ(WireFrames::GetCapacity(9000, PayloadFormat::BF16), 8932U);
    EXPECT_EQ(WireFrames::GetCapacity(9000, PayloadFormat::INT8), 8U * 1028U);
    EXPECT_EQ(WireFrames::GetCapacity(1500, PayloadFormat::FP32), 1432U);
    EXPECT_EQ(WireFrames::GetCapacity(1501, PayloadFormat::FP32), 1432U);
    EXPECT_EQ(WireFrames::GetCapacity(1500, PayloadFormat::INT8), 1028U);
    EXPECT_EQ(WireFrames::GetCapacity(68, PayloadFormat::FP32), 0U);
}

TEST(WireFrames, FramesAreTheCeilingOfPayloadOverCapacity)
{
    EXPECT_EQ(WireFrames::GetFrames(1, 1432), 1U);
    EXPECT_EQ(WireFrames::GetFrames(1432, 1432), 1U);
    EXPECT_EQ(WireFrames::GetFrames(1433, 1432), 2U);
    EXPECT_EQ(WireFrames::GetFrames(7 * 8932, 8932), 7U);
    EXPECT_EQ(WireFrames::GetFrames(123456, 0), 1U) << "exact frames: one per chunk";
    EXPECT_EQ(WireFrames::GetExtraHeaderBytes(1), 0U);
    EXPECT_EQ(WireFrames::GetExtraHeaderBytes(7), 6U * FRAME_OVERHEAD);
}

TEST(WireFrames, TheFrameCountIsReadBackFromEveryMessageSize)
{
    // A chunk of p model bytes is sent as p + (frames - 1) x 70 bytes after the fixed header:
    // every p gives back its own frame count (the sizes of different counts never meet).
    for (uint32_t capacity : {4U, 100U, 1432U})
    {
        for (uint32_t p = 1; p <= 40 * capacity; ++p)
        {
            const uint32_t frames = WireFrames::GetFrames(p, capacity);
            ASSERT_EQ(WireFrames::GetFramesOfMessage(p + WireFrames::GetExtraHeaderBytes(frames),
                                                     capacity),
                      frames)
                << "capacity " << capacity << ", payload " << p;
        }
    }
    EXPECT_EQ(WireFrames::GetFramesOfMessage(50000, 0), 1U) << "exact frames";
}

TEST(CoarseFrames, AChunkIsWholeWireFramesThatFitTheSimulationFrame)
{
    const WanTopology exact = WanTopology::Parse(LineJson(9000, -1), "line.json");
    EXPECT_EQ(exact.GetFrameBytes(), 0U);
    const WanTopology coarse = exact.WithFrameBytes(64000);
    EXPECT_EQ(coarse.GetFrameBytes(), 64000U);
    EXPECT_EQ(coarse.GetDeviceMtuBytes(9000), 64000U);
    EXPECT_EQ(exact.GetDeviceMtuBytes(9000), 9000U);
    // f frames take f x 9000 + (f - 1) x 2 IP bytes: f = floor(64002 / 9002) = 7.
    const uint64_t s = 100000000;
    const ExchangePlan plan = PlanOf(coarse, PayloadFormat::FP32, s);
    EXPECT_EQ(plan.frameCapacity, 8932U);
    EXPECT_EQ(plan.chunkBytes, 7U * 8932U);
    EXPECT_EQ(plan.chunkValues, 7U * 2233U);
    EXPECT_EQ(plan.GetWireFrames(0), 7U);
    EXPECT_EQ(plan.GetWireBytes(0), 7U * (8932U + FRAME_OVERHEAD));
    EXPECT_LE(plan.GetWireBytes(0) - 2, 64000U) << "the IP datagram fits the device MTU";
    // The padding after the values carries the other six frames' headers.
    EXPECT_EQ(plan.GetPaddingBytes(plan.chunkCount - 1),
              plan.GetPayloadBytes(plan.chunkCount - 1) +
                  WireFrames::GetExtraHeaderBytes(plan.GetWireFrames(plan.chunkCount - 1)));
    // The same wire frames and bytes as exact frames: ceil(S / 8932) frames of 70 header bytes.
    const uint64_t frames = (s + 8931) / 8932;
    const auto [coarseBytes, coarseFrames] = WireTotals(plan);
    const auto [exactBytes, exactFrames] = WireTotals(PlanOf(exact, PayloadFormat::FP32, s));
    EXPECT_EQ(coarseFrames, frames);
    EXPECT_EQ(exactFrames, frames);
    EXPECT_EQ(coarseBytes, s + frames * FRAME_OVERHEAD);
    EXPECT_EQ(exactBytes, coarseBytes);
}

TEST(CoarseFrames, EveryFormatKeepsTheWireBytesOfExactFrames)
{
    const WanTopology exact = WanTopology::Parse(LineJson(1500, -1), "line.json");
    const WanTopology coarse = WanTopology::Parse(LineJson(1500, 65535), "line.json");
    // 1500-byte frames of capacity c: f = floor(65537 / (c + 70)) per chunk, 43 of fp32 and
    // bf16 (c = 1432), 59 of int8 (one 1028-byte block per frame).
    for (PayloadFormat format : {PayloadFormat::FP32, PayloadFormat::BF16, PayloadFormat::INT8})
    {
        const uint32_t capacity = WireFrames::GetCapacity(1500, format);
        const uint64_t s = format == PayloadFormat::INT8 ? 1028 * 3001 : 4000000;
        const ExchangePlan plan = PlanOf(coarse, format, s);
        EXPECT_EQ(plan.chunkBytes, (format == PayloadFormat::INT8 ? 59U : 43U) * capacity)
            << PayloadFormatToString(format);
        const uint64_t frames = (s + capacity - 1) / capacity;
        EXPECT_EQ(WireTotals(plan).second, frames) << PayloadFormatToString(format);
        EXPECT_EQ(WireTotals(plan).first, s + frames * FRAME_OVERHEAD);
        EXPECT_EQ(WireTotals(PlanOf(exact, format, s)).first, s + frames * FRAME_OVERHEAD);
    }
}

TEST(CoarseFrames, ARingCutsSmallerChunksOfWholeOrPartialFrames)
{
    // 3 members need 3 chunks: S = 3 x 8932 x 2 cuts 2 frames per segment's chunk.
    const WanTopology coarse = WanTopology::Parse(LineJson(9000, 64000), "line.json");
    const uint64_t s = 3 * 8932 * 2;
    const ExchangePlan plan = PlanOf(coarse, PayloadFormat::FP32, s, CapabilityMode::RING);
    EXPECT_EQ(plan.chunkCount, 3U);
    EXPECT_EQ(plan.chunkBytes, 2U * 8932U);
    EXPECT_EQ(plan.GetWireFrames(0), 2U);
    EXPECT_EQ(WireTotals(plan).first, s + 6 * FRAME_OVERHEAD);
}

TEST(CoarseFrames, ChunkBytesMustFitTheSimulationFrame)
{
    const WanTopology coarse = WanTopology::Parse(LineJson(9000, 64000), "line.json");
    ExchangePlanner::Config config;
    config.mode = CapabilityMode::UNICAST;
    config.modelBytes = 1000000;
    config.chunkBytes = 20000; // over one wire frame, inside the simulation frame: 3 frames
    ExchangePlanner planner(coarse, CliqueSchedule::AllReduce(3), config);
    const ExchangePlan plan = planner.GetPlan(0, 0);
    EXPECT_EQ(plan.chunkBytes, 20000U);
    EXPECT_EQ(plan.GetWireFrames(0), 3U);
    config.chunkBytes = 7 * 8932 + 4;
    try
    {
        ExchangePlanner(coarse, CliqueSchedule::AllReduce(3), config).Validate();
        ADD_FAILURE() << "a chunk over the simulation frame was accepted";
    }
    catch (const WanConfigError& error)
    {
        EXPECT_EQ(error.GetField(), "chunkBytes");
        EXPECT_NE(std::string(error.what()).find("simulation frame of 64000 bytes"),
                  std::string::npos)
            << error.what();
    }
}

TEST(CoarseFrames, ASimulationFrameTheTopologyCannotTakeIsRefused)
{
    const std::string path = "$.defaults.frame_bytes";
    WanInputError below = ParseError(LineJson(9000, 8999));
    EXPECT_EQ(below.GetPath(), path);
    EXPECT_NE(below.GetReason().find("smaller than the wire MTU"), std::string::npos);
    WanInputError over = ParseError(LineJson(9000, 65536));
    EXPECT_EQ(over.GetPath(), path);
    EXPECT_NE(over.GetReason().find("65535"), std::string::npos);
    WanInputError mixed = ParseError(LineJson(9000, 64000, 1500));
    EXPECT_EQ(mixed.GetPath(), path);
    EXPECT_NE(mixed.GetReason().find("link a-b has an MTU of 1500"), std::string::npos)
        << mixed.GetReason();
    EXPECT_EQ(ParseError(R"({"defaults": {"mtu_bytes": 9000, "frame_bytes": "big",
        "island_access": {"capacity_gbps": 100, "latency_ms": 0.05}},
        "cities": [{"id": "a"}, {"id": "b"}],
        "links": [{"a": "a", "b": "b", "latency_ms": 10, "capacity_gbps": 10}]})")
                  .GetPath(),
              path);
    EXPECT_EQ(WanTopology::Parse(LineJson(9000, 0), "line.json").GetFrameBytes(), 0U);

    const WanTopology mixedMtu = WanTopology::Parse(LineJson(9000, -1, 1500), "line.json");
    try
    {
        mixedMtu.WithFrameBytes(64000);
        ADD_FAILURE() << "coarse frames on two MTUs were accepted";
    }
    catch (const WanConfigError& error)
    {
        EXPECT_EQ(error.GetField(), "frameBytes");
    }
    EXPECT_EQ(mixedMtu.WithFrameBytes(0).GetFrameBytes(), 0U) << "exact frames always work";
}
