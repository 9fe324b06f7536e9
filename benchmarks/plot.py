#!/usr/bin/env python3
"""Turns the JMH JSON and server.json of one run into results/summary.md and a PNG.

Every figure is also given as a ratio to the plain INCR floor measured in the same run,
same workload and same thread count. Needs matplotlib for the PNG (pip install matplotlib);
without it only the tables are written.
"""
import glob
import json
import os
import sys

results = sys.argv[1] if len(sys.argv) > 1 else "results"
CONTENDERS = ["incr", "evalsha", "limiter", "limiter-cached", "limiter-buckets", "limiter-token", "bucket4j", "scg",
              "limiter-lean"]
WORKLOADS = ["uniform", "zipf", "reject-heavy", "hot-key"]

jmh = {}
for path in sorted(glob.glob(os.path.join(results, "jmh-*.json"))):
    for row in json.load(open(path)):
        p = row["params"]
        metric = row["primaryMetric"]
        mean_us = metric["score"]
        jmh[(p["contender"], p["workload"], row["threads"])] = {
            "throughput": row["threads"] / mean_us * 1e6,
            "p50": metric["scorePercentiles"]["50.0"],
            "p99": metric["scorePercentiles"]["99.0"],
            "alloc": row.get("secondaryMetrics", {}).get("gc.alloc.rate.norm", {}).get("score"),
        }
threads = sorted({k[2] for k in jmh})
server = json.load(open(os.path.join(results, "server.json"))) if os.path.exists(
    os.path.join(results, "server.json")) else None


def fmt(value):
    if value is None:
        return "–"
    if abs(value) >= 100_000:
        return f"{value / 1000:,.0f}k"
    if abs(value) >= 1000:
        return f"{value / 1000:.1f}k"
    if abs(value) >= 10:
        return f"{value:.0f}"
    if abs(value) >= 1:
        return f"{value:.2f}"
    return f"{value:.3f}"


def ratio(value, floor):
    if value is None or not floor:
        return "–"
    return f"{value / floor:.2f}"


out = []
out.append("| workload | threads | " + " | ".join(CONTENDERS) + " |")
out.append("|---|---|" + "---|" * len(CONTENDERS))


def table(title, key, note, unit):
    out.append(f"\n### {title}\n\n{note}\n")
    out.append("| workload | thr | " + " | ".join(CONTENDERS) + " |")
    out.append("|---|---|" + "---|" * len(CONTENDERS))
    for w in WORKLOADS:
        for t in threads:
            floor = jmh.get(("incr", w, t), {}).get(key)
            cells = []
            for c in CONTENDERS:
                v = jmh.get((c, w, t), {}).get(key)
                cells.append("–" if v is None else f"{ratio(v, floor)} ({fmt(v)}{unit})")
            out.append(f"| {w} | {t} | " + " | ".join(cells) + " |")


out = []
table("Throughput", "throughput", "Ratio to INCR (decisions/s in brackets); higher is better. "
      "Throughput = threads / mean sampled time (closed loop).", "/s")
table("Latency p50", "p50", "Ratio to INCR (µs in brackets); lower is better.", "µs")
table("Latency p99", "p99", "Ratio to INCR (µs in brackets); lower is better.", "µs")
table("Allocations per decision", "alloc", "Ratio to INCR (bytes per decision, `-prof gc` "
      "gc.alloc.rate.norm, in brackets).", "B")

