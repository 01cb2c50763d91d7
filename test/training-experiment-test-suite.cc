/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "training-experiment.h"
#include "wan-config-error.h"
#include "wan-topology.h"

#include "ns3/nstime.h"
#include "ns3/test.h"

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

/**
 * @file
 * @ingroup wan-training-tests
 * TrainingExperiment at a tiny size (the nine-city topology, every simulated mode, a 200 kB
 * model, 2 rounds): every mode's rounds complete and verified, and every number of the summary
 * equal to what the mode's own results JSON holds (read here independently) or to its closed
 * form; the configuration errors name their field.
 */

using namespace ns3;

namespace
{

/** The nine-city topology (every capability). */
const std::string NINE_CITY = "../topologies/doublezero-nine-city.json";
/** Three cities in a line, no multicast and no FPGAs. */
const std::string TINY = "data/tiny-valid.json";

/**
 * @param file a JSON file
 * @return its document (discarded when missing or malformed)
 */
nlohmann::json
ReadJson(const std::filesystem::path& file)
{
    std::ifstream in(file);
    return nlohmann::json::parse(in, nullptr, false);
}

/**
 * @param values numbers
 * @return their mean (0 when empty)
 */
double
MeanOf(const std::vector<double>& values)
{
    double sum = 0;
    for (double v : values)
    {
        sum += v;
    }
    return values.empty() ? 0 : sum / values.size();
}

/**
 * @param topologyFile the topology's file, recorded
 * @param directory the output directory
 * @return the tiny experiment's configuration
 */
TrainingExperiment::Config
TinyConfig(const std::string& topologyFile, const std::filesystem::path& directory)
{
    TrainingExperiment::Config config;
    config.name = "training-experiment-test";
    config.topologySource = topologyFile;
    config.modes = {CapabilityMode::UNICAST,
                    CapabilityMode::MULTICAST,
                    CapabilityMode::AGGREGATION,
                    CapabilityMode::BOTH,
                    CapabilityMode::RING};
    // The plain network's and the edge FPGAs' optima, each clique by its own algorithm.
    config.capabilitySets = {CapabilitySet(), CapabilitySet(true, true, false)};
    config.training.modelBytes = 200000;
    config.training.parameterCount = 1024;
    config.training.rounds = 2;
    config.training.localSteps = 2;
    config.training.stepTime = MilliSeconds(10);
    config.targetLossFraction = 0.5;
    config.optimizer.maxEvaluations = 2000;
    config.jobs = 2;
    config.outDir = directory.string();
    config.runId = "tiny";
    return config;
}

} // namespace

/** A tiny experiment: verified rounds, the summary equal to the results JSON. */
class TrainingExperimentTinyTestCase : public TestCase
{
  public:
    TrainingExperimentTinyTestCase()
        : TestCase("a tiny experiment: every mode verified, the summary equal to its results")
    {
    }

