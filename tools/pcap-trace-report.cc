/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "pcap-trace-report.h"

#include "plot-renderer.h"
#include "sync-pcap-reader.h"
#include "wan-input-error.h"

#include "ns3/abort.h"
#include "ns3/log.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <unistd.h>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("WanTrainingPcapTraceReport");

namespace
{

/**
 * @param address an IPv4 address in host order
 * @return its dotted-quad text
 */
std::string
AddressToString(uint32_t address)
{
    std::ostringstream os;
    os << (address >> 24) << "." << ((address >> 16) & 0xff) << "." << ((address >> 8) & 0xff)
       << "." << (address & 0xff);
    return os.str();
}

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
 * @param counters the counters to add to
 * @param wireBytes wire bytes of one packet
 * @param modelBytes model bytes of one packet
 */
void
Add(PcapTraceReport::Counters& counters, uint64_t wireBytes, uint64_t modelBytes)
{
    ++counters.packets;
    counters.bytes += wireBytes;
    counters.modelBytes += modelBytes;
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
 * @param counts occurrences of values
 * @return the most frequent value (the smallest on a tie)
 */
template <typename T>
T
MostFrequent(const std::map<T, uint64_t>& counts)
{
    auto best = counts.begin();
    for (auto it = counts.begin(); it != counts.end(); ++it)
    {
        if (it->second > best->second)
        {
            best = it;
        }
    }
    return best->first;
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

} // namespace

void
PcapTraceReport::Span::Include(uint64_t timeNs)
{
    firstNs = std::min(firstNs, timeNs);
    lastNs = std::max(lastNs, timeNs);
}

PcapTraceReport::PcapTraceReport(uint16_t port)
    : m_decoder(port)
{
    NS_LOG_FUNCTION(this << port);
}

const std::map<std::string, PcapTraceReport::LinkStats>&
PcapTraceReport::GetLinks() const
{
    return m_links;
}

const std::map<uint32_t, PcapTraceReport::RoundStats>&
PcapTraceReport::GetRounds() const
{
    return m_rounds;
}

const std::map<std::string, PcapTraceReport::IslandStats>&
PcapTraceReport::GetIslands() const
{
    return m_islands;
}

const std::map<std::string, PcapTraceReport::AggregationStats>&
PcapTraceReport::GetAggregation() const
{
    return m_aggregation;
}

const std::map<PcapTraceReport::StreamKey, PcapTraceReport::ReplicationStats>&
PcapTraceReport::GetReplication() const
{
    return m_replication;
}

const std::map<std::string, uint64_t>&
PcapTraceReport::GetAttribution() const
{
    return m_attribution;
}

const std::vector<std::string>&
PcapTraceReport::GetWarnings() const
{
    return m_warnings;
}

void
PcapTraceReport::MapFiles(const std::string& directory, const std::set<std::string>& files)
{
    namespace fs = std::filesystem;
    for (const std::string& file : files)
    {
        const std::string path = (fs::path(directory) / file).string();
        const std::string stem = file.substr(0, file.size() - std::string(".pcap").size());
        size_t dash = stem.find('-');
        if (dash == std::string::npos || dash == 0 || dash + 1 == stem.size() ||
            stem.find('-', dash + 1) != std::string::npos)
        {
            throw WanInputError(path,
                                "file name",
                                "not the capture of a directed link: expected A-B.pcap (link "
                                "A->B), A-up.pcap (A:up) or A-down.pcap (A:down)");
        }
        const std::string a = stem.substr(0, dash);
        const std::string b = stem.substr(dash + 1);
        if (a == b)
        {
            throw WanInputError(path, "file name", "a link from a city to itself");
        }
        const bool accessName = b == "up" || b == "down";
        const std::string accessPeer = a + (b == "up" ? "-down.pcap" : "-up.pcap");
        const std::string wanPeer = b + "-" + a + ".pcap";
        const bool accessOk = accessName && files.count(accessPeer) != 0;
        const bool wanOk = files.count(wanPeer) != 0;
        if (accessOk && wanOk)
        {
            throw WanInputError(path,
                                "file name",
                                "ambiguous: both " + accessPeer + " (access link " + a + ":" + b +
                                    ") and " + wanPeer + " (WAN link " + a + "->" + b + ") exist");
        }
        LinkStats link;
        link.file = file;
        if (accessOk || (accessName && !wanOk))
        {
            link.access = true;
            link.city = a;
            link.up = b == "up";
            link.peerFile = accessPeer;
            m_links.emplace(a + ":" + b, link);
        }
        else
        {
            link.from = a;
            link.to = b;
            link.peerFile = wanPeer;
            m_links.emplace(a + "->" + b, link);
        }
    }
}

std::vector<PcapTraceReport::Record>
PcapTraceReport::ReadCapture(const std::string& path, LinkStats& link) const
{
    SyncPcapReader reader(path);
    link.snapLen = reader.GetSnapLen();
    link.resolutionNs = reader.GetResolutionNs();
    std::vector<Record> records;
    SyncPcapReader::Record raw;
    while (reader.Next(raw))
    {
        DecodedSyncPacket d = m_decoder.Decode(raw.data, raw.capturedBytes, raw.wireBytes);
        Record r;
        r.timeNs = raw.timeNs;
        r.wireBytes = raw.wireBytes;
        if (d.hasIpv4Addresses)
        {
            r.flow.ipv4 = true;
            r.flow.source = d.source;
            r.flow.destination = d.destination;
            r.multicast = d.IsMulticast();
            r.ttl = d.ttl;
        }
        else
        {
            // Non-IPv4 traffic is one flow per PPP protocol (0x10000: not even that captured).
            r.flow.source = d.hasPpp ? d.pppProtocol : 0x10000;
            r.unaddressed = !d.hasPpp || d.pppProtocol == SyncPacketDecoder::PPP_IPV4;
        }
        r.sync = d.sync;
        if (d.IsSync())
        {
            r.type = d.header.type;
            r.jobId = d.header.jobId;
            r.sender = d.header.sender;
            r.cliqueId = d.header.cliqueId;
            r.round = d.header.round;
            r.chunkIndex = d.header.chunkIndex;
            r.chunkCount = d.header.chunkCount;
            r.modelBytes = d.modelBytes;
        }
        records.push_back(r);
    }
    link.records = reader.GetRecordsRead();
    return records;
}

void
PcapTraceReport::CountTransmission(const std::string& linkName, const Record& r, bool ambiguous)
{
    LinkStats& link = m_links.at(linkName);
    const bool valid = r.sync == DecodedSyncPacket::VALID;
    const bool chunk = valid && (r.type == SyncPacketDecoder::TYPE_DATA ||
                                 r.type == SyncPacketDecoder::TYPE_AGGREGATE);
    Add(link.total, r.wireBytes, r.modelBytes);
    if (ambiguous)
    {
        ++link.ambiguous;
    }
    if (r.unaddressed)
    {
        ++link.unaddressed;
    }
    if (valid)
    {
        Add(link.rounds[r.round], r.wireBytes, r.modelBytes);
        Add(link.kinds[r.type], r.wireBytes, r.modelBytes);
        RoundStats& round = m_rounds[r.round];
        Add(round.total, r.wireBytes, r.modelBytes);
        round.span.Include(r.timeNs);
    }
    else
    {
        Add(link.other, r.wireBytes, 0);
        link.truncatedSync += r.sync == DecodedSyncPacket::TRUNCATED ? 1 : 0;
        link.invalidSync += r.sync == DecodedSyncPacket::INVALID ? 1 : 0;
    }

    if (link.access)
    {
        IslandStats& island = m_islands[link.city];
        Add(link.up ? island.egress : island.ingress, r.wireBytes, r.modelBytes);
        if (valid)
        {
            IslandRound& round = island.rounds[r.round];
            Add(link.up ? round.egress : round.ingress, r.wireBytes, r.modelBytes);
            round.span.Include(r.timeNs);
        }
        auto& evidence = m_islandEvidence[link.city];
        if (link.up && valid && r.type != SyncPacketDecoder::TYPE_AGGREGATE)
        {
            ++evidence.first[r.sender];
        }
        if (link.up && r.flow.ipv4)
        {
            ++evidence.second[r.flow.source];
        }
        if (!link.up && chunk)
        {
            AggregationStats& aggregation = m_aggregation[link.city];
            ++aggregation.packetsOut;
            if (r.type == SyncPacketDecoder::TYPE_AGGREGATE)
            {
                // An FPGA's or a ring member's: told apart once the island's index is known.
                ++m_downAggregates[link.city][r.sender];
            }
            else
            {
                ++aggregation.dataOut;
            }
        }
    }

    if (valid && r.type == SyncPacketDecoder::TYPE_DATA)
    {
        m_cliqueSenders[{r.jobId, r.round, r.cliqueId}] |= uint64_t{1} << r.sender;
        StreamKey stream{r.jobId, r.round, r.cliqueId, r.sender};
        auto index = m_linkIndex.find(linkName);
        if (index == m_linkIndex.end())
        {
            index = m_linkIndex.emplace(linkName, static_cast<uint32_t>(m_linkNames.size())).first;
            m_linkNames.push_back(linkName);
        }
        ++m_chunkCopies[{stream, r.chunkIndex}][index->second];
        ReplicationStats& replication = m_replication[stream];
        replication.chunkCount = std::max(replication.chunkCount, r.chunkCount);
    }
}

void
PcapTraceReport::CountArrival(const std::string& city, const Record& r)
{
    if (r.sync == DecodedSyncPacket::VALID && r.type == SyncPacketDecoder::TYPE_DATA)
    {
        ++m_arrivals
            [{city, r.flow.destination, r.multicast, r.jobId, r.round, r.cliqueId, r.sender}];
    }
}

void
PcapTraceReport::Analyze(const std::string& directory)
{
    namespace fs = std::filesystem;
    NS_ABORT_MSG_IF(m_analyzed, "PcapTraceReport: Analyze() called twice");
    m_analyzed = true;
    m_directory = directory;

    std::error_code error;
    if (!fs::exists(directory, error))
    {
        throw WanInputError(directory, "directory", "no such directory");
    }
    if (!fs::is_directory(directory, error))
    {
        throw WanInputError(directory, "directory", "not a directory");
    }
    std::set<std::string> files;
    for (const auto& entry : fs::directory_iterator(directory, error))
    {
        const std::string name = entry.path().filename().string();
        const std::string ext = ".pcap";
        if (name.size() > ext.size() &&
            name.compare(name.size() - ext.size(), ext.size(), ext) == 0)
        {
            files.insert(name);
        }
    }
    if (error)
    {
        throw WanInputError(directory, "directory", "cannot list: " + error.message());
    }
    if (files.empty())
    {
        throw WanInputError(directory,
                            "directory",
                            "no .pcap captures (expected one per device, as written by "
                            "wan-training-simulate --pcap=DIR)");
    }
    MapFiles(directory, files);

    std::map<std::string, std::string> linkOfFile;
    for (const auto& [name, link] : m_links)
    {
        linkOfFile[link.file] = name;
    }
    // Access channels first: the islands' addresses they reveal anchor the WAN channels.
    std::set<std::string> done;
    for (int pass = 0; pass < 2; ++pass)
    {
        for (auto& [name, link] : m_links)
        {
            if (done.count(name) || link.access != (pass == 0))
            {
                continue;
            }
            const std::string path = (fs::path(directory) / link.file).string();
            std::vector<Record> records[2];
            records[0] = ReadCapture(path, link);
            auto peer = linkOfFile.find(link.peerFile);
            if (peer == linkOfFile.end() || m_links.at(peer->second).peerFile != link.file)
            {
                throw WanInputError(path,
                                    "file name",
                                    "the capture of the other device of its channel, " +
                                        link.peerFile +
                                        ", is missing: both are needed to tell what each device "
                                        "transmitted");
            }
            const std::string& peerName = peer->second;
            LinkStats& peerLink = m_links.at(peerName);
            records[1] = ReadCapture((fs::path(directory) / peerLink.file).string(), peerLink);
            done.insert(name);
            done.insert(peerName);

            PcapDirectionResolver resolver;
            if (link.access)
            {
                resolver.SetHostCapture(link.up ? 0 : 1);
            }
            else
            {
                // What island A sends crosses a channel of router A away from A.
                const std::string* ends[2] = {&link.from, &link.to};
                for (uint32_t c = 0; c < 2; ++c)
                {
                    auto evidence = m_islandEvidence.find(*ends[c]);
                    if (evidence != m_islandEvidence.end() && !evidence->second.second.empty())
                    {
                        resolver.AddAnchor(MostFrequent(evidence->second.second), c);
                    }
                }
            }
            for (uint32_t c = 0; c < 2; ++c)
            {
                for (const Record& r : records[c])
                {
                    resolver.Add(c, r.timeNs, r.flow, r.ttl);
                }
            }
            resolver.Resolve();
            const std::string* names[2] = {&name, &peerName};
            for (uint32_t c = 0; c < 2; ++c)
            {
                for (const Record& r : records[c])
                {
                    if (resolver.GetTransmitter(r.flow) == c)
                    {
                        CountTransmission(*names[c],
                                          r,
                                          r.unaddressed || resolver.GetMethod(r.flow) ==
                                                               PcapDirectionResolver::AMBIGUOUS);
                    }
                    else if (!link.access)
                    {
                        // Received by a router's WAN device: it arrived at that router.
                        CountArrival(m_links.at(*names[c]).from, r);
                    }
                }
            }
            for (uint32_t m = 0; m < PcapDirectionResolver::N_METHODS; ++m)
            {
                auto method = static_cast<PcapDirectionResolver::Method>(m);
                m_attribution[PcapDirectionResolver::MethodToString(method)] +=
                    resolver.GetRecords(method);
            }
            if (link.resolutionNs != peerLink.resolutionNs)
            {
                m_warnings.push_back(link.file + " and " + peerLink.file +
                                     " have different timestamp resolutions");
            }
        }
    }
    Finish();
}

void
PcapTraceReport::Finish()
{
    // Every access city has an island and an aggregation entry, even without traffic.
    for (const auto& [name, link] : m_links)
    {
        if (link.access)
        {
            m_islands[link.city];
            m_aggregation[link.city];
        }
    }

    // Islands: the sender field and the source address of what each island transmits.
    for (auto& [city, island] : m_islands)
    {
        const auto& evidence = m_islandEvidence[city];
        if (!evidence.first.empty())
        {
            island.index = MostFrequent(evidence.first);
            if (evidence.first.size() > 1)
            {
                m_warnings.push_back(
                    city + ":up carries sync messages of " + std::to_string(evidence.first.size()) +
                    " different senders; island index taken as " + std::to_string(island.index));
            }
        }
        if (!evidence.second.empty())
        {
            island.address = MostFrequent(evidence.second);
            island.hasAddress = true;
            if (evidence.second.size() > 1)
            {
                m_warnings.push_back(city + ":up carries packets of " +
                                     std::to_string(evidence.second.size()) +
                                     " different source addresses; island address taken as " +
                                     AddressToString(island.address));
            }
        }
    }

    // AGGREGATEs toward an island: its FPGA stamps the island's own index as the sender; any
    // other sender is a peer island (the ring baseline's partial sums).
    for (const auto& [city, bySender] : m_downAggregates)
    {
        const int64_t index = m_islands[city].index;
        for (const auto& [sender, packets] : bySender)
        {
            AggregationStats& aggregation = m_aggregation[city];
            (sender == index ? aggregation.aggregatesOut : aggregation.islandAggregatesOut) +=
                packets;
        }
    }

    // Aggregation: DATA arriving at a router over WAN links for its own island.
    for (const auto& [key, packets] : m_arrivals)
    {
        const auto& [city, destination, multicast, jobId, round, cliqueId, sender] = key;
        auto it = m_islands.find(city);
        if (it == m_islands.end())
        {
            continue;
        }
        const IslandStats& island = it->second;
        bool forIsland = false;
        if (!multicast)
        {
            forIsland = island.hasAddress && destination == island.address;
        }
        else if (island.index >= 0 && sender != island.index)
        {
            uint64_t senders = m_cliqueSenders[{jobId, round, cliqueId}];
            forIsland = ((senders >> island.index) & 1) != 0;
        }
        if (forIsland)
        {
            m_aggregation[city].packetsIn += packets;
        }
    }

    // Replication: per chunk, the links it appeared on and its copies.
    for (const auto& [chunk, copiesPerLink] : m_chunkCopies)
    {
        ReplicationStats& stats = m_replication[chunk.first];
        uint32_t links = static_cast<uint32_t>(copiesPerLink.size());
        uint64_t copies = 0;
        for (const auto& [link, count] : copiesPerLink)
        {
            copies += count;
            auto& perLink = stats.links[m_linkNames[link]];
            ++perLink.first;
            perLink.second += count;
        }
        if (stats.chunks == 0)
        {
            stats.minLinksPerChunk = stats.maxLinksPerChunk = links;
            stats.minCopiesPerChunk = stats.maxCopiesPerChunk = copies;
        }
        stats.minLinksPerChunk = std::min(stats.minLinksPerChunk, links);
        stats.maxLinksPerChunk = std::max(stats.maxLinksPerChunk, links);
        stats.minCopiesPerChunk = std::min(stats.minCopiesPerChunk, copies);
        stats.maxCopiesPerChunk = std::max(stats.maxCopiesPerChunk, copies);
        ++stats.chunks;
    }
    m_chunkCopies.clear();

    // Warnings about the capture itself.
    uint64_t ambiguous = 0;
    for (const auto& [name, link] : m_links)
    {
        ambiguous += link.ambiguous;
        if (link.truncatedSync > 0)
        {
            m_warnings.push_back(link.file + ": " + std::to_string(link.truncatedSync) +
                                 " transmissions to the sync port captured without their whole "
                                 "40-byte header (capture at least 70 bytes per frame): counted "
                                 "as other traffic, model bytes unknown");
        }
        if (link.unaddressed > 0)
        {
            m_warnings.push_back(link.file + ": " + std::to_string(link.unaddressed) +
                                 " records captured without their IPv4 addresses (fewer than 22 "
                                 "bytes): their direction is a guess, counted as ambiguous");
        }
        if (link.invalidSync > 0)
        {
            m_warnings.push_back(link.file + ": " + std::to_string(link.invalidSync) +
                                 " packets to the sync port with an invalid header");
        }
    }
    if (ambiguous > 0)
    {
        m_warnings.push_back(std::to_string(ambiguous) +
                             " transmissions could not be told from receptions (timestamps tie "
                             "at the capture's resolution, or no IPv4 addresses captured) and "
                             "were attributed by the fallback rule; capture at least 70 bytes "
                             "per frame with nanosecond timestamps to avoid it");
    }
}

std::string
PcapTraceReport::ToJson() const
{
    using nlohmann::json;
    std::map<int64_t, std::string> cityOfIndex;
    for (const auto& [city, island] : m_islands)
    {
        if (island.index >= 0)
        {
            cityOfIndex[island.index] = city;
        }
    }

    json links = json::object();
    uint64_t ambiguous = 0;
    std::map<uint8_t, Counters> kinds;
    for (const auto& [name, link] : m_links)
    {
        json linkKinds = json::object();
        for (const auto& [type, counters] : link.kinds)
        {
            linkKinds[SyncPacketDecoder::TypeToString(type)] = CountersToJson(counters);
            Counters& sum = kinds[type];
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
    for (const auto& [round, stats] : m_rounds)
    {
        json entry = CountersToJson(stats.total);
        entry["round"] = round;
        entry["first_s"] = SecondsOrNull(stats.span.firstNs);
        entry["last_s"] = SecondsOrNull(stats.span.lastNs);
        rounds.push_back(entry);
    }

    json islands = json::object();
    for (const auto& [city, island] : m_islands)
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
        islands[city] = {
            {"index", island.index >= 0 ? json(island.index) : json(nullptr)},
            {"address", island.hasAddress ? json(AddressToString(island.address)) : json(nullptr)},
            {"egress", CountersToJson(island.egress)},
            {"ingress", CountersToJson(island.ingress)},
            {"rounds", perRound}};
    }

    json aggregation = json::object();
    for (const auto& [city, stats] : m_aggregation)
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

    json replication = json::array();
    for (const auto& [key, stats] : m_replication)
    {
        const auto& [jobId, round, cliqueId, sender] = key;
        json perLink = json::object();
        for (const auto& [name, counts] : stats.links)
        {
            perLink[name] = {{"chunks", counts.first}, {"copies", counts.second}};
        }
        auto city = cityOfIndex.find(sender);
        replication.push_back(
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

    json messages = json::object();
    for (const auto& [type, counters] : kinds)
    {
        messages[SyncPacketDecoder::TypeToString(type)] = CountersToJson(counters);
    }

    json doc = {{"directory", m_directory},
                {"port", m_decoder.GetPort()},
                {"links", links},
                {"messages", messages},
                {"rounds", rounds},
                {"islands", islands},
                {"aggregation", aggregation},
                {"replication", replication},
                {"attribution", m_attribution},
                {"ambiguous_packets", ambiguous},
                {"warnings", m_warnings}};
    return doc.dump(2);
}

void
PcapTraceReport::WriteJson(const std::string& path) const
{
    std::ofstream out = OpenOutput(path, "--json");
    out << ToJson() << "\n";
    if (!out)
    {
        throw WanInputError(path, "--json", "cannot write");
    }
}

std::vector<std::string>
PcapTraceReport::WriteCsv(const std::string& path) const
{
    std::vector<std::string> written;
    {
        std::ofstream out = OpenOutput(path, "--csv");
        out << "link,round,packets,bytes,model_bytes\n";
        for (const auto& [name, link] : m_links)
        {
            for (const auto& [round, c] : link.rounds)
            {
                out << name << "," << round << "," << c.packets << "," << c.bytes << ","
                    << c.modelBytes << "\n";
            }
            const Counters& o = link.other;
            out << name << ",other," << o.packets << "," << o.bytes << "," << o.modelBytes << "\n";
            const Counters& t = link.total;
            out << name << ",total," << t.packets << "," << t.bytes << "," << t.modelBytes << "\n";
        }
        if (!out)
        {
            throw WanInputError(path, "--csv", "cannot write");
        }
        written.push_back(path);
    }
    {
        const std::string file = SiblingCsv(path, "-islands");
        std::ofstream out = OpenOutput(file, "--csv");
        out << "island,index,address,round,egress_packets,egress_bytes,egress_model_bytes,"
               "ingress_packets,ingress_bytes,ingress_model_bytes,first_s,last_s\n";
        for (const auto& [city, island] : m_islands)
        {
            std::string head = city + "," +
                               (island.index >= 0 ? std::to_string(island.index) : "") + "," +
                               (island.hasAddress ? AddressToString(island.address) : "");
            for (const auto& [round, r] : island.rounds)
            {
                out << head << "," << round << "," << r.egress.packets << "," << r.egress.bytes
                    << "," << r.egress.modelBytes << "," << r.ingress.packets << ","
                    << r.ingress.bytes << "," << r.ingress.modelBytes << ","
                    << SecondsCsv(r.span.firstNs) << "," << SecondsCsv(r.span.lastNs) << "\n";
            }
            out << head << ",total," << island.egress.packets << "," << island.egress.bytes << ","
                << island.egress.modelBytes << "," << island.ingress.packets << ","
                << island.ingress.bytes << "," << island.ingress.modelBytes << ",,\n";
        }
        if (!out)
        {
            throw WanInputError(file, "--csv", "cannot write");
        }
        written.push_back(file);
    }
    {
        const std::string file = SiblingCsv(path, "-aggregation");
        std::ofstream out = OpenOutput(file, "--csv");
        out << "island,packets_in,packets_out,aggregates_out,island_aggregates_out,data_out,"
               "reduction_ratio\n";
        for (const auto& [city, a] : m_aggregation)
        {
            out << city << "," << a.packetsIn << "," << a.packetsOut << "," << a.aggregatesOut
                << "," << a.islandAggregatesOut << "," << a.dataOut << ",";
            if (a.packetsOut > 0)
            {
                out << static_cast<double>(a.packetsIn) / a.packetsOut;
            }
            out << "\n";
        }
        if (!out)
        {
            throw WanInputError(file, "--csv", "cannot write");
        }
        written.push_back(file);
    }
    {
        const std::string file = SiblingCsv(path, "-replication");
        std::ofstream out = OpenOutput(file, "--csv");
        std::map<int64_t, std::string> cityOfIndex;
        for (const auto& [city, island] : m_islands)
        {
            if (island.index >= 0)
            {
                cityOfIndex[island.index] = city;
            }
        }
        out << "job,round,clique,source,source_island,stream_chunks,link,link_chunks,copies\n";
        for (const auto& [key, stats] : m_replication)
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
        if (!out)
        {
            throw WanInputError(file, "--csv", "cannot write");
        }
        written.push_back(file);
    }
    return written;
}

std::string
PcapTraceReport::WritePlot(const std::string& path) const
{
    namespace fs = std::filesystem;
    if (!PlotRenderer::IsAvailable())
    {
        return "gnuplot is not installed (Debian package gnuplot-nox): no plot written";
    }
    std::set<uint32_t> roundSet;
    for (const auto& [name, link] : m_links)
    {
        for (const auto& [round, counters] : link.rounds)
        {
            roundSet.insert(round);
        }
    }
    if (roundSet.empty() || m_links.empty())
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
        for (const auto& [name, link] : m_links)
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
        const size_t rows = m_links.size();
        out << "set terminal pngcairo noenhanced size "
            << std::max<size_t>(640, 200 + 40 * rounds.size()) << ","
            << std::max<size_t>(360, 120 + 16 * rows) << " font ',9'\n";
        out << "set output " << GnuplotQuote(path) << "\n";
        out << "set title " << GnuplotQuote("Bytes per directed link per round: " + m_directory)
            << "\n";
        out << "set xlabel 'round'\nset cblabel 'MB transmitted'\nunset key\n";
        out << "set xrange [-0.5:" << rounds.size() - 0.5 << "]\n";
        out << "set yrange [" << rows - 0.5 << ":-0.5]\n";
        out << "set cbrange [0:*]\n";
        out << "set palette defined (0 'white', 1 '#fdd49e', 2 '#fc8d59', 3 '#b30000')\n";
        out << "set ytics (";
        size_t row = 0;
        for (const auto& [name, link] : m_links)
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
