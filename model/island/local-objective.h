/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef LOCAL_OBJECTIVE_H
#define LOCAL_OBJECTIVE_H

#include <cstdint>
#include <vector>

namespace ns3
{

/**
 * @ingroup wan-training
 * @brief One island's training objective: a separable quadratic with island-specific data.
 *
 * Island i minimises f_i(x) = 1/2 sum_d a_id (x_d - b_id)^2 with curvatures a_id in
 * [MIN_CURVATURE, MAX_CURVATURE] and targets b_id uniform in [-h, h] (h the heterogeneity),
 * drawn from a generator seeded by (seed, island), so the islands disagree (heterogeneous data)
 * and every run with the same seed is identical. The global objective is the mean
 * F(x) = 1/N sum_i f_i(x); its optimum is known in closed form,
 * x*_d = sum_i a_id b_id / sum_i a_id, so loss can be reported as F(x) - F(x*).
 *
 * A gradient step is x_d <- x_d - eta a_id (x_d - b_id); it is stable for eta < 2 / MAX_CURVATURE.
 * Parameters are float32 (as they travel on the wire); the arithmetic is double.
 */
class LocalObjective
{
  public:
    static constexpr double MIN_CURVATURE = 0.5; //!< smallest curvature a_id
    static constexpr double MAX_CURVATURE = 2.0; //!< largest curvature a_id

    /**
     * @brief Draw island `island`'s objective.
     * @param island the island index
     * @param dimension the length of the parameter vector (>= 1)
     * @param seed the seed shared by every island of a run
     * @param heterogeneity h: targets are uniform in [-h, h] (>= 0)
     */
    LocalObjective(uint32_t island, uint32_t dimension, uint64_t seed, double heterogeneity);

    /** @return the length of the parameter vector */
    uint32_t GetDimension() const;

    /** @return the curvatures a_id */
    const std::vector<double>& GetCurvatures() const;

    /** @return the targets b_id (the island's own optimum) */
    const std::vector<double>& GetTargets() const;

    /**
     * @param x parameters (length GetDimension())
     * @return f_i(x)
     */
    double Evaluate(const std::vector<float>& x) const;

    /**
     * @param x parameters (length GetDimension())
     * @return f_i(x)
     */
    double Evaluate(const std::vector<double>& x) const;

    /**
     * @brief One full-gradient step in place.
     * @param x parameters (length GetDimension())
     * @param learningRate eta
     */
    void Step(std::vector<float>& x, double learningRate) const;

    /**
     * @brief One full-gradient step in place, in double precision.
     * @param x parameters (length GetDimension())
     * @param learningRate eta
     */
    void Step(std::vector<double>& x, double learningRate) const;

    /**
     * @param objectives every island's objective (same dimension)
     * @return the minimiser x* of the mean objective
     */
    static std::vector<double> GetGlobalOptimum(const std::vector<LocalObjective>& objectives);

    /**
     * @param objectives every island's objective (same dimension)
     * @param x parameters
     * @return the mean objective F(x) = 1/N sum_i f_i(x)
     */
    static double GetGlobalLoss(const std::vector<LocalObjective>& objectives,
                                const std::vector<double>& x);

  private:
    std::vector<double> m_curvatures; //!< a_id
    std::vector<double> m_targets;    //!< b_id
};

} // namespace ns3

#endif /* LOCAL_OBJECTIVE_H */
