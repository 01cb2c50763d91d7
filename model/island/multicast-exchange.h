/*
 * Copyright (c) 2026 The wan-training authors
 *
 * SPDX-License-Identifier: GPL-2.0-only
 */

#ifndef MULTICAST_EXCHANGE_H
#define MULTICAST_EXCHANGE_H

#include "star-exchange.h"

namespace ns3
{

/**
 * @ingroup wan-training
 * @brief Multicast mode: a member sends its contribution once, to the clique's group (a source
 * tree whose routers replicate it), and repairs to the member that asked.
 *
 * The send side has one group stream, which paces every chunk: the members' repairs first
 * (round robin), then the group's next chunk; the members' streams hold only their repairs
 * and DONE timeouts. The group reaches every member at once, so the streams wait until every
 * member has announced the round.
 */
class MulticastExchange : public StarExchange
{
  public:
    /**
     * @brief Get the type ID.
     * @return the object TypeId
     */
    static TypeId GetTypeId();

    CapabilityMode GetMode() const override;

  protected:
    void AddSendStreams(const ExchangePlan& plan) override;
    bool UsesGroupPacer() const override;
    bool IsCliqueWide() const override;
    bool NoteSent(const SendStream& paced, SendStream& target, uint32_t chunk) override;
    double GetPacingRate(const ExchangePlan& plan, const SendStream& stream) const override;
    void PacerDrained(SendStream& paced, double lastSendEndS) override;
};

} // namespace ns3

#endif /* MULTICAST_EXCHANGE_H */
