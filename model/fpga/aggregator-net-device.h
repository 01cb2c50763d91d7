/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef AGGREGATOR_NET_DEVICE_H
#define AGGREGATOR_NET_DEVICE_H

#include "aggregate-shadows.h"
#include "chunk-range-set.h"
#include "contributor-sequence.h"
#include "inline-fpga.h"
#include "island-sync-header.h"
#include "port-expectations.h"
#include "slot-deadlines.h"
#include "slot-waits.h"

#include "ns3/data-rate.h"
#include "ns3/event-id.h"
#include "ns3/ipv4-address.h"
#include "ns3/ipv4-header.h"
#include "ns3/nstime.h"
#include "ns3/point-to-point-net-device.h"
#include "ns3/traced-callback.h"
#include "ns3/traced-value.h"

#include <cstdint>
#include <deque>
#include <map>
#include <queue>
#include <tuple>
#include <unordered_map>
#include <vector>

namespace ns3
{

/**
 * @ingroup wan-training
 * @brief A port of a router's in-line FPGA (InlineFpga): a point-to-point device on a router
 * port that sums the model contributions the router forwards on it.
 *
 * The device is a PointToPointNetDevice (same attributes, queue, traces and channel) whose
 * Send() inspects every packet the router forwards on the port. Every port of one router
 * shares the router's InlineFpga: its slot memory (`SlotCount`) and its pipeline (`LineRate`);
 * the rest (expectations, slots, timeouts, outbox, counters) is the port's own, since the
 * contributions of one chunk leave a router by one port.
 *
 * **What it aggregates.** A *contribution* is an IPv4 datagram (not a fragment) carrying UDP to
 * the `Port` attribute (the module's port, SyncProtocol::DEFAULT_PORT) whose payload starts with
 * a valid IslandSyncHeader, for a (job, round, clique) the port expects (SetExpectations: the
 * job has expectations, round mod period and the clique id, epoch included, name an entry).
 * An entry has one of two roles (Expectation):
 * - *edge* (aggregation and both modes; only on the port facing an island): DATA whose sender
 *   is an expected contributor. The IPv4 destination is not checked: every packet sent on this
 *   port is headed to the island, addressed to it (aggregation) or to a multicast group (both).
 *   The aggregate goes to the island.
 * - *tree* (tree mode; any port on a clique's in-tree): DATA or AGGREGATE addressed to the
 *   clique's root island (Expectation::root) whose contributors (the sender's bit for DATA,
 *   the bitmap of a partial aggregate from a router below) are all expected: the contributors
 *   of the port's subtree. The aggregate, a *partial aggregate* unless the port faces the root,
 *   goes on toward the root. A VIEW addressed to the root (a member that excluded others, see
 *   CliqueMembership) is forwarded unchanged, and the port's expectations for the round's
 *   clique shrink to the members it names: open slots that then hold every contribution still
 *   expected are released at once as complete aggregates.
 *
 * **Pipeline.** Every contribution enters the FPGA's FIFO pipeline: it occupies the pipeline
 * for its IPv4 datagram size at the FPGA's `LineRate` (a serialization shared by every port of
 * the router, in arrival order), then leaves it `ProcessingDelay` later; the port's state
 * changes when the contribution leaves the pipeline. Contributions do not use the device queue
 * (only what the FPGA emits does), so the streams of the k-1 other members of a clique may
 * converge on the port faster than the link rate (k-1 times the access rate in both mode); the
 * input buffer in front of the pipeline is unbounded, so choose LineRate (default 1000 Gbps) at
 * least their total rate. Packets that are not contributions bypass the pipeline and are sent
 * at once, unchanged, with no added delay, so a device without expectations is transparent.
 *
 * **Deferred summation.** A contribution whose only effect is to be added to a slot's sums
 * (its slot is open, it is neither the slot's last nor a duplicate, no contribution of its chunk
 * that might close or change the slot is ahead of it in the pipeline, and it leaves the pipeline
 * before the slot's Timeout) is, while the `ContributionIn` trace has no sink, summed without an
 * event of its own: at the next event of the device (the exit of a contribution that opens,
 * completes or passes through, a slot timeout) or the next arrival, in pipeline order. Every
 * packet leaves at the same time and with the same bytes as if each contribution had its own
 * exit event, every other trace fires at the same time, and the counters count it from its exit
 * time; the simulator executes one event per chunk instead of one per contribution, most of the
 * device's cost in both mode. Connecting a sink to `ContributionIn` gives every contribution its
 * own exit event again (the trace fires at the exit time).
 *
 * **Slots.** A chunk (job, round, clique, chunk index) is summed in a slot, opened by its first
 * contribution when the FPGA has a free slot. A slot keeps the contributor bitmap, the expected
 * bitmap and the running sums,
 * and remembers the layout of the first contribution (chunk count, value offset, value count,
 * and padding bytes after the header). When the bitmap equals the expected bitmap the device
 * sends one AGGREGATE and frees the slot. A *wait* after the slot was opened, an incomplete
 * slot is released as a *partial* AGGREGATE carrying the bitmap of the contributions it holds.
 *
 * **The wait** follows the exchange's arrival skew, measured (`AdaptiveWait`, the default). The
 * port learns, per (job, round, clique), how long its completed slots took from the first to
 * the last contribution (SlotFillEstimator: a smoothed fill time A, its mean deviation V, the
 * largest M, as TCP learns the round trip). A slot waits max(A + 4 V, M) plus twice the
 * exchange's largest round trip R between the contributors and the aggregate's destination
 * (Expectation::roundTrip, from the path latencies): a lost contribution's repair reaches the
 * slot within two round trips, one for the receiver to learn of the loss (the later chunks'
 * way to it: the island's stall, the root's settled check) and one for its NACK and the repair.
 * The wait is at least 1 ms, doubled after each slot that timed out since the last completed
 * one, and at most `Timeout` (500 ms by default), which is also the wait of the exchange's
 * first slots, before one completed. Without AdaptiveWait every slot waits
 * `Timeout`. GetMeanSlotWait() reports the waits given.
 * **A contribution known lost.** The path from a contributor to the port is FIFO, and a
 * contributor sends its chunks in index order (repairs aside, which go back): when a DATA
 * contribution of chunk c leaves the pipeline and its sender's previous one in the exchange was
 * of chunk p < c - 1, the sender's contributions to chunks p+1 .. c-1 are lost. An open slot of
 * those chunks stops expecting the sender and, when it then holds every contribution still
 * expected (and none of its chunk is in the pipeline), leaves at once as a partial aggregate
 * (`KnownLost` trace, GetKnownLostReleases), long before its Timeout; a slot opened later for
 * such a chunk does not expect the sender from the start. The receiver then asks the sender for
 * it (a repair passes the closed chunk unchanged). Only the tail of a stream, where no later
 * chunk reveals a loss, still waits for Timeout. Were the path to reorder (the `reorder` fault,
 * or a reroute), a contribution taken for lost arrives after its chunk closed and passes
 * through: the round stays exact, at the cost of one pass-through.
 *
 * Once a chunk's aggregate has left (complete or partial) the chunk is *closed*: the device
 * remembers closed chunks per (job, round, clique) as index intervals (not slot memory).
 * The timeouts do not weigh on the simulator's event set: SlotDeadlines keeps the slots'
 * deadlines in a min-heap with one event pending, at the earliest deadline of a slot still open.
 *
 * **The aggregate.** An IPv4 datagram from the router's address on the port's link
 * (SetIsland's or SetRouterPort's sourceAddress) to the island's address (edge) or the root's
 * (tree), TTL 64 (ns-3's default, as if the router originated it), protocol UDP,
 * identification from a per-device counter, checksums when Node::ChecksumEnabled(); UDP source
 * and destination port `Port`; an IslandSyncHeader of type AGGREGATE with the job, round,
 * clique, chunk index, chunk count and value offset of the contributions, sender = the router's
 * city (the FPGA of that city), the union contributor bitmap (the contributor count is its
 * population count) and the sums, encoded in the slot's payload format (the contributions'
 * PayloadFormat: whoever emits a sum encodes it in the clique's format); then as many zero
 * padding bytes as one contribution, so the aggregate has exactly the wire size of one
 * contribution. The island receives it on
 * its normal UDP socket.
 *
 * **Summation.** Each value is accumulated in 64-bit fixed point (FixedPointSum: 2^-32
 * resolution, |x| < 2^31), in the order the contributions leave the pipeline (their arrival
 * order; integer addition does not depend on it), and rounded once to float32 (round to
 * nearest) when the aggregate is built: off from the exact sum by at most m x 2^-33 for m
 * contributions plus that rounding. A contribution the accumulator cannot take passes
 * (OVERFLOW) and the slot leaves at once as a partial aggregate.
 *
 * **Pass-through (no loss, no corruption).** Everything that is not summed is forwarded
 * unchanged (the original IPv4 datagram) and counted by reason (PassReason):
 * - NOT_SYNC, NOT_DATA, NO_EXPECTATION: at once, bypassing the pipeline (non-sync traffic,
 *   NACK/DONE/READY/VIEW messages, an AGGREGATE at an edge entry, DATA or AGGREGATE of a job,
 *   round, clique or contributor without expectation, or not addressed to a tree's root);
 * - CLOSED: a contribution for a closed chunk (a repair after the aggregate left, or a late
 *   contribution after a partial aggregate): the island needs it on its own;
 * - NO_SLOT: **when every slot is in use, a contribution that would open a new slot is passed
 *   through unaggregated and its chunk is closed** (so that later contributions of that chunk
 *   also pass through instead of waiting for one that already went by). The device never
 *   applies backpressure and never drops: the island receives every contribution either
 *   inside exactly one aggregate or on its own;
 * - MISMATCH: a contribution whose layout (payload format, chunk count, value offset, value
 *   count, padding) differs from its slot's; it is removed from the
 *   slot's expected bitmap so that the slot can still complete;
 * - OVERLAP: a partial aggregate (tree) some of whose contributors the open slot already holds:
 *   a sum cannot be split, so it goes on unsummed and the root sorts it out;
 * - OVERFLOW: a contribution the fixed-point accumulator cannot take (a value beyond 2^31, NaN,
 *   infinity, or a sum that would leave the range): it goes on unsummed, the slot leaves at once
 *   as a partial aggregate and the chunk closes (later contributions pass as CLOSED).
 *
 * A DATA whose sender is already in its open slot (a retransmission) is a *duplicate*: it is
 * neither summed again nor forwarded (its values are in the slot) and is counted.
 *
 * Aggregates and pipeline pass-throughs enter the device queue when it has room; otherwise they
 * wait in an unbounded outbox, in order, drained as transmissions complete, so the device never
 * drops what it emits. The outbox high-water mark is reported.
 *
 * The header has no retransmission flag; a repair is recognised as a contribution for a closed
 * chunk (passed through) or a duplicate (absorbed).
 *
 * **Shadow copies: a lost aggregate served again.** A port that faces an island keeps a copy of
 * the last `ShadowCopies` aggregates it sent to the island (AggregateShadows; default 1024, 0
 * keeps none). The device sees what arrives from the island too (it wraps the receive callback
 * the node gives it): a NACK from the island whose contributors are all in a kept aggregate of a
 * chunk it asks for is answered from the copy. The copy goes to the island again (counted,
 * `ShadowServed` trace) and the chunk is taken out of the NACK, which goes on (rewritten: same
 * IPv4 addresses, identification and TTL) with the rest of its ranges, or is absorbed when
 * nothing is left. The island NACKs a lost aggregate as soon as a later one names every
 * contributor, so the repair costs the access link's round trip instead of the round trip to
 * the farthest contributor, and the contributors resend nothing. The NACKs of the same burst
 * (one per contributor, RepairCopies copies of each) are answered without serving the copy
 * again for a holdoff: the transmission of the port's backlog and of two MTUs (the copy, and the
 * burst of NACKs), plus twice the link's delay. A NACK of the chunk after that goes on to the
 * contributors (the copy did not help), so a copy is served at most once per chunk.
 *
 * **Sizing.** A slot lives from the first to the last contribution of its chunk, so the slots in
 * use are about (arrival skew between a clique's streams) x (chunk rate), summed over the
 * router's ports; the FPGA's `SlotCount` (default 65536) should cover it and `Timeout` (default 500
 * ms) exceed the skew, or chunks leave as pass-throughs or partial aggregates (still exact, but
 * more ingress than one stream). Contributors of a clique should therefore send toward a member at
 * the same pace and start together; TrainingIslandApplication does so in aggregation, both and tree
 * modes (one common pacing rate per clique, streams started once every member has announced the
 * round; in tree mode staggered so that a chunk's contributions reach every router together)
 * and waits about Timeout before it NACKs a gap (its AggregationTimeout). The memory for closed
 * chunks is outside the slots: index intervals per (job, round, clique), one interval when chunks
 * complete in order.
 */
class AggregatorNetDevice : public PointToPointNetDevice
{
  public:
    /** Why a packet was forwarded unchanged. */
    enum PassReason : uint8_t
    {
        NOT_SYNC = 0,       //!< not IPv4/UDP to the sync port with a valid header (or a fragment)
        NOT_DATA = 1,       //!< a sync message other than DATA (NACK, DONE, READY, AGGREGATE)
        NO_EXPECTATION = 2, //!< DATA of a job, round, clique or sender without expectation
        CLOSED = 3,         //!< DATA for a chunk whose aggregate already left (or bypassed)
        NO_SLOT = 4,        //!< DATA that needed a new slot while every slot was in use
        MISMATCH = 5,       //!< DATA whose layout (format included) differs from its slot's
        OVERLAP = 6,        //!< a partial aggregate overlapping what its slot holds (tree)
        OVERFLOW = 7,       //!< a contribution the fixed-point sum cannot take (FixedPointSum)
    };

