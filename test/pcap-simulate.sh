#!/usr/bin/env bash
# Copyright (c) 2026 The wan-training authors
# SPDX-License-Identifier: GPL-2.0-only
#
# usage: test/pcap-simulate.sh SIMULATE PCAP-REPORT MULTICAST-TREES SOURCE-DIR
#
# For every capability mode that wan-training-simulate accepts (unicast, multicast, aggregation,
# both, ring, tree; a mode it rejects with an error on --mode is skipped and reported), on the
# nine-city topology with the Latin-triples schedule and a small model:
#  - a lossless and a lossy (2 % WAN packet errors, so repairs and lost frames; nanosecond
#    timestamps) run with --pcap:
#    pcap-report's per-directed-link packets, bytes and model bytes equal the results JSON's
#    (the simulator's own PhyTxBegin counters), for every directed link, with no ambiguous
#    attribution; per-round counts add up to the totals;
#  - the same captures cut to 70 bytes per frame (--pcapSnaplen=70 when the program has it,
#    else editcap -s 70): the same per-link counts from the wire lengths;
#  - lossless replication, against wan-multicast-trees (the union of the routes from each source
#    to the other members of its clique, PimMulticastHelper's trees): every stream's DATA chunks
#    appear on exactly the tree's links (without the members' :down links where an FPGA sums
#    them), every chunk on every such link; copies per chunk: once per link with multicast, the
#    number of members on the source's :up link and once on each member's :down link with
#    unicast;
#  - ring: no AGGREGATE toward an island is attributed to an FPGA, and every island receives
#    its peers' partial sums (island_aggregates_out);
#  - lossless aggregation: packets into each island's FPGA port equal the sum over rounds of
#    the chunks of the other members of its clique, and packets out equal it without FPGA, one
#    aggregate per chunk with one; lossy without FPGA: packets out equal packets in;
#  - tree (once the simulate program accepts it): tree traffic found and no aggregate left
#    unclassified ("other"); lossless: every root's total appears on exactly the links of the
#    root's source tree (wan-multicast-trees), every chunk once on each, every router conserves
#    contributions (the contributors it receives are the ones it sums plus the ones it passes
#    on), and no total repair.
# Then coarse frames (--frameBytes=64000) of unicast, both, ring and tree, lossless and at 2 %
# loss, full and headers-only captures: the per-link counts equal the results JSON's, and
# (lossless) every link carries the exact run's wire bytes in as many wire frames as its packets.
# Needs jq, and editcap (Debian wireshark-common, installed with tshark) when the program has
# no --pcapSnaplen.
set -u
simulate="$1"
report="$2"
trees="$3"
source_dir="$4"
topology="$source_dir/topologies/doublezero-nine-city.json"
work=$(mktemp -d "${TMPDIR:-/tmp}/pcap-simulate.XXXXXX")
failed=0
checked=0

fail() {
  echo "FAIL $*"
  failed=$((failed + 1))
}

for tool in jq; do
  command -v "$tool" >/dev/null || { echo "FAIL: $tool is not installed"; exit 1; }
done
snaplen_option=0
if "$simulate" --help 2>&1 | grep -q -- '--pcapSnaplen'; then
  snaplen_option=1
elif ! command -v editcap >/dev/null; then
  echo "FAIL: neither --pcapSnaplen nor editcap (Debian wireshark-common) is available"
  exit 1
fi

"$trees" --topology="$topology" --scheduleKind=latin --out="$work/trees.json" >/dev/null ||
  { echo "FAIL: wan-multicast-trees failed"; exit 1; }

# verdict LABEL WHAT PROBLEMS OK: fail with the problems found, or count a check passed and
# say OK.
verdict() {
  if [ -n "$3" ]; then
    fail "$1: $2:"
    echo "$3" | head -20
    return
  fi
  checked=$((checked + 1))
  echo "ok $1: $4"
}

