/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef PCAP_TRACE_REPORT_H
#define PCAP_TRACE_REPORT_H

#include "pcap-direction-resolver.h"
#include "pcap-tree-analysis.h"
#include "sync-packet-decoder.h"

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace ns3
{

/**
 * @ingroup wan-training
 * @brief The traffic of a training run as the pcap captures of its devices show it: per
 * directed link, per round, per island, multicast replication and in-line aggregation.
 *
 * **Input.** A directory with one capture per point-to-point device, named after the directed
 * link the device transmits on (wan-training-simulate --pcap=DIR): `A-B.pcap` for the router of
 * city A facing B (directed link `A->B`), `A-up.pcap` for the island of A (`A:up`) and
 * `A-down.pcap` for A's router facing its island (`A:down`). City ids contain no '-', so the
 * name is unambiguous, except for a city whose id is `up` or `down`, resolved by which peer
 * capture exists. The two devices of a channel (`A-B`/`B-A`, `A-up`/`A-down`) must both be
 * there. Other files are ignored.
 *
 * **Attribution.** A device's capture holds what it transmits and what it receives. Each
 * record is counted once, on the directed link of the device that transmitted it: the two
 * captures of a channel are handed to PcapDirectionResolver, which decides per flow which device
 * sent it (mostly from timestamps: a transmission is recorded before its reception), and the
 * records a device received are dropped (its peer's capture holds them as transmissions). So a
 * directed link's packets and bytes are exactly what its device started to transmit, lost
 * frames included, as ns-3's PhyTxBegin trace reports them.
 *
 * **Sizes.** Bytes are wire bytes (pcap orig_len, PPP header included), so a headers-only capture
 * (snaplen) counts the full size. Model bytes are, for DATA and AGGREGATE messages, the UDP
 * payload after the 40-byte fixed header (values plus padding); they need at least the fixed
 * header captured (2 + 20 + 8 + 40 = 70 bytes per frame).
 *
 * **What is reported.**
 * - per directed link: packets, bytes, model bytes; the same per round (the header's round), per
 *   message kind (data, aggregate, nack, done, ready, ready-ask, view) and for other traffic
 *   (not a valid IslandSyncHeader);
 * - per round: packets, bytes, the first and last transmission of the round on any link;
 * - per island (from its access links): its index (the sender field of what it sends) and
 *   address, egress (`A:up`) and ingress (`A:down`) packets and bytes per round, and the round's
 *   first and last transmission on its access links;
 * - replication: for each source's stream (job, round, clique, sender) of DATA chunks, the
 *   links its chunks appear on and how often, and per chunk the number of links and copies;
 * - aggregation, per island A: packets into A's FPGA port (DATA received by router A's WAN
 *   devices for A's island: addressed to it, or to a multicast group of a clique it sends DATA
 *   in, from another island; frames lost on the way are not counted), packets out (DATA and
 *   AGGREGATE transmitted on `A:down`), and their ratio in/out (1 without aggregation);
 * - tree traffic (PcapTreeAnalysis): every AGGREGATE per directed link by its class (partial,
 *   total, total repair, edge, island, other) with the contributors it carries, the FPGA
 *   reduction of each router over the tree cliques, and for each root's total (multicast
 *   AGGREGATE) its replication as for DATA streams.
 */
class PcapTraceReport
{
  public:
    /** Packets and bytes. */
    struct Counters
    {
        uint64_t packets{0};    //!< packets
        uint64_t bytes{0};      //!< wire bytes (PPP header included)
        uint64_t modelBytes{0}; //!< model bytes of DATA and AGGREGATE messages
    };

    /** Timestamps of the first and last transmission seen. */
    struct Span
    {
        uint64_t firstNs{UINT64_MAX}; //!< first transmission
        uint64_t lastNs{0};           //!< last transmission

        /** @param timeNs a transmission time to include */
        void Include(uint64_t timeNs);
    };

    /** One directed link: the transmissions of one device. */
    struct LinkStats
    {
        std::string file;                    //!< its capture
        std::string peerFile;                //!< the capture of the other device of the channel
        bool access{false};                  //!< whether it is an island access direction
        std::string city;                    //!< for an access link: the city
        bool up{false};                      //!< for an access link: whether it is `A:up`
        std::string from;                    //!< for a WAN link: the transmitting city
        std::string to;                      //!< for a WAN link: the receiving city
        uint64_t records{0};                 //!< records in its capture (sent and received)
        uint32_t snapLen{0};                 //!< snapshot length of its capture
        uint32_t resolutionNs{0};            //!< timestamp resolution of its capture
        Counters total;                      //!< every transmission
        Counters other;                      //!< transmissions that are not valid sync messages
        std::map<uint32_t, Counters> rounds; //!< sync transmissions by round
        std::map<uint8_t, Counters> kinds;   //!< sync transmissions by message type
        uint64_t ambiguous{0};               //!< transmissions attributed by the fallback rule
        uint64_t truncatedSync{0}; //!< sync-port packets whose fixed header was not captured
        uint64_t invalidSync{0};   //!< sync-port packets with an invalid header
        uint64_t unaddressed{0};   //!< IPv4 transmissions captured without their addresses
    };

    /** One round of one island, on its access links. */
    struct IslandRound
    {
        Counters egress;  //!< transmitted on `A:up`
        Counters ingress; //!< transmitted on `A:down`
        Span span;        //!< first and last transmission of the round on either
    };

    /** One island. */
    struct IslandStats
    {
        int64_t index{-1};      //!< island index (sender field), -1 when it sent nothing
        uint32_t address{0};    //!< its IPv4 address (source of what it sends)
        bool hasAddress{false}; //!< whether the address is known
        Counters egress;        //!< everything on `A:up`
        Counters ingress;       //!< everything on `A:down`
        std::map<uint32_t, IslandRound> rounds; //!< sync traffic by round
    };

    /** One round over every link. */
    struct RoundStats
    {
        Counters total; //!< every transmission of the round
        Span span;      //!< first and last transmission
    };

    /** The in-line aggregation at one island's access port. */
    struct AggregationStats
    {
        uint64_t packetsIn{0};           //!< DATA arriving at the router for the island
        uint64_t packetsOut{0};          //!< DATA and AGGREGATE transmitted on `A:down`
        uint64_t aggregatesOut{0};       //!< AGGREGATE on `A:down` sent by the city's own FPGA
                                         //!< (sender field = the island's index)
        uint64_t islandAggregatesOut{0}; //!< AGGREGATE on `A:down` from another island: ring
                                         //!< partial sums, not summed by an FPGA
        uint64_t dataOut{0};             //!< DATA transmitted on `A:down`
    };

    /** (job, round, clique index without the epoch): one clique of one round. */
    using CliqueKey = std::tuple<uint16_t, uint32_t, uint16_t>;

    /** What one clique of one round put on the wire, every directed link counted. */
    struct CliqueStats
    {
        Counters total;                    //!< every transmission of its sync messages
        std::map<uint8_t, Counters> kinds; //!< by message type
        uint64_t senders{0};               //!< sender fields of its DATA and AGGREGATE
        uint64_t multicast{0};             //!< transmissions addressed to a multicast group
        std::set<std::string> links;       //!< the directed links that carried them
        Span span;                         //!< first and last transmission
    };

    /** What the run's results say a clique of a schedule round is. */
    struct CliqueLabel
    {
        std::vector<std::string> members; //!< its city ids
        std::string algorithm;            //!< the algorithm it ran
    };

    /** (job, round, clique, sender): one source's stream of chunks. */
    using StreamKey = std::tuple<uint16_t, uint32_t, uint16_t, uint16_t>;

    /** Where one stream's chunks appear. */
    struct ReplicationStats
    {
        uint32_t chunks{0};     //!< distinct chunks seen
        uint32_t chunkCount{0}; //!< the chunk count its headers carry
        /** Per link: distinct chunks seen on it and copies (transmissions) of them. */
        std::map<std::string, std::pair<uint32_t, uint64_t>> links;
        uint32_t minLinksPerChunk{0};  //!< fewest links a chunk appeared on
        uint32_t maxLinksPerChunk{0};  //!< most links a chunk appeared on
        uint64_t minCopiesPerChunk{0}; //!< fewest transmissions of a chunk
        uint64_t maxCopiesPerChunk{0}; //!< most transmissions of a chunk
    };

    /**
     * @brief Create an empty report.
     * @param port the sync transport's UDP port
     */
    explicit PcapTraceReport(uint16_t port);

    /**
     * @brief Read and analyze every capture of a directory (once).
     * @param directory the directory
     * @throws WanInputError for a missing directory, no captures, a name that is no directed
     *         link, a missing peer capture, or an unreadable, empty, truncated, non-pcap or
     *         non-PPP capture
     */
    void Analyze(const std::string& directory);

    /** @return the wire MTU of the captures (SyncProtocol::CAPTURE_INFO_FILE; 0 when the
     *  directory has none) */
    uint32_t GetWireMtu() const;
    /** @return their simulation frame's IP bytes (0: exact frames) */
    uint32_t GetFrameBytes() const;

    /** @return the directed links by name */
    const std::map<std::string, LinkStats>& GetLinks() const;
    /** @return the rounds */
    const std::map<uint32_t, RoundStats>& GetRounds() const;
    /** @return the islands by city id */
    const std::map<std::string, IslandStats>& GetIslands() const;
    /** @return the aggregation per island (city id) */
    const std::map<std::string, AggregationStats>& GetAggregation() const;
    /** @return the replication per stream */
    const std::map<StreamKey, ReplicationStats>& GetReplication() const;
    /** @return the replication of the totals (multicast AGGREGATEs) per (job, round, clique,
     * sender) */
    const std::map<StreamKey, ReplicationStats>& GetTotalReplication() const;
    /** @return the traffic of every (job, round, clique) seen */
    const std::map<CliqueKey, CliqueStats>& GetCliques() const;
    /**
     * @brief Label the cliques with what the run's results say of them (pcap-report
     * --results): a capture carries round and clique indices, not the members or algorithms.
     * @param scheduleRounds per schedule round its cliques' members (city ids)
     * @param algorithms per schedule round each clique's algorithm (empty: the forced mode)
     * @param mode the run's forced mode, or "schedule"
     */
    void SetCliqueLabels(const std::vector<std::vector<std::vector<std::string>>>& scheduleRounds,
                         const std::vector<std::vector<std::string>>& algorithms,
                         const std::string& mode);
    /**
     * @param round a round
     * @param clique a clique index in it
     * @return its label, or nullptr without labels (or for a clique the schedule lacks)
     */
    const CliqueLabel* GetCliqueLabel(uint32_t round, uint16_t clique) const;

    /** @return the classified aggregates and the routers' reduction */
    const PcapTreeAnalysis& GetTree() const;
    /** @return records per attribution method, over every channel */
    const std::map<std::string, uint64_t>& GetAttribution() const;
    /** @return warnings about the captures */
    const std::vector<std::string>& GetWarnings() const;
    /** @return the directory analyzed (empty before Analyze) */
    const std::string& GetDirectory() const;
    /** @return the sync transport's UDP port */
    uint16_t GetPort() const;

    /**
     * @param address an IPv4 address in host order
     * @return its dotted-quad text
     */
    static std::string AddressToString(uint32_t address);

    /** @return the report as JSON (pretty printed), PcapReportWriter::ToJson */
    std::string ToJson() const;
    /**
     * @brief Write ToJson() to a file (PcapReportWriter::WriteJson).
     * @param path the file
     * @throws WanInputError when it cannot be written
     */
    void WriteJson(const std::string& path) const;
    /**
     * @brief Write the CSV tables: links per round to `path`, and next to it (the name without
     * `.csv` plus a suffix) `-islands.csv`, `-aggregation.csv` and `-replication.csv`, with
     * tree traffic also `-tree.csv`, `-routers.csv` and `-totals.csv`
     * (PcapReportWriter::WriteCsv).
     * @param path the links table
     * @return the files written
     * @throws WanInputError when a file cannot be written
     */
    std::vector<std::string> WriteCsv(const std::string& path) const;
    /**
     * @brief Plot bytes per directed link per round as a PNG heat map with gnuplot
     * (PcapReportWriter::WritePlot).
     * @param path the PNG file
     * @return an empty string, or why no plot was made (gnuplot not installed, no sync traffic)
     * @throws WanInputError when gnuplot fails
     */
    std::string WritePlot(const std::string& path) const;

  private:
    /** What the report keeps of one record. */
    struct Record
    {
        uint64_t timeNs{0};               //!< timestamp
        uint32_t wireBytes{0};            //!< wire bytes
        PcapDirectionResolver::Flow flow; //!< its flow
        uint8_t sync{0};                  //!< DecodedSyncPacket::SyncStatus
        uint8_t type{0};                  //!< sync type
        uint16_t jobId{0};                //!< sync job
        uint16_t sender{0};               //!< sync sender
        uint16_t cliqueId{0};             //!< sync clique
        uint32_t round{0};                //!< sync round
        uint32_t chunkIndex{0};           //!< sync chunk index
        uint32_t chunkCount{0};           //!< sync chunk count
        uint32_t modelBytes{0};           //!< model bytes
        uint64_t contributors{0};         //!< sync contributor bitmap
        bool multicast{false};            //!< multicast destination
        uint8_t ttl{0};                   //!< IPv4 TTL
        bool unaddressed{false};          //!< IPv4 (or unknown) captured without its addresses
    };

    /**
     * @brief Decide which directed link each capture of the directory belongs to.
     * @param directory the directory
     * @param files the capture file names
     */
    void MapFiles(const std::string& directory, const std::set<std::string>& files);
    /**
     * @brief Read one capture.
     * @param path the file
     * @param link its link's statistics (records, snaplen, resolution are filled)
     * @return its records
     */
    std::vector<Record> ReadCapture(const std::string& path, LinkStats& link) const;
    /**
     * @brief Count one transmission.
     * @param linkName the directed link
     * @param record the record
     * @param ambiguous whether its attribution used the fallback rule
     */
    void CountTransmission(const std::string& linkName, const Record& record, bool ambiguous);
    /**
     * @brief Count one reception by a router's WAN device (for the FPGA input).
     * @param city the router's city
     * @param record the record
     */
    void CountArrival(const std::string& city, const Record& record);
    /**
     * @param linkName a directed link
     * @return its index for the replication tables (assigned on first use)
     */
    uint32_t LinkIndex(const std::string& linkName);
    /**
     * @param r a DATA or AGGREGATE record
     * @return it as PcapTreeAnalysis sees it
     */
    static PcapTreeAnalysis::Message TreeMessage(const Record& r);
    /** Learn the islands and compute aggregation and replication summaries. */
    void Finish();

    /**
     * @brief Read SyncProtocol::CAPTURE_INFO_FILE of the directory when it is there: coarse frames
     * are then decoded as such (SyncPacketDecoder::SetWireMtu).
     * @param directory the capture directory
     * @throws WanInputError for a file that is not such a JSON object
     */
    void ReadCaptureInfo(const std::string& directory);

    SyncPacketDecoder m_decoder;              //!< the frame decoder
    std::string m_directory;                  //!< the directory analyzed
    uint32_t m_wireMtu{0};                    //!< the capture info's mtu_bytes (0: absent)
    uint32_t m_frameBytes{0};                 //!< the capture info's frame_bytes (0: exact frames)
    std::map<std::string, LinkStats> m_links; //!< by directed link name
    std::map<uint32_t, RoundStats> m_rounds;  //!< by round
    std::map<std::string, IslandStats> m_islands;             //!< by city id
    std::map<std::string, AggregationStats> m_aggregation;    //!< by city id
    std::map<StreamKey, ReplicationStats> m_replication;      //!< by stream
    std::map<StreamKey, ReplicationStats> m_totalReplication; //!< totals by stream
    PcapTreeAnalysis m_tree;                                  //!< aggregates and routers
    std::map<CliqueKey, CliqueStats> m_cliques;               //!< traffic by clique
    std::vector<std::vector<CliqueLabel>> m_labels; //!< by schedule round, clique (--results)
    std::map<std::string, uint64_t> m_attribution;  //!< records by attribution method
    std::vector<std::string> m_warnings;            //!< warnings

    /** Per (stream, chunk): per link index, transmissions. */
    std::map<std::pair<StreamKey, uint32_t>, std::map<uint32_t, uint32_t>> m_chunkCopies;
    /** The same for the totals. */
    std::map<std::pair<StreamKey, uint32_t>, std::map<uint32_t, uint32_t>> m_totalCopies;
    std::vector<std::string> m_linkNames;        //!< link index -> name (replication)
    std::map<std::string, uint32_t> m_linkIndex; //!< name -> link index
    /** (job, round, clique) -> bitmap of the senders of DATA. */
    std::map<std::tuple<uint16_t, uint32_t, uint16_t>, uint64_t> m_cliqueSenders;
    /** DATA received by a router's WAN devices: (city, destination, multicast, job, round,
     * clique, sender) -> packets. */
    std::map<std::tuple<std::string, uint32_t, bool, uint16_t, uint32_t, uint16_t, uint16_t>,
             uint64_t>
        m_arrivals;
    /** Per city: sender fields and source addresses of what its island transmits. */
    std::map<std::string, std::pair<std::map<uint16_t, uint64_t>, std::map<uint32_t, uint64_t>>>
        m_islandEvidence;
    /** Per city: sender field -> AGGREGATE packets transmitted on `A:down`. */
    std::map<std::string, std::map<uint16_t, uint64_t>> m_downAggregates;
    bool m_analyzed{false}; //!< whether Analyze() ran
};

} // namespace ns3

#endif /* PCAP_TRACE_REPORT_H */
