// Command bench runs the scheduler benchmarks of the README's benchmark table
// written in Go, so that Spindle's figures (bench/*.c) have Go's
// beside them.  Every workload, parameter, name, unit and check is the C
// app's; only the language differs.  `make bench-go` builds it, runs it
// with GOMAXPROCS set to Spindle's core count, and tabulates both.
//
// Protocol (as bench/main.c).  Every workload runs `reps` times (3
// unless reps=N), one after the other, from the main goroutine, with
// nothing else running; each run times itself from before its first
// spawn until the goroutine waiting for the last one wakes.  For each
// figure the program prints
//
//	# <name>: <every repetition> <unit>
//	BENCH <name> <median> <unit>
//
// and any other remark as a "# " line.  Each run checks its result
// (counts exact, fib(32) = 2178309, sums of sent values); a wrong one
// prints "# ERROR ...", drops that workload's BENCH lines, and makes the
// exit status 1.
//
// Arguments:
//
//	reps=N        repetitions per workload
//	only=a,b      run only these workloads (names from the table below)
//	fib1=MS       the 1-core fib time, for fib_speedup; without it the
//	              program measures it itself at GOMAXPROCS=1 (what
//	              tools/bench/bench.sh needs a second boot for on Spindle)
//	gomaxprocs=N  the cores to use; otherwise $GOMAXPROCS, otherwise all
//	trace=PATH    every workload with Go's execution tracer on
//	              (runtime/trace), writing to PATH: Go's side of Spindle's
//	              trace= figures
package main

