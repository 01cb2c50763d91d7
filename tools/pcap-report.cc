/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

/*
 * pcap-report: the traffic of a training run from the pcap captures of its devices.
 *
 *   wan-training-simulate --pcap=DIR          DIR/nyc-chi.pcap   router nyc's device facing chi
 *        |                                    DIR/nyc-up.pcap    island nyc's access device
 *        v                                    DIR/nyc-down.pcap  router nyc's device facing it
 *   pcap-report DIR --json=F --csv=F --plot=F.png
 *        PPP / IPv4 / UDP / IslandSyncHeader, each frame counted once on the directed link
 *        whose device transmitted it (PcapTraceReport, PcapDirectionResolver)
 *
 * Reports per directed link packets, bytes and model bytes (total and per round), per round and
 * per island (egress, ingress, first and last transmission), multicast replication per source
 * stream and in-line aggregation per island, and tree mode's traffic (aggregates per link by
 * class, each router's FPGA reduction, the totals' replication; PcapTreeAnalysis); as JSON, CSV
 * and a PNG heat map (gnuplot).
 *
 * Per (job, round, clique) it reports the clique's traffic (every message type, every link it
 * used); with --results=F, the run's results JSON, each clique is labelled with its members and
 * the algorithm it ran, and the traffic is summed by algorithm (a mixed schedule's cliques).
 *
 * Usage: pcap-report DIR [--json=F] [--csv=F] [--plot=F.png] [--port=N] [--results=F]
 * Exit status: 0 on success, 1 on an input error (missing directory, a capture that is empty,
 * truncated, not a pcap or not PPP, a missing peer capture, an unwritable output).
 */

#include "command-line-values.h"
#include "pcap-trace-report.h"
#include "sync-packet-decoder.h"
#include "training-run-summary.h"
#include "wan-input-error.h"

#include "ns3/command-line.h"
#include "ns3/log.h"

#include <iomanip>
#include <iostream>
#include <map>
#include <string>

using namespace ns3;

NS_LOG_COMPONENT_DEFINE("WanTrainingPcapReport");

