#!/usr/bin/env python3
"""Plots and markdown tables from `xpose bench --json` files.

    bench/plot.py RESULT.json [MORE.json ...]             PNGs into docs/results/
    bench/plot.py RESULT.json --table                     markdown: every row, one table per group
    bench/plot.py RESULT.json --summary                   markdown: per group and element size

Plots: for each file and each group of cases, the ratio to the device-to-device copy (or memcpy)
measured in the same run, one bar per case, coloured by element size, with the peer's own ratio to
the same copy as a black diamond where the bench measured one; for groups of several element sizes
also one column per size (every case a dot, the median a bar). With two files or more, a scatter
of each later file's ratios against the first file's on the cases both have.

Tables print the figures in the formats `xpose bench` prints them (ms to 4 significant digits,
GB/s to 2 decimals, ratios to copy to 3, ratios to the peer to 2), so a table regenerated from the
JSON reads as the run printed it; "peer × copy" is the peer's GB/s over the copy's GB/s. JSON null
(NaN in the bench: nothing measured) prints "-".
"""

import argparse
import json
import math
import os
import re
import signal
import statistics
import sys

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DEFAULT_OUT_DIR = os.path.join(REPO_ROOT, "docs", "results")


# --- reading -------------------------------------------------------------------------------------


def number(value):
    """A JSON number, or None for null / NaN / missing."""
    if value is None:
        return None
    value = float(value)
    return None if math.isnan(value) else value


def load(path):
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    if "rows" not in data:
        sys.exit(f"{path}: no 'rows' (not an `xpose bench --json` file)")
    data["_path"] = path
    data["_stem"] = os.path.splitext(os.path.basename(path))[0]
    return data


def batch_of(row):
    return int(row.get("batch") or 1)


def route_of(row):
    """The route that ran: the chosen one when the case asked for `automatic`."""
    if row.get("route") == "automatic" and row.get("chosen_route"):
        return row["chosen_route"]
    return row.get("route") or row.get("chosen_route") or "?"


def case_key(row):
    return (row.get("group"), row.get("in_place"), route_of(row), row.get("rows"),
            row.get("cols"), row.get("elem_size"), batch_of(row))


def peer_ratio_to_copy(row):
    """The peer's throughput over the copy of the same run (None without a verified peer)."""
    peer, copy = number(row.get("peer_gb_per_s")), number(row.get("copy_gb_per_s"))
    if not row.get("peer") or not row.get("peer_verified") or peer is None or not copy:
        return None
    return peer / copy


def measured(row):
    return not row.get("skipped") and row.get("verified")


def groups_of(data, only=None):
    groups = {}
    for row in data["rows"]:
        group = row.get("group", "?")
        if only and only not in group:
            continue
        groups.setdefault(group, []).append(row)
    return groups


def file_label(data):
    names = ", ".join(d.get("name", "?") for d in data.get("devices", []))
    parts = [names or data["_stem"]]
    if data.get("commit"):
        parts.append(str(data["commit"])[:7])
    if data.get("date"):
        parts.append(str(data["date"]))
    return ", ".join(parts)


def slug(text):
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


# --- markdown ------------------------------------------------------------------------------------


def fmt(value, spec):
    value = number(value)
    return "-" if value is None else format(value, spec)


def fmt_ms(value):
    value = number(value)
    return "-" if value is None else "%.4g" % value


def shape_text(row):
    text = f"{row.get('rows')} × {row.get('cols')}"
    if batch_of(row) > 1:
        text = f"{batch_of(row)} × ({text})"
    return text


def workspace_text(row):
    """As `xpose bench` prints it: bytes in binary units and the share of the matrix."""
    size = float(row.get("workspace_bytes") or 0)
    units = ["B", "KiB", "MiB", "GiB", "TiB"]
    unit = 0
    while size >= 1024 and unit < len(units) - 1:
        size /= 1024
        unit += 1
    text = ("%.0f %s" if unit == 0 else "%.1f %s") % (size, units[unit])
    matrix = row.get("matrix_bytes") or 0
    if matrix:
        text += " (%.2f%%)" % (100.0 * float(row.get("workspace_bytes") or 0) / matrix)
    return text


