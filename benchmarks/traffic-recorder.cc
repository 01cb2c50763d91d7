/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "traffic-recorder.h"

#include "aggregator-net-device.h"
#include "inline-fpga.h"
#include "island-sync-header.h"
#include "training-island-application.h"
#include "training-run.h"
#include "wan-topology-helper.h"
#include "wire-frames.h"

#include "ns3/abort.h"
#include "ns3/callback.h"
#include "ns3/log.h"
#include "ns3/simulator.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("WanTrainingTrafficRecorder");

namespace
{

/**
 * @param modelBytes a chunk's model bytes
 * @param header its header (the format)
 * @param topology the simulated WAN (coarse frames carry their other frames' headers)
 * @return its UDP payload bytes
 */
uint32_t
PayloadBytes(uint32_t modelBytes, const IslandSyncHeader& header, const WanTopology& topology)
{
    const uint32_t capacity = WireFrames::GetCapacity(topology, header.GetFormat());
    return IslandSyncHeader::FIXED_SIZE + modelBytes +
           WireFrames::GetExtraHeaderBytes(WireFrames::GetFrames(modelBytes, capacity));
}

/**
 * @param payloadBytes UDP payload bytes
 * @return the packet's bits on a point-to-point wire
 */
double
WireBits(uint32_t payloadBytes)
{
    return 8.0 * (TrainingIslandApplication::PPP_HEADER_BYTES +
                  TrainingIslandApplication::IP_UDP_HEADER_BYTES + payloadBytes);
}

} // namespace

TrafficRecorder::TrafficRecorder(TrainingRun& run)
    : m_run(run),
      m_n(run.GetTopology().GetNCities())
{
    NS_LOG_FUNCTION(this);
    NS_ABORT_MSG_UNLESS(run.GetConfig().mode,
                        "TrafficRecorder: the bench compares runs of one forced mode");
    const CapabilityMode mode = *run.GetConfig().mode;
    m_aggregated = mode == CapabilityMode::AGGREGATION || mode == CapabilityMode::BOTH;
    m_tree = mode == CapabilityMode::TREE;
    m_sent.resize(m_n * (m_n + 1));
    m_aggregates.resize(m_n);
    m_control.resize(m_n * m_n);
    const ApplicationContainer& apps = run.GetApps();
    for (auto app = apps.Begin(); app != apps.End(); ++app)
    {
        (*app)->TraceConnectWithoutContext("ChunkSent",
                                           MakeCallback(&TrafficRecorder::OnChunkSent, this));
        (*app)->TraceConnectWithoutContext("ChunkReceived",
                                           MakeCallback(&TrafficRecorder::OnChunkReceived, this));
        (*app)->TraceConnectWithoutContext("RoundFinished",
                                           MakeCallback(&TrafficRecorder::OnRoundFinished, this));
        (*app)->TraceConnectWithoutContext("ControlSent",
                                           MakeCallback(&TrafficRecorder::OnControlSent, this));
    }
    if (m_tree)
    {
        const WanTopologyHelper& scenario = run.GetScenario();
        for (uint32_t city = 0; city < m_n; ++city)
        {
            m_islandOfAddress.emplace(scenario.GetIslandAddress(city), city);
        }
        for (uint32_t city : scenario.GetAggregationCities())
        {
            for (AggregatorNetDevice* port : scenario.GetFpga(city)->GetPorts())
            {
                uint32_t link = scenario.GetDirectedLinkOfTxDevice(port);
                port->TraceConnectWithoutContext(
                    "AggregateOut",
                    MakeCallback(&TrafficRecorder::OnAggregateOut, this, city, link));
            }
        }
    }
}

void
TrafficRecorder::Add(Stream& stream, uint32_t payloadBytes)
{
    double now = Simulator::Now().GetSeconds();
    if (stream.packets == 0)
    {
        stream.firstS = now;
    }
    stream.lastS = now;
    ++stream.packets;
    stream.lastBits = WireBits(payloadBytes);
    stream.bits += stream.lastBits;
    ++stream.sizes[payloadBytes];
}

void
TrafficRecorder::OnChunkSent(uint32_t island,
                             uint32_t destination,
                             const IslandSyncHeader& header,
                             uint32_t modelBytes,
                             bool resent)
{
    bool group = destination == TrainingIslandApplication::ALL_MEMBERS;
    m_resent += resent ? 1 : 0;
    if (m_tree && !group && header.GetType() == IslandSyncHeader::DATA)
    {
        const ExchangePlan& plan = m_run.GetApp(island)->GetPlan(header.GetRound());
        if (plan.mode == CapabilityMode::TREE && destination == plan.treeRoot)
        {
            AddTowardRoot(island,
                          plan.treeRoot,
                          header,
                          PayloadBytes(modelBytes, header, m_run.GetTopology()),
                          island,
                          false);
            return;
        }
    }
    Stream& stream = m_sent[island * (m_n + 1) + (group ? m_n : destination)];
    if (group && stream.packets == 0)
    {
        stream.group = m_run.GetApp(island)->GetPlan(header.GetRound()).group;
    }
    Add(stream, PayloadBytes(modelBytes, header, m_run.GetTopology()));
}

