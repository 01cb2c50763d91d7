/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "receive-stream.h"
#include "send-stream.h"
#include "stream-pacer.h"

#include "ns3/simulator.h"
#include "ns3/test.h"

#include <map>
#include <utility>
#include <vector>

/**
 * @file
 * @ingroup wan-training-tests
 * The island's stream state on its own: a ReceiveStream's gap NACK, stall NACKs, repair waits
 * and exhaustion at hand-computed times (in order, and behind an FPGA), and a StreamPacer's wire
 * time arithmetic, send event and choice of stream under each policy.
 */

using namespace ns3;

namespace
{

/** The NACKs and the exhaustion a ReceiveStream reported. */
class StreamLog
{
  public:
    /**
     * @brief A NACK was asked for.
     * @param ranges its ranges
     */
    void Nack(const std::vector<ChunkRangeSet::Range>& ranges)
    {
        nacks.emplace_back(Simulator::Now(), ranges);
    }

    /** The attempts were exhausted. */
    void Exhausted()
    {
        exhausted.push_back(Simulator::Now());
    }

    std::vector<std::pair<Time, std::vector<ChunkRangeSet::Range>>> nacks; //!< (when, ranges)
    std::vector<Time> exhausted; //!< when the attempts were exhausted
};

/**
 * @param behindFpga whether gaps wait for the patience
 * @return the timing of the tests' streams: 10 ms stall time, 30 ms patience, 5 ms repair wait,
 *         a packet every 1 ms, 8 ranges, 2 attempts
 */
ReceiveStream::Timing
TestTiming(bool behindFpga)
{
    ReceiveStream::Timing timing;
    timing.stallTime = MilliSeconds(10);
    timing.patience = MilliSeconds(30);
    timing.repairWait = MilliSeconds(5);
    timing.intervalS = 1e-3;
    timing.maxRanges = 8;
    timing.maxAttempts = 2;
    timing.behindFpga = behindFpga;
    return timing;
}

/**
 * @param stream a stream
 * @param chunk the chunk it accepts (when not held)
 */
void
AcceptChunk(ReceiveStream* stream, uint32_t chunk)
{
    if (!stream->Holds(chunk))
    {
        stream->Accept(chunk);
    }
}

/**
 * @brief Report a stream to a log, and schedule its arrivals: chunk 0 at 0 ms, chunk 3 at 1 ms
 * (the gap [1, 3) is NACKed), chunk 1 at 2 ms (late), then silence.
 * @param stream a stream of chunks [0, 10)
 * @param log where it reports
 */
void
StartWithGap(ReceiveStream* stream, StreamLog* log)
{
    stream->SetCallbacks(MakeCallback(&StreamLog::Nack, log),
                         MakeCallback(&StreamLog::Exhausted, log));
    Simulator::Schedule(Time(0), &AcceptChunk, stream, 0);
    Simulator::Schedule(MilliSeconds(1), &AcceptChunk, stream, 3);
    Simulator::Schedule(MilliSeconds(2), &AcceptChunk, stream, 1);
}

} // namespace

/**
 * @ingroup wan-training-tests
 * @brief A gap is NACKed at once; what a NACK asked for and did not get by its due time is
 * asked again at once; a stall NACKs what no NACK asked for; past MaxRepairAttempts repair waits
 * without progress the stream reports itself exhausted, once.
 */
class ReceiveStreamRepairTestCase : public TestCase
{
  public:
    ReceiveStreamRepairTestCase();

  private:
    void DoRun() override;
};

ReceiveStreamRepairTestCase::ReceiveStreamRepairTestCase()
    : TestCase("ReceiveStream: gap and stall NACKs, exhaustion")
{
}

