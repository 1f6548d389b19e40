//go:build unix

package sqlite

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// A line in front of SQLite's write lock.
//
// SQLite's lock has no queue: whoever asks at the moment it is free gets
// it. A process that commits and begins its next write at once takes it
// back within microseconds, so beside busy writers a waiter polling
// every millisecond (lockwait.go) is likely, not certain, to find it
// free: under minutes of saturation single waits reached 2.6-2.8 s.
//
// So writes take turns in arrival order first, whatever process they are
// in: a ticket lock in a small file every process maps into memory. A
// write takes the next ticket, sleeps until the ticket being served is
// its own (on Linux on a futex in the mapping, woken at once; on other
// Unix systems in short naps, looking at the mapping between them:
// queue_futex_linux.go, queue_nap.go), asks SQLite for the write lock as
// before, and serves the next ticket — waking its writer — once it has
// committed or rolled back. The line only orders the
// writers; SQLite's lock still keeps them apart, so a program that does
// not queue (another arbiter's version, the sqlite3 shell) is waited for
// as before, and a line that is lost or skipped costs fairness, never
// correctness:
//
//   - a write whose process died (kill -9) holding or awaiting its turn
//     is skipped as soon as a waiter sees that its process is gone;
//   - a turn held for longer than queueStall is skipped too (a live
//     writer keeps SQLite's lock, which the next in line then waits for),
//     and so is one whose writer has not woken to claim it within
//     queueWake (on a machine short of cores the line would otherwise
//     wait for a process the scheduler has not run yet);
//   - a write that gives up waiting (its busy timeout) leaves its ticket
//     marked abandoned, and is skipped when its turn comes.
//
// Windows has no line (queue_windows.go): its writers poll for SQLite's
// lock alone, as every writer did before the line existed.
//
// The file lives in the system's temporary directory, named after the
// field file's device and inode (every path of the field shares it), so
// that nothing is created next to the field. Processes with different
// temporary directories do not share a line; they still share the lock.

const (
	queueMagic = 0x4152425451554532 // "ARBTQUE2"
	queueSlots = 1024
	queueSlot  = 32 // ticket, pid, bell
	queueSize  = 64 + queueSlots*queueSlot
	// queueStall is how long a turn may be held before the next in line
	// goes ahead regardless.
	queueStall = time.Second
	// queueWake is how long a write whose turn has come may take to wake
	// and claim it before the next in line goes ahead.
	queueWake = 20 * time.Millisecond
	// queueAbandoned marks a ticket whose write gave up waiting.
	queueAbandoned = -1
)

// writeQueue is the mapped line of one field.
type writeQueue struct {
	mem []byte
	pid int64
}

// openQueue maps the line of the field at path; nil (no line, polling
// alone) if it cannot.
func openQueue(path string) *writeQueue {
	var st unix.Stat_t
	if err := unix.Stat(path, &st); err != nil {
		return nil
	}
	dir := filepath.Join(os.TempDir(), "arbiter-write-queues")
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return nil
	}
	os.Chmod(dir, 0o777|os.ModeSticky)
	name := filepath.Join(dir, fmt.Sprintf("%x-%x-v2", uint64(st.Dev), st.Ino))
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o666)
	if err != nil {
		return nil
	}
	defer f.Close()
	f.Chmod(0o666)
	if fi, err := f.Stat(); err != nil {
		return nil
	} else if fi.Size() < queueSize {
		if err := f.Truncate(queueSize); err != nil {
			return nil
		}
	}
	mem, err := unix.Mmap(int(f.Fd()), 0, queueSize, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		return nil
	}
	q := &writeQueue{mem: mem, pid: int64(os.Getpid())}
	atomic.CompareAndSwapUint64(q.word(0), 0, queueMagic)
	if atomic.LoadUint64(q.word(0)) != queueMagic {
		q.close()
		return nil
	}
	return q
}

func (q *writeQueue) close() {
	if q != nil && q.mem != nil {
		unix.Munmap(q.mem)
		q.mem = nil
	}
}

// word is the 8-byte word at offset off of the mapping.
func (q *writeQueue) word(off int) *uint64 { return (*uint64)(unsafe.Pointer(&q.mem[off])) }

func (q *writeQueue) next() *uint64    { return q.word(8) }
func (q *writeQueue) serving() *uint64 { return q.word(16) }

