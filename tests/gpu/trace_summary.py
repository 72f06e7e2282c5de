#!/usr/bin/env python3
"""Summarises a --trace_output timeline (Chrome trace-event JSON) of a
benchmark run: calls, wall time per call, device time per call in
dispatches and transfers, and the dispatches that take the most device
time. Used by the GPU check scripts to say where a GPU run's time goes.

    tests/gpu/trace_summary.py run.json [--top 10]
"""
import argparse
import collections
import json


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("trace")
    ap.add_argument("--top", type=int, default=10)
    a = ap.parse_args()
    d = json.load(open(a.trace))
    ev = [e for e in (d["traceEvents"] if isinstance(d, dict) else d) if e.get("ph") == "X"]
    waits = [e for e in ev if e.get("cat") == "wait"]
    subs = [e for e in ev if e.get("cat") == "queue"]
    disp = [e for e in ev if e.get("cat") == "dispatch"]
    span = (max(e["ts"] + e["dur"] for e in ev) - min(e["ts"] for e in ev)) if ev else 0
    per = collections.defaultdict(lambda: [0, 0.0])
    cats = collections.defaultdict(float)
    for e in ev:
        if e.get("cat") not in ("wait", "queue"):
            cats[e.get("cat", "?")] += e["dur"]
    for e in disp:
        p = per[e["name"]]
        p[0] += 1
        p[1] += e["dur"]
    # Each dispatch of a program runs once per call: the most frequent
    # dispatch's count is the number of calls the timeline holds.
    calls = max([n for n, _ in per.values()] + [1])
    print(f"  {calls} calls, {len(waits)} host waits, {len(subs)} submissions, {len(disp)} dispatches; "
          f"span {span / 1e3:.1f} ms = {span / calls / 1e3:.3f} ms per call")
    print("  per call, device µs by kind: " + ", ".join(f"{k} {v / calls:.1f}" for k, v in sorted(cats.items())))
    for name, (n, t) in sorted(per.items(), key=lambda kv: -kv[1][1])[:a.top]:
        wg = next((e["args"].get("workgroup_count") for e in disp if e["name"] == name), None)
        print(f"    {name:48s} ×{n / calls:5.1f}/call  {t / n:9.1f} µs each  {t / calls:9.1f} µs/call  wg={wg}")


if __name__ == "__main__":
    main()
