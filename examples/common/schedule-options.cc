/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "schedule-options.h"

#include "command-line-values.h"
#include "wan-input-error.h"

#include "ns3/command-line.h"

namespace ns3
{

void
ScheduleOptions::AddValues(CommandLine& cmd)
{
    cmd.AddValue("schedule", "clique schedule JSON file (overrides --scheduleKind)", schedule);
    cmd.AddValue("scheduleKind",
                 "generated schedule: allreduce, pairs, latin (nine islands) or regional",
                 kind);
    cmd.AddValue("cliqueSize", "target clique size of --scheduleKind=regional", cliqueSize);
}

CliqueSchedule
ScheduleOptions::MakeSchedule(const std::string& program,
                              const WanTopology& topology,
                              std::string* name) const
{
    const uint32_t n = topology.GetNCities();
    if (name)
    {
        *name = schedule.empty() ? kind : schedule;
    }
    if (!schedule.empty())
    {
        return CliqueSchedule::LoadFile(schedule, topology);
    }
    if (kind == "allreduce")
    {
        return CliqueSchedule::AllReduce(n);
    }
    if (kind == "pairs")
    {
        if (n < 2)
        {
            throw WanInputError(program, "--scheduleKind", "pairs needs at least two islands");
        }
        return CliqueSchedule::RoundRobinPairs(n);
    }
    if (kind == "latin")
    {
        if (n != 9)
        {
            throw WanInputError(program,
                                "--scheduleKind",
                                "latin needs nine islands (the topology has " + std::to_string(n) +
                                    ")");
        }
        return CliqueSchedule::LatinTriples(n);
    }
    if (kind == "regional")
    {
        const auto size = static_cast<uint32_t>(
            CommandLineValues::ParseUnsigned(program, "--cliqueSize", cliqueSize, 1, n));
        if (name)
        {
            *name = "regional-" + std::to_string(size);
        }
        return CliqueSchedule::Regional(topology, size);
    }
    throw WanInputError(program,
                        "--scheduleKind",
                        "unknown kind '" + kind + "' (known: allreduce, pairs, latin, regional)");
}

} // namespace ns3
