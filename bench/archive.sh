#!/usr/bin/env bash
# Archiving the big store (bench/gen_store.py): `claudio sessions archive`
# into a fresh archive (every file compressed), again with nothing changed
# (the incremental pass), and again with 100 transcripts touched (their
# times put back afterwards); then listing, searching and counting the usage
# of the 10,000 sessions from the archive alone (the CLI having deleted them
# all), beside the same on the live store. Wall time and peak RSS of
# each (the median of three runs after a warming one, for the runs that can
# be repeated), the archive's size against the store's. Then the goal of
# #44, side by side with the live store: search (a word in none, and a
# frequent word with `--hits 1`) and usage from the archive, which reads the
# usage summary each archived file ends with, and searches that pass over
# the transcripts whose grams filter says they cannot match; with
# CLAUDIO_BENCH_OLD_ARCHIVE=DIR, the usage of an archive written before
# there were summaries (read whole) too; with CLAUDIO_BENCH_CODECS=1, the
# floor of decompressing the store with zstd and with LZ4.
#
#   bench/archive.sh [SESSIONS=10000] [TOTAL_GB=2]
set -euo pipefail
cd "$(dirname "$0")/.."
n="${1:-10000}"; gb="${2:-2}"
base="${CLAUDIO_BENCH_DIR:-/tmp/claudio-bench}"
store="$base/store-$n"
[ -d "$store/projects" ] || python3 bench/gen_store.py "$store" "$n" "$gb"
cargo build --release --quiet --bin claudio
archive="$(mktemp -d "$base/archive-XXXXXX")"
empty="$(mktemp -d "$base/empty-XXXXXX")"
trap 'rm -rf "$archive" "$empty"' EXIT
python3 - "$store" "$archive" "$empty" <<'PY'
import glob, json, os, random, shutil, statistics, subprocess, sys, time
store, archive, empty = sys.argv[1:4]
timer = ["/usr/bin/time", "-f", "%M"] if os.path.exists("/usr/bin/time") else []
claudio = "target/release/claudio"
def run(argv, config_dir, ok=(0,)):
    env = dict(os.environ, CLAUDE_CONFIG_DIR=config_dir, CLAUDIO_ARCHIVE_DIR=archive, NO_COLOR="1")
    t = time.perf_counter()
    p = subprocess.run(timer + argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    wall = time.perf_counter() - t
    if p.returncode not in ok:
        sys.exit(p.stderr.decode())
    out = {"ms": round(wall * 1000)}
    if timer:
        out["peak_rss_mb"] = round(int(p.stderr.decode().strip().splitlines()[-1]) / 1024, 1)
    return out, p.stdout
def median_of(argv, config_dir, runs=3, ok=(0,)):
    """The median wall time and peak RSS of `runs` runs, after one that warms."""
    results = [run(argv, config_dir, ok) for _ in range(runs + 1)][1:]
    ms = statistics.median(m["ms"] for m, _ in results)
    m, out = min(results, key=lambda r: abs(r[0]["ms"] - ms))
    return m, out
def size(root):
    return sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(root) for f in fs)
files = glob.glob(os.path.join(store, "projects", "*", "*.jsonl"))
for f in files:  # warm the page cache, as the other benchmarks do
    with open(f, "rb") as fh:
        while fh.read(1 << 20):
            pass
res = {"sessions": len(files), "store_gb": round(size(os.path.join(store, "projects")) / 1e9, 2)}
m, out = run([claudio, "sessions", "archive", "--json"], store)
res["first"] = dict(m, **{k: json.loads(out)[k] for k in ("archived", "unchanged")})
res["archive_gb"] = round(size(archive) / 1e9, 3)
res["ratio"] = round(res["store_gb"] / max(res["archive_gb"], 1e-9), 1)
m, out = median_of([claudio, "sessions", "archive", "--json"], store)
res["again_unchanged"] = dict(m, **{k: json.loads(out)[k] for k in ("archived", "unchanged")})
touched = random.Random(5).sample(files, 100)
times = {f: os.stat(f) for f in touched}
try:
    for f in touched:
        os.utime(f, None)
    m, out = run([claudio, "sessions", "archive", "--json"], store)
    res["again_100_changed"] = dict(m, **{k: json.loads(out)[k] for k in ("archived", "unchanged")})
