/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "training-results-writer.h"

#include "aggregator-net-device.h"
#include "clique-average-verifier.h"
#include "colocated-reference.h"
#include "schedule-metrics.h"
#include "training-island-application.h"
#include "training-loss-sampler.h"
#include "training-recorder.h"
#include "wan-input-error.h"

#include "ns3/abort.h"
#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/nstime.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <fstream>
#include <nlohmann/json.hpp>
#include <vector>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("WanTrainingTrainingResultsWriter");

namespace
{

using nlohmann::json;

/** The names of TrainingRecorder::RoundStatus in the results. */
const char* const STATUS_NAMES[] = {"unfinished", "completed", "abandoned", "crashed"};

/**
 * @param value a time in seconds, or a negative number for "never"
 * @return the JSON value (null for never)
 */
json
TimeOrNull(double value)
{
    return value < 0 ? json(nullptr) : json(value);
}

/** The time settings of a run's islands. */
struct ComputeSettings
{
    uint64_t localSteps{0}; //!< LocalSteps
    double learningRate{0}; //!< LearningRate
    double computeS{0};     //!< LocalSteps x StepTime
    double modelBytes{0};   //!< ModelBytes
};

/**
 * @param app an island
 * @return its settings
 */
ComputeSettings
GetComputeSettings(Ptr<TrainingIslandApplication> app)
{
    UintegerValue localSteps;
    app->GetAttribute("LocalSteps", localSteps);
    TimeValue stepTime;
    app->GetAttribute("StepTime", stepTime);
    DoubleValue learningRate;
    app->GetAttribute("LearningRate", learningRate);
    ComputeSettings settings;
    settings.localSteps = localSteps.Get();
    settings.learningRate = learningRate.Get();
    settings.computeS = localSteps.Get() * stepTime.Get().GetSeconds();
    settings.modelBytes = static_cast<double>(app->GetModelBytes());
    return settings;
}

} // namespace

TrainingResultsWriter::TrainingResultsWriter(const TrainingRecorder& recorder,
                                             const CliqueAverageVerifier& verifier,
                                             const ColocatedReference& reference,
                                             const TrainingLossSampler& sampler)
    : m_recorder(recorder),
      m_verifier(verifier),
      m_reference(reference),
      m_sampler(sampler)
{
}

void
TrainingResultsWriter::SetConfigJson(const std::string& text)
{
    NS_ABORT_MSG_UNLESS(json::parse(text, nullptr, false).is_object(),
                        "TrainingResultsWriter::SetConfigJson: not a JSON object");
    m_configJson = text;
}

void
TrainingResultsWriter::SetFaultPlanJson(const std::string& text)
{
    NS_ABORT_MSG_UNLESS(json::parse(text, nullptr, false).is_object(),
                        "TrainingResultsWriter::SetFaultPlanJson: not a JSON object");
    m_faultPlanJson = text;
}

std::string
TrainingResultsWriter::ToJson() const
{
    const TrainingRunSummary::Summary totals = GetTotals();
    json doc;
    doc["config"] = json::parse(m_configJson);
    doc["rounds"] = GetRounds();
    doc["links"] = GetLinks();
    doc["links_definition"] =
        "per directed link, what its transmitting device sent: packets and bytes on the wire "
        "(PPP header included); wire_frames = the frames of the wire MTU those packets stand for "
        "(more than packets with coarse frames: config.frame_bytes > 0); model_bytes = values "
        "and padding of DATA and AGGREGATE chunks, without the headers of coarse frames' other "
        "wire frames (repairs included); model_streams = model_bytes / model_bytes per "
        "contribution, "
        "summed over all rounds; data_packets and aggregate_packets count those chunks; "
        "error_drops = packets lost to random loss at the receiving end, link_down_drops = "
        "packets lost because the link was down, reordered and duplicated = packets delivered "
        "late (after later ones) or twice (doc/fault-injection.rst)";
    doc["fpga"] = GetFpgas();
    doc["islands"] = GetIslands();
    doc["verification"] = GetVerification(totals);
    AddCurves(doc);
    doc["colocated"] = GetColocated();
    doc["faults"] = GetFaults(totals);
    doc["summary"] = GetSummary(totals);
    return doc.dump(2);
}

void
TrainingResultsWriter::WriteFile(const std::string& path) const
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

