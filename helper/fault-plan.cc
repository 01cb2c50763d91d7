/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "fault-plan.h"

#include "command-line-values.h"
#include "wan-input-error.h"

#include "ns3/command-line.h"
#include "ns3/log.h"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("WanTrainingFaultPlan");

namespace
{

/**
 * @param program the program name, for the message
 * @param option the option, for the message
 * @param text a comma-separated list
 * @return its entries (an empty text gives none)
 * @throws WanInputError on an empty entry
 */
std::vector<std::string>
SplitList(const std::string& program, const std::string& option, const std::string& text)
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
            throw WanInputError(program,
                                option,
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
 * @param program the program name
 * @param option the option
 * @param entry the whole entry (quoted in messages)
 * @param topology the WAN
 * @param id the city id given
 * @return its index
 * @throws WanInputError when there is no such city
 */
uint32_t
ParseCity(const std::string& program,
          const std::string& option,
          const std::string& entry,
          const WanTopology& topology,
          const std::string& id)
{
    if (!topology.HasCity(id))
    {
        throw WanInputError(program,
                            option,
                            "'" + entry + "': unknown city '" + id +
                                "' (cities: " + CityList(topology) + ")");
    }
    return topology.GetCityIndex(id);
}

/**
 * @brief A time of a --linkDown entry: a number of seconds, or a number with a unit.
 * @param program the program name
 * @param entry the whole entry (quoted in messages)
 * @param what "down" or "up", for the message
 * @param text the time given
 * @return the time
 * @throws WanInputError when it is not a non-negative duration up to one day
 */
Time
ParseTime(const std::string& program,
          const std::string& entry,
          const std::string& what,
          const std::string& text)
{
    try
    {
        return CommandLineValues::ParseDuration(program, "--linkDown", text, true);
    }
    catch (const WanInputError&)
    {
        throw WanInputError(program,
                            "--linkDown",
                            "'" + entry + "': the " + what +
                                " time must be a non-negative duration up to one day, in seconds "
                                "or with a unit, e.g. 2, 2.5s, 500ms (got '" +
                                text + "')");
    }
}

} // namespace

void
FaultPlan::AddCommandLineValues(CommandLine& cmd, Texts& texts)
{
    cmd.AddValue("linkDown",
                 "fault: WAN links that go down, A-B@SECONDS[:UPSECONDS][,...] with city ids "
                 "(e.g. nyc-lon@2.5:4); both directions stop, routes and multicast trees are "
                 "recomputed on the surviving graph (a partition is reported), and back when "
                 "the link comes up",
                 texts.linkDown);
    cmd.AddValue("crash",
                 "fault: islands that leave, CITY@ROUND[,...] (e.g. tyo@2): from that round on "
                 "the island takes no part; its cliques finish without it after a timeout",
                 texts.crash);
    cmd.AddValue("straggler",
                 "fault: slow islands, CITY:FACTOR[,...] (e.g. sin:3): the island's local steps "
                 "take FACTOR (>= 1) times --stepTime",
                 texts.straggler);
    cmd.AddValue("duplicate",
                 "fault: probability that a WAN packet is delivered twice, in [0, 0.5]",
                 texts.duplicate);
    cmd.AddValue("reorder",
                 "fault: probability that a WAN packet is delivered late, after later ones, in "
                 "[0, 0.5]",
                 texts.reorder);
    cmd.AddValue("reorderDelay",
                 "fault: how late a reordered packet arrives (s, ms, us, ns)",
                 texts.reorderDelay);
    cmd.AddValue("timeLimit",
                 "guard: stop the simulation at this simulated time and report the rounds that "
                 "did not complete (s, ms, us, ns; 0 derives a generous limit from the "
                 "configuration)",
                 texts.timeLimit);
}

FaultPlan
FaultPlan::Parse(const std::string& program,
                 const WanTopology& topology,
                 uint32_t rounds,
                 const Texts& texts)
{
    FaultPlan plan;
    for (const std::string& entry : SplitList(program, "--linkDown", texts.linkDown))
    {
        const std::string syntax = "expected A-B@SECONDS[:UPSECONDS] with city ids A and B";
        std::size_t at = entry.find('@');
        if (at == std::string::npos || at == 0)
        {
            throw WanInputError(program, "--linkDown", "'" + entry + "': " + syntax);
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
                throw WanInputError(program, "--linkDown", "'" + entry + "': " + syntax);
            }
            ParseCity(program, "--linkDown", entry, topology, ends.substr(0, first));
            ParseCity(program, "--linkDown", entry, topology, ends.substr(first + 1));
        }
        const uint32_t a = ParseCity(program, "--linkDown", entry, topology, ends.substr(0, dash));
        const uint32_t b = ParseCity(program, "--linkDown", entry, topology, ends.substr(dash + 1));
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
            throw WanInputError(program,
                                "--linkDown",
                                "'" + entry + "': topology '" + topology.GetName() +
                                    "' has no link between " + topology.GetCity(a).id + " and " +
                                    topology.GetCity(b).id);
        }
        std::size_t colon = times.find(':');
        outage.down = ParseTime(program, entry, "down", times.substr(0, colon));
        if (colon != std::string::npos)
        {
            outage.restored = true;
            outage.up = ParseTime(program, entry, "up", times.substr(colon + 1));
        }
        plan.linkOutages.push_back(outage);
    }

    for (const std::string& entry : SplitList(program, "--crash", texts.crash))
    {
        std::size_t at = entry.find('@');
        if (at == std::string::npos || at == 0)
        {
            throw WanInputError(program,
                                "--crash",
                                "'" + entry + "': expected CITY@ROUND with a city id");
        }
        Crash crash;
        crash.island = ParseCity(program, "--crash", entry, topology, entry.substr(0, at));
        const std::string round = entry.substr(at + 1);
        if (round.empty() || round.size() > 9 ||
            round.find_first_not_of("0123456789") != std::string::npos)
        {
            throw WanInputError(program,
                                "--crash",
                                "'" + entry + "': the round must be a whole number (got '" + round +
                                    "')");
        }
        crash.round = static_cast<uint32_t>(std::stoul(round));
        plan.crashes.push_back(crash);
    }

    for (const std::string& entry : SplitList(program, "--straggler", texts.straggler))
    {
        std::size_t colon = entry.rfind(':');
        if (colon == std::string::npos || colon == 0)
        {
            throw WanInputError(program,
                                "--straggler",
                                "'" + entry + "': expected CITY:FACTOR with a city id");
        }
        Straggler straggler;
        straggler.island =
            ParseCity(program, "--straggler", entry, topology, entry.substr(0, colon));
        const std::string factor = entry.substr(colon + 1);
        char* end = nullptr;
        double value = factor.empty() ? 0 : std::strtod(factor.c_str(), &end);
        if (factor.empty() || end != factor.c_str() + factor.size() || !std::isfinite(value) ||
            value < 1 || value > MAX_STRAGGLER_FACTOR)
        {
            std::ostringstream reason;
            reason << "'" << entry << "': the factor must be a number in [1, "
                   << MAX_STRAGGLER_FACTOR << "] (got '" << factor << "')";
            throw WanInputError(program, "--straggler", reason.str());
        }
        straggler.factor = value;
        plan.stragglers.push_back(straggler);
    }

    plan.duplicateRate = CommandLineValues::ParseNumberInRange(program,
                                                               "--duplicate",
                                                               texts.duplicate,
                                                               0,
                                                               MAX_RATE,
                                                               false);
    plan.reorderRate = CommandLineValues::ParseNumberInRange(program,
                                                             "--reorder",
                                                             texts.reorder,
                                                             0,
                                                             MAX_RATE,
                                                             false);
    plan.reorderDelay =
        CommandLineValues::ParseDuration(program, "--reorderDelay", texts.reorderDelay, false);
    plan.timeLimit =
        CommandLineValues::ParseDuration(program, "--timeLimit", texts.timeLimit, true);
    plan.Validate(program, topology, rounds);
    return plan;
}

