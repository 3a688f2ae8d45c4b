#!/usr/bin/env python3
"""Probe how the real CLI takes MCP servers and settings off its command line
(issue 30, item 1; notes in docs/cli-2.1.328-observed.md).

Usage: python3 scripts/probe-mcp-delivery.py CLAUDE_PATH MCP_ECHO_PATH

MCP_ECHO_PATH is the test server (`cargo build --example mcp-echo`:
target/debug/examples/mcp-echo). No model turn is run: ANTHROPIC_BASE_URL
points at a closed loopback port. Each CLI gets a throwaway HOME.
Prints one line per probe; the tokens are dummies.
"""
import json
import os
import select
import shutil
import subprocess
import sys
import tempfile
import time

CLI, ECHO = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])


def session(extra_args, init_fields, after=None):
    home, work = tempfile.mkdtemp(), tempfile.mkdtemp()
    env = {k: v for k, v in os.environ.items() if k != "CLAUDECODE"}
    env.update({"ANTHROPIC_BASE_URL": "http://127.0.0.1:9", "ANTHROPIC_API_KEY": "x",
                "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_AUTOUPDATER": "1",
                "HOME": home, "CLAUDE_CONFIG_DIR": home + "/.claude"})
    argv = [CLI, "--output-format", "stream-json", "--input-format", "stream-json",
            "--verbose"] + extra_args
    p = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, cwd=work, env=env, text=True, bufsize=1)
    n = [0]

    def ask(subtype, **fields):
        n[0] += 1
        rid = "r%d" % n[0]
        p.stdin.write(json.dumps({"type": "control_request", "request_id": rid,
                                  "request": dict(subtype=subtype, **fields)}) + "\n")
        p.stdin.flush()
        end = time.time() + 30
        while time.time() < end:
            if not select.select([p.stdout], [], [], 0.5)[0]:
                if p.poll() is not None:
                    return {"exited": p.returncode, "stderr": p.stderr.read()[-300:]}
                continue
            line = p.stdout.readline()
            if not line:
                return {"exited": p.wait(), "stderr": p.stderr.read()[-300:]}
            try:
                m = json.loads(line)
            except ValueError:
                continue
            if m.get("type") == "control_response" and m["response"].get("request_id") == rid:
                return m["response"]
        return {"timeout": True}

    out = {"init": ask("initialize", **init_fields)}
    if after and "exited" not in out["init"]:
        out.update(after(ask))
    try:
        p.stdin.close()
        p.wait(10)
    except Exception:
        p.kill()
    shutil.rmtree(home, ignore_errors=True)
    shutil.rmtree(work, ignore_errors=True)
    return out


def applied(r, key="mcp_servers_applied"):
    resp = r["init"].get("response")
    return resp.get(key, "MISSING") if isinstance(resp, dict) else r["init"]


def servers(ask, wait=True):
    for _ in range(40):
        st = ask("mcp_status")["response"]["mcpServers"]
        if not wait or all(s["status"] != "pending" for s in st):
            break
        time.sleep(0.25)
    return [(s["name"], s["status"], s.get("scope"), s.get("config")) for s in st]


ECHO_CFG = {"type": "stdio", "command": ECHO, "args": [], "env": {"MCP_ECHO_PREFIX": "tok: "}}
WEB_CFG = {"type": "http", "url": "http://127.0.0.1:9/mcp",
           "headers": {"Authorization": "Bearer HEADER-TOKEN"}}


def call(ask):
    return ask("mcp_call", tool="mcp__echo__echo", arguments={"text": "hi"})


def main():
    print("version", subprocess.run([CLI, "--version"], capture_output=True, text=True).stdout.strip())
    both = {"echo": ECHO_CFG, "web": WEB_CFG}
    r = session(["--await-initialize"], {"mcpServers": both},
                lambda ask: {"now": servers(ask, wait=False), "later": servers(ask), "call": call(ask)})
    print("1 await + mcpServers: applied", applied(r), "| right after:", r["now"],
          "| later:", r["later"], "| call:", r["call"])
    r = session([], {"mcpServers": {"echo": ECHO_CFG}},
                lambda ask: {"s": servers(ask), "call": call(ask)})
    print("2 mcpServers without --await-initialize: applied", applied(r), r["s"], r["call"])
    r = session(["--await-initialize"], {})
    print("3 --await-initialize, no mcpServers: applied", applied(r), r["init"].get("subtype"))
    r = session(["--await-initialize"], {"sdkMcpServers": ["calc"]})
    print("4 sdkMcpServers only: applied", applied(r))
    d = tempfile.mkdtemp()
    f = os.path.join(d, "mcp.json")
    with open(f, "w") as fh:
        json.dump({"mcpServers": {"other": {"type": "stdio", "command": ECHO, "args": []}}}, fh)
    r = session(["--await-initialize", "--strict-mcp-config", "--mcp-config=" + f],
                {"mcpServers": {"echo": ECHO_CFG}}, lambda ask: {"s": servers(ask)})
    print("5 strict + file + initialize: applied", applied(r), r["s"])

    def deleted_then_reconnect(ask):
        os.remove(f)
        servers(ask)
        return {"rc": ask("mcp_reconnect", serverName="other").get("subtype"),
                "call": ask("mcp_call", tool="mcp__other__echo", arguments={"text": "hi"})}
    with open(f, "w") as fh:
        json.dump({"mcpServers": {"other": {"type": "stdio", "command": ECHO, "args": []}}}, fh)
    r = session(["--mcp-config=" + f], {}, deleted_then_reconnect)
    print("6 --mcp-config file deleted after initialize, reconnect:", r["rc"], r["call"])
    r = session(["--await-initialise"], {})
    print("7 an unknown flag:", r["init"])
    s = os.path.join(d, "settings.json")
    with open(s, "w") as fh:
        json.dump({"env": {"PROBE": "FROM-FILE"}}, fh)

    def settings(ask):
        g = ask("get_settings")["response"]
        return {"env": g["effective"].get("env"), "sources": [x["source"] for x in g["sources"]]}
    r = session(["--settings=" + s], {}, settings)
    print("8 --settings=PATH:", r["env"], r["sources"])
    r = session(["--await-initialize", "--initialize-fields", "settings"],
                {"settings": {"env": {"PROBE": "FROM-INIT"}}}, settings)
    print("9 settings in initialize: settings_applied", applied(r, "settings_applied"), r.get("env"), r.get("sources"))
    shutil.rmtree(d, ignore_errors=True)


main()