TrainingRunSummary::Summary
TrainingResultsWriter::GetTotals() const
{
    const WanTopology& topology = m_recorder.GetTopology();
    TrainingRunSummary::Summary t;
    for (uint32_t i = 0; i < topology.GetNCities(); ++i)
    {
        Ptr<TrainingIslandApplication> app = m_recorder.GetApplication(i);
        t.repairs += m_recorder.GetIslandCounters(i).repairs;
        t.failedIslands += app->GetFailure().empty() ? 0 : 1;
        t.roundsAbandoned += app->GetAbandonedRounds();
        t.crashedIslands += app->HasCrashed() ? 1 : 0;
        for (const TrainingRecorder::FpgaPort& port : m_recorder.GetFpgaPorts(i))
        {
            t.fpgaAggregates += port.device->GetAggregatesOut();
            t.fpgaPartialAggregates += port.device->GetTimeouts();
            t.fpgaKnownLostReleases += port.device->GetKnownLostReleases();
            t.fpgaShadowServes += port.device->GetShadowServes();
            t.fpgaPassThroughs += port.device->GetPassThroughs();
        }
    }
    for (uint32_t d = 0; d < topology.GetNDirectedLinks(); ++d)
    {
        const TrainingRecorder::LinkCounters& c = m_recorder.GetLinkCounters(d);
        t.errorDrops += c.errorDrops;
        t.queueDrops += c.queueDrops;
        t.linkDownDrops += c.linkDownDrops;
        t.reordered += c.reordered;
        t.duplicated += c.duplicated;
    }
    for (uint32_t r = 0; r < m_recorder.GetNRounds(); ++r)
    {
        t.roundsComplete += m_recorder.IsRoundComplete(r) ? 1 : 0;
    }
    t.complete = m_recorder.IsComplete();
    t.exclusions = m_recorder.GetExclusions().size();
    t.partitioned = m_recorder.WasPartitioned();
    t.stoppedByTimeLimit = m_recorder.WasStoppedByTimeLimit();
    t.trainingTimeS = m_recorder.GetTrainingTimeS();
    t.finalLoss = m_sampler.GetSamples().back().loss;
    t.finalConsensus = m_sampler.GetSamples().back().consensus;
    return t;
}

json
TrainingResultsWriter::GetCityIds(uint64_t bits) const
{
    const WanTopology& topology = m_recorder.GetTopology();
    json list = json::array();
    for (uint32_t i = 0; i < topology.GetNCities(); ++i)
    {
        if (bits & (uint64_t{1} << i))
        {
            list.push_back(topology.GetCity(i).id);
        }
    }
    return list;
}

json
TrainingResultsWriter::GetRounds() const
{
    const ComputeSettings compute = GetComputeSettings(m_recorder.GetApplication(0));
    ScheduleMetrics::Settings settings;
    settings.modelBytes = compute.modelBytes;
    settings.computeS = compute.computeS;
    ScheduleMetrics metrics(m_recorder.GetTopology(), settings);
    json rounds = json::array();
    for (uint32_t r = 0; r < m_recorder.GetNRounds(); ++r)
    {
        rounds.push_back(GetRound(r, metrics));
    }
    return rounds;
}

json
TrainingResultsWriter::GetRound(uint32_t r, const ScheduleMetrics& metrics) const
{
    const CliqueSchedule& schedule = m_recorder.GetSchedule();
    const CliqueSchedule::Round& round = schedule.GetRound(r % schedule.GetNRounds());
    double start = -1;
    double end = -1;
    for (uint32_t i = 0; i < m_recorder.GetTopology().GetNCities(); ++i)
    {
        const TrainingRecorder::IslandRound& record = m_recorder.GetIslandRound(r, i);
        if (record.startS >= 0 && (start < 0 || record.startS < start))
        {
            start = record.startS;
        }
        end = std::max(end, record.endS);
    }
    bool complete = m_recorder.IsRoundComplete(r);
    json unfinished = GetUnfinishedIslands(r);
    // The schedule model's time of the round and of each clique, by the algorithms run.
    std::vector<CapabilityMode> algorithms;
    for (uint32_t c = 0; c < round.size(); ++c)
    {
        algorithms.push_back(GetAlgorithm(r, c).value_or(CapabilityMode::UNICAST));
    }
    const ScheduleMetrics::RoundCost cost = metrics.GetRoundCost(round, algorithms);
    json cliques = json::array();
    double comm = 0;
    for (uint32_t c = 0; c < round.size(); ++c)
    {
        cliques.push_back(GetClique(r, c, comm));
        cliques.back()["predicted_comm_s"] = cost.cliqueCommS[c];
        if (!m_verifier.IsCliqueConsistent(r, c))
        {
            complete = false;
            unfinished.push_back(
                {{"clique", c},
                 {"status", "inconsistent"},
                 {"reason",
                  "members that averaged each other's contributions averaged over different "
                  "contributor sets (a fault cut the exchange while it ran): " +
                      GetCliqueContributors(r, c).dump()}});
        }
    }
    return {{"round", r},
            {"schedule_round", r % schedule.GetNRounds()},
            {"start_s", TimeOrNull(start)},
            {"end_s", TimeOrNull(complete ? end : -1)},
            {"comm_s", TimeOrNull(complete ? comm : -1)},
            {"predicted_comm_s", cost.commS},
            {"complete", complete},
            {"verified", complete && m_verifier.AreMembersVerified(r)},
            {"format_error",
             {{"max_abs", m_verifier.GetFormatError(r).maxAbs},
              {"max_rel", m_verifier.GetFormatError(r).GetRelative()}}},
            {"unfinished", unfinished},
            {"exclusions", GetRoundExclusions(r)},
            {"cliques", cliques}};
}

