/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "pcap-tree-analysis.h"

#include "sync-packet-decoder.h"

#include "ns3/log.h"

#include <bitset>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("WanTrainingPcapTreeAnalysis");

namespace
{

/** (job, round, clique index): one clique of one round. */
using CliqueKey = std::tuple<uint16_t, uint32_t, uint16_t>;

/**
 * @param to the counters to add to
 * @param from the counters added
 */
void
AddCounters(PcapTreeAnalysis::Counters& to, const PcapTreeAnalysis::Counters& from)
{
    to.packets += from.packets;
    to.bytes += from.bytes;
    to.modelBytes += from.modelBytes;
    to.contributors += from.contributors;
}

} // namespace

double
PcapTreeAnalysis::RouterStats::GetReduction() const
{
    const uint64_t out = aggregatesOut.packets + passedOut.packets;
    return out > 0 ? static_cast<double>(in.packets) / out : 0.0;
}

const char*
PcapTreeAnalysis::ClassToString(AggregateClass c)
{
    switch (c)
    {
    case PARTIAL:
        return "partial";
    case TOTAL:
        return "total";
    case TOTAL_REPAIR:
        return "total-repair";
    case EDGE:
        return "edge";
    case ISLAND:
        return "island";
    default:
        return "other";
    }
}

void
PcapTreeAnalysis::AddTransmission(const std::string& link,
                                  const std::string& city,
                                  bool islandUp,
                                  const Message& message)
{
    Place place;
    place.link = link;
    place.city = city;
    place.islandUp = islandUp;
    AddAt(place, message);
}

void
PcapTreeAnalysis::AddArrival(const std::string& city, const Message& message)
{
    Place place;
    place.city = city;
    place.arrival = true;
    AddAt(place, message);
}

void
PcapTreeAnalysis::AddAt(const Place& place, const Message& m)
{
    const std::string name = place.arrival ? "arrival@" + place.city : place.link;
    auto index = m_placeIndex.find(name);
    if (index == m_placeIndex.end())
    {
        index = m_placeIndex.emplace(name, static_cast<uint32_t>(m_places.size())).first;
        m_places.push_back(place);
    }
    Counters& c = m_observations[{index->second,
                                  m.type,
                                  m.source,
                                  m.destination,
                                  m.multicast,
                                  m.jobId,
                                  m.round,
                                  m.cliqueId,
                                  m.sender,
                                  m.contributors}];
    ++c.packets;
    c.bytes += m.wireBytes;
    c.modelBytes += m.modelBytes;
    c.contributors += std::bitset<64>(m.contributors).count();
}

PcapTreeAnalysis::AggregateClass
PcapTreeAnalysis::Classify(const Key& key,
                           const std::map<uint32_t, std::string>& islandOfAddress,
                           const std::set<CliqueKey>& treeCliques) const
{
    const auto& [place, type, source, destination, multicast, job, round, cliqueId, sender, bits] =
        key;
    if (multicast)
    {
        return TOTAL;
    }
    if (islandOfAddress.count(source) != 0)
    {
        const CliqueKey clique{job,
                               round,
                               cliqueId & ((1u << SyncPacketDecoder::SYNC_CLIQUE_BITS) - 1)};
        return treeCliques.count(clique) != 0 ? TOTAL_REPAIR : ISLAND;
    }
    auto router = m_routerOf.find(source);
    auto island = islandOfAddress.find(destination);
    if (router == m_routerOf.end() || island == islandOfAddress.end())
    {
        return OTHER;
    }
    return island->second == router->second ? EDGE : PARTIAL;
}

void
PcapTreeAnalysis::Finish(const std::map<uint32_t, std::string>& islandOfAddress)
{
    // A router's own address: its router transmits packets from it but never receives any.
    std::map<uint32_t, std::set<std::string>> transmitters;
    std::map<uint32_t, std::set<std::string>> receivers;
    for (const auto& [key, counters] : m_observations)
    {
        const Place& place = m_places[std::get<0>(key)];
        const uint32_t source = std::get<2>(key);
        if (islandOfAddress.count(source) != 0 || place.islandUp)
        {
            continue;
        }
        (place.arrival ? receivers : transmitters)[source].insert(place.city);
    }
    for (const auto& [source, cities] : transmitters)
    {
        std::vector<std::string> origins;
        for (const std::string& city : cities)
        {
            if (receivers[source].count(city) == 0)
            {
                origins.push_back(city);
            }
        }
        if (origins.size() == 1)
        {
            m_routerOf[source] = origins.front();
        }
    }

    // The cliques with tree traffic: a total or a partial aggregate.
    auto cliqueOf = [](const Key& key) {
        return CliqueKey{std::get<5>(key),
                         std::get<6>(key),
                         std::get<7>(key) & ((1u << SyncPacketDecoder::SYNC_CLIQUE_BITS) - 1)};
    };
    std::set<CliqueKey> treeCliques;
    for (const auto& [key, counters] : m_observations)
    {
        if (std::get<1>(key) == SyncPacketDecoder::TYPE_AGGREGATE)
        {
            AggregateClass c = Classify(key, islandOfAddress, {});
            if (c == TOTAL || c == PARTIAL)
            {
                treeCliques.insert(cliqueOf(key));
            }
        }
    }

    for (const auto& [key, counters] : m_observations)
    {
        const Place& place = m_places[std::get<0>(key)];
        const bool aggregate = std::get<1>(key) == SyncPacketDecoder::TYPE_AGGREGATE;
        const AggregateClass c = aggregate ? Classify(key, islandOfAddress, treeCliques) : OTHER;
        if (aggregate && !place.arrival)
        {
            AddCounters(m_links[place.link][c], counters);
            m_tree = m_tree || c == TOTAL || c == PARTIAL || c == TOTAL_REPAIR;
        }
        if (treeCliques.count(cliqueOf(key)) == 0 || std::get<4>(key))
        {
            continue;
        }
        // A contribution toward the root: unicast DATA or a partial aggregate.
        const bool contribution = !aggregate || c == PARTIAL;
        if (place.arrival || place.islandUp)
        {
            if (contribution)
            {
                AddCounters(m_routers[place.city].in, counters);
            }
            continue;
        }
        auto owner = m_routerOf.find(std::get<2>(key));
        if (aggregate && (c == PARTIAL || c == EDGE) && owner != m_routerOf.end() &&
            owner->second == place.city)
        {
            AddCounters(m_routers[place.city].aggregatesOut, counters);
        }
        else if (contribution)
        {
            AddCounters(m_routers[place.city].passedOut, counters);
        }
    }
    m_observations.clear();
}

const std::map<std::string, PcapTreeAnalysis::LinkClasses>&
PcapTreeAnalysis::GetLinks() const
{
    return m_links;
}

const std::map<std::string, PcapTreeAnalysis::RouterStats>&
PcapTreeAnalysis::GetRouters() const
{
    return m_routers;
}

const std::map<uint32_t, std::string>&
PcapTreeAnalysis::GetRouterAddresses() const
{
    return m_routerOf;
}

bool
PcapTreeAnalysis::HasTreeTraffic() const
{
    return m_tree;
}

} // namespace ns3
