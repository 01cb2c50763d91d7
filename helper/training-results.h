/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef TRAINING_RESULTS_H
#define TRAINING_RESULTS_H

#include "clique-average-verifier.h"
#include "clique-schedule.h"
#include "colocated-reference.h"
#include "training-loss-sampler.h"
#include "training-recorder.h"
#include "training-results-writer.h"

#include "ns3/application-container.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

class WanTopologyHelper;

/**
 * @ingroup wan-training
 * @brief Records a training run and writes its results JSON: the owner of the pieces that do
 * the work, wired together.
 *
 * Built after the applications are installed and before Simulator::Run(), it must outlive the
 * simulation. Its parts, each with one job:
 * - TrainingRecorder: the trace sinks, with the times, outcomes and counters per round, link,
 *   island and FPGA, the exclusions, route changes and how the run ended;
 * - CliqueAverageVerifier: the shadow copies of the contributions and the check of every
 *   member's average against their exact double-precision average over its contributors;
 * - ColocatedReference: the mean objective, its optimum and the colocated-training baseline;
 * - TrainingLossSampler: loss and consensus over simulated time, sampled whenever an island's
 *   parameters change state (exchange start and round end);
 * - TrainingResultsWriter: the results JSON (TrainingRunSummary reads it back).
 *
 * At an exchange start the verifier keeps the contribution, then the sampler takes a sample;
 * at a round end the verifier checks the average, then the sampler takes a sample; when a
 * member abandons a round or crashes, the verifier may release its clique's shadow copies.
 */
class TrainingResults
{
  public:
    /** Relative tolerance of the verification, max(1, |average|) scaled. */
    static constexpr double VERIFY_TOLERANCE = CliqueAverageVerifier::VERIFY_TOLERANCE;

    /** Traffic of one directed link. */
    using LinkCounters = TrainingRecorder::LinkCounters;
    /** Traffic and repairs of one island. */
    using IslandCounters = TrainingRecorder::IslandCounters;
    /** The outcome of one round on one island. */
    using RoundStatus = TrainingRecorder::RoundStatus;
    /** Global state at one instant. */
    using Sample = TrainingLossSampler::Sample;

    static constexpr RoundStatus PENDING = TrainingRecorder::PENDING;     //!< not ended (yet)
    static constexpr RoundStatus COMPLETED = TrainingRecorder::COMPLETED; //!< with an average
    static constexpr RoundStatus ABANDONED = TrainingRecorder::ABANDONED; //!< without one
    static constexpr RoundStatus CRASHED = TrainingRecorder::CRASHED;     //!< crashed before

    /**
     * @brief Connect to a run's applications and devices.
     * @param scenario the installed scenario
     * @param schedule the schedule the applications run
     * @param apps the TrainingIslandApplications, one per island in city order
     */
    TrainingResults(const WanTopologyHelper& scenario,
                    const CliqueSchedule& schedule,
                    const ApplicationContainer& apps);

    TrainingResults(const TrainingResults&) = delete;
    TrainingResults& operator=(const TrainingResults&) = delete;

    /** @return the recorder */
    const TrainingRecorder& GetRecorder() const;
    /** @return the verifier of the averages */
    const CliqueAverageVerifier& GetVerifier() const;
    /** @return the colocated reference */
    const ColocatedReference& GetColocatedReference() const;
    /** @return the loss and consensus samples */
    const TrainingLossSampler& GetLossSampler() const;
    /** @return the writer of the results JSON */
    const TrainingResultsWriter& GetWriter() const;

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