def check_text(row):
    if row.get("skipped"):
        return "skipped: " + row["skipped"]
    if not row.get("verified"):
        return "FAILED: " + (row.get("failure") or "?")
    if row.get("peer") and not row.get("peer_verified") and row.get("peer_failure"):
        return "ok (peer failed: " + row["peer_failure"] + ")"
    return "ok"


def header(data):
    devices = "; ".join(f"{d.get('name', '?')} ({d.get('detail', '')})"
                        for d in data.get("devices", []))
    lines = [f"`{os.path.basename(data['_path'])}`: xpose {data.get('xpose_version', '?')}"]
    if data.get("commit"):
        lines[0] += f" at commit {data['commit']}"
    if data.get("date"):
        lines[0] += f", {data['date']}"
    lines[0] += f"; {devices}; median of {data.get('reps', '?')} timed runs after a warm-up."
    return lines


def median_or_none(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def group_line(data, group, rows):
    """The bench's own summary line of the group (its `summaries` entry), or the same computed."""
    summary = next((s for s in data.get("summaries", []) if s.get("group") == group), None)
    if summary is None:
        summary = {
            "cases": len(rows),
            "failed": sum(1 for r in rows if not r.get("skipped") and not r.get("verified")),
            "skipped": sum(1 for r in rows if r.get("skipped")),
            "median_ratio_to_copy": median_or_none(number(r.get("ratio_to_copy")) for r in rows),
            "median_ratio_to_peer": median_or_none(number(r.get("ratio_to_peer")) for r in rows),
        }
    return (f"{summary.get('cases')} cases, {summary.get('failed')} failed, "
            f"{summary.get('skipped')} skipped; "
            f"median {fmt(summary.get('median_ratio_to_copy'), '.3f')} × copy, "
            f"median {fmt(summary.get('median_ratio_to_peer'), '.2f')} × peer")


def print_table(data, only=None, out=sys.stdout, with_header=True):
    if with_header:
        for line in header(data):
            print(line, file=out)
    for group, rows in groups_of(data, only).items():
        has_peer = any(r.get("peer") for r in rows)
        has_workspace = any(r.get("in_place") for r in rows)
        print(f"\n**{group}**: {group_line(data, group, rows)}\n", file=out)
        columns = ["route", "shape", "elem bytes", "ms", "GB/s", "copy GB/s", "× copy"]
        if has_workspace:
            columns.append("workspace")
        if has_peer:
            columns += ["peer", "peer × copy", "× peer"]
        columns.append("check")
        print("| " + " | ".join(columns) + " |", file=out)
        print("|" + " --- |" * len(columns), file=out)
        for r in rows:
            cells = [f"`{route_of(r)}`", shape_text(r), str(r.get("elem_size")),
                     fmt_ms(r.get("median_ms")), fmt(r.get("gb_per_s"), ".2f"),
                     fmt(r.get("copy_gb_per_s"), ".2f"), fmt(r.get("ratio_to_copy"), ".3f")]
            if has_workspace:
                cells.append(workspace_text(r) if r.get("in_place") else "-")
            if has_peer:
                cells += [r.get("peer") or "-", fmt(peer_ratio_to_copy(r), ".3f"),
                          fmt(r.get("ratio_to_peer"), ".2f")]
            cells.append(check_text(r))
            print("| " + " | ".join(cells) + " |", file=out)


def print_summary(data, only=None, out=sys.stdout):
    """One row per group and element size; with a single group, the group named above the table
    instead of in a column."""
    for line in header(data):
        print(line, file=out)
    groups = groups_of(data, only)
    one_group = len(groups) == 1
    columns = ["elem bytes", "cases", "failed", "min × copy", "median × copy", "max × copy",
               "median × peer"]
    if one_group:
        print(f"\n**{next(iter(groups))}**", file=out)
    else:
        columns.insert(0, "group")
    print("\n| " + " | ".join(columns) + " |", file=out)
    print("|" + " --- |" * len(columns), file=out)
    for group, rows in groups.items():
        sizes = sorted({r.get("elem_size") for r in rows})
        for size in sizes + ["all"] if len(sizes) > 1 else sizes:
            part = [r for r in rows if size == "all" or r.get("elem_size") == size]
            ratios = [number(r.get("ratio_to_copy")) for r in part if measured(r)]
            ratios = [v for v in ratios if v is not None]
            failed = sum(1 for r in part if not r.get("skipped") and not r.get("verified"))
            first = "|" if one_group else f"| {group} |"
            print(f"{first} {size} | {len(part)} | {failed} "
                  f"| {fmt(min(ratios) if ratios else None, '.3f')} "
                  f"| {fmt(median_or_none(ratios), '.3f')} "
                  f"| {fmt(max(ratios) if ratios else None, '.3f')} "
                  f"| {fmt(median_or_none(number(r.get('ratio_to_peer')) for r in part), '.2f')} |",
                  file=out)


# --- plots ---------------------------------------------------------------------------------------


def element_colours(sizes):
    import matplotlib

    # tab20's dark shades first, then its light ones: neighbouring sizes get distinct colours.
    cmap = matplotlib.colormaps["tab20"]
    shades = [cmap(i) for i in range(0, 20, 2)] + [cmap(i) for i in range(1, 20, 2)]
    return {size: shades[i % 20] for i, size in enumerate(sorted(sizes))}


def parse_targets(items):
    targets = []
    for item in items or []:
        group, _, value = item.rpartition("=")
        if not group:
            sys.exit(f"--target {item!r}: expected GROUP_SUBSTRING=VALUE")
        targets.append((group, float(value)))
    return targets


def plot_group(data, group, rows, targets, out_dir):
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch

    order = sorted(range(len(rows)), key=lambda i: (rows[i].get("elem_size"), i))
    rows = [rows[i] for i in order]
    several_routes = len({route_of(r) for r in rows}) > 1
    labels = []
    for r in rows:
        label = f"{shape_text(r)}, {r.get('elem_size')} B"
        if several_routes:
            label = f"{route_of(r)}  {label}"
        labels.append(label)
    colours = element_colours({r.get("elem_size") for r in rows})

    height = 1.6 + 0.22 * len(rows)
    fig, ax = plt.subplots(figsize=(9.5, height))
    ys = list(range(len(rows)))
    ratios = [number(r.get("ratio_to_copy")) if measured(r) else None for r in rows]
    ax.barh(ys, [v or 0.0 for v in ratios], color=[colours[r.get("elem_size")] for r in rows],
            height=0.75, edgecolor="none")
    top = max([1.0] + [v for v in ratios if v is not None])
    peers = [peer_ratio_to_copy(r) for r in rows]
    top = max([top] + [p for p in peers if p is not None])
    for y, r, v in zip(ys, rows, ratios):
        if v is None:
            text = "skipped" if r.get("skipped") else "FAILED"
            ax.text(0.01, y, text, va="center", fontsize=7, color="red")
        else:
            ax.text(v + 0.005 * top, y, "%.3f" % v, va="center", fontsize=6.5)
    peer_ys = [y for y, p in zip(ys, peers) if p is not None]
    if peer_ys:
        ax.scatter([p for p in peers if p is not None], peer_ys, marker="D", s=14, color="black",
                   zorder=3)
    ax.axvline(1.0, color="grey", linewidth=0.8)
    for name, value in targets:
        if name in group:
            ax.axvline(value, color="crimson", linestyle="--", linewidth=0.9)
    ax.set_yticks(ys)
    ax.set_yticklabels(labels, fontsize=7)
    ax.invert_yaxis()
    ax.set_ylim(len(rows) - 0.5, -0.5)
    ax.set_xlim(0, top * 1.1)
    ax.set_xlabel("throughput / copy of the same bytes in the same run (2 × bytes / median time)")
    ax.grid(axis="x", linewidth=0.3)
    ax.set_title(f"{group}\n{file_label(data)}", fontsize=10)

    handles = [Patch(color=colours[s], label=f"{s}-byte elements") for s in sorted(colours)]
    peer_names = sorted({r["peer"] for r, p in zip(rows, peers) if p is not None})
    if peer_names:
        handles.append(Line2D([], [], marker="D", color="black", linestyle="none", markersize=4,
                              label="peer: " + ", ".join(peer_names)))
    for name, value in targets:
        if name in group:
            handles.append(Line2D([], [], color="crimson", linestyle="--",
                                  label=f"target {value:g} × copy"))
    ax.legend(handles=handles, fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0),
              frameon=False)
    fig.tight_layout()
    path = os.path.join(out_dir, f"{data['_stem']}-{slug(group)}.png")
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def plot_by_element_size(data, group, rows, targets, out_dir):
    """One column per element size: every case's ratio to copy as a dot, the median as a bar."""
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D

    sizes = sorted({r.get("elem_size") for r in rows})
    colours = element_colours(sizes)
    fig, ax = plt.subplots(figsize=(max(5.0, 0.55 * len(sizes) + 3.0) + 2.2, 4.6))
    peer_names = set()
    for x, size in enumerate(sizes):
        part = [r for r in rows if r.get("elem_size") == size and measured(r)]
        ratios = [number(r.get("ratio_to_copy")) for r in part]
        ratios = [v for v in ratios if v is not None]
        offsets = [0.0] if len(ratios) == 1 else [
            -0.28 + 0.56 * i / (len(ratios) - 1) for i in range(len(ratios))]
        ax.scatter([x + o for o in offsets], sorted(ratios), s=10, color=colours[size], zorder=2)
        if ratios:
            median = statistics.median(ratios)
            ax.plot([x - 0.38, x + 0.38], [median, median], color="black", linewidth=1.2)
            ax.text(x, max(ratios) + 0.01, "%.3f" % median, ha="center", fontsize=6.5)
        peers = [peer_ratio_to_copy(r) for r in part]
        if any(p is not None for p in peers):
            peer_names.update(r["peer"] for r, p in zip(part, peers) if p is not None)
            ax.scatter([x + 0.42] * sum(p is not None for p in peers),
                       [p for p in peers if p is not None], marker="D", s=9, color="black",
                       zorder=3)
    ax.axhline(1.0, color="grey", linewidth=0.8)
    handles = [Line2D([], [], color="black", linewidth=1.2, label="median (figure above)")]
    for name, value in targets:
        if name in group:
            ax.axhline(value, color="crimson", linestyle="--", linewidth=0.9)
            handles.append(Line2D([], [], color="crimson", linestyle="--",
                                  label=f"target {value:g} × copy"))
    if peer_names:
        handles.append(Line2D([], [], marker="D", color="black", linestyle="none", markersize=4,
                              label="peer: " + ", ".join(sorted(peer_names))))
    ax.set_xticks(range(len(sizes)))
    ax.set_xticklabels([str(s) for s in sizes])
    ax.set_xlabel("element size (bytes); one dot per case")
    ax.set_ylabel("× copy of the same bytes, same run")
    ax.grid(axis="y", linewidth=0.3)
    ax.set_title(f"{group}: {len(rows)} cases\n{file_label(data)}", fontsize=10)
    ax.legend(handles=handles, fontsize=7, loc="upper left", bbox_to_anchor=(1.01, 1.0),
              frameon=False)
    fig.tight_layout()
    path = os.path.join(out_dir, f"{data['_stem']}-{slug(group)}-by-elem.png")
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def plot_comparison(base, other, only, out_dir):
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch

    base_rows = {case_key(r): r for r in base["rows"] if measured(r)}
    pairs = []
    for r in other["rows"]:
        if only and only not in r.get("group", ""):
            continue
        b = base_rows.get(case_key(r))
        if b is None or not measured(r):
            continue
        x, y = number(b.get("ratio_to_copy")), number(r.get("ratio_to_copy"))
        if x is not None and y is not None:
            pairs.append((x, y, r.get("elem_size")))
    if not pairs:
        print(f"no common cases between {base['_path']} and {other['_path']}", file=sys.stderr)
        return None
    colours = element_colours({p[2] for p in pairs})
    fig, ax = plt.subplots(figsize=(6.5, 6))
    ax.scatter([p[0] for p in pairs], [p[1] for p in pairs], s=14,
               color=[colours[p[2]] for p in pairs])
    low = min(min(p[0] for p in pairs), min(p[1] for p in pairs)) * 0.95
    high = max(1.0, max(p[0] for p in pairs), max(p[1] for p in pairs)) * 1.02
    ax.plot([low, high], [low, high], color="grey", linewidth=0.8)
    ax.set_xlim(low, high)
    ax.set_ylim(low, high)
    ax.set_xlabel(f"× copy: {base['_stem']} ({file_label(base)})", fontsize=8)
    ax.set_ylabel(f"× copy: {other['_stem']} ({file_label(other)})", fontsize=8)
    ax.set_title(f"{len(pairs)} cases in both runs" + (f" ({only})" if only else ""), fontsize=10)
    ax.grid(linewidth=0.3)
    ax.legend(handles=[Patch(color=colours[s], label=f"{s} B") for s in sorted(colours)],
              fontsize=7, loc="upper left", frameon=False)
    fig.tight_layout()
    path = os.path.join(out_dir, f"compare-{base['_stem']}-vs-{other['_stem']}.png")
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


