/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "training-experiment.h"

#include "child-process-pool.h"
#include "experiment-plots.h"
#include "experiment-report.h"
#include "wan-config-error.h"
#include "wan-input-error.h"

#include "ns3/log.h"

#include <algorithm>
#include <chrono>
#include <ctime>
#include <fstream>
#include <sstream>
#include <thread>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("WanTrainingTrainingExperiment");

namespace
{

/**
 * @return the current UTC time as YYYYMMDD-HHMMSS, the default run id
 */
std::string
TimestampRunId()
{
    const std::time_t now = std::time(nullptr);
    std::tm utc{};
    char text[32];
    std::strftime(text, sizeof(text), "%Y%m%d-%H%M%S", gmtime_r(&now, &utc));
    return text;
}

} // namespace

TrainingExperiment::TrainingExperiment(const WanTopology& topology, const Config& config)
    : m_topology(topology),
      m_config(config)
{
}

void
TrainingExperiment::Validate() const
{
    if (m_config.modes.empty() && m_config.capabilitySets.empty())
    {
        throw WanConfigError("modes", "names no mode (e.g. unicast,both,ring) and no set");
    }
    const CapabilitySet offered = CapabilitySet::Of(m_topology);
    for (std::size_t i = 0; i < m_config.capabilitySets.size(); ++i)
    {
        const CapabilitySet& set = m_config.capabilitySets[i];
        if (!offered.Contains(set))
        {
            throw WanConfigError("capabilitySets",
                                 "'" + set.ToString() + "' asks for more than topology '" +
                                     m_topology.GetName() + "' has (its capabilities are " +
                                     offered.ToString() + ")");
        }
        for (std::size_t j = 0; j < i; ++j)
        {
            if (m_config.capabilitySets[j] == set)
            {
                throw WanConfigError("capabilitySets", "'" + set.ToString() + "' is given twice");
            }
        }
    }
    if (!(m_config.targetLossFraction > 0 && m_config.targetLossFraction < 1))
    {
        throw WanConfigError("targetLossFraction", "must be in (0, 1)");
    }
    for (CapabilityMode mode : m_config.modes)
    {
        // Every mode's configuration is checked before the first simulation starts.
        TrainingRun::Config modeConfig = m_config.training;
        modeConfig.mode = mode;
        TrainingRun::Validate(m_topology,
                              CliqueSchedule::AllReduce(m_topology.GetNCities()),
                              modeConfig);
    }
}

uint32_t
TrainingExperiment::GetJobs() const
{
    return m_config.jobs == 0 ? std::max(1U, std::thread::hardware_concurrency()) : m_config.jobs;
}

double
TrainingExperiment::GetComputeS() const
{
    return m_config.training.localSteps * m_config.training.stepTime.GetSeconds();
}

void
TrainingExperiment::Log(const std::string& line) const
{
    if (m_config.log != nullptr)
    {
        *m_config.log << m_config.name << ": " << line << std::endl;
    }
}

std::string
TrainingExperiment::ModeOutcome::GetName() const
{
    return capabilities ? "{" + capabilities->ToString() + "}" : CapabilityModeToString(mode);
}

std::string
TrainingExperiment::ModeOutcome::GetFileStem() const
{
    if (!capabilities)
    {
        return CapabilityModeToString(mode);
    }
    return "set-" + capabilities->ToFileStem();
}

