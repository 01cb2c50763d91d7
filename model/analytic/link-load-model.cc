/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "link-load-model.h"

#include "wan-config-error.h"

#include "ns3/abort.h"
#include "ns3/log.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("WanTrainingLinkLoadModel");

namespace
{

/** Relative tolerance under which two latencies (or latency sums) tie, as for routes. */
constexpr double LATENCY_TIE_TOLERANCE = 1e-9;

/**
 * @param a a latency
 * @param b a latency
 * @return whether a is smaller than b by more than the tie tolerance
 */
bool
StrictlyLess(double a, double b)
{
    if (std::isinf(a) || std::isinf(b))
    {
        return a < b;
    }
    return a < b - LATENCY_TIE_TOLERANCE * std::max({1.0, std::abs(a), std::abs(b)});
}

/**
 * @param a a latency
 * @param b a latency
 * @return whether a is at most b within the tie tolerance
 */
bool
AtMost(double a, double b)
{
    return !StrictlyLess(b, a);
}

/**
 * @param marks a flag per index
 * @return the indices whose flag is set, in increasing order
 */
std::vector<uint32_t>
Marked(const std::vector<bool>& marks)
{
    std::vector<uint32_t> indices;
    for (uint32_t i = 0; i < marks.size(); ++i)
    {
        if (marks[i])
        {
            indices.push_back(i);
        }
    }
    return indices;
}

} // namespace

LinkLoadModel::LinkLoadModel(const WanTopology& topology)
    : m_topology(topology),
      m_nCities(topology.GetNCities()),
      m_nDirected(topology.GetNDirectedLinks()),
      m_latencyMs(m_nCities, std::vector<double>(m_nCities, 0.0))
{
    NS_LOG_FUNCTION(this << topology.GetName());
    for (uint32_t i = 0; i < m_nCities; ++i)
    {
        for (uint32_t j = 0; j < m_nCities; ++j)
        {
            if (i != j)
            {
                m_latencyMs[i][j] = m_topology.GetRoute(i, j).latencyMs;
            }
        }
    }
}

const WanTopology&
LinkLoadModel::GetTopology() const
{
    return m_topology;
}

double
LinkLoadModel::GetRouteLatencyMs(uint32_t src, uint32_t dst) const
{
    NS_ABORT_MSG_IF(src >= m_nCities || dst >= m_nCities,
                    "LinkLoadModel: city index out of range (" << src << ", " << dst << ")");
    return m_latencyMs[src][dst];
}

std::vector<uint32_t>
LinkLoadModel::Members(const CliqueSchedule::Clique& clique) const
{
    std::vector<uint32_t> members(clique.begin(), clique.end());
    for (uint32_t m : members)
    {
        NS_ABORT_MSG_IF(m >= m_nCities,
                        "LinkLoadModel: island " << m << " out of range (" << m_nCities
                                                 << " islands)");
    }
    // City indices (the topology file's order) order every tie, as in the reference values.
    std::sort(members.begin(), members.end());
    for (std::size_t i = 1; i < members.size(); ++i)
    {
        NS_ABORT_MSG_IF(members[i] == members[i - 1],
                        "LinkLoadModel: island " << members[i] << " twice in a clique");
    }
    return members;
}

std::vector<uint32_t>
LinkLoadModel::GetSourceTree(uint32_t source, const CliqueSchedule::Clique& clique) const
{
    std::vector<uint32_t> members = Members(clique);
    NS_ABORT_MSG_IF(source >= m_nCities, "LinkLoadModel: source " << source << " out of range");
    std::vector<bool> in(m_nDirected, false);
    for (uint32_t j : members)
    {
        if (j == source)
        {
            continue;
        }
        for (uint32_t d : m_topology.GetRoute(source, j).links)
        {
            in[d] = true;
        }
    }
    return Marked(in);
}

