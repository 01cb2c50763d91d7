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
 *   --mode: how a clique exchanges (MODEL.md's capability modes)
 *     unicast      a copy to each other member
 *     multicast    one copy to the clique's group (232.1.0.0/16); the routers replicate it
 *                  along the source tree (PimMulticastHelper); repairs by unicast
 *     aggregation  unicast copies; the in-line FPGA on each router port facing an island
 *                  (AggregatorNetDevice, --fpga* knobs) sums them into one aggregate per chunk
 *     both         multicast copies, summed by each receiver's FPGA
 *
 * The results JSON holds the configuration, per-round times (with MODEL.md's T_comm), bytes per
 * directed link (replication visible) and per island, the FPGA counters per city, the
 * verification of every clique average against a shadow copy, loss and consensus over simulated
 * time, and the colocated reference.
 *
 * Usage: wan-training-simulate --topology=FILE [--schedule=FILE | --scheduleKind=KIND]
 *          [--mode=unicast|multicast|aggregation|both] [--modelBytes=N] [--rounds=N]
 *          [--seed=N] [--loss=P] [--out=FILE.json] [--pcap=DIR] ...   (--help lists every knob)
 * Exit status: 0 every round completed and verified, 1 input error, 2 verification failed.
 */

#include "aggregator-helper.h"
#include "aggregator-net-device.h"
#include "clique-schedule.h"
#include "command-line-values.h"
#include "link-load-model.h"
#include "pim-multicast-helper.h"
#include "training-helper.h"
#include "training-island-application.h"
#include "training-results.h"
#include "wan-input-error.h"
#include "wan-topology-helper.h"
#include "wan-topology.h"

#include "ns3/command-line.h"
#include "ns3/data-rate.h"
#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/nstime.h"
#include "ns3/pcap-file-wrapper.h"
#include "ns3/point-to-point-net-device.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/simulator.h"
#include "ns3/trace-helper.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

using namespace ns3;

NS_LOG_COMPONENT_DEFINE("WanTrainingSimulate");

namespace
{

/** The program name used in error messages. */
const char* const PROGRAM = "wan-training-simulate";

/**
 * @param name a directed link name ("nyc->chi", "nyc:up")
 * @return the pcap file name ("nyc-chi.pcap", "nyc-up.pcap")
 */
std::string
PcapFileName(std::string name)
{
    size_t arrow = name.find("->");
    if (arrow != std::string::npos)
    {
        name.replace(arrow, 2, "-");
    }
    std::replace(name.begin(), name.end(), ':', '-');
    return name + ".pcap";
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
    std::string topologyFile;
    bool optionalLinks = false;
    std::string scheduleFile;
    std::string scheduleKind = "latin";
    std::string cliqueSizeText = "3";
    std::string modeText = "unicast";
    std::string modelBytesText = "100000000";
    std::string chunkBytesText = "0";
    std::string parameterCountText = "1024";
    std::string roundsText = "2";
    std::string localStepsText = "10";
    std::string stepTimeText = "10ms";
    std::string learningRateText = "0.05";
    std::string heterogeneityText = "1";
    std::string seedText = "1";
    std::string lossText = "0";
    std::string streamRateText = "0";
    std::string nackTimeoutText = "5ms";
    std::string groupRange = PimMulticastHelper::DEFAULT_GROUP_RANGE;
    std::string fpgaSlotsText = "65536";
    std::string fpgaTimeoutText = "500ms";
    std::string fpgaDelayText = "500ns";
    std::string fpgaLineRateText = "1000";
    std::string outFile;
    std::string pcapDir;
    std::string pcapSnaplenText = "65535";

    CommandLine cmd(__FILE__);
    cmd.Usage("Simulate training islands that average real parameters in cliques over a WAN "
              "(UDP chunks, paced at the bottleneck share, NACK repair; unicast, multicast along "
              "PIM source trees, in-line FPGA aggregation, or both) and write a results "
              "JSON.\nExit status: 0 every round completed and verified, 1 input error, 2 "
              "verification failed.");
    cmd.AddValue("topology", "topology JSON file (required)", topologyFile);
    cmd.AddValue("optionalLinks", "include the topology's optional_links", optionalLinks);
    cmd.AddValue("schedule", "clique schedule JSON file (overrides --scheduleKind)", scheduleFile);
    cmd.AddValue("scheduleKind",
                 "generated schedule: allreduce, pairs, latin (nine islands) or regional",
                 scheduleKind);
    cmd.AddValue("cliqueSize", "target clique size of --scheduleKind=regional", cliqueSizeText);
    cmd.AddValue("mode", "capability mode: unicast, multicast, aggregation or both", modeText);
    cmd.AddValue("modelBytes", "simulated model size S in bytes (e.g. 1000000000)", modelBytesText);
    cmd.AddValue("chunkBytes",
                 "model bytes per chunk, a multiple of 4; 0 fills the path MTU",
                 chunkBytesText);
    cmd.AddValue("parameterCount", "length of the real parameter vector", parameterCountText);
    cmd.AddValue("rounds", "rounds to run", roundsText);
    cmd.AddValue("localSteps", "local gradient steps per round", localStepsText);
    cmd.AddValue("stepTime", "compute time of one local step (s, ms, us, ns)", stepTimeText);
    cmd.AddValue("learningRate", "gradient step size, in (0, 1)", learningRateText);
    cmd.AddValue("heterogeneity", "spread of the islands' objective targets", heterogeneityText);
    cmd.AddValue("seed", "seed of the random streams and the objectives", seedText);
    cmd.AddValue("loss", "packet error rate on every WAN link, in [0, 0.5]", lossText);
    cmd.AddValue("streamRateGbps",
                 "pacing rate of every stream in Gbps; 0 uses the bottleneck share",
                 streamRateText);
    cmd.AddValue("nackTimeout", "stall time before a NACK (s, ms, us, ns)", nackTimeoutText);
    cmd.AddValue("groupRange",
                 "multicast and both modes: the group range, a network inside 224.0.0.0/4",
                 groupRange);
    cmd.AddValue("fpgaSlots",
                 "aggregation and both modes: chunks each FPGA sums at once (0: every "
                 "contribution passes through)",
                 fpgaSlotsText);
    cmd.AddValue("fpgaTimeout",
                 "aggregation and both modes: an incomplete FPGA slot leaves as a partial "
                 "aggregate this long after it opened (s, ms, us, ns)",
                 fpgaTimeoutText);
    cmd.AddValue("fpgaDelay",
                 "aggregation and both modes: the FPGA pipeline's processing delay (s, ms, us, ns)",
                 fpgaDelayText);
    cmd.AddValue("fpgaLineRateGbps",
                 "aggregation and both modes: the FPGA pipeline's throughput in Gbps",
                 fpgaLineRateText);
    cmd.AddValue("out", "write the results JSON to this file (none if empty)", outFile);
    cmd.AddValue("pcap", "write one pcap per device into this directory (none if empty)", pcapDir);
    cmd.AddValue("pcapSnaplen",
                 "bytes of each frame kept in the pcap files, in [70, 65535] (70: headers only)",
                 pcapSnaplenText);
    cmd.Parse(argc, argv);

    // Validate every value before building anything.
    if (topologyFile.empty())
    {
        throw WanInputError(PROGRAM, "--topology", "is required (a topology JSON file)");
    }
    WanTopology topology = WanTopology::LoadFile(topologyFile, optionalLinks);
    const uint32_t n = topology.GetNCities();
    if (n > IslandSyncHeader::MAX_ISLANDS)
    {
        throw WanInputError(topologyFile,
                            "$.cities",
                            "at most " + std::to_string(IslandSyncHeader::MAX_ISLANDS) +
                                " islands are supported (got " + std::to_string(n) + ")");
    }
    CapabilityMode mode = CommandLineValues::ParseMode(PROGRAM, "--mode", modeText);
    if (mode == CapabilityMode::RING || mode == CapabilityMode::TREE)
    {
        throw WanInputError(PROGRAM,
                            "--mode",
                            "mode '" + modeText +
                                "' is not simulated (simulated: unicast, multicast, aggregation, "
                                "both)");
    }
    const bool multicast = mode == CapabilityMode::MULTICAST || mode == CapabilityMode::BOTH;
    const bool aggregated = mode == CapabilityMode::AGGREGATION || mode == CapabilityMode::BOTH;
    if (multicast && !topology.HasMulticast())
    {
        throw WanInputError(PROGRAM,
                            "--mode",
                            "mode '" + modeText + "' needs multicast, but topology '" +
                                topology.GetName() + "' has capabilities.multicast false");
    }
    if (aggregated && !topology.HasAggregation())
    {
        throw WanInputError(PROGRAM,
                            "--mode",
                            "mode '" + modeText + "' needs in-line aggregation, but topology '" +
                                topology.GetName() + "' has capabilities.aggregation false");
    }
    uint64_t modelBytes = CommandLineValues::ParseUnsigned(PROGRAM,
                                                           "--modelBytes",
                                                           modelBytesText,
                                                           1,
                                                           uint64_t{1} << 50);
    uint32_t parameterCount =
        static_cast<uint32_t>(CommandLineValues::ParseUnsigned(PROGRAM,
                                                               "--parameterCount",
                                                               parameterCountText,
                                                               1,
                                                               uint32_t{1} << 26));
    if (uint64_t{IslandSyncHeader::VALUE_BYTES} * parameterCount > modelBytes)
    {
        throw WanInputError(PROGRAM,
                            "--parameterCount",
                            "4 bytes x " + std::to_string(parameterCount) +
                                " values exceed --modelBytes=" + std::to_string(modelBytes));
    }
    uint32_t rounds = static_cast<uint32_t>(
        CommandLineValues::ParseUnsigned(PROGRAM, "--rounds", roundsText, 1, uint32_t{1} << 20));
    uint32_t localSteps = static_cast<uint32_t>(
        CommandLineValues::ParseUnsigned(PROGRAM, "--localSteps", localStepsText, 0, 1000000));
    Time stepTime = CommandLineValues::ParseDuration(PROGRAM, "--stepTime", stepTimeText, true);
    double learningRate = CommandLineValues::ParseNumberInRange(PROGRAM,
                                                                "--learningRate",
                                                                learningRateText,
                                                                0,
                                                                1,
                                                                true);
    double heterogeneity = CommandLineValues::ParseNumberInRange(PROGRAM,
                                                                 "--heterogeneity",
                                                                 heterogeneityText,
                                                                 0,
                                                                 1e6,
                                                                 false);
    uint64_t seed = CommandLineValues::ParseUnsigned(PROGRAM,
                                                     "--seed",
                                                     seedText,
                                                     1,
                                                     std::numeric_limits<uint32_t>::max());
    double loss = CommandLineValues::ParseNumberInRange(PROGRAM, "--loss", lossText, 0, 0.5, false);
    double streamRateGbps = CommandLineValues::ParseNumberInRange(PROGRAM,
                                                                  "--streamRateGbps",
                                                                  streamRateText,
                                                                  0,
                                                                  1e4,
                                                                  false);
    Time nackTimeout =
        CommandLineValues::ParseDuration(PROGRAM, "--nackTimeout", nackTimeoutText, false);
    uint32_t fpgaSlots = static_cast<uint32_t>(
        CommandLineValues::ParseUnsigned(PROGRAM,
                                         "--fpgaSlots",
                                         fpgaSlotsText,
                                         0,
                                         std::numeric_limits<uint32_t>::max()));
    Time fpgaTimeout =
        CommandLineValues::ParseDuration(PROGRAM, "--fpgaTimeout", fpgaTimeoutText, false);
    Time fpgaDelay = CommandLineValues::ParseDuration(PROGRAM, "--fpgaDelay", fpgaDelayText, true);
    double fpgaLineRateGbps = CommandLineValues::ParseNumberInRange(PROGRAM,
                                                                    "--fpgaLineRateGbps",
                                                                    fpgaLineRateText,
                                                                    1e-3,
                                                                    1e6,
                                                                    false);
    uint32_t pcapSnaplen = static_cast<uint32_t>(
        CommandLineValues::ParseUnsigned(PROGRAM, "--pcapSnaplen", pcapSnaplenText, 70, 65535));

    CliqueSchedule schedule = CliqueSchedule::AllReduce(n);
    std::string scheduleName;
    if (!scheduleFile.empty())
    {
        schedule = CliqueSchedule::LoadFile(scheduleFile, topology);
        scheduleName = scheduleFile;
    }
    else if (scheduleKind == "allreduce")
    {
        scheduleName = "allreduce";
    }
    else if (scheduleKind == "pairs")
    {
        if (n < 2)
        {
            throw WanInputError(PROGRAM, "--scheduleKind", "pairs needs at least two islands");
        }
        schedule = CliqueSchedule::RoundRobinPairs(n);
        scheduleName = "pairs";
    }
    else if (scheduleKind == "latin")
    {
        if (n != 9)
        {
            throw WanInputError(PROGRAM,
                                "--scheduleKind",
                                "latin needs nine islands (the topology has " + std::to_string(n) +
                                    ")");
        }
        schedule = CliqueSchedule::LatinTriples(n);
        scheduleName = "latin";
    }
    else if (scheduleKind == "regional")
    {
        uint32_t cliqueSize = static_cast<uint32_t>(
            CommandLineValues::ParseUnsigned(PROGRAM, "--cliqueSize", cliqueSizeText, 1, n));
        schedule = CliqueSchedule::Regional(topology, cliqueSize);
        scheduleName = "regional-" + std::to_string(cliqueSize);
    }
    else
    {
        throw WanInputError(PROGRAM,
                            "--scheduleKind",
                            "unknown kind '" + scheduleKind +
                                "' (known: allreduce, pairs, latin, regional)");
    }

    // The chunk size must fit the path MTU of every clique that exchanges.
    uint32_t chunkBytes =
        static_cast<uint32_t>(CommandLineValues::ParseUnsigned(PROGRAM,
                                                               "--chunkBytes",
                                                               chunkBytesText,
                                                               0,
                                                               WanTopology::MAX_MTU_BYTES));
    const uint32_t overhead =
        TrainingIslandApplication::IP_UDP_HEADER_BYTES + IslandSyncHeader::FIXED_SIZE;
    if (chunkBytes % IslandSyncHeader::VALUE_BYTES != 0)
    {
        throw WanInputError(PROGRAM,
                            "--chunkBytes",
                            "must be a multiple of 4 (got " + std::to_string(chunkBytes) + ")");
    }
    for (const auto& round : schedule.GetRounds())
    {
        for (const auto& clique : round)
        {
            for (uint32_t a : clique)
            {
                for (uint32_t b : clique)
                {
                    if (a != b && chunkBytes + overhead > topology.GetPathMtuBytes(a, b))
                    {
                        throw WanInputError(
                            PROGRAM,
                            "--chunkBytes",
                            std::to_string(chunkBytes) + " bytes + " + std::to_string(overhead) +
                                " header bytes exceed the path MTU " +
                                std::to_string(topology.GetPathMtuBytes(a, b)) + " of " +
                                topology.GetCity(a).id + "->" + topology.GetCity(b).id);
                    }
                }
            }
        }
    }
    std::ofstream probe;
    if (!outFile.empty())
    {
        CommandLineValues::OpenOutput(PROGRAM, "--out", outFile, probe);
        probe.close();
    }
    if (!pcapDir.empty())
    {
        std::error_code error;
        std::filesystem::create_directories(pcapDir, error);
        if (error || !std::filesystem::is_directory(pcapDir))
        {
            throw WanInputError(PROGRAM, "--pcap", "cannot create directory '" + pcapDir + "'");
        }
    }

    RngSeedManager::SetSeed(static_cast<uint32_t>(seed));
    RngSeedManager::SetRun(1);

    const uint16_t jobId = 1;
    WanTopologyHelper scenario(topology);
    AggregatorHelper aggregators;
    if (aggregated)
    {
        // The FPGA is the router's access device itself: placed before the links are built.
        aggregators.SetAttribute("SlotCount", UintegerValue(fpgaSlots));
        aggregators.SetAttribute("Timeout", TimeValue(fpgaTimeout));
        aggregators.SetAttribute("ProcessingDelay", TimeValue(fpgaDelay));
        aggregators.SetAttribute(
            "LineRate",
            DataRateValue(DataRate(static_cast<uint64_t>(std::llround(fpgaLineRateGbps * 1e9)))));
        aggregators.Install(scenario);
    }
    scenario.Install();
    if (aggregated)
    {
        aggregators.SetSchedule(scenario, schedule, jobId);
    }
    PimMulticastHelper pim(scenario);
    if (multicast)
    {
        try
        {
            pim.SetGroupRange(groupRange);
            pim.InstallSchedule(schedule);
        }
        catch (const WanInputError& error)
        {
            throw WanInputError(PROGRAM, "--groupRange", error.GetReason());
        }
    }
    if (loss > 0)
    {
        TrainingHelper::SetWanPacketErrorRate(scenario, loss, 0);
    }
    TrainingHelper training(scenario, schedule);
    training.SetMode(mode);
    if (multicast)
    {
        training.SetMulticast(pim);
    }
    training.SetAttribute("JobId", UintegerValue(jobId));
    training.SetAttribute("Rounds", UintegerValue(rounds));
    training.SetAttribute("ModelBytes", UintegerValue(modelBytes));
    training.SetAttribute("ChunkBytes", UintegerValue(chunkBytes));
    training.SetAttribute("ParameterCount", UintegerValue(parameterCount));
    training.SetAttribute("LocalSteps", UintegerValue(localSteps));
    training.SetAttribute("StepTime", TimeValue(stepTime));
    training.SetAttribute("LearningRate", DoubleValue(learningRate));
    training.SetAttribute("Heterogeneity", DoubleValue(heterogeneity));
    training.SetAttribute("ObjectiveSeed", UintegerValue(seed));
    training.SetAttribute("StreamRate",
                          DataRateValue(DataRate(static_cast<uint64_t>(streamRateGbps * 1e9))));
    training.SetAttribute("NackTimeout", TimeValue(nackTimeout));
    ApplicationContainer apps = training.Install();
    TrainingResults results(scenario, schedule, apps);

    if (!pcapDir.empty())
    {
        // One capture per directed link on its transmitting device, hooked as
        // PointToPointHelper::EnablePcap does (PromiscSniffer), cut to pcapSnaplen bytes.
        PcapHelper pcap;
        for (uint32_t d = 0; d < topology.GetNDirectedLinks(); ++d)
        {
            std::string file =
                (std::filesystem::path(pcapDir) / PcapFileName(topology.GetDirectedLinkName(d)))
                    .string();
            Ptr<PcapFileWrapper> wrapper =
                pcap.CreateFile(file, std::ios::out, PcapHelper::DLT_PPP, pcapSnaplen);
            pcap.HookDefaultSink<PointToPointNetDevice>(
                DynamicCast<PointToPointNetDevice>(scenario.GetTxDevice(d)),
                "PromiscSniffer",
                wrapper);
        }
    }

    nlohmann::json config = {
        {"program", PROGRAM},
        {"topology", topologyFile},
        {"topology_name", topology.GetName()},
        {"optional_links", optionalLinks},
        {"schedule", scheduleName},
        {"schedule_rounds", nlohmann::json::parse(schedule.ToJson(topology))["rounds"]},
        {"mode", CapabilityModeToString(mode)},
        {"model_bytes", modelBytes},
        {"chunk_bytes", chunkBytes},
        {"parameter_count", parameterCount},
        {"rounds", rounds},
        {"local_steps", localSteps},
        {"step_time_s", stepTime.GetSeconds()},
        {"learning_rate", learningRate},
        {"heterogeneity", heterogeneity},
        {"seed", seed},
        {"wan_packet_error_rate", loss},
        {"stream_rate_gbps", streamRateGbps},
        {"nack_timeout_s", nackTimeout.GetSeconds()},
        {"port", TrainingIslandApplication::DEFAULT_PORT},
        {"job_id", jobId},
        {"pcap", pcapDir},
        {"pcap_snaplen", pcapSnaplen},
    };
    if (multicast)
    {
        config["group_range"] = groupRange;
        config["multicast_ttl"] = pim.GetMulticastTtl();
    }
    if (aggregated)
    {
        config["fpga"] = {{"slot_count", fpgaSlots},
                          {"timeout_s", fpgaTimeout.GetSeconds()},
                          {"processing_delay_s", fpgaDelay.GetSeconds()},
                          {"line_rate_gbps", fpgaLineRateGbps}};
    }
    results.SetConfigJson(config.dump());

    Simulator::Run();

    if (!outFile.empty())
    {
        results.WriteFile(outFile);
    }
    uint64_t repairs = 0;
    for (uint32_t i = 0; i < n; ++i)
    {
        repairs += results.GetIslandCounters(i).repairs;
    }
    double endS = Simulator::Now().GetSeconds();
    bool passed = results.IsComplete() && results.GetRoundsVerified() == rounds;
    std::cout << PROGRAM << ": topology '" << topology.GetName() << "', schedule " << scheduleName
              << " (" << schedule.GetNRounds() << " rounds per period), mode "
              << CapabilityModeToString(mode) << ", S = " << modelBytes << " bytes\n"
              << "  rounds completed: " << (results.IsComplete() ? rounds : 0) << "/" << rounds
              << ", simulated time " << endS << " s\n"
              << "  verification: " << results.GetRoundsVerified() << " rounds, max abs error "
              << results.GetMaxAbsError() << ", max rel error " << results.GetMaxRelError() << "\n"
              << "  repairs (chunks resent): " << repairs << "\n"
              << "  loss: " << results.GetSamples().front().loss << " -> "
              << results.GetSamples().back().loss << ", consensus "
              << results.GetSamples().back().consensus << "\n";
    if (!outFile.empty())
    {
        std::cout << "  results: " << outFile << "\n";
    }
    if (aggregated)
    {
        uint64_t aggregates = 0;
        uint64_t timeouts = 0;
        uint64_t passThroughs = 0;
        uint32_t highWater = 0;
        for (uint32_t i = 0; i < n; ++i)
        {
            Ptr<AggregatorNetDevice> fpga = scenario.GetAggregator(i);
            aggregates += fpga->GetAggregatesOut();
            timeouts += fpga->GetTimeouts();
            passThroughs += fpga->GetPassThroughs();
            highWater = std::max(highWater, fpga->GetSlotHighWaterMark());
        }
        std::cout << "  FPGAs: " << aggregates << " aggregates (" << timeouts << " partial), "
                  << passThroughs << " pass-throughs, at most " << highWater << " slots in use\n";
    }
    for (uint32_t i = 0; i < n; ++i)
    {
        const std::string& failure =
            DynamicCast<TrainingIslandApplication>(apps.Get(i))->GetFailure();
        if (!failure.empty())
        {
            std::cout << "  gave up: " << failure << "\n";
        }
    }
    Simulator::Destroy();
    if (!passed)
    {
        std::cerr << PROGRAM << ": verification failed (see the results JSON)" << std::endl;
        return 2;
    }
    return 0;
}

} // namespace

int
main(int argc, char** argv)
{
    return CommandLineValues::RunProgram([argc, argv]() { return Run(argc, argv); });
}
