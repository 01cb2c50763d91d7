/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef WAN_CONFIG_ERROR_H
#define WAN_CONFIG_ERROR_H

#include <stdexcept>
#include <string>

namespace ns3
{

/**
 * @ingroup wan-training
 * @brief Error raised by the library for a configuration value it cannot use: the field of
 * the configuration (e.g. `modelBytes` of TrainingRun::Config) and the reason.
 *
 * The library knows no program and no command line: a program that set the field from an option
 * catches the error at its edge and names the option (`wan-training-simulate: --modelBytes:
 * REASON`). what() is `FIELD: REASON`.
 */
class WanConfigError : public std::invalid_argument
{
  public:
    /**
     * @brief Build an error naming the configuration field and the reason.
     * @param field the configuration field (its name in the configuration structure)
     * @param reason what is wrong with its value
     */
    WanConfigError(const std::string& field, const std::string& reason);

    /** @return the configuration field */
    const std::string& GetField() const;
    /** @return the reason, without the field */
    const std::string& GetReason() const;

  private:
    std::string m_field;  //!< configuration field
    std::string m_reason; //!< reason
};

} // namespace ns3

#endif /* WAN_CONFIG_ERROR_H */
