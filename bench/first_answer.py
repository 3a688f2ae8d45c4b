#!/usr/bin/env python3
"""The chat's prompt → first answer on screen, against the real CLI and the
scripted API, beside the floor: the same CLI driven bare over stream-json
(a user line written → the first text delta read).

usage: bench/first_answer.py CLAUDE [PROMPTS=15]
  (after `cargo build --release --bin claudio --example mock-api`;
   CLAUDIO_BIN / MOCK_API point at other builds)

Prints JSON: each side's median and p90 in ms, and the ratio of medians.
Both sides talk to the same scripted API in the same run, one warm session
each (the first prompt of each is left out: the CLI loads lazily then).
"""
import fcntl, json, os, pty, select, statistics, struct, subprocess, sys, tempfile, termios, time

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
cli = os.path.abspath(os.path.expanduser(sys.argv[1]))
n = int(sys.argv[2]) if len(sys.argv) > 2 else 15
claudio = os.path.abspath(os.environ.get("CLAUDIO_BIN", os.path.join(root, "target/release/claudio")))
mock = os.environ.get("MOCK_API", os.path.join(root, "target/release/examples/mock-api"))

d = tempfile.mkdtemp(prefix="first-answer.")
home, proj = os.path.join(d, "home"), os.path.join(d, "proj")
os.makedirs(home)
os.makedirs(proj)
script = os.path.join(d, "script.json")
# answers for both sides, plus spares for the CLI's own side calls (titles)
with open(script, "w") as f:
    json.dump([{"text": f"answer-{i:03d} done"} for i in range(4 * n + 20)], f)
api = subprocess.Popen([mock, script], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
url = api.stdout.readline().strip()
env = dict(os.environ, HOME=home, ANTHROPIC_BASE_URL=url, ANTHROPIC_API_KEY="x",
           CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1", DISABLE_AUTOUPDATER="1",
           CLAUDIO_CLI=cli, XDG_CONFIG_HOME=os.path.join(d, "config"),
           XDG_RUNTIME_DIR=os.path.join(d, "run"), TERM="xterm-256color")


def read_until(fd, marker, buf, deadline=30):
    end = time.monotonic() + deadline
    while marker not in buf:
        left = end - time.monotonic()
        if left <= 0:
            raise SystemExit(f"timed out waiting for {marker!r}; last bytes {buf[-300:]!r}")
        r, _, _ = select.select([fd], [], [], left)
        if r:
            chunk = os.read(fd, 65536)
            if not chunk:
                raise SystemExit(f"closed while waiting for {marker!r}")
            buf += chunk
    return buf


def chat():
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 30, 100, 0, 0))
    p = subprocess.Popen([claudio], env=env, cwd=proj, stdin=slave, stdout=slave, stderr=slave,
                         preexec_fn=lambda: (os.setsid(), fcntl.ioctl(0, termios.TIOCSCTTY, 0)))
    os.close(slave)
    buf = read_until(master, "›".encode(), b"")
    if b"Do you trust" in buf:  # the folder's trust question, first of all
        os.write(master, b"y\r")
        buf = read_until(master, "› ".encode(), b"")
    times = []
    for i in range(n + 1):
        buf = b""
        t0 = time.monotonic()
        os.write(master, f"say {i}\r".encode())
        buf = read_until(master, b"answer-", buf)
        times.append((time.monotonic() - t0) * 1000)
        buf = read_until(master, b"session", buf)  # the turn's rule
        # the next prompt, drawn after the rule (the echo of this one is
        # before it)
        buf = read_until(master, "› ".encode(), buf[buf.rindex(b"session"):])
    os.write(master, b"\x04")  # the instant the prompt is drawn
    end = time.monotonic() + 20
    while p.poll() is None and time.monotonic() < end:  # drain until it exits
        if select.select([master], [], [], 0.1)[0]:
            try:
                buf += os.read(master, 65536)
            except OSError:
                break
    try:
        p.wait(timeout=20)
    except subprocess.TimeoutExpired:
        p.kill()
        raise SystemExit(f"the chat did not exit on Ctrl-D; it wrote {buf[-400:]!r}")
    if p.wait(timeout=5) != 0:
        raise SystemExit(f"the chat exited {p.returncode}")
    os.close(master)
    return times[1:]


def bare():
    p = subprocess.Popen([cli, "--output-format", "stream-json", "--input-format", "stream-json",
                          "--verbose", "--include-partial-messages"], env=env, cwd=proj,
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    times = []
    for i in range(n + 1):
        line = {"type": "user", "message": {"role": "user", "content": f"say {i}"},
                "parent_tool_use_id": None, "session_id": ""}
        t0 = time.monotonic()
        p.stdin.write((json.dumps(line) + "\n").encode())
        p.stdin.flush()
        first = None
        for raw in p.stdout:
            if first is None and b"answer-" in raw:
                first = (time.monotonic() - t0) * 1000
            if b'"result"' in raw and json.loads(raw).get("type") == "result":
                break
        times.append(first)
    p.stdin.close()
    p.wait(timeout=20)
    return times[1:]


try:
    b = bare()
    c = chat()
finally:
    api.kill()
q = lambda xs, x: sorted(xs)[min(len(xs) - 1, int(x * len(xs)))]
out = {
    "prompts": n,
    "bare_cli_ms": {"median": round(statistics.median(b), 1), "p90": round(q(b, 0.9), 1)},
    "chat_ms": {"median": round(statistics.median(c), 1), "p90": round(q(c, 0.9), 1)},
    "ratio": round(statistics.median(c) / statistics.median(b), 2),
}
print(json.dumps(out))
