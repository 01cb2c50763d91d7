/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "wan-fault-injector.h"

#include "wan-fault-error-model.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/simulator.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("WanTrainingWanFaultInjector");

NS_OBJECT_ENSURE_REGISTERED(WanFaultInjector);

TypeId
WanFaultInjector::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::WanTraining::WanFaultInjector")
            .SetParent<Object>()
            .SetGroupName("WanTraining")
            .AddConstructor<WanFaultInjector>()
            .AddTraceSource("LinkStateChanged",
                            "Links went down or came up; the routes of the links that are up "
                            "are installed.",
                            MakeTraceSourceAccessor(&WanFaultInjector::m_linkStateTrace),
                            "ns3::WanFaultInjector::LinkStateTracedCallback");
    return tid;
}

WanFaultInjector::WanFaultInjector()
{
    NS_LOG_FUNCTION(this);
}

WanFaultInjector::~WanFaultInjector()
{
    NS_LOG_FUNCTION(this);
}

void
WanFaultInjector::DoDispose()
{
    NS_LOG_FUNCTION(this);
    for (EventId& event : m_events)
    {
        event.Cancel();
    }
    m_events.clear();
    m_models.clear();
    m_reroutes.clear();
    Object::DoDispose();
}

void
WanFaultInjector::SetTopology(const WanTopology& topology)
{
    NS_LOG_FUNCTION(this << topology.GetName());
    NS_ABORT_MSG_UNLESS(m_events.empty(),
                        "WanFaultInjector::SetTopology(): link states are already scheduled");
    m_topology = topology;
    m_routing = topology;
    m_down.clear();
}

void
WanFaultInjector::SetErrorModels(const std::vector<Ptr<WanFaultErrorModel>>& models)
{
    NS_LOG_FUNCTION(this << models.size());
    m_models = models;
}

void
WanFaultInjector::AddRerouteCallback(RerouteCallback reroute)
{
    NS_LOG_FUNCTION(this);
    m_reroutes.push_back(reroute);
}

void
WanFaultInjector::ScheduleLinkState(Time at, const std::vector<uint32_t>& downLinks)
{
    NS_LOG_FUNCTION(this << at << downLinks.size());
    NS_ABORT_MSG_UNLESS(m_topology,
                        "WanFaultInjector::ScheduleLinkState(): call SetTopology() first");
    const uint32_t links = m_topology->GetNLinks();
    NS_ABORT_MSG_UNLESS(m_models.size() == 2 * std::size_t{links},
                        "WanFaultInjector::ScheduleLinkState(): "
                            << m_models.size() << " error models for the " << links
                            << " WAN links of topology '" << m_topology->GetName()
                            << "' (two per link are needed; call SetErrorModels first)");
    NS_ABORT_MSG_IF(at < Simulator::Now(),
                    "WanFaultInjector::ScheduleLinkState(): time " << at.As(Time::S)
                                                                   << " is in the past");
    std::vector<uint32_t> down = downLinks;
    std::sort(down.begin(), down.end());
    down.erase(std::unique(down.begin(), down.end()), down.end());
    for (uint32_t l : down)
    {
        NS_ABORT_MSG_UNLESS(l < links,
                            "WanFaultInjector::ScheduleLinkState(): unknown link "
                                << l << " (topology '" << m_topology->GetName() << "' has " << links
                                << " links)");
    }
    m_events.push_back(
        Simulator::Schedule(at - Simulator::Now(), &WanFaultInjector::ApplyLinkState, this, down));
}

const std::vector<uint32_t>&
WanFaultInjector::GetLinksDown() const
{
    return m_down;
}

const WanTopology&
WanFaultInjector::GetRouting() const
{
    NS_ABORT_MSG_UNLESS(m_routing, "WanFaultInjector::GetRouting(): call SetTopology() first");
    return *m_routing;
}

uint32_t
WanFaultInjector::GetNApplied() const
{
    return m_applied;
}

void
WanFaultInjector::ApplyLinkState(std::vector<uint32_t> downLinks)
{
    NS_LOG_FUNCTION(this << downLinks.size());
    m_down = downLinks;
    for (uint32_t l = 0; l < m_topology->GetNLinks(); ++l)
    {
        const bool isDown = std::binary_search(m_down.begin(), m_down.end(), l);
        m_models[2 * l]->SetLinkDown(isDown);
        m_models[2 * l + 1]->SetLinkDown(isDown);
    }
    m_routing = m_topology->WithLinksDown(m_down);
    for (const RerouteCallback& reroute : m_reroutes)
    {
        reroute(*m_routing);
    }
    ++m_applied;
    m_linkStateTrace(m_down, *m_routing);
}

} // namespace ns3
