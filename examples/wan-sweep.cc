/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

/*
 * How the optimal schedule shifts with the network's capabilities: for every model size S and
 * compute time tau_c of the lists, and every capability mode, search the best schedule
 * (ScheduleOptimizer) and report its clique-size profile and Xi, next to the colocated
 * reference, the lower bound, the all-reduce in the same mode and the baseline every result
 * must be read against: the ring all-reduce (MODEL.md). With --simulateRounds=R, every point's
 * schedule is also simulated packet by packet for R rounds, each point in its own
 * wan-training-simulate process, up to --jobs=N of them at once.
 *
 *   S in {..} x tau_c in {..} x mode in {unicast, multicast, aggregation, both, ring, tree}
 *      --> ScheduleOptimizer --> profile "3+3+3 | 9", Xi, gaps   (table, JSON, CSV)
 *      --> WORKDIR/point-NNN-MODE.json (the schedule)
 *      --> wan-training-simulate x N at once --> WORKDIR/point-NNN-MODE-results.json
 *      --> simulated vs predicted mean round time, verified       (more columns)
 *
 *   ./wan-training sweep --topology=topologies/doublezero-nine-city.json \
 *       --modelBytes=1e9 --computeS=0.1,1,10
 *   ./wan-training sweep --topology=topologies/doublezero-nine-city.json \
 *       --modelBytes=1e7,1e8 --computeS=1 --modes=unicast,both --simulateRounds=4 --jobs=4
 *
 * The simulation of a point: wan-training-simulate (found beside this program, or --simulator)
 * with --schedule=WORKDIR/point-NNN-MODE.json, --mode, --modelBytes=S, --rounds=R, --seed, and
 * the compute time tau_c as --localSteps=K (--localSteps, default 10) steps of
 * --stepTime=tau_c/K rounded to the nanosecond; its output goes to WORKDIR/point-NNN-MODE.log.
 * The table then shows the simulated mean round time (the training time / R), the predicted
 * one (K x stepTime + the mean of the results' predicted_comm_s, MODEL.md's T_r), their
 * difference, and whether every round verified. The tree mode has no packet model and is not
 * simulated. The simulation does not overlap compute with communication, so --overlap and
 * --simulateRounds exclude each other; it needs a --topology file (not --syntheticIslands).
 *
 * Across hosts: --printJobs writes the schedules and prints one shell command per point instead
 * of running them; run those anywhere (every path in them is absolute, so every host needs the
 * same build at the same path and the work directory shared, e.g. over NFS, or copied back),
 * then repeat the sweep with --collectOnly to read the results files into the table:
 *
 *   wan-sweep --topology=$PWD/topologies/doublezero-nine-city.json --modelBytes=1e7,1e8 \
 *       --computeS=1 --simulateRounds=4 --workDir=/shared/sweep --printJobs > jobs.txt
 *   parallel --jobs 2 --sshlogin host1,host2 --joblog jobs.log < jobs.txt
 *   wan-sweep (the same options, without --printJobs) --collectOnly
 *
 * Exit status: 0 every point done (and every simulated one verified), 1 input error, 2 some
 * simulation failed, did not verify or left no readable results file (each reported on stderr
 * with its point; the table, JSON and CSV are written all the same).
 */

#include "clique-schedule.h"
#include "command-line-values.h"
#include "link-load-model.h"
#include "schedule-metrics.h"
#include "schedule-optimizer.h"
#include "synthetic-topology.h"
#include "wan-input-error.h"
#include "wan-topology.h"

#include "ns3/command-line.h"
#include "ns3/fatal-error.h"

#include <cerrno>
#include <cmath>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <spawn.h>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

using namespace ns3;

