/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "island-exchange.h"

#include "aggregation-exchange.h"
#include "both-exchange.h"
#include "clique-membership.h"
#include "island-timing.h"
#include "multicast-exchange.h"
#include "parity-blocks.h"
#include "payload-codec.h"
#include "payload-format.h"
#include "ring-exchange.h"
#include "star-exchange.h"
#include "sync-protocol.h"
#include "tree-exchange.h"
#include "wan-topology.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("WanTrainingIslandExchange");

NS_OBJECT_ENSURE_REGISTERED(IslandExchange);

namespace
{

/** The receive streams of an exchange without a receive side. */
const std::map<uint32_t, ReceiveStream> NO_STREAMS;

} // namespace

TypeId
IslandExchange::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::WanTraining::IslandExchange").SetParent<Object>().SetGroupName("WanTraining");
    return tid;
}

Ptr<IslandExchange>
IslandExchange::Create(CapabilityMode mode)
{
    switch (mode)
    {
    case CapabilityMode::RING:
        return CreateObject<RingExchange>();
    case CapabilityMode::UNICAST:
        return CreateObject<StarExchange>();
    case CapabilityMode::MULTICAST:
        return CreateObject<MulticastExchange>();
    case CapabilityMode::AGGREGATION:
        return CreateObject<AggregationExchange>();
    case CapabilityMode::BOTH:
        return CreateObject<BothExchange>();
    case CapabilityMode::TREE:
        return CreateObject<TreeExchange>();
    }
    NS_ABORT_MSG("no island exchange for this capability mode");
    return nullptr;
}

IslandExchange::IslandExchange() = default;

IslandExchange::~IslandExchange() = default;

void
IslandExchange::DoDispose()
{
    m_tx.reset();
    m_rx.reset();
    Object::DoDispose();
}

void
IslandExchange::Setup(const Context& context, uint32_t round)
{
    NS_ABORT_MSG_IF(context.topology == nullptr || context.membership == nullptr,
                    "IslandExchange::Setup: no topology or membership");
    m_ctx = context;
    m_round = round;
}

uint32_t
IslandExchange::GetStepOf(const ExchangePlan& /* plan */,
                          const IslandSyncHeader& /* header */) const
{
    return NO_STEP;
}

const ExchangePlan&
IslandExchange::GetPlan() const
{
    return m_ctx.membership->GetPlan(m_round);
}

const std::string&
IslandExchange::GetName(uint32_t island) const
{
    return m_ctx.topology->GetCity(island).id;
}

const std::string&
IslandExchange::GetIslandName() const
{
    return GetName(m_ctx.island);
}

bool
IslandExchange::HasSendSide() const
{
    return m_tx != nullptr;
}

bool
IslandExchange::HasReceiveSide() const
{
    return m_rx != nullptr;
}

IslandExchange::ReceiveSide&
IslandExchange::GetReceiveSide()
{
    if (!m_rx)
    {
        m_rx = std::make_unique<ReceiveSide>();
        AddReceiveStreams(GetPlan());
    }
    return *m_rx;
}

void
IslandExchange::ReceiveSideReleased()
{
}

void
IslandExchange::ReleaseReceiveSide()
{
    if (m_rx)
    {
        for (auto& [key, stream] : m_rx->streams)
        {
            stream.Cancel();
        }
        m_rx.reset();
        ReceiveSideReleased();
    }
}

void
IslandExchange::ReleaseSendSide()
{
    m_tx->group.GetPacer().Stop();
    m_tx.reset();
}

void
IslandExchange::Stop()
{
    ReleaseReceiveSide();
    if (m_tx)
    {
        for (auto& [key, stream] : m_tx->streams)
        {
            stream.Cancel();
        }
        m_tx->group.GetPacer().Stop();
        m_tx.reset();
    }
}

void
IslandExchange::Begin(const std::vector<float>& snapshot)
{
    NS_LOG_FUNCTION(this << m_round);
    const ExchangePlan& plan = GetPlan();
    m_tx = std::make_unique<SendSide>();
    m_tx->values = snapshot;
    GetReceiveSide();
    AddSendStreams(plan);
    MarkAwaited(plan);
    if (UsesGroupPacer())
    {
        ResumeStream(m_tx->group);
    }
    for (auto& [key, stream] : m_tx->streams)
    {
        ResumeStream(stream);
    }
}

