/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "training-run-summary.h"

#include "capability-mode.h"
#include "wan-input-error.h"

#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>

namespace ns3
{

namespace
{

using nlohmann::json;

/** Reads the fields of one JSON object of a results file, naming their path in errors. */
class FieldReader
{
  public:
    /**
     * @param file the file (for the errors)
     * @param value the value that must be an object
     * @param path its JSON path
     * @throws WanInputError when it is not an object
     */
    FieldReader(const std::string& file, const json& value, const std::string& path)
        : m_file(file),
          m_value(value),
          m_path(path)
    {
        if (!value.is_object())
        {
            Fail(path, "must be an object");
        }
    }

    /**
     * @param path a JSON path
     * @param reason what is wrong there
     */
    [[noreturn]] void Fail(const std::string& path, const std::string& reason) const
    {
        throw WanInputError(m_file, path, reason);
    }

    /**
     * @param key a field
     * @return its JSON path
     */
    std::string PathOf(const std::string& key) const
    {
        return m_path + "." + key;
    }

    /**
     * @param key a field
     * @return its value
     */
    const json& Get(const std::string& key) const
    {
        auto it = m_value.find(key);
        if (it == m_value.end())
        {
            Fail(PathOf(key), "missing");
        }
        return *it;
    }

    /**
     * @param key a field holding an object
     * @return a reader of it
     */
    FieldReader Object(const std::string& key) const
    {
        return FieldReader(m_file, Get(key), PathOf(key));
    }

    /**
     * @param key a field holding an array
     * @return the array
     */
    const json& Array(const std::string& key) const
    {
        const json& value = Get(key);
        if (!value.is_array())
        {
            Fail(PathOf(key), "must be an array");
        }
        return value;
    }

    /**
     * @param key a field holding an array of objects
     * @param i an index in it
     * @return a reader of the element
     */
    FieldReader Element(const std::string& key, size_t i) const
    {
        return FieldReader(m_file, Array(key).at(i), PathOf(key) + "[" + std::to_string(i) + "]");
    }

    /** @return the fields, to iterate over (a map of objects) */
    const json& GetValue() const
    {
        return m_value;
    }

    /**
     * @param key a field holding an object of objects
     * @param name a key of that object
     * @return a reader of its entry
     */
    FieldReader Entry(const std::string& key, const std::string& name) const
    {
        return FieldReader(m_file, Get(key).at(name), PathOf(key) + "['" + name + "']");
    }

    /**
     * @param key a field holding a number
     * @return the number
     */
    double Number(const std::string& key) const
    {
        const json& value = Get(key);
        if (!value.is_number())
        {
            Fail(PathOf(key), "must be a number");
        }
        return value.get<double>();
    }

    /**
     * @param key a field holding a number or null
     * @return the number, or empty for null
     */
    std::optional<double> NumberOrNull(const std::string& key) const
    {
        const json& value = Get(key);
        if (value.is_null())
        {
            return std::nullopt;
        }
        if (!value.is_number())
        {
            Fail(PathOf(key), "must be a number or null");
        }
        return value.get<double>();
    }

    /**
     * @param key a field holding a non-negative integer
     * @param max the largest value allowed
     * @return the integer
     */
    uint64_t Count(const std::string& key,
                   uint64_t max = std::numeric_limits<uint64_t>::max()) const
    {
        const json& value = Get(key);
        if (!value.is_number_unsigned() &&
            !(value.is_number_integer() && value.get<int64_t>() >= 0))
        {
            Fail(PathOf(key), "must be a non-negative integer");
        }
        if (value.get<uint64_t>() > max)
        {
            Fail(PathOf(key), "must be at most " + std::to_string(max));
        }
        return value.get<uint64_t>();
    }

    /**
     * @param key a field holding a non-negative 32-bit integer
     * @return the integer
     */
    uint32_t Count32(const std::string& key) const
    {
        return static_cast<uint32_t>(Count(key, std::numeric_limits<uint32_t>::max()));
    }

