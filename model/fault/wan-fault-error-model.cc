/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "wan-fault-error-model.h"

#include "ns3/abort.h"
#include "ns3/double.h"
#include "ns3/log.h"
#include "ns3/point-to-point-net-device.h"
#include "ns3/random-variable-stream.h"
#include "ns3/simulator.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("WanTrainingWanFaultErrorModel");

NS_OBJECT_ENSURE_REGISTERED(WanFaultErrorModel);

TypeId
WanFaultErrorModel::GetTypeId()
{
    static TypeId tid =
        TypeId("ns3::WanTraining::WanFaultErrorModel")
            .SetParent<ErrorModel>()
            .SetGroupName("WanTraining")
            .AddConstructor<WanFaultErrorModel>()
            .AddAttribute("LossRate",
                          "Probability that a packet is lost.",
                          DoubleValue(0),
                          MakeDoubleAccessor(&WanFaultErrorModel::m_lossRate),
                          MakeDoubleChecker<double>(0, 1))
            .AddAttribute("ReorderRate",
                          "Probability that a packet is held back and delivered ReorderDelay "
                          "later, after the packets that arrive meanwhile.",
                          DoubleValue(0),
                          MakeDoubleAccessor(&WanFaultErrorModel::m_reorderRate),
                          MakeDoubleChecker<double>(0, 1))
            .AddAttribute("ReorderDelay",
                          "How late a held-back packet is delivered.",
                          TimeValue(MilliSeconds(1)),
                          MakeTimeAccessor(&WanFaultErrorModel::m_reorderDelay),
                          MakeTimeChecker(NanoSeconds(1)))
            .AddAttribute("DuplicateRate",
                          "Probability that a packet is delivered twice.",
                          DoubleValue(0),
                          MakeDoubleAccessor(&WanFaultErrorModel::m_duplicateRate),
                          MakeDoubleChecker<double>(0, 1))
            .AddAttribute("DuplicateDelay",
                          "How long after the original the copy of a duplicated packet is "
                          "delivered.",
                          TimeValue(MicroSeconds(10)),
                          MakeTimeAccessor(&WanFaultErrorModel::m_duplicateDelay),
                          MakeTimeChecker(Time(0)))
            .AddTraceSource("Lost",
                            "A packet was lost to LossRate.",
                            MakeTraceSourceAccessor(&WanFaultErrorModel::m_lostTrace),
                            "ns3::WanFaultErrorModel::PacketCallback")
            .AddTraceSource("LinkDownDrop",
                            "A packet was lost because the link is down.",
                            MakeTraceSourceAccessor(&WanFaultErrorModel::m_linkDownDropTrace),
                            "ns3::WanFaultErrorModel::PacketCallback")
            .AddTraceSource("Reordered",
                            "A packet was held back, to be delivered ReorderDelay later.",
                            MakeTraceSourceAccessor(&WanFaultErrorModel::m_reorderedTrace),
                            "ns3::WanFaultErrorModel::PacketCallback")
            .AddTraceSource("Duplicated",
                            "A packet was delivered and will be delivered again.",
                            MakeTraceSourceAccessor(&WanFaultErrorModel::m_duplicatedTrace),
                            "ns3::WanFaultErrorModel::PacketCallback");
    return tid;
}

WanFaultErrorModel::WanFaultErrorModel()
    : m_lossRate(0),
      m_reorderRate(0),
      m_reorderDelay(MilliSeconds(1)),
      m_duplicateRate(0),
      m_duplicateDelay(MicroSeconds(10)),
      m_lossVariable(CreateObject<UniformRandomVariable>()),
      m_reorderVariable(CreateObject<UniformRandomVariable>()),
      m_duplicateVariable(CreateObject<UniformRandomVariable>()),
      m_device(nullptr),
      m_down(false),
      m_redelivering(false),
      m_lost(0),
      m_linkDownDrops(0),
      m_reordered(0),
      m_duplicated(0)
{
    NS_LOG_FUNCTION(this);
}

WanFaultErrorModel::~WanFaultErrorModel()
{
    NS_LOG_FUNCTION(this);
}

void
WanFaultErrorModel::DoDispose()
{
    NS_LOG_FUNCTION(this);
    m_device = nullptr;
    m_lossVariable = nullptr;
    m_reorderVariable = nullptr;
    m_duplicateVariable = nullptr;
    ErrorModel::DoDispose();
}

void
WanFaultErrorModel::SetDevice(Ptr<PointToPointNetDevice> device)
{
    NS_LOG_FUNCTION(this << device);
    m_device = PeekPointer(device);
}

void
WanFaultErrorModel::SetLinkDown(bool down)
{
    NS_LOG_FUNCTION(this << down);
    m_down = down;
}

bool
WanFaultErrorModel::IsLinkDown() const
{
    return m_down;
}

int64_t
WanFaultErrorModel::AssignStreams(int64_t stream)
{
    m_lossVariable->SetStream(stream);
    m_reorderVariable->SetStream(stream + 1);
    m_duplicateVariable->SetStream(stream + 2);
    return 3;
}

uint64_t
WanFaultErrorModel::GetLost() const
{
    return m_lost;
}

uint64_t
WanFaultErrorModel::GetLinkDownDrops() const
{
    return m_linkDownDrops;
}

uint64_t
WanFaultErrorModel::GetReordered() const
{
    return m_reordered;
}

uint64_t
WanFaultErrorModel::GetDuplicated() const
{
    return m_duplicated;
}

bool
WanFaultErrorModel::DoCorrupt(Ptr<Packet> p)
{
    if (m_redelivering)
    {
        // A held or copied packet: judged when it first arrived.
        return false;
    }
    if (m_down)
    {
        ++m_linkDownDrops;
        m_linkDownDropTrace(p);
        return true;
    }
    if (m_lossRate > 0 && m_lossVariable->GetValue() < m_lossRate)
    {
        ++m_lost;
        m_lostTrace(p);
        return true;
    }
    if (m_reorderRate > 0 && m_reorderVariable->GetValue() < m_reorderRate)
    {
        NS_ABORT_MSG_IF(!m_device, "WanFaultErrorModel: SetDevice() was not called");
        ++m_reordered;
        m_reorderedTrace(p);
        Simulator::Schedule(m_reorderDelay, &WanFaultErrorModel::Redeliver, this, p->Copy());
        return true;
    }
    if (m_duplicateRate > 0 && m_duplicateVariable->GetValue() < m_duplicateRate)
    {
        NS_ABORT_MSG_IF(!m_device, "WanFaultErrorModel: SetDevice() was not called");
        ++m_duplicated;
        m_duplicatedTrace(p);
        Simulator::Schedule(m_duplicateDelay, &WanFaultErrorModel::Redeliver, this, p->Copy());
    }
    return false;
}

void
WanFaultErrorModel::Redeliver(Ptr<Packet> packet)
{
    if (!m_device)
    {
        return;
    }
    if (m_down)
    {
        ++m_linkDownDrops;
        m_linkDownDropTrace(packet);
        return;
    }
    m_redelivering = true;
    m_device->Receive(packet);
    m_redelivering = false;
}

void
WanFaultErrorModel::DoReset()
{
    NS_LOG_FUNCTION(this);
}

} // namespace ns3