void
IslandExchange::MarkAwaited(const ExchangePlan& /* plan */)
{
    for (auto& [destination, stream] : m_tx->streams)
    {
        if (m_ctx.cliqueBarrier && m_ctx.membership->GetPeerRound(destination) < m_round)
        {
            stream.m_waitingReady = true;
            ++m_tx->awaited;
        }
    }
}

void
IslandExchange::Contribute(const std::vector<float>& snapshot)
{
    AddOwnToSums(GetPlan(), snapshot);
    GetReceiveSide().ownAdded = true;
}

bool
IslandExchange::IsComplete() const
{
    return m_rx && m_rx->ownAdded && m_rx->completeStreams == m_rx->streams.size();
}

void
IslandExchange::Finish(std::vector<float>& parameters)
{
    NS_ASSERT(m_rx);
    AverageSums(GetPlan(), parameters);
    m_rx.reset();
    ReceiveSideReleased();
}

const RingValues*
IslandExchange::GetSums() const
{
    return nullptr;
}

bool
IslandExchange::UsesGroupPacer() const
{
    return false;
}

bool
IslandExchange::IsCliqueWide() const
{
    return false;
}

bool
IslandExchange::IsBehindFpga() const
{
    return false;
}

bool
IslandExchange::IsRebuiltByViews() const
{
    return false;
}

bool
IslandExchange::RearmsReadyTimer() const
{
    return false;
}

uint64_t
IslandExchange::GetHeldFrom() const
{
    return 0;
}

std::optional<Time>
IslandExchange::GetReceiveTimeLeft() const
{
    return std::nullopt;
}

std::vector<uint32_t>
IslandExchange::GetAwaited() const
{
    return GetAwaited(GetPlan(),
                      m_tx ? &m_tx->group : nullptr,
                      m_tx ? &m_tx->streams : nullptr,
                      m_rx ? &m_rx->streams : nullptr);
}

SendStream&
IslandExchange::GetPacerOf(SendStream& stream)
{
    return UsesGroupPacer() ? m_tx->group : stream;
}

bool
IslandExchange::HasWork(const SendStream& stream) const
{
    return stream.GetPacer().HasWork(stream, m_tx->streams);
}

void
IslandExchange::ResumeStream(SendStream& stream)
{
    // A member's stream of a multicast round and a ring step have no pacer of their own: the
    // group stream (the ring's pacer) sends their chunks.
    bool paced = &GetPacerOf(stream) == &stream;
    bool blocked = IsCliqueWide() ? m_tx->awaited > 0 : stream.m_waitingReady;
    if (!paced || blocked || stream.GetPacer().IsSending() || stream.m_done || !HasWork(stream))
    {
        return;
    }
    stream.GetPacer().Start();
}

bool
IslandExchange::NoteSent(const SendStream& /* paced */, SendStream& target, uint32_t chunk)
{
    const bool resent = chunk < target.m_sentFirst;
    target.m_sentFirst = std::max(target.m_sentFirst, chunk + 1);
    return resent;
}

double
IslandExchange::GetPacingRate(const ExchangePlan& plan, const SendStream& stream) const
{
    return plan.sendRateBps.at(stream.m_destination);
}

void
IslandExchange::ChunkLeft(SendStream& /* target */, double /* lastSendEndS */)
{
}

void
IslandExchange::PacerDrained(SendStream& paced, double lastSendEndS)
{
    ScheduleProbe(paced, lastSendEndS);
}

