package serve

import (
	"fmt"
	"sort"
	"sync"
	"time"
)

// limitedLog writes lines of the log that a client can cause at will
// (refusals, sessions), at most logBurst of one kind at once and one a
// second after that, so that a flood does not fill the disk. What it holds
// back it counts, and says with the next line of the kind, or at the next
// flush (every logFlush, from server.background).
type limitedLog struct {
	s     *server
	mu    sync.Mutex
	kinds map[string]*bucket
}

const (
	logBurst = 20
	logRate  = 1.0 // lines a second, once the burst is spent
	logFlush = 10 * time.Second
)

type bucket struct {
	tokens float64
	last   time.Time
	held   int
}

func newLimitedLog(s *server) *limitedLog {
	return &limitedLog{s: s, kinds: map[string]*bucket{}}
}

// log writes line, of kind key, unless its kind has spent its lines.
func (l *limitedLog) log(key, line string) {
	now := time.Now()
	l.mu.Lock()
	b := l.kinds[key]
	if b == nil {
		b = &bucket{tokens: logBurst, last: now}
		l.kinds[key] = b
	}
	b.tokens = min(logBurst, b.tokens+now.Sub(b.last).Seconds()*logRate)
	b.last = now
	if b.tokens < 1 {
		b.held++
		l.mu.Unlock()
		return
	}
	b.tokens--
	held := b.held
	b.held = 0
	l.mu.Unlock()
	if held > 0 {
		line += fmt.Sprintf(" (and %d more like it held back)", held)
	}
	l.s.logf("%s", line)
}

// flush says how many lines of each kind were held back since it was
// last said.
func (l *limitedLog) flush() {
	l.mu.Lock()
	var lines []string
	for key, b := range l.kinds {
		if b.held > 0 {
			lines = append(lines, fmt.Sprintf("%d more lines like %q held back", b.held, key))
			b.held = 0
		}
	}
	l.mu.Unlock()
	sort.Strings(lines)
	for _, line := range lines {
		l.s.logf("%s", line)
	}
}
