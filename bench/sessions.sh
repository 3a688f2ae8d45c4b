#!/usr/bin/env bash
# Session listing on a big store: `claudio sessions list --all --json`, warm
# cache, wall time and peak RSS (medians), beside the TypeScript SDK's
# listSessions() on the same store, and beside ripgrep reading each file
# once (`rg -l -F -m1 sessionId`: one read of 64 KiB a file; the listing
# reads both ends, or none for a transcript the listing index says is
# unchanged).
#
# Then the ratio to ripgrep, taken side by side (bench/pair.py: A, B, A,
# B, ...; the median of the pairs' ratios): with the listing index current
# (the goal of #44: at most 1.0), and without it (CLAUDIO_CACHE_DIR=off:
# every transcript's ends read, as a first listing does).
#
#   bench/sessions.sh [SESSIONS=10000] [TOTAL_GB=2] [RUNS=5]
set -euo pipefail
cd "$(dirname "$0")/.."
n="${1:-10000}"; gb="${2:-2}"; runs="${3:-5}"
store="${CLAUDIO_BENCH_DIR:-/tmp/claudio-bench}/store-$n"
[ -d "$store/projects" ] || python3 bench/gen_store.py "$store" "$n" "$gb"
cargo build --release --quiet --bin claudio
sdk="${CLAUDIO_TEST_AGENT_SDK:-${CLAUDIO_TEST_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/claudio}/agent-sdk/node_modules/@anthropic-ai/claude-agent-sdk}"
python3 - "$store" "$runs" "$sdk" <<'PY'
import json, os, statistics, subprocess, sys, time
store, runs, sdk = sys.argv[1], int(sys.argv[2]), sys.argv[3]
import tempfile
env = dict(os.environ, CLAUDE_CONFIG_DIR=store, CLAUDIO_CACHE_DIR=tempfile.mkdtemp(prefix="claudio-list-bench-"))
def measure(argv):
    walls, rss = [], []
    for i in range(runs + 1):  # the first run warms the cache
        t = time.perf_counter()
        p = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _, st, ru = os.wait4(p.pid, 0)
        if os.waitstatus_to_exitcode(st) != 0:
            return None, ru.ru_maxrss / 1024  # failed (the SDK runs out of memory on big stores)
        if i:
            walls.append(time.perf_counter() - t)
            rss.append(ru.ru_maxrss / 1024)
    return statistics.median(walls), statistics.median(rss)
ours = measure(["target/release/claudio", "sessions", "list", "--all", "--json"])
out = {"claudio_ms": round(ours[0] * 1000), "claudio_peak_rss_mb": round(ours[1], 1)}
import shutil
if shutil.which("rg"):
    rg = measure(["rg", "-l", "-F", "-m1", "sessionId", os.path.join(store, "projects")])
    out.update({"rg_l_m1_ms": round(rg[0] * 1000), "ratio_to_rg": round(ours[0] / rg[0], 2)})
if os.path.isfile(os.path.join(sdk, "sdk.mjs")):
    theirs = measure(["node", "tests/fixtures/sessions/list_sessions.mjs", sdk, "all"])
    if theirs[0] is None:
        out.update({"sdk": "failed", "sdk_peak_rss_mb_at_failure": round(theirs[1], 1)})
    else:
        out.update({"sdk_ms": round(theirs[0] * 1000), "sdk_peak_rss_mb": round(theirs[1], 1),
                    "speedup": round(theirs[0] / ours[0], 1)})
print(json.dumps(out))
PY
scratch="$(mktemp -d)"; trap 'rm -rf "$scratch"' EXIT
list=(target/release/claudio sessions list --all --json)
rg=(rg -l -F -m1 sessionId "$store/projects")
if command -v rg >/dev/null; then
  echo "index current / rg: $(python3 bench/pair.py "$runs" "{\"CLAUDE_CONFIG_DIR\": \"$store\", \"CLAUDIO_CACHE_DIR\": \"$scratch\"}" -- "${list[@]}" --vs "${rg[@]}")"
  echo "no index / rg:      $(python3 bench/pair.py "$runs" "{\"CLAUDE_CONFIG_DIR\": \"$store\"}" -- CLAUDIO_CACHE_DIR=off "${list[@]}" --vs "${rg[@]}")"
fi
