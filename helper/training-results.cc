/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "training-results.h"

#include "aggregator-net-device.h"
#include "schedule-metrics.h"
#include "training-island-application.h"
#include "wan-input-error.h"
#include "wan-topology-helper.h"

#include "ns3/abort.h"
#include "ns3/double.h"
#include "ns3/enum.h"
#include "ns3/ipv4-header.h"
#include "ns3/log.h"
#include "ns3/net-device.h"
#include "ns3/node.h"
#include "ns3/nstime.h"
#include "ns3/ppp-header.h"
#include "ns3/queue-disc.h"
#include "ns3/simulator.h"
#include "ns3/traffic-control-layer.h"
#include "ns3/udp-header.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("WanTrainingTrainingResults");

namespace
{

/** PPP protocol number of IPv4. */
constexpr uint16_t PPP_IPV4 = 0x0021;
/** IP protocol number of UDP. */
constexpr uint8_t IP_UDP = 17;

/**
 * @param value a time in seconds, or a negative number for "never"
 * @return the JSON value (null for never)
 */
nlohmann::json
TimeOrNull(double value)
{
    return value < 0 ? nlohmann::json(nullptr) : nlohmann::json(value);
}

} // namespace

TrainingResults::TrainingResults(const WanTopologyHelper& scenario,
                                 const CliqueSchedule& schedule,
                                 const ApplicationContainer& apps)
    : m_topology(scenario.GetTopology()),
      m_schedule(schedule)
{
    const uint32_t n = m_topology.GetNCities();
    NS_ABORT_MSG_IF(apps.GetN() != n,
                    "TrainingResults: need one application per island (" << n << "), got "
                                                                         << apps.GetN());
    for (uint32_t i = 0; i < n; ++i)
    {
        Ptr<TrainingIslandApplication> app = DynamicCast<TrainingIslandApplication>(apps.Get(i));
        NS_ABORT_MSG_IF(!app || app->GetIsland() != i,
                        "TrainingResults: application " << i
                                                        << " is not the TrainingIslandApplication "
                                                           "of island "
                                                        << m_topology.GetCity(i).id);
        m_apps.push_back(app);
        m_objectives.push_back(app->GetObjective());
        m_aggregators.push_back(scenario.GetAggregator(i));
    }
    m_rounds = m_apps.front()->GetRounds();
    UintegerValue port;
    m_apps.front()->GetAttribute("Port", port);
    m_port = static_cast<uint16_t>(port.Get());

    // The mean objective F(x) = 1/2 sum_d (A_d x_d^2 - 2 B_d x_d + C_d), for O(dimension) loss.
    const uint32_t dim = m_objectives.front().GetDimension();
    m_meanA.assign(dim, 0.0);
    m_meanAB.assign(dim, 0.0);
    m_meanABB = 0;
    for (const auto& objective : m_objectives)
    {
        for (uint32_t d = 0; d < dim; ++d)
        {
            double a = objective.GetCurvatures()[d];
            double b = objective.GetTargets()[d];
            m_meanA[d] += a / n;
            m_meanAB[d] += a * b / n;
            m_meanABB += a * b * b / n;
        }
    }
    m_optimalLoss =
        LocalObjective::GetGlobalLoss(m_objectives, LocalObjective::GetGlobalOptimum(m_objectives));

    m_startS.assign(m_rounds, std::vector<double>(n, -1));
    m_exchangeS.assign(m_rounds, std::vector<double>(n, -1));
    m_endS.assign(m_rounds, std::vector<double>(n, -1));
    m_checkedMembers.assign(m_rounds, {});
    m_islands.assign(n, IslandCounters());
    m_links.assign(m_topology.GetNDirectedLinks(), LinkCounters());

    for (const auto& app : m_apps)
    {
        app->TraceConnectWithoutContext("RoundStarted",
                                        MakeCallback(&TrainingResults::OnRoundStarted, this));
        app->TraceConnectWithoutContext("ExchangeStarted",
                                        MakeCallback(&TrainingResults::OnExchangeStarted, this));
        app->TraceConnectWithoutContext("RoundFinished",
                                        MakeCallback(&TrainingResults::OnRoundFinished, this));
        app->TraceConnectWithoutContext("ChunkSent",
                                        MakeCallback(&TrainingResults::OnChunkSent, this));
        app->TraceConnectWithoutContext("ChunkReceived",
                                        MakeCallback(&TrainingResults::OnChunkReceived, this));
        app->TraceConnectWithoutContext("RepairRequested",
                                        MakeCallback(&TrainingResults::OnRepairRequested, this));
    }
    for (uint32_t d = 0; d < m_topology.GetNDirectedLinks(); ++d)
    {
        Ptr<NetDevice> tx = scenario.GetTxDevice(d);
        tx->TraceConnectWithoutContext("PhyTxBegin",
                                       MakeCallback(&TrainingResults::OnPhyTxBegin, this).Bind(d));
        tx->TraceConnectWithoutContext("MacTxDrop",
                                       MakeCallback(&TrainingResults::OnQueueDrop, this).Bind(d));
        scenario.GetRxDevice(d)->TraceConnectWithoutContext(
            "PhyRxDrop",
            MakeCallback(&TrainingResults::OnErrorDrop, this).Bind(d));
        Ptr<TrafficControlLayer> tc = tx->GetNode()->GetObject<TrafficControlLayer>();
        Ptr<QueueDisc> disc = tc ? tc->GetRootQueueDiscOnDevice(tx) : nullptr;
        if (disc)
        {
            disc->TraceConnectWithoutContext(
                "Drop",
                MakeCallback(&TrainingResults::OnQueueDiscDrop, this).Bind(d));
        }
    }

    Sample initial;
    std::vector<double> zero(dim, 0.0);
    initial.loss = MeanLoss(zero) - m_optimalLoss;
    initial.islandMeanLoss = initial.loss;
    m_samples.push_back(initial);
}

