/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef BENCH_TARGETS_H
#define BENCH_TARGETS_H

#include "capability-mode.h"

#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <vector>

namespace ns3
{

/**
 * @ingroup wan-training
 * @brief The targets of the benchmark (issue "Performance"), judged from BenchRunner's report:
 * each measured value against its limit, met or NOT met; a target whose cases the profile did
 * not run is listed as skipped. Targets are reported, never asserted.
 *
 * The targets: ours / plain wall time <= 1.3 per mode (summed over the ModelBytes); peak RSS
 * <= 1.2 x plain ns-3's per mode (the largest ratio over the ModelBytes); peak RSS at the
 * largest ModelBytes <= 1.2 x at the smallest in the modes whose packets in flight do not grow
 * with S (InFlightGrowsWithModelBytes); evaluate >= 1000 calls/s and optimize < 10 s for nine
 * islands; the largest scale case completes a round; ours / plain at the largest scale case
 * <= 1.15 x at the smallest (medians of alternating runs); with coarse frames on nine cities at
 * 10 GB, wall <= simulated communication time in both mode and <= 2 x in unicast, and the
 * communication time within 1 % of the schedule model's times the measured wire bytes per model
 * byte; with coarse frames on 64 synthetic islands at 1 GB, a round of both and of tree mode in
 * under 600 s of wall time; under WAN loss (LossSection, issue 23), every mode's mean
 * communication time at 0.1 % loss <= 1.1 x its lossless time + the largest round-trip time
 * within one of its cliques (ring: 1.5 x lossless), at 1 % <= 1.2 x lossless + 2 x that RTT
 * (ring: 2 x lossless). Every target has a stable `id` (kind/mode), the same in every
 * profile.
 */
class BenchTargets
{
  public:
    /** One target, as measured. */
    struct Target
    {
        std::string id;         //!< a stable key (kind/mode), the same in every profile
        std::string name;       //!< what is measured
        double measured;        //!< the measured value (NaN: its case failed or did not run)
        std::string relation;   //!< "<=", ">=" or "<"
        double limit;           //!< the limit (NaN: it could not be computed)
        std::string unit;       //!< the unit of both values
        bool met;               //!< whether the measured value is within the limit
        bool skipped;           //!< whether the profile did not run its cases
        std::string skipReason; //!< why its cases did not run (when skipped)
    };

    /**
     * @brief Whether a mode's packets in flight grow with the model size S on the bench's
     * topologies, from 64 MB to 1 GB (benchmarks/README.md, "Memory scaling").
     *
     * Memory follows the packets in flight. A stream keeps in flight at most its whole
     * transfer, and at most its rate times its path's delay (the pipe). Where many streams share
     * every bottleneck (unicast, multicast, aggregation, both), each stream's rate is a small
     * share of a link and its pipe is full well before 64 MB, so what is in flight is the same
     * at 1 GB. Ring (a step carries S/k over one hop at the link's whole bottleneck share) and
     * tree (one stream each way per link, at the link's rate) send each stream fast enough that
     * a transfer at 64 MB is shorter than its pipe: it is in flight all at once, so the packets
     * in flight grow with S until the transfer outlasts the path's delay. No exchange buffers a
     * whole contribution: receivers keep chunk ranges, the FPGAs a slot per open chunk.
     * @param mode a mode
     * @return true for ring and tree
     */
    static bool InFlightGrowsWithModelBytes(CapabilityMode mode);

    /**
     * @brief Judge every target from a report.
     * @param report BenchRunner's report: `simulation.cases`, `memory`, `optimizer`, `scale`
     *        (with `repetitions`), `coarse.cases` and `loss.cases`, as benchmarks/README.md
     *        describes them
     */
    void Compute(const nlohmann::json& report);

    /** @return the targets, in the order they are printed */
    const std::vector<Target>& GetTargets() const;

    /**
     * @brief Print one line per target: `target: NAME : measured X (limit R Y) met|NOT met`
     * (`not measured (limit R Y) skipped: REASON` for a skipped one; Y is "-" when the limit
     * could not be computed).
     * @param out the stream
     */
    void Print(std::ostream& out) const;

    /**
     * @return the `targets` array of the JSON (id, name, measured, relation, target, unit, met,
     *         skipped)
     */
    nlohmann::json ToJson() const;

  private:
    /**
     * @param id the target's stable key
     * @param name the target
     * @param measured the measured value (NaN: its case failed)
     * @param relation "<=", ">=" or "<"
     * @param limit the limit
     * @param unit the unit
     */
    void Add(const std::string& id,
             const std::string& name,
             double measured,
             const std::string& relation,
             double limit,
             const std::string& unit);
    /**
     * @brief Add a target whose cases did not run (reported as skipped).
     * @param id the target's stable key
     * @param name the target
     * @param relation "<=", ">=" or "<"
     * @param limit the limit (NaN: not known without the cases)
     * @param unit the unit
     * @param reason why the cases did not run
     */
    void AddSkipped(const std::string& id,
                    const std::string& name,
                    const std::string& relation,
                    double limit,
                    const std::string& unit,
                    const std::string& reason);

    /**
     * @brief The simulation and memory targets.
     * @param report the report
     */
    void ComputeSimulation(const nlohmann::json& report);
    /**
     * @brief The scale targets (none when no scale case ran).
     * @param report the report
     */
    void ComputeScale(const nlohmann::json& report);
    /**
     * @brief The coarse-frame targets (skipped when their cases did not run).
     * @param report the report
     */
    void ComputeCoarse(const nlohmann::json& report);
    /**
     * @brief The loss targets, two per mode of GetAllCapabilityModes (skipped when their cases
     * did not run).
     * @param report the report
     */
    void ComputeLoss(const nlohmann::json& report);

    std::vector<Target> m_targets; //!< the targets
};

} // namespace ns3

#endif /* BENCH_TARGETS_H */
