/*
 * vmimpl.h - what vm.c and vmbig.c share and nothing else.
 */
#ifndef KERNEL_VMIMPL_H
#define KERNEL_VMIMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "kernel/spinlock.h"

/* Serializes the kernel's page table changes (arch_map_page's rule) and
   the areas' bookkeeping. */
extern struct spinlock vm_lock;

/* Maps fresh zeroed pages over [va, va + n pages); returns how many it
   mapped (fewer than n when memory ran out).  Under vm_lock. */
size_t vm_map_fresh(uintptr_t va, size_t n);

/* vm_fault for va in the big stack area: maps the page if it lies on a
   stack in use.  Interrupts off, no spinlock held. */
bool vm_bigstack_fault(uintptr_t va);

/* vm_is_stack_guard for va in the big stack area. */
bool vm_bigstack_guard(uintptr_t va, size_t *size);

#endif
