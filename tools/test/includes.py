#!/usr/bin/env python3
"""includes.py - which room may include which (docs/design.md, "Rooms").

  tools/test/includes.py [ROOT]

Reads every C and assembly source under ROOT (default: the repository
this script is in) and checks each #include of a header of the tree
against the rules below: a room's files include the headers of the rooms
it may use, by their path from the root ("sched/sched.h"); an app only
the public headers (<spindle/...>) and its own folder's; in-image tests
and the benchmarks only the public headers, tests/lib/, their own folder
and each room's test-only door, <room>/export_test.h.  An include of a
file outside the tree (lwIP's, newlib's, a generated header) is not
checked.  Prints one "TEST includes_<room> PASS|FAIL" line a room, each
broken include on a line of its own, and "N passed, M failed".
"""
import os
import re
import subprocess
import sys

# Room -> what its files may include: rooms (folders) or single headers.
# A room may always include its own headers.
DOORS = ["arch/export_test.h", "kernel/export_test.h", "sched/export_test.h"]
RULES = {
    "include": [],
    "firmware": [],
    "arch": ["kernel", "firmware", "drivers", "boot/efi/handoff.h",
             "net/netdev.h"],
    "drivers": ["arch", "kernel", "net/netdev.h"],
    "kernel": ["arch", "firmware", "sched", "drivers", "net/net.h"],
    "sched": ["kernel", "arch"],
    "net": ["sched", "kernel", "arch"],
    "posix": ["net", "sched", "kernel", "arch"],
    "boot": ["kernel", "arch", "firmware"],
    "apps": [],
    "bench": ["tests/lib"] + DOORS,
    "tests": ["tests/lib"] + DOORS,        # in-image tests
    "tests/lib": DOORS,
    "tools": ["tests/lib", "boot/reloc.h", "net/lwip/netguard.h"],
}
# Host programs that test internals on their own: anything goes.
UNCHECKED = ("tests/host", "tests/fuzz")
# Where a file's own folder is its unit: a bare "x.h" of that folder is
# fine there; in a room, includes name the path from the root.
LEAVES = ("apps", "bench", "tests", "tools")

INCLUDE = re.compile(r'^\s*#\s*include\s*([<"])([^>"]+)[>"]')


def room_of(path):
    parts = path.split("/")
    if parts[0] == "tests" and len(parts) > 2 and parts[1] in ("host", "fuzz", "lib"):
        return "tests/" + parts[1]
    return parts[0]


def allowed(room, target, rules):
    own = room if room != "tests" else None
    for r in ([own] if own else []) + rules:
        if target == r or target.startswith(r + "/"):
            return True
    return False


def check(root):
    files = subprocess.run(["git", "-C", root, "ls-files", "--cached", "--others",
                            "--exclude-standard", "*.c", "*.h", "*.S"],
                           capture_output=True, text=True, check=True).stdout.split()
    tree = set(files)
    rooms = set(RULES)
    broken = {r: [] for r in RULES}
    for f in files:
        room = room_of(f)
        if room.startswith(UNCHECKED) or room not in RULES:
            continue
        if f.startswith("tests/fuzz/"):
            continue
        folder = os.path.dirname(f)
        with open(os.path.join(root, f), errors="replace") as src:
            for n, line in enumerate(src, 1):
                m = INCLUDE.match(line)
                if not m:
                    continue
                quote, name = m.groups()
                local = os.path.normpath(os.path.join(folder, name))
                if quote == '"' and "/" not in name and local in tree:
                    if room.split("/")[0] not in LEAVES:
                        broken[room].append("%s:%d: \"%s\": name it by its path "
                                            "from the root (\"%s\")" % (f, n, name, local))
                    continue
                if quote == "<" and os.path.join("include", name) in tree:
                    continue            # a public header
                if name not in tree:
                    top = name.split("/")[0]
                    if quote == '"' and top in rooms and top not in ("include", "tests"):
                        broken[room].append("%s:%d: \"%s\": no such header" % (f, n, name))
                    if quote == '"' and ".." in name:
                        broken[room].append("%s:%d: \"%s\": a relative path out of "
                                            "the folder" % (f, n, name))
                    continue            # lwIP's, the C library's, generated
                if not allowed(room, name, RULES[room]):
                    broken[room].append("%s:%d: %s may not include %s" % (f, n, room, name))
    failed = 0
    for room in sorted(RULES):
        if broken[room]:
            failed += 1
            print("TEST includes_%s FAIL" % room.replace("/", "_"))
            for b in broken[room]:
                print("  " + b)
        else:
            print("TEST includes_%s PASS" % room.replace("/", "_"))
    print("%d passed, %d failed" % (len(RULES) - failed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    here = os.path.dirname(os.path.abspath(__file__))
    sys.exit(check(sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "..", "..")))