void
IslandExchange::SendNext(uint32_t destination)
{
    if (!m_tx)
    {
        return;
    }
    SendStream& paced = UsesGroupPacer() ? m_tx->group : m_tx->streams.at(destination);
    StreamPacer& pacer = paced.GetPacer();
    if (paced.m_done || !HasWork(paced))
    {
        return;
    }
    const ExchangePlan& plan = GetPlan();
    SendStream& target = pacer.Pick(paced, m_tx->streams);
    uint32_t chunk = target.m_pending.PopFront();
    const bool resent = NoteSent(paced, target, chunk);
    // A repair goes RepairCopies times, back to back in one paced slot of that many packets:
    // it is lost only if every copy is.
    const uint32_t copies = resent ? m_ctx.repairCopies : 1;
    uint32_t parityBytes = 0;
    for (uint32_t copy = 0; copy < copies; ++copy)
    {
        const IslandSyncHeader header = SendChunk(target, chunk, resent);
        if (!resent && m_ctx.fecBlock > 0 && UsesFec())
        {
            parityBytes = AddToParity(target, header);
        }
    }

    const double end =
        pacer.Advance(copies * plan.GetWireBytes(chunk) + parityBytes, GetPacingRate(plan, paced));
    ChunkLeft(target, end);
    if (HasWork(paced))
    {
        ResumeStream(paced);
    }
    else
    {
        PacerDrained(paced, end);
    }
}

Time
IslandExchange::GetProbeWait(uint32_t destination) const
{
    Time wait = IslandTiming::GetRoundTripTime(*m_ctx.topology, m_ctx.island, destination) +
                2 * m_ctx.nackTimeout;
    return IsBehindFpga() ? wait + m_ctx.aggregationTimeout : wait;
}

void
IslandExchange::ScheduleProbe(SendStream& stream, double lastSendEndS)
{
    double now = Simulator::Now().GetSeconds();
    stream.ScheduleProbe(IslandTiming::CeilNanoSeconds(lastSendEndS - now) +
                         GetProbeWait(stream.m_destination));
}

uint32_t
IslandExchange::GetProbeChunk(const ExchangePlan& plan, const SendStream& /* stream */) const
{
    return plan.chunkCount - 1;
}

void
IslandExchange::Probe(uint32_t key)
{
    if (!m_tx)
    {
        return;
    }
    SendStream& stream = m_tx->streams.at(key);
    StreamPacer& pacer = GetPacerOf(stream).GetPacer();
    if (stream.m_done || pacer.IsSending())
    {
        // Busy: the probe is rescheduled when the pacer runs dry.
        return;
    }
    if (stream.CountProbe(m_ctx.maxRepairAttempts))
    {
        GiveUpStream(key);
        return;
    }
    const ExchangePlan& plan = GetPlan();
    const uint32_t chunk = GetProbeChunk(plan, stream);
    NS_LOG_LOGIC("island " << m_ctx.island << " probes " << stream.m_destination << " round "
                           << m_round);
    SendChunk(stream, chunk, true);
    pacer.AdvanceAfterProbe(plan.GetWireBytes(chunk), GetPacingRate(plan, stream));
    stream.ScheduleProbe(GetProbeWait(stream.m_destination));
}

IslandSyncHeader
IslandExchange::MakeHeader(const ExchangePlan& plan, IslandSyncHeader::Type type) const
{
    IslandSyncHeader header;
    header.SetType(type);
    header.SetJobId(m_ctx.jobId);
    header.SetRound(m_round);
    header.SetCliqueIndex(static_cast<uint16_t>(plan.clique));
    header.SetEpoch(plan.epoch);
    header.SetSender(static_cast<uint16_t>(m_ctx.island));
    header.SetChunkCount(plan.chunkCount);
    if (type == IslandSyncHeader::DATA || type == IslandSyncHeader::AGGREGATE)
    {
        header.SetFormat(plan.format);
    }
    return header;
}

IslandSyncHeader
IslandExchange::SendChunk(const SendStream& stream, uint32_t chunk, bool resent)
{
    const ExchangePlan& plan = GetPlan();
    auto [offset, count] = plan.GetValueSlice(chunk);
    IslandSyncHeader header = MakeHeader(plan, IslandSyncHeader::DATA);
    header.SetChunkIndex(chunk);
    header.SetValueOffset(offset);
    FillChunk(plan, stream.m_step, m_tx->values, GetSums(), offset, count, header);
    m_ctx.send(header, plan.GetPaddingBytes(chunk), stream.m_destination);
    m_ctx.chunkSent(stream.m_destination, header, plan.GetPayloadBytes(chunk), resent);
    return header;
}

