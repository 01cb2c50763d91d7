/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

/*
 * Search the schedule of rotating cliques with the smallest drift consensus distance Xi for a
 * topology, a model size S, a compute time tau_c and a capability mode, or the capability set
 * to search for (--capabilities, default: the topology's) (doc/schedule-model.rst).
 * No packets are simulated: the analytic schedule model is the objective.
 *
 *   island --up/down-- router ===== WAN ===== router --up/down-- island
 *      ^                                                         ^
 *      +---- round r: cliques of islands average their models ---+
 *
 *   ./wan-training optimize --topology=topologies/doublezero-nine-city.json --mode=both \
 *       --modelBytes=1e9 --computeS=1 --out=schedule.json
 *
 * Prints the schedule, its metrics, the bottleneck link of each round, the baselines and the
 * gaps to the colocated reference and to the lower bound; writes the schedule (CliqueSchedule
 * JSON, loadable by the simulation) to --out.
 */

#include "capability-set.h"
#include "clique-schedule.h"
#include "command-line-values.h"
#include "link-load-model.h"
#include "model-size-options.h"
#include "schedule-metrics.h"
#include "schedule-optimizer.h"
#include "synthetic-topology.h"
#include "wan-input-error.h"
#include "wan-topology.h"

#include "ns3/command-line.h"

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <optional>
#include <sstream>

using namespace ns3;

namespace
{

const std::string PROGRAM = "wan-optimize";

/**
 * @param seconds a time
 * @return it as text, "inf" when infinite
 */
std::string
SecondsText(double seconds)
{
    if (std::isinf(seconds))
    {
        return "inf";
    }
    std::ostringstream out;
    out << std::setprecision(6) << seconds << " s";
    return out.str();
}

/**
 * @param topology the topology
 * @param round a round
 * @return the round's cliques by city id
 */
std::string
RoundText(const WanTopology& topology, const CliqueSchedule::Round& round)
{
    std::ostringstream out;
    for (std::size_t c = 0; c < round.size(); ++c)
    {
        out << (c ? " " : "") << "{";
        for (std::size_t k = 0; k < round[c].size(); ++k)
        {
            out << (k ? "," : "") << topology.GetCity(round[c][k]).id;
        }
        out << "}";
    }
    return round.empty() ? "(idle)" : out.str();
}

} // namespace

