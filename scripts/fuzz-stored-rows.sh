#!/usr/bin/env bash
# Fuzzes what the store reads back: an app's rows (times and durations as REALs, requests, launches)
# restored into the core and run, transfer rows (a task column and a checkpoint's JSON with numbers
# past their types) restored as the engine restores them, and resume data decoded and checked
# (Fuzz/StoredRows), with libFuzzer, for a while (default 30 s) from the committed corpus. Usage:
#   scripts/fuzz-stored-rows.sh [seconds] [--merge]   --merge adds new coverage to the corpus
#   scripts/fuzz-stored-rows.sh --corpus              writes the seed corpus again
# BackgroundCore, BackgroundProtocol, HeapModule and the store's value readers (StoredTime,
# StoredStrategy; no GRDB, no SQLite) are compiled into one -sanitize=fuzzer,address module:
# about 1 minute of CPU here (-wmo). A crash leaves its input in .build/fuzz/stored-rows/ and fails the script.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/fuzz-lib.sh
fuzz_run stored-rows StoredRows "${1:-30}" "${2:-}" \
    Sources/BackgroundStore/{StoredTime,StoredStrategy}.swift $(find Sources/BackgroundProtocol -name '*.swift')
