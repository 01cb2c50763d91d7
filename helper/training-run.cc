/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "training-run.h"

#include "aggregator-helper.h"
#include "capability-set.h"
#include "exchange-planner.h"
#include "island-sync-header.h"
#include "schedule-metrics.h"
#include "sync-protocol.h"
#include "training-helper.h"
#include "wan-config-error.h"
#include "wan-fault-error-model.h"
#include "wan-input-error.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/log.h"
#include "ns3/names.h"
#include "ns3/pcap-file-wrapper.h"
#include "ns3/point-to-point-net-device.h"
#include "ns3/rng-seed-manager.h"
#include "ns3/simulator.h"
#include "ns3/trace-helper.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <system_error>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("WanTrainingTrainingRun");

namespace
{

/** The largest ModelBytes a run accepts. */
constexpr uint64_t MAX_MODEL_BYTES = uint64_t{1} << 50;

/**
 * @param value a number
 * @return its text as a stream writes it (what a message quotes as "got")
 */
std::string
NumberText(double value)
{
    std::ostringstream text;
    text << value;
    return text.str();
}

/**
 * @param rate a data rate
 * @return it in Gbps
 */
double
Gbps(const DataRate& rate)
{
    return static_cast<double>(rate.GetBitRate()) / 1e9;
}

} // namespace

WanTopology
TrainingRun::GetSimulatedTopology(const WanTopology& topology, const Config& config)
{
    return config.frameBytes ? topology.WithFrameBytes(*config.frameBytes) : topology;
}

void
TrainingRun::Validate(const WanTopology& given,
                      const CliqueSchedule& schedule,
                      const Config& config)
{
    const WanTopology topology = GetSimulatedTopology(given, config);
    const uint32_t n = topology.GetNCities();
    if (n > IslandSyncHeader::MAX_ISLANDS)
    {
        throw WanConfigError("topology",
                             "at most " + std::to_string(IslandSyncHeader::MAX_ISLANDS) +
                                 " islands are supported (got " + std::to_string(n) + ")");
    }
    if (schedule.GetNIslands() != n)
    {
        throw WanConfigError("schedule",
                             "the schedule has " + std::to_string(schedule.GetNIslands()) +
                                 " islands, the topology '" + topology.GetName() + "' " +
                                 std::to_string(n) + " cities");
    }

    // A forced mode names the field `mode`; a schedule's own algorithms are checked against
    // the topology's capabilities clique by clique.
    if (config.mode)
    {
        TrainingHelper::CheckMode(topology, *config.mode);
    }
    const CliqueSchedule resolved = Resolve(schedule, config);
    CapabilitySet::Of(topology).CheckSchedule(resolved,
                                              "schedule",
                                              "the capabilities of topology '" +
                                                  topology.GetName() + "'");
    CheckFpgaPlacement(topology, resolved);

    if (config.modelBytes < 1 || config.modelBytes > MAX_MODEL_BYTES)
    {
        throw WanConfigError("modelBytes",
                             "must be a whole number in [1, " + std::to_string(MAX_MODEL_BYTES) +
                                 "] (got '" + std::to_string(config.modelBytes) + "')");
    }
    if (config.parameterCount < 1)
    {
        throw WanConfigError("parameterCount", "must be at least 1 (got '0')");
    }
    if (config.rounds < 1)
    {
        throw WanConfigError("rounds", "must be at least 1 (got '0')");
    }
    if (config.seed < 1)
    {
        throw WanConfigError("seed", "must be at least 1 (got '0')");
    }
    if (!(config.learningRate > 0 && config.learningRate < 1))
    {
        throw WanConfigError("learningRate",
                             "must be a number in (0, 1) (got '" + NumberText(config.learningRate) +
                                 "')");
    }
    if (!(config.wanLossRate >= 0 && config.wanLossRate <= 0.5))
    {
        throw WanConfigError("wanLossRate",
                             "must be a number in [0, 0.5] (got '" +
                                 NumberText(config.wanLossRate) + "')");
    }
    if (config.pcapSnaplen < 70 || config.pcapSnaplen > 65535)
    {
        throw WanConfigError("pcapSnaplen",
                             "must be an integer in [70, 65535] (got '" +
                                 std::to_string(config.pcapSnaplen) + "')");
    }

    // Every island plans every round as it will when it starts (the format's layout,
    // chunking, rings, rates); the planner checks that every clique has its algorithm (mode),
    // and modelBytes, chunkBytes and parameterCount against the format.
    ExchangePlanner::Config planning; // resolved is the forced mode's already
    planning.format = config.format;
    planning.modelBytes = config.modelBytes;
    planning.chunkBytes = config.chunkBytes;
    planning.parameterCount = config.parameterCount;
    planning.streamRateBps = static_cast<double>(config.streamRate.GetBitRate());
    ExchangePlanner(topology, resolved, planning).Validate();
    if (config.maxRepairAttempts < 1)
    {
        throw WanConfigError("maxRepairAttempts", "must be at least 1 (got '0')");
    }
    if (config.repairCopies < 1 || config.repairCopies > 8)
    {
        throw WanConfigError("repairCopies",
                             "must be in [1, 8] (got '" + std::to_string(config.repairCopies) +
                                 "')");
    }
    if (config.fecBlock > 65535)
    {
        throw WanConfigError("fecBlock",
                             "must be in [0, 65535] (got '" + std::to_string(config.fecBlock) +
                                 "')");
    }
    config.faults.Validate(topology, config.rounds);
    if (!(config.progressIntervalS >= 0 && config.progressIntervalS <= 1e6))
    {
        throw WanConfigError("progressIntervalS",
                             "must be a number of seconds in [0, 1e6] (got '" +
                                 NumberText(config.progressIntervalS) + "')");
    }

    if (!config.pcapDir.empty())
    {
        std::error_code error;
        std::filesystem::create_directories(config.pcapDir, error);
        if (error || !std::filesystem::is_directory(config.pcapDir, error))
        {
            throw WanConfigError("pcapDir", "cannot create directory '" + config.pcapDir + "'");
        }
    }
}