int
main(int argc, char* argv[])
{
    std::string topologyFile;
    std::string modeName;
    std::string capabilitiesText;
    ModelSizeOptions modelSize;
    std::string computeText;
    bool overlap = false;
    std::string epsText = "1e-3";
    std::string maxPeriodText = "4";
    std::string seedText = "1";
    std::string evaluationsText = "60000";
    std::string syntheticText = "0";
    std::string syntheticSeedText = "1";
    std::string writeTopology;
    std::string outFile;

    CommandLine cmd(__FILE__);
    cmd.Usage("Search the rotating-clique schedule with the smallest Xi (doc/schedule-model.rst).");
    cmd.AddValue("topology", "topology JSON file", topologyFile);
    cmd.AddValue("mode",
                 "unicast|multicast|aggregation|both|ring|tree: every clique uses it (overrides "
                 "--capabilities)",
                 modeName);
    cmd.AddValue("capabilities",
                 "without --mode: the capability set to search for, e.g. "
                 "multicast,aggregation,core or none (default: the topology's); the schedule "
                 "names each clique's algorithm",
                 capabilitiesText);
    modelSize.AddValues(cmd, "S: bytes of one model transfer on the wire, in every format (> 0)");
    cmd.AddValue("computeS", "tau_c: local compute per round in seconds (>= 0)", computeText);
    cmd.AddValue("overlap", "overlap compute with communication", overlap);
    cmd.AddValue("eps", "target of T_eps, in (0, 1)", epsText);
    cmd.AddValue("maxPeriod", "largest period P (>= 1)", maxPeriodText);
    cmd.AddValue("seed", "seed of the search (the result is deterministic per seed)", seedText);
    cmd.AddValue("maxEvaluations", "budget of Xi evaluations (>= 1)", evaluationsText);
    cmd.AddValue("syntheticIslands",
                 "instead of --topology: a SyntheticTopology of this many islands (0 = off)",
                 syntheticText);
    cmd.AddValue("syntheticSeed", "seed of the synthetic topology", syntheticSeedText);
    cmd.AddValue("writeTopology", "write the (synthetic) topology JSON here", writeTopology);
    cmd.AddValue("out", "write the best schedule (CliqueSchedule JSON) here", outFile);
    cmd.Parse(argc, argv);

    return CommandLineValues::RunProgram(PROGRAM, {}, [&]() {
        uint64_t synthetic =
            CommandLineValues::ParseWhole(PROGRAM, "--syntheticIslands", syntheticText, 0);
        SyntheticTopology::Options generator;
        generator.islands = synthetic;
        generator.seed =
            CommandLineValues::ParseWhole(PROGRAM, "--syntheticSeed", syntheticSeedText, 0);
        CommandLineValues::RequireOneTopologySource(PROGRAM, topologyFile, synthetic);
        std::optional<CapabilityMode> mode;
        if (!modeName.empty())
        {
            mode = CommandLineValues::ParseMode(PROGRAM, "--mode", modeName);
        }
        ScheduleMetrics::Settings settings;
        const ModelSizeOptions::Size size = modelSize.Parse(PROGRAM, false, "");
        settings.modelBytes = size.bytes;
        settings.computeS =
            CommandLineValues::ParseNumber(PROGRAM, "--computeS", computeText, 0, true);
        settings.overlap = overlap;
        settings.eps = CommandLineValues::ParseFraction(PROGRAM, "--eps", epsText);
        ScheduleOptimizer::Options options;
        options.maxPeriod = CommandLineValues::ParseWhole(PROGRAM, "--maxPeriod", maxPeriodText, 1);
        options.seed = CommandLineValues::ParseWhole(PROGRAM, "--seed", seedText, 0);
        options.maxEvaluations =
            CommandLineValues::ParseWhole(PROGRAM, "--maxEvaluations", evaluationsText, 1);
        if (outFile.empty())
        {
            throw WanInputError(PROGRAM, "--out", "required: the file to write the schedule to");
        }
        std::string topologyJson;
        if (synthetic > 0)
        {
            if (synthetic > 64)
            {
                throw WanInputError(PROGRAM, "--syntheticIslands", "at most 64 islands");
            }
            topologyJson = SyntheticTopology::GenerateJson(generator);
        }
        WanTopology topology = synthetic > 0 ? SyntheticTopology::Generate(generator)
                                             : WanTopology::LoadFile(topologyFile);
        if (!writeTopology.empty())
        {
            std::ofstream out(writeTopology);
            if (synthetic == 0)
            {
                std::ifstream in(topologyFile);
                out << in.rdbuf();
            }
            else
            {
                out << topologyJson;
            }
            if (!out)
            {
                throw WanInputError(PROGRAM, "--writeTopology", "cannot write " + writeTopology);
            }
        }

        const CapabilitySet set =
            capabilitiesText.empty()
                ? CapabilitySet::Of(topology)
                : CapabilitySet::Parse(capabilitiesText, PROGRAM, "--capabilities");
        auto start = std::chrono::steady_clock::now();
        ScheduleOptimizer::Result result =
            mode ? ScheduleOptimizer(topology, settings, *mode, options).Optimize()
                 : ScheduleOptimizer::OptimizeSet(topology, settings, set, options);
        double wallS =
            std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        result.schedule.SaveFile(outFile, topology);

        const ScheduleMetrics::Evaluation& e = result.evaluation;
        std::cout << std::setprecision(6);
        std::cout << "topology " << topology.GetName() << " (" << topology.GetNCities()
                  << " islands), " << (mode ? "mode " + modeName : "capabilities " + set.ToString())
                  << ", S = " << settings.modelBytes << " B" << size.Describe()
                  << ", tau_c = " << settings.computeS << " s, overlap " << (overlap ? "on" : "off")
                  << ", maxPeriod " << options.maxPeriod << ", seed " << options.seed << "\n";
        std::cout << "best schedule (" << result.origin << "), profile "
                  << ScheduleOptimizer::GetProfile(result.schedule) << ", written to " << outFile
                  << "\n";
        for (uint32_t r = 0; r < result.schedule.GetNRounds(); ++r)
        {
            const ScheduleMetrics::RoundCost& c = e.rounds[r];
            std::cout << "  round " << r << ": " << RoundText(topology, result.schedule.GetRound(r))
                      << "\n    T_r " << SecondsText(c.roundS) << ", T_comm "
                      << SecondsText(c.commS);
            if (c.criticalPath.empty())
            {
                std::cout << " = latency " << SecondsText(c.latencyS) << " + bottleneck "
                          << SecondsText(c.bottleneckS);
            }
            else
            {
                // A ring: its step recursion's critical hop chain, then the busiest link.
                std::cout << " = ring chain";
                for (size_t i = 0; i < c.criticalPath.size(); ++i)
                {
                    std::cout << (i ? ">" : " ") << topology.GetCity(c.criticalPath[i]).id;
                }
                std::cout << " latency " << SecondsText(c.chainLatencyS) << " + steps "
                          << SecondsText(c.commS - c.chainLatencyS) << "; busiest link "
                          << SecondsText(c.bottleneckS);
            }
            if (c.bottleneckS > 0)
            {
                std::cout << " on " << topology.GetDirectedLinkName(c.bottleneckLink) << " ("
                          << c.loads[c.bottleneckLink] << " streams)";
            }
            std::cout << "\n";
        }
        std::cout << "metrics: T " << SecondsText(e.periodS) << ", rho " << e.rhoPeriod
                  << " (per round " << e.rhoPerRound << ", per second " << e.rhoPerSecond
                  << "), rho_rand " << e.rhoRandom << ", T_eps " << SecondsText(e.tEpsS)
                  << ", R_eps " << e.rEps << " /s\n";
        std::cout << "Xi " << SecondsText(e.xiS) << "; colocated " << SecondsText(e.xiColocatedS)
                  << " (gap x" << (e.xiColocatedS > 0 ? e.xiS / e.xiColocatedS : INFINITY)
                  << "); lower bound " << SecondsText(e.xiLowerBoundS) << " (gap x"
                  << e.xiS / e.xiLowerBoundS << ")\n";
        std::cout << "baselines under the same settings:\n";
        for (const ScheduleOptimizer::Candidate& b : result.baselines)
        {
            std::cout << "  " << std::left << std::setw(18) << b.name << std::right << " Xi "
                      << SecondsText(b.xiS) << " (x" << b.xiS / e.xiS << " of the best)\n";
        }
        std::cout << "search: " << result.evaluations << " Xi evaluations in " << wallS << " s\n";
        return 0;
    });
}
