// The workloads where goroutines do real work and the scheduler has to
// spread it over the Ps: fork-join fib and skewed spawning.

package main

import (
	"fmt"
	"math"
	"runtime"
	"sort"
	"sync"
	"sync/atomic"
	"time"
)

// ---- fib: fork-join fib(32) ---------------------------------------------

const (
	fibN      = 32
	fibCutoff = 20      // at or below: plain recursion in the goroutine
	fibWant   = 2178309 // fib(32)
)

// fib1Ms is the 1-core fib time in ms (fib1= or measureFib1); 0: unknown.
var fib1Ms float64

// fibSeq is the sequential recursion below the cutoff.  Go never inlines
// a recursive function, so it stays one call per level, as the C
// version's noinline makes it there.
func fibSeq(n int) int {
	if n < 2 {
		return n
	}
	return fibSeq(n-1) + fibSeq(n-2)
}

// fibPar runs both halves of a call above the cutoff as child goroutines
// and waits for them, as bench/compute.c does.
func fibPar(n int) int {
	if n <= fibCutoff {
		return fibSeq(n)
	}
	var wg sync.WaitGroup
	var a, b int
	wg.Add(2)
	go func() { a = fibPar(n - 1); wg.Done() }()
	go func() { b = fibPar(n - 2); wg.Done() }()
	wg.Wait()
	return a + b
}

// fibOnce times one fork-join fib(32) in ms; ok is false (after an
// "# ERROR" line) when the result is wrong.
func fibOnce() (ms float64, ok bool) {
	t0 := time.Now()
	r := fibPar(fibN)
	ms = since(t0) / 1e6
	if r != fibWant {
		fmt.Printf("# ERROR fib: fib(%d) = %d, want %d\n", fibN, r, fibWant)
		return ms, false
	}
	return ms, true
}

// measureFib1 is Go's stand-in for tools/bench/bench.sh's boot at one core:
// the median of reps fib runs at GOMAXPROCS=1, in this process.  It
// returns 0 (no fib_speedup) when a run goes wrong.
func measureFib1(reps int) float64 {
	prev := runtime.GOMAXPROCS(1)
	defer runtime.GOMAXPROCS(prev)
	v := make([]float64, reps)
	for i := range v {
		runtime.GC() // as the harness does before each run
		ms, ok := fibOnce()
		if !ok {
			return 0
		}
		v[i] = ms
	}
	fmt.Printf("# fib at 1 core (GOMAXPROCS=1, this process):")
	for _, ms := range v {
		fmt.Printf(" %.1f", ms)
	}
	fmt.Printf(" ms, median %.1f ms\n", median(v))
	return median(v)
}

func benchFib(out *figures) bool {
	ms, ok := fibOnce()
	out[0] = ms
	if fib1Ms > 0 {
		out[1] = fib1Ms / ms
	}
	return ok
}

// ---- skew: one spawner, 20,000 tasks of ~50 us --------------------------

const (
	skewTasks = 20000
	skewNs    = 50000 // CPU per task
)

var skewIters uint64 // burn(skewIters) takes about skewNs

// burn spins n times.  Go's compiler does not delete loops, empty or not
// (go tool objdump shows this one), and noinline keeps the loop the same
// wherever it is called from.
//
//go:noinline
func burn(n uint64) {
	for i := uint64(0); i < n; i++ {
	}
}

// skewCalibrate calibrates burn while the other Ps are idle, as the C
// version does: it doubles the count until a run takes 2 ms, after one
// untimed run, then keeps the fastest of 20 runs.  A slower run was
// interrupted; the fastest is the loop's real speed.  The tasks time
// themselves, so a calibration that is off makes them longer or shorter
// than 50 us but does not bias skew_eff.
func skewCalibrate() {
	n := uint64(1000)
	var t float64
	burn(n)
	for {
		t0 := time.Now()
		burn(n)
		t = since(t0)
		if t >= 2e6 {
			break
		}
		n *= 2
	}
	best := t
	for i := 0; i < 20; i++ {
		t0 := time.Now()
		burn(n)
		best = math.Min(best, since(t0))
	}
	skewIters = uint64(float64(n) * (skewNs / best))
	fmt.Printf("# skew: spin loop calibrated on one core: %d iterations "+
		"= %d us (fastest of 20 runs of %.1f ms)\n", skewIters, skewNs/1000, best/1e6)
}

// skew collects what the tasks measured: each one's loop time, in finish
// order.  skew_eff counts every task as its own time capped at twice the
// median, for the reasons compute.c gives.
type skew struct {
	cd     *countdown
	taskNs []int64
	ndone  atomic.Int64 // the next free taskNs slot
}

func skewTask(s *skew) {
	t0 := time.Now()
	burn(skewIters)
	s.taskNs[s.ndone.Add(1)-1] = time.Since(t0).Nanoseconds()
	s.cd.hit()
}

// skewSpawner spawns every task without blocking, so the other Ps must
// steal them.
func skewSpawner(s *skew) {
	for i := 0; i < skewTasks; i++ {
		go skewTask(s)
	}
}

func benchSkew(out *figures) bool {
	n := ncpu()
	s := &skew{cd: newCountdown(skewTasks), taskNs: make([]int64, skewTasks)}
	t0 := time.Now()
	go skewSpawner(s)
	s.cd.wait()
	wall := since(t0)
	// Go does not say which P ran a goroutine, so unlike the C version
	// this prints no tasks-per-core line; the count is still checked.
	if done := s.ndone.Load(); done != skewTasks {
		fmt.Printf("# ERROR skew: %d of %d tasks ran\n", done, skewTasks)
		return false
	}
	sort.Slice(s.taskNs, func(i, j int) bool { return s.taskNs[i] < s.taskNs[j] })
	median := float64(s.taskNs[skewTasks/2])
	cpu := 0.0
	for _, t := range s.taskNs {
		cpu += math.Min(float64(t), 2*median)
	}
	out[0] = wall / 1e6
	out[1] = cpu / (wall * float64(n))
	fmt.Printf("# skew: wall %.1f ms, tasks' median %.1f us, capped mean %.1f us, "+
		"max %.1f us; efficiency %.3f (%.3f counting the median a task, "+
		"%.3f counting %d us)\n", out[0], median/1e3, cpu/skewTasks/1e3,
		float64(s.taskNs[skewTasks-1])/1e3, out[1],
		skewTasks*median/(wall*float64(n)),
		skewTasks*skewNs/(wall*float64(n)), skewNs/1000)
	return true
}
