/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef EXPERIMENT_REPORT_H
#define EXPERIMENT_REPORT_H

#include "training-experiment.h"
#include "wan-topology.h"

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * @ingroup wan-training
 * @brief The summary of a TrainingExperiment: per mode the predicted and simulated round and
 * communication times, time to the target loss and its gap to colocated training, final loss
 * and consensus, a flag when the simulation failed or differs from the prediction by more than
 * 10 % (with the reasons the run's own counters show); what binds each schedule round; written
 * as summary.txt (the table), summary.csv, summary.json and rounds.csv.
 */
class ExperimentReport
{
  public:
    /**
     * @param topology the WAN
     * @param config the experiment's configuration
     * @param computeS tau_c in seconds
     */
    ExperimentReport(const WanTopology& topology,
                     const TrainingExperiment::Config& config,
                     double computeS);

    /**
     * @brief Compute every mode's summary, the notes, the table and whether every mode passed.
     * @param result the experiment's outcomes (some mode finished); receives summaries, notes,
     *        table and allPassed
     */
    void Compose(TrainingExperiment::Result& result);

    /**
     * @brief Write summary.txt, summary.csv, summary.json and rounds.csv (after Compose).
     * @param result the composed result
     * @param directory the run directory
     * @throws WanConfigError on "outDir" when a file cannot be written
     */
    void Write(const TrainingExperiment::Result& result,
               const std::filesystem::path& directory) const;

    /**
     * @brief Write a text file of the run directory.
     * @param file the file
     * @param text its content
     * @throws WanConfigError on "outDir" when it cannot be written
     */
    static void WriteText(const std::filesystem::path& file, const std::string& text);

    /**
     * @param value a number
     * @param precision significant digits
     * @return it in fixed or scientific notation, whichever reads better
     */
    static std::string Format(double value, int precision = 4);

    /**
     * @param curve (t, value) points in time order
     * @param target a value
     * @return the first t with value <= target, or -1
     */
    static double FirstTimeAtOrBelow(const std::vector<std::pair<double, double>>& curve,
                                     double target);

    /**
     * @param values numbers
     * @return their mean (0 when empty)
     */
    static double Mean(const std::vector<double>& values);

    /**
     * @param simulated a simulated value
     * @param predicted the prediction
     * @return (simulated - predicted) / predicted, 0 when both are 0
     */
    static double RelativeDifference(double simulated, double predicted);

  private:
    /**
     * @param o a mode's outcome
     * @param difference (simulated - predicted) / predicted round time
     * @return why the simulated round time differs from the prediction, from the run's own
     *         counters and the schedule (empty when no reason is visible)
     */
    std::string ExplainDifference(const TrainingExperiment::ModeOutcome& o,
                                  double difference) const;

    /**
     * @param result the result
     * @return the table's part that names what binds each schedule round
     */
    std::string DescribeBinding(const TrainingExperiment::Result& result) const;
    /**
     * @brief Add to the notes what each capability set's optimum picked, clique by clique, and
     * flag (not passed) a set whose optimum is worse than that of a set it contains or of a
     * mode it allows.
     * @param result the result
     */
    void DescribeCapabilitySets(TrainingExperiment::Result& result) const;
    /**
     * @param schedule a schedule
     * @return per round each clique's algorithm (null: none, a plain list or a clique of one)
     */
    static nlohmann::json GetAlgorithmsJson(const CliqueSchedule& schedule);

    const WanTopology& m_topology;              //!< the WAN
    const TrainingExperiment::Config& m_config; //!< the configuration
    double m_computeS;                          //!< tau_c
    std::string m_csv;                          //!< summary.csv
    std::string m_json;                         //!< summary.json
    std::string m_rounds;                       //!< rounds.csv
};

} // namespace ns3

#endif /* EXPERIMENT_REPORT_H */
