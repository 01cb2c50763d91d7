/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "clique-membership.h"

#include "exchange-planner.h"
#include "island-timing.h"
#include "wan-topology.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("WanTrainingCliqueMembership");

namespace
{

/** An island's contributor bit (IslandSyncHeader::GetContributorBit). */
constexpr auto Bit = &IslandSyncHeader::GetContributorBit;

/**
 * @param plan a plan
 * @param island an island
 * @return whether the island is a member of the plan's clique
 */
bool
IsMember(const ExchangePlan& plan, uint32_t island)
{
    return std::find(plan.members.begin(), plan.members.end(), island) != plan.members.end();
}

} // namespace

CliqueMembership::CliqueMembership(uint32_t island,
                                   uint16_t jobId,
                                   uint32_t rounds,
                                   const WanTopology& topology,
                                   const ExchangePlanner& planner,
                                   std::vector<ExchangePlan> plans,
                                   uint32_t maxRepairAttempts,
                                   Time nackTimeout)
    : m_island(island),
      m_jobId(jobId),
      m_rounds(rounds),
      m_topology(topology),
      m_planner(planner),
      m_plans(std::move(plans)),
      m_maxRepairAttempts(maxRepairAttempts),
      m_nackTimeout(nackTimeout)
{
    NS_ABORT_MSG_IF(m_plans.empty(), "CliqueMembership: a schedule has at least one round");
    // Every island starts round 0 at once: round 0 needs no announcement.
    m_peerRound.assign(topology.GetNCities(), 0);
    m_peerAnnouncedAt.assign(topology.GetNCities(), Time(0));
}

CliqueMembership::~CliqueMembership()
{
    m_readyEvent.Cancel();
    m_aheadEvent.Cancel();
}

void
CliqueMembership::SetCallbacks(const Callbacks& callbacks)
{
    m_callbacks = callbacks;
}

const ExchangePlan&
CliqueMembership::GetPlan(uint32_t round) const
{
    if (!m_viewPlans.empty())
    {
        auto it = m_viewPlans.find(round);
        if (it != m_viewPlans.end())
        {
            return it->second;
        }
    }
    return GetBasePlan(round);
}

const ExchangePlan&
CliqueMembership::GetBasePlan(uint32_t round) const
{
    return m_plans[round % m_plans.size()];
}

void
CliqueMembership::PruneViews(uint32_t current, Callback<bool, uint32_t> sending)
{
    for (auto it = m_viewPlans.begin(); it != m_viewPlans.end();)
    {
        if (it->first < current && !sending(it->first))
        {
            it = m_viewPlans.erase(it);
        }
        else
        {
            ++it;
        }
    }
}

uint32_t
CliqueMembership::GetPeerRound(uint32_t island) const
{
    return m_peerRound[island];
}

Time
CliqueMembership::GetPeerAnnouncedAt(uint32_t island) const
{
    return m_peerAnnouncedAt[island];
}

void
CliqueMembership::UpdatePeerRound(uint32_t island, uint32_t round)
{
    if (round <= m_peerRound[island])
    {
        return;
    }
    m_peerRound[island] = round;
    m_peerAnnouncedAt[island] = Simulator::Now();
    m_callbacks.peerStarted(island, round);
}

void
CliqueMembership::SendReady(uint32_t round, uint32_t destination, bool askAnswer)
{
    IslandSyncHeader header;
    header.SetType(askAnswer ? IslandSyncHeader::READY_ASK : IslandSyncHeader::READY);
    header.SetJobId(m_jobId);
    header.SetRound(round);
    header.SetSender(static_cast<uint16_t>(m_island));
    header.SetContributors(Bit(m_island));
    m_callbacks.send(header, destination);
}

void
CliqueMembership::HandleReady(const IslandSyncHeader& header)
{
    uint32_t peer = header.GetSender();
    if (header.GetType() == IslandSyncHeader::VIEW)
    {
        HandleView(header);
        return;
    }
    UpdatePeerRound(peer, header.GetRound());
    if (header.GetType() == IslandSyncHeader::READY_ASK)
    {
        // The answer tells the asker the round this island is in, and its view when it has
        // excluded members from it.
        const uint32_t current = m_callbacks.currentRound();
        if (IsMember(GetBasePlan(current), peer) && GetPlan(current).excluded != 0)
        {
            SendView(current, peer);
        }
        else
        {
            SendReady(current, peer, false);
        }
    }
}

