/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef PORT_EXPECTATIONS_H
#define PORT_EXPECTATIONS_H

#include "ns3/ipv4-address.h"
#include "ns3/nstime.h"

#include <cstdint>
#include <map>
#include <tuple>
#include <vector>

namespace ns3
{

/**
 * @ingroup wan-training
 * @brief What an FPGA port (AggregatorNetDevice) sums: per job and schedule round, the
 * contributors of each clique, and (tree mode) the members the VIEWs to the root still name.
 *
 * A round counted over the whole run uses the job's entry of that round modulo the schedule's
 * period. A VIEW narrows an exchange's expected contributors for good (until Clear).
 */
class PortExpectations
{
  public:
    /** What a port sums for one clique of one schedule round. */
    struct Expectation
    {
        /** The contributors to sum (bit i = island i): the port's subtree, or (edge) every
         * other member of the island's clique; never the island the port faces (edge). */
        uint64_t contributors{0};
        /** Tree: the root island's address (only datagrams to it are contributions, and the
         * aggregate goes to it). Edge: Ipv4Address() (0.0.0.0). */
        Ipv4Address root;
        /** The largest round trip between the aggregate's destination (the island, or the
         * root) and the contributors: the margin of a slot's wait (SlotWaits). */
        Time roundTrip;
    };

    /** Expectations of one schedule round: clique id -> what the port sums for it. */
    using RoundExpectations = std::map<uint16_t, Expectation>;

    /**
     * @brief Replace a job's expectations (its VIEWs stay in force).
     * @param jobId the job
     * @param rounds the expectations of each schedule round (at least one)
     */
    void Set(uint16_t jobId, std::vector<RoundExpectations> rounds);
    /**
     * @brief Forget a job's expectations and VIEWs.
     * @param jobId the job
     */
    void Clear(uint16_t jobId);
    /**
     * @param jobId a job
     * @param round a round (counted over the whole run)
     * @param cliqueId a clique id
     * @return the expectation, or nullptr
     */
    const Expectation* Find(uint16_t jobId, uint32_t round, uint16_t cliqueId) const;
    /**
     * @param jobId a job
     * @param round a round
     * @param cliqueId a clique id
     * @return the members the VIEWs of the exchange name (all ones without a VIEW)
     */
    uint64_t GetView(uint16_t jobId, uint32_t round, uint16_t cliqueId) const;
    /**
     * @param jobId a job
     * @param round a round
     * @param cliqueId a clique id
     * @return the expected contributors narrowed by the VIEWs (0 without an expectation)
     */
    uint64_t GetExpected(uint16_t jobId, uint32_t round, uint16_t cliqueId) const;
    /**
     * @brief A VIEW to the root names the members it still counts on: narrow the exchange's
     * view to them.
     * @param jobId a job
     * @param round a round
     * @param cliqueId a clique id
     * @param members the VIEW's bitmap
     * @return the exchange's view now
     */
    uint64_t NarrowView(uint16_t jobId, uint32_t round, uint16_t cliqueId, uint64_t members);
    /** @return whether any VIEW was seen (edge ports never see one) */
    bool HasViews() const;

  private:
    /** (job, round, clique): one clique exchange. */
    using StreamKey = std::tuple<uint16_t, uint32_t, uint16_t>;

    std::map<uint16_t, std::vector<RoundExpectations>> m_expectations; //!< by job
    std::map<StreamKey, uint64_t> m_views; //!< tree: the members a VIEW left, by exchange
};

} // namespace ns3

#endif /* PORT_EXPECTATIONS_H */
