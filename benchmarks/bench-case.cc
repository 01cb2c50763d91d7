/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "bench-case.h"

#include "clique-schedule.h"
#include "island-timing.h"
#include "plain-ns3-baseline.h"
#include "schedule-metrics.h"
#include "schedule-optimizer.h"
#include "synthetic-topology.h"
#include "traffic-recorder.h"
#include "training-results.h"
#include "training-run-summary.h"
#include "training-run.h"
#include "wan-input-error.h"

#include "ns3/global-value.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/type-id.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <iterator>
#include <random>
#include <set>
#include <sstream>
#include <sys/resource.h>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("WanTrainingBenchCase");

namespace
{

/** The program name error messages start with. */
const std::string PROGRAM = "wan-bench";

/** @return the CPU seconds (user + system) this process has used */
double
CpuSeconds()
{
    struct rusage usage;
    getrusage(RUSAGE_SELF, &usage);
    return usage.ru_utime.tv_sec + usage.ru_utime.tv_usec * 1e-6 + usage.ru_stime.tv_sec +
           usage.ru_stime.tv_usec * 1e-6;
}

/** @return the TypeId name of the simulator's scheduler (the SchedulerType global value) */
std::string
SchedulerName()
{
    TypeIdValue scheduler;
    GlobalValue::GetValueByName("SchedulerType", scheduler);
    return scheduler.Get().GetName();
}

/** @return the resident set size of this process now, MB (VmRSS of /proc/self/status) */
double
CurrentRssMb()
{
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line))
    {
        if (line.rfind("VmRSS:", 0) == 0)
        {
            std::istringstream fields(line.substr(6));
            double kb = 0;
            fields >> kb;
            return kb / 1024;
        }
    }
    return 0;
}

/** Seconds since a steady-clock instant. */
double
SecondsSince(std::chrono::steady_clock::time_point start)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

/**
 * @param value a number
 * @return its shortest text
 */
std::string
NumberText(double value)
{
    std::ostringstream out;
    out << value;
    return out.str();
}

/**
 * @param rounds the rounds of a schedule
 * @return the schedule as ScheduleOptimizer caches it: per round the sorted bit masks of its
 *         cliques of two or more islands
 */
std::vector<std::vector<uint64_t>>
CanonicalMasks(const std::vector<CliqueSchedule::Round>& rounds)
{
    std::vector<std::vector<uint64_t>> masks;
    for (const CliqueSchedule::Round& round : rounds)
    {
        std::vector<uint64_t> r;
        for (const CliqueSchedule::Clique& clique : round)
        {
            if (clique.size() < 2)
            {
                continue;
            }
            uint64_t mask = 0;
            for (uint32_t island : clique)
            {
                mask |= uint64_t{1} << island;
            }
            r.push_back(mask);
        }
        std::sort(r.begin(), r.end());
        masks.push_back(std::move(r));
    }
    return masks;
}

} // namespace

std::vector<std::string>
BenchCase::ToCommandLine(const Arguments& arguments)
{
    std::vector<std::string> args{"--case=" + arguments.kind};
    if (arguments.syntheticIslands > 0)
    {
        args.push_back("--syntheticIslands=" + std::to_string(arguments.syntheticIslands));
    }
    else
    {
        args.push_back("--topology=" + arguments.topologyFile);
    }
    args.push_back("--mode=" + CapabilityModeToString(arguments.mode));
    args.push_back("--modelBytes=" + std::to_string(arguments.modelBytes));
    args.push_back("--computeS=" + NumberText(arguments.computeS));
    args.push_back("--seconds=" + NumberText(arguments.seconds));
    args.push_back("--maxEvaluations=" + std::to_string(arguments.maxEvaluations));
    if (!arguments.oursResult.empty())
    {
        args.push_back("--oursResult=" + arguments.oursResult);
    }
    if (arguments.coarseFrames)
    {
        args.emplace_back("--coarseFrames=1");
    }
    args.push_back("--rounds=" + std::to_string(arguments.rounds));
    args.push_back("--lossRate=" + NumberText(arguments.lossRate));
    return args;
}

