#!/usr/bin/env python3
"""pprof.py - turns Spindle's CPU profile (profile=HZ) into pprof's format.

  pprof.py convert SRC --elf IMAGE -o OUT
        OUT.pb.gz, a gzipped profile.proto (go tool pprof, pprof), and
        OUT.folded, folded stacks ("a;b;c N") for flame graphs
  pprof.py check SRC --elf IMAGE [-o OUT] [--cores N]
                 [--ratio A/B=R --tol T] [--log LOG] [--tagfocus KEY=VALUE]
        the dump is whole, of N cores with --cores;
        `go tool pprof -top` reads the profile and, with --ratio, finds
        functions A and B with cum sample counts (theirs and their
        callees') within T (a fraction) of R to 1, or of the ratio the
        app measured if LOG (its console) has a line "PROFILE-RATIO A/B
        NA/NB" (the time it clocked in each); with --tagfocus,
        -tagfocus=KEY=VALUE keeps all of both and fewer samples than
        the whole.  Exit status 0, else 1 with why.

SRC is a console log holding the kernel's "PROF " lines (the bare-metal
builds), or the hosted build's profile file: the same lines, the format
of sched/profbuf.h.  A line whose CRC-32 is wrong, a line missing or out
of order, and a dump cut short are errors that say where, never a crash;
nothing is written then.  Every segment (each sp_profile_stop, and the
exit's dump) goes into one profile.

Symbols: the image's DWARF through addr2line (function, file, line, and
the functions inlined at an address), else its symbol table (nm); the
binutils of the image's machine (aarch64-linux-gnu- for aarch64).  An
address outside the image (the hosted build's glibc) is "[unknown]".

The profile: sample types samples/count and cpu/nanoseconds (a sample's
weight is the periods it stands for), period cpu/nanoseconds; labels g
(the G's id), gfn (its start function), core, and irqs=off for a sample
taken where the core had interrupts masked, so that `go tool pprof
-tagfocus=core=0` and the like select by them.  The scheduler, idle cores
and interrupt handlers get a pseudo-frame at the root: [scheduler],
[idle] (and [halted] above it for a halted core), [interrupt].

Python 3 standard library only.
"""
import argparse
import bisect
import gzip
import os
import re
import shutil
import subprocess
import sys
import tempfile
import zlib

KINDS = ("g", "sched", "idle", "halt", "irq")
PSEUDO = {"g": [], "sched": ["[scheduler]"], "idle": ["[idle]"],
          "halt": ["[halted]", "[idle]"], "irq": ["[interrupt]"]}
UNKNOWN = "[unknown]"


class DumpError(Exception):
    """A dump that cannot be decoded: the message says where and why."""


# ---- The dump ---------------------------------------------------------------

class Sample:
    __slots__ = ("core", "kind", "off", "weight", "goid", "gfn", "link",
                 "pcs", "period_ns", "ncores")

    def __init__(self, words, lineno):
        try:
            self.core = int(words[2])
            kind = words[4]
            self.off = kind.endswith("-off")
            self.kind = kind[:-4] if self.off else kind
            self.weight = int(words[5])
            self.goid = int(words[6])
            self.gfn = int(words[7], 16)
            self.link = int(words[8], 16)
            self.pcs = [int(w, 16) for w in words[9:-1]]
        except (IndexError, ValueError) as e:
            raise DumpError("line %d: a sample line that does not parse (%s)"
                            % (lineno, e))
        if self.kind not in KINDS or self.weight <= 0:
            raise DumpError("line %d: a sample of kind %r, weight %d"
                            % (lineno, kind, self.weight))


def _keys(words, lineno, need):
    kv = {}
    for w in words:
        k, eq, v = w.partition("=")
        if eq:
            kv[k] = v
    try:
        return {k: int(kv[k]) for k in need}
    except (KeyError, ValueError) as e:
        raise DumpError("line %d: %s line lacks or garbles %s"
                        % (lineno, words[1], e))


