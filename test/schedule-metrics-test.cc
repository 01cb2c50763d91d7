/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "clique-schedule.h"
#include "link-load-model.h"
#include "schedule-metrics.h"
#include "synthetic-topology.h"
#include "test-utils.h"
#include "wan-topology.h"

#include <algorithm>
#include <cmath>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <random>

/**
 * @file
 * @ingroup wan-training-tests
 * GoogleTest cases for ScheduleMetrics: the reference values, closed forms of the schedule model
 * and the invariances every metric must have.
 */

using namespace ns3;

namespace
{

const std::string SRC = WAN_TRAINING_SOURCE_DIR;

using Rounds = std::vector<CliqueSchedule::Round>;

/** Relative 1e-6, the reference's tolerance; exact zeros within 1e-12. */
void
ExpectClose(double actual, double expected, const std::string& what)
{
    EXPECT_NEAR(actual, expected, 1e-6 * std::abs(expected) + 1e-12) << what;
}

/** The settings of the reference values' `params` block. */
ScheduleMetrics::Settings
ReferenceSettings(const nlohmann::json& params)
{
    ScheduleMetrics::Settings settings;
    settings.modelBytes = params["model_bytes"].get<double>();
    settings.computeS = params["tau_c_s"].get<double>();
    settings.overlap = params["overlap"].get<bool>();
    settings.eps = params["eps"].get<double>();
    return settings;
}

/** @return rounds with every island index mapped through perm */
Rounds
Relabel(const Rounds& rounds, const std::vector<uint32_t>& perm)
{
    Rounds out;
    for (const auto& round : rounds)
    {
        CliqueSchedule::Round r;
        for (const auto& clique : round)
        {
            CliqueSchedule::Clique c;
            for (uint32_t i : clique)
            {
                c.push_back(perm[i]);
            }
            r.push_back(c);
        }
        out.push_back(r);
    }
    return out;
}

/**
 * @param x a ring order
 * @param y another
 * @return whether they are the same cycle, in either direction
 */
bool
SameCycle(std::vector<uint32_t> x, const std::vector<uint32_t>& y)
{
    if (x.size() != y.size())
    {
        return false;
    }
    for (int direction = 0; direction < 2; ++direction)
    {
        for (std::size_t shift = 0; shift < x.size(); ++shift)
        {
            std::rotate(x.begin(), x.begin() + 1, x.end());
            if (x == y)
            {
                return true;
            }
        }
        std::reverse(x.begin(), x.end());
    }
    return false;
}

/** Three rounds on seven islands whose product is not normal (no symmetry between rounds). */
Rounds
Irregular()
{
    return {{{0, 1, 2}, {3, 4}}, {{2, 3}, {4, 5, 6}}, {{0, 6}, {1, 5}}};
}

/**
 * @brief Compare an evaluation with a reference entry within the reference's tolerance.
 * @param e the evaluation
 * @param v the entry: round and communication times, T, rho, rho_rand, T_eps, R_eps and Xi
 * @param what how failures name it
 */
void
ExpectMetrics(const ScheduleMetrics::Evaluation& e,
              const nlohmann::json& v,
              const std::string& what)
{
    ASSERT_EQ(e.rounds.size(), v["round_times_s"].size()) << what;
    for (uint32_t r = 0; r < e.rounds.size(); ++r)
    {
        ExpectClose(e.rounds[r].roundS, v["round_times_s"][r], what + " T_r");
        ExpectClose(e.rounds[r].commS, v["comm_times_s"][r], what + " T_comm");
    }
    ExpectClose(e.periodS, v["T_period_s"], what + " T");
    ExpectClose(e.rhoPeriod, v["rho_period"], what + " rho");
    ExpectClose(e.rhoRandom, v["rho_random_rotation"], what + " rho_rand");
    ExpectClose(e.tEpsS, v["T_eps_s"], what + " T_eps");
    ExpectClose(e.rEps, v["R_eps"], what + " R_eps");
    ExpectClose(e.xiS, v["Xi_s"], what + " Xi");
    EXPECT_TRUE(e.mixes) << what;
}

/**
 * @brief Evaluate every schedule and mode of a reference file of test/data on
 * topologies/reference-wan.json and compare every metric within the reference's tolerance.
 * @param file the file name in test/data
 * @param overlap the overlap setting the file's params block must hold
 */
void
ExpectReferenceValues(const std::string& file, bool overlap)
{
    WanTopology topology = WanTopology::LoadFile(SRC + "/topologies/reference-wan.json");
    auto ref = nlohmann::json::parse(ReadTextFile(SRC + "/test/data/" + file));
    EXPECT_EQ(ref["params"]["overlap"].get<bool>(), overlap) << file;
    // The access capacity of the params block is the topology file's, not a parameter.
    for (uint32_t i = 0; i < topology.GetNCities(); ++i)
    {
        EXPECT_EQ(topology.GetCity(i).accessCapacityGbps, ref["params"]["access_gbps"]);
    }
    ScheduleMetrics metrics(topology, ReferenceSettings(ref["params"]));
    uint32_t evaluations = 0;
    for (const auto& [name, entry] : ref["schedules"].items())
    {
        nlohmann::json doc;
        doc["rounds"] = entry["rounds"];
        CliqueSchedule schedule = CliqueSchedule::Parse(doc.dump(), name, topology);
        for (const auto& [modeName, v] : entry["modes"].items())
        {
            std::string what = file + ": " + name + " / " + modeName;
            ExpectMetrics(metrics.Evaluate(schedule, CapabilityModeFromString(modeName)), v, what);
            ++evaluations;
        }
    }
    EXPECT_EQ(evaluations, 18U) << file;
}

} // namespace

