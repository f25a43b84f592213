#!/usr/bin/env python3
"""Prints how often each check ran in a schemathesis run, and with what outcome.

Usage: checks.py NDJSON_REPORT
schemathesis's summary counts test cases, not checks; its NDJSON report has every check result.
"""
import collections
import json
import sys

outcomes = collections.defaultdict(collections.Counter)
with open(sys.argv[1]) as report:
    for line in report:
        event = json.loads(line)
        finished = event.get("ScenarioFinished")
        if not finished:
            continue
        for results in finished["recorder"].get("checks", {}).values():
            for result in results:
                outcomes[result["name"]][result["status"]] += 1

print(f"checks ({len(outcomes)}, results per check):")
for name, counts in sorted(outcomes.items()):
    print(f"  {name}: " + ", ".join(f"{count} {status}" for status, count in sorted(counts.items())))
