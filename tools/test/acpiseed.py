#!/usr/bin/env python3
"""acpiseed.py DIR - writes the seed corpus of the ACPI fuzz target
(tests/fuzz/acpi.c): table sets laid out from physical address BASE,
the RSDP at BASE, as the target maps its input (the kernel takes an
RSDP at 0 for none).  Field offsets are the ACPI
specification's (6.4: RSDP 5.2.5, header 5.2.6, MADT 5.2.12, FADT 5.2.9,
GTDT 5.2.24 (5.2.25 in 6.5); PCI Firmware 3.2 for the MCFG; Microsoft's
SPCR specification).  The arm64 sets are shaped like the tables AAVMF
hands over on QEMU virt, and like an SBSA server's."""
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


def gicc(uid, mpidr, flags, gicr=0, gicc_base=0, length=80):
    """MADT GICC (type 0xB): 76 bytes in ACPI 5.1, 80 in 6.0, 82 in 6.5."""
    e = struct.pack('<BBHIIIIIQQQQIQQ', 0xB, length, 0, uid, uid, flags, 0,
                    23, 0, gicc_base, 0, 0, 25, gicr, mpidr)
    return (e + b'\0' * 6)[:length]


def gic_madt(version, cpus, gicr=(), its=(), extra=b''):
    """An arm64 MADT: a GICD of this version, then cpus (GICC entries),
    the GICR ranges (base, length), the ITS bases, then extra."""
    body = struct.pack('<II', 0, 0)
    body += struct.pack('<BBHIQIB3s', 0xC, 24, 0, 0, 0x08000000, 0,
                        version, b'\0' * 3)
    body += b''.join(cpus)
    for base, length in gicr:
        body += struct.pack('<BBHQI', 0xE, 16, 0, base, length)
    for i, base in enumerate(its):
        body += struct.pack('<BBHIQI', 0xF, 20, 0, i, base, 0)
    return table(b'APIC', 5, body + extra)


def arm_fadt(length=276, arm_boot=0x3):
    """A hardware-reduced FADT; ARM_BOOT_ARCH (PSCI, HVC) if it fits."""
    body = bytearray(length - 36)
    struct.pack_into('<I', body, 112 - 36, 1 << 20)            # HW_REDUCED
    if length >= 131:
        struct.pack_into('<HB', body, 129 - 36, arm_boot, 5)   # 6.5
    return table(b'FACP', 6, bytes(body))


def gtdt(length=104, virt=27, flags=0):
    """The secure/non-secure EL1, virtual and EL2 timers QEMU virt uses."""
    body = struct.pack('<QIIIIIIIII', 0xFFFFFFFFFFFFFFFF, 0, 29, flags,
                       30, flags | 4, virt, flags, 26, flags)
    body += struct.pack('<QIIII', 0xFFFFFFFFFFFFFFFF, 0, 0, 0, 0)
    return table(b'GTDT', 3, body[:length - 36])


def spcr(kind, space, addr, length=80):
    """SPCR revision 2: interface type, base GAS, GIC interrupt 33."""
    body = struct.pack('<B3sBBBBQBBIBBBBBBHHBBBIB', kind, b'\0' * 3, space,
                       32, 0, 3, addr, 8, 0, 33, 7, 0, 1, 0, 0, 0,
                       0xFFFF, 0xFFFF, 0, 0, 0, 0, 0)
    body += b'\0' * 4
    return table(b'SPCR', 2, body[:length - 36])


def layout(rev, tables):
    """RSDP at BASE, XSDT at +0x40, RSDT at +0x80, the tables from +0x100;
    from 4 tables on, the XSDT gets 0x80 bytes and all behind it moves."""
    xslot = 0x40 if len(tables) <= 3 else 0x80
    rsdt_at = 0x40 + xslot
    mem = bytearray(rsdt_at + 0x80)
    addrs = []
    for t in tables:
        addrs.append(BASE + len(mem))
        mem += t + b'\0' * (-len(t) % 16)
    xsdt = table(b'XSDT', 1, b''.join(struct.pack('<Q', a) for a in addrs))
    rsdt = table(b'RSDT', 1, b''.join(struct.pack('<I', a) for a in addrs))
    assert len(xsdt) <= xslot and len(rsdt) <= 0x80
    mem[0:36 if rev >= 2 else 20] = rsdp(rev, BASE + rsdt_at, BASE + 0x40)
    mem[0x40:0x40 + len(xsdt)] = xsdt
    mem[rsdt_at:rsdt_at + len(rsdt)] = rsdt
    return bytes(mem)


def arm_seeds():
    """AAVMF on QEMU virt (GICv3 and GICv2), an SBSA-like server, and
    broken variants: no usable core, mixed CPU kinds, short tables."""
    virt4 = [gicc(0, 0, 1), gicc(1, 1, 1), gicc(2, 2, 8), gicc(3, 3, 0)]
    sbsa = [gicc(i, (i // 4) << 32 | (i % 4) << 8 | 1 << 31, 1,
                 gicr=0x100080000000 + 0x40000 * i, length=82)
            for i in range(8)]
    v2 = [gicc(i, i, 1, gicc_base=0x08010000, length=76) for i in range(2)]
    lapic = struct.pack('<BBBBI', 0, 8, 1, 1, 1)
    return {
        'aavmf-virt-gicv3': layout(2, [
            arm_fadt(), gic_madt(3, virt4, [(0x080A0000, 0xF60000)],
                                 [0x08080000]),
            gtdt(), spcr(0x03, 0, 0x09000000), mcfg()]),
        'aavmf-virt-gicv2': layout(2, [
            arm_fadt(arm_boot=0x1), gic_madt(2, v2), gtdt(96, flags=1),
            spcr(0x0E, 0, 0x09000000)]),
        'sbsa-server': layout(2, [
            arm_fadt(arm_boot=0x1), gic_madt(3, sbsa, (),
                                             [0x100100040000, 0x100140040000]),
            gtdt(80), spcr(0x12, 0, 0x100002600000), mcfg()]),
        'arm-nocore': layout(2, [
            arm_fadt(), gic_madt(4, [gicc(0, 0, 8), gicc(1, 1, 0)],
                                 [(0x080A0000, 0x40000)]),
            gtdt(), spcr(0x03, 0, 0x09000000)]),
        'arm-mixed': layout(2, [
            gic_madt(3, virt4[:2], extra=lapic), gtdt()]),
        'arm-short-tables': layout(2, [
            arm_fadt(130), gic_madt(3, virt4), gtdt(76),
            spcr(0x03, 0, 0x09000000, length=48)]),
    }


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    seeds = {
        'q35-4cpu': layout(2, [madt(4), mcfg(), fadt()]),
        'rsdt-only': layout(0, [madt(2), fadt()]),
        'x2apic-override': layout(2, [madt(3, x2apic=True, override=True),
                                      mcfg()]),
    }
    seeds.update(arm_seeds())
    for name, mem in seeds.items():
        with open(os.path.join(out, name), 'wb') as f:
            f.write(mem)


main()
