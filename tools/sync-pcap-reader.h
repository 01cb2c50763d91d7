/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef SYNC_PCAP_READER_H
#define SYNC_PCAP_READER_H

#include <cstdint>
#include <string>

/** libpcap's capture handle. */
struct pcap;

namespace ns3
{

/**
 * @ingroup wan-training
 * @brief Reads the records of one pcap capture of a point-to-point device (link type DLT_PPP,
 * 9, as ns-3's PointToPointHelper writes it) with libpcap.
 *
 * Timestamps are read with nanosecond precision whatever the file's own resolution
 * (microsecond files give multiples of 1000 ns). Every problem is a WanInputError naming the
 * file, where in it (`file header` or `record N`, counted from 1) and the reason: a file that
 * cannot be opened, is empty, is not a pcap or pcapng capture, has another link type, or ends
 * inside a header or a record.
 */
class SyncPcapReader
{
  public:
    /** The pcap link type of ns-3's point-to-point devices. */
    static constexpr int LINKTYPE_PPP = 9;

    /** One captured record. */
    struct Record
    {
        uint64_t timeNs{0};           //!< timestamp in nanoseconds
        uint32_t capturedBytes{0};    //!< bytes captured (caplen)
        uint32_t wireBytes{0};        //!< bytes on the wire (orig_len)
        const uint8_t* data{nullptr}; //!< the captured bytes, valid until the next Next()
    };

    /**
     * @brief Open a capture and check its header and link type.
     * @param path the file
     * @throws WanInputError when it cannot be read as a PPP capture
     */
    explicit SyncPcapReader(const std::string& path);
    ~SyncPcapReader();

    SyncPcapReader(const SyncPcapReader&) = delete;
    SyncPcapReader& operator=(const SyncPcapReader&) = delete;

    /**
     * @brief Read the next record.
     * @param record filled with the record
     * @return false at the end of the file
     * @throws WanInputError when the file ends inside a record or a record is corrupt
     */
    bool Next(Record& record);

    /** @return the file */
    const std::string& GetPath() const;
    /** @return the snapshot length of the file header */
    uint32_t GetSnapLen() const;
    /** @return the file's timestamp resolution in ns (1000 for classic microsecond pcap) */
    uint32_t GetResolutionNs() const;
    /** @return records read so far */
    uint64_t GetRecordsRead() const;

  private:
    std::string m_path;         //!< the file
    pcap* m_handle{nullptr};    //!< libpcap handle
    uint32_t m_snapLen{0};      //!< snapshot length
    uint32_t m_resolutionNs{0}; //!< timestamp resolution
    uint64_t m_records{0};      //!< records read
};

} // namespace ns3

#endif /* SYNC_PCAP_READER_H */
