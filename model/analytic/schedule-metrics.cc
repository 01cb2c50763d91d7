/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "schedule-metrics.h"

#include "ns3/abort.h"
#include "ns3/log.h"

#include <Eigen/Eigenvalues>
#include <Eigen/SVD>
#include <cmath>
#include <limits>
#include <numeric>
#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("WanTrainingScheduleMetrics");

namespace
{

/** Relative accuracy at which the doubling iteration of the Lyapunov equation stops. */
constexpr double LYAPUNOV_TOLERANCE = 1e-15;
/** Doublings after which the iteration has summed 2^200 terms and must have stopped. */
constexpr uint32_t MAX_DOUBLINGS = 200;

/**
 * @param value a number
 * @return it as text, with full precision
 */
std::string
Text(double value)
{
    std::ostringstream out;
    out.precision(17);
    out << value;
    return out.str();
}

/**
 * @param n number of islands
 * @return J = 11^T / N
 */
Eigen::MatrixXd
Averaging(uint32_t n)
{
    return Eigen::MatrixXd::Constant(n, n, 1.0 / n);
}

/**
 * @brief The periodic steady state X = A X A^T + Q by doubling (see the class documentation for
 * the stopping bound).
 * @param a A = Phi - J
 * @param q the covariance a period adds from zero
 * @return X, symmetrised
 */
Eigen::MatrixXd
SolveSteadyState(Eigen::MatrixXd a, const Eigen::MatrixXd& q)
{
    Eigen::MatrixXd x = q;
    uint32_t doublings = 0;
    while (true)
    {
        double s = a.squaredNorm();
        if (s < 1 && s / (1 - s) <= LYAPUNOV_TOLERANCE)
        {
            break;
        }
        NS_ABORT_MSG_IF(++doublings > MAX_DOUBLINGS,
                        "GetXi: the Lyapunov iteration did not converge (rho too close to 1)");
        x += a * x * a.transpose();
        a = a * a;
    }
    NS_LOG_LOGIC("Lyapunov solved after " << doublings << " doublings");
    return 0.5 * (x + x.transpose());
}

} // namespace

ScheduleMetrics::ScheduleMetrics(const WanTopology& topology, const Settings& settings)
    : m_links(topology),
      m_settings(settings)
{
    NS_LOG_FUNCTION(this << topology.GetName());
    if (!std::isfinite(settings.modelBytes) || settings.modelBytes <= 0)
    {
        throw WanInputError("<settings>",
                            "modelBytes",
                            "must be a positive finite number (got " + Text(settings.modelBytes) +
                                ")");
    }
    if (!std::isfinite(settings.computeS) || settings.computeS < 0)
    {
        throw WanInputError("<settings>",
                            "computeS",
                            "must be a finite number >= 0 (got " + Text(settings.computeS) + ")");
    }
    if (!(settings.eps > 0 && settings.eps < 1))
    {
        throw WanInputError("<settings>",
                            "eps",
                            "must lie strictly between 0 and 1 (got " + Text(settings.eps) + ")");
    }
    for (uint32_t d = 0; d < topology.GetNDirectedLinks(); ++d)
    {
        m_capacityBps.push_back(topology.GetDirectedLinkCapacityGbps(d) * 1e9);
    }
}

const ScheduleMetrics::Settings&
ScheduleMetrics::GetSettings() const
{
    return m_settings;
}

const LinkLoadModel&
ScheduleMetrics::GetLinkLoadModel() const
{
    return m_links;
}

double
ScheduleMetrics::GetRoundTime(double commS) const
{
    return GetRoundTime(m_settings.computeS, commS, m_settings.overlap);
}

double
ScheduleMetrics::GetRoundTime(double computeS, double commS, bool overlap)
{
    return overlap ? std::max(computeS, commS) : computeS + commS;
}

std::vector<double>
ScheduleMetrics::GetRoundEnds(double computeS, const std::vector<double>& commS, bool overlap)
{
    std::vector<double> ends;
    double snapshot = computeS;
    double end = 0;
    for (double comm : commS)
    {
        if (!ends.empty())
        {
            snapshot = overlap ? std::max(snapshot + computeS, end) : end + computeS;
        }
        end = snapshot + comm;
        ends.push_back(end);
    }
    return ends;
}