TrainingRun::TrainingRun(const WanTopology& topology,
                         const CliqueSchedule& schedule,
                         const Config& config)
    : m_topology(GetSimulatedTopology(topology, config)),
      m_schedule(schedule),
      m_config(config),
      m_faultLog(&std::cerr)
{
    NS_LOG_FUNCTION(this << topology.GetName() << GetModeName());
    Validate(topology, schedule, m_config);
    m_schedule = Resolve(schedule, m_config);
}

CliqueSchedule
TrainingRun::Resolve(const CliqueSchedule& schedule, const Config& config)
{
    return config.mode ? schedule.WithMode(*config.mode) : schedule;
}

std::string
TrainingRun::GetModeName() const
{
    return m_config.mode ? CapabilityModeToString(*m_config.mode) : "schedule";
}

TrainingRun::~TrainingRun()
{
    NS_LOG_FUNCTION(this);
    m_progress.reset();
    m_results.reset();
    m_apps = ApplicationContainer();
    if (m_faultInjector)
    {
        m_faultInjector->Dispose();
        m_faultInjector = nullptr;
    }
    m_pim.reset();
    m_scenario.reset();
    Simulator::Destroy();
    Names::Clear();
}

void
TrainingRun::Build()
{
    NS_LOG_FUNCTION(this);
    NS_ABORT_MSG_IF(m_scenario, "TrainingRun::Build(): the run is already built");
    RngSeedManager::SetSeed(m_config.seed);
    RngSeedManager::SetRun(1);

    // What the cliques' algorithms need: any clique's need installs it for the run.
    const bool multicast = m_schedule.UsesAlgorithm(UsesMulticast);
    const bool aggregated = m_schedule.UsesAlgorithm(UsesAggregation);
    m_scenario = std::make_unique<WanTopologyHelper>(m_topology);
    AggregatorHelper aggregators;
    if (aggregated)
    {
        // The FPGA's ports are router devices: placed before the links are built.
        aggregators.SetAttribute("SlotCount", UintegerValue(m_config.fpgaSlots));
        aggregators.SetAttribute("Timeout", TimeValue(m_config.fpgaTimeout));
        aggregators.SetAttribute("ProcessingDelay", TimeValue(m_config.fpgaDelay));
        aggregators.SetAttribute("LineRate", DataRateValue(m_config.fpgaLineRate));
        // A tree clique sums on every router of its in-tree, the others at the islands.
        aggregators.Install(*m_scenario,
                            m_topology.GetFpgaCities(),
                            AggregatorHelper::GetPortsFor(m_schedule));
    }
    m_scenario->Install();
    if (aggregated)
    {
        aggregators.SetSchedule(*m_scenario, m_schedule, m_config.jobId);
    }
    m_pim = std::make_unique<PimMulticastHelper>(*m_scenario);
    if (multicast)
    {
        try
        {
            m_pim->SetGroupRange(m_config.groupRange);
            m_pim->InstallSchedule(m_schedule);
        }
        catch (const WanInputError& error)
        {
            throw WanConfigError("groupRange", error.GetReason());
        }
    }
    const FaultPlan& faults = m_config.faults;
    if (m_config.wanLossRate > 0 || faults.duplicateRate > 0 || faults.reorderRate > 0 ||
        !faults.linkOutages.empty())
    {
        m_faultModels = TrainingHelper::InstallWanFaultModels(*m_scenario,
                                                              m_config.wanLossRate,
                                                              faults.reorderRate,
                                                              faults.duplicateRate,
                                                              m_config.lossStream);
        for (const auto& model : m_faultModels)
        {
            model->SetAttribute("ReorderDelay", TimeValue(faults.reorderDelay));
        }
    }

    // The islands take each clique's algorithm from the schedule (a forced mode is in it).
    TrainingHelper training(*m_scenario, m_schedule);
    if (multicast)
    {
        // The TTL must also reach members along the longer routes a link failure leaves.
        std::size_t routers = 0;
        for (Time at : faults.GetLinkEventTimes())
        {
            WanTopology routing = m_topology.WithLinksDown(faults.GetLinksDownAt(at));
            for (uint32_t a = 0; a < routing.GetNCities(); ++a)
            {
                for (uint32_t b = 0; b < routing.GetNCities(); ++b)
                {
                    if (a != b)
                    {
                        routers = std::max(routers, routing.GetRoute(a, b).cities.size());
                    }
                }
            }
        }
        training.SetMulticast(*m_pim,
                              static_cast<uint8_t>(std::min<std::size_t>(routers + 1, 255)));
    }
    training.SetAttribute("JobId", UintegerValue(m_config.jobId));
    training.SetAttribute("Rounds", UintegerValue(m_config.rounds));
    training.SetAttribute("ModelBytes", UintegerValue(m_config.modelBytes));
    training.SetAttribute("Format", EnumValue(static_cast<int>(m_config.format)));
    training.SetAttribute("ChunkBytes", UintegerValue(m_config.chunkBytes));
    training.SetAttribute("ParameterCount", UintegerValue(m_config.parameterCount));
    training.SetAttribute("LocalSteps", UintegerValue(m_config.localSteps));
    training.SetAttribute("Overlap", BooleanValue(m_config.overlap));
    training.SetAttribute("StepTime", TimeValue(m_config.stepTime));
    training.SetAttribute("LearningRate", DoubleValue(m_config.learningRate));
    training.SetAttribute("Heterogeneity", DoubleValue(m_config.heterogeneity));
    training.SetAttribute("ObjectiveSeed", UintegerValue(m_config.seed));
    training.SetAttribute("StreamRate", DataRateValue(m_config.streamRate));
    training.SetAttribute("NackTimeout", TimeValue(m_config.nackTimeout));
    training.SetAttribute("MaxRepairAttempts", UintegerValue(m_config.maxRepairAttempts));
    training.SetAttribute("RepairCopies", UintegerValue(m_config.repairCopies));
    training.SetAttribute("FecBlock", UintegerValue(m_config.fecBlock));
    m_apps = training.Install();
    for (uint32_t i = 0; i < m_apps.GetN(); ++i)
    {
        Ptr<TrainingIslandApplication> app = GetApp(i);
        if (faults.GetCrashRound(i) != FaultPlan::NO_CRASH)
        {
            app->SetAttribute("CrashRound", UintegerValue(faults.GetCrashRound(i)));
        }
        if (faults.GetStepTimeFactor(i) != 1)
        {
            app->SetAttribute("StepTime",
                              TimeValue(m_config.stepTime * faults.GetStepTimeFactor(i)));
        }
    }
    m_results = std::make_unique<TrainingResults>(*m_scenario, m_schedule, m_apps);
    m_results->SetConfigJson(GetConfigJson().dump());
    m_results->SetFaultPlanJson(faults.ToJson(m_topology).dump());

    m_islandRoundsEnded.assign(m_apps.GetN(), 0);
    m_islandsDone = 0;
    for (auto app = m_apps.Begin(); app != m_apps.End(); ++app)
    {
        (*app)->TraceConnectWithoutContext("RoundFinished",
                                           MakeCallback(&TrainingRun::OnRoundFinished, this));
        (*app)->TraceConnectWithoutContext("RoundAbandoned",
                                           MakeCallback(&TrainingRun::OnRoundAbandoned, this));
        (*app)->TraceConnectWithoutContext("Crashed", MakeCallback(&TrainingRun::OnCrashed, this));
    }
    // The link-state schedule: a fault injector takes links down and up and has the unicast
    // routes and the multicast trees recomputed, in that order.
    m_faultInjector = CreateObject<WanFaultInjector>();
    m_faultInjector->SetTopology(m_topology);
    m_faultInjector->SetErrorModels(m_faultModels);
    m_faultInjector->AddRerouteCallback(
        MakeCallback(&WanUnicastRouting::Reroute, m_scenario->GetUnicastRouting()));
    if (multicast)
    {
        m_faultInjector->AddRerouteCallback(
            MakeCallback(&PimMulticastRouting::Reroute, m_pim->GetMulticastRouting()));
    }
    if (AggregatorHelper::GetPortsFor(m_schedule) == WanTopologyHelper::EVERY_PORT)
    {
        m_faultInjector->AddRerouteCallback(MakeCallback(&TrainingRun::OnFpgaReroute, this));
    }
    m_faultInjector->TraceConnectWithoutContext(
        "LinkStateChanged",
        MakeCallback(&TrainingRun::OnLinkStateChanged, this));
    for (Time at : faults.GetLinkEventTimes())
    {
        m_faultInjector->ScheduleLinkState(at, faults.GetLinksDownAt(at));
    }

    if (m_config.progress)
    {
        // The denominators: what every island's receive streams hold once complete, planned
        // as the islands plan.
        ExchangePlanner::Config planning;
        planning.format = m_config.format;
        planning.modelBytes = m_config.modelBytes;
        planning.chunkBytes = m_config.chunkBytes;
        planning.parameterCount = m_config.parameterCount;
        planning.streamRateBps = static_cast<double>(m_config.streamRate.GetBitRate());
        m_progress = std::make_unique<TrainingProgress>(
            m_apps,
            TrainingProgress::GetPlannedBytes(ExchangePlanner(m_topology, m_schedule, planning),
                                              m_schedule,
                                              m_config.rounds),
            *m_config.progress,
            m_config.progressLabel,
            m_config.progressIntervalS);
    }

    if (!m_config.pcapDir.empty())
    {
        // One capture per directed link on its transmitting device, hooked as
        // PointToPointHelper::EnablePcap does (PromiscSniffer), cut to pcapSnaplen bytes.
        PcapHelper pcap;
        WriteCaptureInfo();
        for (uint32_t d = 0; d < m_topology.GetNDirectedLinks(); ++d)
        {
            std::string file = (std::filesystem::path(m_config.pcapDir) /
                                GetPcapFileName(m_topology.GetDirectedLinkName(d)))
                                   .string();
            Ptr<PcapFileWrapper> wrapper =
                pcap.CreateFile(file, std::ios::out, PcapHelper::DLT_PPP, m_config.pcapSnaplen);
            pcap.HookDefaultSink<PointToPointNetDevice>(
                DynamicCast<PointToPointNetDevice>(m_scenario->GetTxDevice(d)),
                "PromiscSniffer",
                wrapper);
        }
    }
}

