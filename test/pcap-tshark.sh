#!/usr/bin/env bash
# Copyright (c) 2026 The wan-training authors
# SPDX-License-Identifier: GPL-2.0-only
#
# usage: test/pcap-tshark.sh SIMULATE SOURCE-DIR
#
# Runs a small lossless simulation (test/data/tiny-valid.json: islands aaa, bbb, ccc with indices
# 0, 1, 2 and addresses 10.128.0.2, .6, .10 as WanTopologyHelper documents; one all-reduce clique;
# 2 rounds; S = 20000 bytes in 20 chunks of 1000 bytes; 2000 parameters, so chunks 0-7 carry 250
# values each at offset 250 c and the others none) with --pcap, then decodes island aaa's capture
# with tshark and tools/wireshark/wan-training.lua. The DATA messages must be exactly those the
# configuration makes the islands send, computed here: every round r and chunk c once from aaa to
# bbb and once to ccc (sender 0, contributor bitmap 0x1), and once from bbb (sender 1, bitmap 0x2)
# and from ccc (sender 2, bitmap 0x4) to aaa; clique 0, chunk count 20, 1 contributor, the value
# slice above, 1000 model bytes, checksum good. The same run captured with 70 bytes per frame
# (--pcapSnaplen=70, or editcap -s 70 for a program without it) decodes to the same headers,
# the checksum unverified where values were cut off.
# The test capture of every message kind (test/data/pcap/message-kinds/aaa-up.pcap, written by the
# IslandSyncHeader test suite from IslandSyncHeader::Serialize) decodes to the kinds and fields
# of its messages.tsv, as IslandSyncHeader and pcap-report decode it: type, name (the Info
# column's first word), version, job, sender, round, clique index, exclusion epoch, counts,
# bitmap, value offset, area count and frame length, every checksum good.
# The test capture of the payload formats (test/data/pcap/payload-formats/formats.pcap, written by
# the IslandSyncHeader test suite) decodes to the formats, offsets, counts and first values of its
# formats.tsv (bf16 values and int8 codes times their block's scale).
# The test capture of every aggregate kind (test/data/pcap/aggregate-kinds/aggregates.pcap)
# decodes to the kinds of its aggregates.tsv (wtsync.aggregate_kind, from the IPv4 addresses:
# total, partial, edge, island aggregate, or plain aggregate for unknown addresses) with their
# contributor counts, every checksum good.
set -u
simulate="$1"
source_dir="$2"
lua="$source_dir/tools/wireshark/wan-training.lua"
command -v tshark >/dev/null ||
  { echo "FAIL: tshark is not installed (Debian package tshark)"; exit 1; }
work=$(mktemp -d "${TMPDIR:-/tmp}/pcap-tshark.XXXXXX")

"$simulate" --topology="$source_dir/test/data/tiny-valid.json" --scheduleKind=allreduce \
  --modelBytes=20000 --chunkBytes=1000 --parameterCount=2000 --rounds=2 --localSteps=2 \
  --out="$work/results.json" --pcap="$work/pcap" >"$work/simulate.out" 2>&1 ||
  { echo "FAIL: simulate failed:"; cat "$work/simulate.out"; exit 1; }

address=(10.128.0.2 10.128.0.6 10.128.0.10)
# expected FULL: the DATA tuples of aaa's capture, sorted; FULL=0 when only 70 bytes of each
# frame were captured: the checksum is then unverified (2) unless the chunk carries no values.
expected() {
  local full="$1" r c s d offset count status
  for r in 0 1; do
    for c in $(seq 0 19); do
      if [ "$c" -lt 8 ]; then offset=$((250 * c)); count=250; else offset=0; count=0; fi
      status=1
      if [ "$full" -eq 0 ] && [ "$count" -gt 0 ]; then status=2; fi
      for s in 0 1 2; do
        for d in 0 1 2; do
          # aaa's capture holds what aaa sends and what it receives.
          if [ "$s" -ne "$d" ] && { [ "$s" -eq 0 ] || [ "$d" -eq 0 ]; }; then
            printf '%s,%s,%d,%d,0,%d,20,0x%016x,1,%d,%d,%d,1000\n' "${address[$s]}" \
              "${address[$d]}" "$r" "$s" "$c" $((1 << s)) "$offset" "$count" "$status"
          fi
        done
      done
    done
  done | sort
}

# decoded FILE: the DATA tuples tshark decodes from a capture, sorted.
decoded() {
  tshark -X lua_script:"$lua" -r "$1" -Y 'wtsync.type == 1' -T fields -E separator=, \
    -e ip.src -e ip.dst -e wtsync.round -e wtsync.sender -e wtsync.clique \
    -e wtsync.chunk_index -e wtsync.chunk_count -e wtsync.contributors \
    -e wtsync.contributor_count -e wtsync.value_offset -e wtsync.value_count \
    -e wtsync.checksum.status -e wtsync.model_bytes 2>"$work/tshark-data.err" | sort
}

