/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "clique-schedule.h"
#include "island-sync-header.h"
#include "link-load-model.h"
#include "schedule-metrics.h"
#include "training-island-application.h"
#include "training-mode-test-run.h"
#include "training-run.h"
#include "wan-topology.h"

#include "ns3/callback.h"
#include "ns3/test.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iostream>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <tuple>
#include <vector>

/**
 * @file
 * @ingroup wan-training-tests
 * Ring mode (issue 7) of TrainingIslandApplication, the unicast ring all-reduce baseline:
 * on the nine-city topology, cliques of 2..9 end every round with the exact clique average
 * (identical on every member) with and without 1% WAN loss; without loss every chunk a member
 * receives is the segment and contributor set of its ring step, computed here from the
 * ring (reduce-scatter + all-gather) and the segment rule, and every directed link carries
 * exactly the bytes of the steps whose route crosses it (2(k-1)/k S per hop within two chunks);
 * on the reference WAN the streams per link equal test/data/reference-values.json's ring
 * column (TrainingReferenceStreamsTestCase, shared with the other modes); an uncontended ring
 * round takes the schedule model's T_comm within 5% when S is much larger than the bandwidth-delay
 * product, and never more than it (plus headers and store-and-forward) for cliques of 2..9.
 */

using namespace ns3;

namespace
{

/** The nine-city topology, relative to the test data directory. */
const std::string NINE_CITY = "../topologies/doublezero-nine-city.json";
/** The reference WAN (nine other cities, other links), relative to the test data directory. */
const std::string REFERENCE_WAN = "../topologies/reference-wan.json";

/**
 * @ingroup wan-training-tests
 * @brief The ring of one clique as the class description and the schedule model define it, computed
 * here for the checks: the chunking (chunks that fill the smallest path MTU of the clique, or
 * floor(S / k / 4) x 4 bytes when those would give fewer chunks than members), the k
 * contiguous segments of the chunk index range, and what the member at ring position t sends
 * in each step.
 */
struct RingLayout
{
    std::vector<uint32_t> ring;  //!< the members in ring order (LinkLoadModel::GetRingOrder)
    uint64_t modelBytes{0};      //!< S
    uint32_t chunkBytes{0};      //!< model bytes per chunk
    uint32_t chunkCount{0};      //!< chunks of S
    std::vector<uint32_t> first; //!< k + 1 segment bounds

    /**
     * @param topology the topology
     * @param clique the clique (at least two members)
     * @param s the model bytes S
     */
    RingLayout(const WanTopology& topology, const CliqueSchedule::Clique& clique, uint64_t s)
        : ring(LinkLoadModel(topology).GetRingOrder(clique)),
          modelBytes(s),
          chunkBytes(TrainingModeTestRun::GetMtuChunkBytes(topology, clique))
    {
        const uint64_t k = ring.size();
        if ((s + chunkBytes - 1) / chunkBytes < k)
        {
            chunkBytes = static_cast<uint32_t>(s / k / 4 * 4);
        }
        chunkCount = static_cast<uint32_t>((s + chunkBytes - 1) / chunkBytes);
        for (uint64_t j = 0; j <= k; ++j)
        {
            first.push_back(static_cast<uint32_t>(j * chunkCount / k));
        }
    }

    /** @return k */
    uint32_t Size() const
    {
        return ring.size();
    }

    /**
     * @param chunk a chunk index
     * @return its model bytes (the last chunk holds the rest of S)
     */
    uint64_t ChunkBytes(uint32_t chunk) const
    {
        return chunk + 1 < chunkCount ? chunkBytes : modelBytes - uint64_t{chunkBytes} * chunk;
    }

    /**
     * @param segment a segment
     * @return its model bytes
     */
    uint64_t SegmentBytes(uint32_t segment) const
    {
        uint64_t bytes = 0;
        for (uint32_t c = first[segment]; c < first[segment + 1]; ++c)
        {
            bytes += ChunkBytes(c);
        }
        return bytes;
    }

