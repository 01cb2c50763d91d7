/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef CLIQUE_AVERAGE_VERIFIER_H
#define CLIQUE_AVERAGE_VERIFIER_H

#include <cstdint>
#include <map>
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
 * At exchange start it keeps a copy of every member's contribution (cliques of two or more);
 * when a member ends the round its new parameters are compared with the double-precision
 * average of the shadow copies of the members it reports as contributors
 * (TrainingIslandApplication::GetRoundContributors, as recorded by the TrainingRecorder: the
 * whole clique, or the members left after exclusions), never with what the island received.
 * It also checks the contributor sets: each holds the member itself and members of the clique
 * only, and two completed members that averaged each other's contributions averaged over the
 * same set. The outcomes it reads (status, contributors) are the recorder's; the shadow copies
 * of a clique are released once every member's outcome is known.
 */
class CliqueAverageVerifier
{
  public:
    /** Relative tolerance of the verification, max(1, |average|) scaled. */
    static constexpr double VERIFY_TOLERANCE = 1e-6;

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

  private:
    /** Shadow copies of one clique's contributions in one round. */
    struct Shadow
    {
        std::map<uint32_t, std::vector<float>> contributions; //!< by member
        std::map<uint64_t, std::vector<double>> averages;     //!< by contributor set
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
     * @param dimension the parameters' dimension
     * @return the double-precision average of their shadow copies (computed once per set)
     */
    static const std::vector<double>& GetAverage(Shadow& shadow,
                                                 uint64_t contributors,
                                                 const std::vector<uint32_t>& members,
                                                 size_t dimension);
    /**
     * @param parameters a member's new parameters
     * @param average the shadow average
     * @return the member's largest scaled error (the run's largest errors are updated)
     */
    double CompareToAverage(const std::vector<float>& parameters,
                            const std::vector<double>& average);

    const TrainingRecorder& m_recorder;                        //!< the outcomes
    std::map<std::pair<uint32_t, uint32_t>, Shadow> m_shadows; //!< (round, clique) -> shadow
    std::vector<std::vector<bool>> m_verified;                 //!< [round][island] check passed
    uint64_t m_checks{0};                                      //!< member checks
    double m_maxAbsError{0};                                   //!< largest absolute error
    double m_maxRelError{0};                                   //!< largest scaled error
};

} // namespace ns3

#endif /* CLIQUE_AVERAGE_VERIFIER_H */
