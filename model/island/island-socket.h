/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef ISLAND_SOCKET_H
#define ISLAND_SOCKET_H

#include "island-sync-header.h"

#include "ns3/callback.h"
#include "ns3/ipv4-address.h"
#include "ns3/node.h"
#include "ns3/ptr.h"
#include "ns3/socket.h"

#include <cstdint>
#include <string>

namespace ns3
{

/**
 * @ingroup wan-training
 * @brief A training island's UDP endpoint of the synchronization transport.
 *
 * It binds the transport's port on the island's node, sends a header with zero-filled padding
 * to an address, and hands each received packet that carries a sync header of the island's job
 * from a known island (sender below the island count) to its owner: the header and the payload
 * bytes after it. Every other packet is counted through a callback and dropped. Closing the
 * endpoint stops the reading at once, also from inside the receive callback.
 */
class IslandSocket
{
  public:
    /** A sync packet arrived: its header and the payload bytes after the header. */
    typedef Callback<void, const IslandSyncHeader&, uint32_t> ReceiveCallback;

    /** What the endpoint needs to know. */
    struct Config
    {
        std::string name;        //!< the island, in error messages
        uint16_t port{0};        //!< the UDP port
        uint16_t jobId{1};       //!< the job whose packets are accepted
        uint32_t islands{0};     //!< accepted senders are below this
        uint8_t multicastTtl{0}; //!< the IpMulticastTtl of group sends (0: the default)
        ReceiveCallback receive; //!< told every accepted packet
        Callback<void> rejected; //!< told every other packet
    };

    /**
     * @brief Bind the port on the node and start reading; aborts when the port is taken.
     * @param node the island's node
     * @param config what to accept and where to report
     */
    void Open(Ptr<Node> node, const Config& config);
    /** Stop reading and release the socket (nothing happens when it is not open). */
    void Close();
    /** @return whether it is open */
    bool IsOpen() const;
    /**
     * @brief Send a header with zero-filled padding after it.
     * @param header the header
     * @param paddingBytes the padding
     * @param to the destination address (an island or a group)
     * @return whether the socket took the packet (false when closed or on a socket error)
     */
    bool Send(const IslandSyncHeader& header, uint32_t paddingBytes, Ipv4Address to);

  private:
    /**
     * @brief The socket's receive callback: read every pending packet while open.
     * @param socket the socket
     */
    void HandleRead(Ptr<Socket> socket);

    Config m_config;      //!< what to accept and where to report
    Ptr<Socket> m_socket; //!< the UDP socket (null: closed)
};

} // namespace ns3

#endif /* ISLAND_SOCKET_H */
