#!/usr/bin/env python3
"""The DL paper's Figure 6 from the ELL SpMV example's CSV rows.

    examples/ell_spmv/plot_figure6.py GPU.csv [CPU.csv ...] [--out docs/results/ell-spmv-figure6.png]

Each CSV is what `ell_spmv_gpu --csv FILE` or `ell_spmv --csv FILE` writes: one row per matrix
(rows x width) and layout, with the kernel time, the marshaling time of both arrays from AoS and
the break-even in products (-1: never). For each CSV, one row of panels, one panel per matrix: the
net speedup over AoS after k products, k * t_aos / (t_marshal + k * t_layout), for k = 1..30, one
curve per layout ("DL: A Data Layout Transformation System for Heterogeneous Computing", Figure 6:
the overall speedup including the marshaling cost), with each layout's kernel speedup and
break-even in the legend. A second figure beside the PNG (suffix -summary) shows the kernel
speedup and the break-even per matrix and layout as bars. Needs matplotlib only.
"""

import argparse
import csv
import math
import os
import sys

ITERATIONS = 30
COLOURS = {"soa": "tab:blue", "asta(16)": "tab:orange", "asta(32)": "tab:red",
           "asta(64)": "tab:purple"}


def read_rows(path):
    """{(rows, width): {layout: row}} in file order, floats parsed."""
    matrices = {}
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            key = (int(row["rows"]), int(row["width"]))
            for name in ("kernel_s", "marshal_s", "copy_s", "break_even"):
                row[name] = float(row[name])
            matrices.setdefault(key, {})[row["layout"]] = row
    return matrices


def label_of(path):
    return os.path.splitext(os.path.basename(path))[0]


def net_speedup(aos, row, k):
    return k * aos["kernel_s"] / (row["marshal_s"] + k * row["kernel_s"])


def plot_curves(plt, files, out):
    columns = max(len(read) for _, read in files)
    fig, axes = plt.subplots(len(files), columns, figsize=(3.2 * columns, 3.0 * len(files)),
                             squeeze=False, sharex=True)
    ks = list(range(1, ITERATIONS + 1))
    for r, (path, matrices) in enumerate(files):
        for c, ((rows, width), layouts) in enumerate(matrices.items()):
            ax = axes[r][c]
            aos = layouts.get("aos")
            if aos is None:
                continue
            for name, row in layouts.items():
                if name == "aos":
                    continue
                even = row["break_even"]
                legend = "%s: %.2fx, %s" % (name, aos["kernel_s"] / row["kernel_s"],
                                             "never" if even < 0 else "even at %.1f" % even)
                ax.plot(ks, [net_speedup(aos, row, k) for k in ks], label=legend,
                        color=COLOURS.get(name))
            ax.axhline(1.0, color="black", linewidth=0.8, linestyle=":")
            ax.set_title("%s: %d x %d" % (label_of(path), rows, width), fontsize=9)
            ax.legend(fontsize=6, loc="lower right")
            ax.grid(alpha=0.3)
            if c == 0:
                ax.set_ylabel("net speedup over AoS")
            if r == len(files) - 1:
                ax.set_xlabel("SpMV products")
        for c in range(len(matrices), columns):
            axes[r][c].axis("off")
    fig.suptitle("ELL SpMV: speedup including the in-place marshaling from AoS (DL Figure 6)")
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    plt.close(fig)


def plot_summary(plt, files, out):
    fig, axes = plt.subplots(len(files), 2, figsize=(12, 3.2 * len(files)), squeeze=False)
    for r, (path, matrices) in enumerate(files):
        names = [n for n in COLOURS if any(n in m for m in matrices.values())]
        width = 0.8 / max(1, len(names))
        keys = list(matrices)
        for i, name in enumerate(names):
            speedups, evens = [], []
            for key in keys:
                aos, row = matrices[key].get("aos"), matrices[key].get(name)
                speedups.append(aos["kernel_s"] / row["kernel_s"] if aos and row else math.nan)
                even = row["break_even"] if row else -1
                evens.append(even if even >= 0 else math.nan)
            xs = [k + (i - (len(names) - 1) / 2) * width for k in range(len(keys))]
            axes[r][0].bar(xs, speedups, width, label=name, color=COLOURS[name])
            axes[r][1].bar(xs, evens, width, label=name, color=COLOURS[name])
        ticks = ["%d x %d" % key for key in keys]
        for ax, title in ((axes[r][0], "kernel speedup over AoS"),
                          (axes[r][1], "break-even (products; none: never)")):
            ax.set_xticks(range(len(keys)))
            ax.set_xticklabels(ticks, fontsize=7)
            ax.set_title("%s: %s" % (label_of(path), title), fontsize=9)
            ax.grid(axis="y", alpha=0.3)
            ax.legend(fontsize=7)
        axes[r][0].axhline(1.0, color="black", linewidth=0.8, linestyle=":")
        axes[r][1].set_yscale("log")
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    plt.close(fig)


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    default_out = os.path.join(here, "..", "..", "docs", "results", "ell-spmv-figure6.png")
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("csv", nargs="+", help="CSV files of ell_spmv_gpu or ell_spmv --csv")
    parser.add_argument("--out", default=default_out, help="the PNG (default: %(default)s)")
    args = parser.parse_args()
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        sys.exit("plot_figure6.py needs matplotlib (pip install matplotlib)")
    files = [(path, read_rows(path)) for path in args.csv]
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    plot_curves(plt, files, args.out)
    root, ext = os.path.splitext(args.out)
    plot_summary(plt, files, root + "-summary" + ext)
    print("wrote %s and %s" % (args.out, root + "-summary" + ext))


if __name__ == "__main__":
    main()
