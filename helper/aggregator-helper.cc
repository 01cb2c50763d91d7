/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "aggregator-helper.h"

#include "clique-schedule.h"
#include "island-sync-header.h"
#include "island-timing.h"
#include "wan-topology-helper.h"

#include "ns3/abort.h"
#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("WanTrainingAggregatorHelper");

AggregatorHelper::AggregatorHelper()
{
    m_factory.SetTypeId(AggregatorNetDevice::GetTypeId());
    m_fpgaFactory.SetTypeId(InlineFpga::GetTypeId());
}

void
AggregatorHelper::SetAttribute(const std::string& name, const AttributeValue& value)
{
    // The memory and the pipeline are the router's FPGA's; the rest is each port's.
    if (name == "SlotCount" || name == "LineRate")
    {
        m_fpgaFactory.Set(name, value);
    }
    else
    {
        m_factory.Set(name, value);
    }
}

void
AggregatorHelper::Install(WanTopologyHelper& scenario, WanTopologyHelper::FpgaPorts ports) const
{
    std::vector<uint32_t> cities(scenario.GetTopology().GetNCities());
    for (uint32_t i = 0; i < cities.size(); ++i)
    {
        cities[i] = i;
    }
    Install(scenario, cities, ports);
}

WanTopologyHelper::FpgaPorts
AggregatorHelper::GetPortsFor(const CliqueSchedule& schedule)
{
    return schedule.UsesAlgorithm([](CapabilityMode mode) { return mode == CapabilityMode::TREE; })
               ? WanTopologyHelper::EVERY_PORT
               : WanTopologyHelper::ACCESS_PORT;
}

void
AggregatorHelper::Install(WanTopologyHelper& scenario,
                          const std::vector<uint32_t>& cities,
                          WanTopologyHelper::FpgaPorts ports) const
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
    scenario.SetAggregationCities(cities, m_factory, m_fpgaFactory, ports);
}

void
AggregatorHelper::SetSchedule(const WanTopologyHelper& scenario,
                              const CliqueSchedule& schedule,
                              uint16_t jobId) const
{
    SetSchedule(scenario, schedule, jobId, scenario.GetTopology());
}

void
AggregatorHelper::SetSchedule(const WanTopologyHelper& scenario,
                              const CliqueSchedule& schedule,
                              uint16_t jobId,
                              const WanTopology& routing) const
{
    NS_LOG_FUNCTION(this << jobId);
    const WanTopology& topology = scenario.GetTopology();
    NS_ABORT_MSG_UNLESS(schedule.GetNIslands() == topology.GetNCities(),
                        "AggregatorHelper::SetSchedule(): the schedule has "
                            << schedule.GetNIslands() << " islands, topology '"
                            << topology.GetName() << "' has " << topology.GetNCities());
    NS_ABORT_MSG_IF(GetPortsFor(schedule) == WanTopologyHelper::EVERY_PORT &&
                        scenario.GetFpgaPorts() != WanTopologyHelper::EVERY_PORT,
                    "AggregatorHelper::SetSchedule(): a tree clique sums on every port: install "
                    "the FPGAs with WanTopologyHelper::EVERY_PORT");
    // The expectations of every FPGA port, by port, then by schedule round.
    std::map<Ptr<AggregatorNetDevice>, std::vector<AggregatorNetDevice::RoundExpectations>> ports;
    for (Ptr<AggregatorNetDevice> port : GetPorts(scenario))
    {
        ports[port].resize(schedule.GetNRounds());
    }
    const LinkLoadModel model(topology);
    for (uint32_t r = 0; r < schedule.GetNRounds(); ++r)
    {
        const CliqueSchedule::Round& round = schedule.GetRound(r);
        const std::vector<CapabilityMode> algorithms = schedule.GetRoundAlgorithms(r);
        NS_ABORT_MSG_IF(round.size() > IslandSyncHeader::MAX_CLIQUES,
                        "AggregatorHelper::SetSchedule(): round "
                            << r << " has more cliques than IslandSyncHeader can name");
        for (uint32_t c = 0; c < round.size(); ++c)
        {
            const CliqueSchedule::Clique& clique = round[c];
            for (uint32_t member : clique)
            {
                NS_ABORT_MSG_UNLESS(member < IslandSyncHeader::MAX_ISLANDS,
                                    "AggregatorHelper::SetSchedule(): island "
                                        << member
                                        << " cannot be named in a contributor bitmap (at most "
                                        << IslandSyncHeader::MAX_ISLANDS << " islands)");
            }
            if (clique.size() < 2)
            {
                continue;
            }
            std::map<Ptr<AggregatorNetDevice>, AggregatorNetDevice::Expectation> expectations;
            const CapabilityMode mode = algorithms[c];
            if (mode == CapabilityMode::TREE)
            {
                expectations = GetTreeExpectations(scenario, model, routing, clique);
            }
            else if (UsesAggregation(mode))
            {
                for (uint32_t island : clique)
                {
                    if (Ptr<AggregatorNetDevice> port = scenario.GetAggregator(island))
                    {
                        for (uint32_t member : clique)
                        {
                            if (member != island)
                            {
                                expectations[port].contributors |= uint64_t{1} << member;
                            }
                        }
                    }
                }
            }
            for (auto& [port, expectation] : expectations)
            {
                // The wait's margin: the largest round trip between the aggregate's destination
                // and a contributor.
                const uint32_t destination =
                    mode == CapabilityMode::TREE ? model.GetTreeRoot(clique) : port->GetIsland();
                for (uint32_t member : clique)
                {
                    if ((expectation.contributors & (uint64_t{1} << member)) &&
                        routing.HasRoute(member, destination) &&
                        routing.HasRoute(destination, member))
                    {
                        expectation.roundTrip =
                            std::max(expectation.roundTrip,
                                     IslandTiming::GetRoundTripTime(routing, member, destination));
                    }
                }
                ports.at(port)[r][static_cast<uint16_t>(c)] = expectation;
            }
        }
    }
    for (auto& [port, rounds] : ports)
    {
        port->SetExpectations(jobId, std::move(rounds));
    }
}

