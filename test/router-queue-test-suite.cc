/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "aggregator-net-device.h"
#include "inline-fpga.h"
#include "wan-topology-helper.h"
#include "wan-topology.h"

#include "ns3/inet-socket-address.h"
#include "ns3/names.h"
#include "ns3/net-device-queue-interface.h"
#include "ns3/packet.h"
#include "ns3/point-to-point-net-device.h"
#include "ns3/queue-disc.h"
#include "ns3/queue-size.h"
#include "ns3/queue.h"
#include "ns3/simulator.h"
#include "ns3/socket.h"
#include "ns3/test.h"
#include "ns3/traffic-control-layer.h"
#include "ns3/udp-socket-factory.h"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

/**
 * @file
 * @ingroup wan-training-tests
 * Router queue test suite: the device queues and queue discs WanTopologyHelper installs for the
 * topology's `defaults.router_queue` (byte limits against buffer_ms x rate / 8 or the floor),
 * the refusal of a name that is no queue disc, and a burst into a slower port whose drops and
 * last arrival follow from the buffer in closed form.
 */

using namespace ns3;

namespace
{

/** The nine-city topology, relative to the test data directory. */
const std::string NINE_CITY = "../topologies/doublezero-nine-city.json";

/**
 * @param routerQueue the `defaults.router_queue` JSON, or empty for none
 * @param wanGbps the capacity of the WAN link
 * @param wanMs the latency of the WAN link
 * @param accessGbps the capacity of both access links (latency 0)
 * @return a topology of two cities a and b
 */
WanTopology
TwoCities(const std::string& routerQueue, double wanGbps, double wanMs, double accessGbps)
{
    std::string json = R"({"defaults": {"mtu_bytes": 1500, "island_access": {"capacity_gbps": )" +
                       std::to_string(accessGbps) + R"(, "latency_ms": 0})";
    if (!routerQueue.empty())
    {
        json += R"(, "router_queue": )" + routerQueue;
    }
    json += R"(}, "cities": [{"id": "a"}, {"id": "b"}], "links": [{"a": "a", "b": "b",
        "latency_ms": )" +
            std::to_string(wanMs) + R"(, "capacity_gbps": )" + std::to_string(wanGbps) + "}]}";
    return WanTopology::Parse(json, "two-cities");
}

/**
 * @brief The byte limit a port must have, computed here: max(2 x 65537, ceil(ms x bit/s / 8000)).
 * @param bufferMs buffer_ms
 * @param gbps the port's rate
 * @return bytes
 */
uint32_t
ExpectedBytes(double bufferMs, double gbps)
{
    const double bytes = std::ceil(bufferMs * gbps * 1e9 / 8000 - 1e-6);
    return static_cast<uint32_t>(std::max(2.0 * (65535 + 2), bytes));
}

/**
 * @param device a device
 * @return its root queue disc, or null
 */
Ptr<QueueDisc>
RootQueueDisc(Ptr<NetDevice> device)
{
    Ptr<TrafficControlLayer> tc = device->GetNode()->GetObject<TrafficControlLayer>();
    return tc ? tc->GetRootQueueDiscOnDevice(device) : nullptr;
}

/** Destroy the simulation and the names of the scenario. */
void
EndSimulation()
{
    Simulator::Destroy();
    Names::Clear();
}

} // namespace

/**
 * @ingroup wan-training-tests
 * @brief Every port of a scenario has the device queue and queue disc of the queue model.
 */
class RouterQueueInstallTestCase : public TestCase
{
  public:
    /**
     * @param routerQueue the `defaults.router_queue` JSON (empty: the nine-city file, which has
     *        none)
     * @param bufferMs the buffer_ms it means
     * @param queueDisc the queue disc it names, or empty for drop-tail
     */
    RouterQueueInstallTestCase(const std::string& routerQueue,
                               double bufferMs,
                               const std::string& queueDisc);

  private:
    void DoRun() override;

    std::string m_routerQueue; //!< the JSON, or empty
    double m_bufferMs;         //!< buffer_ms
    std::string m_queueDisc;   //!< the queue disc, or empty
};