void
FaultPlan::Validate(const std::string& program, const WanTopology& topology, uint32_t rounds) const
{
    const uint32_t n = topology.GetNCities();
    for (std::size_t k = 0; k < linkOutages.size(); ++k)
    {
        const LinkOutage& outage = linkOutages[k];
        if (outage.link >= topology.GetNLinks())
        {
            throw WanInputError(program,
                                "--linkDown",
                                "link index " + std::to_string(outage.link) +
                                    " is not a link of '" + topology.GetName() + "' (it has " +
                                    std::to_string(topology.GetNLinks()) + ")");
        }
        const std::string name = LinkName(topology, outage.link);
        if (outage.down.IsStrictlyNegative() || (outage.restored && outage.up <= outage.down))
        {
            throw WanInputError(program,
                                "--linkDown",
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
                throw WanInputError(program,
                                    "--linkDown",
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
            throw WanInputError(program,
                                "--crash",
                                "island index " + std::to_string(crash.island) +
                                    " is not a city of '" + topology.GetName() + "'");
        }
        const std::string& id = topology.GetCity(crash.island).id;
        if (crashed[crash.island])
        {
            throw WanInputError(program, "--crash", id + " is listed twice");
        }
        crashed[crash.island] = true;
        if (crash.round >= rounds)
        {
            throw WanInputError(program,
                                "--crash",
                                "'" + id + "@" + std::to_string(crash.round) + "': round " +
                                    std::to_string(crash.round) + " is not below --rounds=" +
                                    std::to_string(rounds) + " (rounds count from 0)");
        }
    }
    std::vector<bool> slow(n, false);
    for (const Straggler& straggler : stragglers)
    {
        if (straggler.island >= n)
        {
            throw WanInputError(program,
                                "--straggler",
                                "island index " + std::to_string(straggler.island) +
                                    " is not a city of '" + topology.GetName() + "'");
        }
        const std::string& id = topology.GetCity(straggler.island).id;
        if (slow[straggler.island])
        {
            throw WanInputError(program, "--straggler", id + " is listed twice");
        }
        slow[straggler.island] = true;
        if (!(straggler.factor >= 1 && straggler.factor <= MAX_STRAGGLER_FACTOR))
        {
            std::ostringstream reason;
            reason << id << ": the factor must be a number in [1, " << MAX_STRAGGLER_FACTOR
                   << "] (got " << straggler.factor << ")";
            throw WanInputError(program, "--straggler", reason.str());
        }
    }
    const std::pair<const char*, double> rates[] = {{"--duplicate", duplicateRate},
                                                    {"--reorder", reorderRate}};
    for (const auto& [option, rate] : rates)
    {
        if (!(rate >= 0 && rate <= MAX_RATE))
        {
            std::ostringstream reason;
            reason << "must be a number in [0, " << MAX_RATE << "] (got '" << rate << "')";
            throw WanInputError(program, option, reason.str());
        }
    }
    if (!reorderDelay.IsStrictlyPositive())
    {
        throw WanInputError(program, "--reorderDelay", "must be a positive duration");
    }
    if (timeLimit.IsStrictlyNegative())
    {
        throw WanInputError(program, "--timeLimit", "must be a non-negative duration");
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
