/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef CHILD_PROCESS_POOL_H
#define CHILD_PROCESS_POOL_H

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace ns3
{

/**
 * @ingroup wan-training
 * @brief Runs jobs in child processes, at most a given number at once, and reports per job how
 * its process ended (exit status or signal), its CPU time and peak RSS.
 *
 * A job is either a command (a program and its arguments, started with Boost.Process; a program
 * name without a slash is searched on the PATH) or a function run in a forked copy of this
 * process, whose return value is the child's exit status (the simulator is a process-wide
 * singleton, so independent simulations run side by side this way). A job may send its stdout
 * and stderr into a file (truncated) with stdin from /dev/null; otherwise the child inherits
 * them. Jobs start in the order given, each as soon as a slot is free; Run() returns the
 * results in the order of the jobs, whatever the order in which the processes end, so the
 * outcome does not depend on the number of slots. Only the pool's own children are waited
 * for.
 */
class ChildProcessPool
{
  public:
    /** One job. */
    struct Job
    {
        std::string name;                 //!< what progress reports call it
        std::vector<std::string> command; //!< program and arguments (empty: run function)
        std::function<int()> function;    //!< run in a forked child when command is empty
        std::string outputFile;           //!< stdout and stderr go here (empty: inherited)
    };

    /** How a job's process ended. */
    struct Result
    {
        bool started{false};  //!< whether the process was started
        int startError{0};    //!< the error number when it was not
        bool exited{false};   //!< whether it exited (rather than being killed)
        int exitStatus{-1};   //!< its exit status (when exited)
        int signal{0};        //!< the signal that killed it (when not exited)
        double cpuS{0};       //!< user + system CPU seconds of the child
        double peakRssMb{0};  //!< its peak resident set size (ru_maxrss) in MiB
        double wallS{0};      //!< wall-clock seconds from start to end
        std::size_t order{0}; //!< 1 for the first job that ended, 2 for the next, ...

        /** @return whether the process was started and exited with status 0 */
        bool Succeeded() const;
        /**
         * @return "exit status N", "killed by signal N (NAME)", or "not started: REASON"
         */
        std::string Describe() const;
    };

    /**
     * @brief Called in the parent each time a job has ended (or could not start), in the order
     * in which that happens.
     * @param index the job's index in the list given to Run()
     * @param result how it ended
     */
    typedef std::function<void(std::size_t index, const Result& result)> FinishedCallback;

    /**
     * @param slots the most jobs running at once (at least 1)
     */
    explicit ChildProcessPool(uint32_t slots);

    /**
     * @param callback called after each job (none by default)
     */
    void SetFinishedCallback(FinishedCallback callback);

    /**
     * @brief Run every job, at most the slots at once, and wait for all of them. stdout and
     * stderr are flushed before each child starts.
     * @param jobs the jobs
     * @return how each job ended, in the order of jobs
     */
    std::vector<Result> Run(const std::vector<Job>& jobs);

  private:
    /**
     * @brief Start one job.
     * @param job the job
     * @param result receives started or startError
     * @return the child's process id (-1 when not started)
     */
    int Start(const Job& job, Result& result) const;

    uint32_t m_slots;            //!< the most jobs at once
    FinishedCallback m_finished; //!< called after each job
};

} // namespace ns3

#endif /* CHILD_PROCESS_POOL_H */
