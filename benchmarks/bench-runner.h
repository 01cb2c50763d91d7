/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef BENCH_RUNNER_H
#define BENCH_RUNNER_H

#include "bench-case.h"
#include "bench-targets.h"
#include "link-load-model.h"
#include "loss-section.h"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * @ingroup wan-training
 * @brief The benchmark: runs every case of a profile in a child process of its own, prints
 * the tables and the targets, and writes the JSON (benchmarks/README.md explains every number).
 *
 * Each case is the bench program started again (/proc/self/exe, in a ChildProcessPool of one
 * slot) with the case's arguments and a result file; the child writes its measurements there
 * and the parent adds what the pool reports: peak RSS (ru_maxrss) and the process's CPU time. The
 * cases run one after the other, never side by side, so that they do not compete for cores or
 * caches.
 *
 * Sections: simulation cost (`ours` per mode and ModelBytes on the nine-city topology, each
 * followed by its `plain` baseline), memory scaling, the optimizer (`evaluate`, `optimize`),
 * scale (`ours` and `plain` on synthetic topologies of 16, 32 and 64 islands, alternating runs),
 * in the full profile only, coarse frames (`ours` with frames of
 * BenchCase::COARSE_FRAME_BYTES: nine-city at 10 GB, 64 synthetic islands at 1 GB), and loss
 * (`loss` per mode at 0, 0.1 % and 1 % WAN loss, LossSection). The
 * targets (issue "Performance") are judged from the report by BenchTargets, printed one line
 * each and stored in the JSON's `targets`.
 */
class BenchRunner
{
  public:
    /** How much to measure. */
    enum class Profile
    {
        FULL,  //!< the issue's sizes: 64 MB, 256 MB, 1 GB (tens of minutes)
        QUICK, //!< smaller sizes and budgets (a minute or two on two cores)
        SMOKE, //!< the smallest cases, for the CTest smoke test (seconds)
    };

    /** Which sections to run (each still only when the profile has cases for it). */
    struct Sections
    {
        bool simulation{true}; //!< simulation cost and memory (nine-city, ours and plain)
        bool optimizer{true};  //!< evaluate and optimize
        bool scale{true};      //!< synthetic topologies of 16 to 64 islands, ours and plain
        bool coarse{true};     //!< coarse frames (full profile only)
        bool loss{true};       //!< communication time under WAN loss (LossSection)
    };

    /** The runner's settings. */
    struct Options
    {
        Profile profile{Profile::FULL};    //!< how much to measure
        std::string out;                   //!< the JSON file to write
        std::string topologyFile;          //!< the nine-city topology
        std::vector<CapabilityMode> modes; //!< simulated modes (empty: the profile's)
        uint32_t repeat{0}; //!< runs of each simulation case, the fastest kept (0: the
                            //!< profile's: 2 quick, 1 otherwise)
        Sections sections;  //!< the sections to run
    };

    /**
     * @param options the settings
     */
    explicit BenchRunner(const Options& options);

    /**
     * @brief Run every case, print the tables and targets on stdout (progress on stderr), and
     * write the JSON.
     * @return 0 when every case ran and passed its own checks (targets may still be unmet),
     *         1 otherwise
     * @throws WanInputError when the JSON cannot be written
     */
    int Run();

    /**
     * @param profile a profile
     * @return its name (full, quick, smoke)
     */
    static std::string GetProfileName(Profile profile);