void
TrafficRecorder::OnAggregateOut(uint32_t router,
                                uint32_t link,
                                const IslandSyncHeader& header,
                                bool /* complete */)
{
    const WanTopologyHelper& scenario = m_run.GetScenario();
    Ptr<AggregatorNetDevice> port = DynamicCast<AggregatorNetDevice>(scenario.GetTxDevice(link));
    const AggregatorNetDevice::Expectation* expectation =
        port->GetExpectation(header.GetJobId(), header.GetRound(), header.GetCliqueId());
    const WanTopology& routing = scenario.GetRouting();
    NS_ABORT_MSG_UNLESS(expectation && expectation->root != Ipv4Address(),
                        "TrafficRecorder: an aggregate on " << routing.GetDirectedLinkName(link)
                                                            << " without a tree expectation");
    auto root = m_islandOfAddress.find(expectation->root);
    NS_ABORT_MSG_IF(root == m_islandOfAddress.end(),
                    "TrafficRecorder: no island has address " << expectation->root);
    const ExchangePlan& plan = m_run.GetApp(root->second)->GetPlan(header.GetRound());
    const uint32_t payloadBytes =
        PayloadBytes(plan.GetPayloadBytes(header.GetChunkIndex()), header, m_run.GetTopology());
    if (router == root->second)
    {
        // The root's router sums on its access down link: the root island receives it.
        Add(m_treeFlows[{router, true, router, false}], payloadBytes);
        return;
    }
    const WanRoute& route = routing.GetRoute(router, root->second);
    NS_ABORT_MSG_UNLESS(route.links.size() > 2 && route.links[1] == link,
                        "TrafficRecorder: an aggregate on " << routing.GetDirectedLinkName(link)
                                                            << ", off the route toward island "
                                                            << root->second);
    AddTowardRoot(route.cities[1], root->second, header, payloadBytes, router, true);
}

void
TrafficRecorder::AddTowardRoot(uint32_t from,
                               uint32_t root,
                               const IslandSyncHeader& header,
                               uint32_t payloadBytes,
                               uint32_t source,
                               bool fromRouter)
{
    const WanTopologyHelper& scenario = m_run.GetScenario();
    const WanTopology& routing = scenario.GetRouting();
    const Ipv4Address rootAddress = scenario.GetIslandAddress(root);
    const uint64_t bits = header.GetType() == IslandSyncHeader::DATA
                              ? IslandSyncHeader::GetContributorBit(header.GetSender())
                              : header.GetContributors();
    // Whether the router's port on a link sums the packet (AggregatorNetDevice's rule).
    auto sums = [&](uint32_t link) {
        Ptr<AggregatorNetDevice> port =
            DynamicCast<AggregatorNetDevice>(scenario.GetTxDevice(link));
        const AggregatorNetDevice::Expectation* expectation =
            port ? port->GetExpectation(header.GetJobId(), header.GetRound(), header.GetCliqueId())
                 : nullptr;
        return expectation && expectation->root == rootAddress &&
               (expectation->contributors & bits) == bits;
    };
    uint32_t city = from;
    while (city != root && !sums(routing.GetRoute(city, root).links.at(1)))
    {
        city = routing.GetRoute(city, root).cities.at(1);
    }
    if (city == root && !sums(routing.GetAccessDownLink(root)))
    {
        // No router sums it: the root island receives it.
        Stream& stream = fromRouter ? m_treeFlows[{source, true, root, false}]
                                    : m_sent[source * (m_n + 1) + root];
        Add(stream, payloadBytes);
        return;
    }
    Add(m_treeFlows[{source, fromRouter, city, true}], payloadBytes);
}

void
TrafficRecorder::OnChunkReceived(uint32_t island,
                                 const IslandSyncHeader& header,
                                 uint32_t modelBytes,
                                 bool /* duplicate */)
{
    // Only an FPGA's aggregates: ring mode sends its partial sums as AGGREGATE chunks too,
    // island to island, and those are recorded where they are sent.
    if (m_aggregated && header.GetType() == IslandSyncHeader::AGGREGATE)
    {
        Add(m_aggregates[island], PayloadBytes(modelBytes, header, m_run.GetTopology()));
    }
}

void
TrafficRecorder::OnControlSent(uint32_t island,
                               uint32_t destination,
                               const IslandSyncHeader& header)
{
    NS_ABORT_MSG_IF(destination >= m_n,
                    "TrafficRecorder: a control message to " << destination << " of " << m_n
                                                             << " islands");
    Add(m_control[island * m_n + destination], header.GetSerializedSize());
}

