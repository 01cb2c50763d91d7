/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "clique-schedule.h"
#include "fuzz-targets.h"
#include "island-sync-header.h"
#include "wan-input-error.h"
#include "wan-topology.h"

#include "ns3/buffer.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <gtest/gtest.h>
#include <iterator>
#include <set>
#include <string>
#include <vector>

/**
 * @file
 * @ingroup wan-training-tests
 * Replays every seed input (fuzz/corpus/TARGET/) and every input that once crashed a fuzz target
 * (fuzz/regressions/TARGET/) through the fuzz targets' entry points, one test per file, with the
 * default compiler: no clang or libFuzzer needed. Under `./wan-training test --sanitize` the
 * replay runs with AddressSanitizer and UndefinedBehaviorSanitizer as well.
 */

using namespace ns3;

namespace
{

namespace fs = std::filesystem;

/** One input file of one fuzz target. */
struct FuzzInput
{
    std::string target; //!< "topology", "schedule" or "island-sync-header"
    std::string kind;   //!< "corpus" or "regressions"
    fs::path path;      //!< the file
};

/**
 * @brief Print an input as its path under fuzz/ (gtest shows it beside the test name).
 * @param input the input
 * @param os the stream
 */
void
PrintTo(const FuzzInput& input, std::ostream* os)
{
    *os << input.kind << "/" << input.target << "/" << input.path.filename().string();
}

/** The fuzz targets, named as their directories under fuzz/corpus and fuzz/regressions. */
const std::vector<std::string> TARGETS = {"topology", "schedule", "island-sync-header"};

/**
 * @param kind "corpus" or "regressions"
 * @param target a fuzz target
 * @return the directory of its inputs of that kind
 */
fs::path
InputDir(const std::string& kind, const std::string& target)
{
    return fs::path(WAN_TRAINING_SOURCE_DIR) / "fuzz" / kind / target;
}

/**
 * @return every corpus and regression input, sorted by path
 */
std::vector<FuzzInput>
ListInputs()
{
    std::vector<FuzzInput> inputs;
    for (const auto& target : TARGETS)
    {
        for (const std::string kind : {"corpus", "regressions"})
        {
            fs::path dir = InputDir(kind, target);
            if (!fs::is_directory(dir))
            {
                continue;
            }
            for (const auto& entry : fs::directory_iterator(dir))
            {
                if (entry.is_regular_file())
                {
                    inputs.push_back({target, kind, entry.path()});
                }
            }
        }
    }
    std::sort(inputs.begin(), inputs.end(), [](const FuzzInput& a, const FuzzInput& b) {
        return a.path < b.path;
    });
    return inputs;
}

/**
 * @param path a file
 * @return its bytes
 */
std::vector<uint8_t>
ReadBytes(const fs::path& path)
{
    std::ifstream in(path, std::ios::binary);
    return std::vector<uint8_t>(std::istreambuf_iterator<char>(in),
                                std::istreambuf_iterator<char>());
}

/**
 * @brief Run one input through its target's entry point.
 * @param target the fuzz target
 * @param bytes the input
 */
void
Replay(const std::string& target, const std::vector<uint8_t>& bytes)
{
    if (target == "topology")
    {
        FuzzTopology(bytes.data(), bytes.size());
    }
    else if (target == "schedule")
    {
        FuzzSchedule(bytes.data(), bytes.size());
    }
    else
    {
        FuzzIslandSyncHeader(bytes.data(), bytes.size());
    }
}

/** One test per input file. */
class FuzzReplay : public testing::TestWithParam<FuzzInput>
{
};

TEST_P(FuzzReplay, KeepsItsInvariants)
{
    const FuzzInput& input = GetParam();
    std::vector<uint8_t> bytes = ReadBytes(input.path);
    try
    {
        Replay(input.target, bytes);
    }
    catch (const FuzzInvariantError& e)
    {
        FAIL() << input.path << ": " << e.what();
    }
}

INSTANTIATE_TEST_SUITE_P(Inputs,
                         FuzzReplay,
                         testing::ValuesIn(ListInputs()),
                         [](const testing::TestParamInfo<FuzzInput>& info) {
                             std::string name = info.param.target + "_" + info.param.kind + "_" +
                                                info.param.path.filename().string();
                             std::replace_if(
                                 name.begin(),
                                 name.end(),
                                 [](char c) {
                                     return !std::isalnum(static_cast<unsigned char>(c));
                                 },
                                 '_');
                             return name;
                         });

TEST(FuzzCorpus, EveryTargetHasSeeds)
{
    for (const auto& target : TARGETS)
    {
        fs::path dir = InputDir("corpus", target);
        ASSERT_TRUE(fs::is_directory(dir)) << dir;
        EXPECT_GE(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 3) << dir;
    }
}

TEST(FuzzCorpus, TopologyAndScheduleSeedsAreAcceptedAndRejected)
{
    // Seeds on both sides of the validation: the fuzzer mutates from valid and invalid inputs.
    WanTopology nineCity = WanTopology::LoadFile(std::string(WAN_TRAINING_SOURCE_DIR) +
                                                 "/topologies/doublezero-nine-city.json");
    uint32_t topologies[2] = {0, 0};
    uint32_t schedules[2] = {0, 0};
    for (const auto& target : {"topology", "schedule"})
    {
        for (const auto& entry : fs::directory_iterator(InputDir("corpus", target)))
        {
            std::vector<uint8_t> bytes = ReadBytes(entry.path());
            std::string text(bytes.begin(), bytes.end());
            bool isTopology = std::string(target) == "topology";
            try
            {
                if (isTopology)
                {
                    WanTopology::Parse(text, entry.path().string(), true);
                }
                else
                {
                    CliqueSchedule::Parse(text, entry.path().string(), nineCity);
                }
                ++(isTopology ? topologies : schedules)[1];
            }
            catch (const WanInputError&)
            {
                ++(isTopology ? topologies : schedules)[0];
            }
        }
    }
    EXPECT_GE(topologies[0], 1U);
    EXPECT_GE(topologies[1], 1U);
    EXPECT_GE(schedules[0], 1U);
    EXPECT_GE(schedules[1], 1U);
}

TEST(FuzzCorpus, HeaderSeedsHoldEveryMessageType)
{
    // A corpus of rejected headers would leave the accepting paths unexplored: accepted seeds of
    // every type, DATA or AGGREGATE seeds in fp32, bf16 and int8, so the fuzzer starts from every
    // encoding, and refused seeds with a malformed format field or encoding.
    std::set<int> accepted;
    std::set<int> formats;
    std::set<std::string> refused;
    for (const auto& entry : fs::directory_iterator(InputDir("corpus", "island-sync-header")))
    {
        std::vector<uint8_t> bytes = ReadBytes(entry.path());
        Buffer buffer;
        buffer.AddAtStart(bytes.size());
        buffer.Begin().Write(bytes.data(), bytes.size());
        IslandSyncHeader header;
        if (header.Deserialize(buffer.Begin()) != 0)
        {
            accepted.insert(header.GetType());
            if (!header.GetValues().empty())
            {
                formats.insert(static_cast<int>(header.GetFormat()));
            }
        }
        else
        {
            refused.insert(entry.path().filename().string());
        }
    }
    EXPECT_EQ(accepted,
              (std::set<int>{IslandSyncHeader::DATA,
                             IslandSyncHeader::AGGREGATE,
                             IslandSyncHeader::NACK,
                             IslandSyncHeader::DONE,
                             IslandSyncHeader::READY,
                             IslandSyncHeader::READY_ASK,
                             IslandSyncHeader::VIEW,
                             IslandSyncHeader::PARITY}));
    EXPECT_EQ(formats, (std::set<int>{0, 1, 2}));
    for (const char* seed : {"bad-format.bin",
                             "bad-format-on-nack.bin",
                             "bad-int8-offset.bin",
                             "bad-int8-scale.bin",
                             "bad-int8-code.bin",
                             "bad-bf16-signalling-nan.bin",
                             "bad-parity-block.bin"})
    {
        EXPECT_EQ(refused.count(seed), 1u) << seed;
    }
}

} // namespace
