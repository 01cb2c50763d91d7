/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "bench-runner.h"

#include "bench-values.h"
#include "child-process-pool.h"
#include "command-line-values.h"
#include "wan-input-error.h"

#include "ns3/log.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <limits>
#include <sstream>
#include <thread>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("WanTrainingBenchRunner");

namespace
{

using V = BenchValues;

/** The program name error messages start with. */
const std::string PROGRAM = "wan-bench";

/**
 * @param json a failed case result
 * @return why it failed, for the progress line
 */
std::string
FailureText(const nlohmann::json& json)
{
    return " FAILED (" + json.value("error", std::string("its checks failed")) + ")\n";
}

/** The runs of one case: the fastest kept (the one least disturbed by anything else on the
 * machine), every wall time noted. */
struct Repetitions
{
    nlohmann::json best;       //!< the run with the smallest wall_s
    std::vector<double> walls; //!< wall_s of every run added

    /** @param result a run that passed */
    void Add(nlohmann::json result)
    {
        walls.push_back(V::Number(result, "wall_s"));
        if (best.is_null() || V::Number(result, "wall_s") < V::Number(best, "wall_s"))
        {
            best = std::move(result);
        }
    }

    /** @return the fastest run with `repetitions` (runs added) and `wall_s_repetitions` */
    nlohmann::json Finish()
    {
        best["repetitions"] = walls.size();
        best["wall_s_repetitions"] = walls;
        return best;
    }
};

/**
 * @param x values
 * @param y values
 * @return the least-squares slope of log y over log x (NaN with fewer than two points)
 */
double
LogLogSlope(const std::vector<double>& x, const std::vector<double>& y)
{
    if (x.size() < 2)
    {
        return std::numeric_limits<double>::quiet_NaN();
    }
    double mx = 0;
    double my = 0;
    for (std::size_t i = 0; i < x.size(); ++i)
    {
        mx += std::log(x[i]);
        my += std::log(y[i]);
    }
    mx /= x.size();
    my /= y.size();
    double sxy = 0;
    double sxx = 0;
    for (std::size_t i = 0; i < x.size(); ++i)
    {
        sxy += (std::log(x[i]) - mx) * (std::log(y[i]) - my);
        sxx += (std::log(x[i]) - mx) * (std::log(x[i]) - mx);
    }
    return sxx > 0 ? sxy / sxx : std::numeric_limits<double>::quiet_NaN();
}

/** @return the time now as ISO 8601 UTC text */
std::string
UtcNow()
{
    std::time_t now = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&now, &tm);
    std::ostringstream out;
    out << std::put_time(&tm, "%Y-%m-%dT%H:%M:%SZ");
    return out.str();
}

} // namespace

std::string
BenchRunner::GetProfileName(Profile profile)
{
    switch (profile)
    {
    case Profile::FULL:
        return "full";
    case Profile::QUICK:
        return "quick";
    case Profile::SMOKE:
        return "smoke";
    }
    return "full";
}