TEST(ScheduleMetrics, ReferenceValuesAreReproducedForEveryScheduleAndMode)
{
    ExpectReferenceValues("reference-values.json", false);
}

TEST(ScheduleMetrics, OverlapReferenceValuesAreReproducedForEveryScheduleAndMode)
{
    ExpectReferenceValues("reference-values-overlap.json", true);
}

TEST(ScheduleMetrics, MixedReferenceValuesAreReproducedForEverySchedule)
{
    // Cliques of one round with different algorithms (doc/schedule-model.rst, "Time of a mixed
    // round"); the last schedule separates the rule from its near readings.
    WanTopology topology = WanTopology::LoadFile(SRC + "/topologies/reference-wan.json");
    auto ref = nlohmann::json::parse(ReadTextFile(SRC + "/test/data/reference-values-mixed.json"));
    ScheduleMetrics metrics(topology, ReferenceSettings(ref["params"]));
    uint32_t evaluations = 0;
    for (const auto& [name, entry] : ref["schedules"].items())
    {
        const CliqueSchedule schedule =
            CliqueSchedule::Parse(entry["schedule"].dump(), name, topology).Resolve({}, name);
        ExpectMetrics(metrics.Evaluate(schedule), entry["metrics"], name);
        ++evaluations;
    }
    EXPECT_EQ(evaluations, 4U);
}

TEST(ScheduleMetrics, AMixedRoundOfOneAlgorithmIsThatModesRound)
{
    // GetRoundCost with one algorithm per clique, all the same, is the mode's round; a ring
    // beside a non-ring clique slows it through the shared loads only where they meet.
    WanTopology topology = WanTopology::LoadFile(SRC + "/topologies/reference-wan.json");
    ScheduleMetrics::Settings settings;
    settings.modelBytes = 1e10;
    ScheduleMetrics metrics(topology, settings);
    const CliqueSchedule::Round round = {{0, 1, 2}, {3, 4, 5}, {6, 7, 8}};
    for (CapabilityMode mode : GetAllCapabilityModes())
    {
        const auto one = metrics.GetRoundCost(round, mode);
        const auto mixed = metrics.GetRoundCost(round, std::vector<CapabilityMode>(3, mode));
        EXPECT_EQ(mixed.commS, one.commS) << CapabilityModeToString(mode);
        EXPECT_EQ(mixed.loads, one.loads) << CapabilityModeToString(mode);
        EXPECT_EQ(mixed.criticalPath, one.criticalPath) << CapabilityModeToString(mode);
    }
    // Mixed: T_comm = max(A over the non-ring cliques, the ring's T_ring), each alone no larger.
    const std::vector<CapabilityMode> algorithms = {CapabilityMode::RING,
                                                    CapabilityMode::BOTH,
                                                    CapabilityMode::UNICAST};
    const auto mixed = metrics.GetRoundCost(round, algorithms);
    const auto ring = metrics.GetRoundCost({round[0]}, CapabilityMode::RING);
    EXPECT_GE(mixed.commS, ring.commS);
    double latencyS = 0;
    for (uint32_t c = 1; c < 3; ++c)
    {
        latencyS = std::max(latencyS,
                            metrics.GetLinkLoadModel().GetCliqueLatencyMs(round[c], algorithms[c]) /
                                1000.0);
    }
    EXPECT_DOUBLE_EQ(mixed.latencyS, latencyS);
    EXPECT_GE(mixed.commS, mixed.latencyS + mixed.bottleneckS - 1e-12);
}

TEST(ScheduleMetrics, AllReduceAndColocatedClosedForms)
{
    // All-reduce every T: D_0 = 0, so Xi = (N-1)/N T^2/2 / T = (N-1)/N T/2.
    for (uint32_t n : {2U, 5U, 9U, 32U})
    {
        for (double t : {0.5, 30.0, 94.1135})
        {
            Rounds rounds = CliqueSchedule::AllReduce(n).GetRounds();
            EXPECT_NEAR(ScheduleMetrics::GetXi(n, rounds, {t}), (n - 1.0) / n * t / 2, 1e-12 * t)
                << n << " " << t;
            EXPECT_NEAR(ScheduleMetrics::GetRho(n, rounds), 0.0, 1e-12);
            EXPECT_DOUBLE_EQ(ScheduleMetrics::GetTimeToEps(n, rounds, {t}, 1e-3), t);
        }
        EXPECT_DOUBLE_EQ(ScheduleMetrics::GetColocatedXi(n, 30.0), (n - 1.0) / n * 15.0);
    }
}

