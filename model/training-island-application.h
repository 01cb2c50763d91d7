/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef TRAINING_ISLAND_APPLICATION_H
#define TRAINING_ISLAND_APPLICATION_H

#include "chunk-range-set.h"
#include "clique-schedule.h"
#include "island-sync-header.h"
#include "link-load-model.h"
#include "local-objective.h"
#include "wan-topology.h"

#include "ns3/application.h"
#include "ns3/data-rate.h"
#include "ns3/event-id.h"
#include "ns3/ipv4-address.h"
#include "ns3/nstime.h"
#include "ns3/traced-callback.h"

#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace ns3
{

class Socket;
class Packet;
class Address;

/**
 * @ingroup wan-training
 * @brief One training island: local steps on a real parameter vector, then a clique exchange
 * of the model over the WAN, then mixing (the clique average).
 *
 * **Rounds.** Round r (0 <= r < Rounds) uses schedule round r mod P. It starts with local
 * compute: `LocalSteps` full-gradient steps on the island's LocalObjective, one every
 * `StepTime`. Then the island snapshots its parameters (the contribution it sends) and
 * exchanges them with the other members of its clique; an island that idles (in no clique, or
 * a singleton) keeps its parameters. The round ends for the island when it holds every
 * member's contribution: its parameters become the average of the members' snapshots (summed
 * in double, rounded to float32) and the next round starts at once.
 *
 * **Barrier (per clique).** There is no global barrier; each clique is a barrier for its
 * members. An island starting round r >= 1 announces it (READY) to the other members of its
 * round-r clique; its stream toward a member starts when both its own compute is over and that
 * member has announced round r (or sent round-r data), so a stream never reaches an island
 * that is still busy with an earlier round (attribute `CliqueBarrier`, on by default; off, the
 * streams start at once). A multicast stream reaches every member at once, and an FPGA sums a
 * chunk only once every member's contribution has arrived (its slots fill with the arrival skew
 * of the contributions), so in multicast, aggregation and both modes an island's streams start
 * together, when its compute is over and every other member has announced the round. An island
 * that waits longer than one round-trip time plus NackTimeout asks the member again (a READY
 * with an answer request); a member that is alive but behind answers with its current round,
 * which resets the wait. The round ends
 * for an island when it holds every member's contribution. It keeps serving repair requests
 * for the round from its snapshot until every member has acknowledged (DONE) its
 * contribution. Cliques of one round progress independently: a clique that ends early starts
 * its next round while others still exchange, and its streams, paced for the next round's
 * loads, can share WAN links with theirs (queues absorb it; a drop is repaired like a loss).
 *
 * **Transport (UDP, one socket per island on `Port`, the module port 9477 by default).** The
 * wire size of a contribution is `ModelBytes` S, cut into chunks of `ChunkBytes` model bytes
 * (default: the largest multiple of 4 that fills the smallest path MTU between two members of
 * the clique, minus the IPv4, UDP and IslandSyncHeader headers). The model's byte layout is the
 * ParameterCount float32 values followed by zero padding up to S; chunk c carries its slice
 * of the values in the header and the rest of its bytes as zero-filled ns-3 payload, so memory
 * does not grow with S. A clique uses one chunking for all of its members (what in-line
 * aggregation needs). The transport is the same in every mode; what differs is where a
 * contribution is sent and what comes back (`Mode`, MODEL.md's capability modes):
 * - unicast: one stream per other member, each chunk sent to that member's address;
 * - multicast: one stream per island, each chunk sent once to the island's group of the round
 *   (SetMulticastGroups; the routers replicate it along the source tree installed by
 *   PimMulticastHelper), with the socket's `IpMulticastTtl` set to the TTL given there;
 * - aggregation: unicast streams, but the in-line FPGA (AggregatorNetDevice) at each receiver's
 *   edge sums the contributions of a chunk and the receiver gets one AGGREGATE per chunk
 *   (contributor bitmap = the members it sums);
 * - both: multicast streams, summed by each receiver's FPGA.
 * A receiver credits a DATA to its sender and an AGGREGATE to every contributor of its bitmap
 * (the sums are added once); an arrival that overlaps what is held is ignored (a sum cannot be
 * split) and repaired like a loss. Ring and tree modes are analytic only (MODEL.md) and are
 * rejected.
 *
 * **Pacing.** Every stream is paced on the wire; the pacer counts on-the-wire bytes (PPP, IPv4,
 * UDP and IslandSyncHeader headers and the payload). Unless `StreamRate` is set, rates are
 * bottleneck shares of the round's loads n_l (LinkLoadModel::GetRoundLoads with the island's
 * mode, MODEL.md's counts), a share of link l being capacity_l / n_l:
 * - unicast: stream i->j at the smallest share along route i->j;
 * - multicast: island i's stream at the smallest share on its source tree
 *   (LinkLoadModel::GetSourceTree: the tree crosses each link once, so n_l counts one stream
 *   per source tree on l);
 * - aggregation and both: every stream of the clique at one common rate, the smallest of the
 *   clique's unicast (aggregation) or source-tree (both) rates, so that the contributions toward
 *   one member arrive at its FPGA at the same pace and its slots do not pile up (an aggregate
 *   leaves with the slowest contribution).
 * The sum of the streams on a link never exceeds its capacity, and a lossless, uncontended round
 * takes MODEL.md's time times (wire bytes / model bytes), without queue build-up.
 *
 * **Repair.** A receiver tracks the chunks it holds per contributor as intervals. A gap in
 * first transmissions (packets of a stream arrive in order) triggers a NACK of the gap; a
 * stream that stalls for max(NackTimeout, 4 packet intervals) while incomplete triggers a NACK
 * of every missing range (selective, as many ranges as fit in a packet), repeated after one
 * round-trip time plus NackTimeout plus the time to resend what was asked. NACKs always go by
 * unicast to the contributor whose chunks are missing, and the contributor resends them by
 * unicast to the receiver that asked (in multicast and both modes too: the other members are
 * not bothered). A multicast sender interleaves the repairs with its group stream in one pacer
 * at the stream's rate. When a receiver holds a whole stream it sends DONE; a sender that has
 * sent everything and waits longer than the round-trip time plus 2 x NackTimeout for DONE
 * resends the last chunk (a probe), which makes the receiver NACK or re-send DONE. Every wait
 * has a timeout; after `MaxRepairAttempts` attempts without progress the island gives up
 * (Failed trace, GetFailure() names the stream) and stops, so a hopeless run ends with
 * incomplete rounds instead of running forever.
 *
 * **Patience with an FPGA (aggregation and both modes).** Behind an in-line aggregator a gap is
 * not yet a loss: a chunk whose contribution was lost stays in an FPGA slot until the FPGA's
 * Timeout, then leaves as a partial aggregate that names who is missing. So in these modes a
 * gap is NACKed only after `AggregationTimeout` (set it to the FPGA's Timeout; TrainingHelper
 * does) plus the normal stall time, and only for the contributors still missing then; a first
 * stall NACK waits as long, and a sender's probe waits AggregationTimeout longer. The resent
 * DATA reaches the island individually (the FPGA passes DATA for a closed chunk through).
 * Clique members' DATA never reaches the island itself (the FPGA absorbs it), so the barrier
 * learns that a member has started a round from its READY and from the bitmaps of the
 * aggregates, never from DATA alone.
 */
class TrainingIslandApplication : public Application
{
  public:
    /** The module's UDP port for island synchronization. */
    static constexpr uint16_t DEFAULT_PORT = 9477;
    /** Bytes of the IPv4 (no options) and UDP headers of every chunk. */
    static constexpr uint32_t IP_UDP_HEADER_BYTES = 28;
    /** Bytes of the PPP header on every point-to-point link. */
    static constexpr uint32_t PPP_HEADER_BYTES = 2;
    /** The most ranges a NACK carries. */
    static constexpr uint32_t MAX_NACK_RANGES = 256;
    /** The destination of a chunk sent to the clique's multicast group (ChunkSent trace). */
    static constexpr uint32_t ALL_MEMBERS = UINT32_MAX;

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
    /** @return the number of rounds the island has ended */
    uint32_t GetCompletedRounds() const;
    /** @return the Rounds attribute */
    uint32_t GetRounds() const;
    /** @return the ModelBytes attribute */
    uint64_t GetModelBytes() const;
    /** @return the capability mode */
    CapabilityMode GetMode() const;
    /**
     * @param round a round (0 <= round < Rounds)
     * @return the clique index of this island in that round, or CliqueSchedule::IDLE
     */
    uint32_t GetCliqueOf(uint32_t round) const;
    /**
     * @param round a round
     * @return the model bytes per chunk of this island's clique in that round (0 when idle)
     */
    uint32_t GetChunkBytes(uint32_t round) const;
    /**
     * @param round a round
     * @return the number of chunks of a contribution in that round (0 when idle)
     */
    uint32_t GetChunkCount(uint32_t round) const;
    /**
     * @param round a round
     * @param destination another member of this island's clique in that round
     * @return the pacing rate of the stream toward it, in bit/s on the wire (multicast and both
     *         modes: the rate of the island's one stream, which reaches every member)
     */
    double GetStreamRateBps(uint32_t round, uint32_t destination) const;
    /**
     * @param round a round
     * @param source another member of this island's clique in that round
     * @return the pacing rate of the source's stream toward this island, in bit/s on the wire
     */
    double GetReceiveRateBps(uint32_t round, uint32_t source) const;
    /**
     * @param round a round
     * @return the group this island sends to in that round (multicast and both modes), or
     *         Ipv4Address() when it sends none
     */
    Ipv4Address GetMulticastGroup(uint32_t round) const;

    /** @return chunks sent, first transmissions and repairs (a multicast send counts once) */
    uint64_t GetChunksSent() const;
    /** @return chunks sent again (NACK repairs and probes) */
    uint64_t GetChunksResent() const;
    /** @return NACK packets sent */
    uint64_t GetNacksSent() const;
    /** @return chunk arrivals that added nothing (duplicates, overlapping aggregates) */
    uint64_t GetDuplicateChunks() const;
    /** @return AGGREGATE chunks received (credited or not) */
    uint64_t GetAggregatesReceived() const;
    /** @return received packets dropped as malformed or foreign */
    uint64_t GetRejectedPackets() const;
    /** @return why the island gave up, or an empty string */
    const std::string& GetFailure() const;

    /**
     * TracedCallback signature of a round start.
     * @param island the island
     * @param round the round
     */
    typedef void (*RoundStartedCallback)(uint32_t island, uint32_t round);

    /**
     * TracedCallback signature of exchange start and round end.
     * @param island the island
     * @param round the round
     * @param clique the island's clique index in the round, or CliqueSchedule::IDLE
     * @param parameters at exchange start: the contribution (pre-exchange parameters); at round
     *        end: the new parameters
     */
    typedef void (*ParametersCallback)(uint32_t island,
                                       uint32_t round,
                                       uint32_t clique,
                                       const std::vector<float>& parameters);

    /**
     * TracedCallback signature of a chunk sent.
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
     * TracedCallback signature of a chunk received.
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
     * @param source the contributor asked to resend
     * @param round the round
     * @param chunks the number of chunks requested
     */
    typedef void (*RepairRequestedCallback)(uint32_t island,
                                            uint32_t source,
                                            uint32_t round,
                                            uint32_t chunks);

    /**
     * TracedCallback signature of an island giving up.
     * @param island the island
     * @param reason why
     */
    typedef void (*FailedCallback)(uint32_t island, const std::string& reason);

  protected:
    void DoDispose() override;

  private:
    void StartApplication() override;
    void StopApplication() override;

    /** What this island does in one schedule round. */
    struct Plan
    {
        uint32_t clique{CliqueSchedule::IDLE};  //!< clique index, IDLE when idle
        std::vector<uint32_t> members;          //!< clique members (empty when idle)
        uint32_t chunkBytes{0};                 //!< model bytes per chunk
        uint32_t chunkCount{0};                 //!< chunks per contribution
        std::map<uint32_t, double> sendRateBps; //!< destination -> pacing rate
        std::map<uint32_t, double> recvRateBps; //!< source -> its pacing rate toward us
        Ipv4Address group;                      //!< multicast group we send to
        double groupRateBps{0};                 //!< pacing rate of our multicast stream
    };

    /** A gap of first transmissions waiting for its deferred NACK (aggregation, both). */
    struct GapCheckEntry
    {
        Time due;          //!< when the gap is NACKed (if still missing)
        uint32_t first{0}; //!< first chunk of the gap
        uint32_t end{0};   //!< one past its last chunk
    };

    /** Contributions of one member held for one round. */
    struct RxStream
    {
        ChunkRangeSet held;                  //!< chunks held
        uint32_t nextFirst{0};               //!< one past the highest chunk index seen
        bool started{false};                 //!< whether any chunk arrived
        bool complete{false};                //!< whether every chunk is held
        Time lastArrival;                    //!< last time a chunk was accepted
        Time holdUntil;                      //!< no timeout NACK before this time
        EventId timer;                       //!< stall timer
        uint32_t attempts{0};                //!< NACKs without progress
        std::deque<GapCheckEntry> gapChecks; //!< deferred gap NACKs, by due time
        EventId gapEvent;                    //!< next deferred gap NACK
    };

    /** The receive side of one round. */
    struct RxState
    {
        std::vector<double> sum;              //!< sum of the contributions' values
        std::map<uint32_t, RxStream> streams; //!< by contributor (other members)
        bool ownAdded{false};                 //!< whether our contribution is in the sum
        uint32_t completeStreams{0};          //!< streams complete
    };

    /**
     * One outgoing stream of one round: toward one member (unicast and aggregation modes: its
     * own pacer; multicast and both modes: its repairs, DONE and probes), or the multicast
     * stream (destination ALL_MEMBERS), whose pacer also sends every member's repairs.
     */
    struct TxStream
    {
        uint32_t destination{0};  //!< receiving island, or ALL_MEMBERS
        ChunkRangeSet pending;    //!< chunks to send
        uint32_t sentFirst{0};    //!< one past the highest chunk index sent
        double nextSendS{0};      //!< earliest time of the next send, exact seconds
        bool sending{false};      //!< whether a send event is pending
        bool done{false};         //!< whether the receiver acknowledged everything
        bool waitingReady{false}; //!< whether the receiver has not announced the round yet
        EventId sendEvent;        //!< next paced send
        EventId probeEvent;       //!< DONE timeout
        uint32_t attempts{0};     //!< probes without progress
    };

    /** The send side of one round. */
    struct TxState
    {
        std::vector<float> values;            //!< the contribution (snapshot)
        std::map<uint32_t, TxStream> streams; //!< by destination
        uint32_t doneStreams{0};              //!< streams acknowledged
        bool multicast{false};                //!< whether chunks go to the group
        bool cliqueWide{false};               //!< whether streams wait for every member
        uint32_t awaited{0};                  //!< members that have not announced the round
        TxStream group;                       //!< the multicast stream (multicast and both)
        uint32_t nextRepair{0};               //!< first destination of the repair round robin
    };

    /**
     * @brief Mode attribute setter (EnumValue holds an int).
     * @param mode the mode as an int
     */
    void SetModeValue(int mode);
    /** @return the mode as an int (Mode attribute getter) */
    int GetModeValue() const;

    /** @return whether the mode sends to multicast groups (multicast, both) */
    bool IsMulticast() const;
    /** @return whether the mode has receivers' FPGAs summing (aggregation, both) */
    bool IsAggregated() const;

    /** Validate the configuration and build the plans; aborts with a message when invalid. */
    void BuildPlans();
    /**
     * @param round a round
     * @return the plan of its schedule round
     */
    const Plan& GetPlan(uint32_t round) const;
    /**
     * @param plan a plan
     * @param chunk a chunk index
     * @return the chunk's model payload bytes
     */
    uint32_t GetPayloadBytes(const Plan& plan, uint32_t chunk) const;
    /**
     * @param plan a plan
     * @param chunk a chunk index
     * @return the index of its first value and its number of values
     */
    std::pair<uint32_t, uint32_t> GetValueSlice(const Plan& plan, uint32_t chunk) const;
    /**
     * @param plan a plan
     * @param chunk a chunk index
     * @return the bytes of the chunk's packet on a point-to-point link
     */
    uint32_t GetWireBytes(const Plan& plan, uint32_t chunk) const;
    /**
     * @param other another island
     * @return the round-trip time between this island and it (route latencies)
     */
    Time GetRtt(uint32_t other) const;
    /**
     * @param other another island
     * @return the NACK ranges that fit one packet toward it
     */
    uint32_t GetMaxNackRanges(uint32_t other) const;
    /**
     * @param plan the round's plan
     * @param source a contributor
     * @return how long its stream may be silent before a stall NACK: max(NackTimeout, 4
     *         packet intervals)
     */
    Time GetStallTime(const Plan& plan, uint32_t source) const;
    /**
     * @param plan the round's plan
     * @param source a contributor
     * @return how long a gap waits before it is NACKed (aggregation and both modes):
     *         AggregationTimeout + GetStallTime
     */
    Time GetPatience(const Plan& plan, uint32_t source) const;
    /**
     * @param destination a member
     * @return how long a sender that has sent everything waits for its DONE before a probe
     */
    Time GetProbeWait(uint32_t destination) const;

    /**
     * @brief Give up: record the reason, fire Failed and stop every activity.
     * @param reason why
     */
    void Fail(const std::string& reason);

    /** Start round m_round (or finish when every round is done). */
    void StartRound();
    /** One local gradient step. */
    void LocalStep();
    /** Snapshot the parameters and start the clique exchange of m_round. */
    void StartExchange();
    /** End round m_round: mix and move on. */
    void FinishRound();
    /**
     * @param round a round
     * @return its receive state, created when absent
     */
    RxState& GetRxState(uint32_t round);
    /** End the exchange of m_round when every contribution is held. */
    void CheckExchangeComplete();

    /**
     * @brief Send the next pending chunk of a stream and schedule the following one.
     * @param round the round
     * @param destination the stream's receiver
     */
    void SendNext(uint32_t round, uint32_t destination);
    /**
     * @param tx a round's send state
     * @param stream one of its streams
     * @return whether the stream's pacer has something to send (the multicast stream: its own
     *         chunks or any member's repairs)
     */
    bool HasWork(const TxState& tx, const TxStream& stream) const;
    /**
     * @brief Start or resume a stream's pacer.
     * @param round the round
     * @param tx the round's send state
     * @param stream the stream (a member's stream or the multicast stream)
     */
    void ResumeStream(uint32_t round, TxState& tx, TxStream& stream);
    /**
     * @brief (Re)start a member's DONE timeout after its last chunk has left.
     * @param round the round
     * @param stream the member's stream
     * @param lastSendEndS when the pacer's last packet ends, exact seconds
     */
    void ScheduleProbe(uint32_t round, TxStream& stream, double lastSendEndS);
    /**
     * @brief DONE timeout of a stream: resend the last chunk.
     * @param round the round
     * @param destination the stream's receiver
     */
    void Probe(uint32_t round, uint32_t destination);
    /**
     * @brief Send one chunk of a round's contribution.
     * @param round the round
     * @param tx the round's send state
     * @param stream the stream
     * @param chunk the chunk index
     * @param resent whether it was sent before
     */
    void SendChunk(uint32_t round, TxState& tx, TxStream& stream, uint32_t chunk, bool resent);
    /**
     * @brief Stall timer of a receive stream.
     * @param round the round
     * @param source the contributor
     */
    void RxTimeout(uint32_t round, uint32_t source);
    /**
     * @brief Deferred gap NACK (aggregation and both modes): NACK what is still missing in the
     * gaps whose patience is over (each gap once).
     * @param round the round
     * @param source the contributor
     */
    void GapCheck(uint32_t round, uint32_t source);
    /**
     * @brief Send a NACK.
     * @param round the round
     * @param source the contributor asked to resend
     * @param ranges the missing chunk ranges
     */
    void SendNack(uint32_t round, uint32_t source, const std::vector<ChunkRangeSet::Range>& ranges);
    /**
     * @brief Send READY for a round.
     * @param round the round this island has started
     * @param destination the island told
     * @param askAnswer whether the destination should answer with its own READY
     */
    void SendReady(uint32_t round, uint32_t destination, bool askAnswer);
    /**
     * @brief Record that an island has started a round; start the streams waiting for it.
     * @param island the island
     * @param round the round it has started
     */
    void UpdatePeerRound(uint32_t island, uint32_t round);
    /**
     * @brief READY timeout of the current exchange: ask the members still awaited.
     * @param round the round
     */
    void ReadyTimeout(uint32_t round);
    /**
     * @brief Send DONE for a contributor's stream.
     * @param round the round
     * @param source the contributor whose stream is held
     */
    void SendDone(uint32_t round, uint32_t source);
    /**
     * @brief Send a control or data header (with padding) to an island or to the group.
     * @param header the header
     * @param paddingBytes zero-filled payload after it
     * @param destination the island, or ALL_MEMBERS for the group of the header's round
     */
    void SendPacket(const IslandSyncHeader& header, uint32_t paddingBytes, uint32_t destination);

    /**
     * @brief Socket receive callback.
     * @param socket the socket
     */
    void HandleRead(Ptr<Socket> socket);
    /**
     * @brief A DATA or AGGREGATE chunk arrived.
     * @param header its header
     * @param paddingBytes its payload after the header
     */
    void HandleChunk(const IslandSyncHeader& header, uint32_t paddingBytes);
    /**
     * @brief A NACK arrived.
     * @param header its header
     */
    void HandleNack(const IslandSyncHeader& header);
    /**
     * @brief A DONE arrived.
     * @param header its header
     */
    void HandleDone(const IslandSyncHeader& header);
    /**
     * @brief A READY arrived.
     * @param header its header
     */
    void HandleReady(const IslandSyncHeader& header);

    // Attributes.
    uint16_t m_jobId;             //!< job id
    uint16_t m_port;              //!< UDP port
    uint32_t m_rounds;            //!< rounds to run
    uint64_t m_modelBytes;        //!< wire size of a contribution
    uint32_t m_chunkBytesAttr;    //!< chunk size override (0 = fill the path MTU)
    uint32_t m_parameterCount;    //!< length of the real parameter vector
    uint32_t m_localSteps;        //!< local steps per round
    Time m_stepTime;              //!< time of one local step
    double m_learningRate;        //!< gradient step size
    double m_heterogeneity;       //!< objective heterogeneity
    uint64_t m_objectiveSeed;     //!< objective seed
    CapabilityMode m_mode;        //!< capability mode
    DataRate m_streamRate;        //!< pacing override (0 = bottleneck share)
    Time m_nackTimeout;           //!< stall timeout
    bool m_cliqueBarrier;         //!< wait for READY before streaming to a member
    uint32_t m_maxRepairAttempts; //!< attempts without progress before giving up
    Time m_aggregationTimeout;    //!< the FPGAs' Timeout (NACK patience)

    // Scenario.
    uint32_t m_island;                                //!< this island
    std::shared_ptr<const WanTopology> m_topology;    //!< the topology
    std::shared_ptr<const CliqueSchedule> m_schedule; //!< the schedule
    std::vector<Ipv4Address> m_addresses;             //!< island addresses
    std::vector<Ipv4Address> m_groups;                //!< our group per schedule round
    uint8_t m_multicastTtl;                           //!< multicast TTL (0: not given)
    std::vector<Plan> m_plans;                        //!< plan per schedule round

    // State.
    Ptr<Socket> m_socket;                                //!< the UDP socket
    mutable std::unique_ptr<LocalObjective> m_objective; //!< built on first use
    std::vector<float> m_parameters;                     //!< current parameters
    uint32_t m_round;                                    //!< current round
    bool m_exchanging;                                   //!< whether m_round is in its exchange
    uint32_t m_stepsDone;                                //!< local steps done in m_round
    EventId m_stepEvent;                                 //!< next local step
    std::map<uint32_t, RxState> m_rx;                    //!< receive state by round
    std::map<uint32_t, TxState> m_tx;                    //!< send state by round
    std::vector<uint32_t> m_peerRound;                   //!< highest round announced, by island
    EventId m_readyEvent;                                //!< READY timeout
    uint32_t m_readyAttempts;                            //!< READY requests without an answer

    // Counters.
    uint64_t m_chunksSent;      //!< chunks sent
    uint64_t m_chunksResent;    //!< chunks resent
    uint64_t m_nacksSent;       //!< NACKs sent
    uint64_t m_duplicateChunks; //!< useless chunk arrivals
    uint64_t m_aggregatesIn;    //!< AGGREGATE arrivals
    uint64_t m_rejectedPackets; //!< malformed or foreign packets
    std::string m_failure;      //!< why the island gave up (empty: it did not)

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
    TracedCallback<uint32_t, const std::string&> m_failedTrace;           //!< gave up
};

} // namespace ns3

#endif /* TRAINING_ISLAND_APPLICATION_H */
