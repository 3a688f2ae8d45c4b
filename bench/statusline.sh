#!/usr/bin/env bash
# `claudio statusline` (what Claude Code runs after every message) beside
# `claudio sessions usage --all --json` over the big store (bench/gen_store.py),
# warm cache, wall time and peak RSS (medians). The goal (#32): the status
# line under a fifth of `sessions usage --all`.
#
#   bench/statusline.sh [SESSIONS=10000] [TOTAL_GB=2] [RUNS=5] [TODAY=20]
#
# TODAY sessions are made "written today" for the run (their mtime set to
# now, and put back after), so the status line reads them for today's cost
# and the 5-hour window, as it would on a day of work; the rest are stat'ed
# only. The status JSON is the shape Claude Code gives a statusLine command.
#
# The usage index is in a cache folder of the run's own, filled (every
# transcript) by the `sessions usage --all` runs; the status line is timed
# with it and without it (`CLAUDIO_CACHE_DIR=off`): with it must never be
# slower. CLAUDIO_BIN times another build of claudio.
#
# With CCUSAGE naming ccusage 20 (see bench/usage.sh), or `ccusage` on
# PATH, then its `statusline` (offline prices, its own cache warm, the same
# TODAY transcripts written today) beside claudio's, side by side
# (A, B, A, B, ...; the median of the pairs' wall-time ratios, and the
# ratio of the median CPU times): the goal of #44 is claudio's always fresh
# line in no more than ccusage's cached time, printed last as
# "CPU time / ccusage's cached line". That figure is `claudio-statusline`'s,
# the status line as a program of its own (beside CLAUDIO_BIN), which is
# what README sets as the `statusLine` command; `claudio statusline` is
# paired with ccusage's native binary too.
# ccusage's cached line is its native binary's (the `ccusage` command is a
# Node launcher that starts it): that binary is paired too, called
# directly (CCUSAGE_NATIVE, else found beside the launcher).
set -euo pipefail
cd "$(dirname "$0")/.."
n="${1:-10000}"; gb="${2:-2}"; runs="${3:-5}"; today="${4:-20}"
store="${CLAUDIO_BENCH_DIR:-/tmp/claudio-bench}/store-$n"
[ -d "$store/projects" ] || python3 bench/gen_store.py "$store" "$n" "$gb"
bin="${CLAUDIO_BIN:-target/release/claudio}"
[ -n "${CLAUDIO_BIN:-}" ] || cargo build --release --quiet --bin claudio --bin claudio-statusline
python3 - "$store" "$runs" "$today" "$bin" <<'PY'
import glob, json, os, shutil, statistics, subprocess, sys, tempfile, time
store, runs, today, exe = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
scratch = tempfile.mkdtemp(prefix="claudio-statusline-bench-")
env = dict(os.environ, CLAUDE_CONFIG_DIR=store, NO_COLOR="1", CLAUDIO_CACHE_DIR=scratch)
timer = ["/usr/bin/time", "-f", "%M"] if os.path.exists("/usr/bin/time") else []
files = sorted(glob.glob(os.path.join(store, "projects", "*", "*.jsonl")))
recent = files[:: max(1, len(files) // max(today, 1))][:today]
saved = {p: os.stat(p) for p in recent}
session = recent[0] if recent else files[0]
status = json.dumps({
    "hook_event_name": "Status",
    "session_id": os.path.basename(session)[:-6],
    "transcript_path": session,
    "cwd": os.getcwd(),
    "model": {"id": "claude-sonnet-4-5-20250929", "display_name": "Sonnet 4.5"},
    "workspace": {"current_dir": os.getcwd(), "project_dir": os.getcwd()},
    "version": "2.1.332",
    "output_style": {"name": "default"},
    "cost": {"total_cost_usd": 1.25, "total_duration_ms": 60000, "total_api_duration_ms": 30000,
             "total_lines_added": 0, "total_lines_removed": 0},
    "context_window": {"total_input_tokens": 50000, "total_output_tokens": 2000,
                       "context_window_size": 200000, "used_percentage": 26,
                       "remaining_percentage": 74,
                       "current_usage": {"input_tokens": 2000, "output_tokens": 500,
                                         "cache_creation_input_tokens": 1000,
                                         "cache_read_input_tokens": 49000}},
    "exceeds_200k_tokens": False,
}).encode()
def measure(argv, stdin=None, env=env):
    walls, rss, out = [], [], b""
    for i in range(runs + 1):  # the first run warms the cache
        t = time.perf_counter()
        p = subprocess.run(timer + argv, env=env, input=stdin,
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        if i:
            walls.append(time.perf_counter() - t)
            if timer:
                rss.append(int(p.stderr.decode().strip().splitlines()[-1]) / 1024)
        out = p.stdout
    res = {"ms": round(statistics.median(walls) * 1000, 1)}
    if rss:
        res["peak_rss_mb"] = round(statistics.median(rss), 1)
    return res, out
try:
    now = time.time()
    for p in recent:
        os.utime(p, (now, now))
    usage, _ = measure([exe, "sessions", "usage", "--all", "--json"])
    time.sleep(3.5)  # past the index's "changed lately" window
    # with and without the index in turn, so that both see the same load
    line, off, out, out_off = [], [], b"", b""
    for _ in range(3):
        r, out = measure([exe, "statusline"], status)
        line.append(r)
        r, out_off = measure([exe, "statusline"], status, dict(env, CLAUDIO_CACHE_DIR="off"))
        off.append(r)
    assert out == out_off, (out, out_off)
    small_exe = os.path.join(os.path.dirname(exe), "claudio-statusline")
    if os.path.exists(small_exe):
        # the status line's own program prints the same line
        out_small = subprocess.run([small_exe], env=env, input=status, stdout=subprocess.PIPE).stdout
        assert out_small == out, (out_small, out)
    # beside ccusage's statusline, with the same transcripts written today
    ccusage = os.environ.get("CCUSAGE") or shutil.which("ccusage")
    paired = paired_native = paired_small = None
    small = os.path.join(os.path.dirname(exe), "claudio-statusline")
    if ccusage:
        sf = os.path.join(scratch, "status.json")
        with open(sf, "wb") as f:
            f.write(status)
        pair_env = json.dumps({"CLAUDE_CONFIG_DIR": store, "CLAUDIO_CACHE_DIR": scratch,
                               "NO_COLOR": "1"})
        p = subprocess.run(["python3", "bench/pair.py", str(runs), pair_env, "--stdin", sf,
                            "--", exe, "statusline", "--vs", ccusage, "statusline", "--offline"],
                           stdout=subprocess.PIPE, check=True)
        paired = json.loads(p.stdout)
        # ccusage's cached line is its native binary's: the Node launcher
        # that `ccusage` is starts it. Like for like: the binary itself
        # (CCUSAGE_NATIVE, else the platform package beside the launcher)
        native = os.environ.get("CCUSAGE_NATIVE")
        if not native:
            real = os.path.realpath(ccusage)
            mods = real[: real.rfind("node_modules") + len("node_modules")] if "node_modules" in real else ""
            found = sorted(glob.glob(os.path.join(mods, "@ccusage", "ccusage-*", "bin", "ccusage"))) if mods else []
            native = found[0] if found else None
        if native:
            p = subprocess.run(["python3", "bench/pair.py", str(runs), pair_env, "--stdin", sf,
                                "--", exe, "statusline", "--vs", native, "statusline", "--offline"],
                               stdout=subprocess.PIPE, check=True)
            paired_native = json.loads(p.stdout)
            if os.path.exists(small):
                p = subprocess.run(["python3", "bench/pair.py", str(runs), pair_env, "--stdin", sf,
                                    "--", small, "--vs", native, "statusline", "--offline"],
                                   stdout=subprocess.PIPE, check=True)
                paired_small = json.loads(p.stdout)
    line = {k: statistics.median(r[k] for r in line) for k in line[0]}
    off = {k: statistics.median(r[k] for r in off) for k in off[0]}
finally:
    for p, st in saved.items():
        os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns))
    index = os.path.join(scratch, "usage-index")
    index_kb = round(os.path.getsize(index) / 1024) if os.path.exists(index) else 0
    shutil.rmtree(scratch, ignore_errors=True)
res = {
    f"claudio sessions usage --all --json (index warm, {index_kb} KiB)": usage,
    f"claudio statusline ({len(recent)} of {len(files)} written today)": line,
    "claudio statusline, no index": off,
    "ratio": round(line["ms"] / usage["ms"], 3),
    "line": out.decode(errors="replace").strip(),
}
if paired is not None:
    res["statusline / ccusage statusline --offline (paired)"] = paired
if paired_native is not None:
    res["statusline / ccusage's native binary, statusline --offline (paired)"] = paired_native
if paired_small is not None:
    res["claudio-statusline / ccusage's native binary, statusline --offline (paired)"] = paired_small
    # #44: claudio's always fresh line in no more than ccusage's cached one
    res["CPU time / ccusage's cached line (goal: at most 1)"] = paired_small["cpu_ratio"]
print(json.dumps(res, indent=1, ensure_ascii=False))
PY
