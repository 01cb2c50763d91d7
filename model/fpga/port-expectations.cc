/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "port-expectations.h"

namespace ns3
{

void
PortExpectations::Set(uint16_t jobId, std::vector<RoundExpectations> rounds)
{
    m_expectations[jobId] = std::move(rounds);
}

void
PortExpectations::Clear(uint16_t jobId)
{
    m_expectations.erase(jobId);
    for (auto it = m_views.begin(); it != m_views.end();)
    {
        it = std::get<0>(it->first) == jobId ? m_views.erase(it) : std::next(it);
    }
}

const PortExpectations::Expectation*
PortExpectations::Find(uint16_t jobId, uint32_t round, uint16_t cliqueId) const
{
    auto job = m_expectations.find(jobId);
    if (job == m_expectations.end())
    {
        return nullptr;
    }
    const RoundExpectations& expectations = job->second[round % job->second.size()];
    auto clique = expectations.find(cliqueId);
    return clique == expectations.end() ? nullptr : &clique->second;
}

uint64_t
PortExpectations::GetView(uint16_t jobId, uint32_t round, uint16_t cliqueId) const
{
    auto view = m_views.find(StreamKey{jobId, round, cliqueId});
    return view == m_views.end() ? ~uint64_t{0} : view->second;
}

uint64_t
PortExpectations::GetExpected(uint16_t jobId, uint32_t round, uint16_t cliqueId) const
{
    const Expectation* expectation = Find(jobId, round, cliqueId);
    return expectation == nullptr ? 0 : expectation->contributors & GetView(jobId, round, cliqueId);
}

uint64_t
PortExpectations::NarrowView(uint16_t jobId, uint32_t round, uint16_t cliqueId, uint64_t members)
{
    auto [view, added] = m_views.try_emplace(StreamKey{jobId, round, cliqueId}, members);
    if (!added)
    {
        view->second &= members;
    }
    return view->second;
}

bool
PortExpectations::HasViews() const
{
    return !m_views.empty();
}

} // namespace ns3
