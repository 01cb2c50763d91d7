/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "clique-schedule.h"
#include "exchange-planner.h"
#include "island-sync-header.h"
#include "sync-protocol.h"
#include "test-utils.h"
#include "wan-config-error.h"
#include "wan-topology.h"

#include <gtest/gtest.h>
#include <string>

/**
 * @file
 * @ingroup wan-training-tests
 * GoogleTest cases for ExchangePlanner: chunking against closed forms (the path MTU minus the
 * IPv4, UDP and IslandSyncHeader headers), ring segments floor(j C / k), pacing overrides, views,
 * and the configuration errors with their field and reason.
 */

using namespace ns3;

namespace
{

/** The IP MTU of every link of Triangle(). */
constexpr uint32_t MTU = 1500;
/** Header bytes of a chunk inside the IP MTU. */
constexpr uint32_t OVERHEAD = SyncProtocol::IP_UDP_HEADER_BYTES + IslandSyncHeader::FIXED_SIZE;

/** Three cities a, b, c in a triangle of 10 Gb/s links (IP MTU 1500). */
WanTopology
Triangle()
{
    return ParseInlineTopology(100,
                               1,
                               R"([{"id": "a"}, {"id": "b"}, {"id": "c"}])",
                               R"([{"a": "a", "b": "b", "latency_ms": 10, "capacity_gbps": 10},
                      {"a": "b", "b": "c", "latency_ms": 10, "capacity_gbps": 10},
                      {"a": "a", "b": "c", "latency_ms": 10, "capacity_gbps": 10}])");
}

/**
 * @param mode the mode
 * @param modelBytes ModelBytes
 * @param chunkBytes ChunkBytes
 * @param parameterCount ParameterCount
 * @return a planner configuration
 */
ExchangePlanner::Config
MakeConfig(CapabilityMode mode, uint64_t modelBytes, uint32_t chunkBytes, uint32_t parameterCount)
{
    ExchangePlanner::Config config;
    config.mode = mode;
    config.modelBytes = modelBytes;
    config.chunkBytes = chunkBytes;
    config.parameterCount = parameterCount;
    return config;
}

/**
 * @param topology the topology
 * @param schedule the schedule
 * @param config the configuration
 * @return the WanConfigError that planning (construction and Validate) throws
 */
WanConfigError
PlanningError(const WanTopology& topology,
              const CliqueSchedule& schedule,
              const ExchangePlanner::Config& config)
{
    try
    {
        ExchangePlanner(topology, schedule, config).Validate();
    }
    catch (const WanConfigError& error)
    {
        return error;
    }
    ADD_FAILURE() << "the configuration was accepted";
    return WanConfigError("", "");
}

} // namespace

TEST(ExchangePlanner, ChunksFillThePathMtuMinusTheHeaders)
{
    const WanTopology topology = Triangle();
    const CliqueSchedule schedule = CliqueSchedule::AllReduce(3);
    const uint64_t modelBytes = 1000000;
    const uint32_t parameterCount = 1000;
    ExchangePlanner planner(topology,
                            schedule,
                            MakeConfig(CapabilityMode::UNICAST, modelBytes, 0, parameterCount));
    const uint32_t chunkBytes = (MTU - OVERHEAD) / 4 * 4;
    const uint64_t chunkCount = (modelBytes + chunkBytes - 1) / chunkBytes;
    for (uint32_t island = 0; island < 3; ++island)
    {
        ExchangePlan plan = planner.GetPlan(0, island);
        EXPECT_EQ(plan.clique, 0U);
        EXPECT_EQ(plan.members.size(), 3U);
        EXPECT_EQ(plan.chunkBytes, chunkBytes);
        EXPECT_EQ(plan.chunkCount, chunkCount);
        EXPECT_EQ(plan.GetPayloadBytes(0), chunkBytes);
        EXPECT_EQ(plan.GetPayloadBytes(plan.chunkCount - 1),
                  modelBytes - uint64_t{chunkBytes} * (chunkCount - 1));
        EXPECT_EQ(plan.GetWireBytes(0), SyncProtocol::PPP_HEADER_BYTES + OVERHEAD + chunkBytes);
        // The values fill the first chunks, chunkBytes / 4 each.
        const uint32_t perChunk = chunkBytes / 4;
        EXPECT_EQ(plan.GetValueSlice(0), std::make_pair(0U, perChunk));
        const uint32_t lastWithValues = (parameterCount - 1) / perChunk;
        EXPECT_EQ(
            plan.GetValueSlice(lastWithValues),
            std::make_pair(lastWithValues * perChunk, parameterCount - lastWithValues * perChunk));
        EXPECT_EQ(plan.GetValueSlice(lastWithValues + 1), std::make_pair(0U, 0U));
        EXPECT_EQ(plan.sendRateBps.size(), 2U);
        EXPECT_EQ(plan.recvRateBps.size(), 2U);
        EXPECT_EQ(plan.GetMemberBits(), 0x7U);
    }
}