  private:
    void DoRun() override
    {
        SetDataDir(NS_TEST_SOURCEDIR);
        std::string pattern =
            (std::filesystem::temp_directory_path() / "training-experiment-test.XXXXXX").string();
        const bool made = mkdtemp(pattern.data()) != nullptr;
        NS_TEST_ASSERT_MSG_EQ(made, true, "no temporary directory");
        const std::filesystem::path out = pattern;
        const std::string topologyFile = CreateDataDirFilename(NINE_CITY);
        const WanTopology topology = WanTopology::LoadFile(topologyFile);
        const TrainingExperiment::Config config = TinyConfig(topologyFile, out);
        TrainingExperiment experiment(topology, config);
        const double computeS = 2 * 0.010;
        NS_TEST_EXPECT_MSG_EQ_TOL(experiment.GetComputeS(), computeS, 1e-15, "tau_c = K x step");
        NS_TEST_EXPECT_MSG_EQ(experiment.GetJobs(), 2, "the jobs as configured");

        const TrainingExperiment::Result result = experiment.Run();
        const std::filesystem::path dir = out / "tiny";
        NS_TEST_ASSERT_MSG_EQ(result.directory.string(), dir.string(), "the run directory");
        NS_TEST_ASSERT_MSG_EQ(result.finished, true, "some mode finished");
        NS_TEST_ASSERT_MSG_EQ(result.simulationFailures.size(), 0, "no simulation failed");
        const std::size_t outcomes = config.modes.size() + config.capabilitySets.size();
        NS_TEST_ASSERT_MSG_EQ(result.modes.size(), outcomes, "one outcome per mode and set");
        NS_TEST_ASSERT_MSG_EQ(result.summaries.size(), outcomes, "one summary each");
        NS_TEST_EXPECT_MSG_EQ(result.allPassed, true, "every mode passed");
        // Xi of colocated training: (N - 1) / N x tau_c / 2.
        const double n = topology.GetNCities();
        NS_TEST_EXPECT_MSG_EQ_TOL(result.xiColocatedS,
                                  (n - 1) / n * computeS / 2,
                                  1e-15,
                                  "colocated Xi");

        const nlohmann::json summary = ReadJson(dir / "summary.json");
        NS_TEST_ASSERT_MSG_EQ(summary.is_discarded(), false, "summary.json parses");
        NS_TEST_ASSERT_MSG_EQ(summary["modes"].size(), outcomes, "summary.json rows");
        NS_TEST_EXPECT_MSG_EQ(summary["config"], result.config, "summary.json's config");
        NS_TEST_EXPECT_MSG_EQ(ReadJson(dir / "config.json"), result.config, "config.json");
        for (const char* file : {"topology.json",
                                 "summary.txt",
                                 "summary.csv",
                                 "rounds.csv",
                                 "loss.plt",
                                 "consensus.plt",
                                 "link-utilization.plt",
                                 "round-times.plt"})
        {
            NS_TEST_EXPECT_MSG_EQ(std::filesystem::exists(dir / file), true, file << " exists");
        }
        bool initialSet = false;
        double initialLoss = 0;
        for (std::size_t m = 0; m < outcomes; ++m)
        {
            const TrainingExperiment::ModeOutcome& o = result.modes[m];
            const TrainingExperiment::ModeSummary& s = result.summaries[m];
            const bool set = m >= config.modes.size();
            const std::string name =
                set ? "{" + config.capabilitySets[m - config.modes.size()].ToString() + "}"
                    : CapabilityModeToString(config.modes[m]);
            NS_TEST_EXPECT_MSG_EQ(o.GetName(), name, "modes, then sets, in the order given");
            NS_TEST_EXPECT_MSG_EQ(o.passed, true, name << " passed");
            NS_TEST_EXPECT_MSG_NE(s.flag, "FAILED", name << " not flagged FAILED");
            const std::string stem = o.GetFileStem();
            const nlohmann::json schedule = ReadJson(dir / (stem + "-schedule.json"));
            NS_TEST_EXPECT_MSG_EQ(schedule.is_discarded(), false, stem << "-schedule.json");
            const nlohmann::json doc = ReadJson(dir / (stem + ".json"));
            NS_TEST_ASSERT_MSG_EQ(doc.is_discarded(), false, stem << ".json parses");
            NS_TEST_EXPECT_MSG_EQ(doc["verification"]["passed"], true, name << " verified");
            NS_TEST_EXPECT_MSG_EQ(doc["config"]["mode"],
                                  set ? "schedule" : name,
                                  name << ": a mode forced, or each clique's own");
            if (set)
            {
                // The set's optimum is never worse than a mode it allows, nor than a smaller
                // set's; every clique ran the algorithm the schedule gives it.
                const CapabilitySet& capabilities = *o.capabilities;
                for (std::size_t k = 0; k < m; ++k)
                {
                    const TrainingExperiment::ModeOutcome& other = result.modes[k];
                    const bool within = other.capabilities
                                            ? capabilities.Contains(*other.capabilities)
                                            : capabilities.Allows(other.mode);
                    if (within)
                    {
                        NS_TEST_EXPECT_MSG_LT_OR_EQ(o.evaluation.xiS,
                                                    other.evaluation.xiS * (1 + 1e-12),
                                                    name << " against " << other.GetName());
                    }
                }
                for (const auto& round : doc["rounds"])
                {
                    const uint32_t r = round["schedule_round"].get<uint32_t>();
                    for (const auto& clique : round["cliques"])
                    {
                        const auto algorithm =
                            o.schedule.GetAlgorithm(r, clique["clique"].get<uint32_t>());
                        const nlohmann::json expected =
                            algorithm ? nlohmann::json(CapabilityModeToString(*algorithm))
                                      : nlohmann::json();
                        NS_TEST_EXPECT_MSG_EQ(clique["algorithm"],
                                              expected,
                                              name << ": the clique's own algorithm");
                    }
                }
            }
            NS_TEST_EXPECT_MSG_EQ(doc["config"]["program"], config.name, "the recorded name");
            NS_TEST_ASSERT_MSG_EQ(doc["rounds"].size(), 2, name << ": two rounds");

            // Independently from the results JSON: the means of the round times.
            std::vector<double> predictedComm;
            std::vector<double> simulatedComm;
            std::vector<double> simulatedRound;
            double previousEnd = 0;
            for (const auto& round : doc["rounds"])
            {
                NS_TEST_EXPECT_MSG_EQ(round["complete"], true, name << ": round complete");
                NS_TEST_EXPECT_MSG_EQ(round["verified"], true, name << ": round verified");
                predictedComm.push_back(round["predicted_comm_s"].get<double>());
                simulatedComm.push_back(round["comm_s"].get<double>());
                simulatedRound.push_back(round["end_s"].get<double>() - previousEnd);
                previousEnd = round["end_s"].get<double>();
            }
            const double predictedRound = computeS + MeanOf(predictedComm);
            NS_TEST_EXPECT_MSG_EQ_TOL(s.predictedRoundS, predictedRound, 1e-12, name);
            NS_TEST_EXPECT_MSG_EQ_TOL(s.predictedCommS, MeanOf(predictedComm), 1e-12, name);
            NS_TEST_EXPECT_MSG_EQ_TOL(s.simulatedCommS, MeanOf(simulatedComm), 1e-12, name);
            NS_TEST_EXPECT_MSG_EQ_TOL(s.simulatedRoundS, MeanOf(simulatedRound), 1e-12, name);
            NS_TEST_EXPECT_MSG_EQ_TOL(s.difference,
                                      (MeanOf(simulatedRound) - predictedRound) / predictedRound,
                                      1e-9,
                                      name);
            NS_TEST_EXPECT_MSG_EQ_TOL(o.trainingTimeS,
                                      doc["summary"]["training_time_s"].get<double>(),
                                      0,
                                      name);
            NS_TEST_EXPECT_MSG_EQ_TOL(o.trainingTimeS, previousEnd, 1e-12, name << ": last end");

            // Every mode starts from the same objectives: the same initial loss; the time to
            // target is the first loss sample at or below the target.
            const double first = doc["loss"].front()["value"].get<double>();
            if (!initialSet)
            {
                initialLoss = first;
                initialSet = true;
            }
            NS_TEST_EXPECT_MSG_EQ(first, initialLoss, name << ": the same initial loss");
            double timeToTarget = -1;
            for (const auto& sample : doc["loss"])
            {
                if (timeToTarget < 0 &&
                    sample["value"].get<double>() <= config.targetLossFraction * initialLoss)
                {
                    timeToTarget = sample["t_s"].get<double>();
                }
            }
            NS_TEST_EXPECT_MSG_EQ(s.timeToTargetS, timeToTarget, name << ": time to target");
            const double finalLoss = doc["loss"].back()["value"].get<double>();

            // summary.json's row holds the same numbers.
            const nlohmann::json& row = summary["modes"][m];
            NS_TEST_EXPECT_MSG_EQ(row["mode"], name, "summary.json row order");
            NS_TEST_EXPECT_MSG_EQ(row["verified"], true, name << ": summary.json verified");
            NS_TEST_EXPECT_MSG_EQ(row["predicted_round_s"].get<double>(), s.predictedRoundS, name);
            NS_TEST_EXPECT_MSG_EQ(row["simulated_round_s"].get<double>(), s.simulatedRoundS, name);
            NS_TEST_EXPECT_MSG_EQ(row["predicted_comm_s"].get<double>(), s.predictedCommS, name);
            NS_TEST_EXPECT_MSG_EQ(row["simulated_comm_s"].get<double>(), s.simulatedCommS, name);
            NS_TEST_EXPECT_MSG_EQ(row["final_loss"].get<double>(), finalLoss, name);
            NS_TEST_EXPECT_MSG_EQ(row["training_time_s"].get<double>(), o.trainingTimeS, name);
            NS_TEST_EXPECT_MSG_EQ(row["xi_s"].get<double>(), o.evaluation.xiS, name);
            uint64_t packets = 0;
            for (const auto& [link, counters] : doc["links"].items())
            {
                packets += counters["packets"].get<uint64_t>();
            }
            NS_TEST_EXPECT_MSG_EQ(row["packet_hops"].get<uint64_t>(), packets, name << ": hops");
        }
        NS_TEST_EXPECT_MSG_EQ(result.initialLoss, initialLoss, "the colocated initial loss");
        NS_TEST_EXPECT_MSG_EQ(result.targetLoss,
                              config.targetLossFraction * initialLoss,
                              "the target loss");
        NS_TEST_EXPECT_MSG_EQ(
            result.table,
            [&dir]() {
                std::ifstream in(dir / "summary.txt");
                std::ostringstream text;
                text << in.rdbuf();
                return text.str();
            }(),
            "summary.txt is the table");
        std::filesystem::remove_all(out);
    }
};

