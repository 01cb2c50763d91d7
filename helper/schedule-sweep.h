/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef SCHEDULE_SWEEP_H
#define SCHEDULE_SWEEP_H

#include "capability-set.h"
#include "link-load-model.h"
#include "payload-format.h"
#include "schedule-optimizer.h"
#include "wan-topology.h"

#include <cmath>
#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace ns3
{

/**
 * @ingroup wan-training
 * @brief How the optimal schedule shifts with the network's capabilities: for every model size
 * S, compute time tau_c and capability mode of a grid, the best schedule (ScheduleOptimizer),
 * its clique-size profile and Xi next to the colocated reference, the lower bound, the
 * all-reduce in the same mode and the ring all-reduce (doc/schedule-model.rst); and for every
 * capability set of Config::capabilitySets the set's optimum (ScheduleOptimizer for the set),
 * the algorithm each of its cliques picked, and a check that no set's optimum is worse than that
 * of a set it contains (CheckMonotone). Sizes are S in
 * bytes, or parameter counts P that each payload format turns into its own S (GetEncodedBytes),
 * so that formats compare side by side; the table, CSV and JSON show the format and P when
 * either is given. Optionally every
 * point's schedule simulated packet by packet, each point a command (Config::simulationCommand)
 * run in a ChildProcessPool, its results file read back and compared with the prediction.
 *
 * The table goes to Config::out, the rows to Config::jsonFile and Config::csvFile, all in grid
 * order (whatever the order in which the simulations end). Files of a point in the work
 * directory: NAME.json (the schedule), NAME-results.json, NAME.log (the command's output), with
 * NAME = point-NNN-MODE, or point-NNN-set-TOKENS for a set (its tokens joined by '+', e.g.
 * point-007-set-multicast+aggregation); a set point is simulated without a forced mode (each
 * clique by its own algorithm), and only when the topology has the set. With Config::printJobs the
 * commands are printed instead of run; with Config::collectOnly none is run and the results files
 * are read. Bad values raise WanConfigError naming the Config field.
 */
class ScheduleSweep
{
  public:
    /** One point of the grid: its inputs, its optimum and, when simulated, the outcome. */
    struct Point
    {
        double modelBytes{0};        //!< S in bytes
        std::string modelBytesText;  //!< S as given (a whole number when simulated)
        PayloadFormat format{};      //!< the payload format (fp32 unless given)
        uint64_t modelParameters{0}; //!< P, when the size is given in parameters (else 0)
        double computeS{0};          //!< tau_c in seconds
        int64_t stepTimeNs{0};       //!< tau_c / local steps, rounded to the nanosecond
        uint32_t gridPoint{0};       //!< its (size, format, tau_c) in grid order
        CapabilityMode mode{};       //!< the capability mode (a mode point)
        std::optional<CapabilitySet> capabilities; //!< the set (a set point; none: a mode point)
        double xiS{0};                             //!< the optimum's Xi
        std::string name;              //!< "point-NNN-MODE" or "point-NNN-set-TOKENS", the stem
                                       //!< of its files
        nlohmann::json scheduleRounds; //!< the optimum's rounds of city ids
        /** A set point: per round, each clique's algorithm ("" for an idle island). */
        std::vector<std::vector<std::string>> scheduleAlgorithms;
        std::string scheduleJson;   //!< the optimum as a schedule JSON document
        nlohmann::json row;         //!< its JSON row
        std::string csv;            //!< its CSV line, without the simulation columns
        std::string table;          //!< its table line, without the simulation columns
        bool simulate{false};       //!< whether it is simulated
        std::string notSimulated;   //!< why a set point is not (the topology lacks the set)
        bool done{false};           //!< whether a results file was read
        std::string failure;        //!< why its simulation failed (empty: it did not)
        double simulatedRoundS{0};  //!< simulated mean round time
        double predictedRoundS{0};  //!< predicted mean round time (t = 0 to the last end)
        double simulatedCommS{NAN}; //!< mean simulated T_comm (NaN: some round incomplete)
        double predictedCommS{0};   //!< mean predicted T_comm
        bool verified{false};       //!< whether the results say every round verified
    };

    /**
     * @brief Builds the command that simulates a point.
     * @param point the point (its mode, S, stepTimeNs)
     * @param scheduleFile the schedule to simulate
     * @param resultsFile where the results JSON must go
     * @return the program (a path) and its arguments
     */
    typedef std::function<std::vector<std::string>(const Point& point,
                                                   const std::string& scheduleFile,
                                                   const std::string& resultsFile)>
        SimulationCommand;

    /** The sweep's configuration. */
    struct Config
    {
        std::string name{"schedule-sweep"};       //!< what the log lines start with
        std::vector<double> modelBytes;           //!< the sizes S
        std::vector<std::string> modelBytesTexts; //!< each S as the simulation reads it
        std::vector<uint64_t> modelParameters;    //!< instead of modelBytes: the sizes as P,
                                                  //!< S = each format's encoded bytes of P
        std::vector<PayloadFormat> formats;       //!< the formats side by side (none: fp32)
        std::vector<double> computeS;             //!< the compute times tau_c
        std::vector<CapabilityMode> modes;        //!< the modes (a row each)
        /** The capability sets, a row each (none: the topology's set alone). */
        std::optional<std::vector<CapabilitySet>> capabilitySets;
        bool overlap{false};                  //!< overlap compute with communication
        ScheduleOptimizer::Options optimizer; //!< every search
        uint64_t simulateRounds{0};           //!< rounds per simulation (0: none)
        uint32_t jobs{1};                     //!< simulations at once
        uint64_t localSteps{10};              //!< local steps K of each simulated round
        std::string workDir;   //!< schedules, results and logs (empty: beside jsonFile, its name
                               //!< without .json plus -work); made absolute
        std::string simulator; //!< the program simulationCommand runs
        SimulationCommand simulationCommand;    //!< the command of a point
        bool printJobs{false};                  //!< print the commands, run none
        bool collectOnly{false};                //!< run none, read the results files
        std::string jsonFile{"wan-sweep.json"}; //!< the rows as JSON
        std::string csvFile{"wan-sweep.csv"};   //!< the rows as CSV
        std::ostream* out{nullptr};             //!< the table (or the commands)
        std::ostream* log{nullptr};             //!< progress and failures
    };

    /** The outcome of CheckMonotone. */
    struct MonotoneCheck
    {
        uint32_t pairs{0};                   //!< (smaller set, larger set, grid point) compared
        std::vector<std::string> violations; //!< each pair whose larger set has a larger Xi
    };

    /** What a sweep produced. */
    struct Result
    {
        std::vector<Point> points; //!< every point in grid order
        MonotoneCheck monotone;    //!< the set points' monotone check
        uint32_t simulated{0};     //!< points simulated (or whose commands were printed)
        uint32_t failures{0};      //!< simulations that failed or did not verify
        bool printed{false};       //!< whether the commands were printed instead of run
    };

    /**
     * @param config the configuration
     */
    explicit ScheduleSweep(const Config& config);

    /**
     * @brief Check that along every subset relation among the set points of a grid point the
     * larger set's Xi is not larger than the smaller set's (within a relative 1e-9), as the
     * optimizer guarantees.
     * @param points points (mode points are ignored), grouped by Point::gridPoint
     * @return the pairs compared and a description of each violation
     */
    static MonotoneCheck CheckMonotone(const std::vector<Point>& points);

    /** @return the configuration, the work directory absolute */
    const Config& GetConfig() const;

    /**
     * @brief Check the output files, the simulator and the work directory (created unless
     * collecting).
     * @throws WanConfigError on "jsonFile" or "csvFile" (empty), "simulator" (not executable),
     *         "workDir" (cannot be created, or missing when collecting)
     */
    void Validate() const;

    /**
     * @brief Optimize every point, simulate (or print, or collect) and write the outputs.
     * @param topology the WAN
     * @return the points and how many simulations failed
     * @throws WanConfigError as Validate(), or on "workDir", "jsonFile", "csvFile" when a file
     *         cannot be written
     */
    Result Run(const WanTopology& topology) const;

  private:
    /**
     * @return whether the outputs show the format (and P) of each point: when formats or the
     *         sizes in parameters are given
     */
    bool ShowsFormats() const;

    /**
     * @param topology the WAN
     * @return every point of the grid, optimized, in grid order (size, format, tau_c, then
     *         every mode and every capability set)
     */
    std::vector<Point> Optimize(const WanTopology& topology) const;

    /**
     * @brief Simulate the points (or print their commands), record the failures.
     * @param points the points
     * @param simulated the indices of the simulated points
     * @return whether the commands were printed (nothing else to do)
     */
    bool Simulate(std::vector<Point>& points, const std::vector<std::size_t>& simulated) const;

    /**
     * @brief Read a point's results JSON into the point, after checking that it is the
     * simulation of this point (mode, or "schedule" and the cliques' algorithms for a set; S,
     * rounds, seed, compute time, schedule); sets
     * point.failure instead when it is not, or cannot be read.
     * @param point the point
     * @param file the results JSON
     */
    void ReadResults(Point& point, const std::string& file) const;

    /**
     * @brief Print the table and write the JSON and CSV.
     * @param topology the WAN
     * @param result the points; receives the failures
     */
    void Report(const WanTopology& topology, Result& result) const;

    /**
     * @param line a log line; written with the name in front (when a log is set)
     */
    void Log(const std::string& line) const;

    Config m_config; //!< the configuration
};

} // namespace ns3

#endif /* SCHEDULE_SWEEP_H */
