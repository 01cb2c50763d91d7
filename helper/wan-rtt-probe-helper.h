/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef WAN_RTT_PROBE_HELPER_H
#define WAN_RTT_PROBE_HELPER_H

#include "ns3/application-container.h"
#include "ns3/nstime.h"
#include "ns3/packet.h"
#include "ns3/ptr.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

class WanTopologyHelper;

/**
 * @ingroup wan-training
 * @brief Measures the round-trip time between every ordered pair of islands of an installed
 * WanTopologyHelper with one small UDP echo probe per pair.
 *
 * Install() puts a UdpEchoServer on every island and, for every ordered pair (src, dst), a
 * UdpEchoClient on island src that sends one probe of GetProbeBytes() UDP payload bytes to island
 * dst. The probes run one after the other, in pairs' lexicographic order (src, then dst), each in
 * its own time slot longer than the slowest round trip of the topology, so a probe never queues
 * behind another one. The RTT of a pair is the time from the client's transmission (its "Tx"
 * trace) to the reception of the echo (its "Rx" trace): route src -> dst there, route dst -> src
 * back.
 */
class WanRttProbeHelper
{
  public:
    /** Bytes a probe adds to its UDP payload on a point-to-point hop: UDP 8 + IPv4 20 + PPP 2. */
    static constexpr uint32_t HEADER_BYTES = 30;

    /**
     * @brief Create a prober for an installed scenario.
     * @param topology the scenario (WanTopologyHelper::Install() has run); it must outlive this
     *        helper
     */
    explicit WanRttProbeHelper(const WanTopologyHelper& topology);

    /**
     * @brief Set the UDP payload size of a probe (default 64 bytes).
     * @param bytes payload bytes, at least 1 and at most GetMaxProbeBytes() (checked by
     *        Install())
     */
    void SetProbeBytes(uint32_t bytes);
    /** @return the UDP payload size of a probe in bytes */
    uint32_t GetProbeBytes() const;
    /**
     * @return the largest probe payload that crosses every link of the topology unfragmented:
     *         the smallest MTU (WAN links and the access default) minus IPv4 and UDP headers
     */
    uint32_t GetMaxProbeBytes() const;
    /**
     * @brief Set the UDP port of the echo servers (default 9).
     * @param port the port
     */
    void SetPort(uint16_t port);

    /**
     * @brief Install the echo servers and one client per ordered pair; may be called once.
     * @param start when the first probe leaves
     * @return every application installed (servers, then clients)
     */
    ApplicationContainer Install(Time start);

    /** @return the time between the starts of two consecutive probes */
    Time GetSlot() const;
    /** @return the time at which the last probe's slot ends (every application has stopped) */
    Time GetStopTime() const;

    /**
     * @param src source city index
     * @param dst destination city index
     * @return whether exactly one echo of the probe src -> dst came back
     */
    bool HasRtt(uint32_t src, uint32_t dst) const;
    /**
     * @param src source city index
     * @param dst destination city index
     * @return the RTT of the probe src -> dst; aborts unless HasRtt(src, dst)
     */
    Time GetRtt(uint32_t src, uint32_t dst) const;

  private:
    /**
     * @brief Trace sink of a client's "Tx".
     * @param context the pair index (src * N + dst) as text
     * @param packet the probe
     */
    void HandleTx(std::string context, Ptr<const Packet> packet);
    /**
     * @brief Trace sink of a client's "Rx".
     * @param context the pair index (src * N + dst) as text
     * @param packet the echo
     */
    void HandleRx(std::string context, Ptr<const Packet> packet);
    /**
     * @param src source city index
     * @param dst destination city index
     * @param caller the public method's name, for the message
     * @return the pair index src * N + dst; aborts for an invalid pair
     */
    uint32_t PairIndex(uint32_t src, uint32_t dst, const char* caller) const;

    const WanTopologyHelper& m_topology; //!< the scenario
    uint32_t m_probeBytes{64};           //!< UDP payload bytes of a probe
    uint16_t m_port{9};                  //!< echo server port
    bool m_installed{false};             //!< whether Install() has run
    Time m_slot;                         //!< time between two probes
    Time m_stop;                         //!< end of the last slot
    std::vector<Time> m_txTime;          //!< per pair: when the probe left
    std::vector<Time> m_rxTime;          //!< per pair: when the echo came back
    std::vector<uint32_t> m_nTx;         //!< per pair: probes sent
    std::vector<uint32_t> m_nRx;         //!< per pair: echoes received
};

} // namespace ns3

#endif /* WAN_RTT_PROBE_HELPER_H */
