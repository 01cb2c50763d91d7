#!/usr/bin/env bash
# Copyright (c) 2026 The wan-training authors
# SPDX-License-Identifier: GPL-2.0-only
#
# usage: test/nine-city-run.sh SOURCE-DIR
#
# The integration test of the nine-city experiment, through the driver as a user runs it:
# `./wan-training run --quick` (WAN_TRAINING_BUILD_DIR points the driver at the build under test,
# so it builds nothing). Twice with the same seed, into two run directories:
#  - both exit 0 and print the summary table with one row per mode, one for the topology's
#    capability set (its optimum run clique by clique, each with its own algorithm) and the
#    colocated line;
#  - every file of the run directory exists: config.json, topology.json, per mode MODE.json and
#    MODE-schedule.json, summary.{txt,csv,json}, rounds.csv, and per plot its .plt and .png;
#  - every JSON parses (jq); every round of every MODE.json carries comm_s and predicted_comm_s
#    (numbers), the verification passed, and summary.json's rows match summary.csv's;
#  - the second run's table, CSV and per-round times equal the first's (same seed, same table).
# Needs jq.
set -u
source_dir="$1"
work=$(mktemp -d "${TMPDIR:-/tmp}/nine-city-run.XXXXXX")
failed=0
fail() {
  echo "FAIL $*"
  failed=$((failed + 1))
}
modes="unicast multicast aggregation both ring tree"

for id in first second; do
  if ! "$source_dir/wan-training" run --quick --out="$work" --runId="$id" \
    >"$work/$id.stdout" 2>"$work/$id.stderr"; then
    fail "run --quick ($id) exited non-zero:"
    cat "$work/$id.stderr"
    continue
  fi
  dir="$work/$id"
  grep -q "^colocated: Xi_colo" "$work/$id.stdout" || fail "$id: no colocated line"
  for mode in $modes; do
    grep -q "^$mode " "$work/$id.stdout" || fail "$id: no table row for $mode"
    for file in "$mode.json" "$mode-schedule.json"; do
      jq -e . "$dir/$file" >/dev/null 2>&1 || fail "$id: $file missing or not JSON"
    done
    jq -e '[.rounds[] | (.comm_s | type == "number") and (.predicted_comm_s | type == "number")]
           | length > 0 and all' "$dir/$mode.json" >/dev/null 2>&1 ||
      fail "$id: $mode.json rounds lack comm_s / predicted_comm_s"
    jq -e '.verification.passed' "$dir/$mode.json" >/dev/null 2>&1 ||
      fail "$id: $mode.json verification did not pass"
  done
  for file in config.json topology.json summary.json; do
    jq -e . "$dir/$file" >/dev/null 2>&1 || fail "$id: $file missing or not JSON"
  done
  for file in summary.txt summary.csv rounds.csv; do
    [ -s "$dir/$file" ] || fail "$id: $file missing or empty"
  done
  for plot in loss consensus link-utilization round-times; do
    [ -s "$dir/$plot.plt" ] || fail "$id: $plot.plt missing"
    # A PNG starts with the 8-byte signature 89 50 4E 47 0D 0A 1A 0A.
    [ "$(head -c 8 "$dir/$plot.png" 2>/dev/null | od -An -tx1 | tr -d ' \n')" = \
      "89504e470d0a1a0a" ] || fail "$id: $plot.png missing or not a PNG"
  done
  # The topology's capability set (every one): its optimum, each clique by its own algorithm.
  set="set-multicast+aggregation+core"
  grep -q "^{multicast,aggregation,core} " "$work/$id.stdout" || fail "$id: no table row for the set"
  jq -e '.config.mode == "schedule" and .verification.passed
         and ([.rounds[].cliques[] | select(.members | length > 1) | .algorithm | type == "string"]
              | all)' "$dir/$set.json" >/dev/null 2>&1 ||
    fail "$id: $set.json is not a verified run of each clique's own algorithm"
  jq -e . "$dir/$set-schedule.json" >/dev/null 2>&1 || fail "$id: $set-schedule.json missing"
  rows=$(($(wc -l <"$dir/summary.csv") - 1))
  [ "$rows" -eq 7 ] || fail "$id: summary.csv has $rows rows, expected 7 (six modes, one set)"
  [ "$(jq '.modes | length' "$dir/summary.json" 2>/dev/null)" = "$rows" ] ||
    fail "$id: summary.json and summary.csv disagree on the modes"
done

if [ "$failed" -eq 0 ]; then
  for file in summary.txt summary.csv rounds.csv; do
    cmp -s "$work/first/$file" "$work/second/$file" ||
      fail "$file differs between two runs with the same seed"
  done
  cmp -s "$work/first.stdout" "$work/second.stdout" ||
    fail "the printed table differs between two runs with the same seed"
fi

if [ "$failed" -eq 0 ]; then
  echo "ok: two runs of ./wan-training run --quick, every output present and equal"
  cat "$work/first.stdout"
  rm -rf "$work"
  exit 0
fi
echo "$failed failures; outputs kept in $work"
exit 1
