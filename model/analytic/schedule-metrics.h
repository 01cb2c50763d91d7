/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef SCHEDULE_METRICS_H
#define SCHEDULE_METRICS_H

#include "clique-schedule.h"
#include "link-load-model.h"
#include "wan-topology.h"

#include <Eigen/Dense>
#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

/**
 * @ingroup wan-training
 * @brief The analytic cost and information exchange of a clique schedule (the schedule model of
 * doc/schedule-model.rst).
 *
 * Time: T_comm(r) = max over cliques of Lat(C) + max over directed links of
 * 8 S n_l(r) / (capacity_l x 1e9), with n_l(r) from LinkLoadModel; a round of singletons costs
 * nothing. T_r = tau_c + T_comm(r), or max(tau_c, T_comm(r)) with overlap. One formula serves
 * every mode: a ring's Lat(C) is LinkLoadModel's bound 2(k-1) x its largest hop latency, not the
 * step recursion of doc/schedule-model.rst, "The ring", and overlap changes T_r only, not the
 * form of Xi ("Xi under overlap" there is not implemented).
 *
 * Information exchange: the round matrices W_r (block averaging), the period product
 * Phi = W_P ... W_1, rho = ||Phi - J||_2, rho_rand = lambda_max(mean_r W_r - J), T_eps / R_eps,
 * and Xi, the drift consensus distance, from the periodic steady state of
 * Sigma_r = W_r (Sigma_{r-1} + T_r (I - J)) W_r. The steady state solves the discrete Lyapunov
 * equation Sigma_0 = A Sigma_0 A^T + Q with A = Phi - J (Phi restricted to the disagreement
 * subspace; ||A||_2 = rho < 1 when the schedule mixes) by the doubling iteration
 * X_{j+1} = X_j + A_j X_j A_j^T, A_{j+1} = A_j^2, which sums 2^j terms of the series after j steps.
 * It stops on a proven bound: the remainder is A_j X A_j^T, whose trace is at most
 * s / (1 - s) tr(X_j) with s = ||A_j||_F^2 >= ||A_j||_2^2, so the trace (hence Xi) is exact to a
 * relative 1e-15 once that bound is met; a schedule with rho = 0 stops at once.
 *
 * The static functions take rounds as lists of cliques so the optimizer can call them without
 * building a validated CliqueSchedule; they assume valid rounds.
 */
class ScheduleMetrics
{
  public:
    /** The settings a schedule is evaluated under. */
    struct Settings
    {
        double modelBytes{0}; //!< S, bytes of one model transfer (> 0)
        double computeS{0};   //!< tau_c, local compute per round in seconds (>= 0)
        bool overlap{false};  //!< whether compute overlaps communication
        double eps{1e-3};     //!< the target of T_eps, in (0, 1)
    };

    /** The cost of one round. */
    struct RoundCost
    {
        double commS{0};            //!< T_comm(r)
        double roundS{0};           //!< T_r
        double latencyS{0};         //!< the largest Lat(C) of the round
        double bottleneckS{0};      //!< the largest 8 S n_l / capacity
        uint32_t bottleneckLink{0}; //!< the directed link of bottleneckS (0 when idle)
        std::vector<double> loads;  //!< n_l(r), streams per directed link
    };

    /** Everything the schedule model defines for a schedule under a mode. */
    struct Evaluation
    {
        std::vector<RoundCost> rounds; //!< per round
        double periodS{0};             //!< T, the sum of the round times
        bool mixes{false};             //!< whether the union of the clique graphs is connected
        double rhoPeriod{0};           //!< ||Phi - J||_2
        double rhoPerRound{0};         //!< rho^(1/P)
        double rhoPerSecond{0};        //!< rho^(1/T)
        double rhoRandom{0};           //!< lambda_max(mean_r W_r - J)
        double tEpsS{0};               //!< T_eps (infinity when the schedule does not mix)
        double rEps{0};                //!< ln(1/eps) / T_eps (0 when it does not mix)
        double xiS{0};                 //!< Xi (infinity when the schedule does not mix)
        double xiColocatedS{0};        //!< (N-1)/N tau_c / 2
        double xiLowerBoundS{0};       //!< (N-1)/N sum T_r^2 / (2 sum T_r)
    };

    /**
     * @brief Build the evaluator of a topology.
     * @param topology the topology (copied)
     * @param settings the evaluation settings
     * @throws WanInputError (source `<settings>`) when a setting is out of range
     */
    ScheduleMetrics(const WanTopology& topology, const Settings& settings);