    /**
     * @param t a ring position
     * @param step a step, 0 .. 2k-3
     * @return the segment c_t sends: t - s in reduce-scatter step s, t + 1 - s in all-gather
     *         step s (mod k)
     */
    uint32_t Segment(uint32_t t, uint32_t step) const
    {
        const int32_t k = Size();
        const int32_t s = step;
        int32_t segment = s < k - 1 ? t - s : t + 1 - (s - (k - 1));
        return static_cast<uint32_t>(((segment % k) + k) % k);
    }

    /**
     * @param t a ring position
     * @param step a step
     * @return the members summed in what c_t sends: c_{t-s} .. c_t in reduce-scatter step s,
     *         every member in the all-gather
     */
    uint64_t Contributors(uint32_t t, uint32_t step) const
    {
        const uint32_t k = Size();
        const uint32_t count = step < k - 1 ? step + 1 : k;
        uint64_t bits = 0;
        for (uint32_t i = 0; i < count; ++i)
        {
            bits |= uint64_t{1} << ring[(t + k - i) % k];
        }
        return bits;
    }

    /**
     * @param t a ring position
     * @return the model bytes c_t sends in a round: every step's segment
     */
    uint64_t HopBytes(uint32_t t) const
    {
        uint64_t bytes = 0;
        for (uint32_t step = 0; step < 2 * (Size() - 1); ++step)
        {
            bytes += SegmentBytes(Segment(t, step));
        }
        return bytes;
    }
};

/**
 * @return rounds on the nine cities whose cliques have every size from 2 to 9 (singletons
 * idle): TrainingModeTestRun::CliquesOfThreeToNine() and a round of pairs
 */
std::vector<CliqueSchedule::Round>
CliquesOfTwoToNine()
{
    std::vector<CliqueSchedule::Round> rounds = TrainingModeTestRun::CliquesOfThreeToNine();
    rounds.push_back({{0, 3}, {1, 2}, {4, 8}, {5, 6}, {7}});
    return rounds;
}

} // namespace

/**
 * @ingroup wan-training-tests
 * @brief Ring all-reduce on cliques of 2..9: exact averages, and (lossless) every chunk where
 * the ring puts it.
 *
 * With and without loss: every member's new parameters are the average of the members' traced
 * contributions (within 1e-6 x max(1, |avg|)), all members of a clique end with the same
 * parameters (they divide the same float32 sums), idle islands keep theirs, TrainingResults
 * verifies every round, no island fails or rejects a packet. Lossless, against the ring
 * computed here (RingLayout): the chunks each member credits are exactly, once each, the
 * segments of its predecessor's 2(k-1) steps with their contributor sets; the model bytes on
 * every directed link in every round equal the sum, over the clique hops whose route crosses it,
 * of the hop's step segments; each member sends 2(k-1)/k S within two chunks; nothing is
 * repaired. With loss: packets were lost and repaired.
 */
class RingExactTestCase : public TestCase
{
  public:
    /**
     * @param lossRate packet error rate on every WAN link
     * @param modelBytes S
     */
    RingExactTestCase(double lossRate, uint64_t modelBytes);

  private:
    void DoRun() override;

    double m_lossRate;     //!< WAN packet error rate
    uint64_t m_modelBytes; //!< S
};

RingExactTestCase::RingExactTestCase(double lossRate, uint64_t modelBytes)
    : TestCase(lossRate > 0 ? "ring, cliques of 2..9: exact averages with 1% WAN loss"
                            : "ring, cliques of 2..9: every step's segment where the ring puts "
                              "it, bytes per link, exact averages"),
      m_lossRate(lossRate),
      m_modelBytes(modelBytes)
{
}

