/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef TRAINING_MODE_TEST_RUN_H
#define TRAINING_MODE_TEST_RUN_H

#include "aggregator-net-device.h"
#include "clique-schedule.h"
#include "fault-plan.h"
#include "link-load-model.h"
#include "pim-multicast-helper.h"
#include "training-island-application.h"
#include "training-results.h"
#include "training-run.h"
#include "wan-topology-helper.h"
#include "wan-topology.h"

#include "ns3/application-container.h"
#include "ns3/nstime.h"
#include "ns3/packet.h"
#include "ns3/test.h"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * @ingroup wan-training-tests
 * @brief One training run in a capability mode, built by TrainingRun as wan-training-simulate
 * builds it (FPGAs placed before WanTopologyHelper::Install and configured after it in
 * aggregation and both modes; the schedule's source trees installed and handed to the
 * applications in multicast and both modes), observed through trace sinks only, connected
 * after TrainingRun::Build().
 *
 * The run uses TrainingRun's defaults for everything Config does not name (seed 1, the
 * applications' default learning rate, chunking, pacing and NACK timeout), and the WAN error
 * models draw from random streams starting at 100.
 *
 * What the sinks record is raw: contributions at exchange start, parameters at round end,
 * times, chunks sent and credited, and, from PhyTxBegin of every directed link's transmitting
 * device, the DATA and AGGREGATE packets that crossed it. The only number the run computes is
 * the exact sum behind every aggregate an FPGA sends (in double precision from the traced
 * contributions), so that the test suites can compare the aggregate values with it.
 */
class TrainingModeTestRun
{
  public:
    /** A (round, a, b, chunk) key; the meaning of a and b depends on the map. */
    using ChunkKey = std::tuple<uint32_t, uint32_t, uint32_t, uint32_t>;
    /** A (round, island) key. */
    using RoundIsland = std::pair<uint32_t, uint32_t>;

    /** What to run. */
    struct Config
    {
        std::string topologyFile;                     //!< topology JSON
        CapabilityMode mode{CapabilityMode::UNICAST}; //!< capability mode
        std::vector<CliqueSchedule::Round> rounds;    //!< the schedule's rounds
        uint32_t nRounds{1};                          //!< rounds to run
        uint64_t modelBytes{100000};                  //!< ModelBytes
        uint32_t parameterCount{1024};                //!< ParameterCount
        uint32_t localSteps{2};                       //!< LocalSteps
        Time stepTime{MilliSeconds(1)};               //!< StepTime
        double lossRate{0};                           //!< WAN packet error rate
        uint32_t fpgaSlots{65536};                    //!< AggregatorNetDevice SlotCount
        Time fpgaTimeout{MilliSeconds(500)};          //!< AggregatorNetDevice Timeout
        bool recordChunks{true};                      //!< keep per-chunk link counts
        FaultPlan faults;                             //!< TrainingRun::Config::faults
        /** Called after Build() and the run's own sinks, before the simulation (may be empty):
         * where a suite connects sinks of its own. */
        std::function<void(TrainingRun&)> onBuilt;
    };

    /**
     * @return rounds on the nine cities (nyc chi lax lon ams fra prg tyo sin) whose cliques have
     * 3, 6, 4, 5, 7, 8 and 9 members (singletons idle)
     */
    static std::vector<CliqueSchedule::Round> CliquesOfThreeToNine();

    /**
     * @param n number of islands
     * @param clique one clique
     * @return a round with that clique and every other island alone
     */
    static CliqueSchedule::Round AloneWith(uint32_t n, const CliqueSchedule::Clique& clique);

    /**
     * @brief Load the topology (the run is built by Run()).
     * @param config what to run
     */
    explicit TrainingModeTestRun(Config config);
    /** Destroy the simulation and forget the node names. */
    ~TrainingModeTestRun();

    TrainingModeTestRun(const TrainingModeTestRun&) = delete;
    TrainingModeTestRun& operator=(const TrainingModeTestRun&) = delete;

    /** Build the scenario, the applications and the sinks, and run the simulation. */
    void Run();

