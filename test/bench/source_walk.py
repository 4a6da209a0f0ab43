#!/usr/bin/env python3
"""How far a reader of exec::resolve() has to walk: the files its calls reach
and the calls that climb back into a file that called them (issue 33's goal:
at most 8 files, at most 3 climbs back).

    test/bench/source_walk.py BUILD_DIR [--out FILE] [--root FUNCTION]

BUILD_DIR is a configured tree (compile_commands.json). The library's own
sources (common/src, executor/lib/src) are compiled again, at -O0 so that no
call is inlined away, with GCC's -fcallgraph-info, into a temporary directory;
nothing in BUILD_DIR is touched. The call graph is the compiler's, read
statically: every call a reader of the source would follow, on every branch,
not only those one run takes. A call through a function pointer or a virtual
function leads nowhere the compiler knows: those are counted and listed
("indirect calls"), since a reader cannot follow them either.

- A function belongs to the file that defines it, a header's inline function
  to the header. A lambda is read where it is written, so a call into one
  (from a helper template in a header, say) is neither a file visited nor a
  climb back.
- A climb back is a call from one file into another file that, directly or
  through others, calls the first one: the two files' functions call each
  other, and the reader goes back up to read on.

Prints the figures and each file with the functions of it that are reached;
with --out, writes the same text there (bench/run.sh: source-walk.txt).
"""
import argparse
import json
import os
import re
import shlex
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

SOURCES = ("common/src/", "executor/lib/src/")
# netns::exec::resolve(const Source&, const ResolveOptions&), as the linker names it.
ROOT = "_ZN5netns4exec7resolveERKNS0_6SourceERKNS0_14ResolveOptionsE"
NODE = re.compile(r'^node: \{ title: "([^"]*)" label: "(.*)\\n([^"]*)"( shape : ellipse)? \}$')
EDGE = re.compile(r'^edge: \{ sourcename: "([^"]*)" targetname: "([^"]*)"')


def compile_commands(build, src):
    with open(os.path.join(build, "compile_commands.json")) as f:
        entries = json.load(f)
    seen = set()
    for e in entries:
        rel = os.path.relpath(os.path.realpath(e["file"]), src)
        if rel.startswith(SOURCES) and rel not in seen:
            seen.add(rel)
            yield rel, e


def callgraph_command(entry, out):
    """The entry's own command, at -O0, writing its object and .ci file to `out`."""
    args = shlex.split(entry["command"]) if "command" in entry else list(entry["arguments"])
    kept, skip = [], False
    for a in args:
        if skip:
            skip = False
            continue
        if a in ("-o", "-MF", "-MT", "-MQ"):
            skip = True
            continue
        if a in ("-MD", "-MMD") or re.match(r"^-O[0-9sgz]?$", a) or a.startswith("-flto"):
            continue
        kept.append(a)
    return kept + ["-O0", "-fcallgraph-info", "-o", out]


def strip_tu(title):
    # A TU-local (inline, template, static) function is titled "file.cpp:mangled".
    return title.split(":", 1)[1] if ":" in title and not title.startswith("_Z") else title


def read_graph(ci_files, src):
    defined = {}  # mangled -> (name, file relative to src); a declaration only is not kept
    edges = {}
    for path in ci_files:
        with open(path) as f:
            for line in f:
                m = NODE.match(line.rstrip("\n"))
                if m:
                    title, name, where, external = m.groups()
                    loc = where.rsplit(":", 2)[0]
                    full = os.path.realpath(os.path.join(src, loc)) if not os.path.isabs(loc) else loc
                    rel = os.path.relpath(full, src)
                    mangled = strip_tu(title)
                    if not external:
                        defined.setdefault(mangled, (name, rel))
                    continue
                m = EDGE.match(line)
                if m:
                    edges.setdefault(strip_tu(m.group(1)), set()).add(strip_tu(m.group(2)))
    return defined, edges


def ours(rel):
    return not rel.startswith("..") and not rel.startswith("/") and not rel.startswith("build")


def is_lambda(name):
    return "<lambda" in name or "{lambda" in name


