/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "exchange-planner.h"

#include "island-sync-header.h"
#include "sync-protocol.h"
#include "wan-config-error.h"
#include "wan-topology.h"
#include "wire-frames.h"

#include "ns3/abort.h"

#include <algorithm>
#include <bitset>
#include <limits>
#include <sstream>
#include <string>

namespace ns3
{

namespace
{

/** Bytes of the headers of a chunk inside the IP MTU: IPv4, UDP and IslandSyncHeader. */
constexpr uint32_t CHUNK_OVERHEAD_BYTES =
    SyncProtocol::IP_UDP_HEADER_BYTES + IslandSyncHeader::FIXED_SIZE;

/**
 * @param format a payload format
 * @return what a chunk holds whole: "whole fp32 values of 4 bytes", "whole bf16 values of 2
 *         bytes" or "whole int8 blocks of 1024 values and their 4-byte scale, 1028 bytes each"
 */
std::string
DescribeUnit(PayloadFormat format)
{
    const std::string name = PayloadFormatToString(format);
    if (format == PayloadFormat::INT8)
    {
        return "whole " + name + " blocks of " + std::to_string(INT8_BLOCK_VALUES) +
               " values and their " + std::to_string(INT8_SCALE_BYTES) + "-byte scale, " +
               std::to_string(GetEncodedBytes(format, INT8_BLOCK_VALUES)) + " bytes each";
    }
    return "whole " + name + " values of " + std::to_string(GetEncodedBytes(format, 1)) + " bytes";
}

} // namespace

ExchangePlanner::ExchangePlanner(const WanTopology& topology,
                                 const CliqueSchedule& schedule,
                                 const Config& config)
    : m_topology(topology),
      m_schedule(config.mode ? schedule.WithMode(*config.mode) : schedule),
      m_config(config),
      m_loadModel(topology),
      m_valueCount(GetValueCapacity(config.format, config.modelBytes))
{
    for (uint32_t r = 0; r < m_schedule.GetNRounds(); ++r)
    {
        m_algorithms.push_back(m_schedule.GetRoundAlgorithms(r));
    }
    const PayloadFormat format = config.format;
    const std::string name = PayloadFormatToString(format);
    const uint64_t quantumBytes = GetEncodedBytes(format, GetChunkQuantum(format));
    if (config.chunkBytes % quantumBytes != 0)
    {
        throw WanConfigError("chunkBytes",
                             "must be a multiple of " + std::to_string(quantumBytes) + " in " +
                                 name + ", " + DescribeUnit(format) + " (got " +
                                 std::to_string(config.chunkBytes) + ")");
    }
    if (GetEncodedBytes(format, m_valueCount) != config.modelBytes)
    {
        const uint64_t below = GetEncodedBytes(format, m_valueCount);
        const uint64_t above = GetEncodedBytes(format, m_valueCount + 1);
        throw WanConfigError("modelBytes",
                             std::to_string(config.modelBytes) + " bytes are no " + name +
                                 " contribution (" + DescribeUnit(format) +
                                 (format == PayloadFormat::INT8
                                      ? ", a last partial block its scale and a value"
                                      : "") +
                                 "): the nearest are " + std::to_string(below) + " and " +
                                 std::to_string(above) + " bytes");
    }
    if (config.parameterCount < 1 || config.parameterCount > m_valueCount)
    {
        throw WanConfigError("parameterCount",
                             std::to_string(config.parameterCount) + " values take " +
                                 std::to_string(GetEncodedBytes(format, config.parameterCount)) +
                                 " bytes in " + name +
                                 ", more than {modelBytes}=" + std::to_string(config.modelBytes));
    }
}

const std::vector<double>&
ExchangePlanner::GetRoundLoads(uint32_t scheduleRound) const
{
    auto it = m_roundLoads.find(scheduleRound);
    if (it == m_roundLoads.end())
    {
        it = m_roundLoads
                 .emplace(scheduleRound,
                          m_loadModel.GetRoundLoads(m_schedule.GetRound(scheduleRound),
                                                    m_algorithms[scheduleRound]))
                 .first;
    }
    return it->second;
}

double
ExchangePlanner::GetShare(const std::vector<double>& loads,
                          const std::vector<uint32_t>& links) const
{
    double best = std::numeric_limits<double>::infinity();
    for (uint32_t d : links)
    {
        NS_ABORT_MSG_IF(loads[d] <= 0,
                        "ExchangePlanner: no load counted on " << m_topology.GetDirectedLinkName(d)
                                                               << " for a stream that crosses it");
        best = std::min(best, m_topology.GetDirectedLinkCapacityGbps(d) * 1e9 / loads[d]);
    }
    return best;
}

std::string
ExchangePlanner::DescribeRing(uint32_t scheduleRound, const std::vector<uint32_t>& members) const
{
    std::string names;
    for (uint32_t member : members)
    {
        names += (names.empty() ? "" : " ") + m_topology.GetCity(member).id;
    }
    return "the ring of " + std::to_string(members.size()) + " members {" + names +
           "} of schedule round " + std::to_string(scheduleRound);
}

ExchangePlan
ExchangePlanner::GetPlan(uint32_t scheduleRound, uint32_t island) const
{
    ExchangePlan plan;
    plan.format = m_config.format;
    plan.modelBytes = m_config.modelBytes;
    plan.valueCount = m_valueCount;
    plan.parameterCount = m_config.parameterCount;
    plan.island = island;
    plan.clique = m_schedule.GetCliqueOf(scheduleRound, island);
    if (plan.clique != CliqueSchedule::IDLE)
    {
        plan.members = m_schedule.GetRound(scheduleRound)[plan.clique];
        plan.mode = m_algorithms[scheduleRound][plan.clique];
    }
    if (plan.members.size() < 2)
    {
        return plan;
    }
    const CapabilityMode mode = plan.mode;
    const bool ring = mode == CapabilityMode::RING;
    const uint64_t modelBytes = m_config.modelBytes;
    uint32_t pathMtu = std::numeric_limits<uint32_t>::max();
    for (uint32_t a : plan.members)
    {
        for (uint32_t b : plan.members)
        {
            if (a != b)
            {
                pathMtu = std::min(pathMtu, m_topology.GetPathMtuBytes(a, b));
            }
        }
    }
    const PayloadFormat format = m_config.format;
    const uint32_t quantum = GetChunkQuantum(format);
    uint32_t fit = IslandSyncHeader::GetMaxValues(pathMtu - CHUNK_OVERHEAD_BYTES, format);
    // Coarse frames: a chunk is as many whole wire frames as the simulation frame holds with
    // their headers (doc/wan-training.rst, "Coarse frames").
    const uint32_t frameBytes = m_topology.GetFrameBytes();
    const uint32_t capacity = WireFrames::GetCapacity(m_topology, format);
    uint32_t framesPerChunk = 1;
    if (capacity > 0)
    {
        framesPerChunk =
            (frameBytes + SyncProtocol::PPP_HEADER_BYTES) / (capacity + WireFrames::HEADER_BYTES);
        fit *= framesPerChunk;
    }
    const uint64_t fitBytes = GetEncodedBytes(format, fit);
    if (capacity > 0 && m_config.chunkBytes > fitBytes)
    {
        throw WanConfigError(
            "chunkBytes",
            std::to_string(m_config.chunkBytes) + " bytes exceed the " + std::to_string(fitBytes) +
                " model bytes of a simulation frame of " + std::to_string(frameBytes) + " bytes (" +
                std::to_string(framesPerChunk) + " frames of the MTU " + std::to_string(pathMtu) +
                " with their headers)");
    }
    if (m_config.chunkBytes > fitBytes || (m_config.chunkBytes == 0 && fit == 0))
    {
        // Name the first pair of members whose path is too small.
        const uint64_t wanted =
            m_config.chunkBytes > 0 ? m_config.chunkBytes : GetEncodedBytes(format, quantum);
        for (uint32_t a : plan.members)
        {
            for (uint32_t b : plan.members)
            {
                if (a != b && wanted + CHUNK_OVERHEAD_BYTES > m_topology.GetPathMtuBytes(a, b))
                {
                    const std::string path = std::to_string(m_topology.GetPathMtuBytes(a, b)) +
                                             " of " + m_topology.GetCity(a).id + "->" +
                                             m_topology.GetCity(b).id;
                    if (m_config.chunkBytes == 0)
                    {
                        throw WanConfigError("format",
                                             "a chunk of one " + PayloadFormatToString(format) +
                                                 " block (" + std::to_string(wanted) +
                                                 " bytes) + " +
                                                 std::to_string(CHUNK_OVERHEAD_BYTES) +
                                                 " header bytes exceeds the path MTU " + path);
                    }
                    throw WanConfigError("chunkBytes",
                                         std::to_string(m_config.chunkBytes) + " bytes + " +
                                             std::to_string(CHUNK_OVERHEAD_BYTES) +
                                             " header bytes exceed the path MTU " + path);
                }
            }
        }
    }
    uint64_t chunkValues =
        m_config.chunkBytes > 0 ? GetValueCapacity(format, m_config.chunkBytes) : fit;
    const uint32_t k = plan.members.size();
    const uint64_t values = m_valueCount;
    // The largest chunk that still gives each ring member's segment one: whole quanta.
    const uint64_t perMember = values / k / quantum * quantum;
    if (ring && m_config.chunkBytes == 0 && (values + chunkValues - 1) / chunkValues < k)
    {
        // Every member's segment needs at least one chunk: smaller chunks.
        chunkValues = perMember;
        if (chunkValues == 0)
        {
            const uint64_t least = GetEncodedBytes(format, uint64_t{quantum} * k);
            throw WanConfigError("modelBytes",
                                 std::to_string(modelBytes) + " bytes are too few for " +
                                     DescribeRing(scheduleRound, plan.members) +
                                     ": each member's segment needs a chunk of at least " +
                                     (quantum > 1 ? "one block" : "one value") + " (" +
                                     DescribeUnit(format) + "), so ring mode needs at least " +
                                     std::to_string(least) + " bytes");
        }
    }
    plan.format = format;
    plan.valueCount = values;
    plan.chunkValues = static_cast<uint32_t>(chunkValues);
    plan.chunkBytes = static_cast<uint32_t>(GetEncodedBytes(format, chunkValues));
    const uint64_t count = (values + chunkValues - 1) / chunkValues;
    if (count > std::numeric_limits<uint32_t>::max())
    {
        throw WanConfigError(
            "modelBytes",
            "a model of " + std::to_string(modelBytes) + " bytes needs more than 2^32 chunks of " +
                std::to_string(plan.chunkBytes) + " bytes (a chunk index has 32 bits; at most " +
                std::to_string(uint64_t{plan.chunkBytes} * std::numeric_limits<uint32_t>::max()) +
                " bytes)");
    }
    if (ring && count < k)
    {
        throw WanConfigError("chunkBytes",
                             std::to_string(m_config.chunkBytes) +
                                 " cuts {modelBytes}=" + std::to_string(modelBytes) + " into " +
                                 std::to_string(count) + " chunks, fewer than the members of " +
                                 DescribeRing(scheduleRound, plan.members) +
                                 " (each member's segment needs a chunk); use at most " +
                                 std::to_string(GetEncodedBytes(format, perMember)) +
                                 " bytes, or 0");
    }
    plan.chunkCount = static_cast<uint32_t>(count);
    plan.frameCapacity = capacity;

    // Bottleneck shares of the round's loads (the counts of this mode).
    const std::vector<double>& loads = GetRoundLoads(scheduleRound);
    auto unicastRate = [&](uint32_t src, uint32_t dst) {
        return GetShare(loads, m_topology.GetRoute(src, dst).links);
    };
    auto treeRate = [&](uint32_t src) {
        return GetShare(loads, m_loadModel.GetSourceTree(src, plan.members));
    };
    const double fixed = m_config.streamRateBps;
    if (ring)
    {
        SetRingPlan(plan, loads);
        return plan;
    }
    double common = std::numeric_limits<double>::infinity();
    if (mode == CapabilityMode::AGGREGATION)
    {
        for (uint32_t a : plan.members)
        {
            for (uint32_t b : plan.members)
            {
                if (a != b)
                {
                    common = std::min(common, unicastRate(a, b));
                }
            }
        }
    }
    else if (mode == CapabilityMode::BOTH)
    {
        for (uint32_t a : plan.members)
        {
            common = std::min(common, treeRate(a));
        }
    }
    else if (mode == CapabilityMode::TREE)
    {
        // One rate for the clique: the smallest share over its in-tree and its out-tree.
        plan.treeRoot = m_loadModel.GetTreeRoot(plan.members);
        for (uint32_t a : plan.members)
        {
            if (a != plan.treeRoot)
            {
                common = std::min(common, unicastRate(a, plan.treeRoot));
                common = std::min(common, unicastRate(plan.treeRoot, a));
            }
        }
    }
    for (uint32_t other : plan.members)
    {
        if (other == island)
        {
            continue;
        }
        double send = 0;
        double recv = 0;
        switch (mode)
        {
        case CapabilityMode::UNICAST:
            send = unicastRate(island, other);
            recv = unicastRate(other, island);
            break;
        case CapabilityMode::MULTICAST:
            send = treeRate(island);
            recv = treeRate(other);
            break;
        default:
            send = common;
            recv = common;
            break;
        }
        plan.sendRateBps[other] = fixed > 0 ? fixed : send;
        plan.recvRateBps[other] = fixed > 0 ? fixed : recv;
    }
    if (plan.SendsToGroup())
    {
        plan.groupRateBps = plan.sendRateBps.begin()->second;
    }
    return plan;
}

void
ExchangePlanner::SetRingPlan(ExchangePlan& plan, const std::vector<double>& loads) const
{
    const uint32_t k = plan.members.size();
    plan.ring = m_loadModel.GetRingOrder(plan.members);
    plan.ringPosition = static_cast<uint32_t>(
        std::distance(plan.ring.begin(),
                      std::find(plan.ring.begin(), plan.ring.end(), plan.island)));
    plan.successor = plan.ring[(plan.ringPosition + 1) % k];
    plan.predecessor = plan.ring[(plan.ringPosition + k - 1) % k];
    plan.segmentFirst.clear();
    for (uint32_t j = 0; j <= k; ++j)
    {
        plan.segmentFirst.push_back(static_cast<uint32_t>(uint64_t{j} * plan.chunkCount / k));
    }
    // A hop carries w = 2(k-1)/k streams, one step after the other: at w times the bottleneck
    // share, every hop crossing a link ends after 8 S n_l / capacity.
    const double w = 2.0 * (k - 1) / k;
    const double fixed = m_config.streamRateBps;
    plan.sendRateBps.clear();
    plan.recvRateBps.clear();
    plan.sendRateBps[plan.successor] =
        fixed > 0 ? fixed
                  : w * GetShare(loads, m_topology.GetRoute(plan.island, plan.successor).links);
    plan.recvRateBps[plan.predecessor] =
        fixed > 0 ? fixed
                  : w * GetShare(loads, m_topology.GetRoute(plan.predecessor, plan.island).links);
}

std::vector<ExchangePlan>
ExchangePlanner::GetPlans(uint32_t island) const
{
    std::vector<ExchangePlan> plans;
    for (uint32_t sr = 0; sr < m_schedule.GetNRounds(); ++sr)
    {
        plans.push_back(GetPlan(sr, island));
    }
    return plans;
}

void
ExchangePlanner::Validate() const
{
    for (uint32_t sr = 0; sr < m_schedule.GetNRounds(); ++sr)
    {
        for (const auto& clique : m_schedule.GetRound(sr))
        {
            for (uint32_t member : clique)
            {
                GetPlan(sr, member);
            }
        }
    }
}

ExchangePlan
ExchangePlanner::MakeViewPlan(const ExchangePlan& base,
                              uint32_t scheduleRound,
                              uint64_t excluded) const
{
    ExchangePlan plan = base;
    plan.excluded = excluded & base.GetMemberBits() & ~(uint64_t{1} << base.island);
    plan.members.clear();
    for (uint32_t member : base.members)
    {
        if (!(plan.excluded & (uint64_t{1} << member)))
        {
            plan.members.push_back(member);
        }
        else
        {
            plan.sendRateBps.erase(member);
            plan.recvRateBps.erase(member);
        }
    }
    if (plan.mode == CapabilityMode::TREE && (plan.excluded & (uint64_t{1} << base.treeRoot)))
    {
        // Without its root the clique has no tree: the members left exchange by unicast, in an
        // epoch of their own on the wire (no FPGA expects it, and nothing of the tree is taken
        // for it), at the rates unicast would have.
        plan.mode = CapabilityMode::UNICAST;
        plan.epoch = static_cast<uint16_t>(std::bitset<64>(plan.excluded).count());
        plan.group = Ipv4Address();
        plan.groupRateBps = 0;
        plan.sendRateBps.clear();
        plan.recvRateBps.clear();
        const std::vector<double> loads = GetViewLoads(plan, scheduleRound);
        for (uint32_t other : plan.members)
        {
            if (other != plan.island)
            {
                const double fixed = m_config.streamRateBps;
                plan.sendRateBps[other] =
                    fixed > 0 ? fixed
                              : GetShare(loads, m_topology.GetRoute(plan.island, other).links);
                plan.recvRateBps[other] =
                    fixed > 0 ? fixed
                              : GetShare(loads, m_topology.GetRoute(other, plan.island).links);
            }
        }
    }
    if (plan.mode == CapabilityMode::RING)
    {
        // A new ring over the remaining members, in an epoch of its own on the wire, so that
        // chunks of the old ring are not taken for the new one.
        plan.epoch = static_cast<uint16_t>(std::bitset<64>(plan.excluded).count());
        plan.ring.clear();
        plan.segmentFirst.clear();
        plan.sendRateBps.clear();
        plan.recvRateBps.clear();
        if (plan.members.size() >= 2)
        {
            SetRingPlan(plan, GetViewLoads(plan, scheduleRound));
        }
    }
    return plan;
}

std::vector<double>
ExchangePlanner::GetViewLoads(const ExchangePlan& plan, uint32_t scheduleRound) const
{
    // The other cliques keep their members and algorithms.
    CliqueSchedule::Round cliques = m_schedule.GetRound(scheduleRound);
    std::vector<CapabilityMode> algorithms = m_algorithms[scheduleRound];
    cliques[plan.clique] = plan.members;
    algorithms[plan.clique] = plan.mode;
    return m_loadModel.GetRoundLoads(cliques, algorithms);
}

void
ExchangePlanner::AssignGroups(std::vector<ExchangePlan>& plans,
                              const std::vector<Ipv4Address>& groups)
{
    for (uint32_t sr = 0; sr < plans.size(); ++sr)
    {
        ExchangePlan& plan = plans[sr];
        if (!plan.SendsToGroup())
        {
            continue;
        }
        if (groups.size() != plans.size())
        {
            throw WanConfigError("groups",
                                 "mode '" + CapabilityModeToString(plan.mode) +
                                     "' needs one multicast group per schedule round, got " +
                                     std::to_string(groups.size()) + " for " +
                                     std::to_string(plans.size()) + " rounds");
        }
        if (!groups[sr].IsMulticast())
        {
            std::ostringstream group;
            group << groups[sr];
            throw WanConfigError("groups",
                                 "the group of schedule round " + std::to_string(sr) + ", " +
                                     group.str() + ", is not a multicast address");
        }
        plan.group = groups[sr];
    }
}

} // namespace ns3
