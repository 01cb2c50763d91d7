/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "inline-fpga.h"

#include "aggregator-net-device.h"
#include "island-sync-header.h"

#include "ns3/abort.h"
#include "ns3/log.h"
#include "ns3/simulator.h"
#include "ns3/uinteger.h"

#include <algorithm>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("WanTrainingInlineFpga");

NS_OBJECT_ENSURE_REGISTERED(InlineFpga);

TypeId
InlineFpga::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::WanTraining::InlineFpga")
            .SetParent<Object>()
            .SetGroupName("WanTraining")
            .AddConstructor<InlineFpga>()
            .AddAttribute("SlotCount",
                          "The number of chunks the FPGA memory can sum at the same time, over "
                          "all of the router's ports; a contribution that needs a new slot while "
                          "every slot is in use is passed through unaggregated (0: every "
                          "contribution passes through).",
                          UintegerValue(65536),
                          MakeUintegerAccessor(&InlineFpga::m_slotCount),
                          MakeUintegerChecker<uint32_t>())
            .AddAttribute("LineRate",
                          "The throughput of the FPGA pipeline, shared by all of the router's "
                          "ports: every contribution occupies it for its IPv4 datagram size at "
                          "this rate. The streams of all other clique members may converge on "
                          "one port (k-1 times the access rate in both mode), so it should be "
                          "at least their total rate.",
                          DataRateValue(DataRate("1000Gbps")),
                          MakeDataRateAccessor(&InlineFpga::m_lineRate),
                          MakeDataRateChecker())
            .AddTraceSource("SlotsInUse",
                            "The number of slots in use, over all ports.",
                            MakeTraceSourceAccessor(&InlineFpga::m_slotsInUse),
                            "ns3::TracedValueCallback::Uint32")
            .AddTraceSource("SlotHighWaterMark",
                            "The most slots in use at any time so far, over all ports.",
                            MakeTraceSourceAccessor(&InlineFpga::m_slotHighWaterMark),
                            "ns3::TracedValueCallback::Uint32");
    return tid;
}

InlineFpga::InlineFpga()
    : m_slotCount(65536),
      m_city(UINT32_MAX),
      m_slotsInUse(0),
      m_slotHighWaterMark(0)
{
    NS_LOG_FUNCTION(this);
}

InlineFpga::~InlineFpga()
{
    NS_LOG_FUNCTION(this);
}

void
InlineFpga::SetCity(uint32_t city)
{
    NS_ABORT_MSG_IF(city >= IslandSyncHeader::MAX_ISLANDS,
                    "InlineFpga::SetCity(): city "
                        << city << " cannot be named in a contributor bitmap (at most "
                        << IslandSyncHeader::MAX_ISLANDS << " islands)");
    m_city = city;
}

uint32_t
InlineFpga::GetCity() const
{
    return m_city;
}

void
InlineFpga::AddPort(AggregatorNetDevice* port)
{
    if (std::find(m_ports.begin(), m_ports.end(), port) == m_ports.end())
    {
        m_ports.push_back(port);
    }
}

const std::vector<AggregatorNetDevice*>&
InlineFpga::GetPorts() const
{
    return m_ports;
}

Time
InlineFpga::Enter(uint32_t bytes)
{
    // DataRate::CalculateBytesTxTime costs a division in int64x64_t arithmetic; contributions
    // mostly have one size, so the last answer is kept (for that size and that LineRate).
    if (bytes != m_lineTimeBytes || m_lineRate != m_lineTimeRate)
    {
        m_lineTimeBytes = bytes;
        m_lineTimeRate = m_lineRate;
        m_lineTime = m_lineRate.CalculateBytesTxTime(bytes);
    }
    m_freeAt = std::max(Simulator::Now(), m_freeAt) + m_lineTime;
    return m_freeAt;
}

bool
InlineFpga::AcquireSlot()
{
    if (m_slotsInUse >= m_slotCount)
    {
        return false;
    }
    m_slotsInUse = m_slotsInUse + 1;
    if (m_slotsInUse > m_slotHighWaterMark)
    {
        m_slotHighWaterMark = m_slotsInUse;
    }
    return true;
}

void
InlineFpga::ReleaseSlot()
{
    NS_ASSERT(m_slotsInUse > 0);
    m_slotsInUse = m_slotsInUse - 1;
}

uint32_t
InlineFpga::GetSlotCount() const
{
    return m_slotCount;
}

uint32_t
InlineFpga::GetSlotsInUse() const
{
    return m_slotsInUse;
}

uint32_t
InlineFpga::GetSlotHighWaterMark() const
{
    return m_slotHighWaterMark;
}

uint64_t
InlineFpga::SumOverPorts(uint64_t (AggregatorNetDevice::*counter)() const) const
{
    uint64_t total = 0;
    for (const AggregatorNetDevice* port : m_ports)
    {
        total += (port->*counter)();
    }
    return total;
}

uint64_t
InlineFpga::GetContributionsIn() const
{
    return SumOverPorts(&AggregatorNetDevice::GetContributionsIn);
}

uint64_t
InlineFpga::GetContributionsSummed() const
{
    return SumOverPorts(&AggregatorNetDevice::GetContributionsSummed);
}

uint64_t
InlineFpga::GetAggregatesOut() const
{
    return SumOverPorts(&AggregatorNetDevice::GetAggregatesOut);
}

uint64_t
InlineFpga::GetPassThroughs() const
{
    return SumOverPorts(static_cast<uint64_t (AggregatorNetDevice::*)() const>(
        &AggregatorNetDevice::GetPassThroughs));
}

} // namespace ns3
