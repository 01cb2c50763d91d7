/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "colocated-reference.h"

#include "ns3/abort.h"
#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("WanTrainingColocatedReference");

ColocatedReference::ColocatedReference(const std::vector<LocalObjective>& objectives)
    : m_objectives(objectives)
{
    NS_ABORT_MSG_IF(m_objectives.empty(), "ColocatedReference: no objectives");
    const uint32_t n = m_objectives.size();
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
}

uint32_t
ColocatedReference::GetDimension() const
{
    return m_meanA.size();
}

uint32_t
ColocatedReference::GetNIslands() const
{
    return m_objectives.size();
}

double
ColocatedReference::GetMeanLoss(const std::vector<double>& x) const
{
    double sum = m_meanABB;
    for (size_t d = 0; d < x.size(); ++d)
    {
        sum += m_meanA[d] * x[d] * x[d] - 2 * m_meanAB[d] * x[d];
    }
    return sum / 2;
}

double
ColocatedReference::GetOptimalLoss() const
{
    return m_optimalLoss;
}

std::vector<ColocatedReference::Point>
ColocatedReference::GetCurve(uint32_t rounds,
                             uint64_t localSteps,
                             double learningRate,
                             double computeS) const
{
    const uint32_t n = m_objectives.size();
    std::vector<Point> curve;
    std::vector<double> x(m_meanA.size(), 0.0);
    for (uint32_t r = 0; r < rounds; ++r)
    {
        std::vector<double> next(x.size(), 0.0);
        for (const auto& objective : m_objectives)
        {
            std::vector<double> local = x;
            for (uint64_t s = 0; s < localSteps; ++s)
            {
                objective.Step(local, learningRate);
            }
            for (size_t d = 0; d < x.size(); ++d)
            {
                next[d] += local[d] / n;
            }
        }
        x = next;
        curve.push_back({r, (r + 1) * computeS, GetMeanLoss(x) - m_optimalLoss});
    }
    return curve;
}

} // namespace ns3
