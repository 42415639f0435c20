/*
 * export_test.h - what in-image tests and benchmarks may use of arch/:
 * the one door from tests/ and bench/ into this room (tools/test/
 * includes.py refuses any other arch/ header there).
 *
 * Tests read the cycle counter, turn interrupts off around a stretch,
 * and spin with arch_pause, as the kernel does.
 */
#ifndef ARCH_EXPORT_TEST_H
#define ARCH_EXPORT_TEST_H

#include "arch/arch.h"

#endif