// slot is where ticket t says whose it is: the ticket, then the pid.
func (q *writeQueue) slot(t uint64) (ticket *uint64, pid *int64) {
	off := 64 + int(t%queueSlots)*queueSlot
	return q.word(off), (*int64)(unsafe.Pointer(q.word(off + 8)))
}

// claimed is set by the write holding ticket t once its turn has come
// and it has woken to take it.
func (q *writeQueue) claimed(t uint64) *uint32 {
	return (*uint32)(unsafe.Pointer(&q.mem[64+int(t%queueSlots)*queueSlot+20]))
}

// bell is the word the write holding ticket t sleeps on (shared by every
// process that maps the line), rung when its turn comes.
func (q *writeQueue) bell(t uint64) *uint32 {
	return (*uint32)(unsafe.Pointer(&q.mem[64+int(t%queueSlots)*queueSlot+16]))
}

// advance serves ticket from+1 if from is being served, and rings its
// bell.
func (q *writeQueue) advance(from uint64) {
	if atomic.CompareAndSwapUint64(q.serving(), from, from+1) {
		b := q.bell(from + 1)
		atomic.AddUint32(b, 1)
		ring(b)
	}
}

// turn is a write's place in the line.
type turn struct {
	q      *writeQueue
	ticket uint64
	served bool // the line reached it: release serves the next
}

// wait takes a ticket and waits for its turn, until deadline or ctx's
// end; then it leaves the ticket abandoned and returns an error (the
// caller reports the field busy, as when SQLite's lock is not free).
func (q *writeQueue) wait(ctx context.Context, deadline time.Time) (*turn, error) {
	if q == nil {
		return nil, nil
	}
	t := atomic.AddUint64(q.next(), 1) - 1
	ticket, pid := q.slot(t)
	atomic.StoreInt64(pid, q.pid)
	atomic.StoreUint32(q.claimed(t), 0)
	atomic.StoreUint64(ticket, t)
	tr := &turn{q: q, ticket: t}
	last, since := atomic.LoadUint64(q.serving()), time.Now()
	for {
		rung := atomic.LoadUint32(q.bell(t))
		s := atomic.LoadUint64(q.serving())
		switch {
		case s == t:
			atomic.StoreUint32(q.claimed(t), 1)
			if atomic.LoadUint64(q.serving()) != t {
				return tr, nil // skipped meanwhile: go on without the line
			}
			tr.served = true
			return tr, nil
		case s > t: // skipped (taken for dead): go on without the line
			return tr, nil
		}
		if s != last {
			last, since = s, time.Now()
		} else if q.gone(s, time.Since(since)) {
			q.advance(s)
			continue
		}
		if !time.Now().Before(deadline) || ctx.Err() != nil {
			atomic.StoreInt64(pid, queueAbandoned)
			// If the line reached us meanwhile, serve the next ourselves.
			q.advance(t)
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			return nil, errQueueTimeout
		}
		// Sleep until our bell rings; wake now and then to see whether
		// the write being served is still there, and for the deadline.
		sleep(q.bell(t), rung, 5*time.Millisecond)
	}
}

var errQueueTimeout = fmt.Errorf("waited for the writers ahead past the busy timeout")

// gone reports whether the write being served (ticket s, served for
// held) no longer holds the line: abandoned, its process dead, never
// published, or held past queueStall.
func (q *writeQueue) gone(s uint64, held time.Duration) bool {
	ticket, pid := q.slot(s)
	if atomic.LoadUint64(ticket) != s {
		return held > 100*time.Millisecond // taken by a process that died before saying whose it is
	}
	p := atomic.LoadInt64(pid)
	switch {
	case p == queueAbandoned:
		return true
	case held > queueStall:
		return true
	case held > queueWake && atomic.LoadUint32(q.claimed(s)) == 0:
		// Its turn came but its process has not woken to take it (a
		// machine short of cores): the line does not wait for it.
		return true
	case held > 10*time.Millisecond && p != q.pid:
		// A process that exited (or was killed) no longer holds it.
		return unix.Kill(int(p), 0) == unix.ESRCH
	}
	return false
}

// release serves the next ticket, if the line reached this one.
func (tr *turn) release() {
	if tr != nil && tr.served {
		tr.q.advance(tr.ticket)
		tr.served = false
	}
}
