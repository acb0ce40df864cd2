#!/usr/bin/env bash
# TransferBench side by side with curl on one loopback server (BENCHMARKS.md, "TransferBench").
#
#   swift build -c release --product TransferBench
#   scripts/transfer-bench.sh [.build/release] [runs]
#
# Rows: a 1 GiB download (seconds and peak resident memory, ours then curl, alternated `runs`
# times), a 1 MiB download (seconds inside the process, and wall seconds with the process's
# start, ours then curl, alternated `runs` times), 1,000 small downloads at 6 connections (ours with httpMaximumConnectionsPerHost 6,
# curl --parallel --parallel-max 6), and a download killed with SIGKILL at 512 MiB then resumed
# (bytes the server sent beyond the body's size). The load average is printed beside each run:
# others may be building on the machine.
set -euo pipefail
BIN=${1:-.build/release}
RUNS=${2:-3}
SIZE=$((1 << 30))
SMALL=1000
WORK=$(mktemp -d)
SERVER=""
cleanup() {
    [ -n "$SERVER" ] && kill "$SERVER" 2>/dev/null || true
    rm -rf "$WORK"
}
trap cleanup EXIT

"$BIN/TransferBench" serve 0 "$SIZE" "$SMALL" > "$WORK/server.out" &
SERVER=$!
for _ in $(seq 100); do grep -q listening "$WORK/server.out" 2>/dev/null && break; sleep 0.1; done
PORT=$(awk '/listening/ {print $2}' "$WORK/server.out")
URL="http://127.0.0.1:$PORT"
load() { cut -d' ' -f1 /proc/loadavg; }
counters() { sleep 0.5; awk '/^counters/ {line = $0} END {print line}' "$WORK/server.out"; }
sent() { counters | awk '{print $3}'; }

echo "== 1 GiB download (seconds, peak RSS KiB)"
for run in $(seq "$RUNS"); do
    rm -rf "$WORK/ours" && mkdir "$WORK/ours"
    l=$(load)
    ours=$("$BIN/TransferBench" download "$URL/big" "$WORK/ours")
    rm -rf "$WORK/ours"
    curl_line=$( { /usr/bin/time -f "rss %M" curl -s -o "$WORK/curl.out" -w "seconds %{time_total}\n" "$URL/big"; } 2>&1 | tr '\n' ' ')
    rm -f "$WORK/curl.out"
    echo "run $run load $l | ours: $ours | curl: $curl_line"
done

echo "== 1 MiB download (seconds inside the process; wall seconds incl. process start)"
for run in $(seq "$RUNS"); do
    rm -rf "$WORK/mib" && mkdir "$WORK/mib"
    l=$(load)
    start=$(date +%s.%N)
    ours=$("$BIN/TransferBench" download "$URL/mib" "$WORK/mib")
    ours_wall=$(echo "$(date +%s.%N) - $start" | bc)
    rm -rf "$WORK/mib"
    start=$(date +%s.%N)
    curl_line=$(curl -s -o "$WORK/curl.mib" -w "seconds %{time_total}" "$URL/mib")
    curl_wall=$(echo "$(date +%s.%N) - $start" | bc)
    rm -f "$WORK/curl.mib"
    echo "run $run load $l | ours: $ours wall $ours_wall | curl: $curl_line wall $curl_wall"
done

echo "== $SMALL small downloads (1 KiB each), 6 connections (wall seconds incl. process start)"
for i in $(seq 0 $((SMALL - 1))); do echo "$URL/small/$i"; done > "$WORK/urls"
for run in $(seq "$RUNS"); do
    rm -rf "$WORK/many" "$WORK/curl-many" && mkdir "$WORK/many" "$WORK/curl-many"
    l=$(load)
    start=$(date +%s.%N)
    ours=$("$BIN/TransferBench" many "$WORK/urls" "$WORK/many" 6)
    ours_wall=$(echo "$(date +%s.%N) - $start" | bc)
    start=$(date +%s.%N)
    (cd "$WORK/curl-many" && curl -s --parallel --parallel-max 6 --remote-name-all $(cat "$WORK/urls"))
    curl_wall=$(echo "$(date +%s.%N) - $start" | bc)
    files=$(ls "$WORK/curl-many" | wc -l)
    echo "run $run load $l | ours: wall $ours_wall ($ours) | curl: wall $curl_wall ($files files)"
done

echo "== kill -9 at 512 MiB, then resume (bytes sent beyond $SIZE)"
partial_size() { stat -c %s "$1" 2>/dev/null || echo 0; }
rm -rf "$WORK/kill" && mkdir "$WORK/kill"
before=$(sent)
"$BIN/TransferBench" download "$URL/big" "$WORK/kill" > /dev/null &
client=$!
part="$WORK/kill/Container/Transfers/bench/1.partial"
while [ "$(partial_size "$part")" -lt $((512 << 20)) ]; do sleep 0.01; done
kill -9 "$client"; wait "$client" 2>/dev/null || true
echo "ours killed with $(partial_size "$part") bytes in the partial file; server: $(counters) (before: $before)"
ours=$("$BIN/TransferBench" resume "$WORK/kill")
echo "ours resumed: $ours; server: $(counters); re-sent: $(( $(sent) - before - SIZE )) bytes"
before=$(sent)
curl -s -o "$WORK/curl.kill" "$URL/big" &
client=$!
while [ "$(partial_size "$WORK/curl.kill")" -lt $((512 << 20)) ]; do sleep 0.01; done
kill -9 "$client"; wait "$client" 2>/dev/null || true
echo "curl killed with $(partial_size "$WORK/curl.kill") bytes in its file; server: $(counters) (before: $before)"
curl -s -C - -o "$WORK/curl.kill" "$URL/big"
echo "curl resumed: $(partial_size "$WORK/curl.kill") bytes; server: $(counters); re-sent: $(( $(sent) - before - SIZE )) bytes"