failed=0
# verdict LABEL NAME PROBLEM FOUND: compare $work/NAME-expected.txt with $work/NAME-decoded.txt,
# what tshark decoded (its errors in $work/tshark-NAME.err); PROBLEM says what a difference
# means, FOUND what the decoded lines are when they agree.
verdict() {
  local label="$1" name="$2" problem="$3" found="$4"
  if grep -qi 'lua\|error' "$work/tshark-$name.err"; then
    echo "FAIL $label: tshark reported:"
    head -5 "$work/tshark-$name.err"
    failed=$((failed + 1))
  elif ! diff "$work/$name-expected.txt" "$work/$name-decoded.txt" >"$work/$name-diff.txt"; then
    echo "FAIL $label: $problem:"
    head -20 "$work/$name-diff.txt"
    failed=$((failed + 1))
  else
    echo "ok $label: $(wc -l <"$work/$name-decoded.txt") $found"
  fi
}

check() {
  local label="$1" file="$2" full="$3"
  expected "$full" >"$work/data-expected.txt"
  decoded "$file" >"$work/data-decoded.txt"
  verdict "$label" data "decoded DATA headers differ from what the simulation sent" \
    "DATA headers as sent"
}

check "full capture" "$work/pcap/aaa-up.pcap" 1
# Headers only: from the simulation when it has --pcapSnaplen, else cut with editcap.
if "$simulate" --help 2>&1 | grep -q -- '--pcapSnaplen'; then
  "$simulate" --topology="$source_dir/test/data/tiny-valid.json" --scheduleKind=allreduce \
    --modelBytes=20000 --chunkBytes=1000 --parameterCount=2000 --rounds=2 --localSteps=2 \
    --pcap="$work/pcap-70" --pcapSnaplen=70 >"$work/simulate-70.out" 2>&1 ||
    { echo "FAIL: simulate --pcapSnaplen=70 failed:"; cat "$work/simulate-70.out"; exit 1; }
  check "70-byte capture" "$work/pcap-70/aaa-up.pcap" 0
elif command -v editcap >/dev/null; then
  editcap -F pcap -s 70 "$work/pcap/aaa-up.pcap" "$work/aaa-up-70.pcap"
  check "70-byte capture (editcap)" "$work/aaa-up-70.pcap" 0
else
  echo "FAIL: neither --pcapSnaplen nor editcap (Debian wireshark-common) is available"
  failed=$((failed + 1))
fi

# The non-DATA messages are dissected too: every sync frame is WTSYNC with no expert error.
frames=$(tshark -X lua_script:"$lua" -r "$work/pcap/aaa-up.pcap" -T fields -e frame.number \
  2>/dev/null | wc -l)
sync=$(tshark -X lua_script:"$lua" -r "$work/pcap/aaa-up.pcap" -Y 'wtsync' -T fields \
  -e frame.number 2>/dev/null | wc -l)
errors=$(tshark -X lua_script:"$lua" -r "$work/pcap/aaa-up.pcap" \
  -Y 'wtsync.malformed || wtsync.checksum.bad' -T fields -e frame.number 2>/dev/null | wc -l)
if [ "$frames" -eq 0 ] || [ "$sync" -ne "$frames" ] || [ "$errors" -ne 0 ]; then
  echo "FAIL: $sync of $frames frames dissected as wtsync, $errors with expert errors"
  failed=$((failed + 1))
else
  echo "ok: all $frames frames dissected as wtsync, none malformed"
fi

# The test capture of every message kind: the fields messages.tsv lists, checksum good (1).
kinds="$source_dir/test/data/pcap/message-kinds"
grep -v '^#' "$kinds/messages.tsv" | awk -F'\t' -v OFS='\t' '{ print $0, 1 }' >"$work/kinds-expected.txt"
tshark -X lua_script:"$lua" -r "$kinds/aaa-up.pcap" -T fields -E separator=/t \
  -e frame.number -e wtsync.type -e _ws.col.Info -e wtsync.version -e wtsync.job \
  -e wtsync.sender -e wtsync.round -e wtsync.clique -e wtsync.epoch -e wtsync.contributor_count \
  -e wtsync.chunk_index -e wtsync.chunk_count -e wtsync.contributors -e wtsync.value_offset \
  -e wtsync.value_count -e wtsync.range_count -e frame.len -e wtsync.checksum.status \
  -e wtsync.parity_bytes -e wtsync.block_chunks \
  2>"$work/tshark-kinds.err" |
  awk -F'\t' -v OFS='\t' '{
    split($3, words, " "); area = $15 != "" ? $15 : ($16 != "" ? $16 : $19)
    offset = $14 != "" ? $14 : $20
    print $1, $2, words[1], $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, offset, area, $17, $18
  }' >"$work/kinds-decoded.txt"
kind_errors=$(tshark -X lua_script:"$lua" -r "$kinds/aaa-up.pcap" \
  -Y 'wtsync.malformed || wtsync.checksum.bad' -T fields -e frame.number 2>/dev/null | wc -l)
