/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef PARITY_BLOCKS_H
#define PARITY_BLOCKS_H

#include "chunk-range-set.h"

#include <cstdint>
#include <map>
#include <optional>
#include <vector>

namespace ns3
{

/**
 * @ingroup wan-training
 * @brief Forward error correction of one stream (TrainingIslandApplication's FecBlock): the
 * stream's chunks in blocks of n, and per block the XOR of the encoded value areas of the chunks
 * added so far (each zero-extended to the longest).
 *
 * The sender adds every chunk it sends for the first time; once a block holds all its chunks,
 * Take gives the block's parity (the bytes of an IslandSyncHeader::PARITY) and forgets it. The
 * receiver adds every chunk it holds for the first time and the block's parity when it arrives
 * (SetParity); once a block has its parity and all but one chunk, Recover gives the missing
 * chunk's encoded area: the parity XOR the others. A block is *finished* once complete, taken or
 * recovered: its bytes are forgotten, and later chunks or parities of it are ignored (a rebuilt
 * chunk taken as an arrival, its repair, a parity after every chunk). Memory: one chunk's bytes
 * per block in flight, and the finished blocks as index intervals.
 */
class ParityBlocks
{
  public:
    /**
     * @param first the stream's first chunk
     * @param end one past its last chunk
     * @param blockChunks n, the chunks per block (at least 1); blocks start at first
     */
    ParityBlocks(uint32_t first, uint32_t end, uint32_t blockChunks);

    /**
     * @param chunk a chunk of the stream
     * @return the first chunk of its block
     */
    uint32_t GetBlock(uint32_t chunk) const;
    /**
     * @param block the first chunk of a block
     * @return its number of chunks (n, or fewer for the stream's last block)
     */
    uint32_t GetBlockChunks(uint32_t block) const;

    /**
     * @brief Add a chunk's encoded value area to its block (once per chunk; nothing when the
     * block is finished).
     * @param chunk the chunk
     * @param bytes its encoded value area
     * @return whether its block now holds every chunk
     */
    bool Add(uint32_t chunk, const std::vector<uint8_t>& bytes);
    /**
     * @brief Sender: the parity of a block that holds every chunk; the block is forgotten.
     * @param block the first chunk of the block
     * @return the XOR of its chunks' encoded areas
     */
    std::vector<uint8_t> Take(uint32_t block);

    /**
     * @brief Receiver: a block's parity arrived (ignored when the block is finished).
     * @param block the first chunk of the block
     * @param parity its bytes
     */
    void SetParity(uint32_t block, std::vector<uint8_t> parity);
    /**
     * @brief Receiver: what a block lacks when its parity can rebuild it.
     * @param block the first chunk of the block
     * @return whether the block has its parity and all but one chunk
     */
    bool CanRecover(uint32_t block) const;
    /**
     * @brief Receiver: rebuild a block's missing chunk (CanRecover) and forget the block.
     * @param block the first chunk of the block
     * @param bytes the missing chunk's encoded size
     * @return its encoded value area
     */
    std::vector<uint8_t> Recover(uint32_t block, uint32_t bytes);
    /**
     * @brief Finish a block (complete at the receiver: its parity is not needed).
     * @param block the first chunk of the block
     */
    void Forget(uint32_t block);

    /**
     * @param block the first chunk of a block
     * @return whether it is finished
     */
    bool IsFinished(uint32_t block) const;
    /** @return the blocks in flight (not finished, something added) */
    std::size_t GetOpenBlocks() const;

  private:
    /** One block in flight. */
    struct Block
    {
        std::vector<uint8_t> sum;                   //!< XOR of the chunks added
        uint32_t added{0};                          //!< chunks added
        std::optional<std::vector<uint8_t>> parity; //!< receiver: the parity, once arrived
    };

    uint32_t m_first;                 //!< the stream's first chunk
    uint32_t m_end;                   //!< one past its last chunk
    uint32_t m_blockChunks;           //!< n
    std::map<uint32_t, Block> m_open; //!< blocks in flight, by first chunk
    ChunkRangeSet m_finished;         //!< first chunks of the finished blocks
};

} // namespace ns3

#endif /* PARITY_BLOCKS_H */
