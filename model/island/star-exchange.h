/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef STAR_EXCHANGE_H
#define STAR_EXCHANGE_H

#include "island-exchange.h"
#include "parity-blocks.h"

namespace ns3
{

/**
 * @ingroup wan-training
 * @brief The unicast exchange, and the base of the other star modes (MulticastExchange,
 * AggregationExchange, BothExchange): every member sends its own contribution, whole, to every
 * other member, and each chunk names its sender alone as contributor (an FPGA's aggregate names
 * the senders it sums).
 *
 * The send side holds one stream per other member, each paced by itself and waiting for its
 * own receiver's READY; the receive side one stream per contributor and the sum of the
 * contributions held, in double. A chunk whose contributors are partly held already adds
 * nothing (a sum cannot be split). A stream that cannot be completed abandons the round: part
 * of its contribution is in the sum.
 */
class StarExchange : public IslandExchange
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
    void Average(const ExchangePlan& plan,
                 const std::vector<double>& sum,
                 const RingValues* sums,
                 std::vector<float>& parameters) const override;

    void HandleChunk(const IslandSyncHeader& header, uint32_t paddingBytes) override;
    /**
     * @brief A PARITY of a member's stream arrived: when it and the chunks held leave one chunk
     * of its block missing, rebuild that chunk and take it as if it had arrived (its repair,
     * if NACKed already, then comes as a duplicate).
     * @param header the PARITY
     * @param paddingBytes its payload after the header
     */
    void HandleParity(const IslandSyncHeader& header, uint32_t paddingBytes) override;
    void PeerStarted(uint32_t island) override;
    void FitToView() override;
    uint64_t GetHeldFrom() const override;
    std::optional<Time> GetReceiveTimeLeft() const override;
    std::vector<ReceiveRange> GetReceiveRanges(const ExchangePlan& plan) const override;

  protected:
    void AddReceiveStreams(const ExchangePlan& plan) override;
    void ReceiveSideReleased() override;
    void AddSendStreams(const ExchangePlan& plan) override;
    void AddOwnToSums(const ExchangePlan& plan, const std::vector<float>& snapshot) override;
    void AverageSums(const ExchangePlan& plan, std::vector<float>& parameters) override;
    void OnStreamExhausted(uint32_t source, const std::string& reason) override;
    /**
     * @param plan the round's plan
     * @return the contributors a chunk may name: every other member
     */
    virtual uint64_t GetAcceptedContributors(const ExchangePlan& plan) const;
    /**
     * @param plan the round's plan
     * @param contributors the contributors a chunk names (accepted ones)
     * @return whether a chunk may name just these (true: any part of a sum is taken)
     */
    virtual bool IsWhole(const ExchangePlan& plan, uint64_t contributors) const;
    /**
     * @param plan the round's plan
     * @param contributors the contributors a chunk names
     * @return the keys of the receive streams that chunk belongs to: each contributor's
     */
    virtual std::vector<uint32_t> GetSourcesOf(const ExchangePlan& plan,
                                               uint64_t contributors) const;
    /**
     * @brief A chunk's values were added to the sum (before the island is told of progress,
     * which may end the round).
     * @param chunk the chunk
     */
    virtual void ChunkHeld(uint32_t chunk);
    /**
     * @return whether an in-line FPGA at the island's edge delivers one aggregate per chunk, so
     *         that a contributor an aggregate leaves out comes only as a repair (NACKed at once);
     *         false here
     */
    virtual bool IsEdgeAggregated() const;
    /**
     * @return whether the FPGAs deliver the island's aggregates in chunk order while nothing is
     *         lost (each contributor's chunks reach a slot in order, and slots complete in order):
     *         a chunk still missing once an aggregate of a later chunk named every contributor is
     *         lost or waits for a lost contribution, and is NACKed at once; false here
     */
    virtual bool AreAggregatesInOrder() const;
    /** @return whether no FPGA sums the contributions (unicast, multicast) */
    bool UsesFec() const override;
    /** @return the sum of the contributions held, by parameter index (with the receive side) */
    std::vector<double>& GetSum();
    /**
     * @brief Every member left has announced the round: the streams start together.
     * @param restart whether their pacers restart now (a READY arrived) or only not before
     *        now (a view left out the members not ready)
     */
    void StartTogether(bool restart);

  private:
    /**
     * @brief Forward error correction: a member's DATA chunk is held for the first time; add it
     * to its block and rebuild the block's missing chunk when the parity can.
     * @param source the member
     * @param header the chunk
     */
    void AddToBlocks(uint32_t source, const IslandSyncHeader& header);
    /**
     * @brief Rebuild the missing chunk of a block whose parity and other chunks are held, and
     * take it as if it had arrived.
     * @param source the member
     * @param block the block's first chunk
     */
    void Rebuild(uint32_t source, uint32_t block);

    std::vector<double> m_sum; //!< the sum of the contributions held (with the receive side)
    std::map<uint32_t, ParityBlocks> m_parity; //!< FecBlock: each member's blocks in flight
};

} // namespace ns3

#endif /* STAR_EXCHANGE_H */
