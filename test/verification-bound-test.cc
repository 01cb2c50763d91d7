/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "clique-average-verifier.h"
#include "fixed-point-sum.h"
#include "payload-codec.h"

#include <cmath>
#include <gtest/gtest.h>
#include <random>
#include <string>
#include <vector>

/**
 * @file
 * @ingroup wan-training-tests
 * GoogleTest cases for the verification bound (CliqueAverageVerifier::GetBound;
 * doc/wan-training.rst, "Payload formats in the islands"): random contributions in every
 * format, summed the way each algorithm sums them (in double on an island, in FixedPointSum on
 * an FPGA, encoded by whoever emits a sum), stay within the bound; a sum that misses or repeats
 * a contribution does not.
 */

using namespace ns3;

namespace
{

/** Values per contribution: four int8 blocks. */
constexpr size_t DIMENSION = 4 * INT8_BLOCK_VALUES;

/** A clique's contributions, decoded. */
using Contributions = std::vector<std::vector<float>>;

/**
 * @param format the format
 * @param k members
 * @param rng the generator
 * @return k contributions of mixed signs and scales (a scale per block, so that int8 blocks
 *         differ), decoded in the format
 */
Contributions
MakeContributions(PayloadFormat format, uint32_t k, std::mt19937_64& rng)
{
    std::normal_distribution<double> normal;
    std::uniform_real_distribution<double> exponent(-4, 2);
    Contributions contributions(k, std::vector<float>(DIMENSION));
    for (size_t block = 0; block < DIMENSION / INT8_BLOCK_VALUES; ++block)
    {
        const double scale = std::pow(10.0, exponent(rng));
        for (auto& values : contributions)
        {
            for (size_t v = block * INT8_BLOCK_VALUES; v < (block + 1) * INT8_BLOCK_VALUES; ++v)
            {
                values[v] = static_cast<float>(scale * normal(rng));
            }
        }
    }
    for (auto& values : contributions)
    {
        PayloadCodec::Quantize(format, values);
    }
    return contributions;
}

/**
 * @param format the format
 * @param values values
 * @return them encoded and decoded after rounding to float (what an emitter sends)
 */
std::vector<float>
Emit(PayloadFormat format, const std::vector<double>& values)
{
    std::vector<float> sent(values.begin(), values.end());
    PayloadCodec::Quantize(format, sent);
    return sent;
}

/**
 * @param sums fixed-point sums
 * @return them as the FPGA rounds them to float
 */
std::vector<double>
ToDouble(const std::vector<int64_t>& sums)
{
    std::vector<double> values(sums.size());
    for (size_t v = 0; v < sums.size(); ++v)
    {
        values[v] = FixedPointSum::ToFloat(sums[v]);
    }
    return values;
}

/** How each algorithm sums a clique's contributions. */
enum class Summation
{
    ISLAND, //!< unicast, multicast: every decoded contribution added in double
    EDGE,   //!< aggregation, both: an FPGA sums the others, the island adds its own
    RING,   //!< a partial sum around the ring, encoded at every step
    TREE,   //!< routers in a chain, each summing one more member into the partial aggregate
};

/**
 * @param format the format
 * @param how the summation
 * @param contributions the decoded contributions (member 0 is the island that averages)
 * @return the average the island computes
 */
std::vector<float>
Average(PayloadFormat format, Summation how, const Contributions& contributions)
{
    const uint32_t k = contributions.size();
    std::vector<double> total(DIMENSION, 0.0);
    switch (how)
    {
    case Summation::ISLAND:
        for (const auto& values : contributions)
        {
            for (size_t v = 0; v < DIMENSION; ++v)
            {
                total[v] += values[v];
            }
        }
        break;
    case Summation::EDGE: {
        std::vector<int64_t> sums(DIMENSION, 0);
        for (uint32_t i = 1; i < k; ++i)
        {
            EXPECT_TRUE(FixedPointSum::Add(sums, contributions[i]));
        }
        const std::vector<float> aggregate = Emit(format, ToDouble(sums));
        for (size_t v = 0; v < DIMENSION; ++v)
        {
            total[v] = static_cast<double>(aggregate[v]) + contributions[0][v];
        }
        break;
    }
    case Summation::RING: {
        std::vector<float> partial = contributions[0];
        for (uint32_t i = 1; i < k; ++i)
        {
            std::vector<double> sum(DIMENSION);
            for (size_t v = 0; v < DIMENSION; ++v)
            {
                sum[v] = static_cast<double>(partial[v]) + contributions[i][v];
            }
            partial = Emit(format, sum);
        }
        total.assign(partial.begin(), partial.end());
        break;
    }
    case Summation::TREE: {
        // Router i sums the partial aggregate of router i-1 and member i's contribution; the
        // root (member 0) adds its own and encodes the totals.
        std::vector<float> partial = contributions[k - 1];
        for (uint32_t i = k - 1; i-- > 1;)
        {
            std::vector<int64_t> sums(DIMENSION, 0);
            EXPECT_TRUE(FixedPointSum::Add(sums, partial));
            EXPECT_TRUE(FixedPointSum::Add(sums, contributions[i]));
            partial = Emit(format, ToDouble(sums));
        }
        std::vector<double> sum(DIMENSION);
        for (size_t v = 0; v < DIMENSION; ++v)
        {
            sum[v] = static_cast<double>(partial[v]) + contributions[0][v];
        }
        const std::vector<float> totals = Emit(format, sum);
        total.assign(totals.begin(), totals.end());
        break;
    }
    }
    std::vector<float> average(DIMENSION);
    for (size_t v = 0; v < DIMENSION; ++v)
    {
        average[v] = static_cast<float>(total[v] / k);
    }
    return average;
}

/**
 * @param how a summation
 * @param k members
 * @return the mode whose encodings it makes, and their count by GetMaxEncodings
 */
std::pair<CapabilityMode, uint32_t>
ModeOf(Summation how, uint32_t k)
{
    switch (how)
    {
    case Summation::ISLAND:
        return {CapabilityMode::UNICAST,
                CliqueAverageVerifier::GetMaxEncodings(CapabilityMode::UNICAST, k, 0)};
    case Summation::EDGE:
        return {CapabilityMode::BOTH,
                CliqueAverageVerifier::GetMaxEncodings(CapabilityMode::BOTH, k, 0)};
    case Summation::RING:
        return {CapabilityMode::RING,
                CliqueAverageVerifier::GetMaxEncodings(CapabilityMode::RING, k, 0)};
    case Summation::TREE:
        // k - 1 routers on the chain (the last member's router starts it).
        return {CapabilityMode::TREE,
                CliqueAverageVerifier::GetMaxEncodings(CapabilityMode::TREE, k, k - 1)};
    }
    return {CapabilityMode::UNICAST, 0};
}

/**
 * @param contributions decoded contributions
 * @param magnitude receives the sum of their magnitudes per value
 * @return their exact average per value
 */
std::vector<double>
ExactAverage(const Contributions& contributions, std::vector<double>& magnitude)
{
    std::vector<double> average(DIMENSION, 0.0);
    magnitude.assign(DIMENSION, 0.0);
    for (const auto& values : contributions)
    {
        for (size_t v = 0; v < DIMENSION; ++v)
        {
            average[v] += values[v];
            magnitude[v] += std::abs(static_cast<double>(values[v]));
        }
    }
    for (double& value : average)
    {
        value /= contributions.size();
    }
    return average;
}

/**
 * @param average an average
 * @param exact the exact one
 * @param bound the bound
 * @return the largest |average - exact| / bound
 */
double
WorstRatio(const std::vector<float>& average,
           const std::vector<double>& exact,
           const std::vector<double>& bound)
{
    double worst = 0;
    for (size_t v = 0; v < DIMENSION; ++v)
    {
        worst = std::max(worst, std::abs(average[v] - exact[v]) / bound[v]);
    }
    return worst;
}

/** Every summation. */
const std::vector<Summation> SUMMATIONS{Summation::ISLAND,
                                        Summation::EDGE,
                                        Summation::RING,
                                        Summation::TREE};

/**
 * @param how a summation
 * @return its name
 */
std::string
Name(Summation how)
{
    const char* names[] = {"island", "edge", "ring", "tree"};
    return names[static_cast<int>(how)];
}

} // namespace

