/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef PCAP_DIRECTION_RESOLVER_H
#define PCAP_DIRECTION_RESOLVER_H

#include <cstdint>
#include <map>
#include <vector>

namespace ns3
{

/**
 * @ingroup wan-training
 * @brief Tells, for the two captures of one point-to-point channel, which records each device
 * transmitted and which it received.
 *
 * ns-3's point-to-point pcap (the device's PromiscSniffer) records both what a device starts
 * to transmit and what it receives, and nothing marks the direction. The two devices of a
 * channel are the transmitters of the two directed links of the channel (`A->B` and `B->A`, or
 * `A:up` and `A:down`). A packet sent on one directed link is recorded twice: by the sender when
 * its transmission starts (time t) and by the receiver when it has arrived (t + transmission time
 * + delay > t), unless the receive error model drops it (then only once, by the sender).
 *
 * The resolver works per *flow*: the IPv4 (source, destination) pair, or the PPP protocol for
 * anything that is not IPv4. With static, destination-based routing along simple paths (and
 * source trees for multicast) every packet of a flow crosses a channel in the same direction, so
 * deciding a flow decides all its records. For each flow, in order:
 *  1. only one capture holds it: that device transmitted it (the other lost every copy);
 *  2. the capture whose first record of the flow is earlier transmitted it (the first packet is
 *     sent before any copy of the flow is received);
 *  3. with equal first timestamps (a tie at the capture's timestamp resolution), the capture
 *     with more records transmitted it (the receiver holds the sent packets minus the lost ones);
 *  4. with equal counts (nothing lost), the first pair of records (i-th of each capture) whose
 *     timestamps differ decides: the earlier one is the transmission;
 *  5. flows still tied are decided through their addresses: on a channel every address has a
 *     side (the device that transmits what comes from it; what goes to it comes from the other
 *     device), the two addresses of a flow are on opposite sides, and decided flows fix the sides
 *     of their addresses; a tied flow whose connected addresses were fixed consistently follows
 *     them (with shortest-path routing all flows from one source, and all flows to one
 *     destination, cross a channel in the same direction); AddAnchor() fixes sides too;
 *  6. on an island's access channel (SetHostCapture), a tied group of connected addresses
 *     holding a flow and its reverse is decided by their IPv4 TTLs: the island sends with the
 *     initial TTL, the reverse flow arrives through at least two routers with a smaller one, so
 *     the flow with the larger TTL is the island's (every island uses the same initial TTL, as
 *     ns-3's do);
 *  7. anything left is *ambiguous*: it is attributed to the capture of its earliest record (the
 *     first capture on a tie) and reported as such. Captures with nanosecond timestamps never
 *     leave ties (a frame's transmission time plus the channel delay is at least 1 ns).
 */
class PcapDirectionResolver
{
  public:
    /** A flow: an IPv4 address pair, or a non-IPv4 PPP protocol. */
    struct Flow
    {
        bool ipv4{false};        //!< whether it is an IPv4 address pair
        uint32_t source{0};      //!< IPv4 source (or the PPP protocol when not IPv4)
        uint32_t destination{0}; //!< IPv4 destination (0 when not IPv4)

        /**
         * @param other another flow
         * @return the strict weak order of flows
         */
        bool operator<(const Flow& other) const;
    };

    /** How a flow was decided. */
    enum Method : uint8_t
    {
        ONE_SIDED = 0,  //!< rule 1
        FIRST_TIME = 1, //!< rule 2
        COUNT = 2,      //!< rule 3
        SEQUENCE = 3,   //!< rule 4
        ADDRESS = 4,    //!< rule 5
        TTL = 5,        //!< rule 6
        AMBIGUOUS = 6,  //!< rule 7
    };

    /** Number of Method values. */
    static constexpr uint32_t N_METHODS = 7;

    /**
     * @brief Declare the channel an island's access channel (enables rule 6).
     * @param capture 0 or 1: the capture of the island's device (`A:up`)
     */
    void SetHostCapture(uint32_t capture);

    /**
     * @brief Declare that what comes from an address is transmitted by one capture's device
     * (used by rule 5 like a decided flow; e.g. an island's address on a channel of its
     * router: the island's packets leave its router).
     * @param address an IPv4 address
     * @param capture 0 or 1
     */
    void AddAnchor(uint32_t address, uint32_t capture);

    /**
     * @brief Add one record, in the order of its capture.
     * @param capture 0 or 1: which device's capture holds it
     * @param timeNs its timestamp
     * @param flow its flow
     * @param ttl its IPv4 TTL (0 when not IPv4)
     */
    void Add(uint32_t capture, uint64_t timeNs, const Flow& flow, uint8_t ttl = 0);

    /** @brief Decide every flow added (call once, after the last Add). */
    void Resolve();

    /**
     * @param flow a flow that was added
     * @return the capture (0 or 1) of the device that transmitted it
     */
    uint32_t GetTransmitter(const Flow& flow) const;
    /**
     * @param flow a flow that was added
     * @return how it was decided
     */
    Method GetMethod(const Flow& flow) const;
    /**
     * @param method a method
     * @return how many records belong to flows decided that way
     */
    uint64_t GetRecords(Method method) const;
    /**
     * @param method a method
     * @return its name ("one-sided", "first-time", "count", "sequence", "address", "ttl",
     *         "ambiguous")
     */
    static const char* MethodToString(Method method);

  private:
    /** What is known about one flow. */
    struct FlowState
    {
        std::vector<uint64_t> times[2]; //!< timestamps of its records in each capture
        uint8_t ttl{0};                 //!< the largest IPv4 TTL of its records
        uint32_t transmitter{0};        //!< the decided capture
        Method method{AMBIGUOUS};       //!< how it was decided
        bool decided{false};            //!< whether rules 1-4 decided it
    };

    /**
     * @param address an IPv4 address
     * @return its union-find node, created on first use
     */
    uint32_t Node(uint32_t address);
    /**
     * @param node a union-find node
     * @return its root, and the parity of the node relative to the root in m_parity
     */
    uint32_t Find(uint32_t node);

    std::map<Flow, FlowState> m_flows;                    //!< every flow
    std::map<uint32_t, uint32_t> m_nodes;                 //!< IPv4 address -> union-find node
    std::vector<uint32_t> m_parent;                       //!< union-find parent
    std::vector<uint8_t> m_parity;                        //!< side relative to the parent
    uint64_t m_records[N_METHODS] = {};                   //!< records per method
    std::vector<std::pair<uint32_t, uint32_t>> m_anchors; //!< (address, capture)
    int m_hostCapture{-1};                                //!< the island's capture, -1: not access
    bool m_resolved{false};                               //!< whether Resolve() ran
};

} // namespace ns3

#endif /* PCAP_DIRECTION_RESOLVER_H */
