/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "experiment-report.h"

#include "csv-field.h"
#include "wan-config-error.h"

#include "ns3/log.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iomanip>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("WanTrainingExperimentReport");

namespace
{

/** How far simulated and predicted round times may differ before the table flags a mode. */
const double AGREEMENT = 0.10;

/**
 * @param result a run's outcomes
 * @return the width of the table's first column: every mode's or set's name and two spaces
 */
int
GetNameWidth(const TrainingExperiment::Result& result)
{
    std::size_t width = 12;
    for (const TrainingExperiment::ModeOutcome& o : result.modes)
    {
        width = std::max(width, o.GetName().size() + 2);
    }
    return static_cast<int>(width);
}

} // namespace

ExperimentReport::ExperimentReport(const WanTopology& topology,
                                   const TrainingExperiment::Config& config,
                                   double computeS)
    : m_topology(topology),
      m_config(config),
      m_computeS(computeS)
{
}

void
ExperimentReport::WriteText(const std::filesystem::path& file, const std::string& text)
{
    std::ofstream out(file);
    out << text;
    if (!out)
    {
        throw WanConfigError("outDir", "cannot write " + file.string());
    }
}

std::string
ExperimentReport::Format(double value, int precision)
{
    std::ostringstream out;
    out << std::setprecision(precision) << value;
    return out.str();
}

double
ExperimentReport::FirstTimeAtOrBelow(const std::vector<std::pair<double, double>>& curve,
                                     double target)
{
    for (const auto& [t, value] : curve)
    {
        if (value <= target)
        {
            return t;
        }
    }
    return -1;
}

double
ExperimentReport::Mean(const std::vector<double>& values)
{
    double sum = 0;
    for (double v : values)
    {
        sum += v;
    }
    return values.empty() ? 0 : sum / values.size();
}

double
ExperimentReport::RelativeDifference(double simulated, double predicted)
{
    if (predicted <= 0)
    {
        return simulated <= 0 ? 0 : std::numeric_limits<double>::infinity();
    }
    return (simulated - predicted) / predicted;
}

std::string
ExperimentReport::ExplainDifference(const TrainingExperiment::ModeOutcome& o,
                                    double difference) const
{
    std::vector<std::string> reasons;
    if (o.errorDrops > 0 || o.repairs > 0)
    {
        reasons.push_back(std::to_string(o.errorDrops) + " packets lost on WAN links, " +
                          std::to_string(o.repairs) +
                          " chunks repaired (the schedule model assumes lossless links)");
    }
    if (o.queueDrops > 0)
    {
        reasons.push_back(std::to_string(o.queueDrops) +
                          " queue drops: cliques of consecutive rounds overlapped on shared links "
                          "(the schedule model charges each round alone)");
    }
    if (o.partialAggregates > 0)
    {
        reasons.push_back(std::to_string(o.partialAggregates) +
                          " FPGA aggregates left partial after the FPGA Timeout");
    }
    double maxLatency = 0;
    double maxBandwidth = 0;
    for (const auto& round : o.evaluation.rounds)
    {
        // A ring's latency is its critical chain's (its latencyS also holds step waits).
        maxLatency =
            std::max(maxLatency, round.criticalPath.empty() ? round.latencyS : round.chainLatencyS);
        maxBandwidth = std::max(maxBandwidth, round.bottleneckS);
    }
    if (difference > 0 && maxLatency > m_computeS)
    {
        reasons.push_back("path latency " + Format(maxLatency * 1e3, 3) + " ms exceeds tau_c " +
                          Format(m_computeS * 1e3, 3) +
                          " ms: the READY handshake of a round is not hidden behind compute");
    }
    if (difference > 0 && maxBandwidth < maxLatency)
    {
        reasons.push_back(
            "S is small against the bandwidth-delay product (transfer " +
            Format(maxBandwidth * 1e3, 3) + " ms < latency " + Format(maxLatency * 1e3, 3) +
            " ms): pacing start-up and repair waits weigh more than the schedule model's "
            "fluid model");
    }
    std::string text;
    for (const auto& reason : reasons)
    {
        text += (text.empty() ? "" : "; ") + reason;
    }
    return text;
}

