#!/usr/bin/env bash
# Fuzzes the daemon's frame decoder with libFuzzer for a while (default 30 s) from the committed
# corpus. Usage: scripts/fuzz-frame-decoder.sh [seconds] [--merge]
#   --merge  adds the new inputs that reach new coverage to Fuzz/FrameDecoder/corpus (to commit).
# A crash leaves its input in .build/fuzz/ and fails the script.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-30}"
out=.build/fuzz
mkdir -p "$out/new"
swiftc -sanitize=fuzzer,address -parse-as-library -O \
    Sources/BackgroundProtocol/FrameDecoder.swift Sources/BackgroundProtocol/WireValue.swift \
    Fuzz/FrameDecoder/FuzzFrameDecoder.swift -o "$out/fuzz-frame-decoder"
"$out/fuzz-frame-decoder" -max_total_time="$seconds" -max_len=8192 -artifact_prefix="$out/" \
    "$out/new" Fuzz/FrameDecoder/corpus
if [[ "${2:-}" == "--merge" ]]; then
    "$out/fuzz-frame-decoder" -merge=1 Fuzz/FrameDecoder/corpus "$out/new"
fi