    /** Number of PassReason values. */
    static constexpr uint32_t N_PASS_REASONS = 8;

    /** What a port sums for one clique of one schedule round. */
    using Expectation = PortExpectations::Expectation;
    /** Expectations of one schedule round: clique id -> what the port sums for it. */
    using RoundExpectations = PortExpectations::RoundExpectations;

    /**
     * @brief Get the type ID.
     * @return the object TypeId
     */
    static TypeId GetTypeId();

    AggregatorNetDevice();
    ~AggregatorNetDevice() override;

    /**
     * @brief Identify the island this port faces (a router's access port); this or
     * SetRouterPort is required before SetExpectations.
     * @param island the island (city) index, put in the aggregates' sender field (< 64)
     * @param islandAddress the island's IPv4 address (the edge aggregates' destination)
     * @param sourceAddress the aggregates' IPv4 source (the router's address on the access
     *        link)
     */
    void SetIsland(uint32_t island, Ipv4Address islandAddress, Ipv4Address sourceAddress);
    /**
     * @brief Identify a port that faces another router (a WAN port): it takes tree
     * expectations only.
     * @param city the router's city index, put in the aggregates' sender field (< 64)
     * @param sourceAddress the aggregates' IPv4 source (the router's address on the link)
     */
    void SetRouterPort(uint32_t city, Ipv4Address sourceAddress);
    /** @return the router's city index (UINT32_MAX before SetIsland or SetRouterPort) */
    uint32_t GetIsland() const;
    /** @return whether the port faces an island (SetIsland) rather than a router */
    bool FacesIsland() const;
    /**
     * @brief Make the port one of an FPGA's (replaces an earlier one; call before traffic).
     * @param fpga the router's FPGA
     */
    void SetFpga(Ptr<InlineFpga> fpga);
    /** @return the port's FPGA (one of its own, made on first use, when none was set) */
    Ptr<InlineFpga> GetFpga() const;
    /** @return the island's IPv4 address */
    Ipv4Address GetIslandAddress() const;
    /** @return the aggregates' IPv4 source address */
    Ipv4Address GetSourceAddress() const;

