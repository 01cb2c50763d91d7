/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "training-helper.h"

#include "aggregator-net-device.h"
#include "pim-multicast-helper.h"
#include "training-island-application.h"
#include "wan-config-error.h"
#include "wan-fault-error-model.h"
#include "wan-topology-helper.h"

#include "ns3/abort.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/log.h"
#include "ns3/names.h"
#include "ns3/net-device.h"
#include "ns3/point-to-point-net-device.h"
#include "ns3/pointer.h"
#include "ns3/simulator.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("WanTrainingTrainingHelper");

TrainingHelper::TrainingHelper(const WanTopologyHelper& scenario, const CliqueSchedule& schedule)
    : m_topology(std::make_shared<const WanTopology>(scenario.GetTopology())),
      m_schedule(std::make_shared<const CliqueSchedule>(schedule)),
      m_islands(scenario.GetIslands())
{
    NS_LOG_FUNCTION(this);
    NS_ABORT_MSG_IF(schedule.GetNIslands() != m_topology->GetNCities(),
                    "TrainingHelper: the schedule has " << schedule.GetNIslands()
                                                        << " islands, the topology "
                                                        << m_topology->GetNCities());
    for (uint32_t city = 0; city < m_topology->GetNCities(); ++city)
    {
        m_addresses.push_back(scenario.GetIslandAddress(city));
        Ptr<AggregatorNetDevice> fpga = scenario.GetAggregator(city);
        TimeValue timeout(Seconds(-1));
        if (fpga)
        {
            fpga->GetAttribute("Timeout", timeout);
        }
        m_aggregatorTimeouts.push_back(timeout.Get());
    }
    m_factory.SetTypeId(TrainingIslandApplication::GetTypeId());
}

void
TrainingHelper::CheckMode(const WanTopology& topology, CapabilityMode mode)
{
    const std::string where = "topology '" + topology.GetName() + "' has capabilities.";
    std::string lacking;
    if (UsesMulticast(mode) && !topology.HasMulticast())
    {
        lacking = "needs multicast, but " + where + "multicast false";
    }
    else if (UsesAggregation(mode) && !topology.HasAggregation())
    {
        lacking = "needs in-line aggregation, but " + where + "aggregation false";
    }
    else if (mode == CapabilityMode::TREE && !topology.HasCore())
    {
        lacking = "needs FPGAs that sum on the routers, but " + where + "core false";
    }
    if (!lacking.empty())
    {
        throw WanConfigError("mode", "mode '" + CapabilityModeToString(mode) + "' " + lacking);
    }
}

void
TrainingHelper::SetAttribute(const std::string& name, const AttributeValue& value)
{
    m_factory.Set(name, value);
}

void
TrainingHelper::SetMode(std::optional<CapabilityMode> mode)
{
    if (!mode)
    {
        m_factory.Set("Mode", EnumValue(TrainingIslandApplication::SCHEDULE_MODE));
        return;
    }
    m_factory.Set("Mode", EnumValue(static_cast<int>(*mode)));
}

void
TrainingHelper::SetMulticast(const PimMulticastHelper& pim, uint8_t ttl)
{
    NS_LOG_FUNCTION(this);
    const uint32_t n = m_topology->GetNCities();
    m_groups.assign(n, std::vector<Ipv4Address>(m_schedule->GetNRounds(), Ipv4Address()));
    for (uint32_t r = 0; r < m_schedule->GetNRounds(); ++r)
    {
        const CliqueSchedule::Round& round = m_schedule->GetRound(r);
        for (uint32_t c = 0; c < round.size(); ++c)
        {
            if (round[c].size() < 2)
            {
                continue;
            }
            for (uint32_t source : round[c])
            {
                PimMulticastHelper::SourceTree tree = pim.GetTree(r, c, source);
                if (tree.members.empty())
                {
                    // No tree for the clique (its algorithm does not multicast): no group.
                    // Install() refuses an island whose algorithm needs one.
                    continue;
                }
                std::vector<uint32_t> others;
                for (uint32_t member : round[c])
                {
                    if (member != source)
                    {
                        others.push_back(member);
                    }
                }
                std::sort(others.begin(), others.end());
                NS_ABORT_MSG_UNLESS(
                    tree.members == others,
                    "TrainingHelper::SetMulticast: the group "
                        << tree.group << " of island " << m_topology->GetCity(source).id
                        << " (schedule round " << r << ", clique " << c << ") reaches "
                        << tree.members.size() << " islands, not the " << others.size()
                        << " other members of its clique; call "
                           "PimMulticastHelper::InstallSchedule(schedule) first");
                m_groups[source][r] = tree.group;
            }
        }
    }
    m_multicastTtl = std::max(pim.GetMulticastTtl(), ttl);
}

