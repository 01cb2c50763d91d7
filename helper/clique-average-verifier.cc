/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "clique-average-verifier.h"

#include "clique-schedule.h"
#include "training-recorder.h"

#include "ns3/log.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("WanTrainingCliqueAverageVerifier");

CliqueAverageVerifier::CliqueAverageVerifier(const TrainingRecorder& recorder)
    : m_recorder(recorder)
{
    m_verified.assign(recorder.GetNRounds(),
                      std::vector<bool>(recorder.GetTopology().GetNCities(), false));
}

bool
CliqueAverageVerifier::IsShared(uint32_t round, uint32_t clique) const
{
    const CliqueSchedule& schedule = m_recorder.GetSchedule();
    return clique != CliqueSchedule::IDLE &&
           schedule.GetRound(round % schedule.GetNRounds())[clique].size() >= 2;
}

void
CliqueAverageVerifier::AddContribution(uint32_t island,
                                       uint32_t round,
                                       uint32_t clique,
                                       const std::vector<float>& parameters)
{
    if (IsShared(round, clique))
    {
        m_shadows[{round, clique}].contributions[island] = parameters;
    }
}

std::string
CliqueAverageVerifier::CheckAverage(uint32_t island,
                                    uint32_t round,
                                    uint32_t clique,
                                    const std::vector<float>& parameters)
{
    const uint64_t contributors = m_recorder.GetContributors(round, island);
    if (!IsShared(round, clique))
    {
        // Idle or alone: the parameters stay, averaged over the island alone.
        m_verified[round][island] = contributors == (uint64_t{1} << island);
        return "";
    }
    const CliqueSchedule& schedule = m_recorder.GetSchedule();
    const CliqueSchedule::Clique& members =
        schedule.GetRound(round % schedule.GetNRounds())[clique];
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
    ++m_checks;
    if (!valid)
    {
        NS_LOG_WARN("island " << m_recorder.GetTopology().GetCity(island).id << " ended round "
                              << round << " averaging over members that did not contribute");
        ReleaseShadow(round, clique);
        return "averaged over members whose contributions were not recorded";
    }
    const std::vector<double>& average =
        GetAverage(it->second, contributors, set, parameters.size());
    m_verified[round][island] = CompareToAverage(parameters, average) <= VERIFY_TOLERANCE;
    ReleaseShadow(round, clique);
    return "";
}

const std::vector<double>&
CliqueAverageVerifier::GetAverage(Shadow& shadow,
                                  uint64_t contributors,
                                  const std::vector<uint32_t>& members,
                                  size_t dimension)
{
    std::vector<double>& average = shadow.averages[contributors];
    if (average.empty())
    {
        average.assign(dimension, 0.0);
        for (uint32_t member : members)
        {
            const std::vector<float>& values = shadow.contributions.at(member);
            for (size_t v = 0; v < values.size(); ++v)
            {
                average[v] += values[v];
            }
        }
        for (double& value : average)
        {
            value /= members.size();
        }
    }
    return average;
}

double
CliqueAverageVerifier::CompareToAverage(const std::vector<float>& parameters,
                                        const std::vector<double>& average)
{
    double memberRelError = 0;
    for (size_t v = 0; v < parameters.size(); ++v)
    {
        double error = std::abs(parameters[v] - average[v]);
        double relError = error / std::max(1.0, std::abs(average[v]));
        m_maxAbsError = std::max(m_maxAbsError, error);
        m_maxRelError = std::max(m_maxRelError, relError);
        memberRelError = std::max(memberRelError, relError);
    }
    return memberRelError;
}

void
CliqueAverageVerifier::ReleaseShadow(uint32_t round, uint32_t clique)
{
    auto it = m_shadows.find({round, clique});
    if (it == m_shadows.end())
    {
        return;
    }
    const CliqueSchedule& schedule = m_recorder.GetSchedule();
    for (uint32_t member : schedule.GetRound(round % schedule.GetNRounds())[clique])
    {
        if (m_recorder.GetRoundStatus(round, member) == TrainingRecorder::PENDING)
        {
            return;
        }
    }
    m_shadows.erase(it);
}

