/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "capability-mode.h"

#include "wan-input-error.h"

#include "ns3/fatal-error.h"

#include <sstream>

namespace ns3
{

bool
UsesMulticast(CapabilityMode mode)
{
    return mode == CapabilityMode::MULTICAST || mode == CapabilityMode::BOTH ||
           mode == CapabilityMode::TREE;
}

bool
UsesAggregation(CapabilityMode mode)
{
    return mode == CapabilityMode::AGGREGATION || mode == CapabilityMode::BOTH ||
           mode == CapabilityMode::TREE;
}

std::string
CapabilityModeToString(CapabilityMode mode)
{
    switch (mode)
    {
    case CapabilityMode::UNICAST:
        return "unicast";
    case CapabilityMode::MULTICAST:
        return "multicast";
    case CapabilityMode::AGGREGATION:
        return "aggregation";
    case CapabilityMode::BOTH:
        return "both";
    case CapabilityMode::RING:
        return "ring";
    case CapabilityMode::TREE:
        return "tree";
    }
    NS_FATAL_ERROR("unknown capability mode " << static_cast<int>(mode));
    return "";
}

std::vector<CapabilityMode>
GetAllCapabilityModes()
{
    return {CapabilityMode::UNICAST,
            CapabilityMode::MULTICAST,
            CapabilityMode::AGGREGATION,
            CapabilityMode::BOTH,
            CapabilityMode::RING,
            CapabilityMode::TREE};
}

CapabilityMode
CapabilityModeFromString(const std::string& name)
{
    std::ostringstream known;
    for (CapabilityMode mode : GetAllCapabilityModes())
    {
        if (CapabilityModeToString(mode) == name)
        {
            return mode;
        }
        known << (known.tellp() > 0 ? ", " : "") << CapabilityModeToString(mode);
    }
    throw WanInputError("<mode>",
                        "mode",
                        "unknown mode '" + name + "' (known: " + known.str() + ")");
}

} // namespace ns3
