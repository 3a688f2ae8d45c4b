#!/usr/bin/env bash
# Stream throughput: a fake CLI pours a long turn (stream_event deltas and
# assistant messages) into `claudio ask`; MB/s for -o text and -o stream-json,
# beside the raw speed of parsing the same lines with serde_json alone, and
# beside the bare pipe (the fake CLI pouring the same turn into `cat`; the
# goal of #44: -o text within 1.3x of it, the medians of RUNS each).
#
#   bench/throughput.sh [MEGABYTES=200] [RUNS=3]
set -euo pipefail
cd "$(dirname "$0")/.."
mb="${1:-200}"
runs="${2:-3}"
dir="${CLAUDIO_BENCH_DIR:-/tmp/claudio-bench}"
mkdir -p "$dir"
data="$dir/stream-v2-$mb.ndjson"  # v2: the real CLI's fields and order
[ -f "$data" ] || python3 bench/gen_stream.py "$data" "$mb"
cargo build --release --quiet --bin claudio --example fake-claude --example bench-parse
bytes=$(stat -c %s "$data")
scenario="$dir/scenario-$mb.json"
cat > "$scenario" <<JSON
[{"expect":{"type":"control_request","request":{"subtype":"initialize"}},"as":"init"},
 {"emit":{"type":"control_response","response":{"subtype":"success","request_id":"{{init}}","response":{}}}},
 {"expect":{"type":"user"}},
 {"emit_file":"$data"}]
JSON
export CLAUDIO_CLI="$PWD/target/release/examples/fake-claude" FAKE_CLAUDE_SCENARIO="$scenario"

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
measure() { # format -> median seconds
  for _ in $(seq "$runs"); do
    python3 - "$@" <<'PY'
import subprocess, sys, time
t = time.perf_counter()
r = subprocess.run(["target/release/claudio", "ask", "-o", sys.argv[1], "go"],
                   stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
assert r.returncode == 0, r.returncode
print(time.perf_counter() - t)
PY
  done | median
}
# the bare pipe: the same fake CLI, given what claudio sends it first (the
# initialize request, a prompt), pouring the same turn into `cat`
bare() {
  for _ in $(seq "$runs"); do
    python3 - <<'PY'
import os, subprocess, time
hello = (b'{"type":"control_request","request_id":"bench-1","request":{"subtype":"initialize"}}\n'
         b'{"type":"user","message":{"role":"user","content":"go"}}\n')
t = time.perf_counter()
cat = subprocess.Popen(["cat"], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL)
cli = subprocess.Popen([os.environ["CLAUDIO_CLI"]], stdin=subprocess.PIPE, stdout=cat.stdin)
cat.stdin.close()
cli.communicate(hello)
cat.wait()
assert cli.returncode == 0 and cat.returncode == 0, (cli.returncode, cat.returncode)
print(time.perf_counter() - t)
PY
  done | median
}
text_s=$(measure text)
bare_s=$(bare)
sj_s=$(measure stream-json)
raw=$(target/release/examples/bench-parse "$data")
python3 - "$bytes" "$text_s" "$sj_s" "$raw" "$bare_s" <<'PY'
import json, sys
b, t, s, raw = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3]), json.loads(sys.argv[4])
bare = float(sys.argv[5])
mbs = lambda sec: b / 1e6 / sec
print(json.dumps({
  "bytes": b,
  "ask_text_mb_s": round(mbs(t), 1),
  "ask_stream_json_mb_s": round(mbs(s), 1),
  "raw_serde_value_mb_s": raw["raw_value_mb_s"],
  "claudio_parse_mb_s": raw["claudio_parse_mb_s"],
  "text_vs_raw_parse": round(raw["raw_value_mb_s"] / mbs(t), 2),
  "bare_pipe_mb_s": round(mbs(bare), 1),
  # the goal of #44: ask -o text within 1.3x the bare pipe's time
  "text_vs_bare_pipe": round(t / bare, 2),
}))
PY
