/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "star-exchange.h"

#include "clique-membership.h"
#include "payload-codec.h"
#include "payload-format.h"

#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("WanTrainingStarExchange");

NS_OBJECT_ENSURE_REGISTERED(StarExchange);

namespace
{

/** An island's contributor bit (IslandSyncHeader::GetContributorBit). */
constexpr auto Bit = &IslandSyncHeader::GetContributorBit;

} // namespace

TypeId
StarExchange::GetTypeId()
{
    static TypeId tid = TypeId("ns3::WanTraining::StarExchange")
                            .SetParent<IslandExchange>()
                            .SetGroupName("WanTraining")
                            .AddConstructor<StarExchange>();
    return tid;
}

CapabilityMode
StarExchange::GetMode() const
{
    return CapabilityMode::UNICAST;
}

void
StarExchange::FillChunk(const ExchangePlan& plan,
                        uint32_t /* step */,
                        const std::vector<float>& snapshot,
                        const RingValues* /* sums */,
                        uint32_t offset,
                        uint32_t count,
                        IslandSyncHeader& header) const
{
    header.SetContributors(Bit(plan.island));
    header.SetValues(
        std::vector<float>(snapshot.begin() + offset, snapshot.begin() + offset + count));
}

void
StarExchange::AddOwn(const ExchangePlan& plan,
                     const std::vector<float>& snapshot,
                     std::vector<double>& sum) const
{
    for (uint32_t v = 0; v < plan.parameterCount; ++v)
    {
        sum[v] += snapshot[v];
    }
}

std::vector<uint32_t>
StarExchange::GetAwaited(const ExchangePlan& plan,
                         const SendStream* /* pacer */,
                         const std::map<uint32_t, SendStream>* sendStreams,
                         const std::map<uint32_t, ReceiveStream>* receiveStreams) const
{
    std::vector<uint32_t> awaited;
    for (uint32_t member : plan.members)
    {
        if (member == plan.island)
        {
            continue;
        }
        bool waiting = false;
        if (sendStreams != nullptr)
        {
            auto it = sendStreams->find(member);
            waiting = it != sendStreams->end() && it->second.m_waitingReady;
        }
        if (receiveStreams != nullptr)
        {
            auto it = receiveStreams->find(member);
            waiting = waiting || (it != receiveStreams->end() && !it->second.IsStarted() &&
                                  !it->second.IsComplete());
        }
        if (waiting)
        {
            awaited.push_back(member);
        }
    }
    return awaited;
}

void
StarExchange::Average(const ExchangePlan& plan,
                      const std::vector<double>& sum,
                      const RingValues* /* sums */,
                      std::vector<float>& parameters) const
{
    const double k = static_cast<double>(plan.members.size());
    for (uint32_t v = 0; v < plan.parameterCount; ++v)
    {
        parameters[v] = static_cast<float>(sum[v] / k);
    }
}

std::vector<IslandExchange::ReceiveRange>
StarExchange::GetReceiveRanges(const ExchangePlan& plan) const
{
    std::vector<ReceiveRange> ranges;
    for (uint32_t other : plan.members)
    {
        if (other != plan.island)
        {
            ranges.push_back({other, other, 0, 0, plan.chunkCount});
        }
    }
    return ranges;
}

void
StarExchange::AddReceiveStreams(const ExchangePlan& plan)
{
    m_sum.assign(plan.parameterCount, 0.0);
    for (const ReceiveRange& range : GetReceiveRanges(plan))
    {
        AddReceiveStream(range, GetReceiveTiming(plan, range.source));
    }
}

void
StarExchange::ReceiveSideReleased()
{
    std::vector<double>().swap(m_sum);
    m_parity.clear();
}

void
StarExchange::AddSendStreams(const ExchangePlan& plan)
{
    for (uint32_t other : plan.members)
    {
        if (other != m_ctx.island)
        {
            SendStream& stream = m_tx->streams[other];
            stream.m_destination = other;
            stream.SetProbeCallback(MakeCallback(&StarExchange::Probe, this).Bind(other));
            stream.GetPacer().Configure(StreamPacer::OWN,
                                        MakeCallback(&StarExchange::SendNext, this).Bind(other));
            if (!UsesGroupPacer())
            {
                stream.m_pending.Insert(0, plan.chunkCount);
            }
            stream.GetPacer().RestartNow();
        }
    }
}

