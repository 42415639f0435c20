#!/usr/bin/env python3
"""hostile.py URL NAME [--only CASE,...] [--full] [--hostile PATH] - each
attack of tools/hostile against apps/httpd at URL, beside honest clients.

--only runs the cases named, one after the other; cases joined by `+`
(blind+segments) run side by side, each with a --slot of its own, and
share the honest clients and the check of the baseline (make test's
slice, to fit its time).  Without --full each attack runs with CASES'
counts, smaller than the peer's own defaults.

For each case, one result, `TEST hostile_<case>_<NAME> PASS|FAIL <why>`:
build/host/hostile runs the attack (its own checks: challenge ACKs,
responses whole, pings answered intact; see hostile.c), and the guest's
counter of what the case's line refused must move (MUST_MOVE), while the honest
clients of tools/test/httpclients.py run curl over and over (the page,
and /bytes/100000): every answer whole and right, each within HONEST_S
seconds (in connflood, which fills httpd's connection cap, curl retries
on its 503 as Retry-After says, and has httpd's read deadline more).
Then the guest's counters (/debug/sched) must come back to the
baseline taken before the first case (Gs, sockets, receive pbufs, lwIP's
heap, httpd's connections and buffers, pages in use) within SETTLE_S.
Meanwhile /debug/sched is read twice a second for the peak of the
network's memory.  After each result a `# case:` line gives the figures
(docs/reliability.md): what was sent, the honest clients' requests, p99
and slowest, the peak and the after of TCP pcbs, receive pbufs and
lwIP's heap, and the counters that moved.  The last line is `N passed, M
failed`.
"""
import argparse
import os
import re
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "test"))
import httpclients as hc  # noqa: E402

# Attack, and the hostile arguments make test's run gives it: fewer
# frames and connections than the peer's defaults (make test-hostile).
CASES = {
    "synflood": ["--count", "1000", "--rate", "500"],
    "blind": ["--count", "10"],
    "challenge": ["--count", "6000", "--rate", "10000"],
    "segments": ["--count", "10"],
    "frags": ["--count", "300"],
    "zerowin": ["--count", "5"],
    "tinymss": ["--count", "2"],
    "arp": ["--count", "3000", "--rate", "2000"],
    "ping": ["--count", "2000", "--rate", "2000"],
    "udp": ["--count", "2000", "--rate", "2000"],
    "connflood": ["--count", "400", "--rate", "600", "--hold", "1"],
}
# Options every run of a case gets: the UDP flood sends half its
# datagrams, and an honest client's probes, to httpd's UDP echo (echo=7,
# tests/host/httpd_tap.sh boots it so).
ECHO = {"udp": ["--echo", "7"]}
# Cases whose honest clients meet httpd's connection cap: curl retries on
# its 503 as Retry-After says, and has httpd's read deadline more (the
# flood's connections hold the cap until then), as httpclients.py's cap.
AT_CAP = ("connflood",)
# Counters a case must move: what shows the guest's line held (with
# cases side by side, any of them may have moved it).
MUST_MOVE = {"challenge": "challenge_ack_capped"}
# The net counters of /debug/sched that each case reports when they move.
NET_COUNTERS = ("no_buffer", "half_open_dropped", "revived", "ack_out_of_range",
                "mss_raised", "syn_queue_full", "syn_unresolved",
                "challenge_ack_capped",
                "pcbs_short", "socks_short",
                "refused", "evicted", "read_deadline")
PEAK = ("pcbs", "pbufs", "lwip_heap", "sockets")


def net_counters(text):
    c = hc.counters(text)
    m = re.search(r"no-buffer (\d+)", text)
    if m:
        c["no_buffer"] = int(m.group(1))
    m = re.search(r"pool empty (\d+) times", text)
    if m:
        c["pcbs_short"] = int(m.group(1))
    m = re.search(r"asked of an empty pool (\d+) times", text)
    if m:
        c["socks_short"] = int(m.group(1))
    for k in ("half_open_dropped", "revived", "ack_out_of_range",
              "mss_raised", "syn_queue_full", "syn_unresolved",
              "challenge_ack_capped"):
        m = re.search(k.replace("_", "[ -]") + r" (\d+)", text)
        if m:
            c[k] = int(m.group(1))
    return c


class Sampler:
    """Reads /debug/sched twice a second; keeps each figure's peak."""

    def __init__(self, url):
        self.url, self.peak, self.stopping = url, {}, False
        self.t = threading.Thread(target=self.run)

    def __enter__(self):
        self.t.start()
        return self

    def __exit__(self, *exc):
        self.stopping = True
        self.t.join()

    def run(self):
        while not self.stopping:
            try:
                c = net_counters(hc.sched(self.url))
                for k in PEAK:
                    if k in c:
                        self.peak[k] = max(self.peak.get(k, 0), c[k])
            except OSError:
                pass
            time.sleep(0.5)


