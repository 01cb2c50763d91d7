/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "training-recorder.h"

#include "aggregator-net-device.h"
#include "training-island-application.h"
#include "wan-fault-error-model.h"
#include "wan-topology-helper.h"
#include "wire-frames.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/net-device.h"
#include "ns3/node.h"
#include "ns3/nstime.h"
#include "ns3/point-to-point-net-device.h"
#include "ns3/pointer.h"
#include "ns3/queue-disc.h"
#include "ns3/simulator.h"
#include "ns3/traffic-control-layer.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("WanTrainingTrainingRecorder");

TrainingRecorder::TrainingRecorder(const WanTopologyHelper& scenario,
                                   const CliqueSchedule& schedule,
                                   const ApplicationContainer& apps)
    : m_topology(scenario.GetTopology()),
      m_schedule(schedule)
{
    const uint32_t n = m_topology.GetNCities();
    NS_ABORT_MSG_IF(apps.GetN() != n,
                    "TrainingRecorder: need one application per island (" << n << "), got "
                                                                          << apps.GetN());
    for (uint32_t i = 0; i < n; ++i)
    {
        Ptr<TrainingIslandApplication> app = DynamicCast<TrainingIslandApplication>(apps.Get(i));
        NS_ABORT_MSG_IF(!app || app->GetIsland() != i,
                        "TrainingRecorder: application " << i
                                                         << " is not the TrainingIslandApplication "
                                                            "of island "
                                                         << m_topology.GetCity(i).id);
        m_apps.push_back(app);
        m_fpgas.push_back(scenario.GetFpga(i));
    }
    m_fpgaPorts.assign(n, {});
    for (uint32_t d = 0; d < m_topology.GetNDirectedLinks(); ++d)
    {
        Ptr<AggregatorNetDevice> port = DynamicCast<AggregatorNetDevice>(scenario.GetTxDevice(d));
        if (port)
        {
            m_fpgaPorts.at(port->GetIsland()).push_back({m_topology.GetDirectedLinkName(d), port});
        }
    }
    m_rounds = m_apps.front()->GetRounds();
    UintegerValue port;
    m_apps.front()->GetAttribute("Port", port);
    m_port = static_cast<uint16_t>(port.Get());
    for (PayloadFormat format : GetAllPayloadFormats())
    {
        m_frameCapacity.at(static_cast<uint8_t>(format)) =
            WireFrames::GetCapacity(m_topology, format);
    }

    m_table.assign(m_rounds, std::vector<IslandRound>(n));
    m_islands.assign(n, IslandCounters());
    m_links.assign(m_topology.GetNDirectedLinks(), LinkCounters());

    ConnectApplications();
    m_faultModels.assign(m_topology.GetNDirectedLinks(), nullptr);
    for (uint32_t d = 0; d < m_topology.GetNDirectedLinks(); ++d)
    {
        ConnectLink(scenario, d);
    }
}

void
TrainingRecorder::ConnectApplications()
{
    for (const auto& app : m_apps)
    {
        app->TraceConnectWithoutContext("RoundStarted",
                                        MakeCallback(&TrainingRecorder::OnRoundStarted, this));
        app->TraceConnectWithoutContext("ExchangeStarted",
                                        MakeCallback(&TrainingRecorder::OnExchangeStarted, this));
        app->TraceConnectWithoutContext("RoundFinished",
                                        MakeCallback(&TrainingRecorder::OnRoundFinished, this));
        app->TraceConnectWithoutContext("ChunkSent",
                                        MakeCallback(&TrainingRecorder::OnChunkSent, this));
        app->TraceConnectWithoutContext("ChunkReceived",
                                        MakeCallback(&TrainingRecorder::OnChunkReceived, this));
        app->TraceConnectWithoutContext("RepairRequested",
                                        MakeCallback(&TrainingRecorder::OnRepairRequested, this));
        app->TraceConnectWithoutContext("ChunkRepaired",
                                        MakeCallback(&TrainingRecorder::OnChunkRepaired, this));
        app->TraceConnectWithoutContext("ParitySent",
                                        MakeCallback(&TrainingRecorder::OnParitySent, this));
        app->TraceConnectWithoutContext("ChunkRebuilt",
                                        MakeCallback(&TrainingRecorder::OnChunkRebuilt, this));
        app->TraceConnectWithoutContext("RoundAbandoned",
                                        MakeCallback(&TrainingRecorder::OnRoundAbandoned, this));
        app->TraceConnectWithoutContext("MemberExcluded",
                                        MakeCallback(&TrainingRecorder::OnMemberExcluded, this));
        app->TraceConnectWithoutContext("Crashed",
                                        MakeCallback(&TrainingRecorder::OnCrashed, this));
    }
}

