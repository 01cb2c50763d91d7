/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#include "local-compute.h"

#include "local-objective.h"

#include "ns3/log.h"
#include "ns3/simulator.h"

namespace ns3
{

NS_LOG_COMPONENT_DEFINE("WanTrainingLocalCompute");

LocalCompute::LocalCompute(std::vector<float>& parameters)
    : m_parameters(parameters)
{
}

void
LocalCompute::Configure(uint32_t steps, Time stepTime, double learningRate)
{
    m_steps = steps;
    m_stepTime = stepTime;
    m_learningRate = learningRate;
}

void
LocalCompute::Start(uint32_t round, const LocalObjective& objective, Callback<void> done)
{
    NS_LOG_FUNCTION(this << round);
    m_round = round;
    m_objective = &objective;
    m_done = done;
    m_computing = true;
    m_stepsDone = 0;
    if (m_steps > 0)
    {
        m_event = Simulator::Schedule(m_stepTime, &LocalCompute::Step, this);
    }
    else
    {
        m_event = Simulator::ScheduleNow(&LocalCompute::Finish, this);
    }
}

void
LocalCompute::Finish()
{
    m_computing = false;
    m_done();
}

void
LocalCompute::Step()
{
    m_objective->Step(m_parameters, m_learningRate);
    ++m_stepsDone;
    if (m_stepsDone < m_steps)
    {
        m_event = Simulator::Schedule(m_stepTime, &LocalCompute::Step, this);
    }
    else
    {
        Finish();
    }
}

void
LocalCompute::ScheduleNow(Callback<void> then)
{
    m_event = Simulator::ScheduleNow(then);
}

void
LocalCompute::Cancel()
{
    m_event.Cancel();
}

uint32_t
LocalCompute::GetRound() const
{
    return m_round;
}

bool
LocalCompute::IsComputing() const
{
    return m_computing;
}

std::string
LocalCompute::Describe() const
{
    return "computing (local step " + std::to_string(m_stepsDone) + " of " +
           std::to_string(m_steps) + ")";
}

void
LocalCompute::TakeSnapshot()
{
    m_snapshot = m_parameters;
}

const std::vector<float>&
LocalCompute::GetSnapshot() const
{
    return m_snapshot;
}

void
LocalCompute::ApplyAverage(const std::vector<float>& average)
{
    for (std::size_t v = 0; v < m_parameters.size(); ++v)
    {
        m_parameters[v] += average[v] - m_snapshot[v];
    }
}

} // namespace ns3
