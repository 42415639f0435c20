#!/usr/bin/env python3
"""conns.py URL SECS [THREADS] - honest connections, one request each:
THREADS (4) threads each connect to URL's host, ask for / with
`Connection: close`, read to the end and check for a 200 with a 612-byte
body, for SECS seconds.  Prints `conns OK/s FAILED p99_ms WHY`: the whole
answers a second, the failures (refused, reset, timed out after 3 s, or
a wrong answer), the 99th percentile of a whole one's time, and the
failures by kind (`reset:2,timeout:1`, or `-`).
"""
import re
import socket
import sys
import threading
import time


def main():
    url, secs = sys.argv[1], float(sys.argv[2])
    threads = int(sys.argv[3]) if len(sys.argv) > 3 else 4
    host = re.match(r"http://([\d.]+)", url).group(1)
    req = b"GET / HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n" % (
        host.encode())
    ok, bad, times, why = [0], [0], [], {}
    lock = threading.Lock()
    end = time.monotonic() + secs

    def run():
        while time.monotonic() < end:
            t0 = time.monotonic()
            good, kind = False, "wrong"
            try:
                data = b""
                with socket.create_connection((host, 80), timeout=3) as s:
                    s.sendall(req)
                    while True:
                        b = s.recv(65536)
                        if not b:
                            break
                        data += b
                head, _, body = data.partition(b"\r\n\r\n")
                good = head.startswith(b"HTTP/1.1 200") and len(body) == 612
            except socket.timeout:
                kind = "timeout"
            except ConnectionResetError:
                kind = "reset" if not data else "reset_after_%d" % len(data)
            except ConnectionRefusedError:
                kind = "refused"
            except OSError as e:
                kind = type(e).__name__
            with lock:
                if good:
                    ok[0] += 1
                    times.append(time.monotonic() - t0)
                else:
                    bad[0] += 1
                    why[kind] = why.get(kind, 0) + 1
                    time.sleep(0.05)

    ts = [threading.Thread(target=run) for _ in range(threads)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    times.sort()
    p99 = times[min(len(times) - 1, int(len(times) * 0.99))] if times else 0
    print("conns %.1f %d %.0f %s" % (
        ok[0] / secs, bad[0], p99 * 1000,
        ",".join("%s:%d" % kv for kv in sorted(why.items())) or "-"))


if __name__ == "__main__":
    main()