BenchRunner::BenchRunner(const Options& options)
    : m_options(options)
{
    using M = CapabilityMode;
    std::vector<M> modes{M::UNICAST, M::MULTICAST, M::AGGREGATION, M::BOTH, M::RING, M::TREE};
    // The scale target compares medians of alternating runs, in every profile.
    const uint32_t scaleRepeat = 3;
    LossSection::Settings loss;
    loss.topologyFile = options.topologyFile;
    loss.modes = modes;
    switch (options.profile)
    {
    case Profile::FULL:
        m_sizes = {64000000, 256000000, 1000000000};
        m_scaleIslands = {16, 32, 64};
        m_scaleBytes = 4000000;
        m_coarseModes = {M::BOTH, M::UNICAST};
        m_coarseBytes = 10000000000;
        m_coarseSyntheticModes = {M::BOTH, M::TREE};
        m_coarseSyntheticBytes = 1000000000;
        m_evaluateModes = {M::UNICAST, M::BOTH};
        m_evaluateSeconds = 2;
        m_optimize9Modes = GetAllCapabilityModes();
        m_optimize32Modes = {M::UNICAST, M::BOTH};
        loss.modelBytes = 100000000;
        break;
    case Profile::QUICK:
        m_sizes = {4000000, 16000000};
        m_scaleIslands = {16, 32, 64};
        m_scaleBytes = 500000;
        m_evaluateModes = {M::UNICAST, M::BOTH};
        m_evaluateSeconds = 0.5;
        m_optimize9Modes = {M::UNICAST, M::BOTH};
        m_optimize32Modes = {M::UNICAST};
        loss.modelBytes = 10000000;
        break;
    case Profile::SMOKE:
        modes = {M::UNICAST, M::BOTH, M::TREE};
        m_sizes = {200000, 400000};
        m_scaleIslands = {16, 32};
        m_scaleBytes = 100000;
        m_evaluateModes = {M::UNICAST};
        m_evaluateSeconds = 0.1;
        m_optimize9Modes = {M::BOTH};
        m_optimize32Modes = {M::UNICAST};
        m_optimize32Evaluations = 300;
        loss.modes = {M::UNICAST, M::BOTH};
        loss.modelBytes = 1000000;
        break;
    }
    if (m_options.modes.empty())
    {
        m_options.modes = modes;
    }
    if (m_options.repeat == 0)
    {
        m_options.repeat = options.profile == Profile::QUICK ? 2 : 1;
    }
    m_scaleRepeat = std::max(scaleRepeat, m_options.repeat);
    const Sections& run = m_options.sections;
    if (!run.simulation)
    {
        m_sizes.clear();
    }
    if (!run.optimizer)
    {
        m_evaluateModes.clear();
        m_optimize9Modes.clear();
        m_optimize32Modes.clear();
    }
    if (!run.scale)
    {
        m_scaleIslands.clear();
    }
    if (!run.coarse)
    {
        m_coarseModes.clear();
        m_coarseSyntheticModes.clear();
    }
    if (!options.modes.empty())
    {
        loss.modes = options.modes;
    }
    if (!run.loss)
    {
        loss.modes.clear();
    }
    m_loss = LossSection(loss);
    m_casesTotal = static_cast<uint32_t>(
        2 * m_options.modes.size() * m_sizes.size() + m_evaluateModes.size() +
        m_optimize9Modes.size() + m_optimize32Modes.size() + 2 * m_scaleIslands.size() +
        m_coarseModes.size() + m_coarseSyntheticModes.size() + m_loss.GetCaseCount());
}

nlohmann::json
BenchRunner::RunProcess(const BenchCase::Arguments& arguments, const std::string& resultFile)
{
    ChildProcessPool::Job job;
    job.name = resultFile;
    job.command = {std::filesystem::read_symlink("/proc/self/exe").string()};
    for (const std::string& arg : BenchCase::ToCommandLine(arguments))
    {
        job.command.push_back(arg);
    }
    job.command.push_back("--result=" + resultFile);
    const ChildProcessPool::Result process = ChildProcessPool(1).Run({job}).front();

    nlohmann::json result;
    // A program that cannot be executed counts as exit status 127, as a shell reports it.
    int exitStatus = !process.started ? 127
                     : process.exited ? process.exitStatus
                                      : 128 + process.signal;
    if (exitStatus == 0)
    {
        std::ifstream in(resultFile);
        result = nlohmann::json::parse(in, nullptr, false);
    }
    if (exitStatus != 0 || result.is_discarded() || !result.is_object())
    {
        result = {{"passed", false},
                  {"error", "the case process ended with status " + std::to_string(exitStatus)}};
    }
    result["exit_status"] = exitStatus;
    result["peak_rss_mb"] = process.peakRssMb;
    result["process_cpu_s"] = process.cpuS;
    result["process_wall_s"] = process.wallS;
    return result;
}

nlohmann::json
BenchRunner::RunCase(const BenchCase::Arguments& arguments,
                     const std::string& label,
                     uint32_t repeat)
{
    ++m_casesRun;
    std::cerr << "[" << m_casesRun << "/" << m_casesTotal << "] " << label << " ..." << std::flush;
    Repetitions runs;
    for (uint32_t r = 0; r < repeat; ++r)
    {
        std::string resultFile =
            m_caseDir + "/case-" + std::to_string(m_casesRun) + "-" + std::to_string(r) + ".json";
        nlohmann::json result = RunProcess(arguments, resultFile);
        if (!V::Passed(result))
        {
            m_allPassed = false;
            std::cerr << FailureText(result);
            return result;
        }
        std::cerr << " " << V::Fixed(V::Number(result, "process_wall_s"), 1) << " s" << std::flush;
        runs.Add(std::move(result));
    }
    std::cerr << "\n";
    return runs.Finish();
}

