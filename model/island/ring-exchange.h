/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef RING_EXCHANGE_H
#define RING_EXCHANGE_H

#include "island-exchange.h"

#include <utility>

namespace ns3
{

/**
 * @ingroup wan-training
 * @brief Ring mode: the sums an island receives in one round, by parameter index.
 */
struct RingValues
{
    std::vector<float> partial; //!< reduce-scatter: the predecessor's partial sums
    std::vector<float> reduced; //!< all-gather: the full segment sums received
};

/**
 * @ingroup wan-training
 * @brief The ring all-reduce: k members in ring order, the contribution in k segments, k-1
 * reduce-scatter steps and k-1 all-gather steps, each step one segment sent to the successor.
 *
 * The send side has one stream per step toward the successor, all sent by the ring's pacer
 * (the lowest step with work first: repairs of earlier steps go first); a step is released
 * when the predecessor's previous step has arrived: held, or its last chunk in and only
 * repairs missing. A released step sends what it holds and each missing chunk as soon as its
 * repair arrives (out of order, a first transmission), so a loss delays one chunk of every
 * later step, not the whole step; the successor's NACKs of such a chunk wait for it. The receive
 * side has one stream per step of the predecessor and the sums received, which the send side keeps
 * until every step is acknowledged. A member lost (exhausted stream, unanswered probes or READY
 * requests) is excluded and the ring is rebuilt over the others: the exchange starts again.
 *
 * Step s of the member at place t sends segment t - s (reduce-scatter, s < k-1) or
 * t + 1 - (s - (k-1)) (all-gather), modulo k; a reduce-scatter chunk names the s + 1 members
 * summed in it, an all-gather chunk all k. The step of a chunk follows from its sender's
 * place, its contributors and its index (GetStepOf). See doc/wan-training.rst, "The island's
 * exchange".
 */
class RingExchange : public IslandExchange
{
  public:
    /**
     * @brief Get the type ID.
     * @return the object TypeId
     */
    static TypeId GetTypeId();

    CapabilityMode GetMode() const override;
    uint32_t GetStepOf(const ExchangePlan& plan, const IslandSyncHeader& header) const override;
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
    void Average(const ExchangePlan& plan,
                 const std::vector<double>& sum,
                 const RingValues* sums,
                 std::vector<float>& parameters) const override;

    void HandleChunk(const IslandSyncHeader& header, uint32_t paddingBytes) override;
    void PeerStarted(uint32_t island) override;
    void FitToView() override;
    bool IsRebuiltByViews() const override;
    bool RearmsReadyTimer() const override;

