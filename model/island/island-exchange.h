/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef ISLAND_EXCHANGE_H
#define ISLAND_EXCHANGE_H

#include "exchange-plan.h"
#include "island-sync-header.h"
#include "link-load-model.h"
#include "receive-stream.h"
#include "send-stream.h"

#include "ns3/callback.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/ptr.h"

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ns3
{

class CliqueMembership;
class WanTopology;
struct RingValues;

/**
 * @ingroup wan-training
 * @brief One island's exchange in one round: the send and receive state of its clique's
 * exchange algorithm (like a TCP socket's state, with TcpTxBuffer and TcpRxBuffer inside).
 *
 * TrainingIslandApplication makes one exchange per round it takes part in, with Create for the
 * algorithm of the round's plan (ExchangePlan::mode): StarExchange (unicast),
 * MulticastExchange, AggregationExchange, BothExchange, RingExchange or TreeExchange. The exchange
 * owns the round's send side (the contribution, one SendStream per receiver or ring step, the group
 * stream or the ring's pacer, the DONEs and the READY waits) and its receive side (one
 * ReceiveStream per contributor or ring step, the sums held); it sends and repairs chunks,
 * answers NACKs and DONEs, and reports to its island through the Context's callbacks. The send
 * side lives until every receiver has acknowledged (it serves repairs after the round ended
 * here), the receive side until the round ends. The plan is always the membership's current
 * one for the round (a view after exclusions replaces it). The protocol is walked through in
 * doc/wan-training.rst, "The island's exchange".
 *
 * The const methods FillChunk, AddOwn, GetAwaited and Average are what the algorithm decides,
 * computed from a plan and the values given, without round state.
 */
class IslandExchange : public Object
{
  public:
    /** What GetStepOf returns for a header that is no chunk of a step. */
    static constexpr uint32_t NO_STEP = UINT32_MAX;
    /** The destination of a chunk sent to the clique's multicast group. */
    static constexpr uint32_t ALL_MEMBERS = UINT32_MAX;
    /** The most ranges a NACK carries. */
    static constexpr uint32_t MAX_NACK_RANGES = 256;

    /** What the island gives the exchanges of its rounds, and where they report. */
    struct Context
    {
        uint32_t island{0};            //!< this island
        uint16_t jobId{1};             //!< the training job
        Time nackTimeout;              //!< the island's NackTimeout
        Time aggregationTimeout;       //!< the FPGAs' Timeout
        uint32_t maxRepairAttempts{1}; //!< attempts without progress
        uint32_t repairCopies{1};      //!< copies of each repair and each NACK
        uint32_t fecBlock{0};          //!< chunks per PARITY (0: no forward error correction)
        bool cliqueBarrier{true};      //!< wait for READY before streaming
        bool overlap{false}; //!< compute overlaps the exchange (READYs go out a round ahead)
        const WanTopology* topology{nullptr};       //!< the topology
        CliqueMembership* membership{nullptr};      //!< plans, peer rounds, exclusions
        Callback<uint32_t> currentRound;            //!< the island's current round
        Callback<bool, uint32_t> exchanging;        //!< (round): in that round's exchange
        Callback<void, uint32_t> progress;          //!< (round): the exchange may be complete
        Callback<void, const std::string&> abandon; //!< the current round cannot complete
        Callback<void> idle;                        //!< every receiver acknowledged: the
                                                    //!< send side is released
        Callback<void, const IslandSyncHeader&, uint32_t, uint32_t>
            send; //!< (header, padding bytes, destination or ALL_MEMBERS): to the socket
        Callback<void, uint32_t, const IslandSyncHeader&, uint32_t, bool>
            chunkSent; //!< (destination, header, model bytes, resent)
        Callback<void, const IslandSyncHeader&, uint32_t, bool>
            chunkReceived;                                     //!< (header, model bytes, duplicate)
        Callback<void, uint32_t, uint32_t, uint32_t> nackSent; //!< (source, round, chunks)
        Callback<void, uint32_t, uint32_t, Time> repaired;     //!< (source, round, wait since NACK)
        Callback<void, uint32_t, const IslandSyncHeader&> paritySent; //!< (destination, PARITY)
        Callback<void, uint32_t, uint32_t> recovered; //!< (source, round): a chunk from a PARITY
        Callback<void> rejected;                      //!< a malformed or foreign packet
    };

    /**
     * @brief Get the type ID.
     * @return the object TypeId
     */
    static TypeId GetTypeId();

    /**
     * @brief The exchange of a capability mode.
     * @param mode the mode
     * @return a new exchange of that mode
     */
    static Ptr<IslandExchange> Create(CapabilityMode mode);

    IslandExchange();
    ~IslandExchange() override;

    /**
     * @brief Tell the exchange its island and round; required before any other stateful call.
     * @param context the island's context (its membership outlives the exchange)
     * @param round the round
     */
    void Setup(const Context& context, uint32_t round);

    /** @return the capability mode the exchange implements */
    virtual CapabilityMode GetMode() const = 0;

    /**
     * @brief The step of a chunk: its sender's place, its contributor bitmap and its index.
     * @param plan the plan of the header's round for this island
     * @param header a header of that round
     * @return the step, or NO_STEP when the mode has no steps or the header is none of them
     */
    virtual uint32_t GetStepOf(const ExchangePlan& plan, const IslandSyncHeader& header) const;

    /**
     * @brief Fill in what a chunk carries: its type (DATA, or AGGREGATE for a sum), its
     * contributors and its values.
     * @param plan the round's plan
     * @param step the stream's step (0 when the mode has no steps)
     * @param snapshot the island's contribution
     * @param sums the sums received in the round (ring mode), else nullptr
     * @param offset the chunk's first value index
     * @param count the chunk's number of values
     * @param header receives the content (its other fields are set by the caller)
     */
    virtual void FillChunk(const ExchangePlan& plan,
                           uint32_t step,
                           const std::vector<float>& snapshot,
                           const RingValues* sums,
                           uint32_t offset,
                           uint32_t count,
                           IslandSyncHeader& header) const = 0;

    /**
     * @brief Add the island's own contribution to a sum of contributions.
     * @param plan the round's plan
     * @param snapshot the island's contribution
     * @param sum the sum of the contributions held (star modes), by parameter index
     */
    virtual void AddOwn(const ExchangePlan& plan,
                        const std::vector<float>& snapshot,
                        std::vector<double>& sum) const = 0;

    /**
     * @brief The members an exchange waits for: not announced (READY), or nothing received yet
     * from them.
     * @param plan the round's plan
     * @param pacer the round's multicast stream or ring pacer (nullptr: no send state)
     * @param sendStreams the round's send streams (nullptr: no send state)
     * @param receiveStreams the round's receive streams (nullptr: no receive state)
     * @return the members, in the order of the plan
     */
    virtual std::vector<uint32_t> GetAwaited(
        const ExchangePlan& plan,
        const SendStream* pacer,
        const std::map<uint32_t, SendStream>* sendStreams,
        const std::map<uint32_t, ReceiveStream>* receiveStreams) const = 0;

    /**
     * @brief The clique average at the end of an exchange.
     * @param plan the round's plan
     * @param sum the sum of the contributions (star modes)
     * @param sums the sums received (ring mode), else nullptr
     * @param parameters holds the snapshot; receives the average
     */
    virtual void Average(const ExchangePlan& plan,
                         const std::vector<double>& sum,
                         const RingValues* sums,
                         std::vector<float>& parameters) const = 0;

    /**
     * @brief Start the round's exchange (again, when the ring is rebuilt): the send side, the
     * waits for READY, the first sends. The receive side is made if absent.
     * @param snapshot the island's contribution
     */
    void Begin(const std::vector<float>& snapshot);
    /**
     * @brief Add the island's own contribution to the round's sums (after Begin).
     * @param snapshot the island's contribution
     */
    void Contribute(const std::vector<float>& snapshot);
    /** @return whether the island's contribution and every stream of the round are held */
    bool IsComplete() const;
    /**
     * @brief The round ends: the clique average, and the receive side is released.
     * @param parameters holds the snapshot; receives the average
     */
    void Finish(std::vector<float>& parameters);
    /** Release the receive side (the round is abandoned, or the island crashed). */
    void ReleaseReceiveSide();
    /** Stop every timer and release both sides (the application stops). */
    void Stop();
    /** @return whether the send side exists (something to send or to be acknowledged) */
    bool HasSendSide() const;
    /** @return whether the receive side exists */
    bool HasReceiveSide() const;

    /**
     * @brief A DATA or AGGREGATE chunk of the round arrived.
     * @param header its header
     * @param paddingBytes its payload after the header
     */
    virtual void HandleChunk(const IslandSyncHeader& header, uint32_t paddingBytes) = 0;
    /**
     * @brief A PARITY of the round arrived: the mode rebuilds a lost chunk from it (forward
     * error correction), or rejects it (a mode without it, or FecBlock 0 here).
     * @param header its header
     * @param paddingBytes its payload after the header
     */
    virtual void HandleParity(const IslandSyncHeader& header, uint32_t paddingBytes);
    /**
     * @brief A NACK of the round arrived (it names this island; the send side exists).
     * @param header its header
     */
    void HandleNack(const IslandSyncHeader& header);
    /**
     * @brief A DONE of the round arrived (it names this island; the send side exists).
     * @param header its header
     */
    void HandleDone(const IslandSyncHeader& header);
    /**
     * @brief A peer announced this round or a later one: start the streams that waited for it.
     * @param island the peer
     */
    virtual void PeerStarted(uint32_t island) = 0;
    /** The view of the round changed: fit the state to its plan. */
    virtual void FitToView() = 0;
    /**
     * @return whether a view change rebuilds the exchange (the island calls Begin again once
     *         the view is applied) rather than completing it over the members left
     */
    virtual bool IsRebuiltByViews() const;
    /**
     * @return whether the READY timer runs for the whole exchange even when nobody is awaited
     *         (the ring: the predecessor becomes awaited again at every step)
     */
    virtual bool RearmsReadyTimer() const;
    /** @return the members the exchange waits for now (GetAwaited on the round's state) */
    std::vector<uint32_t> GetAwaited() const;
    /** @return the members some of whose chunks are in the round's sums */
    virtual uint64_t GetHeldFrom() const;

    /** One receive stream of a plan: whose chunks, and which. */
    struct ReceiveRange
    {
        uint32_t key{0};    //!< the stream's key (contributor, or ring step)
        uint32_t source{0}; //!< the contributor (ring mode: the predecessor)
        uint32_t step{0};   //!< ring mode: the step (0 otherwise)
        uint32_t first{0};  //!< the stream's first chunk
        uint32_t end{0};    //!< one past its last chunk
    };

    /**
     * @brief The receive streams an island has in a round (what its receive side is made of):
     * one per other member in the star modes and at a tree's root, the root's totals at the
     * other tree members, one per step in the ring.
     * @param plan the round's plan for the island
     * @return the streams (none for an idle island or one alone)
     */
    virtual std::vector<ReceiveRange> GetReceiveRanges(const ExchangePlan& plan) const = 0;
    /**
     * @param plan the round's plan for the island
     * @return the model bytes its receive streams hold once complete (the payload bytes of
     *         every chunk of every stream of GetReceiveRanges)
     */
    uint64_t GetReceiveBytes(const ExchangePlan& plan) const;
    /**
     * @return the model bytes the round's receive streams hold now (the payload bytes of the
     *         chunks held; 0 without a receive side)
     */
    uint64_t GetHeldBytes() const;
    /**
     * @return how long the receive side still takes at its planned rates (the slowest of its
     *         streams; Time::Max() while one has not started), or none when its streams do not
     *         cover the rest of the round (the ring's later steps, the tree's total after the
     *         reduction): the default
     */
    virtual std::optional<Time> GetReceiveTimeLeft() const;
    /**
     * @return what the exchange is doing, for reports of rounds that did not complete: the
     *         clique, then the members awaited and the streams started and incomplete (e.g.
     *         "exchanging in clique {nyc, chi, lax}; waiting for chi (READY unanswered x12),
     *         the stream of lax (40 chunks held, 3 NACKs without progress)")
     */
    std::string Describe() const;

  protected:
    void DoDispose() override;

    /** The send side of the round. */
    struct SendSide
    {
        std::vector<float> values;              //!< the contribution (snapshot)
        std::map<uint32_t, SendStream> streams; //!< by destination (ring mode: by step)
        uint32_t doneStreams{0};                //!< streams acknowledged
        uint32_t awaited{0};                    //!< members that have not announced the round
        SendStream group;                       //!< the multicast stream or the ring's pacer
    };

    /** The receive side of the round. */
    struct ReceiveSide
    {
        std::map<uint32_t, ReceiveStream> streams; //!< by contributor (ring mode: by step)
        bool ownAdded{false};                      //!< whether our contribution is in
        uint32_t completeStreams{0};               //!< streams complete
    };

    /** @return the round's current plan */
    const ExchangePlan& GetPlan() const;
    /** @return the receive side, made (with its streams) when absent */
    ReceiveSide& GetReceiveSide();
    /**
     * @param plan the round's plan
     * @param type the message type
     * @return a header of the round from this island: type, job, round, clique, epoch, sender
     *         and chunk count set
     */
    IslandSyncHeader MakeHeader(const ExchangePlan& plan, IslandSyncHeader::Type type) const;
    /** Release the send side. */
    void ReleaseSendSide();

    /**
     * @brief Make the receive streams of a new receive side and the sums they fill.
     * @param plan the round's plan
     */
    virtual void AddReceiveStreams(const ExchangePlan& plan) = 0;
    /** The receive side was released: free the sums no send will need. */
    virtual void ReceiveSideReleased();
    /**
     * @brief Make the send streams of a new send side.
     * @param plan the round's plan
     */
    virtual void AddSendStreams(const ExchangePlan& plan) = 0;
    /**
     * @brief Mark the streams that wait for a member's READY (CliqueBarrier).
     * @param plan the round's plan
     */
    virtual void MarkAwaited(const ExchangePlan& plan);
    /**
     * @brief Add the island's contribution to the round's sums.
     * @param plan the round's plan
     * @param snapshot the contribution
     */
    virtual void AddOwnToSums(const ExchangePlan& plan, const std::vector<float>& snapshot) = 0;
    /**
     * @brief The clique average of the round's sums.
     * @param plan the round's plan
     * @param parameters holds the snapshot; receives the average
     */
    virtual void AverageSums(const ExchangePlan& plan, std::vector<float>& parameters) = 0;
    /** @return the ring's sums (ring mode), else nullptr */
    virtual const RingValues* GetSums() const;

    /** @return whether one stream (the group's or the ring's pacer) sends every chunk */
    virtual bool UsesGroupPacer() const;
    /** @return whether every stream waits for every member's READY (multicast, FPGAs) */
    virtual bool IsCliqueWide() const;
    /** @return whether an in-line FPGA sums the contributions before they arrive */
    virtual bool IsBehindFpga() const;
    /**
     * @return whether the mode's streams carry PARITY when FecBlock is set (unicast and
     *         multicast: a PARITY cannot be summed by an FPGA, and a ring step's chunks are
     *         sums sent out of order)
     */
    virtual bool UsesFec() const;
    /**
     * @param stream a send stream
     * @return the stream whose pacer sends its chunks
     */
    SendStream& GetPacerOf(SendStream& stream);
    /**
     * @param stream a send stream (or the group stream)
     * @return whether its pacer has something to send
     */
    bool HasWork(const SendStream& stream) const;
    /**
     * @brief Start or resume a stream's pacer.
     * @param stream the stream
     */
    void ResumeStream(SendStream& stream);
    /**
     * @brief Send the next pending chunk of a pacer and schedule the following one.
     * @param destination the pacer's receiver (ALL_MEMBERS: the group stream; ring: the
     *        successor)
     */
    void SendNext(uint32_t destination);
    /**
     * @brief Note that a chunk leaves a stream.
     * @param paced the stream whose pacer sends it
     * @param target the stream it belongs to
     * @param chunk the chunk
     * @return whether it was sent before
     */
    virtual bool NoteSent(const SendStream& paced, SendStream& target, uint32_t chunk);
    /**
     * @param plan the round's plan
     * @param stream a stream, or the group stream
     * @return the pacing rate of its chunks, bit/s on the wire
     */
    virtual double GetPacingRate(const ExchangePlan& plan, const SendStream& stream) const;
    /**
     * @brief A chunk of a stream has left (before the pacer goes on).
     * @param target the stream
     * @param lastSendEndS when the pacer's last packet ends, exact seconds
     */
    virtual void ChunkLeft(SendStream& target, double lastSendEndS);
    /**
     * @brief The pacer has nothing more to send: start the DONE timeouts it covers.
     * @param paced the stream whose pacer ran dry
     * @param lastSendEndS when its last packet ends, exact seconds
     */
    virtual void PacerDrained(SendStream& paced, double lastSendEndS);
    /**
     * @param destination a stream's receiver
     * @return how long a sender that has sent everything waits for its DONE before a probe
     */
    Time GetProbeWait(uint32_t destination) const;
    /**
     * @brief (Re)start a stream's DONE timeout after its last chunk has left.
     * @param stream the stream
     * @param lastSendEndS when the pacer's last packet ends, exact seconds
     */
    void ScheduleProbe(SendStream& stream, double lastSendEndS);
    /**
     * @brief DONE timeout of a stream: resend its last chunk.
     * @param key the stream: its receiver (ring mode: its step)
     */
    void Probe(uint32_t key);
    /**
     * @param plan the round's plan
     * @param stream a stream
     * @return the chunk a probe of it resends: its last
     */
    virtual uint32_t GetProbeChunk(const ExchangePlan& plan, const SendStream& stream) const;
    /**
     * @brief Send one chunk of the contribution (or of the ring's sums).
     * @param stream the stream
     * @param chunk the chunk index
     * @param resent whether it was sent before
     * @return the chunk's header
     */
    IslandSyncHeader SendChunk(const SendStream& stream, uint32_t chunk, bool resent);
    /**
     * @brief Forward error correction: add a chunk sent for the first time to its block, and
     * send the block's PARITY once every chunk of the block went.
     * @param stream the stream that sent it
     * @param header the chunk's header
     * @return the wire bytes of the PARITY sent (0: none)
     */
    uint32_t AddToParity(SendStream& stream, const IslandSyncHeader& header);
    /**
     * @param header a DATA or AGGREGATE header
     * @return its value area as encoded on the wire (encoding is idempotent: a receiver gets
     *         the sender's bytes from the decoded values)
     */
    static std::vector<uint8_t> EncodeValues(const IslandSyncHeader& header);
    /**
     * @brief A stream's probes were not acknowledged: drop it, and exclude its receiver when the
     * round cannot end otherwise.
     * @param key the stream
     */
    void GiveUpStream(uint32_t key);
    /**
     * @brief Mark a send stream finished (acknowledged or given up); release the send side
     * when every stream is.
     * @param key the stream
     */
    void CloseStream(uint32_t key);
    /**
     * @brief Find the stream a NACK or DONE is about.
     * @param plan the round's plan
     * @param header the NACK or DONE
     * @return its key, or NO_STEP when it is none of the send side's
     */
    virtual uint32_t FindRequestedStream(const ExchangePlan& plan,
                                         const IslandSyncHeader& header) const;
    /**
     * @param stream a stream NACKed
     * @return one past the highest chunk sent of it (what a repair may resend)
     */
    virtual uint32_t GetSentBound(SendStream& stream);
    /**
     * @brief Queue the repairs a NACK asks of a stream: the chunks of its ranges that were sent
     * (the rest is pending anyway), below GetSentBound.
     * @param stream the stream NACKed
     * @param ranges the ranges the NACK names
     */
    virtual void QueueRepairs(SendStream& stream,
                              const std::vector<IslandSyncHeader::Range>& ranges);

    /**
     * @param plan the round's plan
     * @param source a contributor (ring mode: the predecessor)
     * @return the timers of its receive stream
     */
    ReceiveStream::Timing GetReceiveTiming(const ExchangePlan& plan, uint32_t source) const;
    /**
     * @brief Put a receive stream in the receive side, reporting to this exchange.
     * @param range the stream (GetReceiveRanges: its key, contributor, ring step and chunks)
     * @param timing its timers
     */
    void AddReceiveStream(const ReceiveRange& range, const ReceiveStream::Timing& timing);
    /**
     * @brief A receive stream's repair attempts are exhausted.
     * @param key the stream
     */
    void StreamExhausted(uint32_t key);
    /**
     * @brief React to an exhausted receive stream (only while the island exchanges this round:
     * before, StreamExhausted resumes the stream instead).
     * @param source its contributor
     * @param reason why, for the trace
     */
    virtual void OnStreamExhausted(uint32_t source, const std::string& reason) = 0;
    /**
     * @param stream a receive stream
     * @return what names it in reasons and descriptions after its source ("" or a ring step)
     */
    virtual std::string GetStreamLabel(const ReceiveStream& stream) const;
    /**
     * @brief Name a stream in the header of a NACK or DONE.
     * @param plan the round's plan
     * @param key the stream
     * @param header receives the contributors and the chunk naming it
     * @return the island the reply goes to
     */
    virtual uint32_t NameStream(const ExchangePlan& plan,
                                uint32_t key,
                                IslandSyncHeader& header) const;
    /**
     * @brief Send a NACK.
     * @param key the stream asked to resend
     * @param ranges the missing chunk ranges
     */
    void SendNack(uint32_t key, const std::vector<ChunkRangeSet::Range>& ranges);
    /**
     * @brief Send DONE for a stream held.
     * @param key the stream
     */
    void SendDone(uint32_t key);
    /**
     * @brief A chunk of a round that is over here arrived: acknowledge again.
     * @param header its header
     * @param payload its model bytes
     * @param keys the streams it acknowledges
     */
    void AcknowledgeAgain(const IslandSyncHeader& header,
                          uint32_t payload,
                          const std::vector<uint32_t>& keys);
    /** @return the island's name (for reasons) */
    const std::string& GetIslandName() const;
    /**
     * @param island an island
     * @return its name
     */
    const std::string& GetName(uint32_t island) const;

    Context m_ctx;                     //!< the island's context
    uint32_t m_round{0};               //!< the round
    std::unique_ptr<SendSide> m_tx;    //!< the send side, when it exists
    std::unique_ptr<ReceiveSide> m_rx; //!< the receive side, when it exists
};

} // namespace ns3

#endif /* ISLAND_EXCHANGE_H */
