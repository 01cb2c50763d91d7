/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef ISLAND_SYNC_HEADER_H
#define ISLAND_SYNC_HEADER_H

#include "payload-format.h"

#include "ns3/header.h"
#include "ns3/packet.h"

#include <cstdint>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * @ingroup wan-training
 * @brief The header of every packet of the island synchronization transport.
 *
 * One header type serves every message of the transport and every capability mode:
 *
 * - DATA: one chunk of one island's model for one (job, round, clique). It carries the real
 *   values of that chunk's slice of the parameter vector, encoded in the header's payload
 *   format (PayloadCodec); the rest of the chunk's wire size is zero-filled packet payload
 *   after the header.
 * - AGGREGATE: the same layout, but the values are the sum of the chunks of several islands
 *   (the contributor bitmap names them, the contributor count counts them). Written by an
 *   in-line aggregator (AggregatorNetDevice), whose sender field is its own city (the index of
 *   the island it faces); receivers treat it as the contribution of every named island.
 * - NACK: a receiver asks the contributors named in the bitmap to resend chunk ranges; the
 *   value area holds the ranges, half-open [begin, end) chunk indices, as pairs of uint32.
 * - DONE: a receiver holds every chunk of the contributors named in the bitmap.
 * - READY: the sender has started the round in the round field (its previous round is over),
 *   so members of its clique may start their streams toward it; no answer is wanted.
 * - READY_ASK: a READY that asks the receiver to answer with a READY (or a VIEW) of the
 *   round it is in.
 * - VIEW: the sender's view of the round in the round field: the contributor bitmap names the
 *   members it still counts on and averages over (after it excluded a crashed or unreachable
 *   member); the clique field names the clique.
 * - PARITY: forward error correction (TrainingIslandApplication's FecBlock) over a block of the
 *   sender's DATA chunks of one stream: the chunks [chunk index, chunk index + n), n in the
 *   value offset field. The area holds the byte-wise XOR of the block's encoded value areas,
 *   each zero-extended to the longest (value count = its byte count, 0 for chunks that carry
 *   only padding); the format is the chunks'. A receiver that holds all but one chunk of the block
 XORs the parity with the
 *   others' encoded areas and decodes the missing chunk (encoding is idempotent, so it
 *   re-encodes what it decoded). Like a bf16 or int8 header, a receiver that predates PARITY
 *   refuses it as an unknown type.
 *
 * The clique field holds the clique index in its low CLIQUE_BITS bits and, above them, the
 * exclusion epoch: how many members the sender has excluded from the clique in this round. A
 * ring rebuilt without them has an epoch of its own, so chunks of the old ring are never taken
 * for the new one. GetCliqueId() is the whole field (index and epoch: what tells one stream
 * from another), GetCliqueIndex() and GetEpoch() its parts.
 *
 * Version 2 (this one) made READY_ASK and VIEW message types; in version 1 they were a READY
 * whose chunk index was 1 or 2. Every message keeps its version-1 layout and size, but a
 * version-1 READY would be misread by a version-2 receiver, so the version changed: a
 * version-1 header is rejected like any unknown version. The chunk index of READY, READY_ASK
 * and VIEW is 0; Deserialize() does not check it.
 *
 * The payload format (PayloadFormat: 0 fp32, 1 bf16, 2 int8) of DATA and AGGREGATE is the high
 * 4 bits of the type byte; the other types carry none (0). An fp32 header is byte for byte what
 * it was before the formats, and a receiver that predates them refuses a bf16 or int8 header as
 * an unknown type, so the version stays 2. The header holds decoded values: SetValues()
 * quantizes in the format (PayloadCodec::Quantize), Serialize() encodes, and since encoding is
 * idempotent a sender's GetValues() equal its receivers' bit for bit. The value count is the
 * number of values in every format; the value area takes GetEncodedBytes(format, count) bytes:
 * 4 a value (fp32), 2 a value (bf16), or per int8 block of INT8_BLOCK_VALUES values its
 * float32 scale then its codes. An int8 header's value offset is a multiple of
 * INT8_BLOCK_VALUES (chunks carry whole blocks).
 *
 * Wire layout (network byte order, FIXED_SIZE = 40 bytes, then the value area):
 * @verbatim
    0  magic (0x5754, "WT")          u16 | 2  version u8 | 3  type u8 (bits 0-3 the type,
                                                            bits 4-7 the payload format)
    4  job id                        u16 | 6  sender island u16
    8  round                         u32
   12  clique id                     u16 | 14 contributor count u16
       (bits 0-5 clique index, bits 6-15 exclusion epoch <= MAX_EPOCH)
   16  chunk index                   u32
   20  chunk count                   u32
   24  contributor bitmap            u64 (bit i = island i, up to 64 islands)
   32  value offset                  u32 (index of the first value in the parameter vector)
   36  value count (or range count,  u16 | 38 checksum u16 (Internet checksum of header + values)
       or PARITY byte count)
   40  values: value count in the format (fp32: IEEE 754 bits), or ranges: range count x
       (u32 begin, u32 end), or PARITY bytes
   @endverbatim
 *
 * Deserialize() validates everything before accepting the header: the remaining buffer must
 * hold the whole header (it never reads past the end), magic, version, type, format (known, on
 * DATA and AGGREGATE only, an int8 value offset on a block boundary), the epoch, the counts,
 * the ranges, the checksum (over the encoded bytes) and the encoding (what PayloadCodec::Decode
 * accepts) must be consistent. It returns 0 for a truncated or
 * corrupt header, so callers must check the return value of Packet::PeekHeader / RemoveHeader.
 */
