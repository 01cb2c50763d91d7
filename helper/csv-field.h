/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef CSV_FIELD_H
#define CSV_FIELD_H

#include <string>

namespace ns3
{

/**
 * @ingroup wan-training
 * @brief One field of the CSV files the experiments write (RFC 4180): as it is, or in double
 * quotes with its quotes doubled when it holds a comma or a quote (a capability set's name, a
 * schedule's origin such as "search, ring").
 * @param text the field
 * @return it as a CSV field
 */
std::string CsvField(const std::string& text);

} // namespace ns3

#endif /* CSV_FIELD_H */
