package serve

import (
	"fmt"
	"net"
	"sync"
	"time"
)

// cappedListener holds the HTTP side's connections to a cap in all and
// per source address, counted from accept: a connection beyond either is
// answered 503 and closed at once, before a byte of it is read, and the
// refusal is logged. Together with the server's timeouts (httpServer) it
// bounds what idle, half-open or trickling sockets can hold: at most
// max of them, each for at most a timeout.
type cappedListener struct {
	net.Listener
	max, perAddr int
	refused      func(addr, why string)

	mu     sync.Mutex
	open   int
	byAddr map[string]int
}

func capListener(l net.Listener, max, perAddr int, refused func(addr, why string)) *cappedListener {
	return &cappedListener{Listener: l, max: max, perAddr: perAddr, refused: refused, byAddr: map[string]int{}}
}

// busy is the answer to a connection beyond the caps.
var busy = func() []byte {
	const text = "too many connections: try again later\n"
	return fmt.Appendf(nil, "HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nRetry-After: 10\r\n"+
		"Content-Type: text/plain; charset=utf-8\r\nContent-Length: %d\r\n\r\n%s", len(text), text)
}()

func (l *cappedListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		addr := hostOf(c.RemoteAddr())
		var why string
		l.mu.Lock()
		switch {
		case l.open >= l.max:
			why = fmt.Sprintf("%d connections are open, the most this server takes (--max-conns)", l.max)
		case l.byAddr[addr] >= l.perAddr:
			why = fmt.Sprintf("%d connections from this address are open, the most one address may (--max-conns-per-addr)", l.perAddr)
		default:
			l.open++
			l.byAddr[addr]++
		}
		l.mu.Unlock()
		if why != "" {
			c.SetWriteDeadline(time.Now().Add(time.Second))
			c.Write(busy)
			c.Close()
			l.refused(c.RemoteAddr().String(), why)
			continue
		}
		return &countedConn{Conn: c, l: l, addr: addr}, nil
	}
}

// Open is how many connections are open.
func (l *cappedListener) Open() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.open
}

type countedConn struct {
	net.Conn
	l    *cappedListener
	addr string
	once sync.Once
}

func (c *countedConn) Close() error {
	c.once.Do(func() {
		c.l.mu.Lock()
		c.l.open--
		if c.l.byAddr[c.addr]--; c.l.byAddr[c.addr] <= 0 {
			delete(c.l.byAddr, c.addr)
		}
		c.l.mu.Unlock()
	})
	return c.Conn.Close()
}

// hostOf is the address of a connection's peer without its port.
func hostOf(a net.Addr) string {
	if t, ok := a.(*net.TCPAddr); ok {
		return t.IP.String()
	}
	host, _, err := net.SplitHostPort(a.String())
	if err != nil {
		return a.String()
	}
	return host
}
