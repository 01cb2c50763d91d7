/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef CLIQUE_MEMBERSHIP_H
#define CLIQUE_MEMBERSHIP_H

#include "exchange-plan.h"
#include "island-sync-header.h"

#include "ns3/callback.h"
#include "ns3/event-id.h"
#include "ns3/nstime.h"

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace ns3
{

class ExchangePlanner;
class WanTopology;

/**
 * @ingroup wan-training
 * @brief One island's view of its cliques: the READY barrier (the round every peer has
 * announced), the members that stopped answering, and the views (the members a round averages
 * over after exclusions), with the plans of the rounds whose view changed.
 *
 * It owns the rounds announced by the peers, the count of unanswered READY requests, the
 * exclusions pending for later rounds, the members believed gone, and the views sent and
 * received. It sends READY and view messages and reports upward through callbacks: a peer
 * started a round (streams waiting for it may start), a member was excluded, the view of a
 * round changed (the exchange fits its state to it) and an exclusion was applied to the
 * current round (the exchange may be complete, or the ring starts again). The protocol is in
 * doc/wan-training.rst, "The island's exchange".
 */
class CliqueMembership
{
  public:
    /** Where the membership reports and what it asks of its island. */
    struct Callbacks
    {
        Callback<void, const IslandSyncHeader&, uint32_t> send; //!< send a READY to an island
        Callback<void, uint32_t, uint32_t> peerStarted;         //!< (island, round) announced
        Callback<void, uint32_t, uint32_t, const std::string&>
            memberExcluded;                    //!< (round, member, reason): trace it
        Callback<void, uint32_t> viewChanged;  //!< (round): fit the exchange to the new view
        Callback<void, uint32_t> viewApplied;  //!< (round): an exclusion of the current round
        Callback<uint64_t, uint32_t> heldFrom; //!< (round): members whose chunks are summed
        Callback<void> rejected;               //!< a malformed view arrived
        Callback<uint32_t> currentRound;       //!< the island's current round
        Callback<bool> active;                 //!< whether the island runs and has not crashed
        Callback<bool, uint32_t> exchanging;   //!< (round): the island is in its exchange
        Callback<std::vector<uint32_t>, uint32_t>
            awaited; //!< (round): the members its exchange waits for now
        Callback<std::optional<Time>, uint32_t>
            timeLeft; //!< (round): how long its exchange has left at its rates (none: unknown)
    };

    /**
     * @param island this island
     * @param jobId the training job
     * @param rounds the rounds the island runs
     * @param topology the topology (outlives the membership)
     * @param planner the planner of the plans (outlives the membership)
     * @param plans the island's plan of every schedule round
     * @param maxRepairAttempts READY requests without answer before a member is excluded
     * @param nackTimeout the island's NackTimeout (the view refresh period adds it to the RTT)
     */
    CliqueMembership(uint32_t island,
                     uint16_t jobId,
                     uint32_t rounds,
                     const WanTopology& topology,
                     const ExchangePlanner& planner,
                     std::vector<ExchangePlan> plans,
                     uint32_t maxRepairAttempts,
                     Time nackTimeout);
    /** Cancels the READY timer. */
    ~CliqueMembership();
    CliqueMembership(const CliqueMembership&) = delete;
    CliqueMembership& operator=(const CliqueMembership&) = delete;

    /**
     * @param callbacks where the membership reports
     */
    void SetCallbacks(const Callbacks& callbacks);

    /**
     * @param round a round
     * @return the plan of the round: its schedule round's, or the view after exclusions
     */
    const ExchangePlan& GetPlan(uint32_t round) const;
    /**
     * @param round a round
     * @return the plan of its schedule round (every member of the clique)
     */
    const ExchangePlan& GetBasePlan(uint32_t round) const;
    /**
     * @brief Forget the views of rounds that are over and have nothing left to send.
     * @param current the current round
     * @param sending whether a round still has send state
     */
    void PruneViews(uint32_t current, Callback<bool, uint32_t> sending);

    /**
     * @param island an island
     * @return the highest round it has announced
     */
    uint32_t GetPeerRound(uint32_t island) const;
    /**
     * @param island an island
     * @return when this island learned of the highest round it has announced (a READY, a view
     *         or a chunk of that round; zero for round 0, which is never announced); for this
     *         island itself, when it announced its current round (AnnounceRound)
     */
    Time GetPeerAnnouncedAt(uint32_t island) const;
    /**
     * @brief Record that an island has started a round (peerStarted when it is new).
     * @param island the island
     * @param round the round it has started
     */
    void UpdatePeerRound(uint32_t island, uint32_t round);
    /**
     * @brief Send READY for a round.
     * @param round the round this island has started
     * @param destination the island told
     * @param askAnswer whether the destination should answer with its own READY
     */
    void SendReady(uint32_t round, uint32_t destination, bool askAnswer);
    /**
     * @brief A READY arrived: a round announced, a request to answer, or a view.
     * @param header the READY
     */
    void HandleReady(const IslandSyncHeader& header);
    /**
     * @brief Note that a member is alive and about a round (resets its count of unanswered
     * requests when the round is not later than the current one; a member believed gone is
     * back).
     * @param member the member
     * @param round the round the packet is about
     */
    void NoteAlive(uint32_t member, uint32_t round);
    /**
     * @brief An exchange starts: forget the unanswered requests and start the READY timer.
     * Every period (the largest round-trip time to a member of the view plus NackTimeout) the
     * members the exchange still awaits are asked to answer, and those that did not answer
     * MaxRepairAttempts requests are excluded; the timer stops when nobody is awaited unless
     * it rearms.
     * @param round the current round
     * @param rearm whether the timer runs for the whole exchange even when nobody is awaited
     */
    void StartReadyTimer(uint32_t round, bool rearm);
    /** Stop the READY timer and the announcements ahead (the exchange ended). */
    void StopReadyTimer();
    /**
     * @param member a member
     * @return its unanswered requests
     */
    uint32_t GetSilence(uint32_t member) const;

    /**
     * @brief The exclusions a round starts with: those pending from other members' views and
     * the members believed gone (memberExcluded for each of the latter).
     * @param round the round that starts
     * @return the members to leave out of it
     */
    uint64_t TakeStartExclusions(uint32_t round);
    /**
     * @brief Announce a round that starts: apply its exclusions and send the view, or READY
     * (with the barrier; ring mode: to the predecessor alone).
     * @param round the round
     * @param excluded TakeStartExclusions' result
     * @param barrier whether the CliqueBarrier is on
     */
    void AnnounceRound(uint32_t round, uint64_t excluded, bool barrier);
    /**
     * @brief With overlap: tell the senders of the next round (ring mode: the predecessor) by
     * READY that this island takes that round's chunks, while the round before is still being
     * exchanged. A sender is told once the current exchange has at most the round-trip time to
     * it left (the timeLeft callback), so that its chunks arrive as the exchange ends; all are
     * told at once when the time left is unknown, none while it is Time::Max() (a receive
     * stream has not started: ExchangeProgressed asks again). The membership calls again when
     * the next one is due; AnnounceRound tells those not told yet (a view still goes out to
     * all).
     * @param round the next round, whose local steps run now
     */
    void AnnounceAhead(uint32_t round);
    /**
     * @brief The current exchange held a chunk: an announcement ahead that waits for a receive
     * stream to start is reconsidered.
     */
    void ExchangeProgressed();
    /**
     * @brief Exclude a member from a round (now, or when the round starts).
     * @param round the round (the current one or a later one)
     * @param member a member of the round's clique
     * @param reason why
     * @return whether it was excluded (not when it already is, or when some of its contribution
     *         is already in the sum)
     */
    bool ExcludeMember(uint32_t round, uint32_t member, const std::string& reason);
    /**
     * @brief Send the view of the current round again to a member that has not confirmed it,
     * at most once per round-trip time plus NackTimeout.
     * @param member the member
     */
    void RefreshView(uint32_t member);
    /** @return members excluded from a round, summed over the rounds */
    uint32_t GetExclusions() const;

  private:
    /** The last view of a round sent to or received from a member. */
    struct ViewSent
    {
        uint32_t round{0}; //!< the round
        uint64_t view{0};  //!< the view (members averaged over)
        Time at;           //!< when it was sent
    };

    /**
     * @param round a round
     * @return the members this island averages over in it (after the exclusions known now)
     */
    uint64_t GetView(uint32_t round) const;
    /**
     * @brief Send this island's view of a round to a member (a VIEW message).
     * @param round the round
     * @param member the member told
     */
    void SendView(uint32_t round, uint32_t member);
    /**
     * @brief A view arrived: exclude whom the sender excludes (and the sender, if it excludes
     * this island).
     * @param header the READY
     */
    void HandleView(const IslandSyncHeader& header);
    /**
     * @brief Count one more unanswered request to a member.
     * @param member the member
     * @return whether it has not answered more than MaxRepairAttempts requests
     */
    bool CountSilence(uint32_t member);
    /**
     * @brief READY timeout of the current exchange (see StartReadyTimer).
     * @param round the round
     */
    void ReadyTimeout(uint32_t round);
    /**
     * @param plan a round's plan
     * @param member a member of it
     * @return whether the member sends to this island in the round (ring mode: the
     *         predecessor alone)
     */
    bool IsSender(const ExchangePlan& plan, uint32_t member) const;
    /**
     * @brief Send READY of a round to the members that send to this island in it (ring mode:
     * the predecessor alone).
     * @param round the round
     * @param plan its plan
     * @param told the members told already, by bit (skipped)
     */
    void SendReadyToSenders(uint32_t round, const ExchangePlan& plan, uint64_t told);
    /**
     * @param round the current round
     * @return the period of the READY requests
     */
    Time GetReadyPeriod(uint32_t round) const;
    /**
     * @brief Make a view the current round's plan and let the exchange fit its state to it.
     * @param round the current round
     * @param excluded the members excluded
     */
    void ApplyView(uint32_t round, uint64_t excluded);
    uint32_t m_island;                            //!< this island
    uint16_t m_jobId;                             //!< the training job
    uint32_t m_rounds;                            //!< rounds the island runs
    const WanTopology& m_topology;                //!< the topology
    const ExchangePlanner& m_planner;             //!< makes the plans of views
    std::vector<ExchangePlan> m_plans;            //!< plan per schedule round
    uint32_t m_maxRepairAttempts;                 //!< requests before an exclusion
    Time m_nackTimeout;                           //!< NackTimeout
    Callbacks m_callbacks;                        //!< where the membership reports
    std::map<uint32_t, ExchangePlan> m_viewPlans; //!< plans of rounds with exclusions
    std::vector<uint32_t> m_peerRound;            //!< highest round announced, by island
    std::vector<Time> m_peerAnnouncedAt;          //!< when that round was learned, by island
    uint32_t m_announcedAhead{UINT32_MAX};        //!< the round AnnounceAhead announced
    uint64_t m_aheadTold{0};                      //!< the senders it told, by bit
    EventId m_aheadEvent;                         //!< the next AnnounceAhead
    bool m_aheadWaiting{false}; //!< whether AnnounceAhead waits for a receive stream to start
    std::map<uint32_t, uint32_t> m_silence;           //!< member -> requests unanswered
    std::map<uint32_t, uint64_t> m_pendingExclusions; //!< later round -> members to exclude
    std::map<uint32_t, uint32_t> m_departed;          //!< member -> round it was gone in
    std::map<uint32_t, ViewSent> m_viewSent;          //!< member -> last view sent to it
    std::map<uint32_t, ViewSent> m_peerViews;         //!< member -> last view it sent
    uint32_t m_exclusions{0};                         //!< members excluded, over all rounds
    EventId m_readyEvent;                             //!< READY timeout
    bool m_readyRearm{false};                         //!< whether it runs while none is awaited
};

} // namespace ns3

#endif /* CLIQUE_MEMBERSHIP_H */