bool
CliqueAverageVerifier::IsMemberVerified(uint32_t round, uint32_t island) const
{
    return m_verified.at(round).at(island);
}

bool
CliqueAverageVerifier::IsCliqueConsistent(uint32_t round, uint32_t clique) const
{
    const CliqueSchedule& schedule = m_recorder.GetSchedule();
    const CliqueSchedule::Clique& members =
        schedule.GetRound(round % schedule.GetNRounds()).at(clique);
    uint64_t cliqueBits = 0;
    for (uint32_t member : members)
    {
        cliqueBits |= uint64_t{1} << member;
    }
    auto completed = [this, round](uint32_t island) {
        return m_recorder.GetRoundStatus(round, island) == TrainingRecorder::COMPLETED;
    };
    for (uint32_t member : members)
    {
        if (!completed(member))
        {
            continue;
        }
        const uint64_t set = m_recorder.GetContributors(round, member);
        if (!(set & (uint64_t{1} << member)) || (set & ~cliqueBits) != 0)
        {
            return false;
        }
        // Two members that averaged each other's contributions averaged the same ones.
        for (uint32_t other : members)
        {
            const uint64_t otherSet = m_recorder.GetContributors(round, other);
            if (other != member && (set & (uint64_t{1} << other)) && completed(other) &&
                (otherSet & (uint64_t{1} << member)) && otherSet != set)
            {
                return false;
            }
        }
    }
    return true;
}

bool
CliqueAverageVerifier::IsCliqueSymmetric(uint32_t round, uint32_t clique) const
{
    const CliqueSchedule& schedule = m_recorder.GetSchedule();
    const CliqueSchedule::Clique& members =
        schedule.GetRound(round % schedule.GetNRounds()).at(clique);
    for (uint32_t member : members)
    {
        for (uint32_t other : members)
        {
            if (other != member &&
                m_recorder.GetRoundStatus(round, member) == TrainingRecorder::COMPLETED &&
                m_recorder.GetRoundStatus(round, other) == TrainingRecorder::COMPLETED &&
                (m_recorder.GetContributors(round, member) & (uint64_t{1} << other)) &&
                !(m_recorder.GetContributors(round, other) & (uint64_t{1} << member)))
            {
                return false;
            }
        }
    }
    return true;
}

bool
CliqueAverageVerifier::AreMembersVerified(uint32_t round) const
{
    const uint32_t n = m_recorder.GetTopology().GetNCities();
    for (uint32_t i = 0; i < n; ++i)
    {
        const TrainingRecorder::RoundStatus status = m_recorder.GetRoundStatus(round, i);
        if (status != TrainingRecorder::CRASHED &&
            (status != TrainingRecorder::COMPLETED || !m_verified[round][i]))
        {
            return false;
        }
    }
    return true;
}

bool
CliqueAverageVerifier::IsRoundVerified(uint32_t round) const
{
    if (!AreMembersVerified(round))
    {
        return false;
    }
    const CliqueSchedule& schedule = m_recorder.GetSchedule();
    const CliqueSchedule::Round& cliques = schedule.GetRound(round % schedule.GetNRounds());
    for (uint32_t c = 0; c < cliques.size(); ++c)
    {
        if (!IsCliqueConsistent(round, c))
        {
            return false;
        }
    }
    return true;
}

uint32_t
CliqueAverageVerifier::GetRoundsVerified() const
{
    uint32_t verified = 0;
    for (uint32_t r = 0; r < m_recorder.GetNRounds(); ++r)
    {
        verified += IsRoundVerified(r) ? 1 : 0;
    }
    return m_maxRelError <= VERIFY_TOLERANCE ? verified : 0;
}

uint64_t
CliqueAverageVerifier::GetChecks() const
{
    return m_checks;
}

double
CliqueAverageVerifier::GetMaxAbsError() const
{
    return m_maxAbsError;
}

double
CliqueAverageVerifier::GetMaxRelError() const
{
    return m_maxRelError;
}

} // namespace ns3
