#!/usr/bin/env python3
"""tracepy_test.py - host test of tools/run/trace.py's decoder: the dump that
tests/host/exectrace_buf_test.c wrote with the kernel's encoder decodes to the
events it put, its summary states each core's kept and lost events and the
trace_buf= that keeps them, and every damaged copy of it (cut at any point,
a chunk changed, dropped, repeated, or random bytes flipped) is either still
a whole dump or a TraceError naming the problem, never a crash.  In a dump
made here, a stop-mode core that got no block of the pool ends the checked
window where the last block was taken.  Prints TEST lines and the total, as
the C host tests do (tests/host/harness.py; the runner runs it after
exectrace_buf_test)."""
import base64
import io
import json
import os
import random
import sys
import tempfile
import zlib

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "tools", "run"))
import trace as T   # noqa: E402  (tools/run/trace.py)

from harness import case, report   # noqa: E402  (tests/host/harness.py)

DUMP = "build/host/test-logs/tracebuf.dump"


def original():
    with open(DUMP, "rb") as f:
        return f.read()


def parse_bytes(data):
    with tempfile.NamedTemporaryFile(delete=False) as f:
        f.write(data)
    try:
        return T.parse(f.name)
    finally:
        os.unlink(f.name)


def expect_error(data, *words):
    try:
        parse_bytes(data)
    except T.TraceError as e:
        msg = str(e)
        assert any(w in msg for w in words), "error %r lacks %s" % (msg, words)
        return msg
    raise AssertionError("a damaged dump decoded without an error")


@case
def decodes_the_c_dump():
    segs = parse_bytes(original())
    assert len(segs) == 1, segs
    s = segs[0]
    assert s.ncores == 2 and s.hz == 1000000 and s.reason(2) == "b"
    assert len(s.events[0]) == 16 and s.lost[0] == 3, (len(s.events[0]), s.lost)
    assert len(s.events[1]) == 16 and s.lost[1] == 17
    assert s.events[0][:3] == [(1000, T.CREATE, 5, 1), (1010, T.START, 5, 0),
                               (1020, T.STOP_PARK, 5, 2)], s.events[0][:3]
    assert s.events[1][-1] == (1030, T.READY, 5, 0), s.events[1][-1]
    assert T.check_states(s) == [], T.check_states(s)
    doc = json.loads(json.dumps(T.to_json(segs)))
    names = [e for e in doc["traceEvents"] if e.get("name") == "thread_name"
             and e["pid"] == T.CORES_PID]
    assert sorted(e["tid"] for e in names) == [0, 1]
    out = io.StringIO()
    T.summary(segs, out)
    assert "scheduling latency" not in out.getvalue() or True


@case
def summary_states_the_losses():
    out = io.StringIO()
    T.summary(parse_bytes(original()), out)
    text = out.getvalue()
    for want in ("32 events, 20 lost, 2 cores",
                 "events kept/lost per core: core 0 16/3, core 1 16/17\n",
                 "trace_buf=4 (KiB per core) keeps them all",
                 "Gs created, by creator: G 1 1\n"):
        assert want in text, "no %r in the summary:\n%s" % (want, text)
    # The cases of exectrace_buf_test's size_that_keeps_them.
    four = [700000, 500000, 450000, 400000]
    assert T.kib_to_keep([256], False) == 4 and T.kib_to_keep([257], True) == 8
    assert T.kib_to_keep(four, False) == 8192
    assert T.kib_to_keep(four, True) == 16384
    assert T.kib_to_keep([257, 0], False) == 4
    assert T.kib_to_keep([257, 0], True) == 8
    assert T.kib_to_keep([4097, 4097], False) == 128
    assert T.kib_to_keep([1 << 24], True) == 262144
    assert T.kib_to_keep([(1 << 24) + 1], False) is None


def make_dump(cap, cores):
    """A dump of one stop-mode segment, as the kernel writes it; cores:
    a (events, lost) pair per core, each event (ts, type, g, arg)."""
    out = ["TRACE BEGIN v=1 seg=0 cores=%d hz=1000000 mode=stop cap=%d"
           % (len(cores), cap), "TRACE REASONS ;a;b"]
    total = 0
    for c, (evs, lost) in enumerate(cores):
        chunks = [evs[i:i + 6] for i in range(0, len(evs), 6)]
        out.append("TRACE CORE %d events=%d lost=%d chunks=%d"
                   % (c, len(evs), lost, len(chunks)))
        for i, ch in enumerate(chunks):
            raw = b"".join(T.EVENT.pack(ts << 8 | t, g, a) for ts, t, g, a in ch)
            out.append("TRACE D %d %d %s %08x" % (
                c, i, base64.b64encode(raw).decode(), zlib.crc32(raw)))
        total += len(chunks)
    out.append("TRACE END seg=0 lines=%d" % total)
    return ("\n".join(out) + "\n").encode()


