// The timer workloads: many sleepers, and a sleeper beside a CPU hog
// (preemption).
//
//	timers   100,000 goroutines each sleep a random 1-20 ms; the figures
//	         are the wall time until the last one woke, and the mean, p99
//	         and max of how late each woke (actual sleep - requested), in us.
//	preempt  at GOMAXPROCS=1 (the README's benchmark table), a goroutine spins
//	         without calling anything for 2 s while another sleeps 1 ms in
//	         a loop; p99 and max of the sleeper's lateness.  Only
//	         preemption (sysmon's, in Go) lets the sleeper run.

package main

import (
	"fmt"
	"runtime"
	"sort"
	"sync/atomic"
	"time"
)

const (
	nTimers = 100000
	hogTime = 2 * time.Second
	napTime = time.Millisecond
)

// lateness sorts late (ns) and returns its mean, p99 and max in us.
func lateness(late []int64) (mean, p99, max float64) {
	sort.Slice(late, func(i, j int) bool { return late[i] < late[j] })
	sum := 0.0
	for _, l := range late {
		sum += float64(l)
	}
	n := len(late)
	return sum / float64(n) / 1e3, float64(late[n*99/100]) / 1e3,
		float64(late[n-1]) / 1e3
}

// ---- timers -------------------------------------------------------------

// sleepOnce sleeps want and stores how late it woke in *late; a sleep that
// ends early is a bug, counted in *early.
func sleepOnce(want time.Duration, late *int64, early *atomic.Int64, cd *countdown) {
	t0 := time.Now()
	time.Sleep(want)
	slept := time.Since(t0)
	if slept < want {
		early.Add(1)
		slept = want
	}
	*late = int64(slept - want)
	cd.hit()
}

func benchTimers(out *figures) bool {
	late := make([]int64, nTimers)
	var early atomic.Int64
	cd := newCountdown(nTimers)
	// The C version's generator and seed, so both sleep the same times.
	seed := uint64(0x9E3779B97F4A7C15)
	t0 := time.Now()
	for i := range late {
		seed = seed*6364136223846793005 + 1442695040888963407
		want := time.Millisecond + time.Duration((seed>>33)%uint64(19*time.Millisecond))
		go sleepOnce(want, &late[i], &early, cd)
	}
	cd.wait()
	out[0] = since(t0) / 1e6
	out[1], out[2], out[3] = lateness(late)
	if early.Load() != 0 {
		fmt.Printf("# ERROR timers: %d sleeps woke early\n", early.Load())
		return false
	}
	return true
}

// ---- preempt ------------------------------------------------------------

// hog spins until stop is set.  The loop calls nothing, so only
// preemption takes the P from it (async preemption, since Go 1.14).
func hog(stop *atomic.Bool, cd *countdown) {
	for !stop.Load() {
	}
	cd.hit()
}

func benchPreempt(out *figures) bool {
	prev := runtime.GOMAXPROCS(1)
	defer runtime.GOMAXPROCS(prev)

	const max = int(hogTime / napTime)
	late := make([]int64, 0, max)
	var stop atomic.Bool
	nhogs := ncpu() // one a P: 1
	cd := newCountdown(nhogs)
	for i := 0; i < nhogs; i++ {
		go hog(&stop, cd)
	}
	start := time.Now()
	for len(late) < max && time.Since(start) < hogTime {
		t0 := time.Now()
		time.Sleep(napTime)
		if slept := time.Since(t0); slept > napTime {
			late = append(late, int64(slept-napTime))
		} else {
			late = append(late, 0)
		}
	}
	stop.Store(true)
	cd.wait()
	if len(late) == 0 {
		return false
	}
	_, out[0], out[1] = lateness(late)
	fmt.Printf("# preempt: %d naps of 1 ms beside %d hog in 2 s (GOMAXPROCS=1)\n",
		len(late), nhogs)
	return true
}