uint32_t
LinkLoadModel::GetTreeRoot(const CliqueSchedule::Clique& clique) const
{
    std::vector<uint32_t> members = Members(clique);
    NS_ABORT_MSG_IF(members.empty(), "LinkLoadModel: the tree root of an empty clique");
    uint32_t best = members.front();
    double bestScore = std::numeric_limits<double>::infinity();
    for (uint32_t root : members)
    {
        double into = 0;
        double out = 0;
        for (uint32_t i : members)
        {
            into = std::max(into, m_latencyMs[i][root]);
            out = std::max(out, m_latencyMs[root][i]);
        }
        // Members are visited in increasing index: only a strictly better score replaces.
        if (StrictlyLess(into + out, bestScore))
        {
            best = root;
            bestScore = into + out;
        }
    }
    return best;
}

std::vector<uint32_t>
LinkLoadModel::GetRingOrder(const CliqueSchedule::Clique& clique) const
{
    std::vector<uint32_t> members = Members(clique);
    if (members.size() < 3)
    {
        return members;
    }
    if (members.size() <= MAX_EXACT_RING_SIZE)
    {
        return ExactRingOrder(members);
    }
    return HeuristicRingOrder(members);
}

std::vector<uint32_t>
LinkLoadModel::ExactRingOrder(const std::vector<uint32_t>& members) const
{
    const uint32_t k = members.size();
    const uint32_t full = (1U << k) - 1;
    const double inf = std::numeric_limits<double>::infinity();
    std::vector<double> latency(k * k);
    for (uint32_t a = 0; a < k; ++a)
    {
        for (uint32_t b = 0; b < k; ++b)
        {
            latency[a * k + b] = m_latencyMs[members[a]][members[b]];
        }
    }
    auto cost = [&](uint32_t a, uint32_t b) { return latency[a * k + b]; };

    // 1. The smallest bottleneck: bottleneck[mask * k + v] is the smallest largest hop of a path
    //    from member 0 through exactly `mask` ending at v (min-max dynamic programming).
    std::vector<double> bottleneck(static_cast<std::size_t>(full + 1) * k, inf);
    bottleneck[1 * k + 0] = 0;
    for (uint32_t mask = 1; mask <= full; mask += 2)
    {
        for (uint32_t v = 0; v < k; ++v)
        {
            double here = bottleneck[static_cast<std::size_t>(mask) * k + v];
            if (here == inf)
            {
                continue;
            }
            for (uint32_t u = 1; u < k; ++u)
            {
                if (mask & (1U << u))
                {
                    continue;
                }
                double& next = bottleneck[static_cast<std::size_t>(mask | (1U << u)) * k + u];
                next = std::min(next, std::max(here, cost(v, u)));
            }
        }
    }
    double bestBottleneck = inf;
    for (uint32_t v = 1; v < k; ++v)
    {
        bestBottleneck =
            std::min(bestBottleneck,
                     std::max(bottleneck[static_cast<std::size_t>(full) * k + v], cost(v, 0)));
    }
    bottleneck.clear();
    bottleneck.shrink_to_fit();
    std::vector<bool> within(k * k);
    for (uint32_t a = 0; a < k * k; ++a)
    {
        within[a] = AtMost(latency[a], bestBottleneck);
    }
    auto allowed = [&](uint32_t a, uint32_t b) { return within[a * k + b]; };

    // 2. Held-Karp backwards over hops within the bottleneck: rest[mask * k + v] is the smallest
    //    sum of a path from v through every member outside `mask` and back to member 0.
    std::vector<double> rest(static_cast<std::size_t>(full + 1) * k, inf);
    for (uint32_t v = 1; v < k; ++v)
    {
        if (allowed(v, 0))
        {
            rest[static_cast<std::size_t>(full) * k + v] = cost(v, 0);
        }
    }
    for (uint32_t mask = full; mask >= 1; --mask)
    {
        if (!(mask & 1U) || mask == full)
        {
            continue;
        }
        for (uint32_t v = 0; v < k; ++v)
        {
            if (!(mask & (1U << v)) || (v == 0 && mask != 1))
            {
                continue;
            }
            double best = inf;
            for (uint32_t u = 1; u < k; ++u)
            {
                if ((mask & (1U << u)) || !allowed(v, u))
                {
                    continue;
                }
                best =
                    std::min(best,
                             cost(v, u) + rest[static_cast<std::size_t>(mask | (1U << u)) * k + u]);
            }
            rest[static_cast<std::size_t>(mask) * k + v] = best;
        }
    }
    NS_ABORT_MSG_IF(rest[1 * k + 0] == inf, "LinkLoadModel: no ring found (routes missing?)");

    // 3. The lexicographically smallest optimal cycle (members are sorted by index): from member 0,
    //    always the first next member that still completes an optimal cycle.
    std::vector<uint32_t> order{members[0]};
    uint32_t mask = 1;
    uint32_t current = 0;
    double remaining = rest[1 * k + 0];
    while (mask != full)
    {
        uint32_t chosen = k;
        for (uint32_t u = 1; u < k && chosen == k; ++u)
        {
            if ((mask & (1U << u)) || !allowed(current, u))
            {
                continue;
            }
            double through =
                cost(current, u) + rest[static_cast<std::size_t>(mask | (1U << u)) * k + u];
            if (AtMost(through, remaining))
            {
                chosen = u;
            }
        }
        NS_ABORT_MSG_IF(chosen == k, "LinkLoadModel: ring reconstruction failed");
        remaining -= cost(current, chosen);
        mask |= 1U << chosen;
        current = chosen;
        order.push_back(members[chosen]);
    }
    return order;
}