def parse(path):
    """The samples of every segment of the dump in path, each with its
    segment's period; raises DumpError for anything not whole."""
    try:
        with open(path, "rb") as f:
            raw = f.read().decode("utf-8", "replace")
    except OSError as e:
        raise DumpError("cannot read %s: %s" % (path, e))
    samples, seg, core, nsegs = [], None, None, 0
    for lineno, line in enumerate(raw.splitlines(), 1):
        line = line.rstrip("\r")
        if not line.startswith("PROF "):
            continue
        words = line.split()
        what = words[1] if len(words) > 1 else ""
        if what == "BEGIN":
            if seg is not None:
                raise DumpError("line %d: segment %d has no END line"
                                % (lineno, seg["seg"]))
            seg = _keys(words, lineno, ("v", "seg", "cores", "hz",
                                        "period_ns"))
            if seg["v"] != 1 or seg["period_ns"] <= 0 or \
                    not 1 <= seg["cores"] <= 64:
                raise DumpError("line %d: BEGIN line of version %d, %d "
                                "cores, period %d ns" % (lineno, seg["v"],
                                seg["cores"], seg["period_ns"]))
            seg["done"], seg["records"], core = set(), 0, None
            continue
        if seg is None:
            raise DumpError("line %d: a %s line outside a segment"
                            % (lineno, what))
        if what == "CORE":
            _close_core(core, lineno)
            c = _keys(words, lineno, ("records", "weight", "lost"))
            try:
                c["core"] = int(words[2])
            except (IndexError, ValueError):
                raise DumpError("line %d: CORE line without a core"
                                % lineno)
            if not 0 <= c["core"] < seg["cores"] or c["core"] in seg["done"]:
                raise DumpError("line %d: core %d again, or not one of %d"
                                % (lineno, c["core"], seg["cores"]))
            seg["done"].add(c["core"])
            core, c["seen"], c["sum"] = c, 0, 0
            if c["lost"]:
                print("pprof: segment %d core %d lost %d periods to a full "
                      "buffer (profile_buf= makes it bigger)"
                      % (seg["seg"], c["core"], c["lost"]), file=sys.stderr)
        elif what == "S":
            if core is None:
                raise DumpError("line %d: a sample before any CORE line"
                                % lineno)
            body, _, crc = line.rpartition(" ")
            if not re.fullmatch(r"[0-9a-f]{8}", crc) or \
                    zlib.crc32(body.encode()) != int(crc, 16):
                raise DumpError("line %d: damaged (its CRC-32 does not match)"
                                % lineno)
            s = Sample(words, lineno)
            if s.core != core["core"] or int(words[3]) != core["seen"]:
                raise DumpError("line %d: sample %s of core %d where sample "
                                "%d of core %d was due (a line is missing)"
                                % (lineno, words[3], s.core, core["seen"],
                                   core["core"]))
            s.period_ns, s.ncores = seg["period_ns"], seg["cores"]
            samples.append(s)
            core["seen"] += 1
            core["sum"] += s.weight
            seg["records"] += 1
        elif what == "END":
            _close_core(core, lineno)
            end = _keys(words, lineno, ("seg", "records"))
            if len(seg["done"]) != seg["cores"] or \
                    end["records"] != seg["records"]:
                raise DumpError("line %d: segment %d ends with %d of %d "
                                "cores and %d of %d samples" % (lineno,
                                seg["seg"], len(seg["done"]), seg["cores"],
                                seg["records"], end["records"]))
            seg, core, nsegs = None, None, nsegs + 1
        else:
            raise DumpError("line %d: unknown line %r" % (lineno, what))
    if seg is not None:
        raise DumpError("the dump is cut short in segment %d" % seg["seg"])
    if not nsegs:
        raise DumpError("no profile in %s (was the machine booted with "
                        "profile=HZ?)" % path)
    return samples


def _close_core(core, lineno):
    if core is not None and (core["seen"] != core["records"] or
                             core["sum"] != core["weight"]):
        raise DumpError("line %d: core %d has %d samples of weight %d, its "
                        "CORE line says %d of weight %d" % (lineno,
                        core["core"], core["seen"], core["sum"],
                        core["records"], core["weight"]))


# ---- Symbols ----------------------------------------------------------------

def binutils(elf):
    """The nm, addr2line and readelf for elf's machine, and which it is."""
    try:
        with open(elf, "rb") as f:
            head = f.read(20)
    except OSError as e:
        raise DumpError("cannot read %s: %s" % (elf, e))
    if head[:4] != b"\x7fELF":
        raise DumpError("%s is not an ELF image" % elf)
    machine = int.from_bytes(head[18:20], "little")
    prefix = {62: "", 183: "aarch64-linux-gnu-"}.get(machine)
    if prefix is None:
        raise DumpError("%s: ELF machine %d is neither x86_64 nor aarch64"
                        % (elf, machine))
    return (prefix + "nm", prefix + "addr2line", prefix + "readelf",
            "aarch64" if machine == 183 else "x86_64")