json
TrainingResultsWriter::GetUnfinishedIslands(uint32_t r) const
{
    json unfinished = json::array();
    for (uint32_t i = 0; i < m_recorder.GetTopology().GetNCities(); ++i)
    {
        const TrainingRecorder::RoundStatus status = m_recorder.GetRoundStatus(r, i);
        const bool verified = m_verifier.IsMemberVerified(r, i);
        if (status == TrainingRecorder::PENDING || status == TrainingRecorder::ABANDONED ||
            (status == TrainingRecorder::COMPLETED && !verified))
        {
            std::string reason = m_recorder.GetReason(r, i);
            if (status == TrainingRecorder::COMPLETED && reason.empty())
            {
                reason = "the average differs from the shadow average over its contributors";
            }
            unfinished.push_back({{"island", m_recorder.GetTopology().GetCity(i).id},
                                  {"status", STATUS_NAMES[status]},
                                  {"reason", reason}});
        }
    }
    return unfinished;
}

bool
TrainingResultsWriter::GetCliqueSpan(uint32_t r,
                                     uint32_t c,
                                     double& exchangeStartS,
                                     double& endS) const
{
    const CliqueSchedule& schedule = m_recorder.GetSchedule();
    exchangeStartS = -1;
    endS = -1;
    bool complete = true;
    bool anyCompleted = false;
    for (uint32_t member : schedule.GetRound(r % schedule.GetNRounds())[c])
    {
        const TrainingRecorder::IslandRound& record = m_recorder.GetIslandRound(r, member);
        if (record.status == TrainingRecorder::COMPLETED)
        {
            anyCompleted = true;
            exchangeStartS = std::max(exchangeStartS, record.exchangeStartS);
            endS = std::max(endS, record.endS);
        }
        complete = complete && (record.status == TrainingRecorder::COMPLETED ||
                                record.status == TrainingRecorder::CRASHED);
    }
    return complete && anyCompleted;
}

json
TrainingResultsWriter::GetCliqueContributors(uint32_t r, uint32_t c) const
{
    const CliqueSchedule& schedule = m_recorder.GetSchedule();
    json contributors = json::object();
    for (uint32_t member : schedule.GetRound(r % schedule.GetNRounds())[c])
    {
        if (m_recorder.GetRoundStatus(r, member) == TrainingRecorder::COMPLETED)
        {
            contributors[m_recorder.GetTopology().GetCity(member).id] =
                GetCityIds(m_recorder.GetContributors(r, member));
        }
    }
    return contributors;
}

json
TrainingResultsWriter::GetCliqueGroups(uint32_t r, uint32_t c) const
{
    const CliqueSchedule& schedule = m_recorder.GetSchedule();
    json groups = json::array();
    std::vector<uint64_t> seen;
    for (uint32_t member : schedule.GetRound(r % schedule.GetNRounds())[c])
    {
        const uint64_t set = m_recorder.GetContributors(r, member);
        if (m_recorder.GetRoundStatus(r, member) == TrainingRecorder::COMPLETED &&
            std::find(seen.begin(), seen.end(), set) == seen.end())
        {
            seen.push_back(set);
            groups.push_back(GetCityIds(set));
        }
    }
    return groups;
}

