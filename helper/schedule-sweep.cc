/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "schedule-sweep.h"

#include "child-process-pool.h"
#include "clique-schedule.h"
#include "csv-field.h"
#include "schedule-metrics.h"
#include "training-run-summary.h"
#include "wan-config-error.h"
#include "wan-input-error.h"

#include "ns3/log.h"

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <map>
#include <numeric>
#include <sstream>
#include <unistd.h>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("WanTrainingScheduleSweep");

namespace
{

/** The width of the table's mode column. */
const int MODE_WIDTH = 13;

/** The width of the table's capability set column (fits `{multicast,aggregation,core}`). */
const int SET_WIDTH = 30;

/**
 * @param topology the topology
 * @param schedule a schedule
 * @return its rounds by city id, cliques in braces (a clique's algorithm, when it carries one,
 *         in front: `both{a,b,c}`), rounds separated by " | "
 */
std::string
ScheduleText(const WanTopology& topology, const CliqueSchedule& schedule)
{
    std::ostringstream out;
    for (uint32_t r = 0; r < schedule.GetNRounds(); ++r)
    {
        out << (r ? " | " : "");
        const CliqueSchedule::Round& round = schedule.GetRound(r);
        for (std::size_t c = 0; c < round.size(); ++c)
        {
            const std::optional<CapabilityMode> algorithm = schedule.GetAlgorithm(r, c);
            out << (c ? " " : "") << (algorithm ? CapabilityModeToString(*algorithm) : "") << "{";
            for (std::size_t k = 0; k < round[c].size(); ++k)
            {
                out << (k ? "," : "") << topology.GetCity(round[c][k]).id;
            }
            out << "}";
        }
    }
    return out.str();
}

/**
 * @param topology the topology
 * @param schedule a schedule
 * @return its rounds as lists of cliques, each a list of city ids (no algorithms)
 */
nlohmann::json
MemberRounds(const WanTopology& topology, const CliqueSchedule& schedule)
{
    nlohmann::json rounds = nlohmann::json::array();
    for (const CliqueSchedule::Round& round : schedule.GetRounds())
    {
        rounds.push_back(nlohmann::json::array());
        for (const std::vector<uint32_t>& clique : round)
        {
            rounds.back().push_back(nlohmann::json::array());
            for (uint32_t island : clique)
            {
                rounds.back().back().push_back(topology.GetCity(island).id);
            }
        }
    }
    return rounds;
}

/**
 * @param schedule a schedule whose cliques carry their algorithms
 * @return per round, the clique sizes of each algorithm (in GetAllCapabilityModes order, sizes
 *         largest first) after its name, then the idle islands, e.g. "both 3+3, ring 3" or
 *         "both 4+4, 1 idle"; rounds separated by " | "
 */
std::string
AlgorithmProfile(const CliqueSchedule& schedule)
{
    std::ostringstream out;
    for (uint32_t r = 0; r < schedule.GetNRounds(); ++r)
    {
        const CliqueSchedule::Round& round = schedule.GetRound(r);
        std::map<CapabilityMode, std::vector<std::size_t>> sizes;
        std::size_t idle = 0;
        for (uint32_t c = 0; c < round.size(); ++c)
        {
            const std::optional<CapabilityMode> algorithm = schedule.GetAlgorithm(r, c);
            if (round[c].size() < 2 || !algorithm)
            {
                idle += round[c].size();
                continue;
            }
            sizes[*algorithm].push_back(round[c].size());
        }
        out << (r ? " | " : "");
        bool first = true;
        for (CapabilityMode mode : GetAllCapabilityModes())
        {
            if (sizes.count(mode) == 0)
            {
                continue;
            }
            std::vector<std::size_t>& cliques = sizes[mode];
            std::sort(cliques.rbegin(), cliques.rend());
            out << (first ? "" : ", ") << CapabilityModeToString(mode) << " ";
            for (std::size_t k = 0; k < cliques.size(); ++k)
            {
                out << (k ? "+" : "") << cliques[k];
            }
            first = false;
        }
        if (idle > 0)
        {
            out << (first ? "" : ", ") << idle << " idle";
        }
    }
    return out.str();
}

/**
 * @param word a command-line word
 * @return the word as a POSIX shell reads it back: as is when it holds only safe characters,
 *         else in single quotes
 */
std::string
ShellQuote(const std::string& word)
{
    const char* const safe = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
                             "_-./=+,:@%";
    if (!word.empty() && word.find_first_not_of(safe) == std::string::npos)
    {
        return word;
    }
    std::string quoted = "'";
    for (char c : word)
    {
        quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
    }
    return quoted + "'";
}

/**
 * @param point a point
 * @return a one-line description of it for messages
 */
std::string
Describe(const ScheduleSweep::Point& point)
{
    std::ostringstream out;
    out << point.name << " (S = " << point.modelBytes << " B, "
        << PayloadFormatToString(point.format) << ", tau_c = " << point.computeS << " s, "
        << (point.capabilities ? "capabilities " + point.capabilities->ToString()
                               : "mode " + CapabilityModeToString(point.mode))
        << ")";
    return out.str();
}

/**
 * @param value a number
 * @return the number, or JSON null when it is not finite
 */
nlohmann::json
NumberOrNull(double value)
{
    return std::isfinite(value) ? nlohmann::json(value) : nlohmann::json(nullptr);
}

/**
 * @brief Write a text file.
 * @param field the configuration field that names the file or its directory
 * @param file the file
 * @param text its content
 * @throws WanConfigError on field when it cannot be written
 */
void
WriteText(const std::string& field, const std::string& file, const std::string& text)
{
    std::ofstream out(file);
    out << text;
    if (!out)
    {
        throw WanConfigError(field, "cannot write " + file);
    }
}

} // namespace

