#!/usr/bin/env python3
"""pprof_test.py - host test of tools/run/pprof.py: the dump that
tests/host/profbuf_test.c wrote with the kernel's encoder, of samples in
that program's own functions, becomes a profile.proto that a decoder
written here (not pprof.py's encoder read backwards) finds right: sample
types, values, stacks with the pseudo-frames and the frameless leaf's
caller spliced in, labels; the folded stacks agree; `go tool pprof` reads
it when Go is installed (-top and -tagfocus); and every damaged copy of
the dump (cut anywhere, a line changed, dropped or repeated) is either
still whole or a DumpError naming the problem, never a crash.  Prints
TEST lines and the total, as the C host tests do (the runner runs it
after profbuf_test)."""
import gzip
import os
import random
import shutil
import subprocess
import sys
import tempfile
import unittest

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools", "run"))
import pprof as P   # noqa: E402  (tools/run/pprof.py)

DUMP = "build/host/test-logs/profbuf.dump"
ELF = "build/host/profbuf_test"


# ---- A protobuf reader: just what profile.proto needs ------------------------

def fields(data):
    """(field number, wire type, value) of a message; value is an int for
    varints, bytes for length-delimited fields."""
    i, out = 0, []

    def varint():
        nonlocal i
        v, shift = 0, 0
        while True:
            b = data[i]
            i += 1
            v |= (b & 0x7f) << shift
            shift += 7
            if not b & 0x80:
                return v
    while i < len(data):
        key = varint()
        num, wt = key >> 3, key & 7
        if wt == 0:
            out.append((num, 0, varint()))
        elif wt == 2:
            n = varint()
            out.append((num, 2, data[i:i + n]))
            i += n
        else:
            raise AssertionError("wire type %d in the profile" % wt)
    assert i == len(data), "a message overruns its bytes"
    return out


def packed(data):
    """A packed repeated varint field's values."""
    out, v, shift = [], 0, 0
    for b in data:
        v |= (b & 0x7f) << shift
        shift += 7
        if not b & 0x80:
            out.append(v)
            v, shift = 0, 0
    return out


def decode(path):
    """The profile as plain Python: strings, sample types, period, and
    samples as (names leaf first, values, {label: value})."""
    with open(path, "rb") as f:
        top = fields(gzip.decompress(f.read()))
    strings = [v.decode() for n, _, v in top if n == 6]
    assert strings and strings[0] == "", "string_table[0] is not empty"
    funcs, locs = {}, {}
    for n, _, v in top:
        if n == 5:
            d = {k: x for k, _, x in fields(v)}
            funcs[d[1]] = strings[d.get(2, 0)]
        elif n == 4:
            d = fields(v)
            lid = next(x for k, _, x in d if k == 1)
            lines = [{k: x for k, _, x in fields(x)} for k, _, x in d
                     if k == 4]
            locs[lid] = [l.get(1) for l in lines]
    types = []
    for n, _, v in top:
        if n == 1:
            d = {k: x for k, _, x in fields(v)}
            types.append((strings[d[1]], strings[d[2]]))
    period = next((v for n, _, v in top if n == 12), 0)
    samples = []
    for n, _, v in top:
        if n != 2:
            continue
        names, values, labels = [], [], {}
        for k, wt, x in fields(v):
            if k == 1:
                for lid in (packed(x) if wt == 2 else [x]):
                    names.extend(funcs[f] for f in locs[lid])
            elif k == 2:
                values.extend(packed(x) if wt == 2 else [x])
            elif k == 3:
                d = {a: b for a, _, b in fields(x)}
                if 2 in d:
                    labels[strings[d[1]]] = strings[d[2]]
                else:           # the numeric twin: the key as its unit
                    assert strings[d.get(4, 0)] == strings[d[1]], d
                    labels["#" + strings[d[1]]] = d.get(3, 0)
        samples.append((names, values, labels))
    return strings, types, period, samples


# ---- The cases ---------------------------------------------------------------

def convert(tmp, src=DUMP):
    out = os.path.join(tmp, "p")
    P.convert(src, ELF, out)
    return out


def damaged(mutate):
    """Parses the dump after mutate(lines); returns the DumpError text, or
    None if it is still whole."""
    with open(DUMP) as f:
        lines = f.read().split("\n")
    fd, path = tempfile.mkstemp()
    with os.fdopen(fd, "w") as f:
        f.write("\n".join(mutate(lines)))
    try:
        P.parse(path)
        return None
    except P.DumpError as e:
        return str(e)
    finally:
        os.unlink(path)


