/*
 * fp_x86_64.h - the preempt test's FP workload on x86_64: x87, scalar SSE
 * and packed SSE values live in registers across a long loop that calls
 * nothing that could yield.  Half the runs use a rounding mode other
 * than the default in MXCSR, so a G that got another G's MXCSR (or the
 * default) computes other bits.
 */
#include <emmintrin.h>
#include <string.h>

#define FP_CSR_NAME "mxcsr"

struct fpres {
    double x;
    __m128d a, b, c;
    __m128 f;
    long double ld;
    uint32_t csr;
};

#define RC_NEAREST 0x0000
#define RC_ZERO 0x6000

/* The control word a voluntary switch keeps per G (MXCSR without its
   sticky exception flags, bits 0-5, which any division may set), and
   its rounding field: fp_csr_round(true) rounds toward zero, (false) to
   nearest. */
static inline uint32_t fp_csr_get(void)
{
    return _mm_getcsr() & ~0x3Fu;
}

static inline void fp_csr_set(uint32_t v)
{
    _mm_setcsr(v);
}

static inline uint32_t fp_csr_round(uint32_t csr, bool zero)
{
    return (csr & ~0x6000u) | (zero ? RC_ZERO : RC_NEAREST);
}

static void fp_work(int seed, long iters, struct fpres *out)
{
    uint32_t saved = _mm_getcsr();
    uint32_t rc = seed % 2 ? RC_ZERO : RC_NEAREST;
    double x = 1.0 + seed / 16.0;
    __m128d a = _mm_set_pd(seed + 0.5, seed + 0.25);
    __m128d b = _mm_set_pd(1.0 / (seed + 3), 2.0 / (seed + 5));
    __m128d c = _mm_set1_pd(0.0);
    __m128d ka = _mm_set_pd(0.9999999, 1.0000001);
    __m128 f = _mm_set_ps(seed, 1.0f, 2.0f, 3.0f);
    __m128 kf = _mm_set1_ps(0.999999f);
    long double ld = seed;

    _mm_setcsr((saved & ~0x6000u) | rc);
    for (long i = 1; i <= iters; i++) {
        double s = __builtin_sqrt((double)i);

        x = x * 1.0000001 + s;
        a = _mm_add_pd(_mm_mul_pd(a, ka), _mm_set1_pd(s * 1e-3));
        b = _mm_sqrt_pd(_mm_add_pd(_mm_mul_pd(b, b), _mm_set1_pd(1e-9)));
        c = _mm_add_pd(c, _mm_div_pd(a, _mm_add_pd(b, _mm_set1_pd(x))));
        f = _mm_add_ps(_mm_mul_ps(f, kf), _mm_set1_ps((float)s));
        ld = ld * 0.99999999L + (long double)x / (long double)i;
        if (x > 1e12)
            x *= 1e-6;          /* keep it finite; the bits stay busy */
    }
    out->csr = _mm_getcsr();
    _mm_setcsr(saved);
    out->x = x;
    out->a = a;
    out->b = b;
    out->c = c;
    out->f = f;
    out->ld = ld;
}

/* The bytes that are results (long double has 6 bytes of padding). */
static bool fp_equal(const struct fpres *p, const struct fpres *q)
{
    return !memcmp(&p->x, &q->x, sizeof p->x) &&
           !memcmp(&p->a, &q->a, sizeof p->a) &&
           !memcmp(&p->b, &q->b, sizeof p->b) &&
           !memcmp(&p->c, &q->c, sizeof p->c) &&
           !memcmp(&p->f, &q->f, sizeof p->f) &&
           !memcmp(&p->ld, &q->ld, 10) && p->csr == q->csr;
}
