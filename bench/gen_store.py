#!/usr/bin/env python3
"""A big transcript store for the listing benchmark: N sessions made by copying
the real transcripts in tests/fixtures/sessions/real with fresh ids, padded to
sizes between 150 KB and 50 MB (most short, a log-uniform tail of long ones
up to the total size), spread over 50 projects.

usage: gen_store.py CONFIG_DIR [N=10000] [TOTAL_GB=2]
"""
import glob, json, math, os, random, sys, uuid

out, n, total_gb = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 10000, float(sys.argv[3]) if len(sys.argv) > 3 else 2
root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
bases = [p for p in glob.glob(os.path.join(root, "tests/fixtures/sessions/real/projects/*/*.jsonl"))]
rnd = random.Random(7)
sources = []
for p in bases:
    with open(p, encoding="utf-8") as f:
        lines = f.read().splitlines()
    sid = os.path.basename(p)[:-6]
    if len(lines) > 4:
        sources.append((sid, lines))
# sizes: most sessions short (150-160 KB), and a long tail log-uniform in
# [150 KB, 50 MB], as many of those as the total allows (about 60 for 2 GB)
lo, hi = 150e3, 50e6
tail_mean = (hi - lo) / math.log(hi / lo)
small_mean = 155e3
share = min(1.0, max(0.0, (total_gb * 1e9 - n * small_mean) / (n * (tail_mean - small_mean))))
sizes = [lo * (hi / lo) ** rnd.random() if rnd.random() < share else rnd.uniform(150e3, 160e3)
         for _ in range(n)]
written = 0
for i in range(n):
    sid, lines = sources[i % len(sources)]
    new = str(uuid.UUID(int=rnd.getrandbits(128), version=4))
    project = os.path.join(out, "projects", f"-bench-project-{i % 50:02d}")
    os.makedirs(project, exist_ok=True)
    body = [l.replace(sid, new) for l in lines]
    head, tail = body[:len(body) // 2], body[len(body) // 2:]
    text = "\n".join(head) + "\n"
    filler_src = [l for l in head if '"type":"assistant"' in l] or head
    filler = filler_src[0] + "\n"
    need = int(sizes[i]) - len(text.encode()) - len(("\n".join(tail) + "\n").encode())
    path = os.path.join(project, new + ".jsonl")
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
        if need > 0:
            reps = need // len(filler.encode()) + 1
            f.write(filler * reps)
        f.write("\n".join(tail) + "\n")
    written += os.path.getsize(path)
    t = 1_700_000_000 + i * 60
    os.utime(path, (t, t))
print(f"{out}: {n} sessions, {written / 1e9:.2f} GB", file=sys.stderr)