ApplicationContainer
TrainingHelper::Install() const
{
    return Install(m_islands);
}

ApplicationContainer
TrainingHelper::Install(NodeContainer islands) const
{
    ApplicationContainer apps;
    for (auto i = islands.Begin(); i != islands.End(); ++i)
    {
        apps.Add(InstallPriv(*i));
    }
    return apps;
}

ApplicationContainer
TrainingHelper::Install(Ptr<Node> island) const
{
    return ApplicationContainer(InstallPriv(island));
}

ApplicationContainer
TrainingHelper::Install(const std::string& islandName) const
{
    Ptr<Node> node = Names::Find<Node>(islandName);
    NS_ABORT_MSG_IF(!node, "TrainingHelper::Install: no node named '" << islandName << "'");
    return ApplicationContainer(InstallPriv(node));
}

Ptr<Application>
TrainingHelper::InstallPriv(Ptr<Node> node) const
{
    uint32_t city = 0;
    while (city < m_islands.GetN() && m_islands.Get(city) != node)
    {
        ++city;
    }
    NS_ABORT_MSG_IF(city == m_islands.GetN(),
                    "TrainingHelper::Install: node " << node->GetId()
                                                     << " is not an island of the scenario");
    Ptr<TrainingIslandApplication> app = m_factory.Create<TrainingIslandApplication>();
    app->SetScenario(city, m_topology, m_schedule, m_addresses);
    // What the island's cliques need: its algorithm in each schedule round (Mode forces one).
    std::optional<CapabilityMode> multicast;
    std::optional<CapabilityMode> aggregated;
    for (uint32_t r = 0; r < m_schedule->GetNRounds(); ++r)
    {
        const std::optional<CapabilityMode> algorithm =
            m_schedule->GetAlgorithmOf(r, city, app->GetMode());
        if (algorithm && UsesMulticast(*algorithm))
        {
            multicast = algorithm;
        }
        if (algorithm && UsesAggregation(*algorithm))
        {
            aggregated = algorithm;
        }
    }
    const std::string& id = m_topology->GetCity(city).id;
    if (multicast)
    {
        NS_ABORT_MSG_IF(m_multicastTtl == 0,
                        "TrainingHelper::Install: mode '"
                            << CapabilityModeToString(*multicast) << "' (island " << id
                            << ") needs the multicast groups: call SetMulticast(pim) after "
                               "pim.InstallSchedule(schedule)");
        for (uint32_t r = 0; r < m_schedule->GetNRounds(); ++r)
        {
            const std::optional<CapabilityMode> algorithm =
                m_schedule->GetAlgorithmOf(r, city, app->GetMode());
            // Every member of a multicast or both clique sends to a group (in a tree only the
            // root, which the island's plan checks).
            NS_ABORT_MSG_IF(algorithm && UsesMulticast(*algorithm) &&
                                *algorithm != CapabilityMode::TREE &&
                                !m_groups[city][r].IsMulticast(),
                            "TrainingHelper::Install: island "
                                << id << " multicasts in schedule round " << r
                                << " but has no group: call PimMulticastHelper::InstallSchedule("
                                   "schedule) before SetMulticast(pim)");
        }
        app->SetMulticastGroups(m_groups[city], m_multicastTtl);
    }
    if (aggregated)
    {
        // A city the topology gives no FPGA receives its contributions unsummed.
        NS_ABORT_MSG_IF(m_topology->HasFpga(city) && m_aggregatorTimeouts[city].IsNegative(),
                        "TrainingHelper::Install: mode '"
                            << CapabilityModeToString(*aggregated)
                            << "' needs an in-line FPGA in city " << id
                            << " (AggregatorHelper::Install(scenario) before "
                               "WanTopologyHelper::Install())");
        app->SetAttribute("AggregationTimeout",
                          TimeValue(m_aggregatorTimeouts[city].IsNegative()
                                        ? Time(0)
                                        : m_aggregatorTimeouts[city]));
    }
    node->AddApplication(app);
    return app;
}

void
TrainingHelper::EnableRoundTimes(const ApplicationContainer& apps)
{
    NS_LOG_FUNCTION(this);
    if (!m_roundTimes)
    {
        m_roundTimes = std::make_shared<RoundTimes>();
    }
    for (auto app = apps.Begin(); app != apps.End(); ++app)
    {
        (*app)->TraceConnectWithoutContext("RoundStarted",
                                           MakeBoundCallback(&RecordRoundStarted, m_roundTimes));
        (*app)->TraceConnectWithoutContext("RoundFinished",
                                           MakeBoundCallback(&RecordRoundFinished, m_roundTimes));
    }
}

