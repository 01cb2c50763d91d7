/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "round-exchanges.h"

#include "clique-membership.h"

namespace ns3
{

RoundExchanges::RoundExchanges(const IslandExchange::Context& context, uint32_t rounds)
    : m_context(context),
      m_rounds(rounds)
{
}

Ptr<IslandExchange>
RoundExchanges::Find(uint32_t round) const
{
    auto it = m_exchanges.find(round);
    return it != m_exchanges.end() ? it->second : nullptr;
}

Ptr<IslandExchange>
RoundExchanges::Get(uint32_t round)
{
    Ptr<IslandExchange>& exchange = m_exchanges[round];
    if (!exchange)
    {
        exchange = IslandExchange::Create(m_context.membership->GetPlan(round).mode);
        exchange->Setup(m_context, round);
    }
    return exchange;
}

void
RoundExchanges::HandleMessage(const IslandSyncHeader& header, uint32_t paddingBytes)
{
    const uint32_t round = header.GetRound();
    if (header.GetType() == IslandSyncHeader::DATA ||
        header.GetType() == IslandSyncHeader::AGGREGATE ||
        header.GetType() == IslandSyncHeader::PARITY)
    {
        if (round >= m_rounds)
        {
            m_context.rejected();
            return;
        }
        Ptr<IslandExchange> exchange = Get(round);
        if (header.GetType() == IslandSyncHeader::PARITY)
        {
            exchange->HandleParity(header, paddingBytes);
        }
        else
        {
            exchange->HandleChunk(header, paddingBytes);
        }
        m_prune = m_prune || (!exchange->HasSendSide() && !exchange->HasReceiveSide());
        return;
    }
    // A NACK or DONE is about one of this island's send streams.
    if (!(header.GetContributors() & (uint64_t{1} << m_context.island)))
    {
        m_context.rejected();
        return;
    }
    Ptr<IslandExchange> exchange = Find(round);
    if (!exchange || !exchange->HasSendSide())
    {
        // Not started yet (everything will be sent) or acknowledged by every member.
        return;
    }
    if (header.GetType() == IslandSyncHeader::NACK)
    {
        exchange->HandleNack(header);
    }
    else
    {
        exchange->HandleDone(header);
    }
}

void
RoundExchanges::MarkPrune()
{
    m_prune = true;
}

void
RoundExchanges::Prune()
{
    if (!m_prune)
    {
        return;
    }
    m_prune = false;
    for (auto it = m_exchanges.begin(); it != m_exchanges.end();)
    {
        if (!it->second->HasSendSide() && !it->second->HasReceiveSide())
        {
            it = m_exchanges.erase(it);
        }
        else
        {
            ++it;
        }
    }
}

bool
RoundExchanges::HasSendSide(uint32_t round) const
{
    Ptr<IslandExchange> exchange = Find(round);
    return exchange && exchange->HasSendSide();
}

bool
RoundExchanges::HasAnySendSide() const
{
    for (const auto& [round, exchange] : m_exchanges)
    {
        if (exchange->HasSendSide())
        {
            return true;
        }
    }
    return false;
}

uint64_t
RoundExchanges::GetHeldFrom(uint32_t round) const
{
    Ptr<IslandExchange> exchange = Find(round);
    return exchange ? exchange->GetHeldFrom() : 0;
}

uint64_t
RoundExchanges::GetHeldBytes(uint32_t round) const
{
    Ptr<IslandExchange> exchange = Find(round);
    return exchange ? exchange->GetHeldBytes() : 0;
}

std::vector<uint32_t>
RoundExchanges::GetAwaited(uint32_t round) const
{
    Ptr<IslandExchange> exchange = Find(round);
    return exchange ? exchange->GetAwaited() : std::vector<uint32_t>();
}

std::optional<Time>
RoundExchanges::GetReceiveTimeLeft(uint32_t round) const
{
    Ptr<IslandExchange> exchange = Find(round);
    return exchange ? exchange->GetReceiveTimeLeft() : std::nullopt;
}

uint32_t
RoundExchanges::GetStepOf(const ExchangePlan& plan, const IslandSyncHeader& header) const
{
    Ptr<IslandExchange> exchange = Find(header.GetRound());
    if (!exchange)
    {
        exchange = IslandExchange::Create(plan.mode);
    }
    return exchange->GetStepOf(plan, header);
}

void
RoundExchanges::PeerStarted(uint32_t island, uint32_t round)
{
    for (auto& [exchangeRound, exchange] : m_exchanges)
    {
        if (exchangeRound <= round)
        {
            exchange->PeerStarted(island);
        }
    }
}

void
RoundExchanges::FitToView(uint32_t round)
{
    Ptr<IslandExchange> exchange = Find(round);
    if (!exchange)
    {
        return;
    }
    m_prune = true;
    const CapabilityMode mode = m_context.membership->GetPlan(round).mode;
    if (exchange->GetMode() == mode)
    {
        exchange->FitToView();
        return;
    }
    // The view changed the algorithm (a tree without its root): a new exchange, which the
    // island begins once the view is applied.
    exchange->Stop();
    exchange->Dispose();
    exchange = IslandExchange::Create(mode);
    exchange->Setup(m_context, round);
    m_exchanges[round] = exchange;
    m_replaced.insert(round);
}

bool
RoundExchanges::TakeReplaced(uint32_t round)
{
    return m_replaced.erase(round) > 0;
}

void
RoundExchanges::ReleaseReceiveSides()
{
    for (auto& [round, exchange] : m_exchanges)
    {
        exchange->ReleaseReceiveSide();
    }
    m_prune = true;
}

void
RoundExchanges::Stop()
{
    for (auto& [round, exchange] : m_exchanges)
    {
        exchange->Stop();
    }
    m_prune = true;
}

void
RoundExchanges::Dispose()
{
    for (auto& [round, exchange] : m_exchanges)
    {
        exchange->Dispose();
    }
    m_exchanges.clear();
}

} // namespace ns3
