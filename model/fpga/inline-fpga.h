/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef INLINE_FPGA_H
#define INLINE_FPGA_H

#include "ns3/data-rate.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/traced-value.h"

#include <cstdint>
#include <vector>

namespace ns3
{

class AggregatorNetDevice;

/**
 * @ingroup wan-training
 * @brief The in-line FPGA of one router (DoubleZero puts one in every device): the slot memory
 * and the summing pipeline that all of the router's FPGA ports share.
 *
 * A port is an AggregatorNetDevice: a router port whose Send() hands the contributions it
 * forwards to the FPGA. Every port of a router with an FPGA shares this object, so that
 * - its `SlotCount` bounds the chunks summed at the same time over all ports (a contribution
 *   that needs a slot while every slot is in use passes through, on whichever port);
 * - its `LineRate` is the pipeline's throughput for all ports together: every contribution
 *   entering any port occupies the one pipeline for its datagram size at LineRate, in arrival
 *   order (the ports' exits keep their own ProcessingDelay after it);
 * - its counters are the sums of its ports' (AggregatorNetDevice keeps the per-port ones).
 * The object is aggregated to the router's Node by WanTopologyHelper (Node::GetObject), and a
 * port made alone (without the helper) makes an FPGA of its own.
 */
class InlineFpga : public Object
{
  public:
    /**
     * @brief Get the type ID.
     * @return the object TypeId
     */
    static TypeId GetTypeId();

    InlineFpga();
    ~InlineFpga() override;

    /**
     * @brief Name the router's city (the sender field of the aggregates the ports send).
     * @param city the city index (< 64)
     */
    void SetCity(uint32_t city);
    /** @return the city index (UINT32_MAX before SetCity) */
    uint32_t GetCity() const;

    /**
     * @brief Attach a port (AggregatorNetDevice::SetFpga calls it).
     * @param port the port (it lives as long as the router's node, as this object does)
     */
    void AddPort(AggregatorNetDevice* port);
    /** @return the ports, in the order they were attached */
    const std::vector<AggregatorNetDevice*>& GetPorts() const;

    /**
     * @brief A contribution of `bytes` enters the pipeline now.
     * @param bytes its IPv4 datagram size
     * @return when its serialization at LineRate ends (after every contribution ahead of it)
     */
    Time Enter(uint32_t bytes);
    /**
     * @brief Take a slot for a chunk.
     * @return whether one was free (false: every slot is in use)
     */
    bool AcquireSlot();
    /** Give back a slot. */
    void ReleaseSlot();

    /** @return SlotCount */
    uint32_t GetSlotCount() const;
    /** @return slots in use now, over all ports */
    uint32_t GetSlotsInUse() const;
    /** @return the most slots in use at any time, over all ports */
    uint32_t GetSlotHighWaterMark() const;
    /** @return contributions that left the pipeline, over all ports */
    uint64_t GetContributionsIn() const;
    /** @return contributions summed, over all ports */
    uint64_t GetContributionsSummed() const;
    /** @return aggregates sent (complete and partial), over all ports */
    uint64_t GetAggregatesOut() const;
    /** @return packets forwarded unchanged, over all ports */
    uint64_t GetPassThroughs() const;

  private:
    /**
     * @param counter a counter of a port
     * @return its sum over the ports
     */
    uint64_t SumOverPorts(uint64_t (AggregatorNetDevice::*counter)() const) const;

    uint32_t m_slotCount;                      //!< SlotCount
    DataRate m_lineRate;                       //!< LineRate
    uint32_t m_city;                           //!< the router's city
    std::vector<AggregatorNetDevice*> m_ports; //!< the ports
    Time m_freeAt;                             //!< end of the current serialization
    uint32_t m_lineTimeBytes{0};               //!< size of the cached line time
    DataRate m_lineTimeRate;                   //!< LineRate of the cached line time
    Time m_lineTime;                           //!< the cached line time
    TracedValue<uint32_t> m_slotsInUse;        //!< slots in use
    TracedValue<uint32_t> m_slotHighWaterMark; //!< most slots in use
};

} // namespace ns3

#endif /* INLINE_FPGA_H */
