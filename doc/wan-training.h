/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

/**
 * @defgroup wan-training WAN training
 *
 * Compute islands in different cities training one model together over a WAN whose routers can
 * replicate (PIM-style multicast) and sum (in-line FPGA) their traffic, following a schedule of
 * rotating cliques chosen by an analytic optimizer. See doc/wan-training.rst for the manual and
 * doc/schedule-model.rst for the analytic schedule model.
 */

/**
 * @defgroup wan-training-tests WAN training tests
 * @ingroup wan-training
 *
 * ns-3 TestSuites (test-runner) and GoogleTest cases of the wan-training module.
 */
