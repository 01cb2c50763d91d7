/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "training-island-application.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/data-rate.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/inet-socket-address.h"
#include "ns3/log.h"
#include "ns3/packet.h"
#include "ns3/simulator.h"
#include "ns3/socket.h"
#include "ns3/udp-socket-factory.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("WanTrainingTrainingIslandApplication");

NS_OBJECT_ENSURE_REGISTERED(TrainingIslandApplication);

namespace
{

/**
 * @param seconds a non-negative delay in seconds
 * @return the delay rounded up to the next nanosecond (never early)
 */
Time
CeilNanoSeconds(double seconds)
{
    if (seconds <= 0)
    {
        return Time(0);
    }
    return NanoSeconds(static_cast<int64_t>(std::ceil(seconds * 1e9)));
}

/**
 * @param island an island index
 * @return its contributor bit
 */
uint64_t
Bit(uint32_t island)
{
    return uint64_t{1} << island;
}

} // namespace

TypeId
TrainingIslandApplication::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::WanTraining::TrainingIslandApplication")
            .SetParent<Application>()
            .SetGroupName("WanTraining")
            .AddConstructor<TrainingIslandApplication>()
            .AddAttribute("JobId",
                          "The training job; packets of other jobs are ignored.",
                          UintegerValue(1),
                          MakeUintegerAccessor(&TrainingIslandApplication::m_jobId),
                          MakeUintegerChecker<uint16_t>())
            .AddAttribute("Port",
                          "The UDP port of the synchronization socket of every island.",
                          UintegerValue(DEFAULT_PORT),
                          MakeUintegerAccessor(&TrainingIslandApplication::m_port),
                          MakeUintegerChecker<uint16_t>(1))
            .AddAttribute("Rounds",
                          "The number of rounds to run (the schedule repeats with its period).",
                          UintegerValue(10),
                          MakeUintegerAccessor(&TrainingIslandApplication::m_rounds),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("ModelBytes",
                          "The simulated model size S in bytes: the wire size of one island's "
                          "contribution to an exchange (e.g. 1e9 for a 1 GB model).",
                          UintegerValue(100000000),
                          MakeUintegerAccessor(&TrainingIslandApplication::m_modelBytes),
                          MakeUintegerChecker<uint64_t>(1))
            .AddAttribute("ChunkBytes",
                          "Model bytes per chunk packet, a multiple of 4; 0 fills the smallest "
                          "path MTU inside the clique (minus IPv4, UDP and IslandSyncHeader).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&TrainingIslandApplication::m_chunkBytesAttr),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("ParameterCount",
                          "The length of the real parameter vector (float32 values carried "
                          "in the first chunks; 4 x ParameterCount must not exceed ModelBytes).",
                          UintegerValue(1024),
                          MakeUintegerAccessor(&TrainingIslandApplication::m_parameterCount),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("LocalSteps",
                          "Local gradient steps per round, before the exchange.",
                          UintegerValue(10),
                          MakeUintegerAccessor(&TrainingIslandApplication::m_localSteps),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("StepTime",
                          "Simulated compute time of one local step.",
                          TimeValue(MilliSeconds(10)),
                          MakeTimeAccessor(&TrainingIslandApplication::m_stepTime),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("LearningRate",
                          "Gradient step size eta (stable below 1 for the local objectives).",
                          DoubleValue(0.05),
                          MakeDoubleAccessor(&TrainingIslandApplication::m_learningRate),
                          MakeDoubleChecker<double>(0, 2 / LocalObjective::MAX_CURVATURE))
            .AddAttribute("Heterogeneity",
                          "Spread h of the islands' objective targets, uniform in [-h, h].",
                          DoubleValue(1.0),
                          MakeDoubleAccessor(&TrainingIslandApplication::m_heterogeneity),
                          MakeDoubleChecker<double>(0))
            .AddAttribute("ObjectiveSeed",
                          "Seed of the local objectives (the same for every island of a run).",
                          UintegerValue(1),
                          MakeUintegerAccessor(&TrainingIslandApplication::m_objectiveSeed),
                          MakeUintegerChecker<uint64_t>())
            .AddAttribute("Mode",
                          "How a clique exchanges its models (MODEL.md capability modes): "
                          "unicast, multicast (needs SetMulticastGroups), aggregation (needs "
                          "in-line FPGAs) or both; ring and tree are analytic only and rejected.",
                          EnumValue(static_cast<int>(CapabilityMode::UNICAST)),
                          MakeEnumAccessor(&TrainingIslandApplication::SetModeValue,
                                           &TrainingIslandApplication::GetModeValue),
                          MakeEnumChecker(static_cast<int>(CapabilityMode::UNICAST),
                                          "unicast",
                                          static_cast<int>(CapabilityMode::MULTICAST),
                                          "multicast",
                                          static_cast<int>(CapabilityMode::AGGREGATION),
                                          "aggregation",
                                          static_cast<int>(CapabilityMode::BOTH),
                                          "both",
                                          static_cast<int>(CapabilityMode::RING),
                                          "ring",
                                          static_cast<int>(CapabilityMode::TREE),
                                          "tree"))
            .AddAttribute("StreamRate",
                          "Pacing rate of every stream on the wire; 0 uses each stream's "
                          "bottleneck share of the round.",
                          DataRateValue(DataRate(0)),
                          MakeDataRateAccessor(&TrainingIslandApplication::m_streamRate),
                          MakeDataRateChecker())
            .AddAttribute("NackTimeout",
                          "A stream silent this long (at least 4 packet intervals) while "
                          "incomplete is repaired by a NACK of its missing ranges.",
                          TimeValue(MilliSeconds(5)),
                          MakeTimeAccessor(&TrainingIslandApplication::m_nackTimeout),
                          MakeTimeChecker(MicroSeconds(1)))
            .AddAttribute("CliqueBarrier",
                          "Start the stream toward a member only after that member has "
                          "announced (READY) the round, i.e. finished its previous round (in "
                          "multicast, aggregation and both modes: every stream only after every "
                          "member has); false starts at once (streams of consecutive rounds may "
                          "then share an island's links).",
                          BooleanValue(true),
                          MakeBooleanAccessor(&TrainingIslandApplication::m_cliqueBarrier),
                          MakeBooleanChecker())
            .AddAttribute("AggregationTimeout",
                          "Aggregation and both modes: the in-line FPGAs' Timeout. A gap or a "
                          "first stall waits this long (plus the stall time) before it is "
                          "NACKed, so that a partial aggregate can name who is missing; a "
                          "sender's probe waits this long more. TrainingHelper sets it from the "
                          "island's AggregatorNetDevice.",
                          TimeValue(MilliSeconds(500)),
                          MakeTimeAccessor(&TrainingIslandApplication::m_aggregationTimeout),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("MaxRepairAttempts",
                          "NACKs or probes of one stream without progress before the "
                          "island gives up (it stops; see the Failed trace).",
                          UintegerValue(50),
                          MakeUintegerAccessor(&TrainingIslandApplication::m_maxRepairAttempts),
                          MakeUintegerChecker<uint32_t>(1))
            .AddTraceSource(
                "RoundStarted",
                "A round started (local compute begins).",
                MakeTraceSourceAccessor(&TrainingIslandApplication::m_roundStartedTrace),
                "ns3::TrainingIslandApplication::RoundStartedCallback")
            .AddTraceSource(
                "ExchangeStarted",
                "Local compute ended; the exchange of this contribution starts.",
                MakeTraceSourceAccessor(&TrainingIslandApplication::m_exchangeStartedTrace),
                "ns3::TrainingIslandApplication::ParametersCallback")
            .AddTraceSource(
                "RoundFinished",
                "A round ended; the parameters are the clique average.",
                MakeTraceSourceAccessor(&TrainingIslandApplication::m_roundFinishedTrace),
                "ns3::TrainingIslandApplication::ParametersCallback")
            .AddTraceSource("ChunkSent",
                            "A chunk was sent (first transmission, repair or probe).",
                            MakeTraceSourceAccessor(&TrainingIslandApplication::m_chunkSentTrace),
                            "ns3::TrainingIslandApplication::ChunkSentCallback")
            .AddTraceSource(
                "ChunkReceived",
                "A chunk arrived.",
                MakeTraceSourceAccessor(&TrainingIslandApplication::m_chunkReceivedTrace),
                "ns3::TrainingIslandApplication::ChunkReceivedCallback")
            .AddTraceSource("Failed",
                            "The island gave up: a stream made no progress after "
                            "MaxRepairAttempts NACKs or probes; the application stops.",
                            MakeTraceSourceAccessor(&TrainingIslandApplication::m_failedTrace),
                            "ns3::TrainingIslandApplication::FailedCallback")
            .AddTraceSource("RepairRequested",
                            "A NACK asked a contributor to resend chunks.",
                            MakeTraceSourceAccessor(&TrainingIslandApplication::m_repairTrace),
                            "ns3::TrainingIslandApplication::RepairRequestedCallback");
    return tid;
}

TrainingIslandApplication::TrainingIslandApplication()
    : m_jobId(1),
      m_port(DEFAULT_PORT),
      m_rounds(10),
      m_modelBytes(100000000),
      m_chunkBytesAttr(0),
      m_parameterCount(1024),
      m_localSteps(10),
      m_learningRate(0.05),
      m_heterogeneity(1.0),
      m_objectiveSeed(1),
      m_mode(CapabilityMode::UNICAST),
      m_cliqueBarrier(true),
      m_maxRepairAttempts(50),
      m_aggregationTimeout(MilliSeconds(500)),
      m_island(0),
      m_multicastTtl(0),
      m_round(0),
      m_exchanging(false),
      m_stepsDone(0),
      m_readyAttempts(0),
      m_chunksSent(0),
      m_chunksResent(0),
      m_nacksSent(0),
      m_duplicateChunks(0),
      m_aggregatesIn(0),
      m_rejectedPackets(0)
{
    NS_LOG_FUNCTION(this);
}

TrainingIslandApplication::~TrainingIslandApplication()
{
    NS_LOG_FUNCTION(this);
}

void
TrainingIslandApplication::SetScenario(uint32_t island,
                                       std::shared_ptr<const WanTopology> topology,
                                       std::shared_ptr<const CliqueSchedule> schedule,
                                       std::vector<Ipv4Address> islandAddresses)
{
    NS_LOG_FUNCTION(this << island);
    NS_ABORT_MSG_IF(!topology || !schedule, "TrainingIslandApplication: null topology or schedule");
    NS_ABORT_MSG_IF(island >= topology->GetNCities(),
                    "TrainingIslandApplication: island " << island << " not in the topology");
    NS_ABORT_MSG_IF(schedule->GetNIslands() != topology->GetNCities(),
                    "TrainingIslandApplication: the schedule has " << schedule->GetNIslands()
                                                                   << " islands, the topology "
                                                                   << topology->GetNCities());
    NS_ABORT_MSG_IF(islandAddresses.size() != topology->GetNCities(),
                    "TrainingIslandApplication: need one address per island");
    NS_ABORT_MSG_IF(topology->GetNCities() > IslandSyncHeader::MAX_ISLANDS,
                    "TrainingIslandApplication: at most " << IslandSyncHeader::MAX_ISLANDS
                                                          << " islands (contributor bitmap)");
    m_island = island;
    m_topology = std::move(topology);
    m_schedule = std::move(schedule);
    m_addresses = std::move(islandAddresses);
}

void
TrainingIslandApplication::SetMulticastGroups(std::vector<Ipv4Address> groups, uint8_t ttl)
{
    NS_LOG_FUNCTION(this << groups.size() << static_cast<uint32_t>(ttl));
    NS_ABORT_MSG_IF(ttl == 0, "TrainingIslandApplication::SetMulticastGroups: the TTL must be > 0");
    m_groups = std::move(groups);
    m_multicastTtl = ttl;
}

Ipv4Address
TrainingIslandApplication::GetMulticastGroup(uint32_t round) const
{
    return GetPlan(round).group;
}

uint32_t
TrainingIslandApplication::GetIsland() const
{
    return m_island;
}

const std::vector<float>&
TrainingIslandApplication::GetParameters() const
{
    return m_parameters;
}

const LocalObjective&
TrainingIslandApplication::GetObjective() const
{
    if (!m_objective)
    {
        m_objective = std::make_unique<LocalObjective>(m_island,
                                                       m_parameterCount,
                                                       m_objectiveSeed,
                                                       m_heterogeneity);
    }
    return *m_objective;
}

uint32_t
TrainingIslandApplication::GetCompletedRounds() const
{
    return m_round;
}

uint32_t
TrainingIslandApplication::GetRounds() const
{
    return m_rounds;
}

uint64_t
TrainingIslandApplication::GetModelBytes() const
{
    return m_modelBytes;
}

CapabilityMode
TrainingIslandApplication::GetMode() const
{
    return m_mode;
}

void
TrainingIslandApplication::SetModeValue(int mode)
{
    m_mode = static_cast<CapabilityMode>(mode);
}

int
TrainingIslandApplication::GetModeValue() const
{
    return static_cast<int>(m_mode);
}

uint32_t
TrainingIslandApplication::GetCliqueOf(uint32_t round) const
{
    return GetPlan(round).clique;
}

uint32_t
TrainingIslandApplication::GetChunkBytes(uint32_t round) const
{
    return GetPlan(round).chunkBytes;
}

uint32_t
TrainingIslandApplication::GetChunkCount(uint32_t round) const
{
    return GetPlan(round).chunkCount;
}

double
TrainingIslandApplication::GetStreamRateBps(uint32_t round, uint32_t destination) const
{
    const Plan& plan = GetPlan(round);
    auto it = plan.sendRateBps.find(destination);
    NS_ABORT_MSG_IF(it == plan.sendRateBps.end(),
                    "TrainingIslandApplication::GetStreamRateBps: island "
                        << destination << " is not in the clique of island " << m_island
                        << " in round " << round);
    return it->second;
}

double
TrainingIslandApplication::GetReceiveRateBps(uint32_t round, uint32_t source) const
{
    const Plan& plan = GetPlan(round);
    auto it = plan.recvRateBps.find(source);
    NS_ABORT_MSG_IF(it == plan.recvRateBps.end(),
                    "TrainingIslandApplication::GetReceiveRateBps: island "
                        << source << " is not in the clique of island " << m_island << " in round "
                        << round);
    return it->second;
}

uint64_t
TrainingIslandApplication::GetChunksSent() const
{
    return m_chunksSent;
}

uint64_t
TrainingIslandApplication::GetChunksResent() const
{
    return m_chunksResent;
}

uint64_t
TrainingIslandApplication::GetNacksSent() const
{
    return m_nacksSent;
}

uint64_t
TrainingIslandApplication::GetDuplicateChunks() const
{
    return m_duplicateChunks;
}

uint64_t
TrainingIslandApplication::GetAggregatesReceived() const
{
    return m_aggregatesIn;
}

bool
TrainingIslandApplication::IsMulticast() const
{
    return m_mode == CapabilityMode::MULTICAST || m_mode == CapabilityMode::BOTH;
}

bool
TrainingIslandApplication::IsAggregated() const
{
    return m_mode == CapabilityMode::AGGREGATION || m_mode == CapabilityMode::BOTH;
}

uint64_t
TrainingIslandApplication::GetRejectedPackets() const
{
    return m_rejectedPackets;
}

void
TrainingIslandApplication::DoDispose()
{
    NS_LOG_FUNCTION(this);
    m_socket = nullptr;
    m_rx.clear();
    m_tx.clear();
    m_topology.reset();
    m_schedule.reset();
    Application::DoDispose();
}

void
TrainingIslandApplication::BuildPlans()
{
    NS_ABORT_MSG_IF(!m_topology || !m_schedule,
                    "TrainingIslandApplication: SetScenario() was not called (use TrainingHelper)");
    const std::string& id = m_topology->GetCity(m_island).id;
    NS_ABORT_MSG_IF(m_mode == CapabilityMode::RING || m_mode == CapabilityMode::TREE,
                    "TrainingIslandApplication ("
                        << id << "): mode '" << CapabilityModeToString(m_mode)
                        << "' is not simulated (simulated: unicast, multicast, aggregation, both)");
    NS_ABORT_MSG_IF(IsMulticast() && m_groups.size() != m_schedule->GetNRounds(),
                    "TrainingIslandApplication ("
                        << id << "): mode '" << CapabilityModeToString(m_mode)
                        << "' needs one multicast group per schedule round (SetMulticastGroups; "
                           "TrainingHelper::SetMulticast does it), got "
                        << m_groups.size() << " for " << m_schedule->GetNRounds() << " rounds");
    NS_ABORT_MSG_IF(uint64_t{IslandSyncHeader::VALUE_BYTES} * m_parameterCount > m_modelBytes,
                    "TrainingIslandApplication (" << id << "): ParameterCount " << m_parameterCount
                                                  << " x 4 bytes exceeds "
                                                  << "ModelBytes " << m_modelBytes);
    NS_ABORT_MSG_IF(m_chunkBytesAttr % IslandSyncHeader::VALUE_BYTES != 0,
                    "TrainingIslandApplication (" << id << "): ChunkBytes " << m_chunkBytesAttr
                                                  << " is not a multiple of 4");

    const uint32_t overhead = IP_UDP_HEADER_BYTES + IslandSyncHeader::FIXED_SIZE;
    LinkLoadModel loadModel(*m_topology);
    m_plans.clear();
    for (uint32_t sr = 0; sr < m_schedule->GetNRounds(); ++sr)
    {
        Plan plan;
        plan.clique = m_schedule->GetCliqueOf(sr, m_island);
        if (plan.clique != CliqueSchedule::IDLE)
        {
            plan.members = m_schedule->GetRound(sr)[plan.clique];
        }
        if (plan.members.size() >= 2)
        {
            uint32_t pathMtu = std::numeric_limits<uint32_t>::max();
            for (uint32_t a : plan.members)
            {
                for (uint32_t b : plan.members)
                {
                    if (a != b)
                    {
                        pathMtu = std::min(pathMtu, m_topology->GetPathMtuBytes(a, b));
                    }
                }
            }
            uint32_t fit = (pathMtu - overhead) / IslandSyncHeader::VALUE_BYTES *
                           IslandSyncHeader::VALUE_BYTES;
            NS_ABORT_MSG_IF(m_chunkBytesAttr > fit,
                            "TrainingIslandApplication ("
                                << id << "): ChunkBytes " << m_chunkBytesAttr << " exceeds the "
                                << fit << " bytes that fit the path MTU " << pathMtu
                                << " of the clique of schedule round " << sr);
            plan.chunkBytes = m_chunkBytesAttr > 0 ? m_chunkBytesAttr : fit;
            uint64_t count = (m_modelBytes + plan.chunkBytes - 1) / plan.chunkBytes;
            NS_ABORT_MSG_IF(count > std::numeric_limits<uint32_t>::max(),
                            "TrainingIslandApplication (" << id << "): ModelBytes " << m_modelBytes
                                                          << " needs more than 2^32 chunks");
            plan.chunkCount = static_cast<uint32_t>(count);

            // Bottleneck shares of the round's loads (MODEL.md's counts for this mode).
            std::vector<double> loads = loadModel.GetRoundLoads(m_schedule->GetRound(sr), m_mode);
            auto share = [&](const std::vector<uint32_t>& links) {
                double best = std::numeric_limits<double>::infinity();
                for (uint32_t d : links)
                {
                    NS_ABORT_MSG_IF(loads[d] <= 0,
                                    "TrainingIslandApplication: no load counted on "
                                        << m_topology->GetDirectedLinkName(d)
                                        << " for a stream that crosses it");
                    best =
                        std::min(best, m_topology->GetDirectedLinkCapacityGbps(d) * 1e9 / loads[d]);
                }
                return best;
            };
            auto unicastRate = [&](uint32_t src, uint32_t dst) {
                return share(m_topology->GetRoute(src, dst).links);
            };
            auto treeRate = [&](uint32_t src) {
                return share(loadModel.GetSourceTree(src, plan.members));
            };
            const double fixed = static_cast<double>(m_streamRate.GetBitRate());
            double common = std::numeric_limits<double>::infinity();
            if (m_mode == CapabilityMode::AGGREGATION)
            {
                for (uint32_t a : plan.members)
                {
                    for (uint32_t b : plan.members)
                    {
                        if (a != b)
                        {
                            common = std::min(common, unicastRate(a, b));
                        }
                    }
                }
            }
            else if (m_mode == CapabilityMode::BOTH)
            {
                for (uint32_t a : plan.members)
                {
                    common = std::min(common, treeRate(a));
                }
            }
            for (uint32_t other : plan.members)
            {
                if (other == m_island)
                {
                    continue;
                }
                double send = 0;
                double recv = 0;
                switch (m_mode)
                {
                case CapabilityMode::UNICAST:
                    send = unicastRate(m_island, other);
                    recv = unicastRate(other, m_island);
                    break;
                case CapabilityMode::MULTICAST:
                    send = treeRate(m_island);
                    recv = treeRate(other);
                    break;
                default:
                    send = common;
                    recv = common;
                    break;
                }
                plan.sendRateBps[other] = fixed > 0 ? fixed : send;
                plan.recvRateBps[other] = fixed > 0 ? fixed : recv;
            }
            if (IsMulticast())
            {
                plan.group = m_groups[sr];
                NS_ABORT_MSG_UNLESS(plan.group.IsMulticast(),
                                    "TrainingIslandApplication ("
                                        << id << "): the group of schedule round " << sr << ", "
                                        << plan.group << ", is not a multicast address");
                plan.groupRateBps = plan.sendRateBps.begin()->second;
            }
        }
        m_plans.push_back(std::move(plan));
    }
}

const TrainingIslandApplication::Plan&
TrainingIslandApplication::GetPlan(uint32_t round) const
{
    NS_ABORT_MSG_IF(m_plans.empty(),
                    "TrainingIslandApplication: the plans are built when the application starts");
    return m_plans[round % m_plans.size()];
}

uint32_t
TrainingIslandApplication::GetPayloadBytes(const Plan& plan, uint32_t chunk) const
{
    if (chunk + 1 < plan.chunkCount)
    {
        return plan.chunkBytes;
    }
    return static_cast<uint32_t>(m_modelBytes - uint64_t{plan.chunkBytes} * (plan.chunkCount - 1));
}

std::pair<uint32_t, uint32_t>
TrainingIslandApplication::GetValueSlice(const Plan& plan, uint32_t chunk) const
{
    uint64_t offset = uint64_t{chunk} * (plan.chunkBytes / IslandSyncHeader::VALUE_BYTES);
    if (offset >= m_parameterCount)
    {
        return {0, 0};
    }
    uint64_t count =
        std::min<uint64_t>(m_parameterCount - offset,
                           GetPayloadBytes(plan, chunk) / IslandSyncHeader::VALUE_BYTES);
    return {static_cast<uint32_t>(offset), static_cast<uint32_t>(count)};
}

uint32_t
TrainingIslandApplication::GetWireBytes(const Plan& plan, uint32_t chunk) const
{
    return PPP_HEADER_BYTES + IP_UDP_HEADER_BYTES + IslandSyncHeader::FIXED_SIZE +
           GetPayloadBytes(plan, chunk);
}

Time
TrainingIslandApplication::GetRtt(uint32_t other) const
{
    double ms = m_topology->GetRoute(m_island, other).latencyMs +
                m_topology->GetRoute(other, m_island).latencyMs;
    return CeilNanoSeconds(ms * 1e-3);
}

uint32_t
TrainingIslandApplication::GetMaxNackRanges(uint32_t other) const
{
    uint32_t mtu = m_topology->GetPathMtuBytes(m_island, other);
    uint32_t fit =
        (mtu - IP_UDP_HEADER_BYTES - IslandSyncHeader::FIXED_SIZE) / IslandSyncHeader::RANGE_BYTES;
    return std::max<uint32_t>(1, std::min(fit, MAX_NACK_RANGES));
}

Time
TrainingIslandApplication::GetStallTime(const Plan& plan, uint32_t source) const
{
    double interval = 8.0 * GetWireBytes(plan, 0) / plan.recvRateBps.at(source);
    return std::max(m_nackTimeout, CeilNanoSeconds(4 * interval));
}

Time
TrainingIslandApplication::GetPatience(const Plan& plan, uint32_t source) const
{
    return m_aggregationTimeout + GetStallTime(plan, source);
}

Time
TrainingIslandApplication::GetProbeWait(uint32_t destination) const
{
    Time wait = GetRtt(destination) + 2 * m_nackTimeout;
    return IsAggregated() ? wait + m_aggregationTimeout : wait;
}

void
TrainingIslandApplication::StartApplication()
{
    NS_LOG_FUNCTION(this);
    BuildPlans();
    if (m_parameters.size() != m_parameterCount)
    {
        m_parameters.assign(m_parameterCount, 0.0f);
    }
    GetObjective();
    m_socket = Socket::CreateSocket(GetNode(), UdpSocketFactory::GetTypeId());
    NS_ABORT_MSG_IF(m_socket->Bind(InetSocketAddress(Ipv4Address::GetAny(), m_port)) != 0,
                    "TrainingIslandApplication (" << m_topology->GetCity(m_island).id
                                                  << "): cannot bind UDP port " << m_port);
    m_socket->SetRecvCallback(MakeCallback(&TrainingIslandApplication::HandleRead, this));
    if (IsMulticast())
    {
        // Every router of a source tree decrements the TTL (PimMulticastHelper).
        m_socket->SetAttribute("IpMulticastTtl", UintegerValue(m_multicastTtl));
    }
    m_round = 0;
    m_exchanging = false;
    // Every island starts round 0 at once: round 0 needs no announcement.
    m_peerRound.assign(m_addresses.size(), 0);
    m_readyAttempts = 0;
    StartRound();
}

void
TrainingIslandApplication::Fail(const std::string& reason)
{
    NS_LOG_ERROR("TrainingIslandApplication gives up: " << reason);
    m_failure = reason;
    m_failedTrace(m_island, reason);
    StopApplication();
}

const std::string&
TrainingIslandApplication::GetFailure() const
{
    return m_failure;
}

void
TrainingIslandApplication::StopApplication()
{
    NS_LOG_FUNCTION(this);
    m_stepEvent.Cancel();
    m_readyEvent.Cancel();
    for (auto& [round, rx] : m_rx)
    {
        for (auto& [source, stream] : rx.streams)
        {
            stream.timer.Cancel();
            stream.gapEvent.Cancel();
        }
    }
    for (auto& [round, tx] : m_tx)
    {
        for (auto& [destination, stream] : tx.streams)
        {
            stream.sendEvent.Cancel();
            stream.probeEvent.Cancel();
        }
        tx.group.sendEvent.Cancel();
    }
    m_rx.clear();
    m_tx.clear();
    if (m_socket)
    {
        m_socket->SetRecvCallback(MakeNullCallback<void, Ptr<Socket>>());
        m_socket->Close();
        m_socket = nullptr;
    }
}

void
TrainingIslandApplication::StartRound()
{
    NS_LOG_FUNCTION(this << m_round);
    if (m_round >= m_rounds)
    {
        NS_LOG_INFO("island " << m_island << " ran all " << m_rounds << " rounds");
        return;
    }
    m_roundStartedTrace(m_island, m_round);
    if (m_round > 0 && m_cliqueBarrier)
    {
        for (uint32_t other : GetPlan(m_round).members)
        {
            if (other != m_island)
            {
                SendReady(m_round, other, false);
            }
        }
    }
    m_stepsDone = 0;
    if (m_localSteps > 0)
    {
        m_stepEvent = Simulator::Schedule(m_stepTime, &TrainingIslandApplication::LocalStep, this);
    }
    else
    {
        m_stepEvent = Simulator::ScheduleNow(&TrainingIslandApplication::StartExchange, this);
    }
}

void
TrainingIslandApplication::LocalStep()
{
    GetObjective().Step(m_parameters, m_learningRate);
    ++m_stepsDone;
    if (m_stepsDone < m_localSteps)
    {
        m_stepEvent = Simulator::Schedule(m_stepTime, &TrainingIslandApplication::LocalStep, this);
    }
    else
    {
        StartExchange();
    }
}

void
TrainingIslandApplication::StartExchange()
{
    NS_LOG_FUNCTION(this << m_round);
    const Plan& plan = GetPlan(m_round);
    m_exchangeStartedTrace(m_island, m_round, plan.clique, m_parameters);
    if (plan.members.size() < 2)
    {
        FinishRound();
        return;
    }
    TxState& tx = m_tx[m_round];
    tx.values = m_parameters;
    tx.multicast = IsMulticast();
    double now = Simulator::Now().GetSeconds();
    for (uint32_t other : plan.members)
    {
        if (other != m_island)
        {
            TxStream& stream = tx.streams[other];
            stream.destination = other;
            if (!tx.multicast)
            {
                stream.pending.Insert(0, plan.chunkCount);
            }
            stream.nextSendS = now;
        }
    }
    if (tx.multicast)
    {
        // One stream to the group; the members' streams carry only their repairs.
        tx.group.destination = ALL_MEMBERS;
        tx.group.pending.Insert(0, plan.chunkCount);
        tx.group.nextSendS = now;
    }
    // Multicast reaches every member at once, and an FPGA sums a chunk only when the
    // contributions of all members arrive together: in those modes the streams wait for every
    // member, in unicast mode each stream for its own receiver.
    tx.cliqueWide = IsMulticast() || IsAggregated();
    Time wait(0);
    for (auto& [destination, stream] : tx.streams)
    {
        if (m_cliqueBarrier && m_peerRound[destination] < m_round)
        {
            stream.waitingReady = true;
            ++tx.awaited;
            wait = std::max(wait, GetRtt(destination) + m_nackTimeout);
        }
    }
    if (tx.multicast)
    {
        ResumeStream(m_round, tx, tx.group);
    }
    for (auto& [destination, stream] : tx.streams)
    {
        ResumeStream(m_round, tx, stream);
    }
    if (wait > Time(0))
    {
        m_readyAttempts = 0;
        m_readyEvent =
            Simulator::Schedule(wait, &TrainingIslandApplication::ReadyTimeout, this, m_round);
    }

    RxState& rx = GetRxState(m_round);
    for (uint32_t v = 0; v < m_parameterCount; ++v)
    {
        rx.sum[v] += m_parameters[v];
    }
    rx.ownAdded = true;
    m_exchanging = true;
    CheckExchangeComplete();
}

void
TrainingIslandApplication::FinishRound()
{
    NS_LOG_FUNCTION(this << m_round);
    const Plan& plan = GetPlan(m_round);
    if (plan.members.size() >= 2)
    {
        auto it = m_rx.find(m_round);
        NS_ASSERT(it != m_rx.end());
        double k = static_cast<double>(plan.members.size());
        for (uint32_t v = 0; v < m_parameterCount; ++v)
        {
            m_parameters[v] = static_cast<float>(it->second.sum[v] / k);
        }
        m_rx.erase(it);
    }
    m_exchanging = false;
    m_roundFinishedTrace(m_island, m_round, plan.clique, m_parameters);
    ++m_round;
    StartRound();
}

TrainingIslandApplication::RxState&
TrainingIslandApplication::GetRxState(uint32_t round)
{
    auto it = m_rx.find(round);
    if (it != m_rx.end())
    {
        return it->second;
    }
    const Plan& plan = GetPlan(round);
    RxState& rx = m_rx[round];
    rx.sum.assign(m_parameterCount, 0.0);
    for (uint32_t other : plan.members)
    {
        if (other != m_island)
        {
            rx.streams[other];
        }
    }
    return rx;
}

void
TrainingIslandApplication::CheckExchangeComplete()
{
    if (!m_exchanging)
    {
        return;
    }
    auto it = m_rx.find(m_round);
    if (it != m_rx.end() && it->second.ownAdded &&
        it->second.completeStreams == it->second.streams.size())
    {
        FinishRound();
    }
}

bool
TrainingIslandApplication::HasWork(const TxState& tx, const TxStream& stream) const
{
    if (!stream.pending.IsEmpty())
    {
        return true;
    }
    if (&stream != &tx.group || !tx.multicast)
    {
        return false;
    }
    return std::any_of(tx.streams.begin(), tx.streams.end(), [](const auto& entry) {
        return !entry.second.done && !entry.second.pending.IsEmpty();
    });
}

void
TrainingIslandApplication::ResumeStream(uint32_t round, TxState& tx, TxStream& stream)
{
    // A member's stream of a multicast round has no pacer: the group stream sends its repairs.
    bool paced = !tx.multicast || &stream == &tx.group;
    bool blocked = tx.cliqueWide ? tx.awaited > 0 : stream.waitingReady;
    if (!paced || blocked || stream.sending || stream.done || !HasWork(tx, stream))
    {
        return;
    }
    double delay = stream.nextSendS - Simulator::Now().GetSeconds();
    stream.sendEvent = Simulator::Schedule(CeilNanoSeconds(delay),
                                           &TrainingIslandApplication::SendNext,
                                           this,
                                           round,
                                           stream.destination);
    stream.sending = true;
}

void
TrainingIslandApplication::SendNext(uint32_t round, uint32_t destination)
{
    auto txIt = m_tx.find(round);
    if (txIt == m_tx.end())
    {
        return;
    }
    TxState& tx = txIt->second;
    const bool group = destination == ALL_MEMBERS;
    TxStream& pacer = group ? tx.group : tx.streams.at(destination);
    pacer.sending = false;
    if (pacer.done || !HasWork(tx, pacer))
    {
        return;
    }
    const Plan& plan = GetPlan(round);
    TxStream* target = &pacer;
    if (group)
    {
        // Repairs first, one member after the other; then the next chunk for the group.
        auto it = tx.streams.lower_bound(tx.nextRepair);
        for (std::size_t k = 0; k < tx.streams.size(); ++k, ++it)
        {
            if (it == tx.streams.end())
            {
                it = tx.streams.begin();
            }
            if (!it->second.done && !it->second.pending.IsEmpty())
            {
                target = &it->second;
                tx.nextRepair = it->first + 1;
                break;
            }
        }
    }
    uint32_t chunk = target->pending.PopFront();
    bool resent = group ? target != &tx.group : chunk < target->sentFirst;
    if (target == &pacer)
    {
        pacer.sentFirst = std::max(pacer.sentFirst, chunk + 1);
    }
    SendChunk(round, tx, *target, chunk, resent);

    double now = Simulator::Now().GetSeconds();
    double rate = group ? plan.groupRateBps : plan.sendRateBps.at(destination);
    // Exact send times (no drift from nanosecond rounding); an idle stream restarts now.
    double start = std::max(pacer.nextSendS, now - 1e-9);
    pacer.nextSendS = start + 8.0 * GetWireBytes(plan, chunk) / rate;
    if (HasWork(tx, pacer))
    {
        ResumeStream(round, tx, pacer);
    }
    else if (group)
    {
        for (auto& [member, stream] : tx.streams)
        {
            if (!stream.done)
            {
                ScheduleProbe(round, stream, pacer.nextSendS);
            }
        }
    }
    else
    {
        ScheduleProbe(round, pacer, pacer.nextSendS);
    }
}

void
TrainingIslandApplication::ScheduleProbe(uint32_t round, TxStream& stream, double lastSendEndS)
{
    double now = Simulator::Now().GetSeconds();
    stream.probeEvent.Cancel();
    stream.probeEvent =
        Simulator::Schedule(CeilNanoSeconds(lastSendEndS - now) + GetProbeWait(stream.destination),
                            &TrainingIslandApplication::Probe,
                            this,
                            round,
                            stream.destination);
}

void
TrainingIslandApplication::Probe(uint32_t round, uint32_t destination)
{
    auto txIt = m_tx.find(round);
    if (txIt == m_tx.end())
    {
        return;
    }
    TxState& tx = txIt->second;
    TxStream& stream = tx.streams.at(destination);
    TxStream& pacer = tx.multicast ? tx.group : stream;
    if (stream.done || pacer.sending)
    {
        // Busy: the probe is rescheduled when the pacer runs dry.
        return;
    }
    if (++stream.attempts > m_maxRepairAttempts)
    {
        std::ostringstream reason;
        reason << "island " << m_topology->GetCity(m_island).id << ", round " << round
               << ": no acknowledgement from " << m_topology->GetCity(destination).id << " after "
               << m_maxRepairAttempts << " probes";
        Fail(reason.str());
        return;
    }
    const Plan& plan = GetPlan(round);
    uint32_t chunk = plan.chunkCount - 1;
    NS_LOG_LOGIC("island " << m_island << " probes " << destination << " round " << round);
    SendChunk(round, tx, stream, chunk, true);
    double now = Simulator::Now().GetSeconds();
    double rate = tx.multicast ? plan.groupRateBps : plan.sendRateBps.at(destination);
    pacer.nextSendS = std::max(pacer.nextSendS, now) + 8.0 * GetWireBytes(plan, chunk) / rate;
    stream.probeEvent = Simulator::Schedule(GetProbeWait(destination),
                                            &TrainingIslandApplication::Probe,
                                            this,
                                            round,
                                            destination);
}

void
TrainingIslandApplication::SendChunk(uint32_t round,
                                     TxState& tx,
                                     TxStream& stream,
                                     uint32_t chunk,
                                     bool resent)
{
    const Plan& plan = GetPlan(round);
    auto [offset, count] = GetValueSlice(plan, chunk);
    IslandSyncHeader header;
    header.SetType(IslandSyncHeader::DATA);
    header.SetJobId(m_jobId);
    header.SetRound(round);
    header.SetCliqueId(static_cast<uint16_t>(plan.clique));
    header.SetSender(static_cast<uint16_t>(m_island));
    header.SetChunkIndex(chunk);
    header.SetChunkCount(plan.chunkCount);
    header.SetContributors(Bit(m_island));
    header.SetValueOffset(offset);
    header.SetValues(
        std::vector<float>(tx.values.begin() + offset, tx.values.begin() + offset + count));
    uint32_t payload = GetPayloadBytes(plan, chunk);
    SendPacket(header, payload - IslandSyncHeader::VALUE_BYTES * count, stream.destination);
    ++m_chunksSent;
    if (resent)
    {
        ++m_chunksResent;
    }
    m_chunkSentTrace(m_island, stream.destination, header, payload, resent);
}

void
TrainingIslandApplication::SendPacket(const IslandSyncHeader& header,
                                      uint32_t paddingBytes,
                                      uint32_t destination)
{
    Ptr<Packet> packet = Create<Packet>(paddingBytes);
    packet->AddHeader(header);
    Ipv4Address to =
        destination == ALL_MEMBERS ? GetPlan(header.GetRound()).group : m_addresses[destination];
    int sent = m_socket->SendTo(packet, 0, InetSocketAddress(to, m_port));
    if (sent < 0)
    {
        NS_LOG_WARN("island " << m_island << ": send to " << destination
                              << " failed: " << m_socket->GetErrno());
    }
}

void
TrainingIslandApplication::RxTimeout(uint32_t round, uint32_t source)
{
    auto rxIt = m_rx.find(round);
    if (rxIt == m_rx.end())
    {
        return;
    }
    RxStream& stream = rxIt->second.streams.at(source);
    if (stream.complete)
    {
        return;
    }
    const Plan& plan = GetPlan(round);
    Time now = Simulator::Now();
    double interval = 8.0 * GetWireBytes(plan, 0) / plan.recvRateBps.at(source);
    // Behind an FPGA, a first stall may be a slot waiting for a slower contributor or for its
    // Timeout: wait until its (partial) aggregate must have left.
    Time idle = IsAggregated() && stream.attempts == 0 ? GetPatience(plan, source)
                                                       : GetStallTime(plan, source);
    Time due = std::max(stream.lastArrival + idle, stream.holdUntil);
    if (now < due)
    {
        stream.timer = Simulator::Schedule(due - now,
                                           &TrainingIslandApplication::RxTimeout,
                                           this,
                                           round,
                                           source);
        return;
    }
    if (++stream.attempts > m_maxRepairAttempts)
    {
        std::ostringstream reason;
        reason << "island " << m_topology->GetCity(m_island).id << ", round " << round
               << ": no progress on the stream from " << m_topology->GetCity(source).id << " after "
               << m_maxRepairAttempts << " NACKs";
        Fail(reason.str());
        return;
    }
    std::vector<ChunkRangeSet::Range> missing =
        stream.held.GetMissing(plan.chunkCount, GetMaxNackRanges(source));
    uint64_t chunks = 0;
    for (const auto& range : missing)
    {
        chunks += range.second - range.first;
    }
    SendNack(round, source, missing);
    stream.holdUntil = now + GetRtt(source) + m_nackTimeout + CeilNanoSeconds(chunks * interval);
    stream.timer = Simulator::Schedule(stream.holdUntil - now,
                                       &TrainingIslandApplication::RxTimeout,
                                       this,
                                       round,
                                       source);
}

void
TrainingIslandApplication::GapCheck(uint32_t round, uint32_t source)
{
    auto rxIt = m_rx.find(round);
    if (rxIt == m_rx.end())
    {
        return;
    }
    RxStream& stream = rxIt->second.streams.at(source);
    Time now = Simulator::Now();
    // What is still missing in the gaps whose patience is over: lost, not waiting in a slot.
    // Each gap is checked once; the stall timer repeats NACKs that were not answered.
    const uint32_t maxRanges = GetMaxNackRanges(source);
    std::vector<ChunkRangeSet::Range> missing;
    while (!stream.gapChecks.empty() && stream.gapChecks.front().due <= now)
    {
        const GapCheckEntry& gap = stream.gapChecks.front();
        for (uint32_t chunk = gap.first; chunk < gap.end && !stream.complete; ++chunk)
        {
            if (stream.held.Contains(chunk))
            {
                continue;
            }
            if (!missing.empty() && missing.back().second == chunk)
            {
                missing.back().second = chunk + 1;
            }
            else if (missing.size() < maxRanges)
            {
                missing.emplace_back(chunk, chunk + 1);
            }
        }
        stream.gapChecks.pop_front();
    }
    if (!stream.gapChecks.empty())
    {
        stream.gapEvent = Simulator::Schedule(stream.gapChecks.front().due - now,
                                              &TrainingIslandApplication::GapCheck,
                                              this,
                                              round,
                                              source);
    }
    if (missing.empty())
    {
        return;
    }
    const Plan& plan = GetPlan(round);
    uint64_t chunks = 0;
    for (const auto& range : missing)
    {
        chunks += range.second - range.first;
    }
    double interval = 8.0 * GetWireBytes(plan, 0) / plan.recvRateBps.at(source);
    SendNack(round, source, missing);
    stream.holdUntil =
        std::max(stream.holdUntil,
                 now + GetRtt(source) + m_nackTimeout + CeilNanoSeconds(chunks * interval));
}

void
TrainingIslandApplication::SendNack(uint32_t round,
                                    uint32_t source,
                                    const std::vector<ChunkRangeSet::Range>& ranges)
{
    const Plan& plan = GetPlan(round);
    IslandSyncHeader header;
    header.SetType(IslandSyncHeader::NACK);
    header.SetJobId(m_jobId);
    header.SetRound(round);
    header.SetCliqueId(static_cast<uint16_t>(plan.clique));
    header.SetSender(static_cast<uint16_t>(m_island));
    header.SetChunkCount(plan.chunkCount);
    header.SetContributors(Bit(source));
    header.SetRanges(ranges);
    uint32_t chunks = 0;
    for (const auto& range : ranges)
    {
        chunks += range.second - range.first;
    }
    NS_LOG_LOGIC("island " << m_island << " NACKs " << chunks << " chunks of " << source
                           << " in round " << round);
    SendPacket(header, 0, source);
    ++m_nacksSent;
    m_repairTrace(m_island, source, round, chunks);
}

void
TrainingIslandApplication::SendDone(uint32_t round, uint32_t source)
{
    const Plan& plan = GetPlan(round);
    IslandSyncHeader header;
    header.SetType(IslandSyncHeader::DONE);
    header.SetJobId(m_jobId);
    header.SetRound(round);
    header.SetCliqueId(static_cast<uint16_t>(plan.clique));
    header.SetSender(static_cast<uint16_t>(m_island));
    header.SetChunkCount(plan.chunkCount);
    header.SetContributors(Bit(source));
    SendPacket(header, 0, source);
}

void
TrainingIslandApplication::SendReady(uint32_t round, uint32_t destination, bool askAnswer)
{
    IslandSyncHeader header;
    header.SetType(IslandSyncHeader::READY);
    header.SetJobId(m_jobId);
    header.SetRound(round);
    header.SetSender(static_cast<uint16_t>(m_island));
    header.SetChunkIndex(askAnswer ? 1 : 0);
    header.SetContributors(Bit(m_island));
    SendPacket(header, 0, destination);
}

void
TrainingIslandApplication::UpdatePeerRound(uint32_t island, uint32_t round)
{
    if (round <= m_peerRound[island])
    {
        return;
    }
    m_peerRound[island] = round;
    for (auto& [txRound, tx] : m_tx)
    {
        auto it = tx.streams.find(island);
        if (txRound > round || it == tx.streams.end() || !it->second.waitingReady)
        {
            continue;
        }
        it->second.waitingReady = false;
        --tx.awaited;
        const double now = Simulator::Now().GetSeconds();
        if (!tx.cliqueWide)
        {
            it->second.nextSendS = now;
            ResumeStream(txRound, tx, it->second);
        }
        else if (tx.awaited == 0)
        {
            // Every member is ready: the streams start together.
            if (tx.multicast)
            {
                tx.group.nextSendS = now;
                ResumeStream(txRound, tx, tx.group);
            }
            for (auto& [member, stream] : tx.streams)
            {
                stream.nextSendS = now;
                ResumeStream(txRound, tx, stream);
            }
        }
    }
}

void
TrainingIslandApplication::ReadyTimeout(uint32_t round)
{
    auto txIt = m_tx.find(round);
    if (txIt == m_tx.end())
    {
        return;
    }
    Time wait(0);
    std::vector<uint32_t> waiting;
    for (auto& [destination, stream] : txIt->second.streams)
    {
        if (stream.waitingReady)
        {
            waiting.push_back(destination);
            wait = std::max(wait, GetRtt(destination) + m_nackTimeout);
        }
    }
    if (waiting.empty())
    {
        return;
    }
    if (++m_readyAttempts > m_maxRepairAttempts)
    {
        std::ostringstream reason;
        reason << "island " << m_topology->GetCity(m_island).id << ", round " << round
               << ": no answer from " << m_topology->GetCity(waiting.front()).id << " after "
               << m_maxRepairAttempts << " READY requests";
        Fail(reason.str());
        return;
    }
    for (uint32_t destination : waiting)
    {
        SendReady(round, destination, true);
    }
    m_readyEvent = Simulator::Schedule(wait, &TrainingIslandApplication::ReadyTimeout, this, round);
}

void
TrainingIslandApplication::HandleReady(const IslandSyncHeader& header)
{
    uint32_t peer = header.GetSender();
    // A READY from an awaited member shows it is alive, even when it is still behind (it then
    // answers with an older round): the wait goes on without counting as a failed attempt.
    auto txIt = m_tx.find(m_round);
    if (m_exchanging && txIt != m_tx.end())
    {
        auto it = txIt->second.streams.find(peer);
        if (it != txIt->second.streams.end() && it->second.waitingReady)
        {
            m_readyAttempts = 0;
        }
    }
    UpdatePeerRound(peer, header.GetRound());
    if (header.GetChunkIndex() == 1)
    {
        SendReady(m_round, peer, false);
    }
}

void
TrainingIslandApplication::HandleRead(Ptr<Socket> socket)
{
    Address from;
    while (Ptr<Packet> packet = socket->RecvFrom(from))
    {
        IslandSyncHeader header;
        uint32_t headerBytes = packet->PeekHeader(header);
        if (headerBytes == 0 || header.GetJobId() != m_jobId ||
            header.GetSender() >= m_addresses.size())
        {
            NS_LOG_LOGIC("island " << m_island << " rejects a packet of " << packet->GetSize()
                                   << " bytes");
            ++m_rejectedPackets;
            continue;
        }
        switch (header.GetType())
        {
        case IslandSyncHeader::DATA:
        case IslandSyncHeader::AGGREGATE:
            HandleChunk(header, packet->GetSize() - headerBytes);
            break;
        case IslandSyncHeader::NACK:
            HandleNack(header);
            break;
        case IslandSyncHeader::DONE:
            HandleDone(header);
            break;
        case IslandSyncHeader::READY:
            HandleReady(header);
            break;
        }
    }
}

void
TrainingIslandApplication::HandleChunk(const IslandSyncHeader& header, uint32_t paddingBytes)
{
    uint32_t round = header.GetRound();
    if (round >= m_rounds)
    {
        ++m_rejectedPackets;
        return;
    }
    const Plan& plan = GetPlan(round);
    uint64_t others = 0;
    for (uint32_t member : plan.members)
    {
        if (member != m_island)
        {
            others |= Bit(member);
        }
    }
    uint64_t contributors = header.GetContributors();
    uint32_t chunk = header.GetChunkIndex();
    if (plan.members.size() < 2 || header.GetCliqueId() != plan.clique ||
        (contributors & ~others) != 0 || header.GetChunkCount() != plan.chunkCount)
    {
        ++m_rejectedPackets;
        return;
    }
    auto [offset, count] = GetValueSlice(plan, chunk);
    uint32_t payload = GetPayloadBytes(plan, chunk);
    if (header.GetValues().size() != count || (count > 0 && header.GetValueOffset() != offset) ||
        IslandSyncHeader::VALUE_BYTES * count + paddingBytes != payload)
    {
        ++m_rejectedPackets;
        return;
    }

    if (header.GetType() == IslandSyncHeader::AGGREGATE)
    {
        ++m_aggregatesIn;
    }
    // Whoever contributed to a round-r chunk has started round r (behind an FPGA the
    // contributors' DATA never arrives: the aggregate's bitmap names them).
    for (uint32_t member : plan.members)
    {
        if (contributors & Bit(member))
        {
            UpdatePeerRound(member, round);
        }
    }
    if (round < m_round)
    {
        // The round is over here: every contribution is held. Acknowledge again (a DONE was
        // lost or the sender probes).
        ++m_duplicateChunks;
        m_chunkReceivedTrace(m_island, header, payload, true);
        for (uint32_t j = 0; j < IslandSyncHeader::MAX_ISLANDS; ++j)
        {
            if (contributors & Bit(j))
            {
                SendDone(round, j);
            }
        }
        return;
    }

    RxState& rx = GetRxState(round);
    uint64_t held = 0;
    for (auto& [source, stream] : rx.streams)
    {
        if ((contributors & Bit(source)) && stream.held.Contains(chunk))
        {
            held |= Bit(source);
        }
    }
    if (held != 0)
    {
        // A duplicate, or an aggregate overlapping what is held: its sum cannot be split.
        ++m_duplicateChunks;
        m_chunkReceivedTrace(m_island, header, payload, true);
        for (auto& [source, stream] : rx.streams)
        {
            if ((held & Bit(source)) && stream.complete)
            {
                SendDone(round, source);
            }
        }
        return;
    }

    const std::vector<float>& values = header.GetValues();
    for (uint32_t v = 0; v < count; ++v)
    {
        rx.sum[offset + v] += values[v];
    }
    m_chunkReceivedTrace(m_island, header, payload, false);

    Time now = Simulator::Now();
    for (auto& [source, stream] : rx.streams)
    {
        if (!(contributors & Bit(source)))
        {
            continue;
        }
        stream.held.Insert(chunk);
        stream.lastArrival = now;
        stream.attempts = 0;
        stream.started = true;
        double interval = 8.0 * GetWireBytes(plan, 0) / plan.recvRateBps.at(source);
        if (chunk > stream.nextFirst && IsAggregated())
        {
            // Behind an FPGA the gap's chunks may still wait in slots for another contributor:
            // NACK what is missing once their (partial) aggregates must have left.
            stream.gapChecks.push_back({now + GetPatience(plan, source), stream.nextFirst, chunk});
            if (!stream.gapEvent.IsRunning())
            {
                stream.gapEvent = Simulator::Schedule(GetPatience(plan, source),
                                                      &TrainingIslandApplication::GapCheck,
                                                      this,
                                                      round,
                                                      source);
            }
        }
        else if (chunk > stream.nextFirst)
        {
            // First transmissions of a stream arrive in order: a gap is a loss.
            std::vector<ChunkRangeSet::Range> gap{{stream.nextFirst, chunk}};
            SendNack(round, source, gap);
            stream.holdUntil = std::max(stream.holdUntil,
                                        now + GetRtt(source) + m_nackTimeout +
                                            CeilNanoSeconds((chunk - stream.nextFirst) * interval));
        }
        stream.nextFirst = std::max(stream.nextFirst, chunk + 1);
        if (stream.held.Covers(plan.chunkCount))
        {
            stream.complete = true;
            ++rx.completeStreams;
            stream.timer.Cancel();
            stream.gapEvent.Cancel();
            stream.gapChecks.clear();
            SendDone(round, source);
        }
        else if (!stream.timer.IsRunning())
        {
            Time idle = IsAggregated() ? GetPatience(plan, source) : GetStallTime(plan, source);
            stream.timer = Simulator::Schedule(idle,
                                               &TrainingIslandApplication::RxTimeout,
                                               this,
                                               round,
                                               source);
        }
    }
    if (round == m_round)
    {
        CheckExchangeComplete();
    }
}

void
TrainingIslandApplication::HandleNack(const IslandSyncHeader& header)
{
    uint32_t round = header.GetRound();
    uint32_t requester = header.GetSender();
    if (!(header.GetContributors() & Bit(m_island)))
    {
        ++m_rejectedPackets;
        return;
    }
    auto txIt = m_tx.find(round);
    if (txIt == m_tx.end())
    {
        // Not started yet (everything will be sent) or acknowledged by every member.
        return;
    }
    auto streamIt = txIt->second.streams.find(requester);
    if (streamIt == txIt->second.streams.end() ||
        header.GetChunkCount() != GetPlan(round).chunkCount)
    {
        ++m_rejectedPackets;
        return;
    }
    TxState& tx = txIt->second;
    TxStream& stream = streamIt->second;
    if (stream.done)
    {
        return;
    }
    stream.attempts = 0;
    // Multicast: the repair goes to the requester alone, through the group stream's pacer.
    TxStream& pacer = tx.multicast ? tx.group : stream;
    for (const auto& range : header.GetRanges())
    {
        // Only what was sent: the rest is pending anyway.
        stream.pending.Insert(range.first, std::min(range.second, pacer.sentFirst));
    }
    ResumeStream(round, tx, pacer);
}

void
TrainingIslandApplication::HandleDone(const IslandSyncHeader& header)
{
    uint32_t round = header.GetRound();
    if (!(header.GetContributors() & Bit(m_island)))
    {
        ++m_rejectedPackets;
        return;
    }
    auto txIt = m_tx.find(round);
    if (txIt == m_tx.end())
    {
        return;
    }
    TxState& tx = txIt->second;
    auto streamIt = tx.streams.find(header.GetSender());
    if (streamIt == tx.streams.end())
    {
        ++m_rejectedPackets;
        return;
    }
    TxStream& stream = streamIt->second;
    if (stream.done)
    {
        return;
    }
    stream.done = true;
    stream.sending = false;
    stream.sendEvent.Cancel();
    stream.probeEvent.Cancel();
    stream.pending.Clear();
    ++tx.doneStreams;
    if (tx.doneStreams == tx.streams.size())
    {
        tx.group.sendEvent.Cancel();
        m_tx.erase(txIt);
    }
}

} // namespace ns3
