/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "training-island-application.h"

#include "clique-membership.h"
#include "exchange-planner.h"
#include "island-timing.h"
#include "ring-exchange.h"
#include "wan-config-error.h"

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
#include <bitset>
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
            .AddAttribute(
                "Mode",
                "How a clique exchanges its models (doc/schedule-model.rst, capability modes): "
                "unicast, multicast (needs SetMulticastGroups), aggregation (needs "
                "in-line FPGAs), both, or ring (the unicast ring all-reduce baseline: "
                "reduce-scatter and all-gather around LinkLoadModel's ring order); "
                "tree is analytic only and rejected.",
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
                          "NACKs, probes or READY requests to one member without progress before "
                          "the island stops waiting: a member that never answered is excluded "
                          "from the round (MemberExcluded trace), a stream that stalled halfway "
                          "makes the island abandon the round (RoundAbandoned trace).",
                          UintegerValue(50),
                          MakeUintegerAccessor(&TrainingIslandApplication::m_maxRepairAttempts),
                          MakeUintegerChecker<uint32_t>(1))
            .AddAttribute("CrashRound",
                          "The island crashes at the start of this round: it takes no part in "
                          "it or any later round (it still serves repairs of earlier rounds); "
                          "the default never crashes.",
                          UintegerValue(NEVER),
                          MakeUintegerAccessor(&TrainingIslandApplication::m_crashRound),
                          MakeUintegerChecker<uint32_t>())
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
            .AddTraceSource(
                "RoundAbandoned",
                "The island could not complete a round (a stream stalled halfway after "
                "MaxRepairAttempts NACKs); it keeps its parameters and starts the next round.",
                MakeTraceSourceAccessor(&TrainingIslandApplication::m_roundAbandonedTrace),
                "ns3::TrainingIslandApplication::RoundAbandonedCallback")
            .AddTraceSource(
                "MemberExcluded",
                "A member of the island's clique was excluded from a round (it did not answer, "
                "or another member excluded it); the average is over the others.",
                MakeTraceSourceAccessor(&TrainingIslandApplication::m_memberExcludedTrace),
                "ns3::TrainingIslandApplication::MemberExcludedCallback")
            .AddTraceSource("Crashed",
                            "The island crashed at the start of a round (CrashRound).",
                            MakeTraceSourceAccessor(&TrainingIslandApplication::m_crashedTrace),
                            "ns3::TrainingIslandApplication::CrashedCallback")
            .AddTraceSource("RepairRequested",
                            "A NACK asked a contributor to resend chunks.",
                            MakeTraceSourceAccessor(&TrainingIslandApplication::m_repairTrace),
                            "ns3::TrainingIslandApplication::RepairRequestedCallback")
            .AddTraceSource("ControlSent",
                            "A control message (READY, DONE or NACK) was handed to the socket.",
                            MakeTraceSourceAccessor(&TrainingIslandApplication::m_controlSentTrace),
                            "ns3::TrainingIslandApplication::ControlSentCallback");
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
      m_crashRound(NEVER),
      m_island(0),
      m_multicastTtl(0),
      m_round(0),
      m_exchanging(false),
      m_stepsDone(0),
      m_running(false),
      m_crashed(false),
      m_lastContributors(0),
      m_chunksSent(0),
      m_chunksResent(0),
      m_nacksSent(0),
      m_duplicateChunks(0),
      m_aggregatesIn(0),
      m_rejectedPackets(0),
      m_abandoned(0)
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
    const ExchangePlan& plan = GetPlan(round);
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
    const ExchangePlan& plan = GetPlan(round);
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

bool
TrainingIslandApplication::IsRing() const
{
    return m_mode == CapabilityMode::RING;
}

IslandExchange&
TrainingIslandApplication::GetExchange(const ExchangePlan& plan) const
{
    Ptr<IslandExchange>& exchange = m_exchanges[plan.mode];
    if (!exchange)
    {
        exchange = IslandExchange::Create(plan.mode);
    }
    return *exchange;
}

const RingExchange&
TrainingIslandApplication::GetRing(const ExchangePlan& plan) const
{
    auto* ring = dynamic_cast<const RingExchange*>(&GetExchange(plan));
    NS_ABORT_MSG_IF(ring == nullptr, "TrainingIslandApplication: the plan is no ring plan");
    return *ring;
}

