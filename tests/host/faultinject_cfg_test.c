/*
 * faultinject_cfg_test.c - host unit test for kernel/faultinject_cfg.c: the fault=
 * forms, several items, and values out of range or malformed (each left
 * out with a reason, the good ones kept).
 */
#include <string.h>
#include "harness.h"
#include "kernel/faultinject_cfg.h"

static struct faultcfg cfg;
static char err[160];

static int parse(const char *spec)
{
    return faultcfg_parse(spec, &cfg, err, sizeof err);
}

TEST(each_form)
{
    CHECK(parse("alloc:20") == 1 && cfg.alloc_permille == 20 && !err[0]);
    CHECK(parse("ipi:50:5") == 1 && cfg.ipi_pct == 50 && cfg.ipi_ms == 5);
    CHECK(parse("timer:10:3000") == 1 && cfg.timer_pct == 10 &&
          cfg.timer_us == 3000);
    CHECK(parse("stall:500") == 1 && cfg.stall_us == 500);
    CHECK(faultcfg_any(&cfg));
}

TEST(several_items)
{
    CHECK(parse("ipi:20:5,timer:10:2000,alloc:1000") == 3);
    CHECK(cfg.ipi_pct == 20 && cfg.timer_us == 2000 &&
          cfg.alloc_permille == 1000 && !cfg.stall_us && !err[0]);
}

TEST(bounds)
{
    CHECK(parse("alloc:1000") == 1);
    CHECK(parse("alloc:1001") == 0 && !cfg.alloc_permille && err[0]);
    CHECK(parse("alloc:0") == 0 && err[0]);
    CHECK(parse("ipi:101:5") == 0 && !cfg.ipi_pct);
    CHECK(parse("ipi:100:1001") == 0 && !cfg.ipi_pct);
    CHECK(parse("timer:1:100000") == 1 && cfg.timer_us == 100000);
    CHECK(parse("timer:1:100001") == 0);
    CHECK(parse("stall:99999999999999999999") == 0 && !cfg.stall_us);
}

TEST(malformed_left_out_others_kept)
{
    CHECK(parse("bogus:1,stall:7") == 1 && cfg.stall_us == 7);
    CHECK(strstr(err, "'bogus:1'") != NULL);
    CHECK(parse("alloc:5x,ipi:1:1") == 1 && !cfg.alloc_permille &&
          cfg.ipi_pct == 1 && strstr(err, "'alloc:5x'"));
    CHECK(parse("ipi:5") == 0 && !cfg.ipi_pct && err[0]);
    CHECK(parse("alloc:-3") == 0);
    CHECK(parse("alloc") == 0);
    CHECK(parse("alloc:") == 0);
    CHECK(parse("allocx:5") == 0);
    CHECK(parse(",,") == 0 && !faultcfg_any(&cfg));
    CHECK(parse("") == 0 && !err[0] && !faultcfg_any(&cfg));
}

TEST(first_error_kept)
{
    CHECK(parse("a,b,alloc:3") == 1 && strstr(err, "'a'") && !strstr(err, "'b'"));
}

TEST(short_error_buffer)
{
    char small[8];

    CHECK(faultcfg_parse("nonsense", &cfg, small, sizeof small) == 0);
    CHECK(strlen(small) == sizeof small - 1);
    CHECK(faultcfg_parse("nonsense,alloc:1", &cfg, NULL, 0) == 1);
}

int main(int argc, char **argv)
{
    return h_run(argc, argv);
}
