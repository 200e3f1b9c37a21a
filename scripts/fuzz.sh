#!/usr/bin/env bash
# Coverage-guided fuzzing of the import line parser (LogRecord.parse and JSONSyntax) with
# libFuzzer, for a bounded time. Builds the libraries it needs with -sanitize=fuzzer in their
# own scratch folder (.build/fuzz, so the normal build cache is untouched), then compiles the
# target (Fuzz/ImportLine) with the evtool sources the parser lives in.
#
#   scripts/fuzz.sh [SECONDS]     (default 60)
#
# The corpus grows in .build/fuzz/corpus-import-line across runs; a crash leaves its input as
# .build/fuzz/crash-* and the script fails.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${1:-60}
scratch=.build/fuzz
say() { printf 'fuzz.sh: %s\n' "$*" >&2; }

say "building EventLog, Commands and Projections with -sanitize=fuzzer"
swift build --scratch-path "$scratch" -c release -Xswiftc -sanitize=fuzzer --target Projections >&2
bin=$(swift build --scratch-path "$scratch" -c release --show-bin-path)

# The parser's file and what it refers to in the evtool module (CLI errors, time arguments).
sources=(
    Fuzz/ImportLine/FuzzImportLine.swift
    Sources/evtool/Support/LogRecord.swift
    Sources/evtool/Support/TimeArgument.swift
    Sources/evtool/CLI/JSONText.swift
    Sources/evtool/CLI/ExitCode.swift
    Sources/evtool/CLI/CommandSpec.swift
    Sources/evtool/CLI/ParsedArguments.swift
    Sources/evtool/CLI/Console.swift
)
target="$scratch/fuzz-import-line"
say "compiling the fuzz target"
swiftc -sanitize=fuzzer -parse-as-library -O -module-name FuzzImportLine \
    -I "$bin/Modules" -I Sources/CCrypto \
    "${sources[@]}" "$bin"/EventLog.build/*.o "$bin"/Commands.build/*.o "$bin"/Projections.build/*.o \
    $(pkg-config --libs libcrypto) -o "$target"

corpus="$scratch/corpus-import-line"
mkdir -p "$corpus"
say "fuzzing for $seconds s (seeds: Fuzz/ImportLine/seeds)"
log=$(mktemp)
status=0
"$target" "$corpus" Fuzz/ImportLine/seeds -max_total_time="$seconds" -max_len=4096 -timeout=10 \
    -rss_limit_mb=2048 -artifact_prefix="$scratch/" -print_final_stats=1 2>"$log" || status=$?
tail -n 20 "$log" >&2
runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo 0)
coverage=$(grep -o 'cov: [0-9]*' "$log" | tail -n 1 | grep -o '[0-9]*' || echo 0)
inputs=$(find "$corpus" -type f | wc -l)
rm -f "$log"
if [[ $status -ne 0 ]]; then
    say "the fuzzer found a failing input (exit $status); see $scratch/crash-*"
    echo "FUZZ-REPORT import parser: FAILED after $runs inputs (exit $status)"
    exit 1
fi
echo "FUZZ-REPORT import parser: $runs inputs in $seconds s, $coverage coverage points, corpus of $inputs, no crash, hang or broken invariant"
