/*
 * hello - the smallest Spindle app: the kernel has brought every core
 * online (each printed its line) before main runs; main says hello with
 * newlib's printf and returns, and its return value ends the machine.
 */
#include <stdio.h>
#include <spindle/cpu.h>

int main(int argc, char **argv)
{
    printf("hello from main() on core %d of %d\n", sp_cpu_id(), sp_ncpu());
    for (int i = 1; i < argc; i++)
        printf("argv[%d] = %s\n", i, argv[i]);
    return 0;
}
