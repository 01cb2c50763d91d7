/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "clique-schedule.h"
#include "wan-topology.h"

#include <algorithm>
#include <fstream>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

/**
 * @file
 * @ingroup wan-training-tests
 * GoogleTest cases for CliqueSchedule: JSON form, validation and the built-in generators.
 */

using namespace ns3;

namespace
{

const std::string SRC = WAN_TRAINING_SOURCE_DIR;

WanTopology
Reference()
{
    return WanTopology::LoadFile(SRC + "/topologies/reference-wan.json");
}

/** Expect Parse to fail at path with a reason containing text. */
void
ExpectRejected(const std::string& json, const std::string& path, const std::string& text)
{
    SCOPED_TRACE(json);
    try
    {
        CliqueSchedule::Parse(json, "sched.json", Reference());
        ADD_FAILURE() << "accepted";
    }
    catch (const WanInputError& e)
    {
        EXPECT_EQ(e.GetFile(), "sched.json");
        EXPECT_EQ(e.GetPath(), path);
        EXPECT_NE(e.GetReason().find(text), std::string::npos) << e.what();
    }
}

/** Every unordered pair met in a schedule, with multiplicity. */
std::multiset<std::pair<uint32_t, uint32_t>>
PairsMet(const CliqueSchedule& s)
{
    std::multiset<std::pair<uint32_t, uint32_t>> pairs;
    for (const auto& round : s.GetRounds())
    {
        for (const auto& clique : round)
        {
            for (uint32_t a : clique)
            {
                for (uint32_t b : clique)
                {
                    if (a < b)
                    {
                        pairs.insert({a, b});
                    }
                }
            }
        }
    }
    return pairs;
}

} // namespace

TEST(CliqueSchedule, ReferenceSchedulesParseWithIdleIslands)
{
    WanTopology t = Reference();
    std::ifstream in(SRC + "/test/data/reference-values.json");
    auto ref = nlohmann::json::parse(in);
    for (const auto& [name, entry] : ref.at("schedules").items())
    {
        SCOPED_TRACE(name);
        nlohmann::json doc;
        doc["rounds"] = entry.at("rounds");
        CliqueSchedule s = CliqueSchedule::Parse(doc.dump(), name, t);
        EXPECT_EQ(s.GetNRounds(), entry.at("rounds").size());
        EXPECT_TRUE(s.Mixes());
        // Round trip through the JSON form.
        CliqueSchedule back = CliqueSchedule::Parse(s.ToJson(t), "round-trip", t);
        EXPECT_EQ(back.GetRounds(), s.GetRounds());
    }
    // Round-robin pairs on 9 islands: each round leaves one island idle.
    nlohmann::json doc;
    doc["rounds"] =
        ref["schedules"]["round-robin pairs (circle method, all pairs once per period)"]["rounds"];
    CliqueSchedule pairs = CliqueSchedule::Parse(doc.dump(), "pairs", t);
    uint32_t idle = 0;
    for (uint32_t i = 0; i < 9; ++i)
    {
        idle += pairs.GetCliqueOf(0, i) == CliqueSchedule::IDLE;
    }
    EXPECT_EQ(idle, 1u);
    EXPECT_EQ(pairs.GetCliqueOf(0, t.GetCityIndex("NYC")), 0u);
    EXPECT_EQ(pairs.GetCliqueOf(0, t.GetCityIndex("HKG")), 3u);
}

TEST(CliqueSchedule, MalformedSchedulesAreRejectedWithPathAndReason)
{
    ExpectRejected("[[1]]", "$", "must be an object");
    ExpectRejected("{\"rounds\": [", "$", "not valid JSON");
    ExpectRejected("{}", "$", "missing required field 'rounds'");
    ExpectRejected(R"({"rounds": [], "extra": 1})", "$.extra", "unknown field");
    ExpectRejected(R"({"rounds": []})", "$.rounds", "at least one round");
    ExpectRejected(R"({"rounds": {}})", "$.rounds", "must be an array of rounds");
    ExpectRejected(R"({"rounds": [["NYC"]]})", "$.rounds[0][0]", "must be an array of city ids");
    ExpectRejected(R"({"rounds": [[["NYC", 3]]]})", "$.rounds[0][0][1]", "must be a city id");
    ExpectRejected(R"({"rounds": [[["NYC", "PAR"]]]})", "$.rounds[0][0][1]", "unknown city 'PAR'");
    ExpectRejected(R"({"rounds": [[["NYC"], []]]})", "$.rounds[0][1]", "must not be empty");
    ExpectRejected(R"({"rounds": [[["NYC", "CHI"]], [["LAX", "SIN"], ["SIN", "HKG"]]]})",
                   "$.rounds[1][1][0]",
                   "appears twice in this round");
    ExpectRejected(R"({"rounds": [[["NYC", "NYC"]]]})", "$.rounds[0][0][1]", "appears twice");
}

