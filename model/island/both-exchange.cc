/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "both-exchange.h"

namespace ns3
{

NS_OBJECT_ENSURE_REGISTERED(BothExchange);

TypeId
BothExchange::GetTypeId()
{
    static TypeId tid = TypeId("ns3::WanTraining::BothExchange")
                            .SetParent<MulticastExchange>()
                            .SetGroupName("WanTraining")
                            .AddConstructor<BothExchange>();
    return tid;
}

CapabilityMode
BothExchange::GetMode() const
{
    return CapabilityMode::BOTH;
}

bool
BothExchange::IsBehindFpga() const
{
    return true;
}

bool
BothExchange::IsEdgeAggregated() const
{
    return true;
}

bool
BothExchange::AreAggregatesInOrder() const
{
    return true;
}

} // namespace ns3