void
ReceiveStreamRepairTestCase::DoRun()
{
    StreamLog log;
    ReceiveStream stream(7, 0, 0, 10, TestTiming(false));
    StartWithGap(&stream, &log);
    Simulator::Run();

    using Ranges = std::vector<ChunkRangeSet::Range>;
    // Each NACK of n chunks is due the repair wait (5 ms) plus n packet intervals (1 ms) later.
    NS_TEST_ASSERT_MSG_EQ(log.nacks.size(), 4u, "a gap NACK, a stall NACK, two due checks");
    // The gap [1, 3) at once (due at 1 + 5 + 2 = 8 ms); chunk 1 comes late, at 2 ms.
    NS_TEST_EXPECT_MSG_EQ(log.nacks[0].first, MilliSeconds(1), "gap NACK time");
    NS_TEST_EXPECT_MSG_EQ((log.nacks[0].second == Ranges{{1, 3}}), true, "gap [1, 3)");
    // At 8 ms chunk 2 is overdue: asked again at once (attempt 1, due at 8 + 5 + 1 = 14 ms).
    NS_TEST_EXPECT_MSG_EQ(log.nacks[1].first, MilliSeconds(8), "due check of the gap");
    NS_TEST_EXPECT_MSG_EQ((log.nacks[1].second == Ranges{{2, 3}}), true, "what it missed");
    // The stall: the last arrival (2 ms) plus the stall time (10 ms); it asks for what no NACK
    // asked for, the tail [4, 10).
    NS_TEST_EXPECT_MSG_EQ(log.nacks[2].first, MilliSeconds(12), "stall NACK");
    NS_TEST_EXPECT_MSG_EQ((log.nacks[2].second == Ranges{{4, 10}}), true, "the tail");
    // At 14 ms chunk 2 again (attempt 2, a repair wait after the first: due at 20 ms).
    NS_TEST_EXPECT_MSG_EQ(log.nacks[3].first, MilliSeconds(14), "second due check");
    NS_TEST_EXPECT_MSG_EQ((log.nacks[3].second == Ranges{{2, 3}}), true, "chunk 2 again");
    // At 20 ms a third attempt would pass MaxRepairAttempts (2): exhausted, every timer stops.
    NS_TEST_ASSERT_MSG_EQ(log.exhausted.size(), 1u, "exhausted once");
    NS_TEST_EXPECT_MSG_EQ(log.exhausted[0], MilliSeconds(20), "at the third due check");
    NS_TEST_EXPECT_MSG_EQ(stream.IsComplete(), false, "incomplete");
    NS_TEST_EXPECT_MSG_EQ(stream.GetHeldCount(), 3u, "chunks 0, 1, 3");
    Simulator::Destroy();
}

/**
 * @ingroup wan-training-tests
 * @brief A stream whose owner keeps it after the attempts were exhausted (its island has not
 * begun the round) and resumes it: it NACKs everything missing at once, counts its attempts
 * from zero, and reports exhaustion again after as many due checks.
 */
class ReceiveStreamResumeTestCase : public TestCase
{
  public:
    ReceiveStreamResumeTestCase();

  private:
    void DoRun() override;
};

ReceiveStreamResumeTestCase::ReceiveStreamResumeTestCase()
    : TestCase("ReceiveStream: resumed after its attempts were exhausted")
{
}

void
ReceiveStreamResumeTestCase::DoRun()
{
    StreamLog log;
    ReceiveStream stream(7, 0, 0, 10, TestTiming(false));
    StartWithGap(&stream, &log);
    // Exhausted at 20 ms (the first case); resumed at 25 ms.
    Simulator::Schedule(MilliSeconds(25), &ReceiveStream::Resume, &stream);
    Simulator::Run();

    using Ranges = std::vector<ChunkRangeSet::Range>;
    const Ranges missing{{2, 3}, {4, 10}};
    NS_TEST_ASSERT_MSG_EQ(log.exhausted.size(), 2u, "exhausted, resumed, exhausted again");
    NS_TEST_EXPECT_MSG_EQ(log.exhausted[0], MilliSeconds(20), "first exhaustion");
    NS_TEST_ASSERT_MSG_EQ(log.nacks.size(), 7u, "four NACKs before, three after resuming");
    // Resumed: everything missing at once (7 chunks: due at 25 + 5 + 7 = 37 ms), then the due
    // checks at 37 and 49 ms (attempts 1 and 2), and the third due check (61 ms) exhausts.
    NS_TEST_EXPECT_MSG_EQ(log.nacks[4].first, MilliSeconds(25), "NACK when resumed");
    NS_TEST_EXPECT_MSG_EQ((log.nacks[4].second == missing), true, "everything missing");
    NS_TEST_EXPECT_MSG_EQ(log.nacks[5].first, MilliSeconds(37), "first due check");
    NS_TEST_EXPECT_MSG_EQ(log.nacks[6].first, MilliSeconds(49), "second due check");
    NS_TEST_EXPECT_MSG_EQ(log.exhausted[1], MilliSeconds(61), "exhausted again");
    NS_TEST_EXPECT_MSG_EQ(stream.GetAttempts(), 3u, "attempts counted from zero");
    Simulator::Destroy();
}

