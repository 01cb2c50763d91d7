/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "clique-schedule.h"

#include "wan-config-error.h"
#include "wan-topology.h"

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <numeric>
#include <sstream>

namespace ns3
{

namespace
{
const std::string SCHEDULE_SOURCE = "<schedule>";
} // namespace

CliqueSchedule::CliqueSchedule(uint32_t nIslands, std::vector<Round> rounds)
    : CliqueSchedule(nIslands, std::move(rounds), {})
{
}

CliqueSchedule::CliqueSchedule(uint32_t nIslands,
                               std::vector<Round> rounds,
                               std::vector<RoundAlgorithms> algorithms)
    : m_nIslands(nIslands),
      m_rounds(std::move(rounds)),
      m_algorithms(std::move(algorithms))
{
    if (m_algorithms.empty())
    {
        for (const Round& round : m_rounds)
        {
            m_algorithms.emplace_back(round.size());
        }
    }
    bool shaped = m_algorithms.size() == m_rounds.size();
    for (std::size_t r = 0; shaped && r < m_rounds.size(); ++r)
    {
        shaped = m_algorithms[r].size() == m_rounds[r].size();
    }
    if (!shaped)
    {
        throw WanInputError(SCHEDULE_SOURCE,
                            "$.rounds",
                            "the algorithms must name one entry per clique of every round");
    }
    Index();
}

void
CliqueSchedule::Index()
{
    if (m_nIslands == 0)
    {
        throw WanInputError(SCHEDULE_SOURCE, "$", "a schedule needs at least one island");
    }
    if (m_rounds.empty())
    {
        throw WanInputError(SCHEDULE_SOURCE, "$.rounds", "a schedule needs at least one round");
    }
    m_member.assign(m_rounds.size(), std::vector<uint32_t>(m_nIslands, IDLE));
    for (std::size_t r = 0; r < m_rounds.size(); ++r)
    {
        for (std::size_t c = 0; c < m_rounds[r].size(); ++c)
        {
            std::string path = "$.rounds[" + std::to_string(r) + "][" + std::to_string(c) + "]";
            if (m_rounds[r][c].empty())
            {
                throw WanInputError(SCHEDULE_SOURCE, path, "a clique must not be empty");
            }
            for (std::size_t m = 0; m < m_rounds[r][c].size(); ++m)
            {
                uint32_t island = m_rounds[r][c][m];
                std::string at = path + "[" + std::to_string(m) + "]";
                if (island >= m_nIslands)
                {
                    throw WanInputError(SCHEDULE_SOURCE,
                                        at,
                                        "island " + std::to_string(island) + " does not exist (" +
                                            std::to_string(m_nIslands) + " islands)");
                }
                if (m_member[r][island] != IDLE)
                {
                    throw WanInputError(
                        SCHEDULE_SOURCE,
                        at,
                        "island " + std::to_string(island) +
                            " appears twice in this round: a round must be a partition");
                }
                m_member[r][island] = c;
            }
        }
    }
}

CliqueSchedule
CliqueSchedule::LoadFile(const std::string& path, const WanTopology& topology)
{
    std::ifstream in(path);
    if (!in)
    {
        throw WanInputError(path, "$", "cannot open the file for reading");
    }
    std::stringstream text;
    text << in.rdbuf();
    return Parse(text.str(), path, topology);
}

CliqueSchedule
CliqueSchedule::Parse(const std::string& text,
                      const std::string& sourceName,
                      const WanTopology& topology)
{
    using Json = nlohmann::json;
    auto fail = [&sourceName](const std::string& path, const std::string& reason) {
        throw WanInputError(sourceName, path, reason);
    };
    Json doc;
    try
    {
        doc = Json::parse(text);
    }
    catch (const Json::exception& e)
    {
        fail("$", std::string("not valid JSON: ") + e.what());
    }
    if (!doc.is_object())
    {
        fail("$",
             std::string("must be an object with a 'rounds' array (got ") + doc.type_name() + ")");
    }
    for (auto it = doc.begin(); it != doc.end(); ++it)
    {
        if (it.key() != "rounds" && it.key() != "description" && it.key() != "name")
        {
            fail("$." + it.key(), "unknown field (known: description, name, rounds)");
        }
    }
    if (!doc.contains("rounds"))
    {
        fail("$", "missing required field 'rounds'");
    }
    const Json& rounds = doc["rounds"];
    if (!rounds.is_array())
    {
        fail("$.rounds",
             std::string("must be an array of rounds (got ") + rounds.type_name() + ")");
    }
    std::vector<Round> parsed;
    std::vector<RoundAlgorithms> algorithms;
    for (std::size_t r = 0; r < rounds.size(); ++r)
    {
        std::string rp = "$.rounds[" + std::to_string(r) + "]";
        if (!rounds[r].is_array())
        {
            fail(rp,
                 std::string("must be an array of cliques (got ") + rounds[r].type_name() + ")");
        }
        Round round;
        RoundAlgorithms roundAlgorithms;
        for (std::size_t c = 0; c < rounds[r].size(); ++c)
        {
            std::string cp = rp + "[" + std::to_string(c) + "]";
            const Json* list = &rounds[r][c];
            std::optional<CapabilityMode> algorithm;
            if (list->is_object())
            {
                // {"members": [...], "algorithm": "..."}
                const Json& object = *list;
                for (auto it = object.begin(); it != object.end(); ++it)
                {
                    if (it.key() != "members" && it.key() != "algorithm")
                    {
                        fail(cp + "." + it.key(), "unknown field (known: members, algorithm)");
                    }
                }
                if (!object.contains("members") || !object.contains("algorithm"))
                {
                    fail(cp, "a clique object needs 'members' and 'algorithm'");
                }
                if (!object["algorithm"].is_string())
                {
                    fail(cp + ".algorithm",
                         std::string("must be an algorithm name (got ") +
                             object["algorithm"].type_name() + ")");
                }
                try
                {
                    algorithm = CapabilityModeFromString(object["algorithm"].get<std::string>());
                }
                catch (const WanInputError& e)
                {
                    fail(cp + ".algorithm", e.GetReason());
                }
                list = &object["members"];
                cp += ".members";
            }
            const Json& clique = *list;
            if (!clique.is_array())
            {
                fail(cp,
                     std::string("must be an array of city ids or an object with members and "
                                 "algorithm (got ") +
                         clique.type_name() + ")");
            }
            Clique members;
            for (std::size_t m = 0; m < clique.size(); ++m)
            {
                std::string mp = cp + "[" + std::to_string(m) + "]";
                if (!clique[m].is_string())
                {
                    fail(mp, std::string("must be a city id (got ") + clique[m].type_name() + ")");
                }
                std::string id = clique[m].get<std::string>();
                if (!topology.HasCity(id))
                {
                    fail(mp,
                         "unknown city '" + id + "' (not in topology " + topology.GetSourceName() +
                             ")");
                }
                members.push_back(topology.GetCityIndex(id));
            }
            round.push_back(members);
            roundAlgorithms.push_back(algorithm);
        }
        parsed.push_back(round);
        algorithms.push_back(roundAlgorithms);
    }
    try
    {
        return CliqueSchedule(topology.GetNCities(), parsed, algorithms);
    }
    catch (const WanInputError& e)
    {
        // Same path and reason, named after the file.
        throw WanInputError(sourceName, e.GetPath(), e.GetReason());
    }
}

std::string
CliqueSchedule::ToJson(const WanTopology& topology) const
{
    nlohmann::json rounds = nlohmann::json::array();
    for (std::size_t r = 0; r < m_rounds.size(); ++r)
    {
        nlohmann::json cliques = nlohmann::json::array();
        for (std::size_t c = 0; c < m_rounds[r].size(); ++c)
        {
            nlohmann::json ids = nlohmann::json::array();
            for (uint32_t island : m_rounds[r][c])
            {
                ids.push_back(topology.GetCity(island).id);
            }
            const std::optional<CapabilityMode>& algorithm = m_algorithms[r][c];
            cliques.push_back(
                algorithm ? nlohmann::json{{"members", ids},
                                           {"algorithm", CapabilityModeToString(*algorithm)}}
                          : ids);
        }
        rounds.push_back(cliques);
    }
    nlohmann::json doc;
    doc["rounds"] = rounds;
    return doc.dump(1) + "\n";
}

void
CliqueSchedule::SaveFile(const std::string& path, const WanTopology& topology) const
{
    std::ofstream out(path);
    if (!out || !(out << ToJson(topology)))
    {
        throw WanInputError(path, "$", "cannot write the file");
    }
}

uint32_t
CliqueSchedule::GetNIslands() const
{
    return m_nIslands;
}

uint32_t
CliqueSchedule::GetNRounds() const
{
    return m_rounds.size();
}

const CliqueSchedule::Round&
CliqueSchedule::GetRound(uint32_t r) const
{
    return m_rounds.at(r);
}

const std::vector<CliqueSchedule::Round>&
CliqueSchedule::GetRounds() const
{
    return m_rounds;
}

std::optional<CapabilityMode>
CliqueSchedule::GetAlgorithm(uint32_t r, uint32_t c) const
{
    return m_algorithms.at(r).at(c);
}

bool
CliqueSchedule::HasAlgorithms() const
{
    for (const RoundAlgorithms& round : m_algorithms)
    {
        for (const std::optional<CapabilityMode>& algorithm : round)
        {
            if (algorithm)
            {
                return true;
            }
        }
    }
    return false;
}

std::vector<CapabilityMode>
CliqueSchedule::GetRoundAlgorithms(uint32_t r) const
{
    std::vector<CapabilityMode> algorithms;
    for (uint32_t c = 0; c < m_rounds.at(r).size(); ++c)
    {
        const std::optional<CapabilityMode>& algorithm = m_algorithms[r][c];
        if (!algorithm && m_rounds[r][c].size() >= 2)
        {
            throw WanConfigError(
                "mode",
                "schedule round " + std::to_string(r) + ", clique " + std::to_string(c) +
                    ", has no algorithm and no mode is forced: give the clique its algorithm, or "
                    "force one mode for every clique (--mode, the islands' "
                    "Mode attribute)");
        }
        algorithms.push_back(algorithm.value_or(CapabilityMode::UNICAST));
    }
    return algorithms;
}

std::optional<CapabilityMode>
CliqueSchedule::GetAlgorithmOf(uint32_t r,
                               uint32_t island,
                               std::optional<CapabilityMode> forced) const
{
    const uint32_t c = GetCliqueOf(r, island);
    if (c == IDLE || m_rounds[r][c].size() < 2)
    {
        return std::nullopt;
    }
    return forced ? forced : m_algorithms[r][c];
}

bool
CliqueSchedule::UsesAlgorithm(const std::function<bool(CapabilityMode)>& test) const
{
    for (std::size_t r = 0; r < m_rounds.size(); ++r)
    {
        for (std::size_t c = 0; c < m_rounds[r].size(); ++c)
        {
            if (m_rounds[r][c].size() >= 2 && m_algorithms[r][c] && test(*m_algorithms[r][c]))
            {
                return true;
            }
        }
    }
    return false;
}

CliqueSchedule
CliqueSchedule::WithMode(CapabilityMode mode) const
{
    std::vector<RoundAlgorithms> algorithms;
    for (const Round& round : m_rounds)
    {
        algorithms.emplace_back();
        for (const Clique& clique : round)
        {
            // A one-member clique idles: it needs no algorithm.
            algorithms.back().push_back(clique.size() >= 2 ? std::optional(mode) : std::nullopt);
        }
    }
    return CliqueSchedule(m_nIslands, m_rounds, algorithms);
}

CliqueSchedule
CliqueSchedule::Resolve(std::optional<CapabilityMode> mode, const std::string& source) const
{
    if (mode)
    {
        return WithMode(*mode);
    }
    for (std::size_t r = 0; r < m_rounds.size(); ++r)
    {
        for (std::size_t c = 0; c < m_rounds[r].size(); ++c)
        {
            if (!m_algorithms[r][c] && m_rounds[r][c].size() >= 2)
            {
                throw WanInputError(
                    source,
                    "$.rounds[" + std::to_string(r) + "][" + std::to_string(c) + "]",
                    std::string(HasAlgorithms() ? "a plain list among cliques with their "
                                                  "algorithms"
                                                : "a clique without an algorithm") +
                        ": give it {\"members\": [...], \"algorithm\": ...}, or "
                        "force one mode for every clique (--mode)");
            }
        }
    }
    return *this;
}

uint32_t
CliqueSchedule::GetCliqueOf(uint32_t r, uint32_t island) const
{
    return m_member.at(r).at(island);
}

bool
CliqueSchedule::Mixes() const
{
    // Union-find over the union of all rounds' clique graphs.
    std::vector<uint32_t> parent(m_nIslands);
    std::iota(parent.begin(), parent.end(), 0);
    auto find = [&parent](uint32_t x) {
        while (parent[x] != x)
        {
            parent[x] = parent[parent[x]];
            x = parent[x];
        }
        return x;
    };
    uint32_t components = m_nIslands;
    for (const auto& round : m_rounds)
    {
        for (const auto& clique : round)
        {
            for (std::size_t m = 1; m < clique.size(); ++m)
            {
                uint32_t a = find(clique[0]);
                uint32_t b = find(clique[m]);
                if (a != b)
                {
                    parent[a] = b;
                    --components;
                }
            }
        }
    }
    return components == 1;
}

CliqueSchedule
CliqueSchedule::AllReduce(uint32_t nIslands)
{
    Clique all(nIslands);
    std::iota(all.begin(), all.end(), 0);
    return CliqueSchedule(nIslands, {{all}});
}

CliqueSchedule
CliqueSchedule::RoundRobinPairs(uint32_t nIslands)
{
    if (nIslands < 2)
    {
        throw WanInputError(SCHEDULE_SOURCE, "pairs", "round-robin pairs need at least 2 islands");
    }
    // Circle method: with an odd count a phantom slot makes the count even; whoever meets the
    // phantom idles that round. Slot 0 stays fixed, the others rotate.
    const uint32_t slots = nIslands + nIslands % 2;
    std::vector<Round> rounds;
    for (uint32_t r = 0; r + 1 < slots; ++r)
    {
        std::vector<uint32_t> ring(slots);
        ring[0] = 0;
        for (uint32_t k = 1; k < slots; ++k)
        {
            ring[k] = 1 + (k - 1 + r) % (slots - 1);
        }
        Round round;
        for (uint32_t k = 0; k < slots / 2; ++k)
        {
            uint32_t a = ring[k];
            uint32_t b = ring[slots - 1 - k];
            if (a < nIslands && b < nIslands)
            {
                round.push_back({std::min(a, b), std::max(a, b)});
            }
        }
        rounds.push_back(round);
    }
    return CliqueSchedule(nIslands, rounds);
}

CliqueSchedule
CliqueSchedule::LatinTriples(uint32_t nIslands)
{
    if (nIslands != 9)
    {
        throw WanInputError(SCHEDULE_SOURCE,
                            "latin",
                            "Latin triples need exactly 9 islands (got " +
                                std::to_string(nIslands) + ")");
    }
    Round rows;
    Round columns;
    for (uint32_t k = 0; k < 3; ++k)
    {
        rows.push_back({3 * k, 3 * k + 1, 3 * k + 2});
        columns.push_back({k, k + 3, k + 6});
    }
    return CliqueSchedule(nIslands, {rows, columns});
}

CliqueSchedule
CliqueSchedule::Regional(const WanTopology& topology, uint32_t cliqueSize)
{
    if (cliqueSize == 0)
    {
        throw WanInputError(SCHEDULE_SOURCE, "regional", "the clique size must be at least 1");
    }
    const uint32_t n = topology.GetNCities();
    // Symmetrised route latency: a clique waits for its slowest direction.
    auto distance = [&topology](uint32_t a, uint32_t b) {
        return std::max(topology.GetRoute(a, b).latencyMs, topology.GetRoute(b, a).latencyMs);
    };
    std::vector<bool> taken(n, false);
    Round round;
    for (uint32_t seed = 0; seed < n; ++seed)
    {
        if (taken[seed])
        {
            continue;
        }
        Clique clique{seed};
        taken[seed] = true;
        while (clique.size() < cliqueSize)
        {
            // Add the free island whose farthest distance to the clique is smallest.
            uint32_t best = n;
            double bestCost = 0;
            for (uint32_t v = 0; v < n; ++v)
            {
                if (taken[v])
                {
                    continue;
                }
                double cost = 0;
                for (uint32_t m : clique)
                {
                    cost = std::max(cost, distance(m, v));
                }
                if (best == n || cost < bestCost)
                {
                    best = v;
                    bestCost = cost;
                }
            }
            if (best == n)
            {
                break;
            }
            clique.push_back(best);
            taken[best] = true;
        }
        round.push_back(clique);
    }
    return CliqueSchedule(n, {round});
}

} // namespace ns3
