#!/usr/bin/env bash
# Usage across the big store (bench/gen_store.py): `claudio sessions usage
# --all --json` beside `rg -c '"usage"'` over the same folder, the page
# cache warm, wall time (best of RUNS, and the median) and peak RSS:
#   - index warm: the usage index (in a cache folder of its own) is current;
#   - index cold: no index yet (a new cache folder each run: every transcript
#     read, and the index written);
#   - no index: `CLAUDIO_CACHE_DIR=off` (a relative path turns it off).
# The goal of #32: index warm under half of ripgrep's time.
#
# Then, side by side (bench/pair.py: A, B, A, B, ...; the median of the
# pairs' ratios), the first run (no index yet: a new cache folder each run)
# beside ccusage's `daily` (ccusage 20 with its native binary, offline
# prices), if CCUSAGE names it or `ccusage` is on PATH:
#   npm --prefix /tmp/ccusage install ccusage@20.0.24 @ccusage/ccusage-linux-x64@20.0.24
#   CCUSAGE=/tmp/ccusage/node_modules/.bin/ccusage bench/usage.sh
# The goal of #44: at most 0.3. Then the floor beside the same ccusage
# run: ripgrep counting the usage lines, every byte of the store read once,
# as a first run must (no index yet tells what holds usage).
#
#   bench/usage.sh [SESSIONS=10000] [TOTAL_GB=2] [RUNS=3]
# ripgrep: `pip install ripgrep` or `cargo install ripgrep` (`rg` on PATH).
set -euo pipefail
cd "$(dirname "$0")/.."
n="${1:-10000}"; gb="${2:-2}"; runs="${3:-3}"
store="${CLAUDIO_BENCH_DIR:-/tmp/claudio-bench}/store-$n"
[ -d "$store/projects" ] || python3 bench/gen_store.py "$store" "$n" "$gb"
cargo build --release --quiet --bin claudio
python3 - "$store" "$runs" <<'PY'
import json, os, shutil, statistics, subprocess, sys, tempfile, time
store, runs = sys.argv[1], int(sys.argv[2])
base = dict(os.environ, CLAUDE_CONFIG_DIR=store)
timer = ["/usr/bin/time", "-f", "%M"] if os.path.exists("/usr/bin/time") else []
scratch = tempfile.mkdtemp(prefix="claudio-usage-bench-")
def measure(argv, env_of=lambda i: base):
    walls, rss = [], []
    for i in range(runs + 1):  # the first run warms the page cache (and the index)
        env = env_of(i)
        t = time.perf_counter()
        p = subprocess.run(timer + argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        if p.returncode != 0:
            sys.exit(f"{argv} failed: {p.stderr.decode()[-500:]}")
        if i:
            walls.append(time.perf_counter() - t)
            if timer:
                rss.append(int(p.stderr.decode().strip().splitlines()[-1]) / 1024)
    out = {"best_ms": round(min(walls) * 1000), "median_ms": round(statistics.median(walls) * 1000)}
    if rss:
        out["peak_rss_mb"] = round(statistics.median(rss), 1)
    return out
usage = ["target/release/claudio", "sessions", "usage", "--all", "--json"]
warm_dir = os.path.join(scratch, "warm")
res = {}
res["claudio sessions usage --all --json (index warm)"] = measure(
    usage, lambda i: dict(base, CLAUDIO_CACHE_DIR=warm_dir))
res["claudio sessions usage --all --json (index cold)"] = measure(
    usage, lambda i: dict(base, CLAUDIO_CACHE_DIR=os.path.join(scratch, f"cold-{i}")))
res["claudio sessions usage --all --json (no index)"] = measure(
    usage, lambda i: dict(base, CLAUDIO_CACHE_DIR="off"))
index = os.path.join(warm_dir, "usage-index")
if os.path.exists(index):
    res["index size (MB)"] = round(os.path.getsize(index) / 1e6, 2)
if shutil.which("rg"):
    rg = measure(["rg", "-c", '"usage"', os.path.join(store, "projects")])
    res["rg -c '\"usage\"'"] = rg
    warm = res["claudio sessions usage --all --json (index warm)"]["best_ms"]
    res["index warm / rg (best of runs)"] = round(warm / max(rg["best_ms"], 1), 3)
shutil.rmtree(scratch, ignore_errors=True)
print(json.dumps(res, indent=1))
PY
ccusage="${CCUSAGE:-$(command -v ccusage || true)}"
if [ -n "$ccusage" ]; then
  scratch="$(mktemp -d)"; trap 'rm -rf "$scratch"' EXIT
  echo "first run / ccusage daily: $(python3 bench/pair.py "$runs" "{\"CLAUDE_CONFIG_DIR\": \"$store\"}" -- "CLAUDIO_CACHE_DIR=$scratch/cold-{n}" target/release/claudio sessions usage --all --json --vs "$ccusage" daily --offline --json)"
  # the floor of a first run: every byte of the store read once (ripgrep
  # counting the usage lines), beside the same ccusage run
  if command -v rg >/dev/null; then
    echo "floor, rg -c '\"usage\"' / ccusage daily: $(python3 bench/pair.py "$runs" "{\"CLAUDE_CONFIG_DIR\": \"$store\"}" -- rg -c -F '"usage"' "$store/projects" --vs "$ccusage" daily --offline --json)"
  fi
fi