std::pair<nlohmann::json, nlohmann::json>
BenchRunner::RunPair(const BenchCase::Arguments& arguments,
                     const std::string& label,
                     uint32_t repeat)
{
    m_casesRun += 2;
    const uint32_t oursCase = m_casesRun - 1;
    std::cerr << "[" << oursCase << "-" << m_casesRun << "/" << m_casesTotal << "] " << label << ":"
              << std::flush;
    Repetitions runs[2];
    const char* const names[2] = {"ours", "plain"};
    for (uint32_t r = 0; r < repeat; ++r)
    {
        std::string oursFile;
        for (uint32_t side = 0; side < 2; ++side)
        {
            BenchCase::Arguments run = arguments;
            if (side == 1)
            {
                run.kind = "plain";
                run.oursResult = oursFile;
            }
            std::string resultFile = m_caseDir + "/case-" + std::to_string(oursCase + side) + "-" +
                                     std::to_string(r) + ".json";
            nlohmann::json result = RunProcess(run, resultFile);
            if (!V::Passed(result))
            {
                m_allPassed = false;
                std::cerr << " " << names[side] << FailureText(result);
                if (side == 0)
                {
                    return {result, {{"passed", false}, {"error", "its `ours` case failed"}}};
                }
                // Ours keeps the runs it made, this repetition's included.
                return {runs[0].Finish(), result};
            }
            std::cerr << " " << names[side] << " "
                      << V::Fixed(V::Number(result, "process_wall_s"), 1) << " s" << std::flush;
            oursFile = resultFile;
            runs[side].Add(std::move(result));
        }
    }
    std::cerr << "\n";
    return {runs[0].Finish(), runs[1].Finish()};
}

void
BenchRunner::RunSimulation()
{
    m_simulation = nlohmann::json::array();
    m_memory = nlohmann::json::array();
    for (CapabilityMode mode : m_options.modes)
    {
        if (m_sizes.empty())
        {
            break;
        }
        std::string modeName = CapabilityModeToString(mode);
        nlohmann::json first;
        nlohmann::json last;
        double largestRssRatio = 0;
        for (uint64_t size : m_sizes)
        {
            BenchCase::Arguments ours;
            ours.kind = "ours";
            ours.topologyFile = m_options.topologyFile;
            ours.mode = mode;
            ours.modelBytes = size;
            auto [oursResult, plainResult] =
                RunPair(ours,
                        modeName + " " + V::BytesText(static_cast<double>(size)),
                        m_options.repeat);
            double ratio = V::Number(oursResult, "wall_s") / V::Number(plainResult, "wall_s");
            double cpuRatio = V::Number(oursResult, "cpu_s") / V::Number(plainResult, "cpu_s");
            double rssRatio =
                V::Passed(oursResult) && V::Passed(plainResult)
                    ? V::Number(oursResult, "peak_rss_mb") / V::Number(plainResult, "peak_rss_mb")
                    : std::numeric_limits<double>::quiet_NaN();
            // NaN (a failed case) stays NaN: the target is then not met.
            largestRssRatio = std::isnan(largestRssRatio) || std::isnan(rssRatio)
                                  ? std::numeric_limits<double>::quiet_NaN()
                                  : std::max(largestRssRatio, rssRatio);
            oursResult.erase("traffic");
            oursResult.erase("link_packets");
            plainResult.erase("link_packets");
            nlohmann::json row = {{"mode", modeName},
                                  {"model_bytes", size},
                                  {"ours", oursResult},
                                  {"plain", plainResult},
                                  {"wall_ratio", ratio},
                                  {"cpu_ratio", cpuRatio},
                                  {"rss_ratio", V::NumberOrNull(rssRatio)}};
            if (first.is_null())
            {
                first = row;
            }
            last = row;
            m_simulation.push_back(row);
        }
        double small = V::Number(first.at("ours"), "peak_rss_mb");
        double large = V::Number(last.at("ours"), "peak_rss_mb");
        if (!V::Passed(first.at("ours")) || !V::Passed(last.at("ours")))
        {
            small = large = std::numeric_limits<double>::quiet_NaN();
        }
        m_memory.push_back(
            {{"mode", modeName},
             {"small_model_bytes", first.at("model_bytes")},
             {"large_model_bytes", last.at("model_bytes")},
             {"small_peak_rss_mb", small},
             {"large_peak_rss_mb", large},
             {"small_plain_peak_rss_mb", V::Number(first.at("plain"), "peak_rss_mb")},
             {"large_plain_peak_rss_mb", V::Number(last.at("plain"), "peak_rss_mb")},
             {"ratio", large / small},
             {"largest_rss_ratio_to_plain", V::NumberOrNull(largestRssRatio)},
             {"in_flight_grows_with_s", BenchTargets::InFlightGrowsWithModelBytes(mode)}});
    }
}

