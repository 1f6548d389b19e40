package deliver

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strings"

	"arbiter/internal/safetext"
	"arbiter/model"
)

// CheckHook checks what hooks add is given: a known channel, and a URL
// that is http or https with a host and no user or password, that the
// channel accepts and, unless h.AllowPrivate, whose host is not and does
// not resolve (through resolver; nil for the system's) to an address
// Refusal refuses. The same addresses are refused again at every send,
// where the name may resolve to another.
func CheckHook(ctx context.Context, h model.Hook, resolver *net.Resolver) error {
	ch, ok := ChannelOf(h.Format)
	if !ok {
		return fmt.Errorf("%q is not a hook format: use %s", h.Format, FormatNames())
	}
	raw := h.URL
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
	if err := ch.Accept(u); err != nil {
		return fmt.Errorf("%q: %v", raw, err)
	}
	if h.AllowPrivate {
		return nil
	}
	host := u.Hostname()
	var addrs []netip.Addr
	if a, err := netip.ParseAddr(host); err == nil {
		addrs = []netip.Addr{a}
	} else {
		if resolver == nil {
			resolver = net.DefaultResolver
		}
		ips, err := resolver.LookupNetIP(ctx, "ip", host)
		if err != nil {
			return fmt.Errorf("%q: %s does not resolve (%v)", raw, host, err)
		}
		addrs = ips
	}
	for _, a := range addrs {
		if what := Refusal(a); what != "" {
			return fmt.Errorf("%q: %s is %s (%s); add --allow-private if it is meant", raw, host, what, a)
		}
	}
	return nil
}

// RedactURL is a hook's URL as output and logs show it: its scheme, host
// and the first characters of its path, never its query or the rest of
// the path (a Slack webhook's path is its secret).
func RedactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return "(not a URL)"
	}
	p := u.EscapedPath()
	if len(p) > 10 {
		p = p[:10] + "…"
	}
	return safetext.Line(u.Scheme + "://" + u.Host + p)
}
