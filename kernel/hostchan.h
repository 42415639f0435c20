/*
 * hostchan.h - the host channel: a byte stream from the machine to a file
 * on the host, beside the console and much faster than it, for bulk
 * output such as the execution tracer's dump (sched/exectrace.c).
 *
 * Under QEMU it is port 0 of a virtio console that tools/run/qemu.sh adds
 * with TRACE_FILE=PATH, QEMU writing what the port carries to PATH;
 * drivers/virtio_console.c implements this interface, and kernel/main.c
 * probes for the device at start-up, before main() runs.  A machine
 * without one (no such device, the hosted build) has no channel.
 *
 * One writer at a time: the caller serializes every call (the tracer's
 * flush is one at a time).  From a G, or the boot path.
 */
#ifndef KERNEL_HOSTCHAN_H
#define KERNEL_HOSTCHAN_H

#include <stdbool.h>
#include <stddef.h>

/* True if the machine has a host channel that has not failed. */
bool hostchan_present(void);

/*
 * Queues n bytes for the host, in order after the bytes before them;
 * they may wait in the channel's buffer until it fills or
 * hostchan_flush.  False if the channel is absent or failed (said on the
 * console once): the bytes are lost.
 */
bool hostchan_write(const void *buf, size_t n);

/* Hands every queued byte to the host and waits until it has them all;
   false as for hostchan_write. */
bool hostchan_flush(void);

#endif
