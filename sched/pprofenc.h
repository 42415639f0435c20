/*
 * pprofenc.h - pprof's profile format built in the kernel: profile.proto
 * (github.com/google/pprof/proto/profile.proto), gzipped, what Go's
 * runtime/pprof writes and `go tool pprof` reads.  The CPU profiler's
 * window (sp_profile_stop_pprof, profile.c) and the goroutine profile
 * (gdump.c) are written with it, so that /debug/pprof answers over HTTP
 * as Go's net/http/pprof does.
 *
 * Addresses are named by a symbolizer the caller gives: the kernel's is
 * the image's symbol table (kernel/ksym.c), so a profile has functions
 * but no files or lines.  tools/run/pprof.py, which `make profile` runs
 * on the console dump, has the image's DWARF for those.
 *
 * A builder belongs to one G and allocates from the heap.  Running out
 * of memory is remembered: later calls do nothing and pprof_finish
 * returns -ENOMEM.
 */
#ifndef SCHED_PPROFENC_H
#define SCHED_PPROFENC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <spindle/profile.h>

/* The function containing pc and its first address (*start), or NULL
   if pc lies in no function the image knows. */
typedef const char *(*pprof_symbolizer)(uint64_t pc, uint64_t *start);

struct pprof_type {
    const char *type, *unit;    /* "cpu", "nanoseconds" */
};

/* A label of a sample: a string (str) or a number (str NULL, num with
   its unit, which may be NULL). */
struct pprof_label {
    const char *key;
    const char *str;
    int64_t num;
    const char *unit;
};

struct pprof;

/*
 * A builder of a profile whose samples carry ntypes values of the given
 * types, with the period given in period_type (NULL: none).  The image's
 * code is [text_lo, text_hi): one mapping, named `image`; an address
 * outside it gets a location of no mapping and function "[unknown]".
 * NULL without memory.
 */
struct pprof *pprof_new(const struct pprof_type *types, int ntypes,
                        const struct pprof_type *period_type, int64_t period,
                        uint64_t text_lo, uint64_t text_hi, const char *image,
                        pprof_symbolizer sym);

/* The location of program counter pc (its id, for pprof_sample): leaf
   says it is where the code was stopped rather than a return address,
   which is named by the call before it. */
uint64_t pprof_pc(struct pprof *p, uint64_t pc, bool leaf);

/* The location of a frame that stands for no code: "[idle]" and such. */
uint64_t pprof_pseudo(struct pprof *p, const char *name);

/* A sample of the locations locs (leaf first) with values[ntypes]. */
void pprof_sample(struct pprof *p, const uint64_t *locs, int nlocs,
                  const int64_t *values, const struct pprof_label *labels,
                  int nlabels);

/*
 * Encodes the profile (time_ns: when it started, Unix nanoseconds;
 * duration_ns: how long it covers) and writes it to w, gzipped, in
 * pieces.  Returns 0, -ENOMEM if the builder ran out of memory at any
 * point (nothing written then), or the first error w returned.
 */
int pprof_finish(struct pprof *p, int64_t time_ns, int64_t duration_ns,
                 sp_profile_writer w, void *arg);

void pprof_free(struct pprof *p);

/* gzip of buf[0..n) with stored (uncompressed) deflate blocks, written to
   w in pieces; 0 or w's first error.  For pprof_finish, and the tests. */
int gzip_stored(const void *buf, size_t n, sp_profile_writer w, void *arg);

#endif
