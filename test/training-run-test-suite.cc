/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "clique-schedule.h"
#include "link-load-model.h"
#include "synthetic-topology.h"
#include "training-island-application.h"
#include "training-results.h"
#include "training-run.h"
#include "wan-config-error.h"
#include "wan-topology.h"

#include "ns3/global-value.h"
#include "ns3/map-scheduler.h"
#include "ns3/nstime.h"
#include "ns3/priority-queue-scheduler.h"
#include "ns3/simulator.h"
#include "ns3/test.h"
#include "ns3/type-id.h"

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

/**
 * @file
 * @ingroup wan-training-tests
 * TrainingRun: pcap file names, Validate()'s messages, a tiny run with its progress lines, the
 * configuration JSON and determinism of consecutive runs for one seed and across schedulers.
 */

using namespace ns3;

namespace
{

/** Three cities aaa-bbb-ccc in a line, MTU 1500, no multicast or aggregation capability. */
const std::string TINY = "data/tiny-valid.json";
/** The nine-city reference WAN (multicast and aggregation capable). */
const std::string REFERENCE_WAN = "../topologies/reference-wan.json";

/**
 * @return a schedule on the three tiny cities whose rounds idle one island, then another, then
 *         none: {aaa bbb} {ccc}; {bbb ccc} {aaa}; {aaa bbb ccc}
 */
CliqueSchedule
TinySchedule()
{
    return CliqueSchedule(3, {{{0, 1}, {2}}, {{1, 2}, {0}}, {{0, 1, 2}}});
}

/**
 * @return a small, fast configuration for the tiny topology
 */
TrainingRun::Config
TinyConfig()
{
    TrainingRun::Config config;
    config.mode = CapabilityMode::UNICAST;
    config.rounds = 4;
    config.modelBytes = 40000;
    config.parameterCount = 256;
    config.localSteps = 2;
    config.stepTime = MilliSeconds(1);
    return config;
}

/**
 * @param check what may throw
 * @return the field and the reason of the WanConfigError it threw ("FIELD: REASON"), or ""
 *         when it threw none
 */
std::string
ErrorOf(const std::function<void()>& check)
{
    try
    {
        check();
    }
    catch (const WanConfigError& error)
    {
        return error.GetField() + ": " + error.GetReason();
    }
    return "";
}

/**
 * @brief RoundFinished sink: remember when a round ended, the last island's end winning.
 * @param ends round -> simulated time of its latest end
 * @param round the round that ended on an island
 */
void
RecordRoundEnd(std::map<uint32_t, double>* ends,
               uint32_t /* island */,
               uint32_t round,
               uint32_t /* clique */,
               const std::vector<float>& /* parameters */)
{
    (*ends)[round] = Simulator::Now().GetSeconds();
}

} // namespace

/**
 * @ingroup wan-training-tests
 * @brief GetPcapFileName turns directed link names into file names.
 */
class TrainingRunPcapNameTestCase : public TestCase
{
  public:
    TrainingRunPcapNameTestCase()
        : TestCase("pcap file names of WAN and access directions")
    {
    }

  private:
    void DoRun() override
    {
        NS_TEST_EXPECT_MSG_EQ(TrainingRun::GetPcapFileName("nyc->chi"), "nyc-chi.pcap", "WAN");
        NS_TEST_EXPECT_MSG_EQ(TrainingRun::GetPcapFileName("nyc:up"), "nyc-up.pcap", "up");
        NS_TEST_EXPECT_MSG_EQ(TrainingRun::GetPcapFileName("sin:down"), "sin-down.pcap", "down");
        NS_TEST_EXPECT_MSG_EQ(TrainingRun::GetPcapFileName("NYC->LON"), "NYC-LON.pcap", "case");
    }
};

/**
 * @ingroup wan-training-tests
 * @brief Validate() accepts good configurations (boundaries included) and names the field of
 * the configuration and the reason for bad ones; the constructor validates too.
 */
class TrainingRunValidateTestCase : public TestCase
{
  public:
    TrainingRunValidateTestCase()
        : TestCase("Validate: messages for bad configurations, boundaries accepted")
    {
    }

