/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "fault-plan.h"

#include "config-value-parser.h"
#include "wan-config-error.h"

#include "ns3/log.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("WanTrainingFaultPlan");

namespace
{

// The fields of a plan, named as members of TrainingRun::Config in a WanConfigError.
constexpr const char* LINK_OUTAGES = "faults.linkOutages";     //!< FaultPlan::linkOutages
constexpr const char* CRASHES = "faults.crashes";              //!< FaultPlan::crashes
constexpr const char* STRAGGLERS = "faults.stragglers";        //!< FaultPlan::stragglers
constexpr const char* DUPLICATE_RATE = "faults.duplicateRate"; //!< FaultPlan::duplicateRate
constexpr const char* REORDER_RATE = "faults.reorderRate";     //!< FaultPlan::reorderRate
constexpr const char* REORDER_DELAY = "faults.reorderDelay";   //!< FaultPlan::reorderDelay
constexpr const char* TIME_LIMIT = "faults.timeLimit";         //!< FaultPlan::timeLimit

/**
 * @param field the field of the list, for the message
 * @param text a comma-separated list
 * @return its entries (an empty text gives none)
 * @throws WanConfigError on an empty entry
 */
std::vector<std::string>
SplitList(const std::string& field, const std::string& text)
{
    std::vector<std::string> entries;
    if (text.empty())
    {
        return entries;
    }
    std::size_t start = 0;
    while (true)
    {
        std::size_t comma = text.find(',', start);
        entries.push_back(text.substr(start, comma - start));
        if (entries.back().empty())
        {
            throw WanConfigError(field,
                                 "'" + text +
                                     "' has an empty entry (entries are separated by "
                                     "single commas)");
        }
        if (comma == std::string::npos)
        {
            return entries;
        }
        start = comma + 1;
    }
}

/**
 * @param topology a WAN
 * @return its city ids, comma separated (for messages)
 */
std::string
CityList(const WanTopology& topology)
{
    std::string ids;
    for (uint32_t i = 0; i < topology.GetNCities(); ++i)
    {
        ids += (i ? ", " : "") + topology.GetCity(i).id;
    }
    return ids;
}

/**
 * @param seconds a time
 * @return it as text in seconds, as a message quotes it
 */
std::string
SecondsText(Time seconds)
{
    std::ostringstream text;
    text << seconds.GetSeconds() << " s";
    return text.str();
}

/**
 * @param topology a WAN
 * @param link a WAN link index
 * @return "A-B"
 */
std::string
LinkName(const WanTopology& topology, uint32_t link)
{
    const WanLink& l = topology.GetLink(link);
    return topology.GetCity(l.a).id + "-" + topology.GetCity(l.b).id;
}

/**
 * @brief The city of an entry.
 * @param field the field of the entry
 * @param entry the whole entry (quoted in messages)
 * @param topology the WAN
 * @param id the city id given
 * @return its index
 * @throws WanConfigError when there is no such city
 */
uint32_t
ParseCity(const std::string& field,
          const std::string& entry,
          const WanTopology& topology,
          const std::string& id)
{
    if (!topology.HasCity(id))
    {
        throw WanConfigError(field,
                             "'" + entry + "': unknown city '" + id +
                                 "' (cities: " + CityList(topology) + ")");
    }
    return topology.GetCityIndex(id);
}

/**
 * @brief A time of a link outage entry: a number of seconds, or a number with a unit.
 * @param entry the whole entry (quoted in messages)
 * @param what "down" or "up", for the message
 * @param text the time given
 * @return the time
 * @throws WanConfigError when it is not a non-negative duration up to one day
 */
Time
ParseTime(const std::string& entry, const std::string& what, const std::string& text)
{
    try
    {
        return ConfigValueParser::ParseDuration(LINK_OUTAGES, text, true);
    }
    catch (const WanConfigError&)
    {
        throw WanConfigError(LINK_OUTAGES,
                             "'" + entry + "': the " + what +
                                 " time must be a non-negative duration up to one day, in seconds "
                                 "or with a unit, e.g. 2, 2.5s, 500ms (got '" +
                                 text + "')");
    }
}

} // namespace

