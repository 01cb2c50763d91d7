/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "contributor-sequence.h"

#include "ns3/log.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("WanTrainingContributorSequence");

uint32_t
ContributorSequence::Note(uint16_t job,
                          uint32_t round,
                          uint16_t clique,
                          uint16_t sender,
                          uint32_t index)
{
    auto [it, added] = m_next.try_emplace(SenderKey{job, round, clique, sender}, index + 1);
    if (added)
    {
        if (round >= 2)
        {
            m_next.erase(m_next.lower_bound(SenderKey{job, 0, 0, 0}),
                         m_next.lower_bound(SenderKey{job, round - 1, 0, 0}));
        }
        return index;
    }
    const uint32_t next = it->second;
    if (index < next)
    {
        return index; // a repair, or a duplicate
    }
    it->second = index + 1;
    if (next < index)
    {
        NS_LOG_LOGIC("job " << job << " round " << round << " clique " << clique << ": chunks "
                            << next << " to " << index - 1 << " of sender " << sender
                            << " are lost");
    }
    return next;
}

void
ContributorSequence::Forget(uint16_t job)
{
    for (auto it = m_next.lower_bound(SenderKey{job, 0, 0, 0});
         it != m_next.end() && std::get<0>(it->first) == job;)
    {
        it = m_next.erase(it);
    }
}

std::size_t
ContributorSequence::GetSize() const
{
    return m_next.size();
}

} // namespace ns3
