/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "sync-pcap-reader.h"

#include "wan-input-error.h"

#include "ns3/log.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <pcap/pcap.h>
#include <sys/stat.h>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("WanTrainingSyncPcapReader");

namespace
{

/** Magic numbers of classic pcap files (as read in little- or big-endian order). */
constexpr uint32_t MAGIC_MICRO = 0xa1b2c3d4;         //!< microsecond timestamps
constexpr uint32_t MAGIC_MICRO_SWAPPED = 0xd4c3b2a1; //!< microsecond, other byte order
constexpr uint32_t MAGIC_NANO = 0xa1b23c4d;          //!< nanosecond timestamps
constexpr uint32_t MAGIC_NANO_SWAPPED = 0x4d3cb2a1;  //!< nanosecond, other byte order
constexpr uint32_t MAGIC_PCAPNG = 0x0a0d0d0a;        //!< pcapng section header block

} // namespace

SyncPcapReader::SyncPcapReader(const std::string& path)
    : m_path(path)
{
    NS_LOG_FUNCTION(this << path);
    struct stat info;
    if (stat(path.c_str(), &info) != 0)
    {
        throw WanInputError(path, "file", std::string("cannot open: ") + std::strerror(errno));
    }
    if (!S_ISREG(info.st_mode))
    {
        throw WanInputError(path, "file", "not a regular file");
    }
    if (info.st_size == 0)
    {
        throw WanInputError(path, "file header", "empty file (no pcap file header)");
    }

    // The magic number tells the file's own timestamp resolution (libpcap converts to ns).
    std::ifstream in(path, std::ios::binary);
    unsigned char magicBytes[4] = {0, 0, 0, 0};
    in.read(reinterpret_cast<char*>(magicBytes), sizeof(magicBytes));
    if (in.gcount() < 4)
    {
        throw WanInputError(path,
                            "file header",
                            "truncated: " + std::to_string(in.gcount()) +
                                " bytes, a pcap file header has 24");
    }
    uint32_t magic = (uint32_t{magicBytes[0]} << 24) | (uint32_t{magicBytes[1]} << 16) |
                     (uint32_t{magicBytes[2]} << 8) | magicBytes[3];
    if (magic == MAGIC_NANO || magic == MAGIC_NANO_SWAPPED)
    {
        m_resolutionNs = 1;
    }
    else if (magic == MAGIC_MICRO || magic == MAGIC_MICRO_SWAPPED || magic == MAGIC_PCAPNG)
    {
        m_resolutionNs = 1000;
    }
    else
    {
        throw WanInputError(path,
                            "file header",
                            "not a pcap or pcapng capture (unknown magic number)");
    }

    char errbuf[PCAP_ERRBUF_SIZE] = "";
    m_handle =
        pcap_open_offline_with_tstamp_precision(path.c_str(), PCAP_TSTAMP_PRECISION_NANO, errbuf);
    if (m_handle == nullptr)
    {
        throw WanInputError(path, "file header", std::string("cannot read: ") + errbuf);
    }
    int linkType = pcap_datalink(m_handle);
    if (linkType != LINKTYPE_PPP)
    {
        const char* name = pcap_datalink_val_to_name(linkType);
        pcap_close(m_handle);
        m_handle = nullptr;
        throw WanInputError(path,
                            "file header",
                            "link type " + std::to_string(linkType) + " (" +
                                (name ? name : "unknown") +
                                "), expected 9 (PPP, ns-3 point-to-point devices)");
    }
    m_snapLen = static_cast<uint32_t>(pcap_snapshot(m_handle));
}

SyncPcapReader::~SyncPcapReader()
{
    if (m_handle != nullptr)
    {
        pcap_close(m_handle);
    }
}

bool
SyncPcapReader::Next(Record& record)
{
    struct pcap_pkthdr* header = nullptr;
    const u_char* data = nullptr;
    int status = pcap_next_ex(m_handle, &header, &data);
    if (status == PCAP_ERROR_BREAK)
    {
        return false;
    }
    if (status != 1)
    {
        throw WanInputError(m_path,
                            "record " + std::to_string(m_records + 1),
                            std::string("cannot read: ") + pcap_geterr(m_handle));
    }
    if (header->caplen > header->len)
    {
        throw WanInputError(m_path,
                            "record " + std::to_string(m_records + 1),
                            "captured length " + std::to_string(header->caplen) +
                                " exceeds the original length " + std::to_string(header->len));
    }
    ++m_records;
    record.timeNs = static_cast<uint64_t>(header->ts.tv_sec) * 1000000000ULL +
                    static_cast<uint64_t>(header->ts.tv_usec);
    record.capturedBytes = header->caplen;
    record.wireBytes = header->len;
    record.data = data;
    return true;
}

const std::string&
SyncPcapReader::GetPath() const
{
    return m_path;
}

uint32_t
SyncPcapReader::GetSnapLen() const
{
    return m_snapLen;
}

uint32_t
SyncPcapReader::GetResolutionNs() const
{
    return m_resolutionNs;
}

uint64_t
SyncPcapReader::GetRecordsRead() const
{
    return m_records;
}

} // namespace ns3
