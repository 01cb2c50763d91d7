#!/usr/bin/env bash
# Copyright (c) 2026 The wan-training authors
# SPDX-License-Identifier: GPL-2.0-only
#
# usage: test/sweep-jobs.sh WAN-SWEEP TOPOLOGY
#
# The simulations of `wan-sweep --simulateRounds`, run by wan-training-simulate (beside WAN-SWEEP)
# on a tiny sweep (2 model sizes x 1 compute time x (2 modes + the topology's capability set), 2
# rounds; a set point runs without --mode, each clique by its own algorithm):
#  - --jobs=1 and --jobs=2 both exit 0 and write the same CSV (the order is the grid's, not the
#    order in which the processes end);
#  - every row of the JSON is simulated and verified, and its simulated and predicted mean round
#    times equal what jq computes from the point's results file (training_time_s / rounds;
#    local_steps x step_time_s + the mean of predicted_comm_s), local_steps x step_time_s equals
#    the row's compute_s, and the results file is the simulation of the row's mode and size;
#  - --printJobs prints one command per point, which a shell runs as printed (the work directory
#    has a quote and parentheses in its name), and --collectOnly then writes --jobs=1's CSV;
#  - collecting with other --simulateRounds rejects the results files (they do not match);
#  - a simulator that fails (/bin/false) is reported per point with its exit status, the JSON
#    and CSV are still written, and the sweep exits 2.
# Needs jq.
set -u
sweep=$(realpath "$1")
topology=$(realpath "$2")
work=$(mktemp -d "${TMPDIR:-/tmp}/sweep-jobs.XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
failed=0
fail() {
  echo "FAIL $*"
  failed=$((failed + 1))
}
args=(--topology="$topology" --modelBytes=2e5,4e5 --computeS=0.01 --modes=unicast,both
  --maxEvaluations=3000 --simulateRounds=2)

for jobs in 1 2; do
  if ! "$sweep" "${args[@]}" --jobs=$jobs --json=jobs$jobs.json --csv=jobs$jobs.csv \
    >jobs$jobs.out 2>jobs$jobs.err; then
    fail "--jobs=$jobs exited non-zero:"
    cat jobs$jobs.err
  fi
done
cmp -s jobs1.csv jobs2.csv || fail "the CSVs of --jobs=1 and --jobs=2 differ"
[ "$(wc -l <jobs1.csv)" -eq 7 ] || fail "jobs1.csv: expected a header and 6 rows"

rows=$(jq '.rows | length' jobs2.json 2>/dev/null)
[ "$rows" = 6 ] || fail "jobs2.json: expected 6 rows, got '$rows'"
for ((i = 0; i < ${rows:-0}; ++i)); do
  row=$(jq -c ".rows[$i]" jobs2.json)
  results=$(jq -r '.simulation.results_file' <<<"$row")
  [ "$(jq '.simulation.verified' <<<"$row")" = true ] || fail "row $i: not verified"
  jq -e . "$results" >/dev/null 2>&1 || {
    fail "row $i: no results file $results"
    continue
  }
  # Independently: the means from the results file, compared at 1e-9 relative.
  jq -e -n --argjson row "$row" --slurpfile r "$results" '
    def close(a; b): ((a - b) | fabs) <= 1e-9 * ([(a | fabs), (b | fabs), 1e-12] | max);
    $r[0] as $d | ($d.rounds | length) as $n
    | ($d.config.local_steps * $d.config.step_time_s) as $compute
    | ($d.summary.training_time_s / $n) as $simulated
    | ($compute + ([$d.rounds[].predicted_comm_s] | add) / $n) as $predicted
    | $n == 2 and $d.verification.passed
      and $d.config.mode == ($row.mode // "schedule") and $d.config.model_bytes == $row.model_bytes
      and close($compute; $row.compute_s)
      and close($simulated; $row.simulation.simulated_mean_round_s)
      and close($predicted; $row.simulation.predicted_mean_round_s)
      and close($simulated - $predicted; $row.simulation.simulated_minus_predicted_s)' \
    >/dev/null || fail "row $i: the means or the config differ from $results"
done

# Fan-out: print the commands, run them in a shell, collect.
# A quote and parentheses in the name: the printed commands must quote it for the shell (ns-3's
# CommandLine cuts string values at whitespace, so no space).
printed="$work/print-dir's(1)"
if ! "$sweep" "${args[@]}" --workDir="$printed" --json=print.json --csv=print.csv --printJobs \
  >jobs.txt 2>print.err; then
  fail "--printJobs exited non-zero:"
  cat print.err
fi
[ "$(wc -l <jobs.txt)" -eq 6 ] || fail "--printJobs: expected 6 command lines:" "$(cat jobs.txt)"
[ ! -e print.json ] || fail "--printJobs wrote the JSON"
bash jobs.txt >run.out 2>&1 || fail "the printed commands failed: $(cat run.out)"
if ! "$sweep" "${args[@]}" --workDir="$printed" --json=collect.json --csv=collect.csv \
  --collectOnly >collect.out 2>collect.err; then
  fail "--collectOnly exited non-zero:"
  cat collect.err
fi
cmp -s jobs1.csv collect.csv || fail "the CSV of --collectOnly differs from --jobs=1's"
"$sweep" "${args[@]}" --simulateRounds=3 --workDir="$printed" --json=stale.json --csv=stale.csv \
  --collectOnly >stale.out 2>stale.err
status=$?
[ "$status" -eq 2 ] || fail "collecting 2-round results as 3 rounds: exit $status, not 2"
[ "$(grep -c 'config.rounds differs' stale.err)" -eq 6 ] ||
  fail "collecting 2-round results as 3 rounds: not 6 mismatches:" "$(cat stale.err)"

# A failing simulator: every point reported, the outputs written, exit 2.
"$sweep" "${args[@]}" --simulator=/bin/false --jobs=2 --json=false.json --csv=false.csv \
  >false.out 2>false.err
status=$?
[ "$status" -eq 2 ] || fail "--simulator=/bin/false: exit $status, not 2"
for point in point-000-unicast point-001-both point-002-set-multicast+aggregation+core \
  point-003-unicast point-004-both point-005-set-multicast+aggregation+core; do
  grep -q "^wan-sweep: $point (.*): false ended with exit status 1" false.err ||
    fail "--simulator=/bin/false: $point not reported:" "$(cat false.err)"
done
unverified=$(jq '[.rows[] | select(.simulation.verified == false)] | length' false.json 2>/dev/null)
[ "$unverified" = 6 ] ||
  fail "--simulator=/bin/false: the JSON lacks 6 unverified rows"

if [ "$failed" -gt 0 ]; then
  echo "$failed checks failed"
  exit 1
fi
echo "ok: --jobs=1 and --jobs=2 agree, every point verified, --printJobs/--collectOnly agree"
