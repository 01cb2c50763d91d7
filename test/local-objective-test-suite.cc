/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "local-objective.h"

#include "ns3/test.h"

#include <cmath>
#include <vector>

/**
 * @file
 * @ingroup wan-training-tests
 * LocalObjective test suite: ranges and determinism of the drawn data, the closed-form global
 * optimum (the mean gradient vanishes there), and gradient steps against the closed-form
 * contraction of a quadratic.
 */

using namespace ns3;

/**
 * @ingroup wan-training-tests
 * @brief Properties of the per-island quadratics.
 */
class LocalObjectiveTestCase : public TestCase
{
  public:
    LocalObjectiveTestCase();

  private:
    void DoRun() override;
};

LocalObjectiveTestCase::LocalObjectiveTestCase()
    : TestCase("data, global optimum and gradient steps")
{
}

void
LocalObjectiveTestCase::DoRun()
{
    const uint32_t n = 9;
    const uint32_t dim = 257;
    const double h = 2.5;
    std::vector<LocalObjective> objectives;
    for (uint32_t i = 0; i < n; ++i)
    {
        objectives.emplace_back(i, dim, 42, h);
    }

    // Ranges, heterogeneity and determinism.
    for (const auto& objective : objectives)
    {
        for (uint32_t d = 0; d < dim; ++d)
        {
            NS_TEST_ASSERT_MSG_GT_OR_EQ(objective.GetCurvatures()[d], 0.5, "curvature >= 0.5");
            NS_TEST_ASSERT_MSG_LT_OR_EQ(objective.GetCurvatures()[d], 2.0, "curvature <= 2");
            NS_TEST_ASSERT_MSG_LT_OR_EQ(std::abs(objective.GetTargets()[d]), h, "|target| <= h");
        }
    }
    LocalObjective again(3, dim, 42, h);
    NS_TEST_EXPECT_MSG_EQ((again.GetTargets() == objectives[3].GetTargets()),
                          true,
                          "same seed and island, same data");
    NS_TEST_EXPECT_MSG_EQ((objectives[3].GetTargets() == objectives[4].GetTargets()),
                          false,
                          "islands differ");
    LocalObjective otherSeed(3, dim, 43, h);
    NS_TEST_EXPECT_MSG_EQ((otherSeed.GetTargets() == objectives[3].GetTargets()),
                          false,
                          "seeds differ");

    // The mean gradient sum_i a_id (x_d - b_id) vanishes at the optimum.
    std::vector<double> optimum = LocalObjective::GetGlobalOptimum(objectives);
    for (uint32_t d = 0; d < dim; ++d)
    {
        double gradient = 0;
        for (const auto& objective : objectives)
        {
            gradient += objective.GetCurvatures()[d] * (optimum[d] - objective.GetTargets()[d]);
        }
        NS_TEST_ASSERT_MSG_EQ_TOL(gradient, 0.0, 1e-12, "gradient at the optimum, d = " << d);
    }
    double best = LocalObjective::GetGlobalLoss(objectives, optimum);
    for (uint32_t d = 0; d < dim; d += 16)
    {
        std::vector<double> moved = optimum;
        moved[d] += 1e-3;
        NS_TEST_EXPECT_MSG_GT(LocalObjective::GetGlobalLoss(objectives, moved),
                              best,
                              "the optimum is a minimum along d = " << d);
    }

    // A step contracts the distance to the island's target by (1 - eta a) per coordinate.
    const double eta = 0.1;
    const LocalObjective& objective = objectives[5];
    std::vector<double> x(dim, 1.0);
    std::vector<float> xf(dim, 1.0f);
    objective.Step(x, eta);
    objective.Step(xf, eta);
    for (uint32_t d = 0; d < dim; ++d)
    {
        double a = objective.GetCurvatures()[d];
        double b = objective.GetTargets()[d];
        double expected = b + (1 - eta * a) * (1.0 - b);
        NS_TEST_ASSERT_MSG_EQ_TOL(x[d], expected, 1e-12, "double step, d = " << d);
        NS_TEST_ASSERT_MSG_EQ_TOL(xf[d], expected, 1e-6, "float step, d = " << d);
    }
    std::vector<double> target = objective.GetTargets();
    NS_TEST_EXPECT_MSG_EQ_TOL(objective.Evaluate(target), 0.0, 1e-15, "zero at the target");
    double value = 0;
    for (uint32_t d = 0; d < dim; ++d)
    {
        double e = 2.0 - objective.GetTargets()[d];
        value += objective.GetCurvatures()[d] * e * e / 2;
    }
    NS_TEST_EXPECT_MSG_EQ_TOL(objective.Evaluate(std::vector<double>(dim, 2.0)),
                              value,
                              1e-9,
                              "f at x = 2");
}

/**
 * @ingroup wan-training-tests
 * @brief The LocalObjective test suite.
 */
class LocalObjectiveTestSuite : public TestSuite
{
  public:
    LocalObjectiveTestSuite();
};

LocalObjectiveTestSuite::LocalObjectiveTestSuite()
    : TestSuite("wan-training-local-objective", UNIT)
{
    AddTestCase(new LocalObjectiveTestCase(), TestCase::QUICK);
}

/** Static instance of the suite. */
static LocalObjectiveTestSuite g_localObjectiveTestSuite;
