package delivertest

import (
	"context"
	"encoding/binary"
	"net"
	"net/netip"
	"strings"
	"sync"
	"testing"
)

// DNS is a DNS server on 127.0.0.1 (UDP) answering A and AAAA questions
// with what the test last Set, and NXDOMAIN for other names: a resolver
// the test controls, for a hook whose name resolves to another address
// later (DNS rebinding).
type DNS struct {
	conn    *net.UDPConn
	mu      sync.Mutex
	answers map[string][]netip.Addr
}

// StartDNS starts one; the test ends it.
func StartDNS(t testing.TB) *DNS {
	t.Helper()
	conn, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	d := &DNS{conn: conn, answers: map[string][]netip.Addr{}}
	t.Cleanup(func() { conn.Close() })
	go d.serve()
	return d
}

// Set makes name resolve to addrs from now on.
func (d *DNS) Set(name string, addrs ...string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	var out []netip.Addr
	for _, a := range addrs {
		out = append(out, netip.MustParseAddr(a))
	}
	d.answers[strings.ToLower(strings.TrimSuffix(name, "."))] = out
}

// Resolver asks this server, and no other.
func (d *DNS) Resolver() *net.Resolver {
	addr := d.conn.LocalAddr().String()
	return &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, _, _ string) (net.Conn, error) {
		var dialer net.Dialer
		return dialer.DialContext(ctx, "udp", addr)
	}}
}

func (d *DNS) serve() {
	buf := make([]byte, 1500)
	for {
		n, from, err := d.conn.ReadFromUDP(buf)
		if err != nil {
			return
		}
		if reply := d.reply(buf[:n]); reply != nil {
			d.conn.WriteToUDP(reply, from)
		}
	}
}

// reply answers one query: its header and question, then the answers.
func (d *DNS) reply(q []byte) []byte {
	if len(q) < 12 || binary.BigEndian.Uint16(q[4:6]) != 1 {
		return nil
	}
	var labels []string
	i := 12
	for i < len(q) && q[i] != 0 {
		l := int(q[i])
		if i+1+l > len(q) {
			return nil
		}
		labels = append(labels, string(q[i+1:i+1+l]))
		i += 1 + l
	}
	if i+5 > len(q) {
		return nil
	}
	qtype := binary.BigEndian.Uint16(q[i+1 : i+3])
	question := q[12 : i+5]
	d.mu.Lock()
	addrs, known := d.answers[strings.ToLower(strings.Join(labels, "."))]
	d.mu.Unlock()
	var answers [][]byte
	for _, a := range addrs {
		switch {
		case qtype == 1 && a.Is4():
			answers = append(answers, a.AsSlice())
		case qtype == 28 && a.Is6():
			answers = append(answers, a.AsSlice())
		}
	}
	out := make([]byte, 12, 512)
	copy(out, q[:2])
	flags := uint16(0x8580) // a response, authoritative, recursion desired and available
	if !known {
		flags |= 3 // NXDOMAIN
	}
	binary.BigEndian.PutUint16(out[2:], flags)
	binary.BigEndian.PutUint16(out[4:], 1)
	binary.BigEndian.PutUint16(out[6:], uint16(len(answers)))
	out = append(out, question...)
	for _, rdata := range answers {
		out = append(out, 0xc0, 12) // the question's name
		out = binary.BigEndian.AppendUint16(out, qtype)
		out = binary.BigEndian.AppendUint16(out, 1) // IN
		out = binary.BigEndian.AppendUint32(out, 0) // TTL: ask again every time
		out = binary.BigEndian.AppendUint16(out, uint16(len(rdata)))
		out = append(out, rdata...)
	}
	return out
}