TEST(VerificationBound, EncodingsAreCountedPerAlgorithm)
{
    EXPECT_EQ(CliqueAverageVerifier::GetMaxEncodings(CapabilityMode::UNICAST, 9, 0), 0U);
    EXPECT_EQ(CliqueAverageVerifier::GetMaxEncodings(CapabilityMode::MULTICAST, 9, 0), 0U);
    EXPECT_EQ(CliqueAverageVerifier::GetMaxEncodings(CapabilityMode::AGGREGATION, 9, 0), 1U);
    EXPECT_EQ(CliqueAverageVerifier::GetMaxEncodings(CapabilityMode::BOTH, 9, 0), 1U);
    EXPECT_EQ(CliqueAverageVerifier::GetMaxEncodings(CapabilityMode::RING, 9, 0), 8U);
    EXPECT_EQ(CliqueAverageVerifier::GetMaxEncodings(CapabilityMode::TREE, 9, 6), 7U);
}

TEST(VerificationBound, EveryAlgorithmStaysWithinItInEveryFormat)
{
    std::mt19937_64 rng(20);
    for (PayloadFormat format : GetAllPayloadFormats())
    {
        for (uint32_t k : {2U, 3U, 5U, 9U})
        {
            for (Summation how : SUMMATIONS)
            {
                for (int trial = 0; trial < 3; ++trial)
                {
                    const Contributions contributions = MakeContributions(format, k, rng);
                    std::vector<double> magnitude;
                    const std::vector<double> exact = ExactAverage(contributions, magnitude);
                    const auto [mode, encodings] = ModeOf(how, k);
                    const std::vector<double> bound = CliqueAverageVerifier::GetBound(
                        format,
                        encodings,
                        how == Summation::EDGE || how == Summation::TREE,
                        k,
                        magnitude,
                        exact);
                    const double ratio =
                        WorstRatio(Average(format, how, contributions), exact, bound);
                    EXPECT_LE(ratio, 1.0) << PayloadFormatToString(format) << " " << Name(how)
                                          << " k=" << k << " trial " << trial;
                }
            }
        }
    }
}