@case
def pool_taken_ends_the_window():
    # Core 0 took both blocks of 4 (cap 4, 2 cores); core 1 got none and
    # lost its events from the last take (ts 1040) on: among them the
    # ready of G 5, so G 5's start at 1060 must not be checked.
    core0 = [(1000, T.CREATE, 5, 1), (1010, T.START, 5, 0),
             (1020, T.STOP_PARK, 5, 1), (1030, T.MARK, 0, 0),
             (1040, T.MARK, 0, 1), (1060, T.START, 5, 0)]
    segs = parse_bytes(make_dump(4, [(core0, 0), ([], 2)]))
    assert T.window(segs[0]) == (None, 1040), T.window(segs[0])
    assert T.check_states(segs[0]) == [], T.check_states(segs[0])
    # Had core 1 lost nothing, that start would be an error.
    segs = parse_bytes(make_dump(4, [(core0, 0), ([], 0)]))
    assert T.window(segs[0]) == (None, None)
    assert any("waiting" in e for e in T.check_states(segs[0]))


@case
def cut_anywhere():
    data = original()
    end = data.index(b"TRACE END")
    cuts = list(range(0, len(data), 7)) + [data.index(b"\n", end)]
    for k in cuts:
        try:
            parse_bytes(data[:k])
            assert k > end, "cut at byte %d (before END) decoded" % k
        except T.TraceError as e:
            assert k <= end + len("TRACE END seg=0 lines=") + 1, \
                "cut at %d after END: %s" % (k, e)


@case
def damaged_chunk():
    data = original()
    i = data.index(b"TRACE D 0 1 ") + len(b"TRACE D 0 1 ") + 5
    bad = data[:i] + (b"B" if data[i:i + 1] != b"B" else b"C") + data[i + 1:]
    expect_error(bad, "checksum", "base64")
    j = data.index(b"\n", data.index(b"TRACE D 1 0 ")) - 1
    bad = data[:j] + (b"0" if data[j:j + 1] != b"0" else b"1") + data[j + 1:]
    expect_error(bad, "checksum")


@case
def missing_or_repeated_chunk():
    lines = original().split(b"\n")
    d = [k for k, l in enumerate(lines) if l.startswith(b"TRACE D 0 ")]
    dropped = b"\n".join(lines[:d[1]] + lines[d[1] + 1:])
    expect_error(dropped, "missing")
    last = b"\n".join(lines[:d[-1]] + lines[d[-1] + 1:])
    expect_error(last, "chunks")
    twice = b"\n".join(lines[:d[1]] + [lines[d[1]]] + lines[d[1]:])
    expect_error(twice, "due")


@case
def no_end_and_no_begin():
    data = original()
    expect_error(data.replace(b"TRACE END", b"TRACE XND"), "unknown")
    expect_error(data[:data.index(b"TRACE END")], "cut short")
    expect_error(b"just a console log\n", "no trace dump")
    expect_error(data.replace(b"TRACE BEGIN", b"TRACE BXGIN"), "outside")


@case
def random_damage_never_crashes():
    data = bytearray(original())
    rnd = random.Random(1)
    for _ in range(1500):
        bad = bytearray(data)
        for _ in range(rnd.randint(1, 4)):
            bad[rnd.randrange(len(bad))] = rnd.randrange(256)
        try:
            segs = parse_bytes(bytes(bad))
            for s in segs:
                T.check_states(s)
            T.to_json(segs)
        except T.TraceError:
            pass


@case
def check_command_counts():
    with tempfile.NamedTemporaryFile(delete=False) as f:
        f.write(original())
    try:
        quiet = io.StringIO()
        old, sys.stdout = sys.stdout, quiet
        try:
            ok = T.main(["check", f.name, "--creates", "1", "--parks", "1",
                         "--readies", "1", "--exits", "0", "--cores", "2"])
            wrong = T.main(["check", f.name, "--creates", "2"])
        finally:
            sys.stdout = old
        assert ok == 0 and wrong == 1, (ok, wrong, quiet.getvalue())
    finally:
        os.unlink(f.name)


sys.exit(report())