void
RingExactTestCase::DoRun()
{
    TrainingModeTestRun::Config config;
    config.topologyFile = CreateDataDirFilename(NINE_CITY);
    config.mode = CapabilityMode::RING;
    config.rounds = CliquesOfTwoToNine();
    config.nRounds = config.rounds.size();
    config.modelBytes = m_modelBytes;
    config.parameterCount = 20000; // 80 kB of real values, spread over several segments
    config.lossRate = m_lossRate;
    TrainingModeTestRun run(config);
    run.Run();
    const WanTopology& topology = run.GetTopology();
    const uint32_t n = topology.GetNCities();
    const double s = static_cast<double>(config.modelBytes);

    double maxError = 0;
    std::map<TrainingModeTestRun::ChunkKey, uint32_t> expectedCredits;
    std::map<std::pair<uint32_t, uint32_t>, uint64_t> expectedLinkBytes;
    double maxHopDeviationChunks = 0;
    uint32_t cliques = 0;
    for (uint32_t r = 0; r < config.nRounds; ++r)
    {
        for (const CliqueSchedule::Clique& clique : config.rounds[r])
        {
            for (uint32_t i : clique)
            {
                NS_TEST_ASSERT_MSG_EQ(run.post.count({r, i}), 1u, "island " << i << " ended " << r);
            }
            if (clique.size() < 2)
            {
                NS_TEST_EXPECT_MSG_EQ((run.post.at({r, clique[0]}) == run.pre.at({r, clique[0]})),
                                      true,
                                      "an idle island keeps its parameters");
                continue;
            }
            ++cliques;
            for (uint32_t i : clique)
            {
                maxError = std::max(maxError, run.GetAverageError(r, i, clique));
                NS_TEST_EXPECT_MSG_EQ((run.post.at({r, i}) == run.post.at({r, clique[0]})),
                                      true,
                                      "round " << r << ": " << topology.GetCity(i).id
                                               << " ends with the parameters of "
                                               << topology.GetCity(clique[0]).id);
            }
            if (m_lossRate > 0)
            {
                continue;
            }
            RingLayout layout(topology, clique, config.modelBytes);
            const uint32_t k = layout.Size();
            NS_TEST_ASSERT_MSG_GT_OR_EQ(layout.chunkCount, k, "every segment has a chunk");
            NS_TEST_EXPECT_MSG_EQ(run.GetApp(clique[0])->GetPlan(r).chunkCount,
                                  layout.chunkCount,
                                  "the clique's chunking");
            for (uint32_t t = 0; t < k; ++t)
            {
                const uint32_t sender = layout.ring[t];
                const uint32_t receiver = layout.ring[(t + 1) % k];
                for (uint32_t step = 0; step < 2 * (k - 1); ++step)
                {
                    const uint32_t segment = layout.Segment(t, step);
                    const uint64_t bits = layout.Contributors(t, step);
                    for (uint32_t c = layout.first[segment]; c < layout.first[segment + 1]; ++c)
                    {
                        for (uint32_t j = 0; j < n; ++j)
                        {
                            if (bits & (uint64_t{1} << j))
                            {
                                ++expectedCredits[{r, receiver, j, c}];
                            }
                        }
                    }
                }
                const uint64_t hopBytes = layout.HopBytes(t);
                for (uint32_t d : topology.GetRoute(sender, receiver).links)
                {
                    expectedLinkBytes[{r, d}] += hopBytes;
                }
                NS_TEST_EXPECT_MSG_EQ(run.egress[(TrainingModeTestRun::RoundIsland{r, sender})],
                                      hopBytes,
                                      "model bytes sent by " << topology.GetCity(sender).id
                                                             << " in round " << r);
                NS_TEST_EXPECT_MSG_EQ(run.ingress[(TrainingModeTestRun::RoundIsland{r, receiver})],
                                      hopBytes,
                                      "model bytes received by " << topology.GetCity(receiver).id
                                                                 << " in round " << r);
                // The closed form: 2(k-1)/k S, within two chunks (the two segments c_t skips).
                double deviation = std::abs(static_cast<double>(hopBytes) - 2.0 * (k - 1) / k * s);
                maxHopDeviationChunks =
                    std::max(maxHopDeviationChunks, deviation / layout.chunkBytes);
                NS_TEST_EXPECT_MSG_LT(deviation,
                                      2.0 * layout.chunkBytes,
                                      "hop " << topology.GetCity(sender).id << " -> "
                                             << topology.GetCity(receiver).id << " carries "
                                             << "2(k-1)/k S within two chunks");
            }
        }
    }
    const TrainingResults& results = run.GetResults();
    std::cout << "  " << GetName() << ": " << cliques
              << " cliques, max relative error of the averages " << maxError << ", "
              << results.GetMaxRelError() << " against TrainingResults' shadow" << std::endl;
    NS_TEST_EXPECT_MSG_LT_OR_EQ(maxError, 1e-6, "exact averages");
    NS_TEST_EXPECT_MSG_EQ(results.IsComplete(), true, "every island ran every round");
    NS_TEST_EXPECT_MSG_EQ(results.GetRoundsVerified(),
                          config.nRounds,
                          "TrainingResults verifies every round");
    for (uint32_t i = 0; i < n; ++i)
    {
        NS_TEST_EXPECT_MSG_EQ(run.GetApp(i)->GetFailure(), "", "island " << i << " did not fail");
        NS_TEST_EXPECT_MSG_EQ(run.GetApp(i)->GetCounters().rejectedPackets, 0u, "nothing rejected");
    }
    NS_TEST_EXPECT_MSG_EQ(run.FindControlMismatch(),
                          "",
                          "ControlSent traces every READY, DONE and NACK the islands sent");
    if (m_lossRate > 0)
    {
        std::cout << "  " << run.lostPackets << " packets lost on WAN links, " << run.nacks
                  << " NACKs, " << run.resends << " chunks resent, " << run.duplicates
                  << " duplicates" << std::endl;
        NS_TEST_EXPECT_MSG_GT(run.lostPackets, 0u, "the error models dropped packets");
        NS_TEST_EXPECT_MSG_GT(run.resends, 0u, "lost chunks were resent");
        return;
    }

    uint64_t creditMismatches = 0;
    std::set<TrainingModeTestRun::ChunkKey> keys;
    for (const auto& [key, count] : expectedCredits)
    {
        keys.insert(key);
    }
    for (const auto& [key, count] : run.credits)
    {
        keys.insert(key);
    }
    for (const auto& key : keys)
    {
        auto e = expectedCredits.find(key);
        auto m = run.credits.find(key);
        uint32_t expected = e == expectedCredits.end() ? 0 : e->second;
        uint32_t measured = m == run.credits.end() ? 0 : m->second;
        if (expected != measured)
        {
            ++creditMismatches;
            NS_TEST_EXPECT_MSG_EQ(measured,
                                  expected,
                                  "round " << std::get<0>(key) << ": "
                                           << topology.GetCity(std::get<1>(key)).id
                                           << " credits chunk " << std::get<3>(key) << " to "
                                           << topology.GetCity(std::get<2>(key)).id);
        }
    }
    uint64_t linkMismatches = 0;
    for (uint32_t r = 0; r < config.nRounds; ++r)
    {
        for (uint32_t d = 0; d < topology.GetNDirectedLinks(); ++d)
        {
            auto e = expectedLinkBytes.find({r, d});
            auto m = run.modelBytesOnLink.find({r, d});
            uint64_t expected = e == expectedLinkBytes.end() ? 0 : e->second;
            uint64_t measured = m == run.modelBytesOnLink.end() ? 0 : m->second;
            if (expected != measured)
            {
                ++linkMismatches;
                NS_TEST_EXPECT_MSG_EQ(measured,
                                      expected,
                                      "round " << r << ", model bytes on "
                                               << topology.GetDirectedLinkName(d));
            }
        }
    }
    std::cout << "  " << keys.size() << " (round, receiver, contributor, chunk) credits checked, "
              << creditMismatches << " wrong; " << config.nRounds * topology.GetNDirectedLinks()
              << " (round, link) byte counts checked, " << linkMismatches
              << " wrong; largest |hop bytes - 2(k-1)/k S| = " << maxHopDeviationChunks << " chunks"
              << std::endl;
    NS_TEST_EXPECT_MSG_EQ(creditMismatches, 0u, "every step's segment credited once");
    NS_TEST_EXPECT_MSG_EQ(linkMismatches, 0u, "the ring's bytes on every link");
    NS_TEST_EXPECT_MSG_EQ(run.nacks, 0u, "no repair without loss");
    NS_TEST_EXPECT_MSG_EQ(run.resends, 0u, "no resend without loss");
    NS_TEST_EXPECT_MSG_EQ(run.duplicates, 0u, "no chunk received twice");
}

