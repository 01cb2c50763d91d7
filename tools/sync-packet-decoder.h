/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef SYNC_PACKET_DECODER_H
#define SYNC_PACKET_DECODER_H

#include "sync-protocol.h"

#include <cstdint>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * @ingroup wan-training
 * @brief The fields of an IslandSyncHeader as they are on the wire (decoded by
 * SyncPacketDecoder, independently of the IslandSyncHeader class).
 */
struct SyncHeaderFields
{
    uint16_t magic{0};            //!< bytes 0-1, 0x5754 ("WT")
    uint8_t version{0};           //!< byte 2
    uint8_t type{0};              //!< byte 3, bits 0-3: 1 data, 2 aggregate, 3 nack, 4 done,
                                  //!< 5 ready, 6 ready-ask, 7 view
    uint8_t format{0};            //!< byte 3, bits 4-7: the payload format of DATA and
                                  //!< AGGREGATE (0 fp32, 1 bf16, 2 int8; 0 for the others)
    uint16_t jobId{0};            //!< bytes 4-5
    uint16_t sender{0};           //!< bytes 6-7
    uint32_t round{0};            //!< bytes 8-11
    uint16_t cliqueId{0};         //!< bytes 12-13: clique index (bits 0-5), epoch (bits 6-15)
    uint16_t contributorCount{0}; //!< bytes 14-15
    uint32_t chunkIndex{0};       //!< bytes 16-19
    uint32_t chunkCount{0};       //!< bytes 20-23
    uint64_t contributors{0};     //!< bytes 24-31, bit i = island i
    uint32_t valueOffset{0};      //!< bytes 32-35
    uint16_t areaCount{0};        //!< bytes 36-37: value count (range count for a NACK)
    uint16_t checksum{0};         //!< bytes 38-39: Internet checksum of header + value area

    /** @return the value area's bytes its type, format and count announce */
    uint32_t GetAreaBytes() const;

    /** @return the clique index (the low 6 bits of the clique field) */
    uint16_t GetCliqueIndex() const;
    /** @return the exclusion epoch (the high 10 bits of the clique field) */
    uint16_t GetEpoch() const;
};

/**
 * @ingroup wan-training
 * @brief One captured point-to-point frame decoded down to its IslandSyncHeader.
 */
struct DecodedSyncPacket
{
    /** What the UDP payload holds. */
    enum SyncStatus : uint8_t
    {
        NOT_SYNC = 0,  //!< not an unfragmented IPv4/UDP datagram to the sync port
        TRUNCATED = 1, //!< to the sync port, but the capture ends inside the fixed header
        INVALID = 2,   //!< to the sync port, but the header is not a valid IslandSyncHeader
        VALID = 3,     //!< a valid IslandSyncHeader
    };

    /** Whether the Internet checksum of the header could be checked. */
    enum ChecksumStatus : uint8_t
    {
        UNVERIFIED = 0, //!< the capture does not hold the whole header and value area
        GOOD = 1,       //!< verified
        BAD = 2,        //!< verified and wrong (the header is then INVALID)
    };

    uint32_t wireBytes{0};         //!< bytes on the wire (pcap orig_len), PPP header included
    uint32_t capturedBytes{0};     //!< bytes captured (pcap caplen)
    bool hasPpp{false};            //!< whether the 2-byte PPP protocol field was captured
    uint16_t pppProtocol{0};       //!< PPP protocol (0x0021 IPv4)
    bool hasIpv4Addresses{false};  //!< an IPv4 datagram whose addresses were captured
    uint32_t source{0};            //!< IPv4 source address (host order)
    uint32_t destination{0};       //!< IPv4 destination address (host order)
    uint8_t ttl{0};                //!< IPv4 time to live
    uint16_t identification{0};    //!< IPv4 identification
    uint8_t ipProtocol{0};         //!< IPv4 protocol (17 UDP)
    uint32_t ipHeaderBytes{0};     //!< IPv4 header length (IHL x 4)
    bool isFragment{false};        //!< a non-first IPv4 fragment (offset > 0)
    bool hasUdp{false};            //!< a first-fragment UDP datagram whose header was captured
    uint16_t sourcePort{0};        //!< UDP source port
    uint16_t destinationPort{0};   //!< UDP destination port
    SyncStatus sync{NOT_SYNC};     //!< what the UDP payload holds
    const char* invalidReason{""}; //!< why the header is INVALID (static text)
    ChecksumStatus checksum{UNVERIFIED}; //!< checksum verification
    SyncHeaderFields header;             //!< the header (meaningful for VALID and INVALID)
    uint32_t syncBytes{0}; //!< UDP payload bytes on the wire (the sync message with padding)
    /** For a VALID DATA or AGGREGATE: the UDP payload after the fixed header, without the
     *  headers of the other wire frames of a coarse frame (SetWireMtu) */
    uint32_t modelBytes{0};
    /** The frames of the wire MTU a VALID DATA or AGGREGATE stands for (1 unless coarse) */
    uint32_t wireFrames{1};
    std::vector<float> values; //!< captured values (DATA, AGGREGATE) decoded, when asked for
    std::vector<std::pair<uint32_t, uint32_t>> ranges; //!< captured NACK ranges, when asked for

    /** @return whether the header is a valid IslandSyncHeader */
    bool IsSync() const;
    /** @return whether the destination is an IPv4 multicast address */
    bool IsMulticast() const;
};

