#!/usr/bin/env python3
"""scripts/check_skips.py PASS JUNIT.xml...: fails (exit status 1) when a test was skipped that
tests/allowed_skips.txt does not allow in PASS (release or sanitize). Reads the JUnit XML of
ctest (--output-junit) and of pytest (--junitxml); prints every skip with its reason, allowed or
not, so that no skip passes unseen."""

import fnmatch
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

ALLOWED = Path(__file__).resolve().parents[1] / "tests" / "allowed_skips.txt"


def allowed_skips(run_pass):
    """(pattern, reason) of every line allowed in `run_pass`."""
    rules = []
    for number, line in enumerate(ALLOWED.read_text().splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        parts = line.split(None, 2)
        if len(parts) < 3 or parts[0] not in ("any", "release", "sanitize"):
            sys.exit(f"{ALLOWED}:{number}: expected 'PASS PATTERN REASON', got '{line}'")
        if parts[0] in ("any", run_pass):
            rules.append((parts[1], parts[2]))
    return rules


def skip_reason(case, skipped):
    """GoogleTest's reason is the line after "Skipped" in the output; pytest's is the message."""
    out = case.findtext("system-out") or ""
    lines = out.splitlines()
    for i, text in enumerate(lines):
        if text.endswith(": Skipped") and i + 1 < len(lines):
            return lines[i + 1]
    return (skipped.text or "").strip() or skipped.get("message", "")


def skips(junit):
    """(name, reason) of every skipped test case of one JUnit file."""
    root = ET.parse(junit).getroot()
    for case in root.iter("testcase"):
        skipped = case.find("skipped")
        if skipped is None:
            continue
        if case.get("status") is not None:  # ctest: classname is the test's name
            # A parameterised GoogleTest's name may carry "  # GetParam() = ..." after it.
            name = "ctest:" + case.get("name").split("  # GetParam()")[0]
        elif case.get("classname"):
            name = f"pytest:{case.get('classname')}::{case.get('name')}"
        else:  # a whole module skipped while collecting it: its name alone
            name = f"pytest:{case.get('name')}::(module)"
        yield name, skip_reason(case, skipped)


def main():
    if len(sys.argv) < 3 or sys.argv[1] not in ("release", "sanitize"):
        sys.exit("usage: scripts/check_skips.py release|sanitize JUNIT.xml...")
    rules = allowed_skips(sys.argv[1])
    unexpected = 0
    for junit in sys.argv[2:]:
        for name, reason in skips(junit):
            rule = next((r for r in rules if fnmatch.fnmatchcase(name, r[0])), None)
            if rule:
                print(f"skipped (allowed: {rule[1]}): {name}: {reason}")
            else:
                unexpected += 1
                print(f"UNEXPECTED SKIP: {name}: {reason}")
    if unexpected:
        print(f"{unexpected} test(s) skipped that {ALLOWED.name} does not allow in the "
              f"{sys.argv[1]} pass", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
