/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "capability-set.h"
#include "clique-schedule.h"
#include "test-utils.h"
#include "wan-input-error.h"
#include "wan-topology.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

/**
 * @file
 * @ingroup wan-training-tests
 * GoogleTest cases for capability sets (doc/schedule-model.rst, "Capability sets and mixed
 * rounds"): the tokens, which algorithms a set allows, the smaller sets, the topology's `core`
 * and the schedule's per-clique algorithms in JSON.
 */

using namespace ns3;

namespace
{

const std::string SRC = WAN_TRAINING_SOURCE_DIR;

/**
 * @param text a list
 * @return the error Parse throws for it (fails the test when it accepts)
 */
WanInputError
ParseSetError(const std::string& text)
{
    try
    {
        CapabilitySet::Parse(text, "<command line>", "--capabilities");
    }
    catch (const WanInputError& e)
    {
        return e;
    }
    ADD_FAILURE() << "accepted '" << text << "'";
    return WanInputError("", "", "");
}

/** @return the algorithm names a set allows, comma-separated */
std::string
Algorithms(const CapabilitySet& set)
{
    std::string text;
    for (CapabilityMode mode : set.GetAlgorithms())
    {
        text += (text.empty() ? "" : ",") + CapabilityModeToString(mode);
    }
    return text;
}

} // namespace

TEST(CapabilitySet, TokensAndTheAlgorithmsTheyAllow)
{
    const auto parse = [](const std::string& text) {
        return CapabilitySet::Parse(text, "<command line>", "--capabilities");
    };
    EXPECT_EQ(Algorithms(parse("none")), "unicast,ring");
    EXPECT_EQ(Algorithms(parse("multicast")), "unicast,multicast,ring");
    EXPECT_EQ(Algorithms(parse("aggregation")), "unicast,aggregation,ring");
    EXPECT_EQ(Algorithms(parse("multicast,aggregation")),
              "unicast,multicast,aggregation,both,ring");
    EXPECT_EQ(Algorithms(parse("multicast,aggregation,core")),
              "unicast,multicast,aggregation,both,ring,tree");
    // core implies aggregation; tree also needs multicast.
    EXPECT_EQ(parse("core"), parse("aggregation,core"));
    EXPECT_EQ(parse("core").ToString(), "aggregation,core");
    EXPECT_EQ(Algorithms(parse("core")), "unicast,aggregation,ring");
    // The order of the tokens does not matter; ToString writes them in order.
    EXPECT_EQ(parse("core,multicast").ToString(), "multicast,aggregation,core");
    EXPECT_EQ(CapabilitySet().ToString(), "none");
    for (CapabilityMode mode : GetAllCapabilityModes())
    {
        EXPECT_TRUE(CapabilitySet::Needed(mode).Allows(mode)) << CapabilityModeToString(mode);
        for (const CapabilitySet& smaller : CapabilitySet::Needed(mode).GetSmallerSets())
        {
            EXPECT_FALSE(smaller.Allows(mode))
                << CapabilityModeToString(mode) << " in " << smaller.ToString();
        }
    }
}

TEST(CapabilitySet, SmallerSetsAreEveryStrictSubset)
{
    const CapabilitySet full(true, true, true);
    std::set<std::string> names;
    for (const CapabilitySet& set : full.GetSmallerSets())
    {
        EXPECT_TRUE(full.Contains(set));
        EXPECT_NE(set, full);
        names.insert(set.ToString());
    }
    // aggregation,core needs no multicast; core alone is aggregation,core.
    EXPECT_EQ(names,
              (std::set<std::string>{"none",
                                     "multicast",
                                     "aggregation",
                                     "multicast,aggregation",
                                     "aggregation,core"}));
    EXPECT_TRUE(CapabilitySet().GetSmallerSets().empty());
    EXPECT_EQ(CapabilitySet(true, false, false).GetSmallerSets().size(), 1U);
}

TEST(CapabilitySet, BadListsAreRejectedWithTheirReason)
{
    WanInputError e = ParseSetError("multicast,fpga");
    EXPECT_EQ(e.GetFile(), "<command line>");
    EXPECT_EQ(e.GetPath(), "--capabilities");
    EXPECT_EQ(e.GetReason(),
              "unknown capability 'fpga' in 'multicast,fpga' (the tokens are multicast, "
              "aggregation and core, or none)");
    EXPECT_EQ(ParseSetError("").GetReason(),
              "an empty capability set (give multicast, aggregation and core, or none)");
    EXPECT_EQ(ParseSetError("core,core").GetReason(), "'core' given twice in 'core,core'");
    EXPECT_EQ(ParseSetError("none,multicast").GetReason(),
              "'none' is the empty set and takes no other token (got 'none,multicast')");
    EXPECT_EQ(ParseSetError("multicast,").GetReason(), "an empty token at the end of 'multicast,'");
    EXPECT_NE(ParseSetError("multicast,,core").GetReason().find("unknown capability ''"),
              std::string::npos);
}

