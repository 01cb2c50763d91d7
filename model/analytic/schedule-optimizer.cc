/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "schedule-optimizer.h"

#include "wan-config-error.h"

#include "ns3/abort.h"
#include "ns3/log.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <optional>
#include <set>
#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("WanTrainingScheduleOptimizer");

namespace
{

/** The largest island count whose set partitions are enumerated. */
constexpr uint32_t MAX_ENUMERATED_ISLANDS = 10;
/** Cheapest partitions kept per clique-size profile when enumerating. */
constexpr uint32_t CHEAPEST_PER_PROFILE = 3;
/** Relative improvement that counts (below it two schedules tie). */
constexpr double IMPROVEMENT = 1e-12;

} // namespace

bool
ScheduleOptimizer::Better(const Scored& a, const Scored& b)
{
    if (a.xiS != b.xiS)
    {
        return a.xiS < b.xiS;
    }
    if (a.schedule.size() != b.schedule.size())
    {
        return a.schedule.size() < b.schedule.size();
    }
    return a.schedule < b.schedule;
}

ScheduleOptimizer::ScheduleOptimizer(const WanTopology& topology,
                                     const ScheduleMetrics::Settings& settings,
                                     std::vector<CapabilityMode> algorithms,
                                     std::optional<CapabilitySet> set,
                                     const Options& options)
    : m_topology(topology),
      m_metrics(topology, settings),
      m_algorithms(std::move(algorithms)),
      m_set(std::move(set)),
      m_options(options),
      m_n(topology.GetNCities()),
      m_costs(m_metrics, m_algorithms),
      m_neighbourhood(m_n, m_algorithms, m_costs, m_metrics.GetLinkLoadModel()),
      m_random(options.seed)
{
    if (m_n < 2 || m_n > 64)
    {
        throw WanInputError(topology.GetSourceName(),
                            "$.cities",
                            "the optimizer needs 2 to 64 islands (got " + std::to_string(m_n) +
                                ")");
    }
    if (options.maxPeriod < 1)
    {
        throw WanInputError("<optimizer>", "maxPeriod", "must be at least 1");
    }
    if (options.beamWidth < 1 || options.localSearchStarts < 1 || options.maxEvaluations < 1)
    {
        throw WanInputError("<optimizer>",
                            "options",
                            "beamWidth, localSearchStarts and maxEvaluations must be >= 1");
    }
}

ScheduleOptimizer::ScheduleOptimizer(const WanTopology& topology,
                                     const ScheduleMetrics::Settings& settings,
                                     CapabilityMode mode,
                                     const Options& options)
    : ScheduleOptimizer(topology, settings, {mode}, std::nullopt, options)
{
    NS_LOG_FUNCTION(this << topology.GetName() << CapabilityModeToString(mode));
    if (mode == CapabilityMode::TREE && topology.GetFpgaCities().size() < m_n)
    {
        // A member's own router is on its clique's in-tree: an island without an FPGA is in no
        // tree clique, idles in every round, and no schedule mixes.
        std::string missing;
        for (uint32_t i = 0; i < m_n; ++i)
        {
            if (!topology.HasFpga(i))
            {
                missing += (missing.empty() ? "'" : ", '") + topology.GetCity(i).id + "'";
            }
        }
        throw WanConfigError("fpga",
                             "no schedule of tree cliques mixes on topology '" +
                                 topology.GetName() + "': " + missing +
                                 " without an FPGA can join no tree clique (the in-tree of a "
                                 "clique crosses every member's own router)");
    }
}

ScheduleOptimizer::ScheduleOptimizer(const WanTopology& topology,
                                     const ScheduleMetrics::Settings& settings,
                                     const CapabilitySet& set,
                                     const Options& options)
    : ScheduleOptimizer(topology, settings, set.GetAlgorithms(), set, options)
{
    NS_LOG_FUNCTION(this << topology.GetName() << set.ToString());
}