void
TrainingRecorder::ConnectLink(const WanTopologyHelper& scenario, uint32_t d)
{
    Ptr<NetDevice> tx = scenario.GetTxDevice(d);
    tx->TraceConnectWithoutContext("PhyTxBegin",
                                   MakeCallback(&TrainingRecorder::OnPhyTxBegin, this).Bind(d));
    tx->TraceConnectWithoutContext("MacTxDrop",
                                   MakeCallback(&TrainingRecorder::OnQueueDrop, this).Bind(d));
    // A WanFaultErrorModel tells its losses apart (random, down link) from the packets it
    // only delivers late; any other receive error model's drops are losses.
    Ptr<NetDevice> rx = scenario.GetRxDevice(d);
    PointerValue errorModel;
    if (DynamicCast<PointToPointNetDevice>(rx))
    {
        rx->GetAttribute("ReceiveErrorModel", errorModel);
    }
    Ptr<WanFaultErrorModel> faults = errorModel.Get<WanFaultErrorModel>();
    if (faults)
    {
        m_faultModels[d] = faults;
        faults->TraceConnectWithoutContext(
            "Lost",
            MakeCallback(&TrainingRecorder::OnErrorDrop, this).Bind(d));
    }
    else
    {
        rx->TraceConnectWithoutContext("PhyRxDrop",
                                       MakeCallback(&TrainingRecorder::OnErrorDrop, this).Bind(d));
    }
    Ptr<TrafficControlLayer> tc = tx->GetNode()->GetObject<TrafficControlLayer>();
    Ptr<QueueDisc> disc = tc ? tc->GetRootQueueDiscOnDevice(tx) : nullptr;
    if (disc)
    {
        disc->TraceConnectWithoutContext(
            "Drop",
            MakeCallback(&TrainingRecorder::OnQueueDiscDrop, this).Bind(d));
    }
}

void
TrainingRecorder::SetCallbacks(ParametersCallback exchangeStarted,
                               ParametersCallback roundFinished,
                               CliqueCallback outcome)
{
    m_exchangeStarted = exchangeStarted;
    m_roundFinished = roundFinished;
    m_outcome = outcome;
}

void
TrainingRecorder::Notify(const ParametersCallback& callback,
                         uint32_t island,
                         uint32_t round,
                         uint32_t clique,
                         const std::vector<float>& parameters)
{
    if (!callback.IsNull())
    {
        callback(island, round, clique, parameters);
    }
}

void
TrainingRecorder::OnRoundStarted(uint32_t island, uint32_t round)
{
    m_table[round][island].startS = Simulator::Now().GetSeconds();
}

void
TrainingRecorder::OnExchangeStarted(uint32_t island,
                                    uint32_t round,
                                    uint32_t clique,
                                    const std::vector<float>& parameters)
{
    m_table[round][island].exchangeStartS = Simulator::Now().GetSeconds();
    Notify(m_exchangeStarted, island, round, clique, parameters);
}

void
TrainingRecorder::OnRoundFinished(uint32_t island,
                                  uint32_t round,
                                  uint32_t clique,
                                  const std::vector<float>& parameters)
{
    IslandRound& record = m_table[round][island];
    record.endS = Simulator::Now().GetSeconds();
    ++m_islands[island].roundsCompleted;
    record.status = COMPLETED;
    record.contributors = m_apps[island]->GetRoundContributors();
    Notify(m_roundFinished, island, round, clique, parameters);
}

void
TrainingRecorder::OnRoundAbandoned(uint32_t island,
                                   uint32_t round,
                                   uint32_t clique,
                                   const std::string& reason)
{
    m_table[round][island].status = ABANDONED;
    m_reasons[{round, island}] = reason;
    if (clique != CliqueSchedule::IDLE && !m_outcome.IsNull())
    {
        m_outcome(round, clique);
    }
}

void
TrainingRecorder::OnMemberExcluded(uint32_t island,
                                   uint32_t round,
                                   uint32_t member,
                                   const std::string& reason)
{
    m_exclusions.push_back({round, island, member, reason, Simulator::Now().GetSeconds()});
}

void
TrainingRecorder::OnCrashed(uint32_t island, uint32_t round)
{
    for (uint32_t r = round; r < m_rounds; ++r)
    {
        if (m_table[r][island].status == PENDING)
        {
            m_table[r][island].status = CRASHED;
        }
        uint32_t clique = m_schedule.GetCliqueOf(r % m_schedule.GetNRounds(), island);
        if (clique != CliqueSchedule::IDLE && !m_outcome.IsNull())
        {
            m_outcome(r, clique);
        }
    }
}

