package cli

import (
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"

	"arbiter/internal/pgtest"
	"arbiter/service/deliver/delivertest"

	"github.com/jackc/pgx/v5/pgconn"
)

// A deliverer waits out a field it cannot write for a while — another
// program holding a SQLite file's write lock past the busy timeout
// (FIELD_BUSY), a PostgreSQL server out of reach — says so, and goes on
// when the field answers again: the delivery it was retrying arrives. It
// exited with FIELD_BUSY, and sent nothing more until restarted.
func TestADelivererWaitsOutAFieldItCannotWrite(t *testing.T) {
	t.Run("sqlite, the write lock held by another program", func(t *testing.T) {
		db := hookedField(t, t.TempDir()+"/field.db")
		waitsOut(t, db, db, func() func() { return holdWriteLock(t, db) }) // badfiles_test.go
	})
	t.Run("postgres, the server out of reach", func(t *testing.T) {
		db := hookedField(t, pgtest.Field(t))
		proxy, through := newPGProxy(t, db)
		waitsOut(t, db, through, func() func() { proxy.cut(); return func() { proxy.restore(t) } })
	})
}

// waitsOut starts a deliverer on through (db, or a way to it the test
// can cut), lets a try fail, then runs trouble until the deliverer says
// it waits, ends the trouble, and sees the delivery arrive.
func waitsOut(t *testing.T, db, through string, trouble func() (end func())) {
	recv := delivertest.Start(t, "503", "503", "503")
	hook, _ := addHook(t, db, "ana", recv.URL)
	d := startArbiterEnv(t, []string{"ARBITER_BUSY_TIMEOUT=1s"}, "--db", through, "deliver")
	conflict(t, db)
	until(t, "a first try", func() bool {
		if d.done() {
			t.Fatalf("the deliverer exited:\n%s", d.errors(t))
		}
		return len(recv.Requests(t)) > 0
	})
	end := trouble()
	until(t, "the deliverer to say it waits", func() bool {
		return d.done() || strings.Contains(d.errors(t), "trying again")
	})
	end()
	d.alive(t, "the deliverer")
	until(t, "the delivery delivered", func() bool {
		d.alive(t, "the deliverer")
		return allDelivered(hookDeliveries(t, db, hook))
	})
	if !strings.Contains(d.errors(t), "the field answers again") {
		t.Errorf("the deliverer did not say the field answers again:\n%s", d.errors(t))
	}
}

// pgProxy forwards connections on 127.0.0.1 to the test server, until
// it is cut: then it closes them all and refuses new ones, until restored
// on the same port.
type pgProxy struct {
	mu      sync.Mutex
	addr    string
	network string
	target  string
	l       net.Listener
	conns   map[net.Conn]bool
}

// newPGProxy starts a proxy to the server of the field conn names, and
// returns it and a connection string to the field through it.
func newPGProxy(t *testing.T, conn string) (*pgProxy, string) {
	t.Helper()
	cfg, err := pgconn.ParseConfig(conn)
	if err != nil {
		t.Fatal(err)
	}
	p := &pgProxy{network: "tcp", target: net.JoinHostPort(cfg.Host, strconv.Itoa(int(cfg.Port))), conns: map[net.Conn]bool{}}
	if strings.HasPrefix(cfg.Host, "/") {
		p.network, p.target = "unix", fmt.Sprintf("%s/.s.PGSQL.%d", cfg.Host, cfg.Port)
	}
	p.addr = "127.0.0.1:0"
	p.restore(t)
	t.Cleanup(p.cut)
	_, port, _ := net.SplitHostPort(p.addr)
	return p, pgtest.WithParam(pgtest.WithParam(conn, "host", "127.0.0.1"), "port", port)
}

func (p *pgProxy) restore(t *testing.T) {
	t.Helper()
	l, err := net.Listen("tcp", p.addr)
	if err != nil {
		t.Fatal(err)
	}
	p.mu.Lock()
	p.l, p.addr = l, l.Addr().String()
	p.mu.Unlock()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go p.forward(c)
		}
	}()
}

func (p *pgProxy) forward(c net.Conn) {
	s, err := net.Dial(p.network, p.target)
	if err != nil {
		c.Close()
		return
	}
	p.mu.Lock()
	p.conns[c], p.conns[s] = true, true
	p.mu.Unlock()
	go func() { io.Copy(s, c); s.Close() }()
	io.Copy(c, s)
	c.Close()
}

func (p *pgProxy) cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.l.Close()
	for c := range p.conns {
		c.Close()
	}
	clear(p.conns)
}

// What waiting will not mend stops a deliverer, with one line saying so:
// a field opened read-only, with a delivery due.
func TestADelivererStopsOnWhatWaitingWillNotMend(t *testing.T) {
	db := hookedField(t, t.TempDir()+"/field.db")
	recv := delivertest.Start(t)
	addHook(t, db, "ana", recv.URL)
	conflict(t, db)
	r := arbiter(t, "--db", db, "--read-only", "deliver", "--quiet")
	wantExit(t, r, 3)
	if !strings.Contains(r.stderr, "arbiter: deliver stops: ") || !strings.Contains(r.stderr, "READ_ONLY") {
		t.Fatalf("stderr %q: want one line saying why it stops", r.stderr)
	}
}
