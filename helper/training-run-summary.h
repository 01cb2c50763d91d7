/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef TRAINING_RUN_SUMMARY_H
#define TRAINING_RUN_SUMMARY_H

#include <cstdint>
#include <map>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <vector>

namespace ns3
{

/**
 * @ingroup wan-training
 * @brief The results JSON of a training run (TrainingResultsWriter), read back typed: the
 * fields that programs use after a run, validated.
 *
 * FromJson checks every field it reads: a missing field or a value of the wrong type throws
 * WanInputError(file, path, reason) with the JSON path of the field (`$.rounds[2].comm_s`).
 * Times that the writer leaves null ("never", e.g. the end of an incomplete round) are empty
 * optionals. Sections and fields the writer adds and no program reads are ignored.
 */
struct TrainingRunSummary
{
    /** The `config` section: what the run was given. */
    struct Config
    {
        std::string mode;       //!< the capability mode's name
        std::string format;     //!< the payload format's name
        uint64_t modelBytes{0}; //!< S in bytes
        uint32_t rounds{0};     //!< rounds of the run
        uint64_t seed{0};       //!< the seed
        uint64_t localSteps{0}; //!< local steps per round
        double stepTimeS{0};    //!< the time of one local step
        /** The schedule's rounds: per round its cliques, each a list of city ids. */
        std::vector<std::vector<std::vector<std::string>>> scheduleRounds;
        /** Per round, the algorithm each clique carries in the schedule (empty: a plain list,
         *  which takes the mode) */
        std::vector<std::vector<std::string>> scheduleAlgorithms;
    };

    /** An entry of a round's `unfinished` list: an island or a clique that did not verify. */
    struct Unfinished
    {
        std::optional<std::string> island; //!< the island (island entries)
        std::optional<uint32_t> clique;    //!< the clique (inconsistent cliques)
        std::string status;                //!< unfinished, abandoned, completed, inconsistent
        std::string reason;                //!< why
    };

    /** A `format_error` object: decoded averages against exact averages of fp32 values. */
    struct FormatError
    {
        double maxAbs{0}; //!< max |err|
        double maxRel{0}; //!< max |err| / max |average|
    };

    /** An entry of a round's `cliques`: what one clique ran. */
    struct Clique
    {
        uint32_t clique{0};          //!< its index in the round
        std::string algorithm;       //!< the algorithm it ran (empty: a clique of one)
        std::optional<double> commS; //!< its communication time (empty: not complete)
        double predictedCommS{0};    //!< the schedule model's time of the clique in its round
                                     //!< (ScheduleMetrics::RoundCost::cliqueCommS)
    };

    /** An entry of `rounds`. */
    struct Round
    {
        uint32_t round{0};                  //!< the round
        std::optional<double> startS;       //!< its first start (empty: never started)
        std::optional<double> endS;         //!< its last end (empty: not complete)
        std::optional<double> commS;        //!< its communication time (empty: not complete)
        double predictedCommS{0};           //!< the schedule model's communication time
        bool complete{false};               //!< every island completed it or had crashed
        bool verified{false};               //!< complete, every average verified
        FormatError formatError;            //!< the format's error in the round
        std::vector<Unfinished> unfinished; //!< what did not complete or verify
        std::vector<Clique> cliques;        //!< every clique of the round
    };

    /** A point of a curve over simulated time. */
    struct Point
    {
        double timeS{0}; //!< simulated time
        double value{0}; //!< the value
    };

    /** An entry of `loss`. */
    struct LossSample
    {
        double timeS{0};      //!< simulated time
        double value{0};      //!< F(average model) - F(x*)
        double islandMean{0}; //!< mean over islands of F(x_i) - F(x*)
    };

    /** An entry of `links`: what a directed link's transmitting device sent. */
    struct Link
    {
        uint64_t packets{0};       //!< packets
        uint64_t bytes{0};         //!< bytes on the wire
        uint64_t modelBytes{0};    //!< model bytes of chunks
        uint64_t errorDrops{0};    //!< random losses
        uint64_t queueDrops{0};    //!< queue drops
        uint64_t linkDownDrops{0}; //!< losses to a down link
    };