TEST(ScheduleMetrics, RingOfNineGossipSpectralGap)
{
    // The literature's ring of 9 (e.g. D-PSGD's ring, Metropolis-Hastings weights on a cycle):
    // every node averages itself and its two neighbours with weight 1/3, W = (I + A)/3. Its
    // eigenvalues are (1 + 2 cos(2 pi k / 9)) / 3; the second largest in modulus is
    // (1 + 2 cos(2 pi / 9)) / 3 = 0.844029629..., so the spectral gap 1 - ||W - J||_2 is
    // 0.155970371. (The clique model's own analogues are checked below: the model's rho_rand is
    // lambda_max(mean W - J), the same quantity for a symmetric W.)
    const uint32_t n = 9;
    Eigen::MatrixXd w = Eigen::MatrixXd::Zero(n, n);
    for (uint32_t i = 0; i < n; ++i)
    {
        w(i, i) = 1.0 / 3;
        w(i, (i + 1) % n) = 1.0 / 3;
        w(i, (i + n - 1) % n) = 1.0 / 3;
    }
    EXPECT_NEAR(1 - ScheduleMetrics::GetDisagreementNorm(w), 0.155970371, 1e-9);
    EXPECT_NEAR(1 - (1 + 2 * std::cos(2 * M_PI / 9)) / 3, 0.155970371, 1e-9);
}

TEST(ScheduleMetrics, HypercubePairsOnEightIslandsReachJInThreeRounds)
{
    // Round d pairs i with i XOR 2^d: after the three dimensions every island holds the mean.
    const uint32_t n = 8;
    Rounds rounds(3);
    for (uint32_t d = 0; d < 3; ++d)
    {
        for (uint32_t i = 0; i < n; ++i)
        {
            if (!(i & (1U << d)))
            {
                rounds[d].push_back({i, i | (1U << d)});
            }
        }
    }
    Eigen::MatrixXd j = Eigen::MatrixXd::Constant(n, n, 1.0 / n);
    Eigen::MatrixXd twoRounds = ScheduleMetrics::GetPeriodProduct(n, {rounds[0], rounds[1]});
    EXPECT_NEAR(ScheduleMetrics::GetDisagreementNorm(twoRounds), 1.0, 1e-12);
    EXPECT_LT((ScheduleMetrics::GetPeriodProduct(n, rounds) - j).cwiseAbs().maxCoeff(), 1e-15);
    EXPECT_NEAR(ScheduleMetrics::GetRho(n, rounds), 0.0, 1e-12);
    // From every phase exactly three rounds are needed: T_eps is the whole period.
    EXPECT_DOUBLE_EQ(ScheduleMetrics::GetTimeToEps(n, rounds, {1, 2, 4}, 1e-9), 7.0);
    // On the character chi_s(i) = (-1)^(s.i) round d's matrix has eigenvalue 1 when bit d of s is
    // 0 and 0 otherwise, so mean W has (zero bits of s)/3: rho_rand = 2/3 (s with one bit).
    EXPECT_NEAR(ScheduleMetrics::GetRandomRotationRho(n, rounds), 2.0 / 3, 1e-12);
}

TEST(ScheduleMetrics, ExactTwoRoundFormula)
{
    // Two rounds whose products in both orders are J: round 1 splits N = 6 into c1 = 2 groups
    // {0,1,2}, {3,4,5}; round 2 takes one member of each group, c2 = 3 cliques {0,3}, {1,4},
    // {2,5}. With E = I - J and W2 W1 = W1 W2 = J (and J E = 0, W E W = W - J):
    //   Sigma_0 = Q = W2 (W1 T1 E W1 + T2 E) W2 = T1 W2 W1 E W1 W2 + T2 (W2 - J) = T2 (W2 - J),
    //   Sigma_1 = W1 (Sigma_0 + T1 E) W1 = T2 (W1 W2 W1 - J) + T1 (W1 - J) = T1 (W1 - J),
    // and tr(W - J) = (number of cliques) - 1, so D_0 = T2 (c2 - 1)/N, D_1 = T1 (c1 - 1)/N:
    //   Xi = [T1 T2 (c2 - 1)/N + T2 T1 (c1 - 1)/N + (N-1)/N (T1^2 + T2^2)/2] / (T1 + T2).
    const uint32_t n = 6;
    Rounds rounds{{{0, 1, 2}, {3, 4, 5}}, {{0, 3}, {1, 4}, {2, 5}}};
    for (auto [t1, t2] : {std::make_pair(10.0, 25.0), std::make_pair(3.0, 3.0)})
    {
        double c1 = 2;
        double c2 = 3;
        double expected = (t1 * t2 * (c2 - 1) / n + t2 * t1 * (c1 - 1) / n +
                           (n - 1.0) / n * (t1 * t1 + t2 * t2) / 2) /
                          (t1 + t2);
        EXPECT_NEAR(ScheduleMetrics::GetXi(n, rounds, {t1, t2}), expected, 1e-12 * expected);
        EXPECT_NEAR(ScheduleMetrics::GetRho(n, rounds), 0.0, 1e-12);
        EXPECT_DOUBLE_EQ(ScheduleMetrics::GetTimeToEps(n, rounds, {t1, t2}, 1e-3), t1 + t2);
    }
    // 10 s and 25 s: (250 * 2/6 + 250/6 + 5/6 * 725/2) / 35 = 427.0833.../35.
    EXPECT_NEAR(ScheduleMetrics::GetXi(n, rounds, {10, 25}), (125.0 + 302.083333333333) / 35, 1e-9);
}

