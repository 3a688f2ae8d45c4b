#!/usr/bin/env python3
"""Probe the real Claude Code CLI over its stream-json control protocol.

Usage: python3 scripts/probe-cli.py CLAUDE_PATH [PROBE ...]

Runs each probe (all by default) against a scripted fake Messages API on
loopback that records every request body. Prints one JSON object per line:
  {"probe": NAME, "step": STEP, ...}
Large values are trimmed (arrays to their first 2 elements plus a count,
long strings cut). Raw stdout/stdin/stderr and API request bodies of every
session are kept under $PROBE_DIR (default /tmp/probe-cli/<probe>/).

Environment of each CLI: throwaway HOME, ANTHROPIC_BASE_URL=<fake>,
ANTHROPIC_API_KEY=x, CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1,
DISABLE_AUTOUPDATER=1, CLAUDE_CODE_ENTRYPOINT=sdk-ts, CLAUDECODE removed.
Nothing secret is printed (the only key is the dummy "x").
"""
import itertools
import json
import os
import shutil
import subprocess
import sys
import threading
import time
import uuid as uuidlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

CLAUDE = None
ROOT = os.environ.get("PROBE_DIR", "/tmp/probe-cli")
_ids = itertools.count(1)
ENV_MARK = "You have been invoked in the following environment"


# ---------------------------------------------------------------- output
def trim(v, n=2, s=300):
    if isinstance(v, dict):
        return {k: trim(x, n, s) for k, x in v.items()}
    if isinstance(v, list):
        out = [trim(x, n, s) for x in v[:n]]
        if len(v) > n:
            out.append("...(+%d more)" % (len(v) - n))
        return out
    if isinstance(v, str) and len(v) > s:
        return v[:s] + "...(%d chars)" % len(v)
    return v


def emit(probe, step, **kw):
    o = {"probe": probe, "step": step}
    o.update(kw)
    print(json.dumps(o, ensure_ascii=False), flush=True)


# ---------------------------------------------------------------- fake API
def text(t):
    return {"type": "text", "text": t}


def tool(name, inp):
    return {"type": "tool_use", "id": "toolu_probe_%04d" % next(_ids), "name": name, "input": inp}


def classify(body):
    """main = a main-thread turn request, sub = sub-agent, side = titles/suggestions/etc."""
    sysblocks = body.get("system")
    systxt = sysblocks if isinstance(sysblocks, str) else "\n".join(
        b.get("text", "") for b in (sysblocks or []) if isinstance(b, dict))
    msgs = json.dumps(body.get("messages", []))
    if not body.get("tools") and ENV_MARK not in msgs and ENV_MARK not in systxt:
        return "side"
    if "cc_is_subagent=true" in systxt:
        return "sub"
    return "main"


