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

#include "ns3/object.h"
#include "ns3/ptr.h"

#include <cstdint>
#include <map>
#include <vector>

namespace ns3
{

struct RingValues;

/**
 * @ingroup wan-training
 * @brief The exchange algorithm of one clique: what differs between the capability modes
 * (like TcpCongestionOps for a TCP socket).
 *
 * TrainingIslandApplication holds one exchange per mode its cliques use and asks the exchange
 * of a round's plan (ExchangePlan::mode) what the mode decides: the content of a chunk, the
 * step a chunk belongs to, how the island's own contribution enters the sum (AddOwn), which
 * members the exchange still waits for (GetAwaited) and how the average is formed. An exchange
 * holds no round state; it computes from the plan and the values it is given. Create makes the
 * exchange of a mode: StarExchange for unicast, multicast, aggregation and both, RingExchange for
 * the ring all-reduce.
 */
class IslandExchange : public Object
{
  public:
    /** What GetStepOf returns for a header that is no chunk of a step. */
    static constexpr uint32_t NO_STEP = UINT32_MAX;

    /**
     * @brief Get the type ID.
     * @return the object TypeId
     */
    static TypeId GetTypeId();

    /**
     * @brief The exchange of a capability mode.
     * @param mode the mode (not TREE: analytic only)
     * @return a new exchange of that mode
     */
    static Ptr<IslandExchange> Create(CapabilityMode mode);

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
     * @brief Add the island's own contribution to the round's sum when the exchange starts.
     * @param plan the round's plan
     * @param snapshot the island's contribution
     * @param sum the sum of the contributions held (star modes), by parameter index
     */
    virtual void AddOwn(const ExchangePlan& plan,
                        const std::vector<float>& snapshot,
                        std::vector<double>& sum) const = 0;

    /**
     * @brief The members the exchange waits for now: not announced (READY), or nothing
     * received yet from them.
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
     * @brief The clique average at the end of the exchange.
     * @param plan the round's plan
     * @param sum the sum of the contributions (star modes)
     * @param sums the sums received (ring mode), else nullptr
     * @param parameters holds the snapshot; receives the average
     */
    virtual void Average(const ExchangePlan& plan,
                         const std::vector<double>& sum,
                         const RingValues* sums,
                         std::vector<float>& parameters) const = 0;
};

} // namespace ns3

#endif /* ISLAND_EXCHANGE_H */
