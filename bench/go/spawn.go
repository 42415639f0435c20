// The workloads that exercise the scheduler alone: spawning (from one
// goroutine and from every P at once) and yielding.  A spawner never
// yields: Go's sysmon preempts it after a quantum, as Spindle's timer
// does, so the goroutines it made run before too many pile up.

package main

import (
	"fmt"
	"runtime"
	"sync/atomic"
	"time"
)

const (
	nSpawn = 1000000
	nYield = 1000000
)

// ---- spawn: 1,000,000 goroutines from one -------------------------------

// spawnN starts n goroutines whose whole work is one atomic decrement
// (the countdown's).
func spawnN(cd *countdown, n int) {
	for i := 0; i < n; i++ {
		go cd.hit()
	}
}

func spawnDone(name string, cd *countdown) bool {
	if left := cd.left.Load(); left != 0 {
		fmt.Printf("# ERROR %s: %d of %d Gs ran\n", name, nSpawn-left, nSpawn)
		return false
	}
	return true
}

func benchSpawn(out *figures) bool {
	cd := newCountdown(nSpawn)
	t0 := time.Now()
	spawnN(cd, nSpawn)
	cd.wait()
	out[0] = since(t0) / nSpawn
	return spawnDone("spawn", cd)
}

// ---- spawn_par: ncpu spawners, 1,000,000 goroutines in all --------------

func benchSpawnPar(out *figures) bool {
	n := ncpu()
	cd := newCountdown(nSpawn)
	t0 := time.Now()
	for p := 0; p < n; p++ {
		go spawnN(cd, share(nSpawn, n, p))
	}
	cd.wait()
	out[0] = since(t0) / nSpawn
	return spawnDone("spawn_par", cd)
}

// ---- yield: 2*ncpu goroutines, 1,000,000 yields in all ------------------

func yielder(cd *countdown, n int, total *atomic.Int64) {
	for i := 0; i < n; i++ {
		runtime.Gosched()
	}
	total.Add(int64(n))
	cd.hit()
}

func benchYield(out *figures) bool {
	ng := 2 * ncpu()
	cd := newCountdown(ng)
	var total atomic.Int64
	t0 := time.Now()
	for i := 0; i < ng; i++ {
		go yielder(cd, share(nYield, ng, i), &total)
	}
	cd.wait()
	out[0] = since(t0) / nYield
	if total.Load() != nYield {
		fmt.Printf("# ERROR yield: %d yields, want %d\n", total.Load(), nYield)
		return false
	}
	return true
}
