/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "island-socket.h"

#include "ns3/abort.h"
#include "ns3/inet-socket-address.h"
#include "ns3/log.h"
#include "ns3/packet.h"
#include "ns3/udp-socket-factory.h"
#include "ns3/uinteger.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("WanTrainingIslandSocket");

void
IslandSocket::Open(Ptr<Node> node, const Config& config)
{
    m_config = config;
    m_socket = Socket::CreateSocket(node, UdpSocketFactory::GetTypeId());
    NS_ABORT_MSG_IF(m_socket->Bind(InetSocketAddress(Ipv4Address::GetAny(), config.port)) != 0,
                    "TrainingIslandApplication (" << config.name << "): cannot bind UDP port "
                                                  << config.port);
    m_socket->SetRecvCallback(MakeCallback(&IslandSocket::HandleRead, this));
    if (config.multicastTtl > 0)
    {
        // Every router of a source tree decrements the TTL (PimMulticastHelper).
        m_socket->SetAttribute("IpMulticastTtl", UintegerValue(config.multicastTtl));
    }
}

void
IslandSocket::Close()
{
    if (m_socket)
    {
        m_socket->SetRecvCallback(MakeNullCallback<void, Ptr<Socket>>());
        m_socket->Close();
        m_socket = nullptr;
    }
}

bool
IslandSocket::IsOpen() const
{
    return m_socket != nullptr;
}

bool
IslandSocket::Send(const IslandSyncHeader& header, uint32_t paddingBytes, Ipv4Address to)
{
    if (!m_socket)
    {
        return false;
    }
    Ptr<Packet> packet = Create<Packet>(paddingBytes);
    packet->AddHeader(header);
    if (m_socket->SendTo(packet, 0, InetSocketAddress(to, m_config.port)) < 0)
    {
        NS_LOG_WARN(m_config.name << ": send to " << to << " failed: " << m_socket->GetErrno());
        return false;
    }
    return true;
}

void
IslandSocket::HandleRead(Ptr<Socket> socket)
{
    Address from;
    // The owner may close the endpoint while it handles a packet: read no further then.
    while (m_socket)
    {
        Ptr<Packet> packet = socket->RecvFrom(from);
        if (!packet)
        {
            break;
        }
        IslandSyncHeader header;
        const uint32_t headerBytes = packet->PeekHeader(header);
        if (headerBytes == 0 || header.GetJobId() != m_config.jobId ||
            header.GetSender() >= m_config.islands)
        {
            NS_LOG_LOGIC(m_config.name << " rejects a packet of " << packet->GetSize() << " bytes");
            m_config.rejected();
            continue;
        }
        m_config.receive(header, packet->GetSize() - headerBytes);
    }
}

} // namespace ns3