  private:
    void DoRun() override
    {
        const WanTopology tiny = WanTopology::LoadFile(CreateDataDirFilename(TINY));
        const CliqueSchedule all = CliqueSchedule::AllReduce(3);
        auto validate = [&tiny, &all](const TrainingRun::Config& config) {
            return ErrorOf([&]() { TrainingRun::Validate(tiny, all, config); });
        };

        TrainingRun::Config config = TinyConfig();
        NS_TEST_EXPECT_MSG_EQ(validate(config), "", "the tiny configuration is valid");
        config.mode = CapabilityMode::RING;
        NS_TEST_EXPECT_MSG_EQ(validate(config), "", "ring is simulated");

        config = TinyConfig();
        config.mode = CapabilityMode::TREE;
        NS_TEST_EXPECT_MSG_EQ(validate(config),
                              "mode: mode 'tree' needs multicast, but topology "
                              "'tiny' has capabilities.multicast false",
                              "tree: the root multicasts the total");
        config.mode = CapabilityMode::MULTICAST;
        NS_TEST_EXPECT_MSG_EQ(validate(config),
                              "mode: mode 'multicast' needs multicast, but topology "
                              "'tiny' has capabilities.multicast false",
                              "multicast without the capability");
        config.mode = CapabilityMode::AGGREGATION;
        NS_TEST_EXPECT_MSG_EQ(validate(config),
                              "mode: mode 'aggregation' needs in-line aggregation, "
                              "but topology 'tiny' has capabilities.aggregation false",
                              "aggregation without the capability");
        config.mode = CapabilityMode::BOTH;
        NS_TEST_EXPECT_MSG_EQ(validate(config).rfind("mode: mode 'both' needs", 0),
                              0u,
                              "both without the capabilities");

        // 4 bytes per parameter: 250 parameters fill 1000 bytes exactly, 1024 do not fit.
        config = TinyConfig();
        config.modelBytes = 1000;
        config.parameterCount = 250;
        NS_TEST_EXPECT_MSG_EQ(validate(config), "", "4 x 250 = 1000 bytes fit");
        config.parameterCount = 1024;
        NS_TEST_EXPECT_MSG_EQ(validate(config),
                              "parameterCount: 1024 values take 4096 bytes in fp32, more "
                              "than {modelBytes}=1000",
                              "too many parameters");

        // MTU 1500 = chunk + 20 (IPv4) + 8 (UDP) + 40 (IslandSyncHeader): 1432 fits, 1436 not.
        config = TinyConfig();
        config.chunkBytes = 1432;
        NS_TEST_EXPECT_MSG_EQ(validate(config), "", "1432 + 68 = 1500 fits");
        config.chunkBytes = 1436;
        NS_TEST_EXPECT_MSG_EQ(validate(config),
                              "chunkBytes: 1436 bytes + 68 header bytes exceed the "
                              "path MTU 1500 of aaa->bbb",
                              "chunk beyond the MTU");
        config.chunkBytes = 1001;
        NS_TEST_EXPECT_MSG_EQ(validate(config),
                              "chunkBytes: must be a multiple of 4 in fp32, whole fp32 "
                              "values of 4 bytes (got 1001)",
                              "chunk not a multiple of 4");

        config = TinyConfig();
        config.rounds = 0;
        NS_TEST_EXPECT_MSG_EQ(validate(config).rfind("rounds: ", 0), 0u, "no rounds");
        config = TinyConfig();
        config.learningRate = 0;
        NS_TEST_EXPECT_MSG_EQ(validate(config),
                              "learningRate: must be a number in (0, 1) (got '0')",
                              "learning rate 0");
        config.learningRate = 1;
        NS_TEST_EXPECT_MSG_EQ(validate(config),
                              "learningRate: must be a number in (0, 1) (got '1')",
                              "learning rate 1");
        config = TinyConfig();
        config.wanLossRate = 0.5;
        NS_TEST_EXPECT_MSG_EQ(validate(config), "", "loss 0.5 is the limit");
        config.wanLossRate = 0.6;
        NS_TEST_EXPECT_MSG_EQ(validate(config),
                              "wanLossRate: must be a number in [0, 0.5] (got '0.6')",
                              "loss 0.6");
        config = TinyConfig();
        config.pcapSnaplen = 70;
        NS_TEST_EXPECT_MSG_EQ(validate(config), "", "snaplen 70 keeps the headers");
        config.pcapSnaplen = 69;
        NS_TEST_EXPECT_MSG_EQ(validate(config),
                              "pcapSnaplen: must be an integer in [70, 65535] (got "
                              "'69')",
                              "snaplen 69");

        // A pcap directory below a regular file cannot be created.
        const std::filesystem::path file =
            std::filesystem::temp_directory_path() / "wan-training-training-run-test.file";
        std::ofstream(file) << "not a directory\n";
        config = TinyConfig();
        config.pcapDir = (file / "pcap").string();
        NS_TEST_EXPECT_MSG_EQ(validate(config),
                              "pcapDir: cannot create directory '" + config.pcapDir + "'",
                              "pcap directory below a file");
        std::filesystem::remove(file);

        config = TinyConfig();
        NS_TEST_EXPECT_MSG_EQ(ErrorOf([&]() {
                                  TrainingRun::Validate(tiny, CliqueSchedule::AllReduce(4), config);
                              }).rfind("schedule: ", 0),
                              0u,
                              "a schedule of four islands on three cities");

        SyntheticTopology::Options options;
        options.islands = IslandSyncHeader::MAX_ISLANDS + 1;
        const WanTopology large = SyntheticTopology::Generate(options);
        NS_TEST_EXPECT_MSG_EQ(
            ErrorOf([&]() { TrainingRun::Validate(large, CliqueSchedule::AllReduce(65), config); }),
            "topology: at most 64 islands are supported (got 65)",
            "65 islands");

        config.mode = CapabilityMode::TREE;
        NS_TEST_EXPECT_MSG_EQ(ErrorOf([&]() {
                                  TrainingRun run(tiny, all, config);
                              }).rfind("mode: mode 'tree' needs multicast", 0),
                              0u,
                              "the constructor validates");
    }
};