    /**
     * @param plan a ring plan
     * @return the steps of the ring's exchange, 2(k-1)
     */
    uint32_t GetSteps(const ExchangePlan& plan) const;
    /**
     * @param plan a ring plan
     * @param position a place on the ring (index in plan.ring)
     * @param step a step
     * @return the segment the member at that place sends in that step
     */
    uint32_t GetSegment(const ExchangePlan& plan, uint32_t position, uint32_t step) const;
    /**
     * @param plan a ring plan
     * @param position a place on the ring
     * @param step a step
     * @return the chunks the member at that place sends in that step, [first, end): its
     *         segment's
     */
    std::pair<uint32_t, uint32_t> GetStepChunks(const ExchangePlan& plan,
                                                uint32_t position,
                                                uint32_t step) const;
    /**
     * @param plan a ring plan
     * @return the predecessor's place on the ring
     */
    uint32_t GetPredecessorPosition(const ExchangePlan& plan) const;
    /**
     * @param plan a ring plan
     * @param position a place on the ring
     * @param step a step
     * @return the contributor bitmap of what the member at that place sends in that step
     */
    uint64_t GetContributors(const ExchangePlan& plan, uint32_t position, uint32_t step) const;
    /**
     * @param plan a ring plan
     * @param position the sender's place on the ring
     * @param contributors a contributor bitmap
     * @param chunk a chunk index
     * @return the step whose segment holds the chunk and whose bitmap is that one, or NO_STEP
     */
    uint32_t FindStep(const ExchangePlan& plan,
                      uint32_t position,
                      uint64_t contributors,
                      uint32_t chunk) const;
    /**
     * @brief Check a chunk from the predecessor against the plan: a step of the predecessor's
     * place whose type (DATA at step 0, else AGGREGATE), value slice and payload fit the chunk.
     * @param plan the round's ring plan (the header's clique, epoch and sender checked already)
     * @param header the chunk's header
     * @param paddingBytes its payload after the header
     * @return the step, or NO_STEP when the chunk is none of the predecessor's
     */
    uint32_t CheckChunk(const ExchangePlan& plan,
                        const IslandSyncHeader& header,
                        uint32_t paddingBytes) const;
    /**
     * @brief Keep the sums of a chunk from the predecessor: partial sums in reduce-scatter steps,
     * full sums in all-gather steps (each segment comes once in each phase).
     * @param plan the round's ring plan
     * @param step the chunk's step (CheckChunk)
     * @param header the chunk's header
     * @param sums the round's sums received
     */
    void Store(const ExchangePlan& plan,
               uint32_t step,
               const IslandSyncHeader& header,
               RingValues& sums) const;
    /**
     * @brief The values this island sends in one step.
     * @param plan the round's ring plan
     * @param snapshot the island's contribution
     * @param sums the sums received in the round
     * @param step the step
     * @param offset the first value index
     * @param count the number of values
     * @return own values (step 0), predecessor's partial + own values in float32 (steps 1 ..
     *         k-1), the full sums received (steps k .. 2k-3)
     */
    std::vector<float> GetValues(const ExchangePlan& plan,
                                 const std::vector<float>& snapshot,
                                 const RingValues& sums,
                                 uint32_t step,
                                 uint32_t offset,
                                 uint32_t count) const;

    std::vector<ReceiveRange> GetReceiveRanges(const ExchangePlan& plan) const override;

  protected:
    void AddReceiveStreams(const ExchangePlan& plan) override;
    void AddSendStreams(const ExchangePlan& plan) override;
    void MarkAwaited(const ExchangePlan& plan) override;
    void AddOwnToSums(const ExchangePlan& plan, const std::vector<float>& snapshot) override;
    void AverageSums(const ExchangePlan& plan, std::vector<float>& parameters) override;
    const RingValues* GetSums() const override;
    bool UsesGroupPacer() const override;
    void ChunkLeft(SendStream& target, double lastSendEndS) override;
    void PacerDrained(SendStream& paced, double lastSendEndS) override;
    uint32_t GetProbeChunk(const ExchangePlan& plan, const SendStream& stream) const override;
    uint32_t FindRequestedStream(const ExchangePlan& plan,
                                 const IslandSyncHeader& header) const override;
    bool NoteSent(const SendStream& paced, SendStream& target, uint32_t chunk) override;
    void QueueRepairs(SendStream& stream,
                      const std::vector<IslandSyncHeader::Range>& ranges) override;
    void OnStreamExhausted(uint32_t source, const std::string& reason) override;
    std::string GetStreamLabel(const ReceiveStream& stream) const override;
    uint32_t NameStream(const ExchangePlan& plan,
                        uint32_t key,
                        IslandSyncHeader& header) const override;

  private:
    /**
     * @brief The predecessor's previous step has arrived (held, or its last chunk in), so this
     * step may be sent: what is held now; the rest waits in the stream's unheld chunks.
     * @param step the step released
     */
    void ReleaseStep(uint32_t step);
    /**
     * @param step a step (> 0)
     * @return whether the predecessor's previous step has arrived: held, or its last chunk in
     */
    bool IsArrived(uint32_t step) const;
    /**
     * @brief Move the chunks of a step's pending set whose previous-step chunk is not held to
     * its unheld chunks.
     * @param step the step (> 0)
     * @param stream its send stream
     */
    void HoldBackUnheld(uint32_t step, SendStream& stream) const;
    /**
     * @param stream a step's send stream
     * @return whether it has sent every chunk once (nothing pending or unheld): its DONE is due
     */
    static bool IsSentOut(const SendStream& stream);

    RingValues m_sums; //!< the sums received (made with the receive side, kept for the sends)
};

} // namespace ns3

#endif /* RING_EXCHANGE_H */