ScheduleSweep::ScheduleSweep(const Config& config)
    : m_config(config)
{
    if (m_config.simulateRounds > 0)
    {
        namespace fs = std::filesystem;
        const fs::path work =
            m_config.workDir.empty()
                ? fs::path(m_config.jsonFile).replace_extension().string() + "-work"
                : m_config.workDir;
        m_config.workDir = fs::absolute(work).lexically_normal().string();
    }
}

const ScheduleSweep::Config&
ScheduleSweep::GetConfig() const
{
    return m_config;
}

ScheduleSweep::MonotoneCheck
ScheduleSweep::CheckMonotone(const std::vector<Point>& points)
{
    MonotoneCheck check;
    for (const Point& smaller : points)
    {
        for (const Point& larger : points)
        {
            if (!smaller.capabilities || !larger.capabilities ||
                smaller.gridPoint != larger.gridPoint ||
                *smaller.capabilities == *larger.capabilities ||
                !larger.capabilities->Contains(*smaller.capabilities))
            {
                continue;
            }
            ++check.pairs;
            if (larger.xiS > smaller.xiS * (1 + 1e-9))
            {
                std::ostringstream violation;
                violation << std::setprecision(10) << Describe(larger) << ": Xi " << larger.xiS
                          << " s is worse than " << smaller.xiS << " s of the smaller set "
                          << smaller.capabilities->ToString() << " (" << smaller.name << ")";
                check.violations.push_back(violation.str());
            }
        }
    }
    return check;
}

void
ScheduleSweep::Log(const std::string& line) const
{
    if (m_config.log != nullptr)
    {
        *m_config.log << m_config.name << ": " << line << std::endl;
    }
}