void
TrainingRun::WriteCaptureInfo() const
{
    const std::string file =
        (std::filesystem::path(m_config.pcapDir) / SyncProtocol::CAPTURE_INFO_FILE).string();
    std::ofstream out(file);
    out << nlohmann::json{{"topology_name", m_topology.GetName()},
                          {"mtu_bytes", m_topology.GetDefaultMtuBytes()},
                          {"frame_bytes", m_topology.GetFrameBytes()}}
               .dump(2)
        << "\n";
    if (!out)
    {
        throw WanConfigError("pcapDir", "cannot write '" + file + "'");
    }
}

void
TrainingRun::Run()
{
    NS_LOG_FUNCTION(this);
    if (!m_scenario)
    {
        Build();
    }
    m_wallStart = std::chrono::steady_clock::now();
    if (m_progress)
    {
        m_progress->Start();
    }
    const Time limit = GetTimeLimit();
    m_stoppedByTimeLimit = false;
    if (m_islandsDone < m_apps.GetN())
    {
        m_guardEvent =
            Simulator::Schedule(limit - Simulator::Now(), &TrainingRun::OnTimeLimit, this);
    }
    Simulator::Run();
    m_guardEvent.Cancel();
    if (m_progress)
    {
        m_progress->Finish();
    }
    m_results->Finish(limit.GetSeconds(), m_stoppedByTimeLimit);
    m_wallSeconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - m_wallStart).count();
    if (m_faultLog && m_stoppedByTimeLimit)
    {
        *m_faultLog << m_faultLabel << ": the time limit of " << limit.GetSeconds()
                    << " s stopped the simulation; " << m_apps.GetN() - m_islandsDone
                    << " islands had rounds left (see the results' unfinished rounds)" << std::endl;
    }
}

