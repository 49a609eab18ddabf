#!/bin/sh
# The ten suites of a `swift test` run that finished last, with when they finished (seconds from the run's
# start): swift-testing starts every suite at once and runs their tests side by side on the machine's cores,
# so a suite's own duration cannot be told apart from its waiting; the suites that end last are what holds a
# run up. Usage: scripts/slowest-suites.sh LOG... (the output of runs that started together)
set -eu
[ $# -gt 0 ] || { echo "usage: scripts/slowest-suites.sh LOG..."; exit 2; }
echo "The ten suites that finished last (seconds from the start of the run):"
sed -n -E 's/.*Suite ([A-Za-z0-9_]+) (passed|failed) after ([0-9.]+) seconds.*/\3 \1/p' "$@" | sort -rn | head -10 |
    awk '{ printf "  %8.1f s  %s\n", $1, $2 }'
