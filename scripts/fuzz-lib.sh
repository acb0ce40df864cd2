# Sourced by the structure-aware fuzz scripts (scripts/fuzz-transfer-responses.sh,
# scripts/fuzz-stored-rows.sh): builds one -sanitize=fuzzer module from BackgroundCore,
# swift-collections' HeapModule and the few files of other targets a fuzz target needs, with
# their imports of each other removed in a copy, so that no package build is needed.

# fuzz_module_sources DIR FILE...: copies BackgroundCore, HeapModule and FILE... into DIR.
fuzz_module_sources() {
    local src="$1"
    shift
    local collections=.build/checkouts/swift-collections/Sources
    if [[ ! -d "$collections/HeapModule" ]]; then
        swift package resolve >/dev/null
    fi
    rm -rf "$src" && mkdir -p "$src"
    local file
    for file in $(find Sources/BackgroundCore -name '*.swift') "$@"; do
        sed -e '/^import HeapModule$/d' -e '/^import BackgroundCore$/d' -e '/^public import BackgroundCore$/d' \
            "$file" >"$src/$(echo "${file#Sources/}" | tr '/' '_')"
    done
    find "$collections/HeapModule" "$collections/InternalCollectionsUtilities/IntegerTricks" -name '*.swift' -print0 |
        while IFS= read -r -d '' file; do cp "$file" "$src/collections_$(basename "$file" | tr ' ' '_')"; done
    for file in Debugging.swift Descriptions.swift; do
        cp "$collections/InternalCollectionsUtilities/$file" "$src/collections_$file"
    done
}

# fuzz_run NAME TARGET_DIR SECONDS MERGE FILE...: builds Fuzz/TARGET_DIR's target with FILE...,
# runs it for SECONDS from its committed corpus, and with MERGE=--merge minimizes what it found
# into the corpus. A crash leaves its input in .build/fuzz/NAME/ and fails the script.
# SECONDS --corpus: writes the seed corpus again with Fuzz/TARGET_DIR/MakeCorpus.swift. Every
# other .swift file of Fuzz/TARGET_DIR goes into both (the entry point is Fuzz*.swift).
fuzz_run() {
    local name="$1" dir="$2" seconds="$3" merge="$4"
    shift 4
    local out=".build/fuzz/$name"
    mkdir -p "$out/new"
    fuzz_module_sources "$out/src" "$@"
    local flags=(-parse-as-library -O -wmo -D COLLECTIONS_SINGLE_MODULE -package-name fuzz -module-name FuzzTarget
        -suppress-warnings)
    local corpus="Fuzz/$dir/corpus"
    if [[ "$seconds" == "--corpus" ]]; then
        swiftc "${flags[@]}" "$out/src"/*.swift Fuzz/FuzzInput.swift $(find "Fuzz/$dir" -maxdepth 1 -name '*.swift' ! -name 'Fuzz*.swift') -o "$out/make-corpus"
        rm -rf "$corpus" && mkdir -p "$corpus"
        "$out/make-corpus" "$corpus"
        return 0
    fi
    local binary="$out/fuzz-$name"
    swiftc -sanitize=fuzzer,address "${flags[@]}" "$out/src"/*.swift Fuzz/FuzzInput.swift \
        $(find "Fuzz/$dir" -maxdepth 1 -name '*.swift' ! -name 'MakeCorpus.swift') -o "$binary"
    "$binary" -max_total_time="$seconds" -max_len=4096 -artifact_prefix="$out/" "$out/new" "$corpus"
    if [[ "$merge" == "--merge" ]]; then
        "$binary" -merge=1 "$corpus" "$out/new"
    fi
}
