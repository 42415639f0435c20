// The workloads with many live goroutines, from the Benchmarks Game:
// thread-ring and chameneos-redux, as bench/ring.c.

package main

import (
	"fmt"
	"time"
)

// ---- threadring: a token passed around N goroutines ----------------------

// stop travels round the ring once the token has reached 0.
const stop = -1

type ring struct {
	in     []chan int
	cd     *countdown
	tEnd   time.Time // when the token reached 0
	winner int       // the node that received 0
}

// ringNode is node id (1-based): it receives on in[id-1] and sends one
// less on in[id%n].  The node receiving 0 notes the time and its id and
// sends stop round the ring, which every node forwards before exiting,
// except the one whose successor is the winner.
func ringNode(r *ring, id int) {
	n := len(r.in)
	in, out := r.in[id-1], r.in[id%n]
	for {
		t := <-in
		if t == stop {
			if id%n+1 != r.winner {
				out <- t
			}
			break
		}
		if t == 0 {
			r.tEnd = time.Now()
			r.winner = id
			if n > 1 {
				out <- stop
			}
			break
		}
		out <- t - 1
	}
	r.cd.hit()
}

// threadring returns ns per pass of a ring of n goroutines passing the
// token `passes` times, or a negative value after printing an error.
func threadring(name string, n, passes int) float64 {
	r := &ring{in: make([]chan int, n), cd: newCountdown(n)}
	for i := range r.in {
		r.in[i] = make(chan int)
	}
	t0 := time.Now()
	for i := 1; i <= n; i++ {
		go ringNode(r, i)
	}
	r.in[0] <- passes
	r.cd.wait()
	if r.winner != passes%n+1 {
		fmt.Printf("# ERROR %s: node %d received 0, not node %d\n", name,
			r.winner, passes%n+1)
		return -1
	}
	return float64(r.tEnd.Sub(t0).Nanoseconds()) / float64(passes)
}

const (
	ringPasses  = 5000000
	scalePasses = 2000000
)

func benchThreadring(out *figures) bool {
	out[0] = threadring("threadring_503", 503, ringPasses)
	out[1] = threadring("threadring_10007", 10007, ringPasses)
	return out[0] > 0 && out[1] > 0
}

// benchRingScale: how the cost per pass grows with the ring.
func benchRingScale(out *figures) bool {
	sizes := []int{1000, 10000, 100000}
	names := []string{"ring_1k", "ring_10k", "ring_100k"}
	for i := range sizes {
		if out[i] = threadring(names[i], sizes[i], scalePasses); out[i] < 0 {
			return false
		}
	}
	return true
}

// ---- chameneos: creatures meet in pairs at a mall ------------------------

// A creature asks the mall for a meeting with a request naming its
// colour and its reply channel; the mall pairs requests two by two and
// tells each the other's colour.  After `meetings` pairings it answers
// each creature's next request with closed.
const (
	blue = iota
	red
	yellow
	closed = -1
)

type request struct {
	colour, id int
	reply      chan answer // capacity 1
}

type answer struct{ colour, id int }

func complement(a, b int) int {
	if a == b {
		return a
	}
	return 3 - a - b
}

func creature(mall chan request, id, colour int, met []int, cd *countdown) {
	reply := make(chan answer, 1)
	n := 0
	for {
		mall <- request{colour, id, reply}
		a := <-reply
		if a.colour == closed {
			break
		}
		colour = complement(colour, a.colour)
		n++
	}
	met[id] = n
	cd.hit()
}

func runMall(mall chan request, meetings, ncreatures int, cd *countdown) {
	for i := 0; i < meetings; i++ {
		a, b := <-mall, <-mall
		a.reply <- answer{b.colour, b.id}
		b.reply <- answer{a.colour, a.id}
	}
	for i := 0; i < ncreatures; i++ {
		a := <-mall
		a.reply <- answer{closed, -1}
	}
	cd.hit()
}

// chameneos returns ns per meeting of n creatures (colours cycling blue,
// red, yellow) meeting `meetings` times, or a negative value after an
// error.
func chameneos(name string, n, meetings int) float64 {
	mall := make(chan request)
	met := make([]int, n)
	cd := newCountdown(n + 1)
	t0 := time.Now()
	go runMall(mall, meetings, n, cd)
	for i := 0; i < n; i++ {
		go creature(mall, i, i%3, met, cd)
	}
	cd.wait()
	ns := since(t0) / float64(meetings)
	total := 0
	for _, m := range met {
		total += m
	}
	if total != 2*meetings {
		fmt.Printf("# ERROR %s: creatures met %d times, not %d\n", name,
			total, 2*meetings)
		return -1
	}
	return ns
}

const meetings = 600000

func benchChameneos(out *figures) bool {
	out[0] = chameneos("chameneos_3", 3, meetings)
	out[1] = chameneos("chameneos_10", 10, meetings)
	return out[0] > 0 && out[1] > 0
}
