/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "wan-config-error.h"

namespace ns3
{

WanConfigError::WanConfigError(const std::string& field, const std::string& reason)
    : std::invalid_argument(field + ": " + reason),
      m_field(field),
      m_reason(reason)
{
}

const std::string&
WanConfigError::GetField() const
{
    return m_field;
}

const std::string&
WanConfigError::GetReason() const
{
    return m_reason;
}

} // namespace ns3