class Pprof(unittest.TestCase):
    """The cases, in the order written."""

    def test_profile_reads_back(self):
        tmp = tempfile.mkdtemp()
        try:
            out = convert(tmp)
            _, types, period, samples = decode(out + ".pb.gz")
            assert types == [("samples", "count"), ("cpu", "nanoseconds")], types
            assert period == 1000000, period
            got = {tuple(n): (v, l) for n, v, l in samples}
            g7 = {"core": "0", "#core": 0, "g": "7", "#g": 7,
                  "gfn": "prof_gentry"}
            core1 = {"core": "1", "#core": 1}
            want = {
                ("prof_leaf", "prof_caller", "prof_gentry"): ([30, 30000000], g7),
                ("prof_caller", "prof_gentry"): ([10, 10000000], g7),
                ("[halted]", "[idle]"): ([5, 5000000], core1),
                ("prof_caller", "[idle]"): ([2, 2000000], core1),
                ("prof_leaf", "[interrupt]"):
                    ([3, 3000000], dict(core1, g="7", **{"#g": 7},
                                        gfn="prof_gentry", irqs="off")),
            }
            assert got == want, "samples %r, want %r" % (got, want)
        finally:
            shutil.rmtree(tmp)


    def test_folded_stacks(self):
        tmp = tempfile.mkdtemp()
        try:
            out = convert(tmp)
            with open(out + ".folded") as f:
                lines = sorted(f.read().split("\n")[:-1])
            assert lines == sorted([
                "prof_gentry;prof_caller;prof_leaf 30",
                "prof_gentry;prof_caller 10", "[idle];[halted] 5",
                "[idle];prof_caller 2", "[interrupt];prof_leaf 3"]), lines
        finally:
            shutil.rmtree(tmp)


    def test_go_tool_pprof_reads_it(self):
        go = os.environ.get("GO", "go")
        if not shutil.which(go):
            print("pprof_test: no Go toolchain; go tool pprof not tried")
            return
        tmp = tempfile.mkdtemp()
        try:
            out = convert(tmp)
            rows, total, text = P.go_pprof_top(out + ".pb.gz")
            assert total == 50 and rows.get("prof_caller") == 42 and \
                rows.get("prof_leaf") == 33, text
            for focus, want in (("core=1", 10), ("core=0", 40), ("g=7", 43),
                                ("gfn=prof_gentry", 43), ("irqs=off", 3),
                                ("core=^1$", 10)):
                rows, total, text = P.go_pprof_top(out + ".pb.gz",
                                                   "-tagfocus=" + focus)
                assert total == want, "-tagfocus=%s: %d, not %d:\n%s" % (
                    focus, total, want, text)
        finally:
            shutil.rmtree(tmp)


    def test_damage_is_named(self):
        def at(prefix):
            def find(ls):
                return next(i for i, l in enumerate(ls) if l.startswith(prefix))
            return find
        s1 = at("PROF S 0 1 ")

        def flip(ls):
            i = s1(ls)
            ls[i] = ls[i].replace(" 10 ", " 11 ", 1)
            return ls
        assert "damaged" in (damaged(flip) or ""), damaged(flip)

        def drop(ls):
            del ls[s1(ls)]
            return ls
        assert "missing" in (damaged(drop) or "") or \
            "samples" in (damaged(drop) or ""), damaged(drop)

        def repeat(ls):
            i = s1(ls)
            ls.insert(i, ls[i])
            return ls
        assert damaged(repeat), "a repeated line went unnoticed"

        def cut(ls):
            return ls[:at("PROF END")(ls)]
        assert "cut short" in (damaged(cut) or ""), damaged(cut)
        assert "no profile" in (damaged(lambda ls: ls[:1]) or "")


    def test_random_damage_never_crashes(self):
        with open(DUMP, "rb") as f:
            data = f.read()
        rng = random.Random(7)
        for i in range(300):
            b = bytearray(data)
            if i % 3 == 0:
                b = b[:rng.randrange(len(b))]
            else:
                for _ in range(rng.randrange(1, 4)):
                    b[rng.randrange(len(b))] = rng.randrange(256)
            fd, path = tempfile.mkstemp()
            with os.fdopen(fd, "wb") as f:
                f.write(b)
            try:
                P.parse(path)
            except P.DumpError:
                pass
            finally:
                os.unlink(path)

    def test_logged_ratio(self):
        fd, path = tempfile.mkstemp()
        try:
            with os.fdopen(fd, "w") as f:
                f.write("boot\nPROFILE-RATIO a/b 10/4\nPROFILE-RATIO x/b 1/1\n"
                        "PROFILE-RATIO a/b 9/3\n")
            assert P.logged_ratio(path, "a", "b") == 3.0    # the last one
            assert P.logged_ratio(path, "a", "c") is None
            with open(path, "a") as f:
                f.write("PROFILE-RATIO a/b 9/0\n")
            try:
                P.logged_ratio(path, "a", "b")
                raise AssertionError("a zero count was taken")
            except P.DumpError as e:
                assert "bad PROFILE-RATIO" in str(e), e
        finally:
            os.unlink(path)


class Lines(unittest.TextTestResult):
    """Prints a TEST line per case, as the C host tests do."""

    def addSuccess(self, test):
        super().addSuccess(test)
        print("TEST %s PASS" % test._testMethodName)

    def _fail(self, test, err):
        lines = self._exc_info_to_string(err, test).strip().split("\n")
        print("TEST %s FAIL %s" % (test._testMethodName, " | ".join(
            l.strip() for l in lines[-12:])))

    def addFailure(self, test, err):
        super().addFailure(test, err)
        self._fail(test, err)

    def addError(self, test, err):     # a crash of the tool is a failure
        super().addError(test, err)
        self._fail(test, err)


def main():
    if not os.path.exists(DUMP) or not os.path.exists(ELF):
        print("TEST dump_present FAIL %s or %s missing (profbuf_test runs "
              "first)" % (DUMP, ELF))
        print("0 passed, 1 failed")
        return 1
    names = [n for n in Pprof.__dict__ if n.startswith("test_")]
    suite = unittest.TestSuite(Pprof(n) for n in names)
    with open(os.devnull, "w") as quiet:
        r = unittest.TextTestRunner(stream=quiet, resultclass=Lines).run(suite)
    bad = len(r.failures) + len(r.errors)
    print("%d passed, %d failed" % (r.testsRun - bad, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