ScheduleMetrics::RingHops
ScheduleMetrics::GetRingHops(const CliqueSchedule::Clique& clique) const
{
    RingHops hops;
    hops.order = m_links.GetRingOrder(clique);
    const uint32_t k = hops.order.size();
    for (uint32_t t = 0; k >= 2 && t < k; ++t)
    {
        const uint32_t from = hops.order[t];
        const uint32_t to = hops.order[(t + 1) % k];
        hops.latencyS.push_back(m_links.GetRouteLatencyMs(from, to) / 1000.0);
        hops.links.push_back(m_links.GetTopology().GetRoute(from, to).links);
    }
    return hops;
}

ScheduleMetrics::RingTime
ScheduleMetrics::SolveRingSteps(const std::vector<double>& hopLatencyS,
                                const std::vector<double>& stepS)
{
    NS_ABORT_MSG_IF(hopLatencyS.size() != stepS.size(),
                    "SolveRingSteps: one step time per hop is needed");
    const uint32_t k = hopLatencyS.size();
    RingTime ring;
    if (k < 2)
    {
        return ring;
    }
    const uint32_t steps = 2 * (k - 1);
    // f[s][t] = F(t, s), the time hop t has sent step s.
    std::vector<std::vector<double>> f(steps, std::vector<double>(k, 0.0));
    f[0] = stepS;
    for (uint32_t s = 1; s < steps; ++s)
    {
        for (uint32_t t = 0; t < k; ++t)
        {
            const uint32_t before = (t + k - 1) % k;
            f[s][t] = std::max(f[s - 1][t], f[s - 1][before] + hopLatencyS[before]) + stepS[t];
        }
    }
    uint32_t last = 0;
    for (uint32_t t = 0; t < k; ++t)
    {
        const double arrival = f[steps - 1][t] + hopLatencyS[t];
        if (arrival > ring.timeS)
        {
            ring.timeS = arrival;
            last = t;
        }
    }
    // Trace the chain back: from (t, s) to the predecessor's step s-1 when that is what hop t
    // waited for (a hop latency on the chain), else to its own step s-1.
    uint32_t t = last;
    ring.firstHop = t;
    ring.hops = 1;
    ring.chainLatencyS = hopLatencyS[t];
    for (uint32_t s = steps - 1; s > 0; --s)
    {
        const uint32_t before = (t + k - 1) % k;
        if (f[s - 1][before] + hopLatencyS[before] >= f[s - 1][t])
        {
            t = before;
            ring.firstHop = t;
            ++ring.hops;
            ring.chainLatencyS += hopLatencyS[t];
        }
    }
    return ring;
}

ScheduleMetrics::RingTime
ScheduleMetrics::GetRingTime(const RingHops& hops, const std::vector<double>& linkS)
{
    const uint32_t k = hops.latencyS.size();
    std::vector<double> stepS(k, 0.0);
    for (uint32_t t = 0; t < k; ++t)
    {
        for (uint32_t d : hops.links[t])
        {
            stepS[t] = std::max(stepS[t], linkS[d] / (2.0 * (k - 1)));
        }
    }
    return SolveRingSteps(hops.latencyS, stepS);
}

ScheduleMetrics::RoundCost
ScheduleMetrics::GetRoundCost(const CliqueSchedule::Round& round, CapabilityMode mode) const
{
    return GetRoundCost(round, std::vector<CapabilityMode>(round.size(), mode));
}

