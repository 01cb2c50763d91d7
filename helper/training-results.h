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

    /** @copydoc TrainingResultsWriter::SetConfigJson */
    void SetConfigJson(const std::string& json);
    /** @copydoc TrainingResultsWriter::SetFaultPlanJson */
    void SetFaultPlanJson(const std::string& json);
    /** @copydoc TrainingRecorder::GetLinkCounters */
    const LinkCounters& GetLinkCounters(uint32_t d) const;
    /** @copydoc TrainingRecorder::GetIslandCounters */
    const IslandCounters& GetIslandCounters(uint32_t city) const;
    /** @copydoc CliqueAverageVerifier::GetRoundsVerified */
    uint32_t GetRoundsVerified() const;
    /** @copydoc TrainingRecorder::GetRoundStatus */
    RoundStatus GetRoundStatus(uint32_t round, uint32_t island) const;
    /** @copydoc TrainingRecorder::GetContributors */
    uint64_t GetContributors(uint32_t round, uint32_t island) const;
    /** @copydoc CliqueAverageVerifier::IsMemberVerified */
    bool IsMemberVerified(uint32_t round, uint32_t island) const;
    /** @copydoc CliqueAverageVerifier::IsCliqueConsistent */
    bool IsCliqueConsistent(uint32_t round, uint32_t clique) const;
    /** @copydoc CliqueAverageVerifier::IsCliqueSymmetric */
    bool IsCliqueSymmetric(uint32_t round, uint32_t clique) const;
    /** @copydoc TrainingRecorder::GetReason */
    std::string GetReason(uint32_t round, uint32_t island) const;
    /** @copydoc TrainingRecorder::WasPartitioned */
    bool WasPartitioned() const;
    /** @copydoc TrainingRecorder::WasStoppedByTimeLimit */
    bool WasStoppedByTimeLimit() const;
    /** @copydoc TrainingRecorder::RecordRouteChange */
    void RecordRouteChange(const std::vector<uint32_t>& downLinks,
                           const std::vector<std::vector<uint32_t>>& components);
    /**
     * @brief Record how the run ended, after Simulator::Run() (TrainingRecorder::Finish).
     * @param timeLimitS the simulated-time limit of the run (0: none)
     * @param stoppedByTimeLimit whether the limit stopped the simulation
     */
    void Finish(double timeLimitS, bool stoppedByTimeLimit);
    /** @copydoc CliqueAverageVerifier::GetChecks */
    uint64_t GetChecks() const;
    /** @copydoc CliqueAverageVerifier::GetMaxAbsError */
    double GetMaxAbsError() const;
    /** @copydoc CliqueAverageVerifier::GetMaxRelError */
    double GetMaxRelError() const;
    /** @copydoc TrainingLossSampler::GetSamples */
    const std::vector<Sample>& GetSamples() const;
    /** @copydoc ColocatedReference::GetOptimalLoss */
    double GetOptimalLoss() const;
    /** @copydoc TrainingRecorder::IsComplete */
    bool IsComplete() const;
    /**
     * @return the training time in seconds: the simulated time of the latest round end on any
     *         island (the end of the last round when the run is complete; 0 before any round
     *         ended). Unlike Simulator::Now() after the run, it excludes timers that were
     *         still pending when the last island finished.
     */
    double GetTrainingTimeS() const;
    /** @copydoc TrainingResultsWriter::ToJson */
    std::string ToJson() const;
    /** @copydoc TrainingResultsWriter::WriteFile */
    void WriteFile(const std::string& path) const;

  private:
    /** Exchange start (TrainingRecorder callback): keep the contribution, then sample. */
    void OnExchangeStarted(uint32_t island,
                           uint32_t round,
                           uint32_t clique,
                           const std::vector<float>& parameters);
    /**
     * @param recorder a recorder
     * @return the objectives of its islands, in city order
     */
    static std::vector<LocalObjective> GetObjectives(const TrainingRecorder& recorder);
    /** Round end (TrainingRecorder callback): check the average, then sample. */
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