void
ScheduleSweep::Validate() const
{
    if (m_config.jsonFile.empty() || m_config.csvFile.empty())
    {
        throw WanConfigError(m_config.jsonFile.empty() ? "jsonFile" : "csvFile", "empty file name");
    }
    if (m_config.simulateRounds == 0)
    {
        return;
    }
    if (!m_config.collectOnly && access(m_config.simulator.c_str(), X_OK) != 0)
    {
        throw WanConfigError("simulator",
                             "cannot execute '" + m_config.simulator +
                                 "' (build the wan-training-simulate target, or give its path)");
    }
    namespace fs = std::filesystem;
    std::error_code error;
    const fs::path work = m_config.workDir;
    if (m_config.collectOnly ? !fs::is_directory(work, error)
                             : !fs::create_directories(work, error) && !fs::is_directory(work))
    {
        throw WanConfigError("workDir",
                             (m_config.collectOnly ? "no directory '" : "cannot create '") +
                                 work.string() + "'");
    }
}

bool
ScheduleSweep::ShowsFormats() const
{
    return !m_config.modelParameters.empty() || !m_config.formats.empty();
}

std::vector<ScheduleSweep::Point>
ScheduleSweep::Optimize(const WanTopology& topology) const
{
    const uint32_t n = topology.GetNCities();
    const bool simulating = m_config.simulateRounds > 0;

    /** A size of the grid: an S given, or a P in a format. */
    struct Size
    {
        double bytes;         //!< S
        std::string text;     //!< S as the simulation reads it
        PayloadFormat format; //!< the format
        uint64_t parameters;  //!< P (0: S given in bytes)
    };

    std::vector<Size> sizes; // in grid order: every S given, then every P in every format
    for (std::size_t i = 0; i < m_config.modelBytes.size(); ++i)
    {
        sizes.push_back({m_config.modelBytes[i], m_config.modelBytesTexts[i], {}, 0});
    }
    for (uint64_t parameters : m_config.modelParameters)
    {
        for (PayloadFormat format : m_config.formats.empty()
                                        ? std::vector<PayloadFormat>{PayloadFormat::FP32}
                                        : m_config.formats)
        {
            const uint64_t bytes = GetEncodedBytes(format, parameters);
            sizes.push_back(
                {static_cast<double>(bytes), std::to_string(bytes), format, parameters});
        }
    }
    const std::vector<CapabilitySet> sets =
        m_config.capabilitySets.value_or(std::vector<CapabilitySet>{CapabilitySet::Of(topology)});
    const CapabilitySet available = CapabilitySet::Of(topology);
    std::vector<Point> points;
    uint32_t gridPoint = 0;
    for (const Size& size : sizes)
    {
        const double s = size.bytes;
        const std::string formatName = PayloadFormatToString(size.format);
        for (double tau : m_config.computeS)
        {
            ScheduleMetrics::Settings settings;
            settings.modelBytes = s;
            settings.computeS = tau;
            settings.overlap = m_config.overlap;
            ScheduleMetrics metrics(topology, settings);
            double ringAllReduce =
                metrics.Evaluate(CliqueSchedule::AllReduce(n), CapabilityMode::RING).xiS;
            // A point per mode, then one per capability set.
            for (std::size_t k = 0; k < m_config.modes.size() + sets.size(); ++k)
            {
                Point point;
                if (k < m_config.modes.size())
                {
                    point.mode = m_config.modes[k];
                }
                else
                {
                    point.capabilities = sets[k - m_config.modes.size()];
                }
                const std::optional<CapabilitySet>& set = point.capabilities;
                ScheduleOptimizer::Result result =
                    set ? ScheduleOptimizer(topology, settings, *set, m_config.optimizer).Optimize()
                        : ScheduleOptimizer(topology, settings, point.mode, m_config.optimizer)
                              .Optimize();
                const ScheduleMetrics::Evaluation& e = result.evaluation;
                // A set's all-reduce in the same mode: the best of the algorithms it allows
                // that the all-island clique can run.
                double allReduce = INFINITY;
                std::string allReduceAlgorithm;
                for (CapabilityMode mode :
                     set ? set->GetAlgorithms() : std::vector<CapabilityMode>{point.mode})
                {
                    const std::string name = CapabilityModeToString(mode);
                    // Tree only where the all-island clique is a tree clique.
                    const bool runs =
                        !set || mode != CapabilityMode::TREE ||
                        metrics.GetLinkLoadModel().FindRouterWithoutFpga(
                            CliqueSchedule::AllReduce(n).GetRound(0)[0]) == LinkLoadModel::NO_CITY;
                    const double xi =
                        runs ? metrics.Evaluate(CliqueSchedule::AllReduce(n), mode).xiS : INFINITY;
                    if (xi < allReduce)
                    {
                        allReduce = xi;
                        allReduceAlgorithm = name;
                    }
                }
                std::string profile = ScheduleOptimizer::GetProfile(result.schedule);
                const std::string shownProfile = set ? AlgorithmProfile(result.schedule) : profile;
                std::string schedule = ScheduleText(topology, result.schedule);
                double gapColo = e.xiColocatedS > 0 ? e.xiS / e.xiColocatedS : INFINITY;
                double gapBound = e.xiS / e.xiLowerBoundS;
                std::string modeName =
                    set ? "{" + set->ToString() + "}" : CapabilityModeToString(point.mode);
                point.modelBytes = s;
                point.modelBytesText = size.text;
                point.format = size.format;
                point.modelParameters = size.parameters;
                point.computeS = tau;
                point.stepTimeNs =
                    std::llround(tau * 1e9 / static_cast<double>(m_config.localSteps));
                point.gridPoint = gridPoint;
                point.xiS = e.xiS;
                std::ostringstream name;
                name << "point-" << std::setw(3) << std::setfill('0') << points.size() << "-"
                     << (set ? "set-" + set->ToFileStem() : modeName);
                point.name = name.str();
                point.scheduleJson = result.schedule.ToJson(topology);
                point.scheduleRounds = MemberRounds(topology, result.schedule);
                for (uint32_t r = 0; set && r < result.schedule.GetNRounds(); ++r)
                {
                    point.scheduleAlgorithms.emplace_back();
                    for (uint32_t c = 0; c < result.schedule.GetRound(r).size(); ++c)
                    {
                        const std::optional<CapabilityMode> algorithm =
                            result.schedule.GetAlgorithm(r, c);
                        point.scheduleAlgorithms.back().push_back(
                            algorithm ? CapabilityModeToString(*algorithm) : "");
                    }
                }
                point.simulate = simulating && (!set || available.Contains(*set));
                if (simulating && !point.simulate)
                {
                    point.notSimulated = "the topology's capabilities are " + available.ToString() +
                                         " (a what-if set)";
                }
                std::ostringstream table;
                table << std::setprecision(4) << std::left;
                if (ShowsFormats())
                {
                    table << std::setw(12)
                          << (size.parameters > 0 ? std::to_string(size.parameters) : "-")
                          << std::setw(7) << formatName;
                }
                table << std::setw(10) << s << std::setw(9) << tau
                      << std::setw(set ? SET_WIDTH : MODE_WIDTH) << modeName << std::setw(44)
                      << shownProfile << std::right << std::setw(11) << e.xiS << std::setw(10)
                      << gapColo << std::setw(10) << gapBound << std::setw(11)
                      << e.xiS / ringAllReduce
                      << (result.origin == "search" ? "" : "  (" + result.origin + ")");
                point.table = table.str();
                nlohmann::json& row = point.row;
                row["model_bytes"] = s;
                if (ShowsFormats())
                {
                    row["format"] = formatName;
                    if (size.parameters > 0)
                    {
                        row["model_parameters"] = size.parameters;
                    }
                }
                row["compute_s"] = tau;
                if (set)
                {
                    row["capabilities"] = set->ToString();
                    row["algorithm_profile"] = shownProfile;
                    row["algorithms"] = nlohmann::json::array();
                    for (const std::vector<std::string>& round : point.scheduleAlgorithms)
                    {
                        row["algorithms"].push_back(nlohmann::json::array());
                        for (const std::string& algorithm : round)
                        {
                            row["algorithms"].back().push_back(algorithm.empty()
                                                                   ? nlohmann::json(nullptr)
                                                                   : nlohmann::json(algorithm));
                        }
                    }
                    row["all_reduce_algorithm"] = allReduceAlgorithm;
                }
                else
                {
                    row["mode"] = modeName;
                }
                row["profile"] = profile;
                row["period"] = result.schedule.GetNRounds();
                row["Xi_s"] = e.xiS;
                row["Xi_colocated_s"] = e.xiColocatedS;
                row["gap_to_colocated"] = NumberOrNull(gapColo);
                row["Xi_lower_bound_s"] = e.xiLowerBoundS;
                row["gap_to_lower_bound"] = gapBound;
                row["Xi_all_reduce_same_mode_s"] = allReduce;
                row["Xi_ring_all_reduce_s"] = ringAllReduce;
                row["T_period_s"] = e.periodS;
                row["origin"] = result.origin;
                row["rounds"] = nlohmann::json::parse(point.scheduleJson)["rounds"];
                std::ostringstream csv;
                csv << std::setprecision(10);
                if (ShowsFormats())
                {
                    csv << (size.parameters > 0 ? std::to_string(size.parameters) : "") << ","
                        << formatName << ",";
                }
                csv << s << "," << tau << "," << CsvField(modeName) << "," << shownProfile << ","
                    << result.schedule.GetNRounds() << "," << e.xiS << "," << e.xiColocatedS << ","
                    << (std::isfinite(gapColo) ? std::to_string(gapColo) : "") << ","
                    << e.xiLowerBoundS << "," << gapBound << "," << allReduce << ","
                    << ringAllReduce << "," << e.xiS / ringAllReduce << ","
                    << CsvField(result.origin) << ",\"" << schedule << "\"";
                point.csv = csv.str();
                points.push_back(point);
            }
            ++gridPoint;
        }
    }
    return points;
}

