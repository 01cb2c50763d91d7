/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "group-copy-discard-queue.h"

namespace ns3
{

// No log component of its own: inside a Queue subclass NS_LOG_* name the template's g_log
// (ns-3's queues log their work under DropTailQueue and Queue).

NS_OBJECT_ENSURE_REGISTERED(GroupCopyDiscardQueue);

TypeId
GroupCopyDiscardQueue::GetTypeId()
{
    static TypeId tid = TypeId("ns3::GroupCopyDiscardQueue")
                            .SetParent<DropTailQueue<Packet>>()
                            .SetGroupName("WanTraining")
                            .AddConstructor<GroupCopyDiscardQueue>();
    return tid;
}

GroupCopyDiscardQueue::GroupCopyDiscardQueue() = default;

GroupCopyDiscardQueue::~GroupCopyDiscardQueue() = default;

bool
GroupCopyDiscardQueue::Enqueue(Ptr<Packet> item)
{
    const uint32_t first = PPP_HEADER_BYTES + IPV4_DESTINATION_OFFSET;
    uint8_t bytes[PPP_HEADER_BYTES + IPV4_DESTINATION_OFFSET + 1];
    // 224.0.0.0/4: the first byte of the destination is 1110xxxx.
    if (item->CopyData(bytes, first + 1) == first + 1 && (bytes[first] & 0xF0) == 0xE0)
    {
        ++m_discarded;
        return false;
    }
    return DropTailQueue<Packet>::Enqueue(item);
}

uint64_t
GroupCopyDiscardQueue::GetDiscardedPackets() const
{
    return m_discarded;
}

} // namespace ns3
