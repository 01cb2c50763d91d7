/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

/*
 * A first wan-training program: nine islands train one model over a WAN for two rounds.
 *
 * Default topology (topologies/doublezero-nine-city.json). Every router X has an island X-island
 * (a compute cluster) behind a 10 Gbps access link; WAN links have the file's one-way latency
 * and capacity:
 *
 *         chi                        ams
 *        /   \                      /   \
 *     nyc ---- lax ---- tyo      lon ---- fra ---- prg
 *      |                 |       / |
 *      |                sin ----'  |
 *      '---------------------------'
 *
 * In every round each island takes LocalSteps gradient steps on its own objective, then
 * averages its parameters with the other members of its clique. The schedule is the "Latin"
 * triples (any other island count: one clique of all): round 0 groups {nyc chi lax} {lon ams
 * fra} {prg tyo sin}, round 1 {nyc lon prg} {chi ams tyo} {lax fra sin}, after which every
 * island holds the average of all nine. --mode chooses how a clique exchanges: unicast copies,
 * multicast (the routers replicate), aggregation (an FPGA at each island's router port sums),
 * both, or a ring all-reduce. The program prints each clique's time in each round and the
 * schedule model's prediction of the round (doc/schedule-model.rst, "Time").
 *
 * The programs of the module build the same scenario through TrainingRun, which adds input
 * validation, faults, recording and the results JSON; this one uses the helpers underneath.
 *
 *   ./build/wan-training-tutorial --mode=both --modelBytes=1e8
 */

#include "aggregator-helper.h"
#include "clique-schedule.h"
#include "link-load-model.h"
#include "pim-multicast-helper.h"
#include "schedule-metrics.h"
#include "training-helper.h"
#include "wan-input-error.h"
#include "wan-topology-helper.h"
#include "wan-topology.h"

#include "ns3/core-module.h"

#include <algorithm>
#include <iostream>
#include <map>
#include <string>
#include <utility>
#include <vector>

using namespace ns3;

NS_LOG_COMPONENT_DEFINE("WanTrainingTutorial");

namespace
{

std::map<std::pair<uint32_t, uint32_t>, Time> g_started;  //!< (round, island) -> start time
std::map<std::pair<uint32_t, uint32_t>, Time> g_finished; //!< (round, island) -> end time

/**
 * @brief RoundStarted sink: local compute of a round begins.
 * @param island the island
 * @param round the round
 */
void
RoundStarted(uint32_t island, uint32_t round)
{
    g_started[{round, island}] = Simulator::Now();
}

/**
 * @brief RoundFinished sink: the island holds its clique's average (the clique index and the
 * new parameters are not needed here).
 * @param island the island
 * @param round the round
 */
void
RoundFinished(uint32_t island, uint32_t round, uint32_t, const std::vector<float>&)
{
    g_finished[{round, island}] = Simulator::Now();
}

} // namespace

