#!/usr/bin/env python3
"""Plot a size sweep from the JSON of `ladder run --json`.

    scripts/plot_sweep.py RESULTS.json OUT.png [--match REGEX] [--title TEXT]

Takes every table whose title matches REGEX (default: "sweep"), uses each table's bytes_moved
as the x value, and draws one line per (row, column group): median time per call (left, log-log)
and effective bandwidth (right). Reference rows are dashed. Generic: any study that emits one
table per size (reduce, scan, ...) can reuse it.
"""
import argparse
import json
import re
import sys


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("results")
    parser.add_argument("output")
    parser.add_argument("--match", default="sweep", help="regex on table titles")
    parser.add_argument("--title", default=None)
    args = parser.parse_args()

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with open(args.results) as f:
        doc = json.load(f)
    tables = [t for t in doc.get("tables", []) if re.search(args.match, t.get("title", ""))]
    if not tables:
        print(f"no table title matches {args.match!r}", file=sys.stderr)
        return 1

    series = {}  # (row, group) -> list of (bytes, ms, gbs, reference)
    for table in tables:
        x = table["bytes_moved"]
        for row in table["rows"]:
            for timing in row["timings"]:
                if timing.get("median_ms") is None:
                    continue
                key = (row["name"], timing["group"])
                series.setdefault(key, []).append((x, timing["median_ms"], timing.get("bandwidth_gbs"), row["reference"]))

    fig, (ax_time, ax_bw) = plt.subplots(1, 2, figsize=(13, 5))
    for (name, group), points in sorted(series.items()):
        points.sort()
        xs = [p[0] for p in points]
        style = "--" if points[0][3] else "-"
        label = f"{name} ({group})"
        ax_time.plot(xs, [p[1] * 1e3 for p in points], style, marker="o", markersize=3, label=label)
        ax_bw.plot(xs, [p[2] or 0 for p in points], style, marker="o", markersize=3, label=label)
    for ax in (ax_time, ax_bw):
        ax.set_xscale("log", base=2)
        ax.set_xlabel("bytes per call (" + tables[0].get("bytes_formula", "") + ")")
        ax.grid(True, which="both", alpha=0.3)
    ax_time.set_yscale("log")
    ax_time.set_ylabel("median time per call (us)")
    ax_bw.set_ylabel("effective bandwidth (GB/s)")
    peak = tables[0].get("measured_peak_gbs")
    if peak:
        ax_bw.axhline(peak, color="grey", linewidth=0.8, linestyle=":", label=f"measured copy peak {peak:.0f} GB/s")
    ax_bw.legend(fontsize=8)
    device = doc.get("device", {}).get("name", "")
    fig.suptitle(args.title or f"{tables[0].get('study', '')} sweep on {device} ({doc.get('date', '')})")
    fig.tight_layout()
    fig.savefig(args.output, dpi=120)
    print(f"wrote {args.output} from {len(tables)} tables")
    return 0


if __name__ == "__main__":
    sys.exit(main())