class Api:
    """responder(body, kind, api) -> list of blocks | int (HTTP status) | None (default text)."""

    def __init__(self, logpath, responder=None):
        self.responder = responder
        self.lock = threading.Lock()
        self.reqs = []
        self.log = open(logpath, "w")
        api = self

        class H(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *a):
                pass

            def do_HEAD(self):
                self.send_response(200)
                self.send_header("content-length", "0")
                self.end_headers()

            def do_GET(self):
                b = b"{}"
                self.send_response(200)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(b)))
                self.end_headers()
                self.wfile.write(b)

            def do_POST(self):
                n = int(self.headers.get("content-length", "0"))
                raw = self.rfile.read(n)
                try:
                    body = json.loads(raw)
                except Exception:
                    body = {}
                api.handle(self, body)

        self.srv = ThreadingHTTPServer(("127.0.0.1", 0), H)
        self.srv.daemon_threads = True
        self.port = self.srv.server_address[1]
        threading.Thread(target=self.srv.serve_forever, daemon=True).start()

    def close(self):
        self.srv.shutdown()
        self.srv.server_close()

    def handle(self, h, body):
        path = h.path.split("?")[0]
        kind = classify(body) if path == "/v1/messages" else "other"
        with self.lock:
            rec = {"seq": len(self.reqs), "t": time.time(), "path": h.path, "kind": kind,
                   "headers": {k.lower(): v for k, v in h.headers.items()
                               if k.lower() in ("anthropic-beta", "anthropic-version", "x-app")},
                   "body": body}
            self.reqs.append(rec)
            self.log.write(json.dumps(rec) + "\n")
            self.log.flush()
        if path.startswith("/v1/messages/count_tokens"):
            return self.json(h, 200, {"input_tokens": 100})
        if path != "/v1/messages":
            return self.json(h, 404, {"type": "error", "error": {"type": "not_found_error", "message": "probe"}})
        reply = self.responder(body, kind, self) if self.responder else None
        if isinstance(reply, int):
            etype = {529: "overloaded_error", 500: "api_error", 429: "rate_limit_error"}.get(reply, "api_error")
            return self.json(h, reply, {"type": "error", "error": {"type": etype, "message": "probe %d" % reply}})
        if reply is None:
            reply = [text("OK (probe %s)." % kind)]
        self.sse(h, body, reply)

    def json(self, h, status, obj):
        b = json.dumps(obj).encode()
        h.send_response(status)
        h.send_header("content-type", "application/json")
        h.send_header("content-length", str(len(b)))
        h.end_headers()
        h.wfile.write(b)

    def sse(self, h, body, blocks):
        stop = "tool_use" if any(b["type"] == "tool_use" for b in blocks) else "end_turn"
        model = body.get("model", "claude-probe")
        mid = "msg_probe_%04d" % next(_ids)
        usage = {"input_tokens": 50, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0,
                 "output_tokens": 10, "service_tier": "standard"}
        if not body.get("stream"):
            return self.json(h, 200, {"id": mid, "type": "message", "role": "assistant", "model": model,
                                      "content": blocks, "stop_reason": stop, "stop_sequence": None,
                                      "usage": usage})
        h.send_response(200)
        h.send_header("content-type", "text/event-stream; charset=utf-8")
        h.send_header("cache-control", "no-cache")
        h.send_header("transfer-encoding", "chunked")
        h.send_header("connection", "keep-alive")
        h.end_headers()

        def ev(o):
            data = ("event: %s\ndata: %s\n\n" % (o["type"], json.dumps(o))).encode()
            h.wfile.write(b"%x\r\n" % len(data) + data + b"\r\n")
            h.wfile.flush()

        ev({"type": "message_start", "message": {"id": mid, "type": "message", "role": "assistant",
                                                 "model": model, "content": [], "stop_reason": None,
                                                 "stop_sequence": None, "usage": dict(usage, output_tokens=1)}})
        for i, b in enumerate(blocks):
            if b["type"] == "text":
                ev({"type": "content_block_start", "index": i, "content_block": {"type": "text", "text": ""}})
                ev({"type": "content_block_delta", "index": i, "delta": {"type": "text_delta", "text": b["text"]}})
            else:
                ev({"type": "content_block_start", "index": i,
                    "content_block": {"type": "tool_use", "id": b["id"], "name": b["name"], "input": {}}})
                ev({"type": "content_block_delta", "index": i,
                    "delta": {"type": "input_json_delta", "partial_json": json.dumps(b["input"])}})
            ev({"type": "content_block_stop", "index": i})
        ev({"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None}, "usage": usage})
        ev({"type": "message_stop"})
        h.wfile.write(b"0\r\n\r\n")
        h.wfile.flush()

    def of(self, kind="main"):
        with self.lock:
            return [r for r in self.reqs if r["kind"] == kind]


def body_summary(body):
    """The request-body keys a flag may change (messages/tools/system summarised)."""
    out = {k: v for k, v in body.items() if k not in ("messages", "tools", "system", "metadata")}
    out["tools"] = [t.get("name") for t in body.get("tools", [])]
    out["n_messages"] = len(body.get("messages", []))
    return out


# ---------------------------------------------------------------- stdio MCP server
MCP_SERVER = r'''
import json, sys
name = sys.argv[1] if len(sys.argv) > 1 else "stdiosrv"
for line in sys.stdin:
    try: m = json.loads(line)
    except Exception: continue
    mid = m.get("id"); meth = m.get("method")
    if mid is None: continue
    if meth == "initialize":
        r = {"protocolVersion": m["params"].get("protocolVersion", "2025-06-18"),
             "capabilities": {"tools": {}, "resources": {}}, "serverInfo": {"name": name, "version": "1"}}
    elif meth == "tools/list":
        r = {"tools": [{"name": "echo", "description": "echo text back",
                        "inputSchema": {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}}]}
    elif meth == "tools/call":
        r = {"content": [{"type": "text", "text": "echo: " + json.dumps(m["params"].get("arguments"))}]}
    elif meth == "resources/list":
        r = {"resources": [{"uri": "ui://probe/page", "name": "page", "mimeType": "text/html"}]}
    elif meth == "resources/read":
        r = {"contents": [{"uri": m["params"]["uri"], "mimeType": "text/html", "text": "<p>probe</p>"}]}
    elif meth in ("prompts/list",):
        r = {"prompts": []}
    elif meth in ("resources/templates/list",):
        r = {"resourceTemplates": []}
    else:
        sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": mid, "error": {"code": -32601, "message": "no " + str(meth)}}) + "\n"); sys.stdout.flush(); continue
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", "id": mid, "result": r}) + "\n"); sys.stdout.flush()
'''


def sdk_mcp_answer(req):
    """Answer an mcp_message for the in-process ('sdk') server 'calc'."""
    msg = req.get("message", {})
    meth, mid = msg.get("method"), msg.get("id")
    if mid is None:
        return {"mcp_response": {}}
    if meth == "initialize":
        r = {"protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
             "serverInfo": {"name": req.get("server_name", "calc"), "version": "1"}}
    elif meth == "tools/list":
        r = {"tools": [{"name": "add", "description": "add two numbers",
                        "inputSchema": {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}}}]}
    elif meth == "tools/call":
        a = msg.get("params", {}).get("arguments", {})
        r = {"content": [{"type": "text", "text": str(a.get("a", 0) + a.get("b", 0))}]}
    else:
        return {"mcp_response": {"jsonrpc": "2.0", "id": mid, "error": {"code": -32601, "message": "no " + str(meth)}}}
    return {"mcp_response": {"jsonrpc": "2.0", "id": mid, "result": r}}


# ---------------------------------------------------------------- CLI session
class Session:
    def __init__(self, probe, api, args=(), env=None, on_perm="allow", home=None, cwd=None, tag=""):
        self.probe = probe
        self.dir = os.path.join(ROOT, probe + (("-" + tag) if tag else ""))
        shutil.rmtree(self.dir, ignore_errors=True)
        os.makedirs(self.dir)
        self.home = home or os.path.join(self.dir, "home")
        self.cwd = cwd or os.path.join(self.dir, "work")
        os.makedirs(self.home, exist_ok=True)
        os.makedirs(self.cwd, exist_ok=True)
        e = dict(os.environ)
        for k in list(e):
            if k.startswith(("CLAUDE", "ANTHROPIC")):
                e.pop(k)
        e.update(HOME=self.home, ANTHROPIC_BASE_URL="http://127.0.0.1:%d" % api.port, ANTHROPIC_API_KEY="x",
                 CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1", DISABLE_AUTOUPDATER="1",
                 CLAUDE_CODE_ENTRYPOINT="sdk-ts")
        e.update(env or {})
        self.argv = [CLAUDE, "--output-format", "stream-json", "--input-format", "stream-json", "--verbose",
                     "--permission-prompt-tool", "stdio"] + list(args)
        self.p = subprocess.Popen(self.argv, cwd=self.cwd, env=e, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=open(os.path.join(self.dir, "stderr.txt"), "w"), bufsize=0)
        self.out = open(os.path.join(self.dir, "stdout.jsonl"), "w")
        self.inlog = open(os.path.join(self.dir, "stdin.jsonl"), "w")
        self.msgs = []
        self.cv = threading.Condition()
        self.on_perm = on_perm
        self.t0 = time.time()
        self.rid = itertools.count(1)
        self.wlock = threading.Lock()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.p.stdout:
            s = line.decode(errors="replace").rstrip("\n")
            self.out.write(s + "\n")
            self.out.flush()
            try:
                m = json.loads(s)
            except Exception:
                continue
            m["_t"] = round(time.time() - self.t0, 3)
            with self.cv:
                self.msgs.append(m)
                self.cv.notify_all()
            if m.get("type") == "control_request":
                self._answer(m)
        with self.cv:
            self.msgs.append({"type": "_eof"})
            self.cv.notify_all()

    def _answer(self, m):
        req = m.get("request", {})
        st = req.get("subtype")
        if st == "mcp_message":
            resp = sdk_mcp_answer(req)
        elif st == "can_use_tool":
            if self.on_perm == "allow":
                resp = {"behavior": "allow", "updatedInput": req.get("input", {})}
            elif callable(self.on_perm):
                resp = self.on_perm(req)
            else:
                resp = {"behavior": "deny", "message": "probe denies", "interrupt": False}
        elif st == "hook_callback":
            resp = {"continue": True}
        else:
            self.send({"type": "control_response", "response": {"subtype": "error", "request_id": m["request_id"],
                                                                 "error": "probe host: unsupported " + str(st)}})
            return
        self.send({"type": "control_response", "response": {"subtype": "success", "request_id": m["request_id"],
                                                            "response": resp}})

    def send(self, o):
        s = json.dumps(o)
        with self.wlock:
            self.inlog.write(s + "\n")
            self.inlog.flush()
            try:
                self.p.stdin.write((s + "\n").encode())
                self.p.stdin.flush()
            except (BrokenPipeError, ValueError):
                pass

    def mark(self):
        with self.cv:
            return len(self.msgs)

    def wait(self, pred, timeout=60, start=0):
        end = time.time() + timeout
        with self.cv:
            while True:
                for m in self.msgs[start:]:
                    if pred(m):
                        return m
                if any(m.get("type") == "_eof" for m in self.msgs[start:]):
                    return None
                left = end - time.time()
                if left <= 0:
                    return None
                self.cv.wait(left)

    def since(self, start, pred=lambda m: True):
        with self.cv:
            return [m for m in self.msgs[start:] if pred(m)]

    def control(self, subtype, timeout=30, **fields):
        rid = "req_%d" % next(self.rid)
        n = self.mark()
        req = dict(subtype=subtype, **fields)
        self.send({"type": "control_request", "request_id": rid, "request": req})
        r = self.wait(lambda m: m.get("type") == "control_response" and m["response"].get("request_id") == rid,
                      timeout, n)
        return req, (r["response"] if r else {"_timeout": True, "_exit": self.p.poll()})

    def initialize(self, timeout=60, **fields):
        return self.control("initialize", timeout, **fields)

    def user(self, content, **extra):
        o = {"type": "user", "message": {"role": "user", "content": content}, "parent_tool_use_id": None,
             "session_id": ""}
        o.update(extra)
        self.send(o)

    def turn(self, content, timeout=90, **extra):
        n = self.mark()
        self.user(content, **extra)
        return self.wait(lambda m: m.get("type") == "result", timeout, n), n

    def init_msg(self, start=0):
        return self.wait(lambda m: m.get("type") == "system" and m.get("subtype") == "init", 1, start)

    def stderr_tail(self, n=600):
        try:
            return open(os.path.join(self.dir, "stderr.txt")).read()[-n:]
        except Exception:
            return ""

    def close(self):
        try:
            self.p.stdin.close()
        except Exception:
            pass
        try:
            self.p.wait(15)
        except subprocess.TimeoutExpired:
            self.p.terminate()
            try:
                self.p.wait(5)
            except subprocess.TimeoutExpired:
                self.p.kill()
                self.p.wait()
        return self.p.returncode


def clean(m):
    m = dict(m)
    m.pop("_t", None)
    return m


def run_once(argv_extra, api, timeout=30, cwd=None, home=None):
    """Launch the CLI, send initialize, return (exit code, stdout tail, stderr tail) if it dies early."""
    d = os.path.join(ROOT, "_once")
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d + "/home")
    os.makedirs(d + "/work")
    e = dict(os.environ)
    for k in list(e):
        if k.startswith(("CLAUDE", "ANTHROPIC")):
            e.pop(k)
    e.update(HOME=home or d + "/home", ANTHROPIC_BASE_URL="http://127.0.0.1:%d" % api.port, ANTHROPIC_API_KEY="x",
             CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC="1", DISABLE_AUTOUPDATER="1", CLAUDE_CODE_ENTRYPOINT="sdk-ts")
    argv = [CLAUDE, "--output-format", "stream-json", "--input-format", "stream-json", "--verbose",
            "--permission-prompt-tool", "stdio"] + list(argv_extra)
    init = json.dumps({"type": "control_request", "request_id": "req_1", "request": {"subtype": "initialize"}})
    user = json.dumps({"type": "user", "message": {"role": "user", "content": "hi"}, "parent_tool_use_id": None,
                       "session_id": ""})
    try:
        p = subprocess.run(argv, cwd=cwd or d + "/work", env=e, input=(init + "\n" + user + "\n").encode(),
                           capture_output=True, timeout=timeout)
        out = p.stdout.decode(errors="replace").splitlines()
        return {"exit": p.returncode, "stdout_last": [trim(json.loads(x)) if x.startswith("{") else x
                                                      for x in out[-2:]],
                "stderr": p.stderr.decode(errors="replace")[-400:]}
    except subprocess.TimeoutExpired:
        return {"exit": "timeout"}