std::string
ExperimentReport::DescribeBinding(const TrainingExperiment::Result& result) const
{
    std::ostringstream table;
    table
        << "\nWhat binds (schedule model): per schedule round, the largest latency inside a clique "
           "and the busiest directed link with its streams (units of S); for a ring, the critical "
           "hop chain of its step recursion (its hop latencies, then its steps) and the busiest "
           "link\n";
    const int nameWidth = GetNameWidth(result);
    for (const TrainingExperiment::ModeOutcome& o : result.modes)
    {
        table << "  " << std::left << std::setw(nameWidth) << o.GetName() << std::right;
        for (size_t r = 0; r < o.evaluation.rounds.size(); ++r)
        {
            const auto& cost = o.evaluation.rounds[r];
            table << (r ? " | " : "");
            if (cost.criticalPath.empty())
            {
                table << "lat " << Format(cost.latencyS * 1e3, 3) << " ms + ";
            }
            else
            {
                table << "chain ";
                for (size_t i = 0; i < cost.criticalPath.size(); ++i)
                {
                    table << (i ? ">" : "") << m_topology.GetCity(cost.criticalPath[i]).id;
                }
                table << " " << Format(cost.chainLatencyS * 1e3, 3) << " ms + steps "
                      << Format((cost.commS - cost.chainLatencyS) * 1e3, 3) << " ms; busiest ";
            }
            if (cost.commS > 0)
            {
                table << Format(cost.bottleneckS * 1e3, 3) << " ms on "
                      << m_topology.GetDirectedLinkName(cost.bottleneckLink) << " ("
                      << Format(cost.loads[cost.bottleneckLink], 3) << ")";
            }
            else
            {
                table << "idle";
            }
        }
        table << "\n";
    }
    table << "\nXi/colo: the schedule model's drift consensus distance Xi of the schedule over "
             "colocated "
             "training's.\n"
             "round pred/sim, diff: mean round time, round end to round end (tau_c + T_comm; "
             "with overlap max(tau_c, T_comm) after a first round of tau_c + T_comm), "
             "predicted by the schedule model and simulated (the model's rounds wait for their "
             "slowest clique, the islands' cliques do not); comm: the same for the "
             "communication part.\n"
             "t_target: simulated time until F(average model) - F* reaches the target; final "
             "loss: the same at the end.\n"
             "island loss: mean over islands of F(x_i) - F* at the end (each island's own model); "
             "consensus: mean squared\n"
             "distance of the islands' models to their average at the end; gap: t_target over "
             "colocated's.\n"
             "fmt error: the payload format's error, max |err| / max |avg| of the islands' "
             "averages against the exact average of their fp32 parameters (fp32: rounding).\n";
    return table.str();
}

nlohmann::json
ExperimentReport::GetAlgorithmsJson(const CliqueSchedule& schedule)
{
    nlohmann::json rounds = nlohmann::json::array();
    for (uint32_t r = 0; r < schedule.GetNRounds(); ++r)
    {
        nlohmann::json cliques = nlohmann::json::array();
        for (uint32_t c = 0; c < schedule.GetRound(r).size(); ++c)
        {
            const std::optional<CapabilityMode> algorithm = schedule.GetAlgorithm(r, c);
            cliques.push_back(algorithm ? nlohmann::json(CapabilityModeToString(*algorithm))
                                        : nlohmann::json());
        }
        rounds.push_back(cliques);
    }
    return rounds;
}