std::vector<uint32_t>
LinkLoadModel::HeuristicRingOrder(const std::vector<uint32_t>& members) const
{
    const uint32_t k = members.size();
    auto cost = [&](uint32_t a, uint32_t b) { return m_latencyMs[members[a]][members[b]]; };
    // Nearest neighbour from member 0 (ties: smallest index).
    std::vector<uint32_t> tour{0};
    std::vector<bool> used(k, false);
    used[0] = true;
    for (uint32_t step = 1; step < k; ++step)
    {
        uint32_t from = tour.back();
        uint32_t best = k;
        for (uint32_t u = 1; u < k; ++u)
        {
            if (!used[u] && (best == k || StrictlyLess(cost(from, u), cost(from, best))))
            {
                best = u;
            }
        }
        used[best] = true;
        tour.push_back(best);
    }
    auto score = [&](const std::vector<uint32_t>& t) {
        double largest = 0;
        double sum = 0;
        for (uint32_t i = 0; i < k; ++i)
        {
            double c = cost(t[i], t[(i + 1) % k]);
            largest = std::max(largest, c);
            sum += c;
        }
        return std::make_pair(largest, sum);
    };
    auto better = [](const std::pair<double, double>& a, const std::pair<double, double>& b) {
        if (StrictlyLess(a.first, b.first))
        {
            return true;
        }
        return AtMost(a.first, b.first) && StrictlyLess(a.second, b.second);
    };
    // 2-opt on (largest hop, sum of hops): reverse segments while that improves.
    std::pair<double, double> current = score(tour);
    bool improved = true;
    while (improved)
    {
        improved = false;
        for (uint32_t i = 1; i + 1 < k; ++i)
        {
            for (uint32_t j = i + 1; j < k; ++j)
            {
                std::vector<uint32_t> candidate(tour);
                std::reverse(candidate.begin() + i, candidate.begin() + j + 1);
                std::pair<double, double> s = score(candidate);
                if (better(s, current))
                {
                    tour = candidate;
                    current = s;
                    improved = true;
                }
            }
        }
    }
    // Orientation: the lexicographically smaller of the cycle and its reverse, from member 0.
    std::vector<uint32_t> reversed{tour[0]};
    reversed.insert(reversed.end(), tour.rbegin(), tour.rend() - 1);
    if (better(score(reversed), current) || (!better(current, score(reversed)) && reversed < tour))
    {
        tour = reversed;
    }
    std::vector<uint32_t> order;
    for (uint32_t t : tour)
    {
        order.push_back(members[t]);
    }
    return order;
}