void
StarExchange::AddOwnToSums(const ExchangePlan& plan, const std::vector<float>& snapshot)
{
    AddOwn(plan, snapshot, m_sum);
}

void
StarExchange::AverageSums(const ExchangePlan& plan, std::vector<float>& parameters)
{
    Average(plan, m_sum, nullptr, parameters);
}

void
StarExchange::OnStreamExhausted(uint32_t /* source */, const std::string& reason)
{
    // Part of its contribution is in the sum and the rest cannot be had.
    m_ctx.abandon(reason);
}

std::optional<Time>
StarExchange::GetReceiveTimeLeft() const
{
    if (!m_rx)
    {
        return std::nullopt;
    }
    Time left;
    for (const auto& [source, stream] : m_rx->streams)
    {
        if (!stream.IsStarted())
        {
            // Its contributor's start is not known yet.
            return Time::Max();
        }
        left = std::max(left, stream.GetTimeLeft());
    }
    return left;
}

uint64_t
StarExchange::GetHeldFrom() const
{
    uint64_t held = 0;
    if (!m_rx)
    {
        return held;
    }
    for (const auto& [source, stream] : m_rx->streams)
    {
        if (stream.IsStarted())
        {
            held |= Bit(source);
        }
    }
    return held;
}

void
StarExchange::HandleChunk(const IslandSyncHeader& header, uint32_t paddingBytes)
{
    const ExchangePlan& plan = GetPlan();
    const uint64_t accepted = GetAcceptedContributors(plan);
    uint64_t contributors = header.GetContributors();
    uint32_t chunk = header.GetChunkIndex();
    for (uint32_t member : m_ctx.membership->GetBasePlan(m_round).members)
    {
        if (contributors & Bit(member))
        {
            m_ctx.membership->NoteAlive(member, m_round);
        }
    }
    if (plan.members.size() < 2 || header.GetCliqueIndex() != plan.clique ||
        header.GetEpoch() != plan.epoch || contributors == 0 || (contributors & ~accepted) != 0 ||
        !IsWhole(plan, contributors) || header.GetChunkCount() != plan.chunkCount)
    {
        m_ctx.rejected();
        return;
    }
    uint32_t payload = plan.GetPayloadBytes(chunk);
    if (!plan.HasChunkLayout(header, paddingBytes))
    {
        m_ctx.rejected();
        return;
    }

    // Whoever contributed to a round-r chunk has started round r (behind an FPGA the
    // contributors' DATA never arrives: the aggregate's bitmap names them).
    for (uint32_t member : plan.members)
    {
        if (contributors & Bit(member))
        {
            m_ctx.membership->UpdatePeerRound(member, m_round);
        }
    }
    if (m_round < m_ctx.currentRound())
    {
        // The round is over here: every contribution is held. Acknowledge again (a DONE was
        // lost or the sender probes).
        AcknowledgeAgain(header, payload, GetSourcesOf(plan, contributors));
        return;
    }

    ReceiveSide& rx = GetReceiveSide();
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
        std::vector<uint32_t> keys;
        for (auto& [source, stream] : rx.streams)
        {
            if ((held & Bit(source)) && stream.IsComplete())
            {
                keys.push_back(source);
            }
        }
        AcknowledgeAgain(header, payload, keys);
        return;
    }

    const std::vector<float>& values = header.GetValues();
    const uint32_t offset = header.GetValueOffset();
    for (uint32_t v = 0; v < values.size(); ++v)
    {
        m_sum[offset + v] += values[v];
    }
    m_ctx.chunkReceived(header, payload, false);

    for (auto& [source, stream] : rx.streams)
    {
        if ((contributors & Bit(source)) && stream.Accept(chunk))
        {
            ++rx.completeStreams;
            SendDone(source);
        }
    }

    if (header.GetType() == IslandSyncHeader::AGGREGATE && IsEdgeAggregated())
    {
        // The edge FPGA sends one aggregate per chunk: whoever it leaves out comes only as a
        // repair (tree mode is different: the root gets a chunk's sums from several subtrees).
        for (auto& [source, stream] : rx.streams)
        {
            if ((contributors & Bit(source)) == 0)
            {
                stream.NackAbsent(chunk);
            }
        }
    }
    if (header.GetType() == IslandSyncHeader::AGGREGATE && AreAggregatesInOrder())
    {
        // Once an aggregate of a chunk after c has named every contributor, what is missing of
        // c is lost, or waits in a slot for a lost contribution: NACK it at once (a repair
        // that meets its slot completes it, one that finds its chunk closed passes).
        uint32_t settled = plan.chunkCount;
        for (const auto& [source, stream] : rx.streams)
        {
            settled = std::min(settled, std::max(stream.GetNextFirst(), 1U) - 1);
        }
        for (auto& [source, stream] : rx.streams)
        {
            stream.NackSettledBefore(settled);
        }
    }
    ChunkHeld(chunk);
    m_ctx.progress(m_round);
    if (m_ctx.fecBlock > 0 && UsesFec() && m_rx && header.GetType() == IslandSyncHeader::DATA)
    {
        // After the progress: a rebuilt chunk is taken as a new arrival of its own.
        AddToBlocks(header.GetSender(), header);
    }
}