void
TrainingRun::SetFaultLog(std::ostream* out, const std::string& label)
{
    m_faultLog = out;
    m_faultLabel = label;
}

Time
TrainingRun::GetTimeLimit() const
{
    const FaultPlan& faults = m_config.faults;
    if (faults.timeLimit.IsStrictlyPositive())
    {
        return faults.timeLimit;
    }
    double lastEventS = 0;
    for (Time at : faults.GetLinkEventTimes())
    {
        lastEventS = std::max(lastEventS, at.GetSeconds());
    }
    double slowest = 1;
    for (const auto& straggler : faults.stragglers)
    {
        slowest = std::max(slowest, straggler.factor);
    }
    const double computeS = m_config.localSteps * m_config.stepTime.GetSeconds() * slowest;
    ScheduleMetrics::Settings settings;
    settings.modelBytes = static_cast<double>(m_config.modelBytes);
    ScheduleMetrics metrics(m_topology, settings);
    double commS = 0;
    for (uint32_t r = 0; r < m_schedule.GetNRounds(); ++r)
    {
        commS = std::max(
            commS,
            metrics.GetRoundCost(m_schedule.GetRound(r), m_schedule.GetRoundAlgorithms(r)).commS);
    }
    double rttS = 0;
    double accessS = 0;
    for (uint32_t l = 0; l < m_topology.GetNLinks(); ++l)
    {
        rttS += 2e-3 * m_topology.GetLink(l).latencyMs;
    }
    for (uint32_t i = 0; i < m_topology.GetNCities(); ++i)
    {
        accessS = std::max(accessS, 4e-3 * m_topology.GetCity(i).accessLatencyMs);
    }
    double waitS = rttS + accessS + m_config.nackTimeout.GetSeconds();
    if (m_schedule.UsesAlgorithm(UsesAggregation))
    {
        waitS += m_config.fpgaTimeout.GetSeconds();
    }
    const double perRoundS = computeS + 10 * commS + 4.0 * (m_config.maxRepairAttempts + 2) * waitS;
    return Seconds(lastEventS + m_config.rounds * perRoundS + 1);
}

