/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "clique-schedule.h"
#include "schedule-metrics.h"
#include "training-results.h"
#include "training-run-summary.h"
#include "training-run.h"
#include "wan-input-error.h"
#include "wan-topology.h"

#include "ns3/nstime.h"
#include "ns3/test.h"

#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

/**
 * @file
 * @ingroup wan-training-tests
 * TrainingRunSummary: a run's results JSON written by TrainingResultsWriter and read back,
 * field by field against the recorder's getters; malformed results name file, path and reason.
 */

using namespace ns3;

namespace
{

/** Three cities aaa-bbb-ccc in a line. */
const std::string TINY = "data/tiny-valid.json";

/**
 * @brief Run a lossy training on the tiny WAN to its end (drops and repairs are not all zero),
 * on the schedule {aaa ccc} {bbb}; {aaa bbb ccc}.
 * @param tiny the tiny WAN
 * @param config set to the run's configuration
 * @return the run
 */
std::unique_ptr<TrainingRun>
RunTinyLossy(const WanTopology& tiny, TrainingRun::Config& config)
{
    config.mode = CapabilityMode::UNICAST;
    config.rounds = 3;
    config.modelBytes = 20000;
    config.parameterCount = 128;
    config.wanLossRate = 0.05;
    config.seed = 3;
    const CliqueSchedule schedule(3, {{{0, 2}, {1}}, {{0, 1, 2}}});
    auto run = std::make_unique<TrainingRun>(tiny, schedule, config);
    run->Run();
    return run;
}

/**
 * @param check what must throw
 * @return the WanInputError it threw (file, path, reason), or an error of "" when none
 */
WanInputError
ErrorOf(const std::function<void()>& check)
{
    try
    {
        check();
    }
    catch (const WanInputError& error)
    {
        return error;
    }
    return WanInputError("", "", "");
}

} // namespace

/**
 * @ingroup wan-training-tests
 * @brief A lossy tiny run's results, written to a file and read back: every field the reader
 * has equals what the run's recorder, verifier and sampler hold.
 */
class TrainingRunSummaryRoundTripTestCase : public TestCase
{
  public:
    TrainingRunSummaryRoundTripTestCase()
        : TestCase("results written by the writer and read back: field by field")
    {
    }

  private:
    /**
     * @param summary the summary read back
     * @param recorder the run's recorder
     * @param config the run's configuration
     */
    void CheckConfig(const TrainingRunSummary& summary,
                     const TrainingRecorder& recorder,
                     const TrainingRun::Config& config)
    {
        NS_TEST_EXPECT_MSG_EQ(summary.config.mode, "unicast", "mode");
        NS_TEST_EXPECT_MSG_EQ(summary.config.modelBytes, config.modelBytes, "model bytes");
        NS_TEST_EXPECT_MSG_EQ(summary.config.rounds, config.rounds, "rounds");
        NS_TEST_EXPECT_MSG_EQ(summary.config.seed, config.seed, "seed");
        NS_TEST_EXPECT_MSG_EQ(summary.config.localSteps, config.localSteps, "local steps");
        NS_TEST_EXPECT_MSG_EQ(summary.config.stepTimeS, config.stepTime.GetSeconds(), "step");
        const WanTopology& topology = recorder.GetTopology();
        const CliqueSchedule& schedule = recorder.GetSchedule();
        NS_TEST_ASSERT_MSG_EQ(summary.config.scheduleRounds.size(),
                              std::size_t{schedule.GetNRounds()},
                              "schedule rounds");
        for (uint32_t r = 0; r < schedule.GetNRounds(); ++r)
        {
            const CliqueSchedule::Round& round = schedule.GetRound(r);
            NS_TEST_ASSERT_MSG_EQ(summary.config.scheduleRounds[r].size(), round.size(), "r" << r);
            for (uint32_t c = 0; c < round.size(); ++c)
            {
                std::vector<std::string> ids;
                for (uint32_t island : round[c])
                {
                    ids.push_back(topology.GetCity(island).id);
                }
                NS_TEST_EXPECT_MSG_EQ((summary.config.scheduleRounds[r][c] == ids),
                                      true,
                                      "round " << r << " clique " << c);
            }
        }
    }

