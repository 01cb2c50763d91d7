/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef CAPABILITY_SET_H
#define CAPABILITY_SET_H

#include "link-load-model.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

class WanTopology;

/**
 * @ingroup wan-training
 * @brief What a network offers (doc/schedule-model.rst, "Capability sets and mixed rounds"):
 * any of the tokens `multicast` (routers replicate), `aggregation` (edge FPGAs, at each
 * island's router port) and `core` (FPGAs on the routers, which implies `aggregation`), or
 * none of them (`none`, a plain unicast network).
 *
 * A set allows the exchange algorithms a clique may use: unicast and the ring always,
 * multicast with `multicast`, aggregation with `aggregation`, both with `multicast` and
 * `aggregation`, tree with `multicast` and `core`. A set is written as its tokens in that
 * order, comma-separated, or `none`.
 */
class CapabilitySet
{
  public:
    /** The empty set: a plain unicast network. */
    CapabilitySet() = default;
    /**
     * @param multicast whether the routers replicate
     * @param aggregation whether there are edge FPGAs
     * @param core whether the routers have FPGAs (adds aggregation)
     */
    CapabilitySet(bool multicast, bool aggregation, bool core);

    /**
     * @brief Parse a set written as tokens (e.g. `multicast,aggregation,core`) or `none`.
     * @param text the list
     * @param source where it came from (a file or `<command line>`), for the error
     * @param field the option or JSON path, for the error
     * @return the set (`core` adds `aggregation`)
     * @throws WanInputError on an empty list, an unknown or repeated token, or `none` with
     *         other tokens
     */
    static CapabilitySet Parse(const std::string& text,
                               const std::string& source,
                               const std::string& field);
    /**
     * @brief Parse several sets, e.g. `none/multicast/multicast,aggregation`: sets separated
     * by '/', each as Parse reads it.
     * @param text the sets
     * @param source where they came from (a file or a program), for the error
     * @param field the option or JSON path, for the error
     * @return the sets in the order given
     * @throws WanInputError naming field on an empty list, a bad set (which one, and why), or
     *         a set given twice (which two items)
     */
    static std::vector<CapabilitySet> ParseList(const std::string& text,
                                                const std::string& source,
                                                const std::string& field);
    /**
     * @param topology a topology
     * @return its `capabilities` block as a set
     */
    static CapabilitySet Of(const WanTopology& topology);

    /** @return whether the routers replicate */
    bool HasMulticast() const;
    /** @return whether there are edge FPGAs */
    bool HasAggregation() const;
    /** @return whether the routers have FPGAs */
    bool HasCore() const;

    /**
     * @param mode an exchange algorithm
     * @return whether a clique may use it in this set
     */
    bool Allows(CapabilityMode mode) const;
    /** @return the algorithms the set allows, in the order of GetAllCapabilityModes */
    std::vector<CapabilityMode> GetAlgorithms() const;
    /**
     * @param other a set
     * @return whether every token of other is in this set
     */
    bool Contains(const CapabilitySet& other) const;
    /** @return every set this one contains strictly (a set with core holds aggregation) */
    std::vector<CapabilitySet> GetSmallerSets() const;
    /**
     * @param mode an exchange algorithm
     * @return the smallest set that allows it
     */
    static CapabilitySet Needed(CapabilityMode mode);

    /**
     * @brief Check that every clique of a schedule uses an algorithm this set allows.
     * @param schedule a schedule (cliques without an algorithm pass: they take the run's mode)
     * @param source the schedule's file, for the error
     * @param setName how the error names this set, e.g. "the topology's capabilities"
     * @throws WanInputError naming the round, the clique and the capability it lacks
     */
    void CheckSchedule(const CliqueSchedule& schedule,
                       const std::string& source,
                       const std::string& setName) const;

    /** @return the tokens in order, comma-separated, or `none` */
    std::string ToString() const;
    /** @return the tokens in order joined by '+', or `none`: the set in a file name
     *  (`multicast+aggregation`) */
    std::string ToFileStem() const;

    /**
     * @param other a set
     * @return whether both hold the same tokens
     */
    bool operator==(const CapabilitySet& other) const;
    /**
     * @param other a set
     * @return whether they differ
     */
    bool operator!=(const CapabilitySet& other) const;

  private:
    bool m_multicast{false};   //!< `multicast`
    bool m_aggregation{false}; //!< `aggregation`
    bool m_core{false};        //!< `core`
};

} // namespace ns3

#endif /* CAPABILITY_SET_H */
