/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "plot-renderer.h"

#include "ns3/log.h"

#include <cstdlib>
#include <spawn.h>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

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
    std::string program = "gnuplot";
    std::string argument = script;
    char* argv[] = {program.data(), argument.data(), nullptr};
    pid_t pid = 0;
    if (posix_spawnp(&pid, "gnuplot", nullptr, nullptr, argv, environ) != 0)
    {
        return "cannot start gnuplot for " + script;
    }
    int status = 0;
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
    {
        return "gnuplot did not finish on " + script;
    }
    if (WEXITSTATUS(status) != 0)
    {
        return "gnuplot failed on " + script + " (exit " + std::to_string(WEXITSTATUS(status)) +
               ")";
    }
    return "";
}

} // namespace ns3
