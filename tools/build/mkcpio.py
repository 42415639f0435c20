#!/usr/bin/env python3
"""mkcpio.py OUT INIT - an initramfs (cpio, "newc" format, uncompressed) for
the Linux guest of `make bench-go BENCH_GO_ARCH=x86_64|aarch64`: /dev, the
/dev/console device node (character 5:1, so that the kernel gives init a
console for its standard streams) and INIT as /init.  Written here rather than with cpio(1), which
would need root to make the device node."""
import os
import sys


def entry(out, ino, name, mode, data=b"", rdev=(0, 0)):
    name_b = name.encode() + b"\0"
    fields = [ino, mode, 0, 0, 1, 0, len(data), 0, 0, rdev[0], rdev[1],
              len(name_b), 0]
    hdr = b"070701" + b"".join(b"%08X" % f for f in fields)
    out.write(hdr + name_b)
    out.write(b"\0" * (-(len(hdr) + len(name_b)) % 4))
    out.write(data)
    out.write(b"\0" * (-len(data) % 4))


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: mkcpio.py OUT INIT")
    out_path, init_path = sys.argv[1:]
    with open(init_path, "rb") as f:
        init = f.read()
    tmp = out_path + ".tmp"
    with open(tmp, "wb") as out:
        entry(out, 1, "dev", 0o040755)
        entry(out, 2, "dev/console", 0o020600, rdev=(5, 1))
        entry(out, 3, "init", 0o100755, init)
        entry(out, 0, "TRAILER!!!", 0)
    os.replace(tmp, out_path)


if __name__ == "__main__":
    main()
