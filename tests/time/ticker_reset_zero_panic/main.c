/*
 * ticker_reset_zero_panic - resetting a ticker to a 0 interval panics in
 * Go's words (test.conf), as Ticker.Reset does.
 */
#include <spindle/time.h>

int main(void)
{
    sp_ticker *k = sp_ticker_new(SP_MS(10));

    sp_timer_reset(k, 0);
    return 0;
}