    /**
     * @brief Tell the device which contributions to aggregate for a job (replaces the job's
     * previous expectations, e.g. after a reroute; slots already open keep their expected
     * bitmap, and the VIEWs seen stay in force until ClearExpectations).
     *
     * A DATA of round R uses rounds[R mod rounds.size()] (rounds.size() is the schedule's
     * period); a clique id absent from that map, or a sender absent from the bitmap, is not
     * aggregated. Aborts for an edge entry on a port that faces no island or that expects the
     * island itself, and for an entry without contributors.
     * @param jobId the training job
     * @param rounds the expectations of each schedule round (at least one round)
     */
    void SetExpectations(uint16_t jobId, std::vector<RoundExpectations> rounds);
    /**
     * @brief Forget a job's expectations: its later contributions pass through (open slots
     * still complete or time out).
     * @param jobId the training job
     */
    void ClearExpectations(uint16_t jobId);
    /**
     * @param jobId a training job
     * @param round a round (counted over the whole run; mapped modulo the period)
     * @param cliqueId a clique id
     * @return the expected contributor bitmap, 0 when there is no expectation
     */
    uint64_t GetExpectedContributors(uint16_t jobId, uint32_t round, uint16_t cliqueId) const;
    /**
     * @param jobId a training job
     * @param round a round (counted over the whole run; mapped modulo the period)
     * @param cliqueId a clique id
     * @return the expectation (its contributors narrowed by the VIEWs seen), or nullptr
     */
    const Expectation* GetExpectation(uint16_t jobId, uint32_t round, uint16_t cliqueId) const;

