/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef TRAINING_RESULTS_H
#define TRAINING_RESULTS_H

#include "aggregator-net-device.h"
#include "clique-schedule.h"
#include "island-sync-header.h"
#include "local-objective.h"
#include "wan-topology.h"

#include "ns3/application-container.h"
#include "ns3/packet.h"
#include "ns3/ptr.h"

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
 * @brief Records a training run and writes its results JSON.
 *
 * Built after the applications are installed and before Simulator::Run(), it connects to the
 * applications' trace sources and to the devices of every directed link, and must outlive the
 * simulation. It records:
 *
 * - per round: first start, last end, and per clique the exchange start (the last member to
 *   finish compute), end (the last member to hold everything) and communication time, next to
 *   MODEL.md's T_comm for the round (ScheduleMetrics);
 * - per directed link (from PhyTxBegin of WanTopologyHelper::GetTxDevice(d)): packets and bytes
 *   on the wire (PPP header included) and model bytes (the payload of DATA/AGGREGATE chunks
 *   after the fixed IslandSyncHeader: values plus padding, so one stream of a model of S bytes
 *   adds exactly S); the DATA and AGGREGATE packets among them; packets lost to the receive
 *   error model and dropped by queues. A multicast chunk is counted on every link of its source
 *   tree (once per copy the routers make: replication is visible per link), an FPGA's
 *   aggregate on its island's :down link (the contributions it absorbed never cross it);
 * - per city with an in-line FPGA (AggregatorNetDevice), its counters at the end of the run:
 *   contributions in and summed, duplicates, aggregates out, partial aggregates (timeouts),
 *   pass-throughs by reason, slot and outbox high-water marks;
 * - per island: model bytes sent and received, chunks resent (repairs), NACKs sent;
 * - verification: at exchange start it keeps a shadow copy of every member's contribution;
 *   when a member ends the round its new parameters are compared with the double-precision
 *   average of the shadow copies of its clique (never with what the island received);
 * - loss and consensus over simulated time, sampled whenever an island's parameters change
 *   state (exchange start and round end): loss = F(mean_i x_i) - F(x*), island mean loss
 *   = mean_i F(x_i) - F(x*), consensus = mean_i ||x_i - mean_j x_j||^2;
 * - the colocated reference: all islands average exactly after every LocalSteps steps at no
 *   communication cost, sampled at (r + 1) LocalSteps x StepTime.
 */
class TrainingResults
{
  public:
    /** Relative tolerance of the verification, max(1, |average|) scaled. */
    static constexpr double VERIFY_TOLERANCE = 1e-6;

    /** Traffic of one directed link. */
    struct LinkCounters
    {
        uint64_t packets{0};          //!< packets transmitted
        uint64_t bytes{0};            //!< bytes on the wire (PPP header included)
        uint64_t modelBytes{0};       //!< model payload bytes of chunk packets
        uint64_t dataPackets{0};      //!< DATA packets (contributions, repairs)
        uint64_t aggregatePackets{0}; //!< AGGREGATE packets
        uint64_t errorDrops{0};       //!< packets lost to the receive error model
        uint64_t queueDrops{0};       //!< packets dropped by the device queue or queue disc
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
        uint32_t roundsCompleted{0};   //!< rounds ended
    };

    /** Global state at one instant. */
    struct Sample
    {
        double timeS{0};          //!< simulated time
        double loss{0};           //!< F(average model) - F*
        double islandMeanLoss{0}; //!< mean over islands of F(x_i) - F*
        double consensus{0};      //!< mean squared distance to the average model
    };

    /**
     * @brief Connect to a run's applications and devices.
     * @param scenario the installed scenario
     * @param schedule the schedule the applications run
     * @param apps the TrainingIslandApplications, one per island in city order
     */
    TrainingResults(const WanTopologyHelper& scenario,
                    const CliqueSchedule& schedule,
                    const ApplicationContainer& apps);

    TrainingResults(const TrainingResults&) = delete;
    TrainingResults& operator=(const TrainingResults&) = delete;

    /**
     * @brief Set the `config` object of the results.
     * @param json a JSON object (text)
     */
    void SetConfigJson(const std::string& json);