RouterQueueInstallTestCase::RouterQueueInstallTestCase(const std::string& routerQueue,
                                                       double bufferMs,
                                                       const std::string& queueDisc)
    : TestCase("device queues and queue discs of " +
               (routerQueue.empty() ? std::string("the nine-city WAN (default drop-tail)")
                                    : (queueDisc.empty() ? std::string("drop-tail") : queueDisc) +
                                          " of " + std::to_string(bufferMs) + " ms on two cities")),
      m_routerQueue(routerQueue),
      m_bufferMs(bufferMs),
      m_queueDisc(queueDisc)
{
}

void
RouterQueueInstallTestCase::DoRun()
{
    // The nine-city WAN (10 and 100 Gbit/s) or two cities with a 10 Mbit/s WAN link (the floor)
    // and 25 Gbit/s access links; FPGA ports on every port of city 0's router.
    WanTopology topology = m_routerQueue.empty()
                               ? WanTopology::LoadFile(CreateDataDirFilename(NINE_CITY))
                               : TwoCities(m_routerQueue, 0.01, 1, 25);
    WanTopologyHelper helper(topology);
    ObjectFactory ports;
    ports.SetTypeId(AggregatorNetDevice::GetTypeId());
    ObjectFactory fpga;
    fpga.SetTypeId(InlineFpga::GetTypeId());
    helper.SetAggregationCities({0}, ports, fpga, WanTopologyHelper::EVERY_PORT);
    helper.Install();
    NS_TEST_EXPECT_MSG_EQ(helper.GetRouterQueue().type,
                          m_queueDisc.empty() ? WanRouterQueue::DROP_TAIL
                                              : WanRouterQueue::QUEUE_DISC,
                          "the installed model");
    uint32_t fpgaPorts = 0;
    for (uint32_t d = 0; d < topology.GetNDirectedLinks(); ++d)
    {
        const std::string name = topology.GetDirectedLinkName(d);
        Ptr<PointToPointNetDevice> device =
            DynamicCast<PointToPointNetDevice>(helper.GetTxDevice(d));
        NS_TEST_ASSERT_MSG_NE(device, nullptr, name << ": a point-to-point port");
        const uint32_t bytes = ExpectedBytes(m_bufferMs, topology.GetDirectedLinkCapacityGbps(d));
        NS_TEST_EXPECT_MSG_EQ(device->GetQueue()->GetMaxSize(),
                              QueueSize(QueueSizeUnit::BYTES, bytes),
                              name << ": device queue of " << m_bufferMs << " ms of its rate");
        const bool isFpgaPort = DynamicCast<AggregatorNetDevice>(device) != nullptr;
        fpgaPorts += isFpgaPort;
        Ptr<QueueDisc> disc = RootQueueDisc(device);
        if (m_queueDisc.empty() || isFpgaPort)
        {
            NS_TEST_EXPECT_MSG_EQ(disc, nullptr, name << ": no root queue disc");
            NS_TEST_EXPECT_MSG_EQ(device->GetObject<NetDeviceQueueInterface>(),
                                  nullptr,
                                  name << ": no flow control");
        }
        else
        {
            NS_TEST_ASSERT_MSG_NE(disc, nullptr, name << ": a root queue disc");
            NS_TEST_EXPECT_MSG_EQ(disc->GetInstanceTypeId().GetName(),
                                  m_queueDisc,
                                  name << ": the named queue disc");
            NS_TEST_EXPECT_MSG_NE(device->GetObject<NetDeviceQueueInterface>(),
                                  nullptr,
                                  name << ": flow control toward the queue disc");
        }
    }
    // City 0's access port and one port per WAN link of city 0.
    uint32_t wanPorts = 0;
    for (uint32_t l = 0; l < topology.GetNLinks(); ++l)
    {
        wanPorts += topology.GetLink(l).a == 0 || topology.GetLink(l).b == 0;
    }
    NS_TEST_EXPECT_MSG_EQ(fpgaPorts, 1 + wanPorts, "the FPGA ports of city 0");
    EndSimulation();
}

/**
 * @ingroup wan-training-tests
 * @brief A `queue_disc` whose name is no creatable queue disc is refused with file, field and
 * reason.
 */
class RouterQueueRefusedTestCase : public TestCase
{
  public:
    RouterQueueRefusedTestCase();

