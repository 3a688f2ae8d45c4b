#!/usr/bin/env bash
# Many background tasks: a fake CLI starts N of them (`task_started`, all
# backgrounded, each its own call), lists them all in one
# `background_tasks_changed`, ends each with a `task_notification`, then
# the turn's result; seconds `claudio ask -o stream-json` takes, per N.
# Quadratic bookkeeping shows as time growing 16x for 4x the tasks.
#
#   bench/tasks.sh [N...]   (default: 1000 4000 16000)
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -gt 0 ] || set -- 1000 4000 16000
dir="${CLAUDIO_BENCH_DIR:-/tmp/claudio-bench}"
mkdir -p "$dir"
cargo build --release --quiet --bin claudio --example fake-claude
export CLAUDIO_CLI="$PWD/target/release/examples/fake-claude"
for n in "$@"; do
  data="$dir/tasks-$n.ndjson"
  python3 - "$data" "$n" <<'PY'
import json, sys
path, n = sys.argv[1], int(sys.argv[2])
sid = "00000000-0000-4000-8000-000000000000"
with open(path, "w") as f:
    line = lambda v: f.write(json.dumps(v) + "\n")
    line({"type": "system", "subtype": "init", "session_id": sid, "model": "m",
          "tools": [], "cwd": "/", "permissionMode": "default"})
    for i in range(n):
        line({"type": "system", "subtype": "task_started", "task_id": f"t{i}",
              "tool_use_id": f"toolu_{i}", "description": f"task {i}",
              "task_type": "local_bash", "is_backgrounded": True, "session_id": sid})
    line({"type": "system", "subtype": "background_tasks_changed", "session_id": sid,
          "tasks": [{"task_id": f"t{i}", "task_type": "local_bash"} for i in range(n)]})
    for i in range(n):
        line({"type": "system", "subtype": "task_notification", "task_id": f"t{i}",
              "status": "completed", "summary": "done", "session_id": sid})
    line({"type": "result", "subtype": "success", "is_error": False, "result": "done",
          "session_id": sid, "num_turns": 1, "duration_ms": 1, "total_cost_usd": 0.0,
          "usage": {"input_tokens": 1, "output_tokens": 1}})
PY
  scenario="$dir/tasks-scenario-$n.json"
  cat > "$scenario" <<JSON
[{"expect":{"type":"control_request","request":{"subtype":"initialize"}},"as":"init"},
 {"emit":{"type":"control_response","response":{"subtype":"success","request_id":"{{init}}","response":{}}}},
 {"expect":{"type":"user"}},
 {"emit_file":"$data"}]
JSON
  FAKE_CLAUDE_SCENARIO="$scenario" python3 - "$n" <<'PY'
import json, subprocess, sys, time
t = time.perf_counter()
r = subprocess.run(["target/release/claudio", "ask", "-o", "stream-json", "hi"],
                   stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
assert r.returncode == 0, r.returncode
print(json.dumps({"tasks": int(sys.argv[1]), "seconds": round(time.perf_counter() - t, 3)}))
PY
done
