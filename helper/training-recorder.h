/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef TRAINING_RECORDER_H
#define TRAINING_RECORDER_H

#include "aggregator-net-device.h"
#include "clique-schedule.h"
#include "island-sync-header.h"
#include "wan-fault-error-model.h"
#include "wan-topology.h"

#include "ns3/application-container.h"
#include "ns3/callback.h"
#include "ns3/packet.h"
#include "ns3/ptr.h"

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

class WanTopologyHelper;
class TrainingIslandApplication;
class QueueDiscItem;

/**
 * @ingroup wan-training
 * @brief Records what a training run did, from the trace sources of its applications and
 * devices: per round and island the start, exchange start and end times, the outcome
 * (completed with its contributors, abandoned, crashed, or pending) and why; per directed link
 * and per island the traffic and repair counters; the exclusions, route changes and how the run
 * ended.
 *
 * Built after the applications are installed and before Simulator::Run(), it connects to the
 * applications and to the devices of every directed link, and must outlive the simulation.
 * Link counters come from PhyTxBegin of WanTopologyHelper::GetTxDevice(d): packets and bytes on
 * the wire (PPP header included) and model bytes (the payload of DATA and AGGREGATE chunks after
 * the fixed IslandSyncHeader, so one stream of a model of S bytes adds exactly S); losses from
 * the receive error model (a WanFaultErrorModel also counts down-link losses, reordering and
 * duplicates) and queue drops. A multicast chunk counts on every link of its tree, an FPGA's
 * aggregate on the link its port sends on. The FPGA counters are read from each city's
 * InlineFpga and its ports (GetFpga, GetFpgaPorts). The recorder reports exchange starts, round
 * ends and cliques whose outcomes changed through callbacks, after it has recorded them.
 */
class TrainingRecorder
{
  public:
    /** Traffic of one directed link. */
    struct LinkCounters
    {
        uint64_t packets{0};          //!< packets transmitted
        uint64_t wireFrames{0};       //!< frames of the wire MTU they stand for (coarse frames)
        uint64_t bytes{0};            //!< bytes on the wire (PPP header included)
        uint64_t modelBytes{0};       //!< model payload bytes of chunk packets (no frame headers)
        uint64_t dataPackets{0};      //!< DATA packets (contributions, repairs)
        uint64_t aggregatePackets{0}; //!< AGGREGATE packets
        uint64_t errorDrops{0};       //!< packets lost to random loss (receive error model)
        uint64_t queueDrops{0};       //!< packets dropped by the device queue or queue disc
        uint64_t linkDownDrops{0};    //!< packets lost because the link was down
        uint64_t reordered{0};        //!< packets delivered late (after later ones)
        uint64_t duplicated{0};       //!< packets delivered twice
    };

    /** The outcome of one round on one island. */
    enum RoundStatus : uint8_t
    {
        PENDING = 0,   //!< not ended (yet)
        COMPLETED = 1, //!< ended with an average (verified against the shadow copies)
        ABANDONED = 2, //!< ended without an average: a contributor stalled halfway
        CRASHED = 3,   //!< the island crashed before the round
    };

    /** What one island did in one round. */
    struct IslandRound
    {
        double startS{-1};           //!< round start (negative: never)
        double exchangeStartS{-1};   //!< exchange start (negative: never)
        double endS{-1};             //!< round end with an average (negative: never)
        RoundStatus status{PENDING}; //!< outcome
        uint64_t contributors{0};    //!< contributor bitmap of its average (0 unless COMPLETED)
    };

