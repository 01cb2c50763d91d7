#!/usr/bin/env bash
# Copyright (c) 2026 The wan-training authors
# SPDX-License-Identifier: GPL-2.0-only
#
# usage: test/valgrind-leak-check.sh SIMULATE SOURCE-DIR
# Runs wan-training-simulate under valgrind --leak-check=full on short nine-city runs (lossless,
# lossy with NACK repair, both mode with a crashed island, and rejected input) and fails on any
# definite leak or memory error.
# Exit 77 (a skipped CTest) when valgrind is not installed: `./wan-training test` installs it.
set -u
simulate="$1"
src="$2"
if ! command -v valgrind >/dev/null 2>&1; then
  echo "SKIP: valgrind is not installed"
  exit 77
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
topology="$src/topologies/doublezero-nine-city.json"
valgrind=(valgrind --leak-check=full --show-leak-kinds=definite --errors-for-leak-kinds=definite)
failed=0

# check NAME EXPECTED-STATUS ERROR-EXITCODE ARGS...: run the simulation under valgrind; its exit
# status must be EXPECTED-STATUS (valgrind exits ERROR-EXITCODE on a leak or memory error).
check() {
  local name="$1" expected="$2" code="$3"
  shift 3
  "${valgrind[@]}" --error-exitcode="$code" --log-file="$work/$name.valgrind" \
    "$simulate" "$@" >"$work/$name.out" 2>&1
  local status=$?
  if [ "$status" -ne "$expected" ]; then
    echo "FAIL: $name: exit $status (expected $expected) for: $simulate $*"
    cat "$work/$name.out" "$work/$name.valgrind"
    failed=1
    return
  fi
  echo "ok: $name: $(grep -E 'definitely lost|All heap blocks|ERROR SUMMARY' \
    "$work/$name.valgrind" | sed 's/^==[0-9]*== //' | tr '\n' ' ')"
}

check lossless 0 1 --topology="$topology" --scheduleKind=latin --modelBytes=200000 --rounds=2 \
  --out="$work/lossless.json"
check lossy 0 1 --topology="$topology" --scheduleKind=latin --modelBytes=200000 --rounds=2 \
  --loss=0.02 --out="$work/lossy.json"
# In-line FPGAs, multicast trees and a crashed island (exclusions, partial aggregates).
check both-crash 0 1 --topology="$topology" --scheduleKind=latin --mode=both --modelBytes=200000 \
  --rounds=3 --crash=tyo@1 --out="$work/both-crash.json"
# The input-error path exits 1 itself, so valgrind's findings get their own status.
check bad-topology 1 99 --topology="$src/test/data/bad-topologies/self-loop.json" \
  --scheduleKind=latin --out="$work/never-written.json"
exit "$failed"