/**
 * @ingroup wan-training-tests
 * @brief Every chunk an island sends in ring mode belongs to a step: GetRingStep names the step
 * whose segment holds the chunk and whose contributors the header names, sent once to the
 * successor, DATA in step 0 and AGGREGATE after.
 *
 * Built with TrainingRun (as every program builds a run) with a ChunkSent sink on every island:
 * per (round, sender, step) the chunks sent are exactly the step's segment of RingLayout, each
 * once; the step is the same whether the sender's or the receiver's application decodes it.
 * Also a model too small to fill one MTU-sized chunk per member: the chunks shrink to
 * floor(S / k / 4) x 4 bytes and the round still ends with exact averages.
 */
class RingStepTraceTestCase : public TestCase
{
  public:
    RingStepTraceTestCase();

  private:
    void DoRun() override;

    /**
     * @param island the sender
     * @param destination its receiver
     * @param header the chunk's header
     * @param modelBytes its model bytes
     * @param resent whether it is a repair or probe
     */
    void OnChunkSent(uint32_t island,
                     uint32_t destination,
                     const IslandSyncHeader& header,
                     uint32_t modelBytes,
                     bool resent);

    /**
     * @param round a round
     * @param clique a clique index of its schedule round
     * @return the clique's ring (built on first use)
     */
    const RingLayout& GetLayout(uint32_t round, uint32_t clique);

