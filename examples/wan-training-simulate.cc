/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

/*
 * Training islands synchronizing real parameters over a WAN, packet by packet.
 *
 *   nyc-island  chi-island  lax-island  ...   one TrainingIslandApplication per city:
 *       |           |           |             LocalSteps x StepTime of real gradient steps,
 *      nyc ------- chi ------- lax            then the clique exchange of the round
 *       |  \___________________/  \           (UDP chunks of IslandSyncHeader + float32
 *      lon --- ams            tyo --- sin     values + zero padding, ModelBytes per
 *       \      |                              contribution, paced at the bottleneck share,
 *        fra --+--- prg                       NACK repair), then the clique average
 *
 *   round r: schedule round r mod P, e.g. Latin triples
 *     r even: {nyc chi lax} {lon ams fra} {prg tyo sin}
 *     r odd:  {nyc lon prg} {chi ams tyo} {lax fra sin}
 *
 *   how a clique exchanges (the capability modes of doc/schedule-model.rst): the algorithm a
 *   schedule file gives it ({"members": [...], "algorithm": A}; cliques of one round may differ,
 *   doc/wan-training.rst "Mixed rounds"), or --mode, forced on every clique (a schedule of plain
 *   lists without --mode: unicast)
 *     unicast      a copy to each other member
 *     multicast    one copy to the clique's group (232.1.0.0/16); the routers replicate it
 *                  along the source tree (PimMulticastHelper); repairs by unicast
 *     aggregation  unicast copies; the in-line FPGA on each router port facing an island
 *                  (AggregatorNetDevice, --fpga* knobs) sums them into one aggregate per chunk
 *     both         multicast copies, summed by each receiver's FPGA
 *     ring         the unicast ring all-reduce baseline (reduce-scatter + all-gather)
 *     tree         in-network reduction: an FPGA on every router of the clique's in-tree sums
 *                  the contributions toward a root, which multicasts the total once
 *
 * The results JSON holds the configuration, per-round times (with the model's T_comm), bytes per
 * directed link (replication visible) and per island, the FPGA counters per city, the
 * verification of every clique average against a shadow copy, loss and consensus over simulated
 * time, and the colocated reference.
 *
 * Faults (doc/fault-injection.rst): --loss=P, --linkDown=A-B@SECONDS[:UPSECONDS][,...],
 * --crash=CITY@ROUND[,...], --straggler=CITY:FACTOR[,...], --duplicate=P, --reorder=P, FPGA slot
 * exhaustion with a small --fpgaSlots, and the --timeLimit guard.
 *
 * Usage: wan-training-simulate --topology=FILE [--schedule=FILE | --scheduleKind=KIND]
 *          [--mode=unicast|multicast|aggregation|both|ring|tree] [--modelBytes=N]
 *          [--modelParameters=P] [--format=fp32|bf16|int8] [--overlap] [--rounds=N]
 *          [--seed=N] [--loss=P] [--out=FILE.json] [--pcap=DIR] [--quiet] ...
 *                                                                     (--help lists every knob)
 * stderr: progress reports every --progressInterval seconds (TrainingProgress) unless --quiet.
 * Exit status: 0 every round completed (by every island that did not crash) and verified, 1
 * input error, 2 an average or a clique's contributors failed verification, 3 every completed
 * round verified but some rounds could not complete (the results JSON says why).
 */

#include "aggregator-net-device.h"
#include "capability-set.h"
#include "clique-schedule.h"
#include "command-line-values.h"
#include "fault-plan.h"
#include "link-load-model.h"
#include "pim-multicast-helper.h"
#include "schedule-options.h"
#include "training-island-application.h"
#include "training-options.h"
#include "training-results.h"
#include "training-run-summary.h"
#include "training-run.h"
#include "wan-input-error.h"
#include "wan-topology-helper.h"
#include "wan-topology.h"

#include "ns3/command-line.h"
#include "ns3/data-rate.h"
#include "ns3/log.h"
#include "ns3/nstime.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>

using namespace ns3;

NS_LOG_COMPONENT_DEFINE("WanTrainingSimulate");

