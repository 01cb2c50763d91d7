/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef WAN_INPUT_ERROR_H
#define WAN_INPUT_ERROR_H

#include <stdexcept>
#include <string>

namespace ns3
{

/**
 * @ingroup wan-training
 * @brief Error raised for malformed user input: a topology, a schedule, a command-line value.
 *
 * The message always has the form `FILE: PATH: REASON`, e.g.
 * `topologies/x.json: $.links[3].latency_ms: must be a positive finite number (got -1)`.
 * For command-line values the "file" is the program and the path is the option (`--modelBytes`).
 * Programs catch it at their edge, print the message and exit non-zero.
 */
class WanInputError : public std::runtime_error
{
  public:
    /**
     * @brief Build an error naming the file, the path inside it and the reason.
     * @param file the file (or source name) that was read
     * @param path the JSON path (`$.links[3].latency_ms`, `$` for the document) or option name
     * @param reason what is wrong with it
     */
    WanInputError(const std::string& file, const std::string& path, const std::string& reason);

    /** @return the file (or source name) that was read */
    const std::string& GetFile() const;
    /** @return the path of the offending value */
    const std::string& GetPath() const;
    /** @return the reason, without file and path */
    const std::string& GetReason() const;

  private:
    std::string m_file;   //!< file or source name
    std::string m_path;   //!< JSON path or option
    std::string m_reason; //!< reason
};

} // namespace ns3

#endif /* WAN_INPUT_ERROR_H */
