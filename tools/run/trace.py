#!/usr/bin/env python3
"""trace.py - decodes Spindle's execution trace (trace=1 / trace=wrap).

  trace.py json SRC -o OUT.json    Perfetto / chrome://tracing JSON, and the
                                   summary on stdout
  trace.py summary SRC             the summary alone
  trace.py check SRC [--segment K] [--creates N] [--parks N] [--readies N]
                 [--exits N] [--cores N] [--lost N]
                                   the trace is whole and every G's state
                                   sequence legal; with counts, segment K
                                   (default: all) holds exactly that many
                                   creates, parks, readies and exits; the
                                   JSON made of it parses and has one track
                                   per core.  Exit status 0, else 1 with
                                   the reasons.
  trace.py png SRC -o OUT.png [--window A:B] [--gs N]
                                   a picture of the trace (ms A to B; the
                                   first N Gs' own tracks)

SRC is a console log holding the kernel's "TRACE " lines (the bare-metal
builds), or the hosted build's trace file: the same lines.  The format is
sched/exectrace_buf.h's: a BEGIN line with the cycle rate, the wait reasons,
per core a CORE line and base64 chunks each with its CRC-32, then END.  A
dump cut short, a chunk missing, out of order or damaged is an error that
says which, never a crash.  Each dump (an sp_trace_flush, or the exit) is
one segment; states are not carried from one segment to the next.

Python 3 standard library only (Debian's python3; the PNG is written with
zlib, the labels with the console font tools/build/psf.py reads).
"""
import argparse
import base64
import heapq
import json
import os
import struct
import sys
import zlib

# sched/exectrace_buf.h's enum trace_type.
(CREATE, START, STOP_YIELD, STOP_PREEMPT, STOP_GOSCHED, STOP_PARK, STOP_EXIT,
 READY, READY_TIMER, READY_NET, STEAL, TIMER, IDLE, WAKE, MARK) = range(1, 16)
NTYPES = 16
STEAL_WAKEQ = 1 << 24
STOPS = (STOP_YIELD, STOP_PREEMPT, STOP_GOSCHED, STOP_PARK, STOP_EXIT)
READIES = (READY, READY_TIMER, READY_NET)
STOP_NAME = {STOP_YIELD: "yield", STOP_PREEMPT: "preempted",
             STOP_GOSCHED: "gosched", STOP_PARK: "park", STOP_EXIT: "exit"}
# Among events of equal cycle counts on different cores, the causes first.
PRIO = {CREATE: 0, STOP_YIELD: 1, STOP_PREEMPT: 1, STOP_GOSCHED: 1,
        STOP_PARK: 1, STOP_EXIT: 1, READY: 2, READY_TIMER: 2, READY_NET: 2,
        STEAL: 3, START: 5}
EVENT = struct.Struct("<QII")
# sched/exectrace_buf.h's sizes.
EVENT_BYTES, BUF_MIN_KIB, BUF_MAX_KIB, BLOCK_EVENTS = 16, 4, 262144, 4096


class TraceError(Exception):
    """A dump that cannot be decoded: the message says where and why."""


class Segment:
    def __init__(self, header, lineno):
        self.lineno = lineno
        try:
            self.seg = int(header["seg"])
            self.ncores = int(header["cores"])
            self.hz = int(header["hz"])
            self.mode = header["mode"]
            self.cap = int(header["cap"])
        except (KeyError, ValueError) as e:
            raise TraceError("line %d: BEGIN line lacks or garbles %s"
                             % (lineno, e))
        if self.hz <= 0 or not 1 <= self.ncores <= 64:
            raise TraceError("line %d: BEGIN line has hz=%d cores=%d"
                             % (lineno, self.hz, self.ncores))
        self.reasons = []
        self.cores = {}         # core -> dict(events=, lost=, chunks=, data=)
        self.events = {}        # core -> [(ts, type, g, arg)]
        self.lost = {}

    def reason(self, r):
        return self.reasons[r] if 0 <= r < len(self.reasons) and \
            self.reasons[r] else "reason %d" % r


def _fields(words, lineno, what):
    out = {}
    for w in words:
        if "=" not in w:
            raise TraceError("line %d: %s line has a stray word %r"
                             % (lineno, what, w))
        k, v = w.split("=", 1)
        out[k] = v
    return out


def _int(s, lineno, what):
    try:
        return int(s)
    except ValueError:
        raise TraceError("line %d: %s is not a number: %r" % (lineno, what, s))


