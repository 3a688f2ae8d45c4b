#!/usr/bin/env python3
"""Two commands timed side by side: A, B, A, B, ... (after one warm-up run
of each, not counted), so that both see the same load; prints, as JSON,
each one's median wall time and the median of the pairs' ratios A/B.

usage: pair.py RUNS ENV_JSON -- A... --vs B...
ENV_JSON: variables added for both (a JSON object; "{}" for none).
Each command's own variables: prefix words NAME=VALUE before it; "{n}" in
a value is the run's number (a new cache folder each run: a first run).
"""
import json, os, statistics, subprocess, sys, time

def split(argv):
    env, i = {}, 0
    while i < len(argv) and "=" in argv[i] and not argv[i].startswith(("/", "-")):
        k, v = argv[i].split("=", 1)
        env[k] = v
        i += 1
    return env, argv[i:]

RUN = [0]

def run(env, argv):
    RUN[0] += 1
    env = {k: v.replace("{n}", str(RUN[0])) for k, v in env.items()}
    t = time.perf_counter()
    p = subprocess.run(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    wall = time.perf_counter() - t
    if p.returncode not in (0, 1):  # rg and grep: 1 is "no match"
        sys.exit(f"{argv} failed ({p.returncode}): {p.stderr.decode()[-500:]}")
    return wall

def main():
    runs, extra = int(sys.argv[1]), json.loads(sys.argv[2])
    rest = sys.argv[3:]
    assert rest[0] == "--" and "--vs" in rest
    k = rest.index("--vs")
    ea, a = split(rest[1:k])
    eb, b = split(rest[k + 1:])
    base = dict(os.environ, **extra)
    env_a, env_b = dict(base, **ea), dict(base, **eb)
    run(env_a, a), run(env_b, b)
    ta, tb = [], []
    for _ in range(runs):
        ta.append(run(env_a, a))
        tb.append(run(env_b, b))
    print(json.dumps({
        "a_ms": round(statistics.median(ta) * 1000, 1),
        "b_ms": round(statistics.median(tb) * 1000, 1),
        "ratio": round(statistics.median(x / y for x, y in zip(ta, tb)), 2),
        "runs": runs,
        "load": round(os.getloadavg()[0], 1),
    }))

main()