json
TrainingResultsWriter::GetClique(uint32_t r, uint32_t c, double& commS) const
{
    const CliqueSchedule& schedule = m_recorder.GetSchedule();
    const CliqueSchedule::Clique& clique = schedule.GetRound(r % schedule.GetNRounds())[c];
    json members = json::array();
    json status = json::object();
    for (uint32_t member : clique)
    {
        const std::string& id = m_recorder.GetTopology().GetCity(member).id;
        members.push_back(id);
        status[id] = STATUS_NAMES[m_recorder.GetRoundStatus(r, member)];
    }
    double exchangeStart = -1;
    double end = -1;
    const bool complete = GetCliqueSpan(r, c, exchangeStart, end);
    const double cliqueComm = complete ? end - exchangeStart : -1;
    if (complete && clique.size() >= 2)
    {
        commS = std::max(commS, cliqueComm);
    }
    const std::optional<CapabilityMode> algorithm = GetAlgorithm(r, c);
    return {{"clique", c},
            {"members", members},
            {"algorithm", algorithm ? json(CapabilityModeToString(*algorithm)) : json(nullptr)},
            {"exchange_start_s", TimeOrNull(complete ? exchangeStart : -1)},
            {"end_s", TimeOrNull(complete ? end : -1)},
            {"comm_s", TimeOrNull(cliqueComm)},
            {"status", status},
            {"contributors", GetCliqueContributors(r, c)},
            {"groups", GetCliqueGroups(r, c)},
            {"consistent", m_verifier.IsCliqueConsistent(r, c)},
            {"symmetric", m_verifier.IsCliqueSymmetric(r, c)}};
}

std::optional<CapabilityMode>
TrainingResultsWriter::GetAlgorithm(uint32_t r, uint32_t c) const
{
    const CliqueSchedule& schedule = m_recorder.GetSchedule();
    const uint32_t sr = r % schedule.GetNRounds();
    const CliqueSchedule::Clique& clique = schedule.GetRound(sr)[c];
    if (clique.size() < 2)
    {
        return std::nullopt;
    }
    return schedule.GetAlgorithmOf(sr,
                                   clique.front(),
                                   m_recorder.GetApplication(clique.front())->GetMode());
}

json
TrainingResultsWriter::GetRoundExclusions(uint32_t r) const
{
    const WanTopology& topology = m_recorder.GetTopology();
    json exclusions = json::array();
    for (const TrainingRecorder::Exclusion& e : m_recorder.GetExclusions())
    {
        if (e.round == r)
        {
            exclusions.push_back({{"island", topology.GetCity(e.island).id},
                                  {"member", topology.GetCity(e.member).id},
                                  {"reason", e.reason},
                                  {"t_s", e.timeS}});
        }
    }
    return exclusions;
}