TEST(ExchangePlanner, EveryFormatChunksWholeValuesAndPadsWithEncodedZeros)
{
    // MTU 1500 leaves 1432 payload bytes: fp32 358 values, bf16 716 values, int8 one block
    // (1028 bytes; two would take 2056).
    const WanTopology topology = Triangle();
    const CliqueSchedule schedule = CliqueSchedule::AllReduce(3);
    const uint32_t parameterCount = 3000;

    struct Case
    {
        PayloadFormat format;
        uint32_t chunkValues;
    };

    for (const Case& c : {Case{PayloadFormat::FP32, 358},
                          Case{PayloadFormat::BF16, 716},
                          Case{PayloadFormat::INT8, 1024}})
    {
        const std::string name = PayloadFormatToString(c.format);
        // P = 10000 values: S is their encoding (int8: 9 whole blocks, then 784 values).
        const uint64_t values = 10000;
        const uint64_t modelBytes = GetEncodedBytes(c.format, values);
        ExchangePlanner::Config config =
            MakeConfig(CapabilityMode::UNICAST, modelBytes, 0, parameterCount);
        config.format = c.format;
        const ExchangePlan plan = ExchangePlanner(topology, schedule, config).GetPlan(0, 0);
        EXPECT_EQ(plan.format, c.format) << name;
        EXPECT_EQ(plan.valueCount, values) << name;
        EXPECT_EQ(plan.chunkValues, c.chunkValues) << name;
        EXPECT_EQ(plan.chunkBytes, GetEncodedBytes(c.format, c.chunkValues)) << name;
        const uint32_t chunks = (values + c.chunkValues - 1) / c.chunkValues;
        ASSERT_EQ(plan.chunkCount, chunks) << name;
        uint64_t total = 0;
        for (uint32_t chunk = 0; chunk < chunks; ++chunk)
        {
            // Chunk c carries values [c v, ...); its payload is their encoding, real values
            // first, the rest encoded zeros.
            const uint64_t first = uint64_t{chunk} * c.chunkValues;
            const uint64_t carried = std::min<uint64_t>(c.chunkValues, values - first);
            const uint64_t real =
                first < parameterCount ? std::min<uint64_t>(carried, parameterCount - first) : 0;
            EXPECT_EQ(plan.GetPayloadBytes(chunk), GetEncodedBytes(c.format, carried))
                << name << " chunk " << chunk;
            EXPECT_EQ(plan.GetValueSlice(chunk).second, real) << name << " chunk " << chunk;
            if (real > 0)
            {
                EXPECT_EQ(plan.GetValueSlice(chunk).first, first) << name << " chunk " << chunk;
            }
            EXPECT_EQ(plan.GetPaddingBytes(chunk),
                      GetEncodedBytes(c.format, carried) - GetEncodedBytes(c.format, real))
                << name << " chunk " << chunk;
            total += plan.GetPayloadBytes(chunk);
        }
        EXPECT_EQ(total, modelBytes) << name;
    }
}

