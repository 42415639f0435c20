/*
 * stack_clash - a frame larger than what is left of the stack: main (G
 * 1), with 8 MiB of stack, calls a function whose one array needs 1, 2
 * or 20 pages more than the whole stack (`-- pages=N`, test.conf).
 * Without probes the frame would step over the guard page into the
 * stack below it; each page the frame spans is probed as it grows
 * (-fstack-clash-protection), so the first probe past the stack hits the
 * guard and the panic says stack overflow, naming the goroutine and its
 * stack's size.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STACK (8 * 1024 * 1024)
#define PAGE  4096

/* One array per size, so that each is a frame of fixed size, as a C
   program's large local array is. */
#define BIG(n)                                                          \
    static __attribute__((noinline)) int big##n(int v)                  \
    {                                                                   \
        volatile char a[STACK + (n) * PAGE];                            \
                                                                        \
        a[sizeof a - 1] = (char)v;                                      \
        a[0] = (char)v;                                                 \
        return a[0] + a[sizeof a - 1];                                  \
    }
BIG(1)
BIG(2)
BIG(20)

int main(int argc, char **argv)
{
    int pages = 0;

    for (int i = 1; i < argc; i++)
        if (!strncmp(argv[i], "pages=", 6))
            pages = atoi(argv[i] + 6);
    printf("stack_clash: a frame %d pages past a %d KiB stack\n", pages,
           STACK / 1024);
    switch (pages) {
    case 1:
        return big1(1) == 99;
    case 2:
        return big2(2) == 99;
    case 20:
        return big20(3) == 99;
    }
    printf("stack_clash: pages=%d is not 1, 2 or 20\n", pages);
    return 2;
}