void
TrainingResults::SetConfigJson(const std::string& json)
{
    NS_ABORT_MSG_UNLESS(nlohmann::json::parse(json, nullptr, false).is_object(),
                        "TrainingResults::SetConfigJson: not a JSON object");
    m_configJson = json;
}

void
TrainingResults::OnRoundStarted(uint32_t island, uint32_t round)
{
    m_startS[round][island] = Simulator::Now().GetSeconds();
}

void
TrainingResults::OnExchangeStarted(uint32_t island,
                                   uint32_t round,
                                   uint32_t clique,
                                   const std::vector<float>& parameters)
{
    m_exchangeS[round][island] = Simulator::Now().GetSeconds();
    uint32_t sr = round % m_schedule.GetNRounds();
    if (clique != CliqueSchedule::IDLE && m_schedule.GetRound(sr)[clique].size() >= 2)
    {
        m_shadows[{round, clique}].contributions[island] = parameters;
    }
    TakeSample();
}

void
TrainingResults::OnRoundFinished(uint32_t island,
                                 uint32_t round,
                                 uint32_t clique,
                                 const std::vector<float>& parameters)
{
    m_endS[round][island] = Simulator::Now().GetSeconds();
    ++m_islands[island].roundsCompleted;
    uint32_t sr = round % m_schedule.GetNRounds();
    if (clique != CliqueSchedule::IDLE && m_schedule.GetRound(sr)[clique].size() >= 2)
    {
        const CliqueSchedule::Clique& members = m_schedule.GetRound(sr)[clique];
        auto it = m_shadows.find({round, clique});
        NS_ABORT_MSG_IF(it == m_shadows.end() || it->second.contributions.size() != members.size(),
                        "TrainingResults: island " << m_topology.GetCity(island).id
                                                   << " ended round " << round
                                                   << " before every member contributed");
        Shadow& shadow = it->second;
        if (shadow.average.empty())
        {
            shadow.average.assign(parameters.size(), 0.0);
            for (const auto& [member, values] : shadow.contributions)
            {
                for (size_t v = 0; v < values.size(); ++v)
                {
                    shadow.average[v] += values[v];
                }
            }
            for (double& value : shadow.average)
            {
                value /= members.size();
            }
        }
        for (size_t v = 0; v < parameters.size(); ++v)
        {
            double error = std::abs(parameters[v] - shadow.average[v]);
            m_maxAbsError = std::max(m_maxAbsError, error);
            m_maxRelError =
                std::max(m_maxRelError, error / std::max(1.0, std::abs(shadow.average[v])));
        }
        ++m_checks;
        m_checkedMembers[round].push_back(island);
        if (++shadow.checked == members.size())
        {
            m_shadows.erase(it);
        }
    }
    TakeSample();
}