# ---------------------------------------------------------------- probes
def write(path, content):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(content if isinstance(content, str) else json.dumps(content))


def mcp_server_file():
    path = os.path.join(ROOT, "mcp_stdio_server.py")
    write(path, MCP_SERVER)
    return path


def probe_initialize(P="initialize"):
    api = Api(os.path.join(ROOT, P + "_api.jsonl"))
    srv = mcp_server_file()
    cfg = {"mcpServers": {"calc": {"type": "sdk", "name": "calc"},
                          "echo": {"type": "stdio", "command": sys.executable, "args": [srv, "echo"]}}}
    s = Session(P, api, ["--mcp-config", json.dumps(cfg)])
    req, resp = s.initialize()
    emit(P, "initialize", sent=req, keys=sorted((resp.get("response") or {}).keys()), response=trim(resp))
    r = resp.get("response") or {}
    for k in sorted(r):
        emit(P, "initialize.key", key=k, type=type(r[k]).__name__,
             len=len(r[k]) if isinstance(r[k], (list, dict, str)) else None, value=trim(r[k], 2, 200))
    # CLI requests seen before/around the initialize answer
    emit(P, "cli_requests_during_init",
         requests=[trim(m["request"]) for m in s.since(0, lambda m: m.get("type") == "control_request")])
    res, n = s.turn("hi")
    init = s.init_msg(n)
    emit(P, "system_init", msg=trim(clean(init), 3) if init else None)
    emit(P, "result", msg=trim(clean(res), 3) if res else None)
    # a second initialize (TS reinitialize())
    req, resp = s.initialize()
    emit(P, "initialize_again", sent=req, response=trim(resp, 1, 120))
    s.close()
    api.close()