/**
 * @ingroup wan-training-tests
 * @brief Behind an FPGA a gap waits for the patience and NACKs only what is still missing; a
 * silence NACKs the tail after the stall time; a complete stream stops its timers.
 */
class ReceiveStreamPatienceTestCase : public TestCase
{
  public:
    ReceiveStreamPatienceTestCase();

  private:
    void DoRun() override;
};

ReceiveStreamPatienceTestCase::ReceiveStreamPatienceTestCase()
    : TestCase("ReceiveStream: deferred gap NACK, completion")
{
}

void
ReceiveStreamPatienceTestCase::DoRun()
{
    StreamLog log;
    // A stall time past the end of the run: only the gap check NACKs.
    ReceiveStream::Timing longStall = TestTiming(true);
    longStall.stallTime = MilliSeconds(40);
    ReceiveStream stream(7, 0, 0, 10, longStall);
    stream.SetCallbacks(MakeCallback(&StreamLog::Nack, &log),
                        MakeCallback(&StreamLog::Exhausted, &log));
    Simulator::Schedule(Time(0), &AcceptChunk, &stream, 0);
    Simulator::Schedule(MilliSeconds(1), &AcceptChunk, &stream, 5);
    Simulator::Schedule(MilliSeconds(10), &AcceptChunk, &stream, 2);
    Simulator::Stop(MilliSeconds(35));
    Simulator::Run();
    using Ranges = std::vector<ChunkRangeSet::Range>;
    NS_TEST_ASSERT_MSG_EQ(log.nacks.size(), 1u, "one deferred gap NACK");
    NS_TEST_EXPECT_MSG_EQ(log.nacks[0].first, MilliSeconds(31), "gap time + patience");
    NS_TEST_EXPECT_MSG_EQ((log.nacks[0].second == Ranges{{1, 2}, {3, 5}}),
                          true,
                          "what is still missing of the gap [1, 5)");
    Simulator::Destroy();

    // Behind an FPGA a silence is a slot waiting for a lost contribution (the aggregates come at
    // the slowest contributor's pace): the stall NACKs the tail after the stall time (10 ms),
    // not after the patience (30 ms).
    StreamLog tail;
    ReceiveStream cut(5, 0, 0, 6, TestTiming(true));
    cut.SetCallbacks(MakeCallback(&StreamLog::Nack, &tail),
                     MakeCallback(&StreamLog::Exhausted, &tail));
    for (uint32_t chunk = 0; chunk < 4; ++chunk)
    {
        Simulator::Schedule(MilliSeconds(chunk), &AcceptChunk, &cut, chunk);
    }
    Simulator::Stop(MilliSeconds(20));
    Simulator::Run();
    NS_TEST_ASSERT_MSG_EQ(tail.nacks.size(), 1u, "one stall NACK");
    NS_TEST_EXPECT_MSG_EQ(tail.nacks[0].first, MilliSeconds(13), "last arrival + stall time");
    NS_TEST_EXPECT_MSG_EQ((tail.nacks[0].second == Ranges{{4, 6}}), true, "the tail [4, 6)");
    Simulator::Destroy();

    StreamLog done;
    ReceiveStream whole(3, 0, 0, 3, TestTiming(false));
    whole.SetCallbacks(MakeCallback(&StreamLog::Nack, &done),
                       MakeCallback(&StreamLog::Exhausted, &done));
    Simulator::Schedule(Time(0), &AcceptChunk, &whole, 0);
    Simulator::Schedule(MilliSeconds(1), &AcceptChunk, &whole, 1);
    Simulator::Schedule(MilliSeconds(2), &AcceptChunk, &whole, 2);
    Simulator::Run();
    NS_TEST_EXPECT_MSG_EQ(whole.IsComplete(), true, "complete");
    NS_TEST_EXPECT_MSG_EQ(done.nacks.size(), 0u, "no NACK");
    NS_TEST_EXPECT_MSG_EQ(done.exhausted.size(), 0u, "no exhaustion");
    Simulator::Destroy();
}

/**
 * @ingroup wan-training-tests
 * @brief StreamPacer: wire times, the send event, and what each policy sends next.
 */
class StreamPacerTestCase : public TestCase
{
  public:
    StreamPacerTestCase();

  private:
    void DoRun() override;
    /** The pacer's send fired. */
    void Sent();

