/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "training-results.h"

#include "training-island-application.h"

#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("WanTrainingTrainingResults");

TrainingResults::TrainingResults(const WanTopologyHelper& scenario,
                                 const CliqueSchedule& schedule,
                                 const ApplicationContainer& apps)
    : m_recorder(scenario, schedule, apps),
      m_reference(GetObjectives(m_recorder)),
      m_verifier(m_recorder),
      m_sampler(m_recorder, m_reference),
      m_writer(m_recorder, m_verifier, m_reference, m_sampler)
{
    m_recorder.SetCallbacks(MakeCallback(&TrainingResults::OnExchangeStarted, this),
                            MakeCallback(&TrainingResults::OnRoundFinished, this),
                            MakeCallback(&CliqueAverageVerifier::ReleaseShadow, &m_verifier));
}

std::vector<LocalObjective>
TrainingResults::GetObjectives(const TrainingRecorder& recorder)
{
    std::vector<LocalObjective> objectives;
    for (uint32_t i = 0; i < recorder.GetTopology().GetNCities(); ++i)
    {
        objectives.push_back(recorder.GetApplication(i)->GetObjective());
    }
    return objectives;
}

void
TrainingResults::OnExchangeStarted(uint32_t island,
                                   uint32_t round,
                                   uint32_t clique,
                                   const std::vector<float>& parameters)
{
    m_verifier.AddContribution(island, round, clique, parameters);
    m_sampler.TakeSample();
}

void
TrainingResults::OnRoundFinished(uint32_t island,
                                 uint32_t round,
                                 uint32_t clique,
                                 const std::vector<float>& parameters)
{
    const std::string unchecked = m_verifier.CheckAverage(island, round, clique, parameters);
    if (!unchecked.empty())
    {
        m_recorder.SetReason(round, island, unchecked);
    }
    m_sampler.TakeSample();
}

const TrainingRecorder&
TrainingResults::GetRecorder() const
{
    return m_recorder;
}

const CliqueAverageVerifier&
TrainingResults::GetVerifier() const
{
    return m_verifier;
}

const ColocatedReference&
TrainingResults::GetColocatedReference() const
{
    return m_reference;
}

const TrainingLossSampler&
TrainingResults::GetLossSampler() const
{
    return m_sampler;
}

const TrainingResultsWriter&
TrainingResults::GetWriter() const
{
    return m_writer;
}

void
TrainingResults::SetConfigJson(const std::string& json)
{
    m_writer.SetConfigJson(json);
}

void
TrainingResults::SetFaultPlanJson(const std::string& json)
{
    m_writer.SetFaultPlanJson(json);
}

const TrainingResults::LinkCounters&
TrainingResults::GetLinkCounters(uint32_t d) const
{
    return m_recorder.GetLinkCounters(d);
}

const TrainingResults::IslandCounters&
TrainingResults::GetIslandCounters(uint32_t city) const
{
    return m_recorder.GetIslandCounters(city);
}

uint32_t
TrainingResults::GetRoundsVerified() const
{
    return m_verifier.GetRoundsVerified();
}

TrainingResults::RoundStatus
TrainingResults::GetRoundStatus(uint32_t round, uint32_t island) const
{
    return m_recorder.GetRoundStatus(round, island);
}

uint64_t
TrainingResults::GetContributors(uint32_t round, uint32_t island) const
{
    return m_recorder.GetContributors(round, island);
}

bool
TrainingResults::IsMemberVerified(uint32_t round, uint32_t island) const
{
    return m_verifier.IsMemberVerified(round, island);
}

bool
TrainingResults::IsCliqueConsistent(uint32_t round, uint32_t clique) const
{
    return m_verifier.IsCliqueConsistent(round, clique);
}

bool
TrainingResults::IsCliqueSymmetric(uint32_t round, uint32_t clique) const
{
    return m_verifier.IsCliqueSymmetric(round, clique);
}

std::string
TrainingResults::GetReason(uint32_t round, uint32_t island) const
{
    return m_recorder.GetReason(round, island);
}

bool
TrainingResults::WasPartitioned() const
{
    return m_recorder.WasPartitioned();
}

bool
TrainingResults::WasStoppedByTimeLimit() const
{
    return m_recorder.WasStoppedByTimeLimit();
}

void
TrainingResults::RecordRouteChange(const std::vector<uint32_t>& downLinks,
                                   const std::vector<std::vector<uint32_t>>& components)
{
    m_recorder.RecordRouteChange(downLinks, components);
}

void
TrainingResults::Finish(double timeLimitS, bool stoppedByTimeLimit)
{
    m_recorder.Finish(timeLimitS, stoppedByTimeLimit);
}

uint64_t
TrainingResults::GetChecks() const
{
    return m_verifier.GetChecks();
}

double
TrainingResults::GetMaxAbsError() const
{
    return m_verifier.GetMaxAbsError();
}

double
TrainingResults::GetMaxRelError() const
{
    return m_verifier.GetMaxRelError();
}

const std::vector<TrainingResults::Sample>&
TrainingResults::GetSamples() const
{
    return m_sampler.GetSamples();
}

double
TrainingResults::GetOptimalLoss() const
{
    return m_reference.GetOptimalLoss();
}

bool
TrainingResults::IsComplete() const
{
    return m_recorder.IsComplete();
}

double
TrainingResults::GetTrainingTimeS() const
{
    return m_recorder.GetTrainingTimeS();
}

std::string
TrainingResults::ToJson() const
{
    return m_writer.ToJson();
}

void
TrainingResults::WriteFile(const std::string& path) const
{
    m_writer.WriteFile(path);
}

} // namespace ns3
