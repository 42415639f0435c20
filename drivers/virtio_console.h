/*
 * virtio_console.h - the virtio console device (virtio 1.2 §5.3) as the
 * host channel of kernel/hostchan.h, which it implements: port 0's
 * transmit queue alone, polled.
 */
#ifndef DRIVERS_VIRTIO_CONSOLE_H
#define DRIVERS_VIRTIO_CONSOLE_H

#include <stdbool.h>

/*
 * Finds the first virtio console on PCI (pci_init first), else on
 * virtio-mmio, and makes it the host channel; false if there is none
 * usable (said on the console if one was found).  From the boot path or
 * a G, once.
 */
bool vcons_probe(void);

#endif
