#!/usr/bin/env python3
"""Write a realistic stream-json turn of about N bytes: many messages, each
streamed as text deltas (stream_event lines) and then repeated whole as an
`assistant` line, the way the CLI does with --include-partial-messages.

usage: gen_stream.py OUT_FILE MEGABYTES
"""
import json, random, sys, uuid

out_path, megabytes = sys.argv[1], float(sys.argv[2])
target = int(megabytes * 1_000_000)
rnd = random.Random(42)
words = ("the a function returns value error file test build crate async await "
         "stream delta token claude tool result session lines bytes parse render "
         "terminal markdown `code` **bold** ünïcödé 日本語 — ✓").split()
sid = str(uuid.UUID(int=rnd.getrandbits(128)))
written = 0
n_msg = 0
with open(out_path, "w", encoding="utf-8") as f:
    def line(obj):
        global written
        s = json.dumps(obj, ensure_ascii=False, separators=(",", ":")) + "\n"
        f.write(s)
        written += len(s.encode("utf-8"))
    line({"type": "system", "subtype": "init", "session_id": sid, "model": "claude-opus-5-5",
          "cwd": "/tmp", "tools": ["Bash", "Read", "Edit"], "permissionMode": "default",
          "mcp_servers": [], "uuid": str(uuid.uuid4())})
    while written < target:
        n_msg += 1
        mid = f"msg_{n_msg:08d}"
        # The fields and their order as the real CLI (2.1.328) writes them.
        def ev(e):
            line({"type": "stream_event", "event": e, "session_id": sid,
                  "parent_tool_use_id": None, "uuid": str(uuid.UUID(int=rnd.getrandbits(128))),
                  "api_message_id": mid})
        ev({"type": "message_start", "message": {"id": mid, "type": "message", "role": "assistant",
            "model": "claude-opus-5-5", "content": [], "stop_reason": None,
            "usage": {"input_tokens": 12, "output_tokens": 1}}})
        ev({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}})
        text = []
        for _ in range(rnd.randint(40, 120)):
            chunk = " ".join(rnd.choice(words) for _ in range(rnd.randint(2, 9))) + rnd.choice([" ", ". ", "\n", ", "])
            text.append(chunk)
            ev({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": chunk}})
        ev({"type": "content_block_stop", "index": 0})
        line({"type": "assistant", "message": {"id": mid, "type": "message", "role": "assistant",
              "model": "claude-opus-5-5", "content": [{"type": "text", "text": "".join(text)}],
              "stop_reason": None, "usage": {"input_tokens": 12, "output_tokens": 300}},
              "parent_tool_use_id": None, "session_id": sid, "uuid": str(uuid.uuid4()),
              "timestamp": "2026-11-29T23:28:03.596Z", "request_id": f"req_{n_msg:08d}"})
        ev({"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 300}})
        ev({"type": "message_stop"})
    line({"type": "result", "subtype": "success", "is_error": False, "result": "done",
          "session_id": sid, "num_turns": n_msg, "duration_ms": 1000, "total_cost_usd": 1.0,
          "terminal_reason": "completed"})
print(f"{out_path}: {written} bytes, {n_msg} messages", file=sys.stderr)
