#!/usr/bin/env bash
# Copyright (c) 2026 The wan-training authors
# SPDX-License-Identifier: GPL-2.0-only
#
# Smoke test of the benchmarks: wan-bench --smoke (the smallest cases, a few seconds) must exit
# 0 and write a JSON that parses and holds every field benchmarks/README.md documents. It judges
# no time and no target: wall-clock numbers are never asserted in tests.
#
# usage: bench-smoke.sh WAN_BENCH
set -euo pipefail

bench="$1"
out="bench-smoke.json"
rm -f "$out"
"$bench" --smoke --out="$out" >bench-smoke.txt
command -v jq >/dev/null 2>&1 || { echo "bench-smoke: jq is missing" >&2; exit 1; }

fail=0
# require FILTER: the jq filter must evaluate to true.
require() {
  if ! jq -e "$1" "$out" >/dev/null; then
    echo "bench-smoke: missing or wrong: $1" >&2
    fail=1
  fi
}
number='type == "number"'
case_fields='wall_s cpu_s setup_s simulated_s end_s packet_hops events packet_hops_per_wall_s
  rss_before_run_mb drops peak_rss_mb process_cpu_s process_wall_s'

require '.program == "wan-bench" and .profile == "smoke" and .all_cases_passed == true'
require '(.date | type) == "string" and (.cpus | '"$number"')'
require '.simulation.cases | length == 6'
for field in $case_fields; do
  require "[.simulation.cases[].ours.$field | $number] | all"
  require "[.simulation.cases[].plain.$field | $number] | all"
done
require '[.simulation.cases[].ours | .passed and .rounds_verified == 1 and .resent_chunks == 0] | all'
# Both sides of a case run on the same scheduler (the programs' default or --SchedulerType).
require '[.simulation.cases[] | (.ours.scheduler | type) == "string" and .ours.scheduler == .plain.scheduler] | all'
for field in comm_s predicted_comm_s wire_bytes link_model_bytes; do
  require "[.simulation.cases[].ours.$field | $number] | all"
done
require '[.simulation.cases[].ours | .wire_bytes > .link_model_bytes and .coarse_frames == false] | all'
require '[.simulation.cases[].rss_ratio | '"$number"'] | all'
require '[.simulation.cases[].plain | .passed and .delivered_bytes == .expected_bytes] | all'
# The baseline replays every packet of our run, control messages included: the same count on
# every link.
require '[.simulation.cases[].plain.largest_link_difference_packets == 0] | all'
require '[.simulation.cases[] | (.wall_ratio | '"$number"') and (.cpu_ratio | '"$number"')] | all'
require '[.simulation.cases[] | .ours.packet_hops == .plain.packet_hops and .plain.packet_hops > 0] | all'
require '[.simulation.cases[].mode] | unique == ["both", "tree", "unicast"]'
require '.memory | length == 3'
for field in small_model_bytes large_model_bytes small_peak_rss_mb large_peak_rss_mb ratio \
  largest_rss_ratio_to_plain; do
  require "[.memory[].$field | $number] | all"
done
require '[.memory[] | {(.mode): .in_flight_grows_with_s}] | add == {"unicast": false, "both": false, "tree": true}'
require '.optimizer.evaluate | length == 1'
for field in calls wall_s calls_per_s; do
  require "[.optimizer.evaluate[].$field | $number] | all"
done
require '.optimizer.optimize | length == 2'
for field in wall_s cpu_s evaluations xi_s xi_lower_bound_s gap_to_lower_bound all_reduce_xi_s; do
  require "[.optimizer.optimize[].$field | $number] | all"