void
TrainingExperiment::SimulateMode(const ModeOutcome& outcome,
                                 const std::filesystem::path& directory,
                                 const nlohmann::json& runConfig) const
{
    const std::string name = outcome.GetFileStem();
    TrainingRun::Config config = m_config.training;
    // A set's optimum: each clique by the algorithm it picked.
    config.mode = outcome.capabilities ? std::nullopt : std::optional(outcome.mode);
    if (!config.pcapDir.empty())
    {
        config.pcapDir = (std::filesystem::path(config.pcapDir) / name).string();
    }
    config.progressLabel = m_config.name + ": " + name;
    TrainingRun run(m_topology, outcome.schedule, config);
    run.SetFaultLog(&std::cerr, m_config.name);
    run.Build();
    nlohmann::json recorded = run.GetConfigJson();
    recorded["program"] = m_config.name;
    recorded["experiment"] = runConfig;
    recorded["schedule_origin"] = outcome.origin;
    recorded["schedule_rounds"] =
        nlohmann::json::parse(outcome.schedule.ToJson(m_topology))["rounds"];
    recorded["predicted_xi_s"] = outcome.evaluation.xiS;
    run.GetResults().SetConfigJson(recorded.dump());
    run.Run();
    run.GetResults().WriteFile((directory / (name + ".json")).string());
    Log(name + ": simulated in " + ExperimentReport::Format(run.GetWallSeconds(), 3) + " s wall");
}

void
TrainingExperiment::ReadOutcome(const TrainingRunSummary& results, ModeOutcome& outcome) const
{
    double previousEnd = 0;
    for (const TrainingRunSummary::Round& round : results.rounds)
    {
        outcome.predictedCommS.push_back(round.predictedCommS);
        outcome.simulatedCommS.push_back(round.commS.value_or(-1));
        const double end = round.endS.value_or(-1);
        outcome.simulatedRoundS.push_back(end < 0 ? -1 : end - previousEnd);
        previousEnd = end < 0 ? previousEnd : end;
    }
    // Predicted like the simulated: from round end to round end (with overlap the first round
    // also takes tau_c + T_comm).
    const std::vector<double> ends = ScheduleMetrics::GetRoundEnds(
        m_config.training.localSteps * m_config.training.stepTime.GetSeconds(),
        outcome.predictedCommS,
        m_config.training.overlap);
    for (size_t r = 0; r < ends.size(); ++r)
    {
        outcome.predictedRoundS.push_back(ends[r] - (r > 0 ? ends[r - 1] : 0.0));
    }
    for (const TrainingRunSummary::LossSample& sample : results.loss)
    {
        outcome.loss.emplace_back(sample.timeS, sample.value);
    }
    outcome.finalIslandLoss = results.loss.back().islandMean;
    for (const TrainingRunSummary::Point& sample : results.consensus)
    {
        outcome.consensus.emplace_back(sample.timeS, sample.value);
    }
    for (uint32_t d = 0; d < m_topology.GetNDirectedLinks(); ++d)
    {
        const TrainingRunSummary::Link& link = results.links.at(m_topology.GetDirectedLinkName(d));
        outcome.linkBytes.push_back(static_cast<double>(link.bytes));
        outcome.packetHops += link.packets;
    }
    outcome.trainingTimeS = results.summary.trainingTimeS;
    outcome.repairs = results.summary.repairs;
    outcome.errorDrops = results.summary.errorDrops;
    outcome.queueDrops = results.summary.queueDrops;
    outcome.partialAggregates = results.summary.fpgaPartialAggregates;
    outcome.passed = results.verification.passed;
    outcome.formatErrorRel = results.verification.formatError.maxRel;
    for (const auto& [city, island] : results.islands)
    {
        if (island.failure)
        {
            outcome.failure +=
                (outcome.failure.empty() ? "" : "; ") + city + ": " + *island.failure;
        }
    }
}

bool
TrainingExperiment::Config::NamesFormat() const
{
    return training.format != PayloadFormat::FP32 || modelParameters > 0;
}