void
StarExchange::ChunkHeld(uint32_t /* chunk */)
{
}

bool
StarExchange::UsesFec() const
{
    return !IsBehindFpga();
}

void
StarExchange::HandleParity(const IslandSyncHeader& header, uint32_t paddingBytes)
{
    const ExchangePlan& plan = GetPlan();
    const uint32_t source = header.GetSender();
    const uint32_t block = header.GetChunkIndex();
    if (m_ctx.fecBlock == 0 || !UsesFec() || plan.members.size() < 2 ||
        header.GetCliqueIndex() != plan.clique || header.GetEpoch() != plan.epoch ||
        header.GetChunkCount() != plan.chunkCount || header.GetFormat() != plan.format ||
        (GetAcceptedContributors(plan) & Bit(source)) == 0 || block % m_ctx.fecBlock != 0 ||
        header.GetBlockChunks() != std::min(m_ctx.fecBlock, plan.chunkCount - block) ||
        header.GetParity().size() !=
            GetEncodedBytes(plan.format, plan.GetValueSlice(block).second) ||
        paddingBytes != plan.GetPaddingBytes(block))
    {
        // Another FecBlock, format or layout than this island's: not a parity of its streams.
        m_ctx.rejected();
        return;
    }
    m_ctx.membership->NoteAlive(source, m_round);
    if (m_round < m_ctx.currentRound() || !m_rx)
    {
        // The round is over here (or its receive side is gone): nothing is missing.
        return;
    }
    if (m_rx->streams.count(source) == 0)
    {
        return;
    }
    // Ignored when every chunk of the block arrived (the block is finished).
    auto blocks = m_parity.try_emplace(source, 0, plan.chunkCount, m_ctx.fecBlock).first;
    blocks->second.SetParity(block, header.GetParity());
    if (blocks->second.CanRecover(block))
    {
        Rebuild(source, block);
    }
}

void
StarExchange::AddToBlocks(uint32_t source, const IslandSyncHeader& header)
{
    const ExchangePlan& plan = GetPlan();
    auto blocks = m_parity.try_emplace(source, 0, plan.chunkCount, m_ctx.fecBlock).first;
    const uint32_t block = blocks->second.GetBlock(header.GetChunkIndex());
    if (blocks->second.Add(header.GetChunkIndex(), EncodeValues(header)))
    {
        // Every chunk of the block arrived.
        blocks->second.Forget(block);
    }
    else if (blocks->second.CanRecover(block))
    {
        Rebuild(source, block);
    }
}

