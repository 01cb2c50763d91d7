/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "capability-set.h"
#include "clique-schedule.h"
#include "schedule-metrics.h"
#include "schedule-sweep.h"
#include "wan-input-error.h"
#include "wan-topology.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sstream>
#include <unistd.h>

/**
 * @file
 * @ingroup wan-training-tests
 * GoogleTest cases for ScheduleSweep by capability set: the sets parsed from one option, the
 * set rows (their optimum, algorithms and all-reduce), which sets the rows take, and the
 * monotone check, with a violating input.
 */

using namespace ns3;

namespace
{

const std::string SRC = WAN_TRAINING_SOURCE_DIR;

/**
 * @param text the sets
 * @return the message of the WanInputError that CapabilitySet::ParseList throws (empty: none)
 */
std::string
ParseError(const std::string& text)
{
    try
    {
        CapabilitySet::ParseList(text, "wan-sweep", "--capabilitySets");
    }
    catch (const WanInputError& error)
    {
        return error.what();
    }
    return "";
}

/**
 * @param set a set
 * @param gridPoint its grid point
 * @param xiS its Xi
 * @return a set point
 */
ScheduleSweep::Point
SetPoint(const std::string& set, uint32_t gridPoint, double xiS)
{
    ScheduleSweep::Point point;
    point.capabilities = CapabilitySet::Parse(set, "test", "set");
    point.gridPoint = gridPoint;
    point.xiS = xiS;
    point.name = "point-" + set;
    return point;
}

/** A sweep of the three-island topology at one grid point, its files in a fresh directory. */
class ScheduleSweepRun : public ::testing::Test
{
  protected:
    void SetUp() override
    {
        m_dir = std::filesystem::temp_directory_path() /
                ("schedule-sweep-test-" + std::to_string(::getpid()));
        std::filesystem::create_directories(m_dir);
        m_config.modelBytes = {1e9};
        m_config.modelBytesTexts = {"1e9"};
        m_config.computeS = {1};
        m_config.modes = {CapabilityMode::UNICAST};
        m_config.optimizer.maxEvaluations = 500;
        m_config.jsonFile = (m_dir / "sweep.json").string();
        m_config.csvFile = (m_dir / "sweep.csv").string();
        m_config.out = &m_table;
    }

    void TearDown() override
    {
        std::filesystem::remove_all(m_dir);
    }

    /** @return the JSON the sweep wrote */
    nlohmann::json ReadJson() const
    {
        std::ifstream in(m_config.jsonFile);
        return nlohmann::json::parse(in);
    }

    std::filesystem::path m_dir; //!< the files
    /** Three islands, no capabilities. */
    WanTopology m_topology{WanTopology::LoadFile(SRC + "/test/data/tiny-valid.json")};
    ScheduleSweep::Config m_config; //!< one size, one tau_c, unicast
    std::ostringstream m_table;     //!< the table
};

} // namespace

TEST(ScheduleSweepSets, ParsesSetsSeparatedBySlashes)
{
    const std::vector<CapabilitySet> sets = CapabilitySet::ParseList(
        "none/multicast/aggregation/multicast,aggregation/multicast,aggregation,core",
        "wan-sweep",
        "--capabilitySets");
    ASSERT_EQ(sets.size(), 5u);
    EXPECT_EQ(sets[0], CapabilitySet());
    EXPECT_EQ(sets[1], CapabilitySet(true, false, false));
    EXPECT_EQ(sets[2], CapabilitySet(false, true, false));
    EXPECT_EQ(sets[3], CapabilitySet(true, true, false));
    EXPECT_EQ(sets[4], CapabilitySet(true, true, true));
}

TEST(ScheduleSweepSets, RejectsBadEmptyAndRepeatedSets)
{
    EXPECT_EQ(
        ParseError("none/multicast,fpga"),
        "wan-sweep: --capabilitySets: set 2 of 2 ('multicast,fpga'): unknown capability "
        "'fpga' in 'multicast,fpga' (the tokens are multicast, aggregation and core, or none)");
    EXPECT_EQ(ParseError("none//multicast"),
              "wan-sweep: --capabilitySets: set 2 of 3 ('') is empty (separate sets by '/')");
    EXPECT_EQ(ParseError("multicast/"),
              "wan-sweep: --capabilitySets: set 2 of 2 ('') is empty (separate sets by '/')");
    // core implies aggregation: the two items are one set.
    EXPECT_EQ(ParseError("aggregation,core/none/core"),
              "wan-sweep: --capabilitySets: set 3 of 3 ('core') repeats set 1 "
              "('aggregation,core'): both are aggregation,core");
    EXPECT_EQ(ParseError("none/multicast"), "");
}

TEST(ScheduleSweepSets, MonotoneCheckComparesNestedSetsOfAGridPoint)
{
    std::vector<ScheduleSweep::Point> points{SetPoint("none", 0, 10),
                                             SetPoint("multicast", 0, 8),
                                             SetPoint("aggregation", 0, 9),
                                             SetPoint("multicast,aggregation", 0, 8),
                                             SetPoint("none", 1, 1),
                                             SetPoint("multicast", 1, 1)};
    ScheduleSweep::Point mode;
    mode.mode = CapabilityMode::BOTH;
    mode.xiS = 100; // a mode point is not a set: never compared
    points.push_back(mode);
    ScheduleSweep::MonotoneCheck check = ScheduleSweep::CheckMonotone(points);
    // Grid point 0: none < multicast, none < aggregation, none < m+a, multicast < m+a,
    // aggregation < m+a (multicast and aggregation are not nested); grid point 1: none <
    // multicast.
    EXPECT_EQ(check.pairs, 6u);
    EXPECT_TRUE(check.violations.empty());

    // A larger set worse than a smaller one; a grid point's sets are never compared with
    // another's.
    points[3].xiS = 8.5; // worse than multicast's 8 (none of grid point 1 has 1 < 8: not compared)
    check = ScheduleSweep::CheckMonotone(points);
    EXPECT_EQ(check.pairs, 6u);
    ASSERT_EQ(check.violations.size(), 1u);
    EXPECT_NE(check.violations[0].find("point-multicast,aggregation"), std::string::npos)
        << check.violations[0];
    EXPECT_NE(check.violations[0].find("smaller set multicast (point-multicast)"),
              std::string::npos)
        << check.violations[0];
}