SWEEP = [
    # (subtype, fields) -- host -> CLI requests from the TS SDK (0.3.328) plus guesses
    ("supported_commands", {}), ("supported_models", {}), ("supported_agents", {}), ("account_info", {}),
    ("get_settings", {}),
    ("apply_flag_settings", {"settings": {"effortLevel": "low"}}),
    ("apply_flag_settings", {"settings": {"effortLevel": None}}),
    ("set_max_thinking_tokens", {"max_thinking_tokens": 4096}),
    ("set_max_thinking_tokens", {"max_thinking_tokens": None}),
    ("set_max_thinking_tokens", {"max_thinking_tokens": 2048, "thinking_display": "summarized"}),
    ("list_models", {}), ("list_permission_rules", {}), ("get_session_cost", {}),
    ("get_usage", {"skip_behaviors": True}), ("get_binary_version", {}),
    ("get_context_usage", {"detail": "summary"}),
    ("get_hooks_listing", {}), ("get_status", {}), ("get_plan", {}),
    ("file_suggestions", {"query": "REA"}),
    ("read_file", {"path": "README.md"}), ("read_file", {"path": "README.md", "max_bytes": 5, "encoding": "base64"}),
    ("read_file", {"path": "nope.txt"}),
    ("seed_read_state", {"path": "README.md", "mtime": 0}),
    ("reload_skills", {}), ("reload_output_styles", {}), ("reload_plugins", {}),
    ("rename_session", {"title": "Probe title", "source": "host"}),
    ("cancel_async_message", {"message_uuid": "00000000-0000-4000-8000-000000000000"}),
    ("background_tasks", {}),
    ("stop_task", {"task_id": "nosuchtask"}),
    ("get_task_output", {"task_id": "nosuchtask"}),
    ("set_prompt_suggestions_paused", {"paused": True}),
    ("export_conversation", {}),
    ("set_mcp_permission_mode_override", {"serverName": "echo", "mode": "auto"}),
    ("bogus_subtype", {}),
]


def probe_controls(P="controls"):
    api = Api(os.path.join(ROOT, P + "_api.jsonl"))
    srv = mcp_server_file()
    cfg = {"mcpServers": {"calc": {"type": "sdk", "name": "calc"},
                          "echo": {"type": "stdio", "command": sys.executable, "args": [srv, "echo"]}}}
    s = Session(P, api, ["--mcp-config", json.dumps(cfg)])
    write(os.path.join(s.cwd, "README.md"), "hello probe\n")
    s.initialize()
    res, _ = s.turn("hi")
    for st, f in SWEEP:
        n = s.mark()
        req, resp = s.control(st, 30, **f)
        extra = [trim(clean(m), 2, 200) for m in s.since(n) if m.get("type") not in ("control_response",)]
        emit(P, "control", sent=req, response=trim(resp, 2, 200), also_emitted=extra or None)
    # effect of set_max_thinking_tokens / apply_flag_settings on the next request body
    for st, f in [("set_max_thinking_tokens", {"max_thinking_tokens": 4096}),
                  ("set_max_thinking_tokens", {"max_thinking_tokens": None}),
                  ("set_max_thinking_tokens", {"max_thinking_tokens": 0}),
                  ("apply_flag_settings", {"settings": {"effortLevel": "high"}}),
                  ("apply_flag_settings", {"settings": {"effortLevel": None}}),
                  ("apply_flag_settings", {"settings": {"model": "claude-from-flag-settings"}})]:
        req, resp = s.control(st, 30, **f)
        k = len(api.of("main"))
        res, n = s.turn("again")
        bodies = api.of("main")[k:]
        init = s.init_msg(n)
        emit(P, "control_effect", sent=req, response=resp,
             next_request={kk: bodies[0]["body"].get(kk) for kk in ("model", "thinking", "output_config", "max_tokens")}
             if bodies else None, init_model=init.get("model") if init else None)
    req, resp = s.control("get_settings")
    emit(P, "get_settings_after", response=trim(resp, 3, 300))
    s.close()
    api.close()


