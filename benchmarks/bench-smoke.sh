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
require '[.simulation.cases[].plain | .passed and .delivered_bytes == .expected_bytes] | all'
# The baseline replays every packet of our run, control messages included: the same count on
# every link.
require '[.simulation.cases[].plain.largest_link_difference_packets == 0] | all'
require '[.simulation.cases[] | (.wall_ratio | '"$number"') and (.cpu_ratio | '"$number"')] | all'
require '[.simulation.cases[] | .ours.packet_hops == .plain.packet_hops and .plain.packet_hops > 0] | all'
require '[.simulation.cases[].mode] | unique == ["both", "tree", "unicast"]'
require '.memory | length == 3'
for field in small_model_bytes large_model_bytes small_peak_rss_mb large_peak_rss_mb ratio; do
  require "[.memory[].$field | $number] | all"
done
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
require '.targets | length == 10'
require '[.targets[] | (.name | type == "string") and (.target | '"$number"') and (.met | type == "boolean")] | all'
if ! grep -q '^Targets' bench-smoke.txt; then
  echo "bench-smoke: the printed report has no Targets section" >&2
  fail=1
fi
exit "$fail"