uint32_t
IslandExchange::AddToParity(SendStream& stream, const IslandSyncHeader& header)
{
    const ExchangePlan& plan = GetPlan();
    if (!stream.m_parity)
    {
        stream.m_parity = std::make_unique<ParityBlocks>(0, plan.chunkCount, m_ctx.fecBlock);
    }
    ParityBlocks& blocks = *stream.m_parity;
    const uint32_t chunk = header.GetChunkIndex();
    if (!blocks.Add(chunk, EncodeValues(header)))
    {
        return 0;
    }
    const uint32_t block = blocks.GetBlock(chunk);
    IslandSyncHeader parity = MakeHeader(plan, IslandSyncHeader::PARITY);
    parity.SetFormat(plan.format);
    parity.SetChunkIndex(block);
    parity.SetContributors(IslandSyncHeader::GetContributorBit(m_ctx.island));
    parity.SetParity(blocks.GetBlockChunks(block), blocks.Take(block));
    // As long on the wire as the block's first chunk (its area is that chunk's).
    m_ctx.send(parity, plan.GetPaddingBytes(block), stream.m_destination);
    m_ctx.paritySent(stream.m_destination, parity);
    return plan.GetWireBytes(block);
}

std::vector<uint8_t>
IslandExchange::EncodeValues(const IslandSyncHeader& header)
{
    const std::vector<float>& values = header.GetValues();
    const auto count = static_cast<uint32_t>(values.size());
    std::vector<uint8_t> bytes(GetEncodedBytes(header.GetFormat(), count));
    PayloadCodec::Encode(header.GetFormat(), values.data(), count, bytes.data());
    return bytes;
}

void
IslandExchange::HandleParity(const IslandSyncHeader& /* header */, uint32_t /* paddingBytes */)
{
    // A mode without forward error correction.
    m_ctx.rejected();
}

bool
IslandExchange::UsesFec() const
{
    return false;
}

void
IslandExchange::GiveUpStream(uint32_t key)
{
    const uint32_t destination = m_tx->streams.at(key).m_destination;
    NS_LOG_INFO("island " << m_ctx.island << " gives up the stream of round " << m_round << " to "
                          << destination);
    if (m_ctx.exchanging(m_round))
    {
        std::ostringstream reason;
        reason << "no acknowledgement from " << GetName(destination) << " to "
               << m_ctx.maxRepairAttempts << " probes";
        // Ring mode: the successor is gone and the ring is rebuilt without it. Otherwise the
        // receiver is left out if nothing of its contribution is held; if part of it is, the
        // stalled stream abandons the round by itself.
        if (m_ctx.membership->ExcludeMember(m_round, destination, reason.str()))
        {
            return;
        }
    }
    CloseStream(key);
}

void
IslandExchange::CloseStream(uint32_t key)
{
    if (!m_tx)
    {
        return;
    }
    auto streamIt = m_tx->streams.find(key);
    if (streamIt == m_tx->streams.end() || streamIt->second.m_done)
    {
        return;
    }
    streamIt->second.Close();
    ++m_tx->doneStreams;
    if (m_tx->doneStreams == m_tx->streams.size())
    {
        ReleaseSendSide();
        m_ctx.idle();
    }
}

uint32_t
IslandExchange::FindRequestedStream(const ExchangePlan& /* plan */,
                                    const IslandSyncHeader& header) const
{
    return m_tx->streams.count(header.GetSender()) ? header.GetSender() : NO_STEP;
}

uint32_t
IslandExchange::GetSentBound(SendStream& stream)
{
    return GetPacerOf(stream).m_sentFirst;
}

