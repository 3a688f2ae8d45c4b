#!/usr/bin/env python3
"""A scripted stand-in for the Anthropic Messages API, for the README's demo.

The real Claude Code CLI is pointed here with ANTHROPIC_BASE_URL; it runs its
tools for real, and this server plays the model from a fixed script (the
SCRIPT list below), one reply per main request. Helper requests (session
titles, token counts, suggestions) get a short answer and leave the script
alone, as in tests/support/mock_api.rs, whose rules this follows.

    python3 docs/demo/mock_api.py PORT     # serves until killed

Only the standard library is used.
"""

import json
import os
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

# What the model answers, in order: a list of content blocks per main request.
SCRIPT = [
    # the first prompt: a few words, then a command to run (asks for approval)
    [
        {"type": "text", "text": "Let me run the tests first."},
        {"type": "tool_use", "name": "Bash",
         "input": {"command": "python3 -m unittest 2>&1 | grep -E '^(FAIL|Assert)'",
                   "description": "Run the tests"}},
    ],
    # after the test output: a fix to approve
    [
        {"type": "text", "text": "A discount above the subtotal makes the total "
                                 "negative. I'll clamp it at zero."},
        {"type": "tool_use", "name": "Edit",
         "input": {"file_path": "@CWD@/checkout.py",
                   "old_string": "    return subtotal - discount\n",
                   "new_string": "    return max(subtotal - discount, 0)\n"}},
    ],
    # after the edit: the answer
    [
        {"type": "text", "text":
            "Fixed: `total()` now stops at **zero**, as `test_big_discount` "
            "expects.\n\n"
            "- `total(10, 3)` is still 7\n"
            "- `total(10, 15)` is now 0 (it was -5)\n"},
    ],
]

ENVIRONMENT_MARKER = "You have been invoked in the following environment"
FORK_HELPER_MARKERS = (
    "This is a side question from the user",
    "[SUGGESTION MODE:",
    "Your task is to create a detailed summary of the conversation so far",
)
DELAY = float(os.environ.get("DEMO_DELAY", "0.02"))  # seconds between streamed words

lock = threading.Lock()
step = 0
cwd = "/tmp"


def is_main(path, body):
    """A main turn consumes the script; helpers do not (see mock_api.rs)."""
    if path.split("?")[0] != "/v1/messages":
        return False
    if (body.get("output_config") or {}).get("format"):
        return False
    text = json.dumps(body.get("messages", []))
    if not body.get("tools") and "thinking" not in body and ENVIRONMENT_MARKER not in text:
        return False
    users = [m for m in body.get("messages", []) if m.get("role") == "user"]
    last = json.dumps(users[-1].get("content")) if users else ""
    return not any(mark in last for mark in FORK_HELPER_MARKERS)


def fill(schema):
    """A value of the requested JSON schema (structured-output helpers)."""
    kind = schema.get("type")
    if kind == "object":
        return {k: ("A checkout fix" if k == "title" else fill(v))
                for k, v in schema.get("properties", {}).items()}
    if kind == "array":
        return []
    if kind == "boolean":
        return False
    if kind in ("integer", "number"):
        return 0
    return (schema.get("enum") or ["demo"])[0]


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_HEAD(self):
        self.send_response(200)
        self.send_header("content-length", "0")
        self.end_headers()

    def do_GET(self):
        self.json(200, {})

    def json(self, status, obj):
        data = json.dumps(obj).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self):
        global step
        n = int(self.headers.get("content-length", 0))
        body = json.loads(self.rfile.read(n) or b"{}")
        if self.path.split("?")[0] == "/v1/messages/count_tokens":
            return self.json(200, {"input_tokens": max(1, n // 4)})
        if not self.path.startswith("/v1/messages"):
            return self.json(200, {})
        if is_main(self.path, body):
            with lock:
                blocks = SCRIPT[step] if step < len(SCRIPT) else [
                    {"type": "text", "text": "That is all the demo knows."}]
                step += 1
        else:
            schema = ((body.get("output_config") or {}).get("format") or {}).get("schema")
            text = json.dumps(fill(schema)) if schema else "OK."
            blocks = [{"type": "text", "text": text}]
        blocks = json.loads(json.dumps(blocks).replace("@CWD@", cwd))
        self.stream(body, blocks, n)

    def event(self, obj):
        payload = f"event: {obj['type']}\ndata: {json.dumps(obj)}\n\n".encode()
        self.wfile.write(b"%x\r\n%s\r\n" % (len(payload), payload))
        self.wfile.flush()

    def stream(self, body, blocks, n):
        model = body.get("model", "claude-demo")
        usage = {"input_tokens": max(1, n // 4), "cache_creation_input_tokens": 0,
                 "cache_read_input_tokens": 0, "output_tokens": 1}
        self.send_response(200)
        self.send_header("content-type", "text/event-stream; charset=utf-8")
        self.send_header("cache-control", "no-cache")
        self.send_header("transfer-encoding", "chunked")
        self.end_headers()
        msg_id = f"msg_demo_{time.monotonic_ns()}"
        self.event({"type": "message_start", "message": {
            "id": msg_id, "type": "message", "role": "assistant", "model": model,
            "content": [], "stop_reason": None, "stop_sequence": None, "usage": usage}})
        stop = "end_turn"
        out_tokens = 0
        for i, b in enumerate(blocks):
            if b["type"] == "text":
                self.event({"type": "content_block_start", "index": i,
                            "content_block": {"type": "text", "text": ""}})
                words = b["text"].split(" ")
                for j, w in enumerate(words):
                    time.sleep(DELAY)
                    piece = w if j == len(words) - 1 else w + " "
                    self.event({"type": "content_block_delta", "index": i,
                                "delta": {"type": "text_delta", "text": piece}})
                out_tokens += len(b["text"]) // 4
            else:
                stop = "tool_use"
                tid = f"toolu_demo_{time.monotonic_ns()}"
                self.event({"type": "content_block_start", "index": i, "content_block": {
                    "type": "tool_use", "id": tid, "name": b["name"], "input": {}}})
                self.event({"type": "content_block_delta", "index": i, "delta": {
                    "type": "input_json_delta", "partial_json": json.dumps(b["input"])}})
                out_tokens += len(json.dumps(b["input"])) // 4
            self.event({"type": "content_block_stop", "index": i})
        self.event({"type": "message_delta",
                    "delta": {"stop_reason": stop, "stop_sequence": None},
                    "usage": dict(usage, output_tokens=max(1, out_tokens))})
        self.event({"type": "message_stop"})
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()


def main():
    global cwd
    port = int(sys.argv[1]) if len(sys.argv) > 1 else 0
    if len(sys.argv) > 2:
        cwd = sys.argv[2]
    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    print(server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()