def p99(xs):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(len(xs) * 0.99))] if xs else 0


def attack(a, case, k):
    """Starts the attack case in slot k; a Popen."""
    cmd = [a.hostile, "--guest", re.sub(r"^http://|[:/].*$", "", a.url),
           "--slot", str(k)]
    cmd += ([] if a.full else CASES[case]) + ECHO.get(case, []) + [case]
    return subprocess.Popen(cmd, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)


def outcome(proc):
    """(why or None, its hostile: lines) once proc ended (120 s at most)."""
    try:
        out, err = proc.communicate(timeout=120)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        return "the attack: timed out after 120 s", []
    out, err = out.decode(errors="replace"), err.decode(errors="replace")
    said = [l for l in out.splitlines() if l.startswith("hostile: ")]
    if proc.returncode == 0:
        return None, said
    last = said[-1] if said else (err.strip().splitlines() or ["?"])[-1]
    return "the attack: %s" % last, said


def run_group(a, page, base, cases):
    """Runs cases side by side beside the honest clients; (passed,
    failed), one result per case."""
    bad = [c for c in cases if c not in CASES]
    if bad:
        for c in bad:
            print("TEST hostile_%s_%s FAIL no such case" % (c, a.name))
        return 0, len(bad)
    t0 = hc.now()
    c0 = net_counters(hc.sched(a.url))
    cap = any(c in AT_CAP for c in cases)
    limit = base["read"] / 1000 + hc.HONEST_S if cap else hc.HONEST_S
    with hc.Honest(a.url, page, retry=cap, limit=limit) as h, \
            Sampler(a.url) as smp:
        time.sleep(0.3)
        ta = hc.now()
        procs = [attack(a, c, k) for k, c in enumerate(cases)]
        results = [outcome(p) for p in procs]
        attack_s = hc.now() - ta
        time.sleep(0.3)
    hw, hn, worst = h.verdict()
    secs, back = hc.settle(a.url, base)
    c1 = net_counters(hc.sched(a.url))
    passed = failed = 0
    for case, (why, said) in zip(cases, results):
        k = MUST_MOVE.get(case)
        if not why and k and c1.get(k, 0) == c0.get(k, 0):
            why = "the guest's %s counter did not move" % k
        if hc.result("hostile_%s_%s" % (case, a.name), why or hw, secs, back):
            passed += 1
        else:
            failed += 1
        for l in said[:-1]:
            print("# %s" % l)
    dts = [dt for ok, dt, _ in h.results]
    nbad = sum(1 for ok, _, _ in h.results if not ok)
    moved = " ".join("%s+%d" % (k, c1[k] - c0[k]) for k in NET_COUNTERS
                     if k in c1 and k in c0 and c1[k] != c0[k])
    print("# %s: attack %.1f s; honest: %d requests (%.1f/s), %d failed, "
          "p99 %.3f s, slowest %.3f s; peak %s; after %s; counters %s; "
          "back at the baseline after %.1f s; %.1f s in all" % (
              "+".join(cases), attack_s, hn, hn / max(attack_s, 0.1), nbad,
              p99(dts), worst,
              " ".join("%s %d" % (k, smp.peak[k]) for k in PEAK
                       if k in smp.peak),
              " ".join("%s %d" % (k, c1[k]) for k in PEAK if k in c1),
              moved or "-", secs, hc.now() - t0))
    sys.stdout.flush()
    return passed, failed


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("url")
    ap.add_argument("name")
    ap.add_argument("--only", default=",".join(CASES))
    ap.add_argument("--hostile", default="build/host/hostile")
    ap.add_argument("--full", action="store_true",
                    help="the attacks' own defaults, not make test's counts")
    a = ap.parse_args()
    with hc.urllib.request.urlopen(a.url + "/", timeout=10) as r:
        page = r.read()
    base = hc.take_baseline(a.url, page, net_counters)
    missing = [k for k in hc.BASELINE + ("pages_in_use",) if k not in base]
    if missing:
        print("TEST hostile_baseline_%s FAIL /debug/sched lacks %s" % (
            a.name, ", ".join(missing)))
        print("0 passed, 1 failed")
        return 1
    print("# baseline: Gs %d, sockets %d, pcbs %s, pbufs %d, lwIP heap %d "
          "bytes, pages held %d" % (base["gs_alive"], base["sockets"],
                                    base.get("pcbs"), base["pbufs"],
                                    base["lwip_heap"], hc.held(base)))
    passed = failed = 0
    for group in a.only.split(","):
        p, f = run_group(a, page, base, group.split("+"))
        passed, failed = passed + p, failed + f
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