void
BenchRunner::RunOptimizer()
{
    m_evaluate = nlohmann::json::array();
    m_optimize = nlohmann::json::array();
    for (CapabilityMode mode : m_evaluateModes)
    {
        BenchCase::Arguments evaluate;
        evaluate.kind = "evaluate";
        evaluate.topologyFile = m_options.topologyFile;
        evaluate.mode = mode;
        evaluate.modelBytes = 1000000000;
        evaluate.computeS = 1;
        evaluate.seconds = m_evaluateSeconds;
        m_evaluate.push_back(
            RunCase(evaluate, "evaluate nine-city " + CapabilityModeToString(mode), 1));
    }
    auto optimize = [this](uint32_t islands, CapabilityMode mode) {
        BenchCase::Arguments arguments;
        arguments.kind = "optimize";
        arguments.mode = mode;
        if (islands == 9)
        {
            // The settings of the optimize-nine-city example test.
            arguments.topologyFile = m_options.topologyFile;
            arguments.modelBytes = 1000000000;
            arguments.computeS = 1;
        }
        else
        {
            // The settings of the optimize-synthetic-32 example test.
            arguments.syntheticIslands = islands;
            arguments.modelBytes = 10000000000;
            arguments.computeS = 5;
            arguments.maxEvaluations = m_optimize32Evaluations;
        }
        m_optimize.push_back(RunCase(arguments,
                                     "optimize " + std::to_string(islands) + " islands " +
                                         CapabilityModeToString(mode),
                                     1));
    };
    for (CapabilityMode mode : m_optimize9Modes)
    {
        optimize(9, mode);
    }
    for (CapabilityMode mode : m_optimize32Modes)
    {
        optimize(32, mode);
    }
}

void
BenchRunner::RunScale()
{
    m_scale = nlohmann::json::array();
    m_scalePlain = nlohmann::json::array();
    std::vector<double> hops;
    std::vector<double> walls;
    std::vector<double> plainHops;
    std::vector<double> plainWalls;
    for (uint32_t islands : m_scaleIslands)
    {
        BenchCase::Arguments arguments;
        arguments.kind = "ours";
        arguments.syntheticIslands = islands;
        arguments.mode = m_scaleMode;
        arguments.modelBytes = m_scaleBytes;
        std::string label = std::to_string(islands) + " islands " +
                            CapabilityModeToString(m_scaleMode) + " " +
                            V::BytesText(static_cast<double>(m_scaleBytes));
        auto [result, plain] = RunPair(arguments, "scale " + label, m_scaleRepeat);
        result.erase("traffic");
        result.erase("link_packets");
        plain.erase("link_packets");
        if (V::Passed(result) && V::Passed(plain))
        {
            // Ours / plain of each alternating pair of runs, and their median.
            std::vector<double> ratios;
            const nlohmann::json& oursRuns = result.at("wall_s_repetitions");
            const nlohmann::json& plainRuns = plain.at("wall_s_repetitions");
            for (std::size_t r = 0; r < oursRuns.size() && r < plainRuns.size(); ++r)
            {
                ratios.push_back(oursRuns[r].get<double>() / plainRuns[r].get<double>());
            }
            result["wall_ratio_repetitions"] = ratios;
            result["wall_ratio_median"] = V::Median(ratios);
            hops.push_back(V::Number(result, "packet_hops"));
            walls.push_back(V::Number(result, "wall_s"));
            plainHops.push_back(V::Number(plain, "packet_hops"));
            plainWalls.push_back(V::Number(plain, "wall_s"));
        }
        m_scale.push_back(result);
        m_scalePlain.push_back(plain);
    }
    bool complete = hops.size() == m_scaleIslands.size();
    m_scaleExponent =
        complete ? LogLogSlope(hops, walls) : std::numeric_limits<double>::quiet_NaN();
    m_scalePlainExponent =
        complete ? LogLogSlope(plainHops, plainWalls) : std::numeric_limits<double>::quiet_NaN();
}