class Symbols:
    """Names the addresses of one image: frames(addr) is the list of
    (function, file, line) at addr, innermost inlined function first."""

    def __init__(self, elf, addrs):
        nm, a2l, self.readelf, self.machine = binutils(elf)
        self.elf = elf
        self.cfi = None
        self.starts, self.names, self.lo, self.hi = [], [], None, None
        try:
            out = subprocess.run([nm, "-n", "-S", "--defined-only", elf],
                                 capture_output=True, text=True, check=True)
        except (OSError, subprocess.CalledProcessError) as e:
            raise DumpError("%s -n %s: %s" % (nm, elf, e))
        end = 0
        for ln in out.stdout.splitlines():
            w = ln.split()
            if len(w) not in (3, 4) or w[-2] not in "tTwW" or \
                    w[-1].startswith(".L"):
                continue
            a = int(w[0], 16)
            end = max(end, a + (int(w[1], 16) if len(w) == 4 else 1))
            if not self.starts or self.starts[-1] != a:
                self.starts.append(a)
                self.names.append(w[-1])
        if self.starts:
            self.lo, self.hi = self.starts[0], end
        self.table = self._addr2line(a2l, sorted(set(addrs)))

    def inside(self, a):
        return self.lo is not None and self.lo <= a < self.hi

    def symbol(self, a):
        i = bisect.bisect_right(self.starts, a) - 1
        return self.names[i] if i >= 0 and self.inside(a) else UNKNOWN

    def _addr2line(self, a2l, addrs):
        table = {}
        want = [a for a in addrs if self.inside(a)]
        if not want:
            return table
        try:
            out = subprocess.run([a2l, "-a", "-f", "-i", "-e", self.elf],
                                 input="".join("%x\n" % a for a in want),
                                 capture_output=True, text=True, check=True)
        except (OSError, subprocess.CalledProcessError) as e:
            raise DumpError("%s -e %s: %s" % (a2l, self.elf, e))
        # Per address: its line "0x...", then a function line and a
        # "file:line" line for each function inlined there, innermost
        # first, the one it is inlined into last.
        cur, lines = None, out.stdout.splitlines()
        for ln in lines:
            if ln.startswith("0x"):
                cur, fn = int(ln, 16), None
                table[cur] = []
            elif cur is None:
                continue
            elif fn is None:
                fn = ln
            else:
                path, _, num = ln.rpartition(":")
                num = (num.split() or ["0"])[0]
                table[cur].append((fn, path if path != "??" else "",
                                   int(num) if num.isdigit() else 0))
                fn = None
        return table

    def _load_cfi(self):
        """The image's unwind table (readelf -wF: .eh_frame interpreted)
        as sorted (lo, hi, [(loc, cfa rule, return address rule)])."""
        self.cfi, cies, cur = [], {}, None
        try:
            out = subprocess.run([self.readelf, "-wF", self.elf],
                                 capture_output=True, text=True, check=True)
        except (OSError, subprocess.CalledProcessError) as e:
            raise DumpError("%s -wF %s: %s" % (self.readelf, self.elf, e))
        cols = []
        for ln in out.stdout.splitlines():
            w = ln.split()
            if len(w) >= 4 and w[3] == "CIE":
                cur = cies.setdefault(w[0], [])
            elif len(w) >= 6 and w[3] == "FDE":
                cie = w[4].partition("=")[2]
                lo, _, hi = w[5].partition("=")[2].partition("..")
                cur = []
                self.cfi.append((int(lo, 16), int(hi, 16), cur,
                                 cies.get(cie, [])))
            elif w and w[0] == "LOC":
                cols = w[2:]
            elif cur is not None and len(w) >= 2 and \
                    re.fullmatch(r"[0-9a-f]{8,16}", w[0]):
                rules = dict(zip(cols, w[2:]))
                cur.append((int(w[0], 16), w[1], rules.get("ra")))
        self.cfi.sort(key=lambda f: f[0])
        self.cfi_lo = [f[0] for f in self.cfi]

    def link_is_caller(self, pc):
        """Whether, at leaf pc, the return address is where the kernel's
        link word comes from (sched/profbuf.h): in the link register
        (aarch64: its rule is "unchanged"), or at the stack pointer
        (x86_64: the CFA is rsp+8), so the function at pc has no frame
        record of its own (yet, or any more) and the frame chain skips its
        caller."""
        if self.cfi is None:
            self._load_cfi()
        i = bisect.bisect_right(self.cfi_lo, pc) - 1
        if i < 0 or pc >= self.cfi[i][1]:
            return False
        _, _, rows, cie = self.cfi[i]
        rule = next((r for r in reversed(rows) if r[0] <= pc), None)
        if rule is None:
            rule = cie[-1] if cie else None
        if rule is None:
            return False
        if self.machine == "aarch64":
            return rule[2] in (None, "u")
        return rule[1] == "rsp+8"

    def frames(self, a):
        got = [f for f in self.table.get(a, []) if f[0] != "??"]
        if got:
            return got
        return [(self.symbol(a), "", 0)]


