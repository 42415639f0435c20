/*
 * firmware_tables - a firmware that describes no second core: the
 * kernel must say why and run on the boot core alone, never hang.
 * x86_64 under OVMF with QEMU's acpi=off gets ACPI tables without a
 * MADT; aarch64 under AAVMF with the kernel's acpi=off has no table it
 * may use (AAVMF gives ACPI only, no device tree), so it takes QEMU
 * virt's fixed layout.  Booted at 2 cores, it must find one, and that
 * one must run Gs; test.conf checks the console's reasons.
 */
#include <spindle/chan.h>
#include <spindle/cpu.h>
#include <spindle/sched.h>
#include <spindle/test.h>

static void echo(void *arg)
{
    sp_chan *c = arg;
    int v;

    sp_chan_recv(c, &v);
    v++;
    sp_chan_send(c, &v);
}

TEST(boot_core_alone)
{
    sp_chan *c = sp_chan_make(sizeof(int), 0);
    int v = 41;

    CHECKF(sp_ncpu() == 1, "%d cores online; the firmware described one", sp_ncpu());
    CHECK(c != NULL);
    if (!c)
        return;
    CHECK(sp_go(echo, c) > 1);
    sp_chan_send(c, &v);
    sp_chan_recv(c, &v);
    CHECK(v == 42);
}

int main(void)
{
    return sp_test_main();
}