def sccs(nodes, succ):
    """Tarjan's strongly connected components: node -> component number."""
    index, low, comp, stack, on = {}, {}, {}, [], set()
    counter = [0]

    def visit(v):
        work = [(v, iter(succ.get(v, ())))]
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        while work:
            node, it = work[-1]
            advanced = False
            for w in it:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(succ.get(w, ()))))
                    advanced = True
                    break
                if w in on:
                    low[node] = min(low[node], index[w])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp[w] = node
                    if w == node:
                        break

    for v in nodes:
        if v not in index:
            visit(v)
    return comp


def walk(defined, edges, root_name):
    roots = [root_name] if root_name in defined else []
    if not roots:
        sys.exit(f"source_walk.py: {root_name!r} is not defined in the compiled sources")
    project = {m for m, (name, rel) in defined.items() if ours(rel)}
    reached, todo = set(roots), list(roots)
    while todo:
        f = todo.pop()
        for g in edges.get(f, ()):
            if g in project and g not in reached:
                reached.add(g)
                todo.append(g)
    file_of = {m: defined[m][1] for m in reached}
    calls = [(f, g) for f in reached for g in edges.get(f, ()) if g in reached]
    file_succ = {}
    for f, g in calls:
        if file_of[f] != file_of[g] and not is_lambda(defined[g][0]):
            file_succ.setdefault(file_of[f], set()).add(file_of[g])
    comp = sccs(set(file_of.values()), file_succ)
    climbs = sorted(
        (file_of[f], defined[f][0], file_of[g], defined[g][0])
        for f, g in calls
        if file_of[f] != file_of[g] and not is_lambda(defined[g][0]) and comp[file_of[f]] == comp[file_of[g]]
    )
    indirect = sorted(
        (file_of[f], defined[f][0]) for f in reached if "__indirect_call" in edges.get(f, ())
    )
    return reached, file_of, file_succ, climbs, indirect


def report(defined, reached, file_of, file_succ, climbs, indirect, root_name):
    files = {}
    for m in reached:
        files.setdefault(file_of[m], []).append(defined[m][0])
    onward = sorted(f for f in files if file_succ.get(f))
    lines = [
        f"root: {defined[root_name][0]} ({defined[root_name][1]})",
        f"files: {len(files)} (of them calling on into another file: {len(onward)})",
        f"climbs back: {len(climbs)}",
        f"functions: {len(reached)}",
        f"indirect calls: {len(indirect)}",
        "",
        "files (functions reached; -> the files it calls):",
    ]
    for rel in sorted(files):
        calls = ", ".join(sorted(file_succ.get(rel, ())))
        lines.append(f"  {rel}: {len(files[rel])}" + (f" -> {calls}" if calls else ""))
    lines.append("")
    lines.append("climbs back (caller's file: caller -> callee's file: callee):")
    for cf, cn, gf, gn in climbs:
        lines.append(f"  {cf}: {cn} -> {gf}: {gn}")
    if not climbs:
        lines.append("  none")
    lines.append("")
    lines.append("functions making an indirect call (a function pointer, a virtual function):")
    lines.extend(f"  {f}: {n}" for f, n in indirect)
    if not indirect:
        lines.append("  none")
    return "\n".join(lines) + "\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("build")
    ap.add_argument("--out")
    ap.add_argument("--root", default=ROOT, help="a mangled name (default: exec::resolve)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    a = ap.parse_args()
    src = os.path.realpath(os.path.join(os.path.dirname(__file__), "..", ".."))
    units = list(compile_commands(a.build, src))
    if not units:
        sys.exit(f"source_walk.py: no source of {SOURCES} in {a.build}/compile_commands.json")
    with tempfile.TemporaryDirectory(prefix="source-walk.") as tmp:

        def one(i_unit):
            i, (rel, entry) = i_unit
            out = os.path.join(tmp, f"{i}.o")
            r = subprocess.run(
                callgraph_command(entry, out), cwd=entry["directory"], capture_output=True, text=True
            )
            if r.returncode != 0:
                raise SystemExit(f"source_walk.py: compiling {rel} failed:\n{r.stderr}")
            return os.path.join(tmp, f"{i}.ci")

        with ThreadPoolExecutor(a.jobs) as pool:
            ci_files = list(pool.map(one, enumerate(units)))
        defined, edges = read_graph(ci_files, src)
    reached, file_of, file_succ, climbs, indirect = walk(defined, edges, a.root)
    text = report(defined, reached, file_of, file_succ, climbs, indirect, a.root)
    sys.stdout.write(text)
    if a.out:
        with open(a.out, "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