json
TrainingResultsWriter::GetLinks() const
{
    const WanTopology& topology = m_recorder.GetTopology();
    const double modelBytes = GetComputeSettings(m_recorder.GetApplication(0)).modelBytes;
    json links = json::object();
    for (uint32_t d = 0; d < topology.GetNDirectedLinks(); ++d)
    {
        const TrainingRecorder::LinkCounters& c = m_recorder.GetLinkCounters(d);
        links[topology.GetDirectedLinkName(d)] = {{"packets", c.packets},
                                                  {"wire_frames", c.wireFrames},
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
    return links;
}

json
TrainingResultsWriter::GetFpgas() const
{
    // The counters of one port, and of a router as the sums (maxima) over its ports.
    auto counters = [](const std::vector<Ptr<AggregatorNetDevice>>& devices) {
        json reasons = json::object();
        for (uint32_t k = 0; k < AggregatorNetDevice::N_PASS_REASONS; ++k)
        {
            auto reason = static_cast<AggregatorNetDevice::PassReason>(k);
            uint64_t count = 0;
            for (Ptr<AggregatorNetDevice> device : devices)
            {
                count += device->GetPassThroughs(reason);
            }
            reasons[AggregatorNetDevice::PassReasonToString(reason)] = count;
        }
        uint64_t in = 0;
        uint64_t summed = 0;
        uint64_t duplicates = 0;
        uint64_t out = 0;
        uint64_t timeouts = 0;
        uint64_t knownLost = 0;
        uint64_t shadowServes = 0;
        uint64_t slotsOpened = 0;
        double slotWaitSumS = 0;
        uint64_t passed = 0;
        uint32_t outbox = 0;
        for (Ptr<AggregatorNetDevice> device : devices)
        {
            in += device->GetContributionsIn();
            summed += device->GetContributionsSummed();
            duplicates += device->GetDuplicates();
            out += device->GetAggregatesOut();
            timeouts += device->GetTimeouts();
            knownLost += device->GetKnownLostReleases();
            shadowServes += device->GetShadowServes();
            slotsOpened += device->GetSlotsOpened();
            slotWaitSumS += device->GetMeanSlotWait().GetSeconds() * device->GetSlotsOpened();
            passed += device->GetPassThroughs();
            outbox = std::max(outbox, device->GetOutboxHighWaterMark());
        }
        return json{{"contributions_in", in},
                    {"contributions_summed", summed},
                    {"duplicates", duplicates},
                    {"aggregates_out", out},
                    {"timeouts", timeouts},
                    {"known_lost_releases", knownLost},
                    {"shadow_serves", shadowServes},
                    {"slots_opened", slotsOpened},
                    {"mean_slot_wait_s",
                     slotsOpened == 0 ? 0.0 : slotWaitSumS / static_cast<double>(slotsOpened)},
                    {"pass_throughs", passed},
                    {"pass_throughs_by_reason", reasons},
                    {"outbox_high_water_mark", outbox}};
    };
    json fpga = json::object();
    for (uint32_t i = 0; i < m_recorder.GetTopology().GetNCities(); ++i)
    {
        Ptr<InlineFpga> router = m_recorder.GetFpga(i);
        if (!router)
        {
            continue;
        }
        std::vector<Ptr<AggregatorNetDevice>> devices;
        json ports = json::object();
        for (const TrainingRecorder::FpgaPort& port : m_recorder.GetFpgaPorts(i))
        {
            devices.push_back(port.device);
            ports[port.link] = counters({port.device});
            ports[port.link]["slot_high_water_mark"] = port.device->GetSlotHighWaterMark();
        }
        json entry = counters(devices);
        entry["slot_count"] = router->GetSlotCount();
        entry["slot_high_water_mark"] = router->GetSlotHighWaterMark();
        entry["ports"] = ports;
        fpga[m_recorder.GetTopology().GetCity(i).id] = entry;
    }
    return fpga;
}

json
TrainingResultsWriter::GetIslands() const
{
    json islands = json::object();
    for (uint32_t i = 0; i < m_recorder.GetTopology().GetNCities(); ++i)
    {
        const TrainingRecorder::IslandCounters& c = m_recorder.GetIslandCounters(i);
        Ptr<TrainingIslandApplication> app = m_recorder.GetApplication(i);
        islands[m_recorder.GetTopology().GetCity(i).id] = {
            {"egress_model_bytes", c.egressModelBytes},
            {"ingress_model_bytes", c.ingressModelBytes},
            {"chunks_sent", c.chunksSent},
            {"repairs", c.repairs},
            {"nacks_sent", c.nacksSent},
            {"chunks_requested", c.chunksRequested},
            {"repaired_chunks", c.repairedChunks},
            {"repair_wait_mean_s",
             c.repairedChunks > 0 ? json(c.repairWaitSumS / c.repairedChunks) : json(nullptr)},
            {"repair_wait_max_s", c.repairedChunks > 0 ? json(c.repairWaitMaxS) : json(nullptr)},
            {"duplicate_chunks", c.duplicates},
            {"parities_sent", c.paritiesSent},
            {"chunks_rebuilt", c.chunksRebuilt},
            {"rounds_completed", c.roundsCompleted},
            {"rounds_abandoned", app->GetAbandonedRounds()},
            {"exclusions", app->GetExclusions()},
            {"crashed", app->HasCrashed()},
            {"failure", app->GetFailure().empty() ? json(nullptr) : json(app->GetFailure())}};
    }
    return islands;
}

json
TrainingResultsWriter::GetVerification(const TrainingRunSummary::Summary& totals) const
{
    const uint32_t rounds = m_recorder.GetNRounds();
    return {{"rounds_verified", m_verifier.GetRoundsVerified()},
            {"rounds_complete", totals.roundsComplete},
            {"rounds", rounds},
            {"member_checks", m_verifier.GetChecks()},
            {"max_abs_error", m_verifier.GetMaxAbsError()},
            {"max_rel_error", m_verifier.GetMaxRelError()},
            {"max_error_over_bound", m_verifier.GetMaxErrorOverBound()},
            {"tolerance_rel", CliqueAverageVerifier::VERIFY_TOLERANCE},
            {"format_error",
             {{"max_abs", m_verifier.GetMaxFormatAbsError()},
              {"max_rel", m_verifier.GetMaxFormatRelError()}}},
            {"passed", m_recorder.IsComplete() && m_verifier.GetRoundsVerified() == rounds}};
}

void
TrainingResultsWriter::AddCurves(json& doc) const
{
    json consensus = json::array();
    json loss = json::array();
    for (const TrainingLossSampler::Sample& s : m_sampler.GetSamples())
    {
        consensus.push_back({{"t_s", s.timeS}, {"value", s.consensus}});
        loss.push_back({{"t_s", s.timeS}, {"value", s.loss}, {"island_mean", s.islandMeanLoss}});
    }
    doc["consensus"] = consensus;
    doc["loss"] = loss;
    doc["loss_definition"] = "value = F(mean of the island models) - F(x*), island_mean = mean "
                             "over islands of F(x_i) - F(x*), F = mean of the islands' "
                             "objectives; consensus = mean over islands of ||x_i - mean||^2";
    doc["optimal_loss"] = m_reference.GetOptimalLoss();
}

json
TrainingResultsWriter::GetColocated() const
{
    const ComputeSettings compute = GetComputeSettings(m_recorder.GetApplication(0));
    json colocated = json::array();
    for (const ColocatedReference::Point& p : m_reference.GetCurve(m_recorder.GetNRounds(),
                                                                   compute.localSteps,
                                                                   compute.learningRate,
                                                                   compute.computeS))
    {
        colocated.push_back({{"round", p.round}, {"t_s", p.timeS}, {"value", p.loss}});
    }
    return {{"description",
             "all islands average exactly after every round's local steps, at zero "
             "communication cost"},
            {"loss", colocated}};
}

json
TrainingResultsWriter::GetRouteChanges() const
{
    const WanTopology& topology = m_recorder.GetTopology();
    json routeChanges = json::array();
    for (const TrainingRecorder::RouteChange& change : m_recorder.GetRouteChanges())
    {
        json down = json::array();
        for (uint32_t link : change.downLinks)
        {
            const WanLink& l = topology.GetLink(link);
            down.push_back(topology.GetCity(l.a).id + "-" + topology.GetCity(l.b).id);
        }
        json components = json::array();
        for (const auto& component : change.components)
        {
            json cities = json::array();
            for (uint32_t city : component)
            {
                cities.push_back(topology.GetCity(city).id);
            }
            components.push_back(cities);
        }
        routeChanges.push_back({{"t_s", change.timeS},
                                {"links_down", down},
                                {"components", components},
                                {"partitioned", change.components.size() > 1}});
    }
    return routeChanges;
}

json
TrainingResultsWriter::GetFaults(const TrainingRunSummary::Summary& totals) const
{
    return {{"plan", json::parse(m_faultPlanJson)},
            {"route_changes", GetRouteChanges()},
            {"partitioned", totals.partitioned},
            {"exclusions", totals.exclusions},
            {"rounds_abandoned", totals.roundsAbandoned},
            {"crashed_islands", totals.crashedIslands},
            {"time_limit_s", m_recorder.GetTimeLimitS()},
            {"stopped_by_time_limit", totals.stoppedByTimeLimit}};
}

json
TrainingResultsWriter::GetSummary(const TrainingRunSummary::Summary& totals) const
{
    return {{"complete", totals.complete},
            {"rounds_complete", totals.roundsComplete},
            {"rounds_abandoned", totals.roundsAbandoned},
            {"crashed_islands", totals.crashedIslands},
            {"exclusions", totals.exclusions},
            {"partitioned", totals.partitioned},
            {"stopped_by_time_limit", totals.stoppedByTimeLimit},
            {"link_down_drops", totals.linkDownDrops},
            {"reordered", totals.reordered},
            {"duplicated", totals.duplicated},
            {"failed_islands", totals.failedIslands},
            {"training_time_s", totals.trainingTimeS},
            {"repairs", totals.repairs},
            {"error_drops", totals.errorDrops},
            {"queue_drops", totals.queueDrops},
            {"fpga_aggregates", totals.fpgaAggregates},
            {"fpga_partial_aggregates", totals.fpgaPartialAggregates},
            {"fpga_known_lost_releases", totals.fpgaKnownLostReleases},
            {"fpga_shadow_serves", totals.fpgaShadowServes},
            {"fpga_pass_throughs", totals.fpgaPassThroughs},
            {"final_loss", totals.finalLoss},
            {"final_consensus", totals.finalConsensus}};
}

} // namespace ns3
