"""Normalizes a shardcheck --json report for comparison across builds:
timings and paths to written files are dropped; everything a verdict,
minimal case or report field depends on is kept."""
import json
import sys

DROP = {"seconds", "shrink_seconds", "case_file", "picture"}


def strip(x):
    if isinstance(x, dict):
        return {k: strip(v) for k, v in x.items() if k not in DROP}
    if isinstance(x, list):
        return [strip(v) for v in x]
    return x


doc = json.load(open(sys.argv[1]))
out = {"seed": doc["seed"], "results": strip(doc["results"])}
json.dump(out, sys.stdout, indent=1, sort_keys=True)
sys.stdout.write("\n")
