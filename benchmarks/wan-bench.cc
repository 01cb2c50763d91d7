/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

/*
 * The benchmarks of the module (./wan-training bench [--quick]); benchmarks/README.md explains
 * every number.
 *
 *   wan-bench (parent)                           one child process per case, one at a time:
 *     |-- ours  unicast 64 MB   ----------------> TrainingRun, nine-city, all-island clique
 *     |-- plain unicast 64 MB   ----------------> the same packets, stock UdpClient/PacketSink
 *     |   ... every mode x ModelBytes                 over the same routes
 *     |-- evaluate / optimize  -----------------> ScheduleOptimizer on 9 and 32 islands
 *     |-- scale 16 / 32 / 64 islands -----------> TrainingRun on synthetic topologies
 *     |-- coarse (full only) -------------------> TrainingRun with 64 kB frames: nine-city
 *     |                                             10 GB, 64 synthetic islands 1 GB
 *     |-- loss  every mode x 0, 0.1 %, 1 % ------> TrainingRun, nine-city, Latin triples,
 *     |                                             3 rounds, random loss on the WAN links
 *     `-> tables + targets on stdout, JSON in --out (peak RSS per case from wait4)
 *
 * Usage: wan-bench [--quick | --smoke] [--out=FILE] [--modes=unicast,both,...] [--repeat=N]
 *        [--sections=simulation,optimizer,scale,coarse,loss]
 * Exit status: 0 every case ran and passed its own checks (a target may still be NOT met),
 * 1 input error or a case failed.
 */

#include "bench-case.h"
#include "bench-runner.h"
#include "command-line-values.h"
#include "link-load-model.h"
#include "training-options.h"
#include "wan-input-error.h"

#include "ns3/command-line.h"

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

/** The program name error messages start with. */
const std::string PROGRAM = "wan-bench";

/**
 * @param text a comma-separated list of mode names
 * @return the modes
 * @throws WanInputError on an unknown mode
 */
std::vector<CapabilityMode>
ParseModes(const std::string& text)
{
    std::vector<CapabilityMode> modes;
    std::istringstream in(text);
    std::string name;
    while (std::getline(in, name, ','))
    {
        CapabilityMode mode = CommandLineValues::ParseMode(PROGRAM, "--modes", name);
        modes.push_back(mode);
    }
    if (modes.empty())
    {
        throw WanInputError(PROGRAM, "--modes", "needs at least one mode");
    }
    return modes;
}

/**
 * @param text a comma-separated list of section names
 * @return the sections
 * @throws WanInputError on an unknown section
 */
BenchRunner::Sections
ParseSections(const std::string& text)
{
    BenchRunner::Sections sections{false, false, false, false, false};
    std::istringstream in(text);
    std::string name;
    while (std::getline(in, name, ','))
    {
        if (name == "simulation")
        {
            sections.simulation = true;
        }
        else if (name == "optimizer")
        {
            sections.optimizer = true;
        }
        else if (name == "scale")
        {
            sections.scale = true;
        }
        else if (name == "coarse")
        {
            sections.coarse = true;
        }
        else if (name == "loss")
        {
            sections.loss = true;
        }
        else
        {
            throw WanInputError(PROGRAM,
                                "--sections",
                                "unknown section '" + name +
                                    "' (known: simulation, optimizer, scale, coarse, loss)");
        }
    }
    return sections;
}

} // namespace