# ---- profile.proto ----------------------------------------------------------

def varint(v):
    out = bytearray()
    v &= (1 << 64) - 1
    while True:
        b = v & 0x7f
        v >>= 7
        if v:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def field_int(num, v):
    """A varint field; zero is left out, as proto3 does."""
    return varint(num << 3) + varint(v) if v else b""


def field_bytes(num, data):
    return varint(num << 3 | 2) + varint(len(data)) + data


def field_packed(num, values):
    return field_bytes(num, b"".join(varint(v) for v in values)) \
        if values else b""


class Profile:
    """profile.proto's Profile, built up and encoded (field numbers from
    github.com/google/pprof/proto/profile.proto)."""

    def __init__(self):
        self.strings, self.string_ix = [""], {"": 0}
        self.functions, self.function_ix = [], {}
        self.locations, self.location_ix = [], {}
        self.samples = []
        self.mappings = []

    def s(self, text):
        if text not in self.string_ix:
            self.string_ix[text] = len(self.strings)
            self.strings.append(text)
        return self.string_ix[text]

    def function(self, name, path):
        key = (name, path)
        if key not in self.function_ix:
            self.function_ix[key] = len(self.functions) + 1
            self.functions.append(field_int(1, len(self.functions) + 1) +
                                  field_int(2, self.s(name)) +
                                  field_int(3, self.s(name)) +
                                  field_int(4, self.s(path)))
        return self.function_ix[key]

    def location(self, key, address, mapping, frames):
        """frames: (function, file, line), innermost first, as Location's
        lines are ordered."""
        if key not in self.location_ix:
            lid = len(self.locations) + 1
            self.location_ix[key] = lid
            body = field_int(1, lid) + field_int(2, mapping) + \
                field_int(3, address)
            for fn, path, line in frames:
                body += field_bytes(4, field_int(1, self.function(fn, path)) +
                                    field_int(2, line))
            self.locations.append(body)
        return self.location_ix[key]

    def mapping(self, start, limit, path):
        self.mappings.append(field_int(1, len(self.mappings) + 1) +
                             field_int(2, start) + field_int(3, limit) +
                             field_int(5, self.s(path)) +
                             field_int(7, 1) + field_int(8, 1) +
                             field_int(9, 1) + field_int(10, 1))
        return len(self.mappings)

    def sample(self, locs, values, labels):
        """labels: (key, string value); a value that is a number gets a
        numeric label of the same key as well, with the key as its unit
        (so that 0 survives), because pprof reads -tagfocus=core=1 as a
        numeric filter, which a string label never matches."""
        body = field_packed(1, locs) + field_packed(2, values)
        for k, v in labels:
            body += field_bytes(3, field_int(1, self.s(k)) +
                                field_int(2, self.s(v)))
            if v.isdigit():
                body += field_bytes(3, field_int(1, self.s(k)) +
                                    field_int(3, int(v)) +
                                    field_int(4, self.s(k)))
        self.samples.append(body)

    def encode(self, period_ns, duration_ns):
        vt = lambda t, u: field_int(1, self.s(t)) + field_int(2, self.s(u))
        # Every string is interned before the table is written.
        types = [vt("samples", "count"), vt("cpu", "nanoseconds")]
        period = vt("cpu", "nanoseconds")
        out = b"".join(field_bytes(1, t) for t in types)
        out += b"".join(field_bytes(2, x) for x in self.samples)
        out += b"".join(field_bytes(3, x) for x in self.mappings)
        out += b"".join(field_bytes(4, x) for x in self.locations)
        out += b"".join(field_bytes(5, x) for x in self.functions)
        out += b"".join(field_bytes(6, x.encode()) for x in self.strings)
        out += field_int(10, duration_ns) + field_bytes(11, period) + \
            field_int(12, period_ns)
        return out