WanTopology
BenchCase::MakeCoarseTopology(const std::string& json, const std::string& sourceName)
{
    return WanTopology::Parse(json, sourceName).WithFrameBytes(COARSE_FRAME_BYTES);
}

WanTopology
BenchCase::LoadTopology(const Arguments& arguments)
{
    SyntheticTopology::Options options;
    options.islands = arguments.syntheticIslands;
    options.seed = 1;
    if (!arguments.coarseFrames)
    {
        return arguments.syntheticIslands > 0 ? SyntheticTopology::Generate(options)
                                              : WanTopology::LoadFile(arguments.topologyFile);
    }
    if (arguments.syntheticIslands > 0)
    {
        return MakeCoarseTopology(SyntheticTopology::GenerateJson(options),
                                  "synthetic-" + std::to_string(options.islands) + "-seed-" +
                                      std::to_string(options.seed));
    }
    std::ifstream in(arguments.topologyFile);
    if (!in)
    {
        throw WanInputError(PROGRAM, "--topology", "cannot read '" + arguments.topologyFile + "'");
    }
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    return MakeCoarseTopology(text, arguments.topologyFile);
}

nlohmann::json
BenchCase::Run(const Arguments& arguments)
{
    if (arguments.kind == "ours")
    {
        return RunOurs(arguments);
    }
    if (arguments.kind == "plain")
    {
        return RunPlain(arguments);
    }
    if (arguments.kind == "evaluate")
    {
        return RunEvaluate(arguments);
    }
    if (arguments.kind == "optimize")
    {
        return RunOptimize(arguments);
    }
    if (arguments.kind == "loss")
    {
        return RunLoss(arguments);
    }
    throw WanInputError(PROGRAM,
                        "--case",
                        "unknown case '" + arguments.kind +
                            "' (known: ours, plain, evaluate, optimize, loss)");
}

nlohmann::json
BenchCase::RunOurs(const Arguments& arguments)
{
    auto setupStart = std::chrono::steady_clock::now();
    WanTopology topology = LoadTopology(arguments);
    CliqueSchedule schedule = CliqueSchedule::AllReduce(topology.GetNCities());
    TrainingRun::Config config;
    config.mode = arguments.mode;
    config.rounds = 1;
    config.modelBytes = arguments.modelBytes;
    config.localSteps = 1;
    TrainingRun run(topology, schedule, config);
    run.SetFaultLog(&std::cerr, PROGRAM);
    run.Build();
    TrafficRecorder recorder(run);
    double setupS = SecondsSince(setupStart);
    double rssBeforeRunMb = CurrentRssMb();

    double cpuStart = CpuSeconds();
    run.Run();
    double cpuS = CpuSeconds() - cpuStart;

    const TrainingResults& results = run.GetResults();
    std::vector<uint64_t> links;
    uint64_t hops = 0;
    uint64_t drops = 0;
    uint64_t wireBytes = 0;
    uint64_t linkModelBytes = 0;
    for (uint32_t d = 0; d < topology.GetNDirectedLinks(); ++d)
    {
        const TrainingResults::LinkCounters& counters = results.GetLinkCounters(d);
        links.push_back(counters.packets);
        hops += counters.packets;
        drops += counters.queueDrops + counters.errorDrops;
        wireBytes += counters.bytes;
        linkModelBytes += counters.modelBytes;
    }
    // The round's communication time and the schedule model's, as the results file has them.
    const TrainingRunSummary summary =
        TrainingRunSummary::Parse(results.GetWriter().ToJson(), "the results of the case");
    const TrainingRunSummary::Round& round = summary.rounds.front();
    double wallS = run.GetWallSeconds();
    nlohmann::json result = {
        {"kind", "ours"},
        {"topology", topology.GetName()},
        {"islands", topology.GetNCities()},
        {"mode", CapabilityModeToString(arguments.mode)},
        {"model_bytes", arguments.modelBytes},
        {"wall_s", wallS},
        {"cpu_s", cpuS},
        {"setup_s", setupS},
        {"simulated_s", recorder.GetLastRoundEndSeconds()},
        {"end_s", Simulator::Now().GetSeconds()},
        {"packet_hops", hops},
        {"events", Simulator::GetEventCount()},
        {"scheduler", SchedulerName()},
        {"packet_hops_per_wall_s", wallS > 0 ? hops / wallS : 0.0},
        {"rss_before_run_mb", rssBeforeRunMb},
        {"drops", drops},
        {"resent_chunks", recorder.GetResentChunks()},
        {"rounds_verified", results.GetRoundsVerified()},
        {"comm_s", round.commS ? nlohmann::json(*round.commS) : nlohmann::json(nullptr)},
        {"predicted_comm_s", round.predictedCommS},
        {"wire_bytes", wireBytes},
        {"link_model_bytes", linkModelBytes},
        {"passed", run.Passed() && round.commS.has_value()},
        {"link_packets", links},
        {"topology_file", arguments.topologyFile},
        {"synthetic_islands", arguments.syntheticIslands},
        {"coarse_frames", arguments.coarseFrames},
        {"mtu_bytes", topology.GetDefaultMtuBytes()},
        {"traffic", PlainNs3Baseline::ToJson(recorder.GetTraffic())},
    };
    return result;
}