ScheduleMetrics::RoundCost
ScheduleMetrics::GetRoundCost(const CliqueSchedule::Round& round,
                              const std::vector<CapabilityMode>& algorithms) const
{
    m_links.CheckFpgaPlacement(round, algorithms, "a round");
    RoundCost cost;
    NS_ABORT_MSG_IF(algorithms.size() != round.size(),
                    "GetRoundCost: " << algorithms.size() << " algorithms for " << round.size()
                                     << " cliques");
    // The loads, clique by clique (LinkLoadModel::GetRoundLoads' sums), and for A the
    // non-ring cliques' largest latency and the links their streams use.
    cost.loads.assign(m_capacityBps.size(), 0.0);
    std::vector<bool> used(cost.loads.size(), false);
    std::vector<std::vector<double>> cliqueLoads;
    bool star = false;
    for (std::size_t c = 0; c < round.size(); ++c)
    {
        cliqueLoads.push_back(m_links.GetCliqueLoads(round[c], algorithms[c]));
        const std::vector<double>& loads = cliqueLoads.back();
        const bool ring = algorithms[c] == CapabilityMode::RING;
        for (uint32_t d = 0; d < loads.size(); ++d)
        {
            cost.loads[d] += loads[d];
            used[d] = used[d] || (!ring && loads[d] > 0);
        }
        if (round[c].size() >= 2 && !ring)
        {
            star = true;
            cost.latencyS = std::max(cost.latencyS,
                                     m_links.GetCliqueLatencyMs(round[c], algorithms[c]) / 1000.0);
        }
    }
    std::vector<double> linkS(cost.loads.size(), 0.0);
    for (uint32_t d = 0; d < cost.loads.size(); ++d)
    {
        linkS[d] = 8.0 * m_settings.modelBytes * cost.loads[d] / m_capacityBps[d];
    }
    for (uint32_t d = 0; d < linkS.size(); ++d)
    {
        if ((used[d] || !star) && linkS[d] > cost.bottleneckS)
        {
            cost.bottleneckS = linkS[d];
            cost.bottleneckLink = d;
        }
    }
    const double a = star ? cost.latencyS + cost.bottleneckS : 0.0;
    // Each non-ring clique alone: its latency and the busiest link its own streams use.
    cost.cliqueCommS.assign(round.size(), 0.0);
    for (std::size_t c = 0; c < round.size(); ++c)
    {
        if (round[c].size() < 2 || algorithms[c] == CapabilityMode::RING)
        {
            continue;
        }
        double busiest = 0;
        for (uint32_t d = 0; d < linkS.size(); ++d)
        {
            busiest = cliqueLoads[c][d] > 0 ? std::max(busiest, linkS[d]) : busiest;
        }
        cost.cliqueCommS[c] =
            m_links.GetCliqueLatencyMs(round[c], algorithms[c]) / 1000.0 + busiest;
    }
    // The largest T_ring of the round's ring cliques, each under the round's loads.
    double ringS = 0;
    for (std::size_t c = 0; c < round.size(); ++c)
    {
        if (round[c].size() < 2 || algorithms[c] != CapabilityMode::RING)
        {
            continue;
        }
        RingHops hops = GetRingHops(round[c]);
        RingTime time = GetRingTime(hops, linkS);
        cost.cliqueCommS[c] = time.timeS;
        if (time.timeS > ringS)
        {
            ringS = time.timeS;
            if (ringS > a)
            {
                cost.chainLatencyS = time.chainLatencyS;
                cost.criticalPath.clear();
                for (uint32_t i = 0; i <= time.hops; ++i)
                {
                    cost.criticalPath.push_back(
                        hops.order[(time.firstHop + i) % hops.order.size()]);
                }
            }
        }
    }
    if (ringS <= a)
    {
        cost.criticalPath.clear();
        cost.chainLatencyS = 0;
    }
    cost.commS = std::max(a, ringS);
    if (!star)
    {
        cost.latencyS = cost.commS - cost.bottleneckS;
    }
    cost.roundS = GetRoundTime(cost.commS);
    return cost;
}

ScheduleMetrics::Evaluation
ScheduleMetrics::Evaluate(const CliqueSchedule& schedule, CapabilityMode mode) const
{
    return Evaluate(schedule.WithMode(mode));
}

