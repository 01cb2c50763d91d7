/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef TRAINING_RESULTS_WRITER_H
#define TRAINING_RESULTS_WRITER_H

#include "capability-mode.h"
#include "training-run-summary.h"

#include <cstdint>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>

namespace ns3
{

class CliqueAverageVerifier;
class ColocatedReference;
class ScheduleMetrics;
class TrainingLossSampler;
class TrainingRecorder;

/**
 * @ingroup wan-training
 * @brief Writes the results JSON of a training run from its recorder, verifier, loss sampler
 * and colocated reference.
 *
 * The document has the sections `config` (as the program gave it, SetConfigJson), `rounds`
 * (per round its times, outcome per island and clique, exclusions, and the schedule model's
 * predicted communication time, doc/schedule-model.rst), `links`, `fpga`, `islands`,
 * `verification`, the training curves `loss` and `consensus`, `colocated`, `faults` (with the
 * plan of SetFaultPlanJson) and `summary`. TrainingRunSummary reads it back.
 */
class TrainingResultsWriter
{
  public:
    /**
     * @param recorder what the run did
     * @param verifier the verification of its averages
     * @param reference its colocated reference
     * @param sampler its loss and consensus samples
     *
     * All four must outlive the writer.
     */
    TrainingResultsWriter(const TrainingRecorder& recorder,
                          const CliqueAverageVerifier& verifier,
                          const ColocatedReference& reference,
                          const TrainingLossSampler& sampler);

    /**
     * @brief Set the `config` object of the results.
     * @param json a JSON object (text)
     */
    void SetConfigJson(const std::string& json);
    /**
     * @brief Set the `faults.plan` object of the results.
     * @param json a JSON object (text)
     */
    void SetFaultPlanJson(const std::string& json);

    /** @return the results document (pretty printed JSON) */
    std::string ToJson() const;
    /**
     * @brief Write ToJson() to a file.
     * @param path the file
     * @throws WanInputError when it cannot be written
     */
    void WriteFile(const std::string& path) const;

  private:
    /** @return the totals of the run, as the `summary` section holds them */
    TrainingRunSummary::Summary GetTotals() const;
    /**
     * @param bits a set of islands
     * @return their city ids
     */
    nlohmann::json GetCityIds(uint64_t bits) const;
    /** @return the `rounds` section */
    nlohmann::json GetRounds() const;
    /**
     * @param r a round
     * @param metrics the schedule model
     * @return its entry of `rounds`
     */
    nlohmann::json GetRound(uint32_t r, const ScheduleMetrics& metrics) const;
    /**
     * @param r a round
     * @return the islands that did not complete it with a verified average, and why
     */
    nlohmann::json GetUnfinishedIslands(uint32_t r) const;
    /**
     * @param r a round
     * @param c a clique of it
     * @param commS updated with the clique's communication time when it completed
     * @return its entry of the round's `cliques` (its algorithm included)
     */
    nlohmann::json GetClique(uint32_t r, uint32_t c, double& commS) const;
    /**
     * @param r a round
     * @param c a clique of it
     * @return the algorithm its members ran (their Mode, or the schedule's), none for a clique
     *         of one
     */
    std::optional<CapabilityMode> GetAlgorithm(uint32_t r, uint32_t c) const;
    /**
     * @param r a round
     * @param c a clique of it
     * @param exchangeStartS set to the last exchange start of its completed members
     * @param endS set to the last end of its completed members
     * @return whether every member completed or crashed, and one completed
     */
    bool GetCliqueSpan(uint32_t r, uint32_t c, double& exchangeStartS, double& endS) const;
    /**
     * @param r a round
     * @param c a clique of it
     * @return its completed members' contributor sets (city id -> ids)
     */
    nlohmann::json GetCliqueContributors(uint32_t r, uint32_t c) const;
    /**
     * @param r a round
     * @param c a clique of it
     * @return the distinct contributor sets of its completed members, in member order
     */
    nlohmann::json GetCliqueGroups(uint32_t r, uint32_t c) const;
    /**
     * @param r a round
     * @return the exclusions in it
     */
    nlohmann::json GetRoundExclusions(uint32_t r) const;
    /** @return the `links` section */
    nlohmann::json GetLinks() const;
    /** @return the `fpga` section */
    nlohmann::json GetFpgas() const;
    /** @return the `islands` section */
    nlohmann::json GetIslands() const;
    /**
     * @param totals the run's totals
     * @return the `verification` section
     */
    nlohmann::json GetVerification(const TrainingRunSummary::Summary& totals) const;
    /**
     * @brief Add the training curves: `loss`, `consensus`, their definition, `optimal_loss`.
     * @param doc the document
     */
    void AddCurves(nlohmann::json& doc) const;
    /** @return the `colocated` section */
    nlohmann::json GetColocated() const;
    /** @return the route changes of the `faults` section */
    nlohmann::json GetRouteChanges() const;
    /**
     * @param totals the run's totals
     * @return the `faults` section
     */
    nlohmann::json GetFaults(const TrainingRunSummary::Summary& totals) const;
    /**
     * @param totals the run's totals
     * @return the `summary` section
     */
    nlohmann::json GetSummary(const TrainingRunSummary::Summary& totals) const;

    const TrainingRecorder& m_recorder;      //!< what the run did
    const CliqueAverageVerifier& m_verifier; //!< the verification
    const ColocatedReference& m_reference;   //!< the colocated reference
    const TrainingLossSampler& m_sampler;    //!< the training curves
    std::string m_configJson{"{}"};          //!< the config object
    std::string m_faultPlanJson{"{}"};       //!< the fault plan object
};

} // namespace ns3

#endif /* TRAINING_RESULTS_WRITER_H */