std::vector<uint32_t>
LinkLoadModel::GetTreeRouters(const CliqueSchedule::Clique& clique) const
{
    std::vector<uint32_t> members = Members(clique);
    if (members.size() < 2)
    {
        return {};
    }
    const uint32_t root = GetTreeRoot(members);
    std::vector<bool> on(m_nCities, false);
    for (uint32_t i : members)
    {
        if (i != root)
        {
            for (uint32_t city : m_topology.GetRoute(i, root).cities)
            {
                on[city] = true;
            }
        }
    }
    return Marked(on);
}

uint32_t
LinkLoadModel::FindRouterWithoutFpga(const CliqueSchedule::Clique& clique) const
{
    for (uint32_t city : GetTreeRouters(clique))
    {
        if (!m_topology.HasFpga(city))
        {
            return city;
        }
    }
    return NO_CITY;
}

void
LinkLoadModel::CheckFpgaPlacement(const CliqueSchedule::Round& round,
                                  CapabilityMode mode,
                                  const std::string& roundName) const
{
    CheckFpgaPlacement(round, std::vector<CapabilityMode>(round.size(), mode), roundName);
}

void
LinkLoadModel::CheckFpgaPlacement(const CliqueSchedule::Round& round,
                                  const std::vector<CapabilityMode>& algorithms,
                                  const std::string& roundName) const
{
    NS_ABORT_MSG_IF(algorithms.size() != round.size(),
                    "CheckFpgaPlacement: " << algorithms.size() << " algorithms for "
                                           << round.size() << " cliques");
    for (std::size_t c = 0; c < round.size(); ++c)
    {
        const CliqueSchedule::Clique& clique = round[c];
        const uint32_t city =
            algorithms[c] == CapabilityMode::TREE ? FindRouterWithoutFpga(clique) : NO_CITY;
        if (city == NO_CITY)
        {
            continue;
        }
        // Square brackets: a program's error edge reads {name} as a configuration field.
        auto ids = [this](const std::vector<uint32_t>& cities) {
            std::string text;
            for (uint32_t c : cities)
            {
                text += (text.empty() ? "" : " ") + m_topology.GetCity(c).id;
            }
            return text;
        };
        const std::string& id = m_topology.GetCity(city).id;
        throw WanConfigError("fpga",
                             roundName + ", clique [" + ids(Members(clique)) + "]: city '" + id +
                                 "' has no FPGA, but the clique's in-tree toward its root '" +
                                 m_topology.GetCity(GetTreeRoot(clique)).id +
                                 "' crosses its router (tree mode sums on every router of the "
                                 "in-tree: " +
                                 ids(GetTreeRouters(clique)) + ")");
    }
}

void
CheckFpgaPlacement(const WanTopology& topology, const CliqueSchedule& schedule)
{
    if (!schedule.UsesAlgorithm([](CapabilityMode m) { return m == CapabilityMode::TREE; }))
    {
        return;
    }
    LinkLoadModel model(topology);
    for (uint32_t r = 0; r < schedule.GetNRounds(); ++r)
    {
        model.CheckFpgaPlacement(schedule.GetRound(r),
                                 schedule.GetRoundAlgorithms(r),
                                 "schedule round " + std::to_string(r));
    }
}

