/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

/*
 * A first wan-training program: the nine islands of topologies/doublezero-nine-city.json
 * (compute clusters, each behind its router) train one model over the WAN for two rounds.
 *
 *         chi                        ams
 *        /   \                      /   \
 *     nyc ---- lax ---- tyo      lon ---- fra ---- prg
 *      |                 |       / |
 *      |                sin ----'  |
 *      '---------------------------'
 *
 * Each round every island computes, then averages with its clique (the Latin triples) by
 * --mode: unicast, multicast (routers replicate), aggregation (FPGAs sum), both, or ring.
 *
 *   ./build/wan-training-tutorial --mode=both --modelBytes=1e8
 */

#include "aggregator-helper.h"
#include "command-line-values.h"
#include "pim-multicast-helper.h"
#include "schedule-metrics.h"
#include "training-helper.h"
#include "wan-topology-helper.h"

#include "ns3/core-module.h"

#include <iostream>

using namespace ns3;

NS_LOG_COMPONENT_DEFINE("WanTrainingTutorial");

int
main(int argc, char* argv[])
{
    const std::string program = "wan-training-tutorial";
    std::string topologyFile = WAN_TRAINING_TOPOLOGY_DIR "/doublezero-nine-city.json";
    std::string modeName = "unicast";
    double modelBytes = 1e8; // S in bytes; a double, so that --modelBytes=1e6 reads as 10^6
    const uint32_t rounds = 2;
    const uint32_t localSteps = 10;
    const Time stepTime = MilliSeconds(50); // 10 x 50 ms of compute per round

    CommandLine cmd(__FILE__);
    cmd.AddValue("topology", "topology JSON file", topologyFile);
    cmd.AddValue("mode", "unicast, multicast, aggregation, both, ring or tree", modeName);
    cmd.AddValue("modelBytes", "model size S in bytes, in [4096, 1e12]", modelBytes);
    cmd.Parse(argc, argv);

    // A bad input (option or file) is one message on stderr and exit status 1.
    return CommandLineValues::RunProgram(program, {{"mode", "--mode"}}, [&]() {
        if (!(modelBytes >= 4096 && modelBytes <= 1e12))
        {
            throw WanInputError(program, "--modelBytes", "must lie in [4096, 1e12]");
        }
        WanTopology topology = WanTopology::LoadFile(topologyFile);
        const uint32_t n = topology.GetNCities();
        CapabilityMode mode = CommandLineValues::ParseMode(program, "--mode", modeName);
        TrainingHelper::CheckMode(topology, mode); // can the topology's routers do it?
        // Every clique carries its exchange algorithm: here all of them the one mode.
        const CliqueSchedule schedule =
            (n == 9 ? CliqueSchedule::LatinTriples(n) : CliqueSchedule::AllReduce(n))
                .WithMode(mode);

        // Nodes, links, addresses and routes. An in-line FPGA's ports are router devices
        // (the access port; every port in tree mode): placed before the links are built, and
        // told what to sum in each round after.
        WanTopologyHelper scenario(topology);
        AggregatorHelper aggregators;
        if (UsesAggregation(mode))
        {
            aggregators.Install(scenario, AggregatorHelper::GetPortsFor(schedule));
        }
        scenario.Install();
        if (UsesAggregation(mode))
        {
            aggregators.SetSchedule(scenario, schedule, 1); // job 1: the islands' JobId
        }

        // Multicast modes: a source tree per (round, clique, source). One application per island.
        TrainingHelper training(scenario, schedule);
        PimMulticastHelper pim(scenario);
        if (UsesMulticast(mode))
        {
            pim.InstallSchedule(schedule);
            training.SetMulticast(pim);
        }
        training.SetAttribute("Rounds", UintegerValue(rounds));
        training.SetAttribute("ModelBytes", UintegerValue(static_cast<uint64_t>(modelBytes)));
        training.SetAttribute("LocalSteps", UintegerValue(localSteps));
        training.SetAttribute("StepTime", TimeValue(stepTime));
        ApplicationContainer apps = training.Install();
        training.EnableRoundTimes(apps); // from the RoundStarted and RoundFinished traces

        Simulator::Run(); // the applications stop after their last round

        // The schedule model's round time (doc/schedule-model.rst, "Time") beside the simulated.
        const double computeS = localSteps * stepTime.GetSeconds(); // tau_c
        ScheduleMetrics metrics(topology, {modelBytes, computeS});
        std::cout << topology.GetName() << ", mode " << modeName << ", S = " << modelBytes
                  << " bytes, tau_c = " << computeS << " s" << std::endl;
        for (uint32_t r = 0; r < rounds; ++r)
        {
            const CliqueSchedule::Round& cliques = schedule.GetRound(r % schedule.GetNRounds());
            for (uint32_t c = 0; c < cliques.size(); ++c)
            {
                std::cout << "  round " << r << " clique {";
                for (uint32_t island : cliques[c])
                {
                    std::cout << " " << topology.GetCity(island).id;
                }
                std::cout << " }: " << training.GetCliqueRoundTime(r, c).GetSeconds() << " s"
                          << std::endl;
            }
            std::cout << "  round " << r << ": simulated " << training.GetRoundTime(r).GetSeconds()
                      << " s, schedule model " << metrics.GetRoundCost(cliques, mode).roundS << " s"
                      << std::endl;
        }
        Simulator::Destroy();
        return 0;
    });
}