    /** @return the configuration */
    const Config& GetConfig() const;
    /** @return the topology */
    const WanTopology& GetTopology() const;
    /** @return the schedule */
    const CliqueSchedule& GetSchedule() const;
    /** @return the installed scenario */
    const WanTopologyHelper& GetScenario() const;
    /** @return the multicast helper (trees installed in multicast and both modes only) */
    const PimMulticastHelper& GetPim() const;
    /** @return the results recorder */
    const TrainingResults& GetResults() const;
    /** @return the run (after Run()) */
    const TrainingRun& GetRun() const;
    /**
     * @param island a city index
     * @return its application
     */
    Ptr<TrainingIslandApplication> GetApp(uint32_t island) const;
    /**
     * @param city a city index
     * @return its FPGA, or null
     */
    Ptr<AggregatorNetDevice> GetAggregator(uint32_t city) const;

    /**
     * @param round a round
     * @param clique a clique index of its schedule round
     * @return the clique's communication time: from its last member's exchange start to its
     *         last member's round end (negative when a member did not end the round)
     */
    double GetCommTime(uint32_t round, uint32_t clique) const;
    /**
     * @param round a round
     * @return model bytes per directed link sent in that round (DATA and AGGREGATE payload
     *         after the fixed header, counted on the wire), divided by ModelBytes
     */
    std::vector<double> GetRoundLinkStreams(uint32_t round) const;
    /**
     * @brief The reference values' link loads of one round, per directed link, to compare with
     * GetRoundLinkStreams().
     * @param topology the WAN
     * @param loads the round's object {directed link name: streams}
     * @param unknown receives the names in loads that are no directed link of the topology
     * @return streams per directed link (0 where loads has no entry)
     */
    static std::vector<double> GetReferenceLinkStreams(const WanTopology& topology,
                                                       const nlohmann::json& loads,
                                                       std::vector<std::string>& unknown);
    /**
     * @param topology a topology
     * @param clique a clique (at least two members)
     * @return the model bytes of a chunk that fills the smallest path MTU of the clique: the
     *         largest multiple of 4 that fits with the IPv4, UDP and IslandSyncHeader headers
     */
    static uint32_t GetMtuChunkBytes(const WanTopology& topology,
                                     const CliqueSchedule::Clique& clique);
    /** Bytes of the IPv4, UDP and IslandSyncHeader headers of a chunk. */
    static const uint32_t CHUNK_HEADER_BYTES;
    /**
     * @brief How far an island's parameters at the end of a round are from the exact average
     * of its clique, computed here in double precision from the traced contributions.
     * @param round the round
     * @param island a member of the clique
     * @param clique the clique of the island in that round (at least two members)
     * @return the largest |post - average| / max(1, |average|) over the parameters
     */
    double GetAverageError(uint32_t round,
                           uint32_t island,
                           const CliqueSchedule::Clique& clique) const;
    /**
     * @return an empty string when, for every island and control type (READY, DONE, NACK),
     *         ControlSent counted as many messages as the island's access up link carried and
     *         at least one READY and one DONE were sent, and RepairCopies NACKs for each that
     *         RepairRequested reported; otherwise the first difference
     */
    std::string FindControlMismatch() const;