void
CliqueMembership::NoteAlive(uint32_t member, uint32_t round)
{
    if (member == m_island)
    {
        return;
    }
    auto gone = m_departed.find(member);
    if (gone != m_departed.end() && round >= gone->second)
    {
        // Back (a partition healed): included again from the next round that starts.
        NS_LOG_INFO("island " << m_island << " hears from " << member << " again");
        m_departed.erase(gone);
    }
    if (round <= m_callbacks.currentRound())
    {
        m_silence.erase(member);
    }
}

void
CliqueMembership::StartReadyTimer(uint32_t round, bool rearm)
{
    m_silence.clear();
    m_readyRearm = rearm;
    m_readyEvent.Cancel();
    m_readyEvent =
        Simulator::Schedule(GetReadyPeriod(round), &CliqueMembership::ReadyTimeout, this, round);
}

void
CliqueMembership::StopReadyTimer()
{
    m_readyEvent.Cancel();
    m_aheadEvent.Cancel();
    m_aheadWaiting = false;
}

Time
CliqueMembership::GetReadyPeriod(uint32_t round) const
{
    const ExchangePlan& plan = GetPlan(round);
    Time period = m_nackTimeout;
    for (uint32_t member : plan.members)
    {
        if (member != m_island)
        {
            period = std::max(period,
                              IslandTiming::GetRoundTripTime(m_topology, m_island, member) +
                                  m_nackTimeout);
        }
    }
    return period;
}

void
CliqueMembership::ReadyTimeout(uint32_t round)
{
    if (!m_callbacks.exchanging(round))
    {
        return;
    }
    std::vector<uint32_t> awaited = m_callbacks.awaited(round);
    std::vector<uint32_t> silent;
    for (uint32_t member : awaited)
    {
        if (CountSilence(member))
        {
            silent.push_back(member);
        }
        else
        {
            SendReady(round, member, true);
        }
    }
    for (uint32_t member : silent)
    {
        if (!m_callbacks.exchanging(round))
        {
            return;
        }
        std::ostringstream reason;
        reason << "no answer from " << m_topology.GetCity(member).id << " to "
               << m_maxRepairAttempts << " READY requests";
        ExcludeMember(round, member, reason.str());
    }
    if (m_callbacks.exchanging(round) && (m_readyRearm || !awaited.empty()) &&
        !m_readyEvent.IsRunning())
    {
        m_readyEvent = Simulator::Schedule(GetReadyPeriod(round),
                                           &CliqueMembership::ReadyTimeout,
                                           this,
                                           round);
    }
}

bool
CliqueMembership::CountSilence(uint32_t member)
{
    return ++m_silence[member] > m_maxRepairAttempts;
}

uint32_t
CliqueMembership::GetSilence(uint32_t member) const
{
    auto it = m_silence.find(member);
    return it == m_silence.end() ? 0 : it->second;
}

uint64_t
CliqueMembership::TakeStartExclusions(uint32_t round)
{
    // Members believed gone (or excluded by others ahead of this round) are left out at once.
    uint64_t excluded = 0;
    auto pending = m_pendingExclusions.find(round);
    if (pending != m_pendingExclusions.end())
    {
        excluded = pending->second;
        m_pendingExclusions.erase(pending);
    }
    for (uint32_t member : GetBasePlan(round).members)
    {
        auto gone = m_departed.find(member);
        if (member != m_island && gone != m_departed.end() && gone->second < round &&
            !(excluded & Bit(member)))
        {
            excluded |= Bit(member);
            ++m_exclusions;
            m_callbacks.memberExcluded(round,
                                       member,
                                       "believed gone since round " + std::to_string(gone->second));
        }
    }
    return excluded;
}

void
CliqueMembership::AnnounceRound(uint32_t round, uint64_t excluded, bool barrier)
{
    m_aheadEvent.Cancel();
    m_aheadWaiting = false;
    m_peerAnnouncedAt[m_island] = Simulator::Now();
    if (excluded != 0)
    {
        ApplyView(round, excluded);
    }
    const ExchangePlan& base = GetBasePlan(round);
    const ExchangePlan& plan = GetPlan(round);
    if (plan.excluded != 0)
    {
        // The view tells the members the round has started, and the excluded ones (in case
        // they are back) whom this island averages over.
        for (uint32_t member : base.members)
        {
            if (member != m_island)
            {
                SendView(round, member);
            }
        }
    }
    else if (round > 0 && barrier)
    {
        SendReadyToSenders(round, plan, round == m_announcedAhead ? m_aheadTold : 0);
    }
}