namespace
{

/** The program name used in error messages. */
const char* const PROGRAM = "wan-training-simulate";

/**
 * @param gbps a rate in Gbps
 * @return the data rate, rounded to bits per second
 */
DataRate
FromGbps(double gbps)
{
    return DataRate(static_cast<uint64_t>(std::llround(gbps * 1e9)));
}

/**
 * @brief The program proper.
 * @param argc argument count
 * @param argv arguments
 * @return the exit status
 * @throws WanInputError for a bad topology, schedule or command-line value
 */
int
Run(int argc, char** argv)
{
    TrainingOptions options; // its defaults: 2 rounds of 1024 parameters, 10 steps of 10 ms
    ScheduleOptions schedules;
    bool optionalLinks = false;
    std::string chunkBytesText = "0";
    std::string streamRateText = "0";
    std::string nackTimeoutText = "5ms";
    std::string repairCopiesText = "2";
    std::string fecBlockText = "0";
    std::string groupRange = PimMulticastHelper::DEFAULT_GROUP_RANGE;
    std::string fpgaSlotsText = "65536";
    std::string fpgaTimeoutText = "500ms";
    std::string fpgaDelayText = "500ns";
    std::string fpgaLineRateText = "1000";
    std::string outFile;
    std::string pcapDir;

    CommandLine cmd(__FILE__);
    cmd.Usage("Simulate training islands that average real parameters in cliques over a WAN "
              "(UDP chunks, paced at the bottleneck share, NACK repair; unicast, multicast along "
              "PIM source trees, in-line FPGA aggregation, both, the ring, or in-network "
              "reduction on every router's FPGA) and write a results "
              "JSON.\nExit status: 0 every round completed and verified, 1 input error, 2 "
              "verification failed, 3 some rounds could not complete (faults; every completed "
              "round verified).");
    options.AddValues(cmd);
    options.AddMode(cmd);
    schedules.AddValues(cmd);
    cmd.AddValue("optionalLinks", "include the topology's optional_links", optionalLinks);
    cmd.AddValue("chunkBytes",
                 "model bytes per chunk, a multiple of 4; 0 fills the path MTU",
                 chunkBytesText);
    cmd.AddValue("streamRateGbps",
                 "pacing rate of every stream in Gbps; 0 uses the bottleneck share",
                 streamRateText);
    cmd.AddValue("nackTimeout", "stall time before a NACK (s, ms, us, ns)", nackTimeoutText);
    cmd.AddValue("repairCopies",
                 "copies of every repair and NACK, back to back, in [1, 8] (1: one)",
                 repairCopiesText);
    cmd.AddValue("fecBlock",
                 "forward error correction in unicast and multicast cliques: a PARITY after "
                 "every block of this many chunks of a stream, in [0, 65535] (0: none)",
                 fecBlockText);
    cmd.AddValue("groupRange",
                 "multicast and both modes: the group range, a network inside 224.0.0.0/4",
                 groupRange);
    cmd.AddValue("fpgaSlots",
                 "aggregation and both modes: chunks each FPGA sums at once (0: every "
                 "contribution passes through)",
                 fpgaSlotsText);
    cmd.AddValue("fpgaTimeout",
                 "aggregation, both and tree modes: the longest an incomplete FPGA slot waits "
                 "before it leaves as a partial aggregate (s, ms, us, ns); the wait follows the "
                 "measured arrival skew up to it",
                 fpgaTimeoutText);
    cmd.AddValue("fpgaDelay",
                 "aggregation and both modes: the FPGA pipeline's processing delay (s, ms, us, ns)",
                 fpgaDelayText);
    cmd.AddValue("fpgaLineRateGbps",
                 "aggregation and both modes: the FPGA pipeline's throughput in Gbps",
                 fpgaLineRateText);
    cmd.AddValue("out", "write the results JSON to this file (none if empty)", outFile);
    cmd.AddValue("pcap", "write one pcap per device into this directory (none if empty)", pcapDir);
    CommandLineValues::SetSchedulerDefault();
    cmd.Parse(argc, argv);

    // Parse every value; TrainingRun checks them together before building anything.
    if (options.topology.empty())
    {
        throw WanInputError(PROGRAM, "--topology", "is required (a topology JSON file)");
    }
    WanTopology topology = WanTopology::LoadFile(options.topology, optionalLinks);
    const uint32_t n = topology.GetNCities();
    TrainingRun::Config config;
    options.Parse(PROGRAM, config);
    config.streamRate = FromGbps(CommandLineValues::ParseNumberInRange(PROGRAM,
                                                                       "--streamRateGbps",
                                                                       streamRateText,
                                                                       0,
                                                                       1e4,
                                                                       false));
    config.nackTimeout =
        CommandLineValues::ParseDuration(PROGRAM, "--nackTimeout", nackTimeoutText, false);
    config.repairCopies = static_cast<uint32_t>(
        CommandLineValues::ParseUnsigned(PROGRAM, "--repairCopies", repairCopiesText, 1, 8));
    config.fecBlock = static_cast<uint32_t>(
        CommandLineValues::ParseUnsigned(PROGRAM, "--fecBlock", fecBlockText, 0, 65535));
    config.groupRange = groupRange;
    config.fpgaSlots = static_cast<uint32_t>(
        CommandLineValues::ParseUnsigned(PROGRAM,
                                         "--fpgaSlots",
                                         fpgaSlotsText,
                                         0,
                                         std::numeric_limits<uint32_t>::max()));
    config.fpgaTimeout =
        CommandLineValues::ParseDuration(PROGRAM, "--fpgaTimeout", fpgaTimeoutText, false);
    config.fpgaDelay =
        CommandLineValues::ParseDuration(PROGRAM, "--fpgaDelay", fpgaDelayText, true);
    config.fpgaLineRate = FromGbps(CommandLineValues::ParseNumberInRange(PROGRAM,
                                                                         "--fpgaLineRateGbps",
                                                                         fpgaLineRateText,
                                                                         1e-3,
                                                                         1e6,
                                                                         false));

    std::string scheduleName;
    const CliqueSchedule schedule = schedules.MakeSchedule(PROGRAM, topology, &scheduleName);
    if (!config.mode && !schedule.HasAlgorithms())
    {
        config.mode = CapabilityMode::UNICAST; // plain lists without --mode
    }
    if (!config.mode)
    {
        // The schedule's own algorithms: each clique's, checked against the topology by file
        // (a forced --mode is checked by the run, under --mode).
        CapabilitySet::Of(topology).CheckSchedule(schedule.Resolve({}, scheduleName),
                                                  scheduleName,
                                                  "the capabilities of topology '" +
                                                      topology.GetName() + "'");
    }
    config.chunkBytes =
        static_cast<uint32_t>(CommandLineValues::ParseUnsigned(PROGRAM,
                                                               "--chunkBytes",
                                                               chunkBytesText,
                                                               0,
                                                               WanTopology::MAX_MTU_BYTES));
    std::ofstream probe;
    if (!outFile.empty())
    {
        CommandLineValues::OpenOutput(PROGRAM, "--out", outFile, probe);
        probe.close();
    }
    config.pcapDir = pcapDir;
    config.faults = FaultPlan::Parse(topology, config.rounds, options.faults);

    TrainingRun run(topology, schedule, config);
    run.SetFaultLog(&std::cerr, PROGRAM);
    run.Build();
    nlohmann::json configJson = run.GetConfigJson();
    configJson["program"] = PROGRAM;
    configJson["topology"] = options.topology;
    configJson["optional_links"] = optionalLinks;
    configJson["schedule"] = scheduleName;
    TrainingResults& results = run.GetResults();
    results.SetConfigJson(configJson.dump());
    run.Run();

    if (!outFile.empty())
    {
        results.WriteFile(outFile);
    }
    uint64_t repairs = 0;
    for (uint32_t i = 0; i < n; ++i)
    {
        repairs += results.GetIslandCounters(i).repairs;
    }
    const TrainingRunSummary summary = TrainingRunSummary::Parse(results.ToJson(), PROGRAM);
    std::string modeName = run.GetModeName();
    if (!config.mode)
    {
        std::string used;
        for (CapabilityMode algorithm : GetAllCapabilityModes())
        {
            if (run.GetSchedule().UsesAlgorithm(
                    [algorithm](CapabilityMode m) { return m == algorithm; }))
            {
                used += (used.empty() ? "" : ", ") + CapabilityModeToString(algorithm);
            }
        }
        modeName = "per clique (" + used + ")";
    }
    std::cout << PROGRAM << ": topology '" << topology.GetName() << "', schedule " << scheduleName
              << " (" << schedule.GetNRounds() << " rounds per period), mode " << modeName << ", "
              << summary.config.format << ", S = " << config.modelBytes << " bytes\n"
              << "  rounds completed: " << summary.verification.roundsComplete << "/"
              << config.rounds << ", simulated time " << results.GetTrainingTimeS() << " s\n"
              << "  verification: " << summary.verification.roundsVerified
              << " rounds, max abs error " << summary.verification.maxAbsError << ", max rel error "
              << summary.verification.maxRelError << ", max error / bound "
              << summary.verification.maxErrorOverBound << "\n"
              << "  format error (vs exact fp32 averages): max abs "
              << summary.verification.formatError.maxAbs << ", max rel "
              << summary.verification.formatError.maxRel << "\n"
              << "  repairs (chunks resent): " << repairs << "\n"
              << "  loss: " << results.GetSamples().front().loss << " -> "
              << results.GetSamples().back().loss << ", consensus "
              << results.GetSamples().back().consensus << "\n";
    if (!outFile.empty())
    {
        std::cout << "  results: " << outFile << "\n";
    }
    if (run.GetSchedule().UsesAlgorithm(UsesAggregation))
    {
        uint32_t highWater = 0;
        for (uint32_t i = 0; i < n; ++i)
        {
            if (Ptr<InlineFpga> fpga = run.GetScenario().GetFpga(i))
            {
                highWater = std::max(highWater, fpga->GetSlotHighWaterMark());
            }
        }
        std::cout << "  FPGAs: " << summary.summary.fpgaAggregates << " aggregates ("
                  << summary.summary.fpgaPartialAggregates << " partial), "
                  << summary.summary.fpgaPassThroughs << " pass-throughs, at most " << highWater
                  << " slots in use\n";
    }
    const TrainingRunSummary::Faults& faults = summary.faults;
    if (!config.faults.IsEmpty() || faults.exclusions > 0)
    {
        std::cout << "  faults: " << faults.exclusions << " exclusions, " << faults.roundsAbandoned
                  << " rounds abandoned, " << faults.crashedIslands << " islands crashed, "
                  << summary.summary.linkDownDrops << " packets lost on down links, "
                  << summary.summary.reordered << " reordered, " << summary.summary.duplicated
                  << " duplicated" << (results.WasPartitioned() ? ", the WAN was partitioned" : "")
                  << "\n";
    }
    // Every round that did not complete, with the reason (also in the results JSON).
    bool inexact = false;
    for (const TrainingRunSummary::Round& round : summary.rounds)
    {
        for (const TrainingRunSummary::Unfinished& entry : round.unfinished)
        {
            // A completed average that differs from the shadow average is a wrong number.
            inexact = inexact || entry.status == "completed";
            std::cerr << PROGRAM << ": round " << round.round << ", "
                      << (entry.island ? *entry.island : "clique " + std::to_string(*entry.clique))
                      << ": " << entry.status << ": " << entry.reason << "\n";
        }
    }
    if (run.Passed())
    {
        return 0;
    }
    if (inexact || summary.verification.maxErrorOverBound > 1)
    {
        std::cerr << PROGRAM << ": verification failed (see the results JSON)" << std::endl;
        return 2;
    }
    std::cerr << PROGRAM << ": every completed round verified; "
              << config.rounds - summary.verification.roundsComplete
              << " rounds could not complete (see the results JSON)" << std::endl;
    return 3;
}

} // namespace

int
main(int argc, char** argv)
{
    return CommandLineValues::RunProgram(PROGRAM, TrainingOptions::GetFieldOptions(), [=]() {
        return Run(argc, argv);
    });
}