TEST(ScheduleMetrics, PairOfIslandsAlternatingWithASingleton)
{
    // N = 2, one pair round of T1 and one idle round of T2: a hand-solved Lyapunov case with
    // rho = 0. D_0 (after the idle round) = T2 (N-1)/N = T2/2, D_1 (after the pair) = 0, so
    // Xi = [T1 T2/2 + (T1^2 + T2^2)/4] / (T1 + T2).
    Rounds rounds{{{0, 1}}, {}};
    double t1 = 4;
    double t2 = 6;
    double expected = (t1 * t2 / 2 + (t1 * t1 + t2 * t2) / 4) / (t1 + t2);
    EXPECT_NEAR(ScheduleMetrics::GetXi(2, rounds, {t1, t2}), expected, 1e-12);
    // Worst phase: starting at the idle round, both rounds pass before consensus.
    EXPECT_DOUBLE_EQ(ScheduleMetrics::GetTimeToEps(2, rounds, {t1, t2}, 1e-3), t1 + t2);
}

TEST(ScheduleMetrics, LyapunovSolutionAgreesWithTheKroneckerSystem)
{
    // Independent check of the doubling iteration: solve (I - A (x) A) vec(X) = vec(Q) directly
    // (A = Phi - J has spectral radius < 1 on a mixing schedule, J's direction maps to 0).
    const uint32_t n = 7;
    Rounds rounds = Irregular();
    std::vector<double> times{3.0, 5.0, 2.0};
    Eigen::MatrixXd j = Eigen::MatrixXd::Constant(n, n, 1.0 / n);
    Eigen::MatrixXd e = Eigen::MatrixXd::Identity(n, n) - j;
    Eigen::MatrixXd q = Eigen::MatrixXd::Zero(n, n);
    for (std::size_t r = 0; r < rounds.size(); ++r)
    {
        Eigen::MatrixXd w = ScheduleMetrics::GetRoundMatrix(n, rounds[r]);
        q = w * (q + times[r] * e) * w;
    }
    Eigen::MatrixXd a = ScheduleMetrics::GetPeriodProduct(n, rounds) - j;
    Eigen::MatrixXd kron(n * n, n * n);
    for (uint32_t r = 0; r < n; ++r)
    {
        for (uint32_t c = 0; c < n; ++c)
        {
            kron.block(r * n, c * n, n, n) = a(r, c) * a;
        }
    }
    Eigen::MatrixXd system = Eigen::MatrixXd::Identity(n * n, n * n) - kron;
    Eigen::VectorXd vecQ = Eigen::Map<Eigen::VectorXd>(q.data(), n * n);
    Eigen::VectorXd vecX = system.fullPivLu().solve(vecQ);
    Eigen::MatrixXd sigma = Eigen::Map<Eigen::MatrixXd>(vecX.data(), n, n);
    double numerator = 0;
    double total = 0;
    for (std::size_t r = 0; r < rounds.size(); ++r)
    {
        numerator += times[r] * sigma.trace() / n + (n - 1.0) / n * times[r] * times[r] / 2;
        total += times[r];
        Eigen::MatrixXd w = ScheduleMetrics::GetRoundMatrix(n, rounds[r]);
        sigma = w * (sigma + times[r] * e) * w;
    }
    double xi = ScheduleMetrics::GetXi(n, rounds, times);
    EXPECT_NEAR(xi, numerator / total, 1e-10 * xi);
    EXPECT_GT(ScheduleMetrics::GetRho(n, rounds), 0.1);
    EXPECT_GE(xi, ScheduleMetrics::GetXiLowerBound(n, times));
}