namespace
{

const std::string PROGRAM = "wan-sweep";

/** The largest --jobs: more processes than that only thrash. */
const uint64_t MAX_JOBS = 256;

/**
 * @brief One point of the grid: its inputs, its optimum and, when simulated, the simulation's
 * outcome.
 */
struct Point
{
    double modelBytes{0};          //!< S in bytes
    std::string modelBytesText;    //!< S as the simulator reads it (a whole number)
    double computeS{0};            //!< tau_c in seconds
    CapabilityMode mode{};         //!< the capability mode
    std::string name;              //!< "point-NNN-MODE", the stem of its files
    nlohmann::json scheduleRounds; //!< the optimum's rounds of city ids
    std::string scheduleJson;      //!< the optimum as a schedule JSON document
    nlohmann::json row;            //!< its JSON row
    std::string csv;               //!< its CSV line, without the simulation columns
    std::string table;             //!< its table line, without the simulation columns
    bool simulate{false};          //!< whether it is simulated (not the tree mode)
    bool done{false};              //!< whether a results file was read
    std::string failure;           //!< why its simulation failed (empty: it did not)
    double simulatedRoundS{0};     //!< simulated mean round time
    double predictedRoundS{0};     //!< predicted mean round time
    double simulatedCommS{NAN};    //!< mean simulated T_comm (NaN: some round incomplete)
    double predictedCommS{0};      //!< mean predicted T_comm
    bool verified{false};          //!< whether the results say every round verified
};

/**
 * @param text a comma-separated list
 * @return its items (empty items kept, so that they are reported)
 */
std::vector<std::string>
Split(const std::string& text)
{
    std::vector<std::string> items;
    std::string item;
    std::istringstream in(text);
    while (std::getline(in, item, ','))
    {
        items.push_back(item);
    }
    if (text.empty() || text.back() == ',')
    {
        items.push_back("");
    }
    return items;
}

/**
 * @param topology the topology
 * @param schedule a schedule
 * @return its rounds by city id, cliques in braces, rounds separated by " | "
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
            out << (c ? " " : "") << "{";
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
Describe(const Point& point)
{
    std::ostringstream out;
    out << point.name << " (S = " << point.modelBytes << " B, tau_c = " << point.computeS
        << " s, mode " << CapabilityModeToString(point.mode) << ")";
    return out.str();
}

/**
 * @param status a status from waitpid()
 * @return "exit status N" or "killed by signal N"
 */
std::string
DescribeStatus(int status)
{
    if (WIFEXITED(status))
    {
        return "exit status " + std::to_string(WEXITSTATUS(status));
    }
    if (WIFSIGNALED(status))
    {
        return "killed by signal " + std::to_string(WTERMSIG(status)) + " (" +
               strsignal(WTERMSIG(status)) + ")";
    }
    return "wait status " + std::to_string(status);
}

/**
 * @brief Start one child process with stdin from /dev/null and stdout and stderr into a file.
 * @param argv the program (a path) and its arguments
 * @param logFile the file for its output
 * @param pid set to the child's process id
 * @return 0, or the error number of posix_spawn()
 */
int
Spawn(const std::vector<std::string>& argv, const std::string& logFile, pid_t& pid)
{
    std::vector<char*> args;
    for (const std::string& arg : argv)
    {
        args.push_back(const_cast<char*>(arg.c_str()));
    }
    args.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&actions,
                                     1,
                                     logFile.c_str(),
                                     O_WRONLY | O_CREAT | O_TRUNC,
                                     0644);
    posix_spawn_file_actions_adddup2(&actions, 1, 2);
    int error = posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ);
    posix_spawn_file_actions_destroy(&actions);
    return error;
}

/**
 * @brief Run one command per job, at most `jobs` at once, and wait for all of them.
 * @param commands the command of each job (program path first)
 * @param logFiles the output file of each job
 * @param jobs how many run at once (>= 1)
 * @param names the name of each job, for the progress lines on stderr
 * @return per job its waitpid() status, or -1 - errno when it could not be started
 */
