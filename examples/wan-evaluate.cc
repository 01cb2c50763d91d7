/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

/*
 * Evaluate a schedule of rotating cliques on a topology under every capability mode with the
 * analytic schedule model (doc/schedule-model.rst), and print the result as JSON (rho, T_eps
 * and Xi per mode, plus the colocated Xi, the lower bound and the bottleneck link of each round).
 * No packets are simulated.
 *
 *   schedule.json: rounds of cliques --> per mode: link loads, round times, rho, T_eps, Xi
 *
 *   ./wan-training evaluate --topology=topologies/reference-wan.json --schedule=s.json \
 *       --modelBytes=1e11 --computeS=30
 *
 * A schedule whose cliques carry their algorithms ({"members": [...], "algorithm": A}) also
 * gets a "mixed" block: the same metrics with every clique using its own algorithm (a mixed
 * round, doc/schedule-model.rst), the algorithms and the capability set they were checked
 * against (the topology's, or --capabilities as a what-if).
 *
 * A schedule that does not mix has infinite Xi and T_eps: JSON has no Infinity, so they are
 * null, with "mixes": false and a message.
 */

#include "capability-set.h"
#include "clique-schedule.h"
#include "command-line-values.h"
#include "link-load-model.h"
#include "model-size-options.h"
#include "schedule-metrics.h"
#include "wan-config-error.h"
#include "wan-input-error.h"
#include "wan-topology.h"

#include "ns3/command-line.h"

#include <cmath>
#include <iostream>
#include <nlohmann/json.hpp>

using namespace ns3;

namespace
{

const std::string PROGRAM = "wan-evaluate";

/**
 * @param value a number that may be infinite
 * @return it, or null when infinite
 */
nlohmann::json
Finite(double value)
{
    return std::isfinite(value) ? nlohmann::json(value) : nlohmann::json(nullptr);
}

} // namespace

