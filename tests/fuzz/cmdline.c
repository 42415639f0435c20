/*
 * cmdline.c - libFuzzer target for kernel/cmdline.c: any bytes as a
 * kernel command line, then every query the kernel makes of one, the
 * fault= value through kernel/faultinject_cfg.c, trace= and trace_buf=
 * through sched/exectrace_buf.c, profile= and profile_buf= through
 * sched/profbuf.c, and every virtio_mmio.device= through
 * drivers/virtio_mmio_cmdline.c.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "drivers/virtio_mmio_cmdline.h"
#include "kernel/cmdline.h"
#include "kernel/faultinject_cfg.h"
#include "sched/exectrace_buf.h"
#include "sched/profbuf.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char *const keys[] = { "smp", "quantum", "idlespin",
                                        "schedtrace", "ip", "fault", "fbcon", "",
                                        "--", "trace", "trace_buf",
                                        "profile", "profile_buf",
                                        VIRTIO_MMIO_CMDLINE_KEY };
    char *s = malloc(size + 1), *argv[8], err[96];
    struct faultcfg fc;
    struct tracecfg tc;
    struct profcfg pc;
    struct virtio_mmio_cmdline vm;
    const char *v, *tb;
    long n;
    int pos = 0, seen = 0;

    memcpy(s, data, size);
    s[size] = '\0';
    cmdline_parse(s);
    free(s);                    /* the parser keeps its own copy */
    (void)cmdline_truncated();
    if (strlen(cmdline_raw()) >= CMDLINE_MAX)
        abort();
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        if (cmdline_get(keys[i], &v) && !v)
            abort();
        if (cmdline_long(keys[i], -5, 64, &n) == CMDLINE_RANGE &&
            (n < -5 || n > 64))
            abort();
    }
    /* Whatever fault= says, what is taken is within its bounds. */
    if (cmdline_get("fault", &v) && faultcfg_parse(v, &fc, err, sizeof err) >= 0 &&
        (fc.alloc_permille > FAULT_ALLOC_MAX || fc.ipi_pct > FAULT_PCT_MAX ||
         fc.ipi_ms > FAULT_IPI_MS_MAX || fc.timer_pct > FAULT_PCT_MAX ||
         fc.timer_us > FAULT_TIMER_US_MAX || fc.stall_us > FAULT_STALL_US_MAX ||
         strlen(err) >= sizeof err || (!fc.ipi_pct != !fc.ipi_ms) ||
         (!fc.timer_pct != !fc.timer_us)))
        abort();
    /* trace= and trace_buf=: a mode the tracer knows, a power-of-two
       buffer within the bounds, a message that fits. */
    v = tb = NULL;
    cmdline_get("trace", &v);
    cmdline_get("trace_buf", &tb);
    if ((tracecfg_parse(v, tb, tracecfg_default_kib((uint64_t)size << 12,
                                                    (int)(size % 70)),
                        &tc, err, sizeof err) < 0) != (err[0] != '\0') ||
        tc.mode > TRACE_WRAP || !tc.cap || (tc.cap & (tc.cap - 1)) ||
        tc.cap * sizeof(struct trace_ev) > (uint64_t)TRACE_BUF_MAX_KIB << 10 ||
        tc.cap * sizeof(struct trace_ev) * 2 <= (uint64_t)TRACE_BUF_MIN_KIB << 10 ||
        strlen(err) >= sizeof err)
        abort();
    /* profile= and profile_buf=: a rate the profiler takes, a buffer
       within the bounds, a message that fits. */
    v = tb = NULL;
    cmdline_get("profile", &v);
    cmdline_get("profile_buf", &tb);
    if ((profcfg_parse(v, tb, &pc, err, sizeof err) < 0) != (err[0] != '\0') ||
        pc.hz < 0 || pc.hz > PROF_HZ_MAX ||
        pc.words * 8 > (uint64_t)PROF_BUF_MAX_KIB << 10 ||
        pc.words * 8 < (uint64_t)PROF_BUF_MIN_KIB << 10 ||
        strlen(err) >= sizeof err)
        abort();
    /* Every virtio_mmio.device=: a device whose registers fit, with no
       wrap and a line in range, or a message and nothing kept. */
    while (cmdline_next(VIRTIO_MMIO_CMDLINE_KEY, &pos, &v)) {
        bool ok = virtio_mmio_cmdline_parse(v, &vm, err, sizeof err);

        if (ok != (err[0] == '\0') || strlen(err) >= sizeof err ||
            (ok && (vm.size < VIRTIO_MMIO_MIN_SIZE ||
                    vm.size > VIRTIO_MMIO_MAX_SIZE || !vm.base ||
                    (vm.base & 3) || vm.base + vm.size < vm.base ||
                    !vm.line || vm.line > VIRTIO_MMIO_MAX_LINE)) ||
            (!ok && (vm.base || vm.size || vm.line)) || ++seen > CMDLINE_MAX)
            abort();
    }
    for (int max = 0; max <= 8; max++) {
        int argc = cmdline_argv("app", argv, max);

        if (argc < 0 || (max > 0 && argc >= max) || (max > 0 && argv[argc]))
            abort();
        for (int i = 0; i < argc; i++)
            (void)strlen(argv[i]);
    }
    return 0;
}