uint32_t
TrainingIslandApplication::GetRingStep(const IslandSyncHeader& header) const
{
    if (!m_membership || header.GetRound() >= m_rounds)
    {
        return NO_RING_STEP;
    }
    const ExchangePlan& plan = GetPlan(header.GetRound());
    return GetExchange(plan).GetStepOf(plan, header);
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
    m_membership.reset();
    m_planner.reset();
    m_exchanges.clear();
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
    NS_ABORT_MSG_IF(IsMulticast() && m_groups.size() != m_schedule->GetNRounds(),
                    "TrainingIslandApplication ("
                        << id << "): mode '" << CapabilityModeToString(m_mode)
                        << "' needs one multicast group per schedule round (SetMulticastGroups; "
                           "TrainingHelper::SetMulticast does it), got "
                        << m_groups.size() << " for " << m_schedule->GetNRounds() << " rounds");
    ExchangePlanner::Config config;
    config.mode = m_mode;
    config.modelBytes = m_modelBytes;
    config.chunkBytes = m_chunkBytesAttr;
    config.parameterCount = m_parameterCount;
    config.streamRateBps = static_cast<double>(m_streamRate.GetBitRate());
    std::vector<ExchangePlan> plans;
    try
    {
        m_planner = std::make_unique<ExchangePlanner>(*m_topology, *m_schedule, config);
        plans = m_planner->GetPlans(m_island);
    }
    catch (const WanConfigError& error)
    {
        NS_FATAL_ERROR("TrainingIslandApplication (" << id << "): " << error.what());
    }
    for (uint32_t sr = 0; sr < plans.size() && IsMulticast(); ++sr)
    {
        ExchangePlan& plan = plans[sr];
        if (plan.members.size() >= 2)
        {
            plan.group = m_groups[sr];
            NS_ABORT_MSG_UNLESS(plan.group.IsMulticast(),
                                "TrainingIslandApplication ("
                                    << id << "): the group of schedule round " << sr << ", "
                                    << plan.group << ", is not a multicast address");
        }
    }
    m_membership = std::make_unique<CliqueMembership>(m_island,
                                                      m_jobId,
                                                      m_rounds,
                                                      *m_topology,
                                                      *m_planner,
                                                      std::move(plans),
                                                      m_maxRepairAttempts,
                                                      m_nackTimeout);
    CliqueMembership::Callbacks callbacks;
    callbacks.send = MakeCallback(&TrainingIslandApplication::SendControl, this);
    callbacks.peerStarted = MakeCallback(&TrainingIslandApplication::PeerStarted, this);
    callbacks.memberExcluded = MakeCallback(&TrainingIslandApplication::NoteExclusion, this);
    callbacks.viewChanged = MakeCallback(&TrainingIslandApplication::FitExchangeToView, this);
    callbacks.viewApplied = MakeCallback(&TrainingIslandApplication::ViewApplied, this);
    callbacks.heldFrom = MakeCallback(&TrainingIslandApplication::GetHeldFrom, this);
    callbacks.rejected = MakeCallback(&TrainingIslandApplication::RejectPacket, this);
    callbacks.currentRound = MakeCallback(&TrainingIslandApplication::GetCurrentRound, this);
    callbacks.active = MakeCallback(&TrainingIslandApplication::IsActive, this);
    m_membership->SetCallbacks(callbacks);
}

const ExchangePlan&
TrainingIslandApplication::GetPlan(uint32_t round) const
{
    NS_ABORT_MSG_IF(!m_membership,
                    "TrainingIslandApplication: the plans are built when the application starts");
    return m_membership->GetPlan(round);
}

const ExchangePlan&
TrainingIslandApplication::GetBasePlan(uint32_t round) const
{
    NS_ABORT_MSG_IF(!m_membership,
                    "TrainingIslandApplication: the plans are built when the application starts");
    return m_membership->GetBasePlan(round);
}

bool
TrainingIslandApplication::HasSendState(uint32_t round) const
{
    return m_tx.find(round) != m_tx.end();
}

uint32_t
TrainingIslandApplication::GetCurrentRound() const
{
    return m_round;
}

bool
TrainingIslandApplication::IsActive() const
{
    return m_running && !m_crashed;
}

void
TrainingIslandApplication::SendControl(const IslandSyncHeader& header, uint32_t destination)
{
    SendPacket(header, 0, destination);
}

void
TrainingIslandApplication::NoteExclusion(uint32_t round, uint32_t member, const std::string& reason)
{
    m_memberExcludedTrace(m_island, round, member, reason);
}

void
TrainingIslandApplication::RejectPacket()
{
    ++m_rejectedPackets;
}

uint64_t
TrainingIslandApplication::GetHeldFrom(uint32_t round) const
{
    uint64_t held = 0;
    auto rxIt = m_rx.find(round);
    if (IsRing() || rxIt == m_rx.end())
    {
        return held;
    }
    for (const auto& [source, stream] : rxIt->second.streams)
    {
        if (stream.IsStarted())
        {
            held |= Bit(source);
        }
    }
    return held;
}

Time
TrainingIslandApplication::GetRtt(uint32_t other) const
{
    double ms = m_topology->GetRoute(m_island, other).latencyMs +
                m_topology->GetRoute(other, m_island).latencyMs;
    return IslandTiming::CeilNanoSeconds(ms * 1e-3);
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
TrainingIslandApplication::GetStallTime(const ExchangePlan& plan, uint32_t source) const
{
    double interval = 8.0 * plan.GetWireBytes(0) / plan.recvRateBps.at(source);
    return std::max(m_nackTimeout, IslandTiming::CeilNanoSeconds(4 * interval));
}

Time
TrainingIslandApplication::GetPatience(const ExchangePlan& plan, uint32_t source) const
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
    m_running = true;
    StartRound();
}

const std::string&
TrainingIslandApplication::GetFailure() const
{
    return m_failure;
}

uint32_t
TrainingIslandApplication::GetAbandonedRounds() const
{
    return m_abandoned;
}

uint32_t
TrainingIslandApplication::GetExclusions() const
{
    return m_membership ? m_membership->GetExclusions() : 0;
}

bool
TrainingIslandApplication::HasCrashed() const
{
    return m_crashed;
}

uint64_t
TrainingIslandApplication::GetRoundContributors() const
{
    return m_lastContributors;
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
            stream.Cancel();
        }
    }
    for (auto& [round, tx] : m_tx)
    {
        for (auto& [destination, stream] : tx.streams)
        {
            stream.Cancel();
        }
        tx.group.GetPacer().Stop();
    }
    m_rx.clear();
    m_tx.clear();
    m_running = false;
    if (m_socket)
    {
        m_socket->SetRecvCallback(MakeNullCallback<void, Ptr<Socket>>());
        m_socket->Close();
        m_socket = nullptr;
    }
}

void
TrainingIslandApplication::Crash()
{
    NS_LOG_FUNCTION(this << m_round);
    NS_LOG_INFO("island " << m_topology->GetCity(m_island).id << " crashes at round " << m_round);
    m_crashed = true;
    m_exchanging = false;
    m_stepEvent.Cancel();
    m_readyEvent.Cancel();
    // Nothing of this round or a later one: drop what arrived early.
    for (auto& [round, rx] : m_rx)
    {
        for (auto& [key, stream] : rx.streams)
        {
            stream.Cancel();
        }
    }
    m_rx.clear();
    m_crashedTrace(m_island, m_round);
    CloseIfIdle();
}