    /**
     * @param key a field holding true or false
     * @return the value
     */
    bool Flag(const std::string& key) const
    {
        const json& value = Get(key);
        if (!value.is_boolean())
        {
            Fail(PathOf(key), "must be true or false");
        }
        return value.get<bool>();
    }

    /**
     * @param key a field holding a string
     * @return the string
     */
    std::string Text(const std::string& key) const
    {
        const json& value = Get(key);
        if (!value.is_string())
        {
            Fail(PathOf(key), "must be a string");
        }
        return value.get<std::string>();
    }

    /**
     * @param key a field holding a string or null
     * @return the string, or empty for null
     */
    std::optional<std::string> TextOrNull(const std::string& key) const
    {
        if (Get(key).is_null())
        {
            return std::nullopt;
        }
        return Text(key);
    }

  private:
    const std::string& m_file; //!< the file
    const json& m_value;       //!< the object
    std::string m_path;        //!< its JSON path
};

/**
 * @param config the `config` section
 * @return its typed form
 */
TrainingRunSummary::Config
ReadConfig(const FieldReader& config)
{
    TrainingRunSummary::Config c;
    c.mode = config.Text("mode");
    c.format = config.Text("format");
    c.modelBytes = config.Count("model_bytes");
    c.rounds = config.Count32("rounds");
    c.seed = config.Count("seed");
    c.localSteps = config.Count("local_steps");
    c.stepTimeS = config.Number("step_time_s");
    const json& rounds = config.Array("schedule_rounds");
    for (size_t r = 0; r < rounds.size(); ++r)
    {
        const std::string roundPath =
            config.PathOf("schedule_rounds") + "[" + std::to_string(r) + "]";
        if (!rounds[r].is_array())
        {
            config.Fail(roundPath, "must be an array of cliques");
        }
        std::vector<std::vector<std::string>> cliques;
        std::vector<std::string> algorithms;
        for (size_t k = 0; k < rounds[r].size(); ++k)
        {
            // A plain list of city ids, or {"members": [...], "algorithm": A}.
            const std::string cliquePath = roundPath + "[" + std::to_string(k) + "]";
            const bool object = rounds[r][k].is_object();
            const json& clique =
                object && rounds[r][k].contains("members") ? rounds[r][k]["members"] : rounds[r][k];
            bool valid = clique.is_array();
            for (size_t m = 0; valid && m < clique.size(); ++m)
            {
                valid = clique[m].is_string();
            }
            if (!valid)
            {
                config.Fail(object ? cliquePath + ".members" : cliquePath,
                            "must be an array of city ids");
            }
            cliques.push_back(clique.get<std::vector<std::string>>());
            algorithms.emplace_back();
            if (object)
            {
                const json& algorithm = rounds[r][k].value("algorithm", json());
                bool known = false;
                for (CapabilityMode mode : GetAllCapabilityModes())
                {
                    known = known || (algorithm.is_string() &&
                                      algorithm.get<std::string>() == CapabilityModeToString(mode));
                }
                if (!known)
                {
                    config.Fail(cliquePath + ".algorithm",
                                "must be unicast, multicast, aggregation, both, ring or tree");
                }
                algorithms.back() = algorithm.get<std::string>();
            }
        }
        c.scheduleAlgorithms.push_back(algorithms);
        c.scheduleRounds.push_back(cliques);
    }
    return c;
}

/**
 * @param entry an entry of a round's `unfinished` list
 * @return its typed form
 */
TrainingRunSummary::Unfinished
ReadUnfinished(const FieldReader& entry)
{
    TrainingRunSummary::Unfinished u;
    if (entry.GetValue().contains("island"))
    {
        u.island = entry.Text("island");
    }
    else if (entry.GetValue().contains("clique"))
    {
        u.clique = entry.Count32("clique");
    }
    else
    {
        entry.Fail(entry.PathOf("island"), "missing (nor is there a clique)");
    }
    u.status = entry.Text("status");
    u.reason = entry.Text("reason");
    return u;
}

/**
 * @param error a `format_error` object
 * @return its typed form
 */
TrainingRunSummary::FormatError
ReadFormatError(const FieldReader& error)
{
    return {error.Number("max_abs"), error.Number("max_rel")};
}

/**
 * @param round an entry of `rounds`
 * @return its typed form
 */
TrainingRunSummary::Round
ReadRound(const FieldReader& round)
{
    TrainingRunSummary::Round r;
    r.round = round.Count32("round");
    r.startS = round.NumberOrNull("start_s");
    r.endS = round.NumberOrNull("end_s");
    r.commS = round.NumberOrNull("comm_s");
    r.predictedCommS = round.Number("predicted_comm_s");
    r.complete = round.Flag("complete");
    r.verified = round.Flag("verified");
    r.formatError = ReadFormatError(round.Object("format_error"));
    for (size_t i = 0; i < round.Array("unfinished").size(); ++i)
    {
        r.unfinished.push_back(ReadUnfinished(round.Element("unfinished", i)));
    }
    for (size_t i = 0; i < round.Array("cliques").size(); ++i)
    {
        const FieldReader clique = round.Element("cliques", i);
        r.cliques.push_back({clique.Count32("clique"),
                             clique.TextOrNull("algorithm").value_or(""),
                             clique.NumberOrNull("comm_s"),
                             clique.Number("predicted_comm_s")});
    }
    return r;
}

/**
 * @param doc the document
 * @param summary filled with the links and islands
 */
void
ReadLinksAndIslands(const FieldReader& doc, TrainingRunSummary& summary)
{
    for (const auto& item : doc.Object("links").GetValue().items())
    {
        const FieldReader link = doc.Entry("links", item.key());
        TrainingRunSummary::Link& l = summary.links[item.key()];
        l.packets = link.Count("packets");
        l.bytes = link.Count("bytes");
        l.modelBytes = link.Count("model_bytes");
        l.errorDrops = link.Count("error_drops");
        l.queueDrops = link.Count("queue_drops");
        l.linkDownDrops = link.Count("link_down_drops");
    }
    for (const auto& item : doc.Object("islands").GetValue().items())
    {
        const FieldReader island = doc.Entry("islands", item.key());
        TrainingRunSummary::Island& i = summary.islands[item.key()];
        i.repairs = island.Count("repairs");
        i.repairedChunks = island.Count("repaired_chunks");
        i.paritiesSent = island.Count("parities_sent");
        i.chunksRebuilt = island.Count("chunks_rebuilt");
        i.repairWaitMeanS = island.NumberOrNull("repair_wait_mean_s");
        i.repairWaitMaxS = island.NumberOrNull("repair_wait_max_s");
        i.roundsCompleted = island.Count32("rounds_completed");
        i.crashed = island.Flag("crashed");
        i.failure = island.TextOrNull("failure");
    }
}

/**
 * @param doc the document
 * @param summary filled with the loss, consensus and colocated curves
 */
void
ReadCurves(const FieldReader& doc, TrainingRunSummary& summary)
{
    for (size_t k = 0; k < doc.Array("loss").size(); ++k)
    {
        const FieldReader sample = doc.Element("loss", k);
        summary.loss.push_back(
            {sample.Number("t_s"), sample.Number("value"), sample.Number("island_mean")});
    }
    if (summary.loss.empty())
    {
        doc.Fail(doc.PathOf("loss"), "must hold the initial sample at least");
    }
    for (size_t k = 0; k < doc.Array("consensus").size(); ++k)
    {
        const FieldReader sample = doc.Element("consensus", k);
        summary.consensus.push_back({sample.Number("t_s"), sample.Number("value")});
    }
    const FieldReader colocated = doc.Object("colocated");
    for (size_t k = 0; k < colocated.Array("loss").size(); ++k)
    {
        const FieldReader point = colocated.Element("loss", k);
        summary.colocatedLoss.push_back({point.Number("t_s"), point.Number("value")});
    }
    summary.optimalLoss = doc.Number("optimal_loss");
}

/**
 * @param verification the `verification` section
 * @return its typed form
 */
TrainingRunSummary::Verification
ReadVerification(const FieldReader& verification)
{
    TrainingRunSummary::Verification v;
    v.roundsVerified = verification.Count32("rounds_verified");
    v.roundsComplete = verification.Count32("rounds_complete");
    v.rounds = verification.Count32("rounds");
    v.maxAbsError = verification.Number("max_abs_error");
    v.maxRelError = verification.Number("max_rel_error");
    v.maxErrorOverBound = verification.Number("max_error_over_bound");
    v.formatError = ReadFormatError(verification.Object("format_error"));
    v.passed = verification.Flag("passed");
    return v;
}

/**
 * @param faults the `faults` section
 * @return its typed totals
 */
TrainingRunSummary::Faults
ReadFaults(const FieldReader& faults)
{
    TrainingRunSummary::Faults f;
    f.exclusions = faults.Count("exclusions");
    f.roundsAbandoned = faults.Count32("rounds_abandoned");
    f.crashedIslands = faults.Count32("crashed_islands");
    f.partitioned = faults.Flag("partitioned");
    f.stoppedByTimeLimit = faults.Flag("stopped_by_time_limit");
    return f;
}

/**
 * @param summary the `summary` section
 * @return its typed form
 */
TrainingRunSummary::Summary
ReadSummary(const FieldReader& summary)
{
    TrainingRunSummary::Summary s;
    s.complete = summary.Flag("complete");
    s.roundsComplete = summary.Count32("rounds_complete");
    s.roundsAbandoned = summary.Count32("rounds_abandoned");
    s.crashedIslands = summary.Count32("crashed_islands");
    s.exclusions = summary.Count("exclusions");
    s.partitioned = summary.Flag("partitioned");
    s.stoppedByTimeLimit = summary.Flag("stopped_by_time_limit");
    s.linkDownDrops = summary.Count("link_down_drops");
    s.reordered = summary.Count("reordered");
    s.duplicated = summary.Count("duplicated");
    s.failedIslands = summary.Count32("failed_islands");
    s.trainingTimeS = summary.Number("training_time_s");
    s.repairs = summary.Count("repairs");
    s.errorDrops = summary.Count("error_drops");
    s.queueDrops = summary.Count("queue_drops");
    s.fpgaAggregates = summary.Count("fpga_aggregates");
    s.fpgaPartialAggregates = summary.Count("fpga_partial_aggregates");
    s.fpgaKnownLostReleases = summary.Count("fpga_known_lost_releases");
    s.fpgaShadowServes = summary.Count("fpga_shadow_serves");
    s.fpgaPassThroughs = summary.Count("fpga_pass_throughs");
    s.finalLoss = summary.Number("final_loss");
    s.finalConsensus = summary.Number("final_consensus");
    return s;
}

} // namespace

TrainingRunSummary
TrainingRunSummary::FromJson(const nlohmann::json& doc, const std::string& file)
{
    const FieldReader root(file, doc, "$");
    TrainingRunSummary summary;
    summary.config = ReadConfig(root.Object("config"));
    for (size_t r = 0; r < root.Array("rounds").size(); ++r)
    {
        summary.rounds.push_back(ReadRound(root.Element("rounds", r)));
    }
    ReadLinksAndIslands(root, summary);
    summary.verification = ReadVerification(root.Object("verification"));
    ReadCurves(root, summary);
    summary.faults = ReadFaults(root.Object("faults"));
    summary.summary = ReadSummary(root.Object("summary"));
    return summary;
}

TrainingRunSummary
TrainingRunSummary::Parse(const std::string& text, const std::string& file)
{
    const nlohmann::json doc = nlohmann::json::parse(text, nullptr, false);
    if (doc.is_discarded())
    {
        throw WanInputError(file, "$", "not a JSON document");
    }
    return FromJson(doc, file);
}

TrainingRunSummary
TrainingRunSummary::ReadFile(const std::string& path)
{
    std::ifstream in(path);
    if (!in)
    {
        throw WanInputError(path, "$", "cannot open the results file");
    }
    std::ostringstream text;
    text << in.rdbuf();
    return Parse(text.str(), path);
}

} // namespace ns3