void
BenchRunner::RunCoarse()
{
    m_coarse = nlohmann::json::array();
    auto run = [this](uint32_t islands, CapabilityMode mode, uint64_t bytes) {
        BenchCase::Arguments arguments;
        arguments.kind = "ours";
        arguments.topologyFile = m_options.topologyFile;
        arguments.syntheticIslands = islands;
        arguments.mode = mode;
        arguments.modelBytes = bytes;
        arguments.coarseFrames = true;
        std::string topology = islands > 0 ? std::to_string(islands) + " islands" : "nine-city";
        nlohmann::json result = RunCase(arguments,
                                        "coarse " + topology + " " + CapabilityModeToString(mode) +
                                            " " + V::BytesText(static_cast<double>(bytes)),
                                        1);
        result.erase("traffic");
        result.erase("link_packets");
        // The schedule model's time times the bytes the wire carried per model byte.
        const double wirePerModel =
            V::Number(result, "wire_bytes") / V::Number(result, "link_model_bytes");
        const double modelCommS = V::Number(result, "predicted_comm_s") * wirePerModel;
        result["mode"] = CapabilityModeToString(mode);
        result["synthetic_islands"] = islands;
        result["wire_per_model_byte"] = V::NumberOrNull(wirePerModel);
        result["model_comm_s"] = V::NumberOrNull(modelCommS);
        result["comm_to_model"] = V::NumberOrNull(V::Number(result, "comm_s") / modelCommS);
        result["wall_per_comm"] =
            V::NumberOrNull(V::Number(result, "wall_s") / V::Number(result, "comm_s"));
        // The same with the CPU seconds of Simulator::Run(): a cross-check on a busy machine.
        result["cpu_per_comm"] =
            V::NumberOrNull(V::Number(result, "cpu_s") / V::Number(result, "comm_s"));
        m_coarse.push_back(result);
    };
    for (CapabilityMode mode : m_coarseModes)
    {
        run(0, mode, m_coarseBytes);
    }
    for (CapabilityMode mode : m_coarseSyntheticModes)
    {
        run(m_coarseSyntheticIslands, mode, m_coarseSyntheticBytes);
    }
}

