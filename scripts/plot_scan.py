#!/usr/bin/env python3
"""The scan study's sweep from the JSON of `ladder run scan --json`.

    scripts/plot_scan.py RESULTS.json [--png OUT.png] [--markdown OUT.md]

Prints (and writes with --markdown) two Markdown tables built from the int32 sweep tables:
the size sweep (time and GB/s of the library call, the best single-pass rung, CUB and cudaMemcpy,
with the ratio to CUB), and the seed's CPU-vs-GPU table (its 8800 GTX numbers beside ours). With
--png, draws effective bandwidth against n for the main rungs (needs matplotlib).
"""
import argparse
import json
import re
import sys

# The seed's table (000_733e1357adff97a9.txt, "Parallel scan: performance"): n, CPU ms, GPU ms.
SEED = [
    (1024, 0.002231, 0.079492), (32768, 0.072663, 0.106159), (65536, 0.146326, 0.137006),
    (131072, 0.726429, 0.200257), (262144, 1.454742, 0.326900), (524288, 2.911067, 0.624104),
    (1048576, 5.900097, 1.118091), (2097152, 11.848376, 2.099666), (4194304, 23.835931, 4.062923),
    (8388608, 47.390906, 7.987311), (16777216, 94.794598, 15.854781),
]
PLOTTED = ["three_phase", "lookback_1item", "lookback_v16", "lookback_staged", "reduce_ahead_64k_s3_r2",
           "ladder::exclusive_scan", "cub::DeviceScan::ExclusiveSum", "cudaMemcpy"]


def sweep(doc, kind="int32"):
    out = {}
    for table in doc.get("tables", []):
        m = re.match(r"exclusive scan (\w+) n = (\d+)", table.get("title", ""))
        if not m or m.group(1) != kind:
            continue
        rows = {}
        for row in table["rows"]:
            t = row["timings"][0] if row["timings"] else {}
            rows[row["name"]] = (t.get("median_ms"), t.get("bandwidth_gbs"), row["check"])
        out[int(m.group(2))] = rows
    return dict(sorted(out.items()))


def best_rung(rows):
    """The fastest single-pass rung, look-back or reduce-ahead (not the library call, not a reference)."""
    cands = [(v[0], k) for k, v in rows.items()
             if k.startswith(("lookback", "reduce_ahead")) and v[0] is not None and v[2] == "ok"]
    return min(cands)[1] if cands else None


def fmt(v, d=3):
    return "-" if v is None else f"{v:.{d}f}"


def tables(doc):
    data = sweep(doc)
    lines = ["| n | ladder::exclusive_scan ms | GB/s | best rung | ms | GB/s | CUB ms | CUB GB/s | "
             "speedup of the library over CUB | of the best rung | cudaMemcpy GB/s |",
             "| ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for n, rows in data.items():
        lib = rows.get("ladder::exclusive_scan", (None, None, ""))
        cub = rows.get("cub::DeviceScan::ExclusiveSum", (None, None, ""))
        cpy = rows.get("cudaMemcpy", (None, None, ""))
        b = best_rung(rows)
        best = rows.get(b, (None, None, "")) if b else (None, None, "")
        ratio = cub[0] / lib[0] if lib[0] and cub[0] else None
        bratio = cub[0] / best[0] if best[0] and cub[0] else None
        lines.append(f"| {n} | {fmt(lib[0], 4)} | {fmt(lib[1], 1)} | {b or '-'} | {fmt(best[0], 4)} | "
                     f"{fmt(best[1], 1)} | {fmt(cub[0], 4)} | {fmt(cub[1], 1)} | {fmt(ratio, 2)} | "
                     f"{fmt(bratio, 2)} | {fmt(cpy[1], 1)} |")
    seed = ["| n | seed CPU ms (Core Duo 2.93 GHz) | seed GPU ms (8800 GTX) | seed speedup | "
            "our CPU ms (1 core) | ladder::exclusive_scan ms | speedup | CUB ms | speedup |",
            "| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for n, cpu_ms, gpu_ms in SEED:
        rows = data.get(n, {})
        cpu = rows.get("cpu_scan", (None, None, ""))[0]
        lib = rows.get("ladder::exclusive_scan", (None, None, ""))[0]
        cub = rows.get("cub::DeviceScan::ExclusiveSum", (None, None, ""))[0]
        seed.append(f"| {n} | {cpu_ms:.6f} | {gpu_ms:.6f} | {cpu_ms / gpu_ms:.2f} | {fmt(cpu, 4)} | "
                    f"{fmt(lib, 4)} | {fmt(cpu / lib if cpu and lib else None, 1)} | {fmt(cub, 4)} | "
                    f"{fmt(cpu / cub if cpu and cub else None, 1)} |")
    return "\n".join(lines) + "\n", "\n".join(seed) + "\n"


def plot(doc, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    data = sweep(doc)
    fig, ax = plt.subplots(figsize=(9, 5.5))
    names = list(PLOTTED)
    for rows in data.values():
        b = best_rung(rows)
        if b and b not in names:
            names.insert(-3, b)
    for name in names:
        xs = [n for n, rows in data.items() if rows.get(name, (None,))[0] is not None]
        ys = [data[n][name][1] for n in xs]
        if xs:
            style = "--" if name.startswith("cub") or name == "cudaMemcpy" else "-"
            ax.plot(xs, ys, style, marker="o", markersize=3, label=name)
    ax.set_xscale("log", base=2)
    ax.set_xlabel("n (int32 elements)")
    ax.set_ylabel("effective bandwidth, GB/s (2 x n x 4 B / time)")
    dev = doc.get("device", {}).get("name", "")
    ax.set_title(f"exclusive scan int32, {dev}, {doc.get('date', '')}")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("results")
    p.add_argument("--png")
    p.add_argument("--markdown")
    a = p.parse_args()
    with open(a.results) as f:
        doc = json.load(f)
    sweep_md, seed_md = tables(doc)
    text = "## Size sweep (int32 exclusive sum)\n\n" + sweep_md + "\n## The seed's table beside ours\n\n" + seed_md
    print(text)
    if a.markdown:
        with open(a.markdown, "w") as f:
            f.write(text)
    if a.png:
        try:
            plot(doc, a.png)
        except ImportError as e:
            print(f"no plot: {e}", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