void
TrainingResults::OnChunkSent(uint32_t island,
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
TrainingResults::OnChunkReceived(uint32_t island,
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
TrainingResults::OnRepairRequested(uint32_t island,
                                   uint32_t /* source */,
                                   uint32_t /* round */,
                                   uint32_t chunks)
{
    ++m_islands[island].nacksSent;
    m_islands[island].chunksRequested += chunks;
}

void
TrainingResults::OnPhyTxBegin(uint32_t d, Ptr<const Packet> packet)
{
    LinkCounters& counters = m_links[d];
    ++counters.packets;
    counters.bytes += packet->GetSize();
    Ptr<Packet> copy = packet->Copy();
    PppHeader ppp;
    if (copy->RemoveHeader(ppp) == 0 || ppp.GetProtocol() != PPP_IPV4)
    {
        return;
    }
    Ipv4Header ip;
    if (copy->RemoveHeader(ip) == 0 || ip.GetProtocol() != IP_UDP || ip.GetFragmentOffset() != 0)
    {
        return;
    }
    UdpHeader udp;
    if (copy->RemoveHeader(udp) == 0 || udp.GetDestinationPort() != m_port)
    {
        return;
    }
    IslandSyncHeader sync;
    if (copy->PeekHeader(sync) == 0)
    {
        return;
    }
    if (sync.GetType() == IslandSyncHeader::DATA || sync.GetType() == IslandSyncHeader::AGGREGATE)
    {
        counters.modelBytes += copy->GetSize() - IslandSyncHeader::FIXED_SIZE;
        ++(sync.GetType() == IslandSyncHeader::DATA ? counters.dataPackets
                                                    : counters.aggregatePackets);
    }
}

void
TrainingResults::OnErrorDrop(uint32_t d, Ptr<const Packet> /* packet */)
{
    ++m_links[d].errorDrops;
}

void
TrainingResults::OnQueueDrop(uint32_t d, Ptr<const Packet> /* packet */)
{
    ++m_links[d].queueDrops;
}

void
TrainingResults::OnQueueDiscDrop(uint32_t d, Ptr<const QueueDiscItem> /* item */)
{
    ++m_links[d].queueDrops;
}

double
TrainingResults::MeanLoss(const std::vector<double>& x) const
{
    double sum = m_meanABB;
    for (size_t d = 0; d < x.size(); ++d)
    {
        sum += m_meanA[d] * x[d] * x[d] - 2 * m_meanAB[d] * x[d];
    }
    return sum / 2;
}

void
TrainingResults::TakeSample()
{
    const uint32_t n = m_apps.size();
    const uint32_t dim = m_meanA.size();
    std::vector<std::vector<double>> models(n, std::vector<double>(dim, 0.0));
    std::vector<double> average(dim, 0.0);
    for (uint32_t i = 0; i < n; ++i)
    {
        const std::vector<float>& params = m_apps[i]->GetParameters();
        if (params.size() == dim)
        {
            std::copy(params.begin(), params.end(), models[i].begin());
        }
        for (uint32_t d = 0; d < dim; ++d)
        {
            average[d] += models[i][d] / n;
        }
    }
    Sample sample;
    sample.timeS = Simulator::Now().GetSeconds();
    sample.loss = MeanLoss(average) - m_optimalLoss;
    for (uint32_t i = 0; i < n; ++i)
    {
        sample.islandMeanLoss += (MeanLoss(models[i]) - m_optimalLoss) / n;
        double distance = 0;
        for (uint32_t d = 0; d < dim; ++d)
        {
            double e = models[i][d] - average[d];
            distance += e * e;
        }
        sample.consensus += distance / n;
    }
    m_samples.push_back(sample);
}

const TrainingResults::LinkCounters&
TrainingResults::GetLinkCounters(uint32_t d) const
{
    return m_links.at(d);
}

const TrainingResults::IslandCounters&
TrainingResults::GetIslandCounters(uint32_t city) const
{
    return m_islands.at(city);
}

uint32_t
TrainingResults::GetRoundsVerified() const
{
    uint32_t verified = 0;
    for (uint32_t r = 0; r < m_rounds; ++r)
    {
        const CliqueSchedule::Round& round = m_schedule.GetRound(r % m_schedule.GetNRounds());
        size_t expected = 0;
        for (const auto& clique : round)
        {
            if (clique.size() >= 2)
            {
                expected += clique.size();
            }
        }
        bool ended =
            std::all_of(m_endS[r].begin(), m_endS[r].end(), [](double t) { return t >= 0; });
        if (ended && m_checkedMembers[r].size() == expected)
        {
            ++verified;
        }
    }
    return m_maxRelError <= VERIFY_TOLERANCE ? verified : 0;
}

uint64_t
TrainingResults::GetChecks() const
{
    return m_checks;
}

double
TrainingResults::GetMaxAbsError() const
{
    return m_maxAbsError;
}

double
TrainingResults::GetMaxRelError() const
{
    return m_maxRelError;
}

const std::vector<TrainingResults::Sample>&
TrainingResults::GetSamples() const
{
    return m_samples;
}

double
TrainingResults::GetOptimalLoss() const
{
    return m_optimalLoss;
}

bool
TrainingResults::IsComplete() const
{
    return std::all_of(m_apps.begin(), m_apps.end(), [this](const auto& app) {
        return app->GetCompletedRounds() == m_rounds;
    });
}

std::string
TrainingResults::ToJson() const
{
    using nlohmann::json;
    const uint32_t n = m_topology.GetNCities();
    Ptr<TrainingIslandApplication> first = m_apps.front();
    const double modelBytes = static_cast<double>(first->GetModelBytes());
    UintegerValue localSteps;
    first->GetAttribute("LocalSteps", localSteps);
    TimeValue stepTime;
    first->GetAttribute("StepTime", stepTime);
    DoubleValue learningRate;
    first->GetAttribute("LearningRate", learningRate);
    const double computeS = localSteps.Get() * stepTime.Get().GetSeconds();

    json doc;
    doc["config"] = json::parse(m_configJson);

    ScheduleMetrics::Settings settings;
    settings.modelBytes = modelBytes;
    settings.computeS = computeS;
    ScheduleMetrics metrics(m_topology, settings);
    json rounds = json::array();
    for (uint32_t r = 0; r < m_rounds; ++r)
    {
        const CliqueSchedule::Round& round = m_schedule.GetRound(r % m_schedule.GetNRounds());
        double start = -1;
        double end = -1;
        for (uint32_t i = 0; i < n; ++i)
        {
            if (m_startS[r][i] >= 0 && (start < 0 || m_startS[r][i] < start))
            {
                start = m_startS[r][i];
            }
            end = std::max(end, m_endS[r][i]);
        }
        bool ended =
            std::all_of(m_endS[r].begin(), m_endS[r].end(), [](double t) { return t >= 0; });
        json cliques = json::array();
        double comm = 0;
        for (uint32_t c = 0; c < round.size(); ++c)
        {
            json members = json::array();
            double exchangeStart = -1;
            double cliqueEnd = -1;
            bool complete = true;
            for (uint32_t member : round[c])
            {
                members.push_back(m_topology.GetCity(member).id);
                exchangeStart = std::max(exchangeStart, m_exchangeS[r][member]);
                cliqueEnd = std::max(cliqueEnd, m_endS[r][member]);
                complete = complete && m_endS[r][member] >= 0;
            }
            double cliqueComm = complete ? cliqueEnd - exchangeStart : -1;
            if (complete && round[c].size() >= 2)
            {
                comm = std::max(comm, cliqueComm);
            }
            cliques.push_back({{"clique", c},
                               {"members", members},
                               {"exchange_start_s", TimeOrNull(complete ? exchangeStart : -1)},
                               {"end_s", TimeOrNull(complete ? cliqueEnd : -1)},
                               {"comm_s", TimeOrNull(cliqueComm)}});
        }
        ScheduleMetrics::RoundCost cost = metrics.GetRoundCost(round, m_apps.front()->GetMode());
        rounds.push_back({{"round", r},
                          {"schedule_round", r % m_schedule.GetNRounds()},
                          {"start_s", TimeOrNull(start)},
                          {"end_s", TimeOrNull(ended ? end : -1)},
                          {"comm_s", TimeOrNull(ended ? comm : -1)},
                          {"model_comm_s", cost.commS},
                          {"cliques", cliques}});
    }
    doc["rounds"] = rounds;

    json links = json::object();
    for (uint32_t d = 0; d < m_topology.GetNDirectedLinks(); ++d)
    {
        const LinkCounters& c = m_links[d];
        links[m_topology.GetDirectedLinkName(d)] = {{"packets", c.packets},
                                                    {"bytes", c.bytes},
                                                    {"model_bytes", c.modelBytes},
                                                    {"model_streams", c.modelBytes / modelBytes},
                                                    {"data_packets", c.dataPackets},
                                                    {"aggregate_packets", c.aggregatePackets},
                                                    {"error_drops", c.errorDrops},
                                                    {"queue_drops", c.queueDrops}};
    }
    doc["links"] = links;
    doc["links_definition"] =
        "per directed link, what its transmitting device sent: packets and bytes on the wire "
        "(PPP header included); model_bytes = values and padding of DATA and AGGREGATE chunks "
        "(repairs included); model_streams = model_bytes / model_bytes per contribution, "
        "summed over all rounds; data_packets and aggregate_packets count those chunks";

    json fpga = json::object();
    for (uint32_t i = 0; i < n; ++i)
    {
        Ptr<AggregatorNetDevice> device = m_aggregators[i];
        if (!device)
        {
            continue;
        }
        json reasons = json::object();
        for (uint32_t k = 0; k < AggregatorNetDevice::N_PASS_REASONS; ++k)
        {
            auto reason = static_cast<AggregatorNetDevice::PassReason>(k);
            reasons[AggregatorNetDevice::PassReasonToString(reason)] =
                device->GetPassThroughs(reason);
        }
        UintegerValue slots;
        device->GetAttribute("SlotCount", slots);
        fpga[m_topology.GetCity(i).id] = {
            {"contributions_in", device->GetContributionsIn()},
            {"contributions_summed", device->GetContributionsSummed()},
            {"duplicates", device->GetDuplicates()},
            {"aggregates_out", device->GetAggregatesOut()},
            {"timeouts", device->GetTimeouts()},
            {"pass_throughs", device->GetPassThroughs()},
            {"pass_throughs_by_reason", reasons},
            {"slot_count", slots.Get()},
            {"slot_high_water_mark", device->GetSlotHighWaterMark()},
            {"outbox_high_water_mark", device->GetOutboxHighWaterMark()}};
    }
    doc["fpga"] = fpga;

    json islands = json::object();
    for (uint32_t i = 0; i < n; ++i)
    {
        const IslandCounters& c = m_islands[i];
        islands[m_topology.GetCity(i).id] = {
            {"egress_model_bytes", c.egressModelBytes},
            {"ingress_model_bytes", c.ingressModelBytes},
            {"chunks_sent", c.chunksSent},
            {"repairs", c.repairs},
            {"nacks_sent", c.nacksSent},
            {"chunks_requested", c.chunksRequested},
            {"duplicate_chunks", c.duplicates},
            {"rounds_completed", c.roundsCompleted},
            {"failure",
             m_apps[i]->GetFailure().empty() ? json(nullptr) : json(m_apps[i]->GetFailure())}};
    }
    doc["islands"] = islands;

    doc["verification"] = {{"rounds_verified", GetRoundsVerified()},
                           {"rounds", m_rounds},
                           {"member_checks", m_checks},
                           {"max_abs_error", m_maxAbsError},
                           {"max_rel_error", m_maxRelError},
                           {"tolerance_rel", VERIFY_TOLERANCE},
                           {"passed", IsComplete() && GetRoundsVerified() == m_rounds}};

    json consensus = json::array();
    json loss = json::array();
    for (const Sample& s : m_samples)
    {
        consensus.push_back({{"t_s", s.timeS}, {"value", s.consensus}});
        loss.push_back({{"t_s", s.timeS}, {"value", s.loss}, {"island_mean", s.islandMeanLoss}});
    }
    doc["consensus"] = consensus;
    doc["loss"] = loss;
    doc["loss_definition"] = "value = F(mean of the island models) - F(x*), island_mean = mean "
                             "over islands of F(x_i) - F(x*), F = mean of the islands' "
                             "objectives; consensus = mean over islands of ||x_i - mean||^2";
    doc["optimal_loss"] = m_optimalLoss;

    // Colocated reference: every island starts from the same model, takes LocalSteps local
    // steps, then all average exactly at no communication cost.
    json colocated = json::array();
    std::vector<double> x(m_meanA.size(), 0.0);
    for (uint32_t r = 0; r < m_rounds; ++r)
    {
        std::vector<double> next(x.size(), 0.0);
        for (const auto& objective : m_objectives)
        {
            std::vector<double> local = x;
            for (uint64_t s = 0; s < localSteps.Get(); ++s)
            {
                objective.Step(local, learningRate.Get());
            }
            for (size_t d = 0; d < x.size(); ++d)
            {
                next[d] += local[d] / n;
            }
        }
        x = next;
        colocated.push_back(
            {{"round", r}, {"t_s", (r + 1) * computeS}, {"value", MeanLoss(x) - m_optimalLoss}});
    }
    doc["colocated"] = {{"description",
                         "all islands average exactly after every round's local steps, at zero "
                         "communication cost"},
                        {"loss", colocated}};

    uint64_t repairs = 0;
    uint64_t drops = 0;
    uint64_t queueDrops = 0;
    for (const auto& c : m_islands)
    {
        repairs += c.repairs;
    }
    for (const auto& c : m_links)
    {
        drops += c.errorDrops;
        queueDrops += c.queueDrops;
    }
    double lastEnd = 0;
    for (const auto& ends : m_endS)
    {
        for (double t : ends)
        {
            lastEnd = std::max(lastEnd, t);
        }
    }
    uint32_t failed = 0;
    for (const auto& app : m_apps)
    {
        failed += app->GetFailure().empty() ? 0 : 1;
    }
    uint64_t aggregates = 0;
    uint64_t partials = 0;
    uint64_t passThroughs = 0;
    for (const auto& device : m_aggregators)
    {
        if (device)
        {
            aggregates += device->GetAggregatesOut();
            partials += device->GetTimeouts();
            passThroughs += device->GetPassThroughs();
        }
    }
    doc["summary"] = {{"complete", IsComplete()},
                      {"failed_islands", failed},
                      {"training_time_s", lastEnd},
                      {"repairs", repairs},
                      {"error_drops", drops},
                      {"queue_drops", queueDrops},
                      {"fpga_aggregates", aggregates},
                      {"fpga_partial_aggregates", partials},
                      {"fpga_pass_throughs", passThroughs},
                      {"final_loss", m_samples.back().loss},
                      {"final_consensus", m_samples.back().consensus}};
    return doc.dump(2);
}

void
TrainingResults::WriteFile(const std::string& path) const
{
    std::ofstream out(path);
    if (!out)
    {
        throw WanInputError(path, "$", "cannot open the results file for writing");
    }
    out << ToJson() << "\n";
    if (!out)
    {
        throw WanInputError(path, "$", "cannot write the results file");
    }
}

} // namespace ns3