def parse(path):
    """The segments of the dump(s) in path, in order."""
    try:
        with open(path, "rb") as f:
            raw = f.read()
    except OSError as e:
        raise TraceError("cannot read %s: %s" % (path, e.strerror))
    segs, cur, core = [], None, None
    for lineno, line in enumerate(raw.split(b"\n"), 1):
        line = line.rstrip(b"\r")
        if not line.startswith(b"TRACE "):
            continue
        try:
            words = line.decode("ascii").split(" ")
        except UnicodeDecodeError:
            raise TraceError("line %d: a TRACE line with bytes that are not "
                             "ASCII (a damaged dump)" % lineno)
        kind = words[1] if len(words) > 1 else ""
        if kind == "BEGIN":
            if cur:
                raise TraceError("line %d: segment %d never ended (no TRACE "
                                 "END): the dump was cut short"
                                 % (lineno, cur.seg))
            cur = Segment(_fields(words[2:], lineno, "BEGIN"), lineno)
            core = None
            continue
        if cur is None:
            raise TraceError("line %d: TRACE %s outside a dump (no BEGIN "
                             "before it)" % (lineno, kind))
        if kind == "REASONS":
            cur.reasons = line.decode("ascii")[len("TRACE REASONS "):].split(";")
        elif kind == "CORE":
            if len(words) < 3:
                raise TraceError("line %d: CORE line without a core" % lineno)
            c = _int(words[2], lineno, "the core")
            f = _fields(words[3:], lineno, "CORE")
            if c in cur.cores or not 0 <= c < cur.ncores:
                raise TraceError("line %d: core %d repeated or beyond the %d "
                                 "cores" % (lineno, c, cur.ncores))
            cur.cores[c] = dict(events=_int(f.get("events", "x"), lineno, "events="),
                                lost=_int(f.get("lost", "x"), lineno, "lost="),
                                chunks=_int(f.get("chunks", "x"), lineno, "chunks="),
                                data=[])
            core = c
        elif kind == "D":
            if len(words) != 6:
                raise TraceError("line %d: a chunk line with %d words, not 6 "
                                 "(cut or damaged)" % (lineno, len(words)))
            c = _int(words[2], lineno, "the chunk's core")
            i = _int(words[3], lineno, "the chunk's index")
            if c != core:
                raise TraceError("line %d: a chunk of core %d under core %s's "
                                 "header" % (lineno, c, core))
            info = cur.cores[c]
            if i != len(info["data"]):
                raise TraceError("line %d: core %d chunk %d where chunk %d was "
                                 "due (a chunk line is missing)"
                                 % (lineno, c, i, len(info["data"])))
            try:
                data = base64.b64decode(words[4], validate=True)
                crc = int(words[5], 16)
            except (ValueError, base64.binascii.Error):
                raise TraceError("line %d: core %d chunk %d is not base64 and "
                                 "a hex checksum (damaged)" % (lineno, c, i))
            if zlib.crc32(data) != crc:
                raise TraceError("line %d: core %d chunk %d fails its checksum "
                                 "(damaged in transit)" % (lineno, c, i))
            if len(data) % EVENT.size or not data:
                raise TraceError("line %d: core %d chunk %d holds %d bytes, not "
                                 "whole events" % (lineno, c, i, len(data)))
            info["data"].append(data)
        elif kind == "END":
            f = _fields(words[2:], lineno, "END")
            _finish(cur, lineno, f)
            segs.append(cur)
            cur, core = None, None
        else:
            raise TraceError("line %d: unknown TRACE line %r" % (lineno, kind))
    if cur:
        got = sum(len(v["data"]) for v in cur.cores.values())
        raise TraceError("segment %d (line %d) has no TRACE END: the dump was "
                         "cut short after %d chunk lines"
                         % (cur.seg, cur.lineno, got))
    if not segs:
        raise TraceError("%s holds no trace dump (no TRACE BEGIN line; was "
                         "the machine booted with trace=1?)" % path)
    return segs


def _finish(seg, lineno, f):
    if len(seg.cores) != seg.ncores:
        missing = sorted(set(range(seg.ncores)) - set(seg.cores))
        raise TraceError("line %d: segment %d ends without core(s) %s"
                         % (lineno, seg.seg, missing))
    total = 0
    for c, info in sorted(seg.cores.items()):
        if len(info["data"]) != info["chunks"]:
            raise TraceError("line %d: core %d has %d of its %d chunks"
                             % (lineno, c, len(info["data"]), info["chunks"]))
        blob = b"".join(info["data"])
        evs = [(tsk >> 8, tsk & 0xff, g, arg)
               for tsk, g, arg in EVENT.iter_unpack(blob)]
        if len(evs) != info["events"]:
            raise TraceError("line %d: core %d holds %d events, its header "
                             "says %d" % (lineno, c, len(evs), info["events"]))
        for k, e in enumerate(evs):
            if not 1 <= e[1] < NTYPES:
                raise TraceError("core %d event %d has type %d (damaged)"
                                 % (c, k, e[1]))
        seg.events[c] = evs
        seg.lost[c] = info["lost"]
        total += info["chunks"]
    if "lines" in f and _int(f["lines"], lineno, "lines=") != total:
        raise TraceError("line %d: END says %s chunk lines, %d came"
                         % (lineno, f["lines"], total))