void
TrainingRecorder::OnChunkSent(uint32_t island,
                              uint32_t /* destination */,
                              const IslandSyncHeader& /* header */,
                              uint32_t modelBytes,
                              bool resent)
{
    IslandCounters& counters = m_islands[island];
    counters.egressModelBytes += modelBytes;
    ++counters.chunksSent;
    if (resent)
    {
        ++counters.repairs;
    }
}

void
TrainingRecorder::OnChunkReceived(uint32_t island,
                                  const IslandSyncHeader& /* header */,
                                  uint32_t modelBytes,
                                  bool duplicate)
{
    m_islands[island].ingressModelBytes += modelBytes;
    if (duplicate)
    {
        ++m_islands[island].duplicates;
    }
}

void
TrainingRecorder::OnRepairRequested(uint32_t island,
                                    uint32_t /* source */,
                                    uint32_t /* round */,
                                    uint32_t chunks)
{
    ++m_islands[island].nacksSent;
    m_islands[island].chunksRequested += chunks;
}

void
TrainingRecorder::OnChunkRepaired(uint32_t island,
                                  uint32_t /* source */,
                                  uint32_t /* round */,
                                  Time wait)
{
    IslandCounters& counters = m_islands[island];
    ++counters.repairedChunks;
    counters.repairWaitSumS += wait.GetSeconds();
    counters.repairWaitMaxS = std::max(counters.repairWaitMaxS, wait.GetSeconds());
}

void
TrainingRecorder::OnParitySent(uint32_t island,
                               uint32_t /* destination */,
                               const IslandSyncHeader& /* header */)
{
    ++m_islands[island].paritiesSent;
}

void
TrainingRecorder::OnChunkRebuilt(uint32_t island, uint32_t /* source */, uint32_t /* round */)
{
    ++m_islands[island].chunksRebuilt;
}

void
TrainingRecorder::OnPhyTxBegin(uint32_t d, Ptr<const Packet> packet)
{
    LinkCounters& counters = m_links[d];
    ++counters.packets;
    counters.bytes += packet->GetSize();
    // Called for every packet on every link: only the type is read, without a packet copy.
    IslandSyncHeader::Type type = IslandSyncHeader::DONE;
    PayloadFormat format = PayloadFormat::FP32;
    uint32_t offset = IslandSyncHeader::PeekTypeInPacket(packet,
                                                         IslandSyncHeader::PPP_FRAME,
                                                         m_port,
                                                         type,
                                                         format);
    if (offset == 0)
    {
        ++counters.wireFrames;
        return;
    }
    if (type == IslandSyncHeader::DATA || type == IslandSyncHeader::AGGREGATE)
    {
        // Coarse frames: the bytes after the payload are the headers of the other wire frames.
        const uint32_t after = packet->GetSize() - offset - IslandSyncHeader::FIXED_SIZE;
        const uint32_t frames =
            WireFrames::GetFramesOfMessage(after, m_frameCapacity[static_cast<uint8_t>(format)]);
        counters.modelBytes += after - WireFrames::GetExtraHeaderBytes(frames);
        counters.wireFrames += frames;
        ++(type == IslandSyncHeader::DATA ? counters.dataPackets : counters.aggregatePackets);
        return;
    }
    if (type == IslandSyncHeader::PARITY)
    {
        // As many wire frames as the chunk it stands for; no model bytes.
        const uint32_t after = packet->GetSize() - offset - IslandSyncHeader::FIXED_SIZE;
        counters.wireFrames +=
            WireFrames::GetFramesOfMessage(after, m_frameCapacity[static_cast<uint8_t>(format)]);
        return;
    }
    ++counters.wireFrames;
}

void
TrainingRecorder::OnErrorDrop(uint32_t d, Ptr<const Packet> /* packet */)
{
    ++m_links[d].errorDrops;
}

void
TrainingRecorder::OnQueueDrop(uint32_t d, Ptr<const Packet> /* packet */)
{
    ++m_links[d].queueDrops;
}

void
TrainingRecorder::OnQueueDiscDrop(uint32_t d, Ptr<const QueueDiscItem> /* item */)
{
    ++m_links[d].queueDrops;
}

const WanTopology&
TrainingRecorder::GetTopology() const
{
    return m_topology;
}

const CliqueSchedule&
TrainingRecorder::GetSchedule() const
{
    return m_schedule;
}

uint32_t
TrainingRecorder::GetNRounds() const
{
    return m_rounds;
}