/**
 * @ingroup wan-training-tests
 * @brief A tiny run with idle islands completes and verifies, every round ends on every
 * island, and its configuration JSON holds what it was given; in both mode the JSON has the
 * group range and the FPGA settings. (Progress reports: training-progress-test-suite.cc.)
 */
class TrainingRunTinyTestCase : public TestCase
{
  public:
    TrainingRunTinyTestCase()
        : TestCase("tiny run with idle islands: passes, every round ends, config")
    {
    }

  private:
    void DoRun() override
    {
        const WanTopology tiny = WanTopology::LoadFile(CreateDataDirFilename(TINY));
        const TrainingRun::Config config = TinyConfig();
        std::map<uint32_t, double> roundEndS; // round -> when its last island ended it
        {
            TrainingRun run(tiny, TinySchedule(), config);
            run.Build();
            for (uint32_t i = 0; i < tiny.GetNCities(); ++i)
            {
                run.GetApp(i)->TraceConnectWithoutContext(
                    "RoundFinished",
                    MakeBoundCallback(&RecordRoundEnd, &roundEndS));
            }
            run.Run();

            NS_TEST_ASSERT_MSG_EQ(run.Passed(), true, "every round ended and verified");
            NS_TEST_EXPECT_MSG_EQ(run.GetResults().GetRoundsVerified(), 4u, "four rounds");
            for (uint32_t i = 0; i < tiny.GetNCities(); ++i)
            {
                NS_TEST_EXPECT_MSG_EQ(run.GetApp(i)->GetCompletedRounds(), 4u, "island " << i);
            }

            nlohmann::json json = run.GetConfigJson();
            NS_TEST_EXPECT_MSG_EQ(json.at("mode").get<std::string>(), "unicast", "mode");
            NS_TEST_EXPECT_MSG_EQ(json.at("model_bytes").get<uint64_t>(), 40000u, "model bytes");
            NS_TEST_EXPECT_MSG_EQ(json.at("rounds").get<uint32_t>(), 4u, "rounds");
            NS_TEST_EXPECT_MSG_EQ(json.contains("fpga"), false, "no FPGA in unicast mode");
            NS_TEST_EXPECT_MSG_EQ(json.contains("group_range"), false, "no groups in unicast");
            nlohmann::json results = nlohmann::json::parse(run.GetResults().ToJson());
            NS_TEST_EXPECT_MSG_EQ(results.at("config"), json, "the results carry the config");
            NS_TEST_EXPECT_MSG_EQ(results.at("rounds").at(0).contains("predicted_comm_s"),
                                  true,
                                  "the schedule model's T_comm of the round next to comm_s");
        }

        NS_TEST_ASSERT_MSG_EQ(roundEndS.size(), 4u, "four rounds ended");

        // Both mode on the reference WAN: the multicast and FPGA settings (not built).
        const WanTopology reference = WanTopology::LoadFile(CreateDataDirFilename(REFERENCE_WAN));
        TrainingRun::Config both;
        both.mode = CapabilityMode::BOTH;
        both.modelBytes = 123456;
        both.fpgaSlots = 77;
        const CliqueSchedule latin = CliqueSchedule::LatinTriples(9);
        TrainingRun run(reference, latin, both);
        nlohmann::json json = run.GetConfigJson();
        NS_TEST_EXPECT_MSG_EQ(json.at("mode").get<std::string>(), "both", "mode");
        NS_TEST_EXPECT_MSG_EQ(json.at("model_bytes").get<uint64_t>(), 123456u, "model bytes");
        NS_TEST_EXPECT_MSG_EQ(json.at("group_range").get<std::string>(),
                              "232.1.0.0/16",
                              "group range");
        NS_TEST_EXPECT_MSG_EQ(json.at("fpga").at("slot_count").get<uint32_t>(), 77u, "slots");
        NS_TEST_EXPECT_MSG_EQ(json.at("schedule_rounds").size(),
                              std::size_t{latin.GetNRounds()},
                              "the schedule's rounds");
    }
};