    /**
     * @return contributions that left the pipeline (summed, duplicate or passed through),
     *         deferred ones included from their exit time
     */
    uint64_t GetContributionsIn() const;
    /** @return contributions summed into a slot, deferred ones included from their exit time */
    uint64_t GetContributionsSummed() const;
    /** @return duplicate contributions absorbed (not summed again, not forwarded) */
    uint64_t GetDuplicates() const;
    /** @return aggregates sent, complete and partial */
    uint64_t GetAggregatesOut() const;
    /** @return partial aggregates released by Timeout */
    uint64_t GetTimeouts() const;
    /**
     * @return partial aggregates released before their Timeout because a contribution they
     *         expected was known lost (a later chunk of its sender arrived)
     */
    uint64_t GetKnownLostReleases() const;
    /** @return packets forwarded unchanged, every reason */
    uint64_t GetPassThroughs() const;
    /**
     * @param reason a reason
     * @return packets forwarded unchanged for that reason
     */
    uint64_t GetPassThroughs(PassReason reason) const;
    /** @return slots in use now by this port (the FPGA's slots are shared by its ports) */
    uint32_t GetSlotsInUse() const;
    /** @return the most slots in use by this port at any time */
    uint32_t GetSlotHighWaterMark() const;
    /** @return the most packets that waited in the outbox at any time */
    uint32_t GetOutboxHighWaterMark() const;
    /** @return slots opened by this port */
    uint64_t GetSlotsOpened() const;
    /** @return the mean wait given to the slots this port opened (0 before one opened) */
    Time GetMeanSlotWait() const;
    /**
     * @param jobId a training job
     * @param round a round
     * @param cliqueId a clique id
     * @return the wait a slot of that exchange opened now would get (see "The wait")
     */
    Time GetSlotWait(uint16_t jobId, uint32_t round, uint16_t cliqueId) const;
    /** @return aggregates served again from a shadow copy (answering a NACK of the island) */
    uint64_t GetShadowServes() const;
    /**
     * @return chunks taken out of the island's NACKs because a shadow copy answered them
     *         (served, or served just before)
     */
    uint64_t GetNackChunksAnswered() const;
    /**
     * @brief Set the number of shadow copies kept (the ShadowCopies attribute).
     * @param copies the number of aggregates kept (0: none)
     */
    void SetShadowCopies(uint32_t copies);
    /** @return the number of shadow copies kept at most */
    uint32_t GetShadowCopies() const;
    /** @param adaptive the AdaptiveWait attribute: whether slot waits follow the fill times */
    void SetAdaptiveWait(bool adaptive);
    /** @return the AdaptiveWait attribute */
    bool GetAdaptiveWait() const;