def probe_mcp(P="mcp"):
    api = Api(os.path.join(ROOT, P + "_api.jsonl"))
    srv = mcp_server_file()
    cfg = {"mcpServers": {"calc": {"type": "sdk", "name": "calc"},
                          "echo": {"type": "stdio", "command": sys.executable, "args": [srv, "echo"]}}}
    s = Session(P, api, ["--mcp-config", json.dumps(cfg)])
    s.initialize()

    def status(label):
        req, resp = s.control("mcp_status")
        srvs = (resp.get("response") or {}).get("mcpServers", [])
        emit(P, "mcp_status", label=label, servers=[{k: v for k, v in x.items() if k in ("name", "status", "error", "scope")}
                                                  for x in srvs],
             first=trim(srvs[0], 2, 200) if srvs else None)

    status("start")
    res, n = s.turn("hi")
    init = s.init_msg(n)
    emit(P, "init_mcp_servers", mcp_servers=init.get("mcp_servers") if init else None,
         mcp_tools=[t for t in (init or {}).get("tools", []) if t.startswith("mcp__")])
    steps = [
        ("mcp_toggle", {"serverName": "echo", "enabled": False}),
        ("mcp_status", {}),
        ("mcp_toggle", {"serverName": "echo", "enabled": True}),
        ("mcp_toggle", {"serverName": "calc", "enabled": False}),
        ("mcp_toggle", {"serverName": "calc", "enabled": True}),
        ("mcp_toggle", {"serverName": "nosuch", "enabled": False}),
        ("mcp_reconnect", {"serverName": "echo"}),
        ("mcp_reconnect", {"serverName": "calc"}),
        ("mcp_reconnect", {"serverName": "nosuch"}),
        ("mcp_read_resource", {"serverName": "echo", "uri": "ui://probe/page"}),
        ("mcp_read_resource", {"serverName": "echo", "uri": "file:///etc/passwd"}),
        ("mcp_call", {"tool": "mcp__echo__echo", "arguments": {"text": "hi"}}),
        ("mcp_set_servers", {"servers": {"dyn": {"type": "stdio", "command": sys.executable, "args": [srv, "dyn"]}}}),
        ("mcp_status", {}),
        ("mcp_set_servers", {"servers": {"dyn": {"type": "stdio", "command": sys.executable, "args": [srv, "dyn"]},
                                         "calc2": {"type": "sdk", "name": "calc2"}}}),
        ("mcp_status", {}),
        ("mcp_set_servers", {"servers": {}}),
        ("mcp_status", {}),
    ]
    for st, f in steps:
        n = s.mark()
        req, resp = s.control(st, 40, **f)
        extra = [trim(clean(m), 2, 200) for m in s.since(n) if m.get("type") != "control_response"]
        if st == "mcp_status":
            srvs = (resp.get("response") or {}).get("mcpServers", [])
            emit(P, "control", sent=req, servers=[{k: v for k, v in x.items() if k in ("name", "status", "error", "scope")}
                                                 for x in srvs])
        else:
            emit(P, "control", sent=req, response=trim(resp, 2, 300), also_emitted=extra or None)
    res, n = s.turn("hi again")
    init = s.init_msg(n)
    emit(P, "init_after", mcp_servers=init.get("mcp_servers") if init else None,
         mcp_tools=[t for t in (init or {}).get("tools", []) if t.startswith("mcp__")])
    s.close()
    api.close()


def probe_stop_task(P="stop_task"):
    state = {"n": 0}

    def responder(body, kind, api):
        if kind != "main":
            return None
        state["n"] += 1
        if state["n"] == 1:
            return [tool("Bash", {"command": "echo started; sleep 60", "description": "sleep a minute",
                                  "run_in_background": True})]
        if state["n"] == 3:
            return [tool("Bash", {"command": "echo fg; sleep 45", "description": "foreground sleep"})]
        return [text("bash started")]

    api = Api(os.path.join(ROOT, P + "_api.jsonl"), responder)
    s = Session(P, api)
    s.initialize()
    res, n = s.turn("start a background sleep")
    started = s.wait(lambda m: m.get("subtype") == "task_started", 10, n)
    emit(P, "bg_task_msgs", msgs=[trim(clean(m), 3, 250) for m in s.since(n)
                                  if m.get("type") == "system" and m.get("subtype") not in ("init", "status")])
    emit(P, "result", result=trim(clean(res), 2, 200) if res else None)
    tid = started.get("task_id") if started else None
    if tid:
        time.sleep(1.5)
        req, resp = s.control("get_task_output", task_id=tid)
        emit(P, "control", sent=req, response=resp)
        n = s.mark()
        req, resp = s.control("stop_task", task_id=tid)
        time.sleep(4)
        emit(P, "control", sent=req, response=resp,
             also_emitted=[trim(clean(m), 2, 300) for m in s.since(n) if m.get("type") != "control_response"])
        req, resp = s.control("stop_task", task_id=tid)
        emit(P, "control", sent=req, response=resp, note="stop again")
        res2 = s.wait(lambda m: m.get("type") == "result", 15, n)
        emit(P, "after_stop_result", result=trim(clean(res2), 2, 200) if res2 else None)
    req, resp = s.control("stop_task", task_id="b_nosuch")
    emit(P, "control", sent=req, response=resp)
    # background_tasks: move a running foreground Bash to the background
    n = s.mark()
    s.user("run a foreground sleep")
    s.wait(lambda m: m.get("type") == "system" and m.get("subtype") == "task_started", 20, n)
    time.sleep(1.5)
    n2 = s.mark()
    req, resp = s.control("background_tasks")
    res = s.wait(lambda m: m.get("type") == "result", 30, n)
    emit(P, "control", sent=req, response=resp,
         before=[trim(clean(m), 2, 250) for m in s.since(n, lambda m: m.get("type") == "system"
                                                        and m.get("subtype") not in ("init", "status"))][:3],
         after=[trim(clean(m), 2, 400) for m in s.since(n2) if m.get("type") in ("user", "system", "result")
                and m.get("subtype") not in ("init", "status")])
    tasks = [m for m in s.since(n) if m.get("subtype") == "task_started"]
    if tasks:
        req, resp = s.control("stop_task", task_id=tasks[-1]["task_id"])
        emit(P, "control", sent=req, response=resp)
    s.close()
    api.close()


def thinking_fields(b):
    return {k: b.get(k) for k in ("model", "thinking", "output_config", "max_tokens", "temperature") if k in b}


def probe_thinking(P="thinking"):
    variants = [[], ["--max-thinking-tokens", "5000"], ["--max-thinking-tokens", "0"], ["--thinking", "adaptive"],
                ["--thinking", "disabled"], ["--thinking", "enabled"], ["--thinking-display", "summarized"],
                ["--effort", "low"], ["--effort", "max"], ["--effort", "bogus"],
                ["--model", "claude-sonnet-4-5", "--max-thinking-tokens", "5000"],
                ["--model", "claude-sonnet-4-5"], ["--model", "claude-sonnet-4-5", "--effort", "low"],
                ["--model", "claude-sonnet-4-5", "--max-thinking-tokens", "0"],
                ["--model", "claude-sonnet-4-5", "--thinking", "disabled"],
                ["--model", "claude-sonnet-4-5", "--thinking", "adaptive"]]
    for i, args in enumerate(variants):
        api = Api(os.path.join(ROOT, "%s_%d_api.jsonl" % (P, i)))
        s = Session(P, api, args, tag=str(i))
        _, resp = s.initialize()
        res, n = s.turn("hi", timeout=40)
        mains = api.of("main")
        emit(P, "flag", args=args, init_ok=resp.get("subtype"), result=res.get("subtype") if res else None,
             exit=s.p.poll(), stderr=s.stderr_tail(300) if not res else None,
             request=thinking_fields(mains[0]["body"]) if mains else None,
             beta=mains[0]["headers"].get("anthropic-beta") if mains else None)
        s.close()
        api.close()
    # runtime set_max_thinking_tokens on a budget-style model
    api = Api(os.path.join(ROOT, "%s_runtime_api.jsonl" % P))
    s = Session(P, api, ["--model", "claude-sonnet-4-5"], tag="runtime")
    s.initialize()
    s.turn("hi")
    for f in ({"max_thinking_tokens": 3000}, {"max_thinking_tokens": 0}, {"max_thinking_tokens": None},
              {"thinking_display": "omitted"}, {"thinking_display": "highlights"}, {"thinking_display": None}):
        req, resp = s.control("set_max_thinking_tokens", **f)
        k = len(api.of("main"))
        s.turn("again")
        b = api.of("main")[k:]
        emit(P, "runtime", model="claude-sonnet-4-5", sent=req, response=resp,
             next_request=thinking_fields(b[0]["body"]) if b else None)
    s.close()
    api.close()
    api = Api(os.path.join(ROOT, "%s_unknown_api.jsonl" % P))
    emit(P, "unknown_flag", args=["--no-such-flag"], outcome=run_once(["--no-such-flag"], api))
    api.close()