double
ScheduleOptimizer::Score(const MaskSchedule& schedule)
{
    if (schedule.empty())
    {
        return std::numeric_limits<double>::infinity();
    }
    auto it = m_scores.find(schedule);
    if (it != m_scores.end())
    {
        return it->second;
    }
    std::vector<double> commTimes;
    for (const MaskRound& round : schedule)
    {
        commTimes.push_back(m_costs.GetCommS(round));
    }
    std::vector<CliqueSchedule::Round> rounds;
    for (const MaskRound& round : schedule)
    {
        rounds.push_back(ToRound(round));
    }
    double xi = m_metrics.GetScheduleXi(rounds, commTimes);
    ++m_evaluations;
    m_scores.emplace(schedule, xi);
    return xi;
}

ScheduleOptimizer::Mask
ScheduleOptimizer::AllIslands() const
{
    return m_n == 64 ? ~Mask{0} : (Mask{1} << m_n) - 1;
}

bool
ScheduleOptimizer::Exhausted() const
{
    return m_evaluations >= m_options.maxEvaluations;
}

MaskRound
ScheduleOptimizer::ToMaskRound(const CliqueSchedule::Round& groups,
                               const CliqueSchedule::RoundAlgorithms& algorithms) const
{
    MaskRound round;
    for (std::size_t c = 0; c < groups.size(); ++c)
    {
        MaskClique clique{0, m_algorithms.front()};
        for (uint32_t i : groups[c])
        {
            clique.members |= Mask{1} << i;
        }
        if (c < algorithms.size() && algorithms[c])
        {
            clique.algorithm = *algorithms[c];
        }
        round.push_back(clique);
    }
    RoundCostCache::Canonical(round);
    return round;
}

MaskSchedule
ScheduleOptimizer::ToMasks(const CliqueSchedule& schedule) const
{
    // A forced mode overrides the cliques' algorithms, as --mode does.
    const CliqueSchedule resolved = m_set ? schedule.Resolve({}, "<optimizer>") : schedule;
    MaskSchedule masks;
    for (uint32_t r = 0; r < resolved.GetNRounds(); ++r)
    {
        CliqueSchedule::RoundAlgorithms algorithms;
        for (uint32_t c = 0; m_set && c < resolved.GetRound(r).size(); ++c)
        {
            algorithms.push_back(resolved.GetAlgorithm(r, c));
        }
        masks.push_back(ToMaskRound(resolved.GetRound(r), algorithms));
    }
    return masks;
}

CliqueSchedule::Round
ScheduleOptimizer::ToRound(const MaskRound& round,
                           CliqueSchedule::RoundAlgorithms* algorithms) const
{
    std::vector<std::pair<CliqueSchedule::Clique, CapabilityMode>> cliques;
    for (const MaskClique& mask : round)
    {
        CliqueSchedule::Clique clique;
        for (uint32_t i = 0; i < m_n; ++i)
        {
            if (mask.members & (Mask{1} << i))
            {
                clique.push_back(i);
            }
        }
        cliques.emplace_back(clique, mask.algorithm);
    }
    std::sort(cliques.begin(), cliques.end());
    CliqueSchedule::Round members;
    for (const auto& [clique, algorithm] : cliques)
    {
        members.push_back(clique);
        if (algorithms)
        {
            algorithms->emplace_back(algorithm);
        }
    }
    return members;
}

CliqueSchedule
ScheduleOptimizer::ToSchedule(const MaskSchedule& schedule) const
{
    std::vector<CliqueSchedule::Round> rounds;
    std::vector<CliqueSchedule::RoundAlgorithms> algorithms(schedule.size());
    for (std::size_t r = 0; r < schedule.size(); ++r)
    {
        rounds.push_back(ToRound(schedule[r], &algorithms[r]));
    }
    return m_set ? CliqueSchedule(m_n, rounds, algorithms) : CliqueSchedule(m_n, rounds);
}

