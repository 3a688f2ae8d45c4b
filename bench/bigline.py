#!/usr/bin/env python3
"""Big lines: one tool-result line of N MB passes through `claudio ask`
(-o text and -o stream-json); peak RSS is reported against the line's size.
Budget: under 3x the line.

usage: bench/bigline.py [MEGABYTES=50]   (after `cargo build --release --bin claudio --example fake-claude`)
"""
import json, os, subprocess, sys, tempfile

mb = float(sys.argv[1]) if len(sys.argv) > 1 else 50
size = int(mb * 1_000_000)
root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
d = tempfile.mkdtemp()
scenario = os.path.join(d, "scenario.json")
with open(scenario, "w") as f:
    json.dump([
        {"expect": {"type": "control_request", "request": {"subtype": "initialize"}}, "as": "init"},
        {"emit": {"type": "control_response", "response": {"subtype": "success", "request_id": "{{init}}", "response": {}}}},
        {"expect": {"type": "user"}},
        {"huge_line": size},
        {"emit": {"type": "result", "subtype": "success", "is_error": False, "result": "ok", "session_id": "s"}},
    ], f)
env = dict(os.environ, CLAUDIO_CLI=os.path.join(root, "target/release/examples/fake-claude"),
           FAKE_CLAUDE_SCENARIO=scenario, XDG_CONFIG_HOME=d)
out = {"line_mb": mb}
for fmt in ["text", "stream-json"]:
    p = subprocess.Popen([os.path.join(root, "target/release/claudio"), "ask", "-o", fmt, "go"],
                         env=env, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    # ru_maxrss covers claudio and the fake CLI it reaped: the larger of the two
    out[f"{fmt}_peak_rss_mb"] = round(ru.ru_maxrss / 1024, 1)
    out[f"{fmt}_rss_over_line"] = round(ru.ru_maxrss * 1024 / size, 2)
print(json.dumps(out))