import (
	"fmt"
	"math"
	"os"
	"runtime"
	"runtime/trace"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

const maxReps = 99

// figures is one run's results: figures[0], and more for a workload that
// reports several; NaN means "not measured".
type figures [4]float64

// A workload fills its figures and returns true, or prints
// "# ERROR <name>: ..." and returns false when its result is wrong.
type workload struct {
	key   string // its name for only=
	run   func(out *figures) bool
	names []string // the figures it fills, in order
	units []string
}

var workloads = []workload{
	{"spawn", benchSpawn, []string{"spawn"}, []string{"ns"}},
	{"spawn_par", benchSpawnPar, []string{"spawn_par"}, []string{"ns"}},
	{"pingpong", benchPingpong, []string{"pingpong"}, []string{"ns"}},
	{"yield", benchYield, []string{"yield"}, []string{"ns"}},
	{"fib", benchFib, []string{"fib", "fib_speedup"}, []string{"ms", "x"}},
	{"skew", benchSkew, []string{"skew", "skew_eff"}, []string{"ms", "ratio"}},
	{"chan_fanin", benchChanFanin, []string{"chan_fanin"}, []string{"ns"}},
	{"mutex", benchMutex, []string{"mutex"}, []string{"ns"}},
	{"timers", benchTimers,
		[]string{"timers", "timers_late_mean", "timers_late_p99", "timers_late_max"},
		[]string{"ms", "us", "us", "us"}},
	{"preempt", benchPreempt,
		[]string{"preempt_late_p99", "preempt_late_max"},
		[]string{"us", "us"}},
	{"threadring", benchThreadring,
		[]string{"threadring_503", "threadring_10007"}, []string{"ns", "ns"}},
	{"ring_scale", benchRingScale,
		[]string{"ring_1k", "ring_10k", "ring_100k"}, []string{"ns", "ns", "ns"}},
	{"chameneos", benchChameneos,
		[]string{"chameneos_3", "chameneos_10"}, []string{"ns", "ns"}},
	{"park", benchPark,
		[]string{"park_bytes_per_g", "park_ns_per_g"},
		[]string{"B", "ns"}},
}

// ---- helpers the workloads share ----------------------------------------

// countdown: n goroutines each call hit once; the one that brings it to
// zero wakes the one waiting in wait.  That keeps the waiting cost out of
// the workloads: one atomic decrement per goroutine, one wakeup.
type countdown struct {
	left atomic.Int64
	done chan struct{}
}

func newCountdown(n int) *countdown {
	c := &countdown{done: make(chan struct{})}
	c.left.Store(int64(n))
	return c
}

// hit's Add is sequentially consistent and close happens before wait
// returns, so the waiter sees every write the others made before hit.
func (c *countdown) hit() {
	if c.left.Add(-1) == 0 {
		close(c.done)
	}
}

func (c *countdown) wait() { <-c.done }

// since returns the nanoseconds since t0 (monotonic clock), as a float.
func since(t0 time.Time) float64 {
	return float64(time.Since(t0).Nanoseconds())
}

// share is the part p of n gets of total: total/n, with the remainder
// spread over the first parts, so the shares add up to total.
func share(total, n, p int) int {
	s := total / n
	if p < total%n {
		s++
	}
	return s
}

// ncpu is the number of cores the workloads spread over.
func ncpu() int { return runtime.GOMAXPROCS(0) }

// ---- the harness ----------------------------------------------------------

// decimals to print for a unit: ns, us and ms to 0.1, x to 0.01, ratio to
// 0.001.
func decimals(unit string) int {
	switch unit {
	case "x":
		return 2
	case "ratio":
		return 3
	}
	return 1
}

func median(v []float64) float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// report prints the "# name: reps" line, then the BENCH line with the
// median.
func report(name, unit string, v []float64) {
	d := decimals(unit)
	fmt.Printf("# %s:", name)
	for _, x := range v {
		fmt.Printf(" %.*f", d, x)
	}
	fmt.Printf(" %s\n", unit)
	fmt.Printf("BENCH %s %.*f %s\n", name, d, median(v), unit)
}

// runWorkload runs w reps times and reports it; false if a run went wrong.
func runWorkload(w *workload, reps int) bool {
	v := make([][]float64, len(w.names))
	for i := 0; i < reps; i++ {
		out := figures{math.NaN(), math.NaN(), math.NaN(), math.NaN()}
		// Spindle has no garbage collector; start each run with an empty
		// heap so that one run does not pay for the garbage of the one
		// before.  Collections the run itself causes are Go's cost.
		runtime.GC()
		if !w.run(&out) {
			fmt.Printf("# ERROR %s: repetition %d went wrong; no BENCH line\n",
				w.names[0], i+1)
			return false
		}
		for k := range w.names {
			v[k] = append(v[k], out[k])
		}
	}
	for k, name := range w.names {
		if !math.IsNaN(v[k][0]) {
			report(name, w.units[k], v[k])
		}
	}
	return true
}

func findWorkload(key string) *workload {
	for i := range workloads {
		if workloads[i].key == key {
			return &workloads[i]
		}
	}
	return nil
}

// options are the parsed arguments.
type options struct {
	reps       int
	only       []string // nil: every workload
	gomaxprocs int      // 0: leave the runtime's choice
	trace      string   // "": Go's tracer off
}

func (o *options) runs(key string) bool {
	if o.only == nil {
		return true
	}
	for _, k := range o.only {
		if k == key {
			return true
		}
	}
	return false
}

// parseArgs parses the arguments, or prints "# ERROR" and returns false.
func parseArgs(args []string) (options, bool) {
	o := options{reps: 3}
	for _, a := range args {
		key, val, _ := strings.Cut(a, "=")
		switch key {
		case "reps":
			n, err := strconv.Atoi(val)
			if err != nil || n < 1 || n > maxReps {
				fmt.Printf("# ERROR reps= wants 1..%d, not '%s'\n", maxReps, val)
				return o, false
			}
			o.reps = n
		case "only":
			o.only = strings.Split(val, ",")
			for _, k := range o.only {
				if findWorkload(k) == nil {
					fmt.Printf("# ERROR only=: no workload '%s'\n", k)
					return o, false
				}
			}
		case "fib1":
			ms, err := strconv.ParseFloat(val, 64)
			if err != nil || !(ms > 0) {
				fmt.Printf("# ERROR fib1= wants a time in ms, not '%s'\n", val)
				return o, false
			}
			fib1Ms = ms
		case "gomaxprocs":
			n, err := strconv.Atoi(val)
			if err != nil || n < 1 {
				fmt.Printf("# ERROR gomaxprocs= wants a number of cores, not '%s'\n", val)
				return o, false
			}
			o.gomaxprocs = n
		case "trace":
			if val == "" {
				fmt.Printf("# ERROR trace= wants a file to write the trace to\n")
				return o, false
			}
			o.trace = val
		default:
			fmt.Printf("# ERROR unknown argument '%s' (reps=N only=a,b fib1=MS gomaxprocs=N trace=PATH)\n", a)
			return o, false
		}
	}
	return o, true
}

func main() {
	o, ok := parseArgs(os.Args[1:])
	if !ok {
		os.Exit(2)
	}
	if o.gomaxprocs > 0 {
		runtime.GOMAXPROCS(o.gomaxprocs)
	}

	only := "(all)"
	if o.only != nil {
		only = strings.Join(o.only, ",")
	}
	fmt.Printf("# ncpu %d, reps %d, only %s, fib1 ", ncpu(), o.reps, only)
	if fib1Ms > 0 {
		fmt.Printf("%.1f ms\n", fib1Ms)
	} else if o.runs("fib") {
		fmt.Printf("(measured below at GOMAXPROCS=1)\n")
	} else {
		fmt.Printf("(not needed)\n")
	}
	fmt.Printf("# go: %s %s/%s, GOMAXPROCS %d, %d CPUs\n", runtime.Version(),
		runtime.GOOS, runtime.GOARCH, ncpu(), runtime.NumCPU())

	if o.runs("skew") {
		skewCalibrate()
	}
	if o.runs("fib") && fib1Ms == 0 {
		fib1Ms = measureFib1(o.reps)
	}
	status := runAll(&o)
	if os.Getpid() == 1 {
		// The init of the Linux guest of `make bench-go BENCH_GO_ARCH=...`:
		// init may not exit, so it says its status and powers the machine
		// off.
		fmt.Printf("# exit status %d\n", status)
		syscall.Sync()
		syscall.Reboot(syscall.LINUX_REBOOT_CMD_POWER_OFF)
	}
	os.Exit(status)
}

// runAll runs the chosen workloads, under Go's tracer if o.trace names a
// file, and returns the exit status: 0, 1 if a workload went wrong, 2 if
// the trace could not be started or written.
func runAll(o *options) int {
	var tf *os.File
	if o.trace != "" {
		f, err := os.Create(o.trace)
		if err == nil {
			err = trace.Start(f)
		}
		if err != nil {
			fmt.Printf("# ERROR trace=%s: %v\n", o.trace, err)
			return 2
		}
		fmt.Printf("# Go's execution tracer on, writing %s\n", o.trace)
		tf = f
	}
	status := 0
	for i := range workloads {
		if o.runs(workloads[i].key) && !runWorkload(&workloads[i], o.reps) {
			status = 1
		}
	}
	if tf != nil {
		trace.Stop()
		if err := tf.Close(); err != nil {
			fmt.Printf("# ERROR trace=%s: %v\n", o.trace, err)
			return 2
		}
	}
	return status
}