CliqueSchedule::Round
ScheduleOptimizer::ImproveBySwaps(CliqueSchedule::Round groups,
                                  const std::vector<uint32_t>& sameGroup)
{
    double best = m_costs.GetCommS(ToMaskRound(groups));
    bool improved = true;
    while (improved)
    {
        improved = false;
        for (uint32_t g = 0; g < groups.size(); ++g)
        {
            for (uint32_t h = g + 1; h < groups.size(); ++h)
            {
                for (uint32_t a = 0; a < groups[g].size(); ++a)
                {
                    for (uint32_t b = 0; b < groups[h].size(); ++b)
                    {
                        if (!sameGroup.empty() &&
                            sameGroup[groups[g][a]] != sameGroup[groups[h][b]])
                        {
                            continue;
                        }
                        std::swap(groups[g][a], groups[h][b]);
                        double cost = m_costs.GetCommS(ToMaskRound(groups));
                        if (cost < best * (1 - IMPROVEMENT))
                        {
                            best = cost;
                            improved = true;
                        }
                        else
                        {
                            std::swap(groups[g][a], groups[h][b]);
                        }
                    }
                }
            }
        }
    }
    return groups;
}

CliqueSchedule::Round
ScheduleOptimizer::Transversal(const CliqueSchedule::Round& groups)
{
    std::size_t largest = 0;
    for (const auto& g : groups)
    {
        largest = std::max(largest, g.size());
    }
    CliqueSchedule::Round transversal(largest);
    for (const auto& g : groups)
    {
        CliqueSchedule::Clique sorted(g);
        std::sort(sorted.begin(), sorted.end());
        for (std::size_t t = 0; t < sorted.size(); ++t)
        {
            transversal[t].push_back(sorted[t]);
        }
    }
    return transversal;
}

void
ScheduleOptimizer::BuildPool()
{
    std::vector<CliqueSchedule::Round> partitions;
    if (m_n <= MAX_ENUMERATED_ISLANDS)
    {
        // Every set partition by restricted growth strings; keep the cheapest per profile.
        std::map<std::vector<uint32_t>, std::vector<std::pair<double, MaskRound>>> cheapest;
        std::vector<uint32_t> label(m_n, 0);
        std::vector<uint32_t> prefixMax(m_n, 0);
        while (true)
        {
            uint32_t blocks = prefixMax[m_n - 1] + 1;
            if (blocks < m_n)
            {
                MaskRound round(blocks, MaskClique{0, m_algorithms.front()});
                std::vector<uint32_t> profile(blocks, 0);
                for (uint32_t i = 0; i < m_n; ++i)
                {
                    round[label[i]].members |= Mask{1} << i;
                    ++profile[label[i]];
                }
                std::sort(profile.rbegin(), profile.rend());
                RoundCostCache::Canonical(round);
                // T_comm without the cache: most partitions are looked at only here.
                auto& kept = cheapest[profile];
                kept.emplace_back(m_costs.ComputeCommS(round), round);
                std::sort(kept.begin(), kept.end());
                if (kept.size() > CHEAPEST_PER_PROFILE)
                {
                    kept.pop_back();
                }
            }
            // Next restricted growth string.
            int i = static_cast<int>(m_n) - 1;
            while (i > 0 && label[i] == prefixMax[i - 1] + 1)
            {
                --i;
            }
            if (i == 0)
            {
                break;
            }
            ++label[i];
            prefixMax[i] = std::max(prefixMax[i - 1], label[i]);
            for (uint32_t k = i + 1; k < m_n; ++k)
            {
                label[k] = 0;
                prefixMax[k] = prefixMax[k - 1];
            }
        }
        for (const auto& [profile, kept] : cheapest)
        {
            for (const auto& [cost, round] : kept)
            {
                partitions.push_back(ToRound(round));
            }
        }
    }
    else
    {
        // Near-equal cliques of each size: the latency-regional partition and a seeded random
        // one, each improved by swaps.
        for (uint32_t k = 2; k < m_n; ++k)
        {
            partitions.push_back(
                ImproveBySwaps(CliqueSchedule::Regional(m_topology, k).GetRound(0), {}));
            std::vector<uint32_t> order(m_n);
            std::iota(order.begin(), order.end(), 0);
            std::shuffle(order.begin(), order.end(), m_random);
            CliqueSchedule::Round random;
            for (uint32_t i = 0; i < m_n; ++i)
            {
                if (i % k == 0)
                {
                    random.emplace_back();
                }
                random.back().push_back(order[i]);
            }
            partitions.push_back(ImproveBySwaps(random, {}));
        }
    }
    std::set<MaskRound> pool;
    for (const CliqueSchedule::Round& groups : partitions)
    {
        // Complete the partition with its idle islands as groups of one.
        CliqueSchedule::Round full(groups);
        std::vector<bool> seen(m_n, false);
        std::vector<uint32_t> group(m_n, 0);
        for (uint32_t g = 0; g < full.size(); ++g)
        {
            for (uint32_t i : full[g])
            {
                seen[i] = true;
                group[i] = g;
            }
        }
        for (uint32_t i = 0; i < m_n; ++i)
        {
            if (!seen[i])
            {
                group[i] = full.size();
                full.push_back({i});
            }
        }
        pool.insert(ToMaskRound(full));
        MaskRound transversal = ToMaskRound(ImproveBySwaps(Transversal(full), group));
        if (!transversal.empty())
        {
            pool.insert(transversal);
        }
    }
    pool.insert(MaskRound{{AllIslands(), m_algorithms.front()}});
    m_pool.assign(pool.begin(), pool.end());
    NS_LOG_INFO("round pool of " << m_pool.size() << " rounds");
}