TEST(ScheduleMetrics, RotationAndRepetitionLeaveTheMetricsUnchanged)
{
    const uint32_t n = 7;
    Rounds rounds = Irregular();
    std::vector<double> times{3.0, 5.0, 2.0};
    double xi = ScheduleMetrics::GetXi(n, rounds, times);
    double tEps = ScheduleMetrics::GetTimeToEps(n, rounds, times, 1e-3);
    double rhoRand = ScheduleMetrics::GetRandomRotationRho(n, rounds);
    // The decay rate: the spectral radius of Phi - J, the same for every rotation (the
    // eigenvalues of AB and BA agree) and the square root of that of the repetition.
    auto spectralRadius = [n](const Rounds& r) {
        Eigen::MatrixXd a =
            ScheduleMetrics::GetPeriodProduct(n, r) - Eigen::MatrixXd::Constant(n, n, 1.0 / n);
        return a.eigenvalues().cwiseAbs().maxCoeff();
    };
    double radius = spectralRadius(rounds);
    for (uint32_t shift = 1; shift < rounds.size(); ++shift)
    {
        Rounds rotated(rounds.begin() + shift, rounds.end());
        rotated.insert(rotated.end(), rounds.begin(), rounds.begin() + shift);
        std::vector<double> rotatedTimes(times.begin() + shift, times.end());
        rotatedTimes.insert(rotatedTimes.end(), times.begin(), times.begin() + shift);
        EXPECT_NEAR(ScheduleMetrics::GetXi(n, rotated, rotatedTimes), xi, 1e-10 * xi);
        EXPECT_DOUBLE_EQ(ScheduleMetrics::GetTimeToEps(n, rotated, rotatedTimes, 1e-3), tEps);
        EXPECT_NEAR(ScheduleMetrics::GetRandomRotationRho(n, rotated), rhoRand, 1e-12);
        EXPECT_NEAR(spectralRadius(rotated), radius, 1e-10);
    }
    Rounds twice(rounds);
    twice.insert(twice.end(), rounds.begin(), rounds.end());
    std::vector<double> twiceTimes(times);
    twiceTimes.insert(twiceTimes.end(), times.begin(), times.end());
    EXPECT_NEAR(ScheduleMetrics::GetXi(n, twice, twiceTimes), xi, 1e-10 * xi);
    EXPECT_DOUBLE_EQ(ScheduleMetrics::GetTimeToEps(n, twice, twiceTimes, 1e-3), tEps);
    EXPECT_NEAR(ScheduleMetrics::GetRandomRotationRho(n, twice), rhoRand, 1e-12);
    EXPECT_NEAR(std::sqrt(spectralRadius(twice)), radius, 1e-10);
    // The spectral norm per period is submultiplicative: a repeated period contracts at least
    // as fast per round.
    double rho = ScheduleMetrics::GetRho(n, rounds);
    EXPECT_LE(ScheduleMetrics::GetRho(n, twice), rho * rho + 1e-12);
    EXPECT_LE(radius, rho + 1e-12);
}

TEST(ScheduleMetrics, RelabellingIslandsLeavesEveryMetricUnchanged)
{
    // The reference topology with its cities listed in another order (indices change, ids and
    // routes do not), and the same schedules by id: times, rho, T_eps, Xi and (except for the
    // orientation of rings, see below) every link load are unchanged. A ring's time is its
    // step recursion on its own cycle: the ring order rule breaks ties between cycles of equal
    // (largest hop, sum of hops) by city index, so a relabelled clique may run another tied
    // cycle, with another time. Ring times are compared where every ring is the same cycle (in
    // either direction); elsewhere the two cycles must tie under the ring order rule.
    std::string text = ReadTextFile(SRC + "/topologies/reference-wan.json");
    auto doc = nlohmann::json::parse(text);
    auto cities = doc["cities"];
    std::reverse(cities.begin(), cities.end());
    std::rotate(cities.begin(), cities.begin() + 4, cities.end());
    doc["cities"] = cities;
    WanTopology original = WanTopology::Parse(text, "original");
    WanTopology relabelled = WanTopology::Parse(doc.dump(), "relabelled");
    std::vector<uint32_t> perm(original.GetNCities());
    for (uint32_t i = 0; i < perm.size(); ++i)
    {
        perm[i] = relabelled.GetCityIndex(original.GetCity(i).id);
    }
    ASSERT_NE(perm[0], 0U);
    ScheduleMetrics::Settings settings;
    settings.modelBytes = 5e10;
    settings.computeS = 12;
    ScheduleMetrics a(original, settings);
    ScheduleMetrics b(relabelled, settings);
    const uint32_t n = original.GetNCities();
    std::vector<Rounds> schedules{CliqueSchedule::LatinTriples(n).GetRounds(),
                                  CliqueSchedule::RoundRobinPairs(n).GetRounds(),
                                  {{{0, 4, 7, 8}, {1, 2, 3, 5, 6}}, {{0, 1, 2, 3}}}};
    // Whether every ring of a round is the same cycle after relabelling; when not, the two
    // cycles tie under the ring order rule.
    auto sameRings = [&](const CliqueSchedule::Round& round) {
        bool same = true;
        for (const CliqueSchedule::Clique& clique : round)
        {
            std::vector<uint32_t> mapped;
            for (uint32_t i : a.GetLinkLoadModel().GetRingOrder(clique))
            {
                mapped.push_back(perm[i]);
            }
            std::vector<uint32_t> image = Relabel({{clique}}, perm)[0][0];
            std::vector<uint32_t> other = b.GetLinkLoadModel().GetRingOrder(image);
            if (!SameCycle(mapped, other))
            {
                same = false;
                auto score = [&relabelled](const std::vector<uint32_t>& order) {
                    double largest = 0;
                    double sum = 0;
                    for (std::size_t t = 0; t < order.size(); ++t)
                    {
                        double h =
                            relabelled.GetRoute(order[t], order[(t + 1) % order.size()]).latencyMs;
                        largest = std::max(largest, h);
                        sum += h;
                    }
                    return std::make_pair(largest, sum);
                };
                EXPECT_NEAR(score(mapped).first, score(other).first, 1e-9);
                EXPECT_NEAR(score(mapped).second, score(other).second, 1e-9);
            }
        }
        return same;
    };
    uint32_t ringRoundsCompared = 0;
    for (const Rounds& rounds : schedules)
    {
        bool ringsSame = true;
        for (const CliqueSchedule::Round& round : rounds)
        {
            ringsSame = sameRings(round) && ringsSame;
        }
        for (CapabilityMode mode : GetAllCapabilityModes())
        {
            auto x = a.Evaluate(CliqueSchedule(n, rounds), mode);
            auto y = b.Evaluate(CliqueSchedule(n, Relabel(rounds, perm)), mode);
            std::string what = CapabilityModeToString(mode);
            const bool times = mode != CapabilityMode::RING || ringsSame;
            if (times)
            {
                EXPECT_NEAR(y.periodS, x.periodS, 1e-12 * x.periodS) << what;
                EXPECT_NEAR(y.xiS, x.xiS, 1e-9 * x.xiS) << what;
                EXPECT_NEAR(y.tEpsS, x.tEpsS, 1e-9 * x.tEpsS) << what;
            }
            EXPECT_NEAR(y.rhoPeriod, x.rhoPeriod, 1e-9) << what;
            EXPECT_NEAR(y.rhoRandom, x.rhoRandom, 1e-9) << what;
            for (uint32_t r = 0; r < rounds.size(); ++r)
            {
                if (mode == CapabilityMode::RING && sameRings(rounds[r]))
                {
                    ++ringRoundsCompared;
                }
                if (mode != CapabilityMode::RING || sameRings(rounds[r]))
                {
                    EXPECT_NEAR(y.rounds[r].commS, x.rounds[r].commS, 1e-12 * x.periodS) << what;
                }
                // A ring and its reverse tie; the reference orders that tie by city index, so
                // a relabelled ring may run the other way: same times, mirrored link loads.
                for (uint32_t d = 0;
                     mode != CapabilityMode::RING && d < original.GetNDirectedLinks();
                     ++d)
                {
                    std::string name = original.GetDirectedLinkName(d);
                    uint32_t e = 0;
                    while (relabelled.GetDirectedLinkName(e) != name)
                    {
                        ++e;
                    }
                    EXPECT_EQ(y.rounds[r].loads[e], x.rounds[r].loads[d]) << what << " " << name;
                }
            }
        }
    }
    // Every round but the five-member ring's (a tied cycle) keeps its rings.
    EXPECT_EQ(ringRoundsCompared, 2U + n + 1U);
}

