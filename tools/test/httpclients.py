#!/usr/bin/env python3
"""httpclients.py URL NAME [--scale F] [--only CASE,...] - slow and greedy
clients against apps/httpd at URL (http://127.0.0.1:PORT), each case
beside honest clients.

httpd's read=, write= and conns= are read from its /debug/sched (the
times below are those tests/host/httpd_clients_test.sh boots it with,
read=4 write=3 linger=1, and the default cap of 224).  Cases, one
result each, `TEST httpd_<case>_<NAME> PASS|FAIL <why>`:

  slowloris   200 connections sending a header byte a second: each gets
              408 within the read deadline and a few seconds more
  idle        10,000 connections, 50 under way at a time, one request
              each, then idle: each gets its page whole; httpd evicts the
              longest idle at its cap, so no more than the cap stay open
  uri414      20 request lines of 10 KB: 414, then the server's close
  header431   20 heads with a 20 KB header: 431, then the server's close
  post405     20 POSTs: 405 with Allow: GET, HEAD, then the close
  body413     20 Content-Lengths of 10 MB (64 KiB of it sent): 413
  pipelined   20 connections of 100 requests sent in one write: every
              answer, in order, bytes intact
  noread      20 connections asking for 50 MB each and never reading:
              httpd resets each within its write deadline and a few
              seconds more (the write deadline's counter shows them)
  cap         the cap plus 30 connections holding half a request: those
              past the cap get 503 with Retry-After (the refusals'
              counter shows them); the rest get 408 at the read deadline

Meanwhile two honest clients run curl over and over (the page, and
/bytes/100000), without retries except in `cap`, where curl retries on
503 as Retry-After says: every one of their answers must be whole and
correct, each within HONEST_S seconds (the cap's: the read deadline
and HONEST_S more).  After each case the guest's counters (/debug/sched)
must come back to what they were before the first: Gs alive, sockets,
receive pbufs, lwIP's heap, httpd's connections and buffers, and pages
in use less those held on purpose (G slots, heap, run queues) within a
few pages.  --scale multiplies the connection counts (the idle case's
at least 2 * the cap); the last line is `N passed, M failed`.
"""
import argparse
import errno
import re
import resource
import selectors
import socket
import subprocess
import sys
import threading
import time
import urllib.request

HONEST_S = 5.0          # an honest request's time limit
SETTLE_S = 20.0         # how long the counters may take to come back
# httpd's read=, write= (s) and conns=, from its /debug/sched.
READ_S = WRITE_S = CAP = None

PAGE_LEN = 612


def now():
    return time.monotonic()


# ---- the guest's counters ------------------------------------------------

def sched(base):
    with urllib.request.urlopen(base + "/debug/sched", timeout=10) as r:
        return r.read().decode()


def counters(text):
    """The figures of /debug/sched the baseline is made of."""
    c = {}
    for k, v in re.findall(r"(\w+)=(\d+)", text):
        c.setdefault(k, int(v))
    m = re.search(r"net: in use: sockets (\d+) .*?receive pbufs (\d+), "
                  r"heap (\d+) bytes", text)
    if m:
        c["sockets"], c["pbufs"], c["lwip_heap"] = map(int, m.groups())
    m = re.search(r"TCP pcbs (\d+) of", text)
    if m:
        c["pcbs"] = int(m.group(1))
    return c


def held(c):
    """Pages in use less those held on purpose."""
    return c["pages_in_use"] - c["gslot_pages"] - c["heap_pages"] - \
        c["runq_pages"]


BASELINE = ("gs_alive", "sockets", "pbufs", "lwip_heap", "open", "idle",
            "evicting", "buffer_bytes")


def differences(base, c):
    why = []
    for k in BASELINE:
        if c.get(k) != base.get(k):
            why.append("%s %s (baseline %s)" % (k, c.get(k), base.get(k)))
    slack = 8 + max(0, c["g_slots"] - base["g_slots"]) // 16
    if held(c) > held(base) + slack:
        why.append("pages in use beyond those held %d (baseline %d, slack %d)"
                   % (held(c), held(base), slack))
    return why


def result(name, why, secs, back):
    """Prints a case's TEST line: FAIL for why, or for counters not back
    at the baseline (settle's answer, secs and back); True if it passed."""
    if not why and back:
        why = "not back at the baseline after %.0f s: %s" % (
            secs, "; ".join(back))
    if why:
        print("TEST %s FAIL %s" % (name, why))
        return False
    print("TEST %s PASS" % name)
    return True