std::vector<ScheduleOptimizer::Scored>
ScheduleOptimizer::Seeds()
{
    std::vector<Scored> seeds;
    auto add = [&](const MaskSchedule& s) {
        if (s.size() <= m_options.maxPeriod)
        {
            seeds.push_back({s, Score(s)});
        }
    };
    add({MaskRound{{AllIslands(), m_algorithms.front()}}});
    for (const MaskRound& round : m_pool)
    {
        add({round, ToMaskRound(Transversal(ToRound(round)))});
    }
    if (m_n == 9)
    {
        MaskSchedule latin;
        CliqueSchedule triples = CliqueSchedule::LatinTriples(9);
        for (const auto& round : triples.GetRounds())
        {
            latin.push_back(ToMaskRound(round));
        }
        add(latin);
    }
    // Beam search over sequences of pool rounds.
    auto components = [this](const MaskSchedule& s) {
        std::vector<Mask> parts;
        for (const MaskRound& round : s)
        {
            for (const MaskClique& clique : round)
            {
                Mask merged = clique.members;
                std::vector<Mask> rest;
                for (Mask p : parts)
                {
                    if (p & merged)
                    {
                        merged |= p;
                    }
                    else
                    {
                        rest.push_back(p);
                    }
                }
                rest.push_back(merged);
                parts = rest;
            }
        }
        uint32_t covered = 0;
        for (Mask p : parts)
        {
            covered += CountIslands(p);
        }
        return static_cast<uint32_t>(parts.size()) + (m_n - covered);
    };
    std::vector<MaskSchedule> beam{{}};
    for (uint32_t depth = 1; depth <= m_options.maxPeriod && !Exhausted(); ++depth)
    {
        std::vector<Scored> mixing;
        std::vector<std::pair<std::pair<uint32_t, double>, MaskSchedule>> open;
        for (const MaskSchedule& prefix : beam)
        {
            for (const MaskRound& round : m_pool)
            {
                MaskSchedule s(prefix);
                s.push_back(round);
                uint32_t parts = components(s);
                if (parts == 1)
                {
                    mixing.push_back({s, Score(s)});
                }
                else
                {
                    double periodS = 0;
                    for (const MaskRound& r : s)
                    {
                        periodS += m_metrics.GetRoundTime(m_costs.GetCommS(r));
                    }
                    open.push_back({{parts, periodS}, s});
                }
            }
        }
        std::sort(mixing.begin(), mixing.end(), Better);
        std::sort(open.begin(), open.end());
        beam.clear();
        for (uint32_t i = 0; i < mixing.size() && i < m_options.beamWidth; ++i)
        {
            seeds.push_back(mixing[i]);
            beam.push_back(mixing[i].schedule);
        }
        for (uint32_t i = 0; i < open.size() && i < m_options.beamWidth; ++i)
        {
            beam.push_back(open[i].second);
        }
    }
    std::sort(seeds.begin(), seeds.end(), Better);
    return seeds;
}

