/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

/**
 * @file
 * @ingroup wan-training-tests
 * ns-3 tests of coarse frames in the packet simulation: on the nine-city topology, one round of
 * the all-island clique in every mode, once with exact 9000-byte frames and once with 64000-byte
 * simulation frames. Every round verifies in both; every directed link carries the same wire
 * bytes and model bytes, and the coarse packets stand for exactly the exact run's frames
 * (ring: whose segments cut the chunks differently, within 0.1 %); the communication times
 * agree within 0.5 % (what a coarse frame changes is the store-and-forward of its other frames
 * at each hop); the devices' MTU is the simulation frame, so no chunk is an IPv4 fragment.
 */

#include "capability-mode.h"
#include "clique-schedule.h"
#include "training-results.h"
#include "training-run.h"
#include "wan-topology-helper.h"
#include "wan-topology.h"

#include "ns3/net-device.h"
#include "ns3/test.h"

#include <cmath>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

using namespace ns3;

namespace
{

/** The nine-city topology (9000-byte MTU on every link). */
const std::string NINE_CITY = "../topologies/doublezero-nine-city.json";

/** What one run left: per directed link, and the round's communication time. */
struct RunTraffic
{
    std::vector<TrainingResults::LinkCounters> links; //!< by directed link
    double commS{0};                                  //!< the round's comm_s
    bool passed{false};                               //!< every round ended and verified
    uint32_t largestDeviceMtu{0};                     //!< the largest Mtu of a device
    uint32_t smallestDeviceMtu{0};                    //!< the smallest Mtu of a device
};

/**
 * @param topology the topology
 * @param mode the mode
 * @param frameBytes the simulation frame (0: exact)
 * @return what the run left
 */
RunTraffic
RunOnce(const WanTopology& topology, CapabilityMode mode, uint32_t frameBytes)
{
    TrainingRun::Config config;
    config.mode = mode;
    config.modelBytes = 2000000;
    config.parameterCount = 4096;
    config.localSteps = 1;
    config.frameBytes = frameBytes;
    TrainingRun run(topology, CliqueSchedule::AllReduce(topology.GetNCities()), config);
    run.Build();
    run.Run();
    RunTraffic traffic;
    traffic.passed = run.Passed();
    const uint32_t links = run.GetTopology().GetNDirectedLinks();
    traffic.smallestDeviceMtu = UINT32_MAX;
    for (uint32_t d = 0; d < links; ++d)
    {
        traffic.links.push_back(run.GetResults().GetLinkCounters(d));
        const uint32_t mtu = run.GetScenario().GetTxDevice(d)->GetMtu();
        traffic.largestDeviceMtu = std::max(traffic.largestDeviceMtu, mtu);
        traffic.smallestDeviceMtu = std::min(traffic.smallestDeviceMtu, mtu);
    }
    const nlohmann::json results = nlohmann::json::parse(run.GetResults().ToJson());
    traffic.commS = results.at("rounds").at(0).at("comm_s").get<double>();
    return traffic;
}

/**
 * @ingroup wan-training-tests
 * @brief Exact and coarse frames of one mode: the same wire, the same times.
 */
class CoarseFramesModeTestCase : public TestCase
{
  public:
    /** @param mode the mode */
    explicit CoarseFramesModeTestCase(CapabilityMode mode)
        : TestCase("coarse frames keep the wire bytes and times of exact frames: " +
                   CapabilityModeToString(mode)),
          m_mode(mode)
    {
    }

  private:
    void DoRun() override
    {
        const WanTopology topology = WanTopology::LoadFile(CreateDataDirFilename(NINE_CITY));
        NS_TEST_ASSERT_MSG_EQ(topology.GetFrameBytes(), 0u, "the topology has exact frames");
        const RunTraffic exact = RunOnce(topology, m_mode, 0);
        const RunTraffic coarse = RunOnce(topology, m_mode, 64000);
        NS_TEST_ASSERT_MSG_EQ(exact.passed, true, "the exact run verifies");
        NS_TEST_ASSERT_MSG_EQ(coarse.passed, true, "the coarse run verifies");
        NS_TEST_EXPECT_MSG_EQ(exact.largestDeviceMtu, 9000u, "exact: the wire MTU");
        NS_TEST_EXPECT_MSG_EQ(coarse.smallestDeviceMtu, 64000u, "coarse: every device");
        NS_TEST_EXPECT_MSG_EQ(coarse.largestDeviceMtu, 64000u, "coarse: the frame");

        const bool ring = m_mode == CapabilityMode::RING;
        uint64_t exactBytes = 0;
        uint64_t coarseBytes = 0;
        uint64_t coarsePackets = 0;
        uint64_t exactPackets = 0;
        for (std::size_t d = 0; d < exact.links.size(); ++d)
        {
            const TrainingResults::LinkCounters& e = exact.links[d];
            const TrainingResults::LinkCounters& c = coarse.links[d];
            exactBytes += e.bytes;
            coarseBytes += c.bytes;
            exactPackets += e.packets;
            coarsePackets += c.packets;
            NS_TEST_EXPECT_MSG_EQ(e.wireFrames, e.packets, "exact: a packet is a frame");
            if (!ring)
            {
                NS_TEST_EXPECT_MSG_EQ(c.bytes, e.bytes, "wire bytes of link " << d);
                NS_TEST_EXPECT_MSG_EQ(c.modelBytes, e.modelBytes, "model bytes of link " << d);
                NS_TEST_EXPECT_MSG_EQ(c.wireFrames, e.packets, "wire frames of link " << d);
            }
        }
        NS_TEST_EXPECT_MSG_GT(exactPackets, 5 * coarsePackets, "coarse: far fewer packets");
        NS_TEST_EXPECT_MSG_LT(std::abs(double(coarseBytes) - double(exactBytes)),
                              1e-3 * double(exactBytes),
                              "total wire bytes");
        NS_TEST_EXPECT_MSG_LT(std::abs(coarse.commS - exact.commS),
                              5e-3 * exact.commS,
                              "comm time: exact " << exact.commS << " s, coarse " << coarse.commS
                                                  << " s");
    }

    CapabilityMode m_mode; //!< the mode
};

/**
 * @ingroup wan-training-tests
 * @brief The coarse-frame suite: every mode.
 */
class CoarseFramesTestSuite : public TestSuite
{
  public:
    CoarseFramesTestSuite();
};

CoarseFramesTestSuite::CoarseFramesTestSuite()
    : TestSuite("wan-training-coarse-frames", UNIT)
{
    SetDataDir(NS_TEST_SOURCEDIR);
    for (CapabilityMode mode : GetAllCapabilityModes())
    {
        AddTestCase(new CoarseFramesModeTestCase(mode), TestCase::QUICK);
    }
}

/** The suite's static instance. */
static CoarseFramesTestSuite g_coarseFramesTestSuite;

} // namespace