def stack(s, syms):
    """The sample's program counters, leaf first, with the link spliced
    in as the leaf's caller where the leaf kept no frame record."""
    pcs = list(s.pcs)
    if s.link and pcs and syms.inside(pcs[0]) and \
            syms.link_is_caller(pcs[0]):
        pcs.insert(1, s.link)
    return pcs


def build(samples, syms):
    """The Profile of the samples, and their folded stacks (Counter-like
    dict of "root;...;leaf" -> samples)."""
    prof, folded = Profile(), {}
    mapping = prof.mapping(syms.lo or 0, syms.hi or 0, syms.elf) \
        if syms.lo is not None else 0
    busy = {}
    for s in samples:
        locs, names = [], []
        for i, pc in enumerate(stack(s, syms)):
            # Past the first, a return address: the call is just before.
            at = pc if i == 0 else pc - 1
            inside = syms.inside(at)
            frames = syms.frames(at) if inside else [(UNKNOWN, "", 0)]
            locs.append(prof.location(("pc", pc, i == 0), pc,
                                      mapping if inside else 0, frames))
            names.extend(f[0] for f in frames)
        for p in PSEUDO[s.kind]:
            locs.append(prof.location(("pseudo", p), 0, 0, [(p, "", 0)]))
            names.append(p)
        labels = [("core", str(s.core))]
        if s.goid:
            labels.append(("g", str(s.goid)))
        if s.gfn:
            labels.append(("gfn", syms.symbol(s.gfn)))
        if s.off:
            labels.append(("irqs", "off"))
        prof.sample(locs, [s.weight, s.weight * s.period_ns], labels)
        key = ";".join(reversed(names))
        folded[key] = folded.get(key, 0) + s.weight
        busy[s.core] = busy.get(s.core, 0) + s.weight * s.period_ns
    period = samples[0].period_ns if samples else 1
    return prof.encode(period, max(busy.values(), default=0)), folded


def convert(src, elf, out):
    samples = parse(src)
    pcs = [pc - (i > 0) for s in samples for i, pc in enumerate(s.pcs)]
    syms = Symbols(elf, pcs + [s.link - 1 for s in samples if s.link] +
                   [s.gfn for s in samples if s.gfn])
    data, folded = build(samples, syms)
    with open(out + ".pb.gz", "wb") as f:
        f.write(gzip.compress(data))
    with open(out + ".folded", "w") as f:
        for k in sorted(folded):
            f.write("%s %d\n" % (k, folded[k]))
    return samples


# ---- check ------------------------------------------------------------------

def go_pprof_top(pb, *flags):
    """go tool pprof -top's rows as {name: cum samples}, the samples they
    account for (those -tagfocus keeps), and its text."""
    go = os.environ.get("GO", "go")
    if not shutil.which(go):
        raise DumpError("no Go toolchain (%s) for go tool pprof "
                        "(tools/build/deps.sh go installs golang-go)" % go)
    cmd = [go, "tool", "pprof", "-top", "-sample_index=samples",
           "-nodecount=100000", "-nodefraction=0"] + list(flags) + [pb]
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, check=True,
                             env=dict(os.environ, PPROF_TMPDIR=os.path.dirname(pb)))
    except (OSError, subprocess.CalledProcessError) as e:
        raise DumpError("%s: %s %s" % (" ".join(cmd), e,
                                       getattr(e, "stderr", "")))
    rows, total = {}, None
    for ln in out.stdout.splitlines():
        m = re.search(r"accounting for (\d+),", ln)
        if m:
            total = int(m.group(1))
        w = ln.split(None, 5)
        if len(w) == 6 and w[0].isdigit() and w[1].endswith("%"):
            rows[w[5].strip()] = int(w[3])
    if total is None:
        raise DumpError("go tool pprof -top said for how many samples "
                        "its rows account:\n" + out.stdout)
    return rows, total, out.stdout


