/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AGGREGATION_EXCHANGE_H
#define AGGREGATION_EXCHANGE_H

#include "star-exchange.h"

namespace ns3
{

/**
 * @ingroup wan-training
 * @brief Aggregation mode: unicast streams to every member, summed by the in-line FPGA at each
 * receiver's edge (AggregatorNetDevice), which delivers one aggregate per chunk.
 *
 * An FPGA sums a chunk only when the contributions of all members arrive together, so the
 * streams wait until every member has announced the round; a gap waits for the FPGA's Timeout
 * (and the stall time) before it is NACKed, so that a partial aggregate can name who is
 * missing, and a sender's DONE timeout waits that Timeout more.
 */
class AggregationExchange : public StarExchange
{
  public:
    /**
     * @brief Get the type ID.
     * @return the object TypeId
     */
    static TypeId GetTypeId();

    CapabilityMode GetMode() const override;

  protected:
    bool IsCliqueWide() const override;
    bool IsBehindFpga() const override;
    bool IsEdgeAggregated() const override;
    bool AreAggregatesInOrder() const override;
};

} // namespace ns3

#endif /* AGGREGATION_EXCHANGE_H */
