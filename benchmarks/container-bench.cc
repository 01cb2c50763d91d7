/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

/*
 * container-bench: the module's hot-path containers against Boost's, on the access patterns of a
 * simulated round (benchmarks/README.md, "Containers"). Google Benchmark; every case reports
 * ns_per_op, the time of one operation of its pattern (one chunk accepted, popped or closed, one
 * lookup). Nothing is asserted: the numbers are for the README's decision.
 *
 *   build/container-bench [--benchmark_filter=REGEX] [--benchmark_repetitions=N]
 */

#include "chunk-range-set.h"

#include <algorithm>
#include <benchmark/benchmark.h>
#include <boost/container/flat_map.hpp>
#include <boost/icl/interval_set.hpp>
#include <boost/icl/right_open_interval.hpp>
#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <tuple>
#include <vector>

namespace ns3
{
namespace
{

/** Chunks of a 4 MB contribution (8972 model bytes per chunk), the profiled case's stream. */
constexpr uint32_t CHUNKS_4MB = 446;
/** Chunks of a 64 MB contribution. */
constexpr uint32_t CHUNKS_64MB = 7480;
/** Chunks a sender pops between a loss and the NACK of it arriving. */
constexpr uint32_t NACK_DELAY = 16;
/** Most ranges a NACK carries. */
constexpr uint32_t MAX_NACK_RANGES = 64;

/**
 * ChunkRangeSet's contract on boost::icl::interval_set of right-open intervals (what adopting ICL
 * would look like). ICL keeps no count of the indices held, so this does.
 */
class IclRangeSet
{
  public:
    /** A half-open interval of chunk indices. */
    using Interval = boost::icl::right_open_interval<uint32_t>;

    /**
     * @param index a chunk index
     * @return whether it was absent
     */
    bool Insert(uint32_t index)
    {
        if (boost::icl::contains(m_set, index))
        {
            return false;
        }
        m_set.add(Interval(index, index + 1));
        ++m_count;
        return true;
    }

    /**
     * @param begin first index
     * @param end one past the last
     */
    void Insert(uint32_t begin, uint32_t end)
    {
        if (begin < end)
        {
            m_set.add(Interval(begin, end));
            m_count = boost::icl::cardinality(m_set);
        }
    }

    /**
     * @param index a chunk index
     * @return whether it is held
     */
    bool Contains(uint32_t index) const
    {
        return boost::icl::contains(m_set, index);
    }

    /** @return whether nothing is held */
    bool IsEmpty() const
    {
        return m_set.empty();
    }

    /**
     * @param count chunks of the stream
     * @return whether [0, count) is held
     */
    bool Covers(uint32_t count) const
    {
        return count == 0 ||
               (!m_set.empty() && m_set.begin()->lower() == 0 && m_set.begin()->upper() >= count);
    }

    /** @return the smallest index, removed */
    uint32_t PopFront()
    {
        uint32_t index = m_set.begin()->lower();
        m_set.subtract(Interval(index, index + 1));
        --m_count;
        return index;
    }

    /**
     * @param count chunks of the stream
     * @param maxRanges most intervals returned
     * @return the missing intervals of [0, count)
     */
    std::vector<ChunkRangeSet::Range> GetMissing(uint32_t count, uint32_t maxRanges) const
    {
        std::vector<ChunkRangeSet::Range> missing;
        uint32_t next = 0;
        for (auto it = m_set.begin(); it != m_set.end() && missing.size() < maxRanges; ++it)
        {
            if (it->lower() > next)
            {
                missing.emplace_back(next, std::min(it->lower(), count));
            }
            next = std::max(next, it->upper());
        }
        if (next < count && missing.size() < maxRanges)
        {
            missing.emplace_back(next, count);
        }
        return missing;
    }

