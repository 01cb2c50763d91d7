/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "aggregation-exchange.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(AggregationExchange);

TypeId
AggregationExchange::GetTypeId()
{
    static TypeId tid = TypeId("ns3::WanTraining::AggregationExchange")
                            .SetParent<StarExchange>()
                            .SetGroupName("WanTraining")
                            .AddConstructor<AggregationExchange>();
    return tid;
}

CapabilityMode
AggregationExchange::GetMode() const
{
    return CapabilityMode::AGGREGATION;
}

bool
AggregationExchange::IsCliqueWide() const
{
    return true;
}

bool
AggregationExchange::IsBehindFpga() const
{
    return true;
}

bool
AggregationExchange::IsEdgeAggregated() const
{
    return true;
}

bool
AggregationExchange::AreAggregatesInOrder() const
{
    return true;
}

} // namespace ns3
