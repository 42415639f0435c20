/*
 * fp_aarch64.h - the preempt test's FP workload on aarch64: scalar
 * double, packed NEON doubles and floats, and a 128-bit long double
 * (software quad through libgcc, so integer registers too) live across
 * a long loop that calls nothing that could yield.  Half the runs round
 * toward zero (FPCR.RMode), so a G that got another G's FPCR (or the
 * default) computes other bits; the sticky flags of FPSR are compared
 * as well.
 */
#include <arm_neon.h>
#include <string.h>

#define FP_CSR_NAME "fpcr"

struct fpres {
    double x;
    float64x2_t a, b, c;
    float32x4_t f;
    long double ld;
    uint32_t csr, sr;
};

#define RMODE_MASK (3u << 22)
#define RMODE_NEAREST 0
#define RMODE_ZERO (3u << 22)

/* The control word a voluntary switch keeps per G, and its rounding
   field: fp_csr_round(true) rounds toward zero, (false) to nearest. */
static inline uint32_t fp_csr_get(void)
{
    return __builtin_aarch64_get_fpcr();
}

static inline void fp_csr_set(uint32_t v)
{
    __builtin_aarch64_set_fpcr(v);
}

static inline uint32_t fp_csr_round(uint32_t csr, bool zero)
{
    return (csr & ~RMODE_MASK) | (zero ? RMODE_ZERO : RMODE_NEAREST);
}

static void fp_work(int seed, long iters, struct fpres *out)
{
    uint32_t saved = __builtin_aarch64_get_fpcr();
    uint32_t rc = seed % 2 ? RMODE_ZERO : RMODE_NEAREST;
    double x = 1.0 + seed / 16.0;
    float64x2_t a = { seed + 0.25, seed + 0.5 };
    float64x2_t b = { 2.0 / (seed + 5), 1.0 / (seed + 3) };
    float64x2_t c = vdupq_n_f64(0.0);
    float64x2_t ka = { 1.0000001, 0.9999999 };
    float32x4_t f = { 3.0f, 2.0f, 1.0f, (float)seed };
    float32x4_t kf = vdupq_n_f32(0.999999f);
    long double ld = seed;

    __builtin_aarch64_set_fpsr(0);
    __builtin_aarch64_set_fpcr((saved & ~RMODE_MASK) | rc);
    for (long i = 1; i <= iters; i++) {
        double s = __builtin_sqrt((double)i);

        x = x * 1.0000001 + s;
        a = vaddq_f64(vmulq_f64(a, ka), vdupq_n_f64(s * 1e-3));
        b = vsqrtq_f64(vaddq_f64(vmulq_f64(b, b), vdupq_n_f64(1e-9)));
        c = vaddq_f64(c, vdivq_f64(a, vaddq_f64(b, vdupq_n_f64(x))));
        f = vaddq_f32(vmulq_f32(f, kf), vdupq_n_f32((float)s));
        if (i % 64 == 0)        /* soft-float quad is slow; keep it busy */
            ld = ld * 0.99999999L + (long double)x / (long double)i;
        if (x > 1e12)
            x *= 1e-6;          /* keep it finite; the bits stay busy */
    }
    out->csr = __builtin_aarch64_get_fpcr();
    out->sr = __builtin_aarch64_get_fpsr();
    __builtin_aarch64_set_fpcr(saved);
    out->x = x;
    out->a = a;
    out->b = b;
    out->c = c;
    out->f = f;
    out->ld = ld;
}

static bool fp_equal(const struct fpres *p, const struct fpres *q)
{
    return !memcmp(&p->x, &q->x, sizeof p->x) &&
           !memcmp(&p->a, &q->a, sizeof p->a) &&
           !memcmp(&p->b, &q->b, sizeof p->b) &&
           !memcmp(&p->c, &q->c, sizeof p->c) &&
           !memcmp(&p->f, &q->f, sizeof p->f) &&
           !memcmp(&p->ld, &q->ld, sizeof p->ld) && p->csr == q->csr &&
           p->sr == q->sr;
}