def merged(seg):
    """Every event of seg as (ts, type, g, arg, core), in time order; each
    core's own order kept, and at equal times causes before effects."""
    def keyed(c):
        for ts, t, g, a in seg.events[c]:
            yield (ts, PRIO.get(t, 4), c, t, g, a)
    for ts, _, c, t, g, a in heapq.merge(*(keyed(c) for c in sorted(seg.events))):
        yield ts, t, g, a, c


def window(seg):
    """The cycle range in which no core lost events: (start, end), None
    for open.  Wrapped buffers lost their oldest events, full ones (stop
    mode) their newest."""
    start = end = None
    for c, evs in seg.events.items():
        if not seg.lost.get(c) or not evs:
            continue
        if seg.mode == "wrap":
            start = evs[0][0] if start is None else max(start, evs[0][0])
        else:
            end = evs[-1][0] if end is None else min(end, evs[-1][0])
    if seg.mode != "wrap" and any(seg.lost.get(c) and not seg.events.get(c)
                                  for c in range(seg.ncores)):
        # A core that holds nothing lost its first event once the pool's
        # last block was taken, at that block's first event.
        block = min(seg.cap, BLOCK_EVENTS)
        taken = [evs[(len(evs) - 1) // block * block][0]
                 for evs in seg.events.values() if evs]
        if taken:
            end = max(taken) if end is None else min(end, max(taken))
    return start, end


# ---- The states of every G ----------------------------------------------

RUNNABLE, RUNNING, WAITING, DEAD = "runnable", "running", "waiting", "dead"


def check_states(seg):
    """The violations of the scheduler's rules in seg, as strings.  At a
    segment's start (or the window's), what each core runs and each G's
    state are unknown: the first event of each tells."""
    bad = []
    start, end = window(seg)
    unknown = object()
    state, where = {}, {}
    running = {c: unknown for c in range(seg.ncores)}
    created = set()

    def err(ts, c, msg):
        if len(bad) < 20:
            bad.append("segment %d, %.3f us, core %d: %s"
                       % (seg.seg, (ts - t0) * 1e6 / seg.hz, c, msg))
        elif len(bad) == 20:
            bad.append("... (more)")

    t0 = min((e[0][0] for e in seg.events.values() if e), default=0)
    for ts, t, g, a, c in merged(seg):
        if (start is not None and ts < start) or (end is not None and ts > end):
            continue
        s = state.get(g)
        if t == CREATE:
            if g in created or s is not None:
                err(ts, c, "G %d created again (it was %s)" % (g, s))
            created.add(g)
            state[g] = RUNNABLE
        elif t == START:
            if running.get(c) not in (None, unknown):
                err(ts, c, "starts G %d while G %d runs there"
                    % (g, running[c]))
            if s == RUNNING:
                err(ts, c, "starts G %d, which runs on core %d"
                    % (g, where[g]))
            elif s in (WAITING, DEAD):
                err(ts, c, "starts G %d, which is %s (no create or ready "
                    "before)" % (g, s))
            state[g], where[g], running[c] = RUNNING, c, g
        elif t in STOPS:
            if running.get(c) is unknown and s is None:
                pass            # it ran since before the segment began
            elif running.get(c) != g:
                err(ts, c, "stops G %d, which it does not run (it runs %s)"
                    % (g, running.get(c)))
            elif s != RUNNING:
                err(ts, c, "stops G %d, which is %s" % (g, s))
            running[c] = None
            state[g] = {STOP_PARK: WAITING, STOP_EXIT: DEAD}.get(t, RUNNABLE)
        elif t in READIES:
            if s == RUNNING:
                err(ts, c, "readies G %d while it runs on core %d"
                    % (g, where[g]))
            elif s in (RUNNABLE, DEAD):
                err(ts, c, "readies G %d, which is %s" % (g, s))
            state[g] = RUNNABLE
        elif t == STEAL:
            if s in (RUNNING, WAITING, DEAD):
                err(ts, c, "steals G %d, which is %s" % (g, s))
        elif t == IDLE:
            if running.get(c) not in (None, unknown):
                err(ts, c, "halts while G %d runs there" % running[c])
    return bad


def counts(seg):
    n = dict(creates=0, parks=0, readies=0, exits=0)
    for evs in seg.events.values():
        for _, t, _, _ in evs:
            if t == CREATE:
                n["creates"] += 1
            elif t == STOP_PARK:
                n["parks"] += 1
            elif t in READIES:
                n["readies"] += 1
            elif t == STOP_EXIT:
                n["exits"] += 1
    return n


# ---- Chrome trace event JSON --------------------------------------------

CORES_PID, GS_PID = 1, 2


def to_json(segs):
    """The Chrome trace event format (a dict) of the segments: a track per
    core (which G runs, halts), a track per G (its states), flows for
    spawn, wake-up, steal and preemption."""
    out = []
    origin = min((e[0][0] for s in segs for e in s.events.values() if e),
                 default=0)
    hz = segs[0].hz
    ncores = max(s.ncores for s in segs)

    # Times in whole ns from the origin, shown as us with 3 decimals:
    # integers, since round(x, 3) costs more than the rest of an event.
    per_ns = 1e9 / hz

    def ns(ts):
        return int((ts - origin) * per_ns + 0.5)

    def us(ts):
        return ns(ts) / 1000

    def meta(pid, tid, name, sort):
        out.append(dict(ph="M", pid=pid, tid=tid, name="thread_name",
                        args=dict(name=name)))
        out.append(dict(ph="M", pid=pid, tid=tid, name="thread_sort_index",
                        args=dict(sort_index=sort)))

    out.append(dict(ph="M", pid=CORES_PID, name="process_name",
                    args=dict(name="Cores")))
    out.append(dict(ph="M", pid=GS_PID, name="process_name",
                    args=dict(name="Goroutines")))
    out.append(dict(ph="M", pid=CORES_PID, name="process_sort_index",
                    args=dict(sort_index=0)))
    out.append(dict(ph="M", pid=GS_PID, name="process_sort_index",
                    args=dict(sort_index=1)))
    for c in range(ncores):
        meta(CORES_PID, c, "core %d" % c, c)
    gs_named = set()
    flow = [0]

    def slice_(pid, tid, name, t0, t1, **args):
        n0 = ns(t0)
        out.append(dict(ph="X", pid=pid, tid=tid, name=name, ts=n0 / 1000,
                        dur=max(ns(t1) - n0, 1) / 1000, args=args))

    def arrow(name, c0, t0, c1, t1):
        flow[0] += 1
        out.append(dict(ph="s", id=flow[0], pid=CORES_PID, tid=c0, ts=us(t0),
                        name=name, cat=name))
        out.append(dict(ph="f", bp="e", id=flow[0], pid=CORES_PID, tid=c1,
                        ts=us(t1), name=name, cat=name))

    for seg in segs:
        last = max((e[-1][0] for e in seg.events.values() if e), default=origin)
        run = {}                # core -> (g, start ts)
        halt = {}               # core -> halt ts
        gstate = {}             # g -> (state name, since ts)
        pending = {}            # g -> [(flow name, core, ts)] to its next start

        def gname(g):
            if g not in gs_named:
                gs_named.add(g)
                meta(GS_PID, g, "G %d" % g, g)

        def gset(g, name, ts, **args):
            gname(g)
            if g in gstate:
                prev, since, pargs = gstate[g]
                slice_(GS_PID, g, prev, since, ts, **pargs)
            gstate[g] = (name, ts, args)

        for ts, t, g, a, c in merged(seg):
            if t == CREATE:
                gset(g, "runnable", ts, created_by=a)
                pending.setdefault(g, []).append(("spawn", c, ts))
            elif t == START:
                if c in halt:
                    slice_(CORES_PID, c, "halt", halt.pop(c), ts)
                run[c] = (g, ts)
                gset(g, "running", ts, core=c)
                for name, c0, t0 in pending.pop(g, []):
                    arrow(name, c0, t0, c, ts)
            elif t in STOPS:
                why = STOP_NAME[t]
                if t == STOP_PARK:
                    why = seg.reason(a)
                if run.get(c, (None,))[0] == g:
                    g0, t0 = run.pop(c)
                    slice_(CORES_PID, c, "G %d" % g, t0, ts, g=g, ended=why)
                if t == STOP_PARK:
                    gset(g, "waiting: " + why, ts)
                elif t == STOP_EXIT:
                    gname(g)
                    if g in gstate:
                        prev, since, pargs = gstate.pop(g)
                        slice_(GS_PID, g, prev, since, ts, **pargs)
                else:
                    gset(g, "runnable", ts, after=why)
                    if t == STOP_PREEMPT:
                        pending.setdefault(g, []).append(("preempt", c, ts))
            elif t in READIES:
                by = {READY: "G %d" % a if a else "scheduler",
                      READY_TIMER: "timer", READY_NET: "network"}[t]
                gset(g, "runnable", ts, readied_by=by, on_core=c)
                pending.setdefault(g, []).append(("wake", c, ts))
            elif t == STEAL:
                victim = a >> 16 & 0xff
                n = a & 0xffff
                slice_(CORES_PID, c, "steal %d from P%d%s" %
                       (n, victim, " (wake queue)" if a & STEAL_WAKEQ else ""),
                       ts, ts)
                # Drawn from the victim's core to the thief's start of g.
                pending.setdefault(g, []).append(("steal", victim, ts))
            elif t == TIMER:
                slice_(CORES_PID, c, "timer (P%d)" % a, ts, ts)
            elif t == IDLE:
                halt[c] = ts
            elif t == WAKE:
                if c in halt:
                    slice_(CORES_PID, c, "halt", halt.pop(c), ts)
            elif t == MARK:
                out.append(dict(ph="i", s="t", pid=CORES_PID, tid=c, ts=us(ts),
                                name="mark %d" % a, args=dict(g=g)))
        for c, (g, t0) in run.items():
            slice_(CORES_PID, c, "G %d" % g, t0, last, g=g, ended="trace end")
        for c, t0 in halt.items():
            slice_(CORES_PID, c, "halt", t0, last)
        for g, (name, since, args) in gstate.items():
            slice_(GS_PID, g, name, since, last, **args)
    return dict(traceEvents=out, displayTimeUnit="ns",
                otherData=dict(source="Spindle tracer", hz=hz,
                               segments=len(segs)))


# ---- The summary (go tool trace's goroutine analysis) -------------------

def kib_to_keep(seen, wrap):
    """The least trace_buf= (KiB a core) that would have kept the seen[c]
    events of each core (tracecfg_kib_to_keep): in wrap mode each core's
    share holds its own, in stop mode the pool holds every core's in whole
    blocks.  None if even the largest would not."""
    kib = BUF_MIN_KIB
    while kib <= BUF_MAX_KIB:
        cap = kib * 1024 // EVENT_BYTES
        block = min(cap, BLOCK_EVENTS)
        if wrap:
            if max(seen) <= cap:
                return kib
        elif sum(-(-n // block) for n in seen) <= len(seen) * (cap // block):
            return kib
        kib *= 2
    return None


def summary(segs, out=sys.stdout):
    hz = segs[0].hz
    per = {}                    # g -> [running, runnable, blocked] cycles
    lat = []                    # runnable -> running waits, cycles
    creators = {}               # creator (0: the scheduler) -> Gs created
    nev = sum(len(e) for s in segs for e in s.events.values())
    lost = sum(sum(s.lost.values()) for s in segs)
    ncores = max(s.ncores for s in segs)
    kept_c, lost_c, kib = [0] * ncores, [0] * ncores, BUF_MIN_KIB
    for seg in segs:
        seen = []
        for c in range(seg.ncores):
            n, l = len(seg.events.get(c, ())), seg.lost.get(c, 0)
            kept_c[c] += n
            lost_c[c] += l
            seen.append(n + l)
        need = kib_to_keep(seen, seg.mode == "wrap")
        kib = max(kib, need) if kib and need else None
    span = 0
    for seg in segs:
        since = {}
        first = min((e[0][0] for e in seg.events.values() if e), default=0)
        last = max((e[-1][0] for e in seg.events.values() if e), default=0)
        span += last - first
        for ts, t, g, a, c in merged(seg):
            if t == CREATE:
                creators[a] = creators.get(a, 0) + 1
            acc = per.setdefault(g, [0, 0, 0]) if g else None
            prev = since.get(g)
            if t in (CREATE, START) or t in STOPS or t in READIES:
                if prev:
                    k = {RUNNING: 0, RUNNABLE: 1, WAITING: 2}.get(prev[0])
                    if k is not None:
                        acc[k] += ts - prev[1]
                    if prev[0] == RUNNABLE and t == START:
                        lat.append(ts - prev[1])
            if t in (CREATE,) or t in READIES:
                since[g] = (RUNNABLE, ts)
            elif t == START:
                since[g] = (RUNNING, ts)
            elif t == STOP_PARK:
                since[g] = (WAITING, ts)
            elif t == STOP_EXIT:
                since.pop(g, None)
            elif t in STOPS:
                since[g] = (RUNNABLE, ts)

    def ms(c):
        return c * 1e3 / hz
    p = lambda *a: print(*a, file=out)
    p("trace: %d segment(s), %d events, %d lost, %d cores, %.3f ms traced, "
      "%d Gs" % (len(segs), nev, lost, ncores, ms(span), len(per)))
    p("events kept/lost per core: " +
      ", ".join("core %d %d/%d" % (c, kept_c[c], lost_c[c])
                for c in range(ncores)))
    if lost:
        p("trace: events were lost (a full buffer): the picture has gaps; " +
          ("trace_buf=%d (KiB per core) keeps them all" % kib if kib else
           "more than trace_buf=%d holds them; sp_trace_flush() calls cut "
           "the run into segments" % BUF_MAX_KIB) +
          ", trace=wrap keeps the last")
    top = sorted(creators.items(), key=lambda kv: -kv[1])
    if top:
        p("Gs created, by creator: " +
          ", ".join("%s %d" % ("G %d" % g if g else "the scheduler", n)
                    for g, n in top[:8]) +
          (", ... %d more creators" % (len(top) - 8) if len(top) > 8 else ""))
    tot = [sum(v[k] for v in per.values()) for k in range(3)]
    p("all Gs: running %.3f ms, runnable (scheduling latency) %.3f ms, "
      "blocked %.3f ms" % (ms(tot[0]), ms(tot[1]), ms(tot[2])))
    p("%-10s %12s %12s %12s" % ("G", "running ms", "runnable ms", "blocked ms"))
    top = sorted(per.items(), key=lambda kv: -kv[1][0])
    for g, v in top[:15]:
        p("%-10s %12.3f %12.3f %12.3f" % ("G %d" % g, ms(v[0]), ms(v[1]),
                                          ms(v[2])))
    if len(top) > 15:
        p("... %d more Gs" % (len(top) - 15))
    if not lat:
        return
    lat.sort()
    edges = [1, 10, 100, 1000, 10000, 100000, float("inf")]    # us
    labels = ["< 1 us", "1-10 us", "10-100 us", "100 us-1 ms", "1-10 ms",
              "10-100 ms", ">= 100 ms"]
    hist = [0] * len(edges)
    for v in lat:
        u = v * 1e6 / hz
        hist[next(i for i, e in enumerate(edges) if u < e)] += 1
    q = lambda f: lat[min(len(lat) - 1, int(f * len(lat)))] * 1e6 / hz
    p("scheduling latency (runnable to running), %d waits: p50 %.1f us, "
      "p90 %.1f us, p99 %.1f us, max %.1f us" % (len(lat), q(.5), q(.9),
                                                 q(.99), lat[-1] * 1e6 / hz))
    big = max(hist)
    for label, n in zip(labels, hist):
        p("  %-12s %8d %s" % (label, n, "#" * (n * 40 // big if big else 0)))


# ---- The picture ---------------------------------------------------------

def _png(path, w, h, rows):
    def chunk(kind, data):
        c = struct.pack(">I", len(data)) + kind + data
        return c + struct.pack(">I", zlib.crc32(kind + data))
    raw = b"".join(b"\0" + bytes(r) for r in rows)
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n")
        f.write(chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)))
        f.write(chunk(b"IDAT", zlib.compress(raw, 9)))
        f.write(chunk(b"IEND", b""))


class Canvas:
    def __init__(self, w, h, font):
        self.w, self.h = w, h
        self.rows = [bytearray(b"\xff" * (3 * w)) for _ in range(h)]
        self.font = font

    def rect(self, x0, y0, x1, y1, rgb):
        x0, x1 = max(0, int(x0)), min(self.w, int(x1))
        y0, y1 = max(0, int(y0)), min(self.h, int(y1))
        if x1 <= x0:
            return
        span = bytes(rgb) * (x1 - x0)
        for y in range(y0, y1):
            self.rows[y][3 * x0:3 * x1] = span

    def line(self, x0, y0, x1, y1, rgb):
        n = int(max(abs(x1 - x0), abs(y1 - y0), 1))
        for i in range(n + 1):
            x = int(x0 + (x1 - x0) * i / n)
            y = int(y0 + (y1 - y0) * i / n)
            if 0 <= x < self.w and 0 <= y < self.h:
                self.rows[y][3 * x:3 * x + 3] = bytes(rgb)

    def text(self, x, y, s, rgb=(0, 0, 0)):
        if not self.font:
            return
        height, table = self.font
        for ch in s:
            glyph = table[ord(ch) & 0xff]
            for r in range(height):
                bits = glyph[r]
                for b in range(8):
                    if bits & (0x80 >> b) and 0 <= y + r < self.h and \
                            0 <= x + b < self.w:
                        self.rows[y + r][3 * (x + b):3 * (x + b) + 3] = bytes(rgb)
            x += 8


def gcolor(g):
    h = (g * 2654435761) & 0xffffffff
    return (60 + (h & 0x7f), 60 + (h >> 8 & 0x7f), 60 + (h >> 16 & 0x7f))


STATE_RGB = {"running": (46, 139, 87), "runnable": (240, 180, 40),
             "waiting": (200, 200, 215)}


def render(segs, path, win=None, ngs=12, width=1400):
    seg = segs[0]
    hz = seg.hz
    evs = list(merged(seg))
    if not evs:
        raise TraceError("segment 0 holds no events to draw")
    t0 = evs[0][0]
    if win:
        a, b = win
        lo, hi = t0 + int(a * hz / 1e3), t0 + int(b * hz / 1e3)
    else:
        lo, hi = t0, evs[-1][0]
    hi = max(hi, lo + 1)
    try:
        sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "build"))
        import psf   # tools/build/psf.py
        font = psf.load("/usr/share/consolefonts/Lat15-VGA16.psf.gz")
    except Exception:
        font = None
    # The Gs with their own tracks: the first ngs that run in the window.
    shown = []
    for ts, t, g, a, c in evs:
        if t == START and lo <= ts <= hi and g not in shown:
            shown.append(g)
            if len(shown) == ngs:
                break
    left, top, lane, gap = 90, 40, 26, 6
    glane = 14
    h = top + seg.ncores * (lane + gap) + 24 + len(shown) * (glane + 2) + 40
    cv = Canvas(width, h, font)
    x = lambda ts: left + (ts - lo) * (width - left - 10) / (hi - lo)
    cy = lambda c: top + c * (lane + gap)
    gy0 = top + seg.ncores * (lane + gap) + 24
    gy = lambda g: gy0 + shown.index(g) * (glane + 2)
    cv.text(8, 8, "Spindle trace: %d cores, %.3f ms from %.3f ms; core tracks "
            "(G runs, grey = halt), then G states (green running, yellow "
            "runnable, grey waiting)" % (seg.ncores, (hi - lo) * 1e3 / hz,
                                         (lo - t0) * 1e3 / hz))
    for c in range(seg.ncores):
        cv.rect(left, cy(c), width - 10, cy(c) + lane, (245, 245, 245))
        cv.text(8, cy(c) + 5, "core %d" % c)
    for g in shown:
        cv.text(8, gy(g) - 1, "G %d" % g)
    run, halt, gst = {}, {}, {}
    arrows = []

    def close_g(g, ts):
        if g in gst and g in shown:
            name, since = gst[g]
            cv.rect(x(max(since, lo)), gy(g), x(min(ts, hi)) + 1, gy(g) + glane,
                    STATE_RGB[name])

    for ts, t, g, a, c in evs:
        if ts > hi:
            break
        if t == START:
            if c in halt:
                cv.rect(x(max(halt.pop(c), lo)), cy(c) + 8, x(ts) + 1,
                        cy(c) + lane - 8, (170, 170, 170))
            run[c] = (g, ts)
            close_g(g, ts)
            gst[g] = ("running", ts)
        elif t in STOPS:
            if c in run and run[c][0] == g:
                g0, s = run.pop(c)
                if ts >= lo:
                    x0, x1 = x(max(s, lo)), x(ts) + 1
                    cv.rect(x0, cy(c), x1, cy(c) + lane, gcolor(g))
                    if x1 - x0 > 8 * len(str(g)) + 4:
                        cv.text(int(x0) + 2, cy(c) + 5, str(g), (255, 255, 255))
            close_g(g, ts)
            if t == STOP_EXIT:
                gst.pop(g, None)
            else:
                gst[g] = ("waiting" if t == STOP_PARK else "runnable", ts)
        elif t in READIES or t == CREATE:
            close_g(g, ts)
            gst[g] = ("runnable", ts)
            if lo <= ts and t == READY and a:
                arrows.append((c, ts, g))
        elif t == IDLE:
            halt[c] = ts
        elif t == WAKE and c in halt:
            cv.rect(x(max(halt.pop(c), lo)), cy(c) + 8, x(ts) + 1,
                    cy(c) + lane - 8, (170, 170, 170))
    for c, (g, s) in run.items():
        cv.rect(x(max(s, lo)), cy(c), x(hi), cy(c) + lane, gcolor(g))
    for g in list(gst):
        close_g(g, hi)
    # Wake-ups whose G starts in the window: readier's core to the start.
    starts = {}
    for ts, t, g, a, c in evs:
        if t == START and lo <= ts <= hi:
            starts.setdefault(g, []).append((ts, c))
    for c, ts, g in arrows[:400]:
        nxt = next(((s, c1) for s, c1 in starts.get(g, []) if s >= ts), None)
        if nxt:
            cv.line(x(ts), cy(c) + lane // 2, x(nxt[0]), cy(nxt[1]) + lane // 2,
                    (200, 30, 30))
    # Time axis.
    ay = h - 30
    cv.line(left, ay, width - 10, ay, (0, 0, 0))
    span_ms = (hi - lo) * 1e3 / hz
    for i in range(11):
        tx = left + i * (width - left - 10) / 10
        cv.line(tx, ay, tx, ay + 5, (0, 0, 0))
        cv.text(int(tx) - 16, ay + 8, "%.2f" % ((lo - t0) * 1e3 / hz +
                                                span_ms * i / 10))
    cv.text(width - 40, ay - 18, "ms")
    _png(path, width, h, cv.rows)


# ---- The commands ----------------------------------------------------------

def cmd_check(args):
    segs = parse(args.src)
    bad = []
    for seg in segs:
        bad += check_states(seg)
    want = {k: getattr(args, k) for k in ("creates", "parks", "readies",
                                          "exits") if getattr(args, k) is not None}
    pick = [s for s in segs if args.segment is None or s.seg == args.segment]
    if args.segment is not None and not pick:
        bad.append("no segment %d (the dump has %s)"
                   % (args.segment, [s.seg for s in segs]))
    if want and pick:
        got = dict(creates=0, parks=0, readies=0, exits=0)
        for s in pick:
            for k, v in counts(s).items():
                got[k] += v
        for k, v in want.items():
            if got[k] != v:
                bad.append("%s: %d, expected %d" % (k, got[k], v))
    if args.lost is not None:
        lost = sum(sum(s.lost.values()) for s in segs)
        if lost > args.lost:
            bad.append("%d events lost, at most %d allowed" % (lost, args.lost))
    if args.cores is not None:
        for s in segs:
            if s.ncores != args.cores:
                bad.append("segment %d has %d cores, expected %d"
                           % (s.seg, s.ncores, args.cores))
    doc = json.loads(json.dumps(to_json(segs)))
    tracks = {e["tid"] for e in doc["traceEvents"]
              if e.get("pid") == CORES_PID and e.get("ph") == "M"
              and e.get("name") == "thread_name"}
    ncores = max(s.ncores for s in segs)
    if tracks != set(range(ncores)):
        bad.append("the JSON has core tracks %s, not one per core (%d)"
                   % (sorted(tracks), ncores))
    if bad:
        for b in bad:
            print("trace check: " + b)
        return 1
    c = counts(pick[0]) if len(pick) == 1 else None
    print("trace check: %d segment(s), %d events, every state sequence legal%s"
          % (len(segs), sum(len(e) for s in segs for e in s.events.values()),
             ", segment %d: %s" % (pick[0].seg, c) if c else ""))
    return 0


def main(argv):
    ap = argparse.ArgumentParser(prog="trace.py", description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    j = sub.add_parser("json")
    j.add_argument("src")
    j.add_argument("-o", "--out", required=True)
    j.add_argument("-q", "--quiet", action="store_true", help="no summary")
    s = sub.add_parser("summary")
    s.add_argument("src")
    c = sub.add_parser("check")
    c.add_argument("src")
    c.add_argument("--segment", type=int)
    for k in ("creates", "parks", "readies", "exits", "cores", "lost"):
        c.add_argument("--" + k, type=int)
    p = sub.add_parser("png")
    p.add_argument("src")
    p.add_argument("-o", "--out", required=True)
    p.add_argument("--window", help="A:B, in ms from the first event")
    p.add_argument("--gs", type=int, default=12)
    args = ap.parse_args(argv)
    try:
        if args.cmd == "check":
            return cmd_check(args)
        segs = parse(args.src)
        if args.cmd == "json":
            with open(args.out, "w") as f:
                # One string: json.dumps encodes in C, json.dump in Python.
                f.write(json.dumps(to_json(segs), separators=(",", ":")))
            if not args.quiet:
                summary(segs)
        elif args.cmd == "summary":
            summary(segs)
        elif args.cmd == "png":
            win = None
            if args.window:
                a, b = args.window.split(":")
                win = (float(a), float(b))
            render(segs, args.out, win, args.gs)
        return 0
    except TraceError as e:
        print("trace.py: %s" % e, file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
