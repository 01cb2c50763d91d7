/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

/*
 * The nine-city experiment: how close does training across a WAN get to colocated training,
 * and how does the best schedule shift as the network learns to replicate and to sum?
 *
 *   for each mode in --modes (unicast, multicast, aggregation, both, and the unicast ring
 *   all-reduce baseline):
 *     1. ScheduleOptimizer picks the rotating-clique schedule with the smallest drift consensus
 *        distance Xi (MODEL.md) for the model size S and the compute time tau_c
 *     2. TrainingRun simulates it packet by packet: nine TrainingIslandApplications take real
 *        gradient steps on their local objectives and average real parameters in their cliques
 *        (every average checked against an exact shadow copy)
 *   colocated reference: every island averages exactly after every round's local steps, at no
 *   communication cost (the gold standard; computed from the same objectives)
 *
 * stdout: one summary table (every number computed in this run; no wall times, so the same
 * seed gives the same table); stderr: progress (rounds done, simulated and wall time).
 * results/<run-id>/: config.json, topology.json, per mode MODE.json (TrainingResults) and
 * MODE-schedule.json, summary.{txt,csv,json}, rounds.csv, and plots (gnuplot scripts and PNG):
 * loss.png, consensus.png, link-utilization.png, round-times.png.
 *
 * Usage: nine-city-training [--quick] [--modes=unicast,both,...] [--modelBytes=1e8]
 *          [--rounds=N] [--localSteps=N] [--stepTime=50ms] [--seed=N] [--topology=FILE]
 *          [--out=results] [--runId=ID] [--pcap=DIR] ...            (--help lists every knob)
 * Exit status: 0 every mode completed with verified averages, 1 input error, 2 a mode failed.
 */

#include "clique-schedule.h"
#include "command-line-values.h"
#include "fault-plan.h"
#include "link-load-model.h"
#include "nine-city-topology.h"
#include "plot-renderer.h"
#include "schedule-metrics.h"
#include "schedule-optimizer.h"
#include "training-options.h"
#include "training-run.h"
#include "wan-input-error.h"
#include "wan-topology.h"

#include "ns3/command-line.h"
#include "ns3/gnuplot.h"
#include "ns3/log.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

using namespace ns3;

NS_LOG_COMPONENT_DEFINE("WanTrainingNineCityTraining");