std::vector<int>
RunJobs(const std::vector<std::vector<std::string>>& commands,
        const std::vector<std::string>& logFiles,
        uint64_t jobs,
        const std::vector<std::string>& names)
{
    std::vector<int> statuses(commands.size(), 0);
    std::map<pid_t, std::size_t> running;
    std::size_t next = 0;
    std::size_t finished = 0;
    while (finished < commands.size())
    {
        while (next < commands.size() && running.size() < jobs)
        {
            pid_t pid = 0;
            int error = Spawn(commands[next], logFiles[next], pid);
            if (error != 0)
            {
                statuses[next] = -1 - error;
                ++finished;
            }
            else
            {
                running[pid] = next;
            }
            ++next;
        }
        if (running.empty())
        {
            continue;
        }
        int status = 0;
        pid_t pid = waitpid(-1, &status, 0);
        if (pid < 0)
        {
            if (errno == EINTR)
            {
                continue;
            }
            NS_FATAL_ERROR(PROGRAM << ": waitpid failed: " << std::strerror(errno));
        }
        auto job = running.find(pid);
        if (job == running.end())
        {
            continue;
        }
        statuses[job->second] = status;
        std::cerr << PROGRAM << ": [" << ++finished << "/" << commands.size() << "] "
                  << names[job->second] << ": " << DescribeStatus(status) << std::endl;
        running.erase(job);
    }
    return statuses;
}

/**
 * @brief Read a point's results JSON into the point, after checking that it is the simulation
 * of this point (mode, S, rounds, seed, compute time and schedule); sets point.failure instead
 * when it is not, or cannot be read.
 * @param point the point
 * @param file the results JSON
 * @param rounds the rounds it must hold
 * @param seed the seed it must have run with
 * @param localSteps the local steps per round it must have run with
 */
void
ReadResults(Point& point,
            const std::string& file,
            uint64_t rounds,
            uint64_t seed,
            uint64_t localSteps)
{
    std::ifstream in(file);
    if (!in)
    {
        point.failure = "no results file " + file;
        return;
    }
    try
    {
        const nlohmann::json doc = nlohmann::json::parse(in);
        const nlohmann::json& config = doc.at("config");
        const double computeS =
            config.at("local_steps").get<double>() * config.at("step_time_s").get<double>();
        std::string mismatch;
        if (config.at("mode").get<std::string>() != CapabilityModeToString(point.mode))
        {
            mismatch = "mode";
        }
        else if (config.at("model_bytes").get<double>() != point.modelBytes)
        {
            mismatch = "model_bytes";
        }
        else if (config.at("rounds").get<uint64_t>() != rounds)
        {
            mismatch = "rounds";
        }
        else if (config.at("seed").get<uint64_t>() != seed)
        {
            mismatch = "seed";
        }
        else if (config.at("local_steps").get<uint64_t>() != localSteps ||
                 std::abs(computeS - point.computeS) > 1e-9 * (localSteps + 1))
        {
            mismatch = "local_steps x step_time_s";
        }
        else if (config.at("schedule_rounds") != point.scheduleRounds)
        {
            mismatch = "schedule_rounds";
        }
        if (!mismatch.empty())
        {
            point.failure = file + " is not the simulation of this point (config." + mismatch +
                            " differs; rerun it)";
            return;
        }
        const nlohmann::json& roundList = doc.at("rounds");
        if (roundList.size() != rounds || rounds == 0)
        {
            point.failure = file + ": rounds: expected " + std::to_string(rounds) + " entries";
            return;
        }
        double simulatedComm = 0;
        double predictedComm = 0;
        bool complete = true;
        for (const nlohmann::json& round : roundList)
        {
            predictedComm += round.at("predicted_comm_s").get<double>();
            complete = complete && round.at("comm_s").is_number();
            simulatedComm += complete ? round.at("comm_s").get<double>() : 0;
        }
        point.simulatedRoundS = doc.at("summary").at("training_time_s").get<double>() / rounds;
        point.predictedCommS = predictedComm / rounds;
        point.predictedRoundS = computeS + point.predictedCommS;
        point.simulatedCommS = complete ? simulatedComm / rounds : NAN;
        point.verified = doc.at("verification").at("passed").get<bool>();
        point.done = true;
        if (!point.verified)
        {
            point.failure = "did not verify (see " + file + ")";
        }
    }
    catch (const nlohmann::json::exception& e)
    {
        point.failure = file + ": malformed results: " + e.what();
    }
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

} // namespace