def take_baseline(url, page, parse=None):
    """The counters once a moment of honest load is over (so that they
    hold what serving makes once for good: G slots, buffers' first pages)
    and only the asking request is open; parse (counters) reads them."""
    parse = parse or counters
    with Honest(url, page):
        time.sleep(1)
    t0 = now()
    while now() - t0 < SETTLE_S:
        base = parse(sched(url))
        if base.get("open") == 1:
            break
        time.sleep(0.5)
    return base


def settle(base_url, base):
    """Waits for the counters to come back; (seconds, [] or why not)."""
    t0 = now()
    why = ["no answer"]
    while now() - t0 < SETTLE_S:
        try:
            why = differences(base, counters(sched(base_url)))
        except OSError as e:
            why = ["/debug/sched: %s" % e]
        if not why:
            break
        time.sleep(0.5)
    return now() - t0, why


# ---- honest clients ------------------------------------------------------

class Honest:
    """Two threads running curl over and over until stopped."""

    def __init__(self, base, page, retry=False, limit=HONEST_S):
        self.base, self.page, self.retry, self.limit = base, page, retry, limit
        self.results = []       # (ok, seconds, why)
        self.stopping = False
        self.threads = [threading.Thread(target=self.run, args=(p,))
                        for p in ("/", "/bytes/100000")]

    def __enter__(self):
        for t in self.threads:
            t.start()
        return self

    def __exit__(self, *exc):
        self.stopping = True
        for t in self.threads:
            t.join()

    def run(self, path):
        want = self.page if path == "/" else b"x" * 100000
        while not self.stopping:
            cmd = ["curl", "-s", "-S", "-m", str(self.limit + 5),
                   "-o", "-", "-w", "\n%{http_code}", self.base + path]
            if self.retry:      # a 503's body is not kept, nor counted
                cmd[1:1] = ["--fail", "--retry", "30", "--retry-max-time",
                            str(int(self.limit))]
            t0 = now()
            r = subprocess.run(cmd, capture_output=True)
            dt = now() - t0
            body, _, code = r.stdout.rpartition(b"\n")
            why = None
            if r.returncode != 0:
                why = "curl %s: exit %d %s" % (path, r.returncode,
                                               r.stderr.decode().strip())
            elif code != b"200":
                why = "curl %s: HTTP %s" % (path, code.decode())
            elif body != want:
                why = "curl %s: %d bytes, not the %d expected" % (
                    path, len(body), len(want))
            elif dt > self.limit:
                why = "curl %s: %.1f s" % (path, dt)
            self.results.append((why is None, dt, why))
            time.sleep(0.05)

    def verdict(self):
        bad = [w for ok, _, w in self.results if not ok]
        n = len(self.results)
        worst = max((dt for _, dt, _ in self.results), default=0)
        if n < 2:
            return "honest clients made only %d requests" % n, n, worst
        if bad:
            return "honest clients: %d of %d failed, first: %s" % (
                len(bad), n, bad[0]), n, worst
        return None, n, worst


# ---- raw connections -----------------------------------------------------

class Conn:
    """A client socket and what it has read."""

    def __init__(self, addr, rcvbuf=0):
        self.s = socket.socket()
        if rcvbuf:
            self.s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        self.s.setblocking(False)
        self.s.connect_ex(addr)
        self.data = b""
        self.out = b""
        self.closed = False     # the server closed (EOF or reset)
        self.reset = False
        self.t_first = None     # when the first byte went
        self.t_end = None       # when the server closed
        self.done = False       # the case needs nothing more of it

    def send(self, b):
        self.out += b
        self.flush()

    def flush(self):
        while self.out and not self.closed:
            try:
                n = self.s.send(self.out)
            except BlockingIOError:
                return
            except OSError as e:
                if e.errno != errno.ENOTCONN:   # still connecting
                    self.out = b""
                return
            if self.t_first is None:
                self.t_first = now()
            self.out = self.out[n:]

    def pump(self):
        """Reads what there is; False once the server closed."""
        while not self.closed:
            try:
                b = self.s.recv(65536)
            except BlockingIOError:
                return True
            except OSError as e:
                self.reset = e.errno == errno.ECONNRESET
                b = b""
            if not b:
                self.closed = True
                self.t_end = now()
                return False
            self.data += b
        return False

    def close(self):
        self.s.close()


