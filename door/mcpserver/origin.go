package mcpserver

import (
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// originAllowed checks a request's Origin, which a browser sets and a
// page cannot change: a page of another site, even one whose name was
// made to point at this machine (DNS rebinding), must not reach the
// endpoint. Allowed are no Origin (agents are not browsers), the origins
// of opts.AllowOrigins, and the same origin on this machine: an Origin
// naming the Host the request came to, when that host is localhost, a
// loopback address or the address listened on. A page of
// evil.example.com rebound to 127.0.0.1 sends Host and Origin
// evil.example.com: neither is this machine's name.
func (h *HTTP) originAllowed(r *http.Request) (string, bool) {
	origin := r.Header.Get("Origin")
	if origin == "" {
		return "", true
	}
	o := normalOrigin(origin)
	for _, a := range h.opts.AllowOrigins {
		if o != "" && normalOrigin(a) == o {
			return "", true
		}
	}
	u, err := url.Parse(origin)
	if err == nil && u.Host != "" && strings.EqualFold(hostPort(u.Host, u.Scheme), hostPort(r.Host, u.Scheme)) && h.local(u.Hostname()) {
		return "", true
	}
	return fmt.Sprintf("the origin %q may not call this endpoint (allow it with --allow-origin)", clip(origin, 100)), false
}

// local reports whether host names this machine: localhost, a loopback
// address, or the host of the address listened on.
func (h *HTTP) local(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return true
	}
	if l, _, err := net.SplitHostPort(h.opts.Listen); err == nil && l != "" && strings.EqualFold(l, host) {
		ip := net.ParseIP(l)
		return ip == nil || !ip.IsUnspecified()
	}
	return false
}

// normalOrigin is scheme://host:port in lower case, the port spelled out.
func normalOrigin(s string) string {
	u, err := url.Parse(strings.TrimSpace(s))
	if err != nil || u.Scheme == "" || u.Host == "" {
		return ""
	}
	return strings.ToLower(u.Scheme + "://" + hostPort(u.Host, u.Scheme))
}

// hostPort is host with its port, the scheme's default when it has none.
func hostPort(host, scheme string) string {
	if _, _, err := net.SplitHostPort(host); err == nil {
		return host
	}
	port := "80"
	if strings.EqualFold(scheme, "https") {
		port = "443"
	}
	return net.JoinHostPort(strings.Trim(host, "[]"), port)
}

// clip cuts s to n bytes, for a log line.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
