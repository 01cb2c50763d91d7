/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "wan-rtt-probe-helper.h"

#include "wan-topology-helper.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/udp-echo-helper.h"
#include "ns3/uinteger.h"

#include <algorithm>
#include <cmath>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("WanTrainingWanRttProbeHelper");

namespace
{

/** IPv4 (20) + UDP (8) header bytes: what a probe adds to its payload inside the MTU. */
const uint32_t IP_UDP_HEADER_BYTES = 28;

} // namespace

WanRttProbeHelper::WanRttProbeHelper(const WanTopologyHelper& topology)
    : m_topology(topology)
{
    NS_LOG_FUNCTION(this);
}

void
WanRttProbeHelper::SetProbeBytes(uint32_t bytes)
{
    NS_LOG_FUNCTION(this << bytes);
    m_probeBytes = bytes;
}

uint32_t
WanRttProbeHelper::GetProbeBytes() const
{
    return m_probeBytes;
}

uint32_t
WanRttProbeHelper::GetMaxProbeBytes() const
{
    const WanTopology& topology = m_topology.GetTopology();
    uint32_t mtu = topology.GetDefaultMtuBytes();
    for (uint32_t l = 0; l < topology.GetNLinks(); ++l)
    {
        mtu = std::min(mtu, topology.GetLink(l).mtuBytes);
    }
    return mtu - IP_UDP_HEADER_BYTES;
}

void
WanRttProbeHelper::SetPort(uint16_t port)
{
    NS_LOG_FUNCTION(this << port);
    m_port = port;
}

ApplicationContainer
WanRttProbeHelper::Install(Time start)
{
    NS_LOG_FUNCTION(this << start);
    NS_ABORT_MSG_IF(m_installed, "WanRttProbeHelper::Install(): called twice");
    NS_ABORT_MSG_IF(m_probeBytes < 1 || m_probeBytes > GetMaxProbeBytes(),
                    "WanRttProbeHelper::Install(): probe payload of "
                        << m_probeBytes << " bytes is outside [1, " << GetMaxProbeBytes()
                        << "] (the smallest MTU of the topology minus IPv4 and UDP headers)");
    m_installed = true;

    const WanTopology& topology = m_topology.GetTopology();
    const uint32_t n = topology.GetNCities();
    const double probeBits = 8.0 * (m_probeBytes + HEADER_BYTES);

    // A slot outlasts the slowest round trip: latency both ways plus serialization on every hop,
    // plus a millisecond of margin, rounded up to whole milliseconds.
    double slowestMs = 0;
    for (uint32_t src = 0; src < n; ++src)
    {
        for (uint32_t dst = 0; dst < n; ++dst)
        {
            if (src == dst)
            {
                continue;
            }
            double rttMs = 0;
            for (const WanRoute* route :
                 {&topology.GetRoute(src, dst), &topology.GetRoute(dst, src)})
            {
                rttMs += route->latencyMs;
                for (uint32_t d : route->links)
                {
                    rttMs += probeBits / (topology.GetDirectedLinkCapacityGbps(d) * 1e6);
                }
            }
            slowestMs = std::max(slowestMs, rttMs);
        }
    }
    m_slot = MilliSeconds(std::ceil(slowestMs + 1.0));

    ApplicationContainer apps;
    UdpEchoServerHelper server(m_port);
    ApplicationContainer servers = server.Install(m_topology.GetIslands());
    servers.Start(start);
    apps.Add(servers);

    m_txTime.assign(n * n, Time());
    m_rxTime.assign(n * n, Time());
    m_nTx.assign(n * n, 0);
    m_nRx.assign(n * n, 0);
    uint32_t slot = 0;
    for (uint32_t src = 0; src < n; ++src)
    {
        for (uint32_t dst = 0; dst < n; ++dst)
        {
            if (src == dst)
            {
                continue;
            }
            UdpEchoClientHelper client(m_topology.GetIslandAddress(dst), m_port);
            client.SetAttribute("MaxPackets", UintegerValue(1));
            client.SetAttribute("PacketSize", UintegerValue(m_probeBytes));
            client.SetAttribute("Interval", TimeValue(m_slot));
            ApplicationContainer app = client.Install(m_topology.GetIsland(src));
            app.Start(start + m_slot * slot);
            app.Stop(start + m_slot * (slot + 1));
            std::string context = std::to_string(src * n + dst);
            app.Get(0)->TraceConnect("Tx",
                                     context,
                                     MakeCallback(&WanRttProbeHelper::HandleTx, this));
            app.Get(0)->TraceConnect("Rx",
                                     context,
                                     MakeCallback(&WanRttProbeHelper::HandleRx, this));
            apps.Add(app);
            ++slot;
        }
    }
    m_stop = start + m_slot * slot;
    servers.Stop(m_stop);
    NS_LOG_INFO(slot << " probes of " << m_probeBytes << " payload bytes, slot "
                     << m_slot.As(Time::MS) << ", last slot ends at " << m_stop.As(Time::S));
    return apps;
}

Time
WanRttProbeHelper::GetSlot() const
{
    NS_ABORT_MSG_UNLESS(m_installed, "WanRttProbeHelper::GetSlot(): call Install() first");
    return m_slot;
}

Time
WanRttProbeHelper::GetStopTime() const
{
    NS_ABORT_MSG_UNLESS(m_installed, "WanRttProbeHelper::GetStopTime(): call Install() first");
    return m_stop;
}

uint32_t
WanRttProbeHelper::PairIndex(uint32_t src, uint32_t dst, const char* caller) const
{
    NS_ABORT_MSG_UNLESS(m_installed, "WanRttProbeHelper::" << caller << "(): call Install() first");
    uint32_t n = m_topology.GetTopology().GetNCities();
    NS_ABORT_MSG_UNLESS(src < n && dst < n && src != dst,
                        "WanRttProbeHelper::" << caller << "(): no probe " << src << " -> " << dst
                                              << " (cities are 0.." << n - 1 << ")");
    return src * n + dst;
}

bool
WanRttProbeHelper::HasRtt(uint32_t src, uint32_t dst) const
{
    uint32_t k = PairIndex(src, dst, "HasRtt");
    return m_nTx[k] == 1 && m_nRx[k] == 1;
}

Time
WanRttProbeHelper::GetRtt(uint32_t src, uint32_t dst) const
{
    uint32_t k = PairIndex(src, dst, "GetRtt");
    NS_ABORT_MSG_UNLESS(m_nTx[k] == 1 && m_nRx[k] == 1,
                        "WanRttProbeHelper::GetRtt(): probe "
                            << src << " -> " << dst << " sent " << m_nTx[k] << " and received "
                            << m_nRx[k] << " packets (expected one each)");
    return m_rxTime[k] - m_txTime[k];
}

void
WanRttProbeHelper::HandleTx(std::string context, Ptr<const Packet> packet)
{
    uint32_t k = std::stoul(context);
    NS_LOG_FUNCTION(this << k << packet);
    m_txTime[k] = Simulator::Now();
    ++m_nTx[k];
}

void
WanRttProbeHelper::HandleRx(std::string context, Ptr<const Packet> packet)
{
    uint32_t k = std::stoul(context);
    NS_LOG_FUNCTION(this << k << packet);
    m_rxTime[k] = Simulator::Now();
    ++m_nRx[k];
}

} // namespace ns3