ScheduleOptimizer::Scored
ScheduleOptimizer::LocalSearch(Scored current, bool polish)
{
    bool improved = true;
    while (improved && !Exhausted())
    {
        improved = false;
        std::vector<MaskSchedule> neighbours =
            m_neighbourhood.Get(current.schedule, polish, m_pool, m_options.maxPeriod);
        if (!polish)
        {
            std::shuffle(neighbours.begin(), neighbours.end(), m_random);
        }
        Scored best = current;
        for (const MaskSchedule& s : neighbours)
        {
            if (Exhausted())
            {
                break;
            }
            // Xi's lower bound (overlap or not) needs only the round times: skip the hopeless.
            std::vector<double> times;
            for (const MaskRound& round : s)
            {
                times.push_back(m_metrics.GetRoundTime(m_costs.GetCommS(round)));
            }
            if (ScheduleMetrics::GetXiLowerBound(m_n, times) >= best.xiS)
            {
                continue;
            }
            double xi = Score(s);
            if (xi < best.xiS * (1 - IMPROVEMENT))
            {
                best = {s, xi};
                improved = true;
                if (!polish)
                {
                    break;
                }
            }
        }
        current = best;
    }
    return current;
}

ScheduleOptimizer::Scored
ScheduleOptimizer::Search(const std::vector<Scored>& seeds)
{
    NS_ABORT_MSG_IF(seeds.empty() || std::isinf(seeds.front().xiS),
                    "ScheduleOptimizer: no mixing seed (the all-island clique always mixes)");
    // Local search from the best distinct seeds, sharing the budget left before the polish.
    std::vector<Scored> starts;
    for (const Scored& s : seeds)
    {
        bool known = std::any_of(starts.begin(), starts.end(), [&s](const Scored& x) {
            return x.schedule == s.schedule;
        });
        if (!known && starts.size() < m_options.localSearchStarts)
        {
            starts.push_back(s);
        }
    }
    const uint64_t total = m_options.maxEvaluations;
    Scored best = seeds.front();
    for (uint32_t k = 0; k < starts.size(); ++k)
    {
        uint64_t left = total > m_evaluations ? total - m_evaluations : 0;
        m_options.maxEvaluations = m_evaluations + left * 4 / 5 / (starts.size() - k);
        Scored reached = LocalSearch(starts[k], false);
        NS_LOG_INFO("start " << k << ": Xi " << starts[k].xiS << " -> " << reached.xiS);
        if (reached.xiS < best.xiS)
        {
            best = reached;
        }
    }
    m_options.maxEvaluations = total;
    best = LocalSearch(best, true);
    // A period that repeats a shorter one is the same process (same Xi): keep the shorter.
    for (uint32_t p = 1; p < best.schedule.size(); ++p)
    {
        bool repeats = best.schedule.size() % p == 0;
        for (uint32_t r = p; repeats && r < best.schedule.size(); ++r)
        {
            repeats = best.schedule[r] == best.schedule[r % p];
        }
        if (repeats)
        {
            best.schedule.resize(p);
            break;
        }
    }
    return best;
}

