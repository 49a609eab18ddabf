#!/usr/bin/env bash
# Builds the libFuzzer targets in Fuzz/ and runs each for FUZZ_SECONDS (default 60) seconds.
#
#   scripts/fuzz.sh                  every target
#   scripts/fuzz.sh DotEnv OTPInput  only these
#   FUZZ_SECONDS=600 FUZZ_JOBS=1 scripts/fuzz.sh SlotFile
#
# The library modules are built once by SwiftPM with -sanitize=fuzzer,address into .build/fuzz (apart from the
# normal build, which never sees the fuzz sources); each Fuzz/<Target>/main.swift is then compiled and linked
# with swiftc against those modules. A target's corpus starts from the seeds in Fuzz/corpus/<Target> and
# grows in .build/fuzz/corpus/<Target> (so the checked-in seeds stay small). A crash leaves its input in
# Fuzz/crashes/<Target>/ and makes the script exit 1 after the other targets have run.
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
SECONDS_EACH=${FUZZ_SECONDS:-60}
SWIFT=${SWIFT:-swift}
BUILD=$ROOT/.build/fuzz
FLAGS=(-Xswiftc -sanitize=fuzzer,address)

make_seeds=0
if [ "${1:-}" = "--seeds" ]; then make_seeds=1; shift; fi
targets=("$@")
if [ ${#targets[@]} -eq 0 ]; then
  for d in Fuzz/*/main.swift; do targets+=("$(basename "$(dirname "$d")")"); done
fi

echo "== building the library modules with libFuzzer and AddressSanitizer (.build/fuzz)"
# PassboxAgent and PassboxImaging between them depend on every library a target uses.
for t in PassboxAgent PassboxImaging; do
  "$SWIFT" build -c debug --build-path "$BUILD" "${FLAGS[@]}" --target "$t" 2>&1 | grep -E "error|warning: unre|Compiling|complete" | grep -v "^\[" || true
  [ "${PIPESTATUS[0]}" -eq 0 ] || { echo "fuzz: the library build failed" >&2; exit 2; }
done
BIN=$("$SWIFT" build -c debug --build-path "$BUILD" --show-bin-path)
# Every C target the build made (CLinux and each …Support loader), then the Swift libraries.
MODULES=(CLinux)
for d in "$BIN"/C*Support.build; do [ -d "$d" ] && MODULES+=("$(basename "$d" .build)"); done
MODULES+=(PassboxServerAPI PassboxProcess PassboxCurl PassboxManifest PassboxWording PassboxProtocol PassboxCrypto PassboxCore PassboxStore PassboxInterop PassboxSync PassboxKit PassboxImaging PassboxDomains PassboxClient PassboxService PassboxWeb PassboxHTTP PassboxAgent)
objects=()
for m in "${MODULES[@]}"; do
  while IFS= read -r o; do objects+=("$o"); done < <(find "$BIN/$m.build" -name '*.o' | sort)
done
# The C modules' module maps (the system-library ones and the ones SwiftPM generated for C targets).
cflags=()
for map in Sources/C*/module.modulemap "$BIN"/C*.build/module.modulemap; do
  [ -e "$map" ] && cflags+=(-Xcc "-fmodule-map-file=$ROOT/${map#$ROOT/}")
done
for inc in Sources/C*/include; do cflags+=(-Xcc -I -Xcc "$ROOT/$inc"); done
# C objects carry no autolink entries: link what the system-library module maps name.
libs=()
while IFS= read -r l; do libs+=("-l$l"); done < <(sed -nE 's/^ *link "([^"]+)".*/\1/p' Sources/C*/module.modulemap | sort -u)

mkdir -p "$BUILD/bin"
if [ $make_seeds = 1 ]; then
  echo "== writing the vault seeds from the fixture"
  swiftc -g -Onone -sanitize=address -enable-testing -I "$BIN/Modules" "${cflags[@]}" -module-name MakeVaultSeeds \
    Fuzz/Seeds/make-vault-seeds.swift "${objects[@]}" "${libs[@]}" -o "$BUILD/bin/make-vault-seeds" 2>&1 |
    grep -v "warning: Cannot export local symbol '__asan"
  SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_leaks=0 "$BUILD/bin/make-vault-seeds" \
    Tests/PassboxStoreTests/Fixtures/vault-v2/vault.pbx Fuzz/corpus || exit 2
  exit 0
fi
for t in "${targets[@]}"; do
  [ -f "Fuzz/$t/main.swift" ] || { echo "fuzz: no target Fuzz/$t" >&2; exit 2; }
  if [ ! -x "$BUILD/bin/$t" ] || [ -n "$(find "Fuzz/$t/main.swift" "${objects[@]}" -newer "$BUILD/bin/$t" -print -quit)" ]; then
    echo "== linking $t"
    swiftc -g -Onone -sanitize=fuzzer,address -parse-as-library -enable-testing \
      -I "$BIN/Modules" "${cflags[@]}" -module-name "Fuzz$t" \
      "Fuzz/$t/main.swift" "${objects[@]}" "${libs[@]}" -o "$BUILD/bin/$t" 2>&1 |
      grep -v "warning: Cannot export local symbol '__asan"
    [ "${PIPESTATUS[0]}" -eq 0 ] || { echo "fuzz: $t does not build" >&2; exit 2; }
  fi
done

status=0
summary=()
for t in "${targets[@]}"; do
  corpus=$BUILD/corpus/$t
  crashes=$ROOT/Fuzz/crashes/$t
  mkdir -p "$corpus" "$crashes"
  seeds=()
  [ -d "Fuzz/corpus/$t" ] && seeds=("Fuzz/corpus/$t")
  log=$BUILD/$t.log
  echo "== fuzzing $t for ${SECONDS_EACH}s"
  # -rss_limit_mb: the QR target decodes images up to 64 megapixels by design.
  # SWIFT_BACKTRACE: the Swift runtime's crash handler reads memory that AddressSanitizer then reports, hiding
  # the real fault. detect_leaks=0: Foundation leaks on its own (FileManager.contents(atPath:) of an empty file).
  SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_leaks=0:${ASAN_OPTIONS:-} "$BUILD/bin/$t" "$corpus" "${seeds[@]}" -max_total_time="$SECONDS_EACH" -print_final_stats=1 \
    -artifact_prefix="$crashes/" -rss_limit_mb=4096 -timeout=20 ${FUZZ_ARGS:-} >"$log" 2>&1
  rc=$?
  # The last status line ("#N DONE cov: C ft: F corp: …  exec/s: E") and the final stats.
  line=$(grep -E '^#[0-9]+.*(DONE|pulse|NEW|REDUCE|INITED)' "$log" | tail -1)
  cov=$(sed -nE 's/.* cov: ([0-9]+).*/\1/p' <<<"$line")
  ft=$(sed -nE 's/.* ft: ([0-9]+).*/\1/p' <<<"$line")
  corp=$(sed -nE 's/.* corp: ([0-9]+)\/.*/\1/p' <<<"$line")
  execs=$(sed -nE 's/^stat::number_of_executed_units: *([0-9]+)/\1/p' "$log" | tail -1)
  speed=$(sed -nE 's/^stat::average_exec_per_sec: *([0-9]+)/\1/p' "$log" | tail -1)
  result=ok
  if [ $rc -ne 0 ]; then
    result="CRASH (exit $rc): $(ls -t "$crashes" | head -1)"
    status=1
    grep -E "ERROR: |Fatal error|SUMMARY" "$log" | head -3
  fi
  summary+=("$(printf '%-13s %10s runs %8s exec/s  cov %6s  ft %6s  corpus %5s  %s' "$t" "${execs:-?}" "${speed:-?}" "${cov:-?}" "${ft:-?}" "${corp:-?}" "$result")")
done

echo
echo "== summary (${SECONDS_EACH}s per target, logs in .build/fuzz/<target>.log)"
printf '%s\n' "${summary[@]}"
exit $status
