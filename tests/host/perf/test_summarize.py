#!/usr/bin/env python3
"""CPU test of tools/perf/summarize.py (run_benchmarks.sh's summary) on recorded JSON.

usage: test_summarize.py <summarize.py> <standard.list>
Checks that the standard list parses (every @target names a run), and on a small made-up job:
side-by-side rows, ratios, targets (absolute and relative to NVSHMEM), floors, the median over
repeated runs, a failed run and a missing JSON. Prints 'N passed, N failed'.
"""

import importlib.util
import json
import os
import sys
import tempfile

failures = []
passed = 0


def check(cond, what):
    global passed
    if cond:
        passed += 1
    else:
        failures.append(what)
        print(f"FAIL: {what}")


def load(path):
    spec = importlib.util.spec_from_file_location("summarize", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def result(scope, size, metric, units, higher, value):
    return {"scope": scope, "size": size, "metric": metric, "units": units, "higher_is_better": higher,
            "value": value, "iters": 10, "elapsed_ms": 1.0}


def doc(test, rows, status="ok"):
    return {"tool": "mori-shmem-perf", "test": test, "status": status, "results": rows}


def main():
    summarize_py, standard_list = sys.argv[1], sys.argv[2]
    s = load(summarize_py)

    # The standard list parses, every target names a run, and the issue-4 targets are all there.
    runs, targets = s.parse_list(standard_list)
    check(len(runs) >= 10, "standard.list has the standard runs")
    check({t["id"] for t in targets} <= {r[0] for r in runs}, "every @target names a run of standard.list")
    metrics = {(t["id"], t["metric"], t["condition"]) for t in targets}
    for want in [("put_block_large", "BW", ">=360"), ("put_block", "BW", "ratio>=1.2"),
                 ("put_warp_large", "BW", ">=340"), ("signal_pingpong", "latency", "<=1.6"),
                 ("put_lat", "latency", "<=1.18"), ("p_bw", "msgrate", ">=46"),
                 ("atomic_add_bw", "msgrate", ">=40"), ("init", "init_time", "<=0.3")]:
        check(want in metrics, f"standard.list has target {want}")
    check(s.parse_size("1G") == 1 << 30 and s.parse_size("64M") == 64 << 20 and s.parse_size("8") == 8,
          "sizes with suffixes")
    for bad in ("4X", "M", "1.5G", ""):
        try:
            s.parse_size(bad)
            check(False, f"'{bad}' is refused")
        except ValueError:
            check(True, f"'{bad}' is refused")

    with tempfile.TemporaryDirectory() as tmp:
        lst = os.path.join(tmp, "t.list")
        with open(lst, "w") as f:
            f.write("# comment\n"
                    "put  shmem_put_bw -b 1M -e 2M\n"
                    "lat  shmem_put_latency -b 8 -e 8\n"
                    "init shmem_init_time\n"
                    "init shmem_init_time\n"
                    "init shmem_init_time\n"
                    "@target put block BW 1M..2M >=300 put at least 300\n"
                    "@target put block BW 1M ratio>=1.2 put 1.2x nvshmem at 1M\n"
                    "@target lat thread latency 8 <=1.6 latency at most 1.6\n"
                    "@target init init init_time 2 <=0.3 init at most 0.3 s\n")
        M = 1 << 20
        docs = {
            ("mori-shmem", 1, "put"): doc("shmem_put_bw", [result("block", M, "BW", "GB/sec", True, 320.0),
                                                           result("block", 2 * M, "BW", "GB/sec", True, 290.0)]),
            ("mori-shmem", 2, "lat"): doc("shmem_put_latency", [result("thread", 8, "latency", "us", False, 1.5)]),
            ("mori-shmem", 3, "init"): doc("shmem_init_time", [result("init", 2, "init_time", "sec", False, 0.5)]),
            ("mori-shmem", 4, "init"): doc("shmem_init_time", [result("init", 2, "init_time", "sec", False, 0.2)]),
            ("mori-shmem", 5, "init"): doc("shmem_init_time", [result("init", 2, "init_time", "sec", False, 0.25)]),
            ("nvshmem", 1, "put"): doc("shmem_put_bw", [result("block", M, "BW", "GB/sec", True, 250.0),
                                                        result("block", 2 * M, "BW", "GB/sec", True, 300.0)]),
            ("nvshmem", 2, "lat"): doc("shmem_put_latency", [result("thread", 8, "latency", "us", False, 1.2)]),
            # nvshmem init runs: one failed without JSON
            ("nvshmem", 3, "init"): doc("shmem_init_time", [result("init", 2, "init_time", "sec", False, 0.9)]),
            ("nvshmem", 4, "init"): doc("shmem_init_time", [result("init", 2, "init_time", "sec", False, 0.8)]),
        }
        tsv = os.path.join(tmp, "runs.tsv")
        with open(tsv, "w") as f:
            for backend in ("mori-shmem", "nvshmem"):
                for n, rid in enumerate(["put", "lat", "init", "init", "init"], 1):
                    path = os.path.join(tmp, f"{backend}_{n:02d}_{rid}.json")
                    key = (backend, n, rid)
                    code = 0
                    if key in docs:
                        with open(path, "w") as j:
                            json.dump(docs[key], j)
                    else:
                        code = 3
                    f.write(f"{rid}\t{backend}\t{code}\t1.0\t{path}\tmpirun -np 2 x {rid}\n")
        out = os.path.join(tmp, "out")
        text, res = s.summarize(lst, tsv, out, "abc123", "2025-01-01T00:00:00Z", "GPU 0: H200\nGPU 1: H200")
        check(os.path.exists(os.path.join(out, "bench_summary.txt")), "bench_summary.txt written")
        with open(os.path.join(out, "bench_results.json")) as f:
            combined = json.load(f)
        check(combined["commit"] == "abc123" and combined["date_utc"] == "2025-01-01T00:00:00Z",
              "commit and date recorded")
        check(combined["machine"] == ["GPU 0: H200", "GPU 1: H200"], "machine recorded")
        check(len(combined["runs"]) == 10 and all("command" in r for r in combined["runs"]), "every run recorded")
        check(combined["all_runs_ok"] is False, "a failed run is reported")
        rows = {(r["id"], r["scope"], r["metric"], r["size"]): r for r in combined["rows"]}
        put1 = rows[("put", "block", "BW", M)]
        check(abs(put1["ratio"] - 320.0 / 250.0) < 1e-9, "ratio mori / nvshmem")
        check(put1["floor_met"] is True, "floor met at 1M")
        put2 = rows[("put", "block", "BW", 2 * M)]
        check(put2["floor_met"] is False, "floor missed at 2M (290 < 300)")
        check(put2["target_met"] is False, "absolute target missed at 2M")
        lat = rows[("lat", "thread", "latency", 8)]
        check(lat["target_met"] is True, "latency target met (1.5 <= 1.6)")
        check(lat["floor_met"] is False, "latency floor: 1.5 us is worse than NVSHMEM's 1.2")
        init = rows[("init", "init", "init_time", 2)]
        check(init["mori"] == 0.25, "median of three init runs")
        check(abs(init["nvshmem"] - 0.85) < 1e-12, "median of the two init runs that wrote JSON")
        check(init["target_met"] is True, "init target met")
        verdicts = {v["description"]: v for v in combined["targets"]}
        check(verdicts["put at least 300"]["met"] is False, "range target fails when one size misses")
        check(verdicts["put 1.2x nvshmem at 1M"]["met"] is True, "ratio target (320/250 = 1.28)")
        check(verdicts["latency at most 1.6"]["met"] is True, "latency target")
        check(combined["targets_met"] == 3 and combined["targets_total"] == 4, "target tally")
        check("FAILED (exit 3) nvshmem init" in text, "failed run listed in the summary")
        check("NOT MET" in text and "[MET]" in text, "verdicts in the summary")
        check(combined["topology"] == "one PE per GPU" and "SHARE ONE GPU" not in text, "topology: one PE per GPU")

        # PEs sharing one GPU: said on top and in the JSON; absolute targets not judged, ratios are.
        out2 = os.path.join(tmp, "out-shared")
        text2, res2 = s.summarize(lst, tsv, out2, "abc123", "2025-01-01T00:00:00Z", "GPU 0: H200", shared_gpu=True)
        check("PEs SHARE ONE GPU" in text2.splitlines()[1], "shared GPU said on the summary's second line")
        check("SHARE ONE GPU" in res2["topology"], "shared GPU recorded in the JSON")
        v2 = {v["description"]: v for v in res2["targets"]}
        check(v2["put at least 300"]["judged"] is False and v2["put at least 300"]["met"] is None,
              "absolute target not judged with a shared GPU")
        check(v2["put 1.2x nvshmem at 1M"]["met"] is True, "ratio target still judged with a shared GPU")
        check(res2["targets_total"] == 1 and res2["targets_met"] == 1, "tally counts judged targets only")
        rows2 = {(r["id"], r["scope"], r["metric"], r["size"]): r for r in res2["rows"]}
        check(rows2[("put", "block", "BW", 2 * M)]["target_met"] is None, "row's absolute target not judged")
        check("N/A: PEs share one GPU" in text2, "n/a verdicts in the shared-GPU summary")

        # A target naming an id that no run has is an error.
        bad = os.path.join(tmp, "bad.list")
        with open(bad, "w") as f:
            f.write("a shmem_put_bw\n@target b block BW 1M >=1 nope\n")
        try:
            s.parse_list(bad)
            check(False, "a @target for an unknown id is refused")
        except ValueError:
            check(True, "a @target for an unknown id is refused")

    print(f"{passed} passed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