    std::vector<Time> m_sends; //!< when the pacer's sends fired
};

StreamPacerTestCase::StreamPacerTestCase()
    : TestCase("StreamPacer: wire times and policies")
{
}

void
StreamPacerTestCase::Sent()
{
    m_sends.push_back(Simulator::Now());
}

void
StreamPacerTestCase::DoRun()
{
    SendStream own;
    StreamPacer& pacer = own.GetPacer();
    pacer.Configure(StreamPacer::OWN, MakeCallback(&StreamPacerTestCase::Sent, this));
    pacer.RestartNow();
    // 1250 bytes at 10 Mb/s: 1 ms each.
    // (The test macros evaluate their argument more than once.)
    const double firstEndS = pacer.Advance(1250, 1e7);
    const double secondEndS = pacer.Advance(1250, 1e7);
    NS_TEST_EXPECT_MSG_EQ_TOL(firstEndS, 1e-3, 1e-12, "first packet ends");
    NS_TEST_EXPECT_MSG_EQ_TOL(secondEndS, 2e-3, 1e-12, "second packet ends");
    pacer.Start();
    NS_TEST_EXPECT_MSG_EQ(pacer.IsSending(), true, "a send is pending");
    Simulator::Run();
    NS_TEST_ASSERT_MSG_EQ(m_sends.size(), 1u, "one send");
    NS_TEST_EXPECT_MSG_EQ(m_sends[0], MilliSeconds(2), "at the earliest send time");
    NS_TEST_EXPECT_MSG_EQ(pacer.IsSending(), false, "nothing pending");
    Simulator::Destroy();

    // GROUP: members' repairs first, round robin, then the group's own chunks.
    SendStream group;
    group.m_pending.Insert(0, 4);
    std::map<uint32_t, SendStream> members;
    members[1];
    members[2].m_pending.Insert(5);
    members[3].m_pending.Insert(6);
    group.GetPacer().Configure(StreamPacer::GROUP, MakeCallback(&StreamPacerTestCase::Sent, this));
    NS_TEST_EXPECT_MSG_EQ(&group.GetPacer().Pick(group, members), &members[2], "repair of 2");
    NS_TEST_EXPECT_MSG_EQ(&group.GetPacer().Pick(group, members), &members[3], "then of 3");
    members[2].m_pending.Clear();
    members[3].m_pending.Clear();
    NS_TEST_EXPECT_MSG_EQ(&group.GetPacer().Pick(group, members), &group, "then the group");

    // LOWEST_STEP: the lowest step that is not done, not waiting, and has chunks.
    SendStream ring;
    std::map<uint32_t, SendStream> steps;
    steps[0].m_done = true;
    steps[0].m_pending.Insert(1);
    steps[1].m_waitingStep = true;
    steps[1].m_pending.Insert(2);
    steps[2].m_pending.Insert(3);
    ring.GetPacer().Configure(StreamPacer::LOWEST_STEP,
                              MakeCallback(&StreamPacerTestCase::Sent, this));
    NS_TEST_EXPECT_MSG_EQ(ring.GetPacer().HasWork(ring, steps), true, "step 2 has work");
    NS_TEST_EXPECT_MSG_EQ(&ring.GetPacer().Pick(ring, steps), &steps[2], "step 2");
    steps[2].m_pending.Clear();
    NS_TEST_EXPECT_MSG_EQ(ring.GetPacer().HasWork(ring, steps), false, "nothing sendable");
    NS_TEST_EXPECT_MSG_EQ(own.GetPacer().HasWork(own, steps), false, "OWN ignores the steps");
}

/**
 * @ingroup wan-training-tests
 * @brief The island's stream state suite.
 */
class IslandStreamsTestSuite : public TestSuite
{
  public:
    IslandStreamsTestSuite();
};

IslandStreamsTestSuite::IslandStreamsTestSuite()
    : TestSuite("wan-training-island-streams", UNIT)
{
    AddTestCase(new ReceiveStreamRepairTestCase(), TestCase::QUICK);
    AddTestCase(new ReceiveStreamPatienceTestCase(), TestCase::QUICK);
    AddTestCase(new ReceiveStreamResumeTestCase(), TestCase::QUICK);
    AddTestCase(new StreamPacerTestCase(), TestCase::QUICK);
}

/** Static instance of the suite. */
static IslandStreamsTestSuite g_islandStreamsTestSuite;