class IslandSyncHeader : public Header
{
  public:
    /** The message types. */
    enum Type : uint8_t
    {
        DATA = 1,      //!< one island's chunk with its values
        AGGREGATE = 2, //!< the sum of several islands' chunks
        NACK = 3,      //!< a repair request carrying chunk ranges
        DONE = 4,      //!< every chunk of the named contributors is held
        READY = 5,     //!< the sender has started a round (the clique barrier)
        READY_ASK = 6, //!< a READY that asks for the receiver's READY (or VIEW) in answer
        VIEW = 7,      //!< the members the sender averages over in a round (the bitmap)
        PARITY = 8,    //!< the XOR of a block of DATA chunks' encoded values (FEC)
    };

    /** A half-open interval of chunk indices [first, second). */
    using Range = std::pair<uint32_t, uint32_t>;

    static constexpr uint16_t MAGIC = 0x5754;   //!< the first two bytes of every header
    static constexpr uint8_t VERSION = 2;       //!< the wire format version
    static constexpr uint8_t TYPE_MASK = 0x0f;  //!< bits of the type byte holding the type
    static constexpr uint8_t FORMAT_SHIFT = 4;  //!< the type byte's payload format bits
    static constexpr uint32_t FIXED_SIZE = 40;  //!< bytes before the value area
    static constexpr uint32_t MAX_ISLANDS = 64; //!< islands a contributor bitmap can name
    static constexpr uint32_t VALUE_BYTES = 4;  //!< bytes of one float32 value (fp32)
    static constexpr uint32_t RANGE_BYTES = 8;  //!< bytes of one NACK range
    static constexpr uint32_t MAX_SIZE = 65535; //!< largest serialized size (an IPv4 datagram)
    static constexpr uint32_t CLIQUE_BITS = 6;  //!< low bits of the clique field: the index
    static constexpr uint16_t MAX_CLIQUES = 1 << CLIQUE_BITS; //!< clique indices in a round
    /** The largest exclusion epoch: a clique of at most MAX_ISLANDS excludes all but one. */
    static constexpr uint16_t MAX_EPOCH = MAX_ISLANDS - 1;

    IslandSyncHeader();

    /**
     * @param island an island index (below MAX_ISLANDS)
     * @return its bit in a contributor bitmap (bit i = island i)
     */
    static constexpr uint64_t GetContributorBit(uint32_t island)
    {
        return uint64_t{1} << island;
    }

    /**
     * @brief Get the type ID.
     * @return the object TypeId
     */
    static TypeId GetTypeId();
    TypeId GetInstanceTypeId() const override;
    void Print(std::ostream& os) const override;
    uint32_t GetSerializedSize() const override;
    void Serialize(Buffer::Iterator start) const override;
    uint32_t Deserialize(Buffer::Iterator start) override;

