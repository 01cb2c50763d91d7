/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "bench-targets.h"

#include "bench-values.h"
#include "loss-section.h"

#include "ns3/log.h"

#include <cmath>
#include <iomanip>
#include <limits>
#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("WanTrainingBenchTargets");

namespace
{

/** NaN, the measured value of a failed case. */
const double NOT_MEASURED = std::numeric_limits<double>::quiet_NaN();

} // namespace

bool
BenchTargets::InFlightGrowsWithModelBytes(CapabilityMode mode)
{
    return mode == CapabilityMode::RING || mode == CapabilityMode::TREE;
}

void
BenchTargets::Add(const std::string& id,
                  const std::string& name,
                  double measured,
                  const std::string& relation,
                  double limit,
                  const std::string& unit)
{
    bool met = false;
    if (std::isfinite(measured))
    {
        met = relation == "<="   ? measured <= limit
              : relation == "<"  ? measured < limit
              : relation == ">=" ? measured >= limit
                                 : false;
    }
    m_targets.push_back({id, name, measured, relation, limit, unit, met, false, ""});
}

void
BenchTargets::AddSkipped(const std::string& id,
                         const std::string& name,
                         const std::string& relation,
                         double limit,
                         const std::string& unit,
                         const std::string& reason)
{
    m_targets.push_back({id, name, NOT_MEASURED, relation, limit, unit, false, true, reason});
}

void
BenchTargets::Compute(const nlohmann::json& report)
{
    using V = BenchValues;
    m_targets.clear();
    ComputeSimulation(report);
    for (const nlohmann::json& row : report.at("optimizer").at("evaluate"))
    {
        const std::string mode = row.value("mode", std::string("?"));
        Add("evaluate_calls_per_s/" + mode,
            "evaluate (GetXi) calls/s, nine-city, " + mode,
            V::Number(row, "calls_per_s"),
            ">=",
            1000,
            "/s");
    }
    for (const nlohmann::json& row : report.at("optimizer").at("optimize"))
    {
        if (V::Number(row, "islands") == 9)
        {
            const std::string mode = row.value("mode", std::string("?"));
            Add("optimize_wall_s/" + mode,
                "optimize wall time, nine-city, " + mode,
                V::Number(row, "wall_s"),
                "<",
                10,
                "s");
        }
    }
    ComputeScale(report);
    ComputeCoarse(report);
    ComputeLoss(report);
}

void
BenchTargets::ComputeSimulation(const nlohmann::json& report)
{
    using V = BenchValues;
    const nlohmann::json& cases = report.at("simulation").at("cases");
    for (const nlohmann::json& row : report.at("memory"))
    {
        const std::string mode = row.at("mode").get<std::string>();
        double ours = 0;
        double plain = 0;
        for (const nlohmann::json& c : cases)
        {
            if (c.at("mode") == mode)
            {
                ours += V::Number(c.at("ours"), "wall_s");
                plain += V::Number(c.at("plain"), "wall_s");
            }
        }
        Add("wall_ratio/" + mode,
            "ours / plain ns-3 wall time, " + mode,
            ours / plain,
            "<=",
            1.3,
            "x");
    }
    for (const nlohmann::json& row : report.at("memory"))
    {
        const std::string mode = row.at("mode").get<std::string>();
        Add("peak_rss_to_plain/" + mode,
            "peak RSS ours / plain ns-3 (largest over the sizes), " + mode,
            V::Number(row, "largest_rss_ratio_to_plain"),
            "<=",
            1.2,
            "x");
    }
    for (const nlohmann::json& row : report.at("memory"))
    {
        if (row.at("in_flight_grows_with_s").get<bool>())
        {
            continue; // no growth target: its packets in flight grow with S
        }
        const std::string mode = row.at("mode").get<std::string>();
        Add("peak_rss_growth/" + mode,
            "peak RSS at " + V::BytesText(row.at("large_model_bytes").get<double>()) + " / at " +
                V::BytesText(row.at("small_model_bytes").get<double>()) + ", " + mode,
            V::Number(row, "ratio"),
            "<=",
            1.2,
            "x");
    }
}

void
BenchTargets::ComputeScale(const nlohmann::json& report)
{
    using V = BenchValues;
    const nlohmann::json& scale = report.at("scale");
    const nlohmann::json& cases = scale.at("cases");
    if (cases.empty())
    {
        return;
    }
    const nlohmann::json& smallest = cases.front();
    const nlohmann::json& largest = cases.back();
    const std::string largestIslands = V::Fixed(V::Number(largest, "islands"), 0);
    Add("scale_rounds_verified",
        largestIslands + " islands: rounds completed and verified",
        V::Passed(largest) ? V::Number(largest, "rounds_verified") : NOT_MEASURED,
        ">=",
        1,
        "rounds");
    Add("scale_overhead_growth",
        "scale: ours/plain at " + largestIslands + " islands / at " +
            V::Fixed(V::Number(smallest, "islands"), 0) + " (median of " +
            V::Fixed(V::Number(scale, "repetitions"), 0) + ")",
        V::Number(largest, "wall_ratio_median") / V::Number(smallest, "wall_ratio_median"),
        "<=",
        1.15,
        "x");
}

