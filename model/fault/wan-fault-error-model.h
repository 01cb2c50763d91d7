/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef WAN_FAULT_ERROR_MODEL_H
#define WAN_FAULT_ERROR_MODEL_H

#include "ns3/error-model.h"
#include "ns3/nstime.h"
#include "ns3/packet.h"
#include "ns3/ptr.h"
#include "ns3/traced-callback.h"

#include <cstdint>

namespace ns3
{

class PointToPointNetDevice;
class UniformRandomVariable;

/**
 * @ingroup wan-training
 * @brief The faults of one WAN direction, as the receive error model of the receiving
 * PointToPointNetDevice: a link that is down, random loss, duplication and reordering.
 *
 * Every packet that reaches the receiving device is judged once, in this order:
 * - **down** (SetLinkDown): the packet is lost (a packet in flight when the link fails is lost
 *   too, whatever it was sent before); the LinkDownDrop trace fires;
 * - **loss**: with probability `LossRate` the packet is lost (one uniform draw per packet, as
 *   ns-3's RateErrorModel with ERROR_UNIT_PACKET); the Lost trace fires;
 * - **reorder**: with probability `ReorderRate` the packet is held back and delivered
 *   `ReorderDelay` later, after the packets that arrive meanwhile (the Reordered trace fires;
 *   the device's PhyRxDrop trace fires too, since the device sees a drop);
 * - **duplicate**: with probability `DuplicateRate` the packet is delivered, and an identical copy
 *   is delivered again `DuplicateDelay` later (the Duplicated trace fires).
 * A packet re-delivered (held or copied) is not judged again, unless the link has gone down
 * meanwhile: then it is lost (LinkDownDrop). Each random decision has its own random variable,
 * so enabling one fault does not change the draws of another (AssignStreams assigns three
 * streams).
 *
 * Re-delivery goes through PointToPointNetDevice::Receive of the device given to SetDevice (the
 * device that owns the model; the model keeps a plain pointer, so there is no reference cycle).
 */
class WanFaultErrorModel : public ErrorModel
{
  public:
    /**
     * @brief Get the type ID.
     * @return the object TypeId
     */
    static TypeId GetTypeId();

    WanFaultErrorModel();
    ~WanFaultErrorModel() override;

    /**
     * @brief Tell the model which device it judges for (required for reorder and duplicate).
     * @param device the receiving device; it must own this model and outlive its events
     */
    void SetDevice(Ptr<PointToPointNetDevice> device);

    /**
     * @brief Take the direction down or up.
     * @param down whether the link carries nothing from now on
     */
    void SetLinkDown(bool down);
    /** @return whether the link is down */
    bool IsLinkDown() const;

    /**
     * @brief Assign fixed random variable streams: loss, reorder, duplicate in that order.
     * @param stream the first stream index
     * @return the number of streams assigned (3)
     */
    int64_t AssignStreams(int64_t stream);

    /** @return packets lost to LossRate */
    uint64_t GetLost() const;
    /** @return packets lost because the link was down */
    uint64_t GetLinkDownDrops() const;
    /** @return packets held back and delivered late */
    uint64_t GetReordered() const;
    /** @return packets delivered twice */
    uint64_t GetDuplicated() const;

    /**
     * TracedCallback signature of a judged packet.
     * @param packet the packet as it reached the device (PPP header included)
     */
    typedef void (*PacketCallback)(Ptr<const Packet> packet);

  protected:
    void DoDispose() override;

  private:
    bool DoCorrupt(Ptr<Packet> p) override;
    void DoReset() override;

    /**
     * @brief Deliver a held or copied packet to the device.
     * @param packet the packet
     */
    void Redeliver(Ptr<Packet> packet);

    double m_lossRate;                              //!< probability of a loss
    double m_reorderRate;                           //!< probability of a late delivery
    Time m_reorderDelay;                            //!< how late a held packet arrives
    double m_duplicateRate;                         //!< probability of a second copy
    Time m_duplicateDelay;                          //!< how late the copy arrives
    Ptr<UniformRandomVariable> m_lossVariable;      //!< draws of the loss decision
    Ptr<UniformRandomVariable> m_reorderVariable;   //!< draws of the reorder decision
    Ptr<UniformRandomVariable> m_duplicateVariable; //!< draws of the duplicate decision
    PointToPointNetDevice* m_device;                //!< the receiving device (not owned)
    bool m_down;                                    //!< whether the link is down
    bool m_redelivering;                            //!< whether Redeliver is in the device now
    uint64_t m_lost;                                //!< packets lost to LossRate
    uint64_t m_linkDownDrops;                       //!< packets lost to a down link
    uint64_t m_reordered;                           //!< packets delivered late
    uint64_t m_duplicated;                          //!< packets delivered twice
    TracedCallback<Ptr<const Packet>> m_lostTrace;  //!< random loss
    TracedCallback<Ptr<const Packet>> m_linkDownDropTrace; //!< loss on a down link
    TracedCallback<Ptr<const Packet>> m_reorderedTrace;    //!< held back
    TracedCallback<Ptr<const Packet>> m_duplicatedTrace;   //!< copied
};

} // namespace ns3

#endif /* WAN_FAULT_ERROR_MODEL_H */
