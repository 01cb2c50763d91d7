/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef CLIQUE_AVERAGE_VERIFIER_H
#define CLIQUE_AVERAGE_VERIFIER_H

#include "exchange-plan.h"
#include "link-load-model.h"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace ns3
{

class TrainingRecorder;

/**
 * @ingroup wan-training
 * @brief Verifies the averages of a training run's cliques against shadow copies.
 *
 * At exchange start it keeps a copy of every member's contribution (cliques of two or more):
 * its fp32 parameters, and the values the clique's payload format decodes them to (what every
 * member averages). When a member ends the round its new parameters are compared with the
 * exact double-precision average of the decoded shadow copies of the members it reports as
 * contributors (TrainingIslandApplication::GetRoundContributors, as recorded by the
 * TrainingRecorder: the whole clique, or the members left after exclusions), never with what
 * the island received. The bound (doc/wan-training.rst, "Payload formats"), per value, for c
 * contributors and a sum that went through at most m encodings in the clique's algorithm:
 *
 *   (m (h_f(A) + h_32(A)) + c r) / c + h_32(avg) + VERIFY_TOLERANCE max(1, |avg|)
 *
 * with A the sum of the contributions' magnitudes (no partial sum is larger, so no encoding's
 * half step is), h_f the format's half step (PayloadCodec::GetHalfSteps) and h_32 fp32's (a
 * double sum is rounded to float before it is encoded), r the FPGAs' fixed-point resolution
 * (FixedPointSum::RESOLUTION, in aggregation, both and tree), and m = 0 (unicast, multicast),
 * 1 (aggregation, both: one edge FPGA, which emits at most one aggregate of a chunk), c - 1
 * (ring: one encoding per step after the first) or the routers of the in-tree + 1 (tree: one
 * aggregate per router and chunk, then the root's totals). Anything beyond fails.
 *
 * It also reports the format's error: the member's average against the exact double average of
 * the contributors' fp32 parameters, per round (max |err| and max |err| / max |avg|). And it
 * checks the contributor sets: each holds the member itself and members of the clique only,
 * and two completed members that averaged each other's contributions averaged over the same
 * set. The outcomes it reads (status, contributors) are the recorder's; the shadow copies of a
 * clique are released once every member's outcome is known.
 */
class CliqueAverageVerifier
{
  public:
    /** Relative tolerance of the verification, max(1, |average|) scaled. */
    static constexpr double VERIFY_TOLERANCE = 1e-6;

    /** The format's error in one round: decoded averages against exact fp32 averages. */
    struct FormatError
    {
        double maxAbs{0};     //!< the largest |average - exact average of fp32 parameters|
        double maxAverage{0}; //!< the largest |exact average| over the same values
        /** @return maxAbs / maxAverage (0 when every average is 0) */
        double GetRelative() const;
    };

    /**
     * @param mode a clique's algorithm
     * @param contributors its contributors
     * @param treeRouters the routers of its in-tree (tree mode)
     * @return the most encodings a sum of theirs goes through (see the class description)
     */
    static uint32_t GetMaxEncodings(CapabilityMode mode,
                                    uint32_t contributors,
                                    uint32_t treeRouters);

    /**
     * @brief The bound of the class description, per value.
     * @param format the payload format
     * @param encodings m, the most encodings the sum went through (GetMaxEncodings)
     * @param fixedPoint whether FPGAs summed (adds contributors x FixedPointSum::RESOLUTION)
     * @param contributors c
     * @param magnitude A: per value, the sum of the decoded contributions' magnitudes
     * @param average per value, the exact average of the decoded contributions
     * @return per value, the largest |average computed - average| a correct exchange leaves
     */
    static std::vector<double> GetBound(PayloadFormat format,
                                        uint32_t encodings,
                                        bool fixedPoint,
                                        uint32_t contributors,
                                        const std::vector<double>& magnitude,
                                        const std::vector<double>& average);

    /**
     * @param recorder the recorder whose outcomes (status, contributors) it reads; it must
     *        outlive the verifier
     */
    explicit CliqueAverageVerifier(const TrainingRecorder& recorder);

    /**
     * @brief Keep a shadow copy of a member's contribution (cliques of two or more).
     * @param island the member
     * @param round the round
     * @param clique its clique
     * @param parameters its contribution
     */
    void AddContribution(uint32_t island,
                         uint32_t round,
                         uint32_t clique,
                         const std::vector<float>& parameters);
    /**
     * @brief Check a member's new parameters against the shadow average over its contributors
     * (recorded as COMPLETED by the recorder already).
     * @param island the member
     * @param round the round
     * @param clique its clique
     * @param parameters its new parameters
     * @return why the average could not be checked (contributors that were not recorded), or
     *         empty when it was checked
     */
    std::string CheckAverage(uint32_t island,
                             uint32_t round,
                             uint32_t clique,
                             const std::vector<float>& parameters);
    /**
     * @brief Forget the shadow copies of a clique once every member's outcome is known.
     * @param round the round
     * @param clique the clique
     */
    void ReleaseShadow(uint32_t round, uint32_t clique);

    /**
     * @param round a round
     * @param island an island
     * @return whether its average was within the tolerance of the shadow average over its
     *         contributors (false unless COMPLETED)
     */
    bool IsMemberVerified(uint32_t round, uint32_t island) const;
    /**
     * @param round a round
     * @param clique a clique index of the round's schedule round
     * @return whether the completed members' contributor sets are consistent: each holds the
     *         member itself and members of the clique only, and two completed members that
     *         averaged each other's contributions averaged over the same set
     */
    bool IsCliqueConsistent(uint32_t round, uint32_t clique) const;
    /**
     * @param round a round
     * @param clique a clique index of the round's schedule round
     * @return whether no completed member averaged a completed member that left it out
     */
    bool IsCliqueSymmetric(uint32_t round, uint32_t clique) const;
    /**
     * @param round a round
     * @return whether every island that did not crash completed it with a verified average
     */
    bool AreMembersVerified(uint32_t round) const;
    /**
     * @param round a round
     * @return whether every island that did not crash completed it with a verified average and
     *         every clique of it is consistent
     */
    bool IsRoundVerified(uint32_t round) const;
    /**
     * @return rounds in which every island that did not crash completed the round, every
     *         average was verified and every clique's contributor sets are consistent (0 when
     *         some error exceeded the tolerance)
     */
    uint32_t GetRoundsVerified() const;
    /** @return member checks done (one per member of a clique of two or more per round) */
    uint64_t GetChecks() const;
    /** @return the largest |new parameter - shadow average| */
    double GetMaxAbsError() const;
    /** @return the largest |new parameter - shadow average| / max(1, |shadow average|) */
    double GetMaxRelError() const;
    /** @return the largest |new parameter - shadow average| / its bound (passed: <= 1) */
    double GetMaxErrorOverBound() const;
    /**
     * @param round a round
     * @return the format's error in it over its completed members of cliques of two or more
     */
    const FormatError& GetFormatError(uint32_t round) const;
    /** @return the largest FormatError::maxAbs over the rounds */
    double GetMaxFormatAbsError() const;
    /** @return the largest FormatError::GetRelative() over the rounds */
    double GetMaxFormatRelError() const;

  private:
    /** What a contributor set's average is checked against. */
    struct Expected
    {
        std::vector<double> average; //!< exact average of the decoded contributions
        std::vector<double> exact;   //!< exact average of the fp32 parameters
        std::vector<double> bound;   //!< the largest |error| allowed, per value
    };

    /** Shadow copies of one clique's contributions in one round. */
    struct Shadow
    {
        std::map<uint32_t, std::vector<float>> contributions; //!< fp32 parameters, by member
        std::map<uint32_t, std::vector<float>> decoded;       //!< as the format decodes them
        std::map<uint64_t, Expected> expected;                //!< by contributor set
    };

    /**
     * @param round a round
     * @param clique a clique of it
     * @return whether the clique has two members or more
     */
    bool IsShared(uint32_t round, uint32_t clique) const;
    /**
     * @param shadow the clique's shadow copies
     * @param contributors a contributor set of the clique (bitmap)
     * @param members the same set, in the clique's member order (the order of the sum)
     * @param plan the plan of the round of a member (its algorithm and format)
     * @return the averages and bounds of the set (computed once per set)
     */
    const Expected& GetExpected(Shadow& shadow,
                                uint64_t contributors,
                                const std::vector<uint32_t>& members,
                                const ExchangePlan& plan);
    /**
     * @param round the round
     * @param parameters a member's new parameters
     * @param expected what they are checked against
     * @return whether every error is within its bound (the run's largest errors and the
     *         round's format error are updated)
     */
    bool Compare(uint32_t round, const std::vector<float>& parameters, const Expected& expected);

    const TrainingRecorder& m_recorder;                        //!< the outcomes
    std::map<std::pair<uint32_t, uint32_t>, Shadow> m_shadows; //!< (round, clique) -> shadow
    std::vector<std::vector<bool>> m_verified;                 //!< [round][island] check passed
    uint64_t m_checks{0};                                      //!< member checks
    double m_maxAbsError{0};                                   //!< largest absolute error
    double m_maxRelError{0};                                   //!< largest scaled error
    double m_maxErrorOverBound{0};                             //!< largest error / bound
    std::vector<FormatError> m_formatErrors;                   //!< by round
    std::unique_ptr<LinkLoadModel> m_loads;                    //!< tree routers (made once)
};

} // namespace ns3

#endif /* CLIQUE_AVERAGE_VERIFIER_H */