TrainingExperiment::Result
TrainingExperiment::Run()
{
    NS_LOG_FUNCTION(this);
    Validate();
    const uint32_t jobs = GetJobs();
    std::string runId = m_config.runId.empty() ? TimestampRunId() : m_config.runId;
    if (runId.find('/') != std::string::npos || runId == "." || runId == "..")
    {
        throw WanConfigError("runId", "must be a plain directory name (got '" + runId + "')");
    }
    Result result;
    const std::filesystem::path directory = std::filesystem::path(m_config.outDir) / runId;
    result.directory = directory;
    {
        std::error_code error;
        std::filesystem::create_directories(directory, error);
        if (error || !std::filesystem::is_directory(directory))
        {
            throw WanConfigError("outDir", "cannot create directory '" + directory.string() + "'");
        }
    }

    const TrainingRun::Config& config = m_config.training;
    const double computeS = GetComputeS();
    std::string modesText = m_config.modesText;
    for (std::size_t m = 0; m_config.modesText.empty() && m < m_config.modes.size(); ++m)
    {
        modesText += (m ? "," : "") + CapabilityModeToString(m_config.modes[m]);
    }
    result.config = {
        {"program", m_config.name},
        {"preset", m_config.preset},
        {"topology", m_config.topologySource},
        {"topology_name", m_topology.GetName()},
        {"modes", modesText},
        {"capability_sets", nlohmann::json::array()},
        {"model_bytes", config.modelBytes},
        {"rounds", config.rounds},
        {"local_steps", config.localSteps},
        {"step_time_s", config.stepTime.GetSeconds()},
        {"compute_s", computeS},
        {"overlap", config.overlap},
        {"parameter_count", config.parameterCount},
        {"learning_rate", config.learningRate},
        {"heterogeneity", config.heterogeneity},
        {"target_loss_fraction", m_config.targetLossFraction},
        {"seed", config.seed},
        {"max_period", m_config.optimizer.maxPeriod},
        {"max_evaluations", m_config.optimizer.maxEvaluations},
        {"wan_packet_error_rate", config.wanLossRate},
        {"run_id", runId},
    };
    for (const CapabilitySet& set : m_config.capabilitySets)
    {
        result.config["capability_sets"].push_back(set.ToString());
    }
    if (m_config.NamesFormat())
    {
        result.config["format"] = PayloadFormatToString(m_config.training.format);
        if (m_config.modelParameters > 0)
        {
            result.config["model_parameters"] = m_config.modelParameters;
        }
    }
    ExperimentReport::WriteText(directory / "config.json", result.config.dump(2) + "\n");
    ExperimentReport::WriteText(directory / "topology.json", m_config.topologyText);

    // 1. Optimize, 2. simulate, mode by mode.
    const auto wallStart = std::chrono::steady_clock::now();
    ScheduleMetrics::Settings settings;
    settings.modelBytes = static_cast<double>(config.modelBytes);
    settings.computeS = computeS;
    settings.overlap = config.overlap;
    std::vector<ModeOutcome> networks;
    for (CapabilityMode mode : m_config.modes)
    {
        networks.emplace_back();
        networks.back().mode = mode;
    }
    for (const CapabilitySet& set : m_config.capabilitySets)
    {
        networks.emplace_back();
        networks.back().capabilities = set;
    }
    for (ModeOutcome& outcome : networks)
    {
        const std::string name = outcome.GetName();
        std::ostringstream line;
        line << name << ": optimizing the schedule (S = " << config.modelBytes
             << " bytes, tau_c = " << computeS << " s)";
        Log(line.str());
        ScheduleOptimizer optimizer =
            outcome.capabilities
                ? ScheduleOptimizer(m_topology, settings, *outcome.capabilities, m_config.optimizer)
                : ScheduleOptimizer(m_topology, settings, outcome.mode, m_config.optimizer);
        ScheduleOptimizer::Result best = optimizer.Optimize();
        outcome.schedule = best.schedule;
        outcome.origin = best.origin;
        outcome.evaluation = best.evaluation;
        ExperimentReport::WriteText(directory / (outcome.GetFileStem() + "-schedule.json"),
                                    best.schedule.ToJson(m_topology) + "\n");
        Log(name + ": schedule " + ScheduleOptimizer::GetProfile(best.schedule) + " (Xi " +
            ExperimentReport::Format(best.evaluation.xiS) + " s)");
    }
    result.modes = std::move(networks);
    {
        std::ostringstream line;
        line << "simulating " << config.rounds << " rounds of every mode, " << jobs << " at once";
        Log(line.str());
    }

    // Every mode in a child process of its own: the simulator is a process-wide singleton; the
    // runs are independent and their results do not depend on how many run at once.
    std::vector<ChildProcessPool::Job> simulations;
    for (const ModeOutcome& outcome : result.modes)
    {
        ChildProcessPool::Job job;
        job.name = outcome.GetName();
        job.function = [this, &outcome, &directory, &result]() {
            SimulateMode(outcome, directory, result.config);
            return 0;
        };
        simulations.push_back(job);
    }
    ChildProcessPool pool(jobs);
    const std::vector<ChildProcessPool::Result> ended = pool.Run(simulations);
    std::vector<std::size_t> byEnd(ended.size());
    for (std::size_t m = 0; m < ended.size(); ++m)
    {
        if (!ended[m].started)
        {
            throw WanConfigError("jobs", "cannot start a simulation process (fork failed)");
        }
        byEnd[ended[m].order - 1] = m;
    }
    for (std::size_t m : byEnd)
    {
        // In the order the processes ended, as they were reported.
        if (!ended[m].Succeeded())
        {
            result.simulationFailures.push_back(
                simulations[m].name + ": the simulation " +
                (ended[m].exited ? "exited with status " + std::to_string(ended[m].exitStatus)
                                 : "was killed by signal " + std::to_string(ended[m].signal)));
        }
    }
    for (ModeOutcome& outcome : result.modes)
    {
        const std::filesystem::path file = directory / (outcome.GetFileStem() + ".json");
        if (!std::filesystem::is_regular_file(file))
        {
            outcome.failure = "no results JSON (the simulation did not finish)";
            continue;
        }
        TrainingRunSummary results;
        try
        {
            results = TrainingRunSummary::ReadFile(file.string());
        }
        catch (const WanInputError& error)
        {
            outcome.failure = std::string("unreadable results JSON: ") + error.what();
            continue;
        }
        ReadOutcome(results, outcome);
        if (!result.finished)
        {
            // The colocated reference, from the same objectives (every results JSON holds the
            // same curve; the first mode's that finished is read back).
            result.finished = true;
            result.colocated.emplace_back(0.0, outcome.loss.front().second);
            for (const TrainingRunSummary::Point& point : results.colocatedLoss)
            {
                result.colocated.emplace_back(point.timeS, point.value);
            }
        }
    }
    if (!result.finished)
    {
        for (const auto& failure : result.simulationFailures)
        {
            Log(failure);
        }
        Log("no mode finished its simulation");
        return result;
    }
    result.initialLoss = result.colocated.front().second;
    result.targetLoss = m_config.targetLossFraction * result.initialLoss;
    result.colocatedTargetS =
        ExperimentReport::FirstTimeAtOrBelow(result.colocated, result.targetLoss);
    result.xiColocatedS = result.modes.front().evaluation.xiColocatedS;

    ExperimentReport report(m_topology, m_config, computeS);
    report.Compose(result);
    if (m_config.summary != nullptr)
    {
        *m_config.summary << result.table << std::flush;
    }
    report.Write(result, directory);
    for (const auto& note : ExperimentPlots(m_topology).Write(result, directory))
    {
        Log(note);
    }

    // OUT/latest points at this run.
    {
        std::error_code ignored;
        const std::filesystem::path latest = std::filesystem::path(m_config.outDir) / "latest";
        if (std::filesystem::is_symlink(latest, ignored) || !std::filesystem::exists(latest))
        {
            std::filesystem::remove(latest, ignored);
            std::filesystem::create_directory_symlink(runId, latest, ignored);
        }
    }
    const double wallS =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wallStart).count();
    Log("results in " + directory.string() + " (" + ExperimentReport::Format(wallS, 3) +
        " s wall)");
    if (!result.allPassed)
    {
        Log("a mode failed (see the notes and its results JSON)");
    }
    return result;
}

} // namespace ns3