def loop(conns, until, tick=None, period=1.0, deadline=30.0):
    """Pumps conns until until() or deadline seconds; tick() each period."""
    sel = selectors.DefaultSelector()
    for c in conns:
        if not c.closed:
            sel.register(c.s, selectors.EVENT_READ, c)
    t0 = next_tick = now()
    while not until() and now() - t0 < deadline:
        for key, _ in sel.select(timeout=0.1):
            c = key.data
            c.pump()
            if c.closed:        # as a client does at the server's close
                sel.unregister(c.s)
                c.close()
        for c in conns:
            if c.out:
                c.flush()
        if tick and now() >= next_tick:
            tick()
            next_tick += period
    sel.close()


def status(c):
    m = re.match(rb"HTTP/1\.1 (\d{3}) ", c.data)
    return int(m.group(1)) if m else None


def head_of(c):
    return c.data.split(b"\r\n\r\n", 1)[0].decode("latin-1")


# ---- the cases -----------------------------------------------------------

def case_slowloris(addr, scale, n=200):
    n = max(10, int(n * scale))
    conns = [Conn(addr) for _ in range(n)]
    for c in conns:
        c.send(b"GET / HTTP/1.1\r\nHost: x\r\nX-Slow: ")

    def dribble():
        for c in conns:
            if not c.closed:
                c.send(b"a")
    loop(conns, lambda: all(c.closed for c in conns), dribble,
         deadline=READ_S + 10)
    for c in conns:
        c.close()
    bad = [c for c in conns if status(c) != 408]
    if bad:
        return "%d of %d got no 408, %d of them reset (first: %r)" % (
            len(bad), n, sum(c.reset for c in bad), bad[0].data[:60])
    late = max(c.t_end - c.t_first for c in conns)
    early = min(c.t_end - c.t_first for c in conns)
    if early < READ_S - 0.5 or late > READ_S + 5:
        return "408s came %.1f to %.1f s after the first byte" % (early, late)
    return None, "%d connections, 408 after %.1f-%.1f s" % (n, early, late)


def case_idle(addr, scale, n=10000):
    n = max(2 * CAP, int(n * scale))
    window = 50
    conns, live, served, refused = [], [], 0, 0
    req = b"GET / HTTP/1.1\r\nHost: x\r\n\r\n"
    sel = selectors.DefaultSelector()
    t0 = now()
    bad = []
    while (len(conns) < n or live) and now() - t0 < 120:
        while len(live) < window and len(conns) < n:
            c = Conn(addr)
            c.send(req)
            conns.append(c)
            live.append(c)
            sel.register(c.s, selectors.EVENT_READ, c)
        for key, _ in sel.select(timeout=0.1):
            c = key.data
            c.pump()
            if not c.done and b"\r\n\r\n" in c.data:
                h, _, body = c.data.partition(b"\r\n\r\n")
                if status(c) == 503 and b"\r\nRetry-After: 1" in h:
                    refused += 1
                    c.done = True
                elif status(c) != 200:
                    bad.append(c)
                    c.done = True
                elif len(body) >= PAGE_LEN:
                    c.done = True
                    served += 1
            if c.closed or c.done:
                if c in live:
                    live.remove(c)
                if c.closed:        # as a client does at the server's close
                    sel.unregister(c.s)
                    c.close()
                    if not c.done:
                        bad.append(c)
                        c.done = True
        for c in live:
            if c.out:
                c.flush()
    took = now() - t0
    # What the server still holds open, once evictions are in.
    sel.close()
    loop([c for c in conns if not c.closed], lambda: False, deadline=1.5)
    still = sum(1 for c in conns if not c.closed)
    for c in conns:
        c.close()
    if bad or served + refused != n or refused > n // 10:
        return "%d of %d served, %d refused at the cap (%d failed, first: " \
            "%r)" % (served, n, refused, len(bad),
                     bad[0].data[:60] if bad else b"")
    if still > CAP:
        return "%d connections still open, above the cap %d" % (still, CAP)
    return None, "%d connections in %.1f s, %d served, %d refused at the " \
        "cap, %d left open (cap %d)" % (n, took, served, refused, still, CAP)