void
CliqueMembership::AnnounceAhead(uint32_t round)
{
    m_aheadEvent.Cancel();
    m_aheadWaiting = false;
    if (round != m_announcedAhead)
    {
        m_announcedAhead = round;
        m_aheadTold = 0;
    }
    if (!m_callbacks.active())
    {
        return;
    }
    const uint32_t current = m_callbacks.currentRound();
    const std::optional<Time> left =
        m_callbacks.exchanging(current) ? m_callbacks.timeLeft(current) : std::nullopt;
    if (left && *left == Time::Max())
    {
        m_aheadWaiting = true;
        return;
    }
    const ExchangePlan& plan = GetBasePlan(round);
    uint64_t told = m_aheadTold;
    std::optional<Time> next; // the largest round trip of a sender told later
    for (uint32_t other : plan.members)
    {
        if (!IsSender(plan, other) || (m_aheadTold & Bit(other)))
        {
            continue;
        }
        const Time rtt = IslandTiming::GetRoundTripTime(m_topology, m_island, other);
        if (!left || *left <= rtt)
        {
            told |= Bit(other);
        }
        else if (!next || rtt > *next)
        {
            next = rtt;
        }
    }
    SendReadyToSenders(round, plan, m_aheadTold | ~told);
    m_aheadTold = told;
    if (next)
    {
        // The exchange cannot run faster than its rates: nobody else is due before then.
        m_aheadEvent =
            Simulator::Schedule(*left - *next, &CliqueMembership::AnnounceAhead, this, round);
    }
}

void
CliqueMembership::ExchangeProgressed()
{
    if (m_aheadWaiting)
    {
        AnnounceAhead(m_announcedAhead);
    }
}

bool
CliqueMembership::IsSender(const ExchangePlan& plan, uint32_t member) const
{
    // Ring: only the predecessor sends to this island.
    return member != m_island && (plan.mode != CapabilityMode::RING || member == plan.predecessor);
}

void
CliqueMembership::SendReadyToSenders(uint32_t round, const ExchangePlan& plan, uint64_t told)
{
    for (uint32_t other : plan.members)
    {
        if (IsSender(plan, other) && !(told & Bit(other)))
        {
            SendReady(round, other, false);
        }
    }
}

uint64_t
CliqueMembership::GetView(uint32_t round) const
{
    if (round == m_callbacks.currentRound() || m_viewPlans.count(round))
    {
        return GetPlan(round).GetMemberBits();
    }
    uint64_t view = GetBasePlan(round).GetMemberBits();
    auto pending = m_pendingExclusions.find(round);
    if (pending != m_pendingExclusions.end())
    {
        view &= ~pending->second;
    }
    return view;
}

void
CliqueMembership::SendView(uint32_t round, uint32_t member)
{
    IslandSyncHeader header;
    header.SetType(IslandSyncHeader::VIEW);
    header.SetJobId(m_jobId);
    header.SetRound(round);
    header.SetCliqueIndex(static_cast<uint16_t>(GetBasePlan(round).clique));
    header.SetSender(static_cast<uint16_t>(m_island));
    const uint64_t view = GetView(round);
    header.SetContributors(view);
    m_callbacks.send(header, member);
    m_viewSent[member] = ViewSent{round, view, Simulator::Now()};
}

void
CliqueMembership::RefreshView(uint32_t member)
{
    const uint32_t current = m_callbacks.currentRound();
    if (!m_callbacks.active() || member == m_island || current >= m_rounds)
    {
        return;
    }
    const ExchangePlan& plan = GetPlan(current);
    if (plan.excluded == 0 || !IsMember(GetBasePlan(current), member))
    {
        return;
    }
    const uint64_t view = plan.GetMemberBits();
    auto confirmed = m_peerViews.find(member);
    if (confirmed != m_peerViews.end() && confirmed->second.round == current &&
        confirmed->second.view == view)
    {
        return;
    }
    auto sent = m_viewSent.find(member);
    if (sent != m_viewSent.end() && sent->second.round == current && sent->second.view == view &&
        Simulator::Now() < sent->second.at +
                               IslandTiming::GetRoundTripTime(m_topology, m_island, member) +
                               m_nackTimeout)
    {
        return;
    }
    SendView(current, member);
}

