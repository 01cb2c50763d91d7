/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef COLOCATED_REFERENCE_H
#define COLOCATED_REFERENCE_H

#include "local-objective.h"

#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * @ingroup wan-training
 * @brief The colocated-training baseline of a run: the mean of the islands' objectives, its
 * optimum, and the loss of training with every island in one place.
 *
 * The mean objective F(x) = 1/2 sum_d (A_d x_d^2 - 2 B_d x_d + C_d) is kept in closed form, so
 * that F(x) costs O(dimension). In the colocated reference every island starts from the same
 * model, takes LocalSteps local steps, then all average exactly at no communication cost; its
 * loss is sampled at (r + 1) x LocalSteps x StepTime after round r (doc/schedule-model.rst).
 */
class ColocatedReference
{
  public:
    /** One point of the colocated loss curve. */
    struct Point
    {
        uint32_t round{0}; //!< the round
        double timeS{0};   //!< (round + 1) x compute time per round
        double loss{0};    //!< F(average model) - F(x*)
    };

    /**
     * @param objectives the islands' objectives, in city order
     */
    explicit ColocatedReference(const std::vector<LocalObjective>& objectives);

    /** @return the parameters' dimension */
    uint32_t GetDimension() const;
    /** @return the number of islands */
    uint32_t GetNIslands() const;
    /**
     * @param x parameters (length GetDimension())
     * @return F(x) of the mean objective, in O(dimension)
     */
    double GetMeanLoss(const std::vector<double>& x) const;
    /** @return F(x*), the optimum of the mean objective */
    double GetOptimalLoss() const;
    /**
     * @param rounds the rounds of the run
     * @param localSteps local steps per round
     * @param learningRate the learning rate of a step
     * @param computeS the compute time of a round in seconds
     * @return the loss of colocated training after each round
     */
    std::vector<Point> GetCurve(uint32_t rounds,
                                uint64_t localSteps,
                                double learningRate,
                                double computeS) const;

  private:
    std::vector<LocalObjective> m_objectives; //!< by city
    std::vector<double> m_meanA;              //!< mean_i a_id
    std::vector<double> m_meanAB;             //!< mean_i a_id b_id
    double m_meanABB{0};                      //!< sum_d mean_i a_id b_id^2
    double m_optimalLoss{0};                  //!< F(x*)
};

} // namespace ns3

#endif /* COLOCATED_REFERENCE_H */
