/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "round-cost-cache.h"

#include "ns3/abort.h"

#include <algorithm>
#include <optional>

namespace ns3
{

bool
MaskClique::operator<(const MaskClique& other) const
{
    return members != other.members ? members < other.members : algorithm < other.algorithm;
}

bool
MaskClique::operator==(const MaskClique& other) const
{
    return members == other.members && algorithm == other.algorithm;
}

std::size_t
RoundCostCache::MaskCliqueHash::operator()(const MaskClique& clique) const
{
    return std::hash<IslandMask>()(clique.members * 8 + static_cast<IslandMask>(clique.algorithm));
}

RoundCostCache::RoundCostCache(const ScheduleMetrics& metrics,
                               std::vector<CapabilityMode> algorithms)
    : m_metrics(metrics),
      m_algorithms(std::move(algorithms))
{
    NS_ABORT_MSG_IF(m_algorithms.empty(), "RoundCostCache: no algorithm allowed");
    const WanTopology& topology = metrics.GetLinkLoadModel().GetTopology();
    for (uint32_t d = 0; d < topology.GetNDirectedLinks(); ++d)
    {
        m_capacityBps.push_back(topology.GetDirectedLinkCapacityGbps(d) * 1e9);
    }
    m_scratch.assign(m_capacityBps.size(), 0.0);
}

CliqueSchedule::Clique
RoundCostCache::GetMembers(IslandMask mask)
{
    CliqueSchedule::Clique members;
    for (uint32_t i = 0; i < 64; ++i)
    {
        if (mask & (IslandMask{1} << i))
        {
            members.push_back(i);
        }
    }
    return members;
}

void
RoundCostCache::Canonical(MaskRound& round)
{
    round.erase(std::remove_if(round.begin(),
                               round.end(),
                               [](const MaskClique& c) { return CountIslands(c.members) < 2; }),
                round.end());
    std::sort(round.begin(), round.end());
}

const RoundCostCache::CliqueCost&
RoundCostCache::GetCliqueCost(const MaskClique& clique)
{
    auto it = m_cliques.find(clique);
    if (it != m_cliques.end())
    {
        return it->second;
    }
    CliqueCost cost{0, {}, {}, true};
    if (CountIslands(clique.members) >= 2)
    {
        const CliqueSchedule::Clique members = GetMembers(clique.members);
        const LinkLoadModel& links = m_metrics.GetLinkLoadModel();
        if (clique.algorithm == CapabilityMode::RING)
        {
            cost.ring = m_metrics.GetRingHops(members);
        }
        else
        {
            cost.latencyS = links.GetCliqueLatencyMs(members, clique.algorithm) / 1000.0;
        }
        cost.runs = clique.algorithm != CapabilityMode::TREE ||
                    links.FindRouterWithoutFpga(members) == LinkLoadModel::NO_CITY;
        std::vector<double> loads = links.GetCliqueLoads(members, clique.algorithm);
        const double bits = 8.0 * m_metrics.GetSettings().modelBytes;
        for (uint32_t d = 0; d < loads.size(); ++d)
        {
            if (loads[d] > 0)
            {
                cost.links.emplace_back(d, bits * loads[d] / m_capacityBps[d]);
            }
        }
    }
    return m_cliques.emplace(clique, std::move(cost)).first->second;
}

bool
RoundCostCache::CanRun(const MaskClique& clique)
{
    return clique.algorithm != CapabilityMode::TREE || GetCliqueCost(clique).runs;
}

CapabilityMode
RoundCostCache::GetBestAlgorithm(IslandMask members)
{
    if (m_algorithms.size() == 1)
    {
        return m_algorithms.front();
    }
    auto it = m_best.find(members);
    if (it != m_best.end())
    {
        return it->second;
    }
    std::optional<std::pair<double, CapabilityMode>> best;
    for (CapabilityMode algorithm : m_algorithms)
    {
        const MaskClique clique{members, algorithm};
        if (CanRun(clique))
        {
            const double commS = ComputeCommS({clique});
            if (!best || commS < best->first)
            {
                best.emplace(commS, algorithm);
            }
        }
    }
    NS_ABORT_MSG_IF(!best, "RoundCostCache: a clique can run none of the allowed algorithms");
    return m_best.emplace(members, best->second).first->second;
}

void
RoundCostCache::Fit(MaskRound& round)
{
    for (MaskClique& clique : round)
    {
        if (CountIslands(clique.members) >= 2 && !CanRun(clique))
        {
            clique.algorithm = GetBestAlgorithm(clique.members);
        }
    }
    Canonical(round);
}

double
RoundCostCache::GetCommS(const MaskRound& round)
{
    auto it = m_rounds.find(round);
    if (it != m_rounds.end())
    {
        return it->second;
    }
    double commS = ComputeCommS(round);
    m_rounds.emplace(round, commS);
    return commS;
}

double
RoundCostCache::ComputeCommS(const MaskRound& round)
{
    // The round's per-link seconds, every clique's streams by its own algorithm.
    std::vector<uint32_t> touched;
    for (const MaskClique& clique : round)
    {
        for (const auto& [d, seconds] : GetCliqueCost(clique).links)
        {
            if (m_scratch[d] == 0)
            {
                touched.push_back(d);
            }
            m_scratch[d] += seconds;
        }
    }
    // A: the largest Lat(C) of the non-ring cliques plus the busiest link their streams use;
    // then the largest T_ring, every ring under the round's per-link seconds.
    bool star = false;
    double latencyS = 0;
    double bottleneckS = 0;
    for (const MaskClique& clique : round)
    {
        if (clique.algorithm != CapabilityMode::RING && CountIslands(clique.members) >= 2)
        {
            const CliqueCost& cost = GetCliqueCost(clique);
            star = true;
            latencyS = std::max(latencyS, cost.latencyS);
            for (const auto& link : cost.links)
            {
                bottleneckS = std::max(bottleneckS, m_scratch[link.first]);
            }
        }
    }
    double commS = star ? latencyS + bottleneckS : 0.0;
    for (const MaskClique& clique : round)
    {
        if (clique.algorithm == CapabilityMode::RING)
        {
            commS =
                std::max(commS,
                         ScheduleMetrics::GetRingTime(GetCliqueCost(clique).ring, m_scratch).timeS);
        }
    }
    for (uint32_t d : touched)
    {
        m_scratch[d] = 0;
    }
    return commS;
}

} // namespace ns3
