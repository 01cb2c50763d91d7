/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef TRAFFIC_RECORDER_H
#define TRAFFIC_RECORDER_H

#include "plain-ns3-baseline.h"

#include "ns3/ipv4-address.h"

#include <cstdint>
#include <map>
#include <tuple>
#include <vector>

namespace ns3
{

class IslandSyncHeader;
class TrainingRun;

/**
 * @ingroup wan-training
 * @brief Records the chunk streams of a training run, so that PlainNs3Baseline can replay
 * the same packets with stock ns-3 applications.
 *
 * Connected after TrainingRun::Build() to every island's ChunkSent, ChunkReceived and
 * ControlSent traces (and RoundFinished), it keeps per stream (sender island, destination island or
 * its multicast group) the packets by UDP payload size (IslandSyncHeader::FIXED_SIZE + model
 * bytes), the time of the first send and the measured pacing rate: the wire bits of every
 * packet but the last over the time from the first to the last send. In aggregation and both
 * modes it keeps, per receiving island, the AGGREGATE chunks that arrived (what the FPGA put on
 * the island's access down link; ring mode's partial sums, also AGGREGATE chunks, are streams
 * between islands like any other) the same way; their start is the first arrival minus the
 * transmission and propagation time of that link. Repairs and probes are packets on the wire
 * like any other and are counted (GetResentChunks tells how many there were). In tree mode
 * a contribution addressed to the root ends at the first router on its route whose FPGA port
 * sums it (the port's expectation for the chunk's round and clique covers its contributor
 * bits), or at the root island when none does: the members' DATA are recorded as flows from
 * their island to that router (or island), and every partial aggregate a port sends
 * (its AggregateOut trace, at the time it leaves) as a flow from the port's router to the next
 * router that sums it, or to the root island; the root's total is a group stream like any
 * other. The control
 * messages (READY, DONE, NACK: the ControlSent trace) are streams of their own, per sender and
 * destination island, recorded the same way, so that the baseline puts every packet of the run
 * on the wire.
 */
class TrafficRecorder
{
  public:
    /**
     * @brief Connect to a built run.
     * @param run the run (Build() called); must outlive the recorder's use
     */
    explicit TrafficRecorder(TrainingRun& run);

    TrafficRecorder(const TrafficRecorder&) = delete;
    TrafficRecorder& operator=(const TrafficRecorder&) = delete;

    /** @return the recorded traffic as PlainNs3Baseline flows (after the run) */
    PlainNs3Baseline::Traffic GetTraffic() const;
    /** @return chunks sent again (NACK repairs and probes) */
    uint64_t GetResentChunks() const;
    /** @return the simulated time the last island ended its last round, seconds */
    double GetLastRoundEndSeconds() const;

  private:
    /** The packets of one stream. */
    struct Stream
    {
        uint64_t packets{0};                //!< packets
        double firstS{0};                   //!< first send (or arrival)
        double lastS{0};                    //!< last send (or arrival)
        double bits{0};                     //!< wire bits of every packet
        double lastBits{0};                 //!< wire bits of the last packet
        std::map<uint32_t, uint64_t> sizes; //!< UDP payload bytes -> packets
        Ipv4Address group;                  //!< the multicast group (group streams)
    };

    /**
     * @param stream the stream
     * @param payloadBytes the packet's UDP payload bytes
     */
    static void Add(Stream& stream, uint32_t payloadBytes);

    /**
     * @param island the sender
     * @param destination the receiver, or TrainingIslandApplication::ALL_MEMBERS
     * @param header the chunk header
     * @param modelBytes the chunk's model bytes
     * @param resent whether it is a repair or a probe
     */
    void OnChunkSent(uint32_t island,
                     uint32_t destination,
                     const IslandSyncHeader& header,
                     uint32_t modelBytes,
                     bool resent);
    /**
     * @param island the receiver
     * @param header the chunk header
     * @param modelBytes the chunk's model bytes
     * @param duplicate whether it added nothing
     */
    void OnChunkReceived(uint32_t island,
                         const IslandSyncHeader& header,
                         uint32_t modelBytes,
                         bool duplicate);
    /**
     * @param router the city of the router whose FPGA port sent it
     * @param link the directed link of that port
     * @param header the aggregate's header
     * @param complete whether every expected contribution is in it
     */
    void OnAggregateOut(uint32_t router,
                        uint32_t link,
                        const IslandSyncHeader& header,
                        bool complete);
    /**
     * @brief Tree mode: add a packet addressed to the root to the flow it belongs to, ending at
     * the first router after `from` whose FPGA port sums it, or at the root island.
     * @param from the city whose router forwards the packet first (the sender's, or the next
     *        router after the port that sent it)
     * @param root the clique's root island
     * @param header the packet's header (round, clique, contributor bits)
     * @param payloadBytes its UDP payload bytes
     * @param source the sender's city
     * @param fromRouter whether the sender is that city's router (else its island)
     */
    void AddTowardRoot(uint32_t from,
                       uint32_t root,
                       const IslandSyncHeader& header,
                       uint32_t payloadBytes,
                       uint32_t source,
                       bool fromRouter);
    /**
     * @param island the sender
     * @param destination the receiving island
     * @param header the message's header (the whole UDP payload)
     */
    void OnControlSent(uint32_t island, uint32_t destination, const IslandSyncHeader& header);
    /**
     * @param island the island
     * @param round the round
     * @param clique its clique
     * @param parameters its new parameters
     */
    void OnRoundFinished(uint32_t island,
                         uint32_t round,
                         uint32_t clique,
                         const std::vector<float>& parameters);

    /** Tree mode: where a flow starts and ends (sender city, from its router?, end city, at
     * its router?). */
    using TreeFlowKey = std::tuple<uint32_t, bool, uint32_t, bool>;

    TrainingRun& m_run;                        //!< the run
    uint32_t m_n{0};                           //!< islands
    bool m_aggregated{false};                  //!< whether FPGAs absorb the contributions
    bool m_tree{false};                        //!< whether router FPGAs sum toward the roots
    std::map<TreeFlowKey, Stream> m_treeFlows; //!< tree mode: flows that start or end at a router
    std::map<Ipv4Address, uint32_t> m_islandOfAddress; //!< tree mode: island address -> city
    std::vector<Stream> m_sent;       //!< [sender x (N + 1) + destination], N: the group
    std::vector<Stream> m_aggregates; //!< AGGREGATEs received, by island
    std::vector<Stream> m_control;    //!< [sender x N + destination] READY, DONE and NACK
    uint64_t m_resent{0};             //!< chunks resent
    double m_lastRoundEndS{0};        //!< last RoundFinished
};

} // namespace ns3

#endif /* TRAFFIC_RECORDER_H */
