#!/usr/bin/env python3
"""mkcpio.py OUT INIT [ROOT] - an initramfs (cpio, "newc" format, uncompressed)
for the Linux guests of `make bench-go BENCH_GO_ARCH=x86_64|aarch64` and
`make bench-apps`: /dev, the /dev/console device node (character 5:1, so
that the kernel gives init a console for its standard streams), INIT as
/init and, with ROOT, every folder, file and symbolic link under ROOT at
the same path (modes kept, owned by root).  Written here rather than
with cpio(1), which would need root to make the device node."""
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


def tree(out, ino, root):
    """Adds what lies under root, parents first; returns the next inode."""
    for top, dirs, files in os.walk(root):
        dirs.sort()
        for name in sorted(dirs) + sorted(files):
            path = os.path.join(top, name)
            rel = os.path.relpath(path, root)
            st = os.lstat(path)
            if os.path.islink(path):
                entry(out, ino, rel, st.st_mode, os.readlink(path).encode())
            elif os.path.isdir(path):
                entry(out, ino, rel, st.st_mode)
            else:
                with open(path, "rb") as f:
                    entry(out, ino, rel, st.st_mode, f.read())
            ino += 1
    return ino


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit("usage: mkcpio.py OUT INIT [ROOT]")
    out_path, init_path = sys.argv[1:3]
    with open(init_path, "rb") as f:
        init = f.read()
    tmp = out_path + ".tmp"
    with open(tmp, "wb") as out:
        entry(out, 1, "dev", 0o040755)
        entry(out, 2, "dev/console", 0o020600, rdev=(5, 1))
        entry(out, 3, "init", 0o100755, init)
        if len(sys.argv) == 4:
            tree(out, 4, sys.argv[3])
        entry(out, 0, "TRAILER!!!", 0)
    os.replace(tmp, out_path)


if __name__ == "__main__":
    main()
