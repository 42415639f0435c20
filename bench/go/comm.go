// The workloads where goroutines talk: unbuffered ping-pong, fan-in over
// a buffered channel, and one contended mutex.

package main

import (
	"fmt"
	"sync"
	"time"
)

// ---- pingpong: 1,000,000 round trips over two unbuffered channels -------

const nTrips = 1000000

// pinger sends i and expects i+1 back; it counts the wrong replies in
// *bad, which the waiter reads after the countdown.
func pinger(ping chan<- int, pong <-chan int, bad *int, cd *countdown) {
	for i := 0; i < nTrips; i++ {
		ping <- i
		if v := <-pong; v != i+1 {
			*bad++
		}
	}
	cd.hit()
}

func ponger(ping <-chan int, pong chan<- int, cd *countdown) {
	for i := 0; i < nTrips; i++ {
		pong <- <-ping + 1
	}
	cd.hit()
}

func benchPingpong(out *figures) bool {
	ping, pong := make(chan int), make(chan int)
	cd := newCountdown(2)
	bad := 0
	t0 := time.Now()
	go ponger(ping, pong, cd)
	go pinger(ping, pong, &bad, cd)
	cd.wait()
	out[0] = since(t0) / (2 * nTrips) // two one-way switches a trip
	if bad != 0 {
		fmt.Printf("# ERROR pingpong: %d of %d replies wrong\n", bad, nTrips)
		return false
	}
	return true
}

// ---- chan_fanin: 8 producers, 1 consumer, capacity 128 ------------------

const (
	nProd    = 8
	nMsg     = 1000000
	fanInCap = 128
	perProd  = nMsg / nProd // nMsg is a multiple of nProd
)

// producer p sends p*perProd .. (p+1)*perProd-1, in order.
func producer(c chan<- int, p int) {
	for v := p * perProd; v < (p+1)*perProd; v++ {
		c <- v
	}
}

// fanin is what the consumer found: the sum of the values and how many
// overtook a later value of the same producer.
type fanin struct {
	sum, misordered int
}

func consumer(c <-chan int, f *fanin, cd *countdown) {
	var last [nProd]int
	for p := range last {
		last[p] = -1
	}
	for i := 0; i < nMsg; i++ {
		v := <-c
		f.sum += v
		if v <= last[v/perProd] {
			f.misordered++
		}
		last[v/perProd] = v
	}
	cd.hit()
}

func benchChanFanin(out *figures) bool {
	c := make(chan int, fanInCap)
	cd := newCountdown(1) // the consumer's
	var f fanin
	const want = nMsg * (nMsg - 1) / 2
	t0 := time.Now()
	go consumer(c, &f, cd)
	for p := 0; p < nProd; p++ {
		go producer(c, p)
	}
	cd.wait()
	out[0] = since(t0) / nMsg
	if f.sum != want || f.misordered != 0 {
		fmt.Printf("# ERROR chan_fanin: sum %d, want %d; %d values out of "+
			"their producer's order\n", f.sum, want, f.misordered)
		return false
	}
	return true
}

// ---- mutex: 4*ncpu goroutines, 4,000,000 locks in all -------------------

const nLocks = 4000000

type mutexBench struct {
	mu      sync.Mutex
	counter int // under mu
}

func locker(m *mutexBench, n int, cd *countdown) {
	for i := 0; i < n; i++ {
		m.mu.Lock()
		m.counter++
		m.mu.Unlock()
	}
	cd.hit()
}

func benchMutex(out *figures) bool {
	ng := 4 * ncpu()
	var m mutexBench
	cd := newCountdown(ng)
	t0 := time.Now()
	for i := 0; i < ng; i++ {
		go locker(&m, share(nLocks, ng, i), cd)
	}
	cd.wait()
	out[0] = since(t0) / nLocks
	if m.counter != nLocks {
		fmt.Printf("# ERROR mutex: counter %d after %d locked increments\n",
			m.counter, nLocks)
		return false
	}
	return true
}