    TrainingRun* m_run{nullptr}; //!< the run being observed
    /** (schedule round, clique) -> its ring */
    std::map<std::pair<uint32_t, uint32_t>, RingLayout> m_layouts;
    /** (round, sender, step) -> chunks sent, with their count */
    std::map<std::tuple<uint32_t, uint32_t, uint32_t>, std::map<uint32_t, uint32_t>> m_sent;
    uint64_t m_badHeaders{0}; //!< chunks whose step, destination or type is wrong
};

RingStepTraceTestCase::RingStepTraceTestCase()
    : TestCase("ring: every chunk sent belongs to its step (GetRingStep), small models shrink "
               "the chunks")
{
}

const RingLayout&
RingStepTraceTestCase::GetLayout(uint32_t round, uint32_t clique)
{
    const CliqueSchedule& schedule = m_run->GetSchedule();
    const uint32_t scheduleRound = round % schedule.GetNRounds();
    auto it = m_layouts.find({scheduleRound, clique});
    if (it == m_layouts.end())
    {
        it = m_layouts
                 .emplace(std::make_pair(scheduleRound, clique),
                          RingLayout(m_run->GetTopology(),
                                     schedule.GetRound(scheduleRound)[clique],
                                     m_run->GetConfig().modelBytes))
                 .first;
    }
    return it->second;
}

void
RingStepTraceTestCase::OnChunkSent(uint32_t island,
                                   uint32_t destination,
                                   const IslandSyncHeader& header,
                                   uint32_t /* modelBytes */,
                                   bool resent)
{
    const uint32_t step = m_run->GetApp(island)->GetRingStep(header);
    const uint32_t round = header.GetRound();
    const RingLayout& layout = GetLayout(round, header.GetCliqueId());
    const uint32_t k = layout.Size();
    const uint32_t t = std::distance(layout.ring.begin(),
                                     std::find(layout.ring.begin(), layout.ring.end(), island));
    bool good = !resent && step != TrainingIslandApplication::NO_RING_STEP &&
                destination == layout.ring[(t + 1) % k] &&
                m_run->GetApp(destination)->GetRingStep(header) == step &&
                header.GetContributors() == layout.Contributors(t, step) &&
                (header.GetType() == IslandSyncHeader::DATA) == (step == 0);
    if (!good)
    {
        ++m_badHeaders;
        return;
    }
    ++m_sent[{round, island, step}][header.GetChunkIndex()];
}

