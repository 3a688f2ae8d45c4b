#!/usr/bin/env python3
"""Overhead of `claudio ask "hi"` against `claude -p "hi"`: whole processes on
the same scripted Messages API, many alternating runs. Reports medians, the
added wall time, and peak RSS (claudio's own, and claudio + CLI against the
bare CLI).

usage: bench/overhead.py [RUNS=20]   (after `cargo build --release --bin claudio --example mock-api`)
"""
import json, os, statistics, subprocess, sys, tempfile, time

runs = int(sys.argv[1]) if len(sys.argv) > 1 else 20
root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
cli = os.environ.get("CLAUDIO_TEST_REAL_CLI") or os.path.expanduser(
    "~/.cache/claudio/claude-code-2.1.328/node_modules/.bin/claude")
claudio = os.path.join(root, "target/release/claudio")
mock = subprocess.Popen([os.path.join(root, "target/release/examples/mock-api")], stdout=subprocess.PIPE, text=True)
base = mock.stdout.readline().strip()
home = tempfile.mkdtemp()
work = tempfile.mkdtemp()
env = dict(os.environ, ANTHROPIC_BASE_URL=base, ANTHROPIC_API_KEY="x", HOME=home,
           CLAUDE_CONFIG_DIR=os.path.join(home, ".claude"),
           CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1", DISABLE_AUTOUPDATER="1",
           CLAUDIO_CLI=cli, XDG_CONFIG_HOME=os.path.join(home, ".config"))

def hwm(pid):
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0

def children(pid):
    # children are listed per thread; claudio forks from a spawner thread
    out = []
    try:
        for tid in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{tid}/children") as f:
                out += [int(x) for x in f.read().split()]
    except OSError:
        pass
    return out

def run(argv):
    """wall seconds, own peak RSS (KB), peak RSS of the child CLI (KB), seconds to stdout EOF"""
    import threading
    t = time.perf_counter()
    p = subprocess.Popen(argv, env=env, cwd=work, stdin=subprocess.DEVNULL,
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    eof = []
    reader = threading.Thread(target=lambda: (p.stdout.read(), eof.append(time.perf_counter() - t)))
    reader.start()
    own, kid = 0, {}
    while p.poll() is None:
        own = max(own, hwm(p.pid))
        for c in children(p.pid):
            kid[c] = max(kid.get(c, 0), hwm(c))
        time.sleep(0.002)
    wall = time.perf_counter() - t
    reader.join()
    assert p.returncode == 0, (argv, p.returncode)
    return wall, own, max(kid.values(), default=0), eof[0]

bare, ours = [], []
try:
    for i in range(runs):
        bare.append(run([cli, "-p", "hi"]))
        ours.append(run([claudio, "ask", "hi"]))
finally:
    mock.kill()
med = lambda xs: statistics.median(xs)
b_wall, o_wall = med([r[0] for r in bare]), med([r[0] for r in ours])
b_rss = med([r[1] for r in bare])
o_own = med([r[1] for r in ours])
o_cli = med([r[2] for r in ours])
print(json.dumps({
    "runs": runs,
    "claude_p_wall_ms": round(b_wall * 1000, 1),
    "claudio_ask_wall_ms": round(o_wall * 1000, 1),
    "added_wall_ms": round((o_wall - b_wall) * 1000, 1),
    "claude_p_output_eof_ms": round(med([r[3] for r in bare]) * 1000, 1),
    "claudio_ask_output_eof_ms": round(med([r[3] for r in ours]) * 1000, 1),
    "wall_ratio": round(o_wall / b_wall, 3),
    "claude_p_peak_rss_mb": round(b_rss / 1024, 1),
    "claudio_own_peak_rss_mb": round(o_own / 1024, 1),
    "claudio_plus_cli_peak_rss_mb": round((o_own + o_cli) / 1024, 1),
    "added_rss_mb": round((o_own + o_cli - b_rss) / 1024, 1),
}))