  private:
    void DoRun() override;
};

RouterQueueRefusedTestCase::RouterQueueRefusedTestCase()
    : TestCase("a queue_disc name that is no creatable queue disc is refused")
{
}

void
RouterQueueRefusedTestCase::DoRun()
{
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"ns3::NoSuchQueueDisc", "unknown ns-3 TypeId 'ns3::NoSuchQueueDisc'"},
        {"ns3::DropTailQueue<Packet>", "'ns3::DropTailQueue<Packet>' is not a queue disc"},
        {"ns3::QueueDisc", "'ns3::QueueDisc' cannot be created"},
    };
    for (const auto& [name, reason] : cases)
    {
        WanTopology topology =
            TwoCities(R"({"type": "queue_disc", "name": ")" + name + R"("})", 1, 1, 1);
        bool refused = false;
        try
        {
            WanTopologyHelper helper(topology);
        }
        catch (const WanInputError& error)
        {
            refused = true;
            NS_TEST_EXPECT_MSG_EQ(error.GetFile(), "two-cities", name << ": the file");
            NS_TEST_EXPECT_MSG_EQ(error.GetPath(), "$.defaults.router_queue.name", name);
            NS_TEST_EXPECT_MSG_NE(error.GetReason().find(reason),
                                  std::string::npos,
                                  name << ": reason '" << error.GetReason() << "'");
        }
        NS_TEST_EXPECT_MSG_EQ(refused, true, name << " was accepted");
    }
    // A real one is accepted.
    WanTopologyHelper accepted(
        TwoCities(R"({"type": "queue_disc", "name": "ns3::FqCoDelQueueDisc"})", 1, 1, 1));
    NS_TEST_EXPECT_MSG_EQ(accepted.GetRouterQueue().queueDiscName,
                          "ns3::FqCoDelQueueDisc",
                          "FqCoDel is a queue disc");
}

/**
 * @ingroup wan-training-tests
 * @brief A burst larger than the buffer into a slower port: the drop-tail FIFO takes exactly
 * what fits, drops the rest, and its last frame waits the buffered bytes / rate.
 *
 * Island a sends N frames of F bytes at once; they reach router a at 100 Gbit/s, far faster
 * than the 100 Mbit/s WAN port drains (the whole burst arrives before the first frame is out).
 * The first frame goes on the wire, the FIFO of B = buffer_ms x rate / 8 bytes takes
 * floor(B / F) more, and the remaining N - 1 - floor(B / F) are dropped by the device. The k-th
 * accepted frame (k = 1...) reaches island b at t0 + F/access + k F/wan + latency + F/access.
 */
class RouterQueueBurstTestCase : public TestCase
{
  public:
    RouterQueueBurstTestCase();

  private:
    void DoRun() override;
    /**
     * @brief Island b received a frame.
     * @param socket its socket
     */
    void Received(Ptr<Socket> socket);

    uint32_t m_received{0}; //!< frames received by island b
    Time m_last;            //!< when the last one arrived
    uint32_t m_drops{0};    //!< MacTxDrop of router a's WAN port
};

RouterQueueBurstTestCase::RouterQueueBurstTestCase()
    : TestCase("a burst into a slower drop-tail port: exactly the excess is dropped")
{
}

void
RouterQueueBurstTestCase::Received(Ptr<Socket> socket)
{
    while (socket->Recv())
    {
        ++m_received;
        m_last = Simulator::Now();
    }
}

