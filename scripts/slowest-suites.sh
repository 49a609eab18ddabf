#!/bin/sh
# The ten slowest test suites of a `swift test --xunit-output FILE` run, slowest first: the times of each
# suite's tests added up. swift-testing starts tests side by side and each test's time runs from its start to
# its end, waiting for the two cores included, so the figures overstate what a suite would take alone; they
# rank where the time goes.
# Usage: scripts/slowest-suites.sh XUNIT-FILE
set -eu
file=${1:?usage: scripts/slowest-suites.sh XUNIT-FILE}
exec /usr/bin/python3 - "$file" <<'PY'
import sys
import xml.etree.ElementTree as ElementTree
totals, counts = {}, {}
for case in ElementTree.parse(sys.argv[1]).getroot().iter("testcase"):
    suite = case.get("classname", "?").split(".")[-1]
    totals[suite] = totals.get(suite, 0.0) + float(case.get("time", "0") or 0)
    counts[suite] = counts.get(suite, 0) + 1
print("The ten slowest suites (their tests' times added up, waiting for the shared cores included):")
for suite, seconds in sorted(totals.items(), key=lambda kv: -kv[1])[:10]:
    print(f"  {seconds:8.1f} s  {suite} ({counts[suite]} tests)")
PY
