#!/usr/bin/env bash
# Copyright (c) 2026 The wan-training authors
# SPDX-License-Identifier: GPL-2.0-only
#
# usage: test/expect-error.sh MESSAGE PROGRAM [ARGS...]
# Passes when PROGRAM exits non-zero without a crash (no signal) and its stderr contains MESSAGE
# (a fixed string): bad input must give one clear message and a non-zero exit.
set -u
message="$1"
shift
output=$("$@" 2>&1 >/dev/null)
status=$?
if [ "$status" -eq 0 ]; then
  echo "FAIL: exit 0 for: $*"
  exit 1
elif [ "$status" -ge 128 ]; then
  echo "FAIL: crashed (exit $status) for: $*"
  exit 1
elif [[ "$output" != *"$message"* ]]; then
  echo "FAIL: stderr lacks '$message':"
  echo "$output"
  exit 1
fi
echo "ok: exit $status with: $output"