TEST(ExchangePlanner, AChunkIsLaidOutAsItsPlanSays)
{
    const WanTopology topology = Triangle();
    const CliqueSchedule schedule = CliqueSchedule::AllReduce(3);
    ExchangePlanner::Config config = MakeConfig(CapabilityMode::UNICAST, 8224, 0, 1500);
    config.format = PayloadFormat::INT8; // 8 blocks, one a chunk; values in the first two
    const ExchangePlan plan = ExchangePlanner(topology, schedule, config).GetPlan(0, 0);
    ASSERT_EQ(plan.chunkCount, 8U);
    IslandSyncHeader header;
    header.SetType(IslandSyncHeader::DATA);
    header.SetFormat(PayloadFormat::INT8);
    header.SetChunkIndex(1);
    header.SetChunkCount(8);
    header.SetValueOffset(1024);
    header.SetValues(std::vector<float>(476, 0.5F));
    // 476 real values: 480 bytes with the scale; the other 548 codes are padding.
    EXPECT_EQ(plan.GetPaddingBytes(1), 548U);
    EXPECT_TRUE(plan.HasChunkLayout(header, 548));
    EXPECT_FALSE(plan.HasChunkLayout(header, 547));
    header.SetFormat(PayloadFormat::BF16);
    EXPECT_FALSE(plan.HasChunkLayout(header, 548)) << "another format";
    header.SetFormat(PayloadFormat::INT8);
    header.SetChunkCount(9);
    EXPECT_FALSE(plan.HasChunkLayout(header, 548)) << "another chunk count";
    header.SetChunkCount(8);
    header.SetValueOffset(0);
    EXPECT_FALSE(plan.HasChunkLayout(header, 548)) << "another offset";
    header.SetValueOffset(1024);
    header.SetChunkIndex(8);
    EXPECT_FALSE(plan.HasChunkLayout(header, 548)) << "no such chunk";
}

TEST(ExchangePlanner, FormatsRefuseSizesThatAreNoEncoding)
{
    const WanTopology topology = Triangle();
    const CliqueSchedule schedule = CliqueSchedule::AllReduce(3);
    ExchangePlanner::Config config = MakeConfig(CapabilityMode::UNICAST, 1030, 0, 1);
    config.format = PayloadFormat::INT8;
    WanConfigError error = PlanningError(topology, schedule, config);
    EXPECT_EQ(error.GetField(), "modelBytes");
    EXPECT_EQ(error.GetReason(),
              "1030 bytes are no int8 contribution (whole int8 blocks of 1024 values and their "
              "4-byte scale, 1028 bytes each, a last partial block its scale and a value): the "
              "nearest are 1028 and 1033 bytes");
    config.modelBytes = 1001;
    config.format = PayloadFormat::BF16;
    error = PlanningError(topology, schedule, config);
    EXPECT_EQ(error.GetField(), "modelBytes");
    config.format = PayloadFormat::INT8;
    config.modelBytes = 100000000;
    config.chunkBytes = 1432;
    error = PlanningError(topology, schedule, config);
    EXPECT_EQ(error.GetField(), "chunkBytes");
    EXPECT_EQ(error.GetReason(),
              "must be a multiple of 1028 in int8, whole int8 blocks of 1024 values and their "
              "4-byte scale, 1028 bytes each (got 1432)");
    config.chunkBytes = 0;
    config.parameterCount = 99700000;
    error = PlanningError(topology, schedule, config);
    EXPECT_EQ(error.GetField(), "parameterCount");
    EXPECT_EQ(error.GetReason(),
              "99700000 values take 100089456 bytes in int8, more than {modelBytes}=100000000");
}

TEST(ExchangePlanner, AnInt8BlockMustFitThePathMtu)
{
    // IP MTU 1000: 932 payload bytes, less than one int8 block.
    const WanTopology topology = ParseInlineTopology(
        100,
        1,
        R"([{"id": "a"}, {"id": "b"}])",
        R"([{"a": "a", "b": "b", "latency_ms": 10, "capacity_gbps": 10, "mtu_bytes": 1000}])");
    const CliqueSchedule schedule = CliqueSchedule::AllReduce(2);
    ExchangePlanner::Config config = MakeConfig(CapabilityMode::UNICAST, 100000, 0, 8);
    config.format = PayloadFormat::INT8;
    config.modelBytes = GetEncodedBytes(PayloadFormat::INT8, 20000);
    const WanConfigError error = PlanningError(topology, schedule, config);
    EXPECT_EQ(error.GetField(), "format");
    EXPECT_EQ(error.GetReason(),
              "a chunk of one int8 block (1028 bytes) + 68 header bytes exceeds the path MTU "
              "1000 of a->b");
}