    /**
     * @brief Deserialize from contiguous bytes (e.g. from Packet::CopyData), with every check
     * of Deserialize().
     * @param data the bytes, starting with the header
     * @param available how many bytes data holds
     * @return the header's size, or 0 for a truncated or corrupt header (this header is then
     *         unchanged)
     */
    uint32_t DeserializeFrom(const uint8_t* data, uint32_t available);

    /**
     * @param fixed the first FIXED_SIZE bytes of a serialized header
     * @return the serialized size its type and area count announce (nothing is validated: a
     *         hint for how many bytes to hand to DeserializeFrom)
     */
    static uint32_t PeekSerializedSize(const uint8_t* fixed);

    /** How a packet handed to ReadFromPacket() or PeekTypeInPacket() starts. */
    enum Framing : uint8_t
    {
        IPV4_DATAGRAM, //!< with the IPv4 header (what a NetDevice's Send() is given)
        PPP_FRAME,     //!< with the 2-byte PPP header (what a PointToPointNetDevice's PHY sends)
    };

    /**
     * @brief Read the sync header of a packet of the transport without copying the packet.
     *
     * The framing, IPv4 and UDP headers and the fixed sync header are read from one flat
     * Packet::CopyData of the packet's first bytes (a second one only for a header with a value
     * or range area longer than what the first held); no header object is built. The packet is
     * a sync packet when its PPP protocol (PPP_FRAME) is IPv4, it is an unfragmented IPv4 UDP
     * datagram to `port` and its payload starts with a header that Deserialize() accepts.
     * Used wherever every packet of a link is inspected (AggregatorNetDevice, TrainingResults).
     *
     * @param packet the packet
     * @param framing how it starts
     * @param port the transport's UDP destination port
     * @param header receives the sync header (unchanged when this returns 0)
     * @param ipv4Destination when not null, receives the datagram's IPv4 destination address
     *        (host byte order, as Ipv4Address(uint32_t) takes it) when this does not return 0
     * @return the sync header's byte offset in the packet, or 0 when it is not a sync packet
     */
    static uint32_t ReadFromPacket(Ptr<const Packet> packet,
                                   Framing framing,
                                   uint16_t port,
                                   IslandSyncHeader& header,
                                   uint32_t* ipv4Destination = nullptr);

    /**
     * @brief Find the sync header of a packet of the transport as ReadFromPacket() does, and
     * read its type and payload format only: the magic, version and type are checked, not the
     * rest of the header
     * (its fields, checksum and area). For counting every packet of a link by type, where the
     * headers were built by the module and are validated by their receivers.
     * @param packet the packet
     * @param framing how it starts
     * @param port the transport's UDP destination port
     * @param type receives the message type (unchanged when this returns 0)
     * @param format receives the payload format of the type byte (unchanged when this
     *        returns 0)
     * @return the sync header's byte offset in the packet, or 0 when it is not a sync packet
     */
    static uint32_t PeekTypeInPacket(Ptr<const Packet> packet,
                                     Framing framing,
                                     uint16_t port,
                                     Type& type,
                                     PayloadFormat& format);