int
main(int argc, char* argv[])
{
    std::string topologyFile;
    std::string modelBytesText = "1e8,1e9,1e10";
    std::string computeText = "0.1,1,10";
    std::string modesText = "unicast,multicast,aggregation,both,ring,tree";
    bool overlap = false;
    std::string maxPeriodText = "4";
    std::string seedText = "1";
    std::string evaluationsText = "20000";
    std::string syntheticText = "0";
    std::string syntheticSeedText = "1";
    std::string jsonFile = "wan-sweep.json";
    std::string csvFile = "wan-sweep.csv";
    std::string simulateRoundsText = "0";
    std::string jobsText = "1";
    std::string localStepsText = "10";
    std::string workDir;
    std::string simulator;
    bool printJobs = false;
    bool collectOnly = false;

    CommandLine cmd(__FILE__);
    cmd.Usage(
        "Optimal clique-size profile and Xi per mode over model sizes and compute times; with "
        "--simulateRounds, each point's schedule also simulated packet by packet "
        "(wan-training-simulate, --jobs processes at once), next to the predicted round "
        "time.\n\nAcross hosts with GNU parallel (every host needs this build at the same path "
        "and the --workDir shared, e.g. over NFS, or copied back before collecting):\n"
        "  wan-sweep --topology=$PWD/topologies/doublezero-nine-city.json --modelBytes=1e7,1e8 "
        "--computeS=1 --simulateRounds=4 --workDir=/shared/sweep --printJobs > jobs.txt\n"
        "  parallel --jobs 2 --sshlogin host1,host2 --joblog jobs.log < jobs.txt\n"
        "  wan-sweep (the same options, without --printJobs) --collectOnly\n"
        "Exit status: 0 done, 1 input error, 2 some simulation failed or did not verify.");
    cmd.AddValue("topology", "topology JSON file", topologyFile);
    cmd.AddValue("modelBytes", "comma-separated model sizes S in bytes (> 0)", modelBytesText);
    cmd.AddValue("computeS", "comma-separated compute times tau_c in s (>= 0)", computeText);
    cmd.AddValue("modes", "comma-separated capability modes", modesText);
    cmd.AddValue("overlap", "overlap compute with communication", overlap);
    cmd.AddValue("maxPeriod", "largest period P (>= 1)", maxPeriodText);
    cmd.AddValue("seed", "seed of every search (and of every simulation, then >= 1)", seedText);
    cmd.AddValue("maxEvaluations", "budget of Xi evaluations per search (>= 1)", evaluationsText);
    cmd.AddValue("syntheticIslands",
                 "instead of --topology: a SyntheticTopology of this many islands (0 = off)",
                 syntheticText);
    cmd.AddValue("syntheticSeed", "seed of the synthetic topology", syntheticSeedText);
    cmd.AddValue("json", "write the table as JSON here", jsonFile);
    cmd.AddValue("csv", "write the table as CSV here", csvFile);
    cmd.AddValue("simulateRounds",
                 "simulate every point's schedule for this many rounds with "
                 "wan-training-simulate (0 = analytic only; the tree mode is not simulated)",
                 simulateRoundsText);
    cmd.AddValue("jobs", "simulations run at once, in [1, 256]", jobsText);
    cmd.AddValue("localSteps",
                 "simulation: local steps K per round, each of stepTime = tau_c / K (rounded "
                 "to the ns), in [1, 1000000]",
                 localStepsText);
    cmd.AddValue("workDir",
                 "simulation: directory of the schedules, results and logs (default: beside "
                 "--json, its name without .json plus -work)",
                 workDir);
    cmd.AddValue("simulator",
                 "simulation: the wan-training-simulate program (default: the one beside this "
                 "program)",
                 simulator);
    cmd.AddValue("printJobs",
                 "write the schedules, then print one shell command per simulated point instead "
                 "of running them (e.g. for GNU parallel --sshlogin)",
                 printJobs);
    cmd.AddValue("collectOnly",
                 "run no simulation: read the results files the commands of --printJobs left "
                 "in --workDir",
                 collectOnly);
    cmd.Parse(argc, argv);

    return CommandLineValues::RunProgram([&]() {
        uint64_t synthetic =
            CommandLineValues::ParseWhole(PROGRAM, "--syntheticIslands", syntheticText, 0);
        CommandLineValues::RequireOneTopologySource(PROGRAM, topologyFile, synthetic);
        if (synthetic > 64)
        {
            throw WanInputError(PROGRAM, "--syntheticIslands", "at most 64 islands");
        }
        const uint64_t simulateRounds = CommandLineValues::ParseUnsigned(PROGRAM,
                                                                         "--simulateRounds",
                                                                         simulateRoundsText,
                                                                         0,
                                                                         uint64_t{1} << 20);
        const bool simulating = simulateRounds > 0;
        const uint64_t jobs =
            CommandLineValues::ParseUnsigned(PROGRAM, "--jobs", jobsText, 1, MAX_JOBS);
        const uint64_t localSteps =
            CommandLineValues::ParseUnsigned(PROGRAM, "--localSteps", localStepsText, 1, 1000000);
        std::vector<double> sizes;
        std::vector<std::string> sizeTexts;
        for (const std::string& item : Split(modelBytesText))
        {
            sizes.push_back(
                CommandLineValues::ParseNumber(PROGRAM, "--modelBytes", item, 0, false));
            if (simulating)
            {
                // The simulator takes whole bytes, as many as its own --modelBytes accepts.
                uint64_t bytes = CommandLineValues::ParseWholeNumber(PROGRAM,
                                                                     "--modelBytes",
                                                                     item,
                                                                     1,
                                                                     uint64_t{1} << 50);
                sizeTexts.push_back(std::to_string(bytes));
            }
            else
            {
                sizeTexts.push_back(item);
            }
        }
        std::vector<double> computes;
        for (const std::string& item : Split(computeText))
        {
            computes.push_back(
                CommandLineValues::ParseNumber(PROGRAM, "--computeS", item, 0, true));
            if (simulating && computes.back() / localSteps > 86400)
            {
                throw WanInputError(PROGRAM,
                                    "--computeS",
                                    "tau_c / --localSteps must be at most one day, the "
                                    "simulator's largest --stepTime (got '" +
                                        item + "')");
            }
        }
        std::vector<CapabilityMode> modes;
        for (const std::string& item : Split(modesText))
        {
            modes.push_back(CommandLineValues::ParseMode(PROGRAM, "--modes", item));
        }
        ScheduleOptimizer::Options options;
        options.maxPeriod = CommandLineValues::ParseWhole(PROGRAM, "--maxPeriod", maxPeriodText, 1);
        options.seed = CommandLineValues::ParseWhole(PROGRAM, "--seed", seedText, 0);
        options.maxEvaluations =
            CommandLineValues::ParseWhole(PROGRAM, "--maxEvaluations", evaluationsText, 1);
        if (jsonFile.empty() || csvFile.empty())
        {
            throw WanInputError(PROGRAM, jsonFile.empty() ? "--json" : "--csv", "empty file name");
        }
        if (!simulating && (printJobs || collectOnly))
        {
            throw WanInputError(PROGRAM,
                                printJobs ? "--printJobs" : "--collectOnly",
                                "needs --simulateRounds >= 1 (the rounds the simulations run)");
        }
        if (printJobs && collectOnly)
        {
            throw WanInputError(PROGRAM,
                                "--collectOnly",
                                "excludes --printJobs (print the jobs, run them, then collect)");
        }
        if (simulating && overlap)
        {
            throw WanInputError(PROGRAM,
                                "--overlap",
                                "the packet simulation runs compute and communication in "
                                "sequence; drop --overlap or --simulateRounds");
        }
        if (simulating && synthetic > 0)
        {
            throw WanInputError(PROGRAM,
                                "--syntheticIslands",
                                "the packet simulation needs a --topology file");
        }
        if (simulating && (options.seed == 0 || options.seed > UINT32_MAX))
        {
            throw WanInputError(PROGRAM,
                                "--seed",
                                "the simulator's seed must be in [1, " +
                                    std::to_string(UINT32_MAX) + "] (got '" + seedText + "')");
        }
        namespace fs = std::filesystem;
        fs::path work;
        fs::path simulatorPath;
        if (simulating)
        {
            work = workDir.empty() ? fs::path(jsonFile).replace_extension().string() + "-work"
                                   : workDir;
            work = fs::absolute(work).lexically_normal();
            std::error_code error;
            simulatorPath = simulator.empty()
                                ? fs::read_symlink("/proc/self/exe", error).parent_path() /
                                      "wan-training-simulate"
                                : fs::absolute(simulator);
            if (!collectOnly && (error || access(simulatorPath.c_str(), X_OK) != 0))
            {
                throw WanInputError(PROGRAM,
                                    "--simulator",
                                    "cannot execute '" + simulatorPath.string() +
                                        "' (build the wan-training-simulate target, or give its "
                                        "path)");
            }
            if (collectOnly ? !fs::is_directory(work, error)
                            : !fs::create_directories(work, error) && !fs::is_directory(work))
            {
                throw WanInputError(PROGRAM,
                                    "--workDir",
                                    (collectOnly ? "no directory '" : "cannot create '") +
                                        work.string() + "'");
            }
        }
        SyntheticTopology::Options generator;
        generator.islands = synthetic;
        generator.seed =
            CommandLineValues::ParseWhole(PROGRAM, "--syntheticSeed", syntheticSeedText, 0);
        WanTopology topology = synthetic > 0 ? SyntheticTopology::Generate(generator)
                                             : WanTopology::LoadFile(topologyFile);
        const uint32_t n = topology.GetNCities();

        // Optimize every point, in grid order (the order of every output).
        std::vector<Point> points;
        for (std::size_t i = 0; i < sizes.size(); ++i)
        {
            const double s = sizes[i];
            for (double tau : computes)
            {
                ScheduleMetrics::Settings settings;
                settings.modelBytes = s;
                settings.computeS = tau;
                settings.overlap = overlap;
                ScheduleMetrics metrics(topology, settings);
                double ringAllReduce =
                    metrics.Evaluate(CliqueSchedule::AllReduce(n), CapabilityMode::RING).xiS;
                for (CapabilityMode mode : modes)
                {
                    ScheduleOptimizer optimizer(topology, settings, mode, options);
                    ScheduleOptimizer::Result result = optimizer.Optimize();
                    const ScheduleMetrics::Evaluation& e = result.evaluation;
                    double allReduce = metrics.Evaluate(CliqueSchedule::AllReduce(n), mode).xiS;
                    std::string profile = ScheduleOptimizer::GetProfile(result.schedule);
                    std::string schedule = ScheduleText(topology, result.schedule);
                    double gapColo = e.xiColocatedS > 0 ? e.xiS / e.xiColocatedS : INFINITY;
                    double gapBound = e.xiS / e.xiLowerBoundS;
                    std::string modeName = CapabilityModeToString(mode);
                    Point point;
                    point.modelBytes = s;
                    point.modelBytesText = sizeTexts[i];
                    point.computeS = tau;
                    point.mode = mode;
                    std::ostringstream name;
                    name << "point-" << std::setw(3) << std::setfill('0') << points.size() << "-"
                         << modeName;
                    point.name = name.str();
                    point.scheduleJson = result.schedule.ToJson(topology);
                    point.scheduleRounds = nlohmann::json::parse(point.scheduleJson)["rounds"];
                    point.simulate = simulating && mode != CapabilityMode::TREE;
                    std::ostringstream table;
                    table << std::setprecision(4) << std::left << std::setw(10) << s << std::setw(9)
                          << tau << std::setw(13) << modeName << std::setw(44) << profile
                          << std::right << std::setw(11) << e.xiS << std::setw(10) << gapColo
                          << std::setw(10) << gapBound << std::setw(11) << e.xiS / ringAllReduce
                          << (result.origin == "search" ? "" : "  (" + result.origin + ")");
                    point.table = table.str();
                    nlohmann::json& row = point.row;
                    row["model_bytes"] = s;
                    row["compute_s"] = tau;
                    row["mode"] = modeName;
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
                    row["rounds"] = point.scheduleRounds;
                    std::ostringstream csv;
                    csv << std::setprecision(10) << s << "," << tau << "," << modeName << ","
                        << profile << "," << result.schedule.GetNRounds() << "," << e.xiS << ","
                        << e.xiColocatedS << ","
                        << (std::isfinite(gapColo) ? std::to_string(gapColo) : "") << ","
                        << e.xiLowerBoundS << "," << gapBound << "," << allReduce << ","
                        << ringAllReduce << "," << e.xiS / ringAllReduce << "," << result.origin
                        << ",\"" << schedule << "\"";
                    point.csv = csv.str();
                    points.push_back(point);
                }
            }
        }

        // The simulation of every point: its schedule, results and log files, and its command.
        std::vector<std::size_t> simulated;
        std::vector<std::vector<std::string>> commands;
        std::vector<std::string> logFiles;
        std::vector<std::string> names;
        for (std::size_t p = 0; p < points.size(); ++p)
        {
            const Point& point = points[p];
            if (!point.simulate)
            {
                continue;
            }
            const fs::path scheduleFile = work / (point.name + ".json");
            const fs::path resultsFile = work / (point.name + "-results.json");
            const int64_t stepNs =
                std::llround(point.computeS * 1e9 / static_cast<double>(localSteps));
            simulated.push_back(p);
            commands.push_back({simulatorPath.string(),
                                "--topology=" + fs::absolute(topologyFile).string(),
                                "--schedule=" + scheduleFile.string(),
                                "--mode=" + CapabilityModeToString(point.mode),
                                "--modelBytes=" + point.modelBytesText,
                                "--localSteps=" + std::to_string(localSteps),
                                "--stepTime=" + std::to_string(stepNs) + "ns",
                                "--rounds=" + std::to_string(simulateRounds),
                                "--seed=" + std::to_string(options.seed),
                                "--out=" + resultsFile.string()});
            logFiles.push_back((work / (point.name + ".log")).string());
            names.push_back(point.name);
            if (!collectOnly)
            {
                // A results file of an earlier sweep must not pass for this one's.
                std::error_code ignored;
                fs::remove(resultsFile, ignored);
                CommandLineValues::WriteText(PROGRAM,
                                             "--workDir",
                                             scheduleFile.string(),
                                             point.scheduleJson);
            }
        }
        if (printJobs)
        {
            for (const std::vector<std::string>& command : commands)
            {
                for (std::size_t k = 0; k < command.size(); ++k)
                {
                    std::cout << (k ? " " : "") << ShellQuote(command[k]);
                }
                std::cout << "\n";
            }
            std::cerr << PROGRAM << ": wrote " << commands.size() << " schedules into "
                      << work.string() << "; run the commands above, then repeat this sweep "
                      << "without --printJobs and with --collectOnly" << std::endl;
            return 0;
        }
        if (simulating && !collectOnly)
        {
            std::cerr << PROGRAM << ": simulating " << commands.size() << " points, " << jobs
                      << " at once, in " << work.string() << std::endl;
            std::vector<int> statuses = RunJobs(commands, logFiles, jobs, names);
            for (std::size_t k = 0; k < simulated.size(); ++k)
            {
                Point& point = points[simulated[k]];
                if (statuses[k] < 0)
                {
                    point.failure = "cannot start " + simulatorPath.string() + ": " +
                                    std::strerror(-1 - statuses[k]);
                }
                else if (statuses[k] != 0)
                {
                    point.failure = simulatorPath.filename().string() + " ended with " +
                                    DescribeStatus(statuses[k]) + " (log: " + logFiles[k] + ")";
                }
            }
        }
        for (std::size_t k = 0; k < simulated.size(); ++k)
        {
            Point& point = points[simulated[k]];
            if (point.failure.empty())
            {
                ReadResults(point,
                            (work / (point.name + "-results.json")).string(),
                            simulateRounds,
                            options.seed,
                            localSteps);
            }
        }

        // The outputs, in grid order.
        std::ostringstream csv;
        csv << std::setprecision(10);
        csv << "model_bytes,compute_s,mode,profile,period,xi_s,xi_colocated_s,gap_to_colocated,"
               "xi_lower_bound_s,gap_to_lower_bound,xi_all_reduce_same_mode_s,"
               "xi_ring_all_reduce_s,xi_over_ring_all_reduce,origin,schedule"
            << (simulating ? ",simulated_mean_round_s,predicted_mean_round_s,"
                             "simulated_minus_predicted_s,verified"
                           : "")
            << "\n";
        std::cout << std::setprecision(4);
        std::cout << "topology " << topology.GetName() << " (" << n << " islands), overlap "
                  << (overlap ? "on" : "off") << ", maxPeriod " << options.maxPeriod << ", seed "
                  << options.seed;
        if (simulating)
        {
            std::cout << ", simulated " << simulateRounds << " rounds (" << localSteps
                      << " local steps) in " << work.string();
        }
        std::cout << "\n"
                  << std::left << std::setw(10) << "S (B)" << std::setw(9) << "tau_c"
                  << std::setw(13) << "mode" << std::setw(44) << "profile" << std::right
                  << std::setw(11) << "Xi (s)" << std::setw(10) << "/colo" << std::setw(10)
                  << "/bound" << std::setw(11) << "/ring-AR";
        if (simulating)
        {
            std::cout << std::setw(11) << "sim T_r" << std::setw(11) << "pred T_r" << std::setw(11)
                      << "diff" << std::setw(10) << "verified";
        }
        std::cout << "\n";
        nlohmann::json rows = nlohmann::json::array();
        uint32_t failures = 0;
        for (Point& point : points)
        {
            std::cout << point.table;
            csv << point.csv;
            if (simulating)
            {
                nlohmann::json simulation;
                simulation["simulated"] = point.simulate;
                if (point.simulate)
                {
                    simulation["schedule_file"] = (work / (point.name + ".json")).string();
                    simulation["results_file"] = (work / (point.name + "-results.json")).string();
                    simulation["log_file"] = (work / (point.name + ".log")).string();
                }
                if (point.done)
                {
                    const double difference = point.simulatedRoundS - point.predictedRoundS;
                    simulation["rounds"] = simulateRounds;
                    simulation["simulated_mean_round_s"] = point.simulatedRoundS;
                    simulation["predicted_mean_round_s"] = point.predictedRoundS;
                    simulation["simulated_minus_predicted_s"] = difference;
                    simulation["relative_difference"] =
                        NumberOrNull(difference / point.predictedRoundS);
                    simulation["simulated_mean_comm_s"] = NumberOrNull(point.simulatedCommS);
                    simulation["predicted_mean_comm_s"] = point.predictedCommS;
                    simulation["verified"] = point.verified;
                    std::cout << std::setw(11) << point.simulatedRoundS << std::setw(11)
                              << point.predictedRoundS << std::setw(11) << difference
                              << std::setw(10) << (point.verified ? "yes" : "NO");
                    csv << "," << point.simulatedRoundS << "," << point.predictedRoundS << ","
                        << difference << "," << (point.verified ? "true" : "false");
                }
                else
                {
                    simulation["verified"] =
                        point.simulate ? nlohmann::json(false) : nlohmann::json(nullptr);
                    std::cout << "  " << (point.simulate ? "FAILED" : "(not simulated)");
                    csv << ",,,," << (point.simulate ? "false" : "");
                }
                if (!point.failure.empty())
                {
                    simulation["failure"] = point.failure;
                    std::cerr << PROGRAM << ": " << Describe(point) << ": " << point.failure
                              << std::endl;
                    ++failures;
                }
                point.row["simulation"] = simulation;
            }
            std::cout << "\n";
            csv << "\n";
            rows.push_back(point.row);
        }
        nlohmann::json doc;
        doc["topology"] = topology.GetName();
        doc["overlap"] = overlap;
        doc["max_period"] = options.maxPeriod;
        doc["seed"] = options.seed;
        if (simulating)
        {
            doc["simulate_rounds"] = simulateRounds;
            doc["local_steps"] = localSteps;
            doc["work_dir"] = work.string();
        }
        doc["rows"] = rows;
        CommandLineValues::WriteText(PROGRAM, "--json", jsonFile, doc.dump(1) + "\n");
        CommandLineValues::WriteText(PROGRAM, "--csv", csvFile, csv.str());
        std::cout << "wrote " << jsonFile << " and " << csvFile << "\n";
        if (failures > 0)
        {
            std::cerr << PROGRAM << ": " << failures << " of " << simulated.size()
                      << " simulations failed or did not verify" << std::endl;
            return 2;
        }
        return 0;
    });
}