void
ExperimentReport::DescribeCapabilitySets(TrainingExperiment::Result& result) const
{
    // Each set's optimum, clique by clique, and the check that more network is never worse:
    // not than a smaller set's, nor than a mode's that the set allows.
    for (const TrainingExperiment::ModeOutcome& o : result.modes)
    {
        if (!o.capabilities)
        {
            continue;
        }
        std::string text = o.GetName() + " picked:";
        for (uint32_t r = 0; r < o.schedule.GetNRounds(); ++r)
        {
            text += r ? ";" : "";
            for (uint32_t c = 0; c < o.schedule.GetRound(r).size(); ++c)
            {
                const std::optional<CapabilityMode> algorithm = o.schedule.GetAlgorithm(r, c);
                if (!algorithm)
                {
                    continue;
                }
                text += " " + CapabilityModeToString(*algorithm) + " {";
                for (uint32_t i = 0; i < o.schedule.GetRound(r)[c].size(); ++i)
                {
                    text += (i ? " " : "") + m_topology.GetCity(o.schedule.GetRound(r)[c][i]).id;
                }
                text += "}";
            }
        }
        result.notes.push_back(text);
        for (const TrainingExperiment::ModeOutcome& smaller : result.modes)
        {
            // A smaller set, or a mode the set allows: its optimum is one the set may pick.
            const bool within = smaller.capabilities
                                    ? *smaller.capabilities != *o.capabilities &&
                                          o.capabilities->Contains(*smaller.capabilities)
                                    : o.capabilities->Allows(smaller.mode);
            if (within && o.evaluation.xiS > smaller.evaluation.xiS * (1 + 1e-12))
            {
                result.allPassed = false;
                result.notes.push_back("MORE NETWORK IS WORSE: " + o.GetName() + " Xi " +
                                       Format(o.evaluation.xiS) + " s > " + smaller.GetName() +
                                       " Xi " + Format(smaller.evaluation.xiS) + " s");
            }
        }
    }
}

