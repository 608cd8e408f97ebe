# SPDX-License-Identifier: GPL-2.0
"""
rooms.py - userspace/'s rooms drawn from the code (selftests/host/42).

    python3 rooms.py TOP OBJDIR

Reads every file of TOP/userspace and the objects make built of them
(OBJDIR/<name>.o) and prints what it finds, one finding a line,
tab-separated, for the host test to turn into TAP:

    up     FILE  TO  WHY   FILE depends on a room above its own
    side   FILE  TO  WHY   ... on a room beside it (another source, another tool)
    decl   FILE  SYM TO    a header declares SYM, defined outside its room
    circle FILE...         files whose dependencies go round in a circle
    link   TOOL  NAME WHY  the Makefile links TOOL with a room it may not
                           link, or does not use
    stale  FILE            its object is missing or older than it (the
                           rest is not drawn then)
    count  WHAT  N         what was read (files, dependencies)

A room is a directory: lib/, model/, and each folder of sources/ and of
tools/.  The order, lowest first: lib, model, sources, tools; a file may
depend on its own room and the rooms below it, never on one beside it.
A dependency is an #include of a userspace header (WHY "include"), a
global symbol an object uses and another defines (nm; "uses SYM"), or a
symbol a header declares or names ("names SYM": the header stands for
the file that defines it).  A header and the .c files that define what
it declares are one unit; the units' dependencies must not go round in
a circle.
"""
import os
import re
import subprocess
import sys

RANK = {"lib": 0, "model": 1, "sources": 2, "tools": 3}
IDENT = re.compile(r"[A-Za-z_]\w*")


def room_of(rel):
    """lib, model, sources/<name>, tools/<name> (or sources, tools)."""
    parts = rel.split("/")
    if parts[0] in ("sources", "tools") and len(parts) > 2:
        return parts[0] + "/" + parts[1]
    return parts[0]


def rank(room):
    return RANK.get(room.split("/")[0], -1)


def strip_c(text):
    """The text without comments, strings and character constants."""
    out = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"),
                 text, flags=re.S)
    out = re.sub(r"//[^\n]*", "", out)
    out = re.sub(r'"(\\.|[^"\\\n])*"', '""', out)
    return re.sub(r"'(\\.|[^'\\\n])*'", "''", out)


def declared(text):
    """The names a header declares: prototypes and extern data."""
    text = re.sub(r"^\s*#.*?(?<!\\)$", "", strip_c(text), flags=re.M | re.S)
    names, stmt, depth = set(), "", 0
    for ch in text:
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                stmt = ""	# a body: a type, or an inline function
            continue
        if depth:
            continue
        if ch != ";":
            stmt += ch
            continue
        s = " ".join(stmt.split())
        stmt = ""
        if not s or s.startswith("typedef") or "=" in s.split("(")[0]:
            continue
        head = s.split("(")[0] if "(" in s else re.split(r"[\[;]", s)[0]
        words = IDENT.findall(head)
        if "(" not in s and (not words or words[0] != "extern"):
            continue
        if words and words[-1] not in ("struct", "union", "enum"):
            names.add(words[-1])
    return names


def nm(obj):
    """(defined, used) global symbols of an object; defined: {sym: is a function}."""
    out = subprocess.run(["nm", "-P", obj], capture_output=True, text=True,
                         check=True).stdout
    defined, used = {}, set()
    for line in out.splitlines():
        f = line.split()
        if len(f) < 2:
            continue
        if f[1] in ("U", "w"):
            used.add(f[0])
        elif f[1] in "TDBRCVW":
            defined[f[0]] = f[1] in "TW"
    return defined, used


def sccs(graph):
    """Tarjan's strongly connected components, iteratively."""
    index, low, onstack, stack, out, n = {}, {}, set(), [], [], 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = n
        n += 1
        stack.append(root)
        onstack.add(root)
        while work:
            v, it = work[-1]
            for w in it:
                if w not in index:
                    index[w] = low[w] = n
                    n += 1
                    stack.append(w)
                    onstack.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                    break
                if w in onstack:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop()
                        onstack.discard(w)
                        comp.append(w)
                        if w == v:
                            break
                    out.append(sorted(comp))
    return out


def makefile_links(top):
    """{tool: [names]} from the Makefile's <tool>_ROOMS and <tool>_LIBS."""
    text = open(os.path.join(top, "Makefile")).read().replace("\\\n", " ")
    links = {}
    for m in re.finditer(r"^([\w-]+)_(ROOMS|LIBS)\s*:?=(.*)$", text, re.M):
        names = m.group(3).split()
        if m.group(2) == "LIBS":
            names = [n + "_lib" for n in names]
        links.setdefault(m.group(1), []).extend(names)
    return links


