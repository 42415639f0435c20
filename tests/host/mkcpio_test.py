#!/usr/bin/env python3
"""mkcpio_test.py - host test of tools/build/mkcpio.py --tree, the packer of
the file trees images boot with (kernel/initrd.h): the same tree gives the
same bytes whatever its files' times and the order the host lists them in;
every entry is root's, of mtime 0, named relative to the tree (parents
first, no "./"), with its mode, its data or its link's target; the archive
ends with TRAILER!!!; an unchanged archive is not rewritten; a FIFO stops
it.  Prints TEST lines and the total, as the C host tests do
(tests/host/harness.py)."""
import os
import shutil
import stat
import subprocess
import sys
import tempfile

from harness import case, report   # tests/host/harness.py

MKCPIO = os.path.join(os.path.dirname(__file__), "..", "..", "tools", "build", "mkcpio.py")


def pack(out, root):
    return subprocess.run([sys.executable, MKCPIO, "--tree", out, root],
                          capture_output=True, text=True)


def entries(data):
    """(name, fields, body) of each entry, as newc lays them out."""
    off, out = 0, []
    while True:
        assert data[off:off + 6] == b"070701", "no magic at %d" % off
        f = [int(data[off + 6 + 8 * i:off + 14 + 8 * i], 16) for i in range(13)]
        name = data[off + 110:off + 110 + f[11] - 1].decode()
        off = (off + 110 + f[11] + 3) & ~3
        body = data[off:off + f[6]]
        off = (off + f[6] + 3) & ~3
        out.append((name, f, body))
        if name == "TRAILER!!!":
            assert off == len(data), "%d bytes after the trailer" % (len(data) - off)
            return out


def make_tree(top):
    os.makedirs(os.path.join(top, "b/deep"))
    os.makedirs(os.path.join(top, "a"))
    with open(os.path.join(top, "z.txt"), "w") as f:
        f.write("zed\n")
    with open(os.path.join(top, "b/deep/run"), "w") as f:
        f.write("#!/bin/sh\n")
    os.chmod(os.path.join(top, "b/deep/run"), 0o750)
    os.symlink("../z.txt", os.path.join(top, "a/link"))


@case
def same_bytes_any_times():
    with tempfile.TemporaryDirectory() as d:
        make_tree(os.path.join(d, "t1"))
        shutil.copytree(os.path.join(d, "t1"), os.path.join(d, "t2"), symlinks=True)
        for top, dirs, files in os.walk(os.path.join(d, "t2")):
            for n in dirs + files:
                os.utime(os.path.join(top, n), (1, 1), follow_symlinks=False)
        assert pack(os.path.join(d, "1.cpio"), os.path.join(d, "t1")).returncode == 0
        assert pack(os.path.join(d, "2.cpio"), os.path.join(d, "t2") + "/").returncode == 0
        with open(os.path.join(d, "1.cpio"), "rb") as a, open(os.path.join(d, "2.cpio"), "rb") as b:
            assert a.read() == b.read(), "two packs of the same tree differ"


@case
def entries_as_specified():
    with tempfile.TemporaryDirectory() as d:
        make_tree(os.path.join(d, "t"))
        assert pack(os.path.join(d, "t.cpio"), os.path.join(d, "t")).returncode == 0
        with open(os.path.join(d, "t.cpio"), "rb") as f:
            es = entries(f.read())
        names = [e[0] for e in es]
        assert names == ["a", "b", "z.txt", "a/link", "b/deep", "b/deep/run", "TRAILER!!!"], names
        for ino, (name, f, body) in enumerate(es[:-1], 1):
            st = os.lstat(os.path.join(d, "t", name))
            assert f[0] == ino and f[1] == st.st_mode, (name, f[:2])
            assert f[2] == f[3] == f[5] == 0, "%s: uid, gid or mtime not 0" % name
            if stat.S_ISLNK(st.st_mode):
                assert body == b"../z.txt", body
            elif stat.S_ISREG(st.st_mode):
                with open(os.path.join(d, "t", name), "rb") as g:
                    assert body == g.read(), name
            else:
                assert body == b"", name
        assert es[-1][1][1] == 0 and es[-1][1][6] == 0


@case
def unchanged_not_rewritten():
    with tempfile.TemporaryDirectory() as d:
        make_tree(os.path.join(d, "t"))
        out = os.path.join(d, "t.cpio")
        assert pack(out, os.path.join(d, "t")).returncode == 0
        os.utime(out, (1, 1))
        assert pack(out, os.path.join(d, "t")).returncode == 0
        assert os.stat(out).st_mtime == 1, "rewritten with the same bytes"
        with open(os.path.join(d, "t", "z.txt"), "a") as f:
            f.write("more\n")
        assert pack(out, os.path.join(d, "t")).returncode == 0
        assert os.stat(out).st_mtime != 1, "not rewritten after a change"


@case
def empty_tree_and_bad_input():
    with tempfile.TemporaryDirectory() as d:
        os.mkdir(os.path.join(d, "e"))
        assert pack(os.path.join(d, "e.cpio"), os.path.join(d, "e")).returncode == 0
        with open(os.path.join(d, "e.cpio"), "rb") as f:
            assert [e[0] for e in entries(f.read())] == ["TRAILER!!!"]
        r = pack(os.path.join(d, "x.cpio"), os.path.join(d, "nonesuch"))
        assert r.returncode != 0 and "not a folder" in r.stderr, r.stderr
        os.mkfifo(os.path.join(d, "e", "fifo"))
        r = pack(os.path.join(d, "f.cpio"), os.path.join(d, "e"))
        assert r.returncode != 0 and "fifo" in r.stderr, r.stderr
        assert not os.path.exists(os.path.join(d, "f.cpio"))


sys.exit(report())
