package deliver

import (
	"fmt"
	"net"
	"net/netip"
	"syscall"
)

// special is a range of addresses a hook does not reach without
// --allow-private: what it is, and, for a range that carries an IPv4
// address inside an IPv6 one, how to take it out — such an address is
// refused only if the one it carries is.
type special struct {
	prefix netip.Prefix
	what   string
	embeds func(netip.Addr) netip.Addr
}

// specials are the refused ranges: IANA's special-purpose registries
// (RFC 6890 and after) less the ranges that are truly global, and every
// way of writing an IPv4 address in IPv6 that reaches it.
var specials = []special{
	{netip.MustParsePrefix("0.0.0.0/8"), "an unspecified (this network) address", nil},
	{netip.MustParsePrefix("10.0.0.0/8"), "a private address", nil},
	{netip.MustParsePrefix("100.64.0.0/10"), "a carrier-grade NAT address", nil},
	{netip.MustParsePrefix("127.0.0.0/8"), "a loopback address", nil},
	{netip.MustParsePrefix("169.254.0.0/16"), "a link-local address (cloud metadata lives there)", nil},
	{netip.MustParsePrefix("172.16.0.0/12"), "a private address", nil},
	{netip.MustParsePrefix("192.0.0.0/24"), "an IETF protocol assignment", nil},
	{netip.MustParsePrefix("192.0.2.0/24"), "a documentation address", nil},
	{netip.MustParsePrefix("192.88.99.0/24"), "a 6to4 relay address", nil},
	{netip.MustParsePrefix("192.168.0.0/16"), "a private address", nil},
	{netip.MustParsePrefix("198.18.0.0/15"), "a benchmarking address", nil},
	{netip.MustParsePrefix("198.51.100.0/24"), "a documentation address", nil},
	{netip.MustParsePrefix("203.0.113.0/24"), "a documentation address", nil},
	{netip.MustParsePrefix("224.0.0.0/4"), "a multicast address", nil},
	{netip.MustParsePrefix("240.0.0.0/4"), "a reserved or broadcast address", nil},

	{netip.MustParsePrefix("::/128"), "the unspecified address", nil},
	{netip.MustParsePrefix("::1/128"), "a loopback address", nil},
	{netip.MustParsePrefix("::ffff:0:0/96"), "an IPv4 address written as IPv6 (IPv4-mapped)", nil},
	{netip.MustParsePrefix("::/96"), "an IPv4 address written as IPv6 (IPv4-compatible)", nil},
	{netip.MustParsePrefix("64:ff9b::/96"), "NAT64 of a refused IPv4 address", last32},
	{netip.MustParsePrefix("64:ff9b:1::/48"), "a local-use NAT64 address", nil},
	{netip.MustParsePrefix("100::/64"), "a discard-only address", nil},
	{netip.MustParsePrefix("2001::/32"), "Teredo of a refused IPv4 address", teredoClient},
	{netip.MustParsePrefix("2001:2::/48"), "a benchmarking address", nil},
	{netip.MustParsePrefix("2001:10::/28"), "an ORCHID address", nil},
	{netip.MustParsePrefix("2001:20::/28"), "an ORCHID address", nil},
	{netip.MustParsePrefix("2001:db8::/32"), "a documentation address", nil},
	{netip.MustParsePrefix("2002::/16"), "6to4 of a refused IPv4 address", sixToFour},
	{netip.MustParsePrefix("3fff::/20"), "a documentation address", nil},
	{netip.MustParsePrefix("fc00::/7"), "a unique local (private) address", nil},
	{netip.MustParsePrefix("fe80::/10"), "a link-local address", nil},
	{netip.MustParsePrefix("fec0::/10"), "a site-local address", nil},
	{netip.MustParsePrefix("ff00::/8"), "a multicast address", nil},
}

func last32(a netip.Addr) netip.Addr {
	b := a.As16()
	return netip.AddrFrom4([4]byte(b[12:16]))
}

func sixToFour(a netip.Addr) netip.Addr {
	b := a.As16()
	return netip.AddrFrom4([4]byte(b[2:6]))
}

// teredoClient is the client's IPv4 address a Teredo address carries:
// its last 32 bits, inverted.
func teredoClient(a netip.Addr) netip.Addr {
	b := a.As16()
	return netip.AddrFrom4([4]byte{^b[12], ^b[13], ^b[14], ^b[15]})
}

// Refusal says why a deliverer does not connect to a, for a hook added
// without --allow-private: "" if it may. It is the one list of refused
// ranges, applied when a hook is added and to every address dialled.
func Refusal(a netip.Addr) string {
	a = a.WithZone("")
	for _, s := range specials {
		if !s.prefix.Contains(a) {
			continue
		}
		if s.embeds == nil {
			return s.what
		}
		if inner := s.embeds(a); Refusal(inner) != "" {
			return fmt.Sprintf("%s (%s)", s.what, inner)
		}
		return ""
	}
	return ""
}

// RefusedError is a connection a deliverer would not make.
type RefusedError struct {
	Addr netip.Addr
	What string
}

func (e *RefusedError) Error() string {
	return fmt.Sprintf("refused to connect to %s, %s: the hook was not added with --allow-private", e.Addr, e.What)
}

// dialControl checks the address a connection is about to be made to —
// the one the name resolved to just now, at every send and every
// redirect — and refuses a special-purpose one unless allowPrivate.
func dialControl(allowPrivate bool) func(network, address string, _ syscall.RawConn) error {
	return func(network, address string, _ syscall.RawConn) error {
		if allowPrivate {
			return nil
		}
		host, _, err := net.SplitHostPort(address)
		if err != nil {
			return fmt.Errorf("refused to connect to %q: not a host and port", address)
		}
		a, err := netip.ParseAddr(host)
		if err != nil {
			return fmt.Errorf("refused to connect to %q: not an IP address", address)
		}
		if what := Refusal(a); what != "" {
			return &RefusedError{Addr: a, What: what}
		}
		return nil
	}
}