void
CliqueMembership::HandleView(const IslandSyncHeader& header)
{
    const uint32_t round = header.GetRound();
    const uint32_t peer = header.GetSender();
    if (round >= m_rounds)
    {
        m_callbacks.rejected();
        return;
    }
    const ExchangePlan& base = GetBasePlan(round);
    const uint64_t members = base.GetMemberBits();
    const uint64_t view = header.GetContributors();
    if (!(members & Bit(peer)) || peer == m_island || !(members & Bit(m_island)) ||
        (view & ~members) != 0 || !(view & Bit(peer)))
    {
        m_callbacks.rejected();
        return;
    }
    m_peerViews[peer] = ViewSent{round, view, Simulator::Now()};
    if (view & Bit(m_island))
    {
        // The peer has started the round (the view also announces it).
        UpdatePeerRound(peer, round);
    }
    if (round < m_callbacks.currentRound())
    {
        return;
    }
    const uint64_t before = GetView(round);
    const std::string& peerId = m_topology.GetCity(peer).id;
    if (!(view & Bit(m_island)))
    {
        // The peer averages without this island: so does this island without the peer (the
        // two sides of a partition each average over their side).
        ExcludeMember(round, peer, peerId + " excluded this island");
    }
    for (uint32_t member : base.members)
    {
        if (member != m_island && member != peer && !(view & Bit(member)) &&
            (GetView(round) & Bit(member)))
        {
            ExcludeMember(round, member, "excluded by " + peerId);
        }
    }
    // Tell the peer this island's view when it differs and the peer has not had it yet.
    const uint64_t after = GetView(round);
    auto sent = m_viewSent.find(peer);
    bool told =
        sent != m_viewSent.end() && sent->second.round == round && sent->second.view == after;
    if (after != view && after == before && !told && round == m_callbacks.currentRound() &&
        (after & Bit(peer)))
    {
        SendView(round, peer);
    }
}

bool
CliqueMembership::ExcludeMember(uint32_t round, uint32_t member, const std::string& reason)
{
    const uint32_t current = m_callbacks.currentRound();
    if (!m_callbacks.active() || round < current || round >= m_rounds || member == m_island)
    {
        return false;
    }
    const ExchangePlan& base = GetBasePlan(round);
    if (!IsMember(base, member) || !(GetView(round) & Bit(member)))
    {
        return false;
    }
    if (round > current)
    {
        NS_LOG_INFO("island " << m_island << " will exclude " << member << " from round " << round
                              << ": " << reason);
        m_pendingExclusions[round] |= Bit(member);
        ++m_exclusions;
        m_callbacks.memberExcluded(round, member, reason);
        return true;
    }
    if (m_callbacks.heldFrom(round) & Bit(member))
    {
        // Some of its contribution is in the sum: it stays.
        NS_LOG_INFO("island " << m_island << " cannot exclude " << member << " from round " << round
                              << ": its chunks are held");
        return false;
    }
    NS_LOG_INFO("island " << m_island << " excludes " << member << " from round " << round << ": "
                          << reason);
    m_departed.emplace(member, round);
    ++m_exclusions;
    m_callbacks.memberExcluded(round, member, reason);
    ApplyView(round, GetPlan(round).excluded | Bit(member));
    if (m_callbacks.currentRound() != round || !m_callbacks.active())
    {
        return true;
    }
    const ExchangePlan& plan = GetPlan(round);
    for (uint32_t other : base.members)
    {
        if (other != m_island && !(plan.excluded & Bit(other) && other != member))
        {
            SendView(round, other);
        }
    }
    m_callbacks.viewApplied(round);
    return true;
}

void
CliqueMembership::ApplyView(uint32_t round, uint64_t excluded)
{
    NS_LOG_FUNCTION(this << round << excluded);
    // A member whose contribution is in the sum already cannot be left out.
    const uint64_t held = excluded & m_callbacks.heldFrom(round);
    for (uint32_t member = 0; member < IslandSyncHeader::MAX_ISLANDS; ++member)
    {
        if (held & Bit(member))
        {
            m_departed.erase(member);
        }
    }
    excluded &= ~held;
    m_viewPlans[round] =
        m_planner.MakeViewPlan(GetBasePlan(round), round % m_plans.size(), excluded);
    m_callbacks.viewChanged(round);
}

uint32_t
CliqueMembership::GetExclusions() const
{
    return m_exclusions;
}

} // namespace ns3
