/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

/*
 * Island-to-island round-trip times over a WAN topology, against the closed-form value.
 *
 * The default topology (topologies/doublezero-nine-city.json); every router X also has an island
 * node X-island behind an access link (the city's access capacity and latency):
 *
 *         chi                        ams
 *        /   \                      /   \
 *     nyc ---- lax ---- tyo      lon ---- fra ---- prg
 *      |                 |       / |
 *      |                sin ----'  |
 *      '---------------------------'
 *
 * Point-to-point WAN links carry the JSON's capacity, one-way latency and MTU; unicast forwarding
 * is static, along WanTopology's routes (shortest latency, ties broken as doc/schedule-model.rst
 * says).
 *
 * For every ordered pair of islands (i, j) one UDP echo probe of --probeBytes payload bytes goes
 * i -> j along route(i, j) and comes back along route(j, i), alone in its own time slot. Its
 * RTT must equal, within 1 microsecond,
 *
 *   sum over the directed links d of route(i, j) and route(j, i) of
 *       latency(d) + (probeBytes + 8 UDP + 20 IPv4 + 2 PPP) x 8 / capacity(d)
 *
 * where the links of a route are access up, the WAN hops and access down.
 *
 * Usage: wan-rtt --topology=FILE [--out=FILE.json] [--probeBytes=N] [--optionalLinks=1]
 * Exit status: 0 when every pair matches, 1 on an input error, 2 when a probe is lost or off.
 */

#include "command-line-values.h"
#include "wan-input-error.h"
#include "wan-rtt-probe-helper.h"
#include "wan-topology-helper.h"
#include "wan-topology.h"

#include "ns3/command-line.h"
#include "ns3/log.h"
#include "ns3/nstime.h"
#include "ns3/simulator.h"

#include <cmath>
#include <fstream>
#include <iomanip>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

using namespace ns3;

NS_LOG_COMPONENT_DEFINE("WanTrainingWanRtt");

