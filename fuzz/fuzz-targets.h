/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef FUZZ_TARGETS_H
#define FUZZ_TARGETS_H

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

/**
 * @file
 * @ingroup wan-training-tests
 * The entry points of the fuzz targets. Each libFuzzer binary (fuzz/CMakeLists.txt) calls one of
 * them from LLVMFuzzerTestOneInput; test/fuzz-regression-test.cc replays every corpus and
 * regression input through the same functions with the default compiler.
 *
 * An entry point returns normally for every input the code under test handles correctly,
 * including inputs it rejects with WanInputError or a zero Deserialize(). It throws
 * FuzzInvariantError when an accepted input breaks a documented property (a crash for
 * libFuzzer, a failed test for the replay); memory errors and undefined behaviour are left to
 * the sanitizers.
 */

namespace ns3
{

/**
 * @ingroup wan-training-tests
 * @brief A property of the code under test that a fuzz input broke.
 */
class FuzzInvariantError : public std::logic_error
{
  public:
    /**
     * @param what the broken property, with the values involved
     */
    explicit FuzzInvariantError(const std::string& what)
        : std::logic_error(what)
    {
    }
};

/**
 * @ingroup wan-training-tests
 * @brief Throw FuzzInvariantError with a message when a property does not hold.
 * @param holds whether the property holds
 * @param what the property and the values involved
 */
inline void
FuzzCheck(bool holds, const std::string& what)
{
    if (!holds)
    {
        throw FuzzInvariantError(what);
    }
}

/**
 * @ingroup wan-training-tests
 * @brief Parse the bytes as a topology (WanTopology::Parse, without and with optional links)
 * and check every accepted topology's numbering, routes and MTUs.
 * @param data the input bytes (JSON text)
 * @param size the number of bytes
 */
void FuzzTopology(const uint8_t* data, std::size_t size);

/**
 * @ingroup wan-training-tests
 * @brief Parse the bytes as a clique schedule (CliqueSchedule::Parse) against the nine-city
 * topology and check every accepted schedule: partitions, the island index and the JSON round
 * trip.
 * @param data the input bytes (JSON text)
 * @param size the number of bytes
 */
void FuzzSchedule(const uint8_t* data, std::size_t size);

/**
 * @ingroup wan-training-tests
 * @brief Deserialize the bytes as an IslandSyncHeader and check every accepted header: its size,
 * its field constraints and that serializing it again gives the same bytes; and that
 * IslandSyncHeader::ReadFromPacket and PeekTypeInPacket agree with Deserialize on the bytes
 * wrapped in an IPv4 UDP datagram (with and without PPP) and never read beyond the bytes taken
 * as a packet.
 * @param data the input bytes (a packet's payload)
 * @param size the number of bytes
 */
void FuzzIslandSyncHeader(const uint8_t* data, std::size_t size);

} // namespace ns3

#endif /* FUZZ_TARGETS_H */
