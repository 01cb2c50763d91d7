/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "aggregator-helper.h"

#include "clique-schedule.h"
#include "island-sync-header.h"
#include "wan-topology-helper.h"

#include "ns3/abort.h"
#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("WanTrainingAggregatorHelper");

AggregatorHelper::AggregatorHelper()
{
    m_factory.SetTypeId(AggregatorNetDevice::GetTypeId());
}

void
AggregatorHelper::SetAttribute(const std::string& name, const AttributeValue& value)
{
    m_factory.Set(name, value);
}

void
AggregatorHelper::Install(WanTopologyHelper& scenario) const
{
    std::vector<uint32_t> cities(scenario.GetTopology().GetNCities());
    for (uint32_t i = 0; i < cities.size(); ++i)
    {
        cities[i] = i;
    }
    Install(scenario, cities);
}

void
AggregatorHelper::Install(WanTopologyHelper& scenario, const std::vector<uint32_t>& cities) const
{
    NS_LOG_FUNCTION(this << cities.size());
    const WanTopology& topology = scenario.GetTopology();
    NS_ABORT_MSG_UNLESS(topology.HasAggregation(),
                        "AggregatorHelper::Install(): topology '"
                            << topology.GetName() << "' (" << topology.GetSourceName()
                            << ") has no in-line aggregation (capabilities.aggregation is false)");
    for (uint32_t city : cities)
    {
        NS_ABORT_MSG_UNLESS(city < IslandSyncHeader::MAX_ISLANDS,
                            "AggregatorHelper::Install(): city index "
                                << city << " cannot be named in a contributor bitmap (at most "
                                << IslandSyncHeader::MAX_ISLANDS << " islands)");
    }
    scenario.SetAggregationCities(cities, m_factory);
}

void
AggregatorHelper::SetSchedule(const WanTopologyHelper& scenario,
                              const CliqueSchedule& schedule,
                              uint16_t jobId) const
{
    NS_LOG_FUNCTION(this << jobId);
    const WanTopology& topology = scenario.GetTopology();
    NS_ABORT_MSG_UNLESS(schedule.GetNIslands() == topology.GetNCities(),
                        "AggregatorHelper::SetSchedule(): the schedule has "
                            << schedule.GetNIslands() << " islands, topology '"
                            << topology.GetName() << "' has " << topology.GetNCities());
    for (uint32_t island : scenario.GetAggregationCities())
    {
        Ptr<AggregatorNetDevice> aggregator = scenario.GetAggregator(island);
        std::vector<AggregatorNetDevice::RoundExpectations> rounds(schedule.GetNRounds());
        for (uint32_t r = 0; r < schedule.GetNRounds(); ++r)
        {
            uint32_t c = schedule.GetCliqueOf(r, island);
            if (c == CliqueSchedule::IDLE)
            {
                continue;
            }
            const CliqueSchedule::Clique& clique = schedule.GetRound(r)[c];
            NS_ABORT_MSG_IF(c > UINT16_MAX,
                            "AggregatorHelper::SetSchedule(): round "
                                << r << " has more cliques than IslandSyncHeader can name");
            uint64_t expected = 0;
            for (uint32_t member : clique)
            {
                NS_ABORT_MSG_UNLESS(member < IslandSyncHeader::MAX_ISLANDS,
                                    "AggregatorHelper::SetSchedule(): island "
                                        << member
                                        << " cannot be named in a contributor bitmap (at most "
                                        << IslandSyncHeader::MAX_ISLANDS << " islands)");
                if (member != island)
                {
                    expected |= uint64_t{1} << member;
                }
            }
            if (expected != 0)
            {
                rounds[r][static_cast<uint16_t>(c)] = expected;
            }
        }
        aggregator->SetExpectations(jobId, std::move(rounds));
    }
}

void
AggregatorHelper::ClearSchedule(const WanTopologyHelper& scenario, uint16_t jobId) const
{
    NS_LOG_FUNCTION(this << jobId);
    for (uint32_t island : scenario.GetAggregationCities())
    {
        scenario.GetAggregator(island)->ClearExpectations(jobId);
    }
}

Ptr<AggregatorNetDevice>
AggregatorHelper::GetAggregator(const WanTopologyHelper& scenario, uint32_t city) const
{
    return scenario.GetAggregator(city);
}

NetDeviceContainer
AggregatorHelper::GetAggregators(const WanTopologyHelper& scenario) const
{
    NetDeviceContainer devices;
    for (uint32_t city : scenario.GetAggregationCities())
    {
        devices.Add(scenario.GetAggregator(city));
    }
    return devices;
}

} // namespace ns3