    /**
     * @param reason a reason
     * @return its name ("not-sync", "not-data", "no-expectation", "closed", "no-slot",
     *         "mismatch", "overlap", "overflow")
     */
    static const char* PassReasonToString(PassReason reason);

    /**
     * TracedCallback signature of a contribution leaving the pipeline (ContributionIn) or of a
     * duplicate contribution (Duplicate).
     * @param header the contribution's header
     */
    typedef void (*ContributionCallback)(const IslandSyncHeader& header);

    /**
     * TracedCallback signature of an aggregate sent.
     * @param header the aggregate's header (sums, union bitmap, count)
     * @param complete whether every expected contribution is in it (false: Timeout)
     */
    typedef void (*AggregateCallback)(const IslandSyncHeader& header, bool complete);

    /**
     * TracedCallback signature of a packet forwarded unchanged.
     * @param packet the IPv4 datagram (without the PPP header)
     * @param reason why it was not summed
     */
    typedef void (*PassThroughCallback)(Ptr<const Packet> packet, PassReason reason);

    /**
     * TracedCallback signature of an aggregate served again from its shadow copy.
     * @param packet the IPv4 datagram served
     */
    typedef void (*ShadowCallback)(Ptr<const Packet> packet);

    /**
     * TracedCallback signature of a partial aggregate released by Timeout.
     * @param header the partial aggregate's header
     * @param missing the bitmap of the expected contributors it lacks
     */
    typedef void (*TimeoutCallback)(const IslandSyncHeader& header, uint64_t missing);

    /**
     * @brief Take a packet the router forwards toward the island: a contribution enters the
     * pipeline (and is not forwarded as such), anything else goes to the point-to-point device
     * unchanged.
     * @param packet the IPv4 datagram
     * @param dest the destination (unused by point-to-point links)
     * @param protocolNumber the Ethernet protocol number (0x0800 for IPv4)
     * @return true for a contribution; for anything else what PointToPointNetDevice::Send
     *         returns
     */
    bool Send(Ptr<Packet> packet, const Address& dest, uint16_t protocolNumber) override;

    /**
     * @return the broadcast MAC address, as PointToPointNetDevice::GetBroadcast does; built once
     *         (IPv4 asks for it with every packet it sends on the port, and
     *         PointToPointNetDevice parses it from text each time)
     */
    Address GetBroadcast() const override;

