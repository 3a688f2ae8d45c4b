#!/usr/bin/env python3
"""One line of many blocks: an `assistant` line holding N text blocks (300,000
make about 11 MB) passes through `claudio ask` (-o text, -o stream-json) and
the chat (on a pseudo-terminal). Peak RSS (ru_maxrss of claudio and the fake
CLI it reaped) is reported against the line's size, above the same run with
a line of one block. Budget: 3x the line (issue 39, item 6).

usage: bench/manyblocks.py [BLOCKS=300000] [--block JSON] [--no-chat]
  (after `cargo build --release --bin claudio --example fake-claude`;
   CLAUDIO_TARGET=debug takes target/debug instead)
"""
import fcntl, json, os, pty, select, struct, subprocess, sys, tempfile, termios, time

argv = sys.argv[1:]
TEXT = "block of text "
BLOCK = {"type": "text", "text": TEXT}
if "--block" in argv:
    i = argv.index("--block")
    BLOCK = json.loads(argv[i + 1])
    del argv[i : i + 2]
args = [a for a in argv if not a.startswith("--")]
blocks = int(args[0]) if args else 300_000
root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
target = os.path.join(root, "target", os.environ.get("CLAUDIO_TARGET", "release"))
d = tempfile.mkdtemp()


def scenario(n):
    path = os.path.join(d, f"scenario-{n}.json")
    with open(path, "w") as f:
        json.dump([
            {"expect": {"type": "control_request", "request": {"subtype": "initialize"}}, "as": "init"},
            {"emit": {"type": "control_response", "response": {"subtype": "success", "request_id": "{{init}}", "response": {"commands": [], "models": []}}}},
            {"expect": {"type": "user"}},
            {"many_blocks": {"count": n, "block": BLOCK}},
            {"emit": {"type": "result", "subtype": "success", "is_error": False, "result": "ok", "session_id": "fake-session"}},
        ], f)
    return path


def env(n):
    home = os.path.join(d, "home")
    os.makedirs(home, exist_ok=True)
    return dict(os.environ, CLAUDIO_CLI=os.path.join(target, "examples/fake-claude"),
                FAKE_CLAUDE_SCENARIO=scenario(n), XDG_CONFIG_HOME=d, HOME=home,
                XDG_DATA_HOME=home, CLAUDIO_ARCHIVE_DIR=os.path.join(d, "archive"))


def peak(p):
    _, status, ru = os.wait4(p.pid, 0)
    code = os.waitstatus_to_exitcode(status)
    assert code == 0, f"exit {code}"
    return ru.ru_maxrss * 1024


def ask(n, fmt):
    p = subprocess.Popen([os.path.join(target, "claudio"), "ask", "-o", fmt, "go"], env=env(n),
                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
    return peak(p)


def chat(n):
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 40, 100, 0, 0))
    p = subprocess.Popen([os.path.join(target, "claudio")], env=dict(env(n), TERM="xterm-256color"),
                         stdin=slave, stdout=slave, stderr=slave, start_new_session=True,
                         preexec_fn=lambda: fcntl.ioctl(0, termios.TIOCSCTTY, 0))
    os.close(slave)
    seen = b""

    def until(needle, secs=300):
        nonlocal seen
        end = time.time() + secs
        while needle not in seen:
            assert time.time() < end, f"never saw {needle!r} in {seen[-300:]!r}"
            r, _, _ = select.select([master], [], [], 0.5)
            if r:
                try:
                    chunk = os.read(master, 1 << 16)
                except OSError:
                    break
                seen += chunk
                if b"\x1b[6n" in chunk:
                    os.write(master, b"\x1b[1;1R")
        seen = seen[seen.index(needle) + len(needle):]

    until(b"Ctrl-D exits", 30)
    os.write(master, b"go\r")
    if BLOCK.get("text") == TEXT:
        until(b"block of text", 600)
    # the answer is over when the prompt is back
    until(b"\xe2\x80\xba", 600)
    os.write(master, b"\x04")
    drain = time.time() + 60
    while time.time() < drain:
        r, _, _ = select.select([master], [], [], 0.5)
        if r:
            try:
                if not os.read(master, 1 << 16):
                    break
            except OSError:
                break
        if p.poll() is not None:
            break
    return peak(p)


line = len(json.dumps(BLOCK, separators=(",", ":"))) * blocks + blocks
out = {"blocks": blocks, "line_mb": round(line / 1e6, 1)}
runs = [("text", lambda n: ask(n, "text")), ("stream-json", lambda n: ask(n, "stream-json"))]
if "--no-chat" not in sys.argv:
    runs.append(("chat", chat))
for name, run in runs:
    base, big = run(1), run(blocks)
    out[f"{name}_peak_rss_mb"] = round(big / 1e6, 1)
    out[f"{name}_over_line"] = round((big - base) / line, 2)
print(json.dumps(out))
