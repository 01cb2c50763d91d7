/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

/*
 * How the optimal schedule shifts with the network's capabilities: for every model size S and
 * compute time tau_c of the lists and every capability mode, the best schedule's clique-size
 * profile and Xi next to the colocated reference, the lower bound, the all-reduce in the same
 * mode and the ring all-reduce (doc/schedule-model.rst); for every capability set
 * (--capabilitySets=SET/SET/..., or the one set --capabilities, default the topology's) the
 * set's optimum, each clique with the algorithm it picked, and a check that no set is worse
 * than a set it contains; with --simulateRounds=R every point's
 * schedule also simulated for R rounds, each in its own wan-training-simulate process (beside
 * this program, or --simulator), up to --jobs=N at once.
 *
 *   S in {..} x tau_c in {..} x (mode in {unicast, multicast, aggregation, both, ring, tree}
 *                                 + set in {none, multicast, ..., multicast,aggregation,core})
 *      --> ScheduleOptimizer --> profile "3+3+3 | 9" (a set: "both 3+3+3 | ring 9"), Xi, gaps
 *      --> monotone check along the nested sets                  (table, JSON, CSV)
 *      --> WORKDIR/point-NNN-MODE.json (the schedule)
 *      --> wan-training-simulate x N at once --> WORKDIR/point-NNN-MODE-results.json
 *      --> simulated vs predicted mean round time, verified       (more columns)
 *
 *   ./wan-training sweep --topology=topologies/doublezero-nine-city.json \
 *       --modelBytes=1e7,1e8 --computeS=1 --modes=unicast,both --simulateRounds=4 --jobs=4
 *
 * Formats side by side: --modelParameters=2.5e7,2.5e8 --formats=fp32,bf16,int8 (each format
 * turns P into its own S, and a simulated point carries it on the wire).
 *
 * Across hosts: --printJobs prints one shell command per point (for GNU parallel --sshlogin),
 * --collectOnly then reads their results files (--help shows how). ScheduleSweep does the work;
 * this program maps its options to the sweep's configuration.
 * Exit status: 0 every point done (and every simulated one verified), 1 input error, 2 some
 * simulation failed, did not verify or left no readable results file, 3 a larger capability
 * set's optimum was worse than a smaller one's (the optimizer promises it never is).
 */

#include "capability-set.h"
#include "command-line-values.h"
#include "schedule-sweep.h"
#include "synthetic-topology.h"
#include "wan-input-error.h"
#include "wan-topology.h"

#include "ns3/command-line.h"

#include <filesystem>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

const std::string PROGRAM = "wan-sweep";

/** The largest --jobs: more processes than that only thrash. */
const uint64_t MAX_JOBS = 256;

/** The option of each ScheduleSweep::Config field that an error can name. */
const CommandLineValues::FieldOptions OPTIONS = {{"jsonFile", "--json"},
                                                 {"csvFile", "--csv"},
                                                 {"simulator", "--simulator"},
                                                 {"workDir", "--workDir"}};

/**
 * @param bad whether the value is bad
 * @param option the option
 * @param reason why it is bad
 * @throws WanInputError naming the option when bad
 */
void
Reject(bool bad, const std::string& option, const std::string& reason)
{
    if (bad)
    {
        throw WanInputError(PROGRAM, option, reason);
    }
}

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
 * @brief Run the sweep.
 * @param argc argument count
 * @param argv arguments
 * @return the exit status
 * @throws WanInputError for a bad value, WanConfigError for a bad configuration field
 */
