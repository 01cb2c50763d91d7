#!/usr/bin/env bash
# Copyright (c) 2026 The wan-training authors
# SPDX-License-Identifier: GPL-2.0-only
#
# usage: test/cli-rejects-bad-input.sh PROGRAM OPTION MANIFEST-DIR [EXTRA-ARGS...]
# For every malformed input listed in MANIFEST-DIR/expected.tsv (file, JSON path, reason), runs
# `PROGRAM --OPTION=FILE EXTRA-ARGS...` and checks that it exits non-zero, without a crash (no
# signal), and prints one message naming the file, the JSON path and the reason.
set -u
program="$1"
option="$2"
dir="$3"
shift 3
failed=0
passed=0
while IFS=$'\t' read -r file path reason; do
  case "$file" in "" | \#*) continue ;; esac
  output=$("$program" "--$option=$dir/$file" "$@" 2>&1 >/dev/null)
  status=$?
  expected="$dir/$file: $path: "
  if [ "$status" -eq 0 ]; then
    echo "FAIL $file: accepted (exit 0)"
    failed=$((failed + 1))
  elif [ "$status" -ge 128 ]; then
    echo "FAIL $file: crashed (exit $status)"
    failed=$((failed + 1))
  elif [[ "$output" != *"$expected"*"$reason"* ]]; then
    echo "FAIL $file: message does not name '$expected' and '$reason':"
    echo "  $output"
    failed=$((failed + 1))
  else
    passed=$((passed + 1))
  fi
done <"$dir/expected.tsv"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