def limit_case(addr, scale, head, body, want, check=None, n=20):
    n = max(2, int(n * scale))
    conns = [Conn(addr) for _ in range(n)]
    for c in conns:
        c.send(head)
        if body:
            c.send(body)
    loop(conns, lambda: all(c.closed for c in conns), deadline=10)
    for c in conns:
        c.close()
    for c in conns:
        h = head_of(c)
        if status(c) != want:
            return "got %r, not %d" % (c.data[:60], want)
        if "\r\nConnection: close" not in h:
            return "%d without Connection: close" % want
        if not c.closed:
            return "%d and the connection stayed open" % want
        if check and check not in h:
            return "%d without %r" % (want, check)
    return None, "%d connections, %d and closed" % (n, want)


def case_uri414(addr, scale):
    return limit_case(addr, scale, b"GET /" + b"a" * 10000 +
                      b" HTTP/1.1\r\nHost: x\r\n\r\n", b"", 414)


def case_header431(addr, scale):
    return limit_case(addr, scale, b"GET / HTTP/1.1\r\nHost: x\r\nX-Big: " +
                      b"b" * 20000 + b"\r\n\r\n", b"", 431)


def case_post405(addr, scale):
    return limit_case(addr, scale, b"POST / HTTP/1.1\r\nHost: x\r\n"
                      b"Content-Length: 3\r\n\r\n", b"a=b", 405,
                      "\r\nAllow: GET, HEAD")


def case_body413(addr, scale):
    return limit_case(addr, scale, b"GET / HTTP/1.1\r\nHost: x\r\n"
                      b"Content-Length: 10000000\r\n\r\n", b"z" * 65536, 413)


def case_pipelined(addr, scale, page=b"", n=20, per=100):
    n = max(2, int(n * scale))
    conns, wants = [], []
    for i in range(n):
        reqs, want = [], []
        for j in range(per):
            k = (i + j) % 4
            size = (i * 7919 + j * 104729) % 20000
            last = b"Connection: close\r\n" if j == per - 1 else b""
            if k == 0:
                reqs.append(b"GET / HTTP/1.1\r\nHost: x\r\n" + last + b"\r\n")
                want.append((200, page, False))
            elif k == 1:
                reqs.append(b"GET /bytes/%d HTTP/1.1\r\nHost: x\r\n%s\r\n"
                            % (size, last))
                want.append((200, b"x" * size, False))
            elif k == 2:
                reqs.append(b"HEAD / HTTP/1.1\r\nHost: x\r\n" + last + b"\r\n")
                want.append((200, b"", True))
            else:
                reqs.append(b"GET /nope/%d HTTP/1.1\r\nHost: x\r\n%s\r\n"
                            % (j, last))
                want.append((404, b"not found\n", False))
        c = Conn(addr)
        c.send(b"".join(reqs))
        conns.append(c)
        wants.append(want)
    loop(conns, lambda: all(c.closed for c in conns), deadline=30)
    for c in conns:
        c.close()
    for c, want in zip(conns, wants):
        d = c.data
        for j, (code, body, head) in enumerate(want):
            m = re.match(rb"HTTP/1\.1 (\d{3}) [^\r]*\r\n(.*?)\r\n\r\n", d,
                         re.S)
            if not m or int(m.group(1)) != code:
                return "answer %d: %r, not %d" % (j, d[:60], code)
            length = re.search(rb"Content-Length: (\d+)", m.group(2))
            n_body = 0 if head else int(length.group(1))
            if head and int(length.group(1)) != PAGE_LEN:
                return "answer %d: HEAD's length %s" % (j, length.group(1))
            got = d[m.end():m.end() + n_body]
            if got != body:
                return "answer %d: body of %d bytes not the one asked" % (
                    j, len(got))
            d = d[m.end() + n_body:]
        if d:
            return "%d bytes after the last answer" % len(d)
    return None, "%d connections x %d requests, all in order" % (n, per)


def case_noread(addr, scale, base_url, n=20):
    n = max(2, int(n * scale))
    before = counters(sched(base_url))["write_deadline"]
    conns = [Conn(addr, rcvbuf=4096) for _ in range(n)]
    t0 = now()
    for c in conns:
        c.send(b"GET /bytes/1000000 HTTP/1.1\r\nHost: x\r\n\r\n" * 50)
    got = 0
    while now() - t0 < WRITE_S + 15:
        time.sleep(0.5)
        for c in conns:
            c.flush()
        got = counters(sched(base_url))["write_deadline"] - before
        if got >= n:
            break
    took = now() - t0
    for c in conns:
        c.close()
    if got < n:
        return "%d of %d never-reading connections reset in %.1f s" % (
            got, n, took)
    if took > WRITE_S + 10:
        return "the resets took %.1f s" % took
    return None, "%d connections reset after %.1f s" % (n, took)