bool
ScheduleSweep::Simulate(std::vector<Point>& points, const std::vector<std::size_t>& simulated) const
{
    if (m_config.simulateRounds == 0)
    {
        return false;
    }
    namespace fs = std::filesystem;
    const fs::path work = m_config.workDir;
    std::vector<ChildProcessPool::Job> jobs;
    for (std::size_t p : simulated)
    {
        const Point& point = points[p];
        const fs::path scheduleFile = work / (point.name + ".json");
        const fs::path resultsFile = work / (point.name + "-results.json");
        ChildProcessPool::Job job;
        job.name = point.name;
        job.command =
            m_config.simulationCommand(point, scheduleFile.string(), resultsFile.string());
        job.outputFile = (work / (point.name + ".log")).string();
        jobs.push_back(job);
        if (!m_config.collectOnly)
        {
            // A results file of an earlier sweep must not pass for this one's.
            std::error_code ignored;
            fs::remove(resultsFile, ignored);
            WriteText("workDir", scheduleFile.string(), point.scheduleJson);
        }
    }
    if (m_config.printJobs)
    {
        for (const ChildProcessPool::Job& job : jobs)
        {
            for (std::size_t k = 0; k < job.command.size(); ++k)
            {
                *m_config.out << (k ? " " : "") << ShellQuote(job.command[k]);
            }
            *m_config.out << "\n";
        }
        return true;
    }
    if (m_config.collectOnly)
    {
        return false;
    }
    Log("simulating " + std::to_string(jobs.size()) + " points, " + std::to_string(m_config.jobs) +
        " at once, in " + work.string());
    ChildProcessPool pool(m_config.jobs);
    pool.SetFinishedCallback(
        [this, &jobs](std::size_t index, const ChildProcessPool::Result& result) {
            if (result.started)
            {
                Log("[" + std::to_string(result.order) + "/" + std::to_string(jobs.size()) + "] " +
                    jobs[index].name + ": " + result.Describe());
            }
        });
    const std::vector<ChildProcessPool::Result> results = pool.Run(jobs);
    const fs::path simulator = m_config.simulator;
    for (std::size_t k = 0; k < simulated.size(); ++k)
    {
        Point& point = points[simulated[k]];
        if (!results[k].started)
        {
            point.failure =
                "cannot start " + simulator.string() + ": " + std::strerror(results[k].startError);
        }
        else if (!results[k].Succeeded())
        {
            point.failure = simulator.filename().string() + " ended with " + results[k].Describe() +
                            " (log: " + jobs[k].outputFile + ")";
        }
    }
    return false;
}

