package akashiklog

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"
)

// The SDK's lock timing, used by Append and by an Appender's zero fields.
const (
	DefaultLockTimeout = 10 * time.Second      // give up waiting after this
	DefaultLockRetry   = 25 * time.Millisecond // try again this often
	DefaultLockStale   = 30 * time.Second      // a lock whose mtime is older is abandoned
)

// Appender appends batches of events to a log under the SDK's lock-file
// protocol. The zero value uses the SDK's timings.
type Appender struct {
	LockTimeout time.Duration // default DefaultLockTimeout
	LockRetry   time.Duration // default DefaultLockRetry
	LockStale   time.Duration // default DefaultLockStale
}

func (a Appender) timeout() time.Duration { return orDefault(a.LockTimeout, DefaultLockTimeout) }
func (a Appender) retry() time.Duration   { return orDefault(a.LockRetry, DefaultLockRetry) }
func (a Appender) stale() time.Duration   { return orDefault(a.LockStale, DefaultLockStale) }

func orDefault(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}

// Tail is what a batch builder may know about the log, read under the lock.
type Tail struct {
	MaxSeq     int64   // 0 for an empty log
	MaxLamport int64   // 0 for an empty log
	Events     []Event // every event, in file order
	// TornTail reports that the log ends in a torn line; Append cuts it off
	// before writing, so the batch does not glue onto it.
	TornTail bool

	ids map[string]bool
}

// Has reports whether an event with this id is already in the log.
func (t Tail) Has(eventID string) bool { return t.ids[eventID] }

// Append appends a batch with the SDK's timings. See Appender.Append.
func Append(path string, build func(last Tail) ([]Event, error)) error {
	return Appender{}.Append(path, build)
}

// Append takes <path>.lock, reads the log (creating nothing yet), and calls
// build with its tail. The events build returns get seq = MaxSeq+1, +2, ...
// in order, v = 1 when unset, an event_id from NewEventID when empty and a
// wall_time of now when zero; these are written back into the returned
// slice. Lamport is the caller's. The batch is then appended in a single
// write and fsynced, and the lock released. If build fails or returns
// nothing, or any event is invalid or reuses an event_id, nothing is written.
func (a Appender) Append(path string, build func(last Tail) ([]Event, error)) (err error) {
	release, err := a.lock(path)
	if err != nil {
		return err
	}
	defer func() { err = errors.Join(err, release()) }()

	log, err := ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		log, err = &Log{endsInLF: true}, nil
	}
	if err != nil {
		return fmt.Errorf("akashiklog: refusing to append: %w", err)
	}
	tail := tailOf(log)
	events, err := build(tail)
	if err != nil || len(events) == 0 {
		return err
	}
	batch, err := encodeBatch(events, tail)
	if err != nil {
		return err
	}
	return writeBatch(path, log, batch)
}

func tailOf(log *Log) Tail {
	t := Tail{Events: log.Events, TornTail: log.TornTail, ids: make(map[string]bool, len(log.Events))}
	for _, e := range log.Events {
		t.MaxSeq, t.MaxLamport = max(t.MaxSeq, e.Seq), max(t.MaxLamport, e.Lamport)
		t.ids[e.EventID] = true
	}
	return t
}

// encodeBatch fills in the writer's fields and renders the batch as lines.
func encodeBatch(events []Event, tail Tail) ([]byte, error) {
	now := time.Now()
	seen := map[string]bool{}
	var batch []byte
	for i := range events {
		e := &events[i]
		e.Seq = tail.MaxSeq + 1 + int64(i)
		if e.V == 0 {
			e.V = Version
		}
		if e.EventID == "" {
			e.EventID = NewEventID(now)
		}
		if e.WallTime == 0 {
			e.WallTime = now.UnixMilli()
		}
		if tail.Has(e.EventID) || seen[e.EventID] {
			return nil, fmt.Errorf("akashiklog: event_id %s is already in the log", e.EventID)
		}
		seen[e.EventID] = true
		line, err := Marshal(*e)
		if err != nil {
			return nil, err
		}
		batch = append(append(batch, line...), '\n')
	}
	return batch, nil
}

// writeBatch appends batch in one write, first cutting off a torn last line
// or ending an unterminated one, then fsyncs.
func writeBatch(path string, log *Log, batch []byte) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("akashiklog: append: %w", err)
	}
	defer f.Close()
	switch {
	case log.TornTail:
		if err := f.Truncate(log.tornOffset); err != nil {
			return fmt.Errorf("akashiklog: cut torn line %d: %w", log.TornLine, err)
		}
	case !log.endsInLF:
		batch = append([]byte{'\n'}, batch...)
	}
	if _, err := f.Write(batch); err != nil {
		return fmt.Errorf("akashiklog: append: %w", err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("akashiklog: fsync: %w", err)
	}
	return f.Close()
}