int
main(int argc, char* argv[])
{
    bool quick = false;
    bool smoke = false;
    std::string out = "results/bench/bench.json";
    std::string topologyFile = WAN_TRAINING_SOURCE_DIR "/topologies/doublezero-nine-city.json";
    std::string modesText;
    std::string repeatText = "0";
    // One case in this process (the parent starts the program again with these).
    std::string caseKind;
    std::string resultFile;
    std::string syntheticText = "0";
    std::string modeText = "unicast";
    std::string modelBytesText = "1e9";
    std::string computeText = "1";
    std::string secondsText = "1";
    std::string evaluationsText = "0";
    std::string oursResult;
    bool coarseFrames = false;
    std::string roundsText = "1";
    std::string lossRateText = "0";
    std::string sectionsText;

    CommandLine cmd(__FILE__);
    cmd.Usage("The module's benchmarks: simulation cost against a plain-ns-3 baseline, memory "
              "scaling, optimizer speed, scale and the communication time under WAN loss, with "
              "the targets (benchmarks/README.md).");
    cmd.AddValue("quick", "smaller sizes and budgets (a minute or two)", quick);
    cmd.AddValue("smoke", "the smallest cases only (a few seconds; the CTest smoke test)", smoke);
    cmd.AddValue("out", "the JSON file to write", out);
    cmd.AddValue("topology", "the nine-city topology JSON", topologyFile);
    cmd.AddValue("modes", "simulated modes, comma separated (default: the profile's)", modesText);
    cmd.AddValue("sections",
                 "sections to run, comma separated: simulation, optimizer, scale, coarse, loss "
                 "(default: all; coarse runs in the full profile only)",
                 sectionsText);
    cmd.AddValue("repeat",
                 "runs of each simulation case and its baseline, alternating, each side's "
                 "fastest kept (0: 2 quick, 1 otherwise)",
                 repeatText);
    cmd.AddValue("case",
                 "internal: run one case (ours, plain, evaluate, optimize, loss)",
                 caseKind);
    cmd.AddValue("result", "internal: the case's result file", resultFile);
    cmd.AddValue("syntheticIslands", "internal: the case's synthetic topology size", syntheticText);
    cmd.AddValue("mode", "internal: the case's capability mode", modeText);
    cmd.AddValue("modelBytes", "internal: the case's ModelBytes", modelBytesText);
    cmd.AddValue("computeS", "internal: the case's tau_c", computeText);
    cmd.AddValue("seconds", "internal: the case's least measuring time", secondsText);
    cmd.AddValue("maxEvaluations", "internal: the case's optimizer budget", evaluationsText);
    cmd.AddValue("oursResult", "internal: the `ours` result a plain case replays", oursResult);
    cmd.AddValue("coarseFrames", "internal: the case simulates coarse frames", coarseFrames);
    cmd.AddValue("rounds", "internal: the case's rounds (loss)", roundsText);
    cmd.AddValue("lossRate",
                 "internal: the case's packet error rate on every WAN link (loss), in [0, 0.5]",
                 lossRateText);
    CommandLineValues::SetSchedulerDefault();
    cmd.Parse(argc, argv);

    return CommandLineValues::RunProgram(PROGRAM, TrainingOptions::GetFieldOptions(), [&]() {
        if (!caseKind.empty())
        {
            BenchCase::Arguments arguments;
            arguments.kind = caseKind;
            arguments.topologyFile = topologyFile;
            arguments.syntheticIslands =
                static_cast<uint32_t>(CommandLineValues::ParseUnsigned(PROGRAM,
                                                                       "--syntheticIslands",
                                                                       syntheticText,
                                                                       0,
                                                                       64));
            arguments.mode = CommandLineValues::ParseMode(PROGRAM, "--mode", modeText);
            arguments.modelBytes = CommandLineValues::ParseWholeNumber(PROGRAM,
                                                                       "--modelBytes",
                                                                       modelBytesText,
                                                                       1,
                                                                       uint64_t{1} << 53);
            arguments.computeS =
                CommandLineValues::ParseNumber(PROGRAM, "--computeS", computeText, 0, true);
            arguments.seconds =
                CommandLineValues::ParseNumber(PROGRAM, "--seconds", secondsText, 0, false);
            arguments.maxEvaluations =
                CommandLineValues::ParseWhole(PROGRAM, "--maxEvaluations", evaluationsText, 0);
            arguments.oursResult = oursResult;
            arguments.coarseFrames = coarseFrames;
            arguments.rounds = static_cast<uint32_t>(
                CommandLineValues::ParseUnsigned(PROGRAM, "--rounds", roundsText, 1, 1000));
            arguments.lossRate = CommandLineValues::ParseNumberInRange(PROGRAM,
                                                                       "--lossRate",
                                                                       lossRateText,
                                                                       0,
                                                                       0.5,
                                                                       false);
            if (resultFile.empty())
            {
                throw WanInputError(PROGRAM, "--result", "required with --case");
            }
            nlohmann::json result = BenchCase::Run(arguments);
            CommandLineValues::WriteText(PROGRAM, "--result", resultFile, result.dump() + "\n");
            return 0;
        }
        if (quick && smoke)
        {
            throw WanInputError(PROGRAM, "--smoke", "give --quick or --smoke, not both");
        }
        BenchRunner::Options options;
        options.profile = smoke   ? BenchRunner::Profile::SMOKE
                          : quick ? BenchRunner::Profile::QUICK
                                  : BenchRunner::Profile::FULL;
        options.out = out;
        options.topologyFile = topologyFile;
        options.repeat = static_cast<uint32_t>(
            CommandLineValues::ParseUnsigned(PROGRAM, "--repeat", repeatText, 0, 100));
        if (!modesText.empty())
        {
            options.modes = ParseModes(modesText);
        }
        if (!sectionsText.empty())
        {
            options.sections = ParseSections(sectionsText);
        }
        std::ifstream probe(topologyFile);
        if (!probe)
        {
            throw WanInputError(PROGRAM, "--topology", "cannot read '" + topologyFile + "'");
        }
        BenchRunner runner(options);
        return runner.Run();
    });
}
