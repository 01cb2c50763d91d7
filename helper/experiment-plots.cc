/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "experiment-plots.h"

#include "experiment-report.h"
#include "plot-renderer.h"
#include "wan-config-error.h"

#include "ns3/log.h"

#include <algorithm>
#include <fstream>
#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("WanTrainingExperimentPlots");

ExperimentPlots::ExperimentPlots(const WanTopology& topology)
    : m_topology(topology)
{
}

Gnuplot
ExperimentPlots::MakePlot(const std::string& title,
                          const std::string& xLegend,
                          const std::string& yLegend,
                          const std::string& extra)
{
    Gnuplot plot;
    plot.SetTitle(title);
    plot.SetLegend(xLegend, yLegend);
    plot.AppendExtra(extra);
    return plot;
}

Gnuplot2dDataset
ExperimentPlots::LogScaleCurve(const std::string& title, const Curve& points)
{
    Gnuplot2dDataset curve(title);
    curve.SetStyle(Gnuplot2dDataset::LINES);
    for (const auto& [t, value] : points)
    {
        if (value > 0)
        {
            curve.Add(t, value);
        }
    }
    return curve;
}

std::string
ExperimentPlots::WritePlot(Gnuplot& plot,
                           const std::filesystem::path& directory,
                           const std::string& stem)
{
    const std::string png = (directory / (stem + ".png")).string();
    const std::string script = (directory / (stem + ".plt")).string();
    plot.SetTerminal("pngcairo noenhanced size 960,600 font ',10'");
    plot.SetOutputFilename(png);
    std::ofstream out(script);
    if (!out)
    {
        throw WanConfigError("outDir", "cannot write '" + script + "'");
    }
    plot.GenerateOutput(out);
    out.close();
    if (!out)
    {
        throw WanConfigError("outDir", "cannot write '" + script + "'");
    }
    return PlotRenderer::Render(script);
}

Gnuplot
ExperimentPlots::CurvePlot(const TrainingExperiment::Result& result,
                           Curve TrainingExperiment::ModeOutcome::*curve,
                           const std::string& title,
                           const std::string& yLegend) const
{
    Gnuplot plot = MakePlot(title,
                            "simulated time (s)",
                            yLegend,
                            "set logscale y\nset key top right\nset grid");
    for (const auto& o : result.modes)
    {
        plot.AddDataset(LogScaleCurve(o.GetName(), o.*curve));
    }
    return plot;
}

Gnuplot
ExperimentPlots::UtilizationPlot(const TrainingExperiment::Result& result) const
{
    // The links that bind in the prediction for some mode's schedule, utilization = bits sent
    // over capacity x the mode's training time.
    std::set<uint32_t> binding;
    for (const auto& o : result.modes)
    {
        for (const auto& round : o.evaluation.rounds)
        {
            if (round.commS > 0)
            {
                binding.insert(round.bottleneckLink);
            }
        }
    }
    std::ostringstream extra;
    extra << "set grid ytics\nset key top right\nset yrange [0:*]\nset xtics rotate by -30 (";
    uint32_t column = 0;
    for (uint32_t d : binding)
    {
        extra << (column ? ", " : "") << "'" << m_topology.GetDirectedLinkName(d) << "' " << column;
        ++column;
    }
    extra << ")\nset xrange [-0.6:" << binding.size() - 0.4 << "]";
    Gnuplot plot = MakePlot("Utilization of the bottleneck links over the training time",
                            "",
                            "utilization (bits sent / capacity x training time)",
                            extra.str());
    const double width = 0.8 / result.modes.size();
    for (size_t m = 0; m < result.modes.size(); ++m)
    {
        const auto& o = result.modes[m];
        if (o.linkBytes.empty())
        {
            continue;
        }
        Gnuplot2dDataset data(o.GetName());
        data.SetStyle(Gnuplot2dDataset::IMPULSES);
        data.SetExtra("lw 10");
        uint32_t c = 0;
        for (uint32_t d : binding)
        {
            double capacityBits = m_topology.GetDirectedLinkCapacityGbps(d) * 1e9;
            double utilization =
                o.trainingTimeS > 0 ? 8 * o.linkBytes[d] / (capacityBits * o.trainingTimeS) : 0;
            data.Add(c - 0.4 + width * (m + 0.5), utilization);
            ++c;
        }
        plot.AddDataset(data);
    }
    return plot;
}

Gnuplot
ExperimentPlots::RoundTimePlot(const TrainingExperiment::Result& result) const
{
    Gnuplot plot =
        MakePlot("Round times: simulated vs the schedule model's prediction (tau_c + T_comm)",
                 "predicted round time (s)",
                 "simulated round time (s)",
                 "set key top left\nset grid");
    double largest = 0;
    for (const auto& o : result.modes)
    {
        Gnuplot2dDataset data(o.GetName());
        data.SetStyle(Gnuplot2dDataset::POINTS);
        for (size_t r = 0; r < o.predictedCommS.size(); ++r)
        {
            if (o.simulatedRoundS[r] >= 0)
            {
                data.Add(o.predictedRoundS[r], o.simulatedRoundS[r]);
                largest = std::max({largest, o.predictedRoundS[r], o.simulatedRoundS[r]});
            }
        }
        plot.AddDataset(data);
    }
    plot.AppendExtra("set xrange [0:" + ExperimentReport::Format(largest * 1.1) +
                     "]\nset yrange [0:" + ExperimentReport::Format(largest * 1.1) + "]");
    Gnuplot2dFunction same("simulated = predicted", "x");
    Gnuplot2dFunction above("+10%", "1.1*x");
    Gnuplot2dFunction below("-10%", "0.9*x");
    above.SetExtra("dt 3 lc rgb 'gray'");
    below.SetExtra("dt 3 lc rgb 'gray'");
    plot.AddDataset(same);
    plot.AddDataset(above);
    plot.AddDataset(below);
    return plot;
}

std::set<std::string>
ExperimentPlots::Write(const TrainingExperiment::Result& result,
                       const std::filesystem::path& directory) const
{
    std::set<std::string> notes;
    Gnuplot loss =
        CurvePlot(result,
                  &TrainingExperiment::ModeOutcome::loss,
                  "Loss of the average model vs simulated time (" + m_topology.GetName() + ")",
                  "F(average model) - F*");
    Gnuplot2dDataset reference = LogScaleCurve("colocated", result.colocated);
    reference.SetStyle(Gnuplot2dDataset::LINES_POINTS);
    reference.SetExtra("lw 2 dt 2 lc rgb 'black'");
    loss.AddDataset(reference);
    notes.insert(WritePlot(loss, directory, "loss"));
    Gnuplot consensus = CurvePlot(result,
                                  &TrainingExperiment::ModeOutcome::consensus,
                                  "Consensus distance vs simulated time (colocated: 0)",
                                  "mean squared distance to the average model");
    notes.insert(WritePlot(consensus, directory, "consensus"));
    Gnuplot utilization = UtilizationPlot(result);
    notes.insert(WritePlot(utilization, directory, "link-utilization"));
    Gnuplot rounds = RoundTimePlot(result);
    notes.insert(WritePlot(rounds, directory, "round-times"));
    notes.erase("");
    return notes;
}

} // namespace ns3
