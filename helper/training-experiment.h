/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef TRAINING_EXPERIMENT_H
#define TRAINING_EXPERIMENT_H

#include "capability-set.h"
#include "clique-schedule.h"
#include "link-load-model.h"
#include "payload-format.h"
#include "schedule-metrics.h"
#include "schedule-optimizer.h"
#include "training-run-summary.h"
#include "training-run.h"
#include "wan-topology.h"

#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * @ingroup wan-training
 * @brief The experiment of `./wan-training run`: for each capability mode, and for each
 * capability set (its cliques picking their algorithms), optimize a rotating-clique schedule
 * (ScheduleOptimizer), simulate it packet by packet with real training (TrainingRun, each in a
 * child process of its own through ChildProcessPool), compare with colocated training, and
 * report (ExperimentReport: summary table, CSV, JSON; ExperimentPlots: gnuplot plots) into one
 * run directory.
 *
 * The run directory OUT/RUN-ID receives config.json, topology.json, per mode MODE.json
 * (TrainingResults) and MODE-schedule.json (a set: ModeOutcome::GetFileStem, e.g.
 * set-multicast+aggregation.json), summary.{txt,csv,json}, rounds.csv and the plots;
 * OUT/latest points at it. The results do not depend on how many simulations run at once.
 * Every number of the report is read back from the results JSON the simulations wrote
 * (doc/schedule-model.rst defines the predicted ones).
 *
 * Bad configuration values raise WanConfigError naming the Config field; a program maps the
 * field to its option.
 */
class TrainingExperiment
{
  public:
    /** The experiment's configuration. */
    struct Config
    {
        std::string name{"training-experiment"}; //!< heads the table and the log lines;
                                                 //!< recorded as "program"
        std::string preset{"default"};           //!< the preset's name, recorded
        std::string topologySource;              //!< where the topology comes from, recorded
        std::string topologyText;                //!< the topology JSON, copied as topology.json
        std::vector<CapabilityMode> modes;       //!< the simulated modes, in this order
        std::string modesText;                   //!< the modes as given, recorded
        /** The capability sets whose optima are simulated after the modes (each clique by the
         *  algorithm it picked), in this order; each within the topology's capabilities */
        std::vector<CapabilitySet> capabilitySets;
        TrainingRun::Config training;         //!< every simulation (the mode set per mode;
                                              //!< progress lines labelled "NAME: MODE")
        uint64_t modelParameters{0};          //!< P (0: S given in bytes), recorded
        double targetLossFraction{0.02};      //!< time to target: this x the initial loss
        ScheduleOptimizer::Options optimizer; //!< the schedule search of every mode
        uint32_t jobs{0};                     //!< simulations at once (0: one per core)
        std::string outDir{"results"};        //!< the directory of the run directory
        std::string runId;                    //!< the run directory (empty: UTC time)
        std::ostream* summary{nullptr};       //!< receives the table too (null: none)
        std::ostream* log{nullptr};           //!< the experiment's log lines (null: none)

        /** @return whether the outputs name the format and P: unless fp32 with S in bytes */
        bool NamesFormat() const;
    };

    /** One mode's (or capability set's) optimized schedule and simulated outcome, as its
     *  results JSON holds it. */
    struct ModeOutcome
    {
        CapabilityMode mode{CapabilityMode::UNICAST}; //!< the capability mode
        /** The capability set whose optimum this is (none: the outcome of `mode`) */
        std::optional<CapabilitySet> capabilities;
        CliqueSchedule schedule = CliqueSchedule::AllReduce(1); //!< the optimized schedule
        std::string origin;                                     //!< "search" or a baseline
        ScheduleMetrics::Evaluation evaluation;                 //!< its predicted metrics
        std::vector<double> predictedCommS;                     //!< T_comm per simulated round
        std::vector<double> predictedRoundS;                    //!< per simulated round, end to end
                                                                //!< (ScheduleMetrics::GetRoundEnds)
        std::vector<double> simulatedCommS;                     //!< comm_s per round (-1: none)
        std::vector<double> simulatedRoundS;                    //!< end(r) - end(r-1) (-1: none)
        std::vector<std::pair<double, double>> loss;            //!< (t, loss of the average model)
        std::vector<std::pair<double, double>> consensus;       //!< (t, consensus distance)
        std::vector<double> linkBytes;                          //!< bytes per directed link
        double finalIslandLoss{0};     //!< mean over islands of F(x_i) - F*
        double trainingTimeS{0};       //!< last round end
        bool passed{false};            //!< complete and verified
        double formatErrorRel{0};      //!< the payload format's largest max |err| / max |avg|
        uint64_t repairs{0};           //!< chunks sent again
        uint64_t errorDrops{0};        //!< packets lost to the error models
        uint64_t queueDrops{0};        //!< packets dropped by full queues
        uint64_t partialAggregates{0}; //!< FPGA aggregates by Timeout
        uint64_t packetHops{0};        //!< packets transmitted, all links
        std::string failure;           //!< why islands gave up (empty: none)

