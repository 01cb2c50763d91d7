/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef WAN_TOPOLOGY_H
#define WAN_TOPOLOGY_H

#include "wan-input-error.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ns3
{

/**
 * @ingroup wan-training
 * @brief A city of the WAN: one router (the DoubleZero device) and one training island.
 */
struct WanCity
{
    std::string id;            //!< short id used everywhere ("nyc")
    std::string name;          //!< human readable name
    double latitude{0};        //!< degrees north
    double longitude{0};       //!< degrees east
    double accessCapacityGbps; //!< island <-> router access capacity, each direction
    double accessLatencyMs;    //!< island <-> router one-way latency (may be 0)
    bool fpga{false};          //!< whether its router hosts a summing FPGA (`fpga`)
};

/**
 * @ingroup wan-training
 * @brief A full-duplex WAN link between two city routers.
 */
struct WanLink
{
    uint32_t a;          //!< index of the first endpoint city
    uint32_t b;          //!< index of the second endpoint city
    double latencyMs;    //!< one-way latency
    double capacityGbps; //!< capacity in each direction
    uint32_t mtuBytes;   //!< IP MTU of the link
    std::string source;  //!< provenance tag of the numbers ("measured", ...), may be empty
};

/**
 * @ingroup wan-training
 * @brief A unicast route between two islands, as doc/schedule-model.rst, "Routes", defines it.
 */
struct WanRoute
{
    std::vector<uint32_t> cities; //!< router cities from source to destination (inclusive)
    std::vector<uint32_t> links;  //!< directed links in order: access up, WAN hops, access down
    double wanLatencyMs{0};       //!< sum of the WAN link latencies
    double latencyMs{0};          //!< access up + WAN + access down latency
};

/**
 * @ingroup wan-training
 * @brief The queue of every point-to-point port of the WAN (`defaults.router_queue`): what holds
 * the frames a port cannot send yet, and how much of them.
 *
 * Every port (both ends of every WAN and access link, the FPGA ports too) has a device queue of
 * GetBufferBytes(its rate) bytes of frames (IP bytes + the 2-byte PPP header): `buffer_ms` of
 * buffering at the port's rate, and never less than MIN_BUFFER_BYTES. With DROP_TAIL that FIFO
 * is all there is: a frame it has no room for is dropped by the device. With QUEUE_DISC the
 * named ns-3 queue disc is the root queue disc of every port but the FPGA ports, in front of
 * that device queue (with flow control). doc/wan-training.rst, "Router queues", says why the
 * default is what it is.
 */
struct WanRouterQueue
{
    /** What holds a port's waiting frames (`type`). */
    enum Type
    {
        DROP_TAIL,  //!< `"drop_tail"`: the device's FIFO only, no queue disc
        QUEUE_DISC, //!< `"queue_disc"`: an ns-3 queue disc in front of the device's FIFO
    };

    /**
     * The default `buffer_ms`: 10 ms of the port's rate, twice the 5 ms standing queue that
     * CoDel (ns-3's default FqCoDel) keeps, and within the few to tens of ms of line rate that
     * WAN router line cards buffer.
     */
    static constexpr double DEFAULT_BUFFER_MS = 10;
    /** The largest `buffer_ms` accepted: a second of buffering, beyond any router's. */
    static constexpr double MAX_BUFFER_MS = 1000;
    /**
     * The smallest device queue of any port, bytes: two of the largest frames a port carries
     * (65535 IP bytes + the 2-byte PPP header), so that a slow port still holds a frame behind
     * the one on the wire, coarse 64 KB frames included.
     */
    static constexpr uint32_t MIN_BUFFER_BYTES = 2 * (65535 + 2);

    Type type{DROP_TAIL};               //!< `type`
    double bufferMs{DEFAULT_BUFFER_MS}; //!< `buffer_ms`: device queue, ms of the port's rate
    std::string queueDiscName;          //!< `name`: the queue disc's TypeId name (QUEUE_DISC)

    /**
     * @brief The device queue of a port: max(MIN_BUFFER_BYTES, ceil(bufferMs x rate / 8)) bytes
     * of frames, at most 2^32 - 1 (an ns-3 QueueSize).
     * @param capacityGbps the port's rate in Gbps (rounded to whole bit/s, as the DataRate is)
     * @return the byte limit of its device queue
     */
    uint32_t GetBufferBytes(double capacityGbps) const;
    /** @return the `type` as the JSON spells it: "drop_tail" or "queue_disc" */
    std::string GetTypeName() const;
};

/**
 * @ingroup wan-training
 * @brief A WAN of cities, links and island access links, parsed and validated from JSON.
 *
 * The topology has no ns-3 dependency: it is the input of both the packet simulation
 * (WanTopologyHelper) and the analytic schedule model (ScheduleOptimizer), which must agree on
 * routes and on the names of directed links.
 *
 * Directed links are numbered densely: for WAN link l (0 <= l < L), 2l is a->b and 2l+1 is b->a;
 * then 2L + i is island i's access up (egress) direction and 2L + N + i its access down
 * (ingress) direction. Their names are `A->B`, `A:up` and `A:down` with city ids.
 *
 * Routes are shortest by total one-way latency; ties (within a relative 1e-9) are broken by fewer
 * hops, then by the lexicographically smallest sequence of city ids. The route i->j need not be
 * the reverse of j->i.
 */
class WanTopology
{
  public:
    /**
     * The smallest IP MTU accepted on any link: the IPv4 minimum datagram size every host must
     * accept (RFC 791), which also holds IPv4 + UDP + IslandSyncHeader with real values.
     */
    static constexpr uint32_t MIN_MTU_BYTES = 576;
    /** The largest IP MTU ns-3's PointToPointNetDevice accepts. */
    static constexpr uint32_t MAX_MTU_BYTES = 65535;

    /**
     * @brief Parse and validate a topology file.
     * @param path the file to read
     * @param includeOptionalLinks whether `optional_links` join the graph
     * @return the topology
     * @throws WanInputError naming the file, the JSON path and the reason
     */
    static WanTopology LoadFile(const std::string& path, bool includeOptionalLinks = false);

    /**
     * @brief Parse and validate a topology from JSON text.
     * @param text the JSON document
     * @param sourceName the name used in error messages (usually the file name)
     * @param includeOptionalLinks whether `optional_links` join the graph
     * @return the topology
     * @throws WanInputError naming the source, the JSON path and the reason
     */
    static WanTopology Parse(const std::string& text,
                             const std::string& sourceName,
                             bool includeOptionalLinks = false);

    /** @return the topology's `name` field (may be empty) */
    const std::string& GetName() const;
    /** @return the file or source name it was parsed from */
    const std::string& GetSourceName() const;

    /** @return the number of cities (= islands) */
    uint32_t GetNCities() const;
    /**
     * @param index a city index
     * @return the city
     */
    const WanCity& GetCity(uint32_t index) const;
    /**
     * @param id a city id
     * @return whether the topology has a city with that id
     */
    bool HasCity(const std::string& id) const;
    /**
     * @param id a city id
     * @return its index
     * @throws std::out_of_range naming the id when there is no such city
     */
    uint32_t GetCityIndex(const std::string& id) const;

    /** @return the number of WAN links (each full duplex) */
    uint32_t GetNLinks() const;
    /**
     * @param index a WAN link index
     * @return the link
     */
    const WanLink& GetLink(uint32_t index) const;

    /** @return the number of directed links: 2 per WAN link, 2 per island access link */
    uint32_t GetNDirectedLinks() const;
    /**
     * @param d a directed link index
     * @return its name: `A->B`, `A:up` or `A:down`
     */
    std::string GetDirectedLinkName(uint32_t d) const;
    /**
     * @param d a directed link index
     * @return its capacity in Gbps
     */
    double GetDirectedLinkCapacityGbps(uint32_t d) const;
    /**
     * @param d a directed link index
     * @return its one-way latency in ms
     */
    double GetDirectedLinkLatencyMs(uint32_t d) const;
    /**
     * @param d a directed link index
     * @return whether it is an island access direction (up or down)
     */
    bool IsAccessLink(uint32_t d) const;
    /**
     * @param from a city index
     * @param to a city index adjacent to it
     * @return the directed WAN link from -> to
     * @throws std::out_of_range when the two cities are not adjacent
     */
    uint32_t GetWanDirectedLink(uint32_t from, uint32_t to) const;
    /**
     * @param city a city index
     * @return the directed link of its island's access up (egress) direction
     */
    uint32_t GetAccessUpLink(uint32_t city) const;
    /**
     * @param city a city index
     * @return the directed link of its island's access down (ingress) direction
     */
    uint32_t GetAccessDownLink(uint32_t city) const;

    /**
     * @param src source city index
     * @param dst destination city index, different from src
     * @return the unicast route src -> dst (empty cities and links when HasRoute is false)
     */
    const WanRoute& GetRoute(uint32_t src, uint32_t dst) const;
    /**
     * @param src source city index
     * @param dst destination city index
     * @return whether the links that are up connect src to dst (always true for src == dst)
     */
    bool HasRoute(uint32_t src, uint32_t dst) const;

    /**
     * @brief The same WAN with some links down (a link failure).
     *
     * Cities, links, the directed-link numbering and names, capacities and latencies are
     * unchanged; routes are recomputed with the schedule model's rules on the links that are up
     * only. A pair of cities that the remaining links do not connect has no route (HasRoute false,
     * GetRoute empty): the graph is partitioned (GetComponents).
     * @param downLinks WAN link indices (GetLink numbering) that carry nothing; duplicates are
     *        ignored; replaces the down links of this topology
     * @return the topology with those links down
     * @throws std::out_of_range naming an index that is not a WAN link
     */
    WanTopology WithLinksDown(const std::vector<uint32_t>& downLinks) const;
    /** @return the WAN links that are down, sorted (empty for a topology as parsed) */
    const std::vector<uint32_t>& GetDownLinks() const;
    /**
     * @param link a WAN link index
     * @return whether it is down
     */
    bool IsLinkDown(uint32_t link) const;
    /**
     * @return the connected components of the cities over the links that are up: each sorted
     *         by city index, ordered by their smallest index (one component when the WAN is
     *         connected)
     */
    std::vector<std::vector<uint32_t>> GetComponents() const;

    /** @return whether the WAN's routers can replicate multicast */
    bool HasMulticast() const;
    /** @return whether the WAN's routers host in-line summing FPGAs */
    bool HasAggregation() const;
    /**
     * @return whether those FPGAs also sum in the core, on every router of a reduction tree
     *         (`capabilities.core`, default false; it needs `aggregation`)
     */
    bool HasCore() const;
    /**
     * @brief Whether a city's router hosts a summing FPGA (doc/schedule-model.rst, "Where the
     * FPGAs are").
     *
     * A city's `fpga` field says it; without the field a city has one exactly when the
     * topology has the aggregation capability (HasAggregation), so a topology without `fpga`
     * fields has an FPGA at every city or at none. A city has none in a topology without the
     * capability (the parser rejects `"fpga": true` there).
     * @param city a city index
     * @return whether its router has an FPGA
     * @throws std::out_of_range when there is no such city
     */
    bool HasFpga(uint32_t city) const;
    /** @return the cities whose routers host an FPGA (HasFpga), in increasing index */
    std::vector<uint32_t> GetFpgaCities() const;
    /** @return the topology-wide default IP MTU (`defaults.mtu_bytes`) */
    uint32_t GetDefaultMtuBytes() const;
    /**
     * @param src source city index
     * @param dst destination city index
     * @return the smallest IP MTU along the route src -> dst (access links use the default MTU)
     */
    uint32_t GetPathMtuBytes(uint32_t src, uint32_t dst) const;
    /**
     * @brief The simulation frame: the IP bytes of one simulated packet (`defaults.frame_bytes`).
     *
     * 0 (the default): exact frames, a chunk fills the path MTU. Otherwise coarse frames: a
     * chunk fills this many IP bytes while the wire is accounted as frames of the MTU, headers
     * included (WireFrames, doc/wan-training.rst "Coarse frames"); the topology then has one
     * MTU on every link, and the devices' MTU is raised to the frame (GetDeviceMtuBytes).
     * @return the simulation frame's IP bytes, 0 for exact frames
     */
    uint32_t GetFrameBytes() const;
    /**
     * @param mtu a link's IP MTU
     * @return the MTU its devices get in the simulation: the larger of it and GetFrameBytes()
     */
    uint32_t GetDeviceMtuBytes(uint32_t mtu) const;
    /**
     * @brief The same WAN with another simulation frame (a run's override of
     * `defaults.frame_bytes`).
     * @param frameBytes the simulation frame's IP bytes, 0 for exact frames
     * @return the topology with it
     * @throws WanConfigError (field `frameBytes`) for a frame over 65535 bytes or below the MTU,
     *         or coarse frames on a topology whose links do not share one MTU
     */
    WanTopology WithFrameBytes(uint32_t frameBytes) const;
    /**
     * @return the queue model of every port (`defaults.router_queue`; drop-tail with
     *         WanRouterQueue::DEFAULT_BUFFER_MS when the field is absent)
     */
    const WanRouterQueue& GetRouterQueue() const;
    /**
     * @param d a directed link index
     * @return the byte limit of the device queue of its transmitting port
     *         (WanRouterQueue::GetBufferBytes of its capacity)
     */
    uint32_t GetPortBufferBytes(uint32_t d) const;

  private:
    WanTopology() = default;
    /** Compute every route with the tie-breaking rules of the schedule model. */
    void ComputeRoutes();
    /**
     * @param frameBytes a simulation frame (GetFrameBytes)
     * @return why this topology cannot take it, empty when it can
     */
    std::string CheckFrameBytes(uint32_t frameBytes) const;

    std::string m_name;                                           //!< topology name
    std::string m_source;                                         //!< file or source name
    std::vector<WanCity> m_cities;                                //!< cities by index
    std::map<std::string, uint32_t> m_index;                      //!< city id -> index
    std::vector<WanLink> m_links;                                 //!< WAN links
    std::map<std::pair<uint32_t, uint32_t>, uint32_t> m_directed; //!< (from, to) -> directed link
    std::vector<std::vector<WanRoute>> m_routes;                  //!< [src][dst]
    std::vector<uint32_t> m_downLinks;                            //!< WAN links down, sorted
    bool m_multicast{false};                                      //!< multicast capability
    bool m_aggregation{false};                                    //!< aggregation capability
    bool m_core{false};                                           //!< core capability
    uint32_t m_defaultMtu{0};                                     //!< defaults.mtu_bytes
    uint32_t m_frameBytes{0};                                     //!< defaults.frame_bytes
    WanRouterQueue m_routerQueue;                                 //!< defaults.router_queue
};

} // namespace ns3

#endif /* WAN_TOPOLOGY_H */