std::map<Ptr<AggregatorNetDevice>, AggregatorNetDevice::Expectation>
AggregatorHelper::GetTreeExpectations(const WanTopologyHelper& scenario,
                                      const LinkLoadModel& model,
                                      const WanTopology& routing,
                                      const CliqueSchedule::Clique& clique)
{
    const uint32_t root = model.GetTreeRoot(clique);
    const Ipv4Address rootAddress = scenario.GetIslandAddress(root);
    std::map<Ptr<AggregatorNetDevice>, AggregatorNetDevice::Expectation> expectations;
    for (uint32_t member : clique)
    {
        if (member == root)
        {
            continue;
        }
        // Every router on the route toward the root sums on its port toward the next hop:
        // links[t + 1] leaves router cities[t] (links[0] is the member's access up link).
        if (!routing.HasRoute(member, root))
        {
            continue;
        }
        const WanRoute& route = routing.GetRoute(member, root);
        for (std::size_t t = 1; t < route.links.size(); ++t)
        {
            Ptr<AggregatorNetDevice> port =
                DynamicCast<AggregatorNetDevice>(scenario.GetTxDevice(route.links[t]));
            if (port)
            {
                AggregatorNetDevice::Expectation& expectation = expectations[port];
                expectation.contributors |= uint64_t{1} << member;
                expectation.root = rootAddress;
            }
        }
    }
    // A port with one contributor below it has nothing to sum: what it would send is what it
    // gets.
    for (auto it = expectations.begin(); it != expectations.end();)
    {
        const uint64_t bits = it->second.contributors;
        it = (bits & (bits - 1)) == 0 ? expectations.erase(it) : std::next(it);
    }
    return expectations;
}

void
AggregatorHelper::ClearSchedule(const WanTopologyHelper& scenario, uint16_t jobId) const
{
    NS_LOG_FUNCTION(this << jobId);
    for (Ptr<AggregatorNetDevice> port : GetPorts(scenario))
    {
        port->ClearExpectations(jobId);
    }
}

std::vector<Ptr<AggregatorNetDevice>>
AggregatorHelper::GetPorts(const WanTopologyHelper& scenario)
{
    std::vector<Ptr<AggregatorNetDevice>> ports;
    for (uint32_t city : scenario.GetAggregationCities())
    {
        Ptr<InlineFpga> fpga = scenario.GetFpga(city);
        for (AggregatorNetDevice* port : fpga->GetPorts())
        {
            ports.emplace_back(port);
        }
    }
    return ports;
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
