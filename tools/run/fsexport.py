#!/usr/bin/env python3
"""fsexport.py - files out of a Spindle machine: turns the export stream
that `export=PATH` on the kernel command line sends at exit through the
host channel (posix/fsexport.h; tools/run/qemu.sh's EXPORT= collects it)
back into a file tree, to boot again with (INITRD=).

  fsexport.py STREAM OUT

STREAM is the file QEMU wrote the host channel to; the stream is found
by its start line, so other output before it (a trace dump) is passed
over.  OUT is a folder, which gets the exported paths at their places
under it (made if missing; files already there are replaced, others
kept, but an exported folder ends up holding just what it held in the
guest), or a name ending in .cpio, which gets a "newc" archive of just
what was exported (tools/build/mkcpio.py --tree's way).  The guest's
modes are kept.

A stream cut short, a damaged CRC, a bad record or a path that would
leave OUT is an error that says which record, and writes nothing (exit
status 1); a stream without any start line: status 2.  Prints one line:
how many folders, files and links were written.

Python 3 standard library only.
"""
import os
import shutil
import sys
import tempfile
import zlib

MAGIC = b"SPINDLE-EXPORT 1\n"


class Bad(Exception):
    pass


def parse(data):
    """The stream's records, [(type, mode, path, bytes)]; raises Bad."""
    at = 0
    while True:
        at = data.find(MAGIC, at)
        if at < 0:
            raise Bad("no export stream (no %r line)" % MAGIC.decode().strip())
        if at == 0 or data[at - 1:at] == b"\n":
            break
        at += 1
    pos = at + len(MAGIC)
    records = []
    while True:
        nl = data.find(b"\n", pos)
        if nl < 0:
            raise Bad("cut short after %d records (no end line)" % len(records))
        line = data[pos:nl].decode("utf-8", "surrogateescape")
        pos = nl + 1
        where = "record %d (%r)" % (len(records) + 1, line[:80])
        if line.startswith("E "):
            if line[2:] != str(len(records)):
                raise Bad("end line counts %s records, the stream holds %d"
                          % (line[2:], len(records)))
            return records
        parts = line.split(" ", 3 if line[:1] in ("F", "L") else 2)
        try:
            kind = parts[0]
            mode = int(parts[1], 8)
            if kind == "D" and len(parts) == 3:
                path, body = parts[2], b""
            elif kind in ("F", "L") and len(parts) == 4:
                size, path = int(parts[2]), parts[3]
                if size < 0:
                    raise ValueError
                body = data[pos:pos + size]
                if len(body) < size:
                    raise Bad("%s: cut short in its data" % where)
                pos += size
                crc_line = data[pos:pos + 11]
                if len(crc_line) < 11 or crc_line[:2] != b"C " or crc_line[10:] != b"\n":
                    raise Bad("%s: no CRC line after its data" % where)
                pos += 11
                if int(crc_line[2:10], 16) != zlib.crc32(body):
                    raise Bad("%s: CRC mismatch: the data was damaged" % where)
            else:
                raise ValueError
        except (ValueError, IndexError):
            raise Bad("%s: not a record" % where)
        if mode > 0o7777:
            raise Bad("%s: mode %o" % (where, mode))
        comps = path.split("/")
        if path != "." and (path.startswith("/") or
                            any(c in ("", ".", "..") for c in comps)):
            raise Bad("%s: path %r is not relative and plain" % (where, path))
        records.append((kind, mode, path, body))


def extract(records, out):
    """Writes the records under the folder out; returns (dirs, files, links)."""
    counts = [0, 0, 0]
    for kind, mode, path, body in records:
        if path == ".":
            continue
        dst = os.path.join(out, path)
        os.makedirs(os.path.dirname(dst) or out, exist_ok=True)
        if kind == "D":
            os.makedirs(dst, exist_ok=True)
            os.chmod(dst, mode | 0o700)     # we write into it
            counts[0] += 1
            continue
        if os.path.lexists(dst) and (os.path.isdir(dst) and not os.path.islink(dst)):
            shutil.rmtree(dst)
        elif os.path.lexists(dst):
            os.unlink(dst)
        if kind == "F":
            with open(dst, "wb") as f:
                f.write(body)
            os.chmod(dst, mode)
            counts[1] += 1
        else:
            os.symlink(os.fsdecode(body), dst)
            counts[2] += 1
    # An exported folder is as it was: what it held here before and the
    # guest no longer has (an AOF's old files) goes.
    names = {path for _, _, path, _ in records}
    for kind, _, path, _ in records:
        if kind != "D" or path == ".":
            continue
        for name in os.listdir(os.path.join(out, path)):
            if path + "/" + name not in names:
                stale = os.path.join(out, path, name)
                if os.path.isdir(stale) and not os.path.islink(stale):
                    shutil.rmtree(stale)
                else:
                    os.unlink(stale)
    return counts


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: fsexport.py STREAM OUT(folder or .cpio)")
    src, out = sys.argv[1:]
    try:
        with open(src, "rb") as f:
            data = f.read()
    except OSError as e:
        sys.exit("fsexport.py: %s: %s" % (src, e.strerror))
    try:
        records = parse(data)
    except Bad as e:
        print("fsexport.py: %s: %s; nothing written" % (src, e), file=sys.stderr)
        sys.exit(2 if "no export stream" in str(e) else 1)
    if out.endswith(".cpio"):
        sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                        "..", "build"))
        import mkcpio
        with tempfile.TemporaryDirectory() as tmp:
            counts = extract(records, tmp)
            parts = []
            mkcpio.tree(parts, 1, tmp)
            mkcpio.entry(parts, 0, "TRAILER!!!", 0)
            mkcpio.write(out, parts)
    else:
        os.makedirs(out, exist_ok=True)
        counts = extract(records, out)
    print("fsexport.py: %d folders, %d files, %d links into %s" % (*counts, out))


if __name__ == "__main__":
    main()