finally:
    for f, st in times.items():
        os.utime(f, ns=(st.st_atime_ns, st.st_mtime_ns))
m, out = median_of([claudio, "sessions", "list", "--all", "--json"], empty)
res["list_from_archive"] = dict(m, sessions=len(json.loads(out)))
m, out = median_of([claudio, "sessions", "list", "--all", "--json", "--no-archive"], store)
res["list_live_for_comparison"] = dict(m, sessions=len(json.loads(out)))
# reading whole transcripts: a search (a word in none of them) and the usage
m, _ = median_of([claudio, "sessions", "search", "--all", "--json", "quokka-absent-5150"], empty, ok=(0, 1))
res["search_from_archive"] = m
m, _ = median_of([claudio, "sessions", "search", "--all", "--json", "--no-archive", "quokka-absent-5150"], store, ok=(0, 1))
res["search_live_for_comparison"] = m
m, _ = median_of([claudio, "sessions", "usage", "--all", "--json"], empty)
res["usage_from_archive"] = m
m, _ = median_of([claudio, "sessions", "usage", "--all", "--json", "--no-archive"], store)
res["usage_live_for_comparison"] = m
# the goal of #44: from the archive at most 1.2x the live store, taken
# side by side (archive, live, archive, live, ...; the median of the pairs'
# ratios), the usage without its index (every transcript read)
def paired(a, a_dir, b, b_dir, env=None, runs=5, ok=(0, 1)):
    def once(argv, d):
        e = dict(os.environ, CLAUDE_CONFIG_DIR=d, CLAUDIO_ARCHIVE_DIR=archive, NO_COLOR="1", **(env or {}))
        t = time.perf_counter()
        p = subprocess.run(argv, env=e, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        if p.returncode not in ok:
            sys.exit(p.stderr.decode())
        return time.perf_counter() - t
    once(a, a_dir), once(b, b_dir)
    pairs = [(once(a, a_dir), once(b, b_dir)) for _ in range(runs)]
    return {"archive_ms": round(statistics.median(x for x, _ in pairs) * 1000),
            "live_ms": round(statistics.median(y for _, y in pairs) * 1000),
            "ratio": round(statistics.median(x / y for x, y in pairs), 2),
            "load": round(os.getloadavg()[0], 1)}
res["search, archive / live"] = paired(
    [claudio, "sessions", "search", "--all", "--json", "quokka-absent-5150"], empty,
    [claudio, "sessions", "search", "--all", "--json", "--no-archive", "quokka-absent-5150"], store)
res["usage without index, archive / live"] = paired(
    [claudio, "sessions", "usage", "--all", "--json"], empty,
    [claudio, "sessions", "usage", "--all", "--json", "--no-archive"], store,
    env={"CLAUDIO_CACHE_DIR": "off"})
# a frequent word, one hit a session (`--hits 1`, what a list of the
# sessions that mention it needs): a transcript is decompressed only up to
# its second hit (bench/search.sh puts "Frog" at the end of every sixth
# transcript, so here that saves nothing: a bound, not a gain)
res["search --hits 1 frog, archive / live"] = paired(
    [claudio, "sessions", "search", "--all", "--json", "--hits", "1", "frog"], empty,
    [claudio, "sessions", "search", "--all", "--json", "--no-archive", "--hits", "1", "frog"], store)
# the grams filter each archived file holds before its summary: a search
# decompresses only the transcripts that may match. A frequent word (in
# every sixth transcript), a rare one (in five; bench/search.sh plants
# both) and a regex with word boundaries, whole searches as the CLI runs
# them; and what the filters cost on disk
for name, argv in [("frog", ["frog"]), ("rare", ["quokka-rare-7731"]),
                   ("regex \\bfrog\\b", ["--regex", r"\bfrog\b"])]:
    res[f"search {name}, archive / live"] = paired(
        [claudio, "sessions", "search", "--all", "--json"] + argv, empty,
        [claudio, "sessions", "search", "--all", "--json", "--no-archive"] + argv, store)
def grams_bytes(path):
    with open(path, "rb") as fh:
        fh.seek(0, 2)
        n = fh.tell()
        fh.seek(n - 12)
        tail = fh.read(12)
        if tail[4:] != b"claudioU":
            return 0
        end = n - int.from_bytes(tail[:4], "little")
        fh.seek(end - 12)
        tail = fh.read(12)
        return int.from_bytes(tail[:4], "little") if tail[4:] == b"claudioG" else 0
res["grams_mb"] = round(sum(grams_bytes(os.path.join(d, f)) for d, _, fs in os.walk(archive)
                            for f in fs if f.endswith(".jsonl.zst")) / 1e6, 1)
# the usage summary each archived file ends with, or its absence: the
# usage of an archive written before there were summaries (read whole),
# when one is given in CLAUDIO_BENCH_OLD_ARCHIVE
old = os.environ.get("CLAUDIO_BENCH_OLD_ARCHIVE")
if old:
    def usage_of(arch):
        return ["env", f"CLAUDIO_ARCHIVE_DIR={arch}", claudio, "sessions", "usage", "--all", "--json"]
    res["usage without index, archive without summaries / live"] = paired(
        usage_of(old), empty,
        [claudio, "sessions", "usage", "--all", "--json", "--no-archive"], store,
        env={"CLAUDIO_CACHE_DIR": "off"})
# the floor: decompressing every archived transcript (zstd's own tool, one
# thread) beside the live search, which reads the same bytes uncompressed
if shutil.which("zstd"):
    res["floor: zstd -dcq of the archive / live search"] = paired(
        ["zstd", "-dcq", "-r", archive], empty,
        [claudio, "sessions", "search", "--all", "--json", "--no-archive", "quokka-absent-5150"], store)
# another codec's floor (CLAUDIO_BENCH_CODECS=1): every transcript as an
# LZ4 frame (level 1, 4 MiB blocks, no checksum), the frames of all of
# them in one file decompressed by lz4's own tool, beside the archive's
# zstd frames in one file and beside the live search; and their sizes
if os.environ.get("CLAUDIO_BENCH_CODECS") and shutil.which("lz4") and shutil.which("zstd"):
    lz4_all, zst_all = os.path.join(empty, "all.lz4"), os.path.join(empty, "all.zst")
    with open(lz4_all, "wb") as out:
        for f in sorted(files):
            out.write(subprocess.run(["lz4", "-1", "-q", "-c", "--no-frame-crc", "-B7", f],
                                     stdout=subprocess.PIPE, check=True).stdout)
    with open(zst_all, "wb") as out:
        for d, _, fs in os.walk(archive):
            for f in sorted(fs):
                if f.endswith(".jsonl.zst"):
                    with open(os.path.join(d, f), "rb") as fh:
                        shutil.copyfileobj(fh, out)
    res["lz4 -1 size_gb"] = round(os.path.getsize(lz4_all) / 1e9, 3)
    res["zstd (the archive's frames) size_gb"] = round(os.path.getsize(zst_all) / 1e9, 3)
    live_search = [claudio, "sessions", "search", "--all", "--json", "--no-archive", "quokka-absent-5150"]
    res["floor: lz4 -d of every transcript / live search"] = paired(
        ["lz4", "-d", "-q", "-f", lz4_all, "/dev/null"], empty, live_search, store)
    res["floor: zstd -d of the archive's frames / live search"] = paired(
        ["zstd", "-d", "-q", "-f", zst_all, "-o", "/dev/null"], empty, live_search, store)
    os.remove(lz4_all)
    os.remove(zst_all)
print(json.dumps(res, indent=1))
PY
