/*
 * faultinject_cfg_test.c - host unit test for kernel/faultinject_cfg.c: the fault=
 * forms (the link faults' among them), several items, and values out of
 * range or malformed (each left out with a reason, the good ones kept).
 */
#include <string.h>
#include "harness.h"
#include "kernel/faultinject_cfg.h"

static struct faultcfg cfg;
static char err[200];

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

TEST(link_forms)
{
    CHECK(parse("rxdrop:50") == 1 && cfg.rx.drop == 50 && !cfg.tx.drop &&
          !err[0] && faultcfg_link_any(&cfg) && faultcfg_any(&cfg));
    CHECK(parse("txdrop:1000") == 1 && cfg.tx.drop == 1000 && !cfg.rx.drop);
    CHECK(parse("rxdup:20") == 1 && cfg.rx.dup == 20);
    CHECK(parse("txdup:1") == 1 && cfg.tx.dup == 1);
    CHECK(parse("rxcorrupt:10") == 1 && cfg.rx.corrupt == 10);
    CHECK(parse("txcorrupt:7") == 1 && cfg.tx.corrupt == 7);
    /* Reorder's hold: FAULT_HOLD_US unless given. */
    CHECK(parse("rxreorder:50") == 1 && cfg.rx.reorder == 50 &&
          cfg.rx.hold_us == FAULT_HOLD_US && !cfg.tx.reorder);
    CHECK(parse("txreorder:30:500") == 1 && cfg.tx.reorder == 30 &&
          cfg.tx.hold_us == 500 && !cfg.rx.reorder);
    CHECK(parse("rxreorder:1:1000000") == 1 && cfg.rx.hold_us == 1000000);
    /* The others are not link faults. */
    CHECK(parse("alloc:5,stall:3") == 2 && !faultcfg_link_any(&cfg));
}

TEST(link_all_together)
{
    CHECK(parse("rxdrop:50,txdrop:50,rxdup:20,txdup:20,rxreorder:50,"
                "txreorder:50:3000,rxcorrupt:10,txcorrupt:10,timer:5:100") == 9);
    CHECK(!err[0]);
    CHECK(cfg.rx.drop == 50 && cfg.tx.drop == 50 && cfg.rx.dup == 20 &&
          cfg.tx.dup == 20 && cfg.rx.reorder == 50 && cfg.tx.reorder == 50 &&
          cfg.rx.hold_us == FAULT_HOLD_US && cfg.tx.hold_us == 3000 &&
          cfg.rx.corrupt == 10 && cfg.tx.corrupt == 10 && cfg.timer_pct == 5);
    /* A later item for the same fault wins. */
    CHECK(parse("rxdrop:5,rxdrop:7") == 2 && cfg.rx.drop == 7);
}

TEST(link_malformed_left_out)
{
    CHECK(parse("rxdrop:1001") == 0 && !cfg.rx.drop && strstr(err,
          "'rxdrop:1001'") && strstr(err, "reorder:PERMILLE[:US]"));
    CHECK(parse("rxdrop:0") == 0 && !faultcfg_any(&cfg) && err[0]);
    CHECK(parse("txdup:") == 0 && err[0]);
    CHECK(parse("txdup") == 0 && err[0]);
    CHECK(parse("rxdrop:5x") == 0 && !cfg.rx.drop);
    CHECK(parse("rxdrop:5:6") == 0 && !cfg.rx.drop);
    CHECK(parse("rxcorrupt:-1") == 0);
    CHECK(parse("rxreorder:50:0") == 0 && !cfg.rx.reorder);
    CHECK(parse("rxreorder:50:1000001") == 0 && !cfg.rx.reorder);
    CHECK(parse("rxreorder:50:") == 0 && !cfg.rx.reorder);
    CHECK(parse("rxreorder:50:10:10") == 0 && !cfg.rx.reorder);
    CHECK(parse("rx:50") == 0 && err[0]);
    CHECK(parse("rxdropx:5") == 0);
    CHECK(parse("xxdrop:5") == 0);
    CHECK(parse("rxdelay:5:100") == 0 && strstr(err, "'rxdelay:5:100'"));
    /* The good items beside a bad one stay. */
    CHECK(parse("rxdup:2,txbogus:1,txdrop:9") == 2 && cfg.rx.dup == 2 &&
          cfg.tx.drop == 9 && strstr(err, "'txbogus:1'"));
    CHECK(parse("rxreorder:40:0,txreorder:40") == 1 && !cfg.rx.reorder &&
          cfg.tx.reorder == 40 && cfg.tx.hold_us == FAULT_HOLD_US);
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