nlohmann::json
BenchCase::RunPlain(const Arguments& arguments)
{
    std::ifstream in(arguments.oursResult);
    nlohmann::json ours = nlohmann::json::parse(in, nullptr, false);
    if (!in || ours.is_discarded() || !ours.contains("traffic"))
    {
        throw WanInputError(PROGRAM,
                            "--oursResult",
                            "cannot read an `ours` result from '" + arguments.oursResult + "'");
    }
    Arguments source = arguments;
    source.topologyFile = ours.at("topology_file").get<std::string>();
    source.syntheticIslands = ours.at("synthetic_islands").get<uint32_t>();
    source.coarseFrames = ours.value("coarse_frames", false);
    WanTopology topology = LoadTopology(source);
    CliqueSchedule schedule = CliqueSchedule::AllReduce(topology.GetNCities());
    PlainNs3Baseline::Traffic traffic = PlainNs3Baseline::FromJson(ours.at("traffic"));

    PlainNs3Baseline baseline(topology, schedule, traffic);
    baseline.Build();
    double rssBeforeRunMb = CurrentRssMb();
    double cpuStart = CpuSeconds();
    baseline.Run();
    double cpuS = CpuSeconds() - cpuStart;

    // The same packets on every link: compare with what our run transmitted.
    std::vector<uint64_t> oursLinks = ours.at("link_packets").get<std::vector<uint64_t>>();
    const std::vector<uint64_t>& links = baseline.GetLinkPackets();
    uint64_t hops = 0;
    uint64_t largestDifference = 0;
    for (std::size_t d = 0; d < links.size(); ++d)
    {
        hops += links[d];
        uint64_t a = links[d];
        uint64_t b = d < oursLinks.size() ? oursLinks[d] : 0;
        largestDifference = std::max(largestDifference, a > b ? a - b : b - a);
    }
    double wallS = baseline.GetWallSeconds();
    bool passed = baseline.GetDrops() == 0 &&
                  baseline.GetDeliveredBytes() == baseline.GetExpectedBytes() &&
                  baseline.GetDiscardedCopies() == baseline.GetExpectedDiscardedCopies();
    nlohmann::json result = {
        {"kind", "plain"},
        {"topology", topology.GetName()},
        {"islands", topology.GetNCities()},
        {"mode", ours.at("mode")},
        {"model_bytes", ours.at("model_bytes")},
        {"wall_s", wallS},
        {"cpu_s", cpuS},
        {"setup_s", baseline.GetSetupSeconds()},
        {"simulated_s", baseline.GetSimulatedSeconds()},
        {"end_s", baseline.GetSimulatedSeconds()},
        {"packet_hops", hops},
        {"events", baseline.GetEvents()},
        {"scheduler", SchedulerName()},
        {"packet_hops_per_wall_s", wallS > 0 ? hops / wallS : 0.0},
        {"rss_before_run_mb", rssBeforeRunMb},
        {"drops", baseline.GetDrops()},
        {"flows", traffic.flows.size()},
        {"delivered_bytes", baseline.GetDeliveredBytes()},
        {"expected_bytes", baseline.GetExpectedBytes()},
        {"discarded_copies", baseline.GetDiscardedCopies()},
        {"expected_discarded_copies", baseline.GetExpectedDiscardedCopies()},
        {"largest_link_difference_packets", largestDifference},
        {"passed", passed},
        {"link_packets", links},
    };
    return result;
}