    /**
     * @param summary the summary read back
     * @param results the run's results
     * @param config the run's configuration
     */
    void CheckRounds(const TrainingRunSummary& summary,
                     const TrainingResults& results,
                     const TrainingRun::Config& config)
    {
        const TrainingRecorder& recorder = results.GetRecorder();
        const WanTopology& topology = recorder.GetTopology();
        ScheduleMetrics::Settings settings;
        settings.modelBytes = config.modelBytes;
        settings.computeS = config.localSteps * config.stepTime.GetSeconds();
        const ScheduleMetrics metrics(topology, settings);
        const CliqueSchedule& schedule = recorder.GetSchedule();
        NS_TEST_ASSERT_MSG_EQ(summary.rounds.size(), std::size_t{config.rounds}, "rounds");
        for (uint32_t r = 0; r < config.rounds; ++r)
        {
            const TrainingRunSummary::Round& round = summary.rounds[r];
            double start = -1;
            double end = -1;
            for (uint32_t i = 0; i < topology.GetNCities(); ++i)
            {
                const TrainingRecorder::IslandRound& record = recorder.GetIslandRound(r, i);
                start = (start < 0 || record.startS < start) ? record.startS : start;
                end = std::max(end, record.endS);
            }
            NS_TEST_EXPECT_MSG_EQ(round.round, r, "round number");
            NS_TEST_ASSERT_MSG_EQ(round.startS.has_value(), true, "round " << r << " started");
            NS_TEST_EXPECT_MSG_EQ(*round.startS, start, "round " << r << " start");
            NS_TEST_ASSERT_MSG_EQ(round.endS.has_value(), true, "round " << r << " ended");
            NS_TEST_EXPECT_MSG_EQ(*round.endS, end, "round " << r << " end");
            NS_TEST_ASSERT_MSG_EQ(round.commS.has_value(), true, "round " << r << " comm");
            NS_TEST_EXPECT_MSG_GT(*round.commS, 0.0, "round " << r << " comm");
            NS_TEST_EXPECT_MSG_EQ(
                round.predictedCommS,
                metrics.GetRoundCost(schedule.GetRound(r % schedule.GetNRounds()), *config.mode)
                    .commS,
                "round " << r << " predicted comm");
            NS_TEST_EXPECT_MSG_EQ(round.complete, recorder.IsRoundComplete(r), "complete");
            NS_TEST_EXPECT_MSG_EQ(round.verified,
                                  results.GetVerifier().IsRoundVerified(r),
                                  "verified");
            NS_TEST_EXPECT_MSG_EQ(round.unfinished.size(), 0u, "nothing unfinished");
        }
    }

    /**
     * @param summary the summary read back
     * @param results the run's results
     */
    void CheckCounters(const TrainingRunSummary& summary, const TrainingResults& results)
    {
        const WanTopology& topology = results.GetRecorder().GetTopology();
        NS_TEST_ASSERT_MSG_EQ(summary.links.size(),
                              std::size_t{topology.GetNDirectedLinks()},
                              "links");
        uint64_t errorDrops = 0;
        for (uint32_t d = 0; d < topology.GetNDirectedLinks(); ++d)
        {
            const std::string name = topology.GetDirectedLinkName(d);
            const TrainingResults::LinkCounters& c = results.GetLinkCounters(d);
            const TrainingRunSummary::Link& link = summary.links.at(name);
            NS_TEST_EXPECT_MSG_EQ(link.packets, c.packets, name);
            NS_TEST_EXPECT_MSG_EQ(link.bytes, c.bytes, name);
            NS_TEST_EXPECT_MSG_EQ(link.modelBytes, c.modelBytes, name);
            NS_TEST_EXPECT_MSG_EQ(link.errorDrops, c.errorDrops, name);
            NS_TEST_EXPECT_MSG_EQ(link.queueDrops, c.queueDrops, name);
            NS_TEST_EXPECT_MSG_EQ(link.linkDownDrops, c.linkDownDrops, name);
            errorDrops += c.errorDrops;
        }
        NS_TEST_EXPECT_MSG_GT(errorDrops, 0u, "the lossy run lost packets");
        NS_TEST_EXPECT_MSG_EQ(summary.summary.errorDrops, errorDrops, "summary error drops");
        uint64_t repairs = 0;
        NS_TEST_ASSERT_MSG_EQ(summary.islands.size(), std::size_t{topology.GetNCities()}, "all");
        for (uint32_t i = 0; i < topology.GetNCities(); ++i)
        {
            const std::string& id = topology.GetCity(i).id;
            const TrainingResults::IslandCounters& c = results.GetIslandCounters(i);
            const TrainingRunSummary::Island& island = summary.islands.at(id);
            NS_TEST_EXPECT_MSG_EQ(island.repairs, c.repairs, id);
            NS_TEST_EXPECT_MSG_EQ(island.roundsCompleted, c.roundsCompleted, id);
            NS_TEST_EXPECT_MSG_EQ(island.crashed, false, id);
            NS_TEST_EXPECT_MSG_EQ(island.failure.has_value(), false, id);
            repairs += c.repairs;
        }
        NS_TEST_EXPECT_MSG_EQ(summary.summary.repairs, repairs, "summary repairs");
        NS_TEST_EXPECT_MSG_EQ(summary.summary.failedIslands, 0u, "no island failed");
    }

