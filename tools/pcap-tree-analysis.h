/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef PCAP_TREE_ANALYSIS_H
#define PCAP_TREE_ANALYSIS_H

#include <array>
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
 * @brief Classifies the AGGREGATE messages of a capture directory by their addresses and counts
 * the in-network reduction of tree mode per directed link and per router.
 *
 * PcapTraceReport hands it every DATA and AGGREGATE transmission (with the directed link and
 * the city of the transmitting device) and every one received by a router's WAN device, then
 * the islands' addresses. A source address that is no island's belongs to the router that
 * transmits packets from it without receiving any over its WAN links (the router whose FPGA
 * made them). An AGGREGATE is then, in this order: a *total* (multicast destination: the
 * root's sum, one copy per out-tree link), an *edge* aggregate (from a router to its own
 * city's island: aggregation and both, or the root's router summing toward the root), a tree
 * *partial* aggregate (from a router to another city's island: toward the root), a *total
 * repair* (unicast from an island in a clique that has tree traffic), an *island* aggregate
 * (unicast from an island otherwise: the ring's segments), or *other* (an unknown source or
 * destination). Nothing is an error: what cannot be placed is counted as other.
 *
 * Per router, over the cliques with tree traffic (a total or a partial aggregate), the FPGA
 * reduction: contributions in (unicast DATA and partial aggregates received over the WAN links
 * and from its own island), aggregates out (partial or edge aggregates from the router's own
 * addresses) and contributions passed on unsummed, and their ratio.
 */
class PcapTreeAnalysis
{
  public:
    /** What an AGGREGATE is, from its addresses. */
    enum AggregateClass : uint8_t
    {
        PARTIAL = 0,      //!< from a router toward another city's island (the root)
        TOTAL = 1,        //!< to a multicast group (the root's total, replicated)
        TOTAL_REPAIR = 2, //!< unicast from an island in a tree clique (a lost total resent)
        EDGE = 3,         //!< from a router to its own city's island
        ISLAND = 4,       //!< unicast from an island in another clique (ring segments)
        OTHER = 5,        //!< anything else (unknown source or destination)
    };

    /** Number of AggregateClass values. */
    static constexpr uint32_t N_CLASSES = 6;

    /** Packets, bytes and the contributors they carry. */
    struct Counters
    {
        uint64_t packets{0};      //!< packets
        uint64_t bytes{0};        //!< wire bytes (PPP header included)
        uint64_t modelBytes{0};   //!< model bytes
        uint64_t contributors{0}; //!< sum over the packets of their contributor counts
    };

    /** One DATA or AGGREGATE message as the capture shows it. */
    struct Message
    {
        uint32_t wireBytes{0};    //!< wire bytes
        uint32_t modelBytes{0};   //!< model bytes
        uint8_t type{0};          //!< SyncPacketDecoder::TYPE_DATA or TYPE_AGGREGATE
        uint32_t source{0};       //!< IPv4 source
        uint32_t destination{0};  //!< IPv4 destination
        bool multicast{false};    //!< whether the destination is multicast
        uint16_t jobId{0};        //!< job
        uint32_t round{0};        //!< round
        uint16_t cliqueId{0};     //!< clique field
        uint16_t sender{0};       //!< sender field
        uint64_t contributors{0}; //!< contributor bitmap
    };

    /** The FPGA reduction of one router over the tree cliques. */
    struct RouterStats
    {
        Counters in;            //!< contributions received (WAN links and its own island)
        Counters aggregatesOut; //!< partial and edge aggregates it made
        Counters passedOut;     //!< contributions it transmitted unsummed

        /** @return in.packets / (aggregatesOut.packets + passedOut.packets), 0 without output */
        double GetReduction() const;
    };

    /** Per directed link: the AGGREGATE transmissions of each class. */
    using LinkClasses = std::array<Counters, N_CLASSES>;

    /**
     * @brief Add one DATA or AGGREGATE transmission.
     * @param link the directed link
     * @param city the city of the transmitting device (the router's, or the island's on `A:up`)
     * @param islandUp whether the link is an island's `A:up`
     * @param message the message
     */
    void AddTransmission(const std::string& link,
                         const std::string& city,
                         bool islandUp,
                         const Message& message);
    /**
     * @brief Add one DATA or AGGREGATE received by a router's WAN device.
     * @param city the router's city
     * @param message the message
     */
    void AddArrival(const std::string& city, const Message& message);
    /**
     * @brief Classify and count (call once, after the last Add).
     * @param islandOfAddress the city of each island address
     */
    void Finish(const std::map<uint32_t, std::string>& islandOfAddress);

    /** @return per directed link with AGGREGATE transmissions: the counts of each class */
    const std::map<std::string, LinkClasses>& GetLinks() const;
    /** @return per router with tree traffic: its reduction */
    const std::map<std::string, RouterStats>& GetRouters() const;
    /** @return the router addresses learned: address -> city */
    const std::map<uint32_t, std::string>& GetRouterAddresses() const;
    /** @return whether any total, partial aggregate or total repair was seen */
    bool HasTreeTraffic() const;
    /**
     * @param c a class
     * @return its name ("partial", "total", "total-repair", "edge", "island", "other")
     */
    static const char* ClassToString(AggregateClass c);

  private:
    /** Where a message was seen: a transmission on a link, or an arrival at a router. */
    struct Place
    {
        std::string link;     //!< the directed link (empty for an arrival)
        std::string city;     //!< the transmitting or receiving city
        bool islandUp{false}; //!< whether it is an island's `A:up`
        bool arrival{false};  //!< whether it is an arrival at a router
    };

    /** (place, type, source, destination, multicast, job, round, clique, sender, bitmap). */
    using Key = std::tuple<uint32_t,
                           uint8_t,
                           uint32_t,
                           uint32_t,
                           bool,
                           uint16_t,
                           uint32_t,
                           uint16_t,
                           uint16_t,
                           uint64_t>;

    /**
     * @param place a place
     * @param message a message seen there
     */
    void AddAt(const Place& place, const Message& message);
    /**
     * @param key an observation
     * @param islandOfAddress the city of each island address
     * @param treeCliques the (job, round, clique) with tree traffic (empty in the first pass)
     * @return the class of its AGGREGATE
     */
    AggregateClass Classify(
        const Key& key,
        const std::map<uint32_t, std::string>& islandOfAddress,
        const std::set<std::tuple<uint16_t, uint32_t, uint16_t>>& treeCliques) const;

    std::vector<Place> m_places;                  //!< place index -> place
    std::map<std::string, uint32_t> m_placeIndex; //!< place name -> index
    std::map<Key, Counters> m_observations;       //!< what was seen where
    std::map<std::string, LinkClasses> m_links;   //!< per directed link
    std::map<std::string, RouterStats> m_routers; //!< per router
    std::map<uint32_t, std::string> m_routerOf;   //!< router address -> city
    bool m_tree{false};                           //!< whether tree traffic was seen
};

} // namespace ns3

#endif /* PCAP_TREE_ANALYSIS_H */