/**
 * @ingroup wan-training
 * @brief Decodes captured point-to-point frames (pcap link type DLT_PPP, 9): the 2-byte PPP
 * protocol field, IPv4, UDP and the module's IslandSyncHeader.
 *
 * The decoder reads the header from its documented wire layout (island-sync-header.h) and
 * applies the same validity rules as IslandSyncHeader::Deserialize, measuring the message on the
 * wire (pcap orig_len): magic, version, type 1-7, a known payload format on DATA and AGGREGATE
 * only, sender < 64, a non-empty contributor bitmap whose population count is the contributor
 * count, an exclusion epoch of at most 63, chunk index < chunk count, a DATA bitmap naming
 * exactly its sender and an int8 value offset on a block boundary, a non-empty NACK, no value
 * area in DONE, READY, READY_ASK and VIEW, and a value area (its size in the format) that fits
 * the datagram. The Internet checksum, the NACK ranges and the encoding of the values
 * (PayloadCodec::Decode) are checked only when the capture holds them (a headers-only capture
 * has them as UNVERIFIED). Values are extracted decoded (bf16, int8 codes times their block's
 * scale) as far as the capture holds them.
 *
 * Sizes come from the wire length, never from the captured length, so a capture truncated by a
 * snaplen still yields the full wire and model bytes. The decoder never reads past the captured
 * bytes.
 */
class SyncPacketDecoder
{
  public:
    /** The sync transport's default UDP port. */
    static constexpr uint16_t DEFAULT_PORT = SyncProtocol::DEFAULT_PORT;
    /** PPP protocol number of IPv4. */
    static constexpr uint16_t PPP_IPV4 = 0x0021;
    /** Bytes of the PPP header of ns-3's point-to-point frames. */
    static constexpr uint32_t PPP_HEADER_BYTES = SyncProtocol::PPP_HEADER_BYTES;
    /** IPv4 protocol number of UDP. */
    static constexpr uint8_t IP_UDP = 17;
    /** Bytes of a UDP header. */
    static constexpr uint32_t UDP_HEADER_BYTES = 8;
    /** The first two bytes of every IslandSyncHeader. */
    static constexpr uint16_t SYNC_MAGIC = 0x5754;
    /** The wire format version. */
    static constexpr uint8_t SYNC_VERSION = 2;
    /** Bytes of the fixed part of an IslandSyncHeader. */
    static constexpr uint32_t SYNC_FIXED_BYTES = 40;
    /** Islands a contributor bitmap can name. */
    static constexpr uint32_t SYNC_MAX_ISLANDS = 64;
    /** Low bits of the clique field that hold the clique index; the epoch is above them. */
    static constexpr uint32_t SYNC_CLIQUE_BITS = 6;
    /** The largest exclusion epoch (a clique excludes at most all but one of 64 islands). */
    static constexpr uint16_t SYNC_MAX_EPOCH = 63;
    /** Message type numbers. */
    static constexpr uint8_t TYPE_DATA = 1;      //!< one island's chunk
    static constexpr uint8_t TYPE_AGGREGATE = 2; //!< a sum of chunks
    static constexpr uint8_t TYPE_NACK = 3;      //!< a repair request
    static constexpr uint8_t TYPE_DONE = 4;      //!< every chunk held
    static constexpr uint8_t TYPE_READY = 5;     //!< round started
    static constexpr uint8_t TYPE_READY_ASK = 6; //!< round started, answer wanted
    static constexpr uint8_t TYPE_VIEW = 7;      //!< the members the sender averages over
    static constexpr uint8_t TYPE_PARITY = 8;    //!< the XOR of a block of chunks (FEC)
    /** Payload format numbers (PayloadFormat). */
    static constexpr uint8_t FORMAT_FP32 = 0; //!< float32
    static constexpr uint8_t FORMAT_BF16 = 1; //!< bfloat16
    static constexpr uint8_t FORMAT_INT8 = 2; //!< int8 blocks with a float32 scale each

    /**
     * @brief Create a decoder.
     * @param port the UDP destination port of the sync transport
     */
    explicit SyncPacketDecoder(uint16_t port);

    /** @return the UDP port */
    uint16_t GetPort() const;

    /**
     * @brief Read DATA and AGGREGATE frames as coarse frames (WireFrames): each stands for
     * whole frames of this MTU and carries their other headers after its payload.
     * @param mtu the wire MTU of the capture (0: exact frames, the default)
     */
    void SetWireMtu(uint32_t mtu);
    /** @return the wire MTU of coarse frames (0: exact frames) */
    uint32_t GetWireMtu() const;

    /**
     * @brief Decode one captured frame.
     * @param data the captured bytes (may be null when capturedBytes is 0)
     * @param capturedBytes how many bytes were captured
     * @param wireBytes how many bytes were on the wire (>= capturedBytes for a sane capture)
     * @param withValues whether to extract the captured values and ranges
     * @return the decoded frame
     */
    DecodedSyncPacket Decode(const uint8_t* data,
                             uint32_t capturedBytes,
                             uint32_t wireBytes,
                             bool withValues = false) const;

    /**
     * @param type a message type number
     * @return its name ("data", "aggregate", "nack", "done", "ready", "ready-ask", "view",
     *         "unknown")
     */
    static const char* TypeToString(uint8_t type);

    /**
     * @param format a payload format number
     * @return its name ("fp32", "bf16", "int8", "unknown")
     */
    static const char* FormatToString(uint8_t format);

  private:
    uint32_t m_wireMtu{0}; //!< the wire MTU of coarse frames (0: exact frames)
    uint16_t m_port;       //!< the sync transport's UDP port
};

} // namespace ns3

#endif /* SYNC_PACKET_DECODER_H */
