/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "aggregator-net-device.h"

#include "aggregate-datagram.h"
#include "fixed-point-sum.h"
#include "sync-protocol.h"

#include "ns3/abort.h"
#include "ns3/boolean.h"
#include "ns3/data-rate.h"
#include "ns3/ipv4-l3-protocol.h"
#include "ns3/log.h"
#include "ns3/mac48-address.h"
#include "ns3/node.h"
#include "ns3/packet.h"
#include "ns3/point-to-point-channel.h"
#include "ns3/ppp-header.h"
#include "ns3/queue.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("WanTrainingAggregatorNetDevice");

NS_OBJECT_ENSURE_REGISTERED(AggregatorNetDevice);

namespace
{

/** An island's contributor bit (IslandSyncHeader::GetContributorBit). */
constexpr auto Bit = &IslandSyncHeader::GetContributorBit;

} // namespace

TypeId
AggregatorNetDevice::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::WanTraining::AggregatorNetDevice")
            .SetParent<PointToPointNetDevice>()
            .SetGroupName("WanTraining")
            .AddConstructor<AggregatorNetDevice>()
            .AddAttribute("ProcessingDelay",
                          "The latency a contribution spends in the FPGA pipeline after its "
                          "serialization at LineRate.",
                          TimeValue(NanoSeconds(500)),
                          MakeTimeAccessor(&AggregatorNetDevice::m_processingDelay),
                          MakeTimeChecker(Time(0)))
            .AddAttribute("Timeout",
                          "The longest an incomplete slot waits after its first contribution "
                          "before it is released as a partial aggregate with its contributor "
                          "bitmap (every slot's wait without AdaptiveWait); it should exceed the "
                          "arrival skew of a clique's streams.",
                          TimeValue(MilliSeconds(500)),
                          MakeTimeAccessor(&AggregatorNetDevice::m_timeout),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("AdaptiveWait",
                          "Whether a slot waits by the fill times of the exchange's completed "
                          "slots plus its largest round trip (at most Timeout), rather than "
                          "Timeout.",
                          BooleanValue(true),
                          MakeBooleanAccessor(&AggregatorNetDevice::SetAdaptiveWait,
                                              &AggregatorNetDevice::GetAdaptiveWait),
                          MakeBooleanChecker())
            .AddAttribute("ShadowCopies",
                          "How many of the aggregates last sent to the island the port keeps a "
                          "copy of, to serve one again when the island NACKs it (0: none; a port "
                          "that faces no island keeps none).",
                          UintegerValue(1024),
                          MakeUintegerAccessor(&AggregatorNetDevice::SetShadowCopies,
                                               &AggregatorNetDevice::GetShadowCopies),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("Port",
                          "The UDP destination port of island synchronization packets (and the "
                          "aggregates' source and destination port).",
                          UintegerValue(SyncProtocol::DEFAULT_PORT),
                          MakeUintegerAccessor(&AggregatorNetDevice::m_port),
                          MakeUintegerChecker<uint16_t>())
            .AddTraceSource("ContributionIn",
                            "A contribution left the pipeline (it is then summed, absorbed as a "
                            "duplicate or passed through). While it has a sink, every "
                            "contribution has an exit event of its own (no deferred summation).",
                            MakeTraceSourceAccessor(&AggregatorNetDevice::m_contributionInTrace),
                            "ns3::AggregatorNetDevice::ContributionCallback")
            .AddTraceSource("Duplicate",
                            "A contribution already held by its slot was absorbed.",
                            MakeTraceSourceAccessor(&AggregatorNetDevice::m_duplicateTrace),
                            "ns3::AggregatorNetDevice::ContributionCallback")
            .AddTraceSource("AggregateOut",
                            "An aggregate (complete or partial) was sent on the port.",
                            MakeTraceSourceAccessor(&AggregatorNetDevice::m_aggregateOutTrace),
                            "ns3::AggregatorNetDevice::AggregateCallback")
            .AddTraceSource("PassThrough",
                            "A packet was forwarded unchanged.",
                            MakeTraceSourceAccessor(&AggregatorNetDevice::m_passThroughTrace),
                            "ns3::AggregatorNetDevice::PassThroughCallback")
            .AddTraceSource("Timeout",
                            "An incomplete slot was released as a partial aggregate.",
                            MakeTraceSourceAccessor(&AggregatorNetDevice::m_timeoutTrace),
                            "ns3::AggregatorNetDevice::TimeoutCallback")
            .AddTraceSource("KnownLost",
                            "An incomplete slot was released as a partial aggregate before its "
                            "Timeout: every contribution it still expected is known lost (a "
                            "later chunk of the sender arrived).",
                            MakeTraceSourceAccessor(&AggregatorNetDevice::m_knownLostTrace),
                            "ns3::AggregatorNetDevice::TimeoutCallback")
            .AddTraceSource("ShadowServed",
                            "An aggregate was served again from its shadow copy, answering a "
                            "NACK of the island.",
                            MakeTraceSourceAccessor(&AggregatorNetDevice::m_shadowServedTrace),
                            "ns3::AggregatorNetDevice::ShadowCallback")
            .AddTraceSource("SlotsInUse",
                            "The number of slots in use by this port.",
                            MakeTraceSourceAccessor(&AggregatorNetDevice::m_slotsInUse),
                            "ns3::TracedValueCallback::Uint32")
            .AddTraceSource("SlotHighWaterMark",
                            "The most slots in use by this port at any time so far.",
                            MakeTraceSourceAccessor(&AggregatorNetDevice::m_slotHighWaterMark),
                            "ns3::TracedValueCallback::Uint32");
    return tid;
}

AggregatorNetDevice::AggregatorNetDevice()
    : m_port(SyncProtocol::DEFAULT_PORT),
      m_island(UINT32_MAX),
      m_txEndConnected(false),
      m_identification(0),
      m_contributionsIn(0),
      m_contributionsSummed(0),
      m_duplicates(0),
      m_aggregatesOut(0),
      m_timeouts(0),
      m_passThroughs{},
      m_slotsInUse(0),
      m_slotHighWaterMark(0),
      m_outboxHighWaterMark(0)
{
    NS_LOG_FUNCTION(this);
    m_deadlines.SetCallbacks(MakeCallback(&AggregatorNetDevice::IsSlotOpen, this),
                             MakeCallback(&AggregatorNetDevice::SlotTimeouts, this));
}

AggregatorNetDevice::~AggregatorNetDevice()
{
    NS_LOG_FUNCTION(this);
}

void
AggregatorNetDevice::SetIsland(uint32_t island,
                               Ipv4Address islandAddress,
                               Ipv4Address sourceAddress)
{
    NS_LOG_FUNCTION(this << island << islandAddress << sourceAddress);
    NS_ABORT_MSG_IF(island >= IslandSyncHeader::MAX_ISLANDS,
                    "AggregatorNetDevice::SetIsland(): island "
                        << island << " cannot be named in a contributor bitmap (at most "
                        << IslandSyncHeader::MAX_ISLANDS << " islands)");
    m_island = island;
    m_facesIsland = true;
    m_islandAddress = islandAddress;
    m_sourceAddress = sourceAddress;
}

void
AggregatorNetDevice::SetRouterPort(uint32_t city, Ipv4Address sourceAddress)
{
    NS_LOG_FUNCTION(this << city << sourceAddress);
    NS_ABORT_MSG_IF(city >= IslandSyncHeader::MAX_ISLANDS,
                    "AggregatorNetDevice::SetRouterPort(): city "
                        << city << " cannot be named in a contributor bitmap (at most "
                        << IslandSyncHeader::MAX_ISLANDS << " islands)");
    m_island = city;
    m_facesIsland = false;
    m_islandAddress = Ipv4Address();
    m_sourceAddress = sourceAddress;
}

bool
AggregatorNetDevice::FacesIsland() const
{
    return m_facesIsland;
}

void
AggregatorNetDevice::SetFpga(Ptr<InlineFpga> fpga)
{
    NS_ABORT_MSG_UNLESS(fpga, "AggregatorNetDevice::SetFpga(): no FPGA");
    m_fpga = fpga;
    fpga->AddPort(this);
}

InlineFpga&
AggregatorNetDevice::Fpga()
{
    // Per contribution: no Ptr copy (its reference count) once the FPGA exists.
    return m_fpga ? *m_fpga : *GetFpga();
}

Ptr<InlineFpga>
AggregatorNetDevice::GetFpga() const
{
    if (!m_fpga)
    {
        // A port made alone: an FPGA of its own.
        m_fpga = CreateObject<InlineFpga>();
        if (m_island != UINT32_MAX)
        {
            m_fpga->SetCity(m_island);
        }
        m_fpga->AddPort(const_cast<AggregatorNetDevice*>(this));
    }
    return m_fpga;
}

uint32_t
AggregatorNetDevice::GetIsland() const
{
    return m_island;
}

Ipv4Address
AggregatorNetDevice::GetIslandAddress() const
{
    return m_islandAddress;
}

Ipv4Address
AggregatorNetDevice::GetSourceAddress() const
{
    return m_sourceAddress;
}

void
AggregatorNetDevice::SetExpectations(uint16_t jobId, std::vector<RoundExpectations> rounds)
{
    NS_LOG_FUNCTION(this << jobId << rounds.size());
    NS_ABORT_MSG_IF(m_island == UINT32_MAX,
                    "AggregatorNetDevice::SetExpectations(): call SetIsland() or "
                    "SetRouterPort() first");
    NS_ABORT_MSG_IF(rounds.empty(),
                    "AggregatorNetDevice::SetExpectations(): job "
                        << jobId << ": the expectations need at least one round");
    for (std::size_t r = 0; r < rounds.size(); ++r)
    {
        for (const auto& [clique, expectation] : rounds[r])
        {
            const char* const where = "AggregatorNetDevice::SetExpectations(): job ";
            NS_ABORT_MSG_IF(expectation.contributors == 0,
                            where << jobId << " round " << r << " clique " << clique
                                  << ": no contributor expected");
            if (expectation.root == Ipv4Address())
            {
                NS_ABORT_MSG_UNLESS(m_facesIsland,
                                    where << jobId << " round " << r << " clique " << clique
                                          << ": an edge expectation on a port of city " << m_island
                                          << " that faces no island");
                NS_ABORT_MSG_IF(expectation.contributors & Bit(m_island),
                                where << jobId << " round " << r << " clique " << clique
                                      << ": island " << m_island
                                      << " cannot expect a contribution from itself");
            }
        }
    }
    m_expectations.Set(jobId, std::move(rounds));
}

void
AggregatorNetDevice::ClearExpectations(uint16_t jobId)
{
    NS_LOG_FUNCTION(this << jobId);
    m_expectations.Clear(jobId);
    m_waits.Forget(jobId);
    m_senders.Forget(jobId);
}

uint64_t
AggregatorNetDevice::GetExpectedContributors(uint16_t jobId,
                                             uint32_t round,
                                             uint16_t cliqueId) const
{
    return m_expectations.GetExpected(jobId, round, cliqueId);
}

const AggregatorNetDevice::Expectation*
AggregatorNetDevice::GetExpectation(uint16_t jobId, uint32_t round, uint16_t cliqueId) const
{
    return m_expectations.Find(jobId, round, cliqueId);
}

uint64_t
AggregatorNetDevice::GetContributionsIn() const
{
    return m_contributionsIn + GetDeferredExited();
}

uint64_t
AggregatorNetDevice::GetContributionsSummed() const
{
    return m_contributionsSummed + GetDeferredExited();
}

uint64_t
AggregatorNetDevice::GetDuplicates() const
{
    return m_duplicates;
}

uint64_t
AggregatorNetDevice::GetAggregatesOut() const
{
    return m_aggregatesOut;
}

uint64_t
AggregatorNetDevice::GetTimeouts() const
{
    return m_timeouts;
}

uint64_t
AggregatorNetDevice::GetKnownLostReleases() const
{
    return m_knownLostReleases;
}

uint64_t
AggregatorNetDevice::GetPassThroughs() const
{
    uint64_t total = 0;
    for (uint64_t count : m_passThroughs)
    {
        total += count;
    }
    return total;
}

uint64_t
AggregatorNetDevice::GetPassThroughs(PassReason reason) const
{
    NS_ABORT_MSG_IF(reason >= N_PASS_REASONS,
                    "AggregatorNetDevice::GetPassThroughs(): unknown reason "
                        << static_cast<uint32_t>(reason));
    return m_passThroughs[reason];
}

uint32_t
AggregatorNetDevice::GetSlotsInUse() const
{
    return m_slotsInUse;
}

uint32_t
AggregatorNetDevice::GetSlotHighWaterMark() const
{
    return m_slotHighWaterMark;
}

uint32_t
AggregatorNetDevice::GetOutboxHighWaterMark() const
{
    return m_outboxHighWaterMark;
}

uint64_t
AggregatorNetDevice::GetSlotsOpened() const
{
    return m_waits.GetSlotsOpened();
}

Time
AggregatorNetDevice::GetMeanSlotWait() const
{
    return m_waits.GetMeanWait();
}

Time
AggregatorNetDevice::GetSlotWait(uint16_t jobId, uint32_t round, uint16_t cliqueId) const
{
    const Expectation* expectation = GetExpectation(jobId, round, cliqueId);
    return m_waits.GetWait(StreamKey{jobId, round, cliqueId},
                           expectation == nullptr ? Time() : expectation->roundTrip,
                           m_timeout);
}

void
AggregatorNetDevice::SetAdaptiveWait(bool adaptive)
{
    m_waits.SetAdaptive(adaptive);
}

bool
AggregatorNetDevice::GetAdaptiveWait() const
{
    return m_waits.IsAdaptive();
}

uint64_t
AggregatorNetDevice::GetShadowServes() const
{
    return m_shadowServes;
}

uint64_t
AggregatorNetDevice::GetNackChunksAnswered() const
{
    return m_nackChunksAnswered;
}

void
AggregatorNetDevice::SetShadowCopies(uint32_t copies)
{
    m_shadows.SetCapacity(copies);
}

uint32_t
AggregatorNetDevice::GetShadowCopies() const
{
    return m_shadows.GetCapacity();
}

const char*
AggregatorNetDevice::PassReasonToString(PassReason reason)
{
    switch (reason)
    {
    case NOT_SYNC:
        return "not-sync";
    case NOT_DATA:
        return "not-data";
    case NO_EXPECTATION:
        return "no-expectation";
    case CLOSED:
        return "closed";
    case NO_SLOT:
        return "no-slot";
    case MISMATCH:
        return "mismatch";
    case OVERLAP:
        return "overlap";
    case OVERFLOW:
        return "overflow";
    }
    return "unknown";
}

bool
AggregatorNetDevice::Send(Ptr<Packet> packet, const Address& dest, uint16_t protocolNumber)
{
    NS_LOG_FUNCTION(this << packet << dest << protocolNumber);
    Contribution contribution;
    uint32_t reason = Classify(packet, protocolNumber, contribution);
    if (reason < N_PASS_REASONS)
    {
        NotePassThrough(packet, static_cast<PassReason>(reason));
        return PointToPointNetDevice::Send(packet, dest, protocolNumber);
    }

    // A contribution: serialize it into the pipeline at LineRate, then ProcessingDelay.
    SumDeferred(true);
    Time now = Simulator::Now();
    contribution.exit = Fpga().Enter(packet->GetSize()) + m_processingDelay;
    const IslandSyncHeader& header = contribution.header;
    contribution.key = ChunkKey{header.GetJobId(),
                                header.GetRound(),
                                header.GetCliqueId(),
                                header.GetChunkIndex()};
    ChunkState& chunk = m_chunks[contribution.key];
    contribution.chunk = &chunk;
    // Edge ports only: in tree mode a member's DATA may pass some ports and be summed at
    // others, so its chunks do not reach one port in a gapless sequence.
    contribution.lostFrom =
        header.GetType() == IslandSyncHeader::DATA && contribution.destination == m_islandAddress
            ? m_senders.Note(header.GetJobId(),
                             header.GetRound(),
                             header.GetCliqueId(),
                             header.GetSender(),
                             header.GetChunkIndex())
            : header.GetChunkIndex();
    // A contribution that reveals a loss changes other slots at its exit: never deferred.
    contribution.deferred =
        contribution.lostFrom == header.GetChunkIndex() && CanDefer(contribution);
    if (contribution.deferred)
    {
        // Summed for sure: the packet is not needed any more.
        chunk.deferred |= contribution.contributors;
    }
    else
    {
        ++chunk.others;
        contribution.packet = packet;
    }
    NS_LOG_LOGIC("contribution " << header << " leaves the pipeline at "
                                 << contribution.exit.As(Time::S)
                                 << (contribution.deferred ? " (deferred)" : ""));
    const bool deferred = contribution.deferred;
    m_pipeline.push_back(std::move(contribution));
    if (!deferred && !m_pipelineEvent.IsRunning())
    {
        m_pipelineEvent = Simulator::Schedule(m_pipeline.back().exit - now,
                                              &AggregatorNetDevice::PipelineExit,
                                              this);
    }
    return true;
}

Address
AggregatorNetDevice::GetBroadcast() const
{
    static const Address broadcast = Mac48Address::GetBroadcast();
    return broadcast;
}

bool
AggregatorNetDevice::CanDefer(const Contribution& contribution) const
{
    const ChunkState& chunk = *contribution.chunk;
    const uint64_t bits = contribution.contributors;
    if (!m_contributionInTrace.IsEmpty() || !chunk.open || chunk.others != 0 ||
        (chunk.deferred & bits) != 0)
    {
        return false;
    }
    const Slot& slot = chunk.slot;
    // A deferred contribution must be summed, whatever else the slot gets first: it and every
    // contribution in the slot must be safe from overflow.
    return (slot.expected & bits) == bits && (slot.contributors & bits) == 0 &&
           ((slot.contributors | chunk.deferred | bits) & slot.expected) != slot.expected &&
           SameLayout(slot, contribution) && contribution.exit < slot.deadline && slot.safe &&
           FixedPointSum::IsSafe(contribution.header.GetValues(), __builtin_popcountll(bits));
}

bool
AggregatorNetDevice::SameLayout(const Slot& slot, const Contribution& contribution)
{
    const IslandSyncHeader& header = contribution.header;
    return header.GetFormat() == slot.format && header.GetChunkCount() == slot.chunkCount &&
           header.GetValueOffset() == slot.valueOffset &&
           header.GetValues().size() == slot.sums.size() &&
           contribution.paddingBytes == slot.paddingBytes;
}

void
AggregatorNetDevice::SumDeferred(bool includeNow)
{
    const Time now = Simulator::Now();
    while (!m_pipeline.empty() && m_pipeline.front().deferred &&
           (m_pipeline.front().exit < now || (includeNow && m_pipeline.front().exit == now)))
    {
        Contribution contribution = std::move(m_pipeline.front());
        m_pipeline.pop_front();
        Process(contribution);
    }
}

void
AggregatorNetDevice::SchedulePipelineExit()
{
    if (m_pipelineEvent.IsRunning())
    {
        return;
    }
    for (const Contribution& contribution : m_pipeline)
    {
        if (!contribution.deferred)
        {
            m_pipelineEvent = Simulator::Schedule(contribution.exit - Simulator::Now(),
                                                  &AggregatorNetDevice::PipelineExit,
                                                  this);
            return;
        }
    }
}

uint64_t
AggregatorNetDevice::GetDeferredExited() const
{
    const Time now = Simulator::Now();
    uint64_t exited = 0;
    for (const Contribution& contribution : m_pipeline)
    {
        if (contribution.exit > now)
        {
            break;
        }
        exited += contribution.deferred ? 1 : 0;
    }
    return exited;
}

uint32_t
AggregatorNetDevice::Classify(Ptr<const Packet> packet,
                              uint16_t protocolNumber,
                              Contribution& contribution)
{
    if (protocolNumber != Ipv4L3Protocol::PROT_NUMBER)
    {
        return NOT_SYNC;
    }
    // Every datagram of the island's down link passes here: read without a packet copy.
    IslandSyncHeader& header = contribution.header;
    uint32_t to = 0;
    const uint32_t syncStart = IslandSyncHeader::ReadFromPacket(packet,
                                                                IslandSyncHeader::IPV4_DATAGRAM,
                                                                m_port,
                                                                header,
                                                                &to);
    if (syncStart == 0)
    {
        return NOT_SYNC;
    }
    const IslandSyncHeader::Type type = header.GetType();
    if (type == IslandSyncHeader::VIEW)
    {
        SnoopView(header, Ipv4Address(to));
        return NOT_DATA;
    }
    if (type != IslandSyncHeader::DATA && type != IslandSyncHeader::AGGREGATE)
    {
        return NOT_DATA;
    }
    const Expectation* expectation =
        GetExpectation(header.GetJobId(), header.GetRound(), header.GetCliqueId());
    if (expectation == nullptr)
    {
        return NO_EXPECTATION;
    }
    const bool tree = expectation->root != Ipv4Address();
    if (!tree && type != IslandSyncHeader::DATA)
    {
        return NOT_DATA;
    }
    const uint64_t contributors =
        type == IslandSyncHeader::DATA ? Bit(header.GetSender()) : header.GetContributors();
    // Only tree entries have views (SnoopView): edge contributions cost no second lookup.
    uint64_t expected = expectation->contributors;
    if (tree && m_expectations.HasViews())
    {
        expected &=
            m_expectations.GetView(header.GetJobId(), header.GetRound(), header.GetCliqueId());
    }
    if ((tree && Ipv4Address(to) != expectation->root) || contributors == 0 ||
        (contributors & ~expected) != 0)
    {
        return NO_EXPECTATION;
    }
    contribution.paddingBytes = packet->GetSize() - syncStart - header.GetSerializedSize();
    contribution.contributors = contributors;
    contribution.expected = expected;
    contribution.destination = tree ? expectation->root : m_islandAddress;
    contribution.roundTrip = expectation->roundTrip;
    return N_PASS_REASONS;
}

void
AggregatorNetDevice::SnoopView(const IslandSyncHeader& header, Ipv4Address destination)
{
    const StreamKey stream{header.GetJobId(), header.GetRound(), header.GetCliqueId()};
    const Expectation* expectation =
        GetExpectation(header.GetJobId(), header.GetRound(), header.GetCliqueId());
    if (expectation == nullptr || expectation->root == Ipv4Address() ||
        destination != expectation->root)
    {
        return;
    }
    const uint64_t view = m_expectations.NarrowView(header.GetJobId(),
                                                    header.GetRound(),
                                                    header.GetCliqueId(),
                                                    header.GetContributors());
    NS_LOG_LOGIC("view " << header << ": expects " << (expectation->contributors & view));
    // The open slots of the exchange with nothing in the pipeline expect less: those then
    // complete leave now, in chunk order (the map's order is not the chunks'). A slot with
    // contributions in the pipeline keeps its expectation (a deferred one was promised not to
    // complete it) and completes or times out as it would have.
    SumDeferred(true);
    std::vector<uint32_t> complete;
    for (auto& [key, chunk] : m_chunks)
    {
        if (chunk.open && chunk.deferred == 0 && chunk.others == 0 &&
            std::get<0>(key) == std::get<0>(stream) && std::get<1>(key) == std::get<1>(stream) &&
            std::get<2>(key) == std::get<2>(stream))
        {
            Slot& slot = chunk.slot;
            slot.expected &= view;
            if (slot.contributors != 0 && (slot.contributors & slot.expected) == slot.expected)
            {
                complete.push_back(std::get<3>(key));
            }
        }
    }
    std::sort(complete.begin(), complete.end());
    for (uint32_t index : complete)
    {
        ChunkKey key{std::get<0>(stream), std::get<1>(stream), std::get<2>(stream), index};
        auto it = m_chunks.find(key);
        if (it != m_chunks.end() && it->second.open)
        {
            Release(key, it->second, true, ReleaseCause::OTHER);
        }
    }
}

void
AggregatorNetDevice::PipelineExit()
{
    NS_LOG_FUNCTION(this);
    if (!GetNode())
    {
        // Disposed. PointToPointNetDevice::DoDispose is private in ns-3.37 and cannot be
        // chained, so this device does not override it; its events check the node instead.
        return;
    }
    Time now = Simulator::Now();
    while (!m_pipeline.empty() && m_pipeline.front().exit <= now)
    {
        Contribution contribution = std::move(m_pipeline.front());
        m_pipeline.pop_front();
        Process(contribution);
    }
    SchedulePipelineExit();
}

void
AggregatorNetDevice::Process(const Contribution& contribution)
{
    const IslandSyncHeader& header = contribution.header;
    NS_LOG_FUNCTION(this << header);
    ++m_contributionsIn;
    m_contributionInTrace(header);

    const ChunkKey& key = contribution.key;
    const uint64_t bits = contribution.contributors;
    const std::vector<float>& values = header.GetValues();

    ChunkState& chunk = *contribution.chunk;
    if (contribution.deferred)
    {
        chunk.deferred &= ~bits;
    }
    else
    {
        --chunk.others;
    }
    if (contribution.lostFrom < header.GetChunkIndex())
    {
        NoteKnownLost(contribution);
    }

    // CanDefer's promise: a deferred contribution is summed into its open slot, nothing else.
    const char* const broken = "a deferred contribution did more than add to its slot's sums";
    if (!chunk.open)
    {
        NS_ASSERT_MSG(!contribution.deferred, broken);
        if (IsClosed(key))
        {
            NotePassThrough(contribution.packet, CLOSED);
            Emit(contribution.packet);
            ForgetIfIdle(key, chunk);
            return;
        }
        if (!Fpga().AcquireSlot())
        {
            Close(key);
            NotePassThrough(contribution.packet, NO_SLOT);
            Emit(contribution.packet);
            ForgetIfIdle(key, chunk);
            return;
        }
        chunk.open = true;
        Slot& slot = chunk.slot;
        slot.expected = contribution.expected & ~chunk.knownLost;
        slot.lost = contribution.expected & chunk.knownLost;
        chunk.knownLost = 0;
        slot.contributors = 0;
        slot.format = header.GetFormat();
        slot.chunkCount = header.GetChunkCount();
        slot.valueOffset = header.GetValueOffset();
        slot.paddingBytes = contribution.paddingBytes;
        slot.destination = contribution.destination;
        slot.sums.assign(values.size(), 0);
        slot.safe = true;
        slot.opened = Simulator::Now();
        slot.deadline =
            slot.opened +
            m_waits.Open(StreamKey{std::get<0>(key), std::get<1>(key), std::get<2>(key)},
                         contribution.roundTrip,
                         m_timeout);
        slot.opening = m_deadlines.Add(slot.deadline, key);
        m_deadlines.Reschedule();
        m_slotsInUse = m_slotsInUse + 1;
        if (m_slotsInUse > m_slotHighWaterMark)
        {
            m_slotHighWaterMark = m_slotsInUse;
        }
    }

    Slot& slot = chunk.slot;
    if ((slot.contributors & bits) != 0 && header.GetType() == IslandSyncHeader::DATA)
    {
        NS_ASSERT_MSG(!contribution.deferred, broken);
        NS_LOG_LOGIC("duplicate " << header);
        ++m_duplicates;
        m_duplicateTrace(header);
        return;
    }
    if ((slot.contributors & bits) != 0)
    {
        // A partial aggregate overlapping the slot: its sum cannot be split.
        NS_ASSERT_MSG(!contribution.deferred, broken);
        NS_LOG_LOGIC("overlap " << header);
        NotePassThrough(contribution.packet, OVERLAP);
        Emit(contribution.packet);
        return;
    }
    if (!SameLayout(slot, contribution))
    {
        NS_ASSERT_MSG(!contribution.deferred, broken);
        NS_LOG_LOGIC("layout mismatch " << header);
        slot.expected &= ~bits;
        NotePassThrough(contribution.packet, MISMATCH);
        Emit(contribution.packet);
    }
    else if (!FixedPointSum::Add(slot.sums, values))
    {
        // It would overflow the accumulator (CanDefer never defers such a one): the slot
        // leaves at once with what it holds, the chunk closes, and this and every later
        // contribution of the chunk pass to be summed by the receivers.
        NS_ASSERT_MSG(!contribution.deferred, broken);
        NS_LOG_LOGIC("overflow " << header);
        NotePassThrough(contribution.packet, OVERFLOW);
        Emit(contribution.packet);
        if (slot.contributors != 0)
        {
            Release(key, chunk, false, ReleaseCause::OTHER);
        }
        else
        {
            Free(key, chunk);
        }
        return;
    }
    else
    {
        slot.contributors |= bits;
        slot.safe = slot.safe && FixedPointSum::IsSafe(values, __builtin_popcountll(bits));
        ++m_contributionsSummed;
    }
    if (!contribution.deferred)
    {
        // Known losses that waited for the chunk's deferred contributions to leave.
        slot.expected &= ~(chunk.deferred == 0 ? chunk.knownLost : 0);
        slot.lost |= chunk.deferred == 0 ? chunk.knownLost : 0;
        chunk.knownLost = chunk.deferred == 0 ? 0 : chunk.knownLost;
    }
    if (slot.contributors != 0 && (slot.contributors & slot.expected) == slot.expected)
    {
        NS_ASSERT_MSG(!contribution.deferred, broken);
        const bool complete = slot.lost == 0;
        Release(key, chunk, complete, complete ? ReleaseCause::OTHER : ReleaseCause::KNOWN_LOST);
    }
}

void
AggregatorNetDevice::ForgetIfIdle(const ChunkKey& key, const ChunkState& chunk)
{
    if (!chunk.open && chunk.deferred == 0 && chunk.others == 0 &&
        (chunk.knownLost == 0 || IsClosed(key)))
    {
        m_chunks.erase(key);
    }
}

void
AggregatorNetDevice::NoteKnownLost(const Contribution& contribution)
{
    const IslandSyncHeader& header = contribution.header;
    const uint64_t bit = contribution.contributors;
    for (uint32_t index = contribution.lostFrom; index < header.GetChunkIndex(); ++index)
    {
        const ChunkKey key{header.GetJobId(), header.GetRound(), header.GetCliqueId(), index};
        if (IsClosed(key))
        {
            continue;
        }
        ChunkState& chunk = m_chunks[key];
        chunk.knownLost |= bit;
        ApplyKnownLost(key, chunk);
    }
}

void
AggregatorNetDevice::ApplyKnownLost(const ChunkKey& key, ChunkState& chunk)
{
    if (!chunk.open || chunk.deferred != 0)
    {
        // Applied when the slot opens, or when its deferred contributions have left.
        return;
    }
    Slot& slot = chunk.slot;
    const uint64_t lost = chunk.knownLost & slot.expected & ~slot.contributors;
    chunk.knownLost = 0;
    slot.expected &= ~lost;
    slot.lost |= lost;
    if (chunk.others == 0 && slot.contributors != 0 &&
        (slot.contributors & slot.expected) == slot.expected)
    {
        Release(key, chunk, false, ReleaseCause::KNOWN_LOST);
    }
}

void
AggregatorNetDevice::Release(ChunkKey key, ChunkState& chunk, bool complete, ReleaseCause cause)
{
    NS_LOG_FUNCTION(this << complete << static_cast<int>(cause));
    NS_ASSERT(chunk.open);
    Slot& slot = chunk.slot;

    std::vector<float> values(slot.sums.size());
    for (std::size_t v = 0; v < values.size(); ++v)
    {
        values[v] = FixedPointSum::ToFloat(slot.sums[v]);
    }
    IslandSyncHeader header;
    header.SetType(IslandSyncHeader::AGGREGATE);
    header.SetJobId(std::get<0>(key));
    header.SetRound(std::get<1>(key));
    header.SetCliqueId(std::get<2>(key));
    header.SetSender(static_cast<uint16_t>(m_island));
    header.SetChunkIndex(std::get<3>(key));
    header.SetChunkCount(slot.chunkCount);
    header.SetContributors(slot.contributors);
    header.SetValueOffset(slot.valueOffset);
    // The sum leaves encoded in the clique's format (SetValues quantizes in it).
    header.SetFormat(slot.format);
    header.SetValues(std::move(values));

    Ptr<Packet> packet = AggregateDatagram::Build(header,
                                                  slot.paddingBytes,
                                                  m_sourceAddress,
                                                  slot.destination,
                                                  m_port,
                                                  m_identification++);

    uint64_t missing = (slot.expected | slot.lost) & ~slot.contributors;
    m_waits.Learn(StreamKey{std::get<0>(key), std::get<1>(key), std::get<2>(key)},
                  Simulator::Now() - slot.opened,
                  complete,
                  cause == ReleaseCause::TIMEOUT);
    if (m_facesIsland && slot.destination == m_islandAddress)
    {
        m_shadows.Keep(key, slot.contributors, packet);
    }
    Free(key, chunk);

    NS_LOG_LOGIC((complete ? "aggregate " : "partial aggregate ") << header);
    ++m_aggregatesOut;
    m_aggregateOutTrace(header, complete);
    if (cause == ReleaseCause::TIMEOUT)
    {
        ++m_timeouts;
        m_timeoutTrace(header, missing);
    }
    else if (cause == ReleaseCause::KNOWN_LOST)
    {
        ++m_knownLostReleases;
        m_knownLostTrace(header, missing);
    }
    Emit(packet);
}

void
AggregatorNetDevice::Free(const ChunkKey& key, ChunkState& chunk)
{
    Close(key);
    chunk.open = false;
    chunk.knownLost = 0;
    m_slotsInUse = m_slotsInUse - 1;
    Fpga().ReleaseSlot();
    ForgetIfIdle(key, chunk);
}

std::size_t
AggregatorNetDevice::ChunkKeyHash::operator()(const ChunkKey& key) const
{
    const uint64_t stream = (static_cast<uint64_t>(std::get<0>(key)) << 48) ^
                            (static_cast<uint64_t>(std::get<2>(key)) << 32) ^ std::get<1>(key);
    return std::hash<uint64_t>()(stream * 0x9E3779B97F4A7C15ULL + std::get<3>(key));
}

void
AggregatorNetDevice::SlotTimeouts()
{
    NS_LOG_FUNCTION(this);
    if (!GetNode())
    {
        return;
    }
    // The deferred contributions that left the pipeline before now are in their slots; one
    // leaving exactly now comes after the timeout (as its own exit event would).
    SumDeferred(false);
    ChunkKey key;
    while (m_deadlines.PopDue(Simulator::Now(), key))
    {
        Release(key, m_chunks.at(key), false, ReleaseCause::TIMEOUT);
    }
    m_deadlines.Reschedule();
}

bool
AggregatorNetDevice::IsSlotOpen(const ChunkKey& key, uint64_t opening) const
{
    // A chunk is closed when its slot is released and never reopened; the opening order makes
    // the check independent of that.
    auto it = m_chunks.find(key);
    return it != m_chunks.end() && it->second.open && it->second.slot.opening == opening;
}

bool
AggregatorNetDevice::IsClosed(const ChunkKey& key) const
{
    auto it = m_closed.find(StreamKey{std::get<0>(key), std::get<1>(key), std::get<2>(key)});
    return it != m_closed.end() && it->second.Contains(std::get<3>(key));
}

void
AggregatorNetDevice::Close(const ChunkKey& key)
{
    m_closed[StreamKey{std::get<0>(key), std::get<1>(key), std::get<2>(key)}].Insert(
        std::get<3>(key));
}

void
AggregatorNetDevice::NotePassThrough(Ptr<const Packet> packet, PassReason reason)
{
    NS_LOG_LOGIC("pass-through (" << PassReasonToString(reason) << ") of " << packet->GetSize()
                                  << " bytes");
    ++m_passThroughs[reason];
    m_passThroughTrace(packet, reason);
}

void
AggregatorNetDevice::Emit(Ptr<Packet> packet)
{
    if (!m_txEndConnected)
    {
        TraceConnectWithoutContext("PhyTxEnd",
                                   MakeCallback(&AggregatorNetDevice::TransmissionEnded, this));
        m_txEndConnected = true;
    }
    m_outbox.push_back(packet);
    m_outboxHighWaterMark = std::max(m_outboxHighWaterMark, static_cast<uint32_t>(m_outbox.size()));
    DrainOutbox();
}

void
AggregatorNetDevice::TransmissionEnded(Ptr<const Packet> /* packet */)
{
    if (!m_outbox.empty() && !m_drainEvent.IsRunning())
    {
        // Not from inside the transmitter's completion: it dequeues its next packet after
        // this trace.
        m_drainEvent = Simulator::ScheduleNow(&AggregatorNetDevice::DrainOutbox, this);
    }
}

void
AggregatorNetDevice::DrainOutbox()
{
    if (!GetNode())
    {
        return;
    }
    Ptr<Queue<Packet>> queue = GetQueue();
    PppHeader ppp;
    while (!m_outbox.empty() &&
           !queue->WouldOverflow(1, m_outbox.front()->GetSize() + ppp.GetSerializedSize()))
    {
        Ptr<Packet> packet = m_outbox.front();
        m_outbox.pop_front();
        if (!PointToPointNetDevice::Send(packet, GetBroadcast(), Ipv4L3Protocol::PROT_NUMBER))
        {
            // Only when the link is down; the parent traced the drop (MacTxDrop).
            NS_LOG_WARN("the link of a port of city " << m_island << " refused a packet");
        }
    }
}

void
AggregatorNetDevice::SetReceiveCallback(NetDevice::ReceiveCallback cb)
{
    m_nodeReceive = cb;
    PointToPointNetDevice::SetReceiveCallback(
        MakeCallback(&AggregatorNetDevice::ReceiveFromLink, this));
}

bool
AggregatorNetDevice::ReceiveFromLink(Ptr<NetDevice> device,
                                     Ptr<const Packet> packet,
                                     uint16_t protocol,
                                     const Address& from)
{
    IslandSyncHeader::Type type = IslandSyncHeader::DATA;
    PayloadFormat format = PayloadFormat::FP32;
    // Only NACKs are looked at, and only while a copy is kept (a cheap peek of every packet).
    if (m_facesIsland && !m_shadows.IsEmpty() && protocol == Ipv4L3Protocol::PROT_NUMBER &&
        IslandSyncHeader::PeekTypeInPacket(packet,
                                           IslandSyncHeader::IPV4_DATAGRAM,
                                           m_port,
                                           type,
                                           format) != 0 &&
        type == IslandSyncHeader::NACK)
    {
        packet = AnswerFromShadows(packet);
        if (!packet)
        {
            return true;
        }
    }
    return m_nodeReceive(device, packet, protocol, from);
}

Ptr<const Packet>
AggregatorNetDevice::AnswerFromShadows(Ptr<const Packet> packet)
{
    AggregateShadows::DatagramAnswer answer = m_shadows.AnswerDatagram(packet,
                                                                       m_islandAddress,
                                                                       m_port,
                                                                       Simulator::Now(),
                                                                       GetShadowHoldoff());
    m_nackChunksAnswered += answer.answered;
    for (Ptr<Packet> served : answer.serve)
    {
        ++m_shadowServes;
        m_shadowServedTrace(served);
        Emit(served);
    }
    return answer.forward;
}

Time
AggregatorNetDevice::GetShadowHoldoff() const
{
    DataRateValue rate;
    GetAttribute("DataRate", rate);
    TimeValue delay;
    GetChannel()->GetAttribute("Delay", delay);
    // What waits at the port, the copy served, and a burst of NACKs (at most an MTU each way).
    uint64_t backlog = GetQueue()->GetNBytes() + 2 * GetMtu();
    for (Ptr<const Packet> waiting : m_outbox)
    {
        backlog += waiting->GetSize();
    }
    return rate.Get().CalculateBytesTxTime(backlog) + 2 * delay.Get();
}

} // namespace ns3