void
TrainingRun::OnFpgaReroute(const WanTopology& routing)
{
    AggregatorHelper().SetSchedule(*m_scenario, m_schedule, m_config.jobId, routing);
}

void
TrainingRun::OnTimeLimit()
{
    m_stoppedByTimeLimit = true;
    Simulator::Stop();
}

void
TrainingRun::OnLinkStateChanged(const std::vector<uint32_t>& down, const WanTopology& routing)
{
    const std::vector<std::vector<uint32_t>> components = routing.GetComponents();
    m_results->RecordRouteChange(down, components);
    if (!m_faultLog)
    {
        return;
    }
    std::ostringstream line;
    line << m_faultLabel << ": t = " << Simulator::Now().GetSeconds() << " s: ";
    if (down.empty())
    {
        line << "every link is up";
    }
    else
    {
        line << "links down:";
        for (uint32_t l : down)
        {
            const WanLink& link = m_topology.GetLink(l);
            line << " " << m_topology.GetCity(link.a).id << "-" << m_topology.GetCity(link.b).id;
        }
    }
    line << "; routes and multicast trees reinstalled; ";
    if (components.size() == 1)
    {
        line << "the WAN is connected";
    }
    else
    {
        line << "the WAN is PARTITIONED into";
        for (const auto& component : components)
        {
            line << " {";
            for (std::size_t k = 0; k < component.size(); ++k)
            {
                line << (k ? " " : "") << m_topology.GetCity(component[k]).id;
            }
            line << "}";
        }
        line << " (cliques across it exclude the members they cannot reach)";
    }
    *m_faultLog << line.str() << std::endl;
}