    /** Traffic and repairs of one island. */
    struct IslandCounters
    {
        uint64_t egressModelBytes{0};  //!< model bytes of the chunks it sent (repairs included)
        uint64_t ingressModelBytes{0}; //!< model bytes of the chunks it received
        uint64_t chunksSent{0};        //!< chunks sent
        uint64_t repairs{0};           //!< chunks sent again (NACK repairs and probes)
        uint64_t nacksSent{0};         //!< repair requests sent
        uint64_t chunksRequested{0};   //!< chunks its NACKs asked for
        uint64_t duplicates{0};        //!< chunks received that added nothing
        uint64_t repairedChunks{0};    //!< chunks that arrived after a NACK asked for them
        double repairWaitSumS{0};      //!< their waits from first NACK to arrival, summed
        double repairWaitMaxS{0};      //!< the longest of those waits
        uint64_t paritiesSent{0};      //!< PARITY packets sent (FecBlock)
        uint64_t chunksRebuilt{0};     //!< chunks rebuilt from a PARITY
        uint32_t roundsCompleted{0};   //!< rounds ended
    };

    /** An exclusion reported by an island. */
    struct Exclusion
    {
        uint32_t round{0};  //!< the round
        uint32_t island{0}; //!< who excluded
        uint32_t member{0}; //!< whom
        std::string reason; //!< why
        double timeS{0};    //!< when
    };

    /** A change of the installed routes. */
    struct RouteChange
    {
        double timeS{0};                               //!< when
        std::vector<uint32_t> downLinks;               //!< WAN links down from then on
        std::vector<std::vector<uint32_t>> components; //!< connected components
    };

    /**
     * Signature of the exchange-start and round-end callbacks.
     * @param island the island
     * @param round the round
     * @param clique its clique (CliqueSchedule::IDLE when idle)
     * @param parameters its contribution (exchange start) or new parameters (round end)
     */
    typedef Callback<void, uint32_t, uint32_t, uint32_t, const std::vector<float>&>
        ParametersCallback;
    /**
     * Signature of the callback told that members of a clique got an outcome other than
     * COMPLETED (abandoned, crashed).
     * @param round the round
     * @param clique the clique
     */
    typedef Callback<void, uint32_t, uint32_t> CliqueCallback;

    /**
     * @brief Connect to a run's applications and devices.
     * @param scenario the installed scenario
     * @param schedule the schedule the applications run
     * @param apps the TrainingIslandApplications, one per island in city order
     */
    TrainingRecorder(const WanTopologyHelper& scenario,
                     const CliqueSchedule& schedule,
                     const ApplicationContainer& apps);

    TrainingRecorder(const TrainingRecorder&) = delete;
    TrainingRecorder& operator=(const TrainingRecorder&) = delete;

    /**
     * @brief Set the callbacks, called after the event is recorded.
     * @param exchangeStarted called when an island starts its exchange
     * @param roundFinished called when an island ends a round with an average
     * @param outcome called when a member of a clique abandons a round or crashes
     */
    void SetCallbacks(ParametersCallback exchangeStarted,
                      ParametersCallback roundFinished,
                      CliqueCallback outcome);

    /** @return the topology */
    const WanTopology& GetTopology() const;
    /** @return the schedule */
    const CliqueSchedule& GetSchedule() const;
    /** @return the rounds of the run */
    uint32_t GetNRounds() const;
    /**
     * @param city an island
     * @return its application
     */
    Ptr<TrainingIslandApplication> GetApplication(uint32_t city) const;

    /** A port of a router's in-line FPGA. */
    struct FpgaPort
    {
        std::string link;                //!< the directed link it sends on (e.g. "NYC:down")
        Ptr<AggregatorNetDevice> device; //!< the port
    };

    /**
     * @param city a city
     * @return its router's in-line FPGA, or null
     */
    Ptr<InlineFpga> GetFpga(uint32_t city) const;
    /**
     * @param city a city
     * @return the ports of its router's FPGA (none without one), in directed-link order
     */
    const std::vector<FpgaPort>& GetFpgaPorts(uint32_t city) const;

