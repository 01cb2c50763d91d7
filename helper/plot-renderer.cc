/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "plot-renderer.h"

#include "child-process-pool.h"

#include "ns3/log.h"

#include <cstdlib>
#include <sstream>
#include <unistd.h>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("WanTrainingPlotRenderer");

bool
PlotRenderer::IsAvailable()
{
    const char* path = std::getenv("PATH");
    if (path == nullptr)
    {
        return false;
    }
    std::stringstream dirs(path);
    std::string dir;
    while (std::getline(dirs, dir, ':'))
    {
        std::string candidate = (dir.empty() ? std::string(".") : dir) + "/gnuplot";
        if (access(candidate.c_str(), X_OK) == 0)
        {
            return true;
        }
    }
    return false;
}

std::string
PlotRenderer::Render(const std::string& script)
{
    NS_LOG_FUNCTION(script);
    if (!IsAvailable())
    {
        return "gnuplot is not installed (Debian package gnuplot-nox): render " + script +
               " with `gnuplot " + script + "` once it is";
    }
    ChildProcessPool::Job job;
    job.name = script;
    job.command = {"gnuplot", script};
    const ChildProcessPool::Result result = ChildProcessPool(1).Run({job}).front();
    if (!result.started)
    {
        return "cannot start gnuplot for " + script;
    }
    if (!result.exited)
    {
        return "gnuplot did not finish on " + script;
    }
    if (result.exitStatus != 0)
    {
        return "gnuplot failed on " + script + " (exit " + std::to_string(result.exitStatus) + ")";
    }
    return "";
}

} // namespace ns3