FaultPlan
FaultPlan::Parse(const WanTopology& topology, uint32_t rounds, const Texts& texts)
{
    FaultPlan plan;
    for (const std::string& entry : SplitList(LINK_OUTAGES, texts.linkOutages))
    {
        const std::string syntax = "expected A-B@SECONDS[:UPSECONDS] with city ids A and B";
        std::size_t at = entry.find('@');
        if (at == std::string::npos || at == 0)
        {
            throw WanConfigError(LINK_OUTAGES, "'" + entry + "': " + syntax);
        }
        const std::string ends = entry.substr(0, at);
        const std::string times = entry.substr(at + 1);
        // The ends: the first dash that splits them into two city ids (ids may hold dashes).
        std::size_t dash = ends.find('-');
        while (dash != std::string::npos &&
               !(topology.HasCity(ends.substr(0, dash)) && topology.HasCity(ends.substr(dash + 1))))
        {
            dash = ends.find('-', dash + 1);
        }
        if (dash == std::string::npos)
        {
            std::size_t first = ends.find('-');
            if (first == std::string::npos || first == 0 || first + 1 == ends.size())
            {
                throw WanConfigError(LINK_OUTAGES, "'" + entry + "': " + syntax);
            }
            ParseCity(LINK_OUTAGES, entry, topology, ends.substr(0, first));
            ParseCity(LINK_OUTAGES, entry, topology, ends.substr(first + 1));
        }
        const uint32_t a = ParseCity(LINK_OUTAGES, entry, topology, ends.substr(0, dash));
        const uint32_t b = ParseCity(LINK_OUTAGES, entry, topology, ends.substr(dash + 1));
        LinkOutage outage;
        bool found = false;
        for (uint32_t l = 0; l < topology.GetNLinks() && !found; ++l)
        {
            const WanLink& link = topology.GetLink(l);
            if ((link.a == a && link.b == b) || (link.a == b && link.b == a))
            {
                outage.link = l;
                found = true;
            }
        }
        if (!found)
        {
            throw WanConfigError(LINK_OUTAGES,
                                 "'" + entry + "': topology '" + topology.GetName() +
                                     "' has no link between " + topology.GetCity(a).id + " and " +
                                     topology.GetCity(b).id);
        }
        std::size_t colon = times.find(':');
        outage.down = ParseTime(entry, "down", times.substr(0, colon));
        if (colon != std::string::npos)
        {
            outage.restored = true;
            outage.up = ParseTime(entry, "up", times.substr(colon + 1));
        }
        plan.linkOutages.push_back(outage);
    }

    for (const std::string& entry : SplitList(CRASHES, texts.crashes))
    {
        std::size_t at = entry.find('@');
        if (at == std::string::npos || at == 0)
        {
            throw WanConfigError(CRASHES, "'" + entry + "': expected CITY@ROUND with a city id");
        }
        Crash crash;
        crash.island = ParseCity(CRASHES, entry, topology, entry.substr(0, at));
        const std::string round = entry.substr(at + 1);
        if (round.empty() || round.size() > 9 ||
            round.find_first_not_of("0123456789") != std::string::npos)
        {
            throw WanConfigError(CRASHES,
                                 "'" + entry + "': the round must be a whole number (got '" +
                                     round + "')");
        }
        crash.round = static_cast<uint32_t>(std::stoul(round));
        plan.crashes.push_back(crash);
    }

    for (const std::string& entry : SplitList(STRAGGLERS, texts.stragglers))
    {
        std::size_t colon = entry.rfind(':');
        if (colon == std::string::npos || colon == 0)
        {
            throw WanConfigError(STRAGGLERS,
                                 "'" + entry + "': expected CITY:FACTOR with a city id");
        }
        Straggler straggler;
        straggler.island = ParseCity(STRAGGLERS, entry, topology, entry.substr(0, colon));
        const std::string factor = entry.substr(colon + 1);
        char* end = nullptr;
        double value = factor.empty() ? 0 : std::strtod(factor.c_str(), &end);
        if (factor.empty() || end != factor.c_str() + factor.size() || !std::isfinite(value) ||
            value < 1 || value > MAX_STRAGGLER_FACTOR)
        {
            std::ostringstream reason;
            reason << "'" << entry << "': the factor must be a number in [1, "
                   << MAX_STRAGGLER_FACTOR << "] (got '" << factor << "')";
            throw WanConfigError(STRAGGLERS, reason.str());
        }
        straggler.factor = value;
        plan.stragglers.push_back(straggler);
    }

    plan.duplicateRate = ConfigValueParser::ParseNumberInRange(DUPLICATE_RATE,
                                                               texts.duplicateRate,
                                                               0,
                                                               MAX_RATE,
                                                               false);
    plan.reorderRate =
        ConfigValueParser::ParseNumberInRange(REORDER_RATE, texts.reorderRate, 0, MAX_RATE, false);
    plan.reorderDelay = ConfigValueParser::ParseDuration(REORDER_DELAY, texts.reorderDelay, false);
    plan.timeLimit = ConfigValueParser::ParseDuration(TIME_LIMIT, texts.timeLimit, true);
    plan.Validate(topology, rounds);
    return plan;
}