ScheduleMetrics::Evaluation
ScheduleMetrics::Evaluate(const CliqueSchedule& schedule) const
{
    const uint32_t n = m_links.GetTopology().GetNCities();
    NS_ABORT_MSG_IF(schedule.GetNIslands() != n,
                    "ScheduleMetrics: a schedule of " << schedule.GetNIslands()
                                                      << " islands on a topology of " << n);
    const std::vector<CliqueSchedule::Round>& rounds = schedule.GetRounds();
    std::vector<std::vector<CapabilityMode>> algorithms;
    for (uint32_t r = 0; r < rounds.size(); ++r)
    {
        algorithms.push_back(schedule.GetRoundAlgorithms(r));
        m_links.CheckFpgaPlacement(rounds[r], algorithms[r], "schedule round " + std::to_string(r));
    }
    Evaluation e;
    std::vector<double> times;
    for (uint32_t r = 0; r < rounds.size(); ++r)
    {
        e.rounds.push_back(GetRoundCost(rounds[r], algorithms[r]));
        times.push_back(e.rounds.back().roundS);
        e.periodS += times.back();
    }
    e.mixes = Mixes(n, rounds);
    e.rhoPeriod = GetRho(n, rounds);
    e.rhoPerRound = std::pow(e.rhoPeriod, 1.0 / rounds.size());
    e.rhoPerSecond = std::pow(e.rhoPeriod, 1.0 / e.periodS);
    e.rhoRandom = GetRandomRotationRho(n, rounds);
    e.tEpsS = GetTimeToEps(n, rounds, times, m_settings.eps);
    e.rEps = e.mixes ? std::log(1.0 / m_settings.eps) / e.tEpsS : 0.0;
    std::vector<double> commTimes;
    for (const RoundCost& cost : e.rounds)
    {
        commTimes.push_back(cost.commS);
    }
    e.xiS = GetScheduleXi(rounds, commTimes);
    e.xiColocatedS = GetColocatedXi(n, m_settings.computeS);
    e.xiLowerBoundS = GetXiLowerBound(n, times);
    return e;
}

void
ScheduleMetrics::AverageRows(const CliqueSchedule::Round& round, Eigen::MatrixXd& m)
{
    for (const CliqueSchedule::Clique& clique : round)
    {
        if (clique.size() < 2)
        {
            continue;
        }
        Eigen::RowVectorXd mean = Eigen::RowVectorXd::Zero(m.cols());
        for (uint32_t i : clique)
        {
            mean += m.row(i);
        }
        mean /= static_cast<double>(clique.size());
        for (uint32_t i : clique)
        {
            m.row(i) = mean;
        }
    }
}

void
ScheduleMetrics::AverageColumns(const CliqueSchedule::Round& round, Eigen::MatrixXd& m)
{
    for (const CliqueSchedule::Clique& clique : round)
    {
        if (clique.size() < 2)
        {
            continue;
        }
        Eigen::VectorXd mean = Eigen::VectorXd::Zero(m.rows());
        for (uint32_t i : clique)
        {
            mean += m.col(i);
        }
        mean /= static_cast<double>(clique.size());
        for (uint32_t i : clique)
        {
            m.col(i) = mean;
        }
    }
}

Eigen::MatrixXd
ScheduleMetrics::GetRoundMatrix(uint32_t n, const CliqueSchedule::Round& round)
{
    Eigen::MatrixXd w = Eigen::MatrixXd::Identity(n, n);
    AverageRows(round, w);
    return w;
}

Eigen::MatrixXd
ScheduleMetrics::GetPeriodProduct(uint32_t n, const std::vector<CliqueSchedule::Round>& rounds)
{
    Eigen::MatrixXd phi = Eigen::MatrixXd::Identity(n, n);
    for (const CliqueSchedule::Round& round : rounds)
    {
        AverageRows(round, phi);
    }
    return phi;
}

double
ScheduleMetrics::GetDisagreementNorm(const Eigen::MatrixXd& m)
{
    NS_ABORT_MSG_IF(m.rows() != m.cols() || m.rows() == 0, "a square matrix is needed");
    Eigen::MatrixXd a = m - Averaging(m.rows());
    Eigen::JacobiSVD<Eigen::MatrixXd> svd(a);
    return svd.singularValues()(0);
}

bool
ScheduleMetrics::Mixes(uint32_t n, const std::vector<CliqueSchedule::Round>& rounds)
{
    std::vector<uint32_t> parent(n);
    std::iota(parent.begin(), parent.end(), 0);
    auto find = [&parent](uint32_t x) {
        while (parent[x] != x)
        {
            parent[x] = parent[parent[x]];
            x = parent[x];
        }
        return x;
    };
    uint32_t components = n;
    for (const CliqueSchedule::Round& round : rounds)
    {
        for (const CliqueSchedule::Clique& clique : round)
        {
            for (std::size_t k = 1; k < clique.size(); ++k)
            {
                uint32_t a = find(clique[0]);
                uint32_t b = find(clique[k]);
                if (a != b)
                {
                    parent[a] = b;
                    --components;
                }
            }
        }
    }
    return components == 1;
}

