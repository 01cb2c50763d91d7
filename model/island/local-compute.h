/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef LOCAL_COMPUTE_H
#define LOCAL_COMPUTE_H

#include "ns3/callback.h"
#include "ns3/event-id.h"
#include "ns3/nstime.h"

#include <cstdint>
#include <string>
#include <vector>

namespace ns3
{

class LocalObjective;

/**
 * @ingroup wan-training
 * @brief An island's local compute: the gradient steps of a round on its parameters, one
 * event per step, and, with overlap, the snapshot the exchange of a round carries while the
 * next round's steps move the parameters on.
 *
 * Start() runs `steps` steps of `stepTime` each on the parameter vector it was given and calls
 * back when they are done (at once, in an event of its own, for zero steps). Without overlap the
 * island exchanges its parameters themselves (they do not move during the exchange); with
 * overlap TakeSnapshot() keeps x_r and ApplyAverage() adds avg_r - x_r to the parameters when
 * the round's average arrives (doc/wan-training.rst, "Overlap (streaming)").
 */
class LocalCompute
{
  public:
    /** A round that has not computed yet. */
    static constexpr uint32_t NONE = UINT32_MAX;

    /**
     * @param parameters the island's parameters (must outlive this object)
     */
    explicit LocalCompute(std::vector<float>& parameters);

    /**
     * @param steps local steps per round
     * @param stepTime the time of one
     * @param learningRate the gradient step size
     */
    void Configure(uint32_t steps, Time stepTime, double learningRate);

    /**
     * @brief Start a round's steps.
     * @param round the round
     * @param objective the island's objective (must outlive the steps)
     * @param done called when the steps are done
     */
    void Start(uint32_t round, const LocalObjective& objective, Callback<void> done);
    /**
     * @brief Call back at once, in an event of its own (Cancel() cancels it too).
     * @param then what to call
     */
    void ScheduleNow(Callback<void> then);
    /** Cancel the pending step (or callback). */
    void Cancel();

    /** @return the round whose steps run or ran last (NONE before the first) */
    uint32_t GetRound() const;
    /** @return whether steps are under way */
    bool IsComputing() const;
    /** @return "computing (local step k of n)" */
    std::string Describe() const;

    /** Keep the parameters as the snapshot of the round being exchanged. */
    void TakeSnapshot();
    /** @return the snapshot TakeSnapshot() kept */
    const std::vector<float>& GetSnapshot() const;
    /**
     * @brief The delayed correction x <- x + (avg_r - x_r).
     * @param average the clique's average of the snapshots
     */
    void ApplyAverage(const std::vector<float>& average);

  private:
    /** One step; the next one, or the callback. */
    void Step();
    /** The steps are done: call back. */
    void Finish();

    std::vector<float>& m_parameters;           //!< the island's parameters
    uint32_t m_steps{0};                        //!< steps per round
    Time m_stepTime;                            //!< time of one
    double m_learningRate{0};                   //!< step size
    const LocalObjective* m_objective{nullptr}; //!< the objective of the steps under way
    Callback<void> m_done;                      //!< called when they are done
    uint32_t m_round{NONE};                     //!< round of the steps
    uint32_t m_stepsDone{0};                    //!< steps done in m_round
    bool m_computing{false};                    //!< whether steps are under way
    EventId m_event;                            //!< the next step or callback
    std::vector<float> m_snapshot;              //!< overlap: x_r
};

} // namespace ns3

#endif /* LOCAL_COMPUTE_H */
