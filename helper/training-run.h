/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef TRAINING_RUN_H
#define TRAINING_RUN_H

#include "aggregator-net-device.h"
#include "clique-schedule.h"
#include "fault-plan.h"
#include "link-load-model.h"
#include "pim-multicast-helper.h"
#include "training-island-application.h"
#include "training-progress.h"
#include "training-results.h"
#include "wan-fault-injector.h"
#include "wan-topology-helper.h"
#include "wan-topology.h"

#include "ns3/application-container.h"
#include "ns3/data-rate.h"
#include "ns3/event-id.h"
#include "ns3/nstime.h"

#include <chrono>
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace ns3
{

/**
 * @ingroup wan-training
 * @brief One packet-level training run, built in one place: the WAN scenario
 * (WanTopologyHelper), the in-line FPGAs (AggregatorHelper) when a clique aggregates (on every
 * router port when a clique uses tree), the multicast source trees (PimMulticastHelper) of the
 * cliques that multicast, random loss on the
 * WAN links, one TrainingIslandApplication per city (TrainingHelper), the results recorder
 * (TrainingResults), optional pcap capture, and the faults of Config::faults (FaultPlan):
 *
 * - WAN faults (loss, reordering, duplication, links down) are a WanFaultErrorModel on the
 *   receiving device of every WAN direction (TrainingHelper::InstallWanFaultModels), installed
 *   when any of them is configured;
 * - the link outages are the schedule of a WanFaultInjector: when a link goes down or comes
 *   up, both of its directions stop (resume) carrying packets, the unicast routes of every
 *   router (WanUnicastRouting::Reroute) and the multicast trees (PimMulticastRouting::Reroute)
 *   are recomputed on the links that are up and reinstalled at once (the injector's reroute
 *   callbacks), and the change is recorded in the results (links down, connected components) and
 *   reported on the fault log (SetFaultLog, std::cerr by default), partitions included; the
 *   islands' multicast TTL covers the longest route of every state the plan goes through;
 * - a crash sets the island's CrashRound, a straggler multiplies its StepTime;
 * - a guard stops the simulation at Config::faults.timeLimit, or at a limit derived from the
 *   configuration (GetTimeLimit) when it is 0, unless every island has ended every round before;
 *   TrainingResults::Finish then records why each unfinished round did not complete.
 *
 * Every example and test that simulates training uses this class, so a scenario is set up the
 * same way everywhere:
 *
 * @code
 *   TrainingRun::Config config;
 *   config.mode = CapabilityMode::BOTH;
 *   config.rounds = 4;
 *   TrainingRun run(topology, schedule, config); // validates the configuration
 *   run.Build();                                 // connect extra trace sinks after this
 *   run.Run();
 *   run.GetResults().WriteFile("results.json");
 * @endcode
 *
 * The simulator is global: one TrainingRun exists at a time. The destructor calls
 * Simulator::Destroy() and Names::Clear(), so runs can follow each other in one process.
 */
class TrainingRun
{
  public:
    /**
     * @brief Everything that configures a run besides the topology and the schedule.
     *
     * A WanConfigError of the run names the field by its member name here (`modelBytes`,
     * `wanLossRate`, `faults.crashes` for the members of FaultPlan); a reason that refers to
     * another field writes it in braces (`4 bytes x 1024 values exceed {modelBytes}=1000`), so
     * that a command line can name the options it set them from.
     */
    struct Config
    {
        /** The mode forced on every clique (unicast, multicast, aggregation, both, ring or
         *  tree); none: each clique uses the algorithm the schedule gives it (a clique of two
         *  or more without one is an error, field `mode`) */
        std::optional<CapabilityMode> mode;
        uint16_t jobId{1};                         //!< JobId of the islands and the FPGAs
        uint32_t rounds{1};                        //!< rounds to run (>= 1)
        PayloadFormat format{PayloadFormat::FP32}; //!< Format of the values on the wire
        uint64_t modelBytes{100000000};            //!< ModelBytes, S (an encoding in format)
        uint32_t chunkBytes{0}; //!< ChunkBytes (0: fill the path MTU; else whole values)
        /** The simulation frame's IP bytes (WanTopology::GetFrameBytes): 0 exact frames, more
         *  coarse frames; none: the topology's `defaults.frame_bytes` */
        std::optional<uint32_t> frameBytes;
        uint32_t parameterCount{1024};     //!< ParameterCount, real values
        uint32_t localSteps{10};           //!< LocalSteps per round
        bool overlap{false};               //!< Overlap: compute overlaps the exchange (streaming)
        Time stepTime{MilliSeconds(10)};   //!< StepTime of one local step
        double learningRate{0.05};         //!< LearningRate, in (0, 1)
        double heterogeneity{1};           //!< Heterogeneity of the islands' objectives
        uint32_t seed{1};                  //!< RngSeedManager seed and ObjectiveSeed (>= 1)
        double wanLossRate{0};             //!< packet error rate on every WAN link, in [0, 0.5]
        int64_t lossStream{0};             //!< first random stream of the WAN error models
        DataRate streamRate{0};            //!< StreamRate (0: the bottleneck share)
        Time nackTimeout{MilliSeconds(5)}; //!< NackTimeout
        std::string groupRange{PimMulticastHelper::DEFAULT_GROUP_RANGE}; //!< multicast groups
        uint32_t fpgaSlots{65536};           //!< AggregatorNetDevice SlotCount
        Time fpgaTimeout{MilliSeconds(500)}; //!< AggregatorNetDevice Timeout (the longest wait)
        Time fpgaDelay{NanoSeconds(500)};    //!< AggregatorNetDevice ProcessingDelay
        DataRate fpgaLineRate{"1000Gbps"};   //!< AggregatorNetDevice LineRate
        std::string pcapDir;                 //!< one pcap per directed link here (empty: none)
        uint32_t pcapSnaplen{65535};         //!< bytes kept of each frame, in [70, 65535]
        uint32_t maxRepairAttempts{50};      //!< MaxRepairAttempts of the islands (>= 1)
        uint32_t repairCopies{2};            //!< RepairCopies of the islands, in [1, 8]
        uint32_t fecBlock{0}; //!< FecBlock of the islands: chunks per PARITY (0: none), <= 65535
        FaultPlan faults;     //!< faults to inject (none by default)
        /** Progress reports while Run() runs (TrainingProgress: percent of the bytes
         *  delivered, expected finish), one line each; null: none. Not recorded: the results
         *  are the same with and without. Must outlive Run(). */
        std::ostream* progress{nullptr};
        std::string progressLabel{"TrainingRun"}; //!< what every progress line starts with
        double progressIntervalS{5};              //!< smallest wall time between two lines
    };

    /**
     * @param topology the WAN
     * @param config a configuration
     * @return the WAN the run simulates: the topology with config.frameBytes when it is set
     * @throws WanConfigError (field `frameBytes`) when the topology cannot take that frame
     */
    static WanTopology GetSimulatedTopology(const WanTopology& topology, const Config& config);
    /**
     * @brief Check a configuration against a topology and a schedule, before anything is built.
     * @param topology the WAN
     * @param schedule the clique schedule (its island count must match the topology)
     * @param config the configuration
     * @throws WanConfigError naming the field of config ("mode", "chunkBytes", ...; "topology"
     *         or "schedule" for the arguments) with the reason: a forced mode the topology
     *         cannot do, a clique without an algorithm and no mode forced ("mode"), more
     *         islands than IslandSyncHeader supports, a chunk that
     *         does not fit a clique's path MTU, too many parameters for the model size, a ring
     *         clique whose model is cut into fewer chunks than it has members (chunkBytes, or
     *         modelBytes below 4 bytes per member), a value out of range, a fault the topology or
     *         the rounds cannot have (FaultPlan::Validate, fields "faults.crashes", ...), a pcap
     *         directory that cannot be created (pcapDir), a simulation frame the topology
     *         cannot take (frameBytes, WanTopology::WithFrameBytes)
     * @throws WanInputError (source "schedule", path `$.rounds[r][c].algorithm`) for a
     *         clique's own algorithm that the topology's capabilities do not allow
     */
    static void Validate(const WanTopology& topology,
                         const CliqueSchedule& schedule,
                         const Config& config);

    /**
     * @param topology the WAN (copied)
     * @param schedule the clique schedule (copied)
     * @param config the configuration
     * @throws WanConfigError as Validate()
     */
    TrainingRun(const WanTopology& topology, const CliqueSchedule& schedule, const Config& config);

    /** Destroy the simulation and forget the node names. */
    ~TrainingRun();

    TrainingRun(const TrainingRun&) = delete;
    TrainingRun& operator=(const TrainingRun&) = delete;

    /**
     * @brief Seed the random streams and build the scenario, FPGAs, trees, loss, islands,
     * results recorder and pcap capture. Call once; connect extra trace sinks afterwards.
     * @throws WanConfigError on groupRange when the group range is not a multicast network or
     *         too small for the schedule (multicast and both modes)
     */
    void Build();

    /**
     * @brief Build() if not yet built, then run the simulation until every island is done or
     * the time limit (GetTimeLimit) stops it; then TrainingResults::Finish records why the
     * rounds that did not complete did not.
     * @throws WanConfigError as Build()
     */
    void Run();

    /**
     * @brief Where fault events (a link down or up, the routes recomputed, a partition, the
     * time limit reached) are reported while the simulation runs, one line each.
     * @param out the stream (nullptr: none); must outlive Run(); std::cerr by default
     * @param label what every line starts with (before ": "); "TrainingRun" by default
     */
    void SetFaultLog(std::ostream* out, const std::string& label = "TrainingRun");

    /**
     * @return the simulated-time limit of the run: Config::faults.timeLimit when it is set,
     *         else the last link event plus, per round, the compute time of the slowest island,
     *         10 x the largest T_comm of a round (doc/schedule-model.rst), and 4 x
     * (MaxRepairAttempts + 2) x (a round-trip time over every WAN link + NackTimeout + the FPGA
     * Timeout in aggregation and both modes), plus one second: far beyond any run that progresses
     */
    Time GetTimeLimit() const;

    /**
     * @return the configuration as a JSON object (mode, sizes, times, seed, loss, pcap, and the
     *         group range / FPGA settings when the mode uses them; the multicast TTL once
     *         built), for TrainingResults' config; callers add their own fields (e.g. the
     *         input files)
     */
    nlohmann::json GetConfigJson() const;

    /**
     * @return whether every island that did not crash completed every round, every average was
     *         verified and every clique's contributor sets are consistent
     */
    bool Passed() const;

    /** @return the wall-clock seconds Run() took (0 before Run()) */
    double GetWallSeconds() const;

    /** @return the configuration */
    const Config& GetConfig() const;
    /** @return the topology */
    const WanTopology& GetTopology() const;
    /** @return the schedule the islands follow: every clique with its algorithm (the forced
     *  mode when Config::mode is set) */
    const CliqueSchedule& GetSchedule() const;
    /** @return the forced mode's name, or "schedule" when each clique uses its own */
    std::string GetModeName() const;
    /** @return the scenario (after Build()) */
    const WanTopologyHelper& GetScenario() const;
    /** @return the multicast helper (trees installed in multicast and both modes only) */
    const PimMulticastHelper& GetPim() const;
    /** @return the islands' applications in city order (after Build()) */
    const ApplicationContainer& GetApps() const;
    /**
     * @param island a city index
     * @return its application (after Build())
     */
    Ptr<TrainingIslandApplication> GetApp(uint32_t island) const;
    /** @return the results recorder (after Build()) */
    TrainingResults& GetResults();
    /** @return the results recorder (after Build()) */
    const TrainingResults& GetResults() const;

    /**
     * @param directedLinkName a directed link name ("nyc->chi", "nyc:up")
     * @return its pcap file name ("nyc-chi.pcap", "nyc-up.pcap")
     */
    static std::string GetPcapFileName(std::string directedLinkName);

    /**
     * @return the WanFaultErrorModel of every WAN directed link (after Build(); empty when no
     *         WAN fault is configured)
     */
    const std::vector<Ptr<WanFaultErrorModel>>& GetFaultModels() const;

  private:
    /**
     * @param schedule a schedule
     * @param config a configuration
     * @return the schedule with the forced mode on every clique, or as it is
     */
    static CliqueSchedule Resolve(const CliqueSchedule& schedule, const Config& config);
    /** RoundFinished sink: the round ended on the island. */
    void OnRoundFinished(uint32_t island,
                         uint32_t round,
                         uint32_t clique,
                         const std::vector<float>& parameters);
    /** RoundAbandoned sink: the round ended on the island. */
    void OnRoundAbandoned(uint32_t island,
                          uint32_t round,
                          uint32_t clique,
                          const std::string& reason);
    /** Crashed sink: the island's remaining rounds are over. */
    void OnCrashed(uint32_t island, uint32_t round);
    /**
     * @brief Count rounds that ended on an island; remove the guard once every island is done.
     * @param island the island
     * @param first the first round that ended
     * @param end one past the last round that ended
     */
    void NoteRoundsEnded(uint32_t island, uint32_t first, uint32_t end);
    /**
     * @brief LinkStateChanged sink of the fault injector: record the change and report it on
     * the fault log.
     * @param down the WAN links down from now on
     * @param routing the topology with those links down
     */
    void OnLinkStateChanged(const std::vector<uint32_t>& down, const WanTopology& routing);
    /** The time limit is reached: stop the simulation. */
    void OnTimeLimit();
    /**
     * @brief Reroute sink (tree mode): the FPGA ports' subtrees follow the new unicast routes.
     * @param routing the topology with the links down
     */
    void OnFpgaReroute(const WanTopology& routing);
    /** @brief Write SyncProtocol::CAPTURE_INFO_FILE into the capture directory. */
    void WriteCaptureInfo() const;

    WanTopology m_topology;                             //!< the topology
    CliqueSchedule m_schedule;                          //!< the schedule
    Config m_config;                                    //!< the configuration
    std::string m_faultLabel{"TrainingRun"};            //!< fault log line prefix
    std::unique_ptr<WanTopologyHelper> m_scenario;      //!< the scenario
    std::unique_ptr<PimMulticastHelper> m_pim;          //!< the multicast helper
    ApplicationContainer m_apps;                        //!< the islands
    std::unique_ptr<TrainingResults> m_results;         //!< the results recorder
    std::unique_ptr<TrainingProgress> m_progress;       //!< progress reports (null: none)
    std::chrono::steady_clock::time_point m_wallStart;  //!< when Run() started
    std::vector<uint32_t> m_islandRoundsEnded;          //!< rounds ended, by island
    uint32_t m_islandsDone{0};                          //!< islands that ended every round
    double m_wallSeconds{0};                            //!< wall time of Run()
    std::vector<Ptr<WanFaultErrorModel>> m_faultModels; //!< by WAN directed link
    Ptr<WanFaultInjector> m_faultInjector;              //!< applies the link-state schedule
    std::ostream* m_faultLog;                           //!< fault event lines (null: none)
    EventId m_guardEvent;                               //!< the time limit
    bool m_stoppedByTimeLimit{false};                   //!< whether the limit stopped Run()
};

} // namespace ns3

#endif /* TRAINING_RUN_H */
