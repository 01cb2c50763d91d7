#!/usr/bin/env bash
# Copyright (c) 2026 The wan-training authors
# SPDX-License-Identifier: GPL-2.0-only
#
# usage: test/pcap-bad-input.sh PCAP-REPORT DATA-DIR
# For every case of DATA-DIR/expected.tsv (a directory of DATA-DIR, the file the message must
# name, the place in it and the reason), runs `PCAP-REPORT DATA-DIR/CASE` and checks that it
# exits with status 1 (not 0, not a signal) and prints "pcap-report: DATA-DIR/CASE/FILE: PLACE:
# REASON" on stderr: empty, truncated, non-pcap and non-PPP captures give a clear error, never
# a crash.
set -u
program="$1"
dir="$2"
failed=0
passed=0
while IFS=$'\t' read -r case file place reason; do
  case "$case" in "" | \#*) continue ;; esac
  target="$dir/$case"
  named="$target"
  [ "$file" = "." ] || named="$target/$file"
  output=$("$program" "$target" 2>&1 >/dev/null)
  status=$?
  expected="pcap-report: $named: $place: $reason"
  if [ "$status" -ge 128 ]; then
    echo "FAIL $case: crashed (exit $status)"
    failed=$((failed + 1))
  elif [ "$status" -ne 1 ]; then
    echo "FAIL $case: exit $status, expected 1"
    failed=$((failed + 1))
  elif [[ "$output" != *"$expected"* ]]; then
    echo "FAIL $case: stderr lacks '$expected':"
    echo "  $output"
    failed=$((failed + 1))
  else
    echo "ok $case: $output"
    passed=$((passed + 1))
  fi
done <"$dir/expected.tsv"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