    /**
     * @param summary the summary read back
     * @param results the run's results
     * @param config the run's configuration
     */
    void CheckCurves(const TrainingRunSummary& summary,
                     const TrainingResults& results,
                     const TrainingRun::Config& config)
    {
        const std::vector<TrainingResults::Sample>& samples = results.GetSamples();
        NS_TEST_ASSERT_MSG_EQ(summary.loss.size(), samples.size(), "loss samples");
        NS_TEST_ASSERT_MSG_EQ(summary.consensus.size(), samples.size(), "consensus samples");
        for (size_t k = 0; k < samples.size(); ++k)
        {
            NS_TEST_EXPECT_MSG_EQ(summary.loss[k].timeS, samples[k].timeS, "loss t " << k);
            NS_TEST_EXPECT_MSG_EQ(summary.loss[k].value, samples[k].loss, "loss " << k);
            NS_TEST_EXPECT_MSG_EQ(summary.loss[k].islandMean,
                                  samples[k].islandMeanLoss,
                                  "island mean loss " << k);
            NS_TEST_EXPECT_MSG_EQ(summary.consensus[k].timeS, samples[k].timeS, "t " << k);
            NS_TEST_EXPECT_MSG_EQ(summary.consensus[k].value,
                                  samples[k].consensus,
                                  "consensus " << k);
        }
        NS_TEST_EXPECT_MSG_EQ(summary.summary.finalLoss, samples.back().loss, "final loss");
        NS_TEST_EXPECT_MSG_EQ(summary.summary.finalConsensus,
                              samples.back().consensus,
                              "final consensus");
        NS_TEST_EXPECT_MSG_EQ(summary.optimalLoss, results.GetOptimalLoss(), "optimal loss");
        const std::vector<ColocatedReference::Point> colocated =
            results.GetColocatedReference().GetCurve(config.rounds,
                                                     config.localSteps,
                                                     config.learningRate,
                                                     config.localSteps *
                                                         config.stepTime.GetSeconds());
        NS_TEST_ASSERT_MSG_EQ(summary.colocatedLoss.size(), colocated.size(), "colocated");
        for (size_t k = 0; k < colocated.size(); ++k)
        {
            NS_TEST_EXPECT_MSG_EQ(summary.colocatedLoss[k].timeS,
                                  colocated[k].timeS,
                                  "colocated t " << k);
            NS_TEST_EXPECT_MSG_EQ(summary.colocatedLoss[k].value,
                                  colocated[k].loss,
                                  "colocated " << k);
        }
    }

    /**
     * @param summary the summary read back
     * @param results the run's results
     * @param passed whether the run passed
     */
    void CheckTotals(const TrainingRunSummary& summary, const TrainingResults& results, bool passed)
    {
        NS_TEST_EXPECT_MSG_EQ(summary.verification.roundsVerified,
                              results.GetRoundsVerified(),
                              "rounds verified");
        NS_TEST_EXPECT_MSG_EQ(summary.verification.roundsComplete, 3u, "rounds complete");
        NS_TEST_EXPECT_MSG_EQ(summary.verification.rounds, 3u, "rounds");
        NS_TEST_EXPECT_MSG_EQ(summary.summary.roundsComplete, 3u, "summary: rounds complete");
        NS_TEST_EXPECT_MSG_EQ(summary.summary.exclusions, 0u, "summary: exclusions");
        NS_TEST_EXPECT_MSG_EQ(summary.summary.fpgaAggregates, 0u, "unicast: no FPGA");
        NS_TEST_EXPECT_MSG_EQ(summary.verification.maxAbsError,
                              results.GetMaxAbsError(),
                              "max abs error");
        NS_TEST_EXPECT_MSG_EQ(summary.verification.maxRelError,
                              results.GetMaxRelError(),
                              "max rel error");
        NS_TEST_EXPECT_MSG_EQ(summary.verification.passed, passed, "passed");
        NS_TEST_EXPECT_MSG_EQ(summary.faults.exclusions, 0u, "exclusions");
        NS_TEST_EXPECT_MSG_EQ(summary.faults.roundsAbandoned, 0u, "abandoned");
        NS_TEST_EXPECT_MSG_EQ(summary.faults.crashedIslands, 0u, "crashed");
        NS_TEST_EXPECT_MSG_EQ(summary.faults.partitioned, results.WasPartitioned(), "partition");
        NS_TEST_EXPECT_MSG_EQ(summary.faults.stoppedByTimeLimit,
                              results.WasStoppedByTimeLimit(),
                              "time limit");
        NS_TEST_EXPECT_MSG_EQ(summary.summary.complete, results.IsComplete(), "complete");
        NS_TEST_EXPECT_MSG_EQ(summary.summary.trainingTimeS,
                              results.GetTrainingTimeS(),
                              "training time");
    }

