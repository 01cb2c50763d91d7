/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef TRAINING_OPTIONS_H
#define TRAINING_OPTIONS_H

#include "command-line-values.h"
#include "fault-plan.h"
#include "model-size-options.h"
#include "training-run.h"

#include <cstdint>
#include <string>

namespace ns3
{

class CommandLine;

/**
 * @ingroup wan-training
 * @brief The command-line options that the programs which simulate training share, declared
 * once: the topology, the run's size (--modelBytes or --modelParameters with --format,
 * --rounds, --seed, --mode), the training knobs of TrainingRun::Config and the fault knobs of
 * FaultPlan, with the option of every configuration field (GetFieldOptions) that the program's
 * error edge names.
 *
 * A program sets its own defaults in the public texts, calls AddValues() (and AddMode()) before
 * CommandLine::Parse(), then Parse() for the configuration; the fault texts go to
 * FaultPlan::Parse() once the topology is known.
 */
class TrainingOptions
{
  public:
    /**
     * @brief Add --topology, --modelBytes, --modelParameters, --format, --rounds, --seed, the
     * training knobs (--parameterCount, --localSteps, --stepTime, --learningRate,
     * --heterogeneity, --loss, --pcapSnaplen, --frameBytes), the fault knobs (--linkDown,
     * --crash, --straggler, --duplicate, --reorder, --reorderDelay, --timeLimit) and the
     * progress reports (--quiet, --progressInterval) with their help texts.
     * @param cmd the command line; this object must outlive cmd.Parse()
     */
    void AddValues(CommandLine& cmd);

    /**
     * @brief Add --mode (one capability mode), which Parse() then reads.
     * @param cmd the command line; this object must outlive cmd.Parse()
     */
    void AddMode(CommandLine& cmd);

    /**
     * @brief Parse the options into a configuration (the other fields stay): the mode (when
     * AddMode() was called and --mode given; else config.mode stays as it is), modelBytes, rounds,
     * the training knobs, the seed and the progress reports (on std::cerr, labelled program,
     * unless --quiet), in this order.
     * @param program the name that error messages start with
     * @param config receives the values
     * @throws WanInputError naming program, the option and the reason for a malformed value or
     *         one out of range (TrainingRun::Validate checks the values against each other)
     */
    void Parse(const std::string& program, TrainingRun::Config& config) const;

    /**
     * @return the option of every field of TrainingRun::Config (faults included) and of the
     *         topology and schedule arguments of TrainingRun::Validate, for
     *         CommandLineValues::RunProgram()
     */
    static const CommandLineValues::FieldOptions& GetFieldOptions();

    /**
     * @brief Parse the model size: --modelBytes, or --modelParameters in --format, or
     * modelBytesDefault when neither is given.
     * @param program the name that error messages start with
     * @return S (a whole number of bytes), the format and P
     * @throws WanInputError for a bad value or both sizes
     */
    ModelSizeOptions::Size ParseModelSize(const std::string& program) const;

    std::string topology;                                      //!< --topology (empty: not given)
    std::string topologyHelp{"topology JSON file (required)"}; //!< the help text of --topology
    std::string mode;                                          //!< --mode (with AddMode())
    ModelSizeOptions modelSize;                                //!< --modelBytes and the like
    std::string modelBytesDefault{"100000000"};                //!< S without either size
    std::string rounds{"2"};                                   //!< --rounds
    uint32_t maxRounds{uint32_t{1} << 20};                     //!< the largest --rounds accepted
    std::string seed{"1"};                                     //!< --seed
    std::string parameterCount{"1024"};                        //!< --parameterCount
    std::string localSteps{"10"};                              //!< --localSteps
    bool overlap{false};                                       //!< --overlap
    std::string stepTime{"10ms"};                              //!< --stepTime
    std::string learningRate{"0.05"};                          //!< --learningRate
    std::string heterogeneity{"1"};                            //!< --heterogeneity
    std::string loss{"0"};                                     //!< --loss
    std::string pcapSnaplen{"65535"};                          //!< --pcapSnaplen
    std::string frameBytes;            //!< --frameBytes (empty: the topology's)
    FaultPlan::Texts faults;           //!< the fault knobs
    bool quiet{false};                 //!< --quiet: no progress reports
    std::string progressInterval{"5"}; //!< --progressInterval (s)

  private:
    bool m_withMode{false}; //!< whether --mode was added
};

} // namespace ns3

#endif /* TRAINING_OPTIONS_H */