void
FaultPlan::Validate(const WanTopology& topology, uint32_t rounds) const
{
    const uint32_t n = topology.GetNCities();
    for (std::size_t k = 0; k < linkOutages.size(); ++k)
    {
        const LinkOutage& outage = linkOutages[k];
        if (outage.link >= topology.GetNLinks())
        {
            throw WanConfigError(LINK_OUTAGES,
                                 "link index " + std::to_string(outage.link) +
                                     " is not a link of '" + topology.GetName() + "' (it has " +
                                     std::to_string(topology.GetNLinks()) + ")");
        }
        const std::string name = LinkName(topology, outage.link);
        if (outage.down.IsStrictlyNegative() || (outage.restored && outage.up <= outage.down))
        {
            throw WanConfigError(LINK_OUTAGES,
                                 name + " down at " + SecondsText(outage.down) +
                                     (outage.restored ? ", up at " + SecondsText(outage.up) : "") +
                                     ": the down time must be >= 0 and the link must come back "
                                     "up after it goes down");
        }
        for (std::size_t j = 0; j < k; ++j)
        {
            const LinkOutage& other = linkOutages[j];
            if (other.link != outage.link)
            {
                continue;
            }
            bool disjoint = (outage.restored && outage.up <= other.down) ||
                            (other.restored && other.up <= outage.down);
            if (!disjoint)
            {
                throw WanConfigError(LINK_OUTAGES,
                                     "two outages of " + name + " overlap (down at " +
                                         SecondsText(other.down) + " and at " +
                                         SecondsText(outage.down) + ")");
            }
        }
    }
    std::vector<bool> crashed(n, false);
    for (const Crash& crash : crashes)
    {
        if (crash.island >= n)
        {
            throw WanConfigError(CRASHES,
                                 "island index " + std::to_string(crash.island) +
                                     " is not a city of '" + topology.GetName() + "'");
        }
        const std::string& id = topology.GetCity(crash.island).id;
        if (crashed[crash.island])
        {
            throw WanConfigError(CRASHES, id + " is listed twice");
        }
        crashed[crash.island] = true;
        if (crash.round >= rounds)
        {
            throw WanConfigError(CRASHES,
                                 "'" + id + "@" + std::to_string(crash.round) + "': round " +
                                     std::to_string(crash.round) + " is not below {rounds}=" +
                                     std::to_string(rounds) + " (rounds count from 0)");
        }
    }
    std::vector<bool> slow(n, false);
    for (const Straggler& straggler : stragglers)
    {
        if (straggler.island >= n)
        {
            throw WanConfigError(STRAGGLERS,
                                 "island index " + std::to_string(straggler.island) +
                                     " is not a city of '" + topology.GetName() + "'");
        }
        const std::string& id = topology.GetCity(straggler.island).id;
        if (slow[straggler.island])
        {
            throw WanConfigError(STRAGGLERS, id + " is listed twice");
        }
        slow[straggler.island] = true;
        if (!(straggler.factor >= 1 && straggler.factor <= MAX_STRAGGLER_FACTOR))
        {
            std::ostringstream reason;
            reason << id << ": the factor must be a number in [1, " << MAX_STRAGGLER_FACTOR
                   << "] (got " << straggler.factor << ")";
            throw WanConfigError(STRAGGLERS, reason.str());
        }
    }
    const std::pair<const char*, double> rates[] = {{DUPLICATE_RATE, duplicateRate},
                                                    {REORDER_RATE, reorderRate}};
    for (const auto& [field, rate] : rates)
    {
        if (!(rate >= 0 && rate <= MAX_RATE))
        {
            std::ostringstream reason;
            reason << "must be a number in [0, " << MAX_RATE << "] (got '" << rate << "')";
            throw WanConfigError(field, reason.str());
        }
    }
    if (!reorderDelay.IsStrictlyPositive())
    {
        throw WanConfigError(REORDER_DELAY, "must be a positive duration");
    }
    if (timeLimit.IsStrictlyNegative())
    {
        throw WanConfigError(TIME_LIMIT, "must be a non-negative duration");
    }
}