    /**
     * @brief Keep the node's receive callback and have the device's own in front of it: what
     * arrives from the island passes there first (shadow copies answer its NACKs).
     * @param cb the node's callback
     */
    void SetReceiveCallback(NetDevice::ReceiveCallback cb) override;

  private:
    /** (job, round, clique, chunk): one chunk of one clique exchange. */
    using ChunkKey = std::tuple<uint16_t, uint32_t, uint16_t, uint32_t>;
    /** (job, round, clique): one clique exchange. */
    using StreamKey = std::tuple<uint16_t, uint32_t, uint16_t>;

    /** Hash of a ChunkKey, for the chunk table. */
    struct ChunkKeyHash
    {
        /**
         * @param key a chunk
         * @return its hash
         */
        std::size_t operator()(const ChunkKey& key) const;
    };

    /** One slot of the FPGA's memory. */
    struct Slot
    {
        uint64_t expected{0};                      //!< contributors needed
        uint64_t contributors{0};                  //!< contributors summed
        PayloadFormat format{PayloadFormat::FP32}; //!< layout: the values' format
        uint32_t chunkCount{0};                    //!< layout: chunks of the stream
        uint32_t valueOffset{0};                   //!< layout: first value index
        uint32_t paddingBytes{0};                  //!< layout: padding after the header
        Ipv4Address destination;   //!< where the aggregate goes (the island, or the root)
        std::vector<int64_t> sums; //!< running sums, one per value (FixedPointSum)
        bool safe{true};           //!< whether every contribution summed is FixedPointSum::IsSafe
        uint64_t lost{0};          //!< contributors no longer expected: known lost
        uint64_t opening{0};       //!< opening order (its entry in the deadline heap)
        Time opened;               //!< when its first contribution left the pipeline
        Time deadline;             //!< when it is released if still incomplete
    };

    /**
     * What the FPGA holds for one chunk: its contributions in the pipeline and its slot. One
     * entry per chunk, so that a contribution costs one hash lookup (in Send): the pipeline
     * keeps a pointer to the entry, which unordered_map keeps valid until it is erased.
     */
    struct ChunkState
    {
        uint64_t deferred{0};  //!< contributors of the deferred contributions in the pipeline
        uint32_t others{0};    //!< contributions in the pipeline that are not deferred
        uint64_t knownLost{0}; //!< contributors whose contribution is known lost, not applied
        bool open{false};      //!< whether the chunk has a slot
        Slot slot;             //!< the slot, when open
    };

    /** Why an incomplete slot leaves, for its counters and traces. */
    enum class ReleaseCause
    {
        OTHER,      //!< complete, or an overflow
        TIMEOUT,    //!< its Timeout passed
        KNOWN_LOST, //!< every contribution still expected is known lost
    };

    /** The chunks with a slot or with contributions in the pipeline. */
    using ChunkMap = std::unordered_map<ChunkKey, ChunkState, ChunkKeyHash>;

    /** A contribution travelling through the pipeline. */
    struct Contribution
    {
        Ptr<Packet> packet;         //!< the original IPv4 datagram
        IslandSyncHeader header;    //!< its sync header
        ChunkKey key;               //!< its chunk
        ChunkState* chunk{nullptr}; //!< its chunk's entry in m_chunks
        uint32_t paddingBytes{0};   //!< UDP payload bytes after the sync header
        uint64_t contributors{0};   //!< its contributors (DATA: the sender's bit)
        uint64_t expected{0};       //!< expected contributors of its chunk
        Ipv4Address destination;    //!< where its chunk's aggregate goes
        Time roundTrip;             //!< its expectation's roundTrip (the wait's margin)
        Time exit;                  //!< when it leaves the pipeline
        bool deferred{false};       //!< summed without an exit event of its own
        uint32_t lostFrom{0};       //!< its sender's chunks lostFrom .. its chunk - 1 are lost
    };

