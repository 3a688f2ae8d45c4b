#!/usr/bin/env python3
"""Writes src/hot_code.ld: the functions `claudio statusline` and
`claudio-statusline` run, first in the programs' code (build.rs hands the
file to the linker of both).

A status line is a new process after every message, and most of its time is
the process's start: each 64 KiB of the program's code it touches for the
first time is a page fault. The functions it runs (a few hundred, spread
over the whole 8 MB of code) are put side by side, so that they take a
dozen such faults rather than some sixty.

    bench/hot_code.py [STATUS_JSON]

runs a release build's `claudio statusline` (CLAUDIO_BIN, else
target/release/claudio) and `claudio-statusline` (beside it) once each
under valgrind's callgrind, its store and
cache as the environment gives them (CLAUDE_CONFIG_DIR, CLAUDIO_CACHE_DIR;
bench/statusline.sh's store, its index warm, is the one measured), and lists
every function of the program that ran. Each becomes a pattern of its
symbol with the hashes left out (`17h…E`, `Cs…_`): they change with the
compiler and with how the package is built (cargo install), the paths do
not. The command line's code is the crate `claudio` in one program and
`claudio_statusline` in the other: a pattern of either names both. A
function the patterns no longer match costs a page fault, never a wrong
program.
"""
import os, re, subprocess, sys, tempfile

def executed(binary, status, args):
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "callgrind.out")
        with open(status, "rb") as f:
            subprocess.run(["valgrind", "--tool=callgrind", "--demangle=no",
                            f"--callgrind-out-file={out}", binary, *args],
                           stdin=f, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                           check=True)
        own = symbols(binary)
        names, objs, current, ran = {}, {}, None, []
        for line in open(out):
            line = line.rstrip("\n")
            m = re.match(r"^(ob|cob)=\((\d+)\)(?: (.*))?$", line)
            if m:
                kind, i, name = m.groups()
                if name:
                    objs[i] = name
                if kind == "ob":
                    current = objs[i]
                continue
            m = re.match(r"^(fn|cfn)=\((\d+)\)(?: (.*))?$", line)
            if m:
                kind, i, name = m.groups()
                if name:
                    names[i] = name
                if kind == "fn" and (current == os.path.realpath(binary) or names[i] in own):
                    ran.append(names[i])
    return ran

def symbols(binary):
    """The program's own function symbols: callgrind gives the code of a
    build linked with src/hot_code.ld no object (`???`), its functions
    their names all the same."""
    out = subprocess.run(["nm", "--defined-only", binary], stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, text=True).stdout
    return {p[2] for p in (l.split() for l in out.splitlines()) if len(p) == 3 and p[1] in "tTwW"}

def pattern(symbol):
    symbol = re.sub(r"'\d+$", "", symbol)  # callgrind's recursion mark
    if symbol.startswith("_ZN"):
        p = re.sub(r"17h[0-9a-f]{16}E$", "17h*E", symbol)
    elif symbol.startswith("_R"):
        p = re.sub(r"Cs[0-9A-Za-z]+_", "Cs*_", symbol)
        p = re.sub(r"B[0-9A-Za-z]*_", "B*_", p)  # back references move with the hashes
    else:
        p = symbol
    # a local copy's number (`.9717`) changes with every build
    p = re.sub(r"\.(llvm\.)?\d+$", ".*", p)
    # `$` is not a name character in a linker script: any one character
    return p.replace("$", "?")

# the command line's modules, in the crate of either program
BIN_CRATES = ("7claudio", "18claudio_statusline")
BIN_MODULES = ("3cli", "5start")

def in_both(p):
    """A pattern and, for the command line's code, the same function in the
    other program's crate."""
    for crate in BIN_CRATES:
        for module in BIN_MODULES:
            if crate + module in p:
                return [p.replace(crate + module, c + module) for c in BIN_CRATES]
    return [p]

def main():
    binary = os.environ.get("CLAUDIO_BIN", "target/release/claudio")
    status = sys.argv[1] if len(sys.argv) > 1 else "/dev/stdin"
    small = os.path.join(os.path.dirname(binary), "claudio-statusline")
    pats = []
    ran = executed(binary, status, ["statusline"]) + executed(small, status, [])
    for sym in ran:
        # `_start` is the C runtime's, in no section of its own
        if sym.startswith(("0x", "(")) or sym == "_start":
            continue
        p = " ".join(f".text.{q} .text.unlikely.{q}" for q in in_both(pattern(sym)))
        if p not in pats:
            pats.append(p)
    lines = [
        "/* The code `claudio statusline` and `claudio-statusline` run, side by",
        "   side at the start of the programs' code: written by bench/hot_code.py,",
        "   given to the linker by build.rs. Each pattern is a function's symbol",
        "   without its hashes, the command line's code in the crate of either",
        "   program; a cold function (`.text.unlikely.`) is taken too. */",
        "SECTIONS",
        "{",
        "  .text.hot.statusline :",
        "  {",
    ]
    lines += [f"    *({p})" for p in sorted(pats)]
    lines += ["  }", "}", "INSERT BEFORE .text;", ""]
    with open("src/hot_code.ld", "w") as f:
        f.write("\n".join(lines))
    print(f"src/hot_code.ld: {len(pats)} patterns", file=sys.stderr)

main()
