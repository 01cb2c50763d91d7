/*
 * Copyright (c) 2026 The wan-training authors
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "clique-schedule.h"
#include "payload-format.h"
#include "training-results.h"
#include "training-run-summary.h"
#include "training-run.h"
#include "wan-topology.h"

#include "ns3/test.h"

#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

/**
 * @file
 * @ingroup wan-training-tests
 * Payload formats on the wire, packet by packet: in every mode and format every round verifies
 * (the sum within the format's bound), every link carries the format's S per stream (int8 =
 * fp32 x (1 + 4/1024) / 4 and bf16 = fp32 / 2 for a model of whole blocks, exactly: chunking
 * does not change a contribution's bytes), the results name the format, and the format's error
 * is reported per round: within fp32's rounding in fp32, within the format's resolution
 * otherwise.
 */

using namespace ns3;

namespace
{

/** The nine-city WAN (multicast, aggregation, an FPGA on every router: every mode runs). */
const std::string NINE_CITY = "../topologies/doublezero-nine-city.json";
/** The model in parameters: 100 whole int8 blocks. */
constexpr uint64_t PARAMETERS = 100 * INT8_BLOCK_VALUES;

/** What one run of a mode in a format gives. */
struct FormatRun
{
    uint32_t roundsVerified{0};                //!< rounds verified
    std::map<std::string, uint64_t> linkBytes; //!< model bytes by directed link
    TrainingRunSummary summary;                //!< the results, typed
};

/**
 * @param topology the WAN
 * @param mode the mode
 * @param format the format
 * @return one round of the Latin schedule with the model in that format
 */
FormatRun
Simulate(const WanTopology& topology, CapabilityMode mode, PayloadFormat format)
{
    TrainingRun::Config config;
    config.mode = mode;
    config.format = format;
    config.modelBytes = GetEncodedBytes(format, PARAMETERS);
    config.parameterCount = 4096;
    config.rounds = 2;
    config.localSteps = 2;
    // One simulation at a time: the run is destroyed before the next.
    TrainingRun run(topology, CliqueSchedule::LatinTriples(topology.GetNCities()), config);
    run.Build();
    run.Run();
    FormatRun result;
    result.roundsVerified = run.GetResults().GetRoundsVerified();
    result.summary = TrainingRunSummary::Parse(run.GetResults().ToJson(), "payload-formats");
    for (const auto& [name, link] : result.summary.links)
    {
        result.linkBytes[name] = link.modelBytes;
    }
    return result;
}

/**
 * @ingroup wan-training-tests
 * Every mode in every format: verified, the format's bytes on every link, its error reported.
 */
class PayloadFormatsOnTheWireTestCase : public TestCase
{
  public:
    PayloadFormatsOnTheWireTestCase()
        : TestCase("every mode in fp32, bf16 and int8: every round verified, every link carries "
                   "the format's S per stream exactly, the format's error per round")
    {
    }

  private:
    void DoRun() override
    {
        const WanTopology topology = WanTopology::LoadFile(CreateDataDirFilename(NINE_CITY));
        const double fp32Bytes = GetEncodedBytes(PayloadFormat::FP32, PARAMETERS);
        for (CapabilityMode mode : {CapabilityMode::UNICAST,
                                    CapabilityMode::MULTICAST,
                                    CapabilityMode::AGGREGATION,
                                    CapabilityMode::BOTH,
                                    CapabilityMode::RING,
                                    CapabilityMode::TREE})
        {
            const std::string modeName = CapabilityModeToString(mode);
            const FormatRun fp32 = Simulate(topology, mode, PayloadFormat::FP32);
            for (PayloadFormat format : GetAllPayloadFormats())
            {
                const std::string what = modeName + " " + PayloadFormatToString(format);
                const FormatRun run =
                    format == PayloadFormat::FP32 ? fp32 : Simulate(topology, mode, format);
                NS_TEST_EXPECT_MSG_EQ(run.roundsVerified, 2u, what << ": every round verified");
                NS_TEST_EXPECT_MSG_EQ(run.summary.config.format,
                                      PayloadFormatToString(format),
                                      what << ": the config names the format");
                // S of the format over fp32's, on every link: (1 + 4/1024) / 4 in int8. A
                // ring's segments are whole chunks (floor(j C / k)), and the formats' chunks
                // differ: its links carry the ratio to a few chunks (exactly in ring-mode).
                const double ratio = GetEncodedBytes(format, PARAMETERS) / fp32Bytes;
                uint64_t carried = 0;
                for (const auto& [name, bytes] : fp32.linkBytes)
                {
                    const double expected = static_cast<double>(bytes) * ratio;
                    if (mode == CapabilityMode::RING)
                    {
                        NS_TEST_EXPECT_MSG_EQ_TOL(static_cast<double>(run.linkBytes.at(name)),
                                                  expected,
                                                  0.05 * expected,
                                                  what << ": model bytes on " << name);
                    }
                    else
                    {
                        NS_TEST_EXPECT_MSG_EQ(run.linkBytes.at(name),
                                              static_cast<uint64_t>(std::llround(expected)),
                                              what << ": model bytes on " << name);
                    }
                    carried += bytes;
                }
                NS_TEST_EXPECT_MSG_GT(carried, 0u, what << ": traffic");
                // The format's error: fp32 averages round once to float; bf16 and int8
                // quantize every contribution (at most 2^-8 relative, or half an int8 scale,
                // which is at most max |x| / 254) and some sums again.
                const double rel = run.summary.verification.formatError.maxRel;
                for (const TrainingRunSummary::Round& round : run.summary.rounds)
                {
                    NS_TEST_EXPECT_MSG_LT_OR_EQ(round.formatError.maxAbs,
                                                run.summary.verification.formatError.maxAbs,
                                                what << ": the run's largest error");
                }
                if (format == PayloadFormat::FP32)
                {
                    NS_TEST_EXPECT_MSG_LT(rel, std::ldexp(1.0, -20), what << ": rounding only");
                }
                else
                {
                    NS_TEST_EXPECT_MSG_GT(rel, std::ldexp(1.0, -20), what << ": quantized");
                    NS_TEST_EXPECT_MSG_LT(rel, 0.05, what << ": a few steps of the format");
                }
            }
        }
    }
};

/**
 * @ingroup wan-training-tests
 * The payload formats suite.
 */
class PayloadFormatsTestSuite : public TestSuite
{
  public:
    PayloadFormatsTestSuite()
        : TestSuite("wan-training-payload-formats", UNIT)
    {
        SetDataDir(NS_TEST_SOURCEDIR);
        AddTestCase(new PayloadFormatsOnTheWireTestCase, TestCase::QUICK);
    }
};

/** The suite's one instance. */
PayloadFormatsTestSuite g_payloadFormatsTestSuite;

} // namespace
