/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

/*
 * The PIM-SSM-style multicast source trees of a clique schedule on a WAN topology.
 *
 * The default topology (topologies/doublezero-nine-city.json); every router X also has an island
 * node X-island behind an access link:
 *
 *         chi                        ams
 *        /   \                      /   \
 *     nyc ---- lax ---- tyo      lon ---- fra ---- prg
 *      |                 |       / |
 *      |                sin ----'  |
 *      '---------------------------'
 *
 * PimMulticastHelper installs, for every round slot, every clique and every member as source,
 * the source's tree toward the other members of its clique: the union of the unicast routes,
 * one Ipv4StaticRouting multicast route per router of the tree. The program prints each tree:
 * its group, members, directed links, replication points (routers with more than one output)
 * and the TTL its source needs; optionally the same as JSON.
 *
 * Usage: wan-multicast-trees --topology=FILE [--schedule=FILE | --scheduleKind=KIND]
 *        [--cliqueSize=K] [--groupRange=A.B.C.D/P] [--optionalLinks=1] [--out=FILE.json]
 * Exit status: 0 on success, 1 on an input error.
 */

#include "clique-schedule.h"
#include "command-line-values.h"
#include "pim-multicast-helper.h"
#include "schedule-options.h"
#include "wan-input-error.h"
#include "wan-topology-helper.h"
#include "wan-topology.h"

#include "ns3/command-line.h"
#include "ns3/log.h"
#include "ns3/simulator.h"

#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

using namespace ns3;

NS_LOG_COMPONENT_DEFINE("WanTrainingWanMulticastTrees");

namespace
{

/** The program name used in error messages. */
const char* const PROGRAM = "wan-multicast-trees";

/**
 * @param topology the topology
 * @param cities city indices
 * @return their ids
 */
std::vector<std::string>
Ids(const WanTopology& topology, const std::vector<uint32_t>& cities)
{
    std::vector<std::string> ids;
    for (uint32_t c : cities)
    {
        ids.push_back(topology.GetCity(c).id);
    }
    return ids;
}

/**
 * @param words words
 * @return the words joined with spaces
 */
std::string
Join(const std::vector<std::string>& words)
{
    std::string text;
    for (const std::string& word : words)
    {
        text += (text.empty() ? "" : " ") + word;
    }
    return text;
}

/**
 * @param address an address
 * @return its dotted form
 */
std::string
ToString(Ipv4Address address)
{
    std::ostringstream os;
    os << address;
    return os.str();
}

/**
 * @brief The program proper.
 * @param argc argument count
 * @param argv arguments
 * @return the exit status
 * @throws WanInputError for a bad topology, schedule or command-line value
 */
int
Run(int argc, char** argv)
{
    std::string topologyFile;
    ScheduleOptions schedules;
    std::string groupRange = PimMulticastHelper::DEFAULT_GROUP_RANGE;
    std::string outFile;
    bool optionalLinks = false;

    CommandLine cmd(__FILE__);
    cmd.Usage("Print the multicast source tree of every source of every clique of a schedule: "
              "group, members, directed links, replication points and required TTL.\n"
              "Exit status: 0 success, 1 input error.");
    cmd.AddValue("topology", "topology JSON file (required)", topologyFile);
    cmd.AddValue("optionalLinks", "include the topology's optional_links", optionalLinks);
    schedules.AddValues(cmd);
    cmd.AddValue("groupRange", "multicast range of the groups (A.B.C.D/P)", groupRange);
    cmd.AddValue("out", "write the trees as JSON to this file (none if empty)", outFile);
    cmd.Parse(argc, argv);

    if (topologyFile.empty())
    {
        throw WanInputError(PROGRAM, "--topology", "is required (a topology JSON file)");
    }
    WanTopology topology = WanTopology::LoadFile(topologyFile, optionalLinks);
    CliqueSchedule schedule = schedules.MakeSchedule(PROGRAM, topology);
    std::ofstream out;
    if (!outFile.empty())
    {
        CommandLineValues::OpenOutput(PROGRAM, "--out", outFile, out);
    }

    WanTopologyHelper scenario(topology);
    scenario.Install();
    PimMulticastHelper pim(scenario);
    try
    {
        pim.SetGroupRange(groupRange);
        pim.InstallSchedule(schedule);
    }
    catch (const WanInputError& error)
    {
        throw WanInputError(PROGRAM, "--groupRange", error.GetReason());
    }

    std::cout << PROGRAM << ": topology '" << topology.GetName() << "', " << schedule.GetNRounds()
              << " round slot(s), groups from " << pim.GetGroupNetwork() << "/"
              << pim.GetGroupMask().GetPrefixLength() << ", multicast TTL "
              << uint32_t{pim.GetMulticastTtl()} << "\n";
    nlohmann::json trees = nlohmann::json::array();
    for (const PimMulticastHelper::SourceTree& tree : pim.GetTrees())
    {
        std::vector<std::string> replication = Ids(topology, tree.replicationPoints);
        std::cout << "\nround " << tree.round << " clique " << tree.clique << " source "
                  << topology.GetCity(tree.source).id << " (" << tree.origin << ") group "
                  << tree.group << "\n  members: " << Join(Ids(topology, tree.members))
                  << "\n  links (" << tree.links.size() << "): " << Join(tree.linkNames)
                  << "\n  replication points: "
                  << (replication.empty() ? std::string("none") : Join(replication))
                  << "\n  required TTL: " << tree.requiredTtl << " (" << tree.maxRouterHops
                  << " routers on the longest path)\n";
        trees.push_back({{"round", tree.round},
                         {"clique", tree.clique},
                         {"source", topology.GetCity(tree.source).id},
                         {"origin", ToString(tree.origin)},
                         {"group", ToString(tree.group)},
                         {"members", Ids(topology, tree.members)},
                         {"links", tree.linkNames},
                         {"replication_points", replication},
                         {"required_ttl", tree.requiredTtl}});
    }
    if (out.is_open())
    {
        std::ostringstream range;
        range << pim.GetGroupNetwork() << "/" << pim.GetGroupMask().GetPrefixLength();
        nlohmann::json result = {{"topology", topology.GetName()},
                                 {"group_range", range.str()},
                                 {"multicast_ttl", pim.GetMulticastTtl()},
                                 {"trees", trees}};
        out << result.dump(2) << "\n";
        CommandLineValues::CloseOutput(PROGRAM, "--out", outFile, out);
        std::cout << "\nwrote " << outFile << "\n";
    }
    Simulator::Destroy();
    return 0;
}

} // namespace

int
main(int argc, char** argv)
{
    return CommandLineValues::RunProgram([argc, argv]() { return Run(argc, argv); });
}
