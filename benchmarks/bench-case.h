/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef BENCH_CASE_H
#define BENCH_CASE_H

#include "link-load-model.h"
#include "wan-topology.h"

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace ns3
{

/**
 * @ingroup wan-training
 * @brief One benchmark case, measured in a process of its own (BenchRunner starts the bench
 * program again with the case's arguments, so that the peak RSS it reads is the case's).
 *
 * The kinds:
 * - `ours`: one round of the all-island clique (CliqueSchedule::AllReduce) as a TrainingRun
 *   (one TrainingIslandApplication per island, FPGAs and trees as the mode needs, the results
 *   recorder); the result holds the wall and CPU seconds of TrainingRun::Run(), simulated
 *   seconds, packet-hops (the sum over directed links of TrainingResults' packets), events
 *   executed (Simulator::GetEventCount), the round's simulated communication time and the
 *   schedule model's prediction of it (TrainingRunSummary's `comm_s`, `predicted_comm_s`), the
 *   bytes on the wire and the model bytes over every link, and the traffic TrafficRecorder saw,
 *   for `plain`; with coarseFrames on the topology of MakeCoarseTopology;
 * - `plain`: the traffic of an `ours` result replayed by PlainNs3Baseline;
 * - `evaluate`: ScheduleOptimizer::GetXi on distinct random schedules of the topology
 *   (period 1 to 4, each a fresh Xi computation, never a cache hit) for at least a given
 *   wall time; the result is the calls per second;
 * - `optimize`: ScheduleOptimizer::Optimize() with its default options; wall seconds, Xi, its
 *   lower bound (doc/schedule-model.rst, "Information exchange") and the all-reduce
 *   baseline's Xi;
 * - `loss`: a TrainingRun of `rounds` rounds of the Latin triples (CliqueSchedule::LatinTriples,
 *   nine islands) with random loss at `lossRate` on every WAN link, everything else
 *   TrainingRun::Config's defaults; the result holds each round's simulated communication time
 *   and their mean, the largest round-trip time between two members of one clique of the
 *   schedule, the repairs and the packets lost to the loss (LossSection).
 */
class BenchCase
{
  public:
    /** What a case measures and on what. */
    struct Arguments
    {
        std::string kind;             //!< ours, plain, evaluate, optimize or loss
        std::string topologyFile;     //!< topology JSON (when syntheticIslands is 0)
        uint32_t syntheticIslands{0}; //!< SyntheticTopology islands (seed 1), 0: the file
        CapabilityMode mode{CapabilityMode::UNICAST}; //!< the capability mode
        uint64_t modelBytes{0};     //!< ModelBytes (ours; optimize and evaluate: S)
        double computeS{1};         //!< tau_c (evaluate, optimize)
        double seconds{1};          //!< the least wall time to measure (evaluate)
        uint64_t maxEvaluations{0}; //!< optimize: Xi evaluations (0: the default)
        std::string oursResult;     //!< plain: the result file of the `ours` case to replay
        bool coarseFrames{false};   //!< ours: simulation frames of COARSE_FRAME_BYTES
                                    //!< (MakeCoarseTopology)
        uint32_t rounds{1};         //!< loss: the rounds to run
        double lossRate{0};         //!< loss: the packet error rate on every WAN link
    };

    /** IP bytes of one coarse simulation frame (the `coarse` cases of BenchRunner):
     *  WanTopology::GetFrameBytes, 7 frames of 9000 bytes. */
    static constexpr uint32_t COARSE_FRAME_BYTES = 64000;

    /**
     * @brief The topology of a coarse case: the given one with simulation frames of
     * COARSE_FRAME_BYTES (WanTopology::WithFrameBytes; doc/wan-training.rst, "Coarse frames").
     * @param json the topology document
     * @param sourceName its name in error messages
     * @return the topology with coarse frames
     * @throws WanInputError when the document is not a valid topology
     */
    static WanTopology MakeCoarseTopology(const std::string& json, const std::string& sourceName);

    /**
     * @param arguments a case
     * @return the command-line arguments of the bench program that run it (without the
     *         program name and --result)
     */
    static std::vector<std::string> ToCommandLine(const Arguments& arguments);

    /**
     * @brief Run a case in this process.
     * @param arguments the case
     * @return its result (JSON object); "passed" tells whether it ran as it should
     * @throws WanInputError on unreadable input files
     */
    static nlohmann::json Run(const Arguments& arguments);

    /**
     * @param arguments a case naming its topology
     * @return the topology: the synthetic one, or the file's
     */
    static WanTopology LoadTopology(const Arguments& arguments);

  private:
    /**
     * @param arguments an `ours` case
     * @return its result
     */
    static nlohmann::json RunOurs(const Arguments& arguments);
    /**
     * @param arguments a `plain` case
     * @return its result
     */
    static nlohmann::json RunPlain(const Arguments& arguments);
    /**
     * @param arguments an `evaluate` case
     * @return its result
     */
    static nlohmann::json RunEvaluate(const Arguments& arguments);
    /**
     * @param arguments an `optimize` case
     * @return its result
     */
    static nlohmann::json RunOptimize(const Arguments& arguments);
    /**
     * @param arguments a `loss` case
     * @return its result
     * @throws WanInputError when the topology does not have nine islands
     */
    static nlohmann::json RunLoss(const Arguments& arguments);
};

} // namespace ns3

#endif /* BENCH_CASE_H */