double
ScheduleMetrics::GetRho(uint32_t n, const std::vector<CliqueSchedule::Round>& rounds)
{
    return GetDisagreementNorm(GetPeriodProduct(n, rounds));
}

double
ScheduleMetrics::GetRandomRotationRho(uint32_t n, const std::vector<CliqueSchedule::Round>& rounds)
{
    Eigen::MatrixXd mean = Eigen::MatrixXd::Zero(n, n);
    for (const CliqueSchedule::Round& round : rounds)
    {
        mean += GetRoundMatrix(n, round);
    }
    mean /= static_cast<double>(rounds.size());
    Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> solver(mean - Averaging(n),
                                                          Eigen::EigenvaluesOnly);
    // mean - J has the eigenvalue 0 on the vector of ones, so lambda_max >= 0 exactly.
    return std::max(0.0, solver.eigenvalues().maxCoeff());
}

double
ScheduleMetrics::GetTimeToEps(uint32_t n,
                              const std::vector<CliqueSchedule::Round>& rounds,
                              const std::vector<double>& roundTimesS,
                              double eps)
{
    NS_ABORT_MSG_IF(rounds.size() != roundTimesS.size() || rounds.empty(),
                    "GetTimeToEps: one time per round is needed");
    if (!Mixes(n, rounds))
    {
        return std::numeric_limits<double>::infinity();
    }
    const uint32_t p = rounds.size();
    const double periodS = std::accumulate(roundTimesS.begin(), roundTimesS.end(), 0.0);
    double worst = 0;
    for (uint32_t start = 0; start < p; ++start)
    {
        // Every W_r contracts the disagreement, so the norm of W_t ... W_1 - J never grows with
        // t. Whole periods from this phase are found by doubling and bisection on powers of the
        // phase's period product; the last period is then scanned round by round.
        Eigen::MatrixXd phase = Eigen::MatrixXd::Identity(n, n);
        for (uint32_t t = 0; t < p; ++t)
        {
            AverageRows(rounds[(start + t) % p], phase);
        }
        // powers[j] = phase^(2^j); find the largest m with ||phase^m - J|| > eps.
        std::vector<Eigen::MatrixXd> powers{phase};
        while (GetDisagreementNorm(powers.back()) > eps)
        {
            NS_ABORT_MSG_IF(powers.size() > 64, "GetTimeToEps: no convergence");
            powers.push_back(powers.back() * powers.back());
        }
        // phase^(2^(J)) meets eps; bisect the count of whole periods below 2^J.
        uint64_t periods = 0;
        Eigen::MatrixXd prefix = Eigen::MatrixXd::Identity(n, n);
        for (int j = static_cast<int>(powers.size()) - 2; j >= 0; --j)
        {
            Eigen::MatrixXd candidate = powers[j] * prefix;
            if (GetDisagreementNorm(candidate) > eps)
            {
                prefix = candidate;
                periods += uint64_t{1} << j;
            }
        }
        // prefix = phase^periods misses eps and phase^(periods + 1) meets it.
        double timeS = periods * periodS;
        Eigen::MatrixXd m = prefix;
        for (uint32_t t = 0; t < p; ++t)
        {
            uint32_t r = (start + t) % p;
            AverageRows(rounds[r], m);
            timeS += roundTimesS[r];
            if (GetDisagreementNorm(m) <= eps)
            {
                break;
            }
        }
        worst = std::max(worst, timeS);
    }
    return worst;
}