void
BenchRunner::Print(std::ostream& out) const
{
    auto cell = [&out](const std::string& text, int width) {
        out << std::right << std::setw(width) << text;
    };
    out << "wan-training benchmarks (" << GetProfileName(m_options.profile) << ", " << UtcNow()
        << ", " << std::thread::hardware_concurrency() << " CPUs)\n\n";

    out << "Simulation cost: nine-city, one round of the all-island clique; ours = TrainingRun, "
           "plain = stock ns-3\n"
           "(UdpClient/PacketSink, same packets over the same routes). Wall s of "
           "Simulator::Run() only.\n";
    cell("mode", 12);
    cell("ModelBytes", 11);
    cell("wall s", 9);
    cell("sim s", 8);
    cell("pkt-hops", 12);
    cell("events", 12);
    cell("hops/wall s", 12);
    cell("RSS MB", 8);
    out << " |";
    cell("plain s", 9);
    cell("pkt-hops", 12);
    cell("events", 12);
    cell("RSS MB", 8);
    cell("ours/plain", 11);
    cell("cpu ratio", 10);
    out << "\n";
    for (const nlohmann::json& row : m_simulation)
    {
        const nlohmann::json& ours = row.at("ours");
        const nlohmann::json& plain = row.at("plain");
        cell(row.at("mode").get<std::string>(), 12);
        cell(V::BytesText(row.at("model_bytes").get<double>()), 11);
        cell(V::Fixed(V::Number(ours, "wall_s"), 2), 9);
        cell(V::Fixed(V::Number(ours, "simulated_s"), 3), 8);
        cell(V::Fixed(V::Number(ours, "packet_hops"), 0), 12);
        cell(V::Fixed(V::Number(ours, "events"), 0), 12);
        cell(V::Fixed(V::Number(ours, "packet_hops_per_wall_s"), 0), 12);
        cell(V::Fixed(V::Number(ours, "peak_rss_mb"), 1), 8);
        out << " |";
        cell(V::Fixed(V::Number(plain, "wall_s"), 2), 9);
        cell(V::Fixed(V::Number(plain, "packet_hops"), 0), 12);
        cell(V::Fixed(V::Number(plain, "events"), 0), 12);
        cell(V::Fixed(V::Number(plain, "peak_rss_mb"), 1), 8);
        cell(V::Fixed(V::Number(row, "wall_ratio"), 2), 11);
        cell(V::Fixed(V::Number(row, "cpu_ratio"), 2), 10);
        out << "\n";
    }

    out << "\nMemory scaling: peak RSS (MB) of the smallest and largest ModelBytes\n";
    cell("mode", 12);
    cell("small", 9);
    cell("RSS", 8);
    cell("large", 9);
    cell("RSS", 8);
    cell("ratio", 8);
    cell("plain ratio", 12);
    cell("ours/plain", 11);
    out << "  in flight\n";
    for (const nlohmann::json& row : m_memory)
    {
        cell(row.at("mode").get<std::string>(), 12);
        cell(V::BytesText(row.at("small_model_bytes").get<double>()), 9);
        cell(V::Fixed(V::Number(row, "small_peak_rss_mb"), 1), 8);
        cell(V::BytesText(row.at("large_model_bytes").get<double>()), 9);
        cell(V::Fixed(V::Number(row, "large_peak_rss_mb"), 1), 8);
        cell(V::Fixed(V::Number(row, "ratio"), 3), 8);
        cell(V::Fixed(V::Number(row, "large_plain_peak_rss_mb") /
                          V::Number(row, "small_plain_peak_rss_mb"),
                      3),
             12);
        cell(V::Fixed(V::Number(row, "largest_rss_ratio_to_plain"), 3), 11);
        out << (row.at("in_flight_grows_with_s").get<bool>() ? "  grows with S (no growth target)"
                                                             : "  bounded")
            << "\n";
    }

    out << "\nOptimizer: evaluate = ScheduleOptimizer::GetXi on distinct mixing random schedules "
           "(S = 1 GB, tau_c = 1 s)\n";
    cell("topology", 22);
    cell("mode", 12);
    cell("calls", 9);
    cell("wall s", 9);
    cell("calls/s", 10);
    out << "\n";
    for (const nlohmann::json& row : m_evaluate)
    {
        cell(row.value("topology", std::string("-")), 22);
        cell(row.value("mode", std::string("-")), 12);
        cell(V::Fixed(V::Number(row, "calls"), 0), 9);
        cell(V::Fixed(V::Number(row, "wall_s"), 2), 9);
        cell(V::Fixed(V::Number(row, "calls_per_s"), 0), 10);
        out << "\n";
    }
    out << "optimize = ScheduleOptimizer::Optimize() with default options (nine-city: S = 1 GB, "
           "tau_c = 1 s;\n32 islands: SyntheticTopology seed 1, S = 10 GB, tau_c = 5 s); one "
           "core\n";
    cell("topology", 22);
    cell("mode", 12);
    cell("wall s", 8);
    cell("evals", 8);
    cell("Xi s", 10);
    cell("bound s", 10);
    cell("Xi/bound", 9);
    cell("all-red. Xi", 12);
    cell("RSS MB", 8);
    out << "  profile\n";
    for (const nlohmann::json& row : m_optimize)
    {
        cell(row.value("topology", std::string("-")), 22);
        cell(row.value("mode", std::string("-")), 12);
        cell(V::Fixed(V::Number(row, "wall_s"), 2), 8);
        cell(V::Fixed(V::Number(row, "evaluations"), 0), 8);
        cell(V::Fixed(V::Number(row, "xi_s"), 4), 10);
        cell(V::Fixed(V::Number(row, "xi_lower_bound_s"), 4), 10);
        cell(V::Fixed(V::Number(row, "gap_to_lower_bound"), 3), 9);
        cell(V::Fixed(V::Number(row, "all_reduce_xi_s"), 4), 12);
        cell(V::Fixed(V::Number(row, "peak_rss_mb"), 1), 8);
        out << "  " << row.value("profile", std::string("-")) << "\n";
    }

    out << "\nScale: synthetic topologies (SyntheticTopology seed 1), one round of the all-island "
           "clique, "
        << CapabilityModeToString(m_scaleMode) << ", ModelBytes "
        << V::BytesText(static_cast<double>(m_scaleBytes)) << "\n";
    cell("islands", 8);
    cell("wall s", 9);
    cell("sim s", 8);
    cell("pkt-hops", 12);
    cell("events", 12);
    cell("us/hop", 8);
    cell("RSS MB", 8);
    cell("verified", 9);
    out << " |";
    cell("plain s", 9);
    cell("us/hop", 8);
    cell("ours/plain", 11);
    cell("median", 8);
    out << "\n";
    for (std::size_t k = 0; k < m_scale.size(); ++k)
    {
        const nlohmann::json& row = m_scale[k];
        const nlohmann::json& plain = m_scalePlain[k];
        cell(V::Fixed(V::Number(row, "islands"), 0), 8);
        cell(V::Fixed(V::Number(row, "wall_s"), 2), 9);
        cell(V::Fixed(V::Number(row, "simulated_s"), 3), 8);
        cell(V::Fixed(V::Number(row, "packet_hops"), 0), 12);
        cell(V::Fixed(V::Number(row, "events"), 0), 12);
        cell(V::Fixed(1e6 * V::Number(row, "wall_s") / V::Number(row, "packet_hops"), 2), 8);
        cell(V::Fixed(V::Number(row, "peak_rss_mb"), 1), 8);
        cell(V::Passed(row) ? "yes" : "NO", 9);
        out << " |";
        cell(V::Fixed(V::Number(plain, "wall_s"), 2), 9);
        cell(V::Fixed(1e6 * V::Number(plain, "wall_s") / V::Number(plain, "packet_hops"), 2), 8);
        cell(V::Fixed(V::Number(row, "wall_s") / V::Number(plain, "wall_s"), 2), 11);
        cell(V::Fixed(V::Number(row, "wall_ratio_median"), 2), 8);
        out << "\n";
    }
    out << "ours/plain of the fastest runs; median: of the " << m_scaleRepeat
        << " alternating pairs. Slope of log(wall) over log(packet-hops): ours "
        << V::Fixed(m_scaleExponent, 3) << ", plain ns-3 " << V::Fixed(m_scalePlainExponent, 3)
        << "\n";
    PrintCoarse(out);
    m_loss.Print(out);
    if (m_options.profile != Profile::FULL)
    {
        out << "\nNote: the memory target is defined at 1 GB against 64 MB. The "
            << GetProfileName(m_options.profile)
            << " sizes are below the paths' bandwidth-delay product, where\na whole "
               "contribution is in flight at once and memory grows with it, in plain ns-3 too "
               "(benchmarks/README.md).\n";
    }

    out << "\nTargets\n";
    m_targets.Print(out);
    if (!m_allPassed)
    {
        out << "\nSome cases FAILED (see the progress lines and the JSON's \"error\" fields).\n";
    }
}

