/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "pcap-report-writer.h"

#include "plot-renderer.h"
#include "wan-input-error.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <unistd.h>
#include <utility>

namespace ns3
{

namespace
{

/**
 * @param counters packets and bytes
 * @return them as a JSON object
 */
nlohmann::json
CountersToJson(const PcapTraceReport::Counters& counters)
{
    return {{"packets", counters.packets},
            {"bytes", counters.bytes},
            {"model_bytes", counters.modelBytes}};
}

/**
 * @param timeNs a time in ns, or UINT64_MAX for never
 * @return seconds, or null
 */
nlohmann::json
SecondsOrNull(uint64_t timeNs)
{
    return timeNs == UINT64_MAX ? nlohmann::json(nullptr)
                                : nlohmann::json(static_cast<double>(timeNs) / 1e9);
}

/**
 * @param timeNs a time in ns, or UINT64_MAX for never
 * @return seconds as CSV text (empty for never)
 */
std::string
SecondsCsv(uint64_t timeNs)
{
    if (timeNs == UINT64_MAX)
    {
        return "";
    }
    std::ostringstream os;
    os.precision(12);
    os << static_cast<double>(timeNs) / 1e9;
    return os.str();
}

/**
 * @param text a string for a gnuplot single-quoted string
 * @return it with every quote doubled
 */
std::string
GnuplotQuote(const std::string& text)
{
    std::string quoted = "'";
    for (char c : text)
    {
        quoted += c;
        if (c == '\'')
        {
            quoted += '\'';
        }
    }
    return quoted + "'";
}

/**
 * @param path a CSV file name
 * @param suffix a suffix such as "-islands"
 * @return the name of the sibling table (`out.csv` -> `out-islands.csv`)
 */
std::string
SiblingCsv(const std::string& path, const std::string& suffix)
{
    const std::string ext = ".csv";
    if (path.size() > ext.size() && path.compare(path.size() - ext.size(), ext.size(), ext) == 0)
    {
        return path.substr(0, path.size() - ext.size()) + suffix + ext;
    }
    return path + suffix + ext;
}

/**
 * @param path a file to write
 * @param option the option that named it, for the message
 * @return the open stream
 * @throws WanInputError when it cannot be opened
 */
std::ofstream
OpenOutput(const std::string& path, const std::string& option)
{
    std::ofstream out(path);
    if (!out)
    {
        throw WanInputError(path, option, "cannot open for writing");
    }
    return out;
}

/**
 * @param out a stream written to the end
 * @param path its file
 * @param option the option that named it, for the message
 * @throws WanInputError when a write failed
 */
void
CheckWritten(const std::ofstream& out, const std::string& path, const std::string& option)
{
    if (!out)
    {
        throw WanInputError(path, option, "cannot write");
    }
}

/**
 * @param report a report
 * @return the city id of each island index it learned
 */
std::map<int64_t, std::string>
CityOfIndex(const PcapTraceReport& report)
{
    std::map<int64_t, std::string> cityOfIndex;
    for (const auto& [city, island] : report.GetIslands())
    {
        if (island.index >= 0)
        {
            cityOfIndex[island.index] = city;
        }
    }
    return cityOfIndex;
}

/**
 * @param counters packets, bytes and contributors
 * @return them as a JSON object
 */
nlohmann::json
TreeCountersToJson(const PcapTreeAnalysis::Counters& counters)
{
    return {{"packets", counters.packets},
            {"bytes", counters.bytes},
            {"model_bytes", counters.modelBytes},
            {"contributors", counters.contributors}};
}

/**
 * @param replication streams and where their chunks appeared
 * @param cityOfIndex the city of each island index
 * @return the streams as a JSON array
 */
nlohmann::json
ReplicationToJson(
    const std::map<PcapTraceReport::StreamKey, PcapTraceReport::ReplicationStats>& replication,
    const std::map<int64_t, std::string>& cityOfIndex)
{
    using nlohmann::json;
    json streams = json::array();
    for (const auto& [key, stats] : replication)
    {
        const auto& [jobId, round, cliqueId, sender] = key;
        json perLink = json::object();
        for (const auto& [name, counts] : stats.links)
        {
            perLink[name] = {{"chunks", counts.first}, {"copies", counts.second}};
        }
        auto city = cityOfIndex.find(sender);
        streams.push_back(
            {{"job", jobId},
             {"round", round},
             {"clique", cliqueId},
             {"source", sender},
             {"source_island", city != cityOfIndex.end() ? json(city->second) : json(nullptr)},
             {"chunks", stats.chunks},
             {"chunk_count", stats.chunkCount},
             {"links", perLink},
             {"links_per_chunk",
              {{"min", stats.minLinksPerChunk}, {"max", stats.maxLinksPerChunk}}},
             {"copies_per_chunk",
              {{"min", stats.minCopiesPerChunk}, {"max", stats.maxCopiesPerChunk}}}});
    }
    return streams;
}

/**
 * @param out where to write
 * @param replication streams and where their chunks appeared
 * @param cityOfIndex the city of each island index
 */
void
WriteReplicationRows(
    std::ostream& out,
    const std::map<PcapTraceReport::StreamKey, PcapTraceReport::ReplicationStats>& replication,
    const std::map<int64_t, std::string>& cityOfIndex)
{
    out << "job,round,clique,source,source_island,stream_chunks,link,link_chunks,copies\n";
    for (const auto& [key, stats] : replication)
    {
        const auto& [jobId, round, cliqueId, sender] = key;
        auto city = cityOfIndex.find(sender);
        for (const auto& [name, counts] : stats.links)
        {
            out << jobId << "," << round << "," << cliqueId << "," << sender << ","
                << (city != cityOfIndex.end() ? city->second : "") << "," << stats.chunks << ","
                << name << "," << counts.first << "," << counts.second << "\n";
        }
    }
}

} // namespace

PcapReportWriter::PcapReportWriter(const PcapTraceReport& report)
    : m_report(report)
{
}

std::string
PcapReportWriter::ToJson() const
{
    using nlohmann::json;
    const std::map<int64_t, std::string> cityOfIndex = CityOfIndex(m_report);

    json links = json::object();
    uint64_t ambiguous = 0;
    std::map<uint8_t, PcapTraceReport::Counters> kinds;
    for (const auto& [name, link] : m_report.GetLinks())
    {
        json linkKinds = json::object();
        for (const auto& [type, counters] : link.kinds)
        {
            linkKinds[SyncPacketDecoder::TypeToString(type)] = CountersToJson(counters);
            PcapTraceReport::Counters& sum = kinds[type];
            sum.packets += counters.packets;
            sum.bytes += counters.bytes;
            sum.modelBytes += counters.modelBytes;
        }
        json rounds = json::array();
        for (const auto& [round, counters] : link.rounds)
        {
            json entry = CountersToJson(counters);
            entry["round"] = round;
            rounds.push_back(entry);
        }
        json entry = CountersToJson(link.total);
        entry["kind"] = link.access ? (link.up ? "access-up" : "access-down") : "wan";
        entry["file"] = link.file;
        entry["peer_file"] = link.peerFile;
        entry["records_in_capture"] = link.records;
        entry["snaplen"] = link.snapLen;
        entry["timestamp_resolution_ns"] = link.resolutionNs;
        entry["ambiguous_packets"] = link.ambiguous;
        entry["truncated_sync_headers"] = link.truncatedSync;
        entry["invalid_sync_headers"] = link.invalidSync;
        entry["unaddressed_records"] = link.unaddressed;
        entry["other"] = CountersToJson(link.other);
        entry["rounds"] = rounds;
        entry["messages"] = linkKinds;
        links[name] = entry;
        ambiguous += link.ambiguous;
    }

    json rounds = json::array();
    for (const auto& [round, stats] : m_report.GetRounds())
    {
        json entry = CountersToJson(stats.total);
        entry["round"] = round;
        entry["first_s"] = SecondsOrNull(stats.span.firstNs);
        entry["last_s"] = SecondsOrNull(stats.span.lastNs);
        rounds.push_back(entry);
    }

    json islands = json::object();
    for (const auto& [city, island] : m_report.GetIslands())
    {
        json perRound = json::array();
        for (const auto& [round, stats] : island.rounds)
        {
            perRound.push_back({{"round", round},
                                {"egress", CountersToJson(stats.egress)},
                                {"ingress", CountersToJson(stats.ingress)},
                                {"first_s", SecondsOrNull(stats.span.firstNs)},
                                {"last_s", SecondsOrNull(stats.span.lastNs)}});
        }
        islands[city] = {{"index", island.index >= 0 ? json(island.index) : json(nullptr)},
                         {"address",
                          island.hasAddress ? json(PcapTraceReport::AddressToString(island.address))
                                            : json(nullptr)},
                         {"egress", CountersToJson(island.egress)},
                         {"ingress", CountersToJson(island.ingress)},
                         {"rounds", perRound}};
    }

    json aggregation = json::object();
    for (const auto& [city, stats] : m_report.GetAggregation())
    {
        aggregation[city] = {{"packets_in", stats.packetsIn},
                             {"packets_out", stats.packetsOut},
                             {"aggregates_out", stats.aggregatesOut},
                             {"island_aggregates_out", stats.islandAggregatesOut},
                             {"data_out", stats.dataOut},
                             {"reduction_ratio",
                              stats.packetsOut > 0
                                  ? json(static_cast<double>(stats.packetsIn) / stats.packetsOut)
                                  : json(nullptr)}};
    }

    json replication = ReplicationToJson(m_report.GetReplication(), cityOfIndex);

    const PcapTreeAnalysis& tree = m_report.GetTree();
    json treeLinks = json::object();
    for (const auto& [name, classes] : tree.GetLinks())
    {
        json entry = json::object();
        for (uint32_t c = 0; c < PcapTreeAnalysis::N_CLASSES; ++c)
        {
            entry[PcapTreeAnalysis::ClassToString(
                static_cast<PcapTreeAnalysis::AggregateClass>(c))] = TreeCountersToJson(classes[c]);
        }
        treeLinks[name] = entry;
    }
    json routers = json::object();
    for (const auto& [city, stats] : tree.GetRouters())
    {
        const uint64_t out = stats.aggregatesOut.packets + stats.passedOut.packets;
        routers[city] = {{"in", TreeCountersToJson(stats.in)},
                         {"aggregates_out", TreeCountersToJson(stats.aggregatesOut)},
                         {"passed_out", TreeCountersToJson(stats.passedOut)},
                         {"reduction_ratio", out > 0 ? json(stats.GetReduction()) : json(nullptr)}};
    }
    json routerAddresses = json::object();
    for (const auto& [address, city] : tree.GetRouterAddresses())
    {
        routerAddresses[PcapTraceReport::AddressToString(address)] = city;
    }
    json treeSection = {{"has_tree_traffic", tree.HasTreeTraffic()},
                        {"aggregates", treeLinks},
                        {"routers", routers},
                        {"router_addresses", routerAddresses},
                        {"totals", ReplicationToJson(m_report.GetTotalReplication(), cityOfIndex)}};

    json cliques = json::array();
    for (const auto& [key, stats] : m_report.GetCliques())
    {
        const auto& [jobId, round, clique] = key;
        json entry = CountersToJson(stats.total);
        json byType = json::object();
        for (const auto& [type, counters] : stats.kinds)
        {
            byType[SyncPacketDecoder::TypeToString(type)] = CountersToJson(counters);
        }
        json senders = json::array();
        for (uint32_t i = 0; i < 64; ++i)
        {
            if (stats.senders & (uint64_t{1} << i))
            {
                auto city = cityOfIndex.find(i);
                senders.push_back(city != cityOfIndex.end() ? json(city->second) : json(i));
            }
        }
        const PcapTraceReport::CliqueLabel* label = m_report.GetCliqueLabel(round, clique);
        entry["job"] = jobId;
        entry["round"] = round;
        entry["clique"] = clique;
        entry["members"] = label ? json(label->members) : json(nullptr);
        entry["algorithm"] =
            label && !label->algorithm.empty() ? json(label->algorithm) : json(nullptr);
        entry["senders"] = senders;
        entry["multicast_packets"] = stats.multicast;
        entry["links"] = stats.links.size();
        entry["first_s"] = SecondsOrNull(stats.span.firstNs);
        entry["last_s"] = SecondsOrNull(stats.span.lastNs);
        entry["messages"] = byType;
        cliques.push_back(entry);
    }

    json messages = json::object();
    for (const auto& [type, counters] : kinds)
    {
        messages[SyncPacketDecoder::TypeToString(type)] = CountersToJson(counters);
    }

    json doc = {{"directory", m_report.GetDirectory()},
                {"port", m_report.GetPort()},
                {"wire_mtu_bytes", m_report.GetWireMtu()},
                {"frame_bytes", m_report.GetFrameBytes()},
                {"links", links},
                {"messages", messages},
                {"rounds", rounds},
                {"cliques", cliques},
                {"islands", islands},
                {"aggregation", aggregation},
                {"replication", replication},
                {"tree", treeSection},
                {"attribution", m_report.GetAttribution()},
                {"ambiguous_packets", ambiguous},
                {"warnings", m_report.GetWarnings()}};
    return doc.dump(2);
}

void
PcapReportWriter::WriteJson(const std::string& path) const
{
    std::ofstream out = OpenOutput(path, "--json");
    out << ToJson() << "\n";
    CheckWritten(out, path, "--json");
}

std::vector<std::string>
PcapReportWriter::WriteCsv(const std::string& path) const
{
    using Table = void (PcapReportWriter::*)(std::ostream&) const;
    std::vector<std::pair<std::string, Table>> tables{
        {path, &PcapReportWriter::WriteLinksCsv},
        {SiblingCsv(path, "-islands"), &PcapReportWriter::WriteIslandsCsv},
        {SiblingCsv(path, "-aggregation"), &PcapReportWriter::WriteAggregationCsv},
        {SiblingCsv(path, "-replication"), &PcapReportWriter::WriteReplicationCsv},
        {SiblingCsv(path, "-cliques"), &PcapReportWriter::WriteCliquesCsv}};
    if (m_report.GetTree().HasTreeTraffic())
    {
        tables.emplace_back(SiblingCsv(path, "-tree"), &PcapReportWriter::WriteTreeCsv);
        tables.emplace_back(SiblingCsv(path, "-routers"), &PcapReportWriter::WriteRoutersCsv);
        tables.emplace_back(SiblingCsv(path, "-totals"), &PcapReportWriter::WriteTotalsCsv);
    }
    std::vector<std::string> written;
    for (const auto& [file, table] : tables)
    {
        std::ofstream out = OpenOutput(file, "--csv");
        (this->*table)(out);
        CheckWritten(out, file, "--csv");
        written.push_back(file);
    }
    return written;
}

void
PcapReportWriter::WriteCliquesCsv(std::ostream& out) const
{
    out << "job,round,clique,algorithm,packets,bytes,model_bytes,multicast_packets,links,first_s,"
           "last_s\n";
    for (const auto& [key, stats] : m_report.GetCliques())
    {
        const auto& [jobId, round, clique] = key;
        const PcapTraceReport::CliqueLabel* label = m_report.GetCliqueLabel(round, clique);
        out << jobId << "," << round << "," << clique << "," << (label ? label->algorithm : "")
            << "," << stats.total.packets << "," << stats.total.bytes << ","
            << stats.total.modelBytes << "," << stats.multicast << "," << stats.links.size() << ","
            << SecondsCsv(stats.span.firstNs) << "," << SecondsCsv(stats.span.lastNs) << "\n";
    }
}

void
PcapReportWriter::WriteLinksCsv(std::ostream& out) const
{
    out << "link,round,packets,bytes,model_bytes\n";
    for (const auto& [name, link] : m_report.GetLinks())
    {
        for (const auto& [round, c] : link.rounds)
        {
            out << name << "," << round << "," << c.packets << "," << c.bytes << "," << c.modelBytes
                << "\n";
        }
        const PcapTraceReport::Counters& o = link.other;
        out << name << ",other," << o.packets << "," << o.bytes << "," << o.modelBytes << "\n";
        const PcapTraceReport::Counters& t = link.total;
        out << name << ",total," << t.packets << "," << t.bytes << "," << t.modelBytes << "\n";
    }
}

void
PcapReportWriter::WriteIslandsCsv(std::ostream& out) const
{
    out << "island,index,address,round,egress_packets,egress_bytes,egress_model_bytes,"
           "ingress_packets,ingress_bytes,ingress_model_bytes,first_s,last_s\n";
    for (const auto& [city, island] : m_report.GetIslands())
    {
        std::string head =
            city + "," + (island.index >= 0 ? std::to_string(island.index) : "") + "," +
            (island.hasAddress ? PcapTraceReport::AddressToString(island.address) : "");
        for (const auto& [round, r] : island.rounds)
        {
            out << head << "," << round << "," << r.egress.packets << "," << r.egress.bytes << ","
                << r.egress.modelBytes << "," << r.ingress.packets << "," << r.ingress.bytes << ","
                << r.ingress.modelBytes << "," << SecondsCsv(r.span.firstNs) << ","
                << SecondsCsv(r.span.lastNs) << "\n";
        }
        out << head << ",total," << island.egress.packets << "," << island.egress.bytes << ","
            << island.egress.modelBytes << "," << island.ingress.packets << ","
            << island.ingress.bytes << "," << island.ingress.modelBytes << ",,\n";
    }
}

void
PcapReportWriter::WriteAggregationCsv(std::ostream& out) const
{
    out << "island,packets_in,packets_out,aggregates_out,island_aggregates_out,data_out,"
           "reduction_ratio\n";
    for (const auto& [city, a] : m_report.GetAggregation())
    {
        out << city << "," << a.packetsIn << "," << a.packetsOut << "," << a.aggregatesOut << ","
            << a.islandAggregatesOut << "," << a.dataOut << ",";
        if (a.packetsOut > 0)
        {
            out << static_cast<double>(a.packetsIn) / a.packetsOut;
        }
        out << "\n";
    }
}

void
PcapReportWriter::WriteReplicationCsv(std::ostream& out) const
{
    WriteReplicationRows(out, m_report.GetReplication(), CityOfIndex(m_report));
}

void
PcapReportWriter::WriteTreeCsv(std::ostream& out) const
{
    out << "link,class,packets,bytes,model_bytes,contributors\n";
    for (const auto& [name, classes] : m_report.GetTree().GetLinks())
    {
        for (uint32_t c = 0; c < PcapTreeAnalysis::N_CLASSES; ++c)
        {
            const PcapTreeAnalysis::Counters& k = classes[c];
            if (k.packets > 0)
            {
                out << name << ","
                    << PcapTreeAnalysis::ClassToString(
                           static_cast<PcapTreeAnalysis::AggregateClass>(c))
                    << "," << k.packets << "," << k.bytes << "," << k.modelBytes << ","
                    << k.contributors << "\n";
            }
        }
    }
}

void
PcapReportWriter::WriteRoutersCsv(std::ostream& out) const
{
    out << "router,in_packets,in_contributors,aggregates_out,aggregates_out_contributors,"
           "passed_out,passed_out_contributors,reduction_ratio\n";
    for (const auto& [city, r] : m_report.GetTree().GetRouters())
    {
        out << city << "," << r.in.packets << "," << r.in.contributors << ","
            << r.aggregatesOut.packets << "," << r.aggregatesOut.contributors << ","
            << r.passedOut.packets << "," << r.passedOut.contributors << ",";
        if (r.aggregatesOut.packets + r.passedOut.packets > 0)
        {
            out << r.GetReduction();
        }
        out << "\n";
    }
}

void
PcapReportWriter::WriteTotalsCsv(std::ostream& out) const
{
    WriteReplicationRows(out, m_report.GetTotalReplication(), CityOfIndex(m_report));
}

std::string
PcapReportWriter::WritePlot(const std::string& path) const
{
    namespace fs = std::filesystem;
    if (!PlotRenderer::IsAvailable())
    {
        return "gnuplot is not installed (Debian package gnuplot-nox): no plot written";
    }
    std::set<uint32_t> roundSet;
    for (const auto& [name, link] : m_report.GetLinks())
    {
        for (const auto& [round, counters] : link.rounds)
        {
            roundSet.insert(round);
        }
    }
    if (roundSet.empty() || m_report.GetLinks().empty())
    {
        return "no sync traffic in the captures: no plot written";
    }
    std::vector<uint32_t> rounds(roundSet.begin(), roundSet.end());

    // The matrix: one row per link (in name order), one column per round, in MB.
    char dataName[] = "/tmp/pcap-report-XXXXXX";
    int fd = mkstemp(dataName);
    if (fd < 0)
    {
        throw WanInputError(path, "--plot", "cannot create a temporary file for gnuplot");
    }
    close(fd);
    const std::string data = dataName;
    const std::string script = data + ".gp";
    {
        std::ofstream out(data);
        for (const auto& [name, link] : m_report.GetLinks())
        {
            for (size_t c = 0; c < rounds.size(); ++c)
            {
                auto it = link.rounds.find(rounds[c]);
                double mb = it == link.rounds.end() ? 0.0 : it->second.bytes / 1e6;
                out << (c ? " " : "") << mb;
            }
            out << "\n";
        }
    }
    {
        std::ofstream out(script);
        const size_t rows = m_report.GetLinks().size();
        out << "set terminal pngcairo noenhanced size "
            << std::max<size_t>(640, 200 + 40 * rounds.size()) << ","
            << std::max<size_t>(360, 120 + 16 * rows) << " font ',9'\n";
        out << "set output " << GnuplotQuote(path) << "\n";
        out << "set title "
            << GnuplotQuote("Bytes per directed link per round: " + m_report.GetDirectory())
            << "\n";
        out << "set xlabel 'round'\nset cblabel 'MB transmitted'\nunset key\n";
        out << "set xrange [-0.5:" << rounds.size() - 0.5 << "]\n";
        out << "set yrange [" << rows - 0.5 << ":-0.5]\n";
        out << "set cbrange [0:*]\n";
        out << "set palette defined (0 'white', 1 '#fdd49e', 2 '#fc8d59', 3 '#b30000')\n";
        out << "set ytics (";
        size_t row = 0;
        for (const auto& [name, link] : m_report.GetLinks())
        {
            out << (row ? ", " : "") << GnuplotQuote(name) << " " << row;
            ++row;
        }
        out << ")\n";
        const size_t step = std::max<size_t>(1, rounds.size() / 25);
        out << "set xtics (";
        for (size_t c = 0; c < rounds.size(); c += step)
        {
            out << (c ? ", " : "") << "'" << rounds[c] << "' " << c;
        }
        out << ")\n";
        out << "plot " << GnuplotQuote(data) << " matrix with image\n";
    }
    const std::string failure = PlotRenderer::Render(script);
    std::error_code ignored;
    fs::remove(data, ignored);
    fs::remove(script, ignored);
    if (!failure.empty())
    {
        throw WanInputError(path, "--plot", failure);
    }
    return "";
}

} // namespace ns3
