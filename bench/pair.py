#!/usr/bin/env python3
"""Two commands timed side by side: A, B, A, B, ... (after one warm-up run
of each, not counted), so that both see the same load; prints, as JSON,
each one's median wall time and the median of the pairs' ratios A/B, and
each one's median CPU time (user + system, the kernel's accounting of the
finished child) and their ratio.

usage: pair.py RUNS ENV_JSON [--stdin FILE] -- A... --vs B...
ENV_JSON: variables added for both (a JSON object; "{}" for none).
--stdin FILE: each run reads FILE on its standard input (no shell between,
whose own start would count in the CPU time).
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
STDIN = [None]

def run(env, argv):
    RUN[0] += 1
    env = {k: v.replace("{n}", str(RUN[0])) for k, v in env.items()}
    t = time.perf_counter()
    stdin = open(STDIN[0], "rb") if STDIN[0] else subprocess.DEVNULL
    p = subprocess.Popen(argv, env=env, stdin=stdin, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE)
    err = p.stderr.read()
    if STDIN[0]:
        stdin.close()
    # the kernel's accounting of the finished child: its CPU time
    _, status, usage = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t
    code = os.waitstatus_to_exitcode(status)
    if code not in (0, 1):  # rg and grep: 1 is "no match"
        sys.exit(f"{argv} failed ({code}): {err.decode()[-500:]}")
    return wall, usage.ru_utime + usage.ru_stime

def main():
    runs, extra = int(sys.argv[1]), json.loads(sys.argv[2])
    rest = sys.argv[3:]
    if rest[:1] == ["--stdin"]:
        STDIN[0], rest = rest[1], rest[2:]
    assert rest[0] == "--" and "--vs" in rest
    k = rest.index("--vs")
    ea, a = split(rest[1:k])
    eb, b = split(rest[k + 1:])
    base = dict(os.environ, **extra)
    env_a, env_b = dict(base, **ea), dict(base, **eb)
    run(env_a, a), run(env_b, b)
    ta, tb, ca, cb = [], [], [], []
    for _ in range(runs):
        wall, cpu = run(env_a, a)
        ta.append(wall), ca.append(cpu)
        wall, cpu = run(env_b, b)
        tb.append(wall), cb.append(cpu)
    print(json.dumps({
        "a_ms": round(statistics.median(ta) * 1000, 1),
        "b_ms": round(statistics.median(tb) * 1000, 1),
        "ratio": round(statistics.median(x / y for x, y in zip(ta, tb)), 2),
        "a_cpu_ms": round(statistics.median(ca) * 1000, 2),
        "b_cpu_ms": round(statistics.median(cb) * 1000, 2),
        "cpu_ratio": round(statistics.median(ca) / statistics.median(cb), 2) if statistics.median(cb) else None,
        "runs": runs,
        "load": round(os.getloadavg()[0], 1),
    }))

main()