def case_cap(addr, scale, base_url, extra=30):
    n = CAP + max(2, int(extra * scale))
    before = counters(sched(base_url))["refused"]
    conns = []
    for i in range(n):
        c = Conn(addr)
        c.send(b"GET / HTTP/1.1\r\nHost: x\r\n")
        conns.append(c)
        if i % 50 == 49:
            loop(conns, lambda: False, deadline=0.2)
    loop(conns, lambda: all(c.closed for c in conns), deadline=READ_S + 10)
    for c in conns:
        c.close()
    codes = [status(c) for c in conns]
    n503 = codes.count(503)
    refused = counters(sched(base_url))["refused"] - before
    other = [c for c in codes if c not in (408, 503)]
    if other:
        return "answers other than 408 and 503: %s" % sorted(set(other))
    if n503 < n - CAP or refused < n503:
        return "%d refused with 503 of %d past the cap; counter %d" % (
            n503, n - CAP, refused)
    for c in conns:
        if status(c) == 503 and "\r\nRetry-After: 1" not in head_of(c):
            return "503 without Retry-After"
    return None, "%d connections: %d 503, %d 408; refusals counted %d" % (
        n, n503, codes.count(408), refused)


CASES = ["slowloris", "idle", "uri414", "header431", "post405", "body413",
         "pipelined", "noread", "cap"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("url")
    ap.add_argument("name")
    ap.add_argument("--scale", type=float, default=1.0)
    ap.add_argument("--idle", type=int, default=10000)
    ap.add_argument("--only", default=",".join(CASES))
    a = ap.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    host, port = re.match(r"http://([\d.]+)(?::(\d+))?$", a.url).groups()
    addr = (host, int(port or 80))
    with urllib.request.urlopen(a.url + "/", timeout=10) as r:
        page = r.read()
    base = take_baseline(a.url, page)
    missing = [k for k in BASELINE + ("pages_in_use", "read", "write", "cap")
               if k not in base]
    if missing:
        print("TEST httpd_baseline_%s FAIL /debug/sched lacks %s" % (
            a.name, ", ".join(missing)))
        print("0 passed, 1 failed")
        return 1
    global READ_S, WRITE_S, CAP
    READ_S, WRITE_S, CAP = base["read"] / 1000, base["write"] / 1000, \
        base["cap"]
    print("# baseline: Gs %d, sockets %d, pages held %d, httpd open %d; "
          "read %.1f s, write %.1f s, cap %d" % (
              base["gs_alive"], base["sockets"], held(base), base["open"],
              READ_S, WRITE_S, CAP))
    passed = failed = 0
    for case in a.only.split(","):
        t0 = now()
        c0 = counters(sched(a.url))
        fn = globals()["case_" + case]
        cap = case == "cap"
        with Honest(a.url, page, retry=cap,
                    limit=READ_S + HONEST_S if cap else HONEST_S) as h:
            time.sleep(0.3)
            try:
                if case in ("noread", "cap"):
                    r = fn(addr, a.scale, a.url)
                elif case == "pipelined":
                    r = fn(addr, a.scale, page)
                elif case == "idle":
                    r = fn(addr, a.scale, a.idle)
                else:
                    r = fn(addr, a.scale)
            except Exception as e:      # a broken case is a failure
                r = "%s: %s" % (type(e).__name__, e)
            time.sleep(0.3)
        why = r if isinstance(r, str) else None
        what = "" if why else r[1]
        hw, hn, worst = h.verdict()
        why = why or hw
        secs, back = settle(a.url, base)
        c1 = counters(sched(a.url))
        delta = " ".join("%s+%d" % (k, c1[k] - c0[k]) for k in (
            "accepted", "refused", "evicted", "read_deadline",
            "write_deadline", "idle_deadline", "reset") if c1[k] != c0[k])
        if result("httpd_%s_%s" % (case, a.name), why, secs, back):
            passed += 1
        else:
            failed += 1
        print("# %s: %s; httpd: %s; %d honest requests, slowest %.2f s; "
              "back at the baseline after %.1f s; %.1f s in all" % (
                  case, what or "-", delta, hn, worst, secs, now() - t0))
        sys.stdout.flush()
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