def probe_fallback(P="fallback"):
    def responder(body, kind, api):
        return 529 if body.get("model") == "claude-primary-x" else None

    api = Api(os.path.join(ROOT, P + "_api.jsonl"), responder)
    s = Session(P, api, ["--model", "claude-primary-x", "--fallback-model", "claude-fallback-y"])
    _, resp = s.initialize()
    res, n = s.turn("hi", timeout=200)
    init = s.init_msg(n)
    emit(P, "init", model=init.get("model") if init else None)
    emit(P, "requests", models=[(r["kind"], r["body"].get("model")) for r in api.reqs if r["path"].startswith("/v1/messages")])
    emit(P, "stdout", msgs=[trim(clean(m), 2, 300) for m in s.since(n)
                            if m.get("type") not in ("stream_event",) and not (m.get("type") == "system" and m.get("subtype") == "init")])
    res2, n = s.turn("again", timeout=200)
    emit(P, "second_turn", models=[(r["kind"], r["body"].get("model")) for r in api.reqs], result=trim(clean(res2), 2, 200) if res2 else None)
    s.close()
    api.close()
    # comma-separated list: primary and first fallback overloaded
    api = Api(os.path.join(ROOT, P + "_list_api.jsonl"),
              lambda body, kind, api: 529 if body.get("model") in ("claude-primary-x", "claude-fb1") else None)
    s = Session(P, api, ["--model", "claude-primary-x", "--fallback-model", "claude-fb1,claude-fb2"], tag="list")
    s.initialize()
    res, n = s.turn("hi", timeout=200)
    emit(P, "list", args=["--model", "claude-primary-x", "--fallback-model", "claude-fb1,claude-fb2"],
         models=[r["body"].get("model") for r in api.reqs if r["kind"] == "main"],
         fallback_msgs=[trim(clean(m)) for m in s.since(n) if m.get("subtype") == "model_fallback"],
         result=(res.get("subtype"), res.get("result")) if res else None)
    s.close()
    api.close()
    api = Api(os.path.join(ROOT, P + "_same_api.jsonl"))
    emit(P, "same_as_model", args=["--model", "m1", "--fallback-model", "m1"],
         outcome=run_once(["--model", "m1", "--fallback-model", "m1"], api))
    api.close()


def probe_budget(P="budget"):
    api = Api(os.path.join(ROOT, P + "_api.jsonl"))
    s = Session(P, api, ["--max-budget-usd", "0.000001"])
    s.initialize()
    res, n = s.turn("hi")
    emit(P, "result1", result=trim(clean(res), 2, 300) if res else None)
    res, n = s.turn("again")
    emit(P, "result2", result=trim(clean(res), 2, 300) if res else None, n_api=len(api.of("main")))
    s.close()
    api.close()


SCHEMA = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}


def probe_json_schema(P="json_schema"):
    for variant in ("calls_tool", "text_only", "via_initialize", "invalid_input"):
        def responder(body, kind, api, variant=variant):
            if kind != "main":
                return None
            names = [t.get("name") for t in body.get("tools", [])]
            if variant == "invalid_input":
                return [tool("StructuredOutput", {"wrong": 1})]
            if variant != "text_only" and "StructuredOutput" in names:
                last = body["messages"][-1]
                if isinstance(last.get("content"), list) and any(b.get("type") == "tool_result" for b in last["content"]):
                    return [text("done")]
                return [tool("StructuredOutput", {"name": "Ada"})]
            return [text('{"name": "Ada"}')]

        api = Api(os.path.join(ROOT, "%s_%s_api.jsonl" % (P, variant)), responder)
        args = [] if variant == "via_initialize" else ["--json-schema", json.dumps(SCHEMA)]
        s = Session(P, api, args, tag=variant)
        if variant == "via_initialize":
            req, resp = s.initialize(jsonSchema=SCHEMA)
            emit(P, "initialize_with_jsonSchema", response_subtype=resp.get("subtype"), error=resp.get("error"))
        else:
            s.initialize()
        res, n = s.turn("who?", timeout=90)
        mains = api.of("main")
        st_tool = None
        if mains:
            for t in mains[0]["body"].get("tools", []):
                if t.get("name") == "StructuredOutput":
                    st_tool = trim(t, 3, 400)
        emit(P, variant, result=trim(clean(res), 3, 300) if res else None, n_main_requests=len(mains),
             structured_tool=st_tool, first_request=body_summary(mains[0]["body"]) if mains else None,
             last_user_msg=trim(mains[-1]["body"]["messages"][-1], 3, 400) if mains else None,
             msgs=[trim(clean(m), 2, 200) for m in s.since(n) if m.get("type") in ("assistant", "user")][:6])
        s.close()
        api.close()


