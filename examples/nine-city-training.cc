/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

/*
 * The nine-city experiment: how close does training across a WAN get to colocated training,
 * and how does the best schedule shift as the network learns to replicate and to sum?
 *
 *   for each mode in --modes (unicast, multicast, aggregation, both, the unicast ring
 *   all-reduce baseline, and tree: in-network reduction by an FPGA on every router):
 *     1. ScheduleOptimizer picks the rotating-clique schedule with the smallest drift consensus
 *        distance Xi (doc/schedule-model.rst) for the model size S and the compute time tau_c
 *     2. TrainingRun simulates it packet by packet: nine TrainingIslandApplications take real
 *        gradient steps on their local objectives and average real parameters in their cliques
 *        (every average checked against an exact shadow copy)
 *   colocated reference: every island averages exactly after every round's local steps, at no
 *   communication cost (the gold standard; computed from the same objectives)
 *
 * TrainingExperiment does all of it; this program maps its options to the experiment's
 * configuration and the configuration errors back to its options.
 *
 * stdout: one summary table (every number computed in this run; no wall times, so the same
 * seed gives the same table); stderr: progress (each simulation's rounds in progress, percent of
 * their bytes delivered and expected finish, every --progressInterval seconds; --quiet: none).
 * results/<run-id>/: config.json, topology.json, per mode MODE.json (TrainingResults) and
 * MODE-schedule.json, summary.{txt,csv,json}, rounds.csv, and plots (gnuplot scripts and PNG):
 * loss.png, consensus.png, link-utilization.png, round-times.png.
 *
 * Usage: nine-city-training [--quick] [--modes=unicast,both,...] [--modelBytes=1e8]
 *          [--modelParameters=2.5e7] [--format=fp32]
 *          [--rounds=N] [--localSteps=N] [--stepTime=50ms] [--seed=N] [--topology=FILE]
 *          [--out=results] [--runId=ID] [--pcap=DIR] ...            (--help lists every knob)
 * Exit status: 0 every mode completed with verified averages, 1 input error, 2 a mode failed.
 */

#include "capability-set.h"
#include "command-line-values.h"
#include "fault-plan.h"
#include "nine-city-topology.h"
#include "training-experiment.h"
#include "training-options.h"
#include "training-run.h"
#include "wan-topology.h"

#include "ns3/command-line.h"

#include <algorithm>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>

using namespace ns3;