    /**
     * @param d a directed link
     * @return its counters (the fault counters read from its WanFaultErrorModel now)
     */
    const LinkCounters& GetLinkCounters(uint32_t d) const;
    /**
     * @param city an island
     * @return its counters
     */
    const IslandCounters& GetIslandCounters(uint32_t city) const;
    /**
     * @param round a round
     * @param island an island
     * @return the outcome of the round on the island
     */
    RoundStatus GetRoundStatus(uint32_t round, uint32_t island) const;
    /**
     * @param round a round
     * @param island an island
     * @return the contributor bitmap of its average (0 unless COMPLETED)
     */
    uint64_t GetContributors(uint32_t round, uint32_t island) const;
    /**
     * @param round a round
     * @param island an island
     * @return what it did in the round (times, outcome, contributors)
     */
    const IslandRound& GetIslandRound(uint32_t round, uint32_t island) const;
    /**
     * @param round a round
     * @param island an island
     * @return why it did not complete the round, or why its average could not be checked
     *         (empty: no reason recorded)
     */
    std::string GetReason(uint32_t round, uint32_t island) const;
    /**
     * @brief Record why a round's outcome on an island is not a verified average.
     * @param round the round
     * @param island the island
     * @param reason why
     */
    void SetReason(uint32_t round, uint32_t island, const std::string& reason);
    /** @return the exclusions, in time order */
    const std::vector<Exclusion>& GetExclusions() const;
    /** @return the route changes, in time order */
    const std::vector<RouteChange>& GetRouteChanges() const;
    /** @return whether some route change left the WAN partitioned */
    bool WasPartitioned() const;
    /** @return whether the time limit stopped the run */
    bool WasStoppedByTimeLimit() const;
    /** @return the simulated-time limit of the run (0: none) */
    double GetTimeLimitS() const;
    /** @return whether every island that did not crash completed every round */
    bool IsComplete() const;
    /**
     * @param round a round
     * @return whether every island completed it or had crashed
     */
    bool IsRoundComplete(uint32_t round) const;
    /** @return the simulated time of the latest round end on any island (0: none) */
    double GetTrainingTimeS() const;

    /**
     * @brief Record that the installed routes changed (a link went down or came up).
     * @param downLinks the WAN links down from now on
     * @param components the connected components of the cities over the links that are up
     */
    void RecordRouteChange(const std::vector<uint32_t>& downLinks,
                           const std::vector<std::vector<uint32_t>>& components);
    /**
     * @brief Record how the run ended: the rounds still pending get the reason (the island's
     * state, and whether the time limit or a lack of events ended the run).
     * @param timeLimitS the simulated-time limit of the run (0: none)
     * @param stoppedByTimeLimit whether the limit stopped the simulation
     */
    void Finish(double timeLimitS, bool stoppedByTimeLimit);