TEST(CliqueSchedule, DirectConstructionIsValidatedToo)
{
    EXPECT_THROW(CliqueSchedule(3, {}), WanInputError);
    EXPECT_THROW(CliqueSchedule(3, {{{0, 3}}}), WanInputError);
    EXPECT_THROW(CliqueSchedule(0, {{}}), WanInputError);
    CliqueSchedule ok(3, {{{0, 2}}});
    EXPECT_FALSE(ok.Mixes());
    EXPECT_EQ(ok.GetCliqueOf(0, 1), CliqueSchedule::IDLE);
}

TEST(CliqueSchedule, RoundRobinPairsMeetEveryPairOnce)
{
    for (uint32_t n : {2u, 5u, 8u, 9u})
    {
        SCOPED_TRACE(n);
        CliqueSchedule s = CliqueSchedule::RoundRobinPairs(n);
        EXPECT_EQ(s.GetNRounds(), n % 2 == 0 ? n - 1 : n);
        auto pairs = PairsMet(s);
        EXPECT_EQ(pairs.size(), n * (n - 1) / 2);
        std::set<std::pair<uint32_t, uint32_t>> distinct(pairs.begin(), pairs.end());
        EXPECT_EQ(distinct.size(), pairs.size());
        for (const auto& round : s.GetRounds())
        {
            EXPECT_EQ(round.size(), n / 2);
        }
        EXPECT_TRUE(s.Mixes());
    }
    EXPECT_THROW(CliqueSchedule::RoundRobinPairs(1), WanInputError);
}

TEST(CliqueSchedule, LatinTriplesAreOrthogonal)
{
    CliqueSchedule s = CliqueSchedule::LatinTriples(9);
    ASSERT_EQ(s.GetNRounds(), 2u);
    // Every row triple meets every column triple in exactly one island.
    for (const auto& row : s.GetRound(0))
    {
        for (const auto& column : s.GetRound(1))
        {
            uint32_t common = 0;
            for (uint32_t a : row)
            {
                common += std::count(column.begin(), column.end(), a);
            }
            EXPECT_EQ(common, 1u);
        }
    }
    EXPECT_EQ(PairsMet(s).size(), 18u);
    EXPECT_THROW(CliqueSchedule::LatinTriples(8), WanInputError);
}

TEST(CliqueSchedule, AllReduceAndRegionalCliques)
{
    CliqueSchedule all = CliqueSchedule::AllReduce(9);
    EXPECT_EQ(all.GetNRounds(), 1u);
    EXPECT_EQ(all.GetRound(0).size(), 1u);
    EXPECT_EQ(all.GetRound(0)[0].size(), 9u);

    WanTopology t = WanTopology::LoadFile(SRC + "/topologies/doublezero-nine-city.json");
    CliqueSchedule regional = CliqueSchedule::Regional(t, 3);
    ASSERT_EQ(regional.GetRound(0).size(), 3u);
    auto ids = [&t](const CliqueSchedule::Clique& c) {
        std::set<std::string> s;
        for (uint32_t i : c)
        {
            s.insert(t.GetCity(i).id);
        }
        return s;
    };
    // North America, Europe, Asia: the latency-nearest triples.
    EXPECT_EQ(ids(regional.GetRound(0)[0]), (std::set<std::string>{"nyc", "chi", "lax"}));
    EXPECT_EQ(ids(regional.GetRound(0)[1]), (std::set<std::string>{"lon", "ams", "fra"}));
    EXPECT_EQ(ids(regional.GetRound(0)[2]), (std::set<std::string>{"prg", "tyo", "sin"}));
    EXPECT_THROW(CliqueSchedule::Regional(t, 0), WanInputError);
}

TEST(CliqueSchedule, SaveFileWritesLoadableJson)
{
    WanTopology t = Reference();
    CliqueSchedule s = CliqueSchedule::LatinTriples(9);
    std::string path = ::testing::TempDir() + "/latin.json";
    s.SaveFile(path, t);
    EXPECT_EQ(CliqueSchedule::LoadFile(path, t).GetRounds(), s.GetRounds());
    EXPECT_THROW(CliqueSchedule::LoadFile("/nonexistent/x.json", t), WanInputError);
}