def logged_ratio(log, a, b):
    """The ratio of the last "PROFILE-RATIO a/b NA/NB" line of LOG, or
    None without one; a line with a zero or malformed count is an error."""
    found = None
    with open(log, errors="replace") as f:
        for line in f:
            w = line.split()
            if len(w) == 3 and w[0] == "PROFILE-RATIO" and w[1] == a + "/" + b:
                m = re.fullmatch(r"([0-9]+)/([0-9]+)", w[2])
                if not m or int(m.group(2)) == 0 or int(m.group(1)) == 0:
                    raise DumpError("%s: bad PROFILE-RATIO line: %s"
                                    % (log, line.strip()))
                found = int(m.group(1)) / int(m.group(2))
    return found


def check(args):
    out = args.o
    tmp = None
    if not out:
        tmp = tempfile.mkdtemp(prefix="pprof-check-")
        out = os.path.join(tmp, "profile")
    try:
        samples = convert(args.src, args.elf, out)
        ncores = samples[0].ncores if samples else 0
        why = []
        if args.cores and args.cores != ncores:
            why.append("a dump of %d cores, not %d" % (ncores, args.cores))
        rows, total, text = go_pprof_top(out + ".pb.gz")
        print("go tool pprof -top: %d samples" % total)
        if args.ratio:
            m = re.fullmatch(r"([^/=]+)/([^/=]+)=([0-9.]+)", args.ratio)
            if not m:
                raise DumpError("--ratio %s is not A/B=R" % args.ratio)
            a, b, want = m.group(1), m.group(2), float(m.group(3))
            how = "nominal"
            measured = logged_ratio(args.log, a, b) if args.log else None
            if measured is not None:
                want, how = measured, "as the app measured it; nominal %.3g" % want
            fa, fb = rows.get(a, 0), rows.get(b, 0)
            if not fa or not fb:
                why.append("samples %s=%d %s=%d: not both there"
                           % (a, fa, b, fb))
            else:
                got = fa / fb
                print("%s/%s: %d/%d = %.3f (want %.3g within %.0f%%, %s)"
                      % (a, b, fa, fb, got, want, args.tol * 100, how))
                if abs(got - want) > args.tol * want:
                    why.append("%s/%s is %.3f, not within %.0f%% of %.3g (%s)"
                               % (a, b, got, args.tol * 100, want, how))
            if args.tagfocus:
                frows, ftotal, _ = go_pprof_top(out + ".pb.gz",
                                                "-tagfocus=" + args.tagfocus)
                print("-tagfocus=%s: %d samples" % (args.tagfocus, ftotal))
                if frows.get(a) != fa or frows.get(b) != fb or \
                        ftotal >= total:
                    why.append("-tagfocus=%s keeps %s=%d %s=%d of %d "
                               "samples (of %d)" % (args.tagfocus, a,
                               frows.get(a, 0), b, frows.get(b, 0), ftotal,
                               total))
        if why:
            print("\n".join(why))
            print(text)
            return 1
        return 0
    finally:
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)


def main(argv):
    ap = argparse.ArgumentParser(prog="pprof.py",
                                 description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    c = sub.add_parser("convert")
    c.add_argument("src")
    c.add_argument("--elf", required=True)
    c.add_argument("-o", required=True)
    k = sub.add_parser("check")
    k.add_argument("src")
    k.add_argument("--elf", required=True)
    k.add_argument("-o")
    k.add_argument("--cores", type=int, default=0)
    k.add_argument("--ratio")
    k.add_argument("--tol", type=float, default=0.1)
    k.add_argument("--log")
    k.add_argument("--tagfocus")
    args = ap.parse_args(argv)
    try:
        if args.cmd == "convert":
            samples = convert(args.src, args.elf, args.o)
            print("pprof: %d samples (%d lines) -> %s.pb.gz, %s.folded"
                  % (sum(s.weight for s in samples), len(samples), args.o,
                     args.o))
            return 0
        return check(args)
    except DumpError as e:
        print("pprof: %s" % e, file=sys.stderr if args.cmd == "convert"
              else sys.stdout)
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