double
ScheduleMetrics::GetDriftXi(uint32_t n,
                            const std::vector<CliqueSchedule::Round>& rounds,
                            const std::vector<double>& roundTimesS,
                            const std::vector<double>* commTimesS)
{
    if (!Mixes(n, rounds))
    {
        return std::numeric_limits<double>::infinity();
    }
    const bool overlap = commTimesS != nullptr;
    const Eigen::MatrixXd j = Averaging(n);
    const Eigen::MatrixXd disagreement = Eigen::MatrixXd::Identity(n, n) - j;
    // Q: the covariance a period adds from zero (serial: drift, then average; overlap: the
    // snapshots, Y_{r+1} = W_r Y_r W_r + T_r (I - J)); A = Phi - J.
    Eigen::MatrixXd q = Eigen::MatrixXd::Zero(n, n);
    Eigen::MatrixXd a = Eigen::MatrixXd::Identity(n, n);
    for (std::size_t r = 0; r < rounds.size(); ++r)
    {
        if (!overlap)
        {
            q += roundTimesS[r] * disagreement;
        }
        AverageRows(rounds[r], q);
        AverageColumns(rounds[r], q);
        if (overlap)
        {
            q += roundTimesS[r] * disagreement;
        }
        AverageRows(rounds[r], a);
    }
    a -= j;
    Eigen::MatrixXd x = SolveSteadyState(a, q);
    double numerator = 0;
    double totalS = 0;
    for (std::size_t r = 0; r < rounds.size(); ++r)
    {
        const double t = roundTimesS[r];
        if (!overlap)
        {
            numerator += t * x.trace() / n + (n - 1.0) / n * t * t / 2;
            x += t * disagreement;
            AverageRows(rounds[r], x);
            AverageColumns(rounds[r], x);
        }
        else
        {
            // Until round r's average arrives (C_r after the snapshot) the islands disagree by
            // Y_r, afterwards by W_r Y_r W_r; the drift of the round adds on top.
            const double c = (*commTimesS)[r];
            NS_ABORT_MSG_IF(!(c >= 0 && c <= t),
                            "GetOverlapXi: round " << r << " communicates " << c << " s of " << t
                                                   << " s");
            const double before = x.trace() / n;
            AverageRows(rounds[r], x);
            AverageColumns(rounds[r], x);
            numerator += c * before + (t - c) * x.trace() / n + (n - 1.0) / n * t * t / 2;
            x += t * disagreement;
        }
        totalS += t;
    }
    NS_ABORT_MSG_IF(!(totalS > 0), "GetXi: the period has no duration");
    return numerator / totalS;
}

double
ScheduleMetrics::GetXi(uint32_t n,
                       const std::vector<CliqueSchedule::Round>& rounds,
                       const std::vector<double>& roundTimesS)
{
    NS_ABORT_MSG_IF(rounds.size() != roundTimesS.size() || rounds.empty(),
                    "GetXi: one time per round is needed");
    return GetDriftXi(n, rounds, roundTimesS, nullptr);
}

double
ScheduleMetrics::GetOverlapXi(uint32_t n,
                              const std::vector<CliqueSchedule::Round>& rounds,
                              const std::vector<double>& roundTimesS,
                              const std::vector<double>& commTimesS)
{
    NS_ABORT_MSG_IF(rounds.size() != roundTimesS.size() || rounds.size() != commTimesS.size() ||
                        rounds.empty(),
                    "GetOverlapXi: one round time and one communication time per round are needed");
    return GetDriftXi(n, rounds, roundTimesS, &commTimesS);
}

double
ScheduleMetrics::GetScheduleXi(const std::vector<CliqueSchedule::Round>& rounds,
                               const std::vector<double>& commTimesS) const
{
    const uint32_t n = m_links.GetTopology().GetNCities();
    std::vector<double> times;
    for (double commS : commTimesS)
    {
        times.push_back(GetRoundTime(commS));
    }
    return m_settings.overlap ? GetOverlapXi(n, rounds, times, commTimesS)
                              : GetXi(n, rounds, times);
}

double
ScheduleMetrics::GetXiLowerBound(uint32_t n, const std::vector<double>& roundTimesS)
{
    double sum = 0;
    double squares = 0;
    for (double t : roundTimesS)
    {
        sum += t;
        squares += t * t;
    }
    return sum > 0 ? (n - 1.0) / n * squares / (2 * sum) : 0.0;
}

double
ScheduleMetrics::GetColocatedXi(uint32_t n, double computeS)
{
    return (n - 1.0) / n * computeS / 2;
}

} // namespace ns3