TEST(ScheduleMetrics, NonMixingScheduleHasInfiniteXiAndTEps)
{
    WanTopology topology = WanTopology::LoadFile(SRC + "/topologies/reference-wan.json");
    ScheduleMetrics::Settings settings;
    settings.modelBytes = 1e9;
    settings.computeS = 1;
    ScheduleMetrics metrics(topology, settings);
    // Two regions that never meet.
    CliqueSchedule split(9, {{{0, 1, 2, 3}, {4, 5, 6, 7, 8}}, {{0, 2}, {5, 8}}});
    auto e = metrics.Evaluate(split, CapabilityMode::UNICAST);
    EXPECT_FALSE(e.mixes);
    EXPECT_TRUE(std::isinf(e.xiS));
    EXPECT_TRUE(std::isinf(e.tEpsS));
    EXPECT_EQ(e.rEps, 0.0);
    EXPECT_NEAR(e.rhoPeriod, 1.0, 1e-12);
    EXPECT_GT(e.periodS, 0.0);
}

TEST(ScheduleMetrics, RoundTimesWithAndWithoutOverlap)
{
    WanTopology topology = WanTopology::LoadFile(SRC + "/topologies/reference-wan.json");
    ScheduleMetrics::Settings settings;
    settings.modelBytes = 1e11;
    settings.computeS = 30;
    ScheduleMetrics serial(topology, settings);
    settings.overlap = true;
    ScheduleMetrics overlapped(topology, settings);
    // All-reduce unicast: 8 copies through each 100 Gbps access link, 8 x 8e11 / 1e11 = 64 s,
    // plus the largest route latency 113.5 ms (LON -> TYO).
    CliqueSchedule all = CliqueSchedule::AllReduce(9);
    auto s = serial.Evaluate(all, CapabilityMode::UNICAST);
    auto o = overlapped.Evaluate(all, CapabilityMode::UNICAST);
    EXPECT_NEAR(s.rounds[0].commS, 64.1135, 1e-9);
    EXPECT_NEAR(s.rounds[0].roundS, 94.1135, 1e-9);
    EXPECT_NEAR(o.rounds[0].roundS, 64.1135, 1e-9);
    EXPECT_NEAR(s.rounds[0].latencyS, 0.1135, 1e-12);
    // 64 s on every access link and on FRA->SIN (8 routes x 1e11 B at 100 Gbps).
    EXPECT_NEAR(s.rounds[0].bottleneckS, 64.0, 1e-12);
    // A round of singletons costs only the compute.
    CliqueSchedule idle(9, {{}, {{0, 1}}});
    auto i = overlapped.Evaluate(idle, CapabilityMode::BOTH);
    EXPECT_EQ(i.rounds[0].commS, 0.0);
    EXPECT_EQ(i.rounds[0].roundS, 30.0);
    // Bad settings are input errors.
    settings.modelBytes = -1;
    EXPECT_THROW(ScheduleMetrics(topology, settings), WanInputError);
    settings.modelBytes = 1;
    settings.eps = 1;
    EXPECT_THROW(ScheduleMetrics(topology, settings), WanInputError);
    settings.eps = 1e-3;
    settings.computeS = -2;
    EXPECT_THROW(ScheduleMetrics(topology, settings), WanInputError);
}

