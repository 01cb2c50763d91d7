/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "pcap-trace-report.h"

#include "pcap-report-writer.h"
#include "sync-pcap-reader.h"
#include "wan-input-error.h"

#include "ns3/abort.h"
#include "ns3/log.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("WanTrainingPcapTraceReport");

namespace
{

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

/** Per (stream, chunk): per link index, transmissions. */
using ChunkCopies =
    std::map<std::pair<PcapTraceReport::StreamKey, uint32_t>, std::map<uint32_t, uint32_t>>;

/**
 * @brief Per stream: the links its chunks appeared on, and per chunk its links and copies.
 * @param chunkCopies the transmissions of every chunk per link index
 * @param linkNames link index -> name
 * @param replication the streams to complete
 */
void
SummarizeCopies(
    const ChunkCopies& chunkCopies,
    const std::vector<std::string>& linkNames,
    std::map<PcapTraceReport::StreamKey, PcapTraceReport::ReplicationStats>& replication)
{
    for (const auto& [chunk, copiesPerLink] : chunkCopies)
    {
        PcapTraceReport::ReplicationStats& stats = replication[chunk.first];
        uint32_t links = static_cast<uint32_t>(copiesPerLink.size());
        uint64_t copies = 0;
        for (const auto& [link, count] : copiesPerLink)
        {
            copies += count;
            auto& perLink = stats.links[linkNames[link]];
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

std::string
PcapTraceReport::AddressToString(uint32_t address)
{
    std::ostringstream os;
    os << (address >> 24) << "." << ((address >> 16) & 0xff) << "." << ((address >> 8) & 0xff)
       << "." << (address & 0xff);
    return os.str();
}

void
PcapTraceReport::ReadCaptureInfo(const std::string& directory)
{
    const std::string file =
        (std::filesystem::path(directory) / SyncProtocol::CAPTURE_INFO_FILE).string();
    std::ifstream in(file);
    if (!in)
    {
        return; // exact frames (a capture of an earlier version, or by hand)
    }
    const nlohmann::json doc = nlohmann::json::parse(in, nullptr, false);
    if (!doc.is_object())
    {
        throw WanInputError(file, "$", "not a JSON object");
    }
    auto bytes = [&](const char* key) {
        const auto it = doc.find(key);
        if (it == doc.end() || !it->is_number_unsigned() || it->get<uint64_t>() > 65535)
        {
            throw WanInputError(file,
                                std::string("$.") + key,
                                "must be a whole number of bytes up to 65535");
        }
        return it->get<uint32_t>();
    };
    m_wireMtu = bytes("mtu_bytes");
    m_frameBytes = bytes("frame_bytes");
    if (m_frameBytes > 0)
    {
        m_decoder.SetWireMtu(m_wireMtu);
    }
}

uint32_t
PcapTraceReport::GetWireMtu() const
{
    return m_wireMtu;
}

uint32_t
PcapTraceReport::GetFrameBytes() const
{
    return m_frameBytes;
}

const std::string&
PcapTraceReport::GetDirectory() const
{
    return m_directory;
}

uint16_t
PcapTraceReport::GetPort() const
{
    return m_decoder.GetPort();
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

const std::map<PcapTraceReport::StreamKey, PcapTraceReport::ReplicationStats>&
PcapTraceReport::GetTotalReplication() const
{
    return m_totalReplication;
}

const std::map<PcapTraceReport::CliqueKey, PcapTraceReport::CliqueStats>&
PcapTraceReport::GetCliques() const
{
    return m_cliques;
}

void
PcapTraceReport::SetCliqueLabels(
    const std::vector<std::vector<std::vector<std::string>>>& scheduleRounds,
    const std::vector<std::vector<std::string>>& algorithms,
    const std::string& mode)
{
    m_labels.clear();
    for (std::size_t r = 0; r < scheduleRounds.size(); ++r)
    {
        m_labels.emplace_back();
        for (std::size_t c = 0; c < scheduleRounds[r].size(); ++c)
        {
            const std::string& own = r < algorithms.size() && c < algorithms[r].size()
                                         ? algorithms[r][c]
                                         : std::string();
            // A clique of one exchanges nothing; a forced mode replaces the schedule's.
            const std::string algorithm = scheduleRounds[r][c].size() < 2 ? ""
                                          : mode != "schedule"            ? mode
                                                                          : own;
            m_labels.back().push_back({scheduleRounds[r][c], algorithm});
        }
    }
}

const PcapTraceReport::CliqueLabel*
PcapTraceReport::GetCliqueLabel(uint32_t round, uint16_t clique) const
{
    if (m_labels.empty())
    {
        return nullptr;
    }
    const std::vector<CliqueLabel>& cliques = m_labels[round % m_labels.size()];
    return clique < cliques.size() ? &cliques[clique] : nullptr;
}

const PcapTreeAnalysis&
PcapTraceReport::GetTree() const
{
    return m_tree;
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
            r.contributors = d.header.contributors;
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
        const uint16_t cliqueIndex = r.cliqueId & ((1u << SyncPacketDecoder::SYNC_CLIQUE_BITS) - 1);
        CliqueStats& clique = m_cliques[{r.jobId, r.round, cliqueIndex}];
        Add(clique.total, r.wireBytes, r.modelBytes);
        Add(clique.kinds[r.type], r.wireBytes, r.modelBytes);
        clique.span.Include(r.timeNs);
        clique.links.insert(linkName);
        clique.multicast += r.multicast ? 1 : 0;
        if (chunk && r.sender < 64)
        {
            clique.senders |= uint64_t{1} << r.sender;
        }
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
        ++m_chunkCopies[{stream, r.chunkIndex}][LinkIndex(linkName)];
        ReplicationStats& replication = m_replication[stream];
        replication.chunkCount = std::max(replication.chunkCount, r.chunkCount);
    }
    if (chunk)
    {
        m_tree.AddTransmission(linkName,
                               link.access ? link.city : link.from,
                               link.access && link.up,
                               TreeMessage(r));
    }
    if (chunk && r.type == SyncPacketDecoder::TYPE_AGGREGATE && r.multicast)
    {
        // A root's total: replicated along its out-tree like a multicast DATA stream.
        StreamKey stream{r.jobId, r.round, r.cliqueId, r.sender};
        ++m_totalCopies[{stream, r.chunkIndex}][LinkIndex(linkName)];
        ReplicationStats& replication = m_totalReplication[stream];
        replication.chunkCount = std::max(replication.chunkCount, r.chunkCount);
    }
}

uint32_t
PcapTraceReport::LinkIndex(const std::string& linkName)
{
    auto index = m_linkIndex.find(linkName);
    if (index == m_linkIndex.end())
    {
        index = m_linkIndex.emplace(linkName, static_cast<uint32_t>(m_linkNames.size())).first;
        m_linkNames.push_back(linkName);
    }
    return index->second;
}

PcapTreeAnalysis::Message
PcapTraceReport::TreeMessage(const Record& r)
{
    return {r.wireBytes,
            r.modelBytes,
            r.type,
            r.flow.source,
            r.flow.destination,
            r.multicast,
            r.jobId,
            r.round,
            r.cliqueId,
            r.sender,
            r.contributors};
}

void
PcapTraceReport::CountArrival(const std::string& city, const Record& r)
{
    if (r.sync == DecodedSyncPacket::VALID && r.type == SyncPacketDecoder::TYPE_DATA)
    {
        ++m_arrivals
            [{city, r.flow.destination, r.multicast, r.jobId, r.round, r.cliqueId, r.sender}];
    }
    if (r.sync == DecodedSyncPacket::VALID && r.flow.ipv4 &&
        (r.type == SyncPacketDecoder::TYPE_DATA || r.type == SyncPacketDecoder::TYPE_AGGREGATE))
    {
        m_tree.AddArrival(city, TreeMessage(r));
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
    ReadCaptureInfo(directory);
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
    SummarizeCopies(m_chunkCopies, m_linkNames, m_replication);
    m_chunkCopies.clear();
    SummarizeCopies(m_totalCopies, m_linkNames, m_totalReplication);
    m_totalCopies.clear();

    // Tree traffic: the AGGREGATEs classified by the islands' addresses.
    std::map<uint32_t, std::string> islandOfAddress;
    for (const auto& [city, island] : m_islands)
    {
        if (island.hasAddress)
        {
            islandOfAddress[island.address] = city;
        }
    }
    m_tree.Finish(islandOfAddress);

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
    return PcapReportWriter(*this).ToJson();
}

void
PcapTraceReport::WriteJson(const std::string& path) const
{
    PcapReportWriter(*this).WriteJson(path);
}

std::vector<std::string>
PcapTraceReport::WriteCsv(const std::string& path) const
{
    return PcapReportWriter(*this).WriteCsv(path);
}

std::string
PcapTraceReport::WritePlot(const std::string& path) const
{
    return PcapReportWriter(*this).WritePlot(path);
}

} // namespace ns3
