/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef EXPERIMENT_PLOTS_H
#define EXPERIMENT_PLOTS_H

#include "training-experiment.h"
#include "wan-topology.h"

#include "ns3/gnuplot.h"

#include <filesystem>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

/**
 * @ingroup wan-training
 * @brief The plots of a TrainingExperiment, each a gnuplot script (ns-3's Gnuplot) and, when
 * gnuplot is installed, its PNG (PlotRenderer): loss.png (loss of the average model per mode and
 * colocated), consensus.png, link-utilization.png (the links that bind some mode's schedule in
 * the prediction) and round-times.png (simulated against predicted round times).
 */
class ExperimentPlots
{
  public:
    /** (t, value) points in time order. */
    typedef std::vector<std::pair<double, double>> Curve;

    /**
     * @param topology the WAN
     */
    explicit ExperimentPlots(const WanTopology& topology);

    /**
     * @brief Write every plot into the run directory.
     * @param result the experiment's outcomes (some mode finished)
     * @param directory the run directory
     * @return the notes for the user (a PNG that could not be rendered), without repeats
     * @throws WanConfigError on "outDir" when a script cannot be written
     */
    std::set<std::string> Write(const TrainingExperiment::Result& result,
                                const std::filesystem::path& directory) const;

  private:
    /**
     * @param title the plot's title
     * @param xLegend the x axis' legend
     * @param yLegend the y axis' legend
     * @param extra gnuplot commands after the title and legends
     * @return an empty plot
     */
    static Gnuplot MakePlot(const std::string& title,
                            const std::string& xLegend,
                            const std::string& yLegend,
                            const std::string& extra);

    /**
     * @param title the curve's title
     * @param points (t, value) points
     * @return a line through the points with a positive value (a log scale shows no others)
     */
    static Gnuplot2dDataset LogScaleCurve(const std::string& title, const Curve& points);

    /**
     * @brief Write a plot's script and render its PNG.
     * @param plot the plot, datasets added
     * @param directory the run directory
     * @param stem file name without extension
     * @return a note for the user when no PNG was written (empty otherwise)
     */
    static std::string WritePlot(Gnuplot& plot,
                                 const std::filesystem::path& directory,
                                 const std::string& stem);

    /**
     * @param result the outcomes
     * @param curve the curve of each mode to draw
     * @param title the plot's title
     * @param yLegend the y axis' legend
     * @return the curve of every mode over simulated time, on a log scale
     */
    Gnuplot CurvePlot(const TrainingExperiment::Result& result,
                      Curve TrainingExperiment::ModeOutcome::*curve,
                      const std::string& title,
                      const std::string& yLegend) const;
    /**
     * @param result the outcomes
     * @return the utilization of the links that bind some mode's schedule in the prediction
     */
    Gnuplot UtilizationPlot(const TrainingExperiment::Result& result) const;
    /**
     * @param result the outcomes
     * @return the simulated against the predicted round times
     */
    Gnuplot RoundTimePlot(const TrainingExperiment::Result& result) const;

    const WanTopology& m_topology; //!< the WAN
};

} // namespace ns3

#endif /* EXPERIMENT_PLOTS_H */
