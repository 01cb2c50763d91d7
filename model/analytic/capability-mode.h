/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef CAPABILITY_MODE_H
#define CAPABILITY_MODE_H

#include <string>
#include <vector>

namespace ns3
{

/**
 * @ingroup wan-training
 * @brief How a clique exchanges a model (doc/schedule-model.rst, "Streams per directed link").
 */
enum class CapabilityMode
{
    UNICAST,     //!< a copy to each other member
    MULTICAST,   //!< one copy per sender, replicated by the routers along its source tree
    AGGREGATION, //!< unicast copies, summed by the FPGA at each receiver's edge
    BOTH,        //!< multicast copies, summed at each receiver's edge
    RING,        //!< baseline ring all-reduce (reduce-scatter + all-gather)
    TREE         //!< a tree around a root, summed by the FPGA of every router of its in-tree
};

/**
 * @ingroup wan-training
 * @param mode a capability mode
 * @return its name: "unicast", "multicast", "aggregation", "both", "ring" or "tree"
 */
std::string CapabilityModeToString(CapabilityMode mode);

/**
 * @ingroup wan-training
 * @param name a mode name as CapabilityModeToString writes it
 * @return the mode
 * @throws WanInputError (source `<mode>`, path `mode`) naming the known modes when the name is
 * unknown
 */
CapabilityMode CapabilityModeFromString(const std::string& name);

/**
 * @ingroup wan-training
 * @param mode a capability mode
 * @return whether its islands send to multicast groups (multicast, both; tree: the root sends
 *         the total to one)
 */
bool UsesMulticast(CapabilityMode mode);

/**
 * @ingroup wan-training
 * @param mode a capability mode
 * @return whether in-line FPGAs sum its contributions: at the receivers' edges (aggregation,
 *         both) or on every router of a clique's in-tree (tree)
 */
bool UsesAggregation(CapabilityMode mode);

/**
 * @ingroup wan-training
 * @return every capability mode, in declaration order
 */
std::vector<CapabilityMode> GetAllCapabilityModes();

} // namespace ns3

#endif /* CAPABILITY_MODE_H */