void
TrainingIslandApplication::CloseIfIdle()
{
    if (m_crashed && m_running && m_tx.empty())
    {
        NS_LOG_INFO("island " << m_topology->GetCity(m_island).id
                              << " owes nothing any more and closes");
        StopApplication();
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
    if (m_round == m_crashRound)
    {
        Crash();
        return;
    }
    m_membership->PruneViews(m_round, MakeCallback(&TrainingIslandApplication::HasSendState, this));
    const uint64_t excluded = m_membership->TakeStartExclusions(m_round);
    m_roundStartedTrace(m_island, m_round);
    m_membership->AnnounceRound(m_round, excluded, m_cliqueBarrier);
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
    m_exchangeStartedTrace(m_island, m_round, GetPlan(m_round).clique, m_parameters);
    BeginExchange();
}

void
TrainingIslandApplication::BeginExchange()
{
    NS_LOG_FUNCTION(this << m_round);
    const ExchangePlan& plan = GetPlan(m_round);
    if (plan.members.size() < 2)
    {
        FinishRound();
        return;
    }
    TxState& tx = m_tx[m_round];
    tx.values = m_parameters;
    tx.multicast = IsMulticast();
    RxState& rx = GetRxState(m_round);
    if (IsRing())
    {
        // One stream per step toward the successor, all sent by the ring's pacer.
        tx.ringValues = rx.ringValues;
        tx.group.m_destination = plan.successor;
        tx.group.GetPacer().Configure(
            StreamPacer::LOWEST_STEP,
            MakeCallback(&TrainingIslandApplication::SendNext, this).Bind(m_round, plan.successor));
        tx.group.GetPacer().RestartNow();
        for (uint32_t step = 0; step < GetRing(plan).GetSteps(plan); ++step)
        {
            SendStream& stream = tx.streams[step];
            stream.m_destination = plan.successor;
            stream.m_step = step;
            stream.SetProbeCallback(
                MakeCallback(&TrainingIslandApplication::Probe, this).Bind(m_round, step));
            auto [first, end] = GetRing(plan).GetStepChunks(plan, plan.ringPosition, step);
            stream.m_pending.Insert(first, end);
            stream.m_sentFirst = first;
            stream.GetPacer().RestartNow();
            // A step's values are held once the predecessor's previous step is.
            stream.m_waitingStep = step > 0 && !rx.streams.at(step - 1).IsComplete();
        }
    }
    else
    {
        for (uint32_t other : plan.members)
        {
            if (other != m_island)
            {
                SendStream& stream = tx.streams[other];
                stream.m_destination = other;
                stream.SetProbeCallback(
                    MakeCallback(&TrainingIslandApplication::Probe, this).Bind(m_round, other));
                stream.GetPacer().Configure(
                    StreamPacer::OWN,
                    MakeCallback(&TrainingIslandApplication::SendNext, this).Bind(m_round, other));
                if (!tx.multicast)
                {
                    stream.m_pending.Insert(0, plan.chunkCount);
                }
                stream.GetPacer().RestartNow();
            }
        }
    }
    if (tx.multicast)
    {
        // One stream to the group; the members' streams carry only their repairs.
        tx.group.m_destination = ALL_MEMBERS;
        tx.group.GetPacer().Configure(
            StreamPacer::GROUP,
            MakeCallback(&TrainingIslandApplication::SendNext, this).Bind(m_round, ALL_MEMBERS));
        tx.group.m_pending.Insert(0, plan.chunkCount);
        tx.group.GetPacer().RestartNow();
    }
    // Multicast reaches every member at once, and an FPGA sums a chunk only when the
    // contributions of all members arrive together: in those modes the streams wait for every
    // member, in unicast mode each stream for its own receiver, in ring mode the ring's pacer
    // for the successor.
    tx.cliqueWide = IsMulticast() || IsAggregated();
    if (IsRing())
    {
        if (m_cliqueBarrier && m_membership->GetPeerRound(plan.successor) < m_round)
        {
            tx.group.m_waitingReady = true;
            ++tx.awaited;
        }
    }
    else
    {
        for (auto& [destination, stream] : tx.streams)
        {
            if (m_cliqueBarrier && m_membership->GetPeerRound(destination) < m_round)
            {
                stream.m_waitingReady = true;
                ++tx.awaited;
            }
        }
    }
    if (tx.multicast || IsRing())
    {
        ResumeStream(tx, tx.group);
    }
    for (auto& [destination, stream] : tx.streams)
    {
        ResumeStream(tx, stream);
    }
    // Every member the exchange waits for is asked, and excluded when it never answers.
    m_membership->ResetSilence();
    m_readyEvent.Cancel();
    m_readyEvent = Simulator::Schedule(GetReadyPeriod(m_round),
                                       &TrainingIslandApplication::ReadyTimeout,
                                       this,
                                       m_round);

    GetExchange(plan).AddOwn(plan, m_parameters, rx.sum);
    rx.ownAdded = true;
    m_exchanging = true;
    CheckExchangeComplete();
}

void
TrainingIslandApplication::FinishRound()
{
    NS_LOG_FUNCTION(this << m_round);
    const ExchangePlan& plan = GetPlan(m_round);
    m_readyEvent.Cancel();
    if (plan.members.size() < 2)
    {
        // Idle, alone, or every other member excluded: the parameters stay; drop what may have
        // arrived for a larger view.
        auto it = m_rx.find(m_round);
        if (it != m_rx.end())
        {
            for (auto& [key, stream] : it->second.streams)
            {
                stream.Cancel();
            }
            m_rx.erase(it);
        }
        m_lastContributors = Bit(m_island);
    }
    else
    {
        m_lastContributors = plan.GetMemberBits();
        auto it = m_rx.find(m_round);
        NS_ASSERT(it != m_rx.end());
        // m_parameters still holds the snapshot.
        GetExchange(plan).Average(plan, it->second.sum, it->second.ringValues.get(), m_parameters);
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
    const ExchangePlan& plan = GetPlan(round);
    RxState& rx = m_rx[round];
    if (IsRing())
    {
        rx.ringValues = std::make_shared<RingValues>();
        rx.ringValues->partial.assign(m_parameterCount, 0.0F);
        rx.ringValues->reduced.assign(m_parameterCount, 0.0F);
        const RingExchange& ring = GetRing(plan);
        const uint32_t predecessorPosition = ring.GetPredecessorPosition(plan);
        for (uint32_t step = 0; step < ring.GetSteps(plan); ++step)
        {
            auto [first, end] = ring.GetStepChunks(plan, predecessorPosition, step);
            ReceiveStream& stream = rx.streams
                                        .try_emplace(step,
                                                     plan.predecessor,
                                                     step,
                                                     first,
                                                     end,
                                                     GetReceiveTiming(plan, plan.predecessor))
                                        .first->second;
            stream.SetCallbacks(
                MakeCallback(&TrainingIslandApplication::SendNack, this).Bind(round, step),
                MakeCallback(&TrainingIslandApplication::StreamExhausted, this).Bind(round, step));
        }
        return rx;
    }
    rx.sum.assign(m_parameterCount, 0.0);
    for (uint32_t other : plan.members)
    {
        if (other != m_island)
        {
            ReceiveStream& stream =
                rx.streams
                    .try_emplace(other, other, 0, 0, plan.chunkCount, GetReceiveTiming(plan, other))
                    .first->second;
            stream.SetCallbacks(
                MakeCallback(&TrainingIslandApplication::SendNack, this).Bind(round, other),
                MakeCallback(&TrainingIslandApplication::StreamExhausted, this).Bind(round, other));
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
TrainingIslandApplication::HasWork(const TxState& tx, const SendStream& stream) const
{
    return stream.GetPacer().HasWork(stream, tx.streams);
}

SendStream&
TrainingIslandApplication::GetPacer(TxState& tx, SendStream& stream)
{
    return tx.multicast || IsRing() ? tx.group : stream;
}

void
TrainingIslandApplication::ReleaseRingStep(uint32_t round, uint32_t step)
{
    auto txIt = m_tx.find(round);
    if (txIt == m_tx.end())
    {
        // Not exchanging yet: StartExchange finds the previous step held.
        return;
    }
    TxState& tx = txIt->second;
    auto it = tx.streams.find(step);
    if (it == tx.streams.end() || !it->second.m_waitingStep)
    {
        return;
    }
    it->second.m_waitingStep = false;
    ResumeStream(tx, tx.group);
}

void
TrainingIslandApplication::ResumeStream(TxState& tx, SendStream& stream)
{
    // A member's stream of a multicast round and a ring step have no pacer of their own: the
    // group stream (the ring's pacer) sends their chunks.
    bool paced = &GetPacer(tx, stream) == &stream;
    bool blocked = tx.cliqueWide ? tx.awaited > 0 : stream.m_waitingReady;
    if (!paced || blocked || stream.GetPacer().IsSending() || stream.m_done || !HasWork(tx, stream))
    {
        return;
    }
    stream.GetPacer().Start();
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
    SendStream& paced = group || IsRing() ? tx.group : tx.streams.at(destination);
    StreamPacer& pacer = paced.GetPacer();
    if (paced.m_done || !HasWork(tx, paced))
    {
        return;
    }
    const ExchangePlan& plan = GetPlan(round);
    SendStream& target = pacer.Pick(paced, tx.streams);
    uint32_t chunk = target.m_pending.PopFront();
    bool resent = group ? &target != &tx.group : chunk < target.m_sentFirst;
    if (&target == &paced || IsRing())
    {
        target.m_sentFirst = std::max(target.m_sentFirst, chunk + 1);
    }
    SendChunk(round, tx, target, chunk, resent);

    double rate = group ? plan.groupRateBps : plan.sendRateBps.at(paced.m_destination);
    const double end = pacer.Advance(plan.GetWireBytes(chunk), rate);
    if (IsRing() && target.m_pending.IsEmpty())
    {
        // The step's last chunk has left: wait for its DONE.
        ScheduleProbe(target, end);
    }
    if (HasWork(tx, paced))
    {
        ResumeStream(tx, paced);
    }
    else if (IsRing())
    {
        // Probes wait while the pacer is busy: restart those of every step sent out.
        for (auto& [step, stream] : tx.streams)
        {
            if (!stream.m_done && !stream.m_waitingStep && stream.m_pending.IsEmpty())
            {
                ScheduleProbe(stream, end);
            }
        }
    }
    else if (group)
    {
        for (auto& [member, stream] : tx.streams)
        {
            if (!stream.m_done)
            {
                ScheduleProbe(stream, end);
            }
        }
    }
    else
    {
        ScheduleProbe(paced, end);
    }
}

void
TrainingIslandApplication::ScheduleProbe(SendStream& stream, double lastSendEndS)
{
    double now = Simulator::Now().GetSeconds();
    stream.ScheduleProbe(IslandTiming::CeilNanoSeconds(lastSendEndS - now) +
                         GetProbeWait(stream.m_destination));
}

void
TrainingIslandApplication::Probe(uint32_t round, uint32_t key)
{
    auto txIt = m_tx.find(round);
    if (txIt == m_tx.end())
    {
        return;
    }
    TxState& tx = txIt->second;
    SendStream& stream = tx.streams.at(key);
    StreamPacer& pacer = GetPacer(tx, stream).GetPacer();
    const uint32_t destination = stream.m_destination;
    if (stream.m_done || pacer.IsSending())
    {
        // Busy: the probe is rescheduled when the pacer runs dry.
        return;
    }
    if (stream.CountProbe(m_maxRepairAttempts))
    {
        GiveUpStream(round, key);
        return;
    }
    const ExchangePlan& plan = GetPlan(round);
    uint32_t chunk = plan.chunkCount - 1;
    if (IsRing())
    {
        // The last chunk of the step's segment.
        chunk = GetRing(plan).GetStepChunks(plan, plan.ringPosition, stream.m_step).second - 1;
    }
    NS_LOG_LOGIC("island " << m_island << " probes " << destination << " round " << round);
    SendChunk(round, tx, stream, chunk, true);
    double rate = tx.multicast ? plan.groupRateBps : plan.sendRateBps.at(destination);
    pacer.AdvanceAfterProbe(plan.GetWireBytes(chunk), rate);
    stream.ScheduleProbe(GetProbeWait(destination));
}

void
TrainingIslandApplication::SendChunk(uint32_t round,
                                     TxState& tx,
                                     SendStream& stream,
                                     uint32_t chunk,
                                     bool resent)
{
    const ExchangePlan& plan = GetPlan(round);
    auto [offset, count] = plan.GetValueSlice(chunk);
    IslandSyncHeader header;
    header.SetType(IslandSyncHeader::DATA);
    header.SetJobId(m_jobId);
    header.SetRound(round);
    header.SetCliqueIndex(static_cast<uint16_t>(plan.clique));
    header.SetEpoch(plan.epoch);
    header.SetSender(static_cast<uint16_t>(m_island));
    header.SetChunkIndex(chunk);
    header.SetChunkCount(plan.chunkCount);
    header.SetValueOffset(offset);
    GetExchange(plan)
        .FillChunk(plan, stream.m_step, tx.values, tx.ringValues.get(), offset, count, header);
    uint32_t payload = plan.GetPayloadBytes(chunk);
    SendPacket(header, payload - IslandSyncHeader::VALUE_BYTES * count, stream.m_destination);
    ++m_chunksSent;
    if (resent)
    {
        ++m_chunksResent;
    }
    m_chunkSentTrace(m_island, stream.m_destination, header, payload, resent);
}

void
TrainingIslandApplication::SendPacket(const IslandSyncHeader& header,
                                      uint32_t paddingBytes,
                                      uint32_t destination)
{
    Ptr<Packet> packet = Create<Packet>(paddingBytes);
    packet->AddHeader(header);
    if (!m_socket)
    {
        return;
    }
    Ipv4Address to =
        destination == ALL_MEMBERS ? GetPlan(header.GetRound()).group : m_addresses[destination];
    int sent = m_socket->SendTo(packet, 0, InetSocketAddress(to, m_port));
    if (sent < 0)
    {
        NS_LOG_WARN("island " << m_island << ": send to " << destination
                              << " failed: " << m_socket->GetErrno());
    }
    else if (header.GetType() != IslandSyncHeader::DATA &&
             header.GetType() != IslandSyncHeader::AGGREGATE)
    {
        m_controlSentTrace(m_island, destination, header);
    }
}

void
TrainingIslandApplication::StreamExhausted(uint32_t round, uint32_t key)
{
    const ReceiveStream& stream = m_rx.at(round).streams.at(key);
    const uint32_t source = stream.GetSource();
    std::ostringstream reason;
    reason << "island " << m_topology->GetCity(m_island).id << ", round " << round
           << ": no progress on the stream from " << m_topology->GetCity(source).id;
    if (IsRing())
    {
        reason << " (ring step " << stream.GetStep() << ")";
    }
    reason << " after " << m_maxRepairAttempts << " NACKs";
    if (IsRing())
    {
        // The ring state is rebuilt over the other members: nothing of this one is kept.
        m_membership->ExcludeMember(round, source, reason.str());
    }
    else if (round == m_round && m_exchanging)
    {
        // Part of its contribution is in the sum and the rest cannot be had.
        AbandonRound(reason.str());
    }
}

ReceiveStream::Timing
TrainingIslandApplication::GetReceiveTiming(const ExchangePlan& plan, uint32_t source) const
{
    ReceiveStream::Timing timing;
    timing.stallTime = GetStallTime(plan, source);
    timing.patience = GetPatience(plan, source);
    timing.repairWait = GetRtt(source) + m_nackTimeout;
    timing.intervalS = 8.0 * plan.GetWireBytes(0) / plan.recvRateBps.at(source);
    timing.maxRanges = GetMaxNackRanges(source);
    timing.maxAttempts = m_maxRepairAttempts;
    timing.behindFpga = IsAggregated();
    return timing;
}

IslandSyncHeader
TrainingIslandApplication::MakeStreamReply(IslandSyncHeader::Type type,
                                           uint32_t round,
                                           uint32_t key,
                                           uint32_t& source) const
{
    const ExchangePlan& plan = GetPlan(round);
    IslandSyncHeader header;
    header.SetType(type);
    header.SetJobId(m_jobId);
    header.SetRound(round);
    header.SetCliqueIndex(static_cast<uint16_t>(plan.clique));
    header.SetEpoch(plan.epoch);
    header.SetSender(static_cast<uint16_t>(m_island));
    header.SetChunkCount(plan.chunkCount);
    source = key;
    if (IsRing())
    {
        // The step's contributor set and the first chunk of its segment name the step.
        const RingExchange& ring = GetRing(plan);
        const uint32_t position = ring.GetPredecessorPosition(plan);
        source = plan.predecessor;
        header.SetContributors(ring.GetContributors(plan, position, key));
        header.SetChunkIndex(ring.GetStepChunks(plan, position, key).first);
    }
    else
    {
        header.SetContributors(Bit(source));
    }
    return header;
}

void
TrainingIslandApplication::SendNack(uint32_t round,
                                    uint32_t key,
                                    const std::vector<ChunkRangeSet::Range>& ranges)
{
    uint32_t source = 0;
    IslandSyncHeader header = MakeStreamReply(IslandSyncHeader::NACK, round, key, source);
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
TrainingIslandApplication::SendDone(uint32_t round, uint32_t key)
{
    uint32_t source = 0;
    const IslandSyncHeader header = MakeStreamReply(IslandSyncHeader::DONE, round, key, source);
    SendPacket(header, 0, source);
}

void
TrainingIslandApplication::PeerStarted(uint32_t island, uint32_t round)
{
    for (auto& [txRound, tx] : m_tx)
    {
        if (IsRing())
        {
            // The ring's pacer waits for the successor alone.
            if (txRound <= round && tx.group.m_waitingReady && tx.group.m_destination == island)
            {
                tx.group.m_waitingReady = false;
                --tx.awaited;
                tx.group.GetPacer().RestartNow();
                ResumeStream(tx, tx.group);
            }
            continue;
        }
        auto it = tx.streams.find(island);
        if (txRound > round || it == tx.streams.end() || !it->second.m_waitingReady)
        {
            continue;
        }
        it->second.m_waitingReady = false;
        --tx.awaited;
        if (!tx.cliqueWide)
        {
            it->second.GetPacer().RestartNow();
            ResumeStream(tx, it->second);
        }
        else if (tx.awaited == 0)
        {
            // Every member is ready: the streams start together.
            if (tx.multicast)
            {
                tx.group.GetPacer().RestartNow();
                ResumeStream(tx, tx.group);
            }
            for (auto& [member, stream] : tx.streams)
            {
                stream.GetPacer().RestartNow();
                ResumeStream(tx, stream);
            }
        }
    }
}

Time
TrainingIslandApplication::GetReadyPeriod(uint32_t round) const
{
    const ExchangePlan& plan = GetPlan(round);
    Time period = m_nackTimeout;
    for (uint32_t member : plan.members)
    {
        if (member != m_island)
        {
            period = std::max(period, GetRtt(member) + m_nackTimeout);
        }
    }
    return period;
}

std::vector<uint32_t>
TrainingIslandApplication::GetAwaited(uint32_t round) const
{
    const ExchangePlan& plan = GetPlan(round);
    auto txIt = m_tx.find(round);
    auto rxIt = m_rx.find(round);
    return GetExchange(plan).GetAwaited(plan,
                                        txIt != m_tx.end() ? &txIt->second.group : nullptr,
                                        txIt != m_tx.end() ? &txIt->second.streams : nullptr,
                                        rxIt != m_rx.end() ? &rxIt->second.streams : nullptr);
}

void
TrainingIslandApplication::ReadyTimeout(uint32_t round)
{
    if (!m_exchanging || round != m_round)
    {
        return;
    }
    std::vector<uint32_t> awaited = GetAwaited(round);
    std::vector<uint32_t> silent;
    for (uint32_t member : awaited)
    {
        if (m_membership->CountSilence(member))
        {
            silent.push_back(member);
        }
        else
        {
            m_membership->SendReady(round, member, true);
        }
    }
    for (uint32_t member : silent)
    {
        if (!m_exchanging || m_round != round)
        {
            return;
        }
        std::ostringstream reason;
        reason << "no answer from " << m_topology->GetCity(member).id << " to "
               << m_maxRepairAttempts << " READY requests";
        m_membership->ExcludeMember(round, member, reason.str());
    }
    if (m_exchanging && m_round == round && (IsRing() || !awaited.empty()) &&
        !m_readyEvent.IsRunning())
    {
        m_readyEvent = Simulator::Schedule(GetReadyPeriod(round),
                                           &TrainingIslandApplication::ReadyTimeout,
                                           this,
                                           round);
    }
}

void
TrainingIslandApplication::ViewApplied(uint32_t round)
{
    if (m_exchanging && round == m_round)
    {
        if (IsRing())
        {
            BeginExchange();
        }
        else
        {
            CheckExchangeComplete();
        }
    }
}

void
TrainingIslandApplication::FitExchangeToView(uint32_t round)
{
    NS_LOG_FUNCTION(this << round);
    auto rxIt = m_rx.find(round);
    const ExchangePlan& plan = GetPlan(round);
    if (IsRing())
    {
        // The ring's exchange starts again over the new ring: drop the old one's state.
        if (rxIt != m_rx.end())
        {
            for (auto& [step, stream] : rxIt->second.streams)
            {
                stream.Cancel();
            }
            m_rx.erase(rxIt);
        }
        auto txIt = m_tx.find(round);
        if (txIt != m_tx.end())
        {
            for (auto& [step, stream] : txIt->second.streams)
            {
                stream.Cancel();
            }
            txIt->second.group.GetPacer().Stop();
            m_tx.erase(txIt);
        }
        return;
    }
    if (rxIt != m_rx.end())
    {
        RxState& rx = rxIt->second;
        for (auto it = rx.streams.begin(); it != rx.streams.end();)
        {
            if (plan.excluded & Bit(it->first))
            {
                it->second.Cancel();
                if (it->second.IsComplete())
                {
                    --rx.completeStreams;
                }
                it = rx.streams.erase(it);
            }
            else
            {
                ++it;
            }
        }
    }
    auto txIt = m_tx.find(round);
    if (txIt == m_tx.end())
    {
        return;
    }
    TxState& tx = txIt->second;
    for (auto it = tx.streams.begin(); it != tx.streams.end();)
    {
        if (!(plan.excluded & Bit(it->first)))
        {
            ++it;
            continue;
        }
        SendStream& stream = it->second;
        stream.Cancel();
        if (stream.m_waitingReady)
        {
            --tx.awaited;
        }
        if (stream.m_done)
        {
            --tx.doneStreams;
        }
        it = tx.streams.erase(it);
    }
    if (tx.streams.empty() || tx.doneStreams == tx.streams.size())
    {
        tx.group.GetPacer().Stop();
        m_tx.erase(txIt);
        return;
    }
    if (tx.cliqueWide && tx.awaited == 0)
    {
        // The members left have all announced the round: the streams start together.
        if (tx.multicast)
        {
            tx.group.GetPacer().NotBeforeNow();
            ResumeStream(tx, tx.group);
        }
        for (auto& [member, stream] : tx.streams)
        {
            stream.GetPacer().NotBeforeNow();
            ResumeStream(tx, stream);
        }
    }
}

void
TrainingIslandApplication::GiveUpStream(uint32_t round, uint32_t key)
{
    auto txIt = m_tx.find(round);
    if (txIt == m_tx.end())
    {
        return;
    }
    const uint32_t destination = txIt->second.streams.at(key).m_destination;
    NS_LOG_INFO("island " << m_island << " gives up the stream of round " << round << " to "
                          << destination);
    if (!m_crashed && round == m_round && m_exchanging)
    {
        std::ostringstream reason;
        reason << "no acknowledgement from " << m_topology->GetCity(destination).id << " to "
               << m_maxRepairAttempts << " probes";
        // Ring mode: the successor is gone and the ring is rebuilt without it. Otherwise the
        // receiver is left out if nothing of its contribution is held; if part of it is, the
        // stalled stream abandons the round by itself.
        if (m_membership->ExcludeMember(round, destination, reason.str()))
        {
            return;
        }
    }
    CloseStream(round, key);
}

void
TrainingIslandApplication::AbandonRound(const std::string& reason)
{
    NS_LOG_FUNCTION(this << m_round << reason);
    NS_LOG_WARN("island " << m_topology->GetCity(m_island).id << " abandons round " << m_round
                          << ": " << reason);
    const ExchangePlan& plan = GetPlan(m_round);
    auto rxIt = m_rx.find(m_round);
    if (rxIt != m_rx.end())
    {
        for (auto& [key, stream] : rxIt->second.streams)
        {
            stream.Cancel();
        }
        m_rx.erase(rxIt);
    }
    m_readyEvent.Cancel();
    m_exchanging = false;
    if (m_failure.empty())
    {
        m_failure = reason;
    }
    ++m_abandoned;
    m_roundAbandonedTrace(m_island, m_round, plan.clique, reason);
    ++m_round;
    StartRound();
}

std::string
TrainingIslandApplication::DescribeState() const
{
    std::ostringstream state;
    if (m_crashed)
    {
        state << "crashed at the start of round " << m_round;
        return state.str();
    }
    if (!m_membership)
    {
        return "not started";
    }
    if (m_round >= m_rounds)
    {
        state << "ran all " << m_rounds << " rounds";
        return state.str();
    }
    state << "round " << m_round << ": ";
    if (!m_running)
    {
        state << "stopped";
        return state.str();
    }
    if (!m_exchanging)
    {
        state << "computing (local step " << m_stepsDone << " of " << m_localSteps << ")";
        return state.str();
    }
    const ExchangePlan& plan = GetPlan(m_round);
    state << "exchanging in clique {";
    for (std::size_t k = 0; k < plan.members.size(); ++k)
    {
        state << (k ? ", " : "") << m_topology->GetCity(plan.members[k]).id;
    }
    state << "}";
    std::vector<std::string> waits;
    for (uint32_t member : GetAwaited(m_round))
    {
        std::ostringstream wait;
        wait << m_topology->GetCity(member).id << " (READY unanswered x"
             << m_membership->GetSilence(member) << ")";
        waits.push_back(wait.str());
    }
    auto rxIt = m_rx.find(m_round);
    if (rxIt != m_rx.end())
    {
        for (const auto& [key, stream] : rxIt->second.streams)
        {
            if (stream.IsStarted() && !stream.IsComplete())
            {
                std::ostringstream wait;
                wait << "the stream of " << m_topology->GetCity(stream.GetSource()).id;
                if (IsRing())
                {
                    wait << " (ring step " << stream.GetStep() << ")";
                }
                wait << " (" << stream.GetHeldCount() << " chunks held, " << stream.GetAttempts()
                     << " NACKs without progress)";
                waits.push_back(wait.str());
            }
        }
    }
    if (!waits.empty())
    {
        state << "; waiting for ";
        for (std::size_t k = 0; k < waits.size(); ++k)
        {
            state << (k ? ", " : "") << waits[k];
        }
    }
    return state.str();
}

void
TrainingIslandApplication::HandleRead(Ptr<Socket> socket)
{
    Address from;
    while (m_running)
    {
        Ptr<Packet> packet = socket->RecvFrom(from);
        if (!packet)
        {
            break;
        }
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
        // The barrier's messages: READY, READY_ASK and VIEW.
        const bool barrier = header.GetType() == IslandSyncHeader::READY ||
                             header.GetType() == IslandSyncHeader::READY_ASK ||
                             header.GetType() == IslandSyncHeader::VIEW;
        if (m_crashed && (barrier || header.GetRound() >= m_crashRound))
        {
            // Gone: nothing about the round of the crash or a later one is answered.
            continue;
        }
        m_membership->NoteAlive(header.GetSender(), header.GetRound());
        if (header.GetRound() == m_round && !barrier)
        {
            m_membership->RefreshView(header.GetSender());
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
        case IslandSyncHeader::READY_ASK:
        case IslandSyncHeader::VIEW:
            m_membership->HandleReady(header);
            break;
        }
    }
}

void
TrainingIslandApplication::HandleChunk(const IslandSyncHeader& header, uint32_t paddingBytes)
{
    if (IsRing())
    {
        HandleRingChunk(header, paddingBytes);
        return;
    }
    uint32_t round = header.GetRound();
    if (round >= m_rounds)
    {
        ++m_rejectedPackets;
        return;
    }
    const ExchangePlan& plan = GetPlan(round);
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
    for (uint32_t member : GetBasePlan(round).members)
    {
        if (contributors & Bit(member))
        {
            m_membership->NoteAlive(member, round);
        }
    }
    if (plan.members.size() < 2 || header.GetCliqueIndex() != plan.clique ||
        header.GetEpoch() != plan.epoch || (contributors & ~others) != 0 ||
        header.GetChunkCount() != plan.chunkCount)
    {
        ++m_rejectedPackets;
        return;
    }
    auto [offset, count] = plan.GetValueSlice(chunk);
    uint32_t payload = plan.GetPayloadBytes(chunk);
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
            m_membership->UpdatePeerRound(member, round);
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
        if ((contributors & Bit(source)) && stream.Holds(chunk))
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
            if ((held & Bit(source)) && stream.IsComplete())
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

    for (auto& [source, stream] : rx.streams)
    {
        if ((contributors & Bit(source)) && stream.Accept(chunk))
        {
            ++rx.completeStreams;
            SendDone(round, source);
        }
    }
    if (round == m_round)
    {
        CheckExchangeComplete();
    }
}

void
TrainingIslandApplication::HandleRingChunk(const IslandSyncHeader& header, uint32_t paddingBytes)
{
    uint32_t round = header.GetRound();
    if (round >= m_rounds)
    {
        ++m_rejectedPackets;
        return;
    }
    const ExchangePlan& plan = GetPlan(round);
    const uint32_t chunk = header.GetChunkIndex();
    if (plan.ring.size() < 2 || header.GetCliqueIndex() != plan.clique ||
        header.GetEpoch() != plan.epoch || header.GetChunkCount() != plan.chunkCount ||
        header.GetSender() != plan.predecessor)
    {
        ++m_rejectedPackets;
        if (round == m_round && header.GetSender() != plan.predecessor)
        {
            // A member on another view of the ring: tell it ours.
            m_membership->RefreshView(header.GetSender());
        }
        return;
    }
    const RingExchange& ring = GetRing(plan);
    const uint32_t step = ring.CheckChunk(plan, header, paddingBytes);
    const uint64_t contributors = header.GetContributors();
    const uint32_t payload = plan.GetPayloadBytes(chunk);
    if (step == NO_RING_STEP)
    {
        ++m_rejectedPackets;
        return;
    }
    if (header.GetType() == IslandSyncHeader::AGGREGATE)
    {
        ++m_aggregatesIn;
    }
    // Whoever is summed in a round-r chunk has started round r.
    for (uint32_t member : plan.ring)
    {
        if (member != m_island && (contributors & Bit(member)))
        {
            m_membership->UpdatePeerRound(member, round);
        }
    }
    if (round < m_round)
    {
        // The round is over here: every step is held. Acknowledge again (a DONE was lost or
        // the predecessor probes).
        ++m_duplicateChunks;
        m_chunkReceivedTrace(m_island, header, payload, true);
        SendDone(round, step);
        return;
    }

    RxState& rx = GetRxState(round);
    ReceiveStream& stream = rx.streams.at(step);
    if (stream.Holds(chunk))
    {
        ++m_duplicateChunks;
        m_chunkReceivedTrace(m_island, header, payload, true);
        if (stream.IsComplete())
        {
            SendDone(round, step);
        }
        return;
    }
    ring.Store(plan, step, header, *rx.ringValues);
    m_chunkReceivedTrace(m_island, header, payload, false);

    if (stream.Accept(chunk))
    {
        ++rx.completeStreams;
        SendDone(round, step);
        if (step + 1 < ring.GetSteps(plan))
        {
            ReleaseRingStep(round, step + 1);
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
    TxState& tx = txIt->second;
    const ExchangePlan& plan = GetPlan(round);
    auto streamIt = tx.streams.end();
    if (IsRing())
    {
        // The successor asks for chunks of one step, named by its bitmap and first chunk.
        uint32_t step = GetRing(plan).FindStep(plan,
                                               plan.ringPosition,
                                               header.GetContributors(),
                                               header.GetChunkIndex());
        if (requester == plan.successor && step != NO_RING_STEP)
        {
            streamIt = tx.streams.find(step);
            auto [first, end] = GetRing(plan).GetStepChunks(plan, plan.ringPosition, step);
            for (const auto& range : header.GetRanges())
            {
                if (range.first < first || range.second > end)
                {
                    streamIt = tx.streams.end();
                }
            }
        }
    }
    else
    {
        streamIt = tx.streams.find(requester);
    }
    if (streamIt == tx.streams.end() || header.GetChunkCount() != plan.chunkCount)
    {
        ++m_rejectedPackets;
        return;
    }
    SendStream& stream = streamIt->second;
    if (stream.m_done)
    {
        return;
    }
    stream.m_attempts = 0;
    // Multicast: the repair goes to the requester alone, through the group stream's pacer.
    // Ring: through the ring's pacer; a step's own sentFirst bounds what it has sent.
    SendStream& pacer = GetPacer(tx, stream);
    const uint32_t sent = IsRing() ? stream.m_sentFirst : pacer.m_sentFirst;
    for (const auto& range : header.GetRanges())
    {
        // Only what was sent: the rest is pending anyway.
        stream.m_pending.Insert(range.first, std::min(range.second, sent));
    }
    ResumeStream(tx, pacer);
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
    auto streamIt = tx.streams.end();
    if (IsRing())
    {
        // The successor holds one step, named by its bitmap and first chunk.
        const ExchangePlan& plan = GetPlan(round);
        uint32_t step = GetRing(plan).FindStep(plan,
                                               plan.ringPosition,
                                               header.GetContributors(),
                                               header.GetChunkIndex());
        if (header.GetSender() == plan.successor && step != NO_RING_STEP)
        {
            streamIt = tx.streams.find(step);
        }
    }
    else
    {
        streamIt = tx.streams.find(header.GetSender());
    }
    if (streamIt == tx.streams.end())
    {
        ++m_rejectedPackets;
        return;
    }
    CloseStream(round, streamIt->first);
}

void
TrainingIslandApplication::CloseStream(uint32_t round, uint32_t key)
{
    auto txIt = m_tx.find(round);
    if (txIt == m_tx.end())
    {
        return;
    }
    TxState& tx = txIt->second;
    auto streamIt = tx.streams.find(key);
    if (streamIt == tx.streams.end() || streamIt->second.m_done)
    {
        return;
    }
    streamIt->second.Close();
    ++tx.doneStreams;
    if (tx.doneStreams == tx.streams.size())
    {
        tx.group.GetPacer().Stop();
        m_tx.erase(txIt);
        CloseIfIdle();
    }
}

} // namespace ns3