    void DoRun() override
    {
        const WanTopology tiny = WanTopology::LoadFile(CreateDataDirFilename(TINY));
        TrainingRun::Config config;
        const std::unique_ptr<TrainingRun> run = RunTinyLossy(tiny, config);
        NS_TEST_ASSERT_MSG_EQ(run->Passed(), true, "the lossy tiny run passes");
        const std::string file = CreateTempDirFilename("training-run-summary.json");
        run->GetResults().WriteFile(file);
        const TrainingRunSummary summary = TrainingRunSummary::ReadFile(file);
        std::remove(file.c_str());

        const TrainingResults& results = run->GetResults();
        CheckConfig(summary, results.GetRecorder(), config);
        CheckRounds(summary, results, config);
        CheckCounters(summary, results);
        CheckCurves(summary, results, config);
        CheckTotals(summary, results, run->Passed());
    }
};

/**
 * @ingroup wan-training-tests
 * @brief Malformed results: a missing field or a value of the wrong type is a WanInputError
 * naming the file, the JSON path and the reason; unfinished entries of islands and cliques.
 */
class TrainingRunSummaryBadInputTestCase : public TestCase
{
  public:
    TrainingRunSummaryBadInputTestCase()
        : TestCase("malformed results: WanInputError(file, path, reason)")
    {
    }

  private:
    /**
     * @param doc a good results document
     * @param mutate what to break in a copy of it
     * @param path the JSON path the error must name
     * @param reason the reason it must give
     */
    void ExpectError(const nlohmann::json& doc,
                     const std::function<void(nlohmann::json&)>& mutate,
                     const std::string& path,
                     const std::string& reason)
    {
        nlohmann::json bad = doc;
        mutate(bad);
        const WanInputError error =
            ErrorOf([&bad]() { TrainingRunSummary::FromJson(bad, "bad.json"); });
        NS_TEST_EXPECT_MSG_EQ(error.GetFile(), "bad.json", "file of " << path);
        NS_TEST_EXPECT_MSG_EQ(error.GetPath(), path, "path");
        NS_TEST_EXPECT_MSG_EQ(error.GetReason(), reason, "reason of " << path);
    }

    /**
     * @param doc a good results document
     */
    void CheckUnfinished(const nlohmann::json& doc)
    {
        nlohmann::json copy = doc;
        copy["rounds"][1]["unfinished"] = {
            {{"island", "bbb"}, {"status", "abandoned"}, {"reason", "stalled"}},
            {{"clique", 0}, {"status", "inconsistent"}, {"reason", "cut"}}};
        copy["rounds"][1]["comm_s"] = nullptr;
        const TrainingRunSummary summary = TrainingRunSummary::FromJson(copy, "copy.json");
        const TrainingRunSummary::Round& round = summary.rounds.at(1);
        NS_TEST_EXPECT_MSG_EQ(round.commS.has_value(), false, "null comm_s");
        NS_TEST_ASSERT_MSG_EQ(round.unfinished.size(), 2u, "two entries");
        NS_TEST_EXPECT_MSG_EQ(round.unfinished[0].island.value_or(""), "bbb", "island");
        NS_TEST_EXPECT_MSG_EQ(round.unfinished[0].clique.has_value(), false, "no clique");
        NS_TEST_EXPECT_MSG_EQ(round.unfinished[0].status, "abandoned", "status");
        NS_TEST_EXPECT_MSG_EQ(round.unfinished[0].reason, "stalled", "reason");
        NS_TEST_EXPECT_MSG_EQ(round.unfinished[1].island.has_value(), false, "no island");
        NS_TEST_EXPECT_MSG_EQ(round.unfinished[1].clique.value_or(9), 0u, "clique");
        NS_TEST_EXPECT_MSG_EQ(round.unfinished[1].status, "inconsistent", "status");
    }

