/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "wan-input-error.h"

namespace ns3
{

WanInputError::WanInputError(const std::string& file,
                             const std::string& path,
                             const std::string& reason)
    : std::runtime_error(file + ": " + path + ": " + reason),
      m_file(file),
      m_path(path),
      m_reason(reason)
{
}

const std::string&
WanInputError::GetFile() const
{
    return m_file;
}

const std::string&
WanInputError::GetPath() const
{
    return m_path;
}

const std::string&
WanInputError::GetReason() const
{
    return m_reason;
}

} // namespace ns3