double
LinkLoadModel::GetCliqueLatencyMs(const CliqueSchedule::Clique& clique, CapabilityMode mode) const
{
    std::vector<uint32_t> members = Members(clique);
    const uint32_t k = members.size();
    if (k < 2)
    {
        return 0;
    }
    switch (mode)
    {
    case CapabilityMode::RING: {
        std::vector<uint32_t> order = GetRingOrder(members);
        double largest = 0;
        for (uint32_t t = 0; t < k; ++t)
        {
            largest = std::max(largest, m_latencyMs[order[t]][order[(t + 1) % k]]);
        }
        return 2.0 * (k - 1) * largest;
    }
    case CapabilityMode::TREE: {
        uint32_t root = GetTreeRoot(members);
        double into = 0;
        double out = 0;
        for (uint32_t i : members)
        {
            into = std::max(into, m_latencyMs[i][root]);
            out = std::max(out, m_latencyMs[root][i]);
        }
        return into + out;
    }
    default: {
        double largest = 0;
        for (uint32_t i : members)
        {
            for (uint32_t j : members)
            {
                largest = std::max(largest, m_latencyMs[i][j]);
            }
        }
        return largest;
    }
    }
}

std::vector<double>
LinkLoadModel::GetCliqueLoads(const CliqueSchedule::Clique& clique, CapabilityMode mode) const
{
    std::vector<uint32_t> members = Members(clique);
    std::vector<double> loads(m_nDirected, 0.0);
    const uint32_t k = members.size();
    if (k < 2)
    {
        return loads;
    }
    switch (mode)
    {
    case CapabilityMode::UNICAST:
    case CapabilityMode::AGGREGATION:
        for (uint32_t i : members)
        {
            for (uint32_t j : members)
            {
                if (i != j)
                {
                    for (uint32_t d : m_topology.GetRoute(i, j).links)
                    {
                        loads[d] += 1;
                    }
                }
            }
        }
        break;
    case CapabilityMode::MULTICAST:
    case CapabilityMode::BOTH:
        for (uint32_t i : members)
        {
            for (uint32_t d : GetSourceTree(i, members))
            {
                loads[d] += 1;
            }
        }
        break;
    case CapabilityMode::RING: {
        std::vector<uint32_t> order = GetRingOrder(members);
        const double streams = 2.0 * (k - 1) / k;
        for (uint32_t t = 0; t < k; ++t)
        {
            for (uint32_t d : m_topology.GetRoute(order[t], order[(t + 1) % k]).links)
            {
                loads[d] += streams;
            }
        }
        break;
    }
    case CapabilityMode::TREE: {
        uint32_t root = GetTreeRoot(members);
        for (uint32_t i : members)
        {
            if (i == root)
            {
                continue;
            }
            for (uint32_t d : m_topology.GetRoute(i, root).links)
            {
                loads[d] = 1;
            }
            for (uint32_t d : m_topology.GetRoute(root, i).links)
            {
                loads[d] = 1;
            }
        }
        break;
    }
    }
    if (mode == CapabilityMode::AGGREGATION || mode == CapabilityMode::BOTH)
    {
        // The FPGA at each receiver's edge delivers one aggregate; without one, the receiver
        // keeps the k-1 copies counted above.
        for (uint32_t j : members)
        {
            if (m_topology.HasFpga(j))
            {
                loads[m_topology.GetAccessDownLink(j)] = 1;
            }
        }
    }
    return loads;
}

std::vector<double>
LinkLoadModel::GetRoundLoads(const CliqueSchedule::Round& round, CapabilityMode mode) const
{
    return GetRoundLoads(round, std::vector<CapabilityMode>(round.size(), mode));
}

std::vector<double>
LinkLoadModel::GetRoundLoads(const CliqueSchedule::Round& round,
                             const std::vector<CapabilityMode>& algorithms) const
{
    NS_ABORT_MSG_IF(algorithms.size() != round.size(),
                    "GetRoundLoads: " << algorithms.size() << " algorithms for " << round.size()
                                      << " cliques");
    std::vector<double> loads(m_nDirected, 0.0);
    for (std::size_t c = 0; c < round.size(); ++c)
    {
        std::vector<double> cliqueLoads = GetCliqueLoads(round[c], algorithms[c]);
        for (uint32_t d = 0; d < m_nDirected; ++d)
        {
            loads[d] += cliqueLoads[d];
        }
    }
    return loads;
}

} // namespace ns3
