#!/usr/bin/env bash
# Usage across the big store (bench/gen_store.py): `claudio sessions usage
# --all --json` beside `rg -c '"usage"'` over the same folder, warm cache,
# wall time and peak RSS (medians).
#
#   bench/usage.sh [SESSIONS=10000] [TOTAL_GB=2] [RUNS=5]
# ripgrep: `pip install ripgrep` or `cargo install ripgrep` (`rg` on PATH).
set -euo pipefail
cd "$(dirname "$0")/.."
n="${1:-10000}"; gb="${2:-2}"; runs="${3:-5}"
store="${CLAUDIO_BENCH_DIR:-/tmp/claudio-bench}/store-$n"
[ -d "$store/projects" ] || python3 bench/gen_store.py "$store" "$n" "$gb"
cargo build --release --quiet --bin claudio
python3 - "$store" "$runs" <<'PY'
import json, os, shutil, statistics, subprocess, sys, time
store, runs = sys.argv[1], int(sys.argv[2])
env = dict(os.environ, CLAUDE_CONFIG_DIR=store)
timer = ["/usr/bin/time", "-f", "%M"] if os.path.exists("/usr/bin/time") else []
def measure(argv):
    walls, rss = [], []
    for i in range(runs + 1):  # the first run warms the cache
        t = time.perf_counter()
        p = subprocess.run(timer + argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        if i:
            walls.append(time.perf_counter() - t)
            if timer:
                rss.append(int(p.stderr.decode().strip().splitlines()[-1]) / 1024)
    out = {"ms": round(statistics.median(walls) * 1000)}
    if rss:
        out["peak_rss_mb"] = round(statistics.median(rss), 1)
    return out
res = {"claudio sessions usage --all --json": measure(["target/release/claudio", "sessions", "usage", "--all", "--json"])}
if shutil.which("rg"):
    res["rg -c '\"usage\"'"] = measure(["rg", "-c", '"usage"', os.path.join(store, "projects")])
print(json.dumps(res, indent=1))
PY