Ptr<TrainingIslandApplication>
TrainingRecorder::GetApplication(uint32_t city) const
{
    return m_apps.at(city);
}

Ptr<InlineFpga>
TrainingRecorder::GetFpga(uint32_t city) const
{
    return m_fpgas.at(city);
}

const std::vector<TrainingRecorder::FpgaPort>&
TrainingRecorder::GetFpgaPorts(uint32_t city) const
{
    return m_fpgaPorts.at(city);
}

const TrainingRecorder::LinkCounters&
TrainingRecorder::GetLinkCounters(uint32_t d) const
{
    LinkCounters& counters = m_links.at(d);
    if (m_faultModels[d])
    {
        counters.linkDownDrops = m_faultModels[d]->GetLinkDownDrops();
        counters.reordered = m_faultModels[d]->GetReordered();
        counters.duplicated = m_faultModels[d]->GetDuplicated();
    }
    return counters;
}

const TrainingRecorder::IslandCounters&
TrainingRecorder::GetIslandCounters(uint32_t city) const
{
    return m_islands.at(city);
}

TrainingRecorder::RoundStatus
TrainingRecorder::GetRoundStatus(uint32_t round, uint32_t island) const
{
    return m_table.at(round).at(island).status;
}

uint64_t
TrainingRecorder::GetContributors(uint32_t round, uint32_t island) const
{
    return m_table.at(round).at(island).contributors;
}

const TrainingRecorder::IslandRound&
TrainingRecorder::GetIslandRound(uint32_t round, uint32_t island) const
{
    return m_table.at(round).at(island);
}

std::string
TrainingRecorder::GetReason(uint32_t round, uint32_t island) const
{
    auto it = m_reasons.find({round, island});
    return it == m_reasons.end() ? "" : it->second;
}

void
TrainingRecorder::SetReason(uint32_t round, uint32_t island, const std::string& reason)
{
    m_reasons[{round, island}] = reason;
}

const std::vector<TrainingRecorder::Exclusion>&
TrainingRecorder::GetExclusions() const
{
    return m_exclusions;
}

const std::vector<TrainingRecorder::RouteChange>&
TrainingRecorder::GetRouteChanges() const
{
    return m_routeChanges;
}

bool
TrainingRecorder::WasPartitioned() const
{
    return std::any_of(m_routeChanges.begin(), m_routeChanges.end(), [](const RouteChange& c) {
        return c.components.size() > 1;
    });
}

bool
TrainingRecorder::WasStoppedByTimeLimit() const
{
    return m_stoppedByTimeLimit;
}

double
TrainingRecorder::GetTimeLimitS() const
{
    return m_timeLimitS;
}

bool
TrainingRecorder::IsRoundComplete(uint32_t round) const
{
    const std::vector<IslandRound>& islands = m_table.at(round);
    return std::all_of(islands.begin(), islands.end(), [](const IslandRound& record) {
        return record.status == COMPLETED || record.status == CRASHED;
    });
}

bool
TrainingRecorder::IsComplete() const
{
    for (uint32_t r = 0; r < m_rounds; ++r)
    {
        if (!IsRoundComplete(r))
        {
            return false;
        }
    }
    return true;
}

double
TrainingRecorder::GetTrainingTimeS() const
{
    double lastEnd = 0;
    for (const auto& islands : m_table)
    {
        for (const IslandRound& record : islands)
        {
            lastEnd = std::max(lastEnd, record.endS);
        }
    }
    return lastEnd;
}

void
TrainingRecorder::RecordRouteChange(const std::vector<uint32_t>& downLinks,
                                    const std::vector<std::vector<uint32_t>>& components)
{
    m_routeChanges.push_back({Simulator::Now().GetSeconds(), downLinks, components});
}

void
TrainingRecorder::Finish(double timeLimitS, bool stoppedByTimeLimit)
{
    m_timeLimitS = timeLimitS;
    m_stoppedByTimeLimit = stoppedByTimeLimit;
    std::ostringstream why;
    if (stoppedByTimeLimit)
    {
        why << "the time limit of " << timeLimitS << " s stopped the simulation";
    }
    else
    {
        why << "the simulation ran out of events at " << Simulator::Now().GetSeconds() << " s";
    }
    for (uint32_t i = 0; i < m_apps.size(); ++i)
    {
        const std::string state = m_apps[i]->DescribeState();
        for (uint32_t r = 0; r < m_rounds; ++r)
        {
            if (m_table[r][i].status == PENDING)
            {
                m_reasons[{r, i}] = why.str() + "; " + m_topology.GetCity(i).id + ": " + state;
            }
        }
    }
}

} // namespace ns3