namespace
{

/** The program name used in error messages. */
const char* const PROGRAM = "wan-rtt";
/** The largest RTT error accepted, in microseconds. */
const double MAX_ERROR_US = 1.0;

/**
 * @brief The closed-form RTT of a probe: latency plus serialization on every hop both ways.
 * @param topology the topology
 * @param src source city index
 * @param dst destination city index
 * @param wireBytes the probe's size on a point-to-point hop (payload + UDP + IPv4 + PPP)
 * @return the expected RTT in ms
 */
double
ExpectedRttMs(const WanTopology& topology, uint32_t src, uint32_t dst, uint32_t wireBytes)
{
    double rttMs = 0;
    for (const WanRoute* route : {&topology.GetRoute(src, dst), &topology.GetRoute(dst, src)})
    {
        for (uint32_t d : route->links)
        {
            rttMs += topology.GetDirectedLinkLatencyMs(d) +
                     8.0 * wireBytes / (topology.GetDirectedLinkCapacityGbps(d) * 1e6);
        }
    }
    return rttMs;
}

/**
 * @param topology the topology
 * @param route a route
 * @return the ids of the route's cities, in order
 */
std::vector<std::string>
RouteIds(const WanTopology& topology, const WanRoute& route)
{
    std::vector<std::string> ids;
    for (uint32_t c : route.cities)
    {
        ids.push_back(topology.GetCity(c).id);
    }
    return ids;
}

/**
 * @param ids city ids
 * @return the ids joined with spaces
 */
std::string
Join(const std::vector<std::string>& ids)
{
    std::string text;
    for (const std::string& id : ids)
    {
        text += (text.empty() ? "" : " ") + id;
    }
    return text;
}

/**
 * @brief The program proper.
 * @param argc argument count
 * @param argv arguments
 * @return the exit status
 * @throws WanInputError for a bad topology or command-line value
 */
int
Run(int argc, char** argv)
{
    std::string topologyFile;
    std::string outFile;
    std::string probeBytesText = "64";
    bool optionalLinks = false;

    CommandLine cmd(__FILE__);
    cmd.Usage("Measure the RTT between every ordered pair of islands with one UDP echo probe "
              "each and compare it with latency + serialization along the topology's routes.\n"
              "Exit status: 0 all pairs within 1 us, 1 input error, 2 a probe lost or off.");
    cmd.AddValue("topology", "topology JSON file (required)", topologyFile);
    cmd.AddValue("out", "write the result JSON to this file (none if empty)", outFile);
    cmd.AddValue("probeBytes", "UDP payload bytes of a probe", probeBytesText);
    cmd.AddValue("optionalLinks", "include the topology's optional_links", optionalLinks);
    CommandLineValues::SetSchedulerDefault();
    cmd.Parse(argc, argv);

    if (topologyFile.empty())
    {
        throw WanInputError(PROGRAM, "--topology", "is required (a topology JSON file)");
    }
    WanTopology topology = WanTopology::LoadFile(topologyFile, optionalLinks);
    WanTopologyHelper scenario(topology);
    WanRttProbeHelper prober(scenario);
    uint32_t probeBytes =
        static_cast<uint32_t>(CommandLineValues::ParseUnsigned(PROGRAM,
                                                               "--probeBytes",
                                                               probeBytesText,
                                                               1,
                                                               prober.GetMaxProbeBytes()));
    uint32_t wireBytes = probeBytes + WanRttProbeHelper::HEADER_BYTES;

    std::ofstream out;
    if (!outFile.empty())
    {
        CommandLineValues::OpenOutput(PROGRAM, "--out", outFile, out);
    }

    scenario.Install();
    prober.SetProbeBytes(probeBytes);
    prober.Install(Seconds(1));
    Simulator::Stop(prober.GetStopTime());
    Simulator::Run();

    const uint32_t n = topology.GetNCities();
    std::cout << "wan-rtt: topology '" << topology.GetName() << "' (" << n << " cities, "
              << topology.GetNLinks() << " WAN links), probe " << probeBytes << " payload bytes ("
              << wireBytes << " on the wire), slot " << prober.GetSlot().GetMilliSeconds()
              << " ms\n\n";

    std::cout << "Measured RTT in ms (row: source island, column: destination island)\n"
              << std::setw(8) << "";
    for (uint32_t j = 0; j < n; ++j)
    {
        std::cout << std::setw(10) << topology.GetCity(j).id;
    }
    std::cout << "\n";
    for (uint32_t i = 0; i < n; ++i)
    {
        std::cout << std::setw(8) << topology.GetCity(i).id;
        for (uint32_t j = 0; j < n; ++j)
        {
            std::cout << std::setw(10);
            if (i == j)
            {
                std::cout << "-";
            }
            else if (prober.HasRtt(i, j))
            {
                std::cout << std::fixed << std::setprecision(3)
                          << prober.GetRtt(i, j).GetSeconds() * 1e3;
            }
            else
            {
                std::cout << "lost";
            }
        }
        std::cout << "\n";
    }

    std::cout << "\n"
              << std::left << std::setw(14) << "pair" << std::right << std::setw(14) << "rtt_ms"
              << std::setw(14) << "expected_ms" << std::setw(11) << "diff_us"
              << "  route there | route back\n";
    nlohmann::ordered_json pairs = nlohmann::ordered_json::array();
    double maxErrorUs = 0;
    uint32_t failures = 0;
    for (uint32_t i = 0; i < n; ++i)
    {
        for (uint32_t j = 0; j < n; ++j)
        {
            if (i == j)
            {
                continue;
            }
            std::string pair = topology.GetCity(i).id + "->" + topology.GetCity(j).id;
            double expectedMs = ExpectedRttMs(topology, i, j, wireBytes);
            std::vector<std::string> there = RouteIds(topology, topology.GetRoute(i, j));
            std::vector<std::string> back = RouteIds(topology, topology.GetRoute(j, i));
            nlohmann::ordered_json entry = {{"src", topology.GetCity(i).id},
                                            {"dst", topology.GetCity(j).id},
                                            {"expected_ms", expectedMs},
                                            {"route_there", there},
                                            {"route_back", back}};
            std::cout << std::left << std::setw(14) << pair << std::right << std::fixed;
            if (prober.HasRtt(i, j))
            {
                double rttMs = prober.GetRtt(i, j).GetSeconds() * 1e3;
                double errorUs = (rttMs - expectedMs) * 1e3;
                maxErrorUs = std::max(maxErrorUs, std::abs(errorUs));
                failures += std::abs(errorUs) > MAX_ERROR_US ? 1 : 0;
                entry["rtt_ms"] = rttMs;
                std::cout << std::setprecision(6) << std::setw(14) << rttMs << std::setw(14)
                          << expectedMs << std::setprecision(3) << std::setw(11) << errorUs;
            }
            else
            {
                ++failures;
                entry["rtt_ms"] = nullptr;
                std::cout << std::setw(14) << "lost" << std::setprecision(6) << std::setw(14)
                          << expectedMs << std::setw(11) << "-";
            }
            std::cout << "  " << Join(there) << " | " << Join(back) << "\n";
            pairs.push_back(entry);
        }
    }
    Simulator::Destroy();

    bool ok = failures == 0;
    std::cout << "\nmax |rtt - expected| = " << std::setprecision(3) << maxErrorUs << " us (limit "
              << MAX_ERROR_US
              << " us): " << (ok ? "OK" : std::to_string(failures) + " pair(s) lost or off")
              << "\n";

    if (!outFile.empty())
    {
        nlohmann::ordered_json result = {{"config",
                                          {{"program", PROGRAM},
                                           {"topology", topologyFile},
                                           {"topology_name", topology.GetName()},
                                           {"optional_links", optionalLinks},
                                           {"probe_bytes", probeBytes},
                                           {"wire_bytes", wireBytes},
                                           {"slot_ms", prober.GetSlot().GetSeconds() * 1e3}}},
                                         {"pairs", pairs},
                                         {"max_abs_error_us", maxErrorUs},
                                         {"ok", ok}};
        out << result.dump(2) << "\n";
        CommandLineValues::CloseOutput(PROGRAM, "--out", outFile, out);
        std::cout << "wrote " << outFile << "\n";
    }
    return ok ? 0 : 2;
}

} // namespace

int
main(int argc, char** argv)
{
    return CommandLineValues::RunProgram([argc, argv]() { return Run(argc, argv); });
}
