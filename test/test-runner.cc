/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "ns3/test.h"

/**
 * @file
 * @ingroup wan-training-tests
 * The module's ns-3 test runner: every TestSuite linked into this program, run with ns-3's
 * TestRunner (`--suite=NAME`, `--list`, `--verbose`, ...).
 */

int
main(int argc, char** argv)
{
    return ns3::TestRunner::Run(argc, argv);
}