if server:
    runs = {(r["contender"], r["workload"], r["threads"]): r for r in server["runs"]}
    st = server["threads"]
    for title, key, note in [
        ("Redis server time per decision", "serverMicrosPerDecision",
         f"Ratio to INCR (µs per decision in brackets), {st} threads: Σ over commands sent by the "
         "client of count × usec_per_call from INFO commandstats, over decisions."),
        ("Redis calls per decision", "redisCallsPerDecision",
         f"Round trips per decision, counted on the client ({st} threads); the ratio to INCR is the value itself."),
    ]:
        out.append(f"\n### {title}\n\n{note}\n")
        out.append("| workload | " + " | ".join(CONTENDERS) + " |")
        out.append("|---|" + "---|" * len(CONTENDERS))
        for w in WORKLOADS:
            floor = runs.get(("incr", w, st), {}).get(key)
            cells = []
            for c in CONTENDERS:
                v = runs.get((c, w, st), {}).get(key)
                cells.append("–" if v is None else f"{ratio(v, floor)} ({fmt(v)})")
            out.append(f"| {w} | " + " | ".join(cells) + " |")
    out.append("\n### Bytes per key (MEMORY USAGE after N admitted calls, window 1h)\n")
    mem = server["memory"]
    ns = list(next(iter(mem.values())).keys())
    out.append("| contender | " + " | ".join(f"N={n}" for n in ns) + " |")
    out.append("|---|" + "---|" * len(ns))
    for c, by_n in mem.items():
        out.append(f"| {c} | " + " | ".join(
            f"{ratio(by_n[n], mem['incr'][n])} ({by_n[n]} B)" for n in ns) + " |")
    out.append("\n### Over-admission oracle (hot key, 100 per second)\n")
    out.append("| contender | threads | admitted | over-admissions | most admitted in any 1s window | method |")
    out.append("|---|---|---|---|---|---|")
    for r in server["runs"]:
        o = r.get("oracle")
        if o and "overAdmissions" in o:
            out.append(f"| {r['contender']} | {r['threads']} | {o['admitted']} | {o['overAdmissions']} | "
                       f"{o['maxInAnyWindow']} | {o['method']} |")

if server and server.get("cacheSavings"):
    out.append("\n### Redis calls saved by the blocked-until cache\n")
    out.append("Limiter behind `LocallyBlockingRateLimiter`, offered the load plain Limiter sustained in the same run, "
               "from an empty Redis, for longer than the window.\n")
    out.append("| workload | threads | offered decisions/s | decisions | Redis calls | calls saved |")
    out.append("|---|---|---|---|---|---|")
    for r in server["cacheSavings"]:
        out.append(f"| {r['workload']} | {r['threads']} | {r['offeredPerSecond']:.0f} | {r['decisions']} | "
                   f"{r['redisCalls']} | {100 * r['callsSaved']:.2f}% |")

summary = os.path.join(results, "summary.md")
open(summary, "w").write("\n".join(out) + "\n")
print("Wrote " + summary)

try:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
except ImportError:
    print("matplotlib is missing (pip install matplotlib): no plot")
    sys.exit(0)

PLOTTED = [c for c in CONTENDERS if c != "limiter-lean"]
fig, axes = plt.subplots(1, len(threads), figsize=(5 * len(threads), 4.5), sharey=True)
if len(threads) == 1:
    axes = [axes]
width = 0.8 / len(PLOTTED)
for ax, t in zip(axes, threads):
    for i, c in enumerate(PLOTTED):
        values = []
        for w in WORKLOADS:
            floor = jmh.get(("incr", w, t), {}).get("throughput")
            v = jmh.get((c, w, t), {}).get("throughput")
            values.append(v / floor if v and floor else 0)
        ax.bar([x + i * width for x in range(len(WORKLOADS))], values, width, label=c)
    ax.set_yscale("log")
    ax.axhline(1.0, color="grey", linewidth=0.8)
    ax.set_xticks([x + width * (len(PLOTTED) - 1) / 2 for x in range(len(WORKLOADS))])
    ax.set_xticklabels(WORKLOADS)
    ax.set_title(f"{t} thread{'s' if t > 1 else ''}")
    ax.grid(axis="y", which="both", alpha=0.3)
axes[0].set_ylabel("throughput / INCR throughput (log)")
axes[-1].legend(fontsize=8)
fig.suptitle("Decisions per second as a ratio to plain INCR, same run, one shared Lettuce connection")
fig.tight_layout()
png = os.path.join(results, "benchmarks.png")
fig.savefig(png, dpi=110)
print("Wrote " + png)
