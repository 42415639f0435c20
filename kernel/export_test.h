/*
 * export_test.h - what in-image tests and benchmarks may use of kernel/:
 * the one door from tests/ and bench/ into this room (tools/test/
 * includes.py refuses any other kernel/ header there).
 *
 * Tests look at the cores (cpu.h), the page allocator's counts and the
 * virtual areas (mem.h, vm.h), spinlocks and their lock order, the
 * command line, the console (its output, and the Ctrl-\ count of
 * console_in.h), the panic path and the packed file tree (initrd.h,
 * with crc32.h to check it), and arm injected faults (faultinject.h).
 */
#ifndef KERNEL_EXPORT_TEST_H
#define KERNEL_EXPORT_TEST_H

#include "kernel/cmdline.h"
#include "kernel/console_in.h"
#include "kernel/cpu.h"
#include "kernel/crc32.h"
#include "kernel/faultinject.h"
#include "kernel/initrd.h"
#include "kernel/mem.h"
#include "kernel/panic.h"
#include "kernel/printk.h"
#include "kernel/spinlock.h"
#include "kernel/vm.h"

#endif
