// What a parked goroutine costs: n goroutines each blocked in a receive
// on one channel, the memory they hold while they wait (the heap and the
// stacks in use, runtime.MemStats), and the time to start them and get
// every one to its receive.  As bench/park.c: 1,000,000 goroutines,
// the memory from the first repetition (later ones reuse the first's g
// structs and stacks).

package main

import (
	"fmt"
	"runtime"
	"sync/atomic"
	"time"
)

const nPark = 1000000

var parkFirstBytes float64

func inUse() uint64 {
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse + m.StackInuse
}

func benchPark(out *figures) bool {
	ch := make(chan int)
	parked := newCountdown(nPark)
	done := newCountdown(nPark)
	var bad atomic.Int64
	runtime.GC()
	before := inUse()
	t0 := time.Now()
	for i := 0; i < nPark; i++ {
		go func() {
			parked.hit()
			if _, ok := <-ch; ok {
				bad.Add(1)
			}
			done.hit()
		}()
	}
	parked.wait()
	ns := since(t0)
	for i := 0; i < 100; i++ {
		runtime.Gosched()
	}
	held := inUse() - before
	close(ch)
	done.wait()
	fmt.Printf("# park: %d goroutines, %d bytes of heap and stacks in use for them while parked\n",
		nPark, held)
	if bad.Load() != 0 {
		fmt.Printf("# ERROR park: %d receives on the closed channel got a value\n", bad.Load())
		return false
	}
	if parkFirstBytes == 0 {
		parkFirstBytes = float64(held) / nPark
	}
	out[0] = parkFirstBytes
	out[1] = ns / nPark
	return true
}