    /** An entry of `islands`. */
    struct Island
    {
        uint64_t repairs{0};                   //!< repair packets sent
        uint64_t repairedChunks{0};            //!< chunks that arrived after a NACK asked for them
        uint64_t paritiesSent{0};              //!< PARITY packets sent (FecBlock)
        uint64_t chunksRebuilt{0};             //!< chunks rebuilt from a PARITY
        std::optional<double> repairWaitMeanS; //!< their mean wait since the first NACK (none: 0)
        std::optional<double> repairWaitMaxS;  //!< the longest wait (none: no repaired chunk)
        uint32_t roundsCompleted{0};           //!< rounds ended with an average
        bool crashed{false};                   //!< whether it crashed
        std::optional<std::string> failure;    //!< why it failed (empty: it did not)
    };

    /** The `verification` section. */
    struct Verification
    {
        uint32_t roundsVerified{0};  //!< rounds verified
        uint32_t roundsComplete{0};  //!< rounds complete
        uint32_t rounds{0};          //!< rounds of the run
        double maxAbsError{0};       //!< largest absolute error
        double maxRelError{0};       //!< largest scaled error
        double maxErrorOverBound{0}; //!< largest error over its bound (verified: <= 1)
        FormatError formatError;     //!< the format's largest errors over the rounds
        bool passed{false};          //!< every round complete and verified
    };

    /** The totals of the `faults` section. */
    struct Faults
    {
        uint64_t exclusions{0};         //!< exclusions
        uint32_t roundsAbandoned{0};    //!< rounds abandoned
        uint32_t crashedIslands{0};     //!< islands crashed
        bool partitioned{false};        //!< whether the WAN was partitioned
        bool stoppedByTimeLimit{false}; //!< whether the time limit stopped the run
    };

    /** The `summary` section: the run's totals (TrainingResultsWriter fills it to write it). */
    struct Summary
    {
        bool complete{false};              //!< every island completed every round
        uint32_t roundsComplete{0};        //!< rounds every island completed or had crashed in
        uint32_t roundsAbandoned{0};       //!< rounds abandoned, summed over islands
        uint32_t crashedIslands{0};        //!< islands crashed
        uint64_t exclusions{0};            //!< exclusions
        bool partitioned{false};           //!< whether the WAN was partitioned
        bool stoppedByTimeLimit{false};    //!< whether the time limit stopped the run
        uint64_t linkDownDrops{0};         //!< losses to down links
        uint64_t reordered{0};             //!< packets delivered late
        uint64_t duplicated{0};            //!< packets delivered twice
        uint32_t failedIslands{0};         //!< islands that failed
        double trainingTimeS{0};           //!< the latest round end
        uint64_t repairs{0};               //!< chunks resent
        uint64_t errorDrops{0};            //!< random losses
        uint64_t queueDrops{0};            //!< queue drops
        uint64_t fpgaAggregates{0};        //!< FPGA aggregates
        uint64_t fpgaPartialAggregates{0}; //!< FPGA partial aggregates (timeouts)
        uint64_t fpgaKnownLostReleases{0}; //!< FPGA partial aggregates of a known loss
        uint64_t fpgaShadowServes{0};      //!< FPGA aggregates served again from a shadow copy
        uint64_t fpgaPassThroughs{0};      //!< FPGA pass-throughs
        double finalLoss{0};               //!< the last sample's loss
        double finalConsensus{0};          //!< the last sample's consensus
    };

    Config config;                         //!< `config`
    std::vector<Round> rounds;             //!< `rounds`
    std::map<std::string, Link> links;     //!< `links`, by directed link name
    std::map<std::string, Island> islands; //!< `islands`, by city id
    Verification verification;             //!< `verification`
    std::vector<LossSample> loss;          //!< `loss`
    std::vector<Point> consensus;          //!< `consensus`
    std::vector<Point> colocatedLoss;      //!< `colocated.loss`
    double optimalLoss{0};                 //!< `optimal_loss`
    Faults faults;                         //!< `faults`
    Summary summary;                       //!< `summary`

    /**
     * @param doc a results document
     * @param file the file it came from (for the errors)
     * @return its typed summary
     * @throws WanInputError when a field is missing or of the wrong type
     */
    static TrainingRunSummary FromJson(const nlohmann::json& doc, const std::string& file);
    /**
     * @param text the results JSON (text)
     * @param file the file it came from (for the errors)
     * @return its typed summary
     * @throws WanInputError when it is not JSON, or a field is missing or of the wrong type
     */
    static TrainingRunSummary Parse(const std::string& text, const std::string& file);
    /**
     * @param path a results file
     * @return its typed summary
     * @throws WanInputError when it cannot be read, is not JSON, or a field is missing or of
     *         the wrong type
     */
    static TrainingRunSummary ReadFile(const std::string& path);
};

} // namespace ns3

#endif /* TRAINING_RUN_SUMMARY_H */
