/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "training-results.h"

#include "aggregator-net-device.h"
#include "schedule-metrics.h"
#include "training-island-application.h"
#include "wan-fault-error-model.h"
#include "wan-input-error.h"
#include "wan-topology-helper.h"

#include "ns3/abort.h"
#include "ns3/double.h"
#include "ns3/enum.h"
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
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("WanTrainingTrainingResults");

namespace
{

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
    m_status.assign(m_rounds, std::vector<RoundStatus>(n, PENDING));
    m_contributors.assign(m_rounds, std::vector<uint64_t>(n, 0));
    m_verified.assign(m_rounds, std::vector<bool>(n, false));
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
        app->TraceConnectWithoutContext("RoundAbandoned",
                                        MakeCallback(&TrainingResults::OnRoundAbandoned, this));
        app->TraceConnectWithoutContext("MemberExcluded",
                                        MakeCallback(&TrainingResults::OnMemberExcluded, this));
        app->TraceConnectWithoutContext("Crashed", MakeCallback(&TrainingResults::OnCrashed, this));
    }
    m_faultModels.assign(m_topology.GetNDirectedLinks(), nullptr);
    for (uint32_t d = 0; d < m_topology.GetNDirectedLinks(); ++d)
    {
        Ptr<NetDevice> tx = scenario.GetTxDevice(d);
        tx->TraceConnectWithoutContext("PhyTxBegin",
                                       MakeCallback(&TrainingResults::OnPhyTxBegin, this).Bind(d));
        tx->TraceConnectWithoutContext("MacTxDrop",
                                       MakeCallback(&TrainingResults::OnQueueDrop, this).Bind(d));
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
                MakeCallback(&TrainingResults::OnErrorDrop, this).Bind(d));
        }
        else
        {
            rx->TraceConnectWithoutContext(
                "PhyRxDrop",
                MakeCallback(&TrainingResults::OnErrorDrop, this).Bind(d));
        }
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
    m_status[round][island] = COMPLETED;
    const uint64_t contributors = m_apps[island]->GetRoundContributors();
    m_contributors[round][island] = contributors;
    uint32_t sr = round % m_schedule.GetNRounds();
    if (clique == CliqueSchedule::IDLE || m_schedule.GetRound(sr)[clique].size() < 2)
    {
        // Idle or alone: the parameters stay, averaged over the island alone.
        m_verified[round][island] = contributors == (uint64_t{1} << island);
        TakeSample();
        return;
    }
    const CliqueSchedule::Clique& members = m_schedule.GetRound(sr)[clique];
    auto it = m_shadows.find({round, clique});
    // Every contributor must be a member whose contribution was recorded, the island among them.
    bool valid = it != m_shadows.end() && (contributors & (uint64_t{1} << island));
    uint64_t cliqueBits = 0;
    std::vector<uint32_t> set;
    for (uint32_t member : members)
    {
        cliqueBits |= uint64_t{1} << member;
        if (contributors & (uint64_t{1} << member))
        {
            set.push_back(member);
            valid = valid && it->second.contributions.count(member) != 0;
        }
    }
    valid = valid && (contributors & ~cliqueBits) == 0;
    if (!valid)
    {
        NS_LOG_WARN("island " << m_topology.GetCity(island).id << " ended round " << round
                              << " averaging over members that did not contribute");
        m_reasons[{round, island}] = "averaged over members whose contributions were not recorded";
        ++m_checks;
        ReleaseShadow(round, clique);
        TakeSample();
        return;
    }
    Shadow& shadow = it->second;
    std::vector<double>& average = shadow.averages[contributors];
    if (average.empty())
    {
        average.assign(parameters.size(), 0.0);
        for (uint32_t member : set)
        {
            const std::vector<float>& values = shadow.contributions.at(member);
            for (size_t v = 0; v < values.size(); ++v)
            {
                average[v] += values[v];
            }
        }
        for (double& value : average)
        {
            value /= set.size();
        }
    }
    double memberRelError = 0;
    for (size_t v = 0; v < parameters.size(); ++v)
    {
        double error = std::abs(parameters[v] - average[v]);
        double relError = error / std::max(1.0, std::abs(average[v]));
        m_maxAbsError = std::max(m_maxAbsError, error);
        m_maxRelError = std::max(m_maxRelError, relError);
        memberRelError = std::max(memberRelError, relError);
    }
    ++m_checks;
    m_verified[round][island] = memberRelError <= VERIFY_TOLERANCE;
    ReleaseShadow(round, clique);
    TakeSample();
}