namespace
{

/** The program name used in messages. */
const char* const PROGRAM = "pcap-report";

/**
 * @brief The program proper.
 * @param argc argument count
 * @param argv arguments
 * @return the exit status
 * @throws WanInputError for bad arguments or captures
 */
int
Run(int argc, char** argv)
{
    std::string directory;
    std::string jsonFile;
    std::string csvFile;
    std::string plotFile;
    std::string resultsFile;
    uint32_t port = SyncPacketDecoder::DEFAULT_PORT;

    CommandLine cmd(__FILE__);
    cmd.Usage("Report the traffic of a training run from the pcap captures of its devices (one "
              "file per device, named after the directed link it transmits on: A-B.pcap, "
              "A-up.pcap, A-down.pcap, as wan-training-simulate --pcap=DIR writes them).\n"
              "Each frame is counted once, on the directed link whose device transmitted it. "
              "--csv=F also writes F's siblings -islands.csv, -aggregation.csv and "
              "-replication.csv, -cliques.csv, and with tree traffic -tree.csv, -routers.csv and "
              "-totals.csv."
              "\nExit status: 0 on success, 1 on an input error.");
    cmd.AddNonOption("directory", "the directory of the captures", directory);
    cmd.AddValue("json", "write the report as JSON to this file", jsonFile);
    cmd.AddValue("csv", "write the CSV tables (links per round first) to this file", csvFile);
    cmd.AddValue("plot", "write a PNG heat map of bytes per directed link per round", plotFile);
    cmd.AddValue("port", "the UDP port of the sync transport", port);
    cmd.AddValue("results",
                 "the run's results JSON (wan-training-simulate --out): labels each clique's "
                 "traffic with its members and algorithm",
                 resultsFile);
    cmd.Parse(argc, argv);

    if (directory.empty())
    {
        throw WanInputError(PROGRAM, "DIR", "is required: the directory of the pcap captures");
    }
    if (cmd.GetNExtraNonOptions() > 0)
    {
        throw WanInputError(PROGRAM,
                            "DIR",
                            "one directory only (also got '" + cmd.GetExtraNonOption(0) + "')");
    }
    if (port == 0 || port > 65535)
    {
        throw WanInputError(PROGRAM, "--port", "must be a UDP port in [1, 65535]");
    }

    PcapTraceReport report(static_cast<uint16_t>(port));
    if (!resultsFile.empty())
    {
        const TrainingRunSummary results = TrainingRunSummary::ReadFile(resultsFile);
        report.SetCliqueLabels(results.config.scheduleRounds,
                               results.config.scheduleAlgorithms,
                               results.config.mode);
    }
    report.Analyze(directory);

    std::cout << PROGRAM << ": " << directory << ": " << report.GetLinks().size()
              << " directed links, " << report.GetRounds().size() << " rounds\n";
    std::cout << "  " << std::left << std::setw(24) << "link" << std::right << std::setw(12)
              << "packets" << std::setw(16) << "bytes" << std::setw(16) << "model bytes"
              << "\n";
    for (const auto& [name, link] : report.GetLinks())
    {
        std::cout << "  " << std::left << std::setw(24) << name << std::right << std::setw(12)
                  << link.total.packets << std::setw(16) << link.total.bytes << std::setw(16)
                  << link.total.modelBytes << "\n";
    }
    for (const auto& [city, aggregation] : report.GetAggregation())
    {
        if (aggregation.packetsOut > 0)
        {
            std::cout << "  FPGA port " << city << ": " << aggregation.packetsIn << " in, "
                      << aggregation.packetsOut << " out (" << aggregation.aggregatesOut
                      << " aggregates), reduction "
                      << static_cast<double>(aggregation.packetsIn) / aggregation.packetsOut
                      << "\n";
        }
    }
    const PcapTreeAnalysis& tree = report.GetTree();
    if (tree.HasTreeTraffic())
    {
        for (const auto& [name, classes] : tree.GetLinks())
        {
            const auto& partial = classes[PcapTreeAnalysis::PARTIAL];
            const auto& total = classes[PcapTreeAnalysis::TOTAL];
            const auto& repair = classes[PcapTreeAnalysis::TOTAL_REPAIR];
            const auto& other = classes[PcapTreeAnalysis::OTHER];
            if (partial.packets + total.packets + repair.packets + other.packets > 0)
            {
                std::cout << "  tree " << name << ": " << partial.packets << " partial aggregates ("
                          << partial.contributors << " contributors summed), " << total.packets
                          << " total copies, " << repair.packets << " total repairs, "
                          << other.packets << " other aggregates\n";
            }
        }
        for (const auto& [city, router] : tree.GetRouters())
        {
            std::cout << "  FPGA router " << city << ": " << router.in.packets
                      << " contributions in (" << router.in.contributors << " contributors), "
                      << router.aggregatesOut.packets << " aggregates out ("
                      << router.aggregatesOut.contributors << " contributors), "
                      << router.passedOut.packets << " passed on, reduction "
                      << router.GetReduction() << "\n";
        }
        for (const auto& [key, total] : report.GetTotalReplication())
        {
            std::cout << "  total of island " << std::get<3>(key) << " (round " << std::get<1>(key)
                      << ", clique " << std::get<2>(key) << "): " << total.chunks << " chunks on "
                      << total.links.size() << " links, " << total.minCopiesPerChunk << "-"
                      << total.maxCopiesPerChunk << " copies per chunk\n";
        }
    }
    // The traffic by algorithm (with --results): every clique's transmissions, every link.
    std::map<std::string, PcapTraceReport::Counters> byAlgorithm;
    for (const auto& [key, clique] : report.GetCliques())
    {
        const PcapTraceReport::CliqueLabel* label =
            report.GetCliqueLabel(std::get<1>(key), std::get<2>(key));
        if (label && !label->algorithm.empty())
        {
            PcapTraceReport::Counters& sum = byAlgorithm[label->algorithm];
            sum.packets += clique.total.packets;
            sum.bytes += clique.total.bytes;
            sum.modelBytes += clique.total.modelBytes;
        }
    }
    for (const auto& [algorithm, sum] : byAlgorithm)
    {
        std::cout << "  cliques running " << algorithm << ": " << sum.packets << " packets, "
                  << sum.bytes << " bytes, " << sum.modelBytes << " model bytes\n";
    }
    for (const std::string& warning : report.GetWarnings())
    {
        std::cerr << PROGRAM << ": warning: " << warning << std::endl;
    }
    if (!jsonFile.empty())
    {
        report.WriteJson(jsonFile);
        std::cout << "  json: " << jsonFile << "\n";
    }
    if (!csvFile.empty())
    {
        for (const std::string& file : report.WriteCsv(csvFile))
        {
            std::cout << "  csv: " << file << "\n";
        }
    }
    if (!plotFile.empty())
    {
        std::string skipped = report.WritePlot(plotFile);
        if (skipped.empty())
        {
            std::cout << "  plot: " << plotFile << "\n";
        }
        else
        {
            std::cerr << PROGRAM << ": --plot: " << skipped << std::endl;
        }
    }
    return 0;
}

} // namespace

int
main(int argc, char** argv)
{
    return CommandLineValues::RunProgram([argc, argv]() { return Run(argc, argv); },
                                         std::string(PROGRAM) + ": ");
}
