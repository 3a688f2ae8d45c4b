#!/usr/bin/env bash
# `claudio deck hook` with no deck running: what every permission request of
# a claude TUI costs once `claudio deck hooks install` put the hook in its
# settings. It must print nothing and exit 0 at once, so the TUI shows its
# own dialog as before. Goal (#42): under 15 ms (median wall time, warm
# cache), beside `true` (a process's own floor on this machine).
#
#   bench/deck_hook.sh [RUNS=200]
#
# The socket's folder is a private folder of the run's own with no socket
# in it (the usual case: no deck), then one with a socket nobody listens on
# (a deck that died). CLAUDIO_BIN times another build of claudio.
set -euo pipefail
cd "$(dirname "$0")/.."
runs="${1:-200}"
bin="${CLAUDIO_BIN:-target/release/claudio}"
[ -n "${CLAUDIO_BIN:-}" ] || cargo build --release --quiet --bin claudio
python3 - "$runs" "$bin" <<'PY'
import json, os, socket, statistics, subprocess, sys, tempfile, time
runs, exe = int(sys.argv[1]), sys.argv[2]
request = json.dumps({
    "session_id": "0b5e2d0e-2a47-4b55-9c1e-3f2b3c4d5e6f",
    "transcript_path": "/tmp/none.jsonl",
    "cwd": os.getcwd(),
    "permission_mode": "default",
    "hook_event_name": "PermissionRequest",
    "tool_name": "Bash",
    "tool_input": {"command": "ls -la", "description": "List files"},
    "permission_suggestions": [{"type": "setMode", "mode": "acceptEdits", "destination": "session"}],
}).encode()
runtime = tempfile.mkdtemp(prefix="claudio-deck-bench-")
os.chmod(runtime, 0o700)
env = dict(os.environ, XDG_RUNTIME_DIR=runtime)

def timed(cmd, stdin):
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        p = subprocess.run(cmd, input=stdin, env=env, capture_output=True)
        times.append((time.perf_counter() - t) * 1000)
        if cmd[0] == exe and (p.returncode != 0 or p.stdout):
            sys.exit(f"the hook said something with no deck: {p.returncode} {p.stdout!r}")
    times.sort()
    return statistics.median(times), times[int(len(times) * 0.95) - 1]

floor = timed(["true"], b"")
print(f"true                        median {floor[0]:6.2f} ms  p95 {floor[1]:6.2f} ms")
no_dir = timed([exe, "deck", "hook"], request)
print(f"deck hook, no deck          median {no_dir[0]:6.2f} ms  p95 {no_dir[1]:6.2f} ms")
os.mkdir(os.path.join(runtime, "claudio"), 0o700)
s = socket.socket(socket.AF_UNIX)
s.bind(os.path.join(runtime, "claudio", "deck.sock"))
s.close()  # bound, never listening: connect is refused
dead = timed([exe, "deck", "hook"], request)
print(f"deck hook, dead deck socket median {dead[0]:6.2f} ms  p95 {dead[1]:6.2f} ms")
goal = 15.0
worst = max(no_dir[0], dead[0])
print(f"goal: median under {goal} ms: {'met' if worst < goal else 'NOT met'}")
PY