TEST_F(ScheduleSweepRun, TheTopologysSetWhenNoneIsGiven)
{
    const ScheduleSweep::Result result = ScheduleSweep(m_config).Run(m_topology);
    // The mode given is a row, then the topology's set (none).
    ASSERT_EQ(result.points.size(), 2u);
    EXPECT_FALSE(result.points[0].capabilities.has_value());
    EXPECT_EQ(result.points[0].name, "point-000-unicast");
    ASSERT_TRUE(result.points[1].capabilities.has_value());
    EXPECT_EQ(*result.points[1].capabilities, CapabilitySet());
    EXPECT_EQ(result.points[1].name, "point-001-set-none");
    EXPECT_EQ(result.monotone.pairs, 0u);

    const nlohmann::json doc = ReadJson();
    EXPECT_EQ(doc["capability_sets"], nlohmann::json::array({"none"}));
    ASSERT_EQ(doc["rows"].size(), 2u);
    EXPECT_EQ(doc["rows"][0]["mode"], "unicast");
    EXPECT_FALSE(doc["rows"][0].contains("capabilities"));
    const nlohmann::json& row = doc["rows"][1];
    EXPECT_EQ(row["capabilities"], "none");
    EXPECT_FALSE(row.contains("mode"));

    // The set's optimum, recomputed from its schedule with each clique's algorithm, no worse
    // than the unicast one; every clique uses unicast or the ring.
    ScheduleMetrics::Settings settings;
    settings.modelBytes = 1e9;
    settings.computeS = 1;
    const ScheduleMetrics metrics(m_topology, settings);
    const CliqueSchedule schedule =
        CliqueSchedule::Parse(result.points[1].scheduleJson, "sweep", m_topology);
    EXPECT_DOUBLE_EQ(metrics.Evaluate(schedule).xiS, row["Xi_s"].get<double>());
    EXPECT_LE(row["Xi_s"].get<double>(), doc["rows"][0]["Xi_s"].get<double>());
    ASSERT_EQ(row["algorithms"].size(), schedule.GetNRounds());
    for (uint32_t r = 0; r < schedule.GetNRounds(); ++r)
    {
        ASSERT_EQ(row["algorithms"][r].size(), schedule.GetRound(r).size());
        for (uint32_t c = 0; c < schedule.GetRound(r).size(); ++c)
        {
            const nlohmann::json& algorithm = row["algorithms"][r][c];
            if (schedule.GetRound(r)[c].size() < 2)
            {
                EXPECT_TRUE(algorithm.is_null());
                continue;
            }
            EXPECT_TRUE(algorithm == "unicast" || algorithm == "ring") << algorithm;
            EXPECT_EQ(algorithm, row["rounds"][r][c]["algorithm"]);
        }
    }
    // Its all-reduce: the better of the unicast and the ring all-reduce.
    const CliqueSchedule allReduce = CliqueSchedule::AllReduce(3);
    EXPECT_DOUBLE_EQ(row["Xi_all_reduce_same_mode_s"].get<double>(),
                     std::min(metrics.Evaluate(allReduce, CapabilityMode::UNICAST).xiS,
                              metrics.Evaluate(allReduce, CapabilityMode::RING).xiS));
    EXPECT_NE(m_table.str().find("{none}"), std::string::npos) << m_table.str();
}

TEST_F(ScheduleSweepRun, GivenSetsReplaceTheTopologysAndAreChecked)
{
    // What-if sets the topology lacks; the modes stay rows of their own.
    m_config.capabilitySets =
        CapabilitySet::ParseList("none/aggregation/multicast", "wan-sweep", "--capabilitySets");
    m_config.modes = {CapabilityMode::UNICAST, CapabilityMode::BOTH};
    const ScheduleSweep::Result result = ScheduleSweep(m_config).Run(m_topology);
    ASSERT_EQ(result.points.size(), 5u);
    EXPECT_EQ(result.points[1].mode, CapabilityMode::BOTH);
    EXPECT_EQ(result.points[3].name, "point-003-set-aggregation");
    // none < aggregation, none < multicast.
    EXPECT_EQ(result.monotone.pairs, 2u);
    EXPECT_TRUE(result.monotone.violations.empty());
    EXPECT_LE(result.points[3].xiS, result.points[2].xiS);
    EXPECT_LE(result.points[4].xiS, result.points[2].xiS);
    const nlohmann::json doc = ReadJson();
    EXPECT_EQ(doc["capability_sets"], nlohmann::json::array({"none", "aggregation", "multicast"}));
    EXPECT_EQ(doc["monotone"]["pairs"], 2);
    EXPECT_EQ(doc["monotone"]["held"], true);
    // The CSV quotes the set's column: {multicast} has no comma, but origins may.
    std::ifstream csv(m_config.csvFile);
    std::string header;
    std::getline(csv, header);
    std::size_t lines = 0;
    for (std::string line; std::getline(csv, line);)
    {
        ++lines;
    }
    EXPECT_EQ(lines, 5u);
    EXPECT_NE(m_table.str().find("monotone check (a larger set is never worse): 2 pairs of "
                                 "nested sets, held"),
              std::string::npos)
        << m_table.str();
}