namespace
{

/** The program name used in messages. */
const char* const PROGRAM = "nine-city-training";

/**
 * @return the option of every configuration field an error can name: TrainingRun's (the shared
 *         options) and TrainingExperiment's own
 */
const CommandLineValues::FieldOptions&
GetFieldOptions()
{
    static const CommandLineValues::FieldOptions options = []() {
        CommandLineValues::FieldOptions all = TrainingOptions::GetFieldOptions();
        all.insert({{"modes", "--modes"},
                    {"targetLossFraction", "--targetLoss"},
                    {"runId", "--runId"},
                    {"outDir", "--out"},
                    {"jobs", "--jobs"},
                    {"capabilitySets", "--capabilitySets"}});
        return all;
    }();
    return options;
}

/**
 * @brief Run the experiment.
 * @param argc argument count
 * @param argv arguments
 * @return the exit status
 * @throws WanInputError for a bad value, WanConfigError for a bad configuration field (the
 *         edge in main names its option)
 */
int
Run(int argc, char** argv)
{
    // Empty strings mean "not given": the preset (--quick or the default) fills them in.
    bool quick = false;
    TrainingOptions training;
    training.topologyHelp =
        "topology JSON file (default: the embedded topologies/doublezero-nine-city.json)";
    training.modelBytesDefault = "1e8"; // --quick: 5e6
    training.rounds = "";
    training.maxRounds = 100000;
    training.stepTime = "50ms";
    training.parameterCount = "4096";
    training.pcapSnaplen = "70"; // six modes of captures: headers only
    std::string modesText = "unicast,multicast,aggregation,both,ring,tree";
    std::string setsText; // empty: the topology's capability set
    std::string targetText = "0.02";
    std::string maxPeriodText = "4";
    std::string evaluationsText;
    std::string outText = "results";
    std::string runId;
    std::string jobsText = "0";
    std::string pcapDir;

    CommandLine cmd(__FILE__);
    cmd.Usage("The nine-city experiment: for each capability mode and capability set, optimize a "
              "rotating-clique schedule (doc/schedule-model.rst), simulate it packet by packet "
              "with real training, and "
              "compare with colocated training. Prints one summary table; writes results/<run-id>/ "
              "(JSON, CSV, gnuplot PNG plots).\nPresets: default S = 1e8 bytes, 8 rounds (a few "
              "minutes); --quick S = 5e6 bytes, 4 rounds (well under a minute). Values given "
              "explicitly override the preset.\nExit status: 0 every mode completed with verified "
              "averages, 1 input error, 2 a mode failed.");
    cmd.AddValue("quick", "the quick preset (S = 5e6 bytes, 4 rounds, a smaller search)", quick);
    training.AddValues(cmd);
    cmd.AddValue("modes",
                 "comma-separated capability modes to run: unicast, multicast, aggregation, both, "
                 "ring, tree",
                 modesText);
    cmd.AddValue("capabilitySets",
                 "capability sets whose optima run too, each clique by the algorithm it picks: "
                 "sets separated by '/', tokens by ',' (e.g. none/multicast,aggregation; "
                 "default: the topology's set; 'off': none)",
                 setsText);
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
    CommandLineValues::SetSchedulerDefault();
    cmd.Parse(argc, argv);

    // The preset fills what was not given.
    training.modelBytesDefault = quick ? "5e6" : training.modelBytesDefault;
    if (training.rounds.empty())
    {
        training.rounds = quick ? "4" : "8";
    }
    if (evaluationsText.empty())
    {
        evaluationsText = quick ? "20000" : "60000";
    }

    // Every value is parsed and validated before any work.
    TrainingExperiment::Config config;
    config.name = PROGRAM;
    config.preset = quick ? "quick" : "default";
    config.topologySource =
        training.topology.empty() ? NINE_CITY_TOPOLOGY_SOURCE : training.topology;
    config.topologyText = NINE_CITY_TOPOLOGY_JSON;
    const WanTopology topology =
        training.topology.empty()
            ? WanTopology::Parse(NINE_CITY_TOPOLOGY_JSON, NINE_CITY_TOPOLOGY_SOURCE)
            : WanTopology::LoadFile(training.topology);
    if (!training.topology.empty())
    {
        // The file parsed above, copied as it is.
        std::ifstream in(training.topology);
        std::ostringstream text;
        text << in.rdbuf();
        config.topologyText = text.str();
    }
    std::stringstream modeList(modesText);
    for (std::string name; std::getline(modeList, name, ',');)
    {
        CapabilityMode mode = CommandLineValues::ParseMode(PROGRAM, "--modes", name);
        if (std::find(config.modes.begin(), config.modes.end(), mode) == config.modes.end())
        {
            config.modes.push_back(mode);
        }
    }
    config.modesText = modesText;
    if (setsText.empty())
    {
        config.capabilitySets.push_back(CapabilitySet::Of(topology));
    }
    else if (setsText != "off")
    {
        config.capabilitySets = CapabilitySet::ParseList(setsText, PROGRAM, "--capabilitySets");
    }
    training.Parse(PROGRAM, config.training);
    // The optimizer takes the simulation's S: the same settings for both.
    const ModelSizeOptions::Size size = training.ParseModelSize(PROGRAM);
    config.modelParameters = size.parameters;
    config.targetLossFraction =
        CommandLineValues::ParseFraction(PROGRAM, "--targetLoss", targetText);
    config.training.faults = FaultPlan::Parse(topology, config.training.rounds, training.faults);
    config.training.pcapDir = pcapDir;
    config.optimizer.seed = config.training.seed;
    config.optimizer.maxPeriod = static_cast<uint32_t>(
        CommandLineValues::ParseUnsigned(PROGRAM, "--maxPeriod", maxPeriodText, 1, 16));
    config.optimizer.maxEvaluations = CommandLineValues::ParseWholeNumber(PROGRAM,
                                                                          "--maxEvaluations",
                                                                          evaluationsText,
                                                                          1,
                                                                          uint64_t{1} << 40);
    config.outDir = outText;
    config.runId = runId;
    config.summary = &std::cout;
    config.log = &std::cerr;
    TrainingExperiment(topology, config).Validate();
    config.jobs =
        static_cast<uint32_t>(CommandLineValues::ParseUnsigned(PROGRAM, "--jobs", jobsText, 0, 64));

    const TrainingExperiment::Result result = TrainingExperiment(topology, config).Run();
    return result.finished && result.allPassed ? 0 : 2;
}

} // namespace

int
main(int argc, char** argv)
{
    return CommandLineValues::RunProgram(PROGRAM, GetFieldOptions(), [argc, argv]() {
        return Run(argc, argv);
    });
}
