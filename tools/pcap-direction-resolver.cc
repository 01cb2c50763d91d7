/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "pcap-direction-resolver.h"

#include "ns3/abort.h"
#include "ns3/log.h"

#include <algorithm>
#include <tuple>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("WanTrainingPcapDirectionResolver");

bool
PcapDirectionResolver::Flow::operator<(const Flow& other) const
{
    return std::tie(ipv4, source, destination) <
           std::tie(other.ipv4, other.source, other.destination);
}

const char*
PcapDirectionResolver::MethodToString(Method method)
{
    switch (method)
    {
    case ONE_SIDED:
        return "one-sided";
    case FIRST_TIME:
        return "first-time";
    case COUNT:
        return "count";
    case SEQUENCE:
        return "sequence";
    case ADDRESS:
        return "address";
    case TTL:
        return "ttl";
    case AMBIGUOUS:
        return "ambiguous";
    }
    return "unknown";
}

void
PcapDirectionResolver::SetHostCapture(uint32_t capture)
{
    NS_ABORT_MSG_IF(capture > 1, "PcapDirectionResolver: capture must be 0 or 1");
    m_hostCapture = static_cast<int>(capture);
}

void
PcapDirectionResolver::AddAnchor(uint32_t address, uint32_t capture)
{
    NS_ABORT_MSG_IF(capture > 1, "PcapDirectionResolver: capture must be 0 or 1");
    NS_ABORT_MSG_IF(m_resolved, "PcapDirectionResolver: AddAnchor() after Resolve()");
    m_anchors.emplace_back(address, capture);
}

void
PcapDirectionResolver::Add(uint32_t capture, uint64_t timeNs, const Flow& flow, uint8_t ttl)
{
    NS_ABORT_MSG_IF(capture > 1, "PcapDirectionResolver: capture must be 0 or 1");
    NS_ABORT_MSG_IF(m_resolved, "PcapDirectionResolver: Add() after Resolve()");
    FlowState& state = m_flows[flow];
    state.times[capture].push_back(timeNs);
    state.ttl = std::max(state.ttl, ttl);
}

uint32_t
PcapDirectionResolver::Node(uint32_t address)
{
    auto it = m_nodes.find(address);
    if (it != m_nodes.end())
    {
        return it->second;
    }
    uint32_t node = static_cast<uint32_t>(m_parent.size());
    m_parent.push_back(node);
    m_parity.push_back(0);
    m_nodes.emplace(address, node);
    return node;
}

uint32_t
PcapDirectionResolver::Find(uint32_t node)
{
    // Walk up, then compress the path with parities relative to the root.
    std::vector<uint32_t> path;
    uint32_t root = node;
    while (m_parent[root] != root)
    {
        path.push_back(root);
        root = m_parent[root];
    }
    // From the node nearest the root down, accumulate the parity to the root.
    for (auto it = path.rbegin(); it != path.rend(); ++it)
    {
        uint32_t parent = m_parent[*it];
        if (parent != root)
        {
            m_parity[*it] ^= m_parity[parent];
        }
        m_parent[*it] = root;
    }
    return root;
}

