/*
 * mq - tests/net/tcp's cases on a multiqueue NIC: a queue pair per core
 * with receive-side scaling, on a TAP device in a network namespace of
 * the runner's (test.conf: `net peer tap`, `queues smp`).  The runner
 * passes queues=N, which one_core_per_connection checks the NIC has;
 * that case and tcp_echo_1000's share check are where the queues show.
 */
#include "../tcp/main.c"