void
RingStepTraceTestCase::DoRun()
{
    const WanTopology topology = WanTopology::LoadFile(CreateDataDirFilename(NINE_CITY));
    std::vector<CliqueSchedule::Round> rounds = CliquesOfTwoToNine();
    for (uint64_t modelBytes : {uint64_t{300000}, uint64_t{4000}})
    {
        m_sent.clear();
        m_layouts.clear();
        m_badHeaders = 0;
        TrainingRun::Config config;
        config.mode = CapabilityMode::RING;
        config.rounds = rounds.size();
        config.modelBytes = modelBytes;
        config.parameterCount = 1000;
        config.localSteps = 1;
        config.stepTime = MilliSeconds(1);
        TrainingRun run(topology, CliqueSchedule(topology.GetNCities(), rounds), config);
        run.Build();
        m_run = &run;
        for (uint32_t i = 0; i < topology.GetNCities(); ++i)
        {
            run.GetApp(i)->TraceConnectWithoutContext(
                "ChunkSent",
                MakeCallback(&RingStepTraceTestCase::OnChunkSent, this));
        }
        run.Run();
        m_run = nullptr;
        NS_TEST_EXPECT_MSG_EQ(run.Passed(), true, "every round ended and verified");
        NS_TEST_EXPECT_MSG_EQ(m_badHeaders, 0u, "every chunk names its step");
        uint64_t wrongSteps = 0;
        uint64_t steps = 0;
        uint32_t shrunk = 0;
        for (uint32_t r = 0; r < rounds.size(); ++r)
        {
            for (const CliqueSchedule::Clique& clique : rounds[r])
            {
                if (clique.size() < 2)
                {
                    continue;
                }
                RingLayout layout(topology, clique, modelBytes);
                const uint32_t k = layout.Size();
                NS_TEST_EXPECT_MSG_EQ(run.GetApp(clique[0])->GetPlan(r).chunkBytes,
                                      layout.chunkBytes,
                                      "S = " << modelBytes << ", round " << r
                                             << ": the clique's chunk size");
                if (modelBytes <
                    uint64_t{k} * TrainingModeTestRun::GetMtuChunkBytes(topology, clique))
                {
                    ++shrunk;
                }
                for (uint32_t t = 0; t < k; ++t)
                {
                    for (uint32_t step = 0; step < 2 * (k - 1); ++step)
                    {
                        ++steps;
                        const uint32_t segment = layout.Segment(t, step);
                        std::map<uint32_t, uint32_t> expected;
                        for (uint32_t c = layout.first[segment]; c < layout.first[segment + 1]; ++c)
                        {
                            expected[c] = 1;
                        }
                        auto it = m_sent.find({r, layout.ring[t], step});
                        bool same = it != m_sent.end() && it->second == expected;
                        if (!same)
                        {
                            ++wrongSteps;
                        }
                        NS_TEST_EXPECT_MSG_EQ(same,
                                              true,
                                              "S = " << modelBytes << ", round " << r << ", "
                                                     << topology.GetCity(layout.ring[t]).id
                                                     << " sends step " << step << " = segment "
                                                     << segment << " once");
                    }
                }
            }
        }
        std::cout << "  S = " << modelBytes << ": " << steps << " (round, sender, step) checked, "
                  << wrongSteps << " wrong; " << shrunk
                  << " cliques with chunks smaller than the MTU; max relative error "
                  << run.GetResults().GetMaxRelError() << std::endl;
        if (modelBytes < 10000)
        {
            NS_TEST_EXPECT_MSG_GT(shrunk, 0u, "the small model shrinks the chunks");
        }
    }
}

/**
 * @ingroup wan-training-tests
 * @brief An uncontended ring round against the schedule model's T_comm, the ring's step
 * recursion (doc/schedule-model.rst, "The ring").
 *
 * The clique exchanges alone (the other islands idle, no local steps). The step-synchronous
 * ring follows the recursion: hop t sends a step in beta_t = 8 S / (2(k-1)) x its route's
 * largest n_l / capacity, and a step starts once the hop's previous step is sent and the
 * predecessor's previous step has arrived. On the wire a step takes at most the largest
 * segment's wire bytes at the hop's pace plus one chunk packet's store-and-forward along the
 * hop's route (the model counts propagation only), so the simulated time is at most the
 * recursion with those step times (computed here from the loads) plus 0.1 ms of pacing
 * granularity, and at least the bandwidth term 8 S n_l / capacity (the bytes have to cross the
 * bottleneck). It is within `tolerance` of T_comm: the recursion is what the step-synchronous
 * ring does, for a pair, for S much larger than the bandwidth-delay product and for small S whose
 * time is the critical chain's hop latencies. No repair, no queue drop.
 */
class RingCommTimeTestCase : public TestCase
{
  public:
    /**
     * @param clique the clique on the topology's cities
     * @param modelBytes S
     * @param tolerance the relative tolerance against T_comm, or a negative value to check only
     *        the bounds
     * @param topologyFile the topology, relative to the test data directory
     */
    RingCommTimeTestCase(CliqueSchedule::Clique clique,
                         uint64_t modelBytes,
                         double tolerance,
                         std::string topologyFile = NINE_CITY);

