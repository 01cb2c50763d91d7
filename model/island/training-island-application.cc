/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "training-island-application.h"

#include "clique-membership.h"
#include "exchange-planner.h"
#include "local-compute.h"
#include "payload-codec.h"
#include "round-exchanges.h"
#include "wan-config-error.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/data-rate.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("WanTrainingTrainingIslandApplication");

NS_OBJECT_ENSURE_REGISTERED(TrainingIslandApplication);

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
            .AddAttribute(
                "Format",
                "How the values travel on the wire (doc/wan-training.rst, \"Payload "
                "formats in the islands\"): fp32, bf16 (rounded to nearest even) or int8 (blocks "
                "of 1024 values with a float32 scale each). ModelBytes must be an "
                "encoding in it; every member averages the decoded values.",
                EnumValue(static_cast<int>(PayloadFormat::FP32)),
                MakeEnumAccessor(&TrainingIslandApplication::SetFormatValue,
                                 &TrainingIslandApplication::GetFormatValue),
                MakeEnumChecker(static_cast<int>(PayloadFormat::FP32),
                                "fp32",
                                static_cast<int>(PayloadFormat::BF16),
                                "bf16",
                                static_cast<int>(PayloadFormat::INT8),
                                "int8"))
            .AddAttribute("ChunkBytes",
                          "Model bytes per chunk packet, a whole number of values in the Format "
                          "(int8: of 1028-byte blocks); 0 fills the smallest path MTU inside "
                          "the clique (minus IPv4, UDP and IslandSyncHeader).",
                          UintegerValue(0),
                          MakeUintegerAccessor(&TrainingIslandApplication::m_chunkBytesAttr),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("ParameterCount",
                          "The length of the real parameter vector (the first values of the "
                          "contribution; their encoding in the Format must fit ModelBytes).",
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
            .AddAttribute("Overlap",
                          "Overlap compute with the exchange (streaming): round r+1's local steps "
                          "run while round r's exchange is on the wire, starting from the "
                          "parameters at round r's snapshot, and round r's average is applied "
                          "when it arrives as x <- x + (avg_r - x_r). Round r+1's snapshot waits "
                          "for round r's average.",
                          BooleanValue(false),
                          MakeBooleanAccessor(&TrainingIslandApplication::m_overlap),
                          MakeBooleanChecker())
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
                "How the cliques exchange their models (doc/schedule-model.rst, capability "
                "modes and mixed rounds): schedule (each clique uses the algorithm the schedule "
                "gives it; a clique without one is an error), or one mode forced on every "
                "clique: unicast, multicast (needs SetMulticastGroups), aggregation (needs "
                "in-line FPGAs), both, ring (the unicast ring all-reduce: reduce-scatter and "
                "all-gather around LinkLoadModel's ring order), or tree (in-network reduction "
                "toward a root by an FPGA on every router of the in-tree; needs "
                "SetMulticastGroups and FPGAs on every port).",
                EnumValue(SCHEDULE_MODE),
                MakeEnumAccessor(&TrainingIslandApplication::SetModeValue,
                                 &TrainingIslandApplication::GetModeValue),
                MakeEnumChecker(SCHEDULE_MODE,
                                "schedule",
                                static_cast<int>(CapabilityMode::UNICAST),
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
            .AddAttribute("RepairCopies",
                          "Copies of every repair and every NACK, sent back to back: a repair "
                          "is lost only if every copy is, so a loss costs one round trip even "
                          "when the path loses packets, for RepairCopies - 1 extra packets per "
                          "lost one (the ChunkSent trace and the repair counters count each "
                          "copy).",
                          UintegerValue(2),
                          MakeUintegerAccessor(&TrainingIslandApplication::m_repairCopies),
                          MakeUintegerChecker<uint32_t>(1, 8))
            .AddAttribute("FecBlock",
                          "Forward error correction in unicast and multicast cliques: after "
                          "every block of this many chunks of a stream, a PARITY (the XOR of "
                          "their encoded values, as long as a chunk) from which a receiver "
                          "rebuilds one lost chunk of the block without a round trip; 0 sends "
                          "none. Every island of a run must use the same value.",
                          UintegerValue(0),
                          MakeUintegerAccessor(&TrainingIslandApplication::m_fecBlock),
                          MakeUintegerChecker<uint32_t>(0, 65535))
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
                "Local compute ended; the exchange of this contribution (the round's snapshot "
                "x_r) starts.",
                MakeTraceSourceAccessor(&TrainingIslandApplication::m_exchangeStartedTrace),
                "ns3::TrainingIslandApplication::ParametersCallback")
            .AddTraceSource(
                "RoundFinished",
                "A round ended; the parameters are the clique average avg_r (what is verified). "
                "Without Overlap they are the island's new parameters; with Overlap the island "
                "applied x <- x + (avg_r - x_r) to the parameters it computed on since x_r.",
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
            .AddTraceSource("ChunkRepaired",
                            "A chunk a NACK asked for arrived, with the time since that NACK.",
                            MakeTraceSourceAccessor(&TrainingIslandApplication::m_repairedTrace),
                            "ns3::TrainingIslandApplication::ChunkRepairedCallback")
            .AddTraceSource("ParitySent",
                            "A PARITY (FecBlock) was handed to the socket (the destination is "
                            "ALL_MEMBERS for a send to the group).",
                            MakeTraceSourceAccessor(&TrainingIslandApplication::m_paritySentTrace),
                            "ns3::TrainingIslandApplication::ControlSentCallback")
            .AddTraceSource("ChunkRebuilt",
                            "A lost chunk was rebuilt from its block's PARITY (FecBlock).",
                            MakeTraceSourceAccessor(&TrainingIslandApplication::m_rebuiltTrace),
                            "ns3::TrainingIslandApplication::ChunkRebuiltCallback")
            .AddTraceSource("ControlSent",
                            "A control message (READY, DONE or NACK) was handed to the socket.",
                            MakeTraceSourceAccessor(&TrainingIslandApplication::m_controlSentTrace),
                            "ns3::TrainingIslandApplication::ControlSentCallback");
    return tid;
}

TrainingIslandApplication::TrainingIslandApplication()
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

std::optional<CapabilityMode>
TrainingIslandApplication::GetMode() const
{
    return m_mode;
}

void
TrainingIslandApplication::SetModeValue(int mode)
{
    m_mode =
        mode == SCHEDULE_MODE ? std::nullopt : std::optional(static_cast<CapabilityMode>(mode));
}

int
TrainingIslandApplication::GetModeValue() const
{
    return m_mode ? static_cast<int>(*m_mode) : SCHEDULE_MODE;
}

PayloadFormat
TrainingIslandApplication::GetFormat() const
{
    return m_format;
}

void
TrainingIslandApplication::SetFormatValue(int format)
{
    m_format = static_cast<PayloadFormat>(format);
}

int
TrainingIslandApplication::GetFormatValue() const
{
    return static_cast<int>(m_format);
}

const TrainingIslandApplication::Counters&
TrainingIslandApplication::GetCounters() const
{
    return m_counters;
}

uint32_t
TrainingIslandApplication::GetRingStep(const IslandSyncHeader& header) const
{
    if (!m_membership || header.GetRound() >= m_rounds)
    {
        return NO_RING_STEP;
    }
    return m_exchanges->GetStepOf(GetPlan(header.GetRound()), header);
}

void
TrainingIslandApplication::DoDispose()
{
    NS_LOG_FUNCTION(this);
    m_socket.Close();
    if (m_exchanges)
    {
        m_exchanges->Dispose();
    }
    m_exchanges.reset();
    m_membership.reset();
    m_planner.reset();
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
    ExchangePlanner::Config config;
    config.mode = m_mode; // forced on every clique, or none: the schedule's
    config.format = m_format;
    config.modelBytes = m_modelBytes;
    config.chunkBytes = m_chunkBytesAttr;
    config.parameterCount = m_parameterCount;
    config.streamRateBps = static_cast<double>(m_streamRate.GetBitRate());
    std::vector<ExchangePlan> plans;
    try
    {
        m_planner = std::make_unique<ExchangePlanner>(*m_topology, *m_schedule, config);
        plans = m_planner->GetPlans(m_island);
        // Groups come from SetMulticastGroups (TrainingHelper::SetMulticast does it).
        ExchangePlanner::AssignGroups(plans, m_groups);
    }
    catch (const WanConfigError& error)
    {
        NS_FATAL_ERROR("TrainingIslandApplication (" << id << "): " << error.what());
    }
    m_membership = std::make_unique<CliqueMembership>(m_island,
                                                      m_jobId,
                                                      m_rounds,
                                                      *m_topology,
                                                      *m_planner,
                                                      std::move(plans),
                                                      m_maxRepairAttempts,
                                                      m_nackTimeout);
    IslandExchange::Context context;
    context.island = m_island;
    context.jobId = m_jobId;
    context.nackTimeout = m_nackTimeout;
    context.aggregationTimeout = m_aggregationTimeout;
    context.maxRepairAttempts = m_maxRepairAttempts;
    context.repairCopies = m_repairCopies;
    context.fecBlock = m_fecBlock;
    context.cliqueBarrier = m_cliqueBarrier;
    context.overlap = m_overlap;
    context.topology = m_topology.get();
    context.membership = m_membership.get();
    context.currentRound = MakeCallback(&TrainingIslandApplication::GetCurrentRound, this);
    context.exchanging = MakeCallback(&TrainingIslandApplication::IsExchanging, this);
    context.progress = MakeCallback(&TrainingIslandApplication::ExchangeProgressed, this);
    context.abandon = MakeCallback(&TrainingIslandApplication::AbandonRound, this);
    context.idle = MakeCallback(&TrainingIslandApplication::SendSideClosed, this);
    context.send = MakeCallback(&TrainingIslandApplication::SendPacket, this);
    context.chunkSent = MakeCallback(&TrainingIslandApplication::NoteChunkSent, this);
    context.chunkReceived = MakeCallback(&TrainingIslandApplication::NoteChunkReceived, this);
    context.nackSent = MakeCallback(&TrainingIslandApplication::NoteNackSent, this);
    // Traces the island only names: fired straight from the exchanges.
    context.repaired =
        MakeCallback(&decltype(m_repairedTrace)::operator(), &m_repairedTrace).Bind(m_island);
    context.paritySent =
        MakeCallback(&decltype(m_paritySentTrace)::operator(), &m_paritySentTrace).Bind(m_island);
    context.recovered =
        MakeCallback(&decltype(m_rebuiltTrace)::operator(), &m_rebuiltTrace).Bind(m_island);
    context.rejected = MakeCallback(&TrainingIslandApplication::RejectPacket, this);
    m_exchanges = std::make_unique<RoundExchanges>(context, m_rounds);

    CliqueMembership::Callbacks callbacks;
    callbacks.send = MakeCallback(&TrainingIslandApplication::SendControl, this);
    callbacks.peerStarted = MakeCallback(&RoundExchanges::PeerStarted, m_exchanges.get());
    callbacks.memberExcluded = MakeCallback(&TrainingIslandApplication::NoteExclusion, this);
    callbacks.viewChanged = MakeCallback(&RoundExchanges::FitToView, m_exchanges.get());
    callbacks.viewApplied = MakeCallback(&TrainingIslandApplication::ViewApplied, this);
    callbacks.heldFrom = MakeCallback(&RoundExchanges::GetHeldFrom, m_exchanges.get());
    callbacks.rejected = MakeCallback(&TrainingIslandApplication::RejectPacket, this);
    callbacks.currentRound = MakeCallback(&TrainingIslandApplication::GetCurrentRound, this);
    callbacks.active = MakeCallback(&TrainingIslandApplication::IsActive, this);
    callbacks.exchanging = MakeCallback(&TrainingIslandApplication::IsExchanging, this);
    callbacks.awaited = MakeCallback(&RoundExchanges::GetAwaited, m_exchanges.get());
    callbacks.timeLeft = MakeCallback(&RoundExchanges::GetReceiveTimeLeft, m_exchanges.get());
    m_membership->SetCallbacks(callbacks);
}

uint64_t
TrainingIslandApplication::GetHeldBytes(uint32_t round) const
{
    return m_exchanges ? m_exchanges->GetHeldBytes(round) : 0;
}

const ExchangePlan&
TrainingIslandApplication::GetPlan(uint32_t round) const
{
    NS_ABORT_MSG_IF(!m_membership,
                    "TrainingIslandApplication: the plans are built when the application starts");
    return m_membership->GetPlan(round);
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

bool
TrainingIslandApplication::IsExchanging(uint32_t round) const
{
    return !m_crashed && m_exchanging && round == m_round;
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
    ++m_counters.rejectedPackets;
}

void
TrainingIslandApplication::NoteChunkSent(uint32_t destination,
                                         const IslandSyncHeader& header,
                                         uint32_t modelBytes,
                                         bool resent)
{
    ++m_counters.chunksSent;
    if (resent)
    {
        ++m_counters.chunksResent;
    }
    m_chunkSentTrace(m_island, destination, header, modelBytes, resent);
}

void
TrainingIslandApplication::NoteChunkReceived(const IslandSyncHeader& header,
                                             uint32_t modelBytes,
                                             bool duplicate)
{
    if (header.GetType() == IslandSyncHeader::AGGREGATE)
    {
        ++m_counters.aggregatesReceived;
    }
    if (duplicate)
    {
        ++m_counters.duplicateChunks;
    }
    m_chunkReceivedTrace(m_island, header, modelBytes, duplicate);
}

void
TrainingIslandApplication::NoteNackSent(uint32_t source, uint32_t round, uint32_t chunks)
{
    ++m_counters.nacksSent;
    m_repairTrace(m_island, source, round, chunks);
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
    IslandSocket::Config socket;
    socket.name = m_topology->GetCity(m_island).id;
    socket.port = m_port;
    socket.jobId = m_jobId;
    socket.islands = static_cast<uint32_t>(m_addresses.size());
    socket.multicastTtl = m_multicastTtl;
    socket.receive = MakeCallback(&TrainingIslandApplication::HandleMessage, this);
    socket.rejected = MakeCallback(&TrainingIslandApplication::RejectPacket, this);
    m_socket.Open(GetNode(), socket);
    m_round = 0;
    m_exchanging = false;
    m_compute = std::make_unique<LocalCompute>(m_parameters);
    m_compute->Configure(m_localSteps, m_stepTime, m_learningRate);
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
    if (m_compute)
    {
        m_compute->Cancel();
    }
    if (m_membership)
    {
        m_membership->StopReadyTimer();
    }
    if (m_exchanges)
    {
        m_exchanges->Stop();
    }
    m_running = false;
    m_socket.Close();
}

void
TrainingIslandApplication::Crash()
{
    NS_LOG_FUNCTION(this << m_round);
    NS_LOG_INFO("island " << m_topology->GetCity(m_island).id << " crashes at round " << m_round);
    m_crashed = true;
    m_exchanging = false;
    if (m_compute)
    {
        m_compute->Cancel();
    }
    m_membership->StopReadyTimer();
    // Nothing of this round or a later one: drop what arrived early.
    m_exchanges->ReleaseReceiveSides();
    m_crashedTrace(m_island, m_round);
    CloseIfIdle();
}

void
TrainingIslandApplication::SendSideClosed()
{
    m_exchanges->MarkPrune();
    CloseIfIdle();
}

void
TrainingIslandApplication::CloseIfIdle()
{
    if (!m_crashed || !m_running || m_exchanges->HasAnySendSide())
    {
        return;
    }
    NS_LOG_INFO("island " << m_topology->GetCity(m_island).id
                          << " owes nothing any more and closes");
    StopApplication();
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
    m_membership->PruneViews(m_round,
                             MakeCallback(&RoundExchanges::HasSendSide, m_exchanges.get()));
    const uint64_t excluded = m_membership->TakeStartExclusions(m_round);
    m_roundStartedTrace(m_island, m_round);
    m_membership->AnnounceRound(m_round, excluded, m_cliqueBarrier);
    if (!m_overlap || m_compute->GetRound() != m_round)
    {
        StartCompute(m_round);
    }
    else if (!m_compute->IsComputing())
    {
        // Overlap: this round's steps ran during the last exchange; snapshot now.
        m_compute->ScheduleNow(MakeCallback(&TrainingIslandApplication::StartExchange, this));
    }
}

void
TrainingIslandApplication::StartCompute(uint32_t round)
{
    m_compute->Start(round,
                     GetObjective(),
                     MakeCallback(&TrainingIslandApplication::ComputeDone, this));
}

void
TrainingIslandApplication::ComputeDone()
{
    // Overlap: the snapshot of a round waits until the exchange before it is over.
    if (!m_overlap || (m_compute->GetRound() == m_round && !m_exchanging))
    {
        StartExchange();
    }
}

void
TrainingIslandApplication::StartExchange()
{
    NS_LOG_FUNCTION(this << m_round);
    m_exchangeStartedTrace(m_island, m_round, GetPlan(m_round).clique, m_parameters);
    const uint32_t round = m_round;
    const bool next = m_overlap && round + 1 < m_rounds && round + 1 != m_crashRound;
    if (m_overlap)
    {
        m_compute->TakeSnapshot();
    }
    if (next)
    {
        StartCompute(round + 1);
    }
    BeginExchange();
    if (next && m_cliqueBarrier && m_exchanging && m_round == round)
    {
        // The next round's READY goes out while this exchange runs, to each sender as its
        // chunks would arrive when the exchange ends, so no stream of it waits a round trip.
        m_membership->AnnounceAhead(round + 1);
    }
}

void
TrainingIslandApplication::BeginExchange()
{
    NS_LOG_FUNCTION(this << m_round);
    if (GetPlan(m_round).members.size() < 2)
    {
        FinishRound();
        return;
    }
    Ptr<IslandExchange> exchange = m_exchanges->Get(m_round);
    // What the island contributes and averages is its snapshot (without overlap the parameters,
    // which do not move during the exchange) as the format decodes it.
    m_contribution = m_overlap ? m_compute->GetSnapshot() : m_parameters;
    PayloadCodec::Quantize(m_format, m_contribution);
    exchange->Begin(m_contribution);
    // Every member the exchange waits for is asked, and excluded when it never answers.
    m_membership->StartReadyTimer(m_round, exchange->RearmsReadyTimer());
    exchange->Contribute(m_contribution);
    m_exchanging = true;
    CheckExchangeComplete();
}

void
TrainingIslandApplication::FinishRound()
{
    NS_LOG_FUNCTION(this << m_round);
    const ExchangePlan& plan = GetPlan(m_round);
    m_membership->StopReadyTimer();
    Ptr<IslandExchange> exchange = m_exchanges->Find(m_round);
    // Without overlap the average replaces the parameters (which hold the snapshot); with
    // overlap it is taken apart and the parameters, which moved on, get avg_r - x_r.
    std::vector<float> average;
    std::vector<float>& mixed = m_overlap ? (average = m_compute->GetSnapshot()) : m_parameters;
    if (plan.members.size() < 2)
    {
        // Idle, alone, or every other member excluded: the parameters stay; drop what may have
        // arrived for a larger view.
        if (exchange)
        {
            exchange->ReleaseReceiveSide();
        }
        m_lastContributors = uint64_t{1} << m_island;
    }
    else
    {
        m_lastContributors = plan.GetMemberBits();
        NS_ASSERT(exchange && exchange->HasReceiveSide());
        // The average is of decoded contributions, ours included.
        mixed = m_contribution;
        exchange->Finish(mixed);
    }
    if (m_overlap)
    {
        m_compute->ApplyAverage(average);
    }
    m_exchanges->MarkPrune();
    m_exchanging = false;
    m_roundFinishedTrace(m_island, m_round, plan.clique, mixed);
    ++m_round;
    StartRound();
}

void
TrainingIslandApplication::CheckExchangeComplete()
{
    if (!m_exchanging)
    {
        return;
    }
    Ptr<IslandExchange> exchange = m_exchanges->Find(m_round);
    if (exchange && exchange->IsComplete())
    {
        FinishRound();
    }
}

void
TrainingIslandApplication::ExchangeProgressed(uint32_t round)
{
    if (round == m_round)
    {
        m_membership->ExchangeProgressed();
        CheckExchangeComplete();
    }
}

void
TrainingIslandApplication::SendPacket(const IslandSyncHeader& header,
                                      uint32_t paddingBytes,
                                      uint32_t destination)
{
    if (!m_socket.IsOpen())
    {
        return;
    }
    Ipv4Address to =
        destination == ALL_MEMBERS ? GetPlan(header.GetRound()).group : m_addresses[destination];
    if (m_socket.Send(header, paddingBytes, to) && header.GetType() != IslandSyncHeader::DATA &&
        header.GetType() != IslandSyncHeader::AGGREGATE)
    {
        m_controlSentTrace(m_island, destination, header);
    }
}

void
TrainingIslandApplication::ViewApplied(uint32_t round)
{
    if (!m_exchanging || round != m_round)
    {
        return;
    }
    Ptr<IslandExchange> exchange = m_exchanges->Find(round);
    if (exchange && (m_exchanges->TakeReplaced(round) || exchange->IsRebuiltByViews()))
    {
        BeginExchange();
    }
    else
    {
        CheckExchangeComplete();
    }
}

void
TrainingIslandApplication::AbandonRound(const std::string& reason)
{
    NS_LOG_FUNCTION(this << m_round << reason);
    NS_LOG_WARN("island " << m_topology->GetCity(m_island).id << " abandons round " << m_round
                          << ": " << reason);
    const ExchangePlan& plan = GetPlan(m_round);
    Ptr<IslandExchange> exchange = m_exchanges->Find(m_round);
    if (exchange)
    {
        exchange->ReleaseReceiveSide();
        m_exchanges->MarkPrune();
    }
    m_membership->StopReadyTimer();
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
    if (m_crashed)
    {
        return "crashed at the start of round " + std::to_string(m_round);
    }
    if (!m_membership)
    {
        return "not started";
    }
    if (m_round >= m_rounds)
    {
        return "ran all " + std::to_string(m_rounds) + " rounds";
    }
    const std::string round = "round " + std::to_string(m_round) + ": ";
    if (!m_running || !m_exchanging)
    {
        return round + (!m_running ? "stopped" : m_compute ? m_compute->Describe() : "computing");
    }
    std::ostringstream state;
    Ptr<IslandExchange> exchange = m_exchanges->Find(m_round);
    state << round << (exchange ? exchange->Describe() : "exchanging");
    if (m_overlap && m_compute->GetRound() != LocalCompute::NONE && m_compute->GetRound() > m_round)
    {
        state << "; round " << m_compute->GetRound() << ": "
              << (m_compute->IsComputing() ? m_compute->Describe()
                                           : "snapshot waits for this exchange");
    }
    return state.str();
}

void
TrainingIslandApplication::HandleMessage(const IslandSyncHeader& header, uint32_t payloadBytes)
{
    // The barrier's messages: READY, READY_ASK and VIEW.
    const bool barrier = header.GetType() == IslandSyncHeader::READY ||
                         header.GetType() == IslandSyncHeader::READY_ASK ||
                         header.GetType() == IslandSyncHeader::VIEW;
    if (m_crashed && (barrier || header.GetRound() >= m_crashRound))
    {
        // Gone: nothing about the round of the crash or a later one is answered.
        return;
    }
    m_membership->NoteAlive(header.GetSender(), header.GetRound());
    if (header.GetRound() == m_round && !barrier)
    {
        m_membership->RefreshView(header.GetSender());
    }
    if (barrier)
    {
        m_membership->HandleReady(header);
    }
    else
    {
        m_exchanges->HandleMessage(header, payloadBytes);
    }
    m_exchanges->Prune();
}

} // namespace ns3
