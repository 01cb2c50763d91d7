/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "schedule-neighbourhood.h"

#include <algorithm>

namespace ns3
{

ScheduleNeighbourhood::ScheduleNeighbourhood(uint32_t nIslands,
                                             std::vector<CapabilityMode> algorithms,
                                             RoundCostCache& costs,
                                             const LinkLoadModel& links)
    : m_n(nIslands),
      m_algorithms(std::move(algorithms)),
      m_costs(costs),
      m_links(links)
{
}

std::vector<MaskSchedule>
ScheduleNeighbourhood::Get(const MaskSchedule& schedule,
                           bool polish,
                           const std::vector<MaskRound>& pool,
                           uint32_t maxPeriod)
{
    std::vector<MaskSchedule> out;
    const uint32_t p = schedule.size();
    auto with = [&](uint32_t r, MaskRound round) {
        m_costs.Fit(round);
        MaskSchedule s(schedule);
        s[r] = round;
        out.push_back(s);
    };
    for (uint32_t r = 0; r < p; ++r)
    {
        // The round's groups, idle islands as groups of one.
        MaskRound groups(schedule[r]);
        IslandMask covered = 0;
        for (const MaskClique& c : groups)
        {
            covered |= c.members;
        }
        for (uint32_t i = 0; i < m_n; ++i)
        {
            if (!(covered & (IslandMask{1} << i)))
            {
                groups.push_back({IslandMask{1} << i, m_algorithms.front()});
            }
        }
        const uint32_t g = groups.size();
        for (uint32_t a = 0; a < g; ++a)
        {
            const uint32_t size = CountIslands(groups[a].members);
            for (uint32_t i = 0; i < m_n; ++i)
            {
                IslandMask bit = IslandMask{1} << i;
                if (!(groups[a].members & bit))
                {
                    continue;
                }
                // Move island i out of group a, alone or into group b.
                if (size > 1)
                {
                    MaskRound round(groups);
                    round[a].members &= ~bit;
                    round.push_back({bit, m_algorithms.front()});
                    with(r, round);
                }
                for (uint32_t b = 0; b < g; ++b)
                {
                    const uint32_t other = CountIslands(groups[b].members);
                    if (b == a || (size == 1 && other == 1 && b < a))
                    {
                        continue;
                    }
                    MaskRound round(groups);
                    round[a].members &= ~bit;
                    round[b].members |= bit;
                    if (other == 1)
                    {
                        // A new clique takes the algorithm of the clique its island left.
                        round[b].algorithm = size > 1 ? groups[a].algorithm
                                                      : m_costs.GetBestAlgorithm(round[b].members);
                    }
                    with(r, round);
                    // Swap island i with every island j of group b (each pair once).
                    if (size == 1 && other == 1)
                    {
                        continue;
                    }
                    for (uint32_t j = 0; j < m_n && a < b; ++j)
                    {
                        IslandMask bitJ = IslandMask{1} << j;
                        if (groups[b].members & bitJ)
                        {
                            MaskRound swapped(groups);
                            swapped[a].members = (swapped[a].members & ~bit) | bitJ;
                            swapped[b].members = (swapped[b].members & ~bitJ) | bit;
                            with(r, swapped);
                        }
                    }
                }
            }
        }
        // Change one clique's algorithm (a forced mode has no other).
        for (uint32_t c = 0; c < schedule[r].size(); ++c)
        {
            for (CapabilityMode algorithm : m_algorithms)
            {
                const MaskClique changed{schedule[r][c].members, algorithm};
                if (algorithm != schedule[r][c].algorithm && m_costs.CanRun(changed))
                {
                    MaskRound round(schedule[r]);
                    round[c] = changed;
                    with(r, round);
                }
            }
        }
        if (polish)
        {
            continue;
        }
        // Merge two cliques (under either's algorithm); split one in two around its farthest
        // pair.
        for (uint32_t a = 0; a < schedule[r].size(); ++a)
        {
            for (uint32_t b = a + 1; b < schedule[r].size(); ++b)
            {
                std::vector<CapabilityMode> kept{schedule[r][a].algorithm};
                if (schedule[r][b].algorithm != kept.front())
                {
                    kept.push_back(schedule[r][b].algorithm);
                }
                for (CapabilityMode algorithm : kept)
                {
                    MaskRound round(schedule[r]);
                    round[a] = {round[a].members | round[b].members, algorithm};
                    round.erase(round.begin() + b);
                    with(r, round);
                }
            }
            const CliqueSchedule::Clique members =
                RoundCostCache::GetMembers(schedule[r][a].members);
            if (members.size() >= 3)
            {
                const LinkLoadModel& links = m_links;
                auto distance = [&links](uint32_t x, uint32_t y) {
                    return std::max(links.GetRouteLatencyMs(x, y), links.GetRouteLatencyMs(y, x));
                };
                uint32_t s = members[0];
                uint32_t t = members[1];
                for (uint32_t x : members)
                {
                    for (uint32_t y : members)
                    {
                        if (distance(x, y) > distance(s, t))
                        {
                            s = x;
                            t = y;
                        }
                    }
                }
                IslandMask first = 0;
                IslandMask second = 0;
                for (uint32_t x : members)
                {
                    (distance(x, s) <= distance(x, t) ? first : second) |= IslandMask{1} << x;
                }
                MaskRound round(schedule[r]);
                round[a].members = first;
                round.push_back({second, round[a].algorithm});
                with(r, round);
            }
        }
        // Replace or drop the round.
        for (const MaskRound& pooled : pool)
        {
            with(r, pooled);
        }
        if (p > 1)
        {
            MaskSchedule s(schedule);
            s.erase(s.begin() + r);
            out.push_back(s);
        }
    }
    if (!polish && p < maxPeriod)
    {
        for (uint32_t r = 0; r <= p; ++r)
        {
            for (const MaskRound& pooled : pool)
            {
                MaskSchedule s(schedule);
                s.insert(s.begin() + r, pooled);
                out.push_back(s);
            }
        }
    }
    return out;
}

} // namespace ns3
