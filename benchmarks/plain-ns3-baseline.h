/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef PLAIN_NS3_BASELINE_H
#define PLAIN_NS3_BASELINE_H

#include "clique-schedule.h"
#include "wan-topology.h"

#include "ns3/application-container.h"
#include "ns3/ipv4-address.h"

#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <utility>
#include <vector>

namespace ns3
{

class WanTopologyHelper;

/**
 * @ingroup wan-training
 * @brief The plain-ns-3 baseline of the benchmarks: the packets a training run put on the wire,
 * replayed by stock ns-3 applications over the same scenario and routes.
 *
 * The scenario is WanTopologyHelper's (the same nodes, point-to-point links, queues, queue
 * discs, addresses and static routes, with stock PointToPointNetDevices only: no in-line
 * FPGA), plus PimMulticastHelper's source trees when a flow goes to a multicast group. Every
 * flow is one or more stock UdpClients (one per packet size, one after the other) sending the
 * flow's packets at its rate; every node a flow ends at runs a stock PacketSink. No module
 * class is on the packet path: no TrainingIslandApplication, no AggregatorNetDevice, no trace
 * sink. Per-link packet counts are read after the run from the device queues' statistics.
 *
 * What "the same packets" means per mode (the traffic comes from TrafficRecorder):
 * - unicast (and ring): one flow per (sender, receiver) island pair, island to island;
 * - multicast: one flow per sender to its group, replicated by the routers to the members;
 * - aggregation: the contributions end where our FPGA absorbs them, so each flows from the
 *   sender's island to the receiver's router (same route, minus the access down link), and
 *   one flow per receiver from its router to its island carries exactly the aggregates our
 *   run delivered on that link;
 * - both: the senders' group flows with the members' access down links removed from the
 *   routers' multicast routes (a copy ends at the member's router, where our FPGA absorbs it),
 *   plus the same router-to-island aggregate flows;
 * - tree: each member's contributions flow from its island to the first router whose FPGA
 *   sums them (or to the root island), each partial aggregate from the router that sent it to
 *   the next router that sums it (or to the root island), and the root's totals go to its
 *   group over the source tree from the root;
 * - control, in every mode: the transport's READY, DONE and NACK messages, one flow per sender
 *   and receiver island.
 */
class PlainNs3Baseline
{
  public:
    /** Where a flow ends. */
    enum class Target
    {
        ISLAND, //!< the destination city's island
        ROUTER, //!< the destination city's router (its address on the access link)
        GROUP,  //!< a multicast group
    };

    /** One stream of packets. */
    struct Flow
    {
        uint32_t source{0};            //!< city of the sending node
        bool fromRouter{false};        //!< whether the city's router sends (else its island)
        Target target{Target::ISLAND}; //!< where the flow ends
        uint32_t destination{0};       //!< city of the receiving node (ISLAND, ROUTER)
        Ipv4Address group;             //!< the group (GROUP)
        double startS{0};              //!< when the first packet leaves, simulated seconds
        double rateBps{0};             //!< pacing rate on the wire (PPP, IPv4, UDP and payload)
        std::vector<std::pair<uint32_t, uint64_t>> sizes; //!< (UDP payload bytes, packets),
                                                          //!< sent in this order
    };

    /** Everything to replay. */
    struct Traffic
    {
        std::vector<Flow> flows;           //!< the flows
        bool multicast{false};             //!< whether to install the schedule's source trees
        bool absorbAtMemberRouters{false}; //!< whether group copies end at member routers
    };

    /**
     * @param traffic the traffic
     * @return it as JSON
     */
    static nlohmann::json ToJson(const Traffic& traffic);
    /**
     * @param json the output of ToJson
     * @return the traffic
     */
    static Traffic FromJson(const nlohmann::json& json);

    /**
     * @param topology the topology (copied)
     * @param schedule the schedule whose multicast groups the traffic uses (copied)
     * @param traffic the traffic to replay
     */
    PlainNs3Baseline(const WanTopology& topology,
                     const CliqueSchedule& schedule,
                     const Traffic& traffic);

    /** Destroy the simulation and forget the node names. */
    ~PlainNs3Baseline();

    PlainNs3Baseline(const PlainNs3Baseline&) = delete;
    PlainNs3Baseline& operator=(const PlainNs3Baseline&) = delete;

    /** @brief Build the scenario, routes, senders and sinks. Call once. */
    void Build();

    /** @brief Build() if not yet built, then run the simulation until the last packet arrived. */
    void Run();

    /** @return wall-clock seconds of Simulator::Run() */
    double GetWallSeconds() const;
    /** @return wall-clock seconds of building the scenario, routes and applications */
    double GetSetupSeconds() const;
    /** @return the simulated time at the end of the run, seconds */
    double GetSimulatedSeconds() const;
    /** @return events executed (Simulator::GetEventCount) */
    uint64_t GetEvents() const;
    /** @return packets transmitted per directed link (WanTopology numbering) */
    const std::vector<uint64_t>& GetLinkPackets() const;
    /** @return packets dropped by device queues and queue discs, summed over every link */
    uint64_t GetDrops() const;
    /** @return UDP payload bytes the sinks received */
    uint64_t GetDeliveredBytes() const;
    /** @return group copies the member routers' GroupCopyDiscardQueues discarded */
    uint64_t GetDiscardedCopies() const;
    /** @return group copies that should end at the member routers (our FPGAs absorb them) */
    uint64_t GetExpectedDiscardedCopies() const;
    /** @return UDP payload bytes the sinks should receive (each group copy counted) */
    uint64_t GetExpectedBytes() const;

  private:
    /**
     * @brief Give every router's access down device a GroupCopyDiscardQueue (of the same
     * size), so that a group's copies end on the member routers' island ports, where our
     * in-line FPGAs absorb them, after the same multicast forwarding as ours.
     * @param scenario the installed scenario
     */
    void DiscardGroupCopiesAtMemberRouters(const WanTopologyHelper& scenario);

    WanTopology m_topology;                        //!< the topology
    CliqueSchedule m_schedule;                     //!< the schedule
    Traffic m_traffic;                             //!< the traffic
    std::unique_ptr<WanTopologyHelper> m_scenario; //!< the scenario (after Build)
    ApplicationContainer m_sinks;                  //!< the PacketSinks (after Build)
    double m_wallSeconds{0};                       //!< wall time of Simulator::Run()
    double m_setupSeconds{0};                      //!< wall time of the set-up
    double m_simulatedSeconds{0};                  //!< simulated time at the end
    uint64_t m_events{0};                          //!< events executed
    std::vector<uint64_t> m_links;                 //!< packets per directed link
    uint64_t m_drops{0};                           //!< queue drops
    uint64_t m_deliveredBytes{0};                  //!< bytes received by the sinks
    uint64_t m_expectedBytes{0};                   //!< bytes the sinks should receive
    uint64_t m_discardedCopies{0};                 //!< group copies discarded at member ports
    uint64_t m_expectedDiscards{0};                //!< group copies that should be discarded
};

} // namespace ns3

#endif /* PLAIN_NS3_BASELINE_H */
