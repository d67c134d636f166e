#!/usr/bin/env python3
"""Side-by-side summary of one run_benchmarks.sh job: mori-shmem against NVSHMEM.

Reads the run list (standard.list: runs and @target lines), the job's run table (runs.tsv, one
row per mpirun: id, backend, exit code, seconds, JSON file, command) and every JSON that
mori-shmem-perf wrote, then writes
  <out>/bench_summary.txt   a table: id, metric, scope, size, mori, nvshmem, ratio, target, met?,
                            floor (is mori-shmem at least NVSHMEM's figure?)
  <out>/bench_results.json  one document for bench/results/: commit, UTC date, machine, every
                            command line and its exit code, every row, the targets' verdicts.
Repeated ids (e.g. three shmem_init_time jobs) are reduced to the median of each row.
With --shared-gpu (the PEs shared one GPU, e.g. under CUDA MPS) the figures measure one GPU's
memory, not an interconnect: the summary says so on top, absolute targets (set for NVLink) are
not judged ("n/a"), and only the ratios to NVSHMEM in the same job count.
Exit status: 0 when every run exited 0, 1 otherwise (unmet targets are reported, not failures).
"""

import argparse
import json
import os
import statistics
import sys

SUFFIX = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30}


def parse_size(text):
    t = text.strip()
    unit = t[-1:].upper() if t[-1:].isalpha() else ""
    digits = t[:-1] if unit else t
    if unit not in SUFFIX or not digits.isdigit():
        raise ValueError(f"bad size '{text}'")
    return int(digits) * SUFFIX[unit]


def size_text(n):
    for unit in ("G", "M", "K"):
        if n >= SUFFIX[unit] and n % SUFFIX[unit] == 0:
            return f"{n // SUFFIX[unit]}{unit}"
    return str(n)


def parse_list(path):
    """Returns (runs, targets): runs as (id, test, args) in order, targets as dicts."""
    runs, targets = [], []
    with open(path) as f:
        for lineno, raw in enumerate(f, 1):
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            words = line.split()
            if words[0] == "@target":
                if len(words) < 7:
                    raise ValueError(f"{path}:{lineno}: @target needs <id> <scope> <metric> <sizes> <condition> "
                                     f"<description>")
                _, rid, scope, metric, sizes, cond = words[:6]
                lo, _, hi = sizes.partition("..")
                lo = parse_size(lo)
                hi = parse_size(hi) if hi else lo
                for op in ("ratio>=", ">=", "<="):
                    if cond.startswith(op):
                        value = float(cond[len(op):])
                        break
                else:
                    raise ValueError(f"{path}:{lineno}: condition '{cond}' is not >=X, <=X or ratio>=X")
                targets.append({"id": rid, "scope": scope, "metric": metric, "min_size": lo, "max_size": hi,
                                "op": op, "value": value, "condition": cond, "description": " ".join(words[6:])})
            else:
                if len(words) < 2:
                    raise ValueError(f"{path}:{lineno}: a run is '<id> <test> [arguments]'")
                runs.append((words[0], words[1], words[2:]))
    ids = {r[0] for r in runs}
    for t in targets:
        if t["id"] not in ids:
            raise ValueError(f"{path}: @target names id '{t['id']}', which no run has")
    return runs, targets


def read_runs(path):
    rows = []
    with open(path) as f:
        for line in f:
            if not line.strip():
                continue
            rid, backend, code, seconds, json_file, command = line.rstrip("\n").split("\t", 5)
            rows.append({"id": rid, "backend": backend, "exit_code": int(code), "seconds": float(seconds),
                         "json_file": json_file, "command": command})
    return rows


def load_results(runs):
    """{(backend, id, scope, metric, size): [values]} and {...: units/higher_is_better}."""
    values, meta = {}, {}
    for r in runs:
        r["result"] = None
        if not os.path.exists(r["json_file"]):
            continue
        try:
            with open(r["json_file"]) as f:
                doc = json.load(f)
        except (OSError, ValueError) as e:
            r["json_error"] = str(e)
            continue
        r["result"] = doc
        for row in doc.get("results", []):
            key = (r["backend"], r["id"], row["scope"], row["metric"], row["size"])
            if row["value"] is None:
                continue
            values.setdefault(key, []).append(row["value"])
            meta[key[1:]] = (row["units"], row["higher_is_better"])
    return values, meta


def fmt(v, digits=3):
    if v is None:
        return "-"
    if abs(v) < 0.1:
        return f"{v:.3g}"  # e.g. calls/s of a block-scope put, in G
    return f"{v:.{digits}f}" if abs(v) < 1000 else f"{v:.1f}"


SHARED_GPU_NOTE = ("PEs SHARE ONE GPU (no interconnect): every figure measures one GPU's memory and L2; compare "
                   "mori-shmem with NVSHMEM only as ratios within this job, never with NVLink or RDMA figures")