    std::map<RoundIsland, std::vector<float>> pre;  //!< contribution at exchange start
    std::map<RoundIsland, std::vector<float>> post; //!< parameters at round end
    std::map<RoundIsland, double> exchangeS;        //!< exchange start time
    std::map<RoundIsland, double> finishS;          //!< round end time
    std::map<RoundIsland, uint64_t> egress;         //!< model bytes sent (ChunkSent)
    std::map<RoundIsland, uint64_t> ingress;        //!< model bytes received, not duplicates
    /** (round, island, contributor, chunk) -> times credited (ChunkReceived, not duplicate) */
    std::map<ChunkKey, uint32_t> credits;
    /** (round, directed link, sender, chunk) -> DATA packets on the link */
    std::map<ChunkKey, uint32_t> dataOnLink;
    /** (round, directed link) -> AGGREGATE packets on the link */
    std::map<std::pair<uint32_t, uint32_t>, uint64_t> aggregatesOnLink;
    /** (round, directed link) -> model bytes of DATA and AGGREGATE packets on the link */
    std::map<std::pair<uint32_t, uint32_t>, uint64_t> modelBytesOnLink;
    /** (island, IslandSyncHeader::Type) -> READY, DONE and NACK messages traced (ControlSent) */
    std::map<std::pair<uint32_t, uint32_t>, uint64_t> controlSent;
    /** (directed link, IslandSyncHeader::Type) -> READY, DONE and NACK packets on the link */
    std::map<std::pair<uint32_t, uint32_t>, uint64_t> controlOnLink;
    uint64_t duplicates{0};        //!< ChunkReceived with duplicate set
    uint64_t chunksSent{0};        //!< ChunkSent
    uint64_t resends{0};           //!< ChunkSent with resent set
    uint64_t multicastResends{0};  //!< resent chunks sent to the group (must stay 0)
    uint64_t nacks{0};             //!< RepairRequested
    uint64_t lostPackets{0};       //!< PhyRxDrop of the WAN error models
    uint64_t aggregatesChecked{0}; //!< FPGA aggregates compared with exact sums
    uint64_t partialAggregates{0}; //!< FPGA aggregates released by Timeout
    double maxAggregateError{0};   //!< largest |aggregate - exact sum| / max(1, |sum|)

  private:
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
     * @param island the sending island
     * @param destination the island it is sent to
     * @param header the message's header
     */
    void OnControlSent(uint32_t island, uint32_t destination, const IslandSyncHeader& header);
    /**
     * @param island the requester
     * @param source the contributor asked
     * @param round the round
     * @param chunks chunks requested
     */
    void OnRepair(uint32_t island, uint32_t source, uint32_t round, uint32_t chunks);
    /**
     * @param packet a packet lost to a receive error model
     */
    void OnLoss(Ptr<const Packet> packet);
    /**
     * @param island the sender
     * @param destination the receiver or ALL_MEMBERS
     * @param header the chunk header
     * @param modelBytes its model bytes
     * @param resent whether it is a repair or probe
     */
    void OnChunkSent(uint32_t island,
                     uint32_t destination,
                     const IslandSyncHeader& header,
                     uint32_t modelBytes,
                     bool resent);
    /**
     * @param island the receiver
     * @param header the chunk header
     * @param modelBytes its model bytes
     * @param duplicate whether it added nothing
     */
    void OnChunkReceived(uint32_t island,
                         const IslandSyncHeader& header,
                         uint32_t modelBytes,
                         bool duplicate);
    /**
     * @param d the directed link
     * @param packet the packet, PPP header included
     */
    void OnPhyTxBegin(uint32_t d, Ptr<const Packet> packet);
    /**
     * @param city the FPGA's city
     * @param header the aggregate's header
     * @param complete whether every expected contribution is in it
     */
    void OnAggregate(uint32_t city, const IslandSyncHeader& header, bool complete);

    Config m_config;                    //!< what to run
    WanTopology m_topology;             //!< the topology
    std::unique_ptr<TrainingRun> m_run; //!< the run (built by Run())
};

/**
 * @ingroup wan-training-tests
 * @brief Streams per directed link and round, measured in the simulation on the reference WAN
 * (model bytes of the round's DATA and AGGREGATE packets on each link / S), against
 * test/data/reference-values.json's `link_loads_in_S` for every schedule there (links it does
 * not list carry nothing, links it lists exist). With FPGAs (aggregation and both modes) a
 * member's :down link carries the aggregates (one stream), the WAN links the contributions, and
 * no aggregate is partial. In ring mode S is 36 chunks that fill the path MTU, so that every
 * clique size of the reference schedules (9, 3, 2) divides the chunk count and each hop carries
 * exactly 2(k-1)/k S; every clique's exchange has those 36 chunks.
 *
 * Shared by the multicast, aggregation and ring mode test suites; the suite must set the data
 * directory to the test directory.
 */
class TrainingReferenceStreamsTestCase : public TestCase
{
  public:
    /**
     * @param mode the capability mode whose column is checked
     */
    explicit TrainingReferenceStreamsTestCase(CapabilityMode mode);

  private:
    void DoRun() override;

    CapabilityMode m_mode; //!< the mode
};

} // namespace ns3

#endif /* TRAINING_MODE_TEST_RUN_H */
