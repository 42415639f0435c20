/*
 * faultinject_cfg.c - parsing fault= (faultinject_cfg.h).
 */
#include "kernel/faultinject_cfg.h"
#include "kernel/fmt.h"

/* Reads a decimal number in [1, max] from *s up to ':' , ',' or the end;
   advances *s past it.  False if there is none, or it is out of range. */
static bool number(const char **s, uint32_t max, uint32_t *out)
{
    uint64_t v = 0;
    const char *p = *s;

    if (*p < '0' || *p > '9')
        return false;
    for (; *p >= '0' && *p <= '9'; p++) {
        v = v * 10 + (uint64_t)(*p - '0');
        if (v > max)
            return false;
    }
    if (*p && *p != ':' && *p != ',')
        return false;
    if (v < 1)
        return false;
    *s = p;
    *out = (uint32_t)v;
    return true;
}

/* Reads ":N" with N in [1, max]. */
static bool field(const char **s, uint32_t max, uint32_t *out)
{
    if (**s != ':')
        return false;
    (*s)++;
    return number(s, max, out);
}

static bool starts(const char **s, const char *word)
{
    const char *p = *s;

    for (; *word; word++, p++)
        if (*p != *word)
            return false;
    *s = p;
    return true;
}

/* The link fault named at *s ("drop:50", after rx or tx) into l. */
static bool link_item(const char **s, struct faultlink *l)
{
    uint32_t a, b = FAULT_HOLD_US;

    if (starts(s, "drop") && field(s, FAULT_ALLOC_MAX, &a))
        l->drop = a;
    else if (starts(s, "dup") && field(s, FAULT_ALLOC_MAX, &a))
        l->dup = a;
    else if (starts(s, "corrupt") && field(s, FAULT_ALLOC_MAX, &a))
        l->corrupt = a;
    else if (starts(s, "reorder") && field(s, FAULT_ALLOC_MAX, &a) &&
             (**s != ':' || field(s, FAULT_HOLD_US_MAX, &b))) {
        l->reorder = a;
        l->hold_us = b;
    } else {
        return false;
    }
    return true;
}

/* One item at *s, into cfg; false if it is not one of the forms. */
static bool item(const char **s, struct faultcfg *cfg)
{
    uint32_t a, b;

    if (starts(s, "rx")) {
        if (!link_item(s, &cfg->rx))
            return false;
    } else if (starts(s, "tx")) {
        if (!link_item(s, &cfg->tx))
            return false;
    } else if (starts(s, "alloc") && field(s, FAULT_ALLOC_MAX, &a)) {
        cfg->alloc_permille = a;
    } else if (starts(s, "ipi") && field(s, FAULT_PCT_MAX, &a) &&
               field(s, FAULT_IPI_MS_MAX, &b)) {
        cfg->ipi_pct = a;
        cfg->ipi_ms = b;
    } else if (starts(s, "timer") && field(s, FAULT_PCT_MAX, &a) &&
               field(s, FAULT_TIMER_US_MAX, &b)) {
        cfg->timer_pct = a;
        cfg->timer_us = b;
    } else if (starts(s, "stall") && field(s, FAULT_STALL_US_MAX, &a)) {
        cfg->stall_us = a;
    } else {
        return false;
    }
    return **s == ',' || **s == 0;
}

int faultcfg_parse(const char *spec, struct faultcfg *cfg, char *err,
                   size_t errlen)
{
    int taken = 0;

    *cfg = (struct faultcfg){ 0 };
    if (errlen)
        err[0] = 0;
    while (*spec) {
        const char *start = spec, *p = spec;
        struct faultcfg one = *cfg;

        if (item(&p, &one)) {
            *cfg = one;
            taken++;
        } else if (errlen && !err[0]) {
            size_t n = 0;

            while (start[n] && start[n] != ',')
                n++;
            fmt_snprintf(err, errlen, "'%.*s' is not alloc:PERMILLE (1-%d), "
                         "ipi:PCT:MS, timer:PCT:US, stall:US, "
                         "{rx,tx}{drop,dup,corrupt}:PERMILLE or "
                         "{rx,tx}reorder:PERMILLE[:US]", (int)n, start,
                         FAULT_ALLOC_MAX);
        }
        /* On to the next item, whatever became of this one. */
        for (spec = start; *spec && *spec != ','; spec++)
            ;
        if (*spec == ',')
            spec++;
    }
    return taken;
}

static bool link_any(const struct faultlink *l)
{
    return l->drop || l->dup || l->corrupt || l->reorder;
}

bool faultcfg_link_any(const struct faultcfg *cfg)
{
    return link_any(&cfg->rx) || link_any(&cfg->tx);
}

bool faultcfg_any(const struct faultcfg *cfg)
{
    return cfg->alloc_permille || cfg->ipi_pct || cfg->timer_pct ||
           cfg->stall_us || faultcfg_link_any(cfg);
}
