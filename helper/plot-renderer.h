/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef PLOT_RENDERER_H
#define PLOT_RENDERER_H

#include <string>

namespace ns3
{

/**
 * @ingroup wan-training
 * @brief Runs gnuplot (Debian package gnuplot-nox) on a script that a program wrote, e.g. with
 * ns-3's Gnuplot class, so every program renders its plots the same way.
 *
 * A missing gnuplot is not an error: the script stays next to the results and the caller tells
 * the user how to render it later.
 */
class PlotRenderer
{
  public:
    /** @return whether an executable `gnuplot` is on the PATH */
    static bool IsAvailable();

    /**
     * @brief Run `gnuplot SCRIPT` and wait for it.
     * @param script the gnuplot script (it sets its own terminal and output)
     * @return an empty string when gnuplot ran and exited 0; otherwise one line for the user:
     *         that gnuplot is not installed (the script is kept), or that it failed, with its
     *         exit status
     */
    static std::string Render(const std::string& script);
};

} // namespace ns3

#endif /* PLOT_RENDERER_H */