# --- main ----------------------------------------------------------------------------------------


def main():
    parser = argparse.ArgumentParser(
        description="Plots (PNG) or markdown tables from `xpose bench --json` files.")
    parser.add_argument("files", nargs="+", help="`xpose bench --json` files")
    parser.add_argument("--table", action="store_true",
                        help="print every row as markdown, one table per group; no plots")
    parser.add_argument("--summary", action="store_true",
                        help="print a markdown table per group and element size; no plots")
    parser.add_argument("--group", help="only the groups whose name contains this text")
    parser.add_argument("--out-dir", default=DEFAULT_OUT_DIR,
                        help="where the PNGs go (default: docs/results/)")
    parser.add_argument("--target", action="append", metavar="GROUP_SUBSTRING=VALUE",
                        help="draw a target line on the groups whose name contains the text "
                             "(repeatable), e.g. --target out-of-place=0.93")
    args = parser.parse_args()
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `--table | head` ends quietly

    files = [load(path) for path in args.files]
    if args.table or args.summary:
        for i, data in enumerate(files):
            if i:
                print()
            if args.summary:
                print_summary(data, args.group)
            if args.table:
                print_table(data, args.group, with_header=not args.summary)
        return

    import matplotlib

    matplotlib.use("Agg")
    os.makedirs(args.out_dir, exist_ok=True)
    targets = parse_targets(args.target)
    written = []
    for data in files:
        for group, rows in groups_of(data, args.group).items():
            written.append(plot_group(data, group, rows, targets, args.out_dir))
            if len({r.get("elem_size") for r in rows}) > 1:
                written.append(plot_by_element_size(data, group, rows, targets, args.out_dir))
    for other in files[1:]:
        path = plot_comparison(files[0], other, args.group, args.out_dir)
        if path:
            written.append(path)
    for path in written:
        print(path)


if __name__ == "__main__":
    main()