done
# Xi is never below its lower bound (doc/schedule-model.rst, "Information exchange").
require '[.optimizer.optimize[] | .xi_s >= .xi_lower_bound_s] | all'
require '[.optimizer.optimize[].islands] == [9, 32]'
require '.scale.cases | length == 2'
require '[.scale.cases[].islands] == [16, 32]'
require '[.scale.cases[] | .passed and (.packet_hops | '"$number"') and (.wall_s | '"$number"')] | all'
require '.scale.plain_cases | length == 2'
require '[.scale.plain_cases[] | .passed and .delivered_bytes == .expected_bytes] | all'
require '[range(2) as $k | .scale.cases[$k].packet_hops == .scale.plain_cases[$k].packet_hops] | all'
require '[.scale.plain_cases[].largest_link_difference_packets == 0] | all'
require '(.scale.log_log_slope | '"$number"') and (.scale.plain_log_log_slope | '"$number"')'
require '(.scale.repetitions | '"$number"') and ([.scale.cases[].wall_ratio_median | '"$number"'] | all)'
# Coarse frames run in the full profile only: none here, their targets listed as skipped.
require '.coarse.frame_bytes == 64000 and (.coarse.cases | length == 0)'
# Loss: unicast and both at 0, 0.1 % and 1 % WAN loss, Latin triples, 3 rounds, 1 MB. The types
# only: at this size the communication times judge nothing.
require '.loss.model_bytes == 1000000 and .loss.rounds == 3 and .loss.loss_rates == [0, 0.001, 0.01]'
require '(.loss.topology_file | type) == "string" and (.loss.schedule | type) == "string"'
require '.loss.cases | length == 6'
require '[.loss.cases[] | [.mode, .loss_rate]] == [["unicast", 0], ["unicast", 0.001], ["unicast", 0.01],
  ["both", 0], ["both", 0.001], ["both", 0.01]]'
require '[.loss.cases[] | .kind == "loss" and .model_bytes == 1000000 and .rounds == 3 and .passed] | all'
for field in comm_s max_rtt_s repairs error_drops wall_s peak_rss_mb process_wall_s; do
  require "[.loss.cases[].$field | $number] | all"
done
require '[.loss.cases[].round_comm_s | type == "array" and length == 3 and all(type == "number")] | all'
require '[.loss.cases[] | .max_rtt_s > 0] | all'
# Without loss, no packet is lost to it.
require '[.loss.cases[] | select(.loss_rate == 0) | .error_drops == 0] | all'
require '.targets | length == 30'
require '[.targets[] | (.id | type == "string") and (.name | type == "string") and (.skipped | type == "boolean")] | all'
require '[.targets[] | select(.skipped | not) | .target | '"$number"'] | all'
require '[.targets[] | .target | type == "number" or type == "null"] | all'
require '[.targets[] | select(.skipped | not) | .met | type == "boolean"] | all'
require '[.targets[] | select(.skipped) | .met == null and .measured == null] | all'
# Every target of the issue has its entry (the growth target only where in-flight packets are
# bounded: not tree).
require '[.targets[].id] == ["wall_ratio/unicast", "wall_ratio/both", "wall_ratio/tree",
  "peak_rss_to_plain/unicast", "peak_rss_to_plain/both", "peak_rss_to_plain/tree",
  "peak_rss_growth/unicast", "peak_rss_growth/both", "evaluate_calls_per_s/unicast",
  "optimize_wall_s/both", "scale_rounds_verified", "scale_overhead_growth",
  "coarse_wall_per_comm/both", "coarse_wall_per_comm/unicast", "coarse_comm_to_model/both",
  "coarse_comm_to_model/unicast", "coarse_round_wall_s/both", "coarse_round_wall_s/tree",
  "loss-0.1%/unicast", "loss-1%/unicast", "loss-0.1%/multicast", "loss-1%/multicast",
  "loss-0.1%/aggregation", "loss-1%/aggregation", "loss-0.1%/both", "loss-1%/both",
  "loss-0.1%/ring", "loss-1%/ring", "loss-0.1%/tree", "loss-1%/tree"]'
require '[.targets[] | select(.skipped) | .id] | (length == 14) and
  (map(select(startswith("coarse_"))) | length == 6) and
  (map(select(startswith("loss-"))) == ["loss-0.1%/multicast", "loss-1%/multicast",
    "loss-0.1%/aggregation", "loss-1%/aggregation", "loss-0.1%/ring", "loss-1%/ring",
    "loss-0.1%/tree", "loss-1%/tree"])'
require '[.targets[] | select(.skipped | not) | .measured | '"$number"'] | all'
if ! grep -q '^Loss: ' bench-smoke.txt; then
  echo "bench-smoke: the printed report has no Loss table" >&2
  fail=1
fi
if ! grep -q '^Targets' bench-smoke.txt; then
  echo "bench-smoke: the printed report has no Targets section" >&2
  fail=1
fi
# One line per target: "target: NAME : measured X (limit R Y) met|NOT met", or skipped.
if [ "$(grep -cE '^target: .* : (measured .* \(limit .*\) (met|NOT met)|not measured \(limit .*\) skipped.*)$' bench-smoke.txt)" -ne 30 ]; then
  echo "bench-smoke: the printed report does not have 30 target lines" >&2
  fail=1
fi
exit "$fail"
