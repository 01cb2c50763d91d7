/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "local-objective.h"

#include "ns3/abort.h"
#include "ns3/assert.h"
#include "ns3/log.h"

#include <random>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("WanTrainingLocalObjective");

namespace
{

/**
 * @param generator a 64-bit Mersenne twister
 * @return a uniform double in [0, 1) from its top 53 bits (identical on every platform)
 */
double
Uniform01(std::mt19937_64& generator)
{
    return static_cast<double>(generator() >> 11) * 0x1.0p-53;
}

} // namespace

LocalObjective::LocalObjective(uint32_t island,
                               uint32_t dimension,
                               uint64_t seed,
                               double heterogeneity)
{
    NS_LOG_FUNCTION(this << island << dimension << seed << heterogeneity);
    NS_ABORT_MSG_IF(dimension == 0, "LocalObjective: the dimension must be at least 1");
    NS_ABORT_MSG_IF(!(heterogeneity >= 0), "LocalObjective: the heterogeneity must be >= 0");
    std::seed_seq sequence{static_cast<uint32_t>(seed),
                           static_cast<uint32_t>(seed >> 32),
                           island,
                           0x57414eu};
    std::mt19937_64 generator(sequence);
    m_curvatures.reserve(dimension);
    m_targets.reserve(dimension);
    for (uint32_t d = 0; d < dimension; ++d)
    {
        m_curvatures.push_back(MIN_CURVATURE +
                               (MAX_CURVATURE - MIN_CURVATURE) * Uniform01(generator));
        m_targets.push_back(heterogeneity * (2 * Uniform01(generator) - 1));
    }
}

uint32_t
LocalObjective::GetDimension() const
{
    return static_cast<uint32_t>(m_curvatures.size());
}

const std::vector<double>&
LocalObjective::GetCurvatures() const
{
    return m_curvatures;
}

const std::vector<double>&
LocalObjective::GetTargets() const
{
    return m_targets;
}

double
LocalObjective::Evaluate(const std::vector<float>& x) const
{
    NS_ASSERT(x.size() == m_curvatures.size());
    double sum = 0;
    for (size_t d = 0; d < x.size(); ++d)
    {
        double e = x[d] - m_targets[d];
        sum += m_curvatures[d] * e * e;
    }
    return sum / 2;
}

double
LocalObjective::Evaluate(const std::vector<double>& x) const
{
    NS_ASSERT(x.size() == m_curvatures.size());
    double sum = 0;
    for (size_t d = 0; d < x.size(); ++d)
    {
        double e = x[d] - m_targets[d];
        sum += m_curvatures[d] * e * e;
    }
    return sum / 2;
}

void
LocalObjective::Step(std::vector<float>& x, double learningRate) const
{
    NS_ASSERT(x.size() == m_curvatures.size());
    for (size_t d = 0; d < x.size(); ++d)
    {
        double value = x[d];
        x[d] = static_cast<float>(value - learningRate * m_curvatures[d] * (value - m_targets[d]));
    }
}

void
LocalObjective::Step(std::vector<double>& x, double learningRate) const
{
    NS_ASSERT(x.size() == m_curvatures.size());
    for (size_t d = 0; d < x.size(); ++d)
    {
        x[d] -= learningRate * m_curvatures[d] * (x[d] - m_targets[d]);
    }
}

std::vector<double>
LocalObjective::GetGlobalOptimum(const std::vector<LocalObjective>& objectives)
{
    NS_ABORT_MSG_IF(objectives.empty(), "LocalObjective::GetGlobalOptimum: no objectives");
    uint32_t dimension = objectives.front().GetDimension();
    std::vector<double> weighted(dimension, 0.0);
    std::vector<double> weights(dimension, 0.0);
    for (const auto& objective : objectives)
    {
        NS_ABORT_MSG_IF(objective.GetDimension() != dimension,
                        "LocalObjective::GetGlobalOptimum: dimensions differ");
        for (uint32_t d = 0; d < dimension; ++d)
        {
            weighted[d] += objective.m_curvatures[d] * objective.m_targets[d];
            weights[d] += objective.m_curvatures[d];
        }
    }
    for (uint32_t d = 0; d < dimension; ++d)
    {
        weighted[d] /= weights[d];
    }
    return weighted;
}

double
LocalObjective::GetGlobalLoss(const std::vector<LocalObjective>& objectives,
                              const std::vector<double>& x)
{
    NS_ABORT_MSG_IF(objectives.empty(), "LocalObjective::GetGlobalLoss: no objectives");
    double sum = 0;
    for (const auto& objective : objectives)
    {
        sum += objective.Evaluate(x);
    }
    return sum / objectives.size();
}

} // namespace ns3
