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
 * must be read against: the ring all-reduce (MODEL.md).
 *
 *   S in {..} x tau_c in {..} x mode in {unicast, multicast, aggregation, both, ring, tree}
 *      --> ScheduleOptimizer --> profile "3+3+3 | 9", Xi, gaps   (table, JSON, CSV)
 *
 *   ./wan-training sweep --topology=topologies/doublezero-nine-city.json \
 *       --modelBytes=1e9 --computeS=0.1,1,10
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

#include <cmath>
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>

using namespace ns3;

namespace
{

const std::string PROGRAM = "wan-sweep";

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

    CommandLine cmd(__FILE__);
    cmd.Usage("Optimal clique-size profile and Xi per mode over model sizes and compute times.");
    cmd.AddValue("topology", "topology JSON file", topologyFile);
    cmd.AddValue("modelBytes", "comma-separated model sizes S in bytes (> 0)", modelBytesText);
    cmd.AddValue("computeS", "comma-separated compute times tau_c in s (>= 0)", computeText);
    cmd.AddValue("modes", "comma-separated capability modes", modesText);
    cmd.AddValue("overlap", "overlap compute with communication", overlap);
    cmd.AddValue("maxPeriod", "largest period P (>= 1)", maxPeriodText);
    cmd.AddValue("seed", "seed of every search", seedText);
    cmd.AddValue("maxEvaluations", "budget of Xi evaluations per search (>= 1)", evaluationsText);
    cmd.AddValue("syntheticIslands",
                 "instead of --topology: a SyntheticTopology of this many islands (0 = off)",
                 syntheticText);
    cmd.AddValue("syntheticSeed", "seed of the synthetic topology", syntheticSeedText);
    cmd.AddValue("json", "write the table as JSON here", jsonFile);
    cmd.AddValue("csv", "write the table as CSV here", csvFile);
    cmd.Parse(argc, argv);

    return CommandLineValues::RunProgram([&]() {
        uint64_t synthetic =
            CommandLineValues::ParseWhole(PROGRAM, "--syntheticIslands", syntheticText, 0);
        CommandLineValues::RequireOneTopologySource(PROGRAM, topologyFile, synthetic);
        if (synthetic > 64)
        {
            throw WanInputError(PROGRAM, "--syntheticIslands", "at most 64 islands");
        }
        std::vector<double> sizes;
        for (const std::string& item : Split(modelBytesText))
        {
            sizes.push_back(
                CommandLineValues::ParseNumber(PROGRAM, "--modelBytes", item, 0, false));
        }
        std::vector<double> computes;
        for (const std::string& item : Split(computeText))
        {
            computes.push_back(
                CommandLineValues::ParseNumber(PROGRAM, "--computeS", item, 0, true));
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
        SyntheticTopology::Options generator;
        generator.islands = synthetic;
        generator.seed =
            CommandLineValues::ParseWhole(PROGRAM, "--syntheticSeed", syntheticSeedText, 0);
        WanTopology topology = synthetic > 0 ? SyntheticTopology::Generate(generator)
                                             : WanTopology::LoadFile(topologyFile);
        const uint32_t n = topology.GetNCities();

        nlohmann::json rows = nlohmann::json::array();
        std::ostringstream csv;
        csv << std::setprecision(10);
        csv << "model_bytes,compute_s,mode,profile,period,xi_s,xi_colocated_s,gap_to_colocated,"
               "xi_lower_bound_s,gap_to_lower_bound,xi_all_reduce_same_mode_s,"
               "xi_ring_all_reduce_s,xi_over_ring_all_reduce,origin,schedule\n";
        std::cout << std::setprecision(4);
        std::cout << "topology " << topology.GetName() << " (" << n << " islands), overlap "
                  << (overlap ? "on" : "off") << ", maxPeriod " << options.maxPeriod << ", seed "
                  << options.seed << "\n";
        std::cout << std::left << std::setw(10) << "S (B)" << std::setw(9) << "tau_c"
                  << std::setw(13) << "mode" << std::setw(44) << "profile" << std::right
                  << std::setw(11) << "Xi (s)" << std::setw(10) << "/colo" << std::setw(10)
                  << "/bound" << std::setw(11) << "/ring-AR"
                  << "\n";
        for (double s : sizes)
        {
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
                    std::cout << std::left << std::setw(10) << s << std::setw(9) << tau
                              << std::setw(13) << modeName << std::setw(44) << profile << std::right
                              << std::setw(11) << e.xiS << std::setw(10) << gapColo << std::setw(10)
                              << gapBound << std::setw(11) << e.xiS / ringAllReduce
                              << (result.origin == "search" ? "" : "  (" + result.origin + ")")
                              << "\n";
                    nlohmann::json row;
                    row["model_bytes"] = s;
                    row["compute_s"] = tau;
                    row["mode"] = modeName;
                    row["profile"] = profile;
                    row["period"] = result.schedule.GetNRounds();
                    row["Xi_s"] = e.xiS;
                    row["Xi_colocated_s"] = e.xiColocatedS;
                    row["gap_to_colocated"] =
                        std::isfinite(gapColo) ? nlohmann::json(gapColo) : nlohmann::json(nullptr);
                    row["Xi_lower_bound_s"] = e.xiLowerBoundS;
                    row["gap_to_lower_bound"] = gapBound;
                    row["Xi_all_reduce_same_mode_s"] = allReduce;
                    row["Xi_ring_all_reduce_s"] = ringAllReduce;
                    row["T_period_s"] = e.periodS;
                    row["origin"] = result.origin;
                    row["rounds"] =
                        nlohmann::json::parse(result.schedule.ToJson(topology))["rounds"];
                    rows.push_back(row);
                    csv << s << "," << tau << "," << modeName << "," << profile << ","
                        << result.schedule.GetNRounds() << "," << e.xiS << "," << e.xiColocatedS
                        << "," << (std::isfinite(gapColo) ? std::to_string(gapColo) : "") << ","
                        << e.xiLowerBoundS << "," << gapBound << "," << allReduce << ","
                        << ringAllReduce << "," << e.xiS / ringAllReduce << "," << result.origin
                        << ",\"" << schedule << "\"\n";
                }
            }
        }
        nlohmann::json doc;
        doc["topology"] = topology.GetName();
        doc["overlap"] = overlap;
        doc["max_period"] = options.maxPeriod;
        doc["seed"] = options.seed;
        doc["rows"] = rows;
        CommandLineValues::WriteText(PROGRAM, "--json", jsonFile, doc.dump(1) + "\n");
        CommandLineValues::WriteText(PROGRAM, "--csv", csvFile, csv.str());
        std::cout << "wrote " << jsonFile << " and " << csvFile << "\n";
        return 0;
    });
}