void
TrafficRecorder::OnRoundFinished(uint32_t /* island */,
                                 uint32_t /* round */,
                                 uint32_t /* clique */,
                                 const std::vector<float>& /* parameters */)
{
    m_lastRoundEndS = std::max(m_lastRoundEndS, Simulator::Now().GetSeconds());
}

PlainNs3Baseline::Traffic
TrafficRecorder::GetTraffic() const
{
    const WanTopology& topology = m_run.GetTopology();
    const CapabilityMode mode = *m_run.GetConfig().mode;
    PlainNs3Baseline::Traffic traffic;
    traffic.multicast = mode == CapabilityMode::MULTICAST || mode == CapabilityMode::BOTH ||
                        mode == CapabilityMode::TREE;
    traffic.absorbAtMemberRouters = traffic.multicast && m_aggregated;

    // A stream's flow, appended to the traffic (nullptr for a stream without packets). Its
    // rate: the wire bits of every packet but the last over the time they took; a single packet
    // goes at the capacity of the first link it crosses.
    auto addFlow = [&traffic](const Stream& stream,
                              uint32_t source,
                              double capacityBps) -> PlainNs3Baseline::Flow* {
        if (stream.packets == 0)
        {
            return nullptr;
        }
        PlainNs3Baseline::Flow& flow = traffic.flows.emplace_back();
        flow.source = source;
        flow.startS = stream.firstS;
        double span = stream.lastS - stream.firstS;
        flow.rateBps =
            stream.packets > 1 && span > 0 ? (stream.bits - stream.lastBits) / span : capacityBps;
        flow.sizes.assign(stream.sizes.begin(), stream.sizes.end());
        std::stable_sort(flow.sizes.begin(), flow.sizes.end(), [](const auto& a, const auto& b) {
            return a.second > b.second;
        });
        return &flow;
    };

    for (uint32_t island = 0; island < m_n; ++island)
    {
        double upBps = topology.GetDirectedLinkCapacityGbps(topology.GetAccessUpLink(island)) * 1e9;
        for (uint32_t destination = 0; destination <= m_n; ++destination)
        {
            const Stream& stream = m_sent[island * (m_n + 1) + destination];
            PlainNs3Baseline::Flow* flow = addFlow(stream, island, upBps);
            if (!flow)
            {
                continue;
            }
            if (destination == m_n)
            {
                flow->target = PlainNs3Baseline::Target::GROUP;
                flow->group = stream.group;
            }
            else
            {
                flow->target = m_aggregated ? PlainNs3Baseline::Target::ROUTER
                                            : PlainNs3Baseline::Target::ISLAND;
                flow->destination = destination;
            }
        }
        for (uint32_t destination = 0; destination < m_n; ++destination)
        {
            if (PlainNs3Baseline::Flow* flow =
                    addFlow(m_control[island * m_n + destination], island, upBps))
            {
                flow->target = PlainNs3Baseline::Target::ISLAND;
                flow->destination = destination;
            }
        }
    }
    for (uint32_t island = 0; island < m_n; ++island)
    {
        uint32_t down = topology.GetAccessDownLink(island);
        double downBps = topology.GetDirectedLinkCapacityGbps(down) * 1e9;
        const Stream& stream = m_aggregates[island];
        if (PlainNs3Baseline::Flow* flow = addFlow(stream, island, downBps))
        {
            // The first aggregate left the router one transmission and one propagation earlier.
            double firstBits = WireBits(flow->sizes.front().first);
            flow->startS = std::max(0.0,
                                    stream.firstS - firstBits / downBps -
                                        topology.GetDirectedLinkLatencyMs(down) * 1e-3);
            flow->fromRouter = true;
            flow->target = PlainNs3Baseline::Target::ISLAND;
            flow->destination = island;
        }
    }
    const WanTopology& routing = m_run.GetScenario().GetRouting();
    for (const auto& [key, stream] : m_treeFlows)
    {
        const auto& [source, fromRouter, end, atRouter] = key;
        // The link the flow leaves on: the sender's first.
        uint32_t first = !fromRouter     ? topology.GetAccessUpLink(source)
                         : source == end ? topology.GetAccessDownLink(end)
                                         : routing.GetRoute(source, end).links.at(1);
        if (PlainNs3Baseline::Flow* flow =
                addFlow(stream, source, topology.GetDirectedLinkCapacityGbps(first) * 1e9))
        {
            flow->fromRouter = fromRouter;
            flow->target =
                atRouter ? PlainNs3Baseline::Target::ROUTER : PlainNs3Baseline::Target::ISLAND;
            flow->destination = end;
        }
    }
    return traffic;
}

uint64_t
TrafficRecorder::GetResentChunks() const
{
    return m_resent;
}

double
TrafficRecorder::GetLastRoundEndSeconds() const
{
    return m_lastRoundEndS;
}

} // namespace ns3
