/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "training-progress.h"

#include "clique-schedule.h"
#include "exchange-planner.h"
#include "island-exchange.h"
#include "training-island-application.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/simulator.h"

#include <algorithm>
#include <chrono>
#include <iomanip>
#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("WanTrainingTrainingProgress");

namespace
{

/** @return the seconds of std::chrono::steady_clock */
double
SteadySeconds()
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

/**
 * @param part bytes delivered
 * @param whole bytes planned
 * @param done whether the work is over (0 of 0 bytes: 100 %)
 * @return the percent
 */
double
Percent(uint64_t part, uint64_t whole, bool done)
{
    if (whole == 0)
    {
        return done ? 100.0 : 0.0;
    }
    return 100.0 * static_cast<double>(part) / static_cast<double>(whole);
}

} // namespace

TrainingProgress::TrainingProgress(const ApplicationContainer& apps,
                                   std::vector<std::vector<uint64_t>> plannedBytes,
                                   std::ostream& out,
                                   const std::string& label,
                                   double intervalS,
                                   WallClock clock)
    : m_apps(apps),
      m_planned(std::move(plannedBytes)),
      m_out(&out),
      m_label(label),
      m_intervalS(intervalS),
      m_clock(clock ? std::move(clock) : WallClock(&SteadySeconds))
{
    NS_LOG_FUNCTION(this << label << intervalS);
    NS_ABORT_MSG_IF(!(intervalS >= 0), "TrainingProgress: the interval must be >= 0 s");
    const uint32_t n = m_apps.GetN();
    for (const auto& round : m_planned)
    {
        NS_ABORT_MSG_IF(round.size() != n,
                        "TrainingProgress: planned bytes for " << round.size() << " islands, " << n
                                                               << " applications");
        uint64_t sum = 0;
        for (uint64_t bytes : round)
        {
            sum += bytes;
        }
        m_roundPlanned.push_back(sum);
        m_runPlanned += sum;
    }
    m_ended.assign(m_planned.size(), std::vector<bool>(n, false));
    m_endedCount.assign(m_planned.size(), 0);
    m_delivered.assign(m_planned.size(), 0);
    for (auto app = m_apps.Begin(); app != m_apps.End(); ++app)
    {
        (*app)->TraceConnectWithoutContext("ChunkReceived",
                                           MakeCallback(&TrainingProgress::OnChunkReceived, this));
        (*app)->TraceConnectWithoutContext("RoundFinished",
                                           MakeCallback(&TrainingProgress::OnRoundFinished, this));
        (*app)->TraceConnectWithoutContext("RoundAbandoned",
                                           MakeCallback(&TrainingProgress::OnRoundAbandoned, this));
        (*app)->TraceConnectWithoutContext("Crashed",
                                           MakeCallback(&TrainingProgress::OnCrashed, this));
    }
}

std::vector<std::vector<uint64_t>>
TrainingProgress::GetPlannedBytes(const ExchangePlanner& planner,
                                  const CliqueSchedule& schedule,
                                  uint32_t rounds)
{
    const uint32_t period = schedule.GetNRounds();
    const uint32_t n = schedule.GetNIslands();
    std::vector<std::vector<uint64_t>> byScheduleRound(period, std::vector<uint64_t>(n, 0));
    for (uint32_t s = 0; s < period; ++s)
    {
        for (uint32_t island = 0; island < n; ++island)
        {
            const ExchangePlan plan = planner.GetPlan(s, island);
            byScheduleRound[s][island] = IslandExchange::Create(plan.mode)->GetReceiveBytes(plan);
        }
    }
    std::vector<std::vector<uint64_t>> planned;
    for (uint32_t r = 0; r < rounds; ++r)
    {
        planned.push_back(byScheduleRound[r % period]);
    }
    return planned;
}

std::optional<double>
TrainingProgress::EstimateRemainingS(double elapsedS, double fraction)
{
    if (!(fraction > 0))
    {
        return std::nullopt;
    }
    return elapsedS * (1 - std::min(fraction, 1.0)) / std::min(fraction, 1.0);
}

double
TrainingProgress::Now() const
{
    return m_clock();
}

void
TrainingProgress::Start()
{
    m_startS = Now();
    m_lastS = m_startS;
}

void
TrainingProgress::Update()
{
    m_runDelivered = 0;
    for (uint32_t r = 0; r < m_planned.size(); ++r)
    {
        uint64_t delivered = 0;
        for (uint32_t i = 0; i < m_apps.GetN(); ++i)
        {
            const uint64_t planned = m_planned[r][i];
            if (m_ended[r][i])
            {
                delivered += planned;
            }
            else if (planned > 0)
            {
                Ptr<TrainingIslandApplication> app =
                    DynamicCast<TrainingIslandApplication>(m_apps.Get(i));
                delivered += std::min(app->GetHeldBytes(r), planned);
            }
        }
        // A view that drops a stream (an exclusion) does not take the round back.
        m_delivered[r] = std::max(m_delivered[r], delivered);
        m_runDelivered += m_delivered[r];
    }
}