  private:
    /**
     * @brief Tell a callback of an exchange start or round end, if it is set.
     * @param callback the callback
     * @param island the island
     * @param round the round
     * @param clique its clique
     * @param parameters its parameters
     */
    static void Notify(const ParametersCallback& callback,
                       uint32_t island,
                       uint32_t round,
                       uint32_t clique,
                       const std::vector<float>& parameters);
    /**
     * @brief Connect to the trace sources of every application.
     */
    void ConnectApplications();
    /**
     * @brief Connect to the devices (and queue discs, error models) of a directed link.
     * @param scenario the installed scenario
     * @param d the directed link
     */
    void ConnectLink(const WanTopologyHelper& scenario, uint32_t d);
    /** RoundAbandoned sink: the round ended on the island without an average. */
    void OnRoundAbandoned(uint32_t island,
                          uint32_t round,
                          uint32_t clique,
                          const std::string& reason);
    /** MemberExcluded sink: an island left a member out of its clique. */
    void OnMemberExcluded(uint32_t island,
                          uint32_t round,
                          uint32_t member,
                          const std::string& reason);
    /** Crashed sink: the island's remaining rounds are over. */
    void OnCrashed(uint32_t island, uint32_t round);
    /** RoundStarted sink: when the island started the round. */
    void OnRoundStarted(uint32_t island, uint32_t round);
    /** ExchangeStarted sink: when the island started the round's exchange. */
    void OnExchangeStarted(uint32_t island,
                           uint32_t round,
                           uint32_t clique,
                           const std::vector<float>& parameters);
    /** RoundFinished sink: the island ended the round with an average. */
    void OnRoundFinished(uint32_t island,
                         uint32_t round,
                         uint32_t clique,
                         const std::vector<float>& parameters);
    /** ChunkSent sink: the sender's egress model bytes, chunks and repairs. */
    void OnChunkSent(uint32_t island,
                     uint32_t destination,
                     const IslandSyncHeader& header,
                     uint32_t modelBytes,
                     bool resent);
    /** ChunkReceived sink: the receiver's ingress model bytes and duplicates. */
    void OnChunkReceived(uint32_t island,
                         const IslandSyncHeader& header,
                         uint32_t modelBytes,
                         bool duplicate);
    /** RepairRequested sink: the requester's NACKs and chunks asked for. */
    void OnRepairRequested(uint32_t island, uint32_t source, uint32_t round, uint32_t chunks);
    /** ChunkRepaired sink: the repaired chunks and their waits. */
    void OnChunkRepaired(uint32_t island, uint32_t source, uint32_t round, Time wait);
    /** ParitySent sink: the parities sent. */
    void OnParitySent(uint32_t island, uint32_t destination, const IslandSyncHeader& header);
    /** ChunkRebuilt sink: the chunks rebuilt. */
    void OnChunkRebuilt(uint32_t island, uint32_t source, uint32_t round);
    /** PhyTxBegin sink of directed link d: packets, bytes and model bytes. */
    void OnPhyTxBegin(uint32_t d, Ptr<const Packet> packet);
    /** Receive error model loss on directed link d. */
    void OnErrorDrop(uint32_t d, Ptr<const Packet> packet);
    /** MacTxDrop sink of directed link d: the device queue dropped a packet. */
    void OnQueueDrop(uint32_t d, Ptr<const Packet> packet);
    /** Drop sink of the queue disc of directed link d. */
    void OnQueueDiscDrop(uint32_t d, Ptr<const QueueDiscItem> item);

    WanTopology m_topology;                             //!< the topology
    CliqueSchedule m_schedule;                          //!< the schedule
    std::vector<Ptr<TrainingIslandApplication>> m_apps; //!< by city
    std::vector<Ptr<InlineFpga>> m_fpgas;               //!< by city (null: no FPGA)
    std::vector<std::vector<FpgaPort>> m_fpgaPorts;     //!< by city
    uint32_t m_rounds{0};                               //!< rounds of the run
    uint16_t m_port{0};                                 //!< the transport's UDP port
    /** Per payload format, the model bytes of one wire frame of coarse frames (0: exact),
     *  WireFrames::GetCapacity computed once: read for every chunk on every link. */
    std::array<uint32_t, 3> m_frameCapacity{};
    std::vector<std::vector<IslandRound>> m_table;                  //!< [round][island]
    std::map<std::pair<uint32_t, uint32_t>, std::string> m_reasons; //!< (round, island) -> why
    std::vector<Exclusion> m_exclusions;                            //!< exclusions, in time order
    std::vector<RouteChange> m_routeChanges;            //!< route changes, in time order
    double m_timeLimitS{0};                             //!< the run's time limit
    bool m_stoppedByTimeLimit{false};                   //!< whether it stopped the run
    std::vector<Ptr<WanFaultErrorModel>> m_faultModels; //!< by directed link, or null
    mutable std::vector<LinkCounters> m_links; //!< by directed link (fault counters on read)
    std::vector<IslandCounters> m_islands;     //!< by city
    ParametersCallback m_exchangeStarted;      //!< told of exchange starts
    ParametersCallback m_roundFinished;        //!< told of round ends
    CliqueCallback m_outcome;                  //!< told of abandoned rounds and crashes
};

} // namespace ns3

#endif /* TRAINING_RECORDER_H */
