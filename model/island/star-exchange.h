/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef STAR_EXCHANGE_H
#define STAR_EXCHANGE_H

#include "island-exchange.h"

namespace ns3
{

/**
 * @ingroup wan-training
 * @brief The exchange of the star modes (unicast, multicast, aggregation, both): every member
 * sends its own contribution, whole, to every other member (or to the clique's group), and
 * each chunk names its sender alone as contributor.
 */
class StarExchange : public IslandExchange
{
  public:
    /**
     * @brief Get the type ID.
     * @return the object TypeId
     */
    static TypeId GetTypeId();

    /** An exchange of unicast mode. */
    StarExchange();
    /**
     * @param mode UNICAST, MULTICAST, AGGREGATION or BOTH
     */
    explicit StarExchange(CapabilityMode mode);

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

  private:
    CapabilityMode m_mode; //!< the star mode
};

} // namespace ns3

#endif /* STAR_EXCHANGE_H */