        /** @return the mode's name, or the set's in braces ("{multicast,aggregation}") */
        std::string GetName() const;
        /** @return the stem of its files: the mode's name, or "set-" and the set's tokens
         *  joined by '+' ("set-multicast+aggregation", "set-none") */
        std::string GetFileStem() const;
    };

    /** One mode's row of the summary (computed by ExperimentReport). */
    struct ModeSummary
    {
        double predictedRoundS{0}; //!< mean predicted round time, end to end
        double simulatedRoundS{0}; //!< mean simulated round time of the complete rounds
        double difference{0};      //!< (simulated - predicted) / predicted round time
        double predictedCommS{0};  //!< mean predicted T_comm
        double simulatedCommS{0};  //!< mean simulated comm_s of the rounds that have one
        double timeToTargetS{-1};  //!< first time at the target loss (-1: never)
        double gapToColocated{-1}; //!< timeToTargetS over colocated's (-1: none)
        std::string flag;          //!< "", "differs" or "FAILED"
    };

    /** What a run produced. */
    struct Result
    {
        std::filesystem::path directory;                  //!< the run directory
        nlohmann::json config;                            //!< config.json
        std::vector<ModeOutcome> modes;                   //!< per mode, in the order given
        std::vector<std::string> simulationFailures;      //!< processes that did not succeed
        std::vector<std::pair<double, double>> colocated; //!< colocated loss curve
        bool finished{false};                             //!< whether some mode finished
        double initialLoss{0};                            //!< loss at t = 0
        double targetLoss{0};                             //!< the target loss
        double colocatedTargetS{-1};                      //!< colocated time to target
        double xiColocatedS{0};                           //!< Xi of colocated training
        std::vector<ModeSummary> summaries;               //!< per mode (when finished)
        std::vector<std::string> notes;                   //!< the notes of the table
        std::string table;                                //!< the summary table
        bool allPassed{false};                            //!< every mode complete and verified
    };

    /**
     * @param topology the WAN (copied)
     * @param config the configuration
     */
    TrainingExperiment(const WanTopology& topology, const Config& config);

    /**
     * @brief Check the modes, the capability sets and every mode's simulation configuration
     * (TrainingRun::Validate), before any work.
     * @throws WanConfigError on "modes" (neither a mode nor a set), "capabilitySets" (a set
     *         with a capability the topology lacks, or one given twice) or
     *         "targetLossFraction" (outside (0, 1)); TrainingRun::Validate's error for a
     *         simulation setting
     */
    void Validate() const;

    /**
     * @brief Validate, create the run directory, optimize and simulate every mode, compare and
     * report.
     * @return the outcomes, the summary and whether every mode passed
     * @throws WanConfigError on "runId" (not a plain directory name), "outDir" (the run
     *         directory cannot be created or written), "jobs" (no process can be started), as
     *         Validate()
     */
    Result Run();

    /** @return the simulations at once: Config::jobs, or one per core when 0 */
    uint32_t GetJobs() const;

    /** @return tau_c: local steps x step time, in seconds */
    double GetComputeS() const;

  private:
    /**
     * @brief Simulate one mode and write DIRECTORY/MODE.json (runs in a child process).
     * @param outcome the mode and its schedule
     * @param directory the run directory
     * @param runConfig config.json's content, recorded in the results
     */
    void SimulateMode(const ModeOutcome& outcome,
                      const std::filesystem::path& directory,
                      const nlohmann::json& runConfig) const;

    /**
     * @brief Take a mode's simulated outcome from its results.
     * @param results the mode's results JSON, read back
     * @param outcome filled with the simulated outcome
     */
    void ReadOutcome(const TrainingRunSummary& results, ModeOutcome& outcome) const;

    /**
     * @param line a progress line; written with the name in front (when a log is set)
     */
    void Log(const std::string& line) const;

    WanTopology m_topology; //!< the WAN
    Config m_config;        //!< the configuration
};

} // namespace ns3

#endif /* TRAINING_EXPERIMENT_H */