void
BenchRunner::PrintCoarse(std::ostream& out) const
{
    if (m_coarse.empty())
    {
        return;
    }
    auto cell = [&out](const std::string& text, int width) {
        out << std::right << std::setw(width) << text;
    };
    out << "\nCoarse frames: simulation frames of " << BenchCase::COARSE_FRAME_BYTES
        << " IP bytes (--frameBytes), one round of the all-island clique, one core. comm s: the "
           "simulated\ncommunication time (tau_c excluded); model s: the schedule model's T_comm "
           "x the wire bytes per model byte measured on the links\n";
    cell("topology", 22);
    cell("mode", 9);
    cell("ModelBytes", 11);
    cell("wall s", 9);
    cell("comm s", 9);
    cell("wall/comm", 10);
    cell("cpu/comm", 9);
    cell("model s", 9);
    cell("wire/model", 11);
    cell("comm/model", 11);
    cell("pkt-hops", 12);
    cell("RSS MB", 8);
    out << "\n";
    for (const nlohmann::json& row : m_coarse)
    {
        cell(row.value("topology", std::string("-")), 22);
        cell(row.value("mode", std::string("-")), 9);
        cell(V::BytesText(V::Number(row, "model_bytes")), 11);
        cell(V::Fixed(V::Number(row, "wall_s"), 1), 9);
        cell(V::Fixed(V::Number(row, "comm_s"), 3), 9);
        cell(V::Fixed(V::Number(row, "wall_per_comm"), 3), 10);
        cell(V::Fixed(V::Number(row, "cpu_per_comm"), 3), 9);
        cell(V::Fixed(V::Number(row, "model_comm_s"), 3), 9);
        cell(V::Fixed(V::Number(row, "wire_per_model_byte"), 5), 11);
        cell(V::Fixed(V::Number(row, "comm_to_model"), 4), 11);
        cell(V::Fixed(V::Number(row, "packet_hops"), 0), 12);
        cell(V::Fixed(V::Number(row, "peak_rss_mb"), 1), 8);
        out << "\n";
    }
}