ScheduleOptimizer::Result
ScheduleOptimizer::Optimize()
{
    if (m_set)
    {
        Searches done;
        return SearchSet(done);
    }
    BuildPool();
    Scored best = Search(Seeds());
    Result result{ToSchedule(best.schedule), "search", {}, {}, 0};
    result.baselines = GetBaselines();
    for (const Candidate& baseline : result.baselines)
    {
        if (baseline.xiS < best.xiS * (1 - IMPROVEMENT))
        {
            best.xiS = baseline.xiS;
            result.schedule = baseline.schedule;
            result.origin = baseline.name;
        }
    }
    result.evaluation = m_metrics.Evaluate(result.schedule, m_algorithms.front());
    result.evaluations = m_evaluations;
    return result;
}

ScheduleOptimizer::Result
ScheduleOptimizer::SearchSet(Searches& done)
{
    const std::string name = m_set->ToString();
    auto known = done.sets.find(name);
    if (known != done.sets.end())
    {
        return known->second;
    }
    // The candidates: the optimum of every single mode the set allows and of every smaller
    // set, each searched once per call.
    std::vector<Result> candidates;
    for (CapabilityMode mode : m_algorithms)
    {
        if (done.modes.count(mode) == 0)
        {
            std::optional<ScheduleOptimizer> optimizer;
            try
            {
                optimizer.emplace(m_topology, m_metrics.GetSettings(), mode, m_options);
            }
            catch (const WanConfigError& error)
            {
                // Tree where a city has no FPGA: no schedule of tree cliques mixes there (the
                // mixed search still gives tree to the cliques that are tree cliques).
                NS_LOG_INFO(CapabilityModeToString(mode) << " left out: " << error.what());
            }
            std::optional<Result>& optimum = done.modes[mode];
            if (optimizer)
            {
                optimum = optimizer->Optimize();
                optimum->schedule = optimum->schedule.WithMode(mode);
                optimum->origin += ", " + CapabilityModeToString(mode);
                done.pools[mode] = optimizer->m_pool;
                done.evaluations += optimum->evaluations;
                NS_LOG_INFO(CapabilityModeToString(mode) << ": Xi " << optimum->evaluation.xiS);
            }
        }
        if (done.modes[mode])
        {
            candidates.push_back(*done.modes[mode]);
        }
    }
    for (const CapabilitySet& smaller : m_set->GetSmallerSets())
    {
        candidates.push_back(
            ScheduleOptimizer(m_topology, m_metrics.GetSettings(), smaller, m_options)
                .SearchSet(done));
    }
    // The mixed search: its pool the single modes' pools and the candidates' rounds, its seeds
    // the candidates (of period up to maxPeriod) and the all-island clique.
    std::set<MaskRound> pool;
    for (CapabilityMode mode : m_algorithms)
    {
        pool.insert(done.pools[mode].begin(), done.pools[mode].end());
    }
    const MaskSchedule all{{{AllIslands(), m_costs.GetBestAlgorithm(AllIslands())}}};
    std::vector<Scored> seeds{{all, Score(all)}};
    for (const Result& candidate : candidates)
    {
        const MaskSchedule masks = ToMasks(candidate.schedule);
        pool.insert(masks.begin(), masks.end());
        if (masks.size() <= m_options.maxPeriod)
        {
            seeds.push_back({masks, Score(masks)});
        }
    }
    m_pool.assign(pool.begin(), pool.end());
    std::sort(seeds.begin(), seeds.end(), Better);
    NS_LOG_INFO(name << ": mixed search from " << seeds.size() << " seeds, pool of "
                     << m_pool.size() << " rounds");
    Result result{ToSchedule(Search(seeds).schedule), "mixed search (" + name + ")", {}, {}, 0};
    result.evaluation = m_metrics.Evaluate(result.schedule);
    result.baselines = GetBaselines();
    // The candidates compete by the schedule model's own Xi: the search's schedule only
    // where it is strictly better than the best of them.
    const Result* best = &candidates.front();
    for (const Result& candidate : candidates)
    {
        best = candidate.evaluation.xiS < best->evaluation.xiS ? &candidate : best;
    }
    if (best->evaluation.xiS <= result.evaluation.xiS)
    {
        result.schedule = best->schedule;
        result.origin = best->origin;
        result.evaluation = best->evaluation;
    }
    done.evaluations += m_evaluations;
    result.evaluations = done.evaluations;
    NS_LOG_INFO(name << ": Xi " << result.evaluation.xiS << " (" << result.origin << ")");
    return done.sets.emplace(name, result).first->second;
}