    void DoRun() override
    {
        const WanTopology tiny = WanTopology::LoadFile(CreateDataDirFilename(TINY));
        TrainingRun::Config config;
        const nlohmann::json doc =
            nlohmann::json::parse(RunTinyLossy(tiny, config)->GetResults().ToJson());
        const std::string link = tiny.GetDirectedLinkName(0);
        const std::string city = tiny.GetCity(1).id;
        using json = nlohmann::json;

        ExpectError(
            doc,
            [](json& d) { d["summary"].erase("training_time_s"); },
            "$.summary.training_time_s",
            "missing");
        ExpectError(
            doc,
            [](json& d) { d["rounds"][1]["comm_s"] = "x"; },
            "$.rounds[1].comm_s",
            "must be a number or null");
        ExpectError(
            doc,
            [](json& d) { d["rounds"][0]["predicted_comm_s"] = nullptr; },
            "$.rounds[0].predicted_comm_s",
            "must be a number");
        ExpectError(
            doc,
            [&link](json& d) { d["links"][link]["packets"] = -1; },
            "$.links['" + link + "'].packets",
            "must be a non-negative integer");
        ExpectError(
            doc,
            [](json& d) { d["verification"]["passed"] = 1; },
            "$.verification.passed",
            "must be true or false");
        ExpectError(
            doc,
            [](json& d) { d["config"] = json::array(); },
            "$.config",
            "must be an object");
        ExpectError(
            doc,
            [&city](json& d) { d["islands"][city]["failure"] = 3; },
            "$.islands['" + city + "'].failure",
            "must be a string");
        ExpectError(
            doc,
            [](json& d) { d["loss"] = json::array(); },
            "$.loss",
            "must hold the initial sample at least");
        ExpectError(
            doc,
            [](json& d) { d["config"]["schedule_rounds"][0][0] = {1}; },
            "$.config.schedule_rounds[0][0]",
            "must be an array of city ids");
        ExpectError(
            doc,
            [](json& d) { d["config"]["rounds"] = 1e12; },
            "$.config.rounds",
            "must be a non-negative integer");
        ExpectError(
            doc,
            [](json& d) {
                d["rounds"][2]["unfinished"] = {{{"status", "x"}, {"reason", "y"}}};
            },
            "$.rounds[2].unfinished[0].island",
            "missing (nor is there a clique)");
        ExpectError(
            doc,
            [](json& d) { d["colocated"].erase("loss"); },
            "$.colocated.loss",
            "missing");

        const WanInputError text =
            ErrorOf([]() { TrainingRunSummary::Parse("{not json", "text.json"); });
        NS_TEST_EXPECT_MSG_EQ(text.GetPath(), "$", "not JSON: path");
        NS_TEST_EXPECT_MSG_EQ(text.GetReason(), "not a JSON document", "not JSON: reason");
        const std::string missing = CreateTempDirFilename("no-such-results.json");
        const WanInputError file = ErrorOf([&missing]() { TrainingRunSummary::ReadFile(missing); });
        NS_TEST_EXPECT_MSG_EQ(file.GetFile(), missing, "missing file: file");
        NS_TEST_EXPECT_MSG_EQ(file.GetReason(), "cannot open the results file", "missing file");

        CheckUnfinished(doc);
    }
};

/**
 * @ingroup wan-training-tests
 * @brief TrainingRunSummary test suite.
 */
class TrainingRunSummaryTestSuite : public TestSuite
{
  public:
    TrainingRunSummaryTestSuite();
};

TrainingRunSummaryTestSuite::TrainingRunSummaryTestSuite()
    : TestSuite("wan-training-training-run-summary", UNIT)
{
    SetDataDir(NS_TEST_SOURCEDIR);
    AddTestCase(new TrainingRunSummaryRoundTripTestCase(), TestCase::QUICK);
    AddTestCase(new TrainingRunSummaryBadInputTestCase(), TestCase::QUICK);
}

/** The suite's static instance. */
static TrainingRunSummaryTestSuite g_trainingRunSummaryTestSuite;