int
main(int argc, char* argv[])
{
    std::string topologyFile = WAN_TRAINING_TOPOLOGY_DIR "/doublezero-nine-city.json";
    std::string modeName = "unicast";
    double modelBytes = 1e8; // S: the model's size on the wire in bytes (100 MB)
    const uint32_t rounds = 2;
    const uint32_t localSteps = 10;
    const Time stepTime = MilliSeconds(50); // tau_c = 10 x 50 ms of compute per round

    CommandLine cmd(__FILE__);
    cmd.AddValue("topology", "topology JSON file", topologyFile);
    cmd.AddValue("mode", "unicast, multicast, aggregation, both or ring", modeName);
    cmd.AddValue("modelBytes", "model size S in bytes", modelBytes);
    cmd.Parse(argc, argv);
    if (!(modelBytes >= 4096 && modelBytes <= 1e12))
    {
        std::cerr << "wan-training-tutorial: --modelBytes: must lie in [4096, 1e12]" << std::endl;
        return 1;
    }

    try
    {
        // The analytic inputs: the WAN, the schedule of cliques and the exchange algorithm.
        WanTopology topology = WanTopology::LoadFile(topologyFile);
        const uint32_t n = topology.GetNCities();
        CliqueSchedule schedule =
            n == 9 ? CliqueSchedule::LatinTriples(n) : CliqueSchedule::AllReduce(n);
        CapabilityMode mode = CapabilityModeFromString(modeName);
        bool multicast = mode == CapabilityMode::MULTICAST || mode == CapabilityMode::BOTH;
        bool aggregation = mode == CapabilityMode::AGGREGATION || mode == CapabilityMode::BOTH;
        // The topology's "capabilities" say what its routers can do.
        const char* lacking = mode == CapabilityMode::TREE            ? "is analytic only"
                              : multicast && !topology.HasMulticast() ? "needs multicast routers"
                              : aggregation && !topology.HasAggregation() ? "needs in-line FPGAs"
                                                                          : nullptr;
        if (lacking)
        {
            std::cerr << "wan-training-tutorial: --mode: " << modeName << " " << lacking
                      << std::endl;
            return 1;
        }
        const uint16_t jobId = 1;

        // Nodes, point-to-point links, addresses and static routes along the topology's routes.
        // The in-line FPGA is a router's access device itself, so it is placed before the links.
        WanTopologyHelper scenario(topology);
        AggregatorHelper aggregators;
        if (aggregation)
        {
            aggregators.Install(scenario);
        }
        scenario.Install();
        if (aggregation)
        {
            aggregators.SetSchedule(scenario, schedule, jobId); // what each FPGA sums in each round
        }

        // Multicast source trees: one group per (round, clique, source), replicated by the routers.
        PimMulticastHelper pim(scenario);
        if (multicast)
        {
            pim.InstallSchedule(schedule);
        }

        // One training application per island.
        TrainingHelper training(scenario, schedule);
        training.SetMode(mode);
        if (multicast)
        {
            training.SetMulticast(pim);
        }
        training.SetAttribute("JobId", UintegerValue(jobId));
        training.SetAttribute("Rounds", UintegerValue(rounds));
        training.SetAttribute("ModelBytes", UintegerValue(static_cast<uint64_t>(modelBytes)));
        training.SetAttribute("LocalSteps", UintegerValue(localSteps));
        training.SetAttribute("StepTime", TimeValue(stepTime));
        ApplicationContainer apps = training.Install();
        for (auto app = apps.Begin(); app != apps.End(); ++app)
        {
            (*app)->TraceConnectWithoutContext("RoundStarted", MakeCallback(&RoundStarted));
            (*app)->TraceConnectWithoutContext("RoundFinished", MakeCallback(&RoundFinished));
        }

        Simulator::Run(); // the applications stop after their last round

        // A clique's round time: from its last member's start (a clique exchanges once all its
        // members are there) to its last member's average.
        ScheduleMetrics::Settings settings;
        settings.modelBytes = modelBytes;
        settings.computeS = localSteps * stepTime.GetSeconds();
        ScheduleMetrics metrics(topology, settings);
        std::cout << topology.GetName() << ", mode " << modeName << ", S = " << modelBytes
                  << " bytes, tau_c = " << settings.computeS << " s" << std::endl;
        for (uint32_t r = 0; r < rounds; ++r)
        {
            const CliqueSchedule::Round& cliques = schedule.GetRound(r % schedule.GetNRounds());
            double roundS = 0;
            for (const CliqueSchedule::Clique& clique : cliques)
            {
                Time start;
                Time end;
                std::cout << "  round " << r << " clique {";
                for (uint32_t island : clique)
                {
                    start = std::max(start, g_started.at({r, island}));
                    end = std::max(end, g_finished.at({r, island}));
                    std::cout << " " << topology.GetCity(island).id;
                }
                std::cout << " }: " << (end - start).GetSeconds() << " s" << std::endl;
                roundS = std::max(roundS, (end - start).GetSeconds());
            }
            std::cout << "  round " << r << ": simulated " << roundS << " s, schedule model "
                      << metrics.GetRoundCost(cliques, mode).roundS << " s" << std::endl;
        }
        Simulator::Destroy();
    }
    catch (const WanInputError& error)
    {
        // A malformed topology file or an unknown mode: FILE: JSON-PATH: REASON.
        std::cerr << "wan-training-tutorial: " << error.what() << std::endl;
        return 1;
    }
    return 0;
}