    /**
     * @brief Classify a packet handed to Send.
     * @param packet the IPv4 datagram
     * @param protocolNumber its protocol number
     * @param contribution filled when the packet is a contribution
     * @return the pass-through reason, or N_PASS_REASONS for a contribution
     */
    uint32_t Classify(Ptr<const Packet> packet,
                      uint16_t protocolNumber,
                      Contribution& contribution);
    /**
     * @brief Whether a contribution entering the pipeline may be deferred (see the class
     * documentation).
     * @param contribution the contribution, its chunk and exit time set (the chunk's pipeline
     *        counts do not include it yet)
     * @return whether its only effect at its exit is to be summed
     */
    bool CanDefer(const Contribution& contribution) const;
    /**
     * @param slot a slot
     * @param contribution a contribution
     * @return whether the contribution has the slot's layout (chunk count, value offset, value
     *         count, padding), so that it can be summed into it
     */
    static bool SameLayout(const Slot& slot, const Contribution& contribution);
    /**
     * @brief A VIEW addressed to a tree's root passes: narrow the port's expectations of its
     * round's clique to the members it names, and release the open slots that are then
     * complete.
     * @param header the VIEW
     * @param destination its IPv4 destination
     */
    void SnoopView(const IslandSyncHeader& header, Ipv4Address destination);
    /** @return the port's FPGA (GetFpga without a Ptr copy) */
    InlineFpga& Fpga();
    /** Process the contributions whose pipeline exit time has come. */
    void PipelineExit();
    /**
     * @brief Sum the deferred contributions at the head of the pipeline that have left it.
     * @param includeNow whether those leaving exactly now are included
     */
    void SumDeferred(bool includeNow);
    /** Have PipelineExit pending at the exit of the first contribution that is not deferred. */
    void SchedulePipelineExit();
    /** @return deferred contributions that have left the pipeline but are not summed yet */
    uint64_t GetDeferredExited() const;
    /**
     * @brief Sum a contribution into its slot, or forward it.
     * @param contribution the contribution
     */
    void Process(const Contribution& contribution);
    /**
     * @brief Build and send a slot's aggregate, close the chunk and free the slot.
     * @param key the chunk (a copy: the entry it may come from can be erased here)
     * @param chunk its entry in m_chunks, open (erased here when nothing of the chunk is left
     *        in the pipeline)
     * @param complete whether every expected contribution is in the slot
     * @param cause what released it: the slot's Timeout (counted, Timeout trace), a
     *        contribution known lost (counted, KnownLost trace), or neither (complete, or
     *        released early because a contribution would overflow it)
     */
    void Release(ChunkKey key, ChunkState& chunk, bool complete, ReleaseCause cause);
    /**
     * @brief Close a chunk and free its slot (the entry is erased when nothing of the chunk is
     * left in the pipeline).
     * @param key the chunk
     * @param chunk its entry in m_chunks, open
     */
    void Free(const ChunkKey& key, ChunkState& chunk);
    /**
     * @brief Erase a chunk's entry when it has no slot and no contribution in the pipeline.
     * @param key the chunk
     * @param chunk its entry in m_chunks
     */
    void ForgetIfIdle(const ChunkKey& key, const ChunkState& chunk);

    /**
     * @brief A sender's contributions to some chunks are lost: their open slots stop expecting
     * it (and leave when complete), their later slots never expect it.
     * @param contribution the contribution that revealed the gap (at its pipeline exit)
     */
    void NoteKnownLost(const Contribution& contribution);

    /**
     * @brief Apply a chunk's known-lost contributors to its open slot, and release the slot
     * when it then holds every contribution still expected and none of its chunk is in the
     * pipeline.
     * @param key the chunk
     * @param chunk its entry
     */
    void ApplyKnownLost(const ChunkKey& key, ChunkState& chunk);
    /**
     * @param key a chunk
     * @param opening an opening number (SlotDeadlines::Add)
     * @return whether the chunk's slot opened with that number is still open
     */
    bool IsSlotOpen(const ChunkKey& key, uint64_t opening) const;
    /**
     * @brief The earliest deadline has come (SlotDeadlines): release every open slot whose wait
     * has passed as a partial aggregate, then have the next deadline armed.
     */
    void SlotTimeouts();
    /**
     * @param key a chunk
     * @return whether its aggregate already left (or it was bypassed)
     */
    bool IsClosed(const ChunkKey& key) const;
    /**
     * @brief Mark a chunk closed.
     * @param key the chunk
     */
    void Close(const ChunkKey& key);
    /**
     * @brief Count and trace a packet forwarded unchanged.
     * @param packet the IPv4 datagram
     * @param reason why
     */
    void NotePassThrough(Ptr<const Packet> packet, PassReason reason);
    /**
     * @brief Send a packet made or released by the FPGA: into the device queue when it has
     * room and the outbox is empty, else into the outbox.
     * @param packet the IPv4 datagram
     */
    void Emit(Ptr<Packet> packet);
    /**
     * @brief PhyTxEnd sink: schedule an outbox drain.
     * @param packet the packet whose transmission ended
     */
    void TransmissionEnded(Ptr<const Packet> packet);
    /** Move outbox packets into the device queue while it has room. */
    void DrainOutbox();