  private:
    boost::icl::interval_set<uint32_t, std::less, Interval> m_set; //!< the intervals
    uint64_t m_count{0};                                           //!< indices held
};

/**
 * @brief Report the time of one operation as the counter ns_per_op.
 * @param state the benchmark state
 * @param ops operations done over every iteration
 */
void
ReportNsPerOp(benchmark::State& state, uint64_t ops)
{
    state.counters["ns_per_op"] =
        benchmark::Counter(static_cast<double>(ops) * 1e-9,
                           benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

/**
 * @param state a range-set benchmark's state (range(0): chunks, range(1): loss percent)
 * @return per chunk of the stream, whether its first transmission is lost (fixed seed)
 */
std::vector<bool>
LossPattern(const benchmark::State& state)
{
    const auto chunks = static_cast<uint32_t>(state.range(0));
    const auto lossPercent = static_cast<uint32_t>(state.range(1));
    std::mt19937 rng(1);
    std::uniform_int_distribution<uint32_t> percent(0, 99);
    std::vector<bool> lost(chunks);
    for (uint32_t c = 0; c < chunks; ++c)
    {
        lost[c] = percent(rng) < lossPercent;
    }
    return lost;
}

/**
 * A receive stream: the chunks arrive in order except the lost ones, which come back after a
 * NACK of the missing ranges; each arrival is a duplicate check (Holds), an Accept (Insert) and
 * the completion check (Covers). Ops: chunks accepted.
 * @param state the benchmark state (range(0): chunks, range(1): loss percent)
 */
template <class Set>
void
BM_RangeSetReceive(benchmark::State& state)
{
    const std::vector<bool> lost = LossPattern(state);
    const auto chunks = static_cast<uint32_t>(lost.size());
    uint64_t ops = 0;
    for (auto _ : state)
    {
        Set held;
        bool complete = false;
        for (uint32_t c = 0; c < chunks; ++c)
        {
            if (!lost[c] && !held.Contains(c))
            {
                held.Insert(c);
                complete = held.Covers(chunks);
                ++ops;
            }
        }
        while (!complete)
        {
            for (const auto& range : held.GetMissing(chunks, MAX_NACK_RANGES))
            {
                for (uint32_t c = range.first; c < range.second; ++c)
                {
                    if (!held.Contains(c))
                    {
                        held.Insert(c);
                        complete = held.Covers(chunks);
                        ++ops;
                    }
                }
            }
        }
        benchmark::DoNotOptimize(complete);
    }
    ReportNsPerOp(state, ops);
}

/**
 * A send stream: the whole stream is pending, the pacer pops one chunk per send and checks
 * IsEmpty; the lost chunks come back as NACKed ranges, inserted behind the head a few chunks
 * later. Ops: chunks popped.
 * @param state the benchmark state (range(0): chunks, range(1): loss percent)
 */
template <class Set>
void
BM_RangeSetSend(benchmark::State& state)
{
    const std::vector<bool> lost = LossPattern(state);
    uint64_t ops = 0;
    for (auto _ : state)
    {
        Set pending;
        pending.Insert(0, static_cast<uint32_t>(lost.size()));
        uint32_t sent = 0;
        while (!pending.IsEmpty())
        {
            uint32_t chunk = pending.PopFront();
            ++sent;
            ++ops;
            if (sent >= NACK_DELAY && sent - NACK_DELAY < lost.size() && lost[sent - NACK_DELAY])
            {
                pending.Insert(sent - NACK_DELAY, sent - NACK_DELAY + 1);
            }
            benchmark::DoNotOptimize(chunk);
        }
    }
    ReportNsPerOp(state, ops);
}

/**
 * The FPGA's closed chunks of one clique exchange: aggregates leave nearly in order (a slot that
 * waits for its last contributor closes a few chunks late), each closing Inserts, and a late
 * contribution asks Contains. Ops: chunks closed.
 * @param state the benchmark state (range(0): chunks)
 */
template <class Set>
void
BM_RangeSetClose(benchmark::State& state)
{
    const auto chunks = static_cast<uint32_t>(state.range(0));
    std::vector<uint32_t> order(chunks);
    for (uint32_t c = 0; c < chunks; ++c)
    {
        order[c] = c;
    }
    std::mt19937 rng(1);
    for (uint32_t c = 0; c + 4 < chunks; c += 4)
    {
        std::shuffle(order.begin() + c, order.begin() + c + 4, rng);
    }
    uint64_t ops = 0;
    for (auto _ : state)
    {
        Set closed;
        for (uint32_t c : order)
        {
            closed.Insert(c);
            benchmark::DoNotOptimize(closed.Contains(c > 0 ? c - 1 : 0));
            ++ops;
        }
    }
    ReportNsPerOp(state, ops);
}

/** What a round's map holds per key: a stream (large, and address-stable in ns-3 events). */
struct Stream
{
    uint32_t destination{0}; //!< its key
    bool done{false};        //!< whether it finished
    char state[192]{};       //!< the rest of a SendStream (events, pacer, ranges)
};

/** The island's map today: streams in place. */
using StreamMap = std::map<uint32_t, Stream>;
/** flat_map needs movable values and moves them: the streams behind pointers. */
using FlatStreamMap = boost::container::flat_map<uint32_t, std::unique_ptr<Stream>>;

/**
 * @param stream a map entry's value
 * @return the stream
 */
const Stream&
Get(const Stream& stream)
{
    return stream;
}

/**
 * @param stream a map entry's value
 * @return the stream
 */
const Stream&
Get(const std::unique_ptr<Stream>& stream)
{
    return *stream;
}

/**
 * @param keys number of keys
 * @return a map of keys streams 0..keys-1 (members or ring steps)
 */
template <class Map>
Map
MakeStreams(uint32_t keys)
{
    Map map;
    for (uint32_t k = 0; k < keys; ++k)
    {
        if constexpr (std::is_same_v<Map, StreamMap>)
        {
            map[k].destination = k;
        }
        else
        {
            map[k] = std::make_unique<Stream>();
            map[k]->destination = k;
        }
    }
    return map;
}

/**
 * A round's per-member streams looked up once per chunk, the members' chunks interleaved
 * (find, then a field of the stream). Ops: lookups.
 * @param state the benchmark state (range(0): keys)
 */
template <class Map>
void
BM_StreamMapFind(benchmark::State& state)
{
    const auto keys = static_cast<uint32_t>(state.range(0));
    const Map map = MakeStreams<Map>(keys);
    std::vector<uint32_t> lookups(4096);
    std::mt19937 rng(1);
    std::uniform_int_distribution<uint32_t> key(0, keys - 1);
    for (auto& k : lookups)
    {
        k = key(rng);
    }
    uint64_t ops = 0;
    for (auto _ : state)
    {
        uint32_t sum = 0;
        for (uint32_t k : lookups)
        {
            auto it = map.find(k);
            sum += Get(it->second).destination;
        }
        benchmark::DoNotOptimize(sum);
        ops += lookups.size();
    }
    ReportNsPerOp(state, ops);
}

/**
 * The pacer's scan of a round's streams for one with work (StreamPacer::HasWork and Pick: every
 * stream visited, none has work). Ops: scans.
 * @param state the benchmark state (range(0): keys)
 */
template <class Map>
void
BM_StreamMapScan(benchmark::State& state)
{
    const Map map = MakeStreams<Map>(static_cast<uint32_t>(state.range(0)));
    uint64_t ops = 0;
    for (auto _ : state)
    {
        bool any = std::any_of(map.begin(), map.end(), [](const auto& entry) {
            return Get(entry.second).done;
        });
        benchmark::DoNotOptimize(any);
        ++ops;
    }
    ReportNsPerOp(state, ops);
}

/** The FPGA's expectations: job -> per schedule round, clique -> contributor bitmap. */
template <template <class...> class Map>
using Expectations = Map<uint16_t, std::vector<Map<uint16_t, uint64_t>>>;

/**
 * AggregatorNetDevice::GetExpectedContributors per contribution: one job, a schedule of
 * range(0) rounds of range(1) cliques each, contributions of the rounds and cliques in turn.
 * Ops: lookups.
 * @param state the benchmark state
 */
template <template <class...> class Map>
void
BM_ExpectationsFind(benchmark::State& state)
{
    const auto period = static_cast<uint32_t>(state.range(0));
    const auto cliques = static_cast<uint16_t>(state.range(1));
    Expectations<Map> expectations;
    auto& rounds = expectations[1];
    rounds.resize(period);
    for (auto& round : rounds)
    {
        for (uint16_t c = 0; c < cliques; ++c)
        {
            round[c] = 0x1fe;
        }
    }
    uint64_t ops = 0;
    for (auto _ : state)
    {
        uint64_t sum = 0;
        for (uint32_t i = 0; i < 4096; ++i)
        {
            auto job = expectations.find(1);
            const auto& round = job->second[(i / 64) % job->second.size()];
            auto clique = round.find(static_cast<uint16_t>(i % cliques));
            sum += clique == round.end() ? 0 : clique->second;
        }
        benchmark::DoNotOptimize(sum);
        ops += 4096;
    }
    ReportNsPerOp(state, ops);
}

/** (job, round, clique): the key of the FPGA's closed chunks. */
using StreamKey = std::tuple<uint16_t, uint32_t, uint16_t>;

/**
 * AggregatorNetDevice's closed chunks per clique exchange (Close and IsClosed): range(0) earlier
 * exchanges already in the map (rounds run before), then the current one's chunks closed in
 * order, each followed by a late contribution's IsClosed. Ops: chunks closed.
 * @param state the benchmark state
 */
template <template <class...> class Map>
void
BM_ClosedStreams(benchmark::State& state)
{
    const auto earlier = static_cast<uint32_t>(state.range(0));
    Map<StreamKey, ChunkRangeSet> history;
    for (uint32_t r = 0; r < earlier; ++r)
    {
        history[StreamKey{1, r, 0}].Insert(0, CHUNKS_4MB);
    }
    uint64_t ops = 0;
    for (auto _ : state)
    {
        state.PauseTiming();
        Map<StreamKey, ChunkRangeSet> closed = history;
        state.ResumeTiming();
        const StreamKey current{1, earlier, 0};
        for (uint32_t c = 0; c < CHUNKS_4MB; ++c)
        {
            closed[current].Insert(c);
            auto it = closed.find(current);
            benchmark::DoNotOptimize(it != closed.end() && it->second.Contains(c));
        }
        ops += CHUNKS_4MB;
    }
    ReportNsPerOp(state, ops);
}

/** std::map with the two parameters the aliases above pass. */
template <class... T>
using StdMap = std::map<T...>;
/** boost::container::flat_map with the two parameters the aliases above pass. */
template <class... T>
using FlatMap = boost::container::flat_map<T...>;

/**
 * @brief Run a range-set benchmark on a 4 MB and a 64 MB stream, lossless and at 1 % loss.
 * @param b the benchmark
 */
void
RangeArgs(benchmark::internal::Benchmark* b)
{
    b->Args({CHUNKS_4MB, 0})->Args({CHUNKS_4MB, 1})->Args({CHUNKS_64MB, 0})->Args({CHUNKS_64MB, 1});
}

/**
 * @brief Run a map benchmark on 2, 8, 16 and 63 keys (the smallest clique, nine-city members,
 * nine-city ring steps, 64 islands).
 * @param b the benchmark
 */
void
KeyArgs(benchmark::internal::Benchmark* b)
{
    b->Arg(2)->Arg(8)->Arg(16)->Arg(63);
}

BENCHMARK_TEMPLATE(BM_RangeSetReceive, ChunkRangeSet)->Apply(RangeArgs);
BENCHMARK_TEMPLATE(BM_RangeSetReceive, IclRangeSet)->Apply(RangeArgs);
BENCHMARK_TEMPLATE(BM_RangeSetSend, ChunkRangeSet)->Apply(RangeArgs);
BENCHMARK_TEMPLATE(BM_RangeSetSend, IclRangeSet)->Apply(RangeArgs);
BENCHMARK_TEMPLATE(BM_RangeSetClose, ChunkRangeSet)->Arg(CHUNKS_4MB)->Arg(CHUNKS_64MB);
BENCHMARK_TEMPLATE(BM_RangeSetClose, IclRangeSet)->Arg(CHUNKS_4MB)->Arg(CHUNKS_64MB);
BENCHMARK_TEMPLATE(BM_StreamMapFind, StreamMap)->Apply(KeyArgs);
BENCHMARK_TEMPLATE(BM_StreamMapFind, FlatStreamMap)->Apply(KeyArgs);
BENCHMARK_TEMPLATE(BM_StreamMapScan, StreamMap)->Apply(KeyArgs);
BENCHMARK_TEMPLATE(BM_StreamMapScan, FlatStreamMap)->Apply(KeyArgs);
BENCHMARK_TEMPLATE(BM_ExpectationsFind, StdMap)->Args({1, 1})->Args({4, 4});
BENCHMARK_TEMPLATE(BM_ExpectationsFind, FlatMap)->Args({1, 1})->Args({4, 4});
BENCHMARK_TEMPLATE(BM_ClosedStreams, StdMap)->Arg(0)->Arg(16)->Arg(256);
BENCHMARK_TEMPLATE(BM_ClosedStreams, FlatMap)->Arg(0)->Arg(16)->Arg(256);

} // namespace
} // namespace ns3

BENCHMARK_MAIN();