TEST(ScheduleMetrics, OverlapRoundTimeIsTheLargerOfComputeAndCommunication)
{
    // All-reduce unicast on the reference WAN: T_comm = 64.1135 s (RoundTimesWithAndWithout-
    // Overlap). tau_c = 20 s is communication bound (T_comm >= 2 tau_c), 100 s compute bound.
    WanTopology topology = WanTopology::LoadFile(SRC + "/topologies/reference-wan.json");
    ScheduleMetrics::Settings settings;
    settings.modelBytes = 1e11;
    settings.overlap = true;
    CliqueSchedule all = CliqueSchedule::AllReduce(9);
    for (double tau : {0.0, 20.0, 64.1135, 100.0})
    {
        settings.computeS = tau;
        ScheduleMetrics metrics(topology, settings);
        auto e = metrics.Evaluate(all, CapabilityMode::UNICAST);
        EXPECT_NEAR(e.rounds[0].commS, 64.1135, 1e-9);
        EXPECT_DOUBLE_EQ(e.rounds[0].roundS, std::max(tau, e.rounds[0].commS)) << tau;
        EXPECT_DOUBLE_EQ(metrics.GetRoundTime(10.0), std::max(tau, 10.0)) << tau;
    }
    settings.computeS = 20;
    EXPECT_GE(
        ScheduleMetrics(topology, settings).Evaluate(all, CapabilityMode::UNICAST).rounds[0].commS,
        2 * settings.computeS);
}

TEST(ScheduleMetrics, RoundEndsFillTheOverlapPipelineOnce)
{
    auto expectEnds = [](double computeS,
                         const std::vector<double>& comm,
                         bool overlap,
                         const std::vector<double>& expected) {
        const std::vector<double> ends = ScheduleMetrics::GetRoundEnds(computeS, comm, overlap);
        ASSERT_EQ(ends.size(), expected.size());
        for (size_t r = 0; r < ends.size(); ++r)
        {
            EXPECT_DOUBLE_EQ(ends[r], expected[r]) << "round " << r << " overlap " << overlap;
        }
    };
    // Without overlap the ends are running sums of tau_c + T_comm.
    expectEnds(1.0, {0.3, 0.1, 0.4}, false, {1.3, 2.4, 3.8});
    // Compute-bound with overlap: e_r = (r + 1) tau_c + T_comm(r).
    expectEnds(1.0, {0.3, 0.1, 0.4}, true, {1.3, 2.1, 3.4});
    // Communication-bound: each snapshot waits for the last average, e_r = tau_c + (r+1) T_comm.
    expectEnds(0.5, {2.0, 2.0, 2.0}, true, {2.5, 4.5, 6.5});
    // Mixed: round 1's snapshot waits for round 0's average (2.5), round 2's for round 1's
    // compute (2.5 + 1).
    expectEnds(1.0, {1.5, 0.25, 0.25}, true, {2.5, 2.75, 3.75});
    expectEnds(1.0, {}, true, {});
}

TEST(ScheduleMetrics, OverlapAllReduceClosedFormOnSeveralTopologies)
{
    // One all-island clique: Phi = J, so Y_0 = T (I - J) and W Y_0 W = 0:
    // Xi = [C (N-1)/N T + (N-1)/N T^2/2] / T = (N-1)/N (T_comm + T/2), T = max(tau_c, T_comm).
    SyntheticTopology::Options synthetic;
    synthetic.islands = 12;
    synthetic.regions = 3;
    std::vector<WanTopology> topologies{
        WanTopology::LoadFile(SRC + "/topologies/reference-wan.json"),
        WanTopology::LoadFile(SRC + "/topologies/doublezero-nine-city.json"),
        SyntheticTopology::Generate(synthetic)};
    for (const WanTopology& topology : topologies)
    {
        const uint32_t n = topology.GetNCities();
        for (double tau : {0.5, 30.0, 400.0})
        {
            ScheduleMetrics::Settings settings;
            settings.modelBytes = 1e11;
            settings.computeS = tau;
            settings.overlap = true;
            ScheduleMetrics metrics(topology, settings);
            for (CapabilityMode mode : GetAllCapabilityModes())
            {
                auto e = metrics.Evaluate(CliqueSchedule::AllReduce(n), mode);
                const double c = e.rounds[0].commS;
                const double t = std::max(tau, c);
                const double expected = (n - 1.0) / n * (c + t / 2);
                std::string what = topology.GetName() + " " + CapabilityModeToString(mode) + " " +
                                   std::to_string(tau);
                EXPECT_DOUBLE_EQ(e.periodS, t) << what;
                EXPECT_NEAR(e.xiS, expected, 1e-12 * expected) << what;
            }
        }
        // The static form at any C <= T.
        Rounds rounds = CliqueSchedule::AllReduce(n).GetRounds();
        EXPECT_NEAR(ScheduleMetrics::GetOverlapXi(n, rounds, {50}, {20}),
                    (n - 1.0) / n * (20 + 25),
                    1e-12 * 45);
    }
}

