#!/usr/bin/env python3
"""Render latency: from a delta's write on the CLI's stdout to its bytes on
our stdout (a pty), p50 and p99, for `claudio ask`. Budget: p99 under 1 ms.

usage: bench/latency.py [DELTAS=500]   (after `cargo build --release --bin claudio --example fake-claude`)
"""
import json, os, pty, re, select, subprocess, sys, tempfile, time

n = int(sys.argv[1]) if len(sys.argv) > 1 else 500
root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
d = tempfile.mkdtemp()
log = os.path.join(d, "times")
scenario = os.path.join(d, "scenario.json")
with open(scenario, "w") as f:
    json.dump([
        {"expect": {"type": "control_request", "request": {"subtype": "initialize"}}, "as": "init"},
        {"emit": {"type": "control_response", "response": {"subtype": "success", "request_id": "{{init}}", "response": {}}}},
        {"expect": {"type": "user"}},
        {"timed_deltas": {"count": n, "interval_ms": 5, "log": log}},
        {"emit": {"type": "result", "subtype": "success", "is_error": False, "result": "ok", "session_id": "s"}},
    ], f)
env = dict(os.environ, CLAUDIO_CLI=os.path.join(root, "target/release/examples/fake-claude"),
           FAKE_CLAUDE_SCENARIO=scenario, XDG_CONFIG_HOME=d)
master, slave = pty.openpty()
p = subprocess.Popen([os.path.join(root, "target/release/claudio"), "ask", "go"], env=env,
                     stdin=subprocess.DEVNULL, stdout=slave, stderr=subprocess.DEVNULL)
os.close(slave)
seen, buf = {}, b""
pat = re.compile(rb"<(\d+)>\|")
while True:
    r, _, _ = select.select([master], [], [], 10)
    if not r:
        break
    try:
        chunk = os.read(master, 65536)
    except OSError:
        break
    if not chunk:
        break
    now = time.monotonic_ns()
    buf += chunk
    for m in pat.finditer(buf):
        seen.setdefault(int(m.group(1)), now)
    buf = buf[-16:]
p.wait()
sent = [int(x) for x in open(log).read().split()]
lat = sorted((seen[i] - sent[i]) / 1e6 for i in range(len(sent)) if i in seen)
q = lambda x: lat[min(len(lat) - 1, int(x * len(lat)))]
print(json.dumps({"deltas": len(lat), "p50_ms": round(q(0.50), 3), "p99_ms": round(q(0.99), 3), "max_ms": round(lat[-1], 3)}))
