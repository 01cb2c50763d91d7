/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "capability-set.h"

#include "wan-input-error.h"
#include "wan-topology.h"

#include <algorithm>
#include <sstream>

namespace ns3
{

CapabilitySet::CapabilitySet(bool multicast, bool aggregation, bool core)
    : m_multicast(multicast),
      m_aggregation(aggregation || core),
      m_core(core)
{
}

CapabilitySet
CapabilitySet::Parse(const std::string& text, const std::string& source, const std::string& field)
{
    const std::string valid = "multicast, aggregation and core, or none";
    if (text.empty())
    {
        throw WanInputError(source, field, "an empty capability set (give " + valid + ")");
    }
    bool multicast = false;
    bool aggregation = false;
    bool core = false;
    bool none = false;
    uint32_t tokens = 0;
    std::istringstream in(text);
    std::string token;
    while (std::getline(in, token, ','))
    {
        ++tokens;
        bool* flag = token == "multicast"     ? &multicast
                     : token == "aggregation" ? &aggregation
                     : token == "core"        ? &core
                     : token == "none"        ? &none
                                              : nullptr;
        if (!flag)
        {
            throw WanInputError(source,
                                field,
                                "unknown capability '" + token + "' in '" + text +
                                    "' (the tokens are " + valid + ")");
        }
        if (*flag)
        {
            throw WanInputError(source, field, "'" + token + "' given twice in '" + text + "'");
        }
        *flag = true;
    }
    if (text.back() == ',')
    {
        throw WanInputError(source, field, "an empty token at the end of '" + text + "'");
    }
    if (none && tokens > 1)
    {
        throw WanInputError(source,
                            field,
                            "'none' is the empty set and takes no other token (got '" + text +
                                "')");
    }
    return CapabilitySet(multicast, aggregation, core);
}

std::vector<CapabilitySet>
CapabilitySet::ParseList(const std::string& text,
                         const std::string& source,
                         const std::string& field)
{
    // Every item between separators, empty ones too (they are reported).
    std::vector<std::string> items;
    std::size_t end = std::string::npos;
    do
    {
        const std::size_t begin = end + 1; // 0 at first (npos + 1 wraps)
        end = text.find('/', begin);
        items.push_back(text.substr(begin, end == std::string::npos ? end : end - begin));
    } while (end != std::string::npos);
    std::vector<CapabilitySet> sets;
    for (std::size_t k = 0; k < items.size(); ++k)
    {
        const std::string which = "set " + std::to_string(k + 1) + " of " +
                                  std::to_string(items.size()) + " ('" + items[k] + "')";
        if (items[k].empty())
        {
            throw WanInputError(source, field, which + " is empty (separate sets by '/')");
        }
        try
        {
            sets.push_back(Parse(items[k], source, field));
        }
        catch (const WanInputError& error)
        {
            throw WanInputError(source, field, which + ": " + error.GetReason());
        }
        for (std::size_t j = 0; j < k; ++j)
        {
            if (sets[j] == sets[k])
            {
                throw WanInputError(source,
                                    field,
                                    which + " repeats set " + std::to_string(j + 1) + " ('" +
                                        items[j] + "'): both are " + sets[k].ToString());
            }
        }
    }
    return sets;
}

CapabilitySet
CapabilitySet::Of(const WanTopology& topology)
{
    return CapabilitySet(topology.HasMulticast(), topology.HasAggregation(), topology.HasCore());
}

bool
CapabilitySet::HasMulticast() const
{
    return m_multicast;
}

bool
CapabilitySet::HasAggregation() const
{
    return m_aggregation;
}

bool
CapabilitySet::HasCore() const
{
    return m_core;
}

bool
CapabilitySet::Allows(CapabilityMode mode) const
{
    return Contains(Needed(mode));
}

std::vector<CapabilityMode>
CapabilitySet::GetAlgorithms() const
{
    std::vector<CapabilityMode> algorithms;
    for (CapabilityMode mode : GetAllCapabilityModes())
    {
        if (Allows(mode))
        {
            algorithms.push_back(mode);
        }
    }
    return algorithms;
}

bool
CapabilitySet::Contains(const CapabilitySet& other) const
{
    return (m_multicast || !other.m_multicast) && (m_aggregation || !other.m_aggregation) &&
           (m_core || !other.m_core);
}

std::vector<CapabilitySet>
CapabilitySet::GetSmallerSets() const
{
    std::vector<CapabilitySet> smaller;
    for (uint32_t bits = 0; bits < 8; ++bits)
    {
        const CapabilitySet set(bits & 1, bits & 2, bits & 4);
        // (core adds aggregation, so some bit patterns name the same set)
        if (set != *this && Contains(set) && ((bits & 4) == 0 || (bits & 2) != 0))
        {
            smaller.push_back(set);
        }
    }
    return smaller;
}

CapabilitySet
CapabilitySet::Needed(CapabilityMode mode)
{
    switch (mode)
    {
    case CapabilityMode::MULTICAST:
        return CapabilitySet(true, false, false);
    case CapabilityMode::AGGREGATION:
        return CapabilitySet(false, true, false);
    case CapabilityMode::BOTH:
        return CapabilitySet(true, true, false);
    case CapabilityMode::TREE:
        return CapabilitySet(true, true, true);
    case CapabilityMode::UNICAST:
    case CapabilityMode::RING:
        break;
    }
    return CapabilitySet();
}

void
CapabilitySet::CheckSchedule(const CliqueSchedule& schedule,
                             const std::string& source,
                             const std::string& setName) const
{
    for (uint32_t r = 0; r < schedule.GetNRounds(); ++r)
    {
        for (uint32_t c = 0; c < schedule.GetRound(r).size(); ++c)
        {
            const std::optional<CapabilityMode> algorithm = schedule.GetAlgorithm(r, c);
            if (!algorithm || Allows(*algorithm) || schedule.GetRound(r)[c].size() < 2)
            {
                continue;
            }
            throw WanInputError(
                source,
                "$.rounds[" + std::to_string(r) + "][" + std::to_string(c) + "].algorithm",
                CapabilityModeToString(*algorithm) + " needs " + Needed(*algorithm).ToString() +
                    ", and " + setName + " are " + ToString());
        }
    }
}

std::string
CapabilitySet::ToString() const
{
    std::string text;
    for (const auto& [has, token] : {std::pair<bool, const char*>{m_multicast, "multicast"},
                                     {m_aggregation, "aggregation"},
                                     {m_core, "core"}})
    {
        if (has)
        {
            text += (text.empty() ? "" : ",") + std::string(token);
        }
    }
    return text.empty() ? "none" : text;
}

std::string
CapabilitySet::ToFileStem() const
{
    std::string stem = ToString();
    std::replace(stem.begin(), stem.end(), ',', '+');
    return stem;
}

bool
CapabilitySet::operator==(const CapabilitySet& other) const
{
    return m_multicast == other.m_multicast && m_aggregation == other.m_aggregation &&
           m_core == other.m_core;
}

bool
CapabilitySet::operator!=(const CapabilitySet& other) const
{
    return !(*this == other);
}

} // namespace ns3
