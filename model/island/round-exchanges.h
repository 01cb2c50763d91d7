/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef ROUND_EXCHANGES_H
#define ROUND_EXCHANGES_H

#include "island-exchange.h"

#include "ns3/nstime.h"
#include "ns3/ptr.h"

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace ns3
{

/**
 * @ingroup wan-training
 * @brief An island's exchanges by round: makes each round's exchange for the algorithm of its
 * plan, hands it the chunks, NACKs and DONEs of its round, forwards the membership's events to
 * it, and drops the exchanges that hold nothing any more.
 *
 * Several rounds can have an exchange at once: the current one, earlier ones whose send side
 * still serves repairs, and later ones whose chunks arrived early. An exchange is dropped only
 * by Prune, which the island calls where no exchange is running (after a packet is handled);
 * Stop and ReleaseReceiveSides keep the exchanges, emptied.
 */
class RoundExchanges
{
  public:
    /**
     * @param context what every exchange is given (its membership outlives this object)
     * @param rounds the rounds the island runs
     */
    RoundExchanges(const IslandExchange::Context& context, uint32_t rounds);

    /**
     * @param round a round
     * @return its exchange, or nullptr when it has none
     */
    Ptr<IslandExchange> Find(uint32_t round) const;
    /**
     * @param round a round (< rounds)
     * @return its exchange, made for the algorithm of its plan when absent
     */
    Ptr<IslandExchange> Get(uint32_t round);
    /**
     * @brief A DATA, AGGREGATE, NACK or DONE arrived: hand it to its round's exchange (a NACK
     * or DONE that names another island is rejected; one for a round without a send side is
     * ignored).
     * @param header its header
     * @param paddingBytes its payload after the header
     */
    void HandleMessage(const IslandSyncHeader& header, uint32_t paddingBytes);
    /** Drop the exchanges that hold nothing, if any may. */
    void Prune();
    /** Note that an exchange may hold nothing any more (Prune drops it). */
    void MarkPrune();

    /**
     * @param round a round
     * @return whether it has a send side (something to send or to be acknowledged)
     */
    bool HasSendSide(uint32_t round) const;
    /** @return whether any round has a send side */
    bool HasAnySendSide() const;
    /**
     * @param round a round
     * @return the members some of whose chunks are in its sums
     */
    uint64_t GetHeldFrom(uint32_t round) const;
    /**
     * @param round a round
     * @return the model bytes its receive streams hold (IslandExchange::GetHeldBytes; 0
     *         without an exchange)
     */
    uint64_t GetHeldBytes(uint32_t round) const;
    /**
     * @param round a round
     * @return the members its exchange waits for now
     */
    std::vector<uint32_t> GetAwaited(uint32_t round) const;
    /**
     * @param round a round
     * @return how long its exchange has left (IslandExchange::GetReceiveTimeLeft; none without
     *         an exchange)
     */
    std::optional<Time> GetReceiveTimeLeft(uint32_t round) const;
    /**
     * @param plan the plan of the header's round
     * @param header a chunk's header
     * @return its step (IslandExchange::GetStepOf: of the round's exchange, or of one of the
     *         plan's mode when the round has none)
     */
    uint32_t GetStepOf(const ExchangePlan& plan, const IslandSyncHeader& header) const;
    /**
     * @brief A peer announced a round: the exchanges of that round and earlier ones start the
     * streams that waited for it.
     * @param island the peer
     * @param round the round
     */
    void PeerStarted(uint32_t island, uint32_t round);
    /**
     * @brief The view of a round changed: its exchange fits its state to the new plan, or,
     * when the view's plan has another algorithm (a tree without its root), is replaced by an
     * exchange of that algorithm (TakeReplaced tells).
     * @param round the round
     */
    void FitToView(uint32_t round);
    /**
     * @param round a round
     * @return whether its exchange was replaced by a view since the last call (it must be
     *         begun); the mark is cleared
     */
    bool TakeReplaced(uint32_t round);
    /** Release the receive side of every round (the island crashed). */
    void ReleaseReceiveSides();
    /** Stop every exchange (the application stops). */
    void Stop();
    /** Dispose of every exchange. */
    void Dispose();

  private:
    IslandExchange::Context m_context;                   //!< what the exchanges are given
    uint32_t m_rounds;                                   //!< rounds the island runs
    std::map<uint32_t, Ptr<IslandExchange>> m_exchanges; //!< exchange by round
    bool m_prune{false};                                 //!< whether an exchange may be empty
    std::set<uint32_t> m_replaced;                       //!< rounds whose exchange was replaced
};

} // namespace ns3

#endif /* ROUND_EXCHANGES_H */