TEST(VerificationBound, AMissingOrRepeatedContributionFails)
{
    // The ring (the loosest bound: k - 1 encodings) summing one contribution twice instead of
    // another, and the island averaging without one: beyond the bound in every format.
    std::mt19937_64 rng(21);
    for (PayloadFormat format : GetAllPayloadFormats())
    {
        for (uint32_t k : {2U, 3U, 9U})
        {
            const Contributions contributions = MakeContributions(format, k, rng);
            std::vector<double> magnitude;
            const std::vector<double> exact = ExactAverage(contributions, magnitude);
            const uint32_t encodings =
                CliqueAverageVerifier::GetMaxEncodings(CapabilityMode::RING, k, 0);
            const std::vector<double> bound =
                CliqueAverageVerifier::GetBound(format, encodings, false, k, magnitude, exact);
            Contributions repeated = contributions;
            repeated[k - 1] = contributions[0];
            EXPECT_GT(WorstRatio(Average(format, Summation::RING, repeated), exact, bound), 1.0)
                << PayloadFormatToString(format) << " k=" << k << ": repeated";
            Contributions missing = contributions;
            missing[k - 1].assign(DIMENSION, 0.0F);
            EXPECT_GT(WorstRatio(Average(format, Summation::RING, missing), exact, bound), 1.0)
                << PayloadFormatToString(format) << " k=" << k << ": missing";
        }
    }
}

TEST(VerificationBound, FormatErrorsStayWithinTheirPerValueBounds)
{
    // bf16: |decoded - x| <= 2^-8 |x| for normal values; int8: <= s / 2 of the block. The
    // average of decoded contributions is off from the fp32 average by at most the mean of
    // those (plus the average's own rounding to float).
    std::mt19937_64 rng(22);
    for (PayloadFormat format : {PayloadFormat::BF16, PayloadFormat::INT8})
    {
        const uint32_t k = 5;
        const Contributions raw = MakeContributions(PayloadFormat::FP32, k, rng);
        Contributions decoded = raw;
        std::vector<double> allowed(DIMENSION, 0.0);
        for (auto& values : decoded)
        {
            const std::vector<float> original = values;
            PayloadCodec::Quantize(format, values);
            for (size_t block = 0; block < DIMENSION / INT8_BLOCK_VALUES; ++block)
            {
                const float* first = original.data() + block * INT8_BLOCK_VALUES;
                const double halfScale = PayloadCodec::GetInt8Scale(first, INT8_BLOCK_VALUES) / 2.0;
                for (size_t v = block * INT8_BLOCK_VALUES; v < (block + 1) * INT8_BLOCK_VALUES; ++v)
                {
                    const double error = std::abs(values[v] - original[v]);
                    const double perValue = format == PayloadFormat::BF16
                                                ? std::ldexp(std::abs(original[v]), -8)
                                                : halfScale;
                    EXPECT_LE(error, perValue) << PayloadFormatToString(format) << " value " << v;
                    allowed[v] += perValue / k;
                }
            }
        }
        std::vector<double> magnitude;
        const std::vector<double> exact = ExactAverage(raw, magnitude);
        const std::vector<float> average = Average(format, Summation::ISLAND, decoded);
        for (size_t v = 0; v < DIMENSION; ++v)
        {
            EXPECT_LE(std::abs(average[v] - exact[v]),
                      allowed[v] + std::ldexp(std::abs(exact[v]), -23) + 1e-30)
                << PayloadFormatToString(format) << " value " << v;
        }
    }
}
