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
 * nothing. A round of rings instead costs the largest T_ring(C), the step recursion of
 * doc/schedule-model.rst, "The ring" (SolveRingSteps), with every hop's step time taken from
 * the round's loads (GetRingTime). T_r = tau_c + T_comm(r), or max(tau_c, T_comm(r)) with
 * overlap.
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
 * relative 1e-15 once that bound is met; a schedule with rho = 0 stops at once. With overlap
 * the average of round r arrives T_comm(r) after its snapshot: Xi is then GetOverlapXi, from
 * the snapshots' steady state Y_{r+1} = W_r Y_r W_r + T_r (I - J) (doc/schedule-model.rst,
 * "Xi under overlap"). Either way Xi >= GetXiLowerBound of the same round times.
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

    /**
     * The cost of one round. Latency and bandwidth separate for every mode but the ring:
     * commS = latencyS + bottleneckS. A ring's steps interleave waits and transfers, so for a
     * ring latencyS is what its recursion adds to the busiest link's time, commS - bottleneckS
     * (never negative: the busiest link lies on a hop whose 2(k-1) steps alone take that long),
     * and criticalPath / chainLatencyS describe the chain of hops that T_comm follows.
     */
    struct RoundCost
    {
        double commS{0};                    //!< T_comm(r)
        double roundS{0};                   //!< T_r
        double latencyS{0};                 //!< the largest Lat(C); ring: commS - bottleneckS
        double bottleneckS{0};              //!< the largest 8 S n_l / capacity
        uint32_t bottleneckLink{0};         //!< the directed link of bottleneckS (0 when idle)
        std::vector<double> loads;          //!< n_l(r), streams per directed link
        std::vector<uint32_t> criticalPath; //!< ring: cities of the critical hop chain, in
                                            //!< time order (empty otherwise or when idle)
        double chainLatencyS{0};            //!< ring: the sum of that chain's hop latencies
        /** Per clique, its own time under the round's loads n_l(r): a ring clique's T_ring, any
         *  other clique of two or more its Lat(C) + the busiest link its own streams use, 0 for
         *  a clique of one. Not the round's T_comm (which is at least each of them): what a
         *  clique of a mixed round takes by itself, e.g. to compare with its simulated time. */
        std::vector<double> cliqueCommS;
    };

    /** The hops of a ring clique in ring order, as the step recursion needs them. */
    struct RingHops
    {
        std::vector<uint32_t> order;              //!< the ring order c_0 ... c_k-1
        std::vector<double> latencyS;             //!< h_t, latency of route c_t -> c_t+1
        std::vector<std::vector<uint32_t>> links; //!< the directed links of that route
    };

    /** T_ring(C) and the critical chain of the step recursion. */
    struct RingTime
    {
        double timeS{0};         //!< T_ring(C), 0 for fewer than two hops
        uint32_t firstHop{0};    //!< the first hop whose latency the critical chain counts
        uint32_t hops{0};        //!< hop latencies on the chain: firstHop, firstHop + 1, ...
        double chainLatencyS{0}; //!< the sum of those latencies
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
     * @throws WanConfigError (field `fpga`) under TREE for a clique that is not a tree clique
     * (LinkLoadModel::CheckFpgaPlacement): it has no cost, since it cannot run
     */
    RoundCost GetRoundCost(const CliqueSchedule::Round& round, CapabilityMode mode) const;
    /**
     * @brief The cost of a mixed round (doc/schedule-model.rst, "Time of a mixed round"): the
     * loads sum every clique's streams by its own algorithm; T_comm = max(A, the largest
     * T_ring of its ring cliques under those loads), A = the largest Lat(C) of its other
     * cliques of two or more members + the busiest link among those their streams use (A = 0
     * without such cliques).
     *
     * latencyS, bottleneckS and bottleneckLink describe A (without non-ring cliques: the
     * busiest link of all, latencyS = commS - bottleneckS); criticalPath and chainLatencyS the
     * slowest ring when a ring sets T_comm.
     * @param round the cliques of a round
     * @param algorithms the algorithm of each clique (one-member cliques: ignored)
     * @return its loads, T_comm and T_r
     * @throws WanConfigError (field `fpga`) for a tree clique across a router without an FPGA
     */
    RoundCost GetRoundCost(const CliqueSchedule::Round& round,
                           const std::vector<CapabilityMode>& algorithms) const;

    /**
     * @param clique the member islands (two or more)
     * @return its ring order, hop latencies and hop routes' links
     */
    RingHops GetRingHops(const CliqueSchedule::Clique& clique) const;

    /**
     * @brief The ring's step recursion of doc/schedule-model.rst, "The ring".
     *
     * F(t, 0) = beta_t, F(t, s) = max(F(t, s-1), F(t-1, s-1) + h_{t-1}) + beta_t for
     * s = 1 ... 2k-3 (hop indices mod k), T_ring = max_t F(t, 2k-3) + h_t. The critical chain
     * is traced back from the first hop t that attains the maximum; at a tie between waiting for
     * the hop's own previous step and for the predecessor's, the chain takes the predecessor.
     * @param hopLatencyS h_t for each of the k hops (k >= 2; fewer gives a zero time)
     * @param stepS beta_t, the time hop t takes to send one step
     * @return T_ring and its critical chain
     */
    static RingTime SolveRingSteps(const std::vector<double>& hopLatencyS,
                                   const std::vector<double>& stepS);

    /**
     * @brief T_ring(C) under a round's loads: beta_t = max over the links l of hop t's route of
     * linkS[l] / (2(k-1)), then SolveRingSteps.
     * @param hops the ring's hops
     * @param linkS 8 S n_l(r) / (capacity_l x 1e9) per directed link, the round's loads
     * @return T_ring and its critical chain
     */
    static RingTime GetRingTime(const RingHops& hops, const std::vector<double>& linkS);

    /**
     * @param computeS tau_c
     * @param commS T_comm of a round
     * @param overlap whether compute overlaps communication
     * @return T_r: tau_c + T_comm, or max(tau_c, T_comm) with overlap
     */
    static double GetRoundTime(double computeS, double commS, bool overlap);
    /**
     * @brief When each of a run's rounds ends, from t = 0, as the islands run them: without
     * overlap round r ends tau_c + T_comm(r) after round r-1; with overlap round r's snapshot
     * is at s_r = max(s_(r-1) + tau_c, e_(r-1)) (s_0 = tau_c: its compute, then the average of
     * round r-1) and it ends at e_r = s_r + T_comm(r). So the first round takes tau_c + T_comm
     * in both (nothing overlaps it), and the rounds after it max(tau_c, T_comm) from snapshot
     * to snapshot (GetRoundTime); a mean over a run's round ends holds the pipeline's fill.
     * @param computeS tau_c
     * @param commS T_comm of each round, in order
     * @param overlap whether compute overlaps communication
     * @return e_r for every round
     */
    static std::vector<double> GetRoundEnds(double computeS,
                                            const std::vector<double>& commS,
                                            bool overlap);
    /**
     * @param commS T_comm of a round
     * @return T_r under the settings (compute plus or overlapped with communication)
     */
    double GetRoundTime(double commS) const;

    /**
     * @param schedule the schedule (on the topology's islands)
     * @param mode the capability mode
     * @return every metric of the schedule model
     * @throws WanConfigError (field `fpga`) under TREE for a clique that is not a tree clique,
     * naming its schedule round (LinkLoadModel::CheckFpgaPlacement)
     */
    Evaluation Evaluate(const CliqueSchedule& schedule, CapabilityMode mode) const;
    /**
     * @param schedule the schedule, every clique of two or more members with its algorithm
     *        (CliqueSchedule::Resolve)
     * @return every metric of the schedule model, each round timed as a mixed round
     * @throws WanConfigError (field `fpga`) for a tree clique across a router without an FPGA,
     * naming its schedule round; (field `mode`) for a clique without an algorithm
     */
    Evaluation Evaluate(const CliqueSchedule& schedule) const;

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
     * @brief Xi under overlap: the islands snapshot x_r, compute on, and apply round r's average
     * when it arrives, C_r = T_comm(r) after the snapshot.
     *
     * Y_r, the covariance of the snapshots, follows Y_{r+1} = W_r Y_r W_r + T_r (I - J) in its
     * periodic steady state (the Lyapunov equation as for GetXi), and
     * Xi = sum_r [C_r tr(Y_r)/N + (T_r - C_r) tr(W_r Y_r W_r)/N + (N-1)/N T_r^2/2] / sum_r T_r.
     * All-reduce gives (N-1)/N (T_comm + T/2).
     * @param n number of islands
     * @param rounds the rounds of a period
     * @param roundTimesS T_r of each round (positive in sum)
     * @param commTimesS C_r = T_comm(r) of each round, 0 <= C_r <= T_r
     * @return Xi in seconds; infinity when the schedule does not mix
     */
    static double GetOverlapXi(uint32_t n,
                               const std::vector<CliqueSchedule::Round>& rounds,
                               const std::vector<double>& roundTimesS,
                               const std::vector<double>& commTimesS);

    /**
     * @param rounds the rounds of a period (on the topology's islands)
     * @param commTimesS T_comm(r) of each round
     * @return Xi under the settings: GetOverlapXi with overlap, else GetXi, of the round times
     * GetRoundTime(T_comm(r))
     */
    double GetScheduleXi(const std::vector<CliqueSchedule::Round>& rounds,
                         const std::vector<double>& commTimesS) const;

    /**
     * @brief The lower bound (N-1)/N sum T_r^2 / (2 sum T_r) of Xi, with or without overlap.
     *
     * Both forms of Xi are this term plus the time average of traces of covariance matrices,
     * which are positive semidefinite (sums of congruences W M W of positive semidefinite
     * terms), so the bound holds under overlap too, for the overlapped T_r.
     * @param n number of islands
     * @param roundTimesS T_r of each round
     * @return the lower bound
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
    /**
     * @brief Xi, serial (GetXi) or under overlap (GetOverlapXi): the periodic steady state of
     * the covariance, then its time average over the period.
     * @param n number of islands
     * @param rounds the rounds of a period
     * @param roundTimesS T_r of each round
     * @param commTimesS C_r of each round under overlap; null for the serial form
     * @return Xi; infinity when the schedule does not mix
     */
    static double GetDriftXi(uint32_t n,
                             const std::vector<CliqueSchedule::Round>& rounds,
                             const std::vector<double>& roundTimesS,
                             const std::vector<double>* commTimesS);

    LinkLoadModel m_links;             //!< streams per link
    Settings m_settings;               //!< the settings
    std::vector<double> m_capacityBps; //!< capacity of each directed link in bit/s
};

} // namespace ns3

#endif /* SCHEDULE_METRICS_H */