/**
 * @ingroup wan-training-tests
 * @brief Two lossy runs with one seed, one after the other in one process, give identical
 * results; another seed gives others (so the seed reaches the random streams); a lossy
 * both-mode run gives the same results under MapScheduler and PriorityQueueScheduler.
 */
class TrainingRunDeterminismTestCase : public TestCase
{
  public:
    TrainingRunDeterminismTestCase()
        : TestCase("two runs with one seed in one process: identical results JSON")
    {
    }

  private:
    /**
     * @param seed the seed
     * @param drops set to the packets lost to the WAN error models
     * @return the results JSON of a lossy tiny run
     */
    std::string RunOnce(uint32_t seed, uint64_t& drops)
    {
        const WanTopology tiny = WanTopology::LoadFile(CreateDataDirFilename(TINY));
        TrainingRun::Config config = TinyConfig();
        config.seed = seed;
        config.wanLossRate = 0.05;
        TrainingRun run(tiny, TinySchedule(), config);
        run.Run();
        drops = 0;
        for (uint32_t d = 0; d < tiny.GetNDirectedLinks(); ++d)
        {
            drops += run.GetResults().GetLinkCounters(d).errorDrops;
        }
        return run.Passed() ? run.GetResults().ToJson() : "";
    }

    /**
     * @param scheduler the TypeId of the simulator's scheduler
     * @return the results JSON of a lossy both-mode round of the Latin triples on the
     *         reference WAN, simulated with that scheduler (the SchedulerType global value is
     *         restored after)
     */
    std::string RunBothWith(TypeId scheduler)
    {
        TypeIdValue before;
        GlobalValue::GetValueByName("SchedulerType", before);
        GlobalValue::Bind("SchedulerType", TypeIdValue(scheduler));
        std::string json;
        {
            const WanTopology reference =
                WanTopology::LoadFile(CreateDataDirFilename(REFERENCE_WAN));
            TrainingRun::Config config;
            config.mode = CapabilityMode::BOTH;
            config.rounds = 2;
            config.modelBytes = 400000;
            config.localSteps = 1;
            config.stepTime = MilliSeconds(1);
            config.wanLossRate = 0.01;
            TrainingRun run(reference, CliqueSchedule::LatinTriples(9), config);
            run.Run();
            json = run.Passed() ? run.GetResults().ToJson() : "";
        }
        GlobalValue::Bind("SchedulerType", before);
        return json;
    }

    void DoRun() override
    {
        uint64_t drops1 = 0;
        uint64_t drops2 = 0;
        uint64_t drops3 = 0;
        const std::string first = RunOnce(3, drops1);
        const std::string second = RunOnce(3, drops2);
        const std::string other = RunOnce(4, drops3);
        NS_TEST_ASSERT_MSG_NE(first, "", "the lossy run passes");
        NS_TEST_EXPECT_MSG_GT(drops1, 0u, "the error models dropped packets");
        NS_TEST_EXPECT_MSG_EQ(drops2, drops1, "same drops");
        NS_TEST_EXPECT_MSG_EQ((first == second), true, "identical results JSON");
        NS_TEST_EXPECT_MSG_EQ((first == other), false, "another seed, other results");

        // Every scheduler runs the events in the same order (time, then scheduling order):
        // the programs' default scheduler gives ns-3's default's results byte for byte.
        const std::string map = RunBothWith(MapScheduler::GetTypeId());
        const std::string heap = RunBothWith(PriorityQueueScheduler::GetTypeId());
        NS_TEST_ASSERT_MSG_NE(map, "", "the lossy both-mode run passes");
        NS_TEST_EXPECT_MSG_EQ((map == heap),
                              true,
                              "MapScheduler and PriorityQueueScheduler: identical results JSON");
    }
};

/**
 * @ingroup wan-training-tests
 * @brief TrainingRun test suite.
 */
class TrainingRunTestSuite : public TestSuite
{
  public:
    TrainingRunTestSuite();
};

TrainingRunTestSuite::TrainingRunTestSuite()
    : TestSuite("wan-training-training-run", UNIT)
{
    SetDataDir(NS_TEST_SOURCEDIR);
    AddTestCase(new TrainingRunPcapNameTestCase(), TestCase::QUICK);
    AddTestCase(new TrainingRunValidateTestCase(), TestCase::QUICK);
    AddTestCase(new TrainingRunTinyTestCase(), TestCase::QUICK);
    AddTestCase(new TrainingRunDeterminismTestCase(), TestCase::QUICK);
}

/** The suite's static instance. */
static TrainingRunTestSuite g_trainingRunTestSuite;
