/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef LOSS_SECTION_H
#define LOSS_SECTION_H

#include "bench-case.h"
#include "capability-mode.h"

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

namespace ns3
{

/**
 * @ingroup wan-training
 * @brief The loss section of the benchmark (issue 23): the communication time of training
 * under random loss on every WAN link, against the same run without loss.
 *
 * For each mode and each loss rate of GetLossRates() (0, 0.1 %, 1 %) one BenchCase of kind
 * `loss`: the nine-city topology, the Latin triples, GetRounds() rounds, the given ModelBytes,
 * everything else TrainingRun::Config's defaults. BenchRunner runs each case in a child process
 * through the callback it gives Run(); this class keeps the results, prints their table and
 * writes the JSON's `loss` object. The limits of the targets (GetLimits(), GetLimitS()) are
 * judged by BenchTargets: a mode's mean communication time at a loss rate within a factor of
 * its lossless time plus a multiple of the largest round-trip time within one of its cliques
 * (the ring, whose steps wait for each other, by a factor alone).
 */
class LossSection
{
  public:
    /** What the section runs. */
    struct Settings
    {
        std::string topologyFile;          //!< the nine-city topology
        std::vector<CapabilityMode> modes; //!< the modes (empty: the section does not run)
        uint64_t modelBytes{0};            //!< ModelBytes, S
    };

    /** The limit of the targets at one loss rate. */
    struct Limit
    {
        double lossRate;         //!< the loss rate
        std::string label;       //!< the rate as the target ids write it ("0.1%")
        double factor;           //!< the lossless communication time's factor
        double rttMultiple;      //!< how many largest clique round-trip times are added
        double ringFactor;       //!< ring: the lossless communication time's factor (no RTT)
        std::string formula;     //!< the limit in words, for the target's name
        std::string ringFormula; //!< the ring's limit in words
    };

    /**
     * @brief Runs one case in a child process.
     *
     * Arguments: the case, the progress line's label; returns the case's result (a failure
     * record with "passed": false when it failed).
     */
    using CaseRunner =
        std::function<nlohmann::json(const BenchCase::Arguments&, const std::string&)>;

    /** A section that runs nothing. */
    LossSection() = default;

    /**
     * @param settings what to run
     */
    explicit LossSection(const Settings& settings);

    /** @return the loss rates of every mode's cases, lossless first: 0, 0.001, 0.01 */
    static const std::vector<double>& GetLossRates();

    /** @return the limits of the targets, one per lossy rate (0.1 %, 1 %) */
    static const std::vector<Limit>& GetLimits();

    /** @return the rounds of every case (3) */
    static uint32_t GetRounds();

    /**
     * @param mode the case's mode
     * @param limit the limit at the case's loss rate
     * @param losslessCommS the mode's mean communication time without loss (NaN: unknown)
     * @param maxRttS the largest round-trip time between two members of one clique
     * @return the limit of the mode's mean communication time, seconds (NaN when an argument
     *         is)
     */
    static double GetLimitS(CapabilityMode mode,
                            const Limit& limit,
                            double losslessCommS,
                            double maxRttS);

    /** @return the number of cases Run() runs */
    uint32_t GetCaseCount() const;

    /**
     * @brief Run every case, one after the other.
     * @param runCase runs one case in a child process
     */
    void Run(const CaseRunner& runCase);

    /**
     * @brief Print the section's table (nothing when no case ran).
     * @param out the stream
     */
    void Print(std::ostream& out) const;

    /** @return the JSON's `loss` object: model_bytes, rounds, loss_rates and cases */
    nlohmann::json ToJson() const;

  private:
    /**
     * @param mode a mode
     * @param lossRate a loss rate
     * @return its case's result (null when it did not run)
     */
    const nlohmann::json* Find(CapabilityMode mode, double lossRate) const;

    Settings m_settings;                             //!< what to run
    nlohmann::json m_cases{nlohmann::json::array()}; //!< every case's result, in run order
};

} // namespace ns3

#endif /* LOSS_SECTION_H */
