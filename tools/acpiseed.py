#!/usr/bin/env python3
"""acpiseed.py DIR - writes the seed corpus of the ACPI fuzz target
(tests/fuzz/acpi.c): table sets laid out from physical address BASE,
the RSDP at BASE, as the target maps its input (the kernel takes an
RSDP at 0 for none).  Field offsets are the ACPI
specification's (6.4: RSDP 5.2.5, header 5.2.6, MADT 5.2.12, FADT 5.2.9;
PCI Firmware 3.2 for the MCFG)."""
import os
import struct
import sys

BASE = 0x1000       # tests/fuzz/acpi.c's BASE


def seal(b, at):
    """b with the byte at `at` set so that all of b sums to 0 mod 256."""
    b = bytearray(b)
    b[at] = 0
    b[at] = (-sum(b)) & 0xFF
    return bytes(b)


def table(sig, rev, body):
    hdr = struct.pack('<4sIBB6s8sIII', sig, 36 + len(body), rev, 0,
                      b'SPNDLE', b'FUZZSEED', 1, 0x4C444E53, 1)
    return seal(hdr + body, 9)


def rsdp(rev, rsdt, xsdt):
    v1 = struct.pack('<8sB6sBI', b'RSD PTR ', 0, b'SPNDLE', rev, rsdt)
    v1 = seal(v1, 8)
    if rev < 2:
        return v1
    v2 = v1 + struct.pack('<IQB3s', 36, xsdt, 0, b'\0\0\0')
    return seal(v2, 32)


def madt(ncpu, x2apic=False, override=False):
    body = struct.pack('<II', 0xFEE00000, 1)
    for i in range(ncpu):
        if x2apic:
            body += struct.pack('<BBHIII', 9, 16, 0, 0x100 + i, 1, i)
        else:
            flags = 1 if i < ncpu - 1 else 2        # last: online capable
            body += struct.pack('<BBBBI', 0, 8, i, i, flags)
    body += struct.pack('<BBBBII', 1, 12, 0, 0, 0xFEC00000, 0)   # I/O APIC
    body += struct.pack('<BBBBIH', 2, 10, 0, 0, 2, 0)            # IRQ0 -> 2
    if override:
        body += struct.pack('<BBHQ', 5, 12, 0, 0xFEE10000)
    return table(b'APIC', 5, body)


def mcfg():
    body = b'\0' * 8 + struct.pack('<QHBBI', 0xB0000000, 0, 0, 255, 0)
    return table(b'MCFG', 1, body)


def fadt():
    body = bytearray(276 - 36)
    struct.pack_into('<I', body, 76 - 36, 0x608)               # PM_TMR_BLK
    struct.pack_into('<I', body, 112 - 36, 1 << 8)             # TMR_VAL_EXT
    struct.pack_into('<BBBBQ', body, 208 - 36, 1, 32, 0, 3, 0x608)
    return table(b'FACP', 6, bytes(body))


def layout(rev, tables):
    """RSDP at BASE, XSDT at +0x40, RSDT at +0x80, the tables from +0x100."""
    mem = bytearray(0x100)
    addrs = []
    for t in tables:
        addrs.append(BASE + len(mem))
        mem += t + b'\0' * (-len(t) % 16)
    xsdt = table(b'XSDT', 1, b''.join(struct.pack('<Q', a) for a in addrs))
    rsdt = table(b'RSDT', 1, b''.join(struct.pack('<I', a) for a in addrs))
    assert len(xsdt) <= 0x40 and len(rsdt) <= 0x80
    mem[0:36 if rev >= 2 else 20] = rsdp(rev, BASE + 0x80, BASE + 0x40)
    mem[0x40:0x40 + len(xsdt)] = xsdt
    mem[0x80:0x80 + len(rsdt)] = rsdt
    return bytes(mem)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    seeds = {
        'q35-4cpu': layout(2, [madt(4), mcfg(), fadt()]),
        'rsdt-only': layout(0, [madt(2), fadt()]),
        'x2apic-override': layout(2, [madt(3, x2apic=True, override=True),
                                      mcfg()]),
    }
    for name, mem in seeds.items():
        with open(os.path.join(out, name), 'wb') as f:
            f.write(mem)


main()