nlohmann::json
BenchCase::RunEvaluate(const Arguments& arguments)
{
    WanTopology topology = LoadTopology(arguments);
    const uint32_t n = topology.GetNCities();
    ScheduleMetrics::Settings settings;
    settings.modelBytes = static_cast<double>(arguments.modelBytes);
    settings.computeS = arguments.computeS;
    ScheduleOptimizer optimizer(topology, settings, arguments.mode, ScheduleOptimizer::Options());

    // Random schedules of period 1 to 4 whose rounds split the islands into 1 to n/2 cliques
    // (islands drawn uniformly), kept only when they mix and are new, so that every timed
    // call computes Xi (the optimizer caches Xi per schedule, and a schedule that does not mix
    // is rejected at once).
    std::mt19937_64 random(1);
    std::set<std::vector<std::vector<uint64_t>>> seen;
    auto draw = [&]() {
        for (;;)
        {
            std::uniform_int_distribution<uint32_t> periodDraw(1, 4);
            std::uniform_int_distribution<uint32_t> cliquesDraw(1, std::max<uint32_t>(1, n / 2));
            std::vector<CliqueSchedule::Round> rounds(periodDraw(random));
            for (CliqueSchedule::Round& round : rounds)
            {
                uint32_t k = cliquesDraw(random);
                std::uniform_int_distribution<uint32_t> cliqueDraw(0, k - 1);
                round.assign(k, CliqueSchedule::Clique());
                for (uint32_t island = 0; island < n; ++island)
                {
                    round[cliqueDraw(random)].push_back(island);
                }
                round.erase(
                    std::remove_if(round.begin(),
                                   round.end(),
                                   [](const CliqueSchedule::Clique& c) { return c.empty(); }),
                    round.end());
            }
            if (!ScheduleMetrics::Mixes(n, rounds) || !seen.insert(CanonicalMasks(rounds)).second)
            {
                continue;
            }
            return CliqueSchedule(n, std::move(rounds));
        }
    };

    const uint32_t batch = 200;
    uint64_t calls = 0;
    double wallS = 0;
    double checksum = 0;
    while (wallS < arguments.seconds)
    {
        std::vector<CliqueSchedule> schedules;
        for (uint32_t b = 0; b < batch; ++b)
        {
            schedules.push_back(draw());
        }
        auto start = std::chrono::steady_clock::now();
        for (const CliqueSchedule& schedule : schedules)
        {
            checksum += optimizer.GetXi(schedule);
        }
        wallS += SecondsSince(start);
        calls += schedules.size();
    }
    return {
        {"kind", "evaluate"},
        {"topology", topology.GetName()},
        {"islands", n},
        {"mode", CapabilityModeToString(arguments.mode)},
        {"model_bytes", arguments.modelBytes},
        {"compute_s", arguments.computeS},
        {"calls", calls},
        {"wall_s", wallS},
        {"calls_per_s", calls / wallS},
        {"mean_xi_s", checksum / calls},
        {"passed", std::isfinite(checksum)},
    };
}

