#!/usr/bin/env python3
"""moveelf.py ELF OUT ADDRESS - OUT is x86_64 kernel ELF moved so that a
PVH loader (QEMU's -kernel) places it at the physical ADDRESS: each
PT_LOAD's p_paddr and the PVH entry note (XEN_ELFNOTE_PHYS32_ENTRY) shifted
by ADDRESS less the lowest p_paddr.  Virtual addresses stay the link
addresses (for gdb); the kernel finds where it runs and relocates itself
(boot/reloc.h).  ADDRESS must keep 4 KiB alignment and the image below
2 GiB, which the kernel checks at boot.
"""
import struct
import sys

PT_LOAD, PT_NOTE, XEN_ELFNOTE_PHYS32_ENTRY = 1, 4, 18


def main():
    if len(sys.argv) != 4:
        sys.exit("usage: moveelf.py ELF OUT ADDRESS")
    data = bytearray(open(sys.argv[1], "rb").read())
    to = int(sys.argv[3], 0)
    if data[:4] != b"\x7fELF" or data[4] != 2 or struct.unpack_from("<H", data, 18)[0] != 62:
        sys.exit("moveelf.py: %s is not an x86_64 ELF" % sys.argv[1])
    phoff, = struct.unpack_from("<Q", data, 32)
    phentsize, phnum = struct.unpack_from("<HH", data, 54)
    phdrs = [phoff + i * phentsize for i in range(phnum)]
    loads = [p for p in phdrs if struct.unpack_from("<I", data, p)[0] == PT_LOAD]
    if not loads:
        sys.exit("moveelf.py: %s has no loadable segment" % sys.argv[1])
    delta = to - min(struct.unpack_from("<Q", data, p + 24)[0] for p in loads)
    if delta % 4096:
        sys.exit("moveelf.py: 0x%x is not 4 KiB aligned" % to)
    for p in loads:
        paddr, = struct.unpack_from("<Q", data, p + 24)
        struct.pack_into("<Q", data, p + 24, paddr + delta)
    found = False
    for p in phdrs:
        if struct.unpack_from("<I", data, p)[0] != PT_NOTE:
            continue
        off, = struct.unpack_from("<Q", data, p + 8)
        end = off + struct.unpack_from("<Q", data, p + 32)[0]
        while off + 12 <= end:
            namesz, descsz, typ = struct.unpack_from("<III", data, off)
            desc = off + 12 + (namesz + 3) // 4 * 4
            if typ == XEN_ELFNOTE_PHYS32_ENTRY and data[off + 12:off + 15] == b"Xen":
                entry, = struct.unpack_from("<I", data, desc)
                struct.pack_into("<I", data, desc, entry + delta)
                found = True
            off = desc + (descsz + 3) // 4 * 4
    if not found:
        sys.exit("moveelf.py: %s has no PVH entry note" % sys.argv[1])
    entry, = struct.unpack_from("<Q", data, 24)
    struct.pack_into("<Q", data, 24, entry + delta)
    open(sys.argv[2], "wb").write(data)


if __name__ == "__main__":
    main()