void
ScheduleSweep::ReadResults(Point& point, const std::string& file) const
{
    const uint64_t rounds = m_config.simulateRounds;
    const uint64_t seed = m_config.optimizer.seed;
    const uint64_t localSteps = m_config.localSteps;
    if (!std::filesystem::is_regular_file(file))
    {
        point.failure = "no results file " + file;
        return;
    }
    TrainingRunSummary results;
    try
    {
        results = TrainingRunSummary::ReadFile(file);
    }
    catch (const WanInputError& error)
    {
        point.failure = file + ": malformed results: " + error.what();
        return;
    }
    const TrainingRunSummary::Config& config = results.config;
    const double computeS = static_cast<double>(config.localSteps) * config.stepTimeS;
    std::string mismatch;
    // A set point runs without a forced mode: each clique by the algorithm it carries.
    if (config.mode !=
        (point.capabilities ? std::string("schedule") : CapabilityModeToString(point.mode)))
    {
        mismatch = "mode";
    }
    else if (config.format != PayloadFormatToString(point.format))
    {
        mismatch = "format";
    }
    else if (static_cast<double>(config.modelBytes) != point.modelBytes)
    {
        mismatch = "model_bytes";
    }
    else if (config.rounds != rounds)
    {
        mismatch = "rounds";
    }
    else if (config.seed != seed)
    {
        mismatch = "seed";
    }
    else if (config.localSteps != localSteps ||
             std::abs(computeS - point.computeS) > 1e-9 * (localSteps + 1))
    {
        mismatch = "local_steps x step_time_s";
    }
    else if (nlohmann::json(config.scheduleRounds) != point.scheduleRounds)
    {
        mismatch = "schedule_rounds";
    }
    else if (point.capabilities && config.scheduleAlgorithms != point.scheduleAlgorithms)
    {
        mismatch = "schedule_rounds' algorithms";
    }
    if (!mismatch.empty())
    {
        point.failure = file + " is not the simulation of this point (config." + mismatch +
                        " differs; rerun it)";
        return;
    }
    if (results.rounds.size() != rounds || rounds == 0)
    {
        point.failure = file + ": rounds: expected " + std::to_string(rounds) + " entries";
        return;
    }
    double simulatedComm = 0;
    std::vector<double> predictedComm;
    bool complete = true;
    for (const TrainingRunSummary::Round& round : results.rounds)
    {
        predictedComm.push_back(round.predictedCommS);
        complete = complete && round.commS.has_value();
        simulatedComm += complete ? *round.commS : 0;
    }
    // Both from t = 0 to the last round's end, over the rounds (with overlap the first round
    // also takes tau_c + T_comm).
    point.simulatedRoundS = results.summary.trainingTimeS / rounds;
    point.predictedCommS =
        std::accumulate(predictedComm.begin(), predictedComm.end(), 0.0) / rounds;
    point.predictedRoundS =
        ScheduleMetrics::GetRoundEnds(computeS, predictedComm, m_config.overlap).back() / rounds;
    point.simulatedCommS = complete ? simulatedComm / rounds : NAN;
    point.verified = results.verification.passed;
    point.done = true;
    if (!point.verified)
    {
        point.failure = "did not verify (see " + file + ")";
    }
}

