/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "training-options.h"

#include "wan-input-error.h"

#include "ns3/command-line.h"

#include <iostream>
#include <limits>

namespace ns3
{

void
TrainingOptions::AddValues(CommandLine& cmd)
{
    cmd.AddValue("topology", topologyHelp, topology);
    modelSize.AddValues(cmd,
                        "simulated model size S on the wire in bytes, a whole number (e.g. "
                        "1000000000 or 1e9; default " +
                            modelBytesDefault + "; an encoding in --format)");
    cmd.AddValue("rounds", "rounds to run", rounds);
    cmd.AddValue("seed", "seed of the random streams and the objectives", seed);
    cmd.AddValue("parameterCount",
                 "real float32 parameters each island trains and exchanges (the first chunks "
                 "carry them)",
                 parameterCount);
    cmd.AddValue("localSteps", "local gradient steps per round", localSteps);
    cmd.AddValue("overlap",
                 "overlap compute with the exchange (streaming): round r+1's local steps run "
                 "while round r's exchange is on the wire, and its average is applied late as "
                 "x <- x + (avg_r - x_r)",
                 overlap);
    cmd.AddValue("stepTime", "compute time of one local step (s, ms, us, ns)", stepTime);
    cmd.AddValue("learningRate", "gradient step size, in (0, 1)", learningRate);
    cmd.AddValue("heterogeneity", "spread of the islands' objective targets", heterogeneity);
    cmd.AddValue("loss",
                 "fault: packet error rate on every WAN link, in [0, 0.5] (tested up to 0.05)",
                 loss);
    cmd.AddValue("pcapSnaplen",
                 "bytes of each frame kept in the pcap files, in [70, 65535] (70: headers only)",
                 pcapSnaplen);
    cmd.AddValue("frameBytes",
                 "IP bytes of one simulated frame: 0 exact frames of the MTU; up to 65535 coarse "
                 "frames, each standing for whole frames of the MTU whose headers and wire bytes "
                 "it carries (default: the topology's defaults.frame_bytes, else 0)",
                 frameBytes);
    cmd.AddValue("linkDown",
                 "fault: WAN links that go down, A-B@SECONDS[:UPSECONDS][,...] with city ids "
                 "(e.g. nyc-lon@2.5:4); both directions stop, routes and multicast trees are "
                 "recomputed on the surviving graph (a partition is reported), and back when "
                 "the link comes up",
                 faults.linkOutages);
    cmd.AddValue("crash",
                 "fault: islands that leave, CITY@ROUND[,...] (e.g. tyo@2): from that round on "
                 "the island takes no part; its cliques finish without it after a timeout",
                 faults.crashes);
    cmd.AddValue("straggler",
                 "fault: slow islands, CITY:FACTOR[,...] (e.g. sin:3): the island's local steps "
                 "take FACTOR (>= 1) times --stepTime",
                 faults.stragglers);
    cmd.AddValue("duplicate",
                 "fault: probability that a WAN packet is delivered twice, in [0, 0.5]",
                 faults.duplicateRate);
    cmd.AddValue("reorder",
                 "fault: probability that a WAN packet is delivered late, after later ones, in "
                 "[0, 0.5]",
                 faults.reorderRate);
    cmd.AddValue("reorderDelay",
                 "fault: how late a reordered packet arrives (s, ms, us, ns)",
                 faults.reorderDelay);
    cmd.AddValue("timeLimit",
                 "guard: stop the simulation at this simulated time and report the rounds that "
                 "did not complete (s, ms, us, ns; 0 derives a generous limit from the "
                 "configuration)",
                 faults.timeLimit);
    cmd.AddValue("quiet",
                 "no progress reports on stderr (by default, every --progressInterval seconds: "
                 "the rounds in progress, the percent of their bytes delivered, the expected "
                 "finish)",
                 quiet);
    cmd.AddValue("progressInterval",
                 "wall seconds between two progress reports, in [0, 1e6]",
                 progressInterval);
}

void
TrainingOptions::AddMode(CommandLine& cmd)
{
    cmd.AddValue("mode",
                 "the capability mode forced on every clique: unicast, multicast, aggregation, "
                 "both, ring or tree (default: each clique's algorithm from the schedule, "
                 "unicast for a schedule of plain lists)",
                 mode);
    m_withMode = true;
}

void
TrainingOptions::Parse(const std::string& program, TrainingRun::Config& config) const
{
    if (m_withMode && !mode.empty())
    {
        config.mode = CommandLineValues::ParseMode(program, "--mode", mode);
    }
    const ModelSizeOptions::Size size = ParseModelSize(program);
    config.modelBytes = static_cast<uint64_t>(size.bytes);
    config.format = size.format;
    config.rounds = static_cast<uint32_t>(
        CommandLineValues::ParseUnsigned(program, "--rounds", rounds, 1, maxRounds));
    config.parameterCount =
        static_cast<uint32_t>(CommandLineValues::ParseUnsigned(program,
                                                               "--parameterCount",
                                                               parameterCount,
                                                               1,
                                                               uint32_t{1} << 26));
    config.localSteps = static_cast<uint32_t>(
        CommandLineValues::ParseUnsigned(program, "--localSteps", localSteps, 0, 1000000));
    config.stepTime = CommandLineValues::ParseDuration(program, "--stepTime", stepTime, true);
    config.overlap = overlap;
    config.learningRate =
        CommandLineValues::ParseNumberInRange(program, "--learningRate", learningRate, 0, 1, true);
    if (config.learningRate <= 0)
    {
        throw WanInputError(program, "--learningRate", "must be > 0 (got '" + learningRate + "')");
    }
    config.heterogeneity = CommandLineValues::ParseNumberInRange(program,
                                                                 "--heterogeneity",
                                                                 heterogeneity,
                                                                 0,
                                                                 1e6,
                                                                 false);
    config.wanLossRate =
        CommandLineValues::ParseNumberInRange(program, "--loss", loss, 0, 0.5, false);
    config.pcapSnaplen = static_cast<uint32_t>(
        CommandLineValues::ParseUnsigned(program, "--pcapSnaplen", pcapSnaplen, 70, 65535));
    if (!frameBytes.empty())
    {
        config.frameBytes = static_cast<uint32_t>(
            CommandLineValues::ParseUnsigned(program, "--frameBytes", frameBytes, 0, 65535));
    }
    config.seed = static_cast<uint32_t>(
        CommandLineValues::ParseUnsigned(program,
                                         "--seed",
                                         seed,
                                         1,
                                         std::numeric_limits<uint32_t>::max()));
    config.progress = quiet ? nullptr : &std::cerr;
    config.progressLabel = program;
    config.progressIntervalS = CommandLineValues::ParseNumberInRange(program,
                                                                     "--progressInterval",
                                                                     progressInterval,
                                                                     0,
                                                                     1e6,
                                                                     false);
}

ModelSizeOptions::Size
TrainingOptions::ParseModelSize(const std::string& program) const
{
    return modelSize.Parse(program, true, modelBytesDefault);
}

const CommandLineValues::FieldOptions&
TrainingOptions::GetFieldOptions()
{
    static const CommandLineValues::FieldOptions options{
        {"topology", "--topology"},
        {"schedule", "--schedule"},
        {"mode", "--mode"},
        {"modelBytes", "--modelBytes"},
        {"chunkBytes", "--chunkBytes"},
        {"parameterCount", "--parameterCount"},
        {"rounds", "--rounds"},
        {"seed", "--seed"},
        {"learningRate", "--learningRate"},
        {"wanLossRate", "--loss"},
        {"groupRange", "--groupRange"},
        {"pcapDir", "--pcap"},
        {"pcapSnaplen", "--pcapSnaplen"},
        {"frameBytes", "--frameBytes"},
        {"maxRepairAttempts", "--maxRepairAttempts"},
        {"faults.linkOutages", "--linkDown"},
        {"faults.crashes", "--crash"},
        {"faults.stragglers", "--straggler"},
        {"faults.duplicateRate", "--duplicate"},
        {"faults.reorderRate", "--reorder"},
        {"faults.reorderDelay", "--reorderDelay"},
        {"faults.timeLimit", "--timeLimit"},
        {"progressIntervalS", "--progressInterval"},
    };
    return options;
}

} // namespace ns3
