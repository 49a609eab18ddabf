#!/usr/bin/env bash
# `make test`'s run, after the build's installs: the test tools' installs, the debug build with the tests, the
# browser flows and the Swift tests, overlapped so that the two cores stay busy; fails when any fails.
#
#   t=0            the test tools install (PASSBOX_TEST_DEPS, then axe-core and py_webauthn from PyPI)
#   t=0            the debug binary builds (.build/make-test)
#   then           the tests build; the browser flows start once the binary and the tools are there (on a
#                  fresh machine the tools may come after the binary: the build does not wait for them)
#   then           the Swift tests (in four processes; they need the tools too), beside the flows
#
# The release binary's own tests (ReleaseBinaryTests: the test hooks are absent) run in `make deploy-test`
# (`make release-test`), against the optimised binary `make run` and the Debian package use, which that target
# builds anyway: here they needed a release build of their own, a tenth of the run's CPU (see
# docs/ARCHITECTURE.md, "How make test keeps its time").
#
# None of these keeps two cores busy alone: builds wait on module dependencies (about 1.4 cores), the browser
# flows wait on the browser and the agent (about 180 CPU seconds in 210 s), the Swift tests on processes,
# sockets and timeouts (a quarter of two cores idle while they ran alone). One after another they took 13
# minutes here. The browser flows' output goes to .build/ui-test.log and .build/extension-test.log, printed at
# the end.
#
# Usage: scripts/test.sh
set -uo pipefail
cd "$(dirname "$0")/.."
swift=${SWIFT:-swift}
# The tests' cheap account key derivation (debug builds only; see TestAccountKDF).
export PASSBOX_TEST_ACCOUNT_KDF=cheap
# The tests' debug build has a directory of its own and no debug information: a third less compile time
# (122 s instead of 170 s from a fresh clone here); a crash in a test still names its functions, not its
# lines. `make check` and a developer's `swift build` keep theirs in .build with DWARF, untouched by this.
debug_flags="--scratch-path .build/make-test -debug-info-format none"
started=$(date +%s)
stamp() { echo "[$(( $(date +%s) - started )) s] $*"; }
# The machine's busy and idle CPU seconds since boot (/proc/stat's first line): read at the start and the end,
# they say whether the run was bound by the two cores or by waiting.
machine_cpu() { awk -v hz="$(getconf CLK_TCK)" '/^cpu / { printf "%d %d", ($2 + $3 + $4 + $7 + $8 + $9) / hz, ($5 + $6) / hz }' /proc/stat; }
read -r busy_before idle_before <<< "$(machine_cpu)"
# cpu LABEL COMMAND…: runs COMMAND and then says on stderr how many CPU seconds it and its children used (where
# the run's time goes: the budget is two cores' worth of it).
cpu() {
  local label=$1; shift
  local me=$BASHPID before after  # read here: inside $( ) it would name the substitution's own process
  before=$(awk '{print $14 + $15 + $16 + $17}' "/proc/$me/stat")
  "$@"; local status=$?
  after=$(awk '{print $14 + $15 + $16 + $17}' "/proc/$me/stat")
  echo "cpu: $label used $(( (after - before) / $(getconf CLK_TCK) )) CPU seconds" >&2
  return $status
}
export -f cpu
mkdir -p .build
tools=""
ui=""
share_pids=""
# Each background lane is a process group of its own (setsid), so stopping it stops its children too
# (the browsers, agents and servers of the flows; the compilers of the build).
progress_pid=""
stop_lanes() {
  for pid in $ui $share_pids; do kill -- -"$pid" 2>/dev/null; done
  # The tools' install is waited for, never killed: a dpkg stopped halfway leaves the machine's packages broken
  # until `dpkg --configure -a` (a build that failed, or Ctrl-C, which the lane's own session does not get).
  # After the lanes are stopped, so that the browser flows do not start meanwhile.
  [ -z "$tools" ] || wait "$tools" 2>/dev/null
  [ -z "$progress_pid" ] || kill "$progress_pid" 2>/dev/null
}
trap stop_lanes EXIT