void
PcapDirectionResolver::Resolve()
{
    NS_ABORT_MSG_IF(m_resolved, "PcapDirectionResolver: Resolve() called twice");
    m_resolved = true;

    // Rules 1-4, flow by flow.
    for (auto& [flow, state] : m_flows)
    {
        const auto& t0 = state.times[0];
        const auto& t1 = state.times[1];
        state.decided = true;
        if (t0.empty() || t1.empty())
        {
            state.transmitter = t0.empty() ? 1 : 0;
            state.method = ONE_SIDED;
        }
        else if (t0.front() != t1.front())
        {
            state.transmitter = t0.front() < t1.front() ? 0 : 1;
            state.method = FIRST_TIME;
        }
        else if (t0.size() != t1.size())
        {
            state.transmitter = t0.size() > t1.size() ? 0 : 1;
            state.method = COUNT;
        }
        else
        {
            state.decided = false;
            for (size_t i = 0; i < t0.size(); ++i)
            {
                if (t0[i] != t1[i])
                {
                    state.transmitter = t0[i] < t1[i] ? 0 : 1;
                    state.method = SEQUENCE;
                    state.decided = true;
                    break;
                }
            }
        }
    }

    // Rule 5: sides of addresses. Every IPv4 flow puts its two addresses on opposite sides.
    for (const auto& [address, capture] : m_anchors)
    {
        Node(address);
    }
    std::vector<uint8_t> consistent;
    auto grow = [&consistent, this]() { consistent.resize(m_parent.size(), 1); };
    for (const auto& [flow, state] : m_flows)
    {
        if (!flow.ipv4 || flow.source == flow.destination)
        {
            continue;
        }
        uint32_t a = Node(flow.source);
        uint32_t b = Node(flow.destination);
        grow();
        uint32_t ra = Find(a);
        uint32_t rb = Find(b);
        if (ra == rb)
        {
            if ((m_parity[a] ^ m_parity[b]) != 1)
            {
                consistent[ra] = 0;
            }
            continue;
        }
        // Attach rb under ra so that parity(a) != parity(b).
        m_parent[rb] = ra;
        m_parity[rb] = m_parity[a] ^ m_parity[b] ^ 1;
        consistent[ra] = consistent[ra] && consistent[rb];
    }
    grow();
    // Anchors: a decided flow's source is on its transmitter's side; so is an anchored address.
    std::vector<int> rootSide(m_parent.size(), -1);
    for (const auto& [address, capture] : m_anchors)
    {
        uint32_t a = Node(address);
        uint32_t root = Find(a);
        int side = static_cast<int>(capture ^ m_parity[a]);
        if (rootSide[root] == -1)
        {
            rootSide[root] = side;
        }
        else if (rootSide[root] != side)
        {
            consistent[root] = 0;
        }
    }
    for (const auto& [flow, state] : m_flows)
    {
        if (!flow.ipv4 || !state.decided || flow.source == flow.destination)
        {
            continue;
        }
        uint32_t a = Node(flow.source);
        uint32_t root = Find(a);
        int side = static_cast<int>(state.transmitter ^ m_parity[a]);
        if (rootSide[root] == -1)
        {
            rootSide[root] = side;
        }
        else if (rootSide[root] != side)
        {
            consistent[root] = 0;
        }
    }

    // Rule 6 on an access channel: anchors from the TTLs of a tied flow and its reverse, for
    // groups of addresses that timing left without an anchor.
    std::vector<uint8_t> byTtl(m_parent.size(), 0);
    if (m_hostCapture >= 0)
    {
        std::vector<int> ttlSide(m_parent.size(), -1);
        for (const auto& [flow, state] : m_flows)
        {
            if (!flow.ipv4 || state.decided || flow.source == flow.destination)
            {
                continue;
            }
            auto reverse = m_flows.find(Flow{true, flow.destination, flow.source});
            if (reverse == m_flows.end() || reverse->second.decided ||
                reverse->second.ttl >= state.ttl)
            {
                continue;
            }
            // This flow has the larger TTL: the island sent it.
            uint32_t a = Node(flow.source);
            uint32_t root = Find(a);
            if (rootSide[root] != -1)
            {
                continue;
            }
            int side = m_hostCapture ^ m_parity[a];
            if (ttlSide[root] == -1)
            {
                ttlSide[root] = side;
            }
            else if (ttlSide[root] != side)
            {
                consistent[root] = 0;
            }
        }
        for (size_t root = 0; root < ttlSide.size(); ++root)
        {
            if (rootSide[root] == -1 && ttlSide[root] != -1)
            {
                rootSide[root] = ttlSide[root];
                byTtl[root] = 1;
            }
        }
    }

    // Rules 5 to 7 for the flows still tied; count records per method.
    for (auto& [flow, state] : m_flows)
    {
        if (!state.decided)
        {
            state.method = AMBIGUOUS;
            state.transmitter = 0;
            if (flow.ipv4 && flow.source != flow.destination)
            {
                uint32_t a = Node(flow.source);
                uint32_t root = Find(a);
                if (consistent[root] && rootSide[root] != -1)
                {
                    state.transmitter = static_cast<uint32_t>(rootSide[root]) ^ m_parity[a];
                    state.method = byTtl[root] ? TTL : ADDRESS;
                }
            }
        }
        m_records[state.method] += state.times[0].size() + state.times[1].size();
    }
}

uint32_t
PcapDirectionResolver::GetTransmitter(const Flow& flow) const
{
    auto it = m_flows.find(flow);
    NS_ABORT_MSG_IF(!m_resolved || it == m_flows.end(),
                    "PcapDirectionResolver: unknown flow or Resolve() not called");
    return it->second.transmitter;
}

PcapDirectionResolver::Method
PcapDirectionResolver::GetMethod(const Flow& flow) const
{
    auto it = m_flows.find(flow);
    NS_ABORT_MSG_IF(!m_resolved || it == m_flows.end(),
                    "PcapDirectionResolver: unknown flow or Resolve() not called");
    return it->second.method;
}

uint64_t
PcapDirectionResolver::GetRecords(Method method) const
{
    return m_records[method];
}

} // namespace ns3