# compare_links RESULTS REPORT LABEL: per-link packets, bytes and model bytes must be equal.
compare_links() {
  local results="$1" pcap="$2" label="$3"
  jq -S '.links | map_values({packets, bytes, model_bytes})' "$results" >"$work/expected.json"
  jq -S '.links | map_values({packets, bytes, model_bytes})' "$pcap" >"$work/actual.json"
  if ! diff "$work/expected.json" "$work/actual.json" >"$work/diff.txt"; then
    fail "$label: per-link counts differ from the results JSON:"
    head -20 "$work/diff.txt"
    return
  fi
  local links ambiguous rounds
  links=$(jq '.links | length' "$pcap")
  ambiguous=$(jq '.ambiguous_packets' "$pcap")
  [ "$links" -gt 0 ] || fail "$label: no links"
  [ "$ambiguous" -eq 0 ] || fail "$label: $ambiguous packets attributed ambiguously"
  # Per round plus other traffic adds up to the total on every link.
  rounds=$(jq '[.links[] | select(.packets != ([.rounds[].packets] | add // 0) + .other.packets
                or .bytes != ([.rounds[].bytes] | add // 0) + .other.bytes)] | length' "$pcap")
  [ "$rounds" -eq 0 ] || fail "$label: per-round counts do not add up on $rounds links"
  checked=$((checked + 1))
  echo "ok $label: $links directed links, packets/bytes/model bytes equal the results JSON"
}

# check_replication RESULTS REPORT MODE LABEL: lossless replication against the trees.
check_replication() {
  local results="$1" pcap="$2" mode="$3" label="$4"
  local problems
  problems=$(jq -r --slurpfile trees "$work/trees.json" --slurpfile results "$results" \
    --arg mode "$mode" '
    ($results[0].config.schedule_rounds | length) as $period
    | ($results[0].config.schedule_rounds) as $schedule
    | ($results[0].config.rounds) as $rounds
    | ($mode == "aggregation" or $mode == "both") as $fpga
    | ([$trees[0].trees[] | {key: "\(.round)/\(.clique)/\(.source)", value: .}] | from_entries)
      as $tree
    | ([range(0; $rounds) as $r | $schedule[$r % $period][] | select(length >= 2) | length]
       | add) as $streams
    | (if (.replication | length) != $streams then
         "\(.replication | length) streams, expected \($streams)" else empty end),
      (.replication[]
       | . as $s
       | "stream \($s.round)/\($s.clique)/\($s.source_island)" as $name
       | $tree["\($s.round % $period)/\($s.clique)/\($s.source_island)"] as $t
       | if $t == null then "\($name): no tree"
         else
           [$t.members[] | "\(.):down"] as $downs
           | ([$t.links[] | . as $l | select(($fpga and ($downs | index($l))) | not)] | sort)
             as $want
           | (if ($s.links | keys | sort) != $want then
                "\($name): links \($s.links | keys | sort) != \($want)" else empty end),
             (if $s.chunks != $s.chunk_count then
                "\($name): \($s.chunks) of \($s.chunk_count) chunks" else empty end),
             ($s.links | to_entries[]
              | . as $e
              | (if $e.value.chunks != $s.chunk_count then
                   "\($name): \($e.key) carries \($e.value.chunks) chunks" else empty end),
                ((if $mode == "multicast" or $mode == "both" then $s.chunk_count
                  elif $e.key == "\($s.source_island):up" then
                    $s.chunk_count * ($t.members | length)
                  elif ($downs | index($e.key)) then $s.chunk_count
                  else null end) as $copies
                 | if $copies != null and $e.value.copies != $copies then
                     "\($name): \($e.key) has \($e.value.copies) copies, expected \($copies)"
                   else empty end))
         end)
  ' "$pcap" 2>&1)
  verdict "$label" "replication does not match the trees" "$problems" \
    "replication of $(jq '.replication | length' "$pcap") streams matches the trees"
}

# check_aggregation REPORT MODE LABEL: lossless packets into and out of every FPGA port.
check_aggregation() {
  local pcap="$1" mode="$2" label="$3"
  local problems
  problems=$(jq -r --arg mode "$mode" '
    ($mode == "aggregation" or $mode == "both") as $fpga
    # Chunks per (round, clique): every member receives the chunks of the others.
    | (reduce .replication[] as $s ({};
         .["\($s.round)/\($s.clique)"] += [{island: $s.source_island, chunks: $s.chunk_count}]))
      as $cliques
    | (reduce ($cliques | to_entries[]) as $c ({};
         reduce $c.value[] as $m (.;
           .[$m.island].in += ([$c.value[] | select(.island != $m.island) | .chunks] | add)
           | .[$m.island].out += (if $fpga then $m.chunks
                                  else ([$c.value[] | select(.island != $m.island) | .chunks]
                                        | add) end))))
      as $want
    | .aggregation | to_entries[]
    | . as $a
    | ($want[$a.key] // {in: 0, out: 0}) as $w
    | if $a.value.packets_in != $w.in or $a.value.packets_out != $w.out then
        "\($a.key): \($a.value.packets_in) in / \($a.value.packets_out) out, expected \($w.in) / \($w.out)"
      else empty end
  ' "$pcap" 2>&1)
  verdict "$label" "aggregation counts" "$problems" \
    "packets into and out of every island's port as expected"
}

# check_tree REPORT LOSS LABEL: tree traffic classified; lossless: totals on the root's source
# tree, contributions conserved at every router.
check_tree() {
  local pcap="$1" loss="$2" label="$3"
  local problems
  problems=$(jq -r --slurpfile trees "$work/trees.json" --arg loss "$loss" '
    ([$trees[0].trees[] | {key: "\(.round)/\(.clique)/\(.source)", value: .}] | from_entries)
      as $tree
    | ($trees[0].trees | map(.round) | max + 1) as $period
    | (if .tree.has_tree_traffic != true then "no tree traffic found" else empty end),
      (.tree.aggregates | to_entries[] | select(.value.other.packets > 0)
       | "\(.key): \(.value.other.packets) aggregates not classified"),
      (if $loss != "0" then empty else
         (.tree.aggregates | to_entries[] | select(.value["total-repair"].packets > 0)
          | "\(.key): \(.value["total-repair"].packets) total repairs without loss"),
         (.tree.routers | to_entries[]
          | select(.value.in.contributors
                   != .value.aggregates_out.contributors + .value.passed_out.contributors)
          | "router \(.key): \(.value.in.contributors) contributors in, "
            + "\(.value.aggregates_out.contributors) summed + "
            + "\(.value.passed_out.contributors) passed"),
         (.tree.totals[]
          | . as $s
          | "total \($s.round)/\($s.clique)/\($s.source_island)" as $name
          | $tree["\($s.round % $period)/\($s.clique)/\($s.source_island)"] as $t
          | if $t == null then "\($name): no source tree"
            elif ($s.links | keys | sort) != ($t.links | sort) then
              "\($name): links \($s.links | keys | sort) != \($t.links | sort)"
            else ($s.links | to_entries[]
                  | select(.value.chunks != $s.chunk_count or .value.copies != $s.chunk_count)
                  | "\($name): \(.key) carries \(.value.chunks) chunks in "
                    + "\(.value.copies) copies, expected \($s.chunk_count)")
            end)
       end)
  ' "$pcap" 2>&1)
  local totals routers
  totals=$(jq '.tree.totals | length' "$pcap")
  routers=$(jq '.tree.routers | length' "$pcap")
  verdict "$label" "tree traffic" "$problems" \
    "tree traffic: $totals totals and $routers routers as expected"
}

for mode in unicast multicast aggregation both ring tree; do
  for loss in 0 0.02; do
    label="$mode loss=$loss"
    run="$work/$mode-$loss"
    mkdir -p "$run"
    # The lossy runs capture with nanosecond timestamps (ns-3's PcapFileWrapper attribute).
    resolution=()
    [ "$loss" = "0" ] || resolution=(--ns3::PcapFileWrapper::NanosecMode=true)
    "$simulate" --topology="$topology" --scheduleKind=latin --mode="$mode" --modelBytes=60000 \
      --parameterCount=2000 --rounds=3 --localSteps=2 --loss="$loss" --out="$run/results.json" \
      --pcap="$run/pcap" "${resolution[@]}" >"$run/simulate.out" 2>"$run/simulate.err"
    status=$?
    if [ "$status" -eq 1 ] && grep -q -- '--mode' "$run/simulate.err"; then
      echo "skip $mode: not accepted by the simulate program ($(head -1 "$run/simulate.err"))"
      break
    fi
    if [ "$status" -ne 0 ]; then
      fail "$label: simulate exited $status: $(head -3 "$run/simulate.err")"
      continue
    fi
    if ! "$report" "$run/pcap" --json="$run/report.json" >/dev/null 2>"$run/report.err"; then
      fail "$label: pcap-report failed: $(head -3 "$run/report.err")"
      continue
    fi
    compare_links "$run/results.json" "$run/report.json" "$label"
    if [ "$mode" = "tree" ]; then
      check_tree "$run/report.json" "$loss" "$label"
    elif [ "$mode" = "ring" ]; then
      # No FPGA: every AGGREGATE toward an island is a peer's partial or reduced segment.
      wrong=$(jq '[.aggregation | to_entries[]
                   | select(.value.aggregates_out != 0 or .value.island_aggregates_out == 0)
                   | .key] | join(" ")' -r "$run/report.json")
      if [ -n "$wrong" ]; then
        fail "$label: ring AGGREGATEs attributed to an FPGA (or missing) at: $wrong"
      else
        checked=$((checked + 1))
        echo "ok $label: ring partial sums reported as island aggregates, none as an FPGA's"
      fi
    elif [ "$loss" = "0" ]; then
      check_replication "$run/results.json" "$run/report.json" "$mode" "$label"
      check_aggregation "$run/report.json" "$mode" "$label"
    elif [ "$mode" = "unicast" ] || [ "$mode" = "multicast" ]; then
      # Without an FPGA a router sends its island every DATA it receives for it, repairs too.
      unequal=$(jq '[.aggregation[] | select(.packets_in != .packets_out)] | length' \
        "$run/report.json")
      if [ "$unequal" -ne 0 ]; then
        fail "$label: $unequal islands receive a different number of DATA than reach their router"
      else
        checked=$((checked + 1))
        echo "ok $label: every island receives each DATA that reaches its router"
      fi
    fi

    # Headers only: 70 bytes per frame (PPP + IPv4 + UDP + the 40-byte sync header).
    cut="$run/pcap-70"
    mkdir -p "$cut"
    if [ "$snaplen_option" -eq 1 ]; then
      "$simulate" --topology="$topology" --scheduleKind=latin --mode="$mode" --modelBytes=60000 \
        --parameterCount=2000 --rounds=3 --localSteps=2 --loss="$loss" \
        --out="$run/results-70.json" --pcap="$cut" --pcapSnaplen=70 "${resolution[@]}" \
        >/dev/null 2>&1 ||
        { fail "$label: simulate --pcapSnaplen=70 failed"; continue; }
      results_cut="$run/results-70.json"
    else
      for file in "$run"/pcap/*.pcap; do
        editcap -F pcap -s 70 "$file" "$cut/$(basename "$file")" ||
          { fail "$label: editcap failed on $file"; continue 2; }
      done
      results_cut="$run/results.json"
    fi
    if [ "$(du -sb "$cut" | cut -f1)" -ge "$(du -sb "$run/pcap" | cut -f1)" ]; then
      fail "$label: the 70-byte captures are not smaller than the full ones"
    fi
    if ! "$report" "$cut" --json="$run/report-70.json" >/dev/null 2>"$run/report-70.err"; then
      fail "$label snaplen=70: pcap-report failed: $(head -3 "$run/report-70.err")"
      continue
    fi
    compare_links "$results_cut" "$run/report-70.json" "$label snaplen=70"
  done
done

# A mixed schedule (each clique by its own algorithm): with --results, every clique's traffic is
# labelled with the algorithm the results say it ran, its DATA and AGGREGATE senders are its
# members, multicast packets appear only for the cliques that multicast, and the cliques' bytes
# add up to the rounds' bytes (every sync message belongs to one clique). The READYs an island
# sends for the round after the last one (no such round in the results) are left out.
mixed="$work/mixed"
mkdir -p "$mixed/pcap"
if "$simulate" --topology="$topology" --schedule="$source_dir/test/data/mixed-nine-city.json" \
  --modelBytes=60000 --parameterCount=2000 --rounds=2 --out="$mixed/results.json" \
  --pcap="$mixed/pcap" >/dev/null 2>"$mixed/simulate.err" &&
  "$report" "$mixed/pcap" --results="$mixed/results.json" --json="$mixed/report.json" \
    >"$mixed/report.txt" 2>"$mixed/report.err"; then
  problems=$(jq -n --slurpfile results "$mixed/results.json" --slurpfile report "$mixed/report.json" '
    ($results[0].rounds | map({key: (.round | tostring),
       value: (.cliques | map({key: (.clique | tostring), value: .}) | from_entries)})
       | from_entries) as $cliques
    | [$report[0].cliques[] | select(.job == 1 and .round < ($results[0].rounds | length))
       | . as $c | $cliques[($c.round | tostring)][($c.clique | tostring)] as $r
       | if $r == null then "round \($c.round) clique \($c.clique): not in the results"
         elif $c.algorithm != $r.algorithm then
           "round \($c.round) clique \($c.clique): \($c.algorithm) in the captures, \($r.algorithm) in the results"
         elif ($c.senders | sort) != ($r.members | sort) then
           "round \($c.round) clique \($c.clique): senders \($c.senders) are not its members"
         elif (($c.multicast_packets > 0) != ($c.algorithm == "both" or $c.algorithm == "multicast"))
           then "round \($c.round) clique \($c.clique) (\($c.algorithm)): \($c.multicast_packets) multicast packets"
         else empty end]
    + (if ([$report[0].cliques[].bytes] | add) != ([$report[0].rounds[].bytes] | add)
       then ["the cliques bytes do not add up to the rounds bytes"] else [] end)
    | .[]')
  if [ -n "$problems" ]; then
    fail "mixed: $problems"
  elif ! grep -q "cliques running ring" "$mixed/report.txt"; then
    fail "mixed: no traffic summed for the ring cliques"
  else
    checked=$((checked + 1))
    echo "ok mixed: every clique labelled with its algorithm, its senders its members"
  fi
else
  fail "mixed: simulate or pcap-report failed: $(head -3 "$mixed/simulate.err" "$mixed/report.err")"
fi

# Coarse frames (--frameBytes=64000, 7 wire frames of 9000 bytes per chunk): pcap-report reads
# capture.json and gives the per-link packets, wire bytes and model bytes of the results JSON,
# full captures and headers only alike; the wire bytes are those of the exact run's frames.
for mode in unicast both ring tree; do
  for loss in 0 0.02; do
    label="coarse $mode loss=$loss"
    run="$work/coarse-$mode-$loss"
    mkdir -p "$run"
    for snaplen in 65535 70; do
      "$simulate" --topology="$topology" --scheduleKind=allreduce --mode="$mode" \
        --modelBytes=600000 --parameterCount=2000 --rounds=2 --localSteps=2 --loss="$loss" \
        --frameBytes=64000 --out="$run/results-$snaplen.json" --pcap="$run/pcap-$snaplen" \
        --pcapSnaplen="$snaplen" >/dev/null 2>"$run/simulate.err" ||
        { fail "$label: simulate exited $?: $(head -3 "$run/simulate.err")"; continue; }
      if [ "$(jq .frame_bytes "$run/pcap-$snaplen/capture.json")" != "64000" ]; then
        fail "$label: capture.json does not give the simulation frame"
        continue
      fi
      "$report" "$run/pcap-$snaplen" --json="$run/report-$snaplen.json" >/dev/null \
        2>"$run/report.err" ||
        { fail "$label: pcap-report failed: $(head -3 "$run/report.err")"; continue; }
      compare_links "$run/results-$snaplen.json" "$run/report-$snaplen.json" \
        "$label snaplen=$snaplen"
    done
    if [ "$loss" = "0" ] && [ "$mode" != "ring" ]; then
      "$simulate" --topology="$topology" --scheduleKind=allreduce --mode="$mode" \
        --modelBytes=600000 --parameterCount=2000 --rounds=2 --localSteps=2 \
        --out="$run/exact.json" >/dev/null 2>&1 || { fail "$label: the exact run failed"; continue; }
      differ=$(jq -n --slurpfile c "$run/results-70.json" --slurpfile e "$run/exact.json" '
        [$c[0].links | to_entries[] | select(.value.bytes != $e[0].links[.key].bytes
           or .value.wire_frames != $e[0].links[.key].packets) | .key] | join(" ")' -r)
      verdict "$label" "links whose wire bytes or frames differ from exact frames" "$differ" \
        "every link carries the exact run's wire bytes in its frames"
    fi
  done
done

echo "$checked checks passed, $failed failed"
if [ "$failed" -eq 0 ] && [ "$checked" -gt 0 ]; then
  rm -rf "$work"
  exit 0
fi
echo "files kept in $work"
exit 1
