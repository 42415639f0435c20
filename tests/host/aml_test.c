/*
 * aml_test.c - host unit test for firmware/aml.c: virtio-mmio devices
 * found in AML built here as iasl would encode microvm's DSDT (a Scope
 * holding Devices whose _HID is "LNRO0005" and whose _CRS is a
 * Memory32Fixed and an extended interrupt), with multi-byte package
 * lengths, other devices beside and nested, other descriptor kinds; and
 * damaged AML (every cut, every byte flipped, random bytes) read within
 * its bounds under ASan, never found as a device it is not.
 */
#include <stdlib.h>
#include <string.h>
#include "harness.h"
#include "firmware/aml.h"

struct aml {
    uint8_t b[8192];
    size_t n;
};

static void put(struct aml *a, const void *p, size_t n)
{
    memcpy(a->b + a->n, p, n);
    a->n += n;
}

static void byte(struct aml *a, uint8_t v)
{
    put(a, &v, 1);
}

/* Puts PkgLength of a package whose body is n bytes, in `size` bytes
   (1..4; iasl takes the fewest, but every size is legal). */
static void pkg(struct aml *a, size_t n, int size)
{
    size_t v = n + size;

    if (size == 1) {
        byte(a, (uint8_t)v);
        return;
    }
    byte(a, (uint8_t)((size - 1) << 6 | (v & 0x0F)));
    v >>= 4;
    for (int i = 1; i < size; i++, v >>= 8)
        byte(a, (uint8_t)v);
}

/* A _CRS: Memory32Fixed(base, size), then an extended interrupt (gsi),
   or in reverse, or with a QWord memory range instead. */
enum crs { MEM32_IRQ, IRQ_MEM32, QWORD_IRQ };

static void crs(struct aml *a, enum crs kind, uint64_t base, uint32_t size,
                uint32_t gsi)
{
    struct aml r = { .n = 0 };
    uint8_t mem[12] = { 0x86, 9, 0, 1 }, irq[9] = { 0x89, 6, 0, 0x0B, 1 };

    for (int i = 0; i < 4; i++) {
        mem[4 + i] = (uint8_t)(base >> 8 * i);
        mem[8 + i] = (uint8_t)(size >> 8 * i);
        irq[5 + i] = (uint8_t)(gsi >> 8 * i);
    }
    if (kind == QWORD_IRQ) {
        uint8_t q[46] = { 0x8A, 43, 0, 0 };

        for (int i = 0; i < 8; i++) {
            q[14 + i] = (uint8_t)(base >> 8 * i);
            q[22 + i] = (uint8_t)((base + size - 1) >> 8 * i);
            q[38 + i] = (uint8_t)((uint64_t)size >> 8 * i);
        }
        put(&r, q, sizeof q);
    } else if (kind == MEM32_IRQ)
        put(&r, mem, sizeof mem);
    put(&r, irq, sizeof irq);
    if (kind == IRQ_MEM32)
        put(&r, mem, sizeof mem);
    byte(&r, 0x79);             /* end tag */
    byte(&r, 0);
    put(a, "\x08_CRS\x11", 6);
    pkg(a, 2 + r.n, 1 + (r.n > 60));
    byte(a, 0x0A);              /* BufferSize: a byte */
    byte(a, (uint8_t)r.n);
    put(a, r.b, r.n);
}

/* Device (name) { Name (_HID, hid); Name (_UID, 0); _CRS }. */
static void device(struct aml *a, const char *name, const char *hid,
                   enum crs kind, uint64_t base, uint32_t size, uint32_t gsi,
                   int pkgsize)
{
    struct aml body = { .n = 0 };

    put(&body, name, 4);
    put(&body, "\x08_HID\x0D", 6);
    put(&body, hid, strlen(hid) + 1);
    put(&body, "\x08_UID\x00", 6);
    crs(&body, kind, base, size, gsi);
    put(a, "\x5B\x82", 2);
    pkg(a, body.n, pkgsize);
    put(a, body.b, body.n);
}

/* Scope (\_SB) { inner }. */
static void scope(struct aml *a, const struct aml *inner)
{
    byte(a, 0x10);
    pkg(a, 5 + inner->n, 2);
    put(a, "\\_SB_", 5);
    put(a, inner->b, inner->n);
}

static struct aml microvm(void)
{
    struct aml in = { .n = 0 }, a = { .n = 0 };

    device(&in, "VR00", "LNRO0005", MEM32_IRQ, 0xFEB02E00, 0x200, 47, 1);
    device(&in, "VR01", "LNRO0005", MEM32_IRQ, 0xFEB02C00, 0x200, 46, 2);
    device(&in, "COM1", "PNP0501", MEM32_IRQ, 0x3F8, 8, 4, 1);
    scope(&a, &in);
    return a;
}