void
IslandExchange::HandleNack(const IslandSyncHeader& header)
{
    const ExchangePlan& plan = GetPlan();
    const uint32_t key = FindRequestedStream(plan, header);
    if (key == NO_STEP || header.GetChunkCount() != plan.chunkCount)
    {
        m_ctx.rejected();
        return;
    }
    SendStream& stream = m_tx->streams.at(key);
    if (stream.m_done)
    {
        return;
    }
    const Time now = Simulator::Now();
    if (header.GetRanges() == stream.m_lastNack && now < stream.m_lastNackAt + m_ctx.nackTimeout)
    {
        // A copy of the NACK just served (RepairCopies): a receiver asks for the same chunks
        // again only after a repair wait, which is longer than NackTimeout.
        return;
    }
    stream.m_lastNack = header.GetRanges();
    stream.m_lastNackAt = now;
    stream.m_attempts = 0;
    QueueRepairs(stream, header.GetRanges());
    ResumeStream(GetPacerOf(stream));
}

void
IslandExchange::QueueRepairs(SendStream& stream, const std::vector<IslandSyncHeader::Range>& ranges)
{
    // Multicast: the repair goes to the requester alone, through the group stream's pacer.
    // Ring: through the ring's pacer; a step's own sentFirst bounds what it has sent.
    const uint32_t sent = GetSentBound(stream);
    for (const auto& range : ranges)
    {
        // Only what was sent: the rest is pending anyway.
        stream.m_pending.Insert(range.first, std::min(range.second, sent));
    }
}

void
IslandExchange::HandleDone(const IslandSyncHeader& header)
{
    const uint32_t key = FindRequestedStream(GetPlan(), header);
    if (key == NO_STEP)
    {
        m_ctx.rejected();
        return;
    }
    CloseStream(key);
}

ReceiveStream::Timing
IslandExchange::GetReceiveTiming(const ExchangePlan& plan, uint32_t source) const
{
    const Time rtt = IslandTiming::GetRoundTripTime(*m_ctx.topology, m_ctx.island, source);
    const uint32_t mtu = m_ctx.topology->GetPathMtuBytes(m_ctx.island, source);
    const uint32_t fit = (mtu - SyncProtocol::IP_UDP_HEADER_BYTES - IslandSyncHeader::FIXED_SIZE) /
                         IslandSyncHeader::RANGE_BYTES;
    ReceiveStream::Timing timing;
    timing.intervalS = 8.0 * plan.GetWireBytes(0) / plan.recvRateBps.at(source);
    timing.stallTime =
        std::max(m_ctx.nackTimeout, IslandTiming::CeilNanoSeconds(4 * timing.intervalS));
    timing.patience = m_ctx.aggregationTimeout + timing.stallTime;
    timing.repairWait = rtt + m_ctx.nackTimeout;
    timing.maxRanges = std::max<uint32_t>(1, std::min(fit, MAX_NACK_RANGES));
    timing.maxAttempts = m_ctx.maxRepairAttempts;
    timing.behindFpga = IsBehindFpga();
    return timing;
}

uint64_t
IslandExchange::GetReceiveBytes(const ExchangePlan& plan) const
{
    uint64_t bytes = 0;
    for (const ReceiveRange& range : GetReceiveRanges(plan))
    {
        for (uint32_t chunk = range.first; chunk < range.end; ++chunk)
        {
            bytes += plan.GetPayloadBytes(chunk);
        }
    }
    return bytes;
}

uint64_t
IslandExchange::GetHeldBytes() const
{
    if (!m_rx)
    {
        return 0;
    }
    const ExchangePlan& plan = GetPlan();
    const uint32_t last = plan.chunkCount - 1;
    uint64_t bytes = 0;
    for (const auto& [key, stream] : m_rx->streams)
    {
        // Every chunk carries chunkBytes but the last, which carries the rest.
        bytes += stream.GetHeldCount() * plan.chunkBytes;
        if (plan.chunkCount > 0 && stream.Holds(last))
        {
            bytes -= plan.chunkBytes - plan.GetPayloadBytes(last);
        }
    }
    return bytes;
}

void
IslandExchange::AddReceiveStream(const ReceiveRange& range, const ReceiveStream::Timing& timing)
{
    ReceiveStream& stream =
        m_rx->streams
            .try_emplace(range.key, range.source, range.step, range.first, range.end, timing)
            .first->second;
    stream.SetCallbacks(MakeCallback(&IslandExchange::SendNack, this).Bind(range.key),
                        MakeCallback(&IslandExchange::StreamExhausted, this).Bind(range.key));
    if (!m_ctx.repaired.IsNull())
    {
        stream.SetRepairedCallback(m_ctx.repaired.Bind(range.source, m_round));
    }
}