    /** @return the settings */
    const Settings& GetSettings() const;
    /** @return the link-load model */
    const LinkLoadModel& GetLinkLoadModel() const;

    /**
     * @param round the cliques of a round
     * @param mode the capability mode
     * @return its loads, T_comm and T_r
     */
    RoundCost GetRoundCost(const CliqueSchedule::Round& round, CapabilityMode mode) const;

    /**
     * @param commS T_comm of a round
     * @return T_r under the settings (compute plus or overlapped with communication)
     */
    double GetRoundTime(double commS) const;

    /**
     * @param schedule the schedule (on the topology's islands)
     * @param mode the capability mode
     * @return every metric of the schedule model
     */
    Evaluation Evaluate(const CliqueSchedule& schedule, CapabilityMode mode) const;

    /**
     * @param n number of islands
     * @param round the cliques of a round
     * @return W_r, the block averaging matrix (idle islands keep their model)
     */
    static Eigen::MatrixXd GetRoundMatrix(uint32_t n, const CliqueSchedule::Round& round);

    /**
     * @param n number of islands
     * @param rounds the rounds of a period
     * @return Phi = W_P ... W_1
     */
    static Eigen::MatrixXd GetPeriodProduct(uint32_t n,
                                            const std::vector<CliqueSchedule::Round>& rounds);

    /**
     * @param m a square matrix
     * @return ||m - J||_2, the spectral norm of its disagreement part
     */
    static double GetDisagreementNorm(const Eigen::MatrixXd& m);

    /**
     * @param n number of islands
     * @param rounds the rounds of a period
     * @return whether the union of the rounds' clique graphs is connected
     */
    static bool Mixes(uint32_t n, const std::vector<CliqueSchedule::Round>& rounds);

    /**
     * @param n number of islands
     * @param rounds the rounds of a period
     * @return rho = ||Phi - J||_2
     */
    static double GetRho(uint32_t n, const std::vector<CliqueSchedule::Round>& rounds);

    /**
     * @param n number of islands
     * @param rounds the rounds of a period
     * @return rho_rand = lambda_max(mean_r W_r - J)
     */
    static double GetRandomRotationRho(uint32_t n,
                                       const std::vector<CliqueSchedule::Round>& rounds);

    /**
     * @param n number of islands
     * @param rounds the rounds of a period
     * @param roundTimesS T_r of each round
     * @param eps the target of ||W_t ... W_1 - J||_2
     * @return T_eps: the worst over starting phase of the wall time (whole rounds) until the
     * product's disagreement norm is at most eps; infinity when the schedule does not mix
     */
    static double GetTimeToEps(uint32_t n,
                               const std::vector<CliqueSchedule::Round>& rounds,
                               const std::vector<double>& roundTimesS,
                               double eps);

    /**
     * @param n number of islands
     * @param rounds the rounds of a period
     * @param roundTimesS T_r of each round (positive)
     * @return Xi, the drift consensus distance in seconds; infinity when the schedule does not
     * mix
     */
    static double GetXi(uint32_t n,
                        const std::vector<CliqueSchedule::Round>& rounds,
                        const std::vector<double>& roundTimesS);

    /**
     * @param n number of islands
     * @param roundTimesS T_r of each round
     * @return the lower bound (N-1)/N sum T_r^2 / (2 sum T_r) of Xi
     */
    static double GetXiLowerBound(uint32_t n, const std::vector<double>& roundTimesS);

    /**
     * @param n number of islands
     * @param computeS tau_c
     * @return Xi of colocated training, (N-1)/N tau_c / 2
     */
    static double GetColocatedXi(uint32_t n, double computeS);

    /**
     * @brief Replace m by W m for a round (average the rows of each clique).
     * @param round the cliques
     * @param m the matrix, changed in place
     */
    static void AverageRows(const CliqueSchedule::Round& round, Eigen::MatrixXd& m);

    /**
     * @brief Replace m by m W for a round (average the columns of each clique).
     * @param round the cliques
     * @param m the matrix, changed in place
     */
    static void AverageColumns(const CliqueSchedule::Round& round, Eigen::MatrixXd& m);

  private:
    LinkLoadModel m_links;             //!< streams per link
    Settings m_settings;               //!< the settings
    std::vector<double> m_capacityBps; //!< capacity of each directed link in bit/s
};

} // namespace ns3

#endif /* SCHEDULE_METRICS_H */