  private:
    /**
     * @brief Run a case once in a child process.
     * @param arguments the case
     * @param resultFile where the child writes its result
     * @return the child's result plus peak_rss_mb, process_cpu_s, process_wall_s and
     *         exit_status; on failure an object with "passed": false and "error"
     */
    nlohmann::json RunProcess(const BenchCase::Arguments& arguments, const std::string& resultFile);
    /**
     * @brief Run a case `repeat` times, each in a child process, and keep the fastest run.
     * @param arguments the case
     * @param label what the progress line names
     * @param repeat how many times (>= 1)
     * @return the result of the run with the smallest wall_s, plus repetitions and
     *         wall_s_repetitions; the first failure otherwise
     */
    nlohmann::json RunCase(const BenchCase::Arguments& arguments,
                           const std::string& label,
                           uint32_t repeat);
    /**
     * @brief Run a simulation case (`ours`) and its plain-ns-3 replay `repeat` times each,
     * alternating (ours, plain, ours, plain, ...) so that both sample the same stretches of the
     * machine's time, each in a child process; the replay repeats the traffic of the `ours` run
     * just before it. Each side keeps its fastest run.
     * @param arguments the `ours` case
     * @param label what the progress line names
     * @param repeat how many times each (>= 1)
     * @return ours and plain, each as RunCase returns it; plain is a failure record when ours
     *         failed
     */
    std::pair<nlohmann::json, nlohmann::json> RunPair(const BenchCase::Arguments& arguments,
                                                      const std::string& label,
                                                      uint32_t repeat);

    /** Measure the simulation cost and its baseline, fill m_simulation and m_memory. */
    void RunSimulation();
    /** Measure the optimizer, fill m_optimizer. */
    void RunOptimizer();
    /** Measure the scale cases and their baselines, fill m_scale and m_scalePlain. */
    void RunScale();
    /** Measure the coarse-frame cases (ours only), fill m_coarse. */
    void RunCoarse();
    /**
     * @brief Print every table and the targets.
     * @param out the stream
     */
    void Print(std::ostream& out) const;
    /** @return the whole report as JSON, but for its `targets` */
    nlohmann::json ToJson() const;

    /**
     * @brief Print the coarse-frame table.
     * @param out the stream
     */
    void PrintCoarse(std::ostream& out) const;

    Options m_options;                                //!< the settings
    std::vector<uint64_t> m_sizes;                    //!< ModelBytes of the simulation cases
    std::vector<uint32_t> m_scaleIslands;             //!< islands of the scale cases
    uint32_t m_scaleRepeat{1};                        //!< alternating runs of each scale case
    uint64_t m_scaleBytes{0};                         //!< ModelBytes of the scale cases
    CapabilityMode m_scaleMode{CapabilityMode::BOTH}; //!< mode of the scale cases
    std::vector<CapabilityMode> m_evaluateModes;      //!< modes of the evaluate cases
    double m_evaluateSeconds{1};                      //!< wall time of each evaluate case
    std::vector<CapabilityMode> m_optimize9Modes;     //!< modes of optimize on nine islands
    std::vector<CapabilityMode> m_optimize32Modes;    //!< modes of optimize on 32 islands
    uint64_t m_optimize32Evaluations{0};              //!< their budget (0: the default)
    std::string m_caseDir;                            //!< where the children write their results
    uint32_t m_casesRun{0};                           //!< cases run so far
    uint32_t m_casesTotal{0};                         //!< cases of the profile
    bool m_allPassed{true};                           //!< whether every case passed
    nlohmann::json m_simulation;                      //!< per (mode, size): ours, plain, ratio
    nlohmann::json m_memory;                   //!< per mode: RSS at the smallest and largest size
    nlohmann::json m_evaluate;                 //!< evaluate results
    nlohmann::json m_optimize;                 //!< optimize results
    nlohmann::json m_scale;                    //!< scale results, ours
    nlohmann::json m_scalePlain;               //!< scale results, the plain baseline
    std::vector<CapabilityMode> m_coarseModes; //!< modes of the nine-city coarse cases
    uint64_t m_coarseBytes{0};                 //!< their ModelBytes
    std::vector<CapabilityMode> m_coarseSyntheticModes; //!< modes of the synthetic coarse cases
    uint32_t m_coarseSyntheticIslands{64};              //!< their islands
    uint64_t m_coarseSyntheticBytes{0};                 //!< their ModelBytes
    nlohmann::json m_coarse;        //!< coarse-frame results, ours (empty: not run)
    double m_scaleExponent{0};      //!< log-log slope of wall time over packet-hops
    double m_scalePlainExponent{0}; //!< the same for the plain baseline
    BenchTargets m_targets;         //!< the targets (after Run)
    LossSection m_loss;             //!< the loss section: its cases and results
};

} // namespace ns3

#endif /* BENCH_RUNNER_H */