void
TrainingResults::OnRoundAbandoned(uint32_t island,
                                  uint32_t round,
                                  uint32_t clique,
                                  const std::string& reason)
{
    m_status[round][island] = ABANDONED;
    m_reasons[{round, island}] = reason;
    if (clique != CliqueSchedule::IDLE)
    {
        ReleaseShadow(round, clique);
    }
}

void
TrainingResults::OnMemberExcluded(uint32_t island,
                                  uint32_t round,
                                  uint32_t member,
                                  const std::string& reason)
{
    m_exclusions.push_back({round, island, member, reason, Simulator::Now().GetSeconds()});
}

void
TrainingResults::OnCrashed(uint32_t island, uint32_t round)
{
    for (uint32_t r = round; r < m_rounds; ++r)
    {
        if (m_status[r][island] == PENDING)
        {
            m_status[r][island] = CRASHED;
        }
        uint32_t clique = m_schedule.GetCliqueOf(r % m_schedule.GetNRounds(), island);
        if (clique != CliqueSchedule::IDLE)
        {
            ReleaseShadow(r, clique);
        }
    }
}

void
TrainingResults::ReleaseShadow(uint32_t round, uint32_t clique)
{
    auto it = m_shadows.find({round, clique});
    if (it == m_shadows.end())
    {
        return;
    }
    for (uint32_t member : m_schedule.GetRound(round % m_schedule.GetNRounds())[clique])
    {
        if (m_status[round][member] == PENDING)
        {
            return;
        }
    }
    m_shadows.erase(it);
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
    // Called for every packet on every link: only the type is read, without a packet copy.
    IslandSyncHeader::Type type = IslandSyncHeader::DONE;
    uint32_t offset =
        IslandSyncHeader::PeekTypeInPacket(packet, IslandSyncHeader::PPP_FRAME, m_port, type);
    if (offset == 0)
    {
        return;
    }
    if (type == IslandSyncHeader::DATA || type == IslandSyncHeader::AGGREGATE)
    {
        counters.modelBytes += packet->GetSize() - offset - IslandSyncHeader::FIXED_SIZE;
        ++(type == IslandSyncHeader::DATA ? counters.dataPackets : counters.aggregatePackets);
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
    LinkCounters& counters = m_links.at(d);
    if (m_faultModels[d])
    {
        counters.linkDownDrops = m_faultModels[d]->GetLinkDownDrops();
        counters.reordered = m_faultModels[d]->GetReordered();
        counters.duplicated = m_faultModels[d]->GetDuplicated();
    }
    return counters;
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
    const uint32_t n = m_topology.GetNCities();
    for (uint32_t r = 0; r < m_rounds; ++r)
    {
        bool ok = true;
        for (uint32_t i = 0; i < n && ok; ++i)
        {
            ok = m_status[r][i] == CRASHED || (m_status[r][i] == COMPLETED && m_verified[r][i]);
        }
        const CliqueSchedule::Round& round = m_schedule.GetRound(r % m_schedule.GetNRounds());
        for (uint32_t c = 0; c < round.size() && ok; ++c)
        {
            ok = IsCliqueConsistent(r, c);
        }
        verified += ok ? 1 : 0;
    }
    return m_maxRelError <= VERIFY_TOLERANCE ? verified : 0;
}

TrainingResults::RoundStatus
TrainingResults::GetRoundStatus(uint32_t round, uint32_t island) const
{
    return m_status.at(round).at(island);
}

uint64_t
TrainingResults::GetContributors(uint32_t round, uint32_t island) const
{
    return m_contributors.at(round).at(island);
}

bool
TrainingResults::IsMemberVerified(uint32_t round, uint32_t island) const
{
    return m_verified.at(round).at(island);
}

bool
TrainingResults::IsCliqueConsistent(uint32_t round, uint32_t clique) const
{
    const CliqueSchedule::Clique& members =
        m_schedule.GetRound(round % m_schedule.GetNRounds()).at(clique);
    uint64_t cliqueBits = 0;
    for (uint32_t member : members)
    {
        cliqueBits |= uint64_t{1} << member;
    }
    for (uint32_t member : members)
    {
        if (m_status[round][member] != COMPLETED)
        {
            continue;
        }
        const uint64_t set = m_contributors[round][member];
        if (!(set & (uint64_t{1} << member)) || (set & ~cliqueBits) != 0)
        {
            return false;
        }
        // Two members that averaged each other's contributions averaged the same ones.
        for (uint32_t other : members)
        {
            if (other != member && (set & (uint64_t{1} << other)) &&
                m_status[round][other] == COMPLETED &&
                (m_contributors[round][other] & (uint64_t{1} << member)) &&
                m_contributors[round][other] != set)
            {
                return false;
            }
        }
    }
    return true;
}

bool
TrainingResults::IsCliqueSymmetric(uint32_t round, uint32_t clique) const
{
    const CliqueSchedule::Clique& members =
        m_schedule.GetRound(round % m_schedule.GetNRounds()).at(clique);
    for (uint32_t member : members)
    {
        for (uint32_t other : members)
        {
            if (other != member && m_status[round][member] == COMPLETED &&
                m_status[round][other] == COMPLETED &&
                (m_contributors[round][member] & (uint64_t{1} << other)) &&
                !(m_contributors[round][other] & (uint64_t{1} << member)))
            {
                return false;
            }
        }
    }
    return true;
}

std::string
TrainingResults::GetReason(uint32_t round, uint32_t island) const
{
    auto it = m_reasons.find({round, island});
    return it == m_reasons.end() ? "" : it->second;
}

bool
TrainingResults::WasPartitioned() const
{
    return std::any_of(m_routeChanges.begin(), m_routeChanges.end(), [](const RouteChange& c) {
        return c.components.size() > 1;
    });
}

bool
TrainingResults::WasStoppedByTimeLimit() const
{
    return m_stoppedByTimeLimit;
}

void
TrainingResults::SetFaultPlanJson(const std::string& json)
{
    NS_ABORT_MSG_UNLESS(nlohmann::json::parse(json, nullptr, false).is_object(),
                        "TrainingResults::SetFaultPlanJson: not a JSON object");
    m_faultPlanJson = json;
}

void
TrainingResults::RecordRouteChange(const std::vector<uint32_t>& downLinks,
                                   const std::vector<std::vector<uint32_t>>& components)
{
    m_routeChanges.push_back({Simulator::Now().GetSeconds(), downLinks, components});
}

void
TrainingResults::Finish(double timeLimitS, bool stoppedByTimeLimit)
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
            if (m_status[r][i] == PENDING)
            {
                m_reasons[{r, i}] = why.str() + "; " + m_topology.GetCity(i).id + ": " + state;
            }
        }
    }
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
    for (const auto& round : m_status)
    {
        for (RoundStatus status : round)
        {
            if (status != COMPLETED && status != CRASHED)
            {
                return false;
            }
        }
    }
    return true;
}

