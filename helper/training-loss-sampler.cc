/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "training-loss-sampler.h"

#include "colocated-reference.h"
#include "training-island-application.h"
#include "training-recorder.h"

#include "ns3/log.h"
#include "ns3/simulator.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("WanTrainingTrainingLossSampler");

TrainingLossSampler::TrainingLossSampler(const TrainingRecorder& recorder,
                                         const ColocatedReference& reference)
    : m_reference(reference)
{
    for (uint32_t i = 0; i < recorder.GetTopology().GetNCities(); ++i)
    {
        m_apps.push_back(recorder.GetApplication(i));
    }
    Sample initial;
    std::vector<double> zero(m_reference.GetDimension(), 0.0);
    initial.loss = m_reference.GetMeanLoss(zero) - m_reference.GetOptimalLoss();
    initial.islandMeanLoss = initial.loss;
    m_samples.push_back(initial);
}

void
TrainingLossSampler::TakeSample()
{
    const uint32_t n = m_apps.size();
    const uint32_t dim = m_reference.GetDimension();
    const double optimalLoss = m_reference.GetOptimalLoss();
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
    sample.loss = m_reference.GetMeanLoss(average) - optimalLoss;
    for (uint32_t i = 0; i < n; ++i)
    {
        sample.islandMeanLoss += (m_reference.GetMeanLoss(models[i]) - optimalLoss) / n;
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

const std::vector<TrainingLossSampler::Sample>&
TrainingLossSampler::GetSamples() const
{
    return m_samples;
}

} // namespace ns3
