#!/usr/bin/env bash
# Copyright (c) 2026 The wan-training authors
# SPDX-License-Identifier: GPL-2.0-only
#
# usage: test/simulate-progress.sh WAN-TRAINING-SIMULATE TOPOLOGY
#
# The progress reports of wan-training-simulate (TrainingProgress) on a tiny run (nine cities,
# Latin triples, S = 2e5 bytes, 2 rounds):
#  - with --progressInterval=0 a line per check reaches stderr, in the documented format, and
#    the last line says every round ended at 100 %;
#  - with --quiet (and the same interval) stderr holds no progress line at all;
#  - the results JSON of the two runs is byte for byte the same (the reports observe only).
set -u
simulate=$(realpath "$1")
topology=$(realpath "$2")
work=$(mktemp -d "${TMPDIR:-/tmp}/simulate-progress.XXXXXX")
trap 'rm -rf "$work"' EXIT
failed=0
fail() {
  echo "FAIL $*"
  failed=1
}
args=(--topology="$topology" --scheduleKind=latin --rounds=2 --modelBytes=2e5
      --progressInterval=0)
"$simulate" "${args[@]}" --out="$work/loud.json" >"$work/loud.out" 2>"$work/loud.err" ||
  fail "the run with progress exited $?"
"$simulate" "${args[@]}" --quiet --out="$work/quiet.json" >"$work/quiet.out" \
  2>"$work/quiet.err" || fail "the --quiet run exited $?"

line='^wan-training-simulate: (rounds? [0-9]+/2 [0-9]+\.[0-9] %(, [0-9]+/2 [0-9]+\.[0-9] %)*|[0-9]/2 rounds ended) \(run [0-9]+\.[0-9] %\), simulated [0-9]+\.[0-9]{3} s, wall [0-9]+\.[0-9] s'
lines=$(grep -c '^wan-training-simulate: .*(run ' "$work/loud.err")
[ "$lines" -ge 2 ] || fail "with progress: $lines progress lines on stderr"
bad=$(grep '^wan-training-simulate: .*(run ' "$work/loud.err" | grep -Evc "$line")
[ "$bad" -eq 0 ] || fail "$bad progress lines not in the format, e.g. $(grep -Ev "$line" "$work/loud.err" | head -1)"
last=$(tail -1 "$work/loud.err")
case "$last" in
  "wan-training-simulate: 2/2 rounds ended (run 100.0 %), simulated "*) ;;
  *) fail "the last line is not the end of the run: $last" ;;
esac
if grep -q '(run ' "$work/quiet.err"; then
  fail "--quiet: progress lines on stderr: $(head -1 "$work/quiet.err")"
fi
[ -s "$work/quiet.err" ] && fail "--quiet: stderr is not empty: $(head -3 "$work/quiet.err")"
cmp "$work/loud.json" "$work/quiet.json" || fail "the results differ with and without progress"
[ "$failed" -eq 0 ] && echo "PASS: $lines progress lines; none with --quiet; same results"
exit "$failed"