TEST(ExchangePlanner, AnInt8RingCutsWholeBlocksPerMember)
{
    const WanTopology topology = Triangle();
    const CliqueSchedule schedule = CliqueSchedule::AllReduce(3);
    // Two blocks for three members: too few; three blocks: one a member.
    ExchangePlanner::Config config =
        MakeConfig(CapabilityMode::RING, GetEncodedBytes(PayloadFormat::INT8, 2048), 0, 8);
    config.format = PayloadFormat::INT8;
    WanConfigError error = PlanningError(topology, schedule, config);
    EXPECT_EQ(error.GetField(), "modelBytes");
    EXPECT_NE(error.GetReason().find("needs a chunk of at least one block"), std::string::npos)
        << error.GetReason();
    EXPECT_NE(error.GetReason().find("ring mode needs at least 3084 bytes"), std::string::npos)
        << error.GetReason();
    config.modelBytes = GetEncodedBytes(PayloadFormat::INT8, 3000);
    const ExchangePlan plan = ExchangePlanner(topology, schedule, config).GetPlan(0, 0);
    EXPECT_EQ(plan.chunkValues, 1024U);
    EXPECT_EQ(plan.chunkCount, 3U);
    EXPECT_EQ(plan.GetPayloadBytes(2), GetEncodedBytes(PayloadFormat::INT8, 3000 - 2048));
}

TEST(ExchangePlanner, ChunkBytesAndStreamRateOverrideThePlan)
{
    const WanTopology topology = Triangle();
    const CliqueSchedule schedule = CliqueSchedule::AllReduce(3);
    ExchangePlanner::Config config = MakeConfig(CapabilityMode::MULTICAST, 100000, 1000, 10);
    config.streamRateBps = 1e9;
    ExchangePlan plan = ExchangePlanner(topology, schedule, config).GetPlan(0, 1);
    EXPECT_EQ(plan.chunkBytes, 1000U);
    EXPECT_EQ(plan.chunkCount, 100U);
    EXPECT_EQ(plan.GetPayloadBytes(99), 1000U);
    EXPECT_DOUBLE_EQ(plan.groupRateBps, 1e9);
    for (const auto& [member, rate] : plan.sendRateBps)
    {
        EXPECT_DOUBLE_EQ(rate, 1e9) << member;
    }
}

TEST(ExchangePlanner, RingSegmentsAreFloorOfJTimesChunksOverMembers)
{
    const WanTopology topology = Triangle();
    const CliqueSchedule schedule = CliqueSchedule::AllReduce(3);
    const uint64_t modelBytes = 1000004; // no whole number of chunks
    ExchangePlanner planner(topology, schedule, MakeConfig(CapabilityMode::RING, modelBytes, 0, 8));
    for (uint32_t island = 0; island < 3; ++island)
    {
        ExchangePlan plan = planner.GetPlan(0, island);
        const uint32_t k = 3;
        const uint32_t chunks = plan.chunkCount;
        ASSERT_EQ(plan.ring.size(), k);
        EXPECT_EQ(plan.ring[plan.ringPosition], island);
        EXPECT_EQ(plan.successor, plan.ring[(plan.ringPosition + 1) % k]);
        EXPECT_EQ(plan.predecessor, plan.ring[(plan.ringPosition + k - 1) % k]);
        ASSERT_EQ(plan.segmentFirst.size(), k + 1);
        for (uint32_t j = 0; j <= k; ++j)
        {
            EXPECT_EQ(plan.segmentFirst[j], uint64_t{j} * chunks / k) << j;
        }
        for (uint32_t chunk = 0; chunk < chunks; chunk += 97)
        {
            const uint32_t segment = plan.GetSegmentOfChunk(chunk);
            EXPECT_LE(uint64_t{segment} * chunks / k, chunk);
            EXPECT_LT(chunk, uint64_t{segment + 1} * chunks / k);
        }
        // Only the successor is sent to, only the predecessor received from.
        EXPECT_EQ(plan.sendRateBps.size(), 1U);
        EXPECT_EQ(plan.sendRateBps.count(plan.successor), 1U);
        EXPECT_EQ(plan.recvRateBps.count(plan.predecessor), 1U);
    }
}