namespace
{

/** The program name used in messages. */
const char* const PROGRAM = "nine-city-training";

/** How far simulated and predicted round times may differ before the table flags a mode. */
const double AGREEMENT = 0.10;

/** One mode's optimized schedule and simulated outcome. */
struct ModeOutcome
{
    CapabilityMode mode{CapabilityMode::UNICAST};           //!< the capability mode
    CliqueSchedule schedule = CliqueSchedule::AllReduce(1); //!< the optimized schedule
    std::string origin;                                     //!< "search" or a baseline name
    ScheduleMetrics::Evaluation evaluation;                 //!< its MODEL.md metrics
    std::vector<double> predictedCommS;                     //!< T_comm per simulated round
    std::vector<double> simulatedCommS;               //!< comm_s per simulated round (-1: none)
    std::vector<double> simulatedRoundS;              //!< end(r) - end(r-1) per round
    std::vector<std::pair<double, double>> loss;      //!< (t, loss of the average model)
    std::vector<std::pair<double, double>> consensus; //!< (t, consensus distance)
    std::vector<double> linkBytes;                    //!< bytes per directed link
    double finalIslandLoss{0};                        //!< mean over islands of F(x_i) - F*
    double trainingTimeS{0};                          //!< last round end
    double timeToTargetS{-1};                         //!< first time at the target (-1: never)
    bool passed{false};                               //!< complete and verified
    uint64_t repairs{0};                              //!< chunks sent again
    uint64_t errorDrops{0};                           //!< packets lost to the error models
    uint64_t queueDrops{0};                           //!< packets dropped by full queues
    uint64_t partialAggregates{0};                    //!< FPGA aggregates released by Timeout
    uint64_t packetHops{0};                           //!< packets transmitted, all links
    std::string failure;                              //!< why an island gave up (empty: none)
};

/**
 * @param values numbers
 * @return their mean (0 when empty)
 */
double
Mean(const std::vector<double>& values)
{
    double sum = 0;
    for (double v : values)
    {
        sum += v;
    }
    return values.empty() ? 0 : sum / values.size();
}

/**
 * @param value a number
 * @param precision significant digits
 * @return it in fixed or scientific notation, whichever reads better
 */
std::string
Format(double value, int precision = 4)
{
    std::ostringstream out;
    out << std::setprecision(precision) << value;
    return out.str();
}

/**
 * @param simulated a simulated value
 * @param predicted the prediction
 * @return the relative difference (simulated - predicted) / predicted, 0 when both are 0
 */
double
RelativeDifference(double simulated, double predicted)
{
    if (predicted <= 0)
    {
        return simulated <= 0 ? 0 : std::numeric_limits<double>::infinity();
    }
    return (simulated - predicted) / predicted;
}

/**
 * @param curve (t, value) points in time order
 * @param target a value
 * @return the first t with value <= target, or -1
 */
double
FirstTimeAtOrBelow(const std::vector<std::pair<double, double>>& curve, double target)
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

/**
 * @param text a comma-separated list of mode names
 * @return the modes, in the order given, without repeats
 * @throws WanInputError on --modes for an empty list, an unknown or unsimulated mode
 */
std::vector<CapabilityMode>
ParseModes(const std::string& text)
{
    std::vector<CapabilityMode> modes;
    std::stringstream list(text);
    std::string name;
    while (std::getline(list, name, ','))
    {
        CapabilityMode mode = CommandLineValues::ParseMode(PROGRAM, "--modes", name);
        if (mode == CapabilityMode::TREE)
        {
            throw WanInputError(PROGRAM,
                                "--modes",
                                "mode 'tree' is an analytic upper bound, not simulated "
                                "(simulated: unicast, multicast, aggregation, both, ring)");
        }
        if (std::find(modes.begin(), modes.end(), mode) == modes.end())
        {
            modes.push_back(mode);
        }
    }
    if (modes.empty())
    {
        throw WanInputError(PROGRAM, "--modes", "names no mode (e.g. unicast,both,ring)");
    }
    return modes;
}

/**
 * @return the current UTC time as YYYYMMDD-HHMMSS, the default run id
 */
std::string
TimestampRunId()
{
    std::time_t now = std::time(nullptr);
    std::tm utc{};
    gmtime_r(&now, &utc);
    std::ostringstream out;
    out << std::put_time(&utc, "%Y%m%d-%H%M%S");
    return out.str();
}

/**
 * @brief Simulate one mode's schedule and write its results JSON (DIRECTORY/MODE.json). Runs in
 * a child process of its own (see RunModes).
 * @param topology the WAN
 * @param outcome the mode and its optimized schedule
 * @param config the simulation configuration (mode set here)
 * @param runConfig the experiment's configuration, recorded in the results JSON
 * @param directory where MODE.json goes
 */
void
SimulateMode(const WanTopology& topology,
             const ModeOutcome& outcome,
             TrainingRun::Config config,
             const nlohmann::json& runConfig,
             const std::filesystem::path& directory)
{
    const std::string name = CapabilityModeToString(outcome.mode);
    config.mode = outcome.mode;
    if (!config.pcapDir.empty())
    {
        config.pcapDir = (std::filesystem::path(config.pcapDir) / name).string();
    }
    TrainingRun run(topology, outcome.schedule, config);
    run.SetFaultLog(&std::cerr, PROGRAM);
    run.Build();
    nlohmann::json recorded = run.GetConfigJson();
    recorded["program"] = PROGRAM;
    recorded["experiment"] = runConfig;
    recorded["schedule_origin"] = outcome.origin;
    recorded["schedule_rounds"] =
        nlohmann::json::parse(outcome.schedule.ToJson(topology))["rounds"];
    recorded["predicted_xi_s"] = outcome.evaluation.xiS;
    run.GetResults().SetConfigJson(recorded.dump());
    run.EnableProgress(std::cerr, name);
    run.Run();
    run.GetResults().WriteFile((directory / (name + ".json")).string());
    std::cerr << PROGRAM << ": " << name << ": simulated in " << Format(run.GetWallSeconds(), 3)
              << " s wall" << std::endl;
}

/**
 * @brief Read a mode's simulated outcome back from its results JSON: every number of the
 * summary comes from the document the run wrote.
 * @param topology the WAN
 * @param doc the results JSON of the mode
 * @param outcome filled with the simulated outcome
 */
void
ReadOutcome(const WanTopology& topology, const nlohmann::json& doc, ModeOutcome& outcome)
{
    double previousEnd = 0;
    for (const auto& round : doc["rounds"])
    {
        outcome.predictedCommS.push_back(round["predicted_comm_s"].get<double>());
        outcome.simulatedCommS.push_back(round["comm_s"].is_null() ? -1
                                                                   : round["comm_s"].get<double>());
        double end = round["end_s"].is_null() ? -1 : round["end_s"].get<double>();
        outcome.simulatedRoundS.push_back(end < 0 ? -1 : end - previousEnd);
        previousEnd = end < 0 ? previousEnd : end;
    }
    for (const auto& sample : doc["loss"])
    {
        outcome.loss.emplace_back(sample["t_s"].get<double>(), sample["value"].get<double>());
    }
    outcome.finalIslandLoss = doc["loss"].back()["island_mean"].get<double>();
    for (const auto& sample : doc["consensus"])
    {
        outcome.consensus.emplace_back(sample["t_s"].get<double>(), sample["value"].get<double>());
    }
    for (uint32_t d = 0; d < topology.GetNDirectedLinks(); ++d)
    {
        const auto& link = doc["links"][topology.GetDirectedLinkName(d)];
        outcome.linkBytes.push_back(link["bytes"].get<double>());
        outcome.packetHops += link["packets"].get<uint64_t>();
    }
    const auto& summary = doc["summary"];
    outcome.trainingTimeS = summary["training_time_s"].get<double>();
    outcome.repairs = summary["repairs"].get<uint64_t>();
    outcome.errorDrops = summary["error_drops"].get<uint64_t>();
    outcome.queueDrops = summary["queue_drops"].get<uint64_t>();
    outcome.partialAggregates = summary["fpga_partial_aggregates"].get<uint64_t>();
    outcome.passed = doc["verification"]["passed"].get<bool>();
    for (const auto& [city, island] : doc["islands"].items())
    {
        if (!island["failure"].is_null())
        {
            outcome.failure += (outcome.failure.empty() ? "" : "; ") + city + ": " +
                               island["failure"].get<std::string>();
        }
    }
}

/**
 * @brief Simulate every mode, up to jobs at once, each in a child process of its own (the
 * simulator is a process-wide singleton; the runs are independent and their results do not
 * depend on how many run at once), then read the outcomes back from their results JSON.
 * @param topology the WAN
 * @param outcomes the modes with their schedules; filled with the simulated outcomes
 * @param config the simulation configuration
 * @param runConfig the experiment's configuration, recorded in the results JSON
 * @param directory where the results JSON go
 * @param jobs the most simulations at once
 * @return the modes whose simulation did not finish (with the reason), empty when none
 */
std::vector<std::string>
RunModes(const WanTopology& topology,
         std::vector<ModeOutcome>& outcomes,
         const TrainingRun::Config& config,
         const nlohmann::json& runConfig,
         const std::filesystem::path& directory,
         uint32_t jobs)
{
    std::map<pid_t, size_t> running;
    std::vector<std::string> failures;
    auto reap = [&]() {
        int status = 0;
        pid_t pid = waitpid(-1, &status, 0);
        auto it = running.find(pid);
        if (it == running.end())
        {
            return;
        }
        const std::string name = CapabilityModeToString(outcomes[it->second].mode);
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        {
            failures.push_back(name + ": the simulation " +
                               (WIFEXITED(status)
                                    ? "exited with status " + std::to_string(WEXITSTATUS(status))
                                    : "was killed by signal " + std::to_string(WTERMSIG(status))));
        }
        running.erase(it);
    };
    std::cout << std::flush;
    std::cerr << std::flush;
    for (size_t m = 0; m < outcomes.size(); ++m)
    {
        while (running.size() >= jobs)
        {
            reap();
        }
        pid_t pid = fork();
        if (pid < 0)
        {
            throw WanInputError(PROGRAM,
                                "--jobs",
                                "cannot start a simulation process (fork failed)");
        }
        if (pid == 0)
        {
            int status =
                CommandLineValues::RunProgram(PROGRAM, TrainingOptions::GetFieldOptions(), [&]() {
                    SimulateMode(topology, outcomes[m], config, runConfig, directory);
                    return 0;
                });
            std::cerr << std::flush;
            _exit(status);
        }
        running[pid] = m;
    }
    while (!running.empty())
    {
        reap();
    }
    for (ModeOutcome& outcome : outcomes)
    {
        const std::string name = CapabilityModeToString(outcome.mode);
        std::ifstream in(directory / (name + ".json"));
        nlohmann::json doc = nlohmann::json::parse(in, nullptr, false);
        if (!in || doc.is_discarded())
        {
            outcome.failure = "no results JSON (the simulation did not finish)";
            continue;
        }
        ReadOutcome(topology, doc, outcome);
    }
    return failures;
}

/**
 * @brief The latency of a step-synchronous ring's critical path: the longest chain of 2(k-1)
 * consecutive hops around the ring (each step waits for the previous step of its predecessor).
 * @param topology the WAN
 * @param order the clique in ring order (LinkLoadModel::GetRingOrder)
 * @return seconds (0 for fewer than two members)
 */
double
RingChainLatencyS(const WanTopology& topology, const std::vector<uint32_t>& order)
{
    const size_t k = order.size();
    double longest = 0;
    for (size_t start = 0; k >= 2 && start < k; ++start)
    {
        double chain = 0;
        for (size_t s = 0; s < 2 * (k - 1); ++s)
        {
            uint32_t from = order[(start + s) % k];
            uint32_t to = order[(start + s + 1) % k];
            chain += topology.GetRoute(from, to).latencyMs / 1e3;
        }
        longest = std::max(longest, chain);
    }
    return longest;
}

/**
 * @brief Explain, from the run's own counters and the schedule, why a mode's simulated round
 * time differs from MODEL.md's prediction.
 * @param topology the WAN
 * @param o the outcome
 * @param computeS tau_c
 * @param difference (simulated - predicted) / predicted round time
 * @return the reasons found (empty when none is visible)
 */
std::string
ExplainDifference(const WanTopology& topology,
                  const ModeOutcome& o,
                  double computeS,
                  double difference)
{
    std::vector<std::string> reasons;
    if (o.mode == CapabilityMode::RING && difference < 0)
    {
        // MODEL.md charges 2(k-1) x the largest hop latency; the ring's critical path is a chain
        // of 2(k-1) consecutive hops, shorter when the hop latencies differ.
        LinkLoadModel loads(topology);
        double model = 0;
        double chain = 0;
        for (const auto& round : o.evaluation.rounds)
        {
            model = std::max(model, round.latencyS);
        }
        for (const auto& round : o.schedule.GetRounds())
        {
            for (const auto& clique : round)
            {
                chain = std::max(chain, RingChainLatencyS(topology, loads.GetRingOrder(clique)));
            }
        }
        reasons.push_back("MODEL.md's ring latency, 2(k-1) x the largest hop latency (up to " +
                          Format(model * 1e3, 3) +
                          " ms), bounds the ring's critical path from above: the longest chain "
                          "of 2(k-1) consecutive hops is " +
                          Format(chain * 1e3, 3) + " ms on this topology");
    }
    if (o.errorDrops > 0 || o.repairs > 0)
    {
        reasons.push_back(std::to_string(o.errorDrops) + " packets lost on WAN links, " +
                          std::to_string(o.repairs) +
                          " chunks repaired (MODEL.md assumes lossless links)");
    }
    if (o.queueDrops > 0)
    {
        reasons.push_back(std::to_string(o.queueDrops) +
                          " queue drops: cliques of consecutive rounds overlapped on shared links "
                          "(MODEL.md charges each round alone)");
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
        maxLatency = std::max(maxLatency, round.latencyS);
        maxBandwidth = std::max(maxBandwidth, round.bottleneckS);
    }
    if (difference > 0 && maxLatency > computeS)
    {
        reasons.push_back("path latency " + Format(maxLatency * 1e3, 3) + " ms exceeds tau_c " +
                          Format(computeS * 1e3, 3) +
                          " ms: the READY handshake of a round is not hidden behind compute");
    }
    if (difference > 0 && maxBandwidth < maxLatency)
    {
        reasons.push_back("S is small against the bandwidth-delay product (transfer " +
                          Format(maxBandwidth * 1e3, 3) + " ms < latency " +
                          Format(maxLatency * 1e3, 3) +
                          " ms): pacing start-up and repair waits weigh more than MODEL.md's "
                          "fluid model");
    }
    std::string text;
    for (const auto& reason : reasons)
    {
        text += (text.empty() ? "" : "; ") + reason;
    }
    return text;
}

/**
 * @param title the curve's title
 * @param points (t, value) points
 * @return a line through the points with a positive value (a log scale shows no others)
 */
Gnuplot2dDataset
LogScaleCurve(const std::string& title, const std::vector<std::pair<double, double>>& points)
{
    Gnuplot2dDataset curve(title);
    curve.SetStyle(Gnuplot2dDataset::LINES);
    for (const auto& [t, value] : points)
    {
        if (value > 0)
        {
            curve.Add(t, value);
        }
    }
    return curve;
}

/**
 * @brief Write a plot: its gnuplot script (ns-3's Gnuplot class) and, when gnuplot is
 * installed, the PNG.
 * @param plot the plot, datasets added
 * @param directory the run directory
 * @param stem file name without extension
 * @return a note for the user when no PNG was written (empty otherwise)
 */
std::string
WritePlot(Gnuplot& plot, const std::filesystem::path& directory, const std::string& stem)
{
    const std::string png = (directory / (stem + ".png")).string();
    const std::string script = (directory / (stem + ".plt")).string();
    plot.SetTerminal("pngcairo noenhanced size 960,600 font ',10'");
    plot.SetOutputFilename(png);
    std::ofstream out;
    CommandLineValues::OpenOutput(PROGRAM, "--out", script, out);
    plot.GenerateOutput(out);
    CommandLineValues::CloseOutput(PROGRAM, "--out", script, out);
    return PlotRenderer::Render(script);
}

/**
 * @brief Run the experiment.
 * @param argc argument count
 * @param argv arguments
 * @return the exit status
 * @throws WanInputError for a bad value
 */
int
Run(int argc, char** argv)
{
    // Empty strings mean "not given": the preset (--quick or the default) fills them in.
    bool quick = false;
    TrainingOptions training;
    training.topologyHelp =
        "topology JSON file (default: the embedded topologies/doublezero-nine-city.json)";
    training.modelBytes = "";
    training.rounds = "";
    training.maxRounds = 100000;
    training.stepTime = "50ms";
    training.parameterCount = "4096";
    training.pcapSnaplen = "70"; // five modes of captures: headers only
    std::string modesText = "unicast,multicast,aggregation,both,ring";
    std::string targetText = "0.02";
    std::string maxPeriodText = "4";
    std::string evaluationsText;
    std::string outText = "results";
    std::string runId;
    std::string jobsText = "0";
    std::string pcapDir;

    CommandLine cmd(__FILE__);
    cmd.Usage("The nine-city experiment: for each capability mode, optimize a rotating-clique "
              "schedule (MODEL.md), simulate it packet by packet with real training, and compare "
              "with colocated training. Prints one summary table; writes results/<run-id>/ (JSON, "
              "CSV, gnuplot PNG plots).\nPresets: default S = 1e8 bytes, 8 rounds (a few "
              "minutes); --quick S = 5e6 bytes, 4 rounds (well under a minute). Values given "
              "explicitly override the preset.\nExit status: 0 every mode completed with verified "
              "averages, 1 input error, 2 a mode failed.");
    cmd.AddValue("quick", "the quick preset (S = 5e6 bytes, 4 rounds, a smaller search)", quick);
    training.AddValues(cmd);
    cmd.AddValue("modes",
                 "comma-separated capability modes to run: unicast, multicast, aggregation, both, "
                 "ring",
                 modesText);
    cmd.AddValue("targetLoss",
                 "time to target: the first time the loss of the average model is at most this "
                 "fraction of the initial loss, in (0, 1)",
                 targetText);
    cmd.AddValue("maxPeriod", "largest schedule period P the optimizer considers", maxPeriodText);
    cmd.AddValue("maxEvaluations",
                 "optimizer budget of Xi evaluations per mode (preset: 60000, quick 20000)",
                 evaluationsText);
    cmd.AddValue("out", "directory that receives the run directory", outText);
    cmd.AddValue("runId",
                 "name of the run directory (default: the UTC time, YYYYMMDD-HHMMSS)",
                 runId);
    cmd.AddValue("jobs",
                 "simulations at once, each in a process of its own (0: one per core); the "
                 "results do not depend on it",
                 jobsText);
    cmd.AddValue("pcap",
                 "write one pcap per directed link into DIR/MODE/ (none if empty)",
                 pcapDir);
    cmd.Parse(argc, argv);

    // The preset fills what was not given.
    if (training.modelBytes.empty())
    {
        training.modelBytes = quick ? "5e6" : "1e8";
    }
    if (training.rounds.empty())
    {
        training.rounds = quick ? "4" : "8";
    }
    if (evaluationsText.empty())
    {
        evaluationsText = quick ? "20000" : "60000";
    }

    // Validate every value before any work.
    const WanTopology topology =
        training.topology.empty()
            ? WanTopology::Parse(NINE_CITY_TOPOLOGY_JSON, NINE_CITY_TOPOLOGY_SOURCE)
            : WanTopology::LoadFile(training.topology);
    const std::vector<CapabilityMode> modes = ParseModes(modesText);
    TrainingRun::Config config;
    training.Parse(PROGRAM, config);
    const double targetFraction =
        CommandLineValues::ParseFraction(PROGRAM, "--targetLoss", targetText);
    config.faults = FaultPlan::Parse(topology, config.rounds, training.faults);
    config.pcapDir = pcapDir;
    ScheduleOptimizer::Options options;
    options.seed = config.seed;
    options.maxPeriod = static_cast<uint32_t>(
        CommandLineValues::ParseUnsigned(PROGRAM, "--maxPeriod", maxPeriodText, 1, 16));
    options.maxEvaluations = CommandLineValues::ParseWholeNumber(PROGRAM,
                                                                 "--maxEvaluations",
                                                                 evaluationsText,
                                                                 1,
                                                                 uint64_t{1} << 40);
    const double computeS = config.localSteps * config.stepTime.GetSeconds();
    ScheduleMetrics::Settings settings;
    settings.modelBytes = static_cast<double>(config.modelBytes);
    settings.computeS = computeS;
    for (CapabilityMode mode : modes)
    {
        // Every mode's configuration is checked before the first simulation starts.
        TrainingRun::Config modeConfig = config;
        modeConfig.mode = mode;
        TrainingRun::Validate(topology,
                              CliqueSchedule::AllReduce(topology.GetNCities()),
                              modeConfig);
    }
    uint32_t jobs =
        static_cast<uint32_t>(CommandLineValues::ParseUnsigned(PROGRAM, "--jobs", jobsText, 0, 64));
    if (jobs == 0)
    {
        jobs = std::max(1U, std::thread::hardware_concurrency());
    }
    if (runId.empty())
    {
        runId = TimestampRunId();
    }
    if (runId.find('/') != std::string::npos || runId == "." || runId == "..")
    {
        throw WanInputError(PROGRAM,
                            "--runId",
                            "must be a plain directory name (got '" + runId + "')");
    }
    const std::filesystem::path directory = std::filesystem::path(outText) / runId;
    {
        std::error_code error;
        std::filesystem::create_directories(directory, error);
        if (error || !std::filesystem::is_directory(directory))
        {
            throw WanInputError(PROGRAM,
                                "--out",
                                "cannot create directory '" + directory.string() + "'");
        }
    }

    nlohmann::json runConfig = {
        {"program", PROGRAM},
        {"preset", quick ? "quick" : "default"},
        {"topology", training.topology.empty() ? NINE_CITY_TOPOLOGY_SOURCE : training.topology},
        {"topology_name", topology.GetName()},
        {"modes", modesText},
        {"model_bytes", config.modelBytes},
        {"rounds", config.rounds},
        {"local_steps", config.localSteps},
        {"step_time_s", config.stepTime.GetSeconds()},
        {"compute_s", computeS},
        {"parameter_count", config.parameterCount},
        {"learning_rate", config.learningRate},
        {"heterogeneity", config.heterogeneity},
        {"target_loss_fraction", targetFraction},
        {"seed", config.seed},
        {"max_period", options.maxPeriod},
        {"max_evaluations", options.maxEvaluations},
        {"wan_packet_error_rate", config.wanLossRate},
        {"run_id", runId},
    };
    CommandLineValues::WriteText(PROGRAM,
                                 "--out",
                                 (directory / "config.json").string(),
                                 runConfig.dump(2) + "\n");
    std::string topologyText = NINE_CITY_TOPOLOGY_JSON;
    if (!training.topology.empty())
    {
        // The file parsed above, copied as it is.
        std::ifstream in(training.topology);
        std::ostringstream text;
        text << in.rdbuf();
        topologyText = text.str();
    }
    CommandLineValues::WriteText(PROGRAM,
                                 "--out",
                                 (directory / "topology.json").string(),
                                 topologyText);

    // 1. Optimize, 2. simulate, mode by mode.
    const auto wallStart = std::chrono::steady_clock::now();
    std::vector<ModeOutcome> outcomes;
    for (CapabilityMode mode : modes)
    {
        const std::string name = CapabilityModeToString(mode);
        std::cerr << PROGRAM << ": " << name
                  << ": optimizing the schedule (S = " << config.modelBytes
                  << " bytes, tau_c = " << computeS << " s)" << std::endl;
        ScheduleOptimizer optimizer(topology, settings, mode, options);
        ScheduleOptimizer::Result best = optimizer.Optimize();
        ModeOutcome outcome;
        outcome.mode = mode;
        outcome.schedule = best.schedule;
        outcome.origin = best.origin;
        outcome.evaluation = best.evaluation;
        CommandLineValues::WriteText(PROGRAM,
                                     "--out",
                                     (directory / (name + "-schedule.json")).string(),
                                     best.schedule.ToJson(topology) + "\n");
        std::cerr << PROGRAM << ": " << name << ": schedule "
                  << ScheduleOptimizer::GetProfile(best.schedule) << " (Xi "
                  << Format(best.evaluation.xiS) << " s)" << std::endl;
        outcomes.push_back(std::move(outcome));
    }
    std::cerr << PROGRAM << ": simulating " << config.rounds << " rounds of every mode, " << jobs
              << " at once" << std::endl;
    const std::vector<std::string> simulationFailures =
        RunModes(topology, outcomes, config, runConfig, directory, jobs);

    // The colocated reference, from the same objectives (every results JSON holds the same
    // curve; the first mode's that finished is read back).
    std::vector<std::pair<double, double>> colocated;
    for (const ModeOutcome& o : outcomes)
    {
        if (o.loss.empty())
        {
            continue;
        }
        std::ifstream in(directory / (CapabilityModeToString(o.mode) + ".json"));
        const nlohmann::json doc = nlohmann::json::parse(in);
        colocated.emplace_back(0.0, o.loss.front().second);
        for (const auto& point : doc["colocated"]["loss"])
        {
            colocated.emplace_back(point["t_s"].get<double>(), point["value"].get<double>());
        }
        break;
    }
    if (colocated.empty())
    {
        for (const auto& failure : simulationFailures)
        {
            std::cerr << PROGRAM << ": " << failure << std::endl;
        }
        std::cerr << PROGRAM << ": no mode finished its simulation" << std::endl;
        return 2;
    }
    const double initialLoss = colocated.front().second;
    const double targetLoss = targetFraction * initialLoss;
    const double colocatedTargetS = FirstTimeAtOrBelow(colocated, targetLoss);
    const double xiColocated = outcomes.front().evaluation.xiColocatedS;

    // The summary table.
    std::ostringstream table;
    table << PROGRAM << ": topology '" << topology.GetName() << "' (" << topology.GetNCities()
          << " islands), S = " << config.modelBytes << " bytes, tau_c = " << Format(computeS)
          << " s (" << config.localSteps << " x " << Format(config.stepTime.GetSeconds() * 1e3)
          << " ms), " << config.rounds << " rounds, seed " << config.seed << ", WAN loss "
          << config.wanLossRate << "\n";
    table << "colocated: Xi_colo " << Format(xiColocated) << " s; loss " << Format(initialLoss)
          << " -> target " << Format(targetLoss) << " (" << targetFraction << " x initial) ";
    if (colocatedTargetS >= 0)
    {
        table << "at " << Format(colocatedTargetS) << " s\n\n";
    }
    else
    {
        table << "not reached in " << config.rounds << " rounds\n\n";
    }
    table << std::left << std::setw(12) << "mode" << std::setw(22) << "schedule" << std::right
          << std::setw(8) << "Xi/colo" << std::setw(11) << "round pred" << std::setw(10)
          << "round sim" << std::setw(8) << "diff" << std::setw(10) << "comm pred" << std::setw(10)
          << "comm sim" << std::setw(11) << "t_target" << std::setw(11) << "final loss"
          << std::setw(12) << "island loss" << std::setw(11) << "consensus" << std::setw(9) << "gap"
          << "\n";
    nlohmann::json summaryJson = nlohmann::json::array();
    std::ostringstream csv;
    csv << "mode,schedule,origin,period,xi_s,xi_over_colocated,predicted_round_s,"
           "simulated_round_s,round_difference,predicted_comm_s,simulated_comm_s,"
           "time_to_target_s,colocated_time_to_target_s,gap_to_colocated,final_loss,"
           "final_island_loss,final_consensus,verified,flag\n";
    std::vector<std::string> notes;
    bool allPassed = true;
    for (const auto& failure : simulationFailures)
    {
        notes.push_back(failure);
    }
    for (ModeOutcome& o : outcomes)
    {
        const std::string name = CapabilityModeToString(o.mode);
        if (o.loss.empty())
        {
            // No results JSON: the simulation process failed (its reason is in the notes).
            allPassed = false;
            table << std::left << std::setw(12) << name << std::setw(22)
                  << ScheduleOptimizer::GetProfile(o.schedule) << "FAILED: " << o.failure << "\n";
            csv << name << "," << ScheduleOptimizer::GetProfile(o.schedule) << "," << o.origin
                << "," << o.schedule.GetNRounds() << "," << o.evaluation.xiS
                << ",,,,,,,,,,,,,false,FAILED\n";
            summaryJson.push_back({{"mode", name}, {"verified", false}, {"flag", "FAILED"}});
            continue;
        }
        std::vector<double> predictedRound;
        std::vector<double> simulatedRound;
        std::vector<double> simulatedComm;
        for (size_t r = 0; r < o.predictedCommS.size(); ++r)
        {
            predictedRound.push_back(computeS + o.predictedCommS[r]);
            if (o.simulatedRoundS[r] >= 0)
            {
                simulatedRound.push_back(o.simulatedRoundS[r]);
            }
            if (o.simulatedCommS[r] >= 0)
            {
                simulatedComm.push_back(o.simulatedCommS[r]);
            }
        }
        const double predRound = Mean(predictedRound);
        const double simRound = Mean(simulatedRound);
        const double diff = RelativeDifference(simRound, predRound);
        o.timeToTargetS = FirstTimeAtOrBelow(o.loss, targetLoss);
        const double gap =
            o.timeToTargetS >= 0 && colocatedTargetS > 0 ? o.timeToTargetS / colocatedTargetS : -1;
        std::string flag;
        if (!o.passed)
        {
            allPassed = false;
            flag = "FAILED";
            notes.push_back(name + ": did not complete every round with verified averages" +
                            (o.failure.empty() ? std::string() : " (" + o.failure + ")"));
        }
        else if (std::abs(diff) > AGREEMENT)
        {
            flag = "differs";
            std::string why = ExplainDifference(topology, o, computeS, diff);
            notes.push_back(name + ": simulated round time " + Format(diff * 100, 3) +
                            "% off MODEL.md's prediction: " +
                            (why.empty() ? "no loss, drop or FPGA timeout explains it (see " +
                                               name + ".json, rounds[].cliques)"
                                         : why));
        }
        const std::string schedule = ScheduleOptimizer::GetProfile(o.schedule);
        std::ostringstream diffText;
        diffText << std::showpos << std::fixed << std::setprecision(1) << diff * 100 << "%";
        table << std::left << std::setw(12) << name << std::setw(22) << schedule << std::right
              << std::setw(8) << Format(o.evaluation.xiS / xiColocated, 3) << std::setw(11)
              << Format(predRound) << std::setw(10) << Format(simRound) << std::setw(8)
              << diffText.str() << std::setw(10) << Format(Mean(o.predictedCommS)) << std::setw(10)
              << Format(Mean(simulatedComm)) << std::setw(11)
              << (o.timeToTargetS >= 0 ? Format(o.timeToTargetS) : "-") << std::setw(11)
              << Format(o.loss.back().second) << std::setw(12) << Format(o.finalIslandLoss)
              << std::setw(11) << Format(o.consensus.back().second) << std::setw(9)
              << (gap > 0 ? "x" + Format(gap, 3) : "-") << (flag.empty() ? "" : "  " + flag)
              << "\n";
        csv << name << "," << schedule << "," << o.origin << "," << o.schedule.GetNRounds() << ","
            << o.evaluation.xiS << "," << o.evaluation.xiS / xiColocated << "," << predRound << ","
            << simRound << "," << diff << "," << Mean(o.predictedCommS) << ","
            << Mean(simulatedComm) << ","
            << (o.timeToTargetS >= 0 ? Format(o.timeToTargetS, 9) : "") << ","
            << (colocatedTargetS >= 0 ? Format(colocatedTargetS, 9) : "") << ","
            << (gap > 0 ? Format(gap, 9) : "") << "," << o.loss.back().second << ","
            << o.finalIslandLoss << "," << o.consensus.back().second << ","
            << (o.passed ? "true" : "false") << "," << flag << "\n";
        summaryJson.push_back(
            {{"mode", name},
             {"schedule", schedule},
             {"origin", o.origin},
             {"period", o.schedule.GetNRounds()},
             {"xi_s", o.evaluation.xiS},
             {"xi_over_colocated", o.evaluation.xiS / xiColocated},
             {"predicted_round_s", predRound},
             {"simulated_round_s", simRound},
             {"round_difference", diff},
             {"predicted_comm_s", Mean(o.predictedCommS)},
             {"simulated_comm_s", Mean(simulatedComm)},
             {"time_to_target_s",
              o.timeToTargetS >= 0 ? nlohmann::json(o.timeToTargetS) : nlohmann::json(nullptr)},
             {"gap_to_colocated", gap > 0 ? nlohmann::json(gap) : nlohmann::json(nullptr)},
             {"final_loss", o.loss.back().second},
             {"final_island_loss", o.finalIslandLoss},
             {"final_consensus", o.consensus.back().second},
             {"training_time_s", o.trainingTimeS},
             {"packet_hops", o.packetHops},
             {"verified", o.passed},
             {"flag", flag}});
    }
    table << "\nWhat binds (MODEL.md): per schedule round, the largest latency inside a clique "
             "and the busiest directed link with its streams (units of S)\n";
    for (const ModeOutcome& o : outcomes)
    {
        table << "  " << std::left << std::setw(12) << CapabilityModeToString(o.mode) << std::right;
        for (size_t r = 0; r < o.evaluation.rounds.size(); ++r)
        {
            const auto& cost = o.evaluation.rounds[r];
            table << (r ? " | " : "") << "lat " << Format(cost.latencyS * 1e3, 3) << " ms + ";
            if (cost.commS > 0)
            {
                table << Format(cost.bottleneckS * 1e3, 3) << " ms on "
                      << topology.GetDirectedLinkName(cost.bottleneckLink) << " ("
                      << Format(cost.loads[cost.bottleneckLink], 3) << ")";
            }
            else
            {
                table << "idle";
            }
        }
        table << "\n";
    }
    table << "\nXi/colo: MODEL.md's drift consensus distance Xi of the schedule over colocated "
             "training's.\n"
             "round pred/sim, diff: mean round time (tau_c + T_comm) predicted by MODEL.md and "
             "simulated; comm: the same for the communication part.\n"
             "t_target: simulated time until F(average model) - F* reaches the target; final "
             "loss: the same at the end.\n"
             "island loss: mean over islands of F(x_i) - F* at the end (each island's own model); "
             "consensus: mean squared\n"
             "distance of the islands' models to their average at the end; gap: t_target over "
             "colocated's.\n";
    for (const auto& note : notes)
    {
        table << "note: " << note << "\n";
    }
    std::cout << table.str() << std::flush;

    CommandLineValues::WriteText(PROGRAM,
                                 "--out",
                                 (directory / "summary.txt").string(),
                                 table.str());
    CommandLineValues::WriteText(PROGRAM, "--out", (directory / "summary.csv").string(), csv.str());
    nlohmann::json summaryDoc = {
        {"config", runConfig},
        {"colocated",
         {{"xi_s", xiColocated},
          {"initial_loss", initialLoss},
          {"target_loss", targetLoss},
          {"time_to_target_s",
           colocatedTargetS >= 0 ? nlohmann::json(colocatedTargetS) : nlohmann::json(nullptr)}}},
        {"modes", summaryJson},
        {"notes", notes}};
    CommandLineValues::WriteText(PROGRAM,
                                 "--out",
                                 (directory / "summary.json").string(),
                                 summaryDoc.dump(2) + "\n");
    std::ostringstream rounds;
    rounds << "mode,round,predicted_comm_s,simulated_comm_s,predicted_round_s,simulated_round_s\n";
    for (const ModeOutcome& o : outcomes)
    {
        for (size_t r = 0; r < o.predictedCommS.size(); ++r)
        {
            rounds << CapabilityModeToString(o.mode) << "," << r << "," << o.predictedCommS[r]
                   << "," << o.simulatedCommS[r] << "," << computeS + o.predictedCommS[r] << ","
                   << o.simulatedRoundS[r] << "\n";
        }
    }
    CommandLineValues::WriteText(PROGRAM,
                                 "--out",
                                 (directory / "rounds.csv").string(),
                                 rounds.str());

    // The plots.
    std::set<std::string> plotNotes;
    {
        Gnuplot plot;
        plot.SetTitle("Loss of the average model vs simulated time (" + topology.GetName() + ")");
        plot.SetLegend("simulated time (s)", "F(average model) - F*");
        plot.AppendExtra("set logscale y\nset key top right\nset grid");
        for (const ModeOutcome& o : outcomes)
        {
            plot.AddDataset(LogScaleCurve(CapabilityModeToString(o.mode), o.loss));
        }
        Gnuplot2dDataset reference = LogScaleCurve("colocated", colocated);
        reference.SetStyle(Gnuplot2dDataset::LINES_POINTS);
        reference.SetExtra("lw 2 dt 2 lc rgb 'black'");
        plot.AddDataset(reference);
        plotNotes.insert(WritePlot(plot, directory, "loss"));
    }
    {
        Gnuplot plot;
        plot.SetTitle("Consensus distance vs simulated time (colocated: 0)");
        plot.SetLegend("simulated time (s)", "mean squared distance to the average model");
        plot.AppendExtra("set logscale y\nset key top right\nset grid");
        for (const ModeOutcome& o : outcomes)
        {
            plot.AddDataset(LogScaleCurve(CapabilityModeToString(o.mode), o.consensus));
        }
        plotNotes.insert(WritePlot(plot, directory, "consensus"));
    }
    {
        // The links that bind in MODEL.md for some mode's schedule, utilization = bits sent
        // over capacity x the mode's training time.
        std::set<uint32_t> binding;
        for (const ModeOutcome& o : outcomes)
        {
            for (const auto& round : o.evaluation.rounds)
            {
                if (round.commS > 0)
                {
                    binding.insert(round.bottleneckLink);
                }
            }
        }
        Gnuplot plot;
        plot.SetTitle("Utilization of the bottleneck links over the training time");
        plot.SetLegend("", "utilization (bits sent / capacity x training time)");
        std::ostringstream extra;
        extra << "set grid ytics\nset key top right\nset yrange [0:*]\nset xtics rotate by -30 (";
        uint32_t column = 0;
        for (uint32_t d : binding)
        {
            extra << (column ? ", " : "") << "'" << topology.GetDirectedLinkName(d) << "' "
                  << column;
            ++column;
        }
        extra << ")\nset xrange [-0.6:" << binding.size() - 0.4 << "]";
        plot.AppendExtra(extra.str());
        const double width = 0.8 / outcomes.size();
        for (size_t m = 0; m < outcomes.size(); ++m)
        {
            const ModeOutcome& o = outcomes[m];
            if (o.linkBytes.empty())
            {
                continue;
            }
            Gnuplot2dDataset data(CapabilityModeToString(o.mode));
            data.SetStyle(Gnuplot2dDataset::IMPULSES);
            data.SetExtra("lw 10");
            uint32_t c = 0;
            for (uint32_t d : binding)
            {
                double capacityBits = topology.GetDirectedLinkCapacityGbps(d) * 1e9;
                double utilization =
                    o.trainingTimeS > 0 ? 8 * o.linkBytes[d] / (capacityBits * o.trainingTimeS) : 0;
                data.Add(c - 0.4 + width * (m + 0.5), utilization);
                ++c;
            }
            plot.AddDataset(data);
        }
        plotNotes.insert(WritePlot(plot, directory, "link-utilization"));
    }
    {
        Gnuplot plot;
        plot.SetTitle("Round times: simulated vs MODEL.md's prediction (tau_c + T_comm)");
        plot.SetLegend("predicted round time (s)", "simulated round time (s)");
        plot.AppendExtra("set key top left\nset grid");
        double largest = 0;
        for (const ModeOutcome& o : outcomes)
        {
            Gnuplot2dDataset data(CapabilityModeToString(o.mode));
            data.SetStyle(Gnuplot2dDataset::POINTS);
            for (size_t r = 0; r < o.predictedCommS.size(); ++r)
            {
                if (o.simulatedRoundS[r] >= 0)
                {
                    data.Add(computeS + o.predictedCommS[r], o.simulatedRoundS[r]);
                    largest =
                        std::max({largest, computeS + o.predictedCommS[r], o.simulatedRoundS[r]});
                }
            }
            plot.AddDataset(data);
        }
        plot.AppendExtra("set xrange [0:" + Format(largest * 1.1) +
                         "]\nset yrange [0:" + Format(largest * 1.1) + "]");
        Gnuplot2dFunction same("simulated = predicted", "x");
        Gnuplot2dFunction above("+10%", "1.1*x");
        Gnuplot2dFunction below("-10%", "0.9*x");
        above.SetExtra("dt 3 lc rgb 'gray'");
        below.SetExtra("dt 3 lc rgb 'gray'");
        plot.AddDataset(same);
        plot.AddDataset(above);
        plot.AddDataset(below);
        plotNotes.insert(WritePlot(plot, directory, "round-times"));
    }
    plotNotes.erase("");
    for (const auto& note : plotNotes)
    {
        std::cerr << PROGRAM << ": " << note << std::endl;
    }

    // results/latest points at this run.
    {
        std::error_code ignored;
        const std::filesystem::path latest = std::filesystem::path(outText) / "latest";
        if (std::filesystem::is_symlink(latest, ignored) || !std::filesystem::exists(latest))
        {
            std::filesystem::remove(latest, ignored);
            std::filesystem::create_directory_symlink(runId, latest, ignored);
        }
    }
    const double wallS =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wallStart).count();
    std::cerr << PROGRAM << ": results in " << directory.string() << " (" << Format(wallS, 3)
              << " s wall)" << std::endl;
    if (!allPassed)
    {
        std::cerr << PROGRAM << ": a mode failed (see the notes and its results JSON)" << std::endl;
        return 2;
    }
    return 0;
}

} // namespace

int
main(int argc, char** argv)
{
    return CommandLineValues::RunProgram(PROGRAM, TrainingOptions::GetFieldOptions(), [=]() {
        return Run(argc, argv);
    });
}
