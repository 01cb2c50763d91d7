/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef SCHEDULE_OPTIONS_H
#define SCHEDULE_OPTIONS_H

#include "clique-schedule.h"
#include "wan-topology.h"

#include <string>

namespace ns3
{

class CommandLine;

/**
 * @ingroup wan-training
 * @brief The options that choose a clique schedule, shared by the programs that take one:
 * --schedule=FILE, or a generated --scheduleKind (allreduce, pairs, latin, regional) with the
 * --cliqueSize of the regional kind.
 */
class ScheduleOptions
{
  public:
    /**
     * @brief Add --schedule, --scheduleKind and --cliqueSize with their help texts.
     * @param cmd the command line; this object must outlive cmd.Parse()
     */
    void AddValues(CommandLine& cmd);

    /**
     * @brief Build the schedule the options name.
     * @param program the name that error messages start with
     * @param topology the topology the schedule is for
     * @param name receives the schedule's name, when not null: the file, the kind, or
     *        "regional-SIZE"
     * @return the schedule
     * @throws WanInputError for a bad schedule file, a kind the topology cannot have, an unknown
     *         kind or a bad clique size
     */
    CliqueSchedule MakeSchedule(const std::string& program,
                                const WanTopology& topology,
                                std::string* name = nullptr) const;

    std::string schedule;        //!< --schedule (empty: generated)
    std::string kind{"latin"};   //!< --scheduleKind
    std::string cliqueSize{"3"}; //!< --cliqueSize
};

} // namespace ns3

#endif /* SCHEDULE_OPTIONS_H */
