# spindle.py - gdb commands for Spindle's Gs, for every build: a bare-metal
# image under QEMU's gdb stub (make gdb ARCH=x86_64|aarch64), whose vCPUs
# are gdb's threads, and the hosted build as a Linux process (make gdb
# ARCH=hosted), whose core threads are.  `make gdb` sources it; by hand:
#
#   (gdb) source tools/run/gdb/spindle.py
#
#   info goroutines          one line per G that exists (not dead): id,
#                            state, wait reason, the core that runs it or
#                            last ran it, and where it is: the first frame
#                            with source outside the scheduler and arch
#                            code (sched/, arch/) and outside an interrupt
#                            handler's frames, else its innermost one.
#                            `*` marks the G of the selected thread.
#   goroutine ID [CMD...]    runs the gdb command CMD (default: bt) with the
#                            registers of G ID; ID is any expression (a
#                            number, or a variable holding one) or `all`.
#
# What it reads, all through the image's debug info (no calls into the
# target): the list of every G ever made (allg in sched/gfree.c, linked by
# struct g's allnext), each G's status, waitreason, lastm, sp and
# preempt_tf, the wait reasons' names (reasons in sched/dead.c), and each
# core's M (sched.allm[], m->curg).
#
# How a G that is not running is unwound.  A G switched out voluntarily
# (parked, yielding, runnable after a hand-off) sits in arch_switch: g->sp
# points to the frame arch_switch pushed (struct switch_frame of the arch:
# callee-saved registers and the return address).  A G the timer
# preempted also left through arch_switch, inside the interrupt, and its
# preempt_tf points to the interrupt's trap frame, which holds every
# register of the interrupted code (on hosted, the signal's ucontext).
# The command writes those registers into the selected thread (the pc and
# sp as at arch_switch's first instruction, or the trap frame's whole
# register set), runs CMD, and writes the thread's own registers back,
# even when CMD fails; gdb's unwinder does the rest.  A running G's
# command runs on the thread of its core instead, unchanged.
import re

import gdb

# Frames of these folders are the runtime's, not where a G "is".
RUNTIME_PATH = re.compile(r'(^|/)(sched|arch)/')

# glibc's x86_64 ucontext register indices (REG_R8 ... REG_RIP).
UC_GREGS = ('r8', 'r9', 'r10', 'r11', 'r12', 'r13', 'r14', 'r15', 'rdi',
            'rsi', 'rbp', 'rbx', 'rdx', 'rax', 'rcx', 'rsp', 'rip')
X86_TF_REGS = ('rax', 'rbx', 'rcx', 'rdx', 'rsi', 'rdi', 'rbp', 'rsp', 'r8',
               'r9', 'r10', 'r11', 'r12', 'r13', 'r14', 'r15', 'rip')
X86_SAVED = ('rbx', 'rbp', 'r12', 'r13', 'r14', 'r15')

U64 = None


def u64(v):
    """A gdb.Value (integer or pointer) as a Python int, unsigned."""
    global U64
    if U64 is None:
        U64 = gdb.lookup_type('unsigned long long')
    return int(v.cast(U64))


def static_var(name, path):
    """The file-static variable `name` of the source file ending in path."""
    for s in gdb.lookup_static_symbols(name):
        if s.symtab and s.symtab.filename.endswith(path):
            return s.value()
    raise gdb.GdbError('spindle: no %s in %s: not a Spindle image with '
                       'debug info?' % (name, path))


def global_var(name):
    s = gdb.lookup_global_symbol(name)
    if s is None:
        raise gdb.GdbError('spindle: no symbol %s' % name)
    return s.value()


def func_addr(name):
    s = gdb.lookup_global_symbol(name) or gdb.lookup_static_symbol(name)
    if s is None:
        # Assembly labels have no debug info; the minimal symbol will do.
        try:
            return u64(gdb.parse_and_eval('&\'%s\'' % name))
        except gdb.error:
            return None
    return u64(s.value().address)


def func_name(pc):
    """The function holding pc, or its address in hex."""
    try:
        b = gdb.block_for_pc(pc)
    except RuntimeError:
        b = None
    while b is not None and b.function is None:
        b = b.superblock
    return b.function.name if b is not None else '%#x' % pc