void
ExperimentReport::Compose(TrainingExperiment::Result& result)
{
    const TrainingRun::Config& config = m_config.training;
    const double computeS = m_computeS;
    const double xiColocated = result.xiColocatedS;
    std::ostringstream table;
    table << m_config.name << ": topology '" << m_topology.GetName() << "' ("
          << m_topology.GetNCities() << " islands), S = " << config.modelBytes << " bytes";
    if (m_config.NamesFormat())
    {
        table << " (" << PayloadFormatToString(config.format)
              << (m_config.modelParameters > 0
                      ? ", " + std::to_string(m_config.modelParameters) + " parameters"
                      : std::string())
              << ")";
    }
    table << ", tau_c = " << Format(computeS) << " s (" << config.localSteps << " x "
          << Format(config.stepTime.GetSeconds() * 1e3) << " ms)"
          << (config.overlap ? " overlapped with the exchange" : "") << ", " << config.rounds
          << " rounds, seed " << config.seed << ", WAN loss " << config.wanLossRate << "\n";
    table << "colocated: Xi_colo " << Format(xiColocated) << " s; loss "
          << Format(result.initialLoss) << " -> target " << Format(result.targetLoss) << " ("
          << m_config.targetLossFraction << " x initial) ";
    if (result.colocatedTargetS >= 0)
    {
        table << "at " << Format(result.colocatedTargetS) << " s\n\n";
    }
    else
    {
        table << "not reached in " << config.rounds << " rounds\n\n";
    }
    const int nameWidth = GetNameWidth(result);
    table << std::left << std::setw(nameWidth) << "mode" << std::setw(22) << "schedule"
          << std::right << std::setw(8) << "Xi/colo" << std::setw(11) << "round pred"
          << std::setw(10) << "round sim" << std::setw(8) << "diff" << std::setw(10) << "comm pred"
          << std::setw(10) << "comm sim" << std::setw(11) << "t_target" << std::setw(11)
          << "final loss" << std::setw(12) << "island loss" << std::setw(11) << "consensus"
          << std::setw(10) << "fmt error" << std::setw(9) << "gap"
          << "\n";
    nlohmann::json summaryJson = nlohmann::json::array();
    std::ostringstream csv;
    csv << "mode,schedule,origin,period,xi_s,xi_over_colocated,predicted_round_s,"
           "simulated_round_s,round_difference,predicted_comm_s,simulated_comm_s,"
           "time_to_target_s,colocated_time_to_target_s,gap_to_colocated,final_loss,"
           "final_island_loss,final_consensus,format_error_rel,verified,flag\n";
    result.notes = result.simulationFailures;
    result.allPassed = true;
    result.summaries.assign(result.modes.size(), TrainingExperiment::ModeSummary());
    for (size_t m = 0; m < result.modes.size(); ++m)
    {
        const TrainingExperiment::ModeOutcome& o = result.modes[m];
        TrainingExperiment::ModeSummary& s = result.summaries[m];
        const std::string name = o.GetName();
        const std::string schedule = ScheduleOptimizer::GetProfile(o.schedule);
        if (o.loss.empty())
        {
            // No results JSON: the simulation process failed (its reason is in the notes).
            result.allPassed = false;
            s.flag = "FAILED";
            table << std::left << std::setw(nameWidth) << name << std::setw(22) << schedule
                  << "FAILED: " << o.failure << "\n";
            csv << CsvField(name) << "," << schedule << "," << CsvField(o.origin) << ","
                << o.schedule.GetNRounds() << "," << o.evaluation.xiS
                << ",,,,,,,,,,,,,,false,FAILED\n";
            summaryJson.push_back({{"mode", name}, {"verified", false}, {"flag", "FAILED"}});
            continue;
        }
        std::vector<double> predictedRound;
        std::vector<double> simulatedRound;
        std::vector<double> simulatedComm;
        for (size_t r = 0; r < o.predictedCommS.size(); ++r)
        {
            predictedRound.push_back(o.predictedRoundS[r]);
            if (o.simulatedRoundS[r] >= 0)
            {
                simulatedRound.push_back(o.simulatedRoundS[r]);
            }
            if (o.simulatedCommS[r] >= 0)
            {
                simulatedComm.push_back(o.simulatedCommS[r]);
            }
        }
        s.predictedRoundS = Mean(predictedRound);
        s.simulatedRoundS = Mean(simulatedRound);
        s.difference = RelativeDifference(s.simulatedRoundS, s.predictedRoundS);
        s.predictedCommS = Mean(o.predictedCommS);
        s.simulatedCommS = Mean(simulatedComm);
        s.timeToTargetS = FirstTimeAtOrBelow(o.loss, result.targetLoss);
        s.gapToColocated = s.timeToTargetS >= 0 && result.colocatedTargetS > 0
                               ? s.timeToTargetS / result.colocatedTargetS
                               : -1;
        const double gap = s.gapToColocated;
        const double diff = s.difference;
        if (!o.passed)
        {
            result.allPassed = false;
            s.flag = "FAILED";
            result.notes.push_back(name + ": did not complete every round with verified averages" +
                                   (o.failure.empty() ? std::string() : " (" + o.failure + ")"));
        }
        else if (std::abs(diff) > AGREEMENT)
        {
            s.flag = "differs";
            std::string why = ExplainDifference(o, diff);
            result.notes.push_back(name + ": simulated round time " + Format(diff * 100, 3) +
                                   "% off the schedule model's prediction: " +
                                   (why.empty()
                                        ? "no loss, drop or FPGA timeout explains it (see " + name +
                                              ".json, rounds[].cliques)"
                                        : why));
        }
        const std::string& flag = s.flag;
        std::ostringstream diffText;
        diffText << std::showpos << std::fixed << std::setprecision(1) << diff * 100 << "%";
        table << std::left << std::setw(nameWidth) << name << std::setw(22) << schedule
              << std::right << std::setw(8) << Format(o.evaluation.xiS / xiColocated, 3)
              << std::setw(11) << Format(s.predictedRoundS) << std::setw(10)
              << Format(s.simulatedRoundS) << std::setw(8) << diffText.str() << std::setw(10)
              << Format(s.predictedCommS) << std::setw(10) << Format(s.simulatedCommS)
              << std::setw(11) << (s.timeToTargetS >= 0 ? Format(s.timeToTargetS) : "-")
              << std::setw(11) << Format(o.loss.back().second) << std::setw(12)
              << Format(o.finalIslandLoss) << std::setw(11) << Format(o.consensus.back().second)
              << std::setw(10) << Format(o.formatErrorRel, 3) << std::setw(9)
              << (gap > 0 ? "x" + Format(gap, 3) : "-") << (flag.empty() ? "" : "  " + flag)
              << "\n";
        csv << CsvField(name) << "," << schedule << "," << CsvField(o.origin) << ","
            << o.schedule.GetNRounds() << "," << o.evaluation.xiS << ","
            << o.evaluation.xiS / xiColocated << "," << s.predictedRoundS << ","
            << s.simulatedRoundS << "," << diff << "," << s.predictedCommS << ","
            << s.simulatedCommS << "," << (s.timeToTargetS >= 0 ? Format(s.timeToTargetS, 9) : "")
            << "," << (result.colocatedTargetS >= 0 ? Format(result.colocatedTargetS, 9) : "")
            << "," << (gap > 0 ? Format(gap, 9) : "") << "," << o.loss.back().second << ","
            << o.finalIslandLoss << "," << o.consensus.back().second << "," << o.formatErrorRel
            << "," << (o.passed ? "true" : "false") << "," << flag << "\n";
        summaryJson.push_back(
            {{"mode", name},
             {"capabilities",
              o.capabilities ? nlohmann::json(o.capabilities->ToString()) : nlohmann::json()},
             {"algorithms", GetAlgorithmsJson(o.schedule)},
             {"schedule", schedule},
             {"origin", o.origin},
             {"period", o.schedule.GetNRounds()},
             {"xi_s", o.evaluation.xiS},
             {"xi_over_colocated", o.evaluation.xiS / xiColocated},
             {"predicted_round_s", s.predictedRoundS},
             {"simulated_round_s", s.simulatedRoundS},
             {"round_difference", diff},
             {"predicted_comm_s", s.predictedCommS},
             {"simulated_comm_s", s.simulatedCommS},
             {"time_to_target_s",
              s.timeToTargetS >= 0 ? nlohmann::json(s.timeToTargetS) : nlohmann::json(nullptr)},
             {"gap_to_colocated", gap > 0 ? nlohmann::json(gap) : nlohmann::json(nullptr)},
             {"final_loss", o.loss.back().second},
             {"final_island_loss", o.finalIslandLoss},
             {"final_consensus", o.consensus.back().second},
             {"format_error_rel", o.formatErrorRel},
             {"training_time_s", o.trainingTimeS},
             {"packet_hops", o.packetHops},
             {"verified", o.passed},
             {"flag", flag}});
    }
    DescribeCapabilitySets(result);
    table << DescribeBinding(result);
    for (const auto& note : result.notes)
    {
        table << "note: " << note << "\n";
    }
    result.table = table.str();
    m_csv = csv.str();

    nlohmann::json summaryDoc = {
        {"config", result.config},
        {"colocated",
         {{"xi_s", xiColocated},
          {"initial_loss", result.initialLoss},
          {"target_loss", result.targetLoss},
          {"time_to_target_s",
           result.colocatedTargetS >= 0 ? nlohmann::json(result.colocatedTargetS)
                                        : nlohmann::json(nullptr)}}},
        {"modes", summaryJson},
        {"notes", result.notes}};
    m_json = summaryDoc.dump(2) + "\n";

    std::ostringstream rounds;
    rounds << "mode,round,predicted_comm_s,simulated_comm_s,predicted_round_s,simulated_round_s\n";
    for (const TrainingExperiment::ModeOutcome& o : result.modes)
    {
        for (size_t r = 0; r < o.predictedCommS.size(); ++r)
        {
            rounds << CsvField(o.GetName()) << "," << r << "," << o.predictedCommS[r] << ","
                   << o.simulatedCommS[r] << "," << o.predictedRoundS[r] << ","
                   << o.simulatedRoundS[r] << "\n";
        }
    }
    m_rounds = rounds.str();
}

void
ExperimentReport::Write(const TrainingExperiment::Result& result,
                        const std::filesystem::path& directory) const
{
    WriteText(directory / "summary.txt", result.table);
    WriteText(directory / "summary.csv", m_csv);
    WriteText(directory / "summary.json", m_json);
    WriteText(directory / "rounds.csv", m_rounds);
}

} // namespace ns3