TEST(ExchangePlanner, RingOfFewChunksGetsSmallerChunks)
{
    const WanTopology topology = Triangle();
    const CliqueSchedule schedule = CliqueSchedule::AllReduce(3);
    const uint64_t modelBytes = 2000; // 2 chunks of 1432, but a ring of 3 needs 3 segments
    ExchangePlan plan =
        ExchangePlanner(topology, schedule, MakeConfig(CapabilityMode::RING, modelBytes, 0, 1))
            .GetPlan(0, 0);
    EXPECT_EQ(plan.chunkBytes, modelBytes / 3 / 4 * 4);
    EXPECT_EQ(plan.chunkCount, (modelBytes + plan.chunkBytes - 1) / plan.chunkBytes);
    EXPECT_GE(plan.chunkCount, 3U);
}

TEST(ExchangePlanner, ViewsLeaveMembersOutAndRenameTheRing)
{
    const WanTopology topology = Triangle();
    const CliqueSchedule schedule = CliqueSchedule::AllReduce(3);
    ExchangePlanner unicast(topology, schedule, MakeConfig(CapabilityMode::UNICAST, 100000, 0, 8));
    ExchangePlan base = unicast.GetPlan(0, 0);
    ExchangePlan view = unicast.MakeViewPlan(base, 0, 0x4 | 0x1);
    EXPECT_EQ(view.excluded, 0x4U); // never the island itself
    EXPECT_EQ(view.members, (std::vector<uint32_t>{0, 1}));
    EXPECT_EQ(view.sendRateBps.count(2), 0U);
    EXPECT_EQ(view.epoch, base.epoch);

    ExchangePlanner ring(topology, schedule, MakeConfig(CapabilityMode::RING, 100000, 0, 8));
    ExchangePlan ringView = ring.MakeViewPlan(ring.GetPlan(0, 0), 0, 0x2);
    EXPECT_EQ(ringView.epoch, 1U);
    EXPECT_EQ(ringView.ring.size(), 2U);
    EXPECT_EQ(ringView.successor, 2U);
    EXPECT_EQ(ringView.predecessor, 2U);
}

TEST(ExchangePlanner, IdleIslandsHaveEmptyPlans)
{
    const WanTopology topology = Triangle();
    const CliqueSchedule schedule(3, {{{0, 1}, {2}}});
    ExchangePlanner planner(topology, schedule, MakeConfig(CapabilityMode::UNICAST, 100000, 0, 8));
    ExchangePlan alone = planner.GetPlan(0, 2);
    EXPECT_EQ(alone.members.size(), 1U);
    EXPECT_EQ(alone.chunkCount, 0U);
    EXPECT_EQ(planner.GetPlans(0).size(), 1U);
}

TEST(ExchangePlanner, MoreThanTwoToTheThirtyTwoChunksAreRejected)
{
    const WanTopology topology = Triangle();
    const CliqueSchedule schedule = CliqueSchedule::AllReduce(3);
    WanConfigError error =
        PlanningError(topology, schedule, MakeConfig(CapabilityMode::BOTH, 1000000000000000, 0, 8));
    EXPECT_EQ(error.GetField(), "modelBytes");
    EXPECT_NE(error.GetReason().find("needs more than 2^32 chunks"), std::string::npos)
        << error.GetReason();
}

