#!/usr/bin/env bash
# Fuzzes the transfer engine's handling of HTTP responses: statuses, header fields
# (Content-Length, Content-Range, ETag, Location), chunked bodies, 206 answers and redirects
# under the reach rule, as a hostile server sends them (Fuzz/TransferResponses), with libFuzzer,
# for a while (default 30 s) from the committed corpus. Usage:
#   scripts/fuzz-transfer-responses.sh [seconds] [--merge]   --merge adds new coverage to the corpus
#   scripts/fuzz-transfer-responses.sh --corpus              writes the seed corpus again
# BackgroundCore, HeapModule and BackgroundTransfers' pure response handling (no AsyncHTTPClient,
# no NIO) are compiled into one -sanitize=fuzzer,address module: about 1 minute of CPU here (-wmo).
# A crash leaves its input in .build/fuzz/transfer-responses/ and fails the script.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/fuzz-lib.sh
fuzz_run transfer-responses TransferResponses "${1:-30}" "${2:-}" \
    Sources/BackgroundTransfers/{HTTPDecimal,DownloadPlan,CompleteResponse,TransferHop,RedirectReach,AddressSpace,IPAddress,TransferPolicy}.swift