int
Run(int argc, char* argv[])
{
    ScheduleSweep::Config config;
    config.name = PROGRAM;
    std::string topologyFile;
    std::string modelBytesText;
    std::string modelParametersText;
    std::string formatsText;
    std::string computeText = "0.1,1,10";
    std::string modesText = "unicast,multicast,aggregation,both,ring,tree";
    std::string capabilitiesText;
    std::string capabilitySetsText;
    std::string maxPeriodText = "4";
    std::string seedText = "1";
    std::string evaluationsText = "20000";
    std::string syntheticText = "0";
    std::string syntheticSeedText = "1";
    std::string simulateRoundsText = "0";
    std::string jobsText = "1";
    std::string localStepsText = "10";
    std::string simulator;
    bool quiet = false;

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
        "Exit status: 0 done, 1 input error, 2 some simulation failed or did not verify, 3 a "
        "larger capability set's optimum was worse than a smaller one's.");
    cmd.AddValue("topology", "topology JSON file", topologyFile);
    cmd.AddValue("modelBytes",
                 "comma-separated model sizes S on the wire in bytes, in every format (> 0; "
                 "default 1e8,1e9,1e10)",
                 modelBytesText);
    cmd.AddValue("modelParameters",
                 "instead of --modelBytes: comma-separated model sizes in parameters P (e.g. "
                 "1e8,7e9); each format of --formats gives its own S",
                 modelParametersText);
    cmd.AddValue("formats",
                 "comma-separated payload formats compared side by side: fp32, bf16, int8 "
                 "(default fp32; several need --modelParameters)",
                 formatsText);
    cmd.AddValue("computeS", "comma-separated compute times tau_c in s (>= 0)", computeText);
    cmd.AddValue("modes",
                 "comma-separated capability modes, a row each (every clique uses the mode)",
                 modesText);
    cmd.AddValue("capabilities",
                 "the capability set of the set rows instead of the topology's, as a what-if: "
                 "multicast, aggregation, core comma-separated, or none",
                 capabilitiesText);
    cmd.AddValue("capabilitySets",
                 "several capability sets, a row each (overrides --capabilities), separated by "
                 "'/', e.g. none/multicast/multicast,aggregation/multicast,aggregation,core",
                 capabilitySetsText);
    cmd.AddValue("overlap", "overlap compute with communication", config.overlap);
    cmd.AddValue("maxPeriod", "largest period P (>= 1)", maxPeriodText);
    cmd.AddValue("seed", "seed of every search (and of every simulation, then >= 1)", seedText);
    cmd.AddValue("maxEvaluations", "budget of Xi evaluations per search (>= 1)", evaluationsText);
    cmd.AddValue("syntheticIslands",
                 "instead of --topology: a SyntheticTopology of this many islands (0 = off)",
                 syntheticText);
    cmd.AddValue("syntheticSeed", "seed of the synthetic topology", syntheticSeedText);
    cmd.AddValue("json", "write the table as JSON here", config.jsonFile);
    cmd.AddValue("csv", "write the table as CSV here", config.csvFile);
    cmd.AddValue("simulateRounds",
                 "simulate every point's schedule for this many rounds with "
                 "wan-training-simulate (0 = analytic only)",
                 simulateRoundsText);
    cmd.AddValue("jobs", "simulations run at once, in [1, 256]", jobsText);
    cmd.AddValue("localSteps",
                 "simulation: local steps K per round, each of stepTime = tau_c / K (rounded "
                 "to the ns), in [1, 1000000]",
                 localStepsText);
    cmd.AddValue("workDir",
                 "simulation: directory of the schedules, results and logs (default: beside "
                 "--json, its name without .json plus -work)",
                 config.workDir);
    cmd.AddValue("simulator",
                 "simulation: the wan-training-simulate program (default: the one beside this "
                 "program)",
                 simulator);
    cmd.AddValue("printJobs",
                 "write the schedules, then print one shell command per simulated point instead "
                 "of running them (e.g. for GNU parallel --sshlogin)",
                 config.printJobs);
    cmd.AddValue("collectOnly",
                 "run no simulation: read the results files the commands of --printJobs left "
                 "in --workDir",
                 config.collectOnly);
    cmd.AddValue("quiet",
                 "the simulations write no progress reports into their logs (wan-training-simulate "
                 "--quiet)",
                 quiet);
    CommandLineValues::SetSchedulerDefault();
    cmd.Parse(argc, argv);

    uint64_t synthetic =
        CommandLineValues::ParseWhole(PROGRAM, "--syntheticIslands", syntheticText, 0);
    CommandLineValues::RequireOneTopologySource(PROGRAM, topologyFile, synthetic);
    Reject(synthetic > 64, "--syntheticIslands", "at most 64 islands");
    const uint64_t simulateRounds = config.simulateRounds =
        CommandLineValues::ParseUnsigned(PROGRAM,
                                         "--simulateRounds",
                                         simulateRoundsText,
                                         0,
                                         uint64_t{1} << 20);
    const bool simulating = simulateRounds > 0;
    config.jobs = static_cast<uint32_t>(
        CommandLineValues::ParseUnsigned(PROGRAM, "--jobs", jobsText, 1, MAX_JOBS));
    const uint64_t localSteps = config.localSteps =
        CommandLineValues::ParseUnsigned(PROGRAM, "--localSteps", localStepsText, 1, 1000000);
    CommandLineValues::RequireOneModelSize(PROGRAM,
                                           !modelBytesText.empty(),
                                           !modelParametersText.empty());
    for (const std::string& item :
         formatsText.empty() ? std::vector<std::string>{} : Split(formatsText))
    {
        config.formats.push_back(CommandLineValues::ParseFormat(PROGRAM, "--formats", item));
    }
    Reject(config.formats.size() > 1 && modelParametersText.empty(),
           "--formats",
           "with --modelBytes every format has the same S (the wire size): give the model in "
           "--modelParameters to compare formats");
    for (const std::string& item :
         modelParametersText.empty() ? std::vector<std::string>{} : Split(modelParametersText))
    {
        config.modelParameters.push_back(
            CommandLineValues::ParseModelParameters(PROGRAM, "--modelParameters", item));
    }
    for (const std::string& item :
         !modelParametersText.empty()
             ? std::vector<std::string>{}
             : Split(modelBytesText.empty() ? "1e8,1e9,1e10" : modelBytesText))
    {
        config.modelBytes.push_back(
            CommandLineValues::ParseNumber(PROGRAM, "--modelBytes", item, 0, false));
        // The simulator takes whole bytes, as many as its own --modelBytes accepts.
        config.modelBytesTexts.push_back(
            simulating ? std::to_string(CommandLineValues::ParseWholeNumber(PROGRAM,
                                                                            "--modelBytes",
                                                                            item,
                                                                            1,
                                                                            uint64_t{1} << 50))
                       : item);
    }
    for (const std::string& item : Split(computeText))
    {
        config.computeS.push_back(
            CommandLineValues::ParseNumber(PROGRAM, "--computeS", item, 0, true));
        Reject(simulating && config.computeS.back() / localSteps > 86400,
               "--computeS",
               "tau_c / --localSteps must be at most one day, the simulator's largest "
               "--stepTime (got '" +
                   item + "')");
    }
    for (const std::string& item : Split(modesText))
    {
        config.modes.push_back(CommandLineValues::ParseMode(PROGRAM, "--modes", item));
    }
    // The set rows: --capabilitySets, else --capabilities, else the topology's set.
    if (!capabilitySetsText.empty())
    {
        config.capabilitySets =
            CapabilitySet::ParseList(capabilitySetsText, PROGRAM, "--capabilitySets");
    }
    else if (!capabilitiesText.empty())
    {
        config.capabilitySets = std::vector<CapabilitySet>{
            CapabilitySet::Parse(capabilitiesText, PROGRAM, "--capabilities")};
    }
    ScheduleOptimizer::Options& options = config.optimizer;
    options.maxPeriod = CommandLineValues::ParseWhole(PROGRAM, "--maxPeriod", maxPeriodText, 1);
    options.seed = CommandLineValues::ParseWhole(PROGRAM, "--seed", seedText, 0);
    options.maxEvaluations =
        CommandLineValues::ParseWhole(PROGRAM, "--maxEvaluations", evaluationsText, 1);
    Reject(!simulating && (config.printJobs || config.collectOnly),
           config.printJobs ? "--printJobs" : "--collectOnly",
           "needs --simulateRounds >= 1 (the rounds the simulations run)");
    Reject(config.printJobs && config.collectOnly,
           "--collectOnly",
           "excludes --printJobs (print the jobs, run them, then collect)");
    Reject(simulating && synthetic > 0,
           "--syntheticIslands",
           "the packet simulation needs a --topology file");
    Reject(simulating && (options.seed == 0 || options.seed > UINT32_MAX),
           "--seed",
           "the simulator's seed must be in [1, " + std::to_string(UINT32_MAX) + "] (got '" +
               seedText + "')");
    namespace fs = std::filesystem;
    config.out = &std::cout;
    config.log = &std::cerr;
    if (simulating)
    {
        std::error_code error;
        config.simulator =
            (simulator.empty()
                 ? fs::read_symlink("/proc/self/exe", error).parent_path() / "wan-training-simulate"
                 : fs::absolute(simulator))
                .string();
        const std::string topologyPath = fs::absolute(topologyFile).string();
        config.simulationCommand = [&config, topologyPath, quiet](const ScheduleSweep::Point& point,
                                                                  const std::string& schedule,
                                                                  const std::string& results) {
            std::vector<std::string> command{config.simulator,
                                             "--topology=" + topologyPath,
                                             "--schedule=" + schedule,
                                             "--modelBytes=" + point.modelBytesText,
                                             "--format=" + PayloadFormatToString(point.format),
                                             "--localSteps=" + std::to_string(config.localSteps),
                                             "--stepTime=" + std::to_string(point.stepTimeNs) +
                                                 "ns",
                                             "--rounds=" + std::to_string(config.simulateRounds),
                                             "--seed=" + std::to_string(config.optimizer.seed),
                                             "--out=" + results};
            if (!point.capabilities)
            {
                // A set point runs each clique by the algorithm its schedule gives it.
                command.insert(command.begin() + 3, "--mode=" + CapabilityModeToString(point.mode));
            }
            if (config.overlap)
            {
                command.push_back("--overlap=true");
            }
            if (quiet)
            {
                command.push_back("--quiet");
            }
            return command;
        };
    }
    const ScheduleSweep sweep(config);
    sweep.Validate();
    SyntheticTopology::Options generator;
    generator.islands = synthetic;
    generator.seed =
        CommandLineValues::ParseWhole(PROGRAM, "--syntheticSeed", syntheticSeedText, 0);
    const WanTopology topology = synthetic > 0 ? SyntheticTopology::Generate(generator)
                                               : WanTopology::LoadFile(topologyFile);
    const ScheduleSweep::Result result = sweep.Run(topology);
    if (result.printed)
    {
        std::cerr << PROGRAM << ": wrote " << result.simulated << " schedules into "
                  << sweep.GetConfig().workDir
                  << "; run the commands above, then repeat this sweep "
                  << "without --printJobs and with --collectOnly" << std::endl;
    }
    if (!result.monotone.violations.empty())
    {
        return 3;
    }
    return result.failures > 0 ? 2 : 0;
}

} // namespace

int
main(int argc, char* argv[])
{
    return CommandLineValues::RunProgram(PROGRAM, OPTIONS, [argc, argv]() {
        return Run(argc, argv);
    });
}