nlohmann::json
BenchCase::RunOptimize(const Arguments& arguments)
{
    WanTopology topology = LoadTopology(arguments);
    ScheduleMetrics::Settings settings;
    settings.modelBytes = static_cast<double>(arguments.modelBytes);
    settings.computeS = arguments.computeS;
    ScheduleOptimizer::Options options;
    if (arguments.maxEvaluations > 0)
    {
        options.maxEvaluations = arguments.maxEvaluations;
    }
    double cpuStart = CpuSeconds();
    auto start = std::chrono::steady_clock::now();
    ScheduleOptimizer optimizer(topology, settings, arguments.mode, options);
    ScheduleOptimizer::Result result = optimizer.Optimize();
    double wallS = SecondsSince(start);
    double cpuS = CpuSeconds() - cpuStart;
    const ScheduleMetrics::Evaluation& e = result.evaluation;
    double allReduceXiS = 0;
    for (const ScheduleOptimizer::Candidate& baseline : result.baselines)
    {
        if (baseline.name == "all-reduce")
        {
            allReduceXiS = baseline.xiS;
        }
    }
    return {
        {"kind", "optimize"},
        {"topology", topology.GetName()},
        {"islands", topology.GetNCities()},
        {"mode", CapabilityModeToString(arguments.mode)},
        {"model_bytes", arguments.modelBytes},
        {"compute_s", arguments.computeS},
        {"max_evaluations", options.maxEvaluations},
        {"wall_s", wallS},
        {"cpu_s", cpuS},
        {"evaluations", result.evaluations},
        {"origin", result.origin},
        {"profile", ScheduleOptimizer::GetProfile(result.schedule)},
        {"xi_s", e.xiS},
        {"xi_lower_bound_s", e.xiLowerBoundS},
        {"gap_to_lower_bound", e.xiS / e.xiLowerBoundS},
        {"all_reduce_xi_s", allReduceXiS},
        {"passed", std::isfinite(e.xiS)},
    };
}

nlohmann::json
BenchCase::RunLoss(const Arguments& arguments)
{
    WanTopology topology = LoadTopology(arguments);
    const uint32_t n = topology.GetNCities();
    if (n != 9)
    {
        throw WanInputError(PROGRAM,
                            "--topology",
                            "the loss case runs the Latin triples, which need nine islands ('" +
                                topology.GetName() + "' has " + std::to_string(n) + ")");
    }
    CliqueSchedule schedule = CliqueSchedule::LatinTriples(n);
    // What wan-training-simulate --scheduleKind=latin --rounds=R --loss=P --mode=M runs.
    TrainingRun::Config config;
    config.mode = arguments.mode;
    config.rounds = arguments.rounds;
    config.modelBytes = arguments.modelBytes;
    config.wanLossRate = arguments.lossRate;
    TrainingRun run(topology, schedule, config);
    run.SetFaultLog(&std::cerr, PROGRAM);
    run.Run();

    const TrainingResults& results = run.GetResults();
    const TrainingRunSummary summary =
        TrainingRunSummary::Parse(results.GetWriter().ToJson(), "the results of the case");
    nlohmann::json roundCommS = nlohmann::json::array();
    double commSum = 0;
    bool complete = summary.rounds.size() == arguments.rounds;
    for (const TrainingRunSummary::Round& round : summary.rounds)
    {
        roundCommS.push_back(round.commS ? nlohmann::json(*round.commS) : nlohmann::json(nullptr));
        complete = complete && round.commS.has_value();
        commSum += round.commS.value_or(0);
    }
    // The largest round trip between two members of one clique, over the schedule's rounds.
    double maxRttS = 0;
    for (const CliqueSchedule::Round& round : schedule.GetRounds())
    {
        for (const CliqueSchedule::Clique& clique : round)
        {
            for (uint32_t a : clique)
            {
                for (uint32_t b : clique)
                {
                    if (a != b)
                    {
                        maxRttS =
                            std::max(maxRttS,
                                     IslandTiming::GetRoundTripTime(topology, a, b).GetSeconds());
                    }
                }
            }
        }
    }
    uint64_t repairs = 0;
    for (uint32_t i = 0; i < n; ++i)
    {
        repairs += results.GetIslandCounters(i).repairs;
    }
    uint64_t errorDrops = 0;
    for (uint32_t d = 0; d < topology.GetNDirectedLinks(); ++d)
    {
        errorDrops += results.GetLinkCounters(d).errorDrops;
    }
    return {
        {"kind", "loss"},
        {"topology", topology.GetName()},
        {"mode", CapabilityModeToString(arguments.mode)},
        {"model_bytes", arguments.modelBytes},
        {"loss_rate", arguments.lossRate},
        {"rounds", arguments.rounds},
        {"comm_s", complete ? nlohmann::json(commSum / arguments.rounds) : nlohmann::json(nullptr)},
        {"round_comm_s", roundCommS},
        {"max_rtt_s", maxRttS},
        {"repairs", repairs},
        {"error_drops", errorDrops},
        {"wall_s", run.GetWallSeconds()},
        {"passed", run.Passed() && complete},
    };
}

} // namespace ns3
