#!/usr/bin/env bash
# Fuzzes past the decoder: an app's frames decoded into typed messages and its events handled by
# the core, as backgroundd does (Fuzz/AppEvents/FuzzAppEvents.swift), with libFuzzer, for a while
# (default 30 s) from the committed corpus. Usage:
#   scripts/fuzz-app-events.sh [seconds] [--merge]   --merge adds new coverage to the corpus
#   scripts/fuzz-app-events.sh --corpus              writes the seed corpus again
# BackgroundCore, BackgroundProtocol and swift-collections' HeapModule are compiled into one
# module with -sanitize=fuzzer,address (their imports of each other removed in a copy), so no
# package build is needed: about 2 minutes of CPU here. A crash leaves its input in
# .build/fuzz/app-events/ and fails the script.
set -euo pipefail
cd "$(dirname "$0")/.."
out=.build/fuzz/app-events
src="$out/src"
collections=.build/checkouts/swift-collections/Sources
if [[ ! -d "$collections/HeapModule" ]]; then
    swift package resolve >/dev/null
fi
rm -rf "$src" && mkdir -p "$src" "$out/new"
# One module: the sources of three, with their imports of each other removed.
for file in $(find Sources/BackgroundCore Sources/BackgroundProtocol -name '*.swift'); do
    sed -e '/^import HeapModule$/d' -e '/^import BackgroundCore$/d' -e '/^public import BackgroundCore$/d' \
        "$file" >"$src/$(echo "${file#Sources/}" | tr '/' '_')"
done
# HeapModule, and the few files of InternalCollectionsUtilities it uses (the rest needs
# experimental language features).
find "$collections/HeapModule" "$collections/InternalCollectionsUtilities/IntegerTricks" -name '*.swift' -print0 |
    while IFS= read -r -d '' file; do cp "$file" "$src/collections_$(basename "$file" | tr ' ' '_')"; done
for file in Debugging.swift Descriptions.swift; do
    cp "$collections/InternalCollectionsUtilities/$file" "$src/collections_$file"
done
flags=(-parse-as-library -O -D COLLECTIONS_SINGLE_MODULE -package-name fuzz -module-name AppEventsFuzz
    -suppress-warnings)
if [[ "${1:-}" == "--corpus" ]]; then
    swiftc "${flags[@]}" "$src"/*.swift Fuzz/AppEvents/MakeCorpus.swift -o "$out/make-corpus"
    rm -rf Fuzz/AppEvents/corpus && mkdir -p Fuzz/AppEvents/corpus
    "$out/make-corpus" Fuzz/AppEvents/corpus
    exit 0
fi
seconds="${1:-30}"
swiftc -sanitize=fuzzer,address "${flags[@]}" "$src"/*.swift Fuzz/AppEvents/FuzzAppEvents.swift \
    -o "$out/fuzz-app-events"
"$out/fuzz-app-events" -max_total_time="$seconds" -max_len=16384 -artifact_prefix="$out/" \
    "$out/new" Fuzz/AppEvents/corpus
if [[ "${2:-}" == "--merge" ]]; then
    "$out/fuzz-app-events" -merge=1 Fuzz/AppEvents/corpus "$out/new"
fi