class Arch:
    """How the running image saves a G's registers."""

    def __init__(self):
        name = gdb.selected_inferior().architecture().name()
        self.hosted = func_addr('hosted_swap') is not None
        self.aarch64 = name.startswith('aarch64')
        if not self.aarch64 and 'x86-64' not in name:
            raise gdb.GdbError('spindle: architecture %s is not x86-64 or '
                               'aarch64' % name)
        # The assembly switch: a G switched out sits at its entry.
        self.switch = func_addr('hosted_swap' if self.hosted
                                else 'arch_switch')
        self.start = func_addr('hosted_context_start' if self.hosted
                               else 'arch_context_start')
        self.frame = gdb.lookup_type('struct switch_frame')

    def switched(self, gp):
        """Registers of a G at the entry of the switch that saved it."""
        sp = u64(gp['sp'])
        f = gp['sp'].cast(self.frame.pointer()).dereference()
        if self.aarch64:
            regs = {'x%d' % (19 + i): u64(f['x19_28'][i]) for i in range(10)}
            regs.update({'x29': u64(f['fp']), 'x30': u64(f['lr']),
                         'sp': sp + self.frame.sizeof, 'pc': self.switch})
            return regs
        regs = {r: u64(f[r]) for r in X86_SAVED}
        # At the entry the return address is on top of the stack.
        ret = next(fl for fl in self.frame.fields() if fl.name == 'ret')
        regs.update({'rsp': sp + ret.bitpos // 8, 'rip': self.switch})
        return regs

    def return_pc(self, gp):
        """Where the switch that saved G returns to."""
        f = gp['sp'].cast(self.frame.pointer()).dereference()
        return u64(f['lr' if self.aarch64 else 'ret'])

    def trapped(self, gp):
        """Registers of a preempted G from its trap frame, or None."""
        if u64(gp['preempt_tf']) == 0:
            return None
        tf = gp['preempt_tf'].dereference()
        if self.aarch64:
            regs = {'x%d' % i: u64(tf['x'][i]) for i in range(31)}
            regs.update({'sp': u64(tf['sp']), 'pc': u64(tf['elr'])})
            return regs
        if self.hosted:
            # An interrupt taken at arch_irq_enable has no signal frame:
            # the G then stopped in a plain call, as a voluntary switch.
            if u64(tf['uc']) == 0:
                return None
            g = tf['uc'].dereference()['uc_mcontext']['gregs']
            return {r: u64(g[i]) for i, r in enumerate(UC_GREGS)}
        return {r: u64(tf[r]) for r in X86_TF_REGS}


class Image:
    """The scheduler's state in the image being debugged."""

    def __init__(self):
        self.arch = Arch()
        st = gdb.lookup_type('enum gstatus')
        self.status = {f.enumval: f.name for f in st.fields()}
        value = {n: v for v, n in self.status.items()}
        self.dead, self.waiting = value['G_DEAD'], value['G_WAITING']
        self.reasons = static_var('reasons', 'sched/dead.c')
        self.sched = global_var('sched')
        if not bool(self.sched['ready']):
            raise gdb.GdbError('spindle: the scheduler has not started: '
                               'no goroutines yet')
        self.ncpu = int(global_var('ncpu'))

    def gs(self):
        """Every G that is not dead, in allg's order."""
        gp = static_var('allg', 'sched/gfree.c')['head']
        seen = 0
        while u64(gp) != 0:
            if int(gp['status']) != self.dead:
                yield gp
            gp = gp['allnext']
            seen += 1
            if seen > 10000000:
                raise gdb.GdbError('spindle: allg does not end')

    def find(self, goid):
        for gp in self.gs():
            if int(gp['goid']) == goid:
                return gp
        raise gdb.GdbError('spindle: no goroutine %d' % goid)

    def state(self, gp):
        name = self.status.get(int(gp['status']), str(int(gp['status'])))
        return name[2:].lower() if name.startswith('G_') else name

    def reason(self, gp):
        if int(gp['status']) == self.waiting:
            r = int(gp['waitreason'])
            lo, hi = self.reasons.type.range()
            if lo <= r <= hi and u64(self.reasons[r]) != 0:
                return self.reasons[r].string()
            return '?%d' % r
        if u64(gp['preempt_tf']) != 0:
            return '(preempted)'
        return ''

    def running_core(self, gp):
        """The core whose M runs gp, or None."""
        for i in range(self.ncpu):
            m = self.sched['allm'][i]
            if u64(m) != 0 and u64(m['curg']) == u64(gp):
                return int(m['cpu']['id'])
        return None

    def core_threads(self):
        """{core: gdb thread} for every core gdb sees a thread of."""
        inf = gdb.selected_inferior()
        threads = sorted(inf.threads(), key=lambda t: t.num)
        cpus = global_var('cpus')
        byid = {}
        if self.arch.hosted:
            tids = {int(cpus[i]['arch']['tid']): i for i in range(self.ncpu)
                    if u64(cpus[i]) != 0}
            for t in threads:
                if t.ptid[1] in tids:
                    byid[tids[t.ptid[1]]] = t
            return byid
        # QEMU: one thread per vCPU, in the order of the cores (thread
        # n is vCPU n - 1, which the boot numbered n - 1).
        for t in threads:
            if 1 <= t.num <= self.ncpu:
                byid[t.num - 1] = t
        return byid

    def in_stack(self, gp, sp):
        return u64(gp['stack_lo']) <= sp <= u64(gp['stack_hi'])


class Registers:
    """Within a with block, puts register values into the selected thread
    (load); after it, the thread's own values back, and the frame that
    was selected."""

    def __init__(self):
        self.saved = {}
        self.now = {}

    def __enter__(self):
        self.level = gdb.selected_frame().level()
        return self

    def load(self, regs):
        f0 = gdb.newest_frame()
        f0.select()
        for r in regs:
            if r not in self.saved:
                self.saved[r] = u64(f0.read_register(r))
                self.now[r] = self.saved[r]
        self.write(regs)

    def write(self, regs):
        for r, v in regs.items():
            if self.now.get(r) != v:
                gdb.execute('set $%s = %#x' % (r, v), to_string=True)
                self.now[r] = v

    def __exit__(self, *exc):
        gdb.newest_frame().select()
        self.write(self.saved)
        try:
            gdb.execute('frame %d' % self.level, to_string=True)
        except gdb.error:
            pass
        return False


def where(image):
    """The first frame with source outside sched/ and arch/, from the
    newest frame out, else the newest: 'function at file:line'.  Frames
    inside an interrupt (the hosted build's signal handler: everything
    newer than a signal frame) are the interrupt's, not the G's, and are
    skipped; so is code without debug info."""
    frames = []
    f = gdb.newest_frame()
    while f is not None and len(frames) < 32:
        frames.append(f)
        try:
            f = f.older()
        except gdb.error:
            break
    start = 0
    for i, fr in enumerate(frames):
        if fr.type() == gdb.SIGTRAMP_FRAME:
            start = i + 1
    first = None
    for fr in frames[start:] + frames[:start]:
        sal = fr.find_sal()
        here = fr.name() or func_name(fr.pc())
        if sal.symtab is not None:
            here = '%s at %s:%d' % (here, sal.symtab.filename, sal.line)
        if first is None:
            first = here
        if sal.symtab is not None and \
                not RUNTIME_PATH.search(sal.symtab.filename):
            return here
    return first or '?'


class GoroutineView:
    """One G as the commands show it: how to reach its registers."""

    def __init__(self, image, gp, threads):
        self.image, self.gp = image, gp
        self.goid = int(gp['goid'])
        self.core = image.running_core(gp)
        self.thread = threads.get(self.core) if self.core is not None else None
        self.start_fn = None
        self.regs = None
        self.unreadable = None
        if self.core is not None:
            return
        arch = image.arch
        try:
            self.regs = arch.trapped(gp)
            if self.regs is None:
                if (arch.start is not None and
                        arch.return_pc(gp) == arch.start):
                    self.start_fn = func_name(u64(gp['fn']))
                else:
                    self.regs = arch.switched(gp)
        except gdb.MemoryError:
            # A G parked for a while gave its stack pages back
            # (sched/release.c): they come back when it runs.
            self.unreadable = ('its stack pages are given back while it '
                               'waits (stackrelease=)')

    def last_core(self):
        if self.core is not None:
            return str(self.core)
        # lastm is stale in a G that has not run since gfget reused it.
        m = self.gp['lastm']
        if self.start_fn is not None or u64(m) == 0:
            return '-'
        return str(int(m['cpu']['id']))

    def run(self, fn, regs=None):
        """fn() with the G's registers in place: on its core's thread if it
        runs, else in the selected thread, through regs (a Registers in
        use) or a Registers of its own."""
        if self.core is not None:
            if self.thread is None:
                raise gdb.GdbError('goroutine %d runs on core %d, which has '
                                   'no gdb thread' % (self.goid, self.core))
            cur = gdb.selected_thread()
            level = gdb.selected_frame().level()
            self.thread.switch()
            try:
                return fn()
            finally:
                cur.switch()
                gdb.execute('frame %d' % level, to_string=True)
        if regs is not None:
            regs.load(self.regs)
            return fn()
        with Registers() as regs:
            regs.load(self.regs)
            return fn()

    def where(self, regs=None):
        if self.start_fn is not None:
            return '%s (not started)' % self.start_fn
        if self.unreadable is not None:
            return '? (%s)' % self.unreadable
        try:
            return self.run(lambda: where(self.image), regs)
        except gdb.error as e:
            return '? (%s)' % e


def views(image):
    threads = image.core_threads()
    vs = [GoroutineView(image, gp, threads) for gp in image.gs()]
    return sorted(vs, key=lambda v: v.goid)


class InfoGoroutines(gdb.Command):
    """List Spindle's goroutines (Gs): id, state, wait reason, core, where.

The core is the one that runs the G, or that last ran it (- if it never
ran).  Where is the first frame outside the scheduler (sched/, arch/), else
the innermost one.  * marks the G running on the selected thread."""

    def __init__(self):
        super().__init__('info goroutines', gdb.COMMAND_STACK)

    def invoke(self, arg, from_tty):
        image = Image()
        try:
            cur_sp = u64(gdb.newest_frame().read_register('sp'))
        except gdb.error:
            cur_sp = None
        vs = views(image)
        if not vs:
            print('No goroutines.')
            return
        rows = []
        # One borrowing of the selected thread's registers for all Gs.
        with Registers() as regs:
            for v in vs:
                mark = '*' if (v.core is not None and cur_sp is not None and
                               image.in_stack(v.gp, cur_sp)) else ' '
                rows.append((mark, str(v.goid), image.state(v.gp),
                             image.reason(v.gp), v.last_core(),
                             v.where(regs)))
        head = (' ', 'Id', 'State', 'Wait reason', 'Core', 'Where')
        wid = [max(len(r[i]) for r in rows + [head]) for i in range(5)]
        for r in [head] + rows:
            print('%s %-*s  %-*s  %-*s  %-*s  %s' % (
                r[0], wid[1], r[1], wid[2], r[2], wid[3], r[3],
                wid[4], r[4], r[5]))


class Goroutine(gdb.Command):
    """Run a gdb command in the context of a Spindle goroutine.

Usage: goroutine ID [COMMAND...]   (COMMAND defaults to bt)
       goroutine all [COMMAND...]

ID is an expression giving the G's id.  A parked or runnable G is shown
from the registers its last switch saved (or, if the timer preempted it,
from its trap frame), put into the selected thread for the command and
restored after it; a running G from the thread of its core."""

    def __init__(self):
        super().__init__('goroutine', gdb.COMMAND_STACK)

    def invoke(self, arg, from_tty):
        words = arg.split(None, 1)
        if not words:
            raise gdb.GdbError('usage: goroutine ID|all [COMMAND...]')
        cmd = words[1] if len(words) > 1 else 'bt'
        image = Image()
        if words[0] == 'all':
            targets = views(image)
        else:
            goid = int(gdb.parse_and_eval(words[0]))
            gp = image.find(goid)
            targets = [GoroutineView(image, gp, image.core_threads())]
        for v in targets:
            print('goroutine %d [%s%s]%s:' % (
                v.goid, image.state(v.gp),
                ', ' + image.reason(v.gp) if image.reason(v.gp) else '',
                ' on core %d, thread %d' % (v.core, v.thread.num)
                if v.thread is not None else ''))
            if v.start_fn is not None:
                print('  not started: will run %s(%#x)' % (
                    v.start_fn, u64(v.gp['arg'])))
                continue
            if v.unreadable is not None:
                print('  no registers: %s' % v.unreadable)
                continue
            v.run(lambda: gdb.execute(cmd, from_tty))


InfoGoroutines()
Goroutine()
# The hosted build's interrupts are SIGURG (arch/hosted/irq.c): pass them
# on without stopping.  No effect on a bare-metal target.
gdb.execute('handle SIGURG nostop noprint pass', to_string=True)
