package deliver

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strings"
)

// CheckURL refuses a hook's URL that is not http or https with a host,
// and, unless allowPrivate, one whose host is or resolves to a loopback,
// private, link-local, unspecified or multicast address: a hook is not
// pointed at internal services by accident.
func CheckURL(ctx context.Context, raw string, allowPrivate bool) error {
	u, err := url.Parse(strings.TrimSpace(raw))
	switch {
	case err != nil:
		return fmt.Errorf("%q is not a URL", raw)
	case u.Scheme != "http" && u.Scheme != "https":
		return fmt.Errorf("%q: a hook's URL is http:// or https://", raw)
	case u.Hostname() == "":
		return fmt.Errorf("%q names no host", raw)
	case u.User != nil:
		return fmt.Errorf("%q carries a user or password; put credentials in the path or query the receiver checks", raw)
	}
	if allowPrivate {
		return nil
	}
	host := u.Hostname()
	var addrs []netip.Addr
	if a, err := netip.ParseAddr(host); err == nil {
		addrs = []netip.Addr{a}
	} else {
		ips, err := net.DefaultResolver.LookupNetIP(ctx, "ip", host)
		if err != nil {
			return fmt.Errorf("%q: %s does not resolve (%v)", raw, host, err)
		}
		addrs = ips
	}
	for _, a := range addrs {
		if private(a.Unmap()) {
			return fmt.Errorf("%q: %s is a private, loopback or link-local address (%s); add --allow-private if it is meant", raw, host, a)
		}
	}
	return nil
}

func private(a netip.Addr) bool {
	return a.IsLoopback() || a.IsPrivate() || a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() ||
		a.IsUnspecified() || a.IsMulticast() || a.IsInterfaceLocalMulticast() ||
		netip.MustParsePrefix("100.64.0.0/10").Contains(a) // carrier-grade NAT
}
