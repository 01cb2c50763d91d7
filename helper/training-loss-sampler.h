/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef TRAINING_LOSS_SAMPLER_H
#define TRAINING_LOSS_SAMPLER_H

#include "ns3/ptr.h"

#include <vector>

namespace ns3
{

class ColocatedReference;
class TrainingIslandApplication;
class TrainingRecorder;

/**
 * @ingroup wan-training
 * @brief The training curves of a run: loss and consensus over simulated time.
 *
 * A sample is taken whenever an island's parameters change state (exchange start and round
 * end; the owner calls TakeSample), plus one of the initial (zero) models at construction:
 * loss = F(mean_i x_i) - F(x*), island mean loss = mean_i F(x_i) - F(x*), consensus =
 * mean_i ||x_i - mean_j x_j||^2, with F the mean objective of the ColocatedReference.
 */
class TrainingLossSampler
{
  public:
    /** Global state at one instant. */
    struct Sample
    {
        double timeS{0};          //!< simulated time
        double loss{0};           //!< F(average model) - F*
        double islandMeanLoss{0}; //!< mean over islands of F(x_i) - F*
        double consensus{0};      //!< mean squared distance to the average model
    };

    /**
     * @param recorder the recorder holding the applications (it must outlive the sampler)
     * @param reference the mean objective (it must outlive the sampler)
     */
    TrainingLossSampler(const TrainingRecorder& recorder, const ColocatedReference& reference);

    /** @brief Record a sample of the islands' parameters now. */
    void TakeSample();
    /** @return the samples, in time order */
    const std::vector<Sample>& GetSamples() const;

  private:
    std::vector<Ptr<TrainingIslandApplication>> m_apps; //!< by city
    const ColocatedReference& m_reference;              //!< the mean objective
    std::vector<Sample> m_samples;                      //!< loss and consensus
};

} // namespace ns3

#endif /* TRAINING_LOSS_SAMPLER_H */