int
main(int argc, char* argv[])
{
    std::string topologyFile;
    std::string scheduleFile;
    ModelSizeOptions modelSize;
    std::string computeText;
    bool overlap = false;
    std::string epsText = "1e-3";
    std::string modeName;
    std::string capabilitiesText;
    std::string outFile;

    CommandLine cmd(__FILE__);
    cmd.Usage("Evaluate a clique schedule under every capability mode (doc/schedule-model.rst); "
              "JSON out.");
    cmd.AddValue("topology", "topology JSON file", topologyFile);
    cmd.AddValue("schedule", "schedule JSON file (CliqueSchedule)", scheduleFile);
    modelSize.AddValues(cmd, "S: bytes of one model transfer on the wire, in every format (> 0)");
    cmd.AddValue("computeS", "tau_c: local compute per round in seconds (>= 0)", computeText);
    cmd.AddValue("overlap", "overlap compute with communication", overlap);
    cmd.AddValue("eps", "target of T_eps, in (0, 1)", epsText);
    cmd.AddValue("mode", "only this mode (default: every mode)", modeName);
    cmd.AddValue("capabilities",
                 "what-if capability set the schedule's per-clique algorithms must fit, e.g. "
                 "multicast,aggregation,core or none (default: the topology's)",
                 capabilitiesText);
    cmd.AddValue("out", "also write the JSON to this file", outFile);
    cmd.Parse(argc, argv);

    return CommandLineValues::RunProgram(PROGRAM, {}, [&]() {
        if (topologyFile.empty())
        {
            throw WanInputError(PROGRAM, "--topology", "required");
        }
        if (scheduleFile.empty())
        {
            throw WanInputError(PROGRAM, "--schedule", "required");
        }
        ScheduleMetrics::Settings settings;
        const ModelSizeOptions::Size size = modelSize.Parse(PROGRAM, false, "");
        settings.modelBytes = size.bytes;
        settings.computeS =
            CommandLineValues::ParseNumber(PROGRAM, "--computeS", computeText, 0, true);
        settings.overlap = overlap;
        settings.eps = CommandLineValues::ParseFraction(PROGRAM, "--eps", epsText);
        std::vector<CapabilityMode> modes = GetAllCapabilityModes();
        if (!modeName.empty())
        {
            modes = {CommandLineValues::ParseMode(PROGRAM, "--mode", modeName)};
        }
        WanTopology topology = WanTopology::LoadFile(topologyFile);
        CliqueSchedule schedule = CliqueSchedule::LoadFile(scheduleFile, topology);
        ScheduleMetrics metrics(topology, settings);
        const uint32_t n = topology.GetNCities();

        nlohmann::json doc;
        doc["topology"] = topology.GetName();
        doc["schedule"] = scheduleFile;
        doc["params"] = {{"model_bytes", settings.modelBytes},
                         {"tau_c_s", settings.computeS},
                         {"overlap", settings.overlap},
                         {"eps", settings.eps}};
        if (!size.IsDefault())
        {
            doc["params"]["format"] = PayloadFormatToString(size.format);
            if (size.parameters > 0)
            {
                doc["params"]["model_parameters"] = size.parameters;
            }
        }
        doc["rounds"] = nlohmann::json::parse(schedule.ToJson(topology))["rounds"];
        doc["mixes"] = schedule.Mixes();
        if (!schedule.Mixes())
        {
            doc["message"] = "the schedule does not mix (the union of its rounds' clique graphs "
                             "is disconnected): Xi and T_eps are infinite, reported as null";
        }
        doc["Xi_colocated_s"] = ScheduleMetrics::GetColocatedXi(n, settings.computeS);
        // One entry of the modes block (or the mixed block): the metrics of an evaluation.
        auto Describe = [&topology](const ScheduleMetrics::Evaluation& e) {
            nlohmann::json m;
            m["round_times_s"] = nlohmann::json::array();
            m["comm_times_s"] = nlohmann::json::array();
            m["link_loads_in_S"] = nlohmann::json::array();
            m["bottleneck_links"] = nlohmann::json::array();
            for (const ScheduleMetrics::RoundCost& c : e.rounds)
            {
                m["round_times_s"].push_back(c.roundS);
                m["comm_times_s"].push_back(c.commS);
                nlohmann::json loads = nlohmann::json::object();
                for (uint32_t d = 0; d < c.loads.size(); ++d)
                {
                    if (c.loads[d] != 0)
                    {
                        loads[topology.GetDirectedLinkName(d)] = c.loads[d];
                    }
                }
                m["link_loads_in_S"].push_back(loads);
                m["bottleneck_links"].push_back(
                    c.bottleneckS > 0
                        ? nlohmann::json(topology.GetDirectedLinkName(c.bottleneckLink))
                        : nlohmann::json(nullptr));
            }
            m["T_period_s"] = e.periodS;
            m["rho_period"] = e.rhoPeriod;
            m["rho_per_round"] = e.rhoPerRound;
            m["rho_per_second"] = e.rhoPerSecond;
            m["rho_random_rotation"] = e.rhoRandom;
            m["T_eps_s"] = Finite(e.tEpsS);
            m["R_eps"] = e.rEps;
            m["Xi_s"] = Finite(e.xiS);
            m["Xi_colocated_s"] = e.xiColocatedS;
            m["Xi_lower_bound_s"] = e.xiLowerBoundS;
            m["gap_to_colocated"] =
                e.xiColocatedS > 0 ? Finite(e.xiS / e.xiColocatedS) : nlohmann::json(nullptr);
            m["mixes"] = e.mixes;
            return m;
        };
        for (CapabilityMode mode : modes)
        {
            if (modeName.empty() && mode == CapabilityMode::TREE)
            {
                // Every mode: a tree the topology's FPGAs cannot sum is reported, not an error.
                try
                {
                    CheckFpgaPlacement(topology, schedule.WithMode(mode));
                }
                catch (const WanConfigError& error)
                {
                    doc["modes"]["tree"] = {{"unavailable", error.GetReason()}};
                    continue;
                }
            }
            doc["modes"][CapabilityModeToString(mode)] = Describe(metrics.Evaluate(schedule, mode));
        }
        if (schedule.HasAlgorithms() && modeName.empty())
        {
            // The schedule's own algorithms, clique by clique (a forced --mode replaces them).
            const CapabilitySet set =
                capabilitiesText.empty()
                    ? CapabilitySet::Of(topology)
                    : CapabilitySet::Parse(capabilitiesText, PROGRAM, "--capabilities");
            set.CheckSchedule(schedule,
                              scheduleFile,
                              capabilitiesText.empty() ? "the topology's capabilities"
                                                       : "--capabilities");
            const CliqueSchedule mixed = schedule.Resolve({}, scheduleFile);
            nlohmann::json m = Describe(metrics.Evaluate(mixed));
            m["capabilities"] = set.ToString();
            m["algorithms"] = nlohmann::json::array();
            for (uint32_t r = 0; r < mixed.GetNRounds(); ++r)
            {
                nlohmann::json names = nlohmann::json::array();
                for (uint32_t c = 0; c < mixed.GetRound(r).size(); ++c)
                {
                    const auto algorithm = mixed.GetAlgorithm(r, c);
                    names.push_back(mixed.GetRound(r)[c].size() >= 2 && algorithm
                                        ? nlohmann::json(CapabilityModeToString(*algorithm))
                                        : nlohmann::json(nullptr));
                }
                m["algorithms"].push_back(names);
            }
            doc["mixed"] = m;
        }
        std::string text = doc.dump(1);
        std::cout << text << std::endl;
        if (!outFile.empty())
        {
            CommandLineValues::WriteText(PROGRAM, "--out", outFile, text + "\n");
        }
        return 0;
    });
}