std::string
IslandExchange::GetStreamLabel(const ReceiveStream& /* stream */) const
{
    return "";
}

void
IslandExchange::StreamExhausted(uint32_t key)
{
    ReceiveStream& stream = m_rx->streams.at(key);
    if (m_round > m_ctx.currentRound() || !m_ctx.exchanging(m_round))
    {
        // The island has not begun this round (it holds early chunks, e.g. while it is behind a
        // partition): nothing can be decided about the member yet. Keep asking.
        stream.Resume();
        return;
    }
    const uint32_t source = stream.GetSource();
    std::ostringstream reason;
    reason << "island " << GetIslandName() << ", round " << m_round
           << ": no progress on the stream from " << GetName(source) << GetStreamLabel(stream)
           << " after " << m_ctx.maxRepairAttempts << " NACKs";
    OnStreamExhausted(source, reason.str());
}

uint32_t
IslandExchange::NameStream(const ExchangePlan& /* plan */,
                           uint32_t key,
                           IslandSyncHeader& header) const
{
    header.SetContributors(uint64_t{1} << key);
    return key;
}

void
IslandExchange::SendNack(uint32_t key, const std::vector<ChunkRangeSet::Range>& ranges)
{
    const ExchangePlan& plan = GetPlan();
    IslandSyncHeader header = MakeHeader(plan, IslandSyncHeader::NACK);
    const uint32_t source = NameStream(plan, key, header);
    header.SetRanges(ranges);
    uint32_t chunks = 0;
    for (const auto& range : ranges)
    {
        chunks += range.second - range.first;
    }
    NS_LOG_LOGIC("island " << m_ctx.island << " NACKs " << chunks << " chunks of " << source
                           << " in round " << m_round);
    // Back to back: the sender merges copies that arrive before it resent the chunks.
    for (uint32_t copy = 0; copy < m_ctx.repairCopies; ++copy)
    {
        m_ctx.send(header, 0, source);
    }
    m_ctx.nackSent(source, m_round, chunks);
}

void
IslandExchange::SendDone(uint32_t key)
{
    const ExchangePlan& plan = GetPlan();
    IslandSyncHeader header = MakeHeader(plan, IslandSyncHeader::DONE);
    const uint32_t source = NameStream(plan, key, header);
    m_ctx.send(header, 0, source);
}

void
IslandExchange::AcknowledgeAgain(const IslandSyncHeader& header,
                                 uint32_t payload,
                                 const std::vector<uint32_t>& keys)
{
    m_ctx.chunkReceived(header, payload, true);
    for (uint32_t key : keys)
    {
        SendDone(key);
    }
}

std::string
IslandExchange::Describe() const
{
    const ExchangePlan& plan = GetPlan();
    std::ostringstream state;
    state << "exchanging in clique {";
    for (std::size_t k = 0; k < plan.members.size(); ++k)
    {
        state << (k ? ", " : "") << GetName(plan.members[k]);
    }
    state << "}";
    std::vector<std::string> waits;
    for (uint32_t member : GetAwaited())
    {
        std::ostringstream wait;
        wait << GetName(member) << " (READY unanswered x" << m_ctx.membership->GetSilence(member)
             << ")";
        waits.push_back(wait.str());
    }
    for (const auto& [key, stream] : m_rx ? m_rx->streams : NO_STREAMS)
    {
        if (stream.IsStarted() && !stream.IsComplete())
        {
            std::ostringstream wait;
            wait << "the stream of " << GetName(stream.GetSource()) << GetStreamLabel(stream)
                 << " (" << stream.GetHeldCount() << " chunks held, " << stream.GetAttempts()
                 << " NACKs without progress)";
            waits.push_back(wait.str());
        }
    }
    for (std::size_t k = 0; k < waits.size(); ++k)
    {
        state << (k ? ", " : "; waiting for ") << waits[k];
    }
    return state.str();
}

} // namespace ns3