def main(top, objdir):
    us = os.path.join(top, "userspace")
    files = {}			# name -> path below userspace/
    for d, _, fs in os.walk(us):
        for f in fs:
            if f.endswith((".c", ".h")):
                files[f] = os.path.relpath(os.path.join(d, f), us)
    room = {f: room_of(p) for f, p in files.items()}
    text = {f: open(os.path.join(us, p)).read() for f, p in files.items()}

    defs, uses, func = {}, {}, {}
    stale = False
    for f in sorted(files):
        if not f.endswith(".c"):
            continue
        obj = os.path.join(objdir, f[:-2] + ".o")
        if not os.path.exists(obj) or \
           os.path.getmtime(obj) < os.path.getmtime(os.path.join(us, files[f])):
            print("stale\t%s" % files[f])
            stale = True
            continue
        d, u = nm(obj)
        uses[f] = u
        for s, is_func in d.items():
            defs.setdefault(s, []).append(f)
            func[s] = is_func
    if stale:
        return

    def definer(sym, user):
        """The file that defines sym for user: one of its own room first."""
        cands = [c for c in defs.get(sym, []) if c != user]
        mine = [c for c in cands if room[c] == room[user]]
        return mine or cands

    edges = {f: {} for f in files}	# file -> {file: why}
    for f in files:
        for inc in re.findall(r'^\s*#\s*include\s+"([^"]+)"', text[f], re.M):
            if inc in files:
                edges[f].setdefault(inc, "include")
    for f, u in uses.items():
        for s in sorted(u):
            for d in definer(s, f):
                edges[f].setdefault(d, "uses " + s)
    decls = {}
    for h in files:
        if not h.endswith(".h"):
            continue
        decls[h] = declared(text[h])
        body = strip_c(text[h])
        for s in sorted(decls[h]):
            for d in definer(s, h):
                if room[d] != room[h]:
                    print("decl\t%s\t%s\t%s" % (files[h], s, files[d]))
        named = set(re.findall(r"([A-Za-z_]\w*)\s*\(", body))
        for s in sorted(set(IDENT.findall(body))):
            if func.get(s) and s not in named:
                continue	# a parameter or a field of that name
            for d in definer(s, h):
                edges[h].setdefault(d, "names " + s)

    nedges = 0
    for f in sorted(files):
        for t, why in sorted(edges[f].items()):
            nedges += 1
            if rank(room[t]) > rank(room[f]):
                print("up\t%s\t%s\t%s" % (files[f], files[t], why))
            elif room[t] != room[f] and rank(room[t]) == rank(room[f]):
                print("side\t%s\t%s\t%s" % (files[f], files[t], why))

    # units: a header with the files of its room that define what it declares
    unit = {f: f for f in files}

    def find(f):
        while unit[f] != f:
            unit[f] = unit[unit[f]]
            f = unit[f]
        return f
    for h, names in decls.items():
        for s in names:
            for d in definer(s, h):
                if room[d] == room[h]:
                    unit[find(d)] = find(h)
    graph = {}
    for f in files:
        graph.setdefault(find(f), set())
        for t in edges[f]:
            if find(t) != find(f):
                graph[find(f)].add(find(t))
    for comp in sccs(graph):
        if len(comp) > 1:
            members = sorted(files[f] for f in files if find(f) in comp)
            print("circle\t" + "\t".join(members))

    # the link lines: a tool links its own room and the rooms below
    byname = {f[:-2]: f for f in files if f.endswith(".c")}
    for tool, names in sorted(makefile_links(top).items()):
        main_c = tool + ".c"
        if main_c not in files:
            continue
        linked = [main_c]
        for n in names:
            if n + ".c" not in files:
                print("link\t%s\t%s\tno userspace/*/%s.c" % (tool, n, n))
                continue
            linked.append(n + ".c")
            if room[n + ".c"].startswith("tools/") and \
               room[n + ".c"] != room[main_c]:
                print("link\t%s\t%s\tanother tool's room (%s)" %
                      (tool, files[n + ".c"], room[n + ".c"]))
        seen, todo = set(), [main_c]
        while todo:
            f = todo.pop()
            if f in seen:
                continue
            seen.add(f)
            for s in uses.get(f, ()):
                todo += [d for d in defs.get(s, []) if d in linked]
        for f in linked:
            if f not in seen:
                print("link\t%s\t%s\tlinked, never used" % (tool, files[f]))
    print("count\tfiles\t%d" % len(files))
    print("count\tdependencies\t%d" % nedges)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
