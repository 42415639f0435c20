/*
 * virtio_mmio_cmdline_test.c - host unit test for
 * drivers/virtio_mmio_cmdline.c: Linux's virtio_mmio.device= forms
 * (size suffixes, hex and decimal, the optional id), and values that
 * are malformed, out of range or would wrap, each refused with a
 * message that names it and leaves the result zeroed.
 */
#include <string.h>
#include "drivers/virtio_mmio_cmdline.h"
#include "harness.h"

static struct virtio_mmio_cmdline d;
static char err[160];

static bool parse(const char *v)
{
    return virtio_mmio_cmdline_parse(v, &d, err, sizeof err);
}

/* Refused, with a message naming the key, and nothing kept. */
static bool refused(const char *v)
{
    return !parse(v) && strstr(err, "virtio_mmio.device=") &&
           strstr(err, "ignored") && !d.base && !d.size && !d.line;
}

TEST(linux_forms)
{
    CHECK(parse("512@0xfeb00000:5") && d.base == 0xfeb00000 &&
          d.size == 512 && d.line == 5 && d.id == -1 && !err[0]);
    CHECK(parse("4K@0xfeb00c00:12:3") && d.size == 4096 && d.line == 12 &&
          d.id == 3);
    CHECK(parse("1m@0x10000000:79:0") && d.size == 1 << 20 && d.id == 0);
    CHECK(parse("0x200@268435456:0x2f") && d.base == 0x10000000 &&
          d.size == 0x200 && d.line == 0x2f);
    CHECK(parse("1G@0x4000000000:1023") && d.size == 1ULL << 30 &&
          d.base == 0x4000000000ULL && d.line == 1023);
    CHECK(parse("2k@0xa003e00:79") && d.size == 2048);
}

TEST(malformed)
{
    CHECK(refused(""));
    CHECK(refused(NULL));
    CHECK(refused("512"));
    CHECK(refused("512@"));
    CHECK(refused("512@0xfeb00000"));
    CHECK(refused("512@0xfeb00000:"));
    CHECK(refused("@0xfeb00000:5"));
    CHECK(refused("512#0xfeb00000:5"));
    CHECK(refused("512@0xfeb00000:5:"));
    CHECK(refused("512@0xfeb00000:5:0x3"));
    CHECK(refused("512@0xfeb00000:5:3:4"));
    CHECK(refused("512@0xfeb00000:5 "));
    CHECK(refused("512T@0xfeb00000:5"));
    CHECK(refused("-512@0xfeb00000:5"));
    CHECK(refused("512@0xzz:5"));
    CHECK(refused("0x@0xfeb00000:5"));
}

TEST(out_of_range)
{
    CHECK(refused("511@0xfeb00000:5"));         /* no room for the config */
    CHECK(refused("0@0xfeb00000:5"));
    CHECK(refused("2G@0xfeb00000:5"));
    CHECK(refused("0x40000001@0x1000:5"));
    CHECK(refused("512@0:5"));
    CHECK(refused("512@0xfeb00002:5"));         /* misaligned */
    CHECK(refused("512@0xfffffffffffffe04:5")); /* wraps */
    CHECK(refused("512@0xffffffffffffffffff:5"));
    CHECK(refused("512@0xfeb00000:0"));
    CHECK(refused("512@0xfeb00000:1024"));
    CHECK(refused("512@0xfeb00000:99999999999999999999"));
    CHECK(refused("99999999999999999999@0xfeb00000:5"));
    CHECK(refused("18014398509481984K@0x1000:5"));  /* 2^54 K wraps */
    CHECK(refused("512@0xfeb00000:5:2147483648"));
    CHECK(parse("512@0xfeb00000:5:2147483647") && d.id == 2147483647);
}

TEST(message_fits)
{
    char small[24];
    char longv[300];

    memset(longv, '7', sizeof longv - 1);
    longv[sizeof longv - 1] = '\0';
    CHECK(refused(longv) && strstr(err, "...") && strlen(err) < sizeof err);
    CHECK(!virtio_mmio_cmdline_parse("x", &d, small, sizeof small) &&
          strlen(small) == sizeof small - 1);
    CHECK(!virtio_mmio_cmdline_parse("x", &d, small, 0));
}

int main(int argc, char **argv)
{
    return h_run(argc, argv);
}