bool
FaultPlan::IsEmpty() const
{
    return linkOutages.empty() && crashes.empty() && stragglers.empty() && duplicateRate == 0 &&
           reorderRate == 0;
}

uint32_t
FaultPlan::GetCrashRound(uint32_t island) const
{
    for (const Crash& crash : crashes)
    {
        if (crash.island == island)
        {
            return crash.round;
        }
    }
    return NO_CRASH;
}

double
FaultPlan::GetStepTimeFactor(uint32_t island) const
{
    for (const Straggler& straggler : stragglers)
    {
        if (straggler.island == island)
        {
            return straggler.factor;
        }
    }
    return 1;
}

std::vector<Time>
FaultPlan::GetLinkEventTimes() const
{
    std::vector<Time> times;
    for (const LinkOutage& outage : linkOutages)
    {
        times.push_back(outage.down);
        if (outage.restored)
        {
            times.push_back(outage.up);
        }
    }
    std::sort(times.begin(), times.end());
    times.erase(std::unique(times.begin(), times.end()), times.end());
    return times;
}

std::vector<uint32_t>
FaultPlan::GetLinksDownAt(Time at) const
{
    std::vector<uint32_t> links;
    for (const LinkOutage& outage : linkOutages)
    {
        if (outage.down <= at && (!outage.restored || at < outage.up))
        {
            links.push_back(outage.link);
        }
    }
    std::sort(links.begin(), links.end());
    links.erase(std::unique(links.begin(), links.end()), links.end());
    return links;
}

nlohmann::json
FaultPlan::ToJson(const WanTopology& topology) const
{
    nlohmann::json outages = nlohmann::json::array();
    for (const LinkOutage& outage : linkOutages)
    {
        outages.push_back(
            {{"link", LinkName(topology, outage.link)},
             {"down_s", outage.down.GetSeconds()},
             {"up_s",
              outage.restored ? nlohmann::json(outage.up.GetSeconds()) : nlohmann::json(nullptr)}});
    }
    nlohmann::json crashList = nlohmann::json::array();
    for (const Crash& crash : crashes)
    {
        crashList.push_back(
            {{"island", topology.GetCity(crash.island).id}, {"round", crash.round}});
    }
    nlohmann::json stragglerList = nlohmann::json::array();
    for (const Straggler& straggler : stragglers)
    {
        stragglerList.push_back(
            {{"island", topology.GetCity(straggler.island).id}, {"factor", straggler.factor}});
    }
    return {{"link_down", outages},
            {"crash", crashList},
            {"straggler", stragglerList},
            {"duplicate_rate", duplicateRate},
            {"reorder_rate", reorderRate},
            {"reorder_delay_s", reorderDelay.GetSeconds()},
            {"time_limit_s", timeLimit.GetSeconds()}};
}

} // namespace ns3
