#!/usr/bin/env python3
"""Probe how the real CLI remembers approvals (issue: remembered approvals).

Usage: python3 scripts/probe-permissions.py CLAUDE_PATH

1. A Bash call is asked (`can_use_tool`); the host allows it with the CLI's
   own suggestion, its destination set to `localSettings` (then, in a second
   project, `userSettings`). Which file does the CLI write, with what?
2. `list_permission_rules`: does 2.1.328 answer it, and how?
3. A second session in the same folder: is the same call asked again?
4. `update_settings` (localSettings) with a smaller allow list: does the CLI
   remove the rule (so claudio never edits settings files by hand)?
Uses scripts/probe-cli.py's fake API and session driver.
"""
import importlib.util
import json
import os
import sys

spec = importlib.util.spec_from_file_location("probe", os.path.join(os.path.dirname(__file__), "probe-cli.py"))
P = importlib.util.module_from_spec(spec)
spec.loader.exec_module(P)


def main():
    P.CLAUDE = os.path.abspath(os.path.expanduser(sys.argv[1]))
    os.makedirs(P.ROOT, exist_ok=True)
    state = {"n": 0}

    def responder(body, kind, api):
        if kind != "main":
            return None
        # a tool call, then a text answer, turn after turn
        last = json.dumps(body.get("messages", [])[-1:])
        if "tool_result" in last:
            return [P.text("done")]
        return [P.tool("Bash", {"command": "touch made-by-probe", "description": "make a file"})]

    api = P.Api(os.path.join(P.ROOT, "remember_api.jsonl"), responder)
    base = os.path.join(P.ROOT, "remember-shared")
    home, cwd = base + "/home", base + "/work"
    os.makedirs(cwd, exist_ok=True)
    asked = []

    def on_perm(dest):
        def answer(req):
            asked.append(req)
            rules = [dict(s, destination=dest) for s in req.get("permission_suggestions", [])
                     if s.get("type") == "addRules"]
            return {"behavior": "allow", "updatedInput": req.get("input", {}), "updatedPermissions": rules}
        return answer

    s = P.Session("remember", api, home=home, cwd=cwd, on_perm=on_perm("localSettings"), tag="first")
    s.initialize()
    res, _ = s.turn("make the file")
    P.emit("remember", "asked", suggestions=[r.get("permission_suggestions") for r in asked],
           result=res.get("subtype") if res else None)
    for f in [cwd + "/.claude/settings.local.json", cwd + "/.claude/settings.json", home + "/.claude/settings.json"]:
        P.emit("remember", "file", path=f.replace(base, ""), content=open(f).read() if os.path.exists(f) else None)
    _, rules = s.control("list_permission_rules")
    P.emit("remember", "list_permission_rules", response=P.trim(rules, 8, 300))
    s.close()

    asked.clear()
    s = P.Session("remember", api, home=home, cwd=cwd, on_perm=on_perm("localSettings"), tag="second")
    s.initialize()
    res, n = s.turn("make the file again")
    P.emit("remember", "second_session", asked_again=len(asked), result=res.get("subtype") if res else None)
    _, upd = s.control("update_settings", source="localSettings", settings={"permissions": {"allow": []}})
    P.emit("remember", "update_settings", response=upd,
           local=open(cwd + "/.claude/settings.local.json").read())
    _, rules = s.control("list_permission_rules")
    P.emit("remember", "rules_after_update", response=P.trim(rules, 8, 300))
    s.close()

    asked.clear()
    cwd2 = base + "/work2"
    os.makedirs(cwd2, exist_ok=True)
    s = P.Session("remember", api, home=home, cwd=cwd2, on_perm=on_perm("userSettings"), tag="user")
    s.initialize()
    res, n = s.turn("make the file")
    f = home + "/.claude/settings.json"
    P.emit("remember", "user_file", content=open(f).read() if os.path.exists(f) else None)
    s.close()
    api.close()


if __name__ == "__main__":
    main()