TEST(ScheduleMetrics, OverlapXiAgreesWithTheIteratedRecursion)
{
    // Independent of the doubling iteration: run Y_{r+1} = W_r Y_r W_r + T_r (I - J) from zero
    // for many periods (rho < 1, so it converges to the periodic steady state) and integrate the
    // disagreement of the last period by the formula's three terms.
    const uint32_t n = 7;
    Rounds rounds = Irregular();
    std::vector<double> times{3.0, 5.0, 2.0};
    std::vector<double> comm{1.0, 5.0, 0.5};
    Eigen::MatrixXd e = Eigen::MatrixXd::Identity(n, n) - Eigen::MatrixXd::Constant(n, n, 1.0 / n);
    Eigen::MatrixXd y = Eigen::MatrixXd::Zero(n, n);
    double numerator = 0;
    for (uint32_t period = 0; period < 2000; ++period)
    {
        numerator = 0;
        for (std::size_t r = 0; r < rounds.size(); ++r)
        {
            Eigen::MatrixXd w = ScheduleMetrics::GetRoundMatrix(n, rounds[r]);
            Eigen::MatrixXd averaged = w * y * w;
            numerator += comm[r] * y.trace() / n + (times[r] - comm[r]) * averaged.trace() / n +
                         (n - 1.0) / n * times[r] * times[r] / 2;
            y = averaged + times[r] * e;
        }
    }
    double xi = ScheduleMetrics::GetOverlapXi(n, rounds, times, comm);
    EXPECT_NEAR(xi, numerator / 10.0, 1e-10 * xi);
    EXPECT_GE(xi, ScheduleMetrics::GetXiLowerBound(n, times));
    // The average arriving at once (C_r = 0) is the serial process with each round's drift
    // averaged by the next round: GetXi with the rounds shifted by one against their times.
    Rounds shifted(rounds.begin() + 1, rounds.end());
    shifted.push_back(rounds.front());
    EXPECT_NEAR(ScheduleMetrics::GetOverlapXi(n, rounds, times, {0, 0, 0}),
                ScheduleMetrics::GetXi(n, shifted, times),
                1e-10 * xi);
    // A later average never helps: Xi grows with every C_r.
    EXPECT_LT(ScheduleMetrics::GetOverlapXi(n, rounds, times, {0.5, 5.0, 0.5}), xi);
    // A schedule that does not mix has no steady state.
    EXPECT_TRUE(std::isinf(ScheduleMetrics::GetOverlapXi(n, {{{0, 1}}}, {1}, {1})));
}

TEST(ScheduleMetrics, OverlapXiIsAtLeastItsLowerBoundOnRandomSchedules)
{
    // Xi under overlap is the bound's term plus time averages of traces of positive
    // semidefinite covariances, so the bound of the optimizer holds for it too.
    std::mt19937_64 random(20);
    uint32_t checked = 0;
    for (uint32_t trial = 0; trial < 300; ++trial)
    {
        const uint32_t n = 2 + random() % 8;
        const uint32_t p = 1 + random() % 4;
        Rounds rounds(p);
        std::vector<double> times;
        std::vector<double> comm;
        std::uniform_real_distribution<double> unit(0.0, 1.0);
        for (uint32_t r = 0; r < p; ++r)
        {
            // A random partition: each island joins one of up to n groups.
            std::vector<CliqueSchedule::Clique> groups(1 + random() % n);
            for (uint32_t i = 0; i < n; ++i)
            {
                groups[random() % groups.size()].push_back(i);
            }
            for (const auto& g : groups)
            {
                if (g.size() >= 2)
                {
                    rounds[r].push_back(g);
                }
            }
            comm.push_back(rounds[r].empty() ? 0.0 : 100 * unit(random));
            times.push_back(std::max(100 * unit(random), comm.back()) + 1e-3);
        }
        if (!ScheduleMetrics::Mixes(n, rounds))
        {
            continue;
        }
        double xi = ScheduleMetrics::GetOverlapXi(n, rounds, times, comm);
        double bound = ScheduleMetrics::GetXiLowerBound(n, times);
        EXPECT_GE(xi, bound * (1 - 1e-12)) << trial;
        EXPECT_TRUE(std::isfinite(xi)) << trial;
        ++checked;
    }
    EXPECT_GT(checked, 100U);
}