    /**
     * @param d a directed link
     * @return its counters
     */
    const LinkCounters& GetLinkCounters(uint32_t d) const;
    /**
     * @param city an island
     * @return its counters
     */
    const IslandCounters& GetIslandCounters(uint32_t city) const;
    /**
     * @return rounds in which every island that did not crash completed the round, every
     *         average was verified and every clique's contributor sets are consistent
     */
    uint32_t GetRoundsVerified() const;
    /**
     * @param round a round
     * @param island an island
     * @return the outcome of the round on the island
     */
    RoundStatus GetRoundStatus(uint32_t round, uint32_t island) const;
    /**
     * @param round a round
     * @param island an island
     * @return the contributor bitmap of its average (0 unless COMPLETED)
     */
    uint64_t GetContributors(uint32_t round, uint32_t island) const;
    /**
     * @param round a round
     * @param island an island
     * @return whether its average was within the tolerance of the shadow average over its
     *         contributors (false unless COMPLETED)
     */
    bool IsMemberVerified(uint32_t round, uint32_t island) const;
    /**
     * @param round a round
     * @param clique a clique index of the round's schedule round
     * @return whether the completed members' contributor sets are consistent (see
     *         CliqueAverageVerifier::IsCliqueConsistent)
     */
    bool IsCliqueConsistent(uint32_t round, uint32_t clique) const;
    /**
     * @param round a round
     * @param clique a clique index of the round's schedule round
     * @return whether no completed member averaged a completed member that left it out (it
     *         can happen when a partition cuts an exchange)
     */
    bool IsCliqueSymmetric(uint32_t round, uint32_t clique) const;
    /**
     * @param round a round
     * @param island an island
     * @return why it did not complete the round (abandoned: the reason; unfinished at the end:
     *         the island's state then; empty otherwise)
     */
    std::string GetReason(uint32_t round, uint32_t island) const;
    /** @return whether some route change left the WAN partitioned */
    bool WasPartitioned() const;
    /** @return whether the time limit stopped the run */
    bool WasStoppedByTimeLimit() const;

    /**
     * @brief Record that the installed routes changed (a link went down or came up).
     * @param downLinks the WAN links down from now on
     * @param components the connected components of the cities over the links that are up
     */
    void RecordRouteChange(const std::vector<uint32_t>& downLinks,
                           const std::vector<std::vector<uint32_t>>& components);
    /**
     * @brief Record how the run ended, after Simulator::Run(): the rounds still pending get the
     * reason (the island's state, and whether the time limit or a lack of events ended the run).
     * @param timeLimitS the simulated-time limit of the run (0: none)
     * @param stoppedByTimeLimit whether the limit stopped the simulation
     */
    void Finish(double timeLimitS, bool stoppedByTimeLimit);
    /** @return member checks done (one per member of a clique of two or more per round) */
    uint64_t GetChecks() const;
    /** @return the largest |new parameter - shadow average| */
    double GetMaxAbsError() const;
    /** @return the largest |new parameter - shadow average| / max(1, |shadow average|) */
    double GetMaxRelError() const;
    /** @return the samples of loss and consensus, in time order */
    const std::vector<Sample>& GetSamples() const;
    /** @return F(x*), the optimum of the mean objective */
    double GetOptimalLoss() const;
    /** @return whether every island that did not crash completed every round */
    bool IsComplete() const;
    /**
     * @return the training time in seconds: the simulated time of the latest round end on any
     *         island (the end of the last round when the run is complete; 0 before any round
     *         ended). Unlike Simulator::Now() after the run, it excludes timers that were
     *         still pending when the last island finished.
     */
    double GetTrainingTimeS() const;

    /** @return the results document (pretty printed JSON) */
    std::string ToJson() const;
    /**
     * @brief Write ToJson() to a file.
     * @param path the file
     * @throws WanInputError when it cannot be written
     */
    void WriteFile(const std::string& path) const;

  private:
    /**
     * @param recorder a recorder
     * @return the objectives of its islands, in city order
     */
    static std::vector<LocalObjective> GetObjectives(const TrainingRecorder& recorder);
    /**
     * @param island the island
     * @param round the round
     * @param clique its clique
     * @param parameters its contribution
     */
    void OnExchangeStarted(uint32_t island,
                           uint32_t round,
                           uint32_t clique,
                           const std::vector<float>& parameters);
    /**
     * @param island the island
     * @param round the round
     * @param clique its clique
     * @param parameters its new parameters
     */
    void OnRoundFinished(uint32_t island,
                         uint32_t round,
                         uint32_t clique,
                         const std::vector<float>& parameters);

    TrainingRecorder m_recorder;      //!< the trace sinks and counters
    ColocatedReference m_reference;   //!< the mean objective and colocated baseline
    CliqueAverageVerifier m_verifier; //!< the verification of the averages
    TrainingLossSampler m_sampler;    //!< loss and consensus over time
    TrainingResultsWriter m_writer;   //!< the results JSON
};

} // namespace ns3

#endif /* TRAINING_RESULTS_H */