ScheduleOptimizer::Result
ScheduleOptimizer::OptimizeSet(const WanTopology& topology,
                               const ScheduleMetrics::Settings& settings,
                               const CapabilitySet& set,
                               const Options& options)
{
    return ScheduleOptimizer(topology, settings, set, options).Optimize();
}

double
ScheduleOptimizer::GetXi(const CliqueSchedule& schedule)
{
    NS_ABORT_MSG_IF(schedule.GetNIslands() != m_n, "ScheduleOptimizer: wrong island count");
    const MaskSchedule masks = ToMasks(schedule);
    if (m_set)
    {
        m_set->CheckSchedule(schedule, "<optimizer>", "the optimizer's capabilities");
        for (uint32_t r = 0; r < masks.size(); ++r)
        {
            CliqueSchedule::RoundAlgorithms algorithms;
            const CliqueSchedule::Round round = ToRound(masks[r], &algorithms);
            std::vector<CapabilityMode> modes;
            for (const std::optional<CapabilityMode>& algorithm : algorithms)
            {
                modes.push_back(*algorithm);
            }
            m_metrics.GetLinkLoadModel().CheckFpgaPlacement(round,
                                                            modes,
                                                            "schedule round " + std::to_string(r));
        }
    }
    return Score(masks);
}

std::vector<ScheduleOptimizer::Candidate>
ScheduleOptimizer::GetBaselines()
{
    std::vector<std::pair<std::string, CliqueSchedule>> schedules{
        {"all-reduce", CliqueSchedule::AllReduce(m_n)},
        {"round-robin pairs", CliqueSchedule::RoundRobinPairs(m_n)}};
    if (m_n == 9)
    {
        schedules.emplace_back("Latin triples", CliqueSchedule::LatinTriples(m_n));
    }
    std::vector<Candidate> baselines;
    for (const auto& [name, schedule] : schedules)
    {
        if (!m_set)
        {
            baselines.push_back({name, schedule, GetXi(schedule)});
            continue;
        }
        // For a set, each baseline under every algorithm all its cliques can use.
        for (CapabilityMode algorithm : m_algorithms)
        {
            const MaskSchedule masks = ToMasks(schedule.WithMode(algorithm));
            bool runs = true;
            for (const MaskRound& round : masks)
            {
                for (const MaskClique& clique : round)
                {
                    runs = runs && m_costs.CanRun(clique);
                }
            }
            if (runs)
            {
                baselines.push_back({name + ", " + CapabilityModeToString(algorithm),
                                     schedule.WithMode(algorithm),
                                     Score(masks)});
            }
        }
    }
    return baselines;
}

std::string
ScheduleOptimizer::GetProfile(const CliqueSchedule& schedule)
{
    std::ostringstream out;
    for (uint32_t r = 0; r < schedule.GetNRounds(); ++r)
    {
        std::vector<uint32_t> sizes;
        uint32_t listed = 0;
        for (const auto& clique : schedule.GetRound(r))
        {
            sizes.push_back(clique.size());
            listed += clique.size();
        }
        sizes.insert(sizes.end(), schedule.GetNIslands() - listed, 1);
        std::sort(sizes.rbegin(), sizes.rend());
        out << (r ? " | " : "");
        for (std::size_t i = 0; i < sizes.size(); ++i)
        {
            out << (i ? "+" : "") << sizes[i];
        }
    }
    return out.str();
}

} // namespace ns3