    /**
     * @param d a directed link
     * @return its counters
     */
    const LinkCounters& GetLinkCounters(uint32_t d) const;
    /**
     * @param city an island
     * @return its counters
     */
    const IslandCounters& GetIslandCounters(uint32_t city) const;
    /** @return rounds in which every island ended and every clique was verified */
    uint32_t GetRoundsVerified() const;
    /** @return member checks done (one per member of a clique of two or more per round) */
    uint64_t GetChecks() const;
    /** @return the largest |new parameter - shadow average| */
    double GetMaxAbsError() const;
    /** @return the largest |new parameter - shadow average| / max(1, |shadow average|) */
    double GetMaxRelError() const;
    /** @return the samples of loss and consensus, in time order */
    const std::vector<Sample>& GetSamples() const;
    /** @return F(x*), the optimum of the mean objective */
    double GetOptimalLoss() const;
    /** @return whether every island ended every round */
    bool IsComplete() const;

    /** @return the results document (pretty printed JSON) */
    std::string ToJson() const;

    /**
     * @brief Write ToJson() to a file.
     * @param path the file
     * @throws WanInputError when it cannot be written
     */
    void WriteFile(const std::string& path) const;

  private:
    /** Shadow copies of one clique's contributions in one round. */
    struct Shadow
    {
        std::map<uint32_t, std::vector<float>> contributions; //!< by member
        std::vector<double> average;                          //!< computed on first check
        uint32_t checked{0};                                  //!< members checked
    };

    /**
     * @param island the island
     * @param round the round
     */
    void OnRoundStarted(uint32_t island, uint32_t round);
    /**
     * @param island the island
     * @param round the round
     * @param clique its clique
     * @param parameters its contribution
     */
    void OnExchangeStarted(uint32_t island,
                           uint32_t round,
                           uint32_t clique,
                           const std::vector<float>& parameters);
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
    /**
     * @param island the sender
     * @param destination the receiver
     * @param header the chunk header
     * @param modelBytes the chunk's model bytes
     * @param resent whether it is a repair
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
     * @param island the requester
     * @param source the contributor
     * @param round the round
     * @param chunks chunks requested
     */
    void OnRepairRequested(uint32_t island, uint32_t source, uint32_t round, uint32_t chunks);
    /**
     * @param d the directed link
     * @param packet the packet, PPP header included
     */
    void OnPhyTxBegin(uint32_t d, Ptr<const Packet> packet);
    /**
     * @param d the directed link
     * @param packet the lost packet
     */
    void OnErrorDrop(uint32_t d, Ptr<const Packet> packet);
    /**
     * @param d the directed link
     * @param packet the packet the device queue dropped
     */
    void OnQueueDrop(uint32_t d, Ptr<const Packet> packet);
    /**
     * @param d the directed link
     * @param item the item the queue disc dropped
     */
    void OnQueueDiscDrop(uint32_t d, Ptr<const QueueDiscItem> item);
    /** Record a sample of the current state. */
    void TakeSample();
    /**
     * @param x parameters
     * @return F(x) of the mean objective, in O(dimension)
     */
    double MeanLoss(const std::vector<double>& x) const;

    WanTopology m_topology;                                    //!< the topology
    CliqueSchedule m_schedule;                                 //!< the schedule
    std::vector<Ptr<TrainingIslandApplication>> m_apps;        //!< by city
    std::vector<Ptr<AggregatorNetDevice>> m_aggregators;       //!< by city (null: no FPGA)
    std::vector<LocalObjective> m_objectives;                  //!< by city
    std::vector<double> m_meanA;                               //!< mean_i a_id
    std::vector<double> m_meanAB;                              //!< mean_i a_id b_id
    double m_meanABB{0};                                       //!< sum_d mean_i a_id b_id^2
    double m_optimalLoss{0};                                   //!< F(x*)
    uint32_t m_rounds{0};                                      //!< rounds of the run
    uint16_t m_port{0};                                        //!< the transport's UDP port
    std::string m_configJson{"{}"};                            //!< the config object
    std::vector<std::vector<double>> m_startS;                 //!< [round][island] round start
    std::vector<std::vector<double>> m_exchangeS;              //!< [round][island] exchange start
    std::vector<std::vector<double>> m_endS;                   //!< [round][island] round end
    std::map<std::pair<uint32_t, uint32_t>, Shadow> m_shadows; //!< (round, clique) -> shadow
    std::vector<std::vector<uint32_t>> m_checkedMembers;       //!< [round] members checked
    uint64_t m_checks{0};                                      //!< member checks
    double m_maxAbsError{0};                                   //!< largest absolute error
    double m_maxRelError{0};                                   //!< largest scaled error
    std::vector<LinkCounters> m_links;                         //!< by directed link
    std::vector<IslandCounters> m_islands;                     //!< by city
    std::vector<Sample> m_samples;                             //!< loss and consensus
};

} // namespace ns3

#endif /* TRAINING_RESULTS_H */
