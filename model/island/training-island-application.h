/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef TRAINING_ISLAND_APPLICATION_H
#define TRAINING_ISLAND_APPLICATION_H

#include "clique-membership.h"
#include "clique-schedule.h"
#include "exchange-plan.h"
#include "island-exchange.h"
#include "island-socket.h"
#include "island-sync-header.h"
#include "local-objective.h"
#include "sync-protocol.h"
#include "wan-topology.h"

#include "ns3/application.h"
#include "ns3/data-rate.h"
#include "ns3/event-id.h"
#include "ns3/ipv4-address.h"
#include "ns3/nstime.h"
#include "ns3/traced-callback.h"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ns3
{

class ExchangePlanner;
class LocalCompute;
class RoundExchanges;

/**
 * @ingroup wan-training
 * @brief One training island: local steps on a real parameter vector, then a clique exchange
 * of the model over the WAN, then mixing (the clique average).
 *
 * Round r (0 <= r < Rounds) uses schedule round r mod P: `LocalSteps` gradient steps of
 * `StepTime` each on the island's LocalObjective, then the exchange of the parameters with the
 * other members of its clique (capability `Mode`: unicast, multicast, aggregation, both, ring or
 * tree), then the average of the members' contributions. The contribution travels in the
 * payload `Format` (fp32, bf16, int8): the island quantizes its snapshot, and every member
 * averages decoded values (doc/wan-training.rst, "Payload formats in the islands"). With
 * `Overlap` (streaming) the steps
 * of round r+1 run while round r's exchange is on the wire, from the parameters at round r's
 * snapshot x_r, and round r's average is applied when it arrives as x <- x + (avg_r - x_r);
 * round r+1's snapshot waits for it, so a round takes max(compute, exchange) from snapshot to
 * snapshot (doc/wan-training.rst, "Overlap"). A member that stops
 * answering is excluded, a stream that stalls halfway makes the island abandon the round, and
 * `CrashRound` makes it leave. The exchange is paced UDP with NACK repair, a per-clique READY
 * barrier and DONE acknowledgements, the same transport in every mode. The application owns the
 * lifecycle, the socket, the round loop, local training, the counters and the traces; the plans
 * come from ExchangePlanner, each round's exchange is an IslandExchange of its plan's
 * algorithm (held by round in RoundExchanges), and the barrier, the READY timer, views and
 * exclusions are CliqueMembership's. The protocol is walked through in doc/wan-training.rst,
 * section "The island's exchange".
 */
class TrainingIslandApplication : public Application
{
  public:
    /** The module's UDP port for island synchronization (SyncProtocol::DEFAULT_PORT). */
    static constexpr uint16_t DEFAULT_PORT = SyncProtocol::DEFAULT_PORT;
    /** The Mode attribute's value "schedule": each clique uses the schedule's algorithm. */
    static constexpr int SCHEDULE_MODE = -1;
    /** Bytes of the IPv4 and UDP headers of every chunk (SyncProtocol::IP_UDP_HEADER_BYTES). */
    static constexpr uint32_t IP_UDP_HEADER_BYTES = SyncProtocol::IP_UDP_HEADER_BYTES;
    /** Bytes of the PPP header on every point-to-point link (SyncProtocol::PPP_HEADER_BYTES). */
    static constexpr uint32_t PPP_HEADER_BYTES = SyncProtocol::PPP_HEADER_BYTES;
    /** The most ranges a NACK carries. */
    static constexpr uint32_t MAX_NACK_RANGES = IslandExchange::MAX_NACK_RANGES;
    /** The destination of a chunk sent to the clique's multicast group (ChunkSent trace). */
    static constexpr uint32_t ALL_MEMBERS = IslandExchange::ALL_MEMBERS;
    /** What GetRingStep returns for a header that is no chunk of a ring step. */
    static constexpr uint32_t NO_RING_STEP = UINT32_MAX;
    /** The CrashRound of an island that never crashes. */
    static constexpr uint32_t NEVER = UINT32_MAX;

    /**
     * @brief Get the type ID.
     * @return the object TypeId
     */
    static TypeId GetTypeId();

    TrainingIslandApplication();
    ~TrainingIslandApplication() override;

    /**
     * @brief Tell the application where it runs; required before the application starts.
     * @param island this island's index (city index)
     * @param topology the topology (shared, read only)
     * @param schedule the clique schedule (shared, read only)
     * @param islandAddresses every island's IPv4 address, by city index
     */
    void SetScenario(uint32_t island,
                     std::shared_ptr<const WanTopology> topology,
                     std::shared_ptr<const CliqueSchedule> schedule,
                     std::vector<Ipv4Address> islandAddresses);

    /**
     * @brief Give the multicast groups this island sends to; required before the application
     * starts in multicast and both modes (TrainingHelper::SetMulticast does it).
     * @param groups for every schedule round, the group of this island's clique with this
     *        island as the source (PimMulticastHelper::GetGroup(round, clique, island)); any
     *        address in rounds where the island idles or is alone
     * @param ttl the multicast TTL of the socket (PimMulticastHelper::GetMulticastTtl()), > 0
     */
    void SetMulticastGroups(std::vector<Ipv4Address> groups, uint8_t ttl);

    /** @return this island's index */
    uint32_t GetIsland() const;
    /** @return the current parameters (the initial zeros before the application starts) */
    const std::vector<float>& GetParameters() const;
    /**
     * @brief The island's objective, built from ParameterCount, ObjectiveSeed and Heterogeneity
     * on first use (set those attributes before).
     * @return the objective
     */
    const LocalObjective& GetObjective() const;
    /** @return the number of rounds the island has ended (completed or abandoned) */
    uint32_t GetCompletedRounds() const;
    /** @return the Rounds attribute */
    uint32_t GetRounds() const;
    /** @return the ModelBytes attribute */
    uint64_t GetModelBytes() const;
    /** @return the mode forced on every clique (Mode), none when each clique uses the
     *  algorithm the schedule gives it */
    std::optional<CapabilityMode> GetMode() const;

    /** @return the Format attribute: how the values travel on the wire */
    PayloadFormat GetFormat() const;
    /**
     * @brief What the island does in a round: its clique and the clique's algorithm, the
     * chunking (ExchangePlan::chunkBytes, chunkCount), the pacing rates toward and from each
     * member (sendRateBps, recvRateBps; the multicast stream's groupRateBps), the group it sends
     * to (multicast, both, tree's root) and the ring; after an exclusion, the view of the
     * members left while the round is current or its send side lives (the view is then dropped
     * and this returns the schedule's plan again).
     * @param round a round (0 <= round < Rounds); the plans are built when the application
     *        starts
     * @return the plan of the round
     */
    const ExchangePlan& GetPlan(uint32_t round) const;
    /**
     * @brief The ring step of a chunk (ring mode), from its sender's place on the ring, its
     * contributor bitmap and its chunk index (see the class description).
     * @param header a DATA or AGGREGATE header of a round in which this island is in the
     *        sender's clique (e.g. from the ChunkSent or ChunkReceived trace of any member)
     * @return the step: 0 .. k-2 reduce-scatter, k-1 .. 2k-3 all-gather; NO_RING_STEP when the
     *         mode is not ring or the header is no chunk of a step of that ring
     */
    uint32_t GetRingStep(const IslandSyncHeader& header) const;
    /**
     * @param round a round
     * @return the model bytes its receive streams hold now (IslandExchange::GetHeldBytes: 0
     *         before its exchange exists and after its receive side is released)
     */
    uint64_t GetHeldBytes(uint32_t round) const;

    /** What the island counted of its transport. */
    struct Counters
    {
        uint64_t chunksSent{0};         //!< first transmissions and repairs (a multicast send once)
        uint64_t chunksResent{0};       //!< chunks sent again (NACK repairs and probes)
        uint64_t nacksSent{0};          //!< NACK packets sent
        uint64_t duplicateChunks{0};    //!< arrivals that added nothing (duplicates, overlaps)
        uint64_t aggregatesReceived{0}; //!< AGGREGATE chunks (ring: partial and full sums)
        uint64_t rejectedPackets{0};    //!< received packets dropped as malformed or foreign
    };

    /** @return the island's transport counters */
    const Counters& GetCounters() const;
    /** @return why the island abandoned its first abandoned round, or an empty string */
    const std::string& GetFailure() const;
    /** @return rounds the island abandoned (it could not complete them) */
    uint32_t GetAbandonedRounds() const;
    /** @return members excluded from a round, summed over the rounds */
    uint32_t GetExclusions() const;
    /** @return whether the island has crashed (CrashRound reached) */
    bool HasCrashed() const;
    /**
     * @return the contributor bitmap of the round that ended last (bit i: island i's
     *         contribution is in the average; an idle island: itself alone); valid inside a
     *         RoundFinished sink
     */
    uint64_t GetRoundContributors() const;
    /**
     * @return what the island is doing now, for reports of rounds that did not complete (e.g.
     *         "round 3: exchanging in clique {nyc, chi, lax}; waiting for chi (READY unanswered
     *         x12), the stream of lax (40 of 286 chunks)")
     */
    std::string DescribeState() const;

    /**
     * TracedCallback signature of a round start.
     * @param island the island
     * @param round the round
     */
    typedef void (*RoundStartedCallback)(uint32_t island, uint32_t round);

    /**
     * TracedCallback signature of exchange start and round end (in every mode, ring included:
     * the snapshot the island contributes, and the clique average it ends with).
     * @param island the island
     * @param round the round
     * @param clique the island's clique index in the round, or CliqueSchedule::IDLE
     * @param parameters at exchange start: the contribution (the snapshot x_r); at round end:
     *        the clique average avg_r (the new parameters without Overlap; with Overlap the
     *        island's parameters become x + (avg_r - x_r))
     */
    typedef void (*ParametersCallback)(uint32_t island,
                                       uint32_t round,
                                       uint32_t clique,
                                       const std::vector<float>& parameters);

    /**
     * TracedCallback signature of a chunk sent. In ring mode there is one call per chunk of a
     * step's segment (and per repair or probe): the destination is the successor, the header a
     * DATA (step 0) or AGGREGATE (later steps) naming the contributors summed in its values, and
     * GetRingStep(header) gives the step.
     * @param island the sending island
     * @param destination the island it is sent to, or ALL_MEMBERS for a send to the clique's
     *        multicast group
     * @param header the chunk's header
     * @param modelBytes the chunk's model payload bytes (values and padding, no headers)
     * @param resent whether the chunk was sent before (a repair or a probe)
     */
    typedef void (*ChunkSentCallback)(uint32_t island,
                                      uint32_t destination,
                                      const IslandSyncHeader& header,
                                      uint32_t modelBytes,
                                      bool resent);

    /**
     * TracedCallback signature of a chunk received. In ring mode every chunk comes from the
     * predecessor; GetRingStep(header) gives its step, and the contributors are those summed in
     * its values (not credited separately: a ring member holds sums, not contributions).
     * @param island the receiving island
     * @param header the chunk's header
     * @param modelBytes the chunk's model payload bytes
     * @param duplicate whether it added nothing (held already)
     */
    typedef void (*ChunkReceivedCallback)(uint32_t island,
                                          const IslandSyncHeader& header,
                                          uint32_t modelBytes,
                                          bool duplicate);

    /**
     * TracedCallback signature of a repair request (a NACK sent).
     * @param island the requesting island
     * @param source the contributor asked to resend (ring mode: the predecessor, for one step)
     * @param round the round
     * @param chunks the number of chunks requested
     */
    typedef void (*RepairRequestedCallback)(uint32_t island,
                                            uint32_t source,
                                            uint32_t round,
                                            uint32_t chunks);

    /**
     * TracedCallback signature of a repaired chunk: a chunk a NACK asked for arrived.
     * @param island the receiving island
     * @param source the contributor (ring mode: the predecessor)
     * @param round the round
     * @param wait the time from the chunk's first NACK to its arrival
     */
    typedef void (*ChunkRepairedCallback)(uint32_t island,
                                          uint32_t source,
                                          uint32_t round,
                                          Time wait);

    /**
     * TracedCallback signature of a chunk rebuilt from its block's PARITY (FecBlock).
     * @param island the receiving island
     * @param source the contributor
     * @param round the round
     */
    typedef void (*ChunkRebuiltCallback)(uint32_t island, uint32_t source, uint32_t round);

    /**
     * TracedCallback signature of a control message handed to the socket: a READY (the round
     * barrier or its answer), a READY_ASK, a VIEW (a membership view), a DONE or a NACK. Its UDP
     * payload is the header alone (header.GetSerializedSize() bytes).
     * @param island the sending island
     * @param destination the island it is sent to
     * @param header the message's header
     */
    typedef void (*ControlSentCallback)(uint32_t island,
                                        uint32_t destination,
                                        const IslandSyncHeader& header);

    /**
     * TracedCallback signature of a round the island could not complete.
     * @param island the island
     * @param round the round
     * @param clique the island's clique index in the round
     * @param reason why
     */
    typedef void (*RoundAbandonedCallback)(uint32_t island,
                                           uint32_t round,
                                           uint32_t clique,
                                           const std::string& reason);

    /**
     * TracedCallback signature of a member excluded from a round.
     * @param island the island that excludes
     * @param round the round
     * @param member the member excluded
     * @param reason why
     */
    typedef void (*MemberExcludedCallback)(uint32_t island,
                                           uint32_t round,
                                           uint32_t member,
                                           const std::string& reason);

    /**
     * TracedCallback signature of a crash.
     * @param island the island
     * @param round the first round it takes no part in
     */
    typedef void (*CrashedCallback)(uint32_t island, uint32_t round);

  protected:
    void DoDispose() override;

  private:
    void StartApplication() override;
    void StopApplication() override;

    /**
     * @brief Mode attribute setter (EnumValue holds an int).
     * @param mode the mode as an int
     */
    void SetModeValue(int mode);
    /** @return the mode as an int (Mode attribute getter) */
    int GetModeValue() const;
    /**
     * @brief Format attribute setter (EnumValue holds an int).
     * @param format the format as an int
     */
    void SetFormatValue(int format);
    /** @return the format as an int (Format attribute getter) */
    int GetFormatValue() const;

    /** Validate the configuration and build the plans; aborts with a message when invalid. */
    void BuildPlans();
    /**
     * @brief Give up the current round: keep the parameters, fire RoundAbandoned and start the
     * next round (the send side of the round still serves repairs).
     * @param reason why
     */
    void AbandonRound(const std::string& reason);
    /** Leave (CrashRound): stop everything but what is owed of earlier rounds. */
    void Crash();
    /** An exchange's send side was released: close a crashed island that owes nothing. */
    void SendSideClosed();
    /** Close the socket of a crashed island once nothing is owed any more. */
    void CloseIfIdle();
    /** @return the current round (CliqueMembership's view of the island) */
    uint32_t GetCurrentRound() const;
    /** @return whether the island runs and has not crashed */
    bool IsActive() const;
    /**
     * @param round a round
     * @return whether the island is in that round's exchange
     */
    bool IsExchanging(uint32_t round) const;
    /**
     * @brief Send a control message of the membership (READY, view).
     * @param header its header
     * @param destination the island
     */
    void SendControl(const IslandSyncHeader& header, uint32_t destination);
    /**
     * @brief The membership excluded a member: fire MemberExcluded.
     * @param round the round
     * @param member the member
     * @param reason why
     */
    void NoteExclusion(uint32_t round, uint32_t member, const std::string& reason);
    /** Count a malformed or foreign packet. */
    void RejectPacket();
    /**
     * @brief An exchange sent a chunk: count it and fire ChunkSent.
     * @param destination the island, or ALL_MEMBERS
     * @param header its header
     * @param modelBytes its model payload bytes
     * @param resent whether it was sent before
     */
    void NoteChunkSent(uint32_t destination,
                       const IslandSyncHeader& header,
                       uint32_t modelBytes,
                       bool resent);
    /**
     * @brief An exchange took a chunk: count it and fire ChunkReceived.
     * @param header its header
     * @param modelBytes its model payload bytes
     * @param duplicate whether it added nothing
     */
    void NoteChunkReceived(const IslandSyncHeader& header, uint32_t modelBytes, bool duplicate);
    /**
     * @brief An exchange sent a NACK: count it and fire RepairRequested.
     * @param source the island asked to resend
     * @param round the round
     * @param chunks the chunks requested
     */
    void NoteNackSent(uint32_t source, uint32_t round, uint32_t chunks);
    /**
     * @brief An exclusion was applied to the current round: the exchange may be complete, or
     * it starts again (IslandExchange::IsRebuiltByViews).
     * @param round the round
     */
    void ViewApplied(uint32_t round);

    /** Start round m_round (or finish when every round is done). */
    void StartRound();
    /**
     * @brief Start the local steps of a round (m_round; with overlap also the next round, at
     * m_round's snapshot).
     * @param round the round
     */
    void StartCompute(uint32_t round);
    /** A round's local steps are done: snapshot, unless overlap makes it wait. */
    void ComputeDone();
    /** Snapshot the parameters and start the clique exchange of m_round. */
    void StartExchange();
    /** Start (or, after a ring's view changed, restart) the exchange of m_round. */
    void BeginExchange();
    /** End round m_round: mix and move on. */
    void FinishRound();
    /** End the exchange of m_round when every contribution is held. */
    void CheckExchangeComplete();
    /**
     * @brief An exchange made progress: end its round if it is the current one and complete.
     * @param round the exchange's round
     */
    void ExchangeProgressed(uint32_t round);
    /**
     * @brief Send a control or data header (with padding) to an island or to the group.
     * @param header the header
     * @param paddingBytes zero-filled payload after it
     * @param destination the island, or ALL_MEMBERS for the group of the header's round
     */
    void SendPacket(const IslandSyncHeader& header, uint32_t paddingBytes, uint32_t destination);

    /**
     * @brief A sync packet of the job arrived (IslandSocket): to the barrier or the exchanges.
     * @param header its header
     * @param payloadBytes its payload after the header
     */
    void HandleMessage(const IslandSyncHeader& header, uint32_t payloadBytes);
    // Attributes.
    uint16_t m_jobId{1};                          //!< job id
    uint16_t m_port{DEFAULT_PORT};                //!< UDP port
    uint32_t m_rounds{10};                        //!< rounds to run
    uint64_t m_modelBytes{100000000};             //!< wire size of a contribution
    uint32_t m_chunkBytesAttr{0};                 //!< chunk size override (0 = fill the path MTU)
    uint32_t m_parameterCount{1024};              //!< length of the real parameter vector
    uint32_t m_localSteps{10};                    //!< local steps per round
    Time m_stepTime;                              //!< time of one local step
    double m_learningRate{0.05};                  //!< gradient step size
    double m_heterogeneity{1.0};                  //!< objective heterogeneity
    uint64_t m_objectiveSeed{1};                  //!< objective seed
    std::optional<CapabilityMode> m_mode;         //!< forced mode (none: the schedule's)
    PayloadFormat m_format{PayloadFormat::FP32};  //!< how the values travel on the wire
    DataRate m_streamRate;                        //!< pacing override (0 = bottleneck share)
    Time m_nackTimeout;                           //!< stall timeout
    bool m_cliqueBarrier{true};                   //!< wait for READY before streaming to a member
    uint32_t m_maxRepairAttempts{50};             //!< attempts without progress before giving up
    uint32_t m_repairCopies{2};                   //!< copies of each repair and NACK
    uint32_t m_fecBlock{0};                       //!< chunks per PARITY (0: none)
    Time m_aggregationTimeout{MilliSeconds(500)}; //!< the FPGAs' Timeout (NACK patience)
    uint32_t m_crashRound{NEVER};      //!< the round the island leaves at (NEVER: it does not)
    bool m_overlap{false};             //!< whether compute overlaps the exchange
    std::vector<float> m_contribution; //!< the snapshot of m_round as the format decodes it

    // Scenario.
    uint32_t m_island{0};                             //!< this island
    std::shared_ptr<const WanTopology> m_topology;    //!< the topology
    std::shared_ptr<const CliqueSchedule> m_schedule; //!< the schedule
    std::vector<Ipv4Address> m_addresses;             //!< island addresses
    std::vector<Ipv4Address> m_groups;                //!< our group per schedule round
    uint8_t m_multicastTtl{0};                        //!< multicast TTL (0: not given)
    std::unique_ptr<ExchangePlanner> m_planner;       //!< plans and views of plans
    std::unique_ptr<CliqueMembership> m_membership;   //!< barrier, views, exclusions, plans
    std::unique_ptr<RoundExchanges> m_exchanges;      //!< the exchanges by round

    // State.
    IslandSocket m_socket;                               //!< the transport's UDP endpoint
    mutable std::unique_ptr<LocalObjective> m_objective; //!< built on first use
    std::vector<float> m_parameters;                     //!< current parameters
    uint32_t m_round{0};                                 //!< current round
    bool m_exchanging{false};                            //!< whether m_round is in its exchange
    std::unique_ptr<LocalCompute> m_compute;             //!< local steps and the overlap snapshot
    bool m_running{false};                               //!< between start and stop
    bool m_crashed{false};                               //!< whether CrashRound was reached
    uint64_t m_lastContributors{0};                      //!< contributors of the last round

    // Counters.
    Counters m_counters;     //!< transport counters
    std::string m_failure;   //!< why the first abandoned round was (empty: none)
    uint32_t m_abandoned{0}; //!< rounds abandoned

    // Traces.
    TracedCallback<uint32_t, uint32_t> m_roundStartedTrace; //!< round started
    TracedCallback<uint32_t, uint32_t, uint32_t, const std::vector<float>&>
        m_exchangeStartedTrace; //!< exchange started (contribution)
    TracedCallback<uint32_t, uint32_t, uint32_t, const std::vector<float>&>
        m_roundFinishedTrace; //!< round finished (new parameters)
    TracedCallback<uint32_t, uint32_t, const IslandSyncHeader&, uint32_t, bool>
        m_chunkSentTrace; //!< chunk sent
    TracedCallback<uint32_t, const IslandSyncHeader&, uint32_t, bool>
        m_chunkReceivedTrace;                                             //!< chunk received
    TracedCallback<uint32_t, uint32_t, uint32_t, uint32_t> m_repairTrace; //!< NACK sent
    TracedCallback<uint32_t, uint32_t, uint32_t, Time> m_repairedTrace;   //!< chunk repaired
    TracedCallback<uint32_t, uint32_t, const IslandSyncHeader&> m_paritySentTrace; //!< PARITY
    TracedCallback<uint32_t, uint32_t, uint32_t> m_rebuiltTrace; //!< chunk rebuilt
    TracedCallback<uint32_t, uint32_t, const IslandSyncHeader&>
        m_controlSentTrace; //!< READY, READY_ASK, VIEW, DONE or NACK sent
    TracedCallback<uint32_t, uint32_t, uint32_t, const std::string&>
        m_roundAbandonedTrace; //!< round abandoned
    TracedCallback<uint32_t, uint32_t, uint32_t, const std::string&>
        m_memberExcludedTrace;                         //!< member excluded
    TracedCallback<uint32_t, uint32_t> m_crashedTrace; //!< crashed
};

} // namespace ns3

#endif /* TRAINING_ISLAND_APPLICATION_H */
