/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "clique-schedule.h"
#include "link-load-model.h"
#include "schedule-metrics.h"
#include "schedule-optimizer.h"
#include "wan-topology.h"

#include <algorithm>
#include <cmath>
#include <gtest/gtest.h>
#include <random>

/**
 * @file
 * @ingroup wan-training-tests
 * GoogleTest cases for the ring's step recursion (doc/schedule-model.rst, "The ring"): closed
 * forms, a ring worked by hand, T_ring against an enumeration of the recursion's paths on two
 * topologies, and the optimizer's round costs against ScheduleMetrics.
 */

using namespace ns3;

namespace
{

const std::string SRC = WAN_TRAINING_SOURCE_DIR;

/**
 * @brief T_ring as the longest path through the steps, by enumeration (independent of the
 * recursion's dynamic programme).
 *
 * A path starts at some hop's step 0 and takes 2(k-1) steps; after each step but the last it
 * either stays on its hop or moves to the next hop, which costs the latency of the hop it
 * leaves; after the last step it adds its hop's latency. Its length is the sum of the step
 * times of the steps it visits plus those latencies.
 * @param h hop latencies
 * @param beta step times
 * @return the longest path
 */
double
LongestStepPath(const std::vector<double>& h, const std::vector<double>& beta)
{
    const uint32_t k = h.size();
    const uint32_t moves = 2 * (k - 1) - 1;
    double longest = 0;
    for (uint32_t start = 0; start < k; ++start)
    {
        for (uint32_t choice = 0; choice < (1U << moves); ++choice)
        {
            uint32_t t = start;
            double length = beta[t];
            for (uint32_t m = 0; m < moves; ++m)
            {
                if (choice & (1U << m))
                {
                    length += h[t];
                    t = (t + 1) % k;
                }
                length += beta[t];
            }
            longest = std::max(longest, length + h[t]);
        }
    }
    return longest;
}

/**
 * @param h hop latencies
 * @return the longest sum of 2(k-1) consecutive hop latencies around the ring
 */
double
LongestChain(const std::vector<double>& h)
{
    const uint32_t k = h.size();
    double longest = 0;
    for (uint32_t start = 0; start < k; ++start)
    {
        double chain = 0;
        for (uint32_t s = 0; s < 2 * (k - 1); ++s)
        {
            chain += h[(start + s) % k];
        }
        longest = std::max(longest, chain);
    }
    return longest;
}

/**
 * @brief Check SolveRingSteps, and the enumeration of paths, against a ring worked by hand.
 * @param h hop latencies
 * @param beta step times
 * @param expected T_ring and its critical chain
 */
void
ExpectRing(const std::vector<double>& h,
           const std::vector<double>& beta,
           const ScheduleMetrics::RingTime& expected)
{
    ScheduleMetrics::RingTime ring = ScheduleMetrics::SolveRingSteps(h, beta);
    EXPECT_NEAR(ring.timeS, expected.timeS, 1e-12);
    EXPECT_EQ(ring.firstHop, expected.firstHop);
    EXPECT_EQ(ring.hops, expected.hops);
    EXPECT_NEAR(ring.chainLatencyS, expected.chainLatencyS, 1e-12);
    EXPECT_NEAR(LongestStepPath(h, beta), expected.timeS, 1e-12);
}

/** @return settings of model size S, no compute */
ScheduleMetrics::Settings
Settings(double modelBytes, double computeS)
{
    ScheduleMetrics::Settings s;
    s.modelBytes = modelBytes;
    s.computeS = computeS;
    return s;
}

} // namespace