void
RouterQueueBurstTestCase::DoRun()
{
    const double bufferMs = 20;
    const double wanBps = 1e8;
    const double accessBps = 1e11;
    const double latencyS = 1e-3;
    WanTopology topology = TwoCities(R"({"type": "drop_tail", "buffer_ms": 20})", 0.1, 1, 100);
    WanTopologyHelper helper(topology);
    helper.Install();
    const uint32_t aToB = topology.GetWanDirectedLink(0, 1);
    helper.GetTxDevice(aToB)->TraceConnectWithoutContext(
        "MacTxDrop",
        MakeBoundCallback(
            +[](uint32_t* drops, Ptr<const Packet>) { ++*drops; },
            &m_drops));

    const uint16_t port = 9;
    Ptr<Socket> sink = Socket::CreateSocket(helper.GetIsland(1), UdpSocketFactory::GetTypeId());
    sink->Bind(InetSocketAddress(Ipv4Address::GetAny(), port));
    sink->SetRecvCallback(MakeCallback(&RouterQueueBurstTestCase::Received, this));
    Ptr<Socket> source = Socket::CreateSocket(helper.GetIsland(0), UdpSocketFactory::GetTypeId());
    source->Connect(InetSocketAddress(helper.GetIslandAddress(1), port));

    const uint32_t n = 300;
    const uint32_t payload = 1000;
    const uint32_t frame = payload + 8 + 20 + 2; // UDP, IPv4, PPP
    const Time t0 = Seconds(1);
    Simulator::Schedule(t0, [source, n, payload]() {
        for (uint32_t i = 0; i < n; ++i)
        {
            source->Send(Create<Packet>(payload));
        }
    });
    Simulator::Run();

    const uint32_t bufferBytes = static_cast<uint32_t>(bufferMs * 1e-3 * wanBps / 8); // 250,000
    NS_TEST_EXPECT_MSG_EQ(helper.GetTopology().GetPortBufferBytes(aToB), bufferBytes, "B");
    // The burst (N F / access = 24.7 us) is in before the first frame is out (F / wan = 82.4 us).
    NS_TEST_ASSERT_MSG_LT(n * frame * 8 / accessBps,
                          frame * 8 / wanBps,
                          "the closed form's premise");
    const uint32_t accepted = 1 + bufferBytes / frame; // 1 + 242
    NS_TEST_EXPECT_MSG_EQ(m_received, accepted, "the frame on the wire and a full FIFO");
    NS_TEST_EXPECT_MSG_EQ(m_drops, n - accepted, "exactly the excess is dropped, by the device");
    Ptr<PointToPointNetDevice> wanPort =
        DynamicCast<PointToPointNetDevice>(helper.GetTxDevice(aToB));
    NS_TEST_EXPECT_MSG_EQ(wanPort->GetQueue()->GetTotalDroppedPackets(),
                          n - accepted,
                          "the FIFO's own drop count");
    const double expectedLast =
        t0.GetSeconds() + 2 * frame * 8 / accessBps + accepted * frame * 8 / wanBps + latencyS;
    NS_TEST_EXPECT_MSG_EQ_TOL(m_last.GetSeconds(),
                              expectedLast,
                              1e-9,
                              "the last frame waited the buffered bytes / rate");
    source->Close();
    sink->Close();
    EndSimulation();
}

/**
 * @ingroup wan-training-tests
 * @brief The router queue test suite.
 */
class RouterQueueTestSuite : public TestSuite
{
  public:
    RouterQueueTestSuite();
};

RouterQueueTestSuite::RouterQueueTestSuite()
    : TestSuite("wan-training-router-queue", UNIT)
{
    SetDataDir(NS_TEST_SOURCEDIR);
    AddTestCase(new RouterQueueInstallTestCase("", WanRouterQueue::DEFAULT_BUFFER_MS, ""),
                TestCase::QUICK);
    AddTestCase(new RouterQueueInstallTestCase(R"({"type": "drop_tail", "buffer_ms": 40})", 40, ""),
                TestCase::QUICK);
    AddTestCase(new RouterQueueInstallTestCase(
                    R"({"type": "queue_disc", "name": "ns3::FifoQueueDisc", "buffer_ms": 2})",
                    2,
                    "ns3::FifoQueueDisc"),
                TestCase::QUICK);
    AddTestCase(
        new RouterQueueInstallTestCase(R"({"type": "queue_disc", "name": "ns3::FqCoDelQueueDisc"})",
                                       WanRouterQueue::DEFAULT_BUFFER_MS,
                                       "ns3::FqCoDelQueueDisc"),
        TestCase::QUICK);
    AddTestCase(new RouterQueueRefusedTestCase(), TestCase::QUICK);
    AddTestCase(new RouterQueueBurstTestCase(), TestCase::QUICK);
}

/** The static instance that registers the suite. */
static RouterQueueTestSuite g_routerQueueTestSuite;