    /** @param type the message type */
    void SetType(Type type);
    /** @return the message type */
    Type GetType() const;
    /** @param jobId the training job */
    void SetJobId(uint16_t jobId);
    /** @return the training job */
    uint16_t GetJobId() const;
    /** @param round the round (counted from 0 over the whole run) */
    void SetRound(uint32_t round);
    /** @return the round */
    uint32_t GetRound() const;
    /**
     * @brief Set the whole clique field: the clique index and the exclusion epoch.
     * @param cliqueId the clique index + MAX_CLIQUES x the epoch (epoch at most MAX_EPOCH)
     */
    void SetCliqueId(uint16_t cliqueId);
    /** @return the whole clique field: the clique index + MAX_CLIQUES x the epoch */
    uint16_t GetCliqueId() const;
    /** @param index the clique index within the round (below MAX_CLIQUES); the epoch is kept */
    void SetCliqueIndex(uint16_t index);
    /** @return the clique index within the round */
    uint16_t GetCliqueIndex() const;
    /**
     * @param epoch the exclusion epoch: members the sender has excluded from the clique in
     *        this round (at most MAX_EPOCH); the clique index is kept
     */
    void SetEpoch(uint16_t epoch);
    /** @return the exclusion epoch */
    uint16_t GetEpoch() const;
    /**
     * @param sender the island that sent the packet (for DATA the contributor itself, for
     *        AGGREGATE the city of the FPGA that summed it)
     */
    void SetSender(uint16_t sender);
    /** @return the island that sent the packet */
    uint16_t GetSender() const;
    /** @param index the chunk index (DATA, AGGREGATE) */
    void SetChunkIndex(uint32_t index);
    /** @return the chunk index */
    uint32_t GetChunkIndex() const;
    /** @param count the number of chunks of the stream */
    void SetChunkCount(uint32_t count);
    /** @return the number of chunks of the stream */
    uint32_t GetChunkCount() const;
    /**
     * @brief Set the contributor bitmap; the contributor count becomes its population count.
     * @param bitmap bit i set = island i contributed (DATA, AGGREGATE) or is addressed (NACK,
     *        DONE, READY, READY_ASK) or in the sender's view (VIEW)
     */
    void SetContributors(uint64_t bitmap);
    /** @return the contributor bitmap */
    uint64_t GetContributors() const;
    /** @return the number of contributors (the population count of the bitmap) */
    uint16_t GetContributorCount() const;
    /** @param offset the index of the first value of this chunk in the parameter vector */
    void SetValueOffset(uint32_t offset);
    /** @return the index of the first value of this chunk in the parameter vector */
    uint32_t GetValueOffset() const;
    /**
     * @brief Set the payload format of the values (DATA, AGGREGATE; the other types carry
     * none and serialize fp32). The values held are quantized in it.
     * @param format the format
     */
    void SetFormat(PayloadFormat format);
    /** @return the payload format of the values */
    PayloadFormat GetFormat() const;
    /**
     * @brief Set the values carried (DATA, AGGREGATE), quantized in the header's format: what
     * GetValues() returns afterwards is what every receiver decodes.
     * @param values the real values
     */
    void SetValues(std::vector<float> values);
    /** @return the values carried, decoded (quantized in the format) */
    const std::vector<float>& GetValues() const;
    /** @param ranges the requested chunk ranges (NACK) */
    void SetRanges(std::vector<Range> ranges);
    /** @return the requested chunk ranges */
    const std::vector<Range>& GetRanges() const;
    /**
     * @brief Set a PARITY's block and bytes.
     * @param blockChunks the chunks of the block (n, at least 1; the chunk index is the first)
     * @param bytes the XOR of their encoded value areas (empty for chunks without values: the
     *        wire padding stands for the rest)
     */
    void SetParity(uint32_t blockChunks, std::vector<uint8_t> bytes);
    /** @return a PARITY's chunks in its block (its value offset field) */
    uint32_t GetBlockChunks() const;
    /** @return a PARITY's bytes */
    const std::vector<uint8_t>& GetParity() const;

    /**
     * @param payloadBytes the bytes available after the fixed header
     * @param format the payload format
     * @return how many values fit in the format (at most UINT16_MAX; in int8 whole blocks of
     *         INT8_BLOCK_VALUES only, so 0 below one block's bytes)
     */
    static uint32_t GetMaxValues(uint32_t payloadBytes, PayloadFormat format = PayloadFormat::FP32);

    /**
     * @param type a message type
     * @return its name ("data", "aggregate", "nack", "done", "ready", "ready-ask", "view",
     *         "parity")
     */
    static const char* TypeToString(Type type);

  private:
    Type m_type{DATA};                           //!< message type
    uint16_t m_jobId{0};                         //!< training job
    uint16_t m_sender{0};                        //!< sending island
    uint32_t m_round{0};                         //!< round
    uint16_t m_cliqueId{0};                      //!< clique field: clique index and exclusion epoch
    uint32_t m_chunkIndex{0};                    //!< chunk index
    uint32_t m_chunkCount{0};                    //!< chunks of the stream
    uint64_t m_contributors{0};                  //!< contributor bitmap
    uint32_t m_valueOffset{0};                   //!< first value index
    PayloadFormat m_format{PayloadFormat::FP32}; //!< payload format of the values
    std::vector<float> m_values;                 //!< real values (DATA, AGGREGATE)
    std::vector<Range> m_ranges;                 //!< chunk ranges (NACK)
    std::vector<uint8_t> m_parity;               //!< XOR of encoded value areas (PARITY)
};

} // namespace ns3

#endif /* ISLAND_SYNC_HEADER_H */