  private:
    void DoRun() override;

    CliqueSchedule::Clique m_clique; //!< the clique
    std::string m_topologyFile;      //!< the topology
    uint64_t m_modelBytes;           //!< S
    double m_tolerance;              //!< relative tolerance against T_comm (< 0: bounds only)
};

RingCommTimeTestCase::RingCommTimeTestCase(CliqueSchedule::Clique clique,
                                           uint64_t modelBytes,
                                           double tolerance,
                                           std::string topologyFile)
    : TestCase("ring on " + topologyFile.substr(topologyFile.rfind('/') + 1) + ", one clique of " +
               std::to_string(clique.size()) + ", " + std::to_string(modelBytes / 1000) + " kB: " +
               (tolerance >= 0 ? "within " + std::to_string(static_cast<int>(tolerance * 100)) +
                                     "% of the model's T_comm"
                               : std::string("between the bandwidth term and T_comm"))),
      m_clique(std::move(clique)),
      m_topologyFile(std::move(topologyFile)),
      m_modelBytes(modelBytes),
      m_tolerance(tolerance)
{
}

void
RingCommTimeTestCase::DoRun()
{
    const uint32_t n = WanTopology::LoadFile(CreateDataDirFilename(m_topologyFile)).GetNCities();
    const CliqueSchedule::Round round = TrainingModeTestRun::AloneWith(n, m_clique);
    TrainingModeTestRun::Config config;
    config.topologyFile = CreateDataDirFilename(m_topologyFile);
    config.mode = CapabilityMode::RING;
    config.rounds = {round};
    config.nRounds = 1;
    config.modelBytes = m_modelBytes;
    config.localSteps = 0;
    config.recordChunks = false;
    TrainingModeTestRun run(config);
    run.Run();
    const WanTopology& topology = run.GetTopology();
    NS_TEST_ASSERT_MSG_EQ(run.GetResults().GetRoundsVerified(), 1u, "round verified");
    NS_TEST_EXPECT_MSG_EQ(run.nacks, 0u, "no repair: pacing never overloads a link");
    for (uint32_t d = 0; d < topology.GetNDirectedLinks(); ++d)
    {
        NS_TEST_EXPECT_MSG_EQ(run.GetResults().GetLinkCounters(d).queueDrops,
                              0u,
                              "no queue drop on " << topology.GetDirectedLinkName(d));
    }
    const double measured = run.GetCommTime(0, 0);

    ScheduleMetrics::Settings settings;
    settings.modelBytes = static_cast<double>(m_modelBytes);
    ScheduleMetrics metrics(topology, settings);
    ScheduleMetrics::RoundCost cost = metrics.GetRoundCost(round, CapabilityMode::RING);
    RingLayout layout(topology, m_clique, m_modelBytes);
    const uint32_t k = layout.Size();
    const double wirePerModel =
        static_cast<double>(layout.chunkBytes + TrainingModeTestRun::CHUNK_HEADER_BYTES + 2) /
        layout.chunkBytes;
    uint64_t largestSegment = 0;
    for (uint32_t j = 0; j < k; ++j)
    {
        largestSegment = std::max(largestSegment, layout.SegmentBytes(j));
    }
    // Each step on the wire: the largest segment's wire bytes at the hop's pace (beta_t is
    // 2(k-1) average segments' model bytes) and one packet's store-and-forward along the hop.
    const std::vector<double> loads =
        metrics.GetLinkLoadModel().GetRoundLoads(round, CapabilityMode::RING);
    const double stretch = wirePerModel * k * largestSegment / m_modelBytes;
    std::vector<double> hopS;
    std::vector<double> stepS;
    for (uint32_t t = 0; t < k; ++t)
    {
        const WanRoute& route = topology.GetRoute(layout.ring[t], layout.ring[(t + 1) % k]);
        double share = 0;
        double storeAndForwardS = 0;
        for (uint32_t d : route.links)
        {
            const double capacityBps = topology.GetDirectedLinkCapacityGbps(d) * 1e9;
            share = std::max(share, loads[d] / capacityBps);
            storeAndForwardS += 8.0 *
                                (layout.chunkBytes + TrainingModeTestRun::CHUNK_HEADER_BYTES + 2) /
                                capacityBps;
        }
        hopS.push_back(route.latencyMs / 1e3);
        stepS.push_back(8.0 * m_modelBytes / (2.0 * (k - 1)) * share * stretch + storeAndForwardS);
    }
    const double upper = ScheduleMetrics::SolveRingSteps(hopS, stepS).timeS + 1e-4;
    std::cout << "  " << GetName() << ": simulated " << measured * 1e3 << " ms, model T_comm "
              << cost.commS * 1e3 << " ms (latency " << cost.latencyS * 1e3 << " ms, bandwidth "
              << cost.bottleneckS * 1e3 << " ms), ratio " << measured / cost.commS << std::endl;
    NS_TEST_EXPECT_MSG_LT_OR_EQ(measured, upper, "never slower than T_comm (plus headers)");
    NS_TEST_EXPECT_MSG_GT_OR_EQ(measured, cost.bottleneckS, "at least the bandwidth term");
    if (m_tolerance >= 0)
    {
        NS_TEST_EXPECT_MSG_EQ_TOL(measured / cost.commS, 1.0, m_tolerance, "close to T_comm");
    }
}

