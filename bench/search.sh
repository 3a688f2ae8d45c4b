#!/usr/bin/env bash
# Searching inside conversations on the big store (bench/gen_store.py):
# `claudio sessions search --all` beside ripgrep and grep listing the files
# that match, with the same matching rules (a lowercase literal under smart
# case is `rg -l -F -i`), warm cache, wall time and peak RSS (medians).
# A rare literal is planted in 5 transcripts, and a frequent word ("Frog",
# searched as `frog`) in every sixth (1,667 of 10,000), their times kept.
#
#   bench/search.sh [SESSIONS=10000] [TOTAL_GB=2] [RUNS=5]
# ripgrep: `pip install ripgrep` or `cargo install ripgrep` (`rg` on PATH).
# Regexes: plain, with word boundaries, anchored at a line of a message.
# Then the goals of #44, side by side (bench/pair.py: A, B, A, B, ...; the
# median of the pairs' ratios): the frequent word beside `rg -l -i -F`,
# and `\bfrog\b` beside `rg -l -i`, each at most 1.0.
set -euo pipefail
cd "$(dirname "$0")/.."
n="${1:-10000}"; gb="${2:-2}"; runs="${3:-5}"
store="${CLAUDIO_BENCH_DIR:-/tmp/claudio-bench}/store-$n"
[ -d "$store/projects" ] || python3 bench/gen_store.py "$store" "$n" "$gb"
cargo build --release --quiet --bin claudio
# plant the rare literal (a separate process: the measuring one stays small,
# so the children's peak RSS is theirs)
python3 - "$store" <<'PY'
import glob, json, os, random, sys
store = sys.argv[1]
rare = "quokka-rare-7731"
files = sorted(glob.glob(os.path.join(store, "projects", "*", "*.jsonl")))
def has(f):
    with open(f, "rb") as fh:
        fh.seek(max(0, os.path.getsize(f) - 4096))
        return rare.upper().encode() in fh.read()
if not any(has(f) for f in files[:0] + random.Random(3).sample(files, 5)):
    for f in random.Random(3).sample(files, 5):
        st = os.stat(f)
        sid = os.path.basename(f)[:-6]
        line = json.dumps({"type": "user", "message": {"role": "user", "content": f"where is the {rare.upper()} config?"},
                           "uuid": "00000000-0000-4000-8000-00000000beef", "parentUuid": None, "sessionId": sid,
                           "timestamp": "2026-11-01T10:00:00.000Z", "isSidechain": False})
        with open(f, "a") as fh:
            fh.write(line + "\n")
        os.utime(f, (st.st_atime, st.st_mtime))
# the frequent word: a prompt at the end of every sixth transcript
for f in files[::6]:
    with open(f, "rb") as fh:
        fh.seek(max(0, os.path.getsize(f) - 4096))
        if b"the Frog" in fh.read():
            continue
    st = os.stat(f)
    sid = os.path.basename(f)[:-6]
    line = json.dumps({"type": "user", "message": {"role": "user", "content": "and where did the Frog go?"},
                       "uuid": "00000000-0000-4000-8000-00000000f0f0", "parentUuid": None, "sessionId": sid,
                       "timestamp": "2026-11-02T10:00:00.000Z", "isSidechain": False})
    with open(f, "a") as fh:
        fh.write(line + "\n")
    os.utime(f, ns=(st.st_atime_ns, st.st_mtime_ns))
PY
python3 - "$store" "$runs" <<'PY'
import glob, json, os, shutil, statistics, subprocess, sys, time
store, runs = sys.argv[1], int(sys.argv[2])
rare = "quokka-rare-7731"
env = dict(os.environ, CLAUDE_CONFIG_DIR=store, NO_COLOR="1")
proj = os.path.join(store, "projects")
timer = ["/usr/bin/time", "-f", "%M"] if os.path.exists("/usr/bin/time") else []
def measure(argv):
    walls, rss = [], []
    for i in range(runs + 1):  # the first run warms the cache
        t = time.perf_counter()
        p = subprocess.run(timer + argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        wall = time.perf_counter() - t
        if i:
            walls.append(wall)
            if timer:
                rss.append(int(p.stderr.decode().strip().splitlines()[-1]) / 1024)
    out = {"ms": round(statistics.median(walls) * 1000), "files": p.stdout.count(b"\n")}
    if rss:
        out["peak_rss_mb"] = round(statistics.median(rss), 1)
    return out
files = glob.glob(os.path.join(proj, "*", "*.jsonl"))
res = {"store_gb": round(sum(os.path.getsize(f) for f in files) / 1e9, 2), "files": len(files)}
claudio = "target/release/claudio"
res["literal"] = {"claudio": measure([claudio, "sessions", "search", "--all", "--json", rare])}
# a frequent word (in 1,667 sessions): every hit is parsed and its session
# listed; as a literal and as a regex with word boundaries
res["frequent"] = {"claudio": measure([claudio, "sessions", "search", "--all", "--json", "frog"])}
res["frequent_word"] = {"claudio": measure([claudio, "sessions", "search", "--all", "--json", "--regex", r"\bfrog\b"])}
res["regex"] = {"claudio": measure([claudio, "sessions", "search", "--all", "--json", "--regex", r"quokka-rare-\d+"])}
# with a look-around: the candidate lines are parsed without a first match
# on the whole line; `^` is a line of the decoded text (rg has no such
# line: the nearest is the pattern without it)
res["word"] = {"claudio": measure([claudio, "sessions", "search", "--all", "--json", "--regex", r"\bquokka-rare-\d+\b"])}
res["anchored"] = {"claudio": measure([claudio, "sessions", "search", "--all", "--json", "--regex", r"^where is the quokka-rare-\d+"])}
if shutil.which("rg"):
    res["rg"] = subprocess.run(["rg", "--version"], stdout=subprocess.PIPE).stdout.decode().split("\n")[0]
    res["literal"]["rg -l -F -i"] = measure(["rg", "-l", "-F", "-i", rare, proj])
    res["frequent"]["rg -l -i -F"] = measure(["rg", "-l", "-i", "-F", "frog", proj])
    res["frequent_word"]["rg -l -i"] = measure(["rg", "-l", "-i", r"\bfrog\b", proj])
    res["regex"]["rg -l -i"] = measure(["rg", "-l", "-i", r"quokka-rare-\d+", proj])
    res["word"]["rg -l -i"] = measure(["rg", "-l", "-i", r"\bquokka-rare-\d+\b", proj])
    res["anchored"]["rg -l -i"] = measure(["rg", "-l", "-i", r"where is the quokka-rare-\d+", proj])
res["literal"]["grep -rlFi"] = measure(["grep", "-rlFi", rare, proj])
res["regex"]["grep -rliE"] = measure(["grep", "-rliE", "quokka-rare-[0-9]+", proj])
print(json.dumps(res, indent=1))
PY
if command -v rg >/dev/null; then
  env="{\"CLAUDE_CONFIG_DIR\": \"$store\", \"NO_COLOR\": \"1\"}"
  echo "frog / rg -l -i -F frog:              $(python3 bench/pair.py "$runs" "$env" -- target/release/claudio sessions search --all --json frog --vs rg -l -i -F frog "$store/projects")"
  echo "--regex '\bfrog\b' / rg -l -i '\bfrog\b': $(python3 bench/pair.py "$runs" "$env" -- target/release/claudio sessions search --all --json --regex '\bfrog\b' --vs rg -l -i '\bfrog\b' "$store/projects")"
fi
