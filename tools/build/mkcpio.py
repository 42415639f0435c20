#!/usr/bin/env python3
"""mkcpio.py - cpio archives ("newc" format, uncompressed), made the same
way every time: in each folder its folders, then its other entries, each
group by name, every folder before what it holds; every mtime 0, owned
by root, inodes numbered in order, modes kept.  Written here rather
than with cpio(1), which would need root for a device node and records
the host's owners and times.

  mkcpio.py OUT INIT [ROOT]
      an initramfs for the Linux guests of `make bench-go
      BENCH_GO_ARCH=x86_64|aarch64` and `make bench-apps`: /dev, the
      /dev/console device node (character 5:1, so that the kernel gives
      init a console for its standard streams), INIT as /init and, with
      ROOT, everything under ROOT at the same path.

  mkcpio.py --tree OUT DIR
      the file tree under DIR for a Spindle image (kernel/initrd.h):
      every folder, file and symbolic link, named by its path relative
      to DIR (no leading "./"), then the TRAILER!!! entry.  Anything else
      (a device, a FIFO, a socket) stops it.

OUT is written only when its bytes change, so that what depends on it
(an image linking it in) is not remade for nothing."""
import os
import stat
import sys


def entry(out, ino, name, mode, data=b"", rdev=(0, 0)):
    name_b = name.encode() + b"\0"
    fields = [ino, mode, 0, 0, 1, 0, len(data), 0, 0, rdev[0], rdev[1],
              len(name_b), 0]
    hdr = b"070701" + b"".join(b"%08X" % f for f in fields)
    out.append(hdr + name_b)
    out.append(b"\0" * (-(len(hdr) + len(name_b)) % 4))
    out.append(data)
    out.append(b"\0" * (-len(data) % 4))


def tree(out, ino, root):
    """Adds what lies under root, parents first; returns the next inode."""
    for top, dirs, files in os.walk(root):
        dirs.sort()
        for name in sorted(dirs) + sorted(files):
            path = os.path.join(top, name)
            rel = os.path.relpath(path, root)
            st = os.lstat(path)
            if stat.S_ISLNK(st.st_mode):
                entry(out, ino, rel, st.st_mode, os.readlink(path).encode())
            elif stat.S_ISDIR(st.st_mode):
                entry(out, ino, rel, st.st_mode)
            elif stat.S_ISREG(st.st_mode):
                with open(path, "rb") as f:
                    entry(out, ino, rel, st.st_mode, f.read())
            else:
                sys.exit("mkcpio.py: %s is not a folder, a file or a symbolic link"
                         % path)
            ino += 1
    return ino


def write(out_path, parts):
    data = b"".join(parts)
    try:
        with open(out_path, "rb") as f:
            if f.read() == data:
                return
    except FileNotFoundError:
        pass
    tmp = out_path + ".tmp"
    with open(tmp, "wb") as f:
        f.write(data)
    os.replace(tmp, out_path)


def main():
    args = sys.argv[1:]
    out = []
    if len(args) == 3 and args[0] == "--tree":
        out_path, root = args[1:]
        if not os.path.isdir(root):
            sys.exit("mkcpio.py: %s is not a folder" % root)
        tree(out, 1, root)
    elif len(args) in (2, 3) and not args[0].startswith("-"):
        out_path, init_path = args[:2]
        with open(init_path, "rb") as f:
            init = f.read()
        entry(out, 1, "dev", 0o040755)
        entry(out, 2, "dev/console", 0o020600, rdev=(5, 1))
        entry(out, 3, "init", 0o100755, init)
        if len(args) == 3:
            tree(out, 4, args[2])
    else:
        sys.exit("usage: mkcpio.py OUT INIT [ROOT] | mkcpio.py --tree OUT DIR")
    entry(out, 0, "TRAILER!!!", 0)
    write(out_path, out)


if __name__ == "__main__":
    main()
