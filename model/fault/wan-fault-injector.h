/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef WAN_FAULT_INJECTOR_H
#define WAN_FAULT_INJECTOR_H

#include "wan-topology.h"

#include "ns3/callback.h"
#include "ns3/event-id.h"
#include "ns3/nstime.h"
#include "ns3/object.h"
#include "ns3/ptr.h"
#include "ns3/traced-callback.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace ns3
{

class WanFaultErrorModel;

/**
 * @ingroup wan-training
 * @brief Owns the link-state schedule of a run (which WAN links are down from when on) and
 * applies it during the simulation.
 *
 * Each entry of the schedule (ScheduleLinkState) gives the full set of WAN links that are down
 * from its time on. At that time the injector, in this order: takes both directions of every
 * link down or up (WanFaultErrorModel::SetLinkDown on the error models given to SetErrorModels;
 * a packet that reaches the receiving device of a down direction is lost); computes the routing
 * topology of the links that are up (WanTopology::WithLinksDown); calls every reroute callback
 * with it, in the order they were added (e.g. the unicast routes of the routers, then
 * PimMulticastRouting::Reroute for the multicast trees); then fires LinkStateChanged, e.g. for
 * the results recorder and the fault log. Entries with equal times apply in the order they were
 * scheduled.
 */
class WanFaultInjector : public Object
{
  public:
    /**
     * @brief A callback that reinstalls routes on a routing topology.
     */
    typedef Callback<void, const WanTopology&> RerouteCallback;

    /**
     * @brief Signature of the LinkStateChanged trace.
     * @param downLinks the WAN links down from now on (link indices of the topology, sorted)
     * @param routing the topology with those links down, whose routes are now installed
     */
    typedef void (*LinkStateTracedCallback)(const std::vector<uint32_t>& downLinks,
                                            const WanTopology& routing);

    /**
     * @brief Get the type ID.
     * @return the object TypeId
     */
    static TypeId GetTypeId();

    WanFaultInjector();
    ~WanFaultInjector() override;

    /**
     * @brief Set the WAN whose links the schedule names (before any ScheduleLinkState).
     * @param topology the scenario's topology, every link up
     */
    void SetTopology(const WanTopology& topology);
    /**
     * @brief Set the error models that take the links down.
     * @param models two per WAN link of the topology: models[2l] and models[2l + 1] judge the
     * two directions of link l (the order of TrainingHelper::InstallWanFaultModels)
     */
    void SetErrorModels(const std::vector<Ptr<WanFaultErrorModel>>& models);
    /**
     * @brief Add a callback that reinstalls routes whenever the link state changes.
     * @param reroute called with the routing topology of the links that are up
     */
    void AddRerouteCallback(RerouteCallback reroute);

    /**
     * @brief Schedule a link state: from time `at` on, exactly `downLinks` are down.
     * @param at absolute simulation time, not in the past
     * @param downLinks WAN link indices of the topology
     */
    void ScheduleLinkState(Time at, const std::vector<uint32_t>& downLinks);

    /** @return the WAN links down now, sorted (none before the first entry applies) */
    const std::vector<uint32_t>& GetLinksDown() const;
    /** @return the routing topology now (the topology, every link up, before the first entry) */
    const WanTopology& GetRouting() const;
    /** @return how many entries of the schedule have been applied */
    uint32_t GetNApplied() const;

  protected:
    void DoDispose() override;

  private:
    /**
     * @brief Apply one entry of the schedule now.
     * @param downLinks the links down from now on, sorted
     */
    void ApplyLinkState(std::vector<uint32_t> downLinks);

    std::optional<WanTopology> m_topology;         //!< the WAN, every link up (once set)
    std::optional<WanTopology> m_routing;          //!< the routing topology now
    std::vector<uint32_t> m_down;                  //!< links down now, sorted
    std::vector<Ptr<WanFaultErrorModel>> m_models; //!< two per WAN link
    std::vector<RerouteCallback> m_reroutes;       //!< called on every change
    std::vector<EventId> m_events;                 //!< the scheduled entries
    uint32_t m_applied{0};                         //!< entries applied so far
    TracedCallback<const std::vector<uint32_t>&, const WanTopology&>
        m_linkStateTrace; //!< LinkStateChanged
};

} // namespace ns3

#endif /* WAN_FAULT_INJECTOR_H */