Time
TrainingHelper::GetCliqueRoundTime(uint32_t round, uint32_t clique) const
{
    NS_ABORT_MSG_IF(!m_roundTimes,
                    "TrainingHelper::GetCliqueRoundTime: call EnableRoundTimes(apps) before "
                    "Simulator::Run()");
    const CliqueSchedule::Round& cliques = m_schedule->GetRound(round % m_schedule->GetNRounds());
    NS_ABORT_MSG_UNLESS(clique < cliques.size(),
                        "TrainingHelper::GetCliqueRoundTime: round "
                            << round << " has " << cliques.size() << " cliques, not " << clique);
    Time start;
    Time end;
    for (uint32_t island : cliques[clique])
    {
        auto times = m_roundTimes->find({round, island});
        if (times == m_roundTimes->end() || times->second.started.IsStrictlyNegative() ||
            times->second.finished.IsStrictlyNegative())
        {
            return Seconds(-1);
        }
        start = std::max(start, times->second.started);
        end = std::max(end, times->second.finished);
    }
    return end - start;
}

Time
TrainingHelper::GetRoundTime(uint32_t round) const
{
    const uint32_t nCliques = m_schedule->GetRound(round % m_schedule->GetNRounds()).size();
    Time longest;
    for (uint32_t clique = 0; clique < nCliques; ++clique)
    {
        const Time time = GetCliqueRoundTime(round, clique);
        if (time.IsStrictlyNegative())
        {
            return time;
        }
        longest = std::max(longest, time);
    }
    return longest;
}

void
TrainingHelper::RecordRoundStarted(std::shared_ptr<RoundTimes> times,
                                   uint32_t island,
                                   uint32_t round)
{
    (*times)[{round, island}].started = Simulator::Now();
}

void
TrainingHelper::RecordRoundFinished(std::shared_ptr<RoundTimes> times,
                                    uint32_t island,
                                    uint32_t round,
                                    uint32_t,
                                    const std::vector<float>&)
{
    (*times)[{round, island}].finished = Simulator::Now();
}

int64_t
TrainingHelper::SetWanPacketErrorRate(const WanTopologyHelper& scenario,
                                      double rate,
                                      int64_t stream)
{
    NS_ABORT_MSG_IF(!(rate >= 0 && rate < 1),
                    "TrainingHelper::SetWanPacketErrorRate: the rate must be in [0, 1), got "
                        << rate);
    return 3 * static_cast<int64_t>(InstallWanFaultModels(scenario, rate, 0, 0, stream).size());
}

std::vector<Ptr<WanFaultErrorModel>>
TrainingHelper::InstallWanFaultModels(const WanTopologyHelper& scenario,
                                      double lossRate,
                                      double reorderRate,
                                      double duplicateRate,
                                      int64_t stream)
{
    for (double rate : {lossRate, reorderRate, duplicateRate})
    {
        NS_ABORT_MSG_IF(!(rate >= 0 && rate < 1),
                        "TrainingHelper::InstallWanFaultModels: a rate must be in [0, 1), got "
                            << rate);
    }
    const WanTopology& topology = scenario.GetTopology();
    std::vector<Ptr<WanFaultErrorModel>> models;
    int64_t used = 0;
    for (uint32_t d = 0; d < 2 * topology.GetNLinks(); ++d)
    {
        Ptr<WanFaultErrorModel> model = CreateObject<WanFaultErrorModel>();
        model->SetAttribute("LossRate", DoubleValue(lossRate));
        model->SetAttribute("ReorderRate", DoubleValue(reorderRate));
        model->SetAttribute("DuplicateRate", DoubleValue(duplicateRate));
        used += model->AssignStreams(stream + used);
        Ptr<PointToPointNetDevice> device =
            DynamicCast<PointToPointNetDevice>(scenario.GetRxDevice(d));
        NS_ABORT_MSG_UNLESS(device,
                            "TrainingHelper::InstallWanFaultModels: the receiving device of "
                                << topology.GetDirectedLinkName(d)
                                << " is not a PointToPointNetDevice");
        model->SetDevice(device);
        device->SetAttribute("ReceiveErrorModel", PointerValue(model));
        models.push_back(model);
    }
    return models;
}

} // namespace ns3