/**
 * @ingroup wan-training-tests
 * @brief The ring mode suite (issue 7).
 */
class RingModeTestSuite : public TestSuite
{
  public:
    RingModeTestSuite();
};

RingModeTestSuite::RingModeTestSuite()
    : TestSuite("wan-training-ring-mode", SYSTEM)
{
    SetDataDir(NS_TEST_SOURCEDIR);
    AddTestCase(new RingExactTestCase(0, 100000), TestCase::QUICK);
    AddTestCase(new RingExactTestCase(0.01, 1000000), TestCase::QUICK);
    AddTestCase(new RingStepTraceTestCase(), TestCase::QUICK);
    AddTestCase(new TrainingReferenceStreamsTestCase(CapabilityMode::RING), TestCase::QUICK);
    // A pair (nyc lon: one hop latency each way), exact up to headers.
    AddTestCase(new RingCommTimeTestCase({0, 3}, 10000000, 0.05), TestCase::QUICK);
    // lon ams fra: hops of 3.0 to 5.6 ms, 100 MB (the bandwidth-delay product is 7 MB).
    AddTestCase(new RingCommTimeTestCase({3, 4, 5}, 100000000, 0.05), TestCase::QUICK);
    // The reference WAN: NYC CHI LON FRA TYO, 50 MB, a ring across both oceans.
    AddTestCase(new RingCommTimeTestCase({0, 1, 3, 4, 6}, 50000000, 0.05, REFERENCE_WAN),
                TestCase::QUICK);
    // Every clique of 3..9 of the nine cities, 2 MB: the bounds, and within 5% of the step
    // recursion (its critical chain of hop latencies dominates there).
    for (const CliqueSchedule::Round& round : TrainingModeTestRun::CliquesOfThreeToNine())
    {
        for (const CliqueSchedule::Clique& clique : round)
        {
            if (clique.size() >= 3)
            {
                AddTestCase(new RingCommTimeTestCase(clique, 2000000, 0.05), TestCase::QUICK);
            }
        }
    }
}

/** Static instance of the suite. */
static RingModeTestSuite g_ringModeTestSuite;

/**
 * @ingroup wan-training-tests
 * @brief The long ring suite: a 1 GB model.
 */
class RingModeLongTestSuite : public TestSuite
{
  public:
    RingModeLongTestSuite();
};

RingModeLongTestSuite::RingModeLongTestSuite()
    : TestSuite("wan-training-ring-mode-long", SYSTEM)
{
    SetDataDir(NS_TEST_SOURCEDIR);
    // nyc chi lax, 1 GB: hops of 10 to 34 ms (the bandwidth-delay product of lax-nyc is 43 MB).
    AddTestCase(new RingCommTimeTestCase({0, 1, 2}, 1000000000, 0.05), TestCase::QUICK);
}

/** Static instance of the long suite. */
static RingModeLongTestSuite g_ringModeLongTestSuite;