nlohmann::json
BenchRunner::ToJson() const
{
    return {
        {"program", PROGRAM},
        {"profile", GetProfileName(m_options.profile)},
        {"date", UtcNow()},
        {"cpus", std::thread::hardware_concurrency()},
        {"all_cases_passed", m_allPassed},
        {"simulation",
         {{"topology_file", m_options.topologyFile},
          {"schedule", "all-island clique (CliqueSchedule::AllReduce), one round"},
          {"cases", m_simulation}}},
        {"memory", m_memory},
        {"optimizer", {{"evaluate", m_evaluate}, {"optimize", m_optimize}}},
        {"scale",
         {{"mode", CapabilityModeToString(m_scaleMode)},
          {"model_bytes", m_scaleBytes},
          {"cases", m_scale},
          {"plain_cases", m_scalePlain},
          {"log_log_slope",
           std::isfinite(m_scaleExponent) ? nlohmann::json(m_scaleExponent)
                                          : nlohmann::json(nullptr)},
          {"plain_log_log_slope",
           std::isfinite(m_scalePlainExponent) ? nlohmann::json(m_scalePlainExponent)
                                               : nlohmann::json(nullptr)},
          {"repetitions", m_scaleRepeat}}},
        {"coarse",
         {{"frame_bytes", BenchCase::COARSE_FRAME_BYTES},
          {"cases", m_coarse.is_null() ? nlohmann::json::array() : m_coarse}}},
        {"loss", m_loss.ToJson()},
    };
}

int
BenchRunner::Run()
{
    char pattern[] = "/tmp/wan-bench-XXXXXX";
    if (mkdtemp(pattern) == nullptr)
    {
        throw WanInputError(PROGRAM, "--out", "cannot create a temporary directory in /tmp");
    }
    m_caseDir = pattern;
    m_casesRun = 0;
    m_allPassed = true;

    RunSimulation();
    RunOptimizer();
    RunScale();
    RunCoarse();
    m_loss.Run([this](const BenchCase::Arguments& arguments, const std::string& label) {
        return RunCase(arguments, label, 1);
    });
    nlohmann::json report = ToJson();
    m_targets.Compute(report);
    report["targets"] = m_targets.ToJson();

    std::error_code error;
    std::filesystem::remove_all(m_caseDir, error);

    Print(std::cout);
    std::filesystem::path out(m_options.out);
    if (out.has_parent_path())
    {
        std::filesystem::create_directories(out.parent_path(), error);
    }
    CommandLineValues::WriteText(PROGRAM, "--out", m_options.out, report.dump(2) + "\n");
    std::cout << "\nJSON: " << m_options.out << "\n";
    return m_allPassed ? 0 : 1;
}

} // namespace ns3
