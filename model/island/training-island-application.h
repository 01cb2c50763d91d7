/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef TRAINING_ISLAND_APPLICATION_H
#define TRAINING_ISLAND_APPLICATION_H

#include "chunk-range-set.h"
#include "clique-schedule.h"
#include "exchange-plan.h"
#include "island-sync-header.h"
#include "link-load-model.h"
#include "local-objective.h"
#include "receive-stream.h"
#include "send-stream.h"
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
#include <string>
#include <vector>

namespace ns3
{

class ExchangePlanner;
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
 * in double, rounded to float32; ring mode: summed along the ring, see below) and the next
 * round starts at once.
 *
 * **Barrier (per clique).** There is no global barrier; each clique is a barrier for its
 * members. An island starting round r >= 1 announces it (READY) to the other members of its
 * round-r clique; its stream toward a member starts when both its own compute is over and that
 * member has announced round r (or sent round-r data), so a stream never reaches an island
 * that is still busy with an earlier round (attribute `CliqueBarrier`, on by default; off, the
 * streams start at once). In ring mode an island announces the round to its predecessor only,
 * and its steps wait for its successor's announcement. A multicast stream reaches every member
 * at once, and an FPGA sums a chunk only once every member's contribution has arrived (its slots
 * fill with the arrival skew of the contributions), so in multicast, aggregation and both modes an
 * island's streams start together, when its compute is over and every other member has announced
 * the round. An island that waits longer than one round-trip time plus NackTimeout asks the member
 * again (a READY with an answer request); a member that is alive but behind answers with its
 * current round, which resets the wait. The round ends for an island when it holds every member's
 * contribution. It keeps serving repair requests for the round from its snapshot until every member
 * has acknowledged (DONE) its contribution. Cliques of one round progress independently: a clique
 * that ends early starts its next round while others still exchange, and its streams, paced for the
 * next round's loads, can share WAN links with theirs (queues absorb it; a drop is repaired like a
 * loss).
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
 * - both: multicast streams, summed by each receiver's FPGA;
 * - ring: the unicast ring all-reduce baseline (below), each island sending only to its
 *   successor on the clique's ring.
 * A receiver credits a DATA to its sender and an AGGREGATE to every contributor of its bitmap
 * (the sums are added once); an arrival that overlaps what is held is ignored (a sum cannot be
 * split) and repaired like a loss. The tree mode is analytic only (MODEL.md: it needs a summing
 * FPGA in every router) and is rejected when the application starts.
 *
 * **Ring mode (reduce-scatter + all-gather).** A clique of k >= 2 members runs on the ring
 * c_0 .. c_{k-1} = LinkLoadModel::GetRingOrder(clique); c_t sends only to its successor
 * c_{t+1} and receives only from its predecessor c_{t-1} (indices mod k; for k = 2 both are
 * the other member). The chunk index range [0, C) of the round is split into k contiguous
 * segments, segment j = [floor(j C / k), floor((j + 1) C / k)), so each holds floor(C / k) or
 * ceil(C / k) chunks and the values of the chunks it holds (GetValueSlice). With the default
 * ChunkBytes, chunks are made small enough that C >= k; a ChunkBytes or ModelBytes that gives
 * fewer chunks than members is rejected. The exchange has 2(k-1) steps, each a stream of one
 * segment from c_t to c_{t+1}:
 * - reduce-scatter, step s = 0 .. k-2: c_t sends segment (t - s) mod k, holding the running sum
 *   of c_{t-s} .. c_t (step 0: its own values, a DATA; later steps: the predecessor's partial
 *   sum of step s-1 plus its own values, added in float32, an AGGREGATE whose bitmap names the
 *   s+1 contributors). After step k-2, c_t's predecessor's partial plus its own values is the
 *   full sum of segment (t + 1) mod k;
 * - all-gather, step k-1+s for s = 0 .. k-2: c_t sends the full sum of segment
 *   (t + 1 - s) mod k (an AGGREGATE naming every member): its own at s = 0, afterwards the
 *   one received at the previous step.
 * Steps are synchronous: c_t sends step s >= 1 only once it holds the whole step s-1 stream of
 * its predecessor (it needs its values), which gives MODEL.md's time, 2(k-1) x the largest hop
 * latency plus the bandwidth term, as an upper bound. The round ends for c_t when it holds all
 * 2(k-1) streams of its predecessor: its parameters become float32(sum / k) from the k full
 * segment sums, the same float32 sums on every member, so the members end with identical
 * parameters (TrainingResults verifies them against the double-precision average; the float32
 * partial sums differ from it by a few units of the last place). On the wire, a chunk's step
 * is given by its sender, its contributor bitmap (s+1 bits in reduce-scatter step s, all k in
 * the all-gather) and its chunk index (which segment): see GetRingStep. Per member,
 * egress = ingress = the 2(k-1) segments it sends (receives), 2S minus the two segments it
 * skips (c_t never sends segments t+1 and t+2 mod k), so 2(k-1)/k S when k divides C and
 * within two chunks of it otherwise (each skipped segment is within one chunk of S/k); every
 * directed link of route c_t -> c_{t+1} carries that, LinkLoadModel::GetCliqueLoads' 2(k-1)/k
 * streams. An island's 2(k-1) streams of a round share one pacer toward its successor, which
 * sends the lowest step with chunks to send first (so a repair of an earlier step goes before
 * the first transmissions of a later one).
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
 *   leaves with the slowest contribution);
 * - ring: the island's steps toward its successor at w x the smallest share along route
 *   c_t -> c_{t+1}, w = 2(k-1)/k being the streams the hop carries (its share of a link by
 *   volume). The hop's steps are sequential, so this is the rate at which a link that carries
 *   n_l streams in all finishes every hop that crosses it after 8 S n_l / capacity_l, MODEL.md's
 *   bandwidth term (pacing each step at capacity_l / n_l would take 2(k-1)/k times longer).
 * The sum of the streams on a link never exceeds its capacity, and a lossless, uncontended round
 * takes MODEL.md's time times (wire bytes / model bytes), without queue build-up (ring: at most
 * that; a ring whose hop latencies differ is faster than MODEL.md's 2(k-1) x largest hop).
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
 * has a timeout: `MaxRepairAttempts` attempts without progress end it (see below), so a
 * hopeless exchange ends with a reported outcome instead of running forever.
 *
 * **Members that stop answering (crashes, partitions): exclusion.** While an island exchanges,
 * it asks every member it waits for (a member that has not announced the round, or whose
 * stream has not brought anything yet; ring mode: the successor and predecessor) with a READY
 * requesting an answer, every round-trip time plus NackTimeout. Any packet of the member about
 * this round or an earlier one resets the count (a member that is alive but behind answers);
 * after MaxRepairAttempts unanswered requests, or MaxRepairAttempts probes without
 * acknowledgement, the member is *excluded* from the round (MemberExcluded trace): the island
 * stops waiting for it and averages over the other members, provided it holds nothing of the
 * member's contribution (ring mode: the ring is rebuilt over the remaining members and the
 * exchange starts again: LinkLoadModel::GetRingOrder of the remaining members, the same
 * chunks, segments and rates for the new ring, and a clique id on the wire of clique + 64 x
 * the number of members excluded, so that chunks of the old ring are not taken for the new
 * one). The island tells the remaining members (a READY with chunk index 2 whose contributor
 * bitmap is its view: the members it averages over) and they exclude the same members, so the
 * members that finish agree on the contributors; the view is sent again whenever a member
 * that has not confirmed it sends something. A member excluded because it stopped answering is
 * believed gone: later rounds exclude it at their start (and tell it, in case it is back)
 * until it sends something about such a round. An island that an exclusion message excludes
 * excludes the sender in turn (the two sides of a partition each average over their side). The
 * round's contributors are GetRoundContributors() inside a RoundFinished sink; they are the
 * members whose contributions the average sums exactly. A stream that stalls halfway (a member
 * that stops after sending part of its contribution) cannot be excluded, since its chunks are
 * in the sum: after MaxRepairAttempts NACKs the island *abandons* the round (RoundAbandoned
 * trace; GetFailure() names the first such stream), keeps its own parameters for it, and goes
 * on with the next round while it still serves repairs of its own contribution.
 *
 * **Crash (attribute `CrashRound`).** At the start of round CrashRound the island leaves: it
 * computes nothing more, contributes to no later round and answers nothing about them (the
 * Crashed trace fires). It still serves what it owes of its earlier rounds (repairs of its
 * contributions, acknowledgements) and closes its socket once every member has acknowledged
 * them, so the rounds before the crash complete exactly.
 *
 * **Repair in ring mode.** Each step is a stream of its own, (round, step, predecessor), with
 * all of the above per step: its chunks held as intervals of its segment, gap and stall NACKs,
 * DONE, and the sender's probe (the segment's last chunk) when DONE is late. A receiver's stall
 * timer starts with the step's first chunk, so the wait between steps (the predecessor waiting
 * for its own predecessor) is not taken for a loss. NACK and DONE name their step the way a
 * chunk does: the bitmap is the step's contributor set and the chunk index the first chunk of
 * its segment (a NACK's ranges lie in that segment). A sender keeps the values of every step
 * (its snapshot, the partial sums and the full sums it received) until its successor has
 * acknowledged every step, so it can repair a step after its own round has ended.
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
    /** The module's UDP port for island synchronization (SyncProtocol::DEFAULT_PORT). */
    static constexpr uint16_t DEFAULT_PORT = SyncProtocol::DEFAULT_PORT;
    /** Bytes of the IPv4 and UDP headers of every chunk (SyncProtocol::IP_UDP_HEADER_BYTES). */
    static constexpr uint32_t IP_UDP_HEADER_BYTES = SyncProtocol::IP_UDP_HEADER_BYTES;
    /** Bytes of the PPP header on every point-to-point link (SyncProtocol::PPP_HEADER_BYTES). */
    static constexpr uint32_t PPP_HEADER_BYTES = SyncProtocol::PPP_HEADER_BYTES;
    /** The most ranges a NACK carries. */
    static constexpr uint32_t MAX_NACK_RANGES = 256;
    /** The destination of a chunk sent to the clique's multicast group (ChunkSent trace). */
    static constexpr uint32_t ALL_MEMBERS = UINT32_MAX;
    /** What GetRingStep returns for a header that is no chunk of a ring step. */
    static constexpr uint32_t NO_RING_STEP = UINT32_MAX;
    /** The chunk index of a READY that asks for an answer. */
    static constexpr uint32_t READY_ASK = 1;
    /** The chunk index of a READY that carries the sender's view of the round's members. */
    static constexpr uint32_t READY_VIEW = 2;
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
     * @param destination another member of this island's clique in that round (ring mode: the
     *        island's successor, the only member it sends to)
     * @return the pacing rate of the stream toward it, in bit/s on the wire (multicast and both
     *         modes: the rate of the island's one stream, which reaches every member; ring mode:
     *         the rate of every step toward the successor)
     */
    double GetStreamRateBps(uint32_t round, uint32_t destination) const;
    /**
     * @param round a round
     * @param source another member of this island's clique in that round (ring mode: the
     *        island's predecessor, the only member it receives from)
     * @return the pacing rate of the source's stream toward this island, in bit/s on the wire
     */
    double GetReceiveRateBps(uint32_t round, uint32_t source) const;
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
    /** @return AGGREGATE chunks received (credited or not; ring mode: partial and full sums) */
    uint64_t GetAggregatesReceived() const;
    /** @return received packets dropped as malformed or foreign */
    uint64_t GetRejectedPackets() const;
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
     * @param parameters at exchange start: the contribution (pre-exchange parameters); at round
     *        end: the new parameters
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
     * TracedCallback signature of a control message handed to the socket: a READY (the round
     * barrier, its answer, or a membership view), a DONE or a NACK. Its UDP payload is the
     * header alone (header.GetSerializedSize() bytes).
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

    /** The last view of a round this island sent to a member. */
    struct ViewSent
    {
        uint32_t round{0}; //!< the round
        uint64_t view{0};  //!< the view (members averaged over)
        Time at;           //!< when it was sent
    };

    /** Ring mode: the sums an island receives in one round, by parameter index. */
    struct RingValues
    {
        std::vector<float> partial; //!< reduce-scatter: the predecessor's partial sums
        std::vector<float> reduced; //!< all-gather: the full segment sums received
    };

    /** The receive side of one round. */
    struct RxState
    {
        std::vector<double> sum;                   //!< sum of the contributions' values (not
                                                   //!< used in ring mode)
        std::map<uint32_t, ReceiveStream> streams; //!< by contributor (other members; ring
                                                   //!< mode: by step)
        bool ownAdded{false};                      //!< whether our contribution is in the sum
        uint32_t completeStreams{0};               //!< streams complete
        std::shared_ptr<RingValues> ringValues;    //!< ring mode: the sums received (shared
                                                   //!< with the round's send side)
    };

    /** The send side of one round. */
    struct TxState
    {
        std::vector<float> values;              //!< the contribution (snapshot)
        std::map<uint32_t, SendStream> streams; //!< by destination (ring mode: by step)
        uint32_t doneStreams{0};                //!< streams acknowledged
        bool multicast{false};                  //!< whether chunks go to the group
        bool cliqueWide{false};                 //!< whether streams wait for every member
        uint32_t awaited{0};                    //!< members that have not announced the round
        SendStream group;                       //!< the multicast stream (multicast and both) or
                                                //!< the ring's pacer (ring)
        std::shared_ptr<RingValues> ringValues; //!< ring mode: the sums received
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
    /** @return whether the mode is the ring all-reduce */
    bool IsRing() const;

    /**
     * @param plan a ring plan
     * @return the steps of the ring's exchange, 2(k-1)
     */
    uint32_t GetRingSteps(const ExchangePlan& plan) const;
    /**
     * @param plan a ring plan
     * @param position a place on the ring (index in plan.ring)
     * @param step a step
     * @return the segment the member at that place sends in that step
     */
    uint32_t GetRingSegment(const ExchangePlan& plan, uint32_t position, uint32_t step) const;
    /**
     * @param plan a ring plan
     * @param position a place on the ring
     * @param step a step
     * @return the contributor bitmap of what the member at that place sends in that step
     */
    uint64_t GetRingContributors(const ExchangePlan& plan, uint32_t position, uint32_t step) const;
    /**
     * @param plan a ring plan
     * @param position the sender's place on the ring
     * @param contributors a contributor bitmap
     * @param chunk a chunk index
     * @return the step whose segment holds the chunk and whose bitmap is that one, or
     *         NO_RING_STEP
     */
    uint32_t FindRingStep(const ExchangePlan& plan,
                          uint32_t position,
                          uint64_t contributors,
                          uint32_t chunk) const;
    /**
     * @brief The values this island sends in one ring step (ring mode).
     * @param plan the round's ring plan
     * @param tx the round's send state (snapshot and sums received)
     * @param step the step
     * @param offset the first value index
     * @param count the number of values
     * @return own values (step 0), predecessor's partial + own values in float32 (steps 1 ..
     *         k-1), the full sums received (steps k .. 2k-3)
     */
    std::vector<float> GetRingValues(const ExchangePlan& plan,
                                     const TxState& tx,
                                     uint32_t step,
                                     uint32_t offset,
                                     uint32_t count) const;

    /** Validate the configuration and build the plans; aborts with a message when invalid. */
    void BuildPlans();
    /**
     * @param round a round
     * @return the plan of the round: its schedule round's, or the view after exclusions
     */
    const ExchangePlan& GetPlan(uint32_t round) const;
    /**
     * @param round a round
     * @return the plan of its schedule round (every member of the clique)
     */
    const ExchangePlan& GetBasePlan(uint32_t round) const;
    /** Forget the views of rounds that are over and have nothing left to send. */
    void PruneViewPlans();
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
    Time GetStallTime(const ExchangePlan& plan, uint32_t source) const;
    /**
     * @param plan the round's plan
     * @param source a contributor
     * @return how long a gap waits before it is NACKed (aggregation and both modes):
     *         AggregationTimeout + GetStallTime
     */
    Time GetPatience(const ExchangePlan& plan, uint32_t source) const;
    /**
     * @param destination a member
     * @return how long a sender that has sent everything waits for its DONE before a probe
     */
    Time GetProbeWait(uint32_t destination) const;

    /**
     * @brief Give up the current round: keep the parameters, fire RoundAbandoned and start the
     * next round (the send side of the round still serves repairs).
     * @param reason why
     */
    void AbandonRound(const std::string& reason);
    /** Leave (CrashRound): stop everything but what is owed of earlier rounds. */
    void Crash();
    /** Close the socket of a crashed island once nothing is owed any more. */
    void CloseIfIdle();
    /**
     * @brief Exclude a member from a round (now, or when the round starts).
     * @param round the round (the current one or a later one)
     * @param member a member of the round's clique
     * @param reason why
     * @return whether it was excluded (not when it already is, or when some of its contribution
     *         is already in the sum)
     */
    bool ExcludeMember(uint32_t round, uint32_t member, const std::string& reason);
    /**
     * @brief Make a view the current round's plan and fit the exchange state to it.
     * @param round the current round
     * @param excluded the members excluded
     */
    void ApplyView(uint32_t round, uint64_t excluded);
    /**
     * @param round a round
     * @return the members this island averages over in it (after the exclusions known now)
     */
    uint64_t GetView(uint32_t round) const;
    /**
     * @brief Send this island's view of a round to a member (a READY with chunk index
     * READY_VIEW).
     * @param round the round
     * @param member the member told
     */
    void SendView(uint32_t round, uint32_t member);
    /**
     * @brief Send the view of the current round again to a member that has not confirmed it,
     * at most once per round-trip time plus NackTimeout.
     * @param member the member
     */
    void RefreshView(uint32_t member);
    /**
     * @brief A view arrived: exclude whom the sender excludes (and the sender, if it excludes
     * this island).
     * @param header the READY
     */
    void HandleView(const IslandSyncHeader& header);
    /**
     * @brief Note that a member is alive and about a round (resets its count of unanswered
     * requests when the round is not later than the current one).
     * @param member the member
     * @param round the round the packet is about
     */
    void NoteAlive(uint32_t member, uint32_t round);
    /**
     * @param round the current round
     * @return the members the exchange waits for now (not announced, or nothing received yet)
     */
    std::vector<uint32_t> GetAwaited(uint32_t round) const;
    /**
     * @brief A stream's probes were not acknowledged: drop it, and exclude its receiver when the
     * round cannot end otherwise.
     * @param round the round
     * @param key the stream: its receiver (ring mode: its step)
     */
    void GiveUpStream(uint32_t round, uint32_t key);
    /**
     * @brief Mark a send stream finished (acknowledged or given up) and release the round's
     * send state when every stream is.
     * @param round the round
     * @param key the stream
     */
    void CloseStream(uint32_t round, uint32_t key);

    /** Start round m_round (or finish when every round is done). */
    void StartRound();
    /** One local gradient step. */
    void LocalStep();
    /** Snapshot the parameters and start the clique exchange of m_round. */
    void StartExchange();
    /** Start (or, after a ring's view changed, restart) the exchange of m_round. */
    void BeginExchange();
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
     * @brief Send the next pending chunk of a pacer and schedule the following one.
     * @param round the round
     * @param destination the pacer's receiver (ALL_MEMBERS: the multicast stream; ring mode:
     *        the successor, the ring's pacer, which sends the lowest step with work)
     */
    void SendNext(uint32_t round, uint32_t destination);
    /**
     * @param tx a round's send state
     * @param stream one of its streams
     * @return whether the stream's pacer has something to send (the multicast stream: its own
     *         chunks or any member's repairs; the ring's pacer: chunks of a step whose values are
     *         held)
     */
    bool HasWork(const TxState& tx, const SendStream& stream) const;
    /**
     * @param tx a round's send state
     * @param stream one of its streams
     * @return the pacer that sends the stream's chunks (the multicast stream or the ring's
     *         pacer, else the stream itself)
     */
    SendStream& GetPacer(TxState& tx, SendStream& stream);
    /**
     * @brief Ring mode: the predecessor's step is held, so the next step may be sent.
     * @param round the round
     * @param step the step held (its successor step is released)
     */
    void ReleaseRingStep(uint32_t round, uint32_t step);
    /**
     * @brief Start or resume a stream's pacer.
     * @param round the round
     * @param tx the round's send state
     * @param stream the stream (a member's stream or the multicast stream)
     */
    void ResumeStream(uint32_t round, TxState& tx, SendStream& stream);
    /**
     * @brief (Re)start a member's DONE timeout after its last chunk has left.
     * @param round the round
     * @param stream the member's stream
     * @param lastSendEndS when the pacer's last packet ends, exact seconds
     */
    void ScheduleProbe(uint32_t round, SendStream& stream, double lastSendEndS);
    /**
     * @brief DONE timeout of a stream: resend the last chunk (ring mode: of the step's segment).
     * @param round the round
     * @param key the stream: its receiver (ring mode: its step)
     */
    void Probe(uint32_t round, uint32_t key);
    /**
     * @brief Send one chunk of a round's contribution.
     * @param round the round
     * @param tx the round's send state
     * @param stream the stream
     * @param chunk the chunk index
     * @param resent whether it was sent before
     */
    void SendChunk(uint32_t round, TxState& tx, SendStream& stream, uint32_t chunk, bool resent);
    /**
     * @brief A receive stream's repair attempts are exhausted: exclude its member (ring mode) or
     * abandon the round (part of the contribution is in the sum).
     * @param round the round
     * @param key the stream: its contributor (ring mode: its step)
     */
    void StreamExhausted(uint32_t round, uint32_t key);
    /**
     * @param plan the round's plan
     * @param source a contributor (ring mode: the predecessor)
     * @return the timers of its receive stream
     */
    ReceiveStream::Timing GetReceiveTiming(const ExchangePlan& plan, uint32_t source) const;
    /**
     * @brief The header of a NACK or DONE about one stream, without its ranges.
     * @param type NACK or DONE
     * @param round the round
     * @param key the stream: its contributor (ring mode: its step)
     * @param source receives the island the reply goes to: the contributor (ring mode: the
     *        predecessor, and the header names the step by its contributor set and the first
     *        chunk of its segment)
     * @return the header
     */
    IslandSyncHeader MakeStreamReply(IslandSyncHeader::Type type,
                                     uint32_t round,
                                     uint32_t key,
                                     uint32_t& source) const;
    /**
     * @brief Send a NACK.
     * @param round the round
     * @param key the stream: the contributor asked to resend (ring mode: the step, asked of
     *        the predecessor)
     * @param ranges the missing chunk ranges
     */
    void SendNack(uint32_t round, uint32_t key, const std::vector<ChunkRangeSet::Range>& ranges);
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
     * @brief READY timeout of the current exchange: ask the members still awaited, exclude those
     * that did not answer MaxRepairAttempts requests.
     * @param round the round
     */
    void ReadyTimeout(uint32_t round);
    /**
     * @param round the current round
     * @return the period of the READY requests: the largest round-trip time to a member of
     *         the view plus NackTimeout
     */
    Time GetReadyPeriod(uint32_t round) const;
    /**
     * @brief Send DONE for a contributor's stream.
     * @param round the round
     * @param key the stream held: its contributor (ring mode: its step, acknowledged to the
     *        predecessor)
     */
    void SendDone(uint32_t round, uint32_t key);
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
     * @brief A DATA or AGGREGATE chunk arrived in ring mode: a step of the predecessor.
     * @param header its header
     * @param paddingBytes its payload after the header
     */
    void HandleRingChunk(const IslandSyncHeader& header, uint32_t paddingBytes);
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
    uint32_t m_crashRound;        //!< the round the island leaves at (NEVER: it does not)

    // Scenario.
    uint32_t m_island;                                //!< this island
    std::shared_ptr<const WanTopology> m_topology;    //!< the topology
    std::shared_ptr<const CliqueSchedule> m_schedule; //!< the schedule
    std::vector<Ipv4Address> m_addresses;             //!< island addresses
    std::vector<Ipv4Address> m_groups;                //!< our group per schedule round
    uint8_t m_multicastTtl;                           //!< multicast TTL (0: not given)
    std::unique_ptr<ExchangePlanner> m_planner;       //!< plans and views of plans
    std::vector<ExchangePlan> m_plans;                //!< plan per schedule round
    std::map<uint32_t, ExchangePlan> m_viewPlans;     //!< plans of rounds with exclusions

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
    std::map<uint32_t, uint32_t> m_silence;              //!< member -> requests unanswered
    std::map<uint32_t, uint64_t> m_pendingExclusions;    //!< later round -> members to exclude
    std::map<uint32_t, uint32_t> m_departed;             //!< member -> round it was gone in
    std::map<uint32_t, ViewSent> m_viewSent;             //!< member -> last view sent to it
    std::map<uint32_t, ViewSent> m_peerViews;            //!< member -> last view it sent
    bool m_running;                                      //!< between start and stop
    bool m_crashed;                                      //!< whether CrashRound was reached
    uint64_t m_lastContributors;                         //!< contributors of the last round

    // Counters.
    uint64_t m_chunksSent;      //!< chunks sent
    uint64_t m_chunksResent;    //!< chunks resent
    uint64_t m_nacksSent;       //!< NACKs sent
    uint64_t m_duplicateChunks; //!< useless chunk arrivals
    uint64_t m_aggregatesIn;    //!< AGGREGATE arrivals
    uint64_t m_rejectedPackets; //!< malformed or foreign packets
    std::string m_failure;      //!< why the first abandoned round was (empty: none)
    uint32_t m_abandoned;       //!< rounds abandoned
    uint32_t m_exclusions;      //!< members excluded, over all rounds

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
    TracedCallback<uint32_t, uint32_t, const IslandSyncHeader&>
        m_controlSentTrace; //!< READY, DONE or NACK sent
    TracedCallback<uint32_t, uint32_t, uint32_t, const std::string&>
        m_roundAbandonedTrace; //!< round abandoned
    TracedCallback<uint32_t, uint32_t, uint32_t, const std::string&>
        m_memberExcludedTrace;                         //!< member excluded
    TracedCallback<uint32_t, uint32_t> m_crashedTrace; //!< crashed
};

} // namespace ns3

#endif /* TRAINING_ISLAND_APPLICATION_H */