void
ScheduleSweep::Report(const WanTopology& topology, Result& result) const
{
    namespace fs = std::filesystem;
    const bool simulating = m_config.simulateRounds > 0;
    const fs::path work = m_config.workDir;
    std::ostream& out = *m_config.out;
    std::ostringstream csv;
    csv << std::setprecision(10);
    csv << (ShowsFormats() ? "model_parameters,format," : "")
        << "model_bytes,compute_s,mode,profile,period,xi_s,xi_colocated_s,gap_to_colocated,"
           "xi_lower_bound_s,gap_to_lower_bound,xi_all_reduce_same_mode_s,"
           "xi_ring_all_reduce_s,xi_over_ring_all_reduce,origin,schedule"
        << (simulating ? ",simulated_mean_round_s,predicted_mean_round_s,"
                         "simulated_minus_predicted_s,verified"
                       : "")
        << "\n";
    out << std::setprecision(4);
    out << "topology " << topology.GetName() << " (" << topology.GetNCities()
        << " islands), overlap " << (m_config.overlap ? "on" : "off") << ", maxPeriod "
        << m_config.optimizer.maxPeriod << ", seed " << m_config.optimizer.seed;
    if (simulating)
    {
        out << ", simulated " << m_config.simulateRounds << " rounds (" << m_config.localSteps
            << " local steps) in " << work.string();
    }
    out << "\n";
    // The header of the mode rows, or of the set rows (their network and profile columns).
    auto header = [this,
                   simulating](const std::string& network, int width, const std::string& profile) {
        std::ostringstream line;
        line << std::left;
        if (ShowsFormats())
        {
            line << std::setw(12) << "P" << std::setw(7) << "format";
        }
        line << std::setw(10) << "S (B)" << std::setw(9) << "tau_c" << std::setw(width) << network
             << std::setw(44) << profile << std::right << std::setw(11) << "Xi (s)" << std::setw(10)
             << "/colo" << std::setw(10) << "/bound" << std::setw(11) << "/ring-AR";
        if (simulating)
        {
            line << std::setw(11) << "sim T_r" << std::setw(11) << "pred T_r" << std::setw(11)
                 << "diff" << std::setw(10) << "verified";
        }
        return line.str() + "\n";
    };
    std::string modeLines = header("mode", MODE_WIDTH, "profile");
    std::string setLines = header("capabilities", SET_WIDTH, "algorithms per clique size");
    std::size_t modeRows = 0;
    std::size_t setRows = 0;
    nlohmann::json rows = nlohmann::json::array();
    for (Point& point : result.points)
    {
        std::ostringstream line;
        line << std::setprecision(4) << std::right << point.table;
        csv << point.csv;
        if (simulating)
        {
            nlohmann::json simulation;
            simulation["simulated"] = point.simulate;
            if (!point.notSimulated.empty())
            {
                simulation["not_simulated"] = point.notSimulated;
            }
            if (point.simulate)
            {
                simulation["schedule_file"] = (work / (point.name + ".json")).string();
                simulation["results_file"] = (work / (point.name + "-results.json")).string();
                simulation["log_file"] = (work / (point.name + ".log")).string();
            }
            if (point.done)
            {
                const double difference = point.simulatedRoundS - point.predictedRoundS;
                simulation["rounds"] = m_config.simulateRounds;
                simulation["simulated_mean_round_s"] = point.simulatedRoundS;
                simulation["predicted_mean_round_s"] = point.predictedRoundS;
                simulation["simulated_minus_predicted_s"] = difference;
                simulation["relative_difference"] =
                    NumberOrNull(difference / point.predictedRoundS);
                simulation["simulated_mean_comm_s"] = NumberOrNull(point.simulatedCommS);
                simulation["predicted_mean_comm_s"] = point.predictedCommS;
                simulation["verified"] = point.verified;
                line << std::setw(11) << point.simulatedRoundS << std::setw(11)
                     << point.predictedRoundS << std::setw(11) << difference << std::setw(10)
                     << (point.verified ? "yes" : "NO");
                csv << "," << point.simulatedRoundS << "," << point.predictedRoundS << ","
                    << difference << "," << (point.verified ? "true" : "false");
            }
            else
            {
                simulation["verified"] =
                    point.simulate ? nlohmann::json(false) : nlohmann::json(nullptr);
                line << "  " << (point.simulate ? "FAILED" : "(not simulated)");
                csv << ",,,," << (point.simulate ? "false" : "");
            }
            if (!point.failure.empty())
            {
                simulation["failure"] = point.failure;
                Log(Describe(point) + ": " + point.failure);
                ++result.failures;
            }
            point.row["simulation"] = simulation;
        }
        line << "\n";
        csv << "\n";
        rows.push_back(point.row);
        (point.capabilities ? setLines : modeLines) += line.str();
        (point.capabilities ? setRows : modeRows) += 1;
    }
    if (modeRows > 0 || setRows == 0)
    {
        out << modeLines;
    }
    const MonotoneCheck& monotone = result.monotone;
    nlohmann::json check;
    check["pairs"] = monotone.pairs;
    check["held"] = monotone.violations.empty();
    check["violations"] = monotone.violations;
    if (setRows > 0)
    {
        out << "optimum per capability set (each clique picks an algorithm the set allows; "
               "/ring-AR against the ring all-reduce):\n"
            << setLines << "monotone check (a larger set is never worse): " << monotone.pairs
            << " pairs of nested sets, "
            << (monotone.violations.empty()
                    ? std::string("held")
                    : "VIOLATED " + std::to_string(monotone.violations.size()) + " times")
            << "\n";
        for (const std::string& violation : monotone.violations)
        {
            out << "  VIOLATION: " << violation << "\n";
        }
    }
    nlohmann::json doc;
    doc["topology"] = topology.GetName();
    doc["overlap"] = m_config.overlap;
    if (ShowsFormats())
    {
        doc["formats"] = nlohmann::json::array();
        for (PayloadFormat format : m_config.formats)
        {
            doc["formats"].push_back(PayloadFormatToString(format));
        }
    }
    doc["max_period"] = m_config.optimizer.maxPeriod;
    doc["seed"] = m_config.optimizer.seed;
    if (simulating)
    {
        doc["simulate_rounds"] = m_config.simulateRounds;
        doc["local_steps"] = m_config.localSteps;
        doc["work_dir"] = work.string();
    }
    doc["capability_sets"] = nlohmann::json::array();
    for (const Point& point : result.points)
    {
        if (point.capabilities && point.gridPoint == 0)
        {
            doc["capability_sets"].push_back(point.capabilities->ToString());
        }
    }
    doc["monotone"] = check;
    doc["rows"] = rows;
    WriteText("jsonFile", m_config.jsonFile, doc.dump(1) + "\n");
    WriteText("csvFile", m_config.csvFile, csv.str());
    out << "wrote " << m_config.jsonFile << " and " << m_config.csvFile << "\n";
}

ScheduleSweep::Result
ScheduleSweep::Run(const WanTopology& topology) const
{
    NS_LOG_FUNCTION(this);
    Validate();
    Result result;
    // Optimize every point, in grid order (the order of every output).
    result.points = Optimize(topology);
    result.monotone = CheckMonotone(result.points);
    for (const std::string& violation : result.monotone.violations)
    {
        Log("monotone check VIOLATED (a larger capability set is worse): " + violation);
    }
    std::vector<std::size_t> simulated;
    for (std::size_t p = 0; p < result.points.size(); ++p)
    {
        if (result.points[p].simulate)
        {
            simulated.push_back(p);
        }
    }
    result.simulated = simulated.size();
    result.printed = Simulate(result.points, simulated);
    if (result.printed)
    {
        return result;
    }
    for (std::size_t p : simulated)
    {
        Point& point = result.points[p];
        if (point.failure.empty())
        {
            ReadResults(point,
                        (std::filesystem::path(m_config.workDir) / (point.name + "-results.json"))
                            .string());
        }
    }
    Report(topology, result);
    if (result.failures > 0)
    {
        Log(std::to_string(result.failures) + " of " + std::to_string(result.simulated) +
            " simulations failed or did not verify");
    }
    return result;
}

} // namespace ns3
