/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef SYNC_TEST_FRAME_H
#define SYNC_TEST_FRAME_H

#include "ns3/ipv4-address.h"
#include "ns3/ipv4-header.h"
#include "ns3/packet.h"
#include "ns3/ppp-header.h"
#include "ns3/udp-header.h"

#include <cstdint>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

/**
 * @file
 * @ingroup wan-training-tests
 * The frames of the sync transport built with ns-3's own headers, and the table of the payload
 * formats' test capture, shared by the IslandSyncHeader test suite and the pcap-report
 * GoogleTest cases.
 */

namespace ns3
{

/**
 * @ingroup wan-training-tests
 * @brief The fields of the headers that MakeSyncFrame() puts around a UDP payload.
 */
struct SyncFrameFields
{
    Ipv4Address source{"10.128.0.2"};      //!< IPv4 source
    Ipv4Address destination{"10.128.0.6"}; //!< IPv4 destination
    uint16_t sourcePort{9477};             //!< UDP source port
    uint16_t destinationPort{9477};        //!< UDP destination port
    uint8_t ttl{64};                       //!< IPv4 time to live
    uint16_t identification{0};            //!< IPv4 identification
    bool fragment{false};                  //!< whether the IPv4 header says more fragments follow
    bool ppp{true};                        //!< whether to add the PPP header (protocol IPv4)
};

/**
 * @ingroup wan-training-tests
 * @param payload the UDP payload (the headers are added to it)
 * @param fields the header fields
 * @return the IPv4 UDP datagram (with its IPv4 checksum) carrying the payload, in a PPP frame
 *         when asked
 */
inline Ptr<Packet>
MakeSyncFrame(Ptr<Packet> payload, const SyncFrameFields& fields)
{
    UdpHeader udp;
    udp.SetSourcePort(fields.sourcePort);
    udp.SetDestinationPort(fields.destinationPort);
    payload->AddHeader(udp);
    Ipv4Header ip;
    ip.SetSource(fields.source);
    ip.SetDestination(fields.destination);
    ip.SetProtocol(17);
    ip.SetTtl(fields.ttl);
    ip.SetIdentification(fields.identification);
    ip.SetPayloadSize(payload->GetSize());
    if (fields.fragment)
    {
        ip.SetMoreFragments();
    }
    ip.EnableChecksum();
    payload->AddHeader(ip);
    if (fields.ppp)
    {
        PppHeader ppp;
        ppp.SetProtocol(0x0021);
        payload->AddHeader(ppp);
    }
    return payload;
}

/**
 * @ingroup wan-training-tests
 * @brief One row of test/data/pcap/payload-formats/formats.tsv: what every decoder must read
 * from a frame of formats.pcap.
 */
struct FormatCaptureRow
{
    uint32_t frame{0};              //!< frame number, from 1
    uint32_t type{0};               //!< message type number
    std::string name;               //!< type name
    std::string format;             //!< payload format name
    uint32_t offset{0};             //!< value offset
    uint32_t count{0};              //!< value count
    uint32_t frameBytes{0};         //!< frame length
    std::vector<float> firstValues; //!< the first decoded values
};

/**
 * @param path formats.tsv
 * @return its rows (comments and rows that do not parse skipped)
 */
inline std::vector<FormatCaptureRow>
ReadFormatCaptureRows(const std::string& path)
{
    std::ifstream in(path);
    std::vector<FormatCaptureRow> rows;
    for (std::string line; std::getline(in, line);)
    {
        std::istringstream fields(line);
        FormatCaptureRow r;
        std::string values;
        const bool comment = line.empty() || line[0] == '#';
        if (comment || !(fields >> r.frame >> r.type >> r.name >> r.format >> r.offset >> r.count >>
                         r.frameBytes >> values))
        {
            continue;
        }
        std::istringstream list(values);
        for (std::string value; std::getline(list, value, ',');)
        {
            r.firstValues.push_back(std::stof(value));
        }
        rows.push_back(r);
    }
    return rows;
}

} // namespace ns3

#endif /* SYNC_TEST_FRAME_H */
