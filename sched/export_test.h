/*
 * export_test.h - what in-image tests and benchmarks may use of sched/:
 * the one door from tests/ and bench/ into this room (tools/test/
 * includes.py refuses any other sched/ header there).
 *
 * Tests read the scheduler's state (Gs, Ps, idle and spinning counts:
 * sched.h, schedimpl.h), its timers (timers.h) and the network poller's
 * counters (netpoll.h); the tracer's benchmark calls its hook (exectrace.h),
 * the profiler's its sampler (profile.h).
 */
#ifndef SCHED_EXPORT_TEST_H
#define SCHED_EXPORT_TEST_H

#include "sched/exectrace.h"
#include "sched/netpoll.h"
#include "sched/profile.h"
#include "sched/sched.h"
#include "sched/schedimpl.h"
#include "sched/timers.h"

#endif
