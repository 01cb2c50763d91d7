/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "send-stream.h"

#include "ns3/simulator.h"

namespace ns3
{

SendStream::SendStream()
{
}

SendStream::~SendStream()
{
    m_probeEvent.Cancel();
}

void
SendStream::SetProbeCallback(Callback<void> probe)
{
    m_probe = probe;
}

void
SendStream::ScheduleProbe(Time delay)
{
    m_probeEvent.Cancel();
    m_probeEvent = Simulator::Schedule(delay, &SendStream::FireProbe, this);
}

bool
SendStream::CountProbe(uint32_t maxAttempts)
{
    return ++m_attempts > maxAttempts;
}

void
SendStream::Close()
{
    m_done = true;
    Cancel();
    m_pending.Clear();
}

void
SendStream::Cancel()
{
    m_pacer.Stop();
    m_probeEvent.Cancel();
}

StreamPacer&
SendStream::GetPacer()
{
    return m_pacer;
}

const StreamPacer&
SendStream::GetPacer() const
{
    return m_pacer;
}

void
SendStream::FireProbe()
{
    // The owner may destroy this stream in the callback: call a copy.
    Callback<void> probe = m_probe;
    probe();
}

} // namespace ns3