void
BenchTargets::ComputeCoarse(const nlohmann::json& report)
{
    using V = BenchValues;
    using M = CapabilityMode;

    /** A coarse-frame target: a field of one case's result against a limit. */
    struct Coarse
    {
        std::string id;       //!< the target's key
        std::string name;     //!< what is measured
        uint32_t islands;     //!< the case's synthetic islands (0: nine-city)
        M mode;               //!< the case's mode
        std::string field;    //!< the field of its result
        bool deviation;       //!< whether the value judged is |field - 1|
        std::string relation; //!< the relation
        double limit;         //!< the limit
        std::string unit;     //!< the unit
    };

    const std::string nine = "coarse nine-city 10 GB, ";
    const std::string synthetic = "coarse 64 islands 1 GB, ";
    const std::vector<Coarse> targets{
        {"coarse_wall_per_comm/both",
         nine + "both: wall / simulated comm",
         0,
         M::BOTH,
         "wall_per_comm",
         false,
         "<=",
         1,
         "x"},
        {"coarse_wall_per_comm/unicast",
         nine + "unicast: wall / simulated comm",
         0,
         M::UNICAST,
         "wall_per_comm",
         false,
         "<=",
         2,
         "x"},
        {"coarse_comm_to_model/both",
         nine + "both: |comm / (model x wire/model) - 1|",
         0,
         M::BOTH,
         "comm_to_model",
         true,
         "<=",
         0.01,
         ""},
        {"coarse_comm_to_model/unicast",
         nine + "unicast: |comm / (model x wire/model) - 1|",
         0,
         M::UNICAST,
         "comm_to_model",
         true,
         "<=",
         0.01,
         ""},
        {"coarse_round_wall_s/both",
         synthetic + "both: wall time of the round",
         64,
         M::BOTH,
         "wall_s",
         false,
         "<",
         600,
         "s"},
        {"coarse_round_wall_s/tree",
         synthetic + "tree: wall time of the round",
         64,
         M::TREE,
         "wall_s",
         false,
         "<",
         600,
         "s"},
    };
    const nlohmann::json& cases = report.at("coarse").at("cases");
    for (const Coarse& t : targets)
    {
        const nlohmann::json* found = nullptr;
        for (const nlohmann::json& row : cases)
        {
            if (V::Number(row, "synthetic_islands") == t.islands &&
                row.value("mode", std::string()) == CapabilityModeToString(t.mode))
            {
                found = &row;
            }
        }
        if (found == nullptr)
        {
            AddSkipped(t.id,
                       t.name,
                       t.relation,
                       t.limit,
                       t.unit,
                       "its cases did not run (full profile only)");
            continue;
        }
        double measured = V::Passed(*found) ? V::Number(*found, t.field) : NOT_MEASURED;
        Add(t.id,
            t.name,
            t.deviation ? std::abs(measured - 1) : measured,
            t.relation,
            t.limit,
            t.unit);
    }
}

void
BenchTargets::ComputeLoss(const nlohmann::json& report)
{
    using V = BenchValues;
    const nlohmann::json& cases = report.at("loss").at("cases");
    auto find = [&cases](const std::string& mode, double lossRate) -> const nlohmann::json* {
        for (const nlohmann::json& row : cases)
        {
            if (row.value("mode", std::string()) == mode && V::Number(row, "loss_rate") == lossRate)
            {
                return &row;
            }
        }
        return nullptr;
    };
    for (CapabilityMode mode : GetAllCapabilityModes())
    {
        const std::string modeName = CapabilityModeToString(mode);
        const nlohmann::json* lossless = find(modeName, 0);
        for (const LossSection::Limit& limit : LossSection::GetLimits())
        {
            const std::string id = "loss-" + limit.label + "/" + modeName;
            const std::string name =
                "loss " + limit.label + ", " + modeName + ": comm s (" +
                (mode == CapabilityMode::RING ? limit.ringFormula : limit.formula) + ")";
            const nlohmann::json* row = find(modeName, limit.lossRate);
            if (row == nullptr || lossless == nullptr)
            {
                AddSkipped(id,
                           name,
                           "<=",
                           NOT_MEASURED,
                           "s",
                           "its cases did not run (mode or section not in this run)");
                continue;
            }
            const double losslessCommS =
                V::Passed(*lossless) ? V::Number(*lossless, "comm_s") : NOT_MEASURED;
            Add(id,
                name,
                V::Passed(*row) ? V::Number(*row, "comm_s") : NOT_MEASURED,
                "<=",
                LossSection::GetLimitS(mode,
                                       limit,
                                       losslessCommS,
                                       V::Number(*lossless, "max_rtt_s")),
                "s");
        }
    }
}

const std::vector<BenchTargets::Target>&
BenchTargets::GetTargets() const
{
    return m_targets;
}

void
BenchTargets::Print(std::ostream& out) const
{
    for (const Target& t : m_targets)
    {
        const std::string unit = t.unit.empty() ? "" : " " + t.unit;
        std::ostringstream limit;
        limit << t.relation << " ";
        if (std::isfinite(t.limit))
        {
            limit << t.limit;
        }
        else
        {
            limit << "-";
        }
        limit << unit;
        out << "target: " << std::left << std::setw(66) << t.name << std::right << " : ";
        if (t.skipped)
        {
            out << "not measured (limit " << limit.str() << ") skipped: " << t.skipReason << "\n";
            continue;
        }
        out << "measured "
            << BenchValues::Fixed(t.measured,
                                  t.measured >= 100 ? 0
                                  : t.measured >= 1 ? 3
                                                    : 4)
            << unit << " (limit " << limit.str() << ") " << (t.met ? "met" : "NOT met") << "\n";
    }
}

nlohmann::json
BenchTargets::ToJson() const
{
    nlohmann::json targets = nlohmann::json::array();
    for (const Target& t : m_targets)
    {
        targets.push_back({{"id", t.id},
                           {"name", t.name},
                           {"measured", BenchValues::NumberOrNull(t.measured)},
                           {"relation", t.relation},
                           {"target", BenchValues::NumberOrNull(t.limit)},
                           {"unit", t.unit},
                           {"met", t.skipped ? nlohmann::json(nullptr) : nlohmann::json(t.met)},
                           {"skipped", t.skipped}});
    }
    return targets;
}

} // namespace ns3
