/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "training-helper.h"

#include "training-island-application.h"
#include "wan-topology-helper.h"

#include "ns3/abort.h"
#include "ns3/enum.h"
#include "ns3/error-model.h"
#include "ns3/log.h"
#include "ns3/names.h"
#include "ns3/net-device.h"
#include "ns3/pointer.h"

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
    }
    m_factory.SetTypeId(TrainingIslandApplication::GetTypeId());
}

void
TrainingHelper::SetAttribute(const std::string& name, const AttributeValue& value)
{
    m_factory.Set(name, value);
}

void
TrainingHelper::SetMode(CapabilityMode mode)
{
    m_factory.Set("Mode", EnumValue(static_cast<int>(mode)));
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
    node->AddApplication(app);
    return app;
}

int64_t
TrainingHelper::SetWanPacketErrorRate(const WanTopologyHelper& scenario,
                                      double rate,
                                      int64_t stream)
{
    NS_ABORT_MSG_IF(!(rate >= 0 && rate < 1),
                    "TrainingHelper::SetWanPacketErrorRate: the rate must be in [0, 1), got "
                        << rate);
    const WanTopology& topology = scenario.GetTopology();
    int64_t used = 0;
    for (uint32_t d = 0; d < 2 * topology.GetNLinks(); ++d)
    {
        Ptr<RateErrorModel> model = CreateObject<RateErrorModel>();
        model->SetUnit(RateErrorModel::ERROR_UNIT_PACKET);
        model->SetRate(rate);
        used += model->AssignStreams(stream + used);
        scenario.GetRxDevice(d)->SetAttribute("ReceiveErrorModel", PointerValue(model));
    }
    return used;
}

} // namespace ns3
