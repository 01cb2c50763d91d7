/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef BOTH_EXCHANGE_H
#define BOTH_EXCHANGE_H

#include "multicast-exchange.h"

namespace ns3
{

/**
 * @ingroup wan-training
 * @brief Both mode: multicast to the clique's group (MulticastExchange), summed by the in-line
 * FPGA at each receiver's edge, with the FPGA's patience of AggregationExchange.
 */
class BothExchange : public MulticastExchange
{
  public:
    /**
     * @brief Get the type ID.
     * @return the object TypeId
     */
    static TypeId GetTypeId();

    CapabilityMode GetMode() const override;

  protected:
    bool IsBehindFpga() const override;
    bool IsEdgeAggregated() const override;
    bool AreAggregatesInOrder() const override;
};

} // namespace ns3

#endif /* BOTH_EXCHANGE_H */
