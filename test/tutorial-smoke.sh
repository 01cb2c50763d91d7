#!/usr/bin/env bash
# Copyright (c) 2026 The wan-training authors
# SPDX-License-Identifier: GPL-2.0-only
#
# usage: test/tutorial-smoke.sh CLIQUES PROGRAM [ARGS...]
# Runs the tutorial (examples/wan-training-tutorial.cc) and passes when it exits 0 and prints,
# for each of its two rounds, CLIQUES clique times and one round line, every time a positive
# number of seconds, the rounds in order.
set -u
cliques="$1"
shift
command="$*"
output=$("$@" 2>&1)
status=$?
fail() {
  echo "FAIL: $1 for: $command"
  echo "$output"
  exit 1
}
[ "$status" -eq 0 ] || fail "exit $status"
number='[0-9]+(\.[0-9]+)?(e[-+]?[0-9]+)?'
rounds=$(grep -Ec "^  round [01]: simulated $number s, schedule model $number s$" <<<"$output")
[ "$rounds" -eq 2 ] || fail "$rounds round lines with positive times, not 2"
order=$(grep -Eo '^  round [0-9]+:' <<<"$output" | tr -d '\n')
[ "$order" = "  round 0:  round 1:" ] || fail "the rounds are not 0 then 1"
times=$(grep -Ec "^  round [01] clique \{( [A-Za-z0-9_-]+)+ \}: $number s$" <<<"$output")
[ "$times" -eq $((2 * cliques)) ] || fail "$times clique lines with positive times, not $((2 * cliques))"
zeros=$(grep -Ec ' 0 s' <<<"$output")
[ "$zeros" -eq 0 ] || fail "a time of 0 s"
echo "ok: two rounds of $cliques cliques"
grep -E '^  round [01]:' <<<"$output"
