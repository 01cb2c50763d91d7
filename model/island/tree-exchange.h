/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef TREE_EXCHANGE_H
#define TREE_EXCHANGE_H

#include "chunk-range-set.h"
#include "multicast-exchange.h"

namespace ns3
{

/**
 * @ingroup wan-training
 * @brief Tree mode: in-network reduction toward a root (ExchangePlan::treeRoot) by the FPGAs
 * of every router on the clique's in-tree, and one total multicast from the root.
 *
 * A member other than the root sends its contribution, whole, by unicast to the root (one
 * stream, paced at the clique's common rate); the FPGA ports on its route sum it with the rest
 * of their subtree (AggregatorNetDevice, tree expectations). It receives one stream from the
 * root: the total of every member's values (an AGGREGATE naming every member of the view),
 * chunk by chunk, sent to the clique's group and replicated along the root's source tree.
 *
 * The root receives the contributions as AggregationExchange does (one receive stream per
 * other member, partial aggregates named by their bitmaps, a chunk still missing once a later
 * one is held from everyone NACKed at once to the missing contributors, other gaps after the
 * FPGAs' Timeout; they resend by unicast to the root). A member NACKs a gap in the totals at
 * once (the root resends only totals it has sent). Once a chunk is
 * held from every member and its own contribution is in, the chunk's total (the sum, rounded
 * once to float32) replaces the root's contribution in its send side and goes to the group;
 * the root's streams to the members hold their repairs of totals already sent (MulticastExchange)
 * and their DONE timeouts, which start once every total has been sent. Every member, the root
 * included, averages the same float32 totals, so all end with the same parameters.
 *
 * Every stream waits until every member has announced the round, then starts when its
 * contributions reach the root with the last member's (GetStartDelayS), so that the
 * contributions of a chunk meet at every router of the in-tree at once and the FPGAs' slots in
 * use stay few (with overlap at once: the members' snapshots cannot be told from their
 * announcements, which go out a round ahead). An exclusion that keeps the root
 * narrows the tree (the root stops waiting for the member; the FPGAs learn it from the VIEW the
 * excluder sends to the root); an exclusion of the root leaves no tree: the view's plan is a
 * unicast exchange of its own epoch (ExchangePlanner::MakeViewPlan), and RoundExchanges replaces
 * this exchange with a StarExchange, so that the members fetch each other's contributions
 * themselves. The protocol is walked through in doc/wan-training.rst, "Tree mode".
 */
class TreeExchange : public MulticastExchange
{
  public:
    /**
     * @brief Get the type ID.
     * @return the object TypeId
     */
    static TypeId GetTypeId();

    CapabilityMode GetMode() const override;
    void FillChunk(const ExchangePlan& plan,
                   uint32_t step,
                   const std::vector<float>& snapshot,
                   const RingValues* sums,
                   uint32_t offset,
                   uint32_t count,
                   IslandSyncHeader& header) const override;
    void AddOwn(const ExchangePlan& plan,
                const std::vector<float>& snapshot,
                std::vector<double>& sum) const override;
    std::vector<uint32_t> GetAwaited(
        const ExchangePlan& plan,
        const SendStream* pacer,
        const std::map<uint32_t, SendStream>* sendStreams,
        const std::map<uint32_t, ReceiveStream>* receiveStreams) const override;
    /**
     * @brief The average of the totals as the members receive them: each sum rounded once to
     * float32 (what the root sends), then divided by the clique size.
     * @param plan the round's plan
     * @param sum the sums (the root's exact ones, or the totals received)
     * @param sums unused
     * @param parameters receives the average
     */
    void Average(const ExchangePlan& plan,
                 const std::vector<double>& sum,
                 const RingValues* sums,
                 std::vector<float>& parameters) const override;

    void PeerStarted(uint32_t island) override;
    void FitToView() override;
    uint64_t GetHeldFrom() const override;
    std::optional<Time> GetReceiveTimeLeft() const override;
    std::vector<ReceiveRange> GetReceiveRanges(const ExchangePlan& plan) const override;

  protected:
    void AddReceiveStreams(const ExchangePlan& plan) override;
    void AddSendStreams(const ExchangePlan& plan) override;
    void MarkAwaited(const ExchangePlan& plan) override;
    void AddOwnToSums(const ExchangePlan& plan, const std::vector<float>& snapshot) override;
    bool UsesGroupPacer() const override;
    bool IsBehindFpga() const override;
    bool AreAggregatesInOrder() const override;
    bool NoteSent(const SendStream& paced, SendStream& target, uint32_t chunk) override;
    double GetPacingRate(const ExchangePlan& plan, const SendStream& stream) const override;
    void PacerDrained(SendStream& paced, double lastSendEndS) override;
    void ChunkHeld(uint32_t chunk) override;
    void QueueRepairs(SendStream& stream,
                      const std::vector<IslandSyncHeader::Range>& ranges) override;
    uint64_t GetAcceptedContributors(const ExchangePlan& plan) const override;
    bool IsWhole(const ExchangePlan& plan, uint64_t contributors) const override;
    std::vector<uint32_t> GetSourcesOf(const ExchangePlan& plan,
                                       uint64_t contributors) const override;

  private:
    /** @return whether this island is the round's root */
    bool IsRoot() const;
    /**
     * @param plan the round's plan (a member other than the root, whose stream may start now)
     * @return how much later than now the stream starts, so that its contributions reach the
     *         root with the last member's: each member's start is its announcement's arrival
     *         minus its latency to here (now for round 0, which nobody announces), its stream
     *         starts once every member's READY has reached it (rounds >= 1), and its
     *         contributions take its route latency to the root; as every prefix of a route is a
     *         route, the contributions of a chunk then meet at every router of the in-tree
     *         together and the FPGAs' slots in use stay few. With overlap 0: a member's
     *         announcement goes out a round ahead and says nothing about when it snapshots.
     */
    double GetStartDelayS(const ExchangePlan& plan) const;
    /**
     * @brief Root: send the totals of the chunks in [first, end) that are complete (held from
     * every member, the root's own contribution in) and not sent yet.
     * @param first the first chunk to look at
     * @param end one past the last
     */
    void ReleaseTotals(uint32_t first, uint32_t end);

    uint64_t m_notReady{0};     //!< members that have not announced the round (not the root's)
    bool m_ownAdded{false};     //!< root: whether its contribution is in the sums
    double m_beginS{0};         //!< member: when its exchange began (after local compute), s
    ChunkRangeSet m_released;   //!< root: chunks whose total is in the send side
    ChunkRangeSet m_sentTotals; //!< root: chunks whose total went to the group
};

} // namespace ns3

#endif /* TREE_EXCHANGE_H */