double
TrainingResults::GetTrainingTimeS() const
{
    double lastEnd = 0;
    for (const auto& ends : m_endS)
    {
        for (double t : ends)
        {
            lastEnd = std::max(lastEnd, t);
        }
    }
    return lastEnd;
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
    auto ids = [this](uint64_t bits) {
        json list = json::array();
        for (uint32_t i = 0; i < m_topology.GetNCities(); ++i)
        {
            if (bits & (uint64_t{1} << i))
            {
                list.push_back(m_topology.GetCity(i).id);
            }
        }
        return list;
    };
    static const char* const statusNames[] = {"unfinished", "completed", "abandoned", "crashed"};
    json rounds = json::array();
    for (uint32_t r = 0; r < m_rounds; ++r)
    {
        const CliqueSchedule::Round& round = m_schedule.GetRound(r % m_schedule.GetNRounds());
        double start = -1;
        double end = -1;
        bool complete = true;
        bool verified = true;
        json unfinished = json::array();
        for (uint32_t i = 0; i < n; ++i)
        {
            if (m_startS[r][i] >= 0 && (start < 0 || m_startS[r][i] < start))
            {
                start = m_startS[r][i];
            }
            end = std::max(end, m_endS[r][i]);
            const RoundStatus status = m_status[r][i];
            complete = complete && (status == COMPLETED || status == CRASHED);
            verified = verified && (status == CRASHED || (status == COMPLETED && m_verified[r][i]));
            if (status == PENDING || status == ABANDONED ||
                (status == COMPLETED && !m_verified[r][i]))
            {
                std::string reason = GetReason(r, i);
                if (status == COMPLETED)
                {
                    reason = reason.empty() ? "the average differs from the shadow average over "
                                              "its contributors"
                                            : reason;
                }
                unfinished.push_back({{"island", m_topology.GetCity(i).id},
                                      {"status", statusNames[status]},
                                      {"reason", reason}});
            }
        }
        json cliques = json::array();
        double comm = 0;
        for (uint32_t c = 0; c < round.size(); ++c)
        {
            json members = json::array();
            json status = json::object();
            json contributors = json::object();
            json groups = json::array();
            std::vector<uint64_t> seen;
            double exchangeStart = -1;
            double cliqueEnd = -1;
            bool cliqueComplete = true;
            bool anyCompleted = false;
            for (uint32_t member : round[c])
            {
                const std::string& id = m_topology.GetCity(member).id;
                members.push_back(id);
                status[id] = statusNames[m_status[r][member]];
                if (m_status[r][member] == COMPLETED)
                {
                    anyCompleted = true;
                    exchangeStart = std::max(exchangeStart, m_exchangeS[r][member]);
                    cliqueEnd = std::max(cliqueEnd, m_endS[r][member]);
                    const uint64_t set = m_contributors[r][member];
                    contributors[id] = ids(set);
                    if (std::find(seen.begin(), seen.end(), set) == seen.end())
                    {
                        seen.push_back(set);
                        groups.push_back(ids(set));
                    }
                }
                cliqueComplete = cliqueComplete && (m_status[r][member] == COMPLETED ||
                                                    m_status[r][member] == CRASHED);
            }
            cliqueComplete = cliqueComplete && anyCompleted;
            double cliqueComm = cliqueComplete ? cliqueEnd - exchangeStart : -1;
            if (cliqueComplete && round[c].size() >= 2)
            {
                comm = std::max(comm, cliqueComm);
            }
            const bool consistent = IsCliqueConsistent(r, c);
            json cliqueJson = {
                {"clique", c},
                {"members", members},
                {"exchange_start_s", TimeOrNull(cliqueComplete ? exchangeStart : -1)},
                {"end_s", TimeOrNull(cliqueComplete ? cliqueEnd : -1)},
                {"comm_s", TimeOrNull(cliqueComm)},
                {"status", status},
                {"contributors", contributors},
                {"groups", groups},
                {"consistent", consistent},
                {"symmetric", IsCliqueSymmetric(r, c)}};
            if (!consistent)
            {
                complete = false;
                unfinished.push_back(
                    {{"clique", c},
                     {"status", "inconsistent"},
                     {"reason",
                      "members that averaged each other's contributions averaged over different "
                      "contributor sets (a fault cut the exchange while it ran): " +
                          contributors.dump()}});
            }
            cliques.push_back(cliqueJson);
        }
        json exclusions = json::array();
        for (const Exclusion& e : m_exclusions)
        {
            if (e.round == r)
            {
                exclusions.push_back({{"island", m_topology.GetCity(e.island).id},
                                      {"member", m_topology.GetCity(e.member).id},
                                      {"reason", e.reason},
                                      {"t_s", e.timeS}});
            }
        }
        ScheduleMetrics::RoundCost cost = metrics.GetRoundCost(round, m_apps.front()->GetMode());
        rounds.push_back({{"round", r},
                          {"schedule_round", r % m_schedule.GetNRounds()},
                          {"start_s", TimeOrNull(start)},
                          {"end_s", TimeOrNull(complete ? end : -1)},
                          {"comm_s", TimeOrNull(complete ? comm : -1)},
                          {"predicted_comm_s", cost.commS},
                          {"complete", complete},
                          {"verified", complete && verified},
                          {"unfinished", unfinished},
                          {"exclusions", exclusions},
                          {"cliques", cliques}});
    }
    doc["rounds"] = rounds;

    json links = json::object();
    for (uint32_t d = 0; d < m_topology.GetNDirectedLinks(); ++d)
    {
        const LinkCounters& c = GetLinkCounters(d);
        links[m_topology.GetDirectedLinkName(d)] = {{"packets", c.packets},
                                                    {"bytes", c.bytes},
                                                    {"model_bytes", c.modelBytes},
                                                    {"model_streams", c.modelBytes / modelBytes},
                                                    {"data_packets", c.dataPackets},
                                                    {"aggregate_packets", c.aggregatePackets},
                                                    {"error_drops", c.errorDrops},
                                                    {"queue_drops", c.queueDrops},
                                                    {"link_down_drops", c.linkDownDrops},
                                                    {"reordered", c.reordered},
                                                    {"duplicated", c.duplicated}};
    }
    doc["links"] = links;
    doc["links_definition"] =
        "per directed link, what its transmitting device sent: packets and bytes on the wire "
        "(PPP header included); model_bytes = values and padding of DATA and AGGREGATE chunks "
        "(repairs included); model_streams = model_bytes / model_bytes per contribution, "
        "summed over all rounds; data_packets and aggregate_packets count those chunks; "
        "error_drops = packets lost to random loss at the receiving end, link_down_drops = "
        "packets lost because the link was down, reordered and duplicated = packets delivered "
        "late (after later ones) or twice (doc/fault-injection.rst)";

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
            {"rounds_abandoned", m_apps[i]->GetAbandonedRounds()},
            {"exclusions", m_apps[i]->GetExclusions()},
            {"crashed", m_apps[i]->HasCrashed()},
            {"failure",
             m_apps[i]->GetFailure().empty() ? json(nullptr) : json(m_apps[i]->GetFailure())}};
    }
    doc["islands"] = islands;

    uint32_t roundsComplete = 0;
    for (uint32_t r = 0; r < m_rounds; ++r)
    {
        roundsComplete += std::all_of(m_status[r].begin(),
                                      m_status[r].end(),
                                      [](RoundStatus s) { return s == COMPLETED || s == CRASHED; })
                              ? 1
                              : 0;
    }
    doc["verification"] = {{"rounds_verified", GetRoundsVerified()},
                           {"rounds_complete", roundsComplete},
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
    uint64_t linkDownDrops = 0;
    uint64_t reordered = 0;
    uint64_t duplicated = 0;
    for (const auto& c : m_links)
    {
        linkDownDrops += c.linkDownDrops;
        reordered += c.reordered;
        duplicated += c.duplicated;
    }
    uint32_t abandoned = 0;
    uint32_t crashed = 0;
    for (const auto& app : m_apps)
    {
        abandoned += app->GetAbandonedRounds();
        crashed += app->HasCrashed() ? 1 : 0;
    }
    json routeChanges = json::array();
    for (const RouteChange& change : m_routeChanges)
    {
        json down = json::array();
        for (uint32_t link : change.downLinks)
        {
            const WanLink& l = m_topology.GetLink(link);
            down.push_back(m_topology.GetCity(l.a).id + "-" + m_topology.GetCity(l.b).id);
        }
        json components = json::array();
        for (const auto& component : change.components)
        {
            json cities = json::array();
            for (uint32_t city : component)
            {
                cities.push_back(m_topology.GetCity(city).id);
            }
            components.push_back(cities);
        }
        routeChanges.push_back({{"t_s", change.timeS},
                                {"links_down", down},
                                {"components", components},
                                {"partitioned", change.components.size() > 1}});
    }
    doc["faults"] = {{"plan", json::parse(m_faultPlanJson)},
                     {"route_changes", routeChanges},
                     {"partitioned", WasPartitioned()},
                     {"exclusions", m_exclusions.size()},
                     {"rounds_abandoned", abandoned},
                     {"crashed_islands", crashed},
                     {"time_limit_s", m_timeLimitS},
                     {"stopped_by_time_limit", m_stoppedByTimeLimit}};
    doc["summary"] = {{"complete", IsComplete()},
                      {"rounds_complete", roundsComplete},
                      {"rounds_abandoned", abandoned},
                      {"crashed_islands", crashed},
                      {"exclusions", m_exclusions.size()},
                      {"partitioned", WasPartitioned()},
                      {"stopped_by_time_limit", m_stoppedByTimeLimit},
                      {"link_down_drops", linkDownDrops},
                      {"reordered", reordered},
                      {"duplicated", duplicated},
                      {"failed_islands", failed},
                      {"training_time_s", GetTrainingTimeS()},
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