TEST(microvm_shaped)
{
    struct aml a = microvm();
    struct aml_mmio d[4];

    CHECK(aml_virtio_mmio(a.b, a.n, d, 4) == 2);
    CHECK(d[0].base == 0xFEB02E00 && d[0].size == 0x200 && d[0].gsi == 47);
    CHECK(d[1].base == 0xFEB02C00 && d[1].size == 0x200 && d[1].gsi == 46);
    /* More than max: counted, not written. */
    memset(d, 0xAA, sizeof d);
    CHECK(aml_virtio_mmio(a.b, a.n, d, 1) == 2);
    CHECK(d[0].base == 0xFEB02E00 && d[1].base == 0xAAAAAAAAAAAAAAAAull);
}

TEST(descriptor_kinds_and_package_sizes)
{
    struct aml a = { .n = 0 };
    struct aml_mmio d[8];

    device(&a, "VR00", "LNRO0005", IRQ_MEM32, 0xD0000000, 0x1000, 16, 3);
    device(&a, "VR01", "LNRO0005", QWORD_IRQ, 0x4000000000ull, 0x200, 17, 4);
    CHECK(aml_virtio_mmio(a.b, a.n, d, 8) == 2);
    CHECK(d[0].base == 0xD0000000 && d[0].size == 0x1000 && d[0].gsi == 16);
    CHECK(d[1].base == 0x4000000000ull && d[1].size == 0x200 &&
          d[1].gsi == 17);
}

TEST(nested_devices_are_their_own)
{
    struct aml outer = { .n = 0 }, inner = { .n = 0 }, body = { .n = 0 };
    struct aml_mmio d[4];

    /* A PCI root bridge (not virtio) holding a virtio-mmio device: the
       root's body up to the nested device has no LNRO0005 of its own,
       and the nested one is found once. */
    device(&inner, "VR00", "LNRO0005", MEM32_IRQ, 0xFEB00000, 0x200, 5, 1);
    put(&body, "PCI0", 4);
    put(&body, "\x08_HID\x0DPNP0A08", 14);
    put(&body, inner.b, inner.n);
    put(&outer, "\x5B\x82", 2);
    pkg(&outer, body.n, 2);
    put(&outer, body.b, body.n);
    CHECK(aml_virtio_mmio(outer.b, outer.n, d, 4) == 1);
    CHECK(d[0].base == 0xFEB00000 && d[0].gsi == 5);
}

TEST(not_virtio)
{
    struct aml a = { .n = 0 };
    struct aml_mmio d[4];

    device(&a, "VR00", "LNRO0006", MEM32_IRQ, 0xFEB00000, 0x200, 5, 1);
    device(&a, "VR01", "LNRO000", MEM32_IRQ, 0xFEB00200, 0x200, 6, 1);
    CHECK(aml_virtio_mmio(a.b, a.n, d, 4) == 0);
    CHECK(aml_virtio_mmio(a.b, 0, d, 4) == 0);
}

/* Damaged copies, each exactly its length in a heap block of its own,
   so that ASan sees a read past it. */
static int scan_copy(const uint8_t *p, size_t n, struct aml_mmio *d)
{
    uint8_t *c = malloc(n ? n : 1);
    int k;

    memcpy(c, p, n);
    k = aml_virtio_mmio(c, n, d, 4);
    free(c);
    return k;
}

TEST(damaged)
{
    struct aml a = microvm();
    struct aml_mmio d[4];
    uint64_t seed = 88172645463325252ull;

    /* Cut anywhere: never more devices, never one outside the real two. */
    for (size_t n = 0; n <= a.n; n++) {
        int k = scan_copy(a.b, n, d);

        CHECK(k <= 2);
        for (int i = 0; i < k && i < 4; i++)
            CHECK(d[i].base == 0xFEB02E00 || d[i].base == 0xFEB02C00);
    }
    /* Every byte flipped, each way. */
    for (size_t i = 0; i < a.n; i++)
        for (int bit = 0; bit < 8; bit++) {
            a.b[i] ^= 1 << bit;
            CHECK(scan_copy(a.b, a.n, d) <= 3);
            a.b[i] ^= 1 << bit;
        }
    /* Random bytes, with DeviceOps sprinkled in. */
    for (int r = 0; r < 20000; r++) {
        uint8_t buf[256];
        size_t n = 1 + r % sizeof buf;

        for (size_t i = 0; i < n; i++) {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            buf[i] = (uint8_t)seed;
            if (i > 0 && (seed >> 20) % 16 == 0) {
                buf[i - 1] = 0x5B;
                buf[i] = 0x82;
            }
        }
        CHECK(scan_copy(buf, n, d) >= 0);
    }
}

int main(int argc, char **argv)
{
    return h_run(argc, argv);
}
