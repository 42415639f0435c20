/*
 * ticker_zero_panic - a ticker needs a positive interval: 0, or a
 * negative duration passed as unsigned, panics in Go's words (test.conf),
 * as time.NewTicker does (`-- zero`, `-- neg`).
 */
#include <string.h>
#include <spindle/time.h>

int main(int argc, char **argv)
{
    bool neg = argc > 1 && !strcmp(argv[1], "neg");

    sp_ticker_new(neg ? (uint64_t)-SP_MS(5) : 0);
    return 0;
}
