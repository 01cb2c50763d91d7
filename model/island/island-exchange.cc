/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "island-exchange.h"

#include "ring-exchange.h"
#include "star-exchange.h"

#include "ns3/abort.h"
#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("WanTrainingIslandExchange");

NS_OBJECT_ENSURE_REGISTERED(IslandExchange);

TypeId
IslandExchange::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::WanTraining::IslandExchange").SetParent<Object>().SetGroupName("WanTraining");
    return tid;
}

Ptr<IslandExchange>
IslandExchange::Create(CapabilityMode mode)
{
    switch (mode)
    {
    case CapabilityMode::RING:
        return CreateObject<RingExchange>();
    case CapabilityMode::UNICAST:
    case CapabilityMode::MULTICAST:
    case CapabilityMode::AGGREGATION:
    case CapabilityMode::BOTH:
        return CreateObject<StarExchange>(mode);
    default:
        NS_ABORT_MSG("no island exchange for this capability mode");
    }
    return nullptr;
}

uint32_t
IslandExchange::GetStepOf(const ExchangePlan& /* plan */,
                          const IslandSyncHeader& /* header */) const
{
    return NO_STEP;
}

} // namespace ns3