TEST(ExchangePlanner, RingsOfFewerChunksThanMembersAreRejected)
{
    const WanTopology topology = Triangle();
    const CliqueSchedule schedule = CliqueSchedule::AllReduce(3);
    WanConfigError error =
        PlanningError(topology, schedule, MakeConfig(CapabilityMode::RING, 2000, 1000, 100));
    EXPECT_EQ(error.GetField(), "chunkBytes");
    EXPECT_EQ(error.GetReason().rfind("1000 cuts", 0), 0U) << error.GetReason();
    EXPECT_NE(error.GetReason().find("into 2 chunks, fewer than the members of the ring of 3 "
                                     "members {a b c} of schedule round 0"),
              std::string::npos)
        << error.GetReason();

    error = PlanningError(topology, schedule, MakeConfig(CapabilityMode::RING, 8, 0, 1));
    EXPECT_EQ(error.GetField(), "modelBytes");
    EXPECT_EQ(error.GetReason().rfind("8 bytes are too few for the ring of 3 members", 0), 0U)
        << error.GetReason();
}

TEST(ExchangePlanner, BadChunkingIsRejectedWithItsField)
{
    const WanTopology topology = Triangle();
    const CliqueSchedule schedule = CliqueSchedule::AllReduce(3);
    const uint32_t tooLarge = MTU - OVERHEAD + 4;
    WanConfigError error =
        PlanningError(topology, schedule, MakeConfig(CapabilityMode::UNICAST, 100000, tooLarge, 8));
    EXPECT_EQ(error.GetField(), "chunkBytes");
    EXPECT_EQ(error.GetReason(),
              std::to_string(tooLarge) + " bytes + " + std::to_string(OVERHEAD) +
                  " header bytes exceed the path MTU 1500 of a->b");

    error = PlanningError(topology, schedule, MakeConfig(CapabilityMode::UNICAST, 100000, 1001, 8));
    EXPECT_EQ(error.GetField(), "chunkBytes");
    EXPECT_EQ(error.GetReason(),
              "must be a multiple of 4 in fp32, whole fp32 values of 4 bytes (got 1001)");

    error = PlanningError(topology, schedule, MakeConfig(CapabilityMode::UNICAST, 1000, 0, 251));
    EXPECT_EQ(error.GetField(), "parameterCount");
}

TEST(ExchangePlanner, GroupsGoToThePlansThatSendToAGroup)
{
    const WanTopology topology = Triangle();
    // Round 0: {a, b} and c alone; round 1: every city.
    const CliqueSchedule schedule(3, {{{0, 1}, {2}}, {{0, 1, 2}}});
    ExchangePlanner planner(topology,
                            schedule,
                            MakeConfig(CapabilityMode::MULTICAST, 100000, 0, 8));
    const Ipv4Address g0("239.1.0.1");
    const Ipv4Address g1("239.1.1.1");
    std::vector<ExchangePlan> plans = planner.GetPlans(0);
    ExchangePlanner::AssignGroups(plans, {g0, g1});
    EXPECT_EQ(plans[0].group, g0);
    EXPECT_EQ(plans[1].group, g1);
    // A city alone sends to no group: any address will do.
    std::vector<ExchangePlan> alone = planner.GetPlans(2);
    ExchangePlanner::AssignGroups(alone, {Ipv4Address(), g1});
    EXPECT_EQ(alone[0].group, Ipv4Address());
    EXPECT_EQ(alone[1].group, g1);

    try
    {
        ExchangePlanner::AssignGroups(plans, {g0});
        ADD_FAILURE() << "one group for two rounds was accepted";
    }
    catch (const WanConfigError& error)
    {
        EXPECT_EQ(error.GetField(), "groups");
        EXPECT_EQ(error.GetReason(),
                  "mode 'multicast' needs one multicast group per schedule round, got 1 for 2 "
                  "rounds");
    }
    try
    {
        ExchangePlanner::AssignGroups(plans, {g0, Ipv4Address("10.0.0.1")});
        ADD_FAILURE() << "a unicast address was accepted as a group";
    }
    catch (const WanConfigError& error)
    {
        EXPECT_EQ(error.GetField(), "groups");
        EXPECT_EQ(error.GetReason(),
                  "the group of schedule round 1, 10.0.0.1, is not a multicast address");
    }
    // Unicast plans take no group.
    ExchangePlanner unicast(topology, schedule, MakeConfig(CapabilityMode::UNICAST, 100000, 0, 8));
    std::vector<ExchangePlan> direct = unicast.GetPlans(0);
    ExchangePlanner::AssignGroups(direct, {});
    EXPECT_EQ(direct[0].group, Ipv4Address());
}
