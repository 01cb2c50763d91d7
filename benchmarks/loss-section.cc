/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "loss-section.h"

#include "bench-values.h"

#include "ns3/log.h"

#include <cmath>
#include <iomanip>
#include <limits>
#include <sstream>

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("WanTrainingLossSection");

namespace
{

using V = BenchValues;

/**
 * @param lossRate a loss rate
 * @return it in percent ("0 %", "0.1 %", "1 %")
 */
std::string
PercentText(double lossRate)
{
    std::ostringstream out;
    out << lossRate * 100 << " %";
    return out.str();
}

} // namespace

LossSection::LossSection(const Settings& settings)
    : m_settings(settings)
{
}

const std::vector<double>&
LossSection::GetLossRates()
{
    static const std::vector<double> rates{0, 0.001, 0.01};
    return rates;
}

const std::vector<LossSection::Limit>&
LossSection::GetLimits()
{
    static const std::vector<Limit> limits{
        {0.001, "0.1%", 1.1, 1, 1.5, "1.1 x lossless + max RTT", "1.5 x lossless"},
        {0.01, "1%", 1.2, 2, 2, "1.2 x lossless + 2 x max RTT", "2 x lossless"},
    };
    return limits;
}

uint32_t
LossSection::GetRounds()
{
    return 3;
}

double
LossSection::GetLimitS(CapabilityMode mode,
                       const Limit& limit,
                       double losslessCommS,
                       double maxRttS)
{
    if (mode == CapabilityMode::RING)
    {
        return limit.ringFactor * losslessCommS;
    }
    return limit.factor * losslessCommS + limit.rttMultiple * maxRttS;
}

uint32_t
LossSection::GetCaseCount() const
{
    return static_cast<uint32_t>(m_settings.modes.size() * GetLossRates().size());
}

void
LossSection::Run(const CaseRunner& runCase)
{
    m_cases = nlohmann::json::array();
    for (CapabilityMode mode : m_settings.modes)
    {
        for (double lossRate : GetLossRates())
        {
            BenchCase::Arguments arguments;
            arguments.kind = "loss";
            arguments.topologyFile = m_settings.topologyFile;
            arguments.mode = mode;
            arguments.modelBytes = m_settings.modelBytes;
            arguments.rounds = GetRounds();
            arguments.lossRate = lossRate;
            nlohmann::json result =
                runCase(arguments,
                        "loss " + CapabilityModeToString(mode) + " " +
                            V::BytesText(static_cast<double>(m_settings.modelBytes)) + " " +
                            PercentText(lossRate));
            // A failure record has none of these: the table and the targets find it by them.
            result["kind"] = "loss";
            result["mode"] = CapabilityModeToString(mode);
            result["model_bytes"] = m_settings.modelBytes;
            result["loss_rate"] = lossRate;
            result["rounds"] = GetRounds();
            m_cases.push_back(result);
        }
    }
}

const nlohmann::json*
LossSection::Find(CapabilityMode mode, double lossRate) const
{
    for (const nlohmann::json& row : m_cases)
    {
        if (row.at("mode") == CapabilityModeToString(mode) &&
            row.at("loss_rate").get<double>() == lossRate)
        {
            return &row;
        }
    }
    return nullptr;
}

void
LossSection::Print(std::ostream& out) const
{
    if (m_cases.empty())
    {
        return;
    }
    auto cell = [&out](const std::string& text, int width) {
        out << std::right << std::setw(width) << text;
    };
    out << "\nLoss: nine-city, Latin triples, " << GetRounds() << " rounds, ModelBytes "
        << V::BytesText(static_cast<double>(m_settings.modelBytes))
        << ", random loss on every WAN link. comm s: the mean over the rounds of each round's\n"
           "simulated communication time; limit: the target's; max RTT: the largest round trip "
           "between two members of one clique; repairs: repair packets (RepairCopies per chunk "
           "sent again), per loss rate\n";
    cell("mode", 12);
    cell("lossless s", 11);
    for (const Limit& limit : GetLimits())
    {
        cell(PercentText(limit.lossRate) + " s", 11);
        cell("x lossless", 11);
        cell("limit s", 9);
        cell("met", 8);
    }
    cell("max RTT s", 10);
    out << "  repairs (";
    for (std::size_t k = 0; k < GetLossRates().size(); ++k)
    {
        out << (k > 0 ? " / " : "") << PercentText(GetLossRates()[k]);
    }
    out << ")\n";
    for (CapabilityMode mode : m_settings.modes)
    {
        const nlohmann::json* lossless = Find(mode, 0);
        if (lossless == nullptr)
        {
            continue;
        }
        const double losslessCommS = V::Passed(*lossless)
                                         ? V::Number(*lossless, "comm_s")
                                         : std::numeric_limits<double>::quiet_NaN();
        const double maxRttS = V::Number(*lossless, "max_rtt_s");
        cell(CapabilityModeToString(mode), 12);
        cell(V::Fixed(losslessCommS, 4), 11);
        for (const Limit& limit : GetLimits())
        {
            const nlohmann::json* row = Find(mode, limit.lossRate);
            const double commS = row != nullptr && V::Passed(*row)
                                     ? V::Number(*row, "comm_s")
                                     : std::numeric_limits<double>::quiet_NaN();
            const double limitS = GetLimitS(mode, limit, losslessCommS, maxRttS);
            cell(V::Fixed(commS, 4), 11);
            cell(V::Fixed(commS / losslessCommS, 3), 11);
            cell(V::Fixed(limitS, 4), 9);
            cell(std::isfinite(commS) && commS <= limitS ? "met" : "NOT met", 8);
        }
        cell(V::Fixed(maxRttS, 4), 10);
        out << "  ";
        for (std::size_t k = 0; k < GetLossRates().size(); ++k)
        {
            const nlohmann::json* row = Find(mode, GetLossRates()[k]);
            out << (k > 0 ? " / " : "")
                << (row != nullptr ? V::Fixed(V::Number(*row, "repairs"), 0) : "-");
        }
        out << "\n";
    }
}

nlohmann::json
LossSection::ToJson() const
{
    return {
        {"topology_file", m_settings.topologyFile},
        {"schedule", "Latin triples (CliqueSchedule::LatinTriples)"},
        {"model_bytes", m_settings.modelBytes},
        {"rounds", GetRounds()},
        {"loss_rates", GetLossRates()},
        {"cases", m_cases},
    };
}

} // namespace ns3
