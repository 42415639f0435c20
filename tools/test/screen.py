#!/usr/bin/env python3
"""screen.py - what a QEMU guest's screen shows, for the test runner.

  screen.py dump SOCKET PPM   asks the QEMU human monitor listening on the
                              Unix socket SOCKET (tools/run/qemu.sh MONITOR=)
                              for a screendump into PPM, and returns once
                              QEMU has written it
  screen.py find FONT PPM TEXT...
                              exits 0 if the PPM image shows every TEXT as a
                              line of its own, drawn in FONT (a PSF file, read
                              by psf.py) from the left edge, at any height, in
                              one colour on the most common one, with nothing
                              to its right; 1, naming each one missing,
                              otherwise

The finder turns every pixel row into a string of '0' (background) and
'1' (anything else) and compares the start of each with the first glyph
row of the whole text, then the rows below it where that matches, so a
text is found only if every pixel of each of its glyphs is where the
font puts it and the rest of its pixel rows is background.
"""
import os
import socket
import sys
import time

# tools/build/psf.py: the console font's glyphs.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "build"))
import psf  # noqa: E402


def dump(sock, ppm):
    s = socket.socket(socket.AF_UNIX)
    s.settimeout(10)
    s.connect(sock)
    got = b""
    while not got.endswith(b"(qemu) "):    # the greeting's prompt
        got += s.recv(4096)
    s.sendall(b"screendump %s\n" % os.path.abspath(ppm).encode())
    got = b""
    while b"(qemu) " not in got.split(b"\n", 1)[-1]:   # after the echo
        got += s.recv(4096)
    s.close()
    if not os.path.exists(ppm):
        sys.exit("screen.py: QEMU wrote no %s: %s" % (ppm, got.decode(errors="replace")))
    return 0


def read_ppm(path):
    """(width, height, rows): rows[y] is a list of (r, g, b) tuples."""
    with open(path, "rb") as f:
        data = f.read()
    fields, p = [], 0
    while len(fields) < 4:          # P6, width, height, maxval; # comments
        while data[p:p + 1].isspace():
            p += 1
        if data[p:p + 1] == b"#":
            p = data.index(b"\n", p) + 1
            continue
        q = p
        while not data[q:q + 1].isspace():
            q += 1
        fields.append(data[p:q])
        p = q
    if fields[0] != b"P6" or int(fields[3]) != 255:
        sys.exit("psf.py: %s is not an 8-bit binary PPM" % path)
    w, h = int(fields[1]), int(fields[2])
    pix = data[p + 1:p + 1 + w * h * 3]
    if len(pix) != w * h * 3:
        sys.exit("psf.py: %s is cut short" % path)
    return w, h, [[tuple(pix[(y * w + x) * 3:(y * w + x) * 3 + 3]) for x in range(w)]
                  for y in range(h)]


def find(font, ppm, texts):
    height, table = psf.load(font)
    w, h, rows = read_ppm(ppm)
    counts = {}
    for row in rows:
        for px in row:
            counts[px] = counts.get(px, 0) + 1
    bg = max(counts, key=counts.get)    # the most common colour
    # Each pixel row as a string: '0' background, '1' anything else.
    bits = ["".join("0" if px == bg else "1" for px in row) for row in rows]
    status = 0
    for text in texts:
        want = ["".join(format(table[b][r], "08b") for b in text.encode("latin-1"))
                for r in range(height)]
        hit = None
        for y in range(h - height + 1):
            if all(bits[y + r].startswith(want[r]) and "1" not in bits[y + r][len(want[r]):]
                   for r in range(height)):
                # One foreground colour: the glyphs' set pixels agree.
                fg = {rows[y + r][i] for r in range(height)
                      for i, c in enumerate(want[r]) if c == "1"}
                if len(fg) == 1:
                    hit = y
                    break
        if hit is not None:
            print("screen.py: %r at y=%d in %s" % (text, hit, ppm))
        else:
            print("screen.py: %r is not on the screen in %s (%dx%d, background #%02x%02x%02x)"
                  % (text, ppm, w, h, *bg))
            status = 1
    return status


def main(argv):
    if len(argv) == 4 and argv[1] == "dump":
        return dump(argv[2], argv[3])
    if len(argv) >= 5 and argv[1] == "find":
        return find(argv[2], argv[3], argv[4:])
    sys.stderr.write(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