void
StarExchange::Rebuild(uint32_t source, uint32_t block)
{
    const ExchangePlan& plan = GetPlan();
    const ReceiveStream& stream = m_rx->streams.at(source);
    ParityBlocks& blocks = m_parity.at(source);
    uint32_t chunk = block;
    while (stream.Holds(chunk))
    {
        ++chunk;
    }
    auto [offset, count] = plan.GetValueSlice(chunk);
    const std::vector<uint8_t> bytes =
        blocks.Recover(block, static_cast<uint32_t>(GetEncodedBytes(plan.format, count)));
    std::vector<float> values(count);
    if (!PayloadCodec::Decode(plan.format, bytes.data(), count, values.data()))
    {
        // Only a parity that is not the XOR of the block's chunks gives this.
        NS_LOG_WARN("island " << m_ctx.island << ": the parity of block " << block << " from "
                              << source << " does not rebuild chunk " << chunk);
        m_ctx.rejected();
        return;
    }
    IslandSyncHeader header = MakeHeader(plan, IslandSyncHeader::DATA);
    header.SetSender(static_cast<uint16_t>(source));
    header.SetContributors(Bit(source));
    header.SetChunkIndex(chunk);
    header.SetValueOffset(offset);
    header.SetValues(std::move(values));
    NS_LOG_LOGIC("island " << m_ctx.island << " rebuilt chunk " << chunk << " of " << source
                           << " from its block's parity");
    m_ctx.recovered(source, m_round);
    // Its block is finished: taking it as an arrival adds nothing to the block.
    HandleChunk(header, plan.GetPaddingBytes(chunk));
}

bool
StarExchange::IsEdgeAggregated() const
{
    return false;
}

bool
StarExchange::AreAggregatesInOrder() const
{
    return false;
}

uint64_t
StarExchange::GetAcceptedContributors(const ExchangePlan& plan) const
{
    return plan.GetMemberBits() & ~Bit(m_ctx.island);
}

bool
StarExchange::IsWhole(const ExchangePlan& /* plan */, uint64_t /* contributors */) const
{
    return true;
}

std::vector<uint32_t>
StarExchange::GetSourcesOf(const ExchangePlan& /* plan */, uint64_t contributors) const
{
    std::vector<uint32_t> sources;
    for (uint32_t j = 0; j < IslandSyncHeader::MAX_ISLANDS; ++j)
    {
        if (contributors & Bit(j))
        {
            sources.push_back(j);
        }
    }
    return sources;
}

std::vector<double>&
StarExchange::GetSum()
{
    return m_sum;
}

void
StarExchange::StartTogether(bool restart)
{
    auto start = [this, restart](SendStream& stream) {
        restart ? stream.GetPacer().RestartNow() : stream.GetPacer().NotBeforeNow();
        ResumeStream(stream);
    };
    if (UsesGroupPacer())
    {
        start(m_tx->group);
    }
    for (auto& [member, stream] : m_tx->streams)
    {
        start(stream);
    }
}

void
StarExchange::PeerStarted(uint32_t island)
{
    if (!m_tx)
    {
        return;
    }
    auto it = m_tx->streams.find(island);
    if (it == m_tx->streams.end() || !it->second.m_waitingReady)
    {
        return;
    }
    it->second.m_waitingReady = false;
    --m_tx->awaited;
    if (!IsCliqueWide())
    {
        it->second.GetPacer().RestartNow();
        ResumeStream(it->second);
    }
    else if (m_tx->awaited == 0)
    {
        // Every member is ready: the streams start together.
        StartTogether(true);
    }
}

void
StarExchange::FitToView()
{
    NS_LOG_FUNCTION(this << m_round);
    const ExchangePlan& plan = GetPlan();
    if (m_rx)
    {
        for (auto it = m_rx->streams.begin(); it != m_rx->streams.end();)
        {
            if (plan.excluded & Bit(it->first))
            {
                it->second.Cancel();
                if (it->second.IsComplete())
                {
                    --m_rx->completeStreams;
                }
                it = m_rx->streams.erase(it);
            }
            else
            {
                ++it;
            }
        }
    }
    if (!m_tx)
    {
        return;
    }
    for (auto it = m_tx->streams.begin(); it != m_tx->streams.end();)
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
            --m_tx->awaited;
        }
        if (stream.m_done)
        {
            --m_tx->doneStreams;
        }
        it = m_tx->streams.erase(it);
    }
    if (m_tx->streams.empty() || m_tx->doneStreams == m_tx->streams.size())
    {
        ReleaseSendSide();
        return;
    }
    if (IsCliqueWide() && m_tx->awaited == 0)
    {
        // The members left have all announced the round: the streams start together.
        StartTogether(false);
    }
}

} // namespace ns3
