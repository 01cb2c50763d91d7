/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef FAULT_PLAN_H
#define FAULT_PLAN_H

#include "wan-topology.h"

#include "ns3/nstime.h"

#include <cstdint>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace ns3
{

/**
 * @ingroup wan-training
 * @brief The faults injected into one training run (TrainingRun::Config::faults), parsed from
 * their text forms and validated in one place for every program.
 *
 * - link outages: a WAN link goes down at a time (both directions carry nothing; packets in
 *   flight are lost) and optionally comes back up; routes and multicast trees follow
 *   (text `A-B@SECONDS[:UPSECONDS][,...]`);
 * - crashes: an island leaves at the start of a round and takes no part in it or any later round
 *   (text `CITY@ROUND[,...]`);
 * - stragglers: an island's local steps take FACTOR times StepTime (text `CITY:FACTOR[,...]`);
 * - duplication and reordering of WAN packets with a probability each (random loss is
 *   TrainingRun::Config::wanLossRate);
 * - a guard on the simulated time (0 derives one from the configuration).
 *
 * Every error is a WanConfigError naming the field as a member of TrainingRun::Config
 * (`faults.linkOutages`, `faults.crashes`, `faults.stragglers`, `faults.duplicateRate`,
 * `faults.reorderRate`, `faults.reorderDelay`, `faults.timeLimit`) and the offending entry, e.g.
 * `faults.linkOutages: 'nyc-xyz@2': unknown city 'xyz' (cities: nyc, chi, ...)`; a reason that
 * refers to another field writes it in braces (`{rounds}`), for the program to name its option.
 */
class FaultPlan
{
  public:
    /** The largest duplicate or reorder probability accepted (as the WAN loss rate: 0.5). */
    static constexpr double MAX_RATE = 0.5;
    /** The largest straggler factor accepted. */
    static constexpr double MAX_STRAGGLER_FACTOR = 1e6;
    /** The crash round of an island that never crashes. */
    static constexpr uint32_t NO_CRASH = std::numeric_limits<uint32_t>::max();

    /** A WAN link that goes down, and maybe up again. */
    struct LinkOutage
    {
        uint32_t link{0};     //!< WAN link index (WanTopology::GetLink)
        Time down;            //!< when both directions stop carrying packets
        bool restored{false}; //!< whether the link comes back up
        Time up;              //!< when it comes back (restored only)
    };

    /** An island that leaves at the start of a round. */
    struct Crash
    {
        uint32_t island{0}; //!< city index
        uint32_t round{0};  //!< the first round it takes no part in
    };

    /** An island that computes slower. */
    struct Straggler
    {
        uint32_t island{0}; //!< city index
        double factor{1};   //!< its step time is StepTime x factor (>= 1)
    };

    /** The text form of a plan, before parsing (empty lists, zero rates, derived limit). */
    struct Texts
    {
        std::string linkOutages;         //!< A-B@SECONDS[:UPSECONDS][,...]
        std::string crashes;             //!< CITY@ROUND[,...]
        std::string stragglers;          //!< CITY:FACTOR[,...]
        std::string duplicateRate{"0"};  //!< a probability in [0, 0.5]
        std::string reorderRate{"0"};    //!< a probability in [0, 0.5]
        std::string reorderDelay{"1ms"}; //!< a positive duration (s, ms, us, ns)
        std::string timeLimit{"0"};      //!< a non-negative duration (0: derived)
    };

    /**
     * @brief Parse and validate the text form of a plan.
     * @param topology the WAN whose city ids and links the texts name
     * @param rounds the rounds of the run (a crash must happen in one of them)
     * @param texts the texts
     * @return the plan
     * @throws WanConfigError(field, reason) naming the offending entry
     */
    static FaultPlan Parse(const WanTopology& topology, uint32_t rounds, const Texts& texts);

    /**
     * @brief Check a plan against a topology and a run length (plans built in code included).
     * @param topology the WAN
     * @param rounds the rounds of the run (a crash must happen in one of them)
     * @throws WanConfigError(field, reason) for a link or city that does not exist, an outage
     *         that ends before it starts or overlaps another of the same link, a crash round not
     *         below rounds, an island listed twice, a factor below 1, a rate out of [0, 0.5], a
     *         negative time limit
     */
    void Validate(const WanTopology& topology, uint32_t rounds) const;

    /** @return whether the plan injects nothing (the time limit aside) */
    bool IsEmpty() const;
    /**
     * @param island a city index
     * @return the round the island crashes at, or NO_CRASH
     */
    uint32_t GetCrashRound(uint32_t island) const;
    /**
     * @param island a city index
     * @return its step time factor (1 when it is no straggler)
     */
    double GetStepTimeFactor(uint32_t island) const;
    /** @return the times at which some link goes down or up, sorted, without duplicates */
    std::vector<Time> GetLinkEventTimes() const;
    /**
     * @param at a time
     * @return the WAN links down at that time (down <= at < up), sorted
     */
    std::vector<uint32_t> GetLinksDownAt(Time at) const;
    /**
     * @param topology the WAN
     * @return the plan as a JSON object (city ids and link names, times in seconds)
     */
    nlohmann::json ToJson(const WanTopology& topology) const;

    std::vector<LinkOutage> linkOutages; //!< link outages
    std::vector<Crash> crashes;          //!< crashes
    std::vector<Straggler> stragglers;   //!< stragglers
    double duplicateRate{0};             //!< probability that a WAN packet is delivered twice
    double reorderRate{0};               //!< probability that a WAN packet is delivered late
    Time reorderDelay{MilliSeconds(1)};  //!< how late a reordered packet arrives
    Time timeLimit{0};                   //!< simulated-time guard (0: derived)
};

} // namespace ns3

#endif /* FAULT_PLAN_H */
