/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "parity-blocks.h"

#include "ns3/abort.h"

#include <algorithm>

namespace ns3
{

namespace
{

/**
 * @brief XOR bytes into a sum, extending the sum with zeros to their length.
 * @param sum the sum
 * @param bytes the bytes
 */
void
XorInto(std::vector<uint8_t>& sum, const std::vector<uint8_t>& bytes)
{
    if (sum.size() < bytes.size())
    {
        sum.resize(bytes.size(), 0);
    }
    for (std::size_t k = 0; k < bytes.size(); ++k)
    {
        sum[k] ^= bytes[k];
    }
}

} // namespace

ParityBlocks::ParityBlocks(uint32_t first, uint32_t end, uint32_t blockChunks)
    : m_first(first),
      m_end(end),
      m_blockChunks(blockChunks)
{
    NS_ABORT_MSG_IF(blockChunks == 0 || first >= end,
                    "ParityBlocks: a block holds at least one chunk of a non-empty stream");
}

uint32_t
ParityBlocks::GetBlock(uint32_t chunk) const
{
    return m_first + (chunk - m_first) / m_blockChunks * m_blockChunks;
}

uint32_t
ParityBlocks::GetBlockChunks(uint32_t block) const
{
    return std::min(m_blockChunks, m_end - block);
}

bool
ParityBlocks::Add(uint32_t chunk, const std::vector<uint8_t>& bytes)
{
    const uint32_t block = GetBlock(chunk);
    if (IsFinished(block))
    {
        return false;
    }
    Block& open = m_open[block];
    XorInto(open.sum, bytes);
    ++open.added;
    return open.added == GetBlockChunks(block);
}

std::vector<uint8_t>
ParityBlocks::Take(uint32_t block)
{
    auto it = m_open.find(block);
    NS_ABORT_MSG_IF(it == m_open.end() || it->second.added != GetBlockChunks(block),
                    "ParityBlocks::Take(): block " << block << " is not complete");
    std::vector<uint8_t> parity = std::move(it->second.sum);
    m_open.erase(it);
    m_finished.Insert(block);
    return parity;
}

void
ParityBlocks::SetParity(uint32_t block, std::vector<uint8_t> parity)
{
    if (!IsFinished(block))
    {
        m_open[block].parity = std::move(parity);
    }
}

bool
ParityBlocks::CanRecover(uint32_t block) const
{
    auto it = m_open.find(block);
    return it != m_open.end() && it->second.parity && it->second.added + 1 == GetBlockChunks(block);
}

std::vector<uint8_t>
ParityBlocks::Recover(uint32_t block, uint32_t bytes)
{
    NS_ABORT_MSG_UNLESS(CanRecover(block),
                        "ParityBlocks::Recover(): block " << block << " cannot be rebuilt");
    auto it = m_open.find(block);
    std::vector<uint8_t> missing = std::move(*it->second.parity);
    XorInto(missing, it->second.sum);
    m_open.erase(it);
    m_finished.Insert(block);
    missing.resize(bytes, 0);
    return missing;
}

void
ParityBlocks::Forget(uint32_t block)
{
    m_open.erase(block);
    m_finished.Insert(block);
}

bool
ParityBlocks::IsFinished(uint32_t block) const
{
    return m_finished.Contains(block);
}

std::size_t
ParityBlocks::GetOpenBlocks() const
{
    return m_open.size();
}

} // namespace ns3
