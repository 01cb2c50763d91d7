/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "clique-average-verifier.h"

#include "clique-schedule.h"
#include "fixed-point-sum.h"
#include "payload-codec.h"
#include "training-island-application.h"
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
    m_formatErrors.assign(recorder.GetNRounds(), FormatError{});
}

double
CliqueAverageVerifier::FormatError::GetRelative() const
{
    return maxAverage > 0 ? maxAbs / maxAverage : 0;
}

uint32_t
CliqueAverageVerifier::GetMaxEncodings(CapabilityMode mode,
                                       uint32_t contributors,
                                       uint32_t treeRouters)
{
    switch (mode)
    {
    case CapabilityMode::UNICAST:
    case CapabilityMode::MULTICAST:
        return 0;
    case CapabilityMode::AGGREGATION:
    case CapabilityMode::BOTH:
        return 1;
    case CapabilityMode::RING:
        return contributors > 0 ? contributors - 1 : 0;
    case CapabilityMode::TREE:
        return treeRouters + 1;
    }
    return 0;
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
        Shadow& shadow = m_shadows[{round, clique}];
        shadow.contributions[island] = parameters;
        std::vector<float>& decoded = shadow.decoded[island] = parameters;
        PayloadCodec::Quantize(m_recorder.GetApplication(island)->GetPlan(round).format, decoded);
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
    const Expected& expected = GetExpected(it->second,
                                           contributors,
                                           set,
                                           m_recorder.GetApplication(island)->GetPlan(round));
    m_verified[round][island] = Compare(round, parameters, expected);
    ReleaseShadow(round, clique);
    return "";
}

const CliqueAverageVerifier::Expected&
CliqueAverageVerifier::GetExpected(Shadow& shadow,
                                   uint64_t contributors,
                                   const std::vector<uint32_t>& members,
                                   const ExchangePlan& plan)
{
    Expected& expected = shadow.expected[contributors];
    if (!expected.average.empty())
    {
        return expected;
    }
    const size_t dimension = shadow.decoded.at(members.front()).size();
    const double c = static_cast<double>(members.size());
    std::vector<double> magnitude(dimension, 0.0);
    expected.average.assign(dimension, 0.0);
    expected.exact.assign(dimension, 0.0);
    for (uint32_t member : members)
    {
        const std::vector<float>& decoded = shadow.decoded.at(member);
        const std::vector<float>& parameters = shadow.contributions.at(member);
        for (size_t v = 0; v < dimension; ++v)
        {
            expected.average[v] += decoded[v];
            expected.exact[v] += parameters[v];
            magnitude[v] += std::abs(static_cast<double>(decoded[v]));
        }
    }
    uint32_t treeRouters = 0;
    if (plan.mode == CapabilityMode::TREE)
    {
        if (!m_loads)
        {
            m_loads = std::make_unique<LinkLoadModel>(m_recorder.GetTopology());
        }
        // The base clique's in-tree (where the FPGAs expect it) and the contributors'.
        std::vector<uint32_t> routers = m_loads->GetTreeRouters(plan.members);
        for (uint32_t router : m_loads->GetTreeRouters(members))
        {
            if (std::find(routers.begin(), routers.end(), router) == routers.end())
            {
                routers.push_back(router);
            }
        }
        treeRouters = static_cast<uint32_t>(routers.size());
    }
    for (size_t v = 0; v < dimension; ++v)
    {
        expected.average[v] /= c;
        expected.exact[v] /= c;
    }
    expected.bound = GetBound(plan.format,
                              GetMaxEncodings(plan.mode, members.size(), treeRouters),
                              UsesAggregation(plan.mode),
                              members.size(),
                              magnitude,
                              expected.average);
    return expected;
}

std::vector<double>
CliqueAverageVerifier::GetBound(PayloadFormat format,
                                uint32_t encodings,
                                bool fixedPoint,
                                uint32_t contributors,
                                const std::vector<double>& magnitude,
                                const std::vector<double>& average)
{
    const size_t dimension = average.size();
    const double c = contributors;
    const double m = encodings;
    const double resolution = fixedPoint ? c * FixedPointSum::RESOLUTION : 0.0;
    // The half steps at the scale A of the magnitudes, which no partial sum exceeds: as the
    // format rounds A (never into a lower binade or a smaller int8 scale).
    std::vector<float> scale(magnitude.begin(), magnitude.end());
    PayloadCodec::Quantize(format, scale);
    const std::vector<double> formatSteps = PayloadCodec::GetHalfSteps(format, scale);
    const std::vector<double> floatSteps = PayloadCodec::GetHalfSteps(PayloadFormat::FP32, scale);
    std::vector<float> rounded(average.begin(), average.end());
    const std::vector<double> averageSteps =
        PayloadCodec::GetHalfSteps(PayloadFormat::FP32, rounded);
    std::vector<double> bound(dimension);
    for (size_t v = 0; v < dimension; ++v)
    {
        bound[v] = (m * (formatSteps[v] + floatSteps[v]) + resolution) / c + averageSteps[v] +
                   VERIFY_TOLERANCE * std::max(1.0, std::abs(average[v]));
    }
    return bound;
}

bool
CliqueAverageVerifier::Compare(uint32_t round,
                               const std::vector<float>& parameters,
                               const Expected& expected)
{
    if (parameters.size() != expected.average.size())
    {
        m_maxErrorOverBound = INFINITY;
        return false;
    }
    bool within = true;
    FormatError& format = m_formatErrors.at(round);
    for (size_t v = 0; v < parameters.size(); ++v)
    {
        const double error = std::abs(parameters[v] - expected.average[v]);
        m_maxAbsError = std::max(m_maxAbsError, error);
        m_maxRelError =
            std::max(m_maxRelError, error / std::max(1.0, std::abs(expected.average[v])));
        // NaN fails.
        const double ratio = error / expected.bound[v];
        within = within && ratio <= 1;
        m_maxErrorOverBound = std::max(m_maxErrorOverBound, std::isnan(ratio) ? INFINITY : ratio);
        format.maxAbs = std::max(format.maxAbs, std::abs(parameters[v] - expected.exact[v]));
        format.maxAverage = std::max(format.maxAverage, std::abs(expected.exact[v]));
    }
    return within;
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
    return m_maxErrorOverBound <= 1 ? verified : 0;
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

double
CliqueAverageVerifier::GetMaxErrorOverBound() const
{
    return m_maxErrorOverBound;
}

const CliqueAverageVerifier::FormatError&
CliqueAverageVerifier::GetFormatError(uint32_t round) const
{
    return m_formatErrors.at(round);
}

double
CliqueAverageVerifier::GetMaxFormatAbsError() const
{
    double worst = 0;
    for (const FormatError& error : m_formatErrors)
    {
        worst = std::max(worst, error.maxAbs);
    }
    return worst;
}

double
CliqueAverageVerifier::GetMaxFormatRelError() const
{
    double worst = 0;
    for (const FormatError& error : m_formatErrors)
    {
        worst = std::max(worst, error.GetRelative());
    }
    return worst;
}

} // namespace ns3
