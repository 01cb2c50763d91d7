/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef PCAP_REPORT_WRITER_H
#define PCAP_REPORT_WRITER_H

#include "pcap-trace-report.h"

#include <ostream>
#include <string>
#include <vector>

namespace ns3
{

/**
 * @ingroup wan-training
 * @brief Writes the outputs of a PcapTraceReport: the JSON document, the CSV tables and the
 * PNG heat map of bytes per directed link per round.
 *
 * The JSON document has the sections `directory`, `port`, `links`, `messages`, `rounds`,
 * `islands`, `aggregation`, `replication`, `tree`, `attribution`, `ambiguous_packets` and
 * `warnings`; the CSV tables hold the links per round, the islands per round, the aggregation
 * and the replication per link, and with tree traffic the aggregates per link and class, the
 * routers' reduction and the totals' replication. The writer reads the report only: every output is
 * a function of what PcapTraceReport::Analyze found.
 */
class PcapReportWriter
{
  public:
    /**
     * @param report the analyzed report; it must outlive the writer
     */
    explicit PcapReportWriter(const PcapTraceReport& report);

    /** @return the report as JSON (pretty printed) */
    std::string ToJson() const;
    /**
     * @brief Write ToJson() to a file.
     * @param path the file
     * @throws WanInputError when it cannot be written
     */
    void WriteJson(const std::string& path) const;
    /**
     * @brief Write the CSV tables: links per round to `path`, and next to it (the name without
     * `.csv` plus a suffix) `-islands.csv`, `-aggregation.csv` and `-replication.csv`; when
     * the captures hold tree traffic also `-tree.csv`, `-routers.csv` and `-totals.csv`.
     * @param path the links table
     * @return the files written
     * @throws WanInputError when a file cannot be written
     */
    std::vector<std::string> WriteCsv(const std::string& path) const;
    /**
     * @brief Plot bytes per directed link per round as a PNG heat map with gnuplot.
     * @param path the PNG file
     * @return an empty string, or why no plot was made (gnuplot not installed, no sync traffic)
     * @throws WanInputError when gnuplot fails
     */
    std::string WritePlot(const std::string& path) const;

  private:
    /** @param out where to write the links table: per directed link its rounds, other, total */
    void WriteLinksCsv(std::ostream& out) const;
    /** @param out where to write the islands table: per island its rounds and total */
    void WriteIslandsCsv(std::ostream& out) const;
    /** @param out where to write the aggregation table: per island its FPGA port */
    void WriteAggregationCsv(std::ostream& out) const;
    /** @param out where to write the replication table: per stream and link its chunks */
    void WriteReplicationCsv(std::ostream& out) const;
    /** @param out where to write the cliques table: per (job, round, clique) its traffic and,
     *  with labels, its algorithm */
    void WriteCliquesCsv(std::ostream& out) const;
    /** @param out where to write the tree table: per directed link and class its aggregates */
    void WriteTreeCsv(std::ostream& out) const;
    /** @param out where to write the routers table: per router its FPGA reduction */
    void WriteRoutersCsv(std::ostream& out) const;
    /** @param out where to write the totals table: per total and link its chunks */
    void WriteTotalsCsv(std::ostream& out) const;

    const PcapTraceReport& m_report; //!< the report written
};

} // namespace ns3

#endif /* PCAP_REPORT_WRITER_H */