void
TrainingProgress::Check()
{
    const double now = Now();
    if (now - m_lastS < m_intervalS)
    {
        return;
    }
    m_lastS = now;
    Update();
    *m_out << FormatLine(false) << std::endl;
    ++m_lines;
}

void
TrainingProgress::Finish()
{
    if (m_lines == 0)
    {
        return;
    }
    m_lastS = Now();
    Update();
    *m_out << FormatLine(true) << std::endl;
    ++m_lines;
}

std::string
TrainingProgress::FormatLine(bool last) const
{
    const uint32_t rounds = m_planned.size();
    const uint32_t n = m_apps.GetN();
    std::ostringstream line;
    line << std::fixed << std::setprecision(1) << m_label << ": ";
    // The rounds in progress: from the oldest that has not ended everywhere to the newest with
    // bytes delivered (at most three named).
    uint32_t first = 0;
    while (first < rounds && m_endedCount[first] == n)
    {
        ++first;
    }
    uint32_t end = first;
    for (uint32_t r = first; r < rounds; ++r)
    {
        if (m_delivered[r] > 0 || m_endedCount[r] > 0)
        {
            end = r + 1;
        }
    }
    end = std::max(end, std::min(first + 1, rounds));
    if (last || first == rounds)
    {
        line << first << "/" << rounds << " rounds ended";
    }
    else
    {
        line << (end - first > 1 ? "rounds " : "round ");
        for (uint32_t r = first; r < end && r < first + 3; ++r)
        {
            line << (r > first ? ", " : "") << r + 1 << "/" << rounds << " "
                 << Percent(m_delivered[r], m_roundPlanned[r], m_endedCount[r] == n) << " %";
        }
        if (end - first > 3)
        {
            line << ", ...";
        }
    }
    const double elapsedS = m_lastS - m_startS;
    const double runPercent = GetRunPercent();
    line << " (run " << runPercent << " %), simulated " << std::setprecision(3)
         << Simulator::Now().GetSeconds() << " s, wall " << std::setprecision(1) << elapsedS
         << " s";
    if (!last)
    {
        const std::optional<double> left = EstimateRemainingS(elapsedS, runPercent / 100);
        if (left)
        {
            line << ", about " << *left << " s left";
        }
        else
        {
            line << ", time left unknown";
        }
    }
    return line.str();
}

double
TrainingProgress::GetRoundPercent(uint32_t round) const
{
    NS_ABORT_MSG_IF(round >= m_planned.size(),
                    "TrainingProgress::GetRoundPercent(): no round " << round);
    return Percent(m_delivered[round], m_roundPlanned[round], m_endedCount[round] == m_apps.GetN());
}

double
TrainingProgress::GetRunPercent() const
{
    bool done = true;
    for (uint32_t count : m_endedCount)
    {
        done = done && count == m_apps.GetN();
    }
    return Percent(m_runDelivered, m_runPlanned, done);
}

uint64_t
TrainingProgress::GetPlannedBytes() const
{
    return m_runPlanned;
}

uint64_t
TrainingProgress::GetPlannedBytes(uint32_t round) const
{
    NS_ABORT_MSG_IF(round >= m_planned.size(),
                    "TrainingProgress::GetPlannedBytes(): no round " << round);
    return m_roundPlanned[round];
}

uint32_t
TrainingProgress::GetLines() const
{
    return m_lines;
}

void
TrainingProgress::OnChunkReceived(uint32_t /* island */,
                                  const IslandSyncHeader& /* header */,
                                  uint32_t /* modelBytes */,
                                  bool /* duplicate */)
{
    Check();
}

void
TrainingProgress::OnRoundFinished(uint32_t island,
                                  uint32_t round,
                                  uint32_t /* clique */,
                                  const std::vector<float>& /* parameters */)
{
    if (round < m_ended.size() && !m_ended[round][island])
    {
        m_ended[round][island] = true;
        ++m_endedCount[round];
    }
    Check();
}

void
TrainingProgress::OnRoundAbandoned(uint32_t island,
                                   uint32_t round,
                                   uint32_t clique,
                                   const std::string& /* reason */)
{
    OnRoundFinished(island, round, clique, {});
}

void
TrainingProgress::OnCrashed(uint32_t island, uint32_t round)
{
    for (uint32_t r = round; r < m_ended.size(); ++r)
    {
        OnRoundFinished(island, r, 0, {});
    }
}

} // namespace ns3