TEST(CapabilitySet, TheTopologysCoreIsValidated)
{
    auto doc = nlohmann::json::parse(ReadTextFile(SRC + "/topologies/reference-wan.json"));
    doc["capabilities"].erase("core");
    EXPECT_FALSE(WanTopology::Parse(doc.dump(), "t.json").HasCore());
    EXPECT_EQ(CapabilitySet::Of(WanTopology::Parse(doc.dump(), "t.json")).ToString(),
              "multicast,aggregation");
    doc["capabilities"]["core"] = true;
    const WanTopology core = WanTopology::Parse(doc.dump(), "t.json");
    EXPECT_TRUE(core.HasCore());
    EXPECT_EQ(CapabilitySet::Of(core).ToString(), "multicast,aggregation,core");
    doc["capabilities"]["core"] = "yes";
    EXPECT_THROW(WanTopology::Parse(doc.dump(), "t.json"), WanInputError);
    doc["capabilities"]["core"] = true;
    doc["capabilities"]["aggregation"] = false;
    try
    {
        WanTopology::Parse(doc.dump(), "t.json");
        ADD_FAILURE() << "core without aggregation accepted";
    }
    catch (const WanInputError& e)
    {
        EXPECT_EQ(e.GetFile(), "t.json");
        EXPECT_EQ(e.GetPath(), "$.capabilities.core");
        EXPECT_EQ(e.GetReason(),
                  "FPGAs on the routers (core) imply the edge FPGAs of aggregation, but "
                  "$.capabilities.aggregation is not true");
    }
}

TEST(CliqueSchedule, CliquesCarryTheirAlgorithmsThroughJson)
{
    const WanTopology topology = WanTopology::LoadFile(SRC + "/topologies/reference-wan.json");
    const std::string text =
        R"({"rounds": [[{"members": ["NYC", "CHI", "LAX"], "algorithm": "both"},
                        {"members": ["LON", "FRA"], "algorithm": "ring"}, ["SIN"]]]})";
    const CliqueSchedule schedule = CliqueSchedule::Parse(text, "s.json", topology);
    EXPECT_TRUE(schedule.HasAlgorithms());
    EXPECT_EQ(schedule.GetAlgorithm(0, 0), CapabilityMode::BOTH);
    EXPECT_EQ(schedule.GetAlgorithm(0, 1), CapabilityMode::RING);
    EXPECT_FALSE(schedule.GetAlgorithm(0, 2).has_value());
    // A one-member plain list idles: the schedule resolves without a mode.
    EXPECT_EQ(schedule.Resolve({}, "s.json").GetAlgorithm(0, 0), CapabilityMode::BOTH);
    // Written and read again: the same cliques and algorithms.
    const CliqueSchedule again = CliqueSchedule::Parse(schedule.ToJson(topology), "w", topology);
    EXPECT_EQ(again.GetRounds(), schedule.GetRounds());
    for (uint32_t c = 0; c < 3; ++c)
    {
        EXPECT_EQ(again.GetAlgorithm(0, c), schedule.GetAlgorithm(0, c)) << c;
    }
    // A forced mode replaces every algorithm; a one-member clique idles and gets none.
    const CliqueSchedule forced = schedule.Resolve(CapabilityMode::UNICAST, "s.json");
    EXPECT_EQ(forced.GetAlgorithm(0, 0), CapabilityMode::UNICAST);
    EXPECT_EQ(forced.GetAlgorithm(0, 1), CapabilityMode::UNICAST);
    EXPECT_FALSE(forced.GetAlgorithm(0, 2).has_value());
    // Plain lists write as lists.
    const CliqueSchedule plain(9, {{{0, 1}, {2}}});
    EXPECT_FALSE(plain.HasAlgorithms());
    EXPECT_EQ(nlohmann::json::parse(plain.ToJson(topology))["rounds"][0][0],
              nlohmann::json::parse(R"(["NYC", "CHI"])"));
}

TEST(CliqueSchedule, BadCliqueObjectsAndPlainListsAmongThemAreRejected)
{
    const WanTopology topology = WanTopology::LoadFile(SRC + "/topologies/reference-wan.json");
    const auto rejected =
        [&topology](const std::string& text, const std::string& path, const std::string& reason) {
            SCOPED_TRACE(text);
            try
            {
                CliqueSchedule::Parse(text, "s.json", topology).Resolve({}, "s.json");
                ADD_FAILURE() << "accepted";
            }
            catch (const WanInputError& e)
            {
                EXPECT_EQ(e.GetFile(), "s.json");
                EXPECT_EQ(e.GetPath(), path);
                EXPECT_NE(e.GetReason().find(reason), std::string::npos) << e.what();
            }
        };
    rejected(R"({"rounds": [[{"members": ["NYC", "CHI"], "algorithm": "torus"}]]})",
             "$.rounds[0][0].algorithm",
             "unknown mode 'torus'");
    rejected(R"({"rounds": [[{"members": ["NYC", "CHI"], "algorithm": 3}]]})",
             "$.rounds[0][0].algorithm",
             "must be an algorithm name");
    rejected(R"({"rounds": [[{"members": ["NYC", "CHI"]}]]})",
             "$.rounds[0][0]",
             "needs 'members' and 'algorithm'");
    rejected(R"({"rounds": [[{"members": ["NYC", "CHI"], "algorithm": "ring", "k": 1}]]})",
             "$.rounds[0][0].k",
             "unknown field (known: members, algorithm)");
    rejected(R"({"rounds": [[{"members": "NYC", "algorithm": "ring"}]]})",
             "$.rounds[0][0].members",
             "must be an array of city ids");
    rejected(R"({"rounds": [[{"members": ["NYC", "XXX"], "algorithm": "ring"}]]})",
             "$.rounds[0][0].members[1]",
             "unknown city 'XXX'");
    rejected(R"({"rounds": [[{"members": ["NYC", "CHI"], "algorithm": "ring"}, ["LON", "FRA"]]]})",
             "$.rounds[0][1]",
             "a plain list among cliques with their algorithms");
    rejected(R"({"rounds": [[["LON", "FRA"]]]})",
             "$.rounds[0][0]",
             "a clique without an algorithm");
}