/** Configuration errors name their field. */
class TrainingExperimentConfigErrorTestCase : public TestCase
{
  public:
    TrainingExperimentConfigErrorTestCase()
        : TestCase("configuration errors name the field: modes, targetLossFraction, runId, outDir")
    {
    }

  private:
    /**
     * @param config a configuration
     * @param validateOnly call Validate() instead of Run()
     * @return the field of the WanConfigError it raises (empty: none)
     */
    std::string FieldOf(const TrainingExperiment::Config& config, bool validateOnly)
    {
        try
        {
            TrainingExperiment experiment(*m_topology, config);
            if (validateOnly)
            {
                experiment.Validate();
            }
            else
            {
                experiment.Run();
            }
        }
        catch (const WanConfigError& error)
        {
            return error.GetField();
        }
        return "";
    }

    void DoRun() override
    {
        SetDataDir(NS_TEST_SOURCEDIR);
        m_topology =
            std::make_unique<WanTopology>(WanTopology::LoadFile(CreateDataDirFilename(NINE_CITY)));
        const TrainingExperiment::Config good = TinyConfig(NINE_CITY, "/nonexistent");
        NS_TEST_EXPECT_MSG_EQ(FieldOf(good, true), "", "the tiny configuration is valid");

        TrainingExperiment::Config config = good;
        config.modes.clear();
        NS_TEST_EXPECT_MSG_EQ(FieldOf(config, true), "", "sets alone");
        config.capabilitySets = {};
        NS_TEST_EXPECT_MSG_EQ(FieldOf(config, true), "modes", "no mode and no set");
        config.capabilitySets = {CapabilitySet()};
        NS_TEST_EXPECT_MSG_EQ(FieldOf(config, true), "", "a set alone");
        config.capabilitySets = {CapabilitySet(), CapabilitySet()};
        NS_TEST_EXPECT_MSG_EQ(FieldOf(config, true), "capabilitySets", "a set twice");
        {
            // A set with a capability the topology lacks: the plain three-city WAN.
            const WanTopology tiny = WanTopology::LoadFile(CreateDataDirFilename(TINY));
            TrainingExperiment::Config multicast = good;
            multicast.capabilitySets = {CapabilitySet(true, false, false)};
            std::string field;
            try
            {
                TrainingExperiment(tiny, multicast).Validate();
            }
            catch (const WanConfigError& error)
            {
                field = error.GetField();
            }
            NS_TEST_EXPECT_MSG_EQ(field, "capabilitySets", "more than the topology has");
        }
        config.modes = {CapabilityMode::UNICAST, CapabilityMode::TREE};
        config.capabilitySets = {};
        NS_TEST_EXPECT_MSG_EQ(FieldOf(config, true), "", "tree is simulated");
        config = good;
        config.targetLossFraction = 1;
        NS_TEST_EXPECT_MSG_EQ(FieldOf(config, true), "targetLossFraction", "a fraction below 1");
        config = good;
        config.runId = "a/b";
        NS_TEST_EXPECT_MSG_EQ(FieldOf(config, false), "runId", "a plain directory name");
        config.runId = "..";
        NS_TEST_EXPECT_MSG_EQ(FieldOf(config, false), "runId", "not ..");
        config = good;
        config.outDir = "/proc/no-such-directory";
        NS_TEST_EXPECT_MSG_EQ(FieldOf(config, false), "outDir", "a directory it cannot create");
    }

    std::unique_ptr<WanTopology> m_topology; //!< the nine-city WAN
};

/** The TrainingExperiment suite: configuration errors, then a tiny experiment. */
class TrainingExperimentTestSuite : public TestSuite
{
  public:
    TrainingExperimentTestSuite()
        : TestSuite("wan-training-training-experiment", UNIT)
    {
        AddTestCase(new TrainingExperimentConfigErrorTestCase(), TestCase::QUICK);
        AddTestCase(new TrainingExperimentTinyTestCase(), TestCase::QUICK);
    }
};

/** The suite's static instance. */
static TrainingExperimentTestSuite g_trainingExperimentTestSuite;