TEST(RingStepModel, EqualStepTimesGiveTheLongestChainOfConsecutiveHops)
{
    std::mt19937 random(19);
    std::uniform_real_distribution<double> latency(0.001, 0.120);
    for (uint32_t k = 2; k <= 9; ++k)
    {
        for (double beta : {0.0005, 0.02, 3.0})
        {
            std::vector<double> h(k);
            for (double& x : h)
            {
                x = latency(random);
            }
            ScheduleMetrics::RingTime ring =
                ScheduleMetrics::SolveRingSteps(h, std::vector<double>(k, beta));
            const double chain = LongestChain(h);
            const std::string what = std::to_string(k) + " hops, beta " + std::to_string(beta);
            EXPECT_NEAR(ring.timeS, 2.0 * (k - 1) * beta + chain, 1e-12) << what;
            // The critical chain walks one step per hop: 2(k-1) hops, the longest chain.
            EXPECT_EQ(ring.hops, 2 * (k - 1)) << what;
            EXPECT_NEAR(ring.chainLatencyS, chain, 1e-12) << what;
        }
    }
    // Equal hops too: the old bound 2(k-1) (largest hop + beta) is then exact.
    ScheduleMetrics::RingTime equal =
        ScheduleMetrics::SolveRingSteps({0.01, 0.01, 0.01, 0.01}, {0.5, 0.5, 0.5, 0.5});
    EXPECT_NEAR(equal.timeS, 6 * (0.01 + 0.5), 1e-12);
    // Fewer than two hops: nothing to send.
    EXPECT_EQ(ScheduleMetrics::SolveRingSteps({}, {}).timeS, 0.0);
}

TEST(RingStepModel, ThreeMembersWorkedByHand)
{
    // Hops 0, 1, 2 with h = 30, 5, 20 ms and beta = 10, 2, 1 ms; F(t, s) in ms (s = 0 ... 3):
    //   s = 0: 10, 2, 1
    //   s = 1: max(10, 1 + 20) + 10 = 31, max(2, 10 + 30) + 2 = 42, max(1, 2 + 5) + 1 = 8
    //   s = 2: max(31, 8 + 20) + 10 = 41, max(42, 31 + 30) + 2 = 63, max(8, 42 + 5) + 1 = 48
    //   s = 3: max(41, 48 + 20) + 10 = 78, max(63, 41 + 30) + 2 = 73, max(48, 63 + 5) + 1 = 69
    // T_ring = max(78 + 30, 73 + 5, 69 + 20) = 108 ms, ending on hop 0. Back from (0, 3) the
    // chain waited for (2, 2), (1, 1), (0, 0): hops 0, 1, 2, 0, latency 85 ms, steps 23 ms.
    // The old bound: 2(k-1) x 30 ms + the busiest link's 4 x 10 ms = 160 ms.
    ExpectRing({0.030, 0.005, 0.020}, {0.010, 0.002, 0.001}, {0.108, 0, 4, 0.085});
    // A slow hop binds alone: beta = 4, 30, 10 ms, h = 10, 20, 5 ms gives hop 1's four steps
    // and its latency, 4 x 30 + 20 = 140 ms (its predecessor is always earlier).
    ExpectRing({0.010, 0.020, 0.005}, {0.004, 0.030, 0.010}, {0.140, 1, 1, 0.020});
}

