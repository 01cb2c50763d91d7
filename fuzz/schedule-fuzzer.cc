/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "clique-schedule.h"
#include "fuzz-targets.h"
#include "wan-input-error.h"
#include "wan-topology.h"

#include <string>
#include <vector>

/**
 * @file
 * @ingroup wan-training-tests
 * Fuzz target of the schedule parser (CliqueSchedule::Parse) against the nine-city topology:
 * any bytes either give a WanInputError or a schedule whose rounds are partitions, whose island
 * index agrees with its rounds, whose Mixes() agrees with an independent union of the clique
 * graphs and whose JSON form parses back to the same rounds.
 */

namespace ns3
{

namespace
{

/** The source name given to the parser. */
const std::string FUZZ_SOURCE = "<fuzz>";

/**
 * @return the topology the schedules name (loaded once)
 */
const WanTopology&
NineCity()
{
    static const WanTopology topology =
        WanTopology::LoadFile(WAN_TRAINING_SOURCE_DIR "/topologies/doublezero-nine-city.json");
    return topology;
}

/**
 * @brief Whether the union of the rounds' clique graphs is connected, by a depth-first search
 * over an adjacency matrix (independent of CliqueSchedule::Mixes' union-find).
 * @param schedule the schedule
 * @return whether it mixes
 */
bool
Connected(const CliqueSchedule& schedule)
{
    const uint32_t n = schedule.GetNIslands();
    std::vector<std::vector<bool>> adjacent(n, std::vector<bool>(n, false));
    for (const auto& round : schedule.GetRounds())
    {
        for (const auto& clique : round)
        {
            for (uint32_t a : clique)
            {
                for (uint32_t b : clique)
                {
                    adjacent[a][b] = true;
                }
            }
        }
    }
    std::vector<bool> reached(n, false);
    std::vector<uint32_t> stack{0};
    reached[0] = true;
    uint32_t count = 1;
    while (!stack.empty())
    {
        uint32_t u = stack.back();
        stack.pop_back();
        for (uint32_t v = 0; v < n; ++v)
        {
            if (adjacent[u][v] && !reached[v])
            {
                reached[v] = true;
                ++count;
                stack.push_back(v);
            }
        }
    }
    return count == n;
}

/**
 * @brief Check an accepted schedule.
 * @param schedule the schedule
 * @param topology the topology it was parsed against
 */
void
CheckSchedule(const CliqueSchedule& schedule, const WanTopology& topology)
{
    const uint32_t n = topology.GetNCities();
    FuzzCheck(schedule.GetNIslands() == n, "island count differs from the topology's");
    FuzzCheck(schedule.GetNRounds() >= 1 && schedule.GetNRounds() == schedule.GetRounds().size(),
              "round count");
    for (uint32_t r = 0; r < schedule.GetNRounds(); ++r)
    {
        const CliqueSchedule::Round& round = schedule.GetRound(r);
        std::vector<uint32_t> clique(n, CliqueSchedule::IDLE);
        for (uint32_t c = 0; c < round.size(); ++c)
        {
            FuzzCheck(!round[c].empty(), "empty clique accepted in round " + std::to_string(r));
            for (uint32_t island : round[c])
            {
                FuzzCheck(island < n, "island index " + std::to_string(island) + " accepted");
                FuzzCheck(clique[island] == CliqueSchedule::IDLE,
                          "island " + std::to_string(island) + " twice in round " +
                              std::to_string(r));
                clique[island] = c;
            }
        }
        for (uint32_t island = 0; island < n; ++island)
        {
            FuzzCheck(schedule.GetCliqueOf(r, island) == clique[island],
                      "GetCliqueOf(" + std::to_string(r) + ", " + std::to_string(island) +
                          ") disagrees with the round");
        }
    }
    FuzzCheck(schedule.Mixes() == Connected(schedule), "Mixes() disagrees with the clique graph");

    CliqueSchedule again = CliqueSchedule::Parse(schedule.ToJson(topology), "<again>", topology);
    FuzzCheck(again.GetRounds() == schedule.GetRounds(), "the JSON form does not parse back");
}

} // namespace

void
FuzzSchedule(const uint8_t* data, std::size_t size)
{
    const WanTopology& topology = NineCity();
    const std::string text(reinterpret_cast<const char*>(data), size);
    try
    {
        CheckSchedule(CliqueSchedule::Parse(text, FUZZ_SOURCE, topology), topology);
    }
    catch (const WanInputError& e)
    {
        FuzzCheck(e.GetFile() == FUZZ_SOURCE && !e.GetPath().empty() && e.GetPath()[0] == '$' &&
                      !e.GetReason().empty(),
                  std::string("malformed input error: ") + e.what());
    }
}

} // namespace ns3

#ifdef WAN_TRAINING_LIBFUZZER
/**
 * @brief The libFuzzer entry point (only in the fuzzer binary).
 * @param data the input bytes
 * @param size the number of bytes
 * @return 0
 */
extern "C" int
LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size)
{
    ns3::FuzzSchedule(data, size);
    return 0;
}
#endif
