/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "training-mode-test-run.h"

#include "island-sync-header.h"

#include "ns3/abort.h"
#include "ns3/ipv4-header.h"
#include "ns3/net-device.h"
#include "ns3/ppp-header.h"
#include "ns3/simulator.h"
#include "ns3/udp-header.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iostream>
#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>

namespace ns3
{

namespace
{

/** The job id of the test runs. */
const uint16_t JOB = 1;
/** The first random stream of the WAN error models. */
const int64_t LOSS_STREAM = 100;
/** The reference WAN of the reference values, relative to the test data directory. */
const std::string REFERENCE_WAN = "../topologies/reference-wan.json";
/** The reference values, relative to the test data directory. */
const std::string REFERENCE_VALUES = "data/reference-values.json";

/**
 * @param mode a capability mode
 * @return whether its FPGAs sum
 */
bool
IsAggregatedMode(CapabilityMode mode)
{
    return mode == CapabilityMode::AGGREGATION || mode == CapabilityMode::BOTH;
}

} // namespace

std::vector<CliqueSchedule::Round>
TrainingModeTestRun::CliquesOfThreeToNine()
{
    return {
        {{0, 4, 7}, {1, 2, 3, 5, 6, 8}},
        {{2, 3, 5, 8}, {0, 1, 4, 6, 7}},
        {{1, 2, 3, 5, 6, 7, 8}, {0}, {4}},
        {{0, 2, 3, 4, 5, 6, 7, 8}, {1}},
        {{0, 1, 2, 3, 4, 5, 6, 7, 8}},
    };
}

CliqueSchedule::Round
TrainingModeTestRun::AloneWith(uint32_t n, const CliqueSchedule::Clique& clique)
{
    CliqueSchedule::Round round{clique};
    for (uint32_t i = 0; i < n; ++i)
    {
        if (std::find(clique.begin(), clique.end(), i) == clique.end())
        {
            round.push_back({i});
        }
    }
    return round;
}

TrainingModeTestRun::TrainingModeTestRun(Config config)
    : m_config(std::move(config)),
      m_topology(WanTopology::LoadFile(m_config.topologyFile))
{
}

TrainingModeTestRun::~TrainingModeTestRun()
{
    // TrainingRun's destructor destroys the simulation and forgets the node names.
    m_run.reset();
}

void
TrainingModeTestRun::Run()
{
    const uint32_t n = m_topology.GetNCities();
    TrainingRun::Config config;
    config.mode = m_config.mode;
    config.jobId = JOB;
    config.rounds = m_config.nRounds;
    config.modelBytes = m_config.modelBytes;
    config.parameterCount = m_config.parameterCount;
    config.localSteps = m_config.localSteps;
    config.stepTime = m_config.stepTime;
    config.wanLossRate = m_config.lossRate;
    config.lossStream = LOSS_STREAM;
    config.fpgaSlots = m_config.fpgaSlots;
    config.fpgaTimeout = m_config.fpgaTimeout;
    config.faults = m_config.faults;
    m_run = std::make_unique<TrainingRun>(m_topology, CliqueSchedule(n, m_config.rounds), config);
    m_run->SetFaultLog(&std::cerr, "TrainingModeTestRun");
    m_run->Build();

    for (uint32_t i = 0; i < n; ++i)
    {
        Ptr<Application> app = m_run->GetApp(i);
        app->TraceConnectWithoutContext(
            "ExchangeStarted",
            MakeCallback(&TrainingModeTestRun::OnExchangeStarted, this));
        app->TraceConnectWithoutContext("RoundFinished",
                                        MakeCallback(&TrainingModeTestRun::OnRoundFinished, this));
        app->TraceConnectWithoutContext("ChunkSent",
                                        MakeCallback(&TrainingModeTestRun::OnChunkSent, this));
        app->TraceConnectWithoutContext("ChunkReceived",
                                        MakeCallback(&TrainingModeTestRun::OnChunkReceived, this));
        app->TraceConnectWithoutContext("RepairRequested",
                                        MakeCallback(&TrainingModeTestRun::OnRepair, this));
        app->TraceConnectWithoutContext("ControlSent",
                                        MakeCallback(&TrainingModeTestRun::OnControlSent, this));
        Ptr<AggregatorNetDevice> fpga = m_run->GetScenario().GetAggregator(i);
        if (fpga)
        {
            fpga->TraceConnectWithoutContext(
                "AggregateOut",
                MakeCallback(&TrainingModeTestRun::OnAggregate, this).Bind(i));
        }
    }
    for (uint32_t d = 0; d < m_topology.GetNDirectedLinks(); ++d)
    {
        m_run->GetScenario().GetTxDevice(d)->TraceConnectWithoutContext(
            "PhyTxBegin",
            MakeCallback(&TrainingModeTestRun::OnPhyTxBegin, this).Bind(d));
        m_run->GetScenario().GetRxDevice(d)->TraceConnectWithoutContext(
            "PhyRxDrop",
            MakeCallback(&TrainingModeTestRun::OnLoss, this));
    }
    if (m_config.onBuilt)
    {
        m_config.onBuilt(*m_run);
    }
    m_run->Run();
}

void
TrainingModeTestRun::OnExchangeStarted(uint32_t island,
                                       uint32_t round,
                                       uint32_t /* clique */,
                                       const std::vector<float>& parameters)
{
    pre[{round, island}] = parameters;
    exchangeS[{round, island}] = Simulator::Now().GetSeconds();
}

void
TrainingModeTestRun::OnRoundFinished(uint32_t island,
                                     uint32_t round,
                                     uint32_t /* clique */,
                                     const std::vector<float>& parameters)
{
    post[{round, island}] = parameters;
    finishS[{round, island}] = Simulator::Now().GetSeconds();
}

void
TrainingModeTestRun::OnRepair(uint32_t /* island */,
                              uint32_t /* source */,
                              uint32_t /* round */,
                              uint32_t /* chunks */)
{
    ++nacks;
}

void
TrainingModeTestRun::OnControlSent(uint32_t island,
                                   uint32_t /* destination */,
                                   const IslandSyncHeader& header)
{
    ++controlSent[{island, header.GetType()}];
}

void
TrainingModeTestRun::OnLoss(Ptr<const Packet> /* packet */)
{
    ++lostPackets;
}

void
TrainingModeTestRun::OnChunkSent(uint32_t island,
                                 uint32_t destination,
                                 const IslandSyncHeader& header,
                                 uint32_t modelBytes,
                                 bool resent)
{
    egress[{header.GetRound(), island}] += modelBytes;
    ++chunksSent;
    if (resent)
    {
        ++resends;
        if (destination == TrainingIslandApplication::ALL_MEMBERS)
        {
            ++multicastResends;
        }
    }
}

void
TrainingModeTestRun::OnChunkReceived(uint32_t island,
                                     const IslandSyncHeader& header,
                                     uint32_t modelBytes,
                                     bool duplicate)
{
    if (duplicate)
    {
        ++duplicates;
        return;
    }
    ingress[{header.GetRound(), island}] += modelBytes;
    for (uint32_t j = 0; j < IslandSyncHeader::MAX_ISLANDS; ++j)
    {
        if (header.GetContributors() & (uint64_t{1} << j))
        {
            ++credits[{header.GetRound(), island, j, header.GetChunkIndex()}];
        }
    }
}

void
TrainingModeTestRun::OnPhyTxBegin(uint32_t d, Ptr<const Packet> packet)
{
    Ptr<Packet> copy = packet->Copy();
    PppHeader ppp;
    Ipv4Header ip;
    UdpHeader udp;
    IslandSyncHeader sync;
    if (copy->RemoveHeader(ppp) == 0 || copy->RemoveHeader(ip) == 0 ||
        copy->RemoveHeader(udp) == 0 ||
        udp.GetDestinationPort() != TrainingIslandApplication::DEFAULT_PORT ||
        copy->PeekHeader(sync) == 0)
    {
        return;
    }
    if (sync.GetType() != IslandSyncHeader::DATA && sync.GetType() != IslandSyncHeader::AGGREGATE)
    {
        ++controlOnLink[{d, sync.GetType()}];
        return;
    }
    const uint32_t round = sync.GetRound();
    modelBytesOnLink[{round, d}] += copy->GetSize() - IslandSyncHeader::FIXED_SIZE;
    if (sync.GetType() == IslandSyncHeader::AGGREGATE)
    {
        ++aggregatesOnLink[{round, d}];
    }
    else if (m_config.recordChunks)
    {
        ++dataOnLink[{round, d, sync.GetSender(), sync.GetChunkIndex()}];
    }
}

void
TrainingModeTestRun::OnAggregate(uint32_t city, const IslandSyncHeader& header, bool complete)
{
    NS_ABORT_MSG_UNLESS(header.GetSender() == city, "an FPGA names its own city as the sender");
    if (!complete)
    {
        ++partialAggregates;
    }
    const std::vector<float>& values = header.GetValues();
    for (std::size_t v = 0; v < values.size(); ++v)
    {
        double sum = 0;
        for (uint32_t j = 0; j < IslandSyncHeader::MAX_ISLANDS; ++j)
        {
            if (header.GetContributors() & (uint64_t{1} << j))
            {
                // Every contributor's exchange started before its first chunk left.
                sum += pre.at({header.GetRound(), j}).at(header.GetValueOffset() + v);
            }
        }
        maxAggregateError =
            std::max(maxAggregateError, std::abs(values[v] - sum) / std::max(1.0, std::abs(sum)));
    }
    ++aggregatesChecked;
}

std::string
TrainingModeTestRun::FindControlMismatch() const
{
    auto count = [](const auto& map, uint32_t a, uint32_t type) {
        auto it = map.find({a, type});
        return it == map.end() ? uint64_t{0} : it->second;
    };
    std::map<uint32_t, uint64_t> total;
    for (uint32_t type : {IslandSyncHeader::READY,
                          IslandSyncHeader::READY_ASK,
                          IslandSyncHeader::VIEW,
                          IslandSyncHeader::DONE,
                          IslandSyncHeader::NACK})
    {
        for (uint32_t i = 0; i < m_topology.GetNCities(); ++i)
        {
            uint64_t traced = count(controlSent, i, type);
            uint64_t onWire = count(controlOnLink, m_topology.GetAccessUpLink(i), type);
            if (traced != onWire)
            {
                std::ostringstream text;
                text << "island " << i << ": ControlSent traced " << traced << " messages of type "
                     << type << ", its access up link carried " << onWire;
                return text.str();
            }
            total[type] += traced;
        }
    }
    // Each NACK goes RepairCopies times.
    const uint64_t copies = m_run->GetConfig().repairCopies;
    if (total[IslandSyncHeader::NACK] != nacks * copies)
    {
        return "ControlSent traced " + std::to_string(total[IslandSyncHeader::NACK]) +
               " NACKs, RepairRequested " + std::to_string(nacks) + " x RepairCopies " +
               std::to_string(copies);
    }
    if (total[IslandSyncHeader::READY] == 0 || total[IslandSyncHeader::DONE] == 0)
    {
        return "no READY or no DONE was sent";
    }
    return "";
}

const TrainingModeTestRun::Config&
TrainingModeTestRun::GetConfig() const
{
    return m_config;
}

const WanTopology&
TrainingModeTestRun::GetTopology() const
{
    return m_topology;
}

const CliqueSchedule&
TrainingModeTestRun::GetSchedule() const
{
    NS_ABORT_MSG_IF(!m_run, "TrainingModeTestRun::GetSchedule(): call Run() first");
    return m_run->GetSchedule();
}

const WanTopologyHelper&
TrainingModeTestRun::GetScenario() const
{
    NS_ABORT_MSG_IF(!m_run, "TrainingModeTestRun::GetScenario(): call Run() first");
    return m_run->GetScenario();
}

const PimMulticastHelper&
TrainingModeTestRun::GetPim() const
{
    NS_ABORT_MSG_IF(!m_run, "TrainingModeTestRun::GetPim(): call Run() first");
    return m_run->GetPim();
}

const TrainingResults&
TrainingModeTestRun::GetResults() const
{
    NS_ABORT_MSG_IF(!m_run, "TrainingModeTestRun::GetResults(): call Run() first");
    return m_run->GetResults();
}

const TrainingRun&
TrainingModeTestRun::GetRun() const
{
    NS_ABORT_MSG_IF(!m_run, "TrainingModeTestRun::GetRun(): call Run() first");
    return *m_run;
}

Ptr<TrainingIslandApplication>
TrainingModeTestRun::GetApp(uint32_t island) const
{
    NS_ABORT_MSG_IF(!m_run, "TrainingModeTestRun::GetApp(): call Run() first");
    return m_run->GetApp(island);
}

Ptr<AggregatorNetDevice>
TrainingModeTestRun::GetAggregator(uint32_t city) const
{
    return GetScenario().GetAggregator(city);
}

double
TrainingModeTestRun::GetCommTime(uint32_t round, uint32_t clique) const
{
    const CliqueSchedule& schedule = GetSchedule();
    const CliqueSchedule::Clique& members =
        schedule.GetRound(round % schedule.GetNRounds())[clique];
    double start = 0;
    double end = 0;
    for (uint32_t i : members)
    {
        auto e = exchangeS.find({round, i});
        auto f = finishS.find({round, i});
        if (e == exchangeS.end() || f == finishS.end())
        {
            return -1;
        }
        start = std::max(start, e->second);
        end = std::max(end, f->second);
    }
    return end - start;
}

const uint32_t TrainingModeTestRun::CHUNK_HEADER_BYTES = 20 + 8 + IslandSyncHeader::FIXED_SIZE;

uint32_t
TrainingModeTestRun::GetMtuChunkBytes(const WanTopology& topology,
                                      const CliqueSchedule::Clique& clique)
{
    uint32_t mtu = std::numeric_limits<uint32_t>::max();
    for (uint32_t a : clique)
    {
        for (uint32_t b : clique)
        {
            if (a != b)
            {
                mtu = std::min(mtu, topology.GetPathMtuBytes(a, b));
            }
        }
    }
    return (mtu - CHUNK_HEADER_BYTES) / 4 * 4;
}

std::vector<double>
TrainingModeTestRun::GetReferenceLinkStreams(const WanTopology& topology,
                                             const nlohmann::json& loads,
                                             std::vector<std::string>& unknown)
{
    std::vector<double> streams(topology.GetNDirectedLinks(), 0.0);
    for (const auto& [link, value] : loads.items())
    {
        bool known = false;
        for (uint32_t d = 0; d < topology.GetNDirectedLinks(); ++d)
        {
            if (topology.GetDirectedLinkName(d) == link)
            {
                streams[d] = value.get<double>();
                known = true;
            }
        }
        if (!known)
        {
            unknown.push_back(link);
        }
    }
    return streams;
}

std::vector<double>
TrainingModeTestRun::GetRoundLinkStreams(uint32_t round) const
{
    std::vector<double> streams(m_topology.GetNDirectedLinks(), 0.0);
    for (uint32_t d = 0; d < streams.size(); ++d)
    {
        auto it = modelBytesOnLink.find({round, d});
        if (it != modelBytesOnLink.end())
        {
            streams[d] = static_cast<double>(it->second) / m_config.modelBytes;
        }
    }
    return streams;
}

double
TrainingModeTestRun::GetAverageError(uint32_t round,
                                     uint32_t island,
                                     const CliqueSchedule::Clique& clique) const
{
    std::vector<double> average(m_config.parameterCount, 0.0);
    for (uint32_t j : clique)
    {
        for (uint32_t v = 0; v < m_config.parameterCount; ++v)
        {
            average[v] += pre.at({round, j})[v];
        }
    }
    const std::vector<float>& parameters = post.at({round, island});
    double maxError = 0;
    for (uint32_t v = 0; v < m_config.parameterCount; ++v)
    {
        double avg = average[v] / clique.size();
        maxError = std::max(maxError, std::abs(parameters[v] - avg) / std::max(1.0, std::abs(avg)));
    }
    return maxError;
}

TrainingReferenceStreamsTestCase::TrainingReferenceStreamsTestCase(CapabilityMode mode)
    : TestCase("streams per link and round on reference-wan equal reference-values.json, " +
               CapabilityModeToString(mode)),
      m_mode(mode)
{
}

void
TrainingReferenceStreamsTestCase::DoRun()
{
    std::ifstream file(CreateDataDirFilename(REFERENCE_VALUES));
    NS_TEST_ASSERT_MSG_EQ(file.good(), true, "reference values readable");
    nlohmann::json reference = nlohmann::json::parse(file);
    const WanTopology topology = WanTopology::LoadFile(CreateDataDirFilename(REFERENCE_WAN));
    const bool ring = m_mode == CapabilityMode::RING;
    const uint32_t ringChunks = 36;
    uint64_t checked = 0;
    double maxDifference = 0;
    for (const auto& [name, entry] : reference.at("schedules").items())
    {
        std::vector<CliqueSchedule::Round> rounds;
        for (const auto& round : entry.at("rounds"))
        {
            CliqueSchedule::Round cliques;
            std::set<uint32_t> present;
            for (const auto& clique : round)
            {
                CliqueSchedule::Clique members;
                for (const auto& id : clique)
                {
                    members.push_back(topology.GetCityIndex(id.get<std::string>()));
                    present.insert(members.back());
                }
                if (ring)
                {
                    NS_TEST_ASSERT_MSG_EQ(ringChunks % members.size(),
                                          0u,
                                          name << ": the clique size divides the chunk count");
                }
                cliques.push_back(members);
            }
            for (uint32_t i = 0; i < topology.GetNCities(); ++i)
            {
                if (!present.count(i))
                {
                    cliques.push_back({i});
                }
            }
            rounds.push_back(cliques);
        }
        const nlohmann::json& loads =
            entry.at("modes").at(CapabilityModeToString(m_mode)).at("link_loads_in_S");
        NS_TEST_ASSERT_MSG_EQ(loads.size(), rounds.size(), name << ": loads of every round");

        TrainingModeTestRun::Config config;
        config.topologyFile = CreateDataDirFilename(REFERENCE_WAN);
        config.mode = m_mode;
        config.rounds = rounds;
        config.nRounds = rounds.size();
        config.modelBytes = ring ? uint64_t{ringChunks} *
                                       TrainingModeTestRun::GetMtuChunkBytes(topology, rounds[0][0])
                                 : 100000;
        config.parameterCount = 2048;
        config.recordChunks = false;
        TrainingModeTestRun run(config);
        run.Run();
        NS_TEST_ASSERT_MSG_EQ(run.GetResults().GetRoundsVerified(),
                              config.nRounds,
                              name << ": every round verified");
        if (IsAggregatedMode(m_mode))
        {
            NS_TEST_EXPECT_MSG_EQ(run.partialAggregates, 0u, name << ": no partial aggregate");
        }
        for (uint32_t r = 0; r < rounds.size(); ++r)
        {
            if (ring)
            {
                for (const CliqueSchedule::Clique& clique : rounds[r])
                {
                    NS_TEST_ASSERT_MSG_EQ(run.GetApp(clique[0])->GetPlan(r).chunkCount,
                                          (clique.size() >= 2 ? ringChunks : 0),
                                          name << ", round " << r << ": " << ringChunks
                                               << " chunks");
                }
            }
            std::vector<double> measured = run.GetRoundLinkStreams(r);
            std::vector<std::string> unknown;
            std::vector<double> expected =
                TrainingModeTestRun::GetReferenceLinkStreams(topology, loads[r], unknown);
            NS_TEST_EXPECT_MSG_EQ(unknown.size(),
                                  0u,
                                  name << ": unknown links" << (unknown.empty() ? "" : " ")
                                       << (unknown.empty() ? "" : unknown.front()));
            for (uint32_t d = 0; d < topology.GetNDirectedLinks(); ++d)
            {
                maxDifference = std::max(maxDifference, std::abs(measured[d] - expected[d]));
                ++checked;
                NS_TEST_EXPECT_MSG_EQ_TOL(measured[d],
                                          expected[d],
                                          1e-9,
                                          name << ", round " << r << ", "
                                               << topology.GetDirectedLinkName(d));
            }
        }
    }
    std::cout << "  " << CapabilityModeToString(m_mode) << ": " << checked
              << " (schedule, round, directed link) stream counts checked, largest |measured - "
                 "reference| = "
              << maxDifference << " streams" << std::endl;
    NS_TEST_EXPECT_MSG_GT(checked, 0u, "stream counts were checked");
}

} // namespace ns3