def probe_settings(P="settings"):
    api = Api(os.path.join(ROOT, P + "_api.jsonl"))
    base = os.path.join(ROOT, P + "-shared")
    shutil.rmtree(base, ignore_errors=True)
    home, cwd = base + "/home", base + "/work"
    write(home + "/.claude/settings.json", {"env": {"PROBE_SRC": "user"}, "permissions": {"allow": ["Bash(echo user:*)"]}})
    write(cwd + "/.claude/settings.json", {"env": {"PROBE_SRC_P": "project"}, "permissions": {"allow": ["Bash(echo project:*)"]}})
    write(cwd + "/.claude/settings.local.json", {"env": {"PROBE_SRC_L": "local"}, "permissions": {"allow": ["Bash(echo local:*)"]}})
    write(base + "/flag-settings.json", {"env": {"PROBE_SRC_F": "file"}})
    variants = [("none", []), ("user", ["--setting-sources", "user"]), ("project,local", ["--setting-sources", "project,local"]),
                ("empty", ["--setting-sources="]), ("bogus", ["--setting-sources", "bogus"]),
                ("settings_json", ["--settings", json.dumps({"env": {"PROBE_SRC_F": "json"}, "model": "claude-from-settings",
                                                              "permissions": {"allow": ["Bash(echo flag:*)"]}})]),
                ("settings_file", ["--settings", base + "/flag-settings.json"]),
                ("sandbox", ["--settings", json.dumps({"sandbox": {"enabled": True, "autoAllowBashIfSandboxed": True}})])]
    for tag, args in variants:
        s = Session(P, api, args, home=home, cwd=cwd, tag=tag)
        _, ir = s.initialize()
        if ir.get("_timeout"):
            emit(P, "variant", tag=tag, args=args, died=True, exit=s.close(), stderr=s.stderr_tail(400))
            continue
        _, gs = s.control("get_settings")
        g = gs.get("response") or {}
        eff = g.get("effective", {})
        srcs = [(x.get("source"), x.get("path"), (x.get("settings") or {}).get("env")) for x in g.get("sources", [])]
        res, n = s.turn("hi", timeout=40)
        init = s.init_msg(n)
        emit(P, "variant", tag=tag, args=[a if len(a) < 200 else a[:200] for a in args], get_settings_keys=sorted(g.keys()),
             effective_env=eff.get("env"), effective_allow=(eff.get("permissions") or {}).get("allow"),
             effective_sandbox=eff.get("sandbox"), effective_model=eff.get("model"), sources=srcs,
             provenance=trim(g.get("provenance"), 4, 120),
             get_settings_error=gs.get("error"),
             init_model=init.get("model") if init else None, result=res.get("subtype") if res else None)
        s.close()
    # sandbox: does a Bash call run?
    state = {"n": 0}

    def responder(body, kind, api):
        if kind != "main":
            return None
        state["n"] += 1
        return [tool("Bash", {"command": "echo sandboxed", "description": "echo"})] if state["n"] == 1 else [text("ok")]

    api2 = Api(os.path.join(ROOT, P + "_sandbox_api.jsonl"), responder)
    s = Session(P, api2, ["--settings", json.dumps({"sandbox": {"enabled": True}})], tag="sandbox-bash")
    s.initialize()
    res, n = s.turn("run echo", timeout=60)
    emit(P, "sandbox_bash", msgs=[trim(clean(m), 3, 400) for m in s.since(n)
                                  if m.get("type") in ("user", "control_request") or m.get("subtype") not in (None, "init", "status")
                                  and m.get("type") == "system"],
         result=res.get("subtype") if res else None, stderr=s.stderr_tail(300))
    s.close()
    api2.close()
    api.close()


def probe_plugin(P="plugin"):
    api = Api(os.path.join(ROOT, P + "_api.jsonl"))
    pdir = os.path.join(ROOT, P + "-plugin", "probeplug")
    shutil.rmtree(os.path.dirname(pdir), ignore_errors=True)
    write(pdir + "/.claude-plugin/plugin.json", {"name": "probeplug", "version": "0.1.0", "description": "probe plugin"})
    write(pdir + "/commands/hello.md", "---\ndescription: Say hello from the probe plugin\n---\nSay hello to $ARGUMENTS\n")
    write(pdir + "/agents/helper.md", "---\nname: helper\ndescription: A probe helper agent\n---\nYou help.\n")
    write(pdir + "/skills/probe-skill/SKILL.md", "---\nname: probe-skill\ndescription: A probe skill\n---\nDo the probe thing.\n")
    for tag, args in (("dir", ["--plugin-dir", pdir]), ("missing", ["--plugin-dir", pdir + "-nope"])):
        s = Session(P, api, args, tag=tag)
        _, ir = s.initialize()
        r = ir.get("response") or {}
        res, n = s.turn("hi", timeout=40)
        init = s.init_msg(n)
        emit(P, "plugin_dir", tag=tag, init_ok=ir.get("subtype"), error=ir.get("error"),
             commands=[c for c in r.get("commands", []) if "probe" in json.dumps(c) or "hello" in c.get("name", "")],
             agents=[a for a in r.get("agents", []) if "helper" in json.dumps(a)],
             init_plugins=init.get("plugins") if init else None,
             init_plugin_errors=init.get("plugin_errors") if init else None,
             init_slash=[c for c in (init or {}).get("slash_commands", []) if "probe" in c or "hello" in c],
             init_agents=[a for a in (init or {}).get("agents", []) if "helper" in a],
             init_skills=[a for a in (init or {}).get("skills", []) if "probe" in a],
             result=res.get("subtype") if res else None, stderr=s.stderr_tail(200) if not res else None)
        if tag == "dir":
            _, rp = s.control("reload_plugins")
            rr = rp.get("response") or {}
            emit(P, "reload_plugins", keys=sorted(rr.keys()), plugins=rr.get("plugins"), error_count=rr.get("error_count"))
        s.close()
    api.close()


def transcripts(home):
    out = []
    for root, _, files in os.walk(os.path.join(home, ".claude", "projects")):
        for f in files:
            if f.endswith(".jsonl"):
                out.append(os.path.relpath(os.path.join(root, f), home))
    return sorted(out)