    /**
     * @brief The device's receive callback: a NACK from the island is answered from the shadow
     * copies first; what is left goes to the node.
     * @param device this device
     * @param packet the IPv4 datagram received
     * @param protocol its protocol number
     * @param from the sender's address
     * @return what the node's callback returns (true for a NACK absorbed here)
     */
    bool ReceiveFromLink(Ptr<NetDevice> device,
                         Ptr<const Packet> packet,
                         uint16_t protocol,
                         const Address& from);
    /**
     * @brief Answer a NACK from the island from the shadow copies.
     * @param packet the NACK's IPv4 datagram
     * @return the datagram to forward: the NACK itself, the NACK rewritten without the chunks
     *         answered, or nullptr when every chunk it asks for was answered
     */
    Ptr<const Packet> AnswerFromShadows(Ptr<const Packet> packet);
    /**
     * @return how long after serving a shadow copy now NACKs of its chunk are taken for ones
     *         that crossed it (the class documentation)
     */
    Time GetShadowHoldoff() const;

    // Attributes.
    Time m_processingDelay;     //!< pipeline latency per contribution
    Time m_timeout;             //!< partial release after the slot's first contribution
    uint16_t m_port;            //!< the sync UDP port
    AggregateShadows m_shadows; //!< copies of the aggregates sent to the island (ShadowCopies)
    SlotWaits m_waits;          //!< how long slots wait, by exchange (AdaptiveWait)

    // Configuration.
    uint32_t m_island;               //!< the router's city (UINT32_MAX: unset)
    bool m_facesIsland{false};       //!< whether the port faces the island m_island
    Ipv4Address m_islandAddress;     //!< edge aggregates' destination
    Ipv4Address m_sourceAddress;     //!< aggregates' source
    mutable Ptr<InlineFpga> m_fpga;  //!< the router's FPGA (made on first use when unset)
    PortExpectations m_expectations; //!< what the port sums, and the VIEWs seen

    // State.
    std::deque<Contribution> m_pipeline;         //!< contributions in the pipeline, FIFO
    EventId m_pipelineEvent;                     //!< next pipeline exit
    ChunkMap m_chunks;                           //!< open slots and pipeline contents, by chunk
    SlotDeadlines m_deadlines;                   //!< the open slots' deadlines and their event
    std::map<StreamKey, ChunkRangeSet> m_closed; //!< closed chunks per clique exchange
    ContributorSequence m_senders;               //!< where each contributor stands (edge)
    std::deque<Ptr<Packet>> m_outbox;            //!< emitted packets waiting for queue room
    EventId m_drainEvent;                        //!< pending outbox drain
    bool m_txEndConnected;                       //!< whether TransmissionEnded is connected
    uint16_t m_identification;                   //!< next IPv4 identification

    // Counters.
    uint64_t m_contributionsIn;                //!< contributions out of the pipeline
    uint64_t m_contributionsSummed;            //!< summed
    uint64_t m_duplicates;                     //!< duplicates absorbed
    uint64_t m_aggregatesOut;                  //!< aggregates sent
    uint64_t m_timeouts;                       //!< partial aggregates by Timeout
    uint64_t m_knownLostReleases{0};           //!< partial aggregates by a known loss
    uint64_t m_shadowServes{0};                //!< aggregates served from a shadow copy
    uint64_t m_nackChunksAnswered{0};          //!< NACKed chunks the shadow copies answered
    uint64_t m_passThroughs[N_PASS_REASONS];   //!< forwarded unchanged, by reason
    TracedValue<uint32_t> m_slotsInUse;        //!< slots in use
    TracedValue<uint32_t> m_slotHighWaterMark; //!< most slots in use
    uint32_t m_outboxHighWaterMark;            //!< most packets in the outbox

    // Traces.
    TracedCallback<const IslandSyncHeader&> m_contributionInTrace;      //!< ContributionIn
    TracedCallback<const IslandSyncHeader&> m_duplicateTrace;           //!< Duplicate
    TracedCallback<const IslandSyncHeader&, bool> m_aggregateOutTrace;  //!< AggregateOut
    TracedCallback<Ptr<const Packet>, PassReason> m_passThroughTrace;   //!< PassThrough
    TracedCallback<const IslandSyncHeader&, uint64_t> m_timeoutTrace;   //!< Timeout
    TracedCallback<const IslandSyncHeader&, uint64_t> m_knownLostTrace; //!< KnownLost
    TracedCallback<Ptr<const Packet>> m_shadowServedTrace;              //!< ShadowServed
    NetDevice::ReceiveCallback m_nodeReceive; //!< the node's receive callback
};

} // namespace ns3

#endif /* AGGREGATOR_NET_DEVICE_H */