TEST(RingStepModel, RoundCostEqualsTheLongestStepPathOnTwoTopologies)
{
    for (const std::string file : {"reference-wan.json", "doublezero-nine-city.json"})
    {
        WanTopology topology = WanTopology::LoadFile(SRC + "/topologies/" + file);
        const uint32_t n = topology.GetNCities();
        LinkLoadModel model(topology);
        std::vector<CliqueSchedule::Round> rounds = CliqueSchedule::AllReduce(n).GetRounds();
        const CliqueSchedule latin = CliqueSchedule::LatinTriples(n);
        for (const auto& r : latin.GetRounds())
        {
            rounds.push_back(r);
        }
        rounds.push_back(CliqueSchedule::RoundRobinPairs(n).GetRound(0));
        rounds.push_back({{0, 3, 7}, {1, 2}, {4, 5, 6, 8}});
        for (double modelBytes : {1e9, 1e10})
        {
            ScheduleMetrics metrics(topology, Settings(modelBytes, 0));
            for (const CliqueSchedule::Round& round : rounds)
            {
                ScheduleMetrics::RoundCost cost = metrics.GetRoundCost(round, CapabilityMode::RING);
                std::vector<double> loads = model.GetRoundLoads(round, CapabilityMode::RING);
                double expected = 0;
                double bound = 0;
                double busiest = 0;
                for (uint32_t d = 0; d < loads.size(); ++d)
                {
                    busiest = std::max(busiest,
                                       8 * modelBytes * loads[d] /
                                           (topology.GetDirectedLinkCapacityGbps(d) * 1e9));
                }
                for (const CliqueSchedule::Clique& clique : round)
                {
                    if (clique.size() < 2)
                    {
                        continue;
                    }
                    std::vector<uint32_t> order = model.GetRingOrder(clique);
                    const uint32_t k = order.size();
                    std::vector<double> h;
                    std::vector<double> beta;
                    for (uint32_t t = 0; t < k; ++t)
                    {
                        const WanRoute& route = topology.GetRoute(order[t], order[(t + 1) % k]);
                        h.push_back(route.latencyMs / 1e3);
                        double share = 0;
                        for (uint32_t d : route.links)
                        {
                            share = std::max(share,
                                             loads[d] /
                                                 (topology.GetDirectedLinkCapacityGbps(d) * 1e9));
                        }
                        beta.push_back(8 * modelBytes / (2.0 * (k - 1)) * share);
                    }
                    expected = std::max(expected, LongestStepPath(h, beta));
                    bound = std::max(bound,
                                     model.GetCliqueLatencyMs(clique, CapabilityMode::RING) / 1e3);
                }
                const std::string what = file + ", S " + std::to_string(modelBytes) + ", " +
                                         std::to_string(round.size()) + " cliques";
                EXPECT_NEAR(cost.commS, expected, 1e-9 * expected) << what;
                EXPECT_NEAR(cost.bottleneckS, busiest, 1e-9 * busiest) << what;
                // latencyS is what the steps add to the busiest link; the old bound is above.
                EXPECT_NEAR(cost.latencyS, cost.commS - cost.bottleneckS, 1e-12) << what;
                EXPECT_GE(cost.latencyS, 0.0) << what;
                EXPECT_LE(cost.commS, (bound + busiest) * (1 + 1e-12)) << what;
                // The critical chain: consecutive ring hops whose latencies add up.
                ASSERT_GE(cost.criticalPath.size(), 2U) << what;
                double chain = 0;
                for (uint32_t i = 0; i + 1 < cost.criticalPath.size(); ++i)
                {
                    chain += topology.GetRoute(cost.criticalPath[i], cost.criticalPath[i + 1])
                                 .latencyMs /
                             1e3;
                }
                EXPECT_NEAR(cost.chainLatencyS, chain, 1e-12) << what;
                EXPECT_LE(cost.chainLatencyS, cost.commS) << what;
            }
        }
    }
}

TEST(RingStepModel, OptimizerCostsEqualScheduleMetrics)
{
    for (const std::string file : {"reference-wan.json", "doublezero-nine-city.json"})
    {
        WanTopology topology = WanTopology::LoadFile(SRC + "/topologies/" + file);
        const uint32_t n = topology.GetNCities();
        for (double modelBytes : {1e9, 1e10})
        {
            ScheduleMetrics::Settings settings = Settings(modelBytes, 1.0);
            ScheduleMetrics metrics(topology, settings);
            ScheduleOptimizer::Options options;
            options.maxEvaluations = 2000;
            ScheduleOptimizer optimizer(topology, settings, CapabilityMode::RING, options);
            for (const CliqueSchedule& schedule :
                 {CliqueSchedule::AllReduce(n),
                  CliqueSchedule::LatinTriples(n),
                  CliqueSchedule::RoundRobinPairs(n),
                  CliqueSchedule(n, {{{0, 3, 7}, {1, 2}, {4, 5, 6, 8}}, {{0, 1, 2, 3, 4}}})})
            {
                const double xi = metrics.Evaluate(schedule, CapabilityMode::RING).xiS;
                EXPECT_NEAR(optimizer.GetXi(schedule), xi, 1e-12 * xi) << file;
            }
            ScheduleOptimizer::Result result = optimizer.Optimize();
            EXPECT_NEAR(optimizer.GetXi(result.schedule),
                        metrics.Evaluate(result.schedule, CapabilityMode::RING).xiS,
                        1e-12 * result.evaluation.xiS)
                << file;
        }
    }
}
