#!/usr/bin/env bash
# `make test`'s run, after the installs: builds, then runs the browser flows beside the release build and the
# Swift tests, and fails when either fails.
#
# The browser flows (Tests/Web/ui_test.py) spend most of their time waiting on the browser and the agent
# (about 180 CPU seconds in 250 s of wall time), so they start as soon as the debug binary exists and run
# while the release build and the Swift tests keep the two cores busy: the suite's time is the builds plus
# the longer of the two lanes, not their sum. Their output goes to .build/ui-test.log and is printed at the end.
#
# Usage: scripts/test.sh "RELEASE BUILD FLAGS"
set -uo pipefail
cd "$(dirname "$0")/.."
release_flags=${1:?usage: scripts/test.sh "RELEASE BUILD FLAGS"}
swift=${SWIFT:-swift}
# The tests' cheap account key derivation (debug builds only; see TestAccountKDF).
export PASSBOX_TEST_ACCOUNT_KDF=cheap
started=$(date +%s)
stamp() { echo "[$(( $(date +%s) - started )) s] $*"; }

stamp "building the debug binary and the tests"
$swift build --build-tests || exit 1
scripts/fetch-axe.sh .build/web-tools || exit 1

stamp "browser flows started (output in .build/ui-test.log)"
/usr/bin/python3 Tests/Web/ui_test.py --passbox .build/debug/passbox --axe .build/web-tools/axe.min.js \
  --artifacts .build/ui-screenshots > .build/ui-test.log 2>&1 &
ui=$!
trap 'kill $ui 2>/dev/null' EXIT

stamp "building the release binary"
# shellcheck disable=SC2086 # the flags are words
$swift build $release_flags --product passbox || exit 1

stamp "Swift tests"
PASSBOX_REQUIRE_POSTGRES=1 PASSBOX_REQUIRE_PEERS=1 PASSBOX_RELEASE_BINARY="$PWD/.build/release/passbox" \
  $swift test --skip-build 2>&1 | tee .build/test.log
swift_status=${PIPESTATUS[0]}
scripts/slowest-suites.sh .build/test.log

stamp "waiting for the browser flows"
wait $ui
ui_status=$?
trap - EXIT
echo "--- browser flows (.build/ui-test.log) ---"
cat .build/ui-test.log
stamp "done: Swift tests $([ "$swift_status" = 0 ] && echo passed || echo FAILED), browser flows $([ "$ui_status" = 0 ] && echo passed || echo FAILED)"
[ "$swift_status" = 0 ] && [ "$ui_status" = 0 ]