def summarize(list_path, runs_path, out_dir, commit, date, machine, shared_gpu=False):
    runs_list, targets = parse_list(list_path)
    runs = read_runs(runs_path)
    values, meta = load_results(runs)
    med = {k: statistics.median(v) for k, v in values.items()}
    order = [r[0] for r in runs_list]

    # Every (id, scope, metric, size) that either library reported, in list order.
    keys = sorted(meta.keys(), key=lambda k: (order.index(k[0]) if k[0] in order else len(order), k[2], k[1], k[3]))
    table = []
    for rid, scope, metric, size in keys:
        units, higher = meta[(rid, scope, metric, size)]
        mori = med.get(("mori-shmem", rid, scope, metric, size))
        nv = med.get(("nvshmem", rid, scope, metric, size))
        ratio = mori / nv if mori is not None and nv else None
        floor = None
        if mori is not None and nv is not None:
            floor = (mori >= nv) if higher else (mori <= nv)
        row = {"id": rid, "scope": scope, "metric": metric, "units": units, "higher_is_better": higher,
               "size": size, "mori": mori, "nvshmem": nv, "ratio": ratio, "floor_met": floor,
               "target": None, "target_met": None}
        for t in targets:
            if (t["id"], t["scope"], t["metric"]) != (rid, scope, metric):
                continue
            if not t["min_size"] <= size <= t["max_size"]:
                continue
            row["target"] = t["condition"]
            if shared_gpu and t["op"] != "ratio>=":
                continue  # an absolute target is an interconnect figure: not judged here
            if t["op"] == ">=":
                row["target_met"] = mori is not None and mori >= t["value"]
            elif t["op"] == "<=":
                row["target_met"] = mori is not None and mori <= t["value"]
            else:
                row["target_met"] = ratio is not None and ratio >= t["value"]
        table.append(row)

    # Per target: met when it has rows and all of them are met.
    verdicts = []
    for t in targets:
        rows = [r for r in table if r["target"] == t["condition"] and (r["id"], r["scope"], r["metric"]) ==
                (t["id"], t["scope"], t["metric"]) and t["min_size"] <= r["size"] <= t["max_size"]]
        judged = not (shared_gpu and t["op"] != "ratio>=")
        verdicts.append({"description": t["description"], "id": t["id"], "scope": t["scope"], "metric": t["metric"],
                         "sizes": f"{size_text(t['min_size'])}..{size_text(t['max_size'])}",
                         "condition": t["condition"], "rows": len(rows), "judged": judged,
                         "met": (bool(rows) and all(r["target_met"] for r in rows)) if judged else None,
                         "mori": [r["mori"] for r in rows], "nvshmem": [r["nvshmem"] for r in rows]})

    failed = [r for r in runs if r["exit_code"] != 0]
    lines = []
    lines.append(f"mori-shmem-perf summary  commit {commit}  {date}")
    if shared_gpu:
        lines.append(f"  {SHARED_GPU_NOTE}")
    for m in machine.splitlines():
        lines.append(f"  {m}")
    lines.append("ratio = mori-shmem / NVSHMEM (latency and init time: lower is better, so < 1 is faster); "
                 "floor = mori-shmem at least as good as NVSHMEM in this job")
    lines.append("")
    header = f"{'id':<16} {'metric':<10} {'scope':<8} {'size':>6} {'mori':>10} {'nvshmem':>10} {'ratio':>6} " \
             f"{'target':>11} {'met?':>4} {'floor':>5}"
    lines.append(header)
    lines.append("-" * len(header))
    for r in table:
        met = "-" if r["target_met"] is None else ("yes" if r["target_met"] else "NO")
        floor = "-" if r["floor_met"] is None else ("ok" if r["floor_met"] else "BELOW")
        lines.append(f"{r['id']:<16} {r['metric']:<10} {r['scope']:<8} {size_text(r['size']):>6} "
                     f"{fmt(r['mori']):>10} {fmt(r['nvshmem']):>10} {fmt(r['ratio'], 2):>6} "
                     f"{(r['target'] or '-'):>11} {met:>4} {floor:>5}")
    lines.append("")
    lines.append("targets:")
    for v in verdicts:
        got = [x for x in v["mori"] if x is not None]
        state = ("N/A: PEs share one GPU" if not v["judged"] else
                 "NO DATA" if not v["rows"] else ("MET" if v["met"] else "NOT MET"))
        span = f"mori-shmem {fmt(min(got))}..{fmt(max(got))}" if got else "no mori-shmem value"
        lines.append(f"  [{state}] {v['description']}  ({v['condition']} over {v['rows']} row(s); {span})")
    below = [r for r in table if r["floor_met"] is False]
    lines.append(f"rows below NVSHMEM's figure: {len(below)} of {sum(r['floor_met'] is not None for r in table)}")
    lines.append("")
    lines.append(f"runs: {len(runs)}, failed: {len(failed)}")
    for r in failed:
        lines.append(f"  FAILED (exit {r['exit_code']}) {r['backend']} {r['id']}: {r['command']}")
    text = "\n".join(lines) + "\n"

    doc = {
        "tool": "mori-shmem-perf",
        "commit": commit,
        "date_utc": date,
        "machine": machine.splitlines(),
        "topology": SHARED_GPU_NOTE if shared_gpu else "one PE per GPU",
        "list": os.path.basename(list_path),
        "runs": [{k: r.get(k) for k in ("id", "backend", "command", "exit_code", "seconds", "result")}
                 for r in runs],
        "rows": table,
        "targets": verdicts,
        "targets_met": sum(bool(v["met"]) for v in verdicts),
        "targets_total": sum(v["judged"] for v in verdicts),
        "all_runs_ok": not failed,
    }
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "bench_summary.txt"), "w") as f:
        f.write(text)
    with open(os.path.join(out_dir, "bench_results.json"), "w") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    return text, doc


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--list", required=True)
    p.add_argument("--runs", required=True, help="runs.tsv written by run_benchmarks.sh")
    p.add_argument("--out", required=True)
    p.add_argument("--commit", default="unknown")
    p.add_argument("--date", default="unknown")
    p.add_argument("--machine", default="unknown")
    p.add_argument("--shared-gpu", action="store_true", help="the PEs shared one GPU (no interconnect)")
    a = p.parse_args(argv)
    text, doc = summarize(a.list, a.runs, a.out, a.commit, a.date, a.machine, a.shared_gpu)
    sys.stdout.write(text)
    return 0 if doc["all_runs_ok"] else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