void
TrainingRun::OnRoundAbandoned(uint32_t island,
                              uint32_t round,
                              uint32_t /* clique */,
                              const std::string& /* reason */)
{
    NoteRoundsEnded(island, round, round + 1);
}

void
TrainingRun::OnCrashed(uint32_t island, uint32_t round)
{
    NoteRoundsEnded(island, round, m_config.rounds);
}

void
TrainingRun::OnRoundFinished(uint32_t island,
                             uint32_t round,
                             uint32_t /* clique */,
                             const std::vector<float>& /* parameters */)
{
    NoteRoundsEnded(island, round, round + 1);
}

void
TrainingRun::NoteRoundsEnded(uint32_t island, uint32_t first, uint32_t end)
{
    // Every island ends every round (completed, abandoned, or crashed before it), idle ones
    // (alone in their clique) included, in any order across cliques.
    if (first >= end || end > m_config.rounds)
    {
        return;
    }
    m_islandRoundsEnded[island] += end - first;
    if (m_islandRoundsEnded[island] == m_config.rounds && ++m_islandsDone == m_apps.GetN())
    {
        // Nothing can hang any more: what is left are bounded timers. Removed, not cancelled:
        // a cancelled guard would still advance the clock to the time limit.
        m_guardEvent.Remove();
    }
}

