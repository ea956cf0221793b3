#!/usr/bin/env python3
"""scripts/coverage_folders.py SUMMARY.json: gcovr's --json-summary as one line per folder of
src/ (lines run, lines, share), lowest share first, and the total; exit status 1 when a folder
is under MINIMUM (80%), the bar every folder is held to."""

import json
import sys
from collections import defaultdict

MINIMUM = 80.0


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: scripts/coverage_folders.py SUMMARY.json")
    with open(sys.argv[1]) as f:
        files = json.load(f)["files"]
    folders = defaultdict(lambda: [0, 0])
    for entry in files:
        parts = entry["filename"].split("/")
        folder = "/".join(parts[:2]) if len(parts) > 2 else parts[0]
        folders[folder][0] += entry["line_covered"]
        folders[folder][1] += entry["line_total"]
    rows = sorted(folders.items(), key=lambda kv: kv[1][0] / max(kv[1][1], 1))
    below = []
    print(f"{'folder':<16} {'lines run':>10} {'lines':>7} {'share':>7}")
    for folder, (run, total) in rows:
        share = 100.0 * run / max(total, 1)
        print(f"{folder:<16} {run:>10} {total:>7} {share:>6.1f}%")
        if share < MINIMUM:
            below.append(folder)
    run = sum(v[0] for v in folders.values())
    total = sum(v[1] for v in folders.values())
    print(f"{'all of src/':<16} {run:>10} {total:>7} {100.0 * run / max(total, 1):>6.1f}%")
    if below:
        print(f"under {MINIMUM:.0f}% of lines: {', '.join(below)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