if grep -qi 'lua\|error' "$work/tshark-kinds.err"; then
  echo "FAIL message kinds: tshark reported:"
  head -5 "$work/tshark-kinds.err"
  failed=$((failed + 1))
elif ! diff "$work/kinds-expected.txt" "$work/kinds-decoded.txt" >"$work/kinds-diff.txt" ||
  [ "$kind_errors" -ne 0 ]; then
  echo "FAIL message kinds: the dissector reads other fields than messages.tsv ($kind_errors errors):"
  head -20 "$work/kinds-diff.txt"
  failed=$((failed + 1))
else
  echo "ok message kinds: $(wc -l <"$work/kinds-decoded.txt") frames, every kind as listed"
fi

# The test capture of every aggregate kind: the kinds aggregates.tsv lists, checksum good.
aggregates="$source_dir/test/data/pcap/aggregate-kinds"
grep -v '^#' "$aggregates/aggregates.tsv" >"$work/aggregates-expected.txt"
tshark -X lua_script:"$lua" -r "$aggregates/aggregates.pcap" -Y 'wtsync.checksum.status == 1' \
  -T fields -E separator=/t -e frame.number -e ip.src -e ip.dst -e wtsync.sender \
  -e wtsync.chunk_index -e wtsync.contributors -e wtsync.contributor_count \
  -e wtsync.aggregate_kind 2>"$work/tshark-aggregates.err" >"$work/aggregates-decoded.txt"
verdict "aggregate kinds" aggregates "the dissector labels other kinds than aggregates.tsv" \
  "aggregates, each kind as listed"

# The test capture of the payload formats: format, type, offset, count, frame length and the
# first three decoded values of formats.tsv, checksum good.
formats="$source_dir/test/data/pcap/payload-formats"
grep -v '^#' "$formats/formats.tsv" | awk -F'\t' -v OFS='\t' '{ print $1, $2, $4, $5, $6, $7, $8, 1 }' \
  >"$work/formats-expected.txt"
tshark -X lua_script:"$lua" -r "$formats/formats.pcap" -T fields -E separator=/t \
  -e frame.number -e wtsync.type -e wtsync.format -e wtsync.value_offset -e wtsync.value_count \
  -e frame.len -e wtsync.value -e wtsync.checksum.status 2>"$work/tshark-formats.err" |
  awk -F'\t' -v OFS='\t' '{
    split("fp32 bf16 int8", names, " "); split($7, values, ",")
    print $1, $2, names[$3 + 1], $4, $5, $6, values[1] "," values[2] "," values[3], $8
  }' >"$work/formats-decoded.txt"
verdict "payload formats" formats \
  "the dissector reads other formats or values than formats.tsv" "frames, formats and values as listed"

# Coarse frames (--frameBytes=65535 on 1500-byte frames): with the capture's wire MTU as its
# preference, the dissector's model bytes of a headers-only capture add up to the results JSON's
# model bytes of the frames island aaa (0) sends on its up link, and its wire frames to the
# link's wire frames.
coarse="$work/coarse"
if "$simulate" --topology="$source_dir/test/data/tiny-valid.json" --scheduleKind=allreduce \
  --modelBytes=400000 --parameterCount=2000 --rounds=1 --localSteps=2 --frameBytes=65535 \
  --pcap="$coarse" --pcapSnaplen=70 --out="$work/coarse.json" >"$work/simulate-coarse.out" 2>&1; then
  mtu=$(jq .mtu_bytes "$coarse/capture.json")
  read -r model frames < <(tshark -X lua_script:"$lua" -o "wtsync.wire_mtu:$mtu" \
    -r "$coarse/aaa-up.pcap" -Y "wtsync.sender == 0" -T fields -e wtsync.model_bytes -e wtsync.wire_frames \
    2>"$work/tshark-coarse.err" |
    awk -F'\t' '{ model += $1; frames += ($2 == "" ? 1 : $2) } END { print model + 0, frames + 0 }')
  expected_model=$(jq '.links["aaa:up"].model_bytes' "$work/coarse.json")
  expected_frames=$(jq '.links["aaa:up"].wire_frames' "$work/coarse.json")
  packets=$(jq '.links["aaa:up"].packets' "$work/coarse.json")
  if [ "$model" != "$expected_model" ] || [ "$frames" != "$expected_frames" ] ||
    [ "$packets" -ge "$frames" ]; then
    echo "FAIL coarse frames: the dissector reads $model model bytes in $frames wire frames," \
      "the results $expected_model in $expected_frames ($packets packets)"
    head -5 "$work/tshark-coarse.err"
    failed=$((failed + 1))
  else
    echo "ok coarse frames: $packets packets stand for $frames wire frames of $model model bytes"
  fi
else
  echo "FAIL: simulate --frameBytes failed:"
  cat "$work/simulate-coarse.out"
  failed=$((failed + 1))
fi

if [ "$failed" -eq 0 ]; then
  rm -rf "$work"
  exit 0
fi
echo "files kept in $work"
exit 1
