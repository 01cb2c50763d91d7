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
#include "wan-fault-error-model.h"
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
 *   the schedule model's T_comm (doc/schedule-model.rst, "Time") for the round (ScheduleMetrics);
 * - per directed link (from PhyTxBegin of WanTopologyHelper::GetTxDevice(d)): packets and bytes
 *   on the wire (PPP header included) and model bytes (the payload of DATA/AGGREGATE chunks
 *   after the fixed IslandSyncHeader: values plus padding, so one stream of a model of S bytes
 *   adds exactly S); the DATA and AGGREGATE packets among them; packets lost to the receive
 *   error model and dropped by queues (the sync type is read with
 *   IslandSyncHeader::PeekTypeInPacket: the receivers validate the headers). A multicast chunk
 *   is counted on every link of its source tree (once per copy the routers make: replication
 *   is visible per link), an FPGA's aggregate on its island's :down link (the contributions it
 *   absorbed never cross it);
 * - per city with an in-line FPGA (AggregatorNetDevice), its counters at the end of the run:
 *   contributions in and summed, duplicates, aggregates out, partial aggregates (timeouts),
 *   pass-throughs by reason, slot and outbox high-water marks;
 * - per island: model bytes sent and received, chunks resent (repairs), NACKs sent;
 * - verification: at exchange start it keeps a shadow copy of every member's contribution;
 *   when a member ends the round its new parameters are compared with the double-precision
 *   average of the shadow copies of the members it reports as contributors
 *   (TrainingIslandApplication::GetRoundContributors: the whole clique, or the members left
 *   after exclusions), never with what the island received;
 * - per round and island, the outcome: completed (with its contributors), abandoned (with the
 *   reason), crashed, or unfinished when the run ended (with the island's state then); per
 *   clique the groups of members that averaged over the same contributors, and whether they
 *   are consistent (every completed member's contributors that completed report the same set);
 *   the exclusions and their reasons;
 * - faults: the plan (SetFaultPlanJson), every change of the installed routes
 *   (RecordRouteChange: the links down and the connected components), the time limit and
 *   whether it stopped the run (Finish), and per directed link the packets lost to a down link,
 *   reordered and duplicated (WanFaultErrorModel on the receiving device);
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
    /**
     * @return rounds in which every island that did not crash completed the round, every
     *         average was verified and every clique's contributor sets are consistent
     */
    uint32_t GetRoundsVerified() const;
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
     * @return whether its average was within the tolerance of the shadow average over its
     *         contributors (false unless COMPLETED)
     */
    bool IsMemberVerified(uint32_t round, uint32_t island) const;
    /**
     * @param round a round
     * @param clique a clique index of the round's schedule round
     * @return whether the completed members' contributor sets are consistent: each holds the
     *         member itself and members of the clique only, and two completed members that
     *         averaged each other's contributions averaged over the same set (after a partition
     *         the two sides each average over their side)
     */
    bool IsCliqueConsistent(uint32_t round, uint32_t clique) const;
    /**
     * @param round a round
     * @param clique a clique index of the round's schedule round
     * @return whether no completed member averaged a completed member that left it out (it
     *         can happen when a partition cuts an exchange: one side received a contribution
     *         before the cut, the other could not receive theirs)
     */
    bool IsCliqueSymmetric(uint32_t round, uint32_t clique) const;
    /**
     * @param round a round
     * @param island an island
     * @return why it did not complete the round (abandoned: the reason; unfinished at the end:
     *         the island's state then; empty otherwise)
     */
    std::string GetReason(uint32_t round, uint32_t island) const;
    /** @return whether some route change left the WAN partitioned */
    bool WasPartitioned() const;
    /** @return whether the time limit stopped the run */
    bool WasStoppedByTimeLimit() const;

    /**
     * @brief Set the `faults.plan` object of the results.
     * @param json a JSON object (text)
     */
    void SetFaultPlanJson(const std::string& json);
    /**
     * @brief Record that the installed routes changed (a link went down or came up).
     * @param downLinks the WAN links down from now on
     * @param components the connected components of the cities over the links that are up
     */
    void RecordRouteChange(const std::vector<uint32_t>& downLinks,
                           const std::vector<std::vector<uint32_t>>& components);
    /**
     * @brief Record how the run ended, after Simulator::Run(): the rounds still pending get the
     * reason (the island's state, and whether the time limit or a lack of events ended the run).
     * @param timeLimitS the simulated-time limit of the run (0: none)
     * @param stoppedByTimeLimit whether the limit stopped the simulation
     */
    void Finish(double timeLimitS, bool stoppedByTimeLimit);
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
    /** @return whether every island that did not crash completed every round */
    bool IsComplete() const;
    /**
     * @return the training time in seconds: the simulated time of the latest round end on any
     *         island (the end of the last round when the run is complete; 0 before any round
     *         ended). Unlike Simulator::Now() after the run, it excludes timers that were
     *         still pending when the last island finished.
     */
    double GetTrainingTimeS() const;

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
        std::map<uint64_t, std::vector<double>> averages;     //!< by contributor set
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
     * @param island the island
     * @param round the round
     * @param clique its clique
     * @param reason why
     */
    void OnRoundAbandoned(uint32_t island,
                          uint32_t round,
                          uint32_t clique,
                          const std::string& reason);
    /**
     * @param island the island that excludes
     * @param round the round
     * @param member the member excluded
     * @param reason why
     */
    void OnMemberExcluded(uint32_t island,
                          uint32_t round,
                          uint32_t member,
                          const std::string& reason);
    /**
     * @param island the island
     * @param round the first round it takes no part in
     */
    void OnCrashed(uint32_t island, uint32_t round);
    /**
     * @brief Forget the shadow copies of a clique once every member's outcome is known.
     * @param round the round
     * @param clique the clique
     */
    void ReleaseShadow(uint32_t round, uint32_t clique);

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
    std::vector<std::vector<RoundStatus>> m_status;            //!< [round][island] outcome
    std::vector<std::vector<uint64_t>> m_contributors;         //!< [round][island] contributors
    std::vector<std::vector<bool>> m_verified;                 //!< [round][island] check passed
    std::map<std::pair<uint32_t, uint32_t>, std::string> m_reasons; //!< (round, island) -> why
    std::vector<Exclusion> m_exclusions;                            //!< exclusions, in time order
    std::vector<RouteChange> m_routeChanges;            //!< route changes, in time order
    std::string m_faultPlanJson{"{}"};                  //!< the fault plan object
    double m_timeLimitS{0};                             //!< the run's time limit
    bool m_stoppedByTimeLimit{false};                   //!< whether it stopped the run
    std::vector<Ptr<WanFaultErrorModel>> m_faultModels; //!< by directed link, or null
    uint64_t m_checks{0};                               //!< member checks
    double m_maxAbsError{0};                            //!< largest absolute error
    double m_maxRelError{0};                            //!< largest scaled error
    mutable std::vector<LinkCounters> m_links; //!< by directed link (fault counters on read)
    std::vector<IslandCounters> m_islands;     //!< by city
    std::vector<Sample> m_samples;             //!< loss and consensus
};

} // namespace ns3

#endif /* TRAINING_RESULTS_H */
