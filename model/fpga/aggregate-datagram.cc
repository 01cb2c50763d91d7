/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "aggregate-datagram.h"

#include "ns3/ipv4-header.h"
#include "ns3/log.h"
#include "ns3/node.h"
#include "ns3/udp-header.h"
#include "ns3/udp-l4-protocol.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("WanTrainingAggregateDatagram");

Ptr<Packet>
AggregateDatagram::Build(const IslandSyncHeader& header,
                         uint32_t paddingBytes,
                         Ipv4Address source,
                         Ipv4Address destination,
                         uint16_t port,
                         uint16_t identification,
                         uint8_t ttl)
{
    NS_LOG_FUNCTION(header << paddingBytes << source << destination << port << identification
                           << static_cast<uint32_t>(ttl));
    Ptr<Packet> packet = Create<Packet>(paddingBytes);
    packet->AddHeader(header);
    UdpHeader udp;
    udp.SetSourcePort(port);
    udp.SetDestinationPort(port);
    if (Node::ChecksumEnabled())
    {
        udp.EnableChecksums();
        udp.InitializeChecksum(source, destination, UdpL4Protocol::PROT_NUMBER);
    }
    packet->AddHeader(udp);
    Ipv4Header ip;
    ip.SetSource(source);
    ip.SetDestination(destination);
    ip.SetProtocol(UdpL4Protocol::PROT_NUMBER);
    ip.SetTtl(ttl);
    ip.SetIdentification(identification);
    ip.SetPayloadSize(packet->GetSize());
    if (Node::ChecksumEnabled())
    {
        ip.EnableChecksum();
    }
    packet->AddHeader(ip);
    return packet;
}

} // namespace ns3
