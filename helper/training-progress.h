/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef TRAINING_PROGRESS_H
#define TRAINING_PROGRESS_H

#include "ns3/application-container.h"

#include <cstdint>
#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace ns3
{

class CliqueSchedule;
class ExchangePlanner;
class IslandSyncHeader;

/**
 * @ingroup wan-training
 * @brief Reports how far a running simulation is: every few seconds of wall time, one line on a
 * stream with the rounds in progress, the percent of each one's bytes delivered, the run's,
 * the simulated and wall time, and the expected wall time left.
 *
 * The percent of a round is the model bytes its islands' receive streams hold over the model
 * bytes they hold once complete (IslandExchange::GetReceiveBytes of every island's plan, from
 * the ExchangePlanner the islands plan with): every other member's contribution in the star
 * modes (behind an FPGA an aggregate fills the streams of all its contributors), the root's
 * totals at a tree's other members, each step's segment in the ring. An island that has ended
 * the round (completed, abandoned, crashed) counts as complete; a round never goes back (an
 * exclusion that drops a stream keeps the percent reached). The expected time left
 * extrapolates the run's average delivery rate since Start: elapsed x (1 - f) / f for the
 * fraction f of the run's bytes delivered (EstimateRemainingS).
 *
 * The reporter observes only: it is checked from the islands' ChunkReceived and RoundFinished
 * traces (no simulator event of its own), reads the wall clock there and polls the islands
 * (TrainingIslandApplication::GetHeldBytes) only when a line is due, so a run's results are
 * the same with and without it. The wall clock is injectable (tests drive it).
 */
class TrainingProgress
{
  public:
    /** A wall clock: seconds since any fixed origin. */
    typedef std::function<double()> WallClock;

    /**
     * @param apps the islands' applications, in city order (TrainingIslandApplication)
     * @param plannedBytes for every round, the model bytes every island's receive streams hold
     *        once complete, by island (GetPlannedBytes)
     * @param out where the lines go; must outlive the reporter
     * @param label what every line starts with (before ": ")
     * @param intervalS the smallest wall time between two lines (s, >= 0)
     * @param clock the wall clock (default: std::chrono::steady_clock)
     */
    TrainingProgress(const ApplicationContainer& apps,
                     std::vector<std::vector<uint64_t>> plannedBytes,
                     std::ostream& out,
                     const std::string& label,
                     double intervalS,
                     WallClock clock = WallClock());

    TrainingProgress(const TrainingProgress&) = delete;
    TrainingProgress& operator=(const TrainingProgress&) = delete;

    /**
     * @param planner the planner of the islands' plans
     * @param schedule its schedule (round r plays schedule round r mod its period)
     * @param rounds the rounds the run has
     * @return for every round, by island, IslandExchange::GetReceiveBytes of the island's plan
     */
    static std::vector<std::vector<uint64_t>> GetPlannedBytes(const ExchangePlanner& planner,
                                                              const CliqueSchedule& schedule,
                                                              uint32_t rounds);

    /**
     * @param elapsedS the wall time since the start
     * @param fraction the fraction of the work done, in [0, 1]
     * @return the wall time left at the same average rate, elapsedS x (1 - f) / f; none while
     *         nothing is done
     */
    static std::optional<double> EstimateRemainingS(double elapsedS, double fraction);

    /** @brief The run starts: the wall time and the rates count from now. */
    void Start();
    /** @brief Print a line if the interval has passed since the last one (or the start). */
    void Check();
    /** @brief Poll the islands: update the percents (no line). */
    void Update();
    /** @brief The run has ended: a last line, if any line was printed before. */
    void Finish();

    /**
     * @param round a round
     * @return the percent of its bytes delivered at the last Update, in [0, 100]
     */
    double GetRoundPercent(uint32_t round) const;
    /** @return the percent of the run's bytes delivered at the last Update, in [0, 100] */
    double GetRunPercent() const;
    /** @return the model bytes the run's rounds deliver in all (the denominator of the run) */
    uint64_t GetPlannedBytes() const;
    /**
     * @param round a round
     * @return the model bytes the round delivers (the denominator of its percent)
     */
    uint64_t GetPlannedBytes(uint32_t round) const;
    /** @return the lines printed */
    uint32_t GetLines() const;

  private:
    /** ChunkReceived sink: Check(). */
    void OnChunkReceived(uint32_t island, const IslandSyncHeader&, uint32_t, bool);
    /** RoundFinished sink: the round ended on the island; Check(). */
    void OnRoundFinished(uint32_t island, uint32_t round, uint32_t, const std::vector<float>&);
    /** RoundAbandoned sink: the round ended on the island. */
    void OnRoundAbandoned(uint32_t island, uint32_t round, uint32_t, const std::string&);
    /** Crashed sink: the island's rounds from round on ended. */
    void OnCrashed(uint32_t island, uint32_t round);
    /**
     * @param last whether it is the last line
     * @return the line (without the newline)
     */
    std::string FormatLine(bool last) const;
    /** @return the wall clock now */
    double Now() const;

    ApplicationContainer m_apps;                  //!< the islands
    std::vector<std::vector<uint64_t>> m_planned; //!< planned bytes by round, island
    std::vector<std::vector<bool>> m_ended;       //!< ended by round, island
    std::vector<uint32_t> m_endedCount;           //!< islands that ended, by round
    std::vector<uint64_t> m_roundPlanned;         //!< planned bytes by round
    std::vector<uint64_t> m_delivered;            //!< delivered bytes by round (monotone)
    uint64_t m_runPlanned{0};                     //!< planned bytes of the run
    uint64_t m_runDelivered{0};                   //!< delivered bytes of the run
    std::ostream* m_out;                          //!< where the lines go
    std::string m_label;                          //!< line prefix
    double m_intervalS;                           //!< smallest wall time between lines
    WallClock m_clock;                            //!< the wall clock
    double m_startS{0};                           //!< wall clock at Start
    double m_lastS{0};                            //!< wall clock at the last line
    uint32_t m_lines{0};                          //!< lines printed
};

} // namespace ns3

#endif /* TRAINING_PROGRESS_H */