def probe_session(P="session"):
    api = Api(os.path.join(ROOT, P + "_api.jsonl"))
    base = os.path.join(ROOT, P + "-shared")
    shutil.rmtree(base, ignore_errors=True)
    home, cwd = base + "/home", base + "/work"
    sid = str(uuidlib.uuid4())
    # --session-id
    s = Session(P, api, ["--session-id", sid], home=home, cwd=cwd, tag="sid")
    s.initialize()
    ids = []
    for i in range(3):
        res, n = s.turn("turn %d" % (i + 1))
        a = [m for m in s.since(n) if m.get("type") == "assistant"]
        u = [m for m in s.since(n) if m.get("type") == "user"]
        ids.append({"assistant_uuid": a[-1].get("uuid") if a else None, "result_uuid": res.get("uuid") if res else None,
                    "user_echo": bool(u)})
    init = s.init_msg(0)
    emit(P, "session_id_flag", sent_id=sid, init_session_id=init.get("session_id") if init else None,
         result_session_id=res.get("session_id") if res else None, transcripts=transcripts(home), turn_ids=ids)
    s.close()
    tfile = [t for t in transcripts(home) if sid in t]
    lines = [json.loads(x) for x in open(os.path.join(home, tfile[0]))] if tfile else []
    chain = [(l.get("type"), l.get("uuid"), (l.get("message") or {}).get("content") if l.get("type") == "user" else None)
             for l in lines if l.get("type") in ("user", "assistant")]
    emit(P, "transcript_chain", chain=[(t, u, c if isinstance(c, str) else None) for t, u, c in chain])
    # same --session-id again (already used)
    emit(P, "session_id_reuse", outcome=run_once(["--session-id", sid], api, cwd=cwd, home=home))
    emit(P, "session_id_invalid", outcome=run_once(["--session-id", "not-a-uuid"], api))
    # --resume + --resume-session-at (cut after first assistant message)
    cut = ids[0]["assistant_uuid"]
    k = len(api.of("main"))
    s = Session(P, api, ["--resume=" + sid, "--resume-session-at=" + str(cut)], home=home, cwd=cwd, tag="at")
    _, ir = s.initialize()
    res, n = s.turn("after cut")
    init = s.init_msg(n)
    bodies = api.of("main")[k:]
    msgs = bodies[0]["body"]["messages"] if bodies else []
    emit(P, "resume_session_at", cut_at=cut, init_ok=ir.get("subtype"),
         init_session_id=init.get("session_id") if init else None, same_session=(init or {}).get("session_id") == sid,
         api_messages=[(m["role"], trim(m["content"], 4, 80)) for m in msgs],
         result=res.get("subtype") if res else None, stderr=s.stderr_tail(300) if not res else None,
         transcripts=transcripts(home))
    s.close()
    # --resume-session-at with a user-message uuid and with garbage, and without --resume
    emit(P, "resume_session_at_bogus", outcome=run_once(["--resume=" + sid, "--resume-session-at=" + str(uuidlib.uuid4())],
                                                         api, cwd=cwd, home=home))
    emit(P, "resume_session_at_without_resume", outcome=run_once(["--resume-session-at=" + str(cut)], api, cwd=cwd, home=home))
    # --resume + --fork-session + --session-id
    fid = str(uuidlib.uuid4())
    emit(P, "fork_with_session_id", outcome=run_once(["--resume=" + sid, "--fork-session", "--session-id", fid],
                                                      api, cwd=cwd, home=home),
         fork_file=[t for t in transcripts(home) if fid in t])
    # --no-session-persistence
    home2 = base + "/home-nopersist"
    s = Session(P, api, ["--no-session-persistence"], home=home2, cwd=cwd, tag="nopersist")
    s.initialize()
    res, n = s.turn("hi")
    init = s.init_msg(n)
    sid2 = init.get("session_id") if init else None
    s.close()
    emit(P, "no_session_persistence", result=res.get("subtype") if res else None, session_id=sid2,
         transcripts=transcripts(home2),
         resume_it=run_once(["--resume=" + str(sid2)], api, cwd=cwd, home=home2))
    api.close()


def probe_strict_mcp(P="strict_mcp"):
    api = Api(os.path.join(ROOT, P + "_api.jsonl"))
    srv = mcp_server_file()
    base = os.path.join(ROOT, P + "-shared")
    shutil.rmtree(base, ignore_errors=True)
    home, cwd = base + "/home", base + "/work"
    write(home + "/.claude.json", {"mcpServers": {"usersrv": {"type": "stdio", "command": sys.executable, "args": [srv, "usersrv"]}}})
    write(cwd + "/.mcp.json", {"mcpServers": {"projsrv": {"type": "stdio", "command": sys.executable, "args": [srv, "projsrv"]}}})
    cfg = json.dumps({"mcpServers": {"calc": {"type": "sdk", "name": "calc"}}})
    for tag, args in (("plain", ["--mcp-config", cfg]), ("strict", ["--mcp-config", cfg, "--strict-mcp-config"]),
                      ("strict_no_config", ["--strict-mcp-config"])):
        s = Session(P, api, args, home=home, cwd=cwd, tag=tag)
        s.initialize()
        res, n = s.turn("hi", timeout=40)
        init = s.init_msg(n)
        _, st = s.control("mcp_status")
        emit(P, "variant", tag=tag, init_mcp_servers=init.get("mcp_servers") if init else None,
             mcp_status=[(x.get("name"), x.get("status"), x.get("scope")) for x in (st.get("response") or {}).get("mcpServers", [])])
        s.close()
    api.close()


PROBES = {"initialize": probe_initialize, "controls": probe_controls, "mcp": probe_mcp, "stop_task": probe_stop_task,
          "thinking": probe_thinking, "fallback": probe_fallback, "budget": probe_budget,
          "json_schema": probe_json_schema, "settings": probe_settings, "plugin": probe_plugin,
          "session": probe_session, "strict_mcp": probe_strict_mcp}


def main():
    global CLAUDE
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    CLAUDE = os.path.abspath(os.path.expanduser(sys.argv[1]))
    names = sys.argv[2:] or list(PROBES)
    os.makedirs(ROOT, exist_ok=True)
    v = subprocess.run([CLAUDE, "--version"], capture_output=True, text=True).stdout.strip()
    emit("meta", "version", version=v, probes=names, raw_dir=ROOT)
    for name in names:
        t = time.time()
        try:
            PROBES[name]()
        except Exception as e:  # keep going with the other probes
            emit(name, "probe_failed", error=repr(e))
        emit(name, "done", seconds=round(time.time() - t, 1))


if __name__ == "__main__":
    main()