nlohmann::json
TrainingRun::GetConfigJson() const
{
    nlohmann::json config = {
        {"topology_name", m_topology.GetName()},
        // A forced mode writes the plain lists the mode applies to; else each clique with its
        // algorithm.
        {"schedule_rounds",
         nlohmann::json::parse(
             (m_config.mode ? CliqueSchedule(m_schedule.GetNIslands(), m_schedule.GetRounds())
                            : m_schedule)
                 .ToJson(m_topology))["rounds"]},
        {"mode", GetModeName()},
        {"format", PayloadFormatToString(m_config.format)},
        {"model_bytes", m_config.modelBytes},
        {"chunk_bytes", m_config.chunkBytes},
        {"mtu_bytes", m_topology.GetDefaultMtuBytes()},
        {"frame_bytes", m_topology.GetFrameBytes()},
        {"parameter_count", m_config.parameterCount},
        {"rounds", m_config.rounds},
        {"local_steps", m_config.localSteps},
        {"overlap", m_config.overlap},
        {"step_time_s", m_config.stepTime.GetSeconds()},
        {"learning_rate", m_config.learningRate},
        {"heterogeneity", m_config.heterogeneity},
        {"seed", m_config.seed},
        {"wan_packet_error_rate", m_config.wanLossRate},
        {"wan_loss_stream", m_config.lossStream},
        {"stream_rate_gbps", Gbps(m_config.streamRate)},
        {"nack_timeout_s", m_config.nackTimeout.GetSeconds()},
        {"port", TrainingIslandApplication::DEFAULT_PORT},
        {"job_id", m_config.jobId},
        {"pcap", m_config.pcapDir},
        {"pcap_snaplen", m_config.pcapSnaplen},
        {"max_repair_attempts", m_config.maxRepairAttempts},
        {"repair_copies", m_config.repairCopies},
        {"fec_block", m_config.fecBlock},
        {"faults", m_config.faults.ToJson(m_topology)},
        {"time_limit_s", GetTimeLimit().GetSeconds()},
    };
    if (m_schedule.UsesAlgorithm(UsesMulticast))
    {
        config["group_range"] = m_config.groupRange;
        if (m_pim)
        {
            config["multicast_ttl"] = m_pim->GetMulticastTtl();
        }
    }
    if (m_schedule.UsesAlgorithm(UsesAggregation))
    {
        config["fpga"] = {{"slot_count", m_config.fpgaSlots},
                          {"timeout_s", m_config.fpgaTimeout.GetSeconds()},
                          {"processing_delay_s", m_config.fpgaDelay.GetSeconds()},
                          {"line_rate_gbps", Gbps(m_config.fpgaLineRate)}};
    }
    return config;
}

bool
TrainingRun::Passed() const
{
    return m_results && m_results->IsComplete() &&
           m_results->GetRoundsVerified() == m_config.rounds;
}

double
TrainingRun::GetWallSeconds() const
{
    return m_wallSeconds;
}

const TrainingRun::Config&
TrainingRun::GetConfig() const
{
    return m_config;
}

const WanTopology&
TrainingRun::GetTopology() const
{
    return m_topology;
}

const CliqueSchedule&
TrainingRun::GetSchedule() const
{
    return m_schedule;
}

const WanTopologyHelper&
TrainingRun::GetScenario() const
{
    NS_ABORT_MSG_IF(!m_scenario, "TrainingRun::GetScenario(): call Build() first");
    return *m_scenario;
}

const PimMulticastHelper&
TrainingRun::GetPim() const
{
    NS_ABORT_MSG_IF(!m_pim, "TrainingRun::GetPim(): call Build() first");
    return *m_pim;
}

const ApplicationContainer&
TrainingRun::GetApps() const
{
    NS_ABORT_MSG_IF(!m_scenario, "TrainingRun::GetApps(): call Build() first");
    return m_apps;
}

const std::vector<Ptr<WanFaultErrorModel>>&
TrainingRun::GetFaultModels() const
{
    return m_faultModels;
}

Ptr<TrainingIslandApplication>
TrainingRun::GetApp(uint32_t island) const
{
    NS_ABORT_MSG_IF(island >= m_apps.GetN(),
                    "TrainingRun::GetApp(): no application for island "
                        << island << " (" << m_apps.GetN() << " installed; call Build() first)");
    return DynamicCast<TrainingIslandApplication>(m_apps.Get(island));
}

TrainingResults&
TrainingRun::GetResults()
{
    NS_ABORT_MSG_IF(!m_results, "TrainingRun::GetResults(): call Build() first");
    return *m_results;
}

const TrainingResults&
TrainingRun::GetResults() const
{
    NS_ABORT_MSG_IF(!m_results, "TrainingRun::GetResults(): call Build() first");
    return *m_results;
}

std::string
TrainingRun::GetPcapFileName(std::string directedLinkName)
{
    size_t arrow = directedLinkName.find("->");
    if (arrow != std::string::npos)
    {
        directedLinkName.replace(arrow, 2, "-");
    }
    std::replace(directedLinkName.begin(), directedLinkName.end(), ':', '-');
    return directedLinkName + ".pcap";
}

} // namespace ns3