# The test tools (the browsers, PostgreSQL, the peers: the Makefile's TEST_PACKAGES, named by PASSBOX_TEST_DEPS,
# which make test sets) and the web tools from PyPI are installed beside the builds, which need only the -dev
# packages `make deps` installed before: on a fresh machine their download and unpacking (about a minute here)
# no longer comes before the builds. The lane writes its status to .build/test-tools.status when it ends (whole,
# by a rename): the
# browser flows' lane waits for that file, the Swift tests for the lane itself.
stamp "installing the test tools beside the builds (output in .build/test-tools.log)"
rm -f .build/test-tools.status .build/test-tools.status.new
setsid bash -c "{ ${PASSBOX_TEST_DEPS:-true}"' && scripts/fetch-axe.sh .build/web-tools && scripts/fetch-webauthn.sh .build/web-tools/py; }; status=$?; echo $status > .build/test-tools.status.new && mv .build/test-tools.status.new .build/test-tools.status; exit $status' > .build/test-tools.log 2>&1 &
tools=$!

# The binary first, then the tests: the browser flows need only the binary (and the tools), and start as soon
# as it is built, beside the tests' compile. A build waits on its modules' dependencies and left a quarter of two cores idle
# (339 CPU s in 215 s here); the flows were the last lane to end, and now start some 80 s earlier. They run a
# copy of the binary, with its resource bundles beside it, so the tests' build may relink the original.
stamp "building the debug binary"
# shellcheck disable=SC2086
( cpu "the debug build of the binary" $swift build --product passbox $debug_flags ) 2>&1 | tee .build/debug-build.log; [ "${PIPESTATUS[0]}" = 0 ] || exit 1
export PASSBOX_WEBAUTHN_PY="$PWD/.build/web-tools/py"
export flows=$PWD/.build/make-test/flows
rm -rf "$flows" && mkdir -p "$flows" && cp -a .build/make-test/debug/passbox .build/make-test/debug/*.resources "$flows"/ || exit 1

# The browser extension's flows (Chromium in English and Firefox ESR in German;
# Tests/Web/extension_test.py --matrix full runs both in both languages) run beside the web UI's
# (16 runs: every flow in Chromium and Firefox ESR and in both languages, paired, two at a time): each waits on its browsers
# and agents most of the time, and one after the other they were the run's longest lane (716 s of 716).
# The lane waits for the tools' status (the browsers, axe-core): on a fresh machine they may come after the
# binary, and the tests' build goes on meanwhile. Polled: the tools' lane is not this lane's child.
stamp "the browser flows start once the test tools are there (output in .build/ui-test.log and .build/extension-test.log)"
export started
setsid bash -c '
  until [ -e .build/test-tools.status ]; do sleep 1; done
  [ "$(cat .build/test-tools.status)" = 0 ] || { echo "the test tools could not be installed (.build/test-tools.log): no browser flow ran" | tee .build/ui-test.log; exit 1; }
  echo "[$(( $(date +%s) - started )) s] the test tools are there: the browser flows start"
  cpu "the web UI flows" /usr/bin/python3 Tests/Web/ui_test.py --passbox "$flows/passbox" --axe .build/web-tools/axe.min.js \
    --artifacts .build/ui-screenshots > .build/ui-test.log 2>&1 &
  web=$!
  ( cpu "the extension flows" /usr/bin/python3 Tests/Web/extension_test.py --passbox "$flows/passbox" \
    --artifacts .build/extension-screenshots ) > .build/extension-test.log 2>&1
  extension=$?
  wait "$web"; web=$?
  [ "$web" = 0 ] && [ "$extension" = 0 ]' &
ui=$!

stamp "building the tests"
# shellcheck disable=SC2086
( cpu "the tests' build" $swift build --build-tests $debug_flags ) 2>&1 | tee -a .build/debug-build.log; [ "${PIPESTATUS[0]}" = 0 ] || exit 1
# The Swift tests need the tools too (PostgreSQL, the peers).
stamp "waiting for the test tools"
wait "$tools" || { cat .build/test-tools.log; echo "the test tools could not be installed (.build/test-tools.log)"; exit 1; }
tools=""

# The Swift tests in several processes (PASSBOX_TEST_SHARES, 4 by default), each with every test of its share
# side by side. Swift's concurrency runs the test functions on as many threads as there are cores, and a test
# waiting on its agent, server or a timeout holds one of them: two processes ran 415 and 274 CPU seconds in
# 1,115 s, a third of two cores, the rest waiting. The shares are whole suites (a serialized suite keeps its
# order, and a suite's display numbers and clusters stay in one process), dealt round: the serialized suites
# first, as their tests add up one after the other, then the rest by name. --ignore-lock: SwiftPM locks the
# build directory per command, and none of these builds anything.
shares=${PASSBOX_TEST_SHARES:-4}
[ "$shares" -ge 1 ] 2>/dev/null || { echo "PASSBOX_TEST_SHARES must be 1 or more, not '$shares'"; exit 1; }
stamp "Swift tests in $shares processes (all but ReleaseBinaryTests, which make release-test runs)"
export PASSBOX_REQUIRE_POSTGRES=1 PASSBOX_REQUIRE_PEERS=1
serialized=$(grep -rhoE '@Suite\(\.serialized\) struct [A-Za-z0-9_]+' Tests | awk '{ print $NF }' | sort -u)
# shellcheck disable=SC2086
# Every test must be in a suite (Module.Suite/test): a top-level test would be in no share, so it stops the run.
# shellcheck disable=SC2086
listed=$($swift test list --skip-build $debug_flags --ignore-lock 2>.build/test-list.log) || { cat .build/test-list.log; echo "swift test list failed"; exit 1; }
loose=$(echo "$listed" | grep -v -E '^[A-Za-z0-9_]+\.[A-Za-z0-9_]+/')
[ -z "$loose" ] || { echo "tests outside a suite, which no share would run:"; echo "$loose"; exit 1; }
suites=$(echo "$listed" | sed -n -E 's|^([A-Za-z0-9_]+\.[A-Za-z0-9_]+)/.*|\1|p' | sort -u | grep -v '\.ReleaseBinaryTests$')
[ -n "$suites" ] || { echo "swift test list named no suites"; exit 1; }
ordered=$( { for name in $serialized; do echo "$suites" | grep -E "\.$name\$"; done; echo "$suites"; } | awk '!seen[$0]++')
rm -f .build/test-share*.log .build/test.log
share_pids=""
for k in $(seq 0 $((shares - 1))); do
  pattern=$(echo "$ordered" | awk -v k="$k" -v n="$shares" '(NR - 1) % n == k { gsub(/\./, "\\."); printf "%s%s", sep, $0; sep = "|" }')
  [ -n "$pattern" ] || continue
  # shellcheck disable=SC2086
  setsid bash -c 'cpu "the Swift tests (share '"$k"')" "$@"' _ $swift test --skip-build $debug_flags --ignore-lock --filter "^($pattern)/" > ".build/test-share-$k.log" 2>&1 &
  share_pids="$share_pids $!"
done
# A line a minute while the shares run (their logs are printed whole once they end): how many suites ended and
# failed, and how many browser runs ended, so a person watching sees the run move and a failure early.
progress() {
  local total=$1 ended failed web extension seconds=0
  # Slept a second at a time: a sleep left by the kill below ends within a second.
  while sleep 1; do
    seconds=$((seconds + 1))
    [ $((seconds % 60)) = 0 ] || continue
    ended=$(cat .build/test-share-*.log 2>/dev/null | grep -cE '^(✔|✘) Suite ')
    failed=$(cat .build/test-share-*.log 2>/dev/null | grep -cE '^✘ Test .* failed after')
    web=$(cat .build/ui-test.log 2>/dev/null | grep -cE '^(ok|FAIL) ')
    extension=$(cat .build/extension-test.log 2>/dev/null | grep -cE '^(ok|FAIL) ')
    stamp "progress: $ended of $total Swift suites ended (failures so far: $failed); browser runs ended: $web of the web UI, $extension of the extension"
  done
}
progress "$(echo "$suites" | wc -l)" &
progress_pid=$!
swift_status=0
for pid in $share_pids; do wait "$pid" || swift_status=1; done
kill "$progress_pid" 2>/dev/null
wait "$progress_pid" 2>/dev/null
for k in $(seq 0 $((shares - 1))); do
  echo "--- share $k of the Swift tests (.build/test-share-$k.log) ---"
  cat ".build/test-share-$k.log" 2>/dev/null
done
scripts/slowest-suites.sh .build/test-share-*.log

stamp "waiting for the browser flows"
wait $ui
ui_status=$?
trap - EXIT
echo "--- browser flows (.build/ui-test.log) ---"
cat .build/ui-test.log
echo "--- browser extension flows (.build/extension-test.log) ---"
cat .build/extension-test.log 2>/dev/null
echo "--- where the CPU time went ---"
grep -h "^cpu:" .build/debug-build.log .build/ui-test.log .build/extension-test.log .build/test-share-*.log 2>/dev/null
read -r busy_after idle_after <<< "$(machine_cpu)"
echo "cpu: the machine was busy $(( busy_after - busy_before )) CPU seconds and idle $(( idle_after - idle_before )) (of every process, the run's and any other)"
verdict() { [ "$1" = 0 ] && echo passed || echo FAILED; }
stamp "done: Swift tests $(verdict "$swift_status"), browser flows $(verdict "$ui_status")"
[ "$swift_status" = 0 ] && [ "$ui_status" = 0 ]
