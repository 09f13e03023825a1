package webhooks

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
)

// Webhook URLs are fetched by the server, so a client could aim them at
// what only the server reaches: its own loopback, the private network, a
// cloud's metadata service. Unless allowed (local development, tests),
// such addresses are refused when a webhook is made or changed, and again
// at every connection — the address actually dialled is checked, so a name
// that resolved to a public address at creation and to a private one since
// (DNS rebinding) is refused too.

// refusedPrefixes are the networks a delivery may not reach.
var refusedPrefixes = func() []netip.Prefix {
	var out []netip.Prefix
	for _, s := range []string{
		"0.0.0.0/8", "10.0.0.0/8", "100.64.0.0/10", "127.0.0.0/8", "169.254.0.0/16", "172.16.0.0/12",
		"192.0.0.0/24", "192.168.0.0/16", "198.18.0.0/15", "224.0.0.0/4", "240.0.0.0/4",
		"::/128", "::1/128", "fc00::/7", "fe80::/10", "ff00::/8", "64:ff9b::/96", "fd00:ec2::254/128",
	} {
		out = append(out, netip.MustParsePrefix(s))
	}
	return out
}()

// refused tells whether a delivery may not reach ip.
func refused(ip netip.Addr) bool {
	ip = ip.Unmap()
	for _, p := range refusedPrefixes {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}

var errPrivate = errors.New("resolves to a loopback, private, link-local or metadata address")

// checkURL validates a webhook URL: absolute http(s), a host, no user
// information, and — unless allowPrivate — no address delivery may not reach.
func checkURL(ctx context.Context, raw string, allowPrivate bool) error {
	u, err := url.Parse(raw)
	switch {
	case err != nil || !u.IsAbs() || u.Host == "":
		return errors.New("must be an absolute http or https URL")
	case u.Scheme != "http" && u.Scheme != "https":
		return errors.New("must use http or https")
	case u.User != nil:
		return errors.New("must not carry a user name or password")
	case len(raw) > 2048:
		return errors.New("must be at most 2048 characters")
	case u.Fragment != "":
		return errors.New("must not have a fragment")
	}
	if allowPrivate {
		return nil
	}
	host := u.Hostname()
	if ip, err := netip.ParseAddr(host); err == nil {
		if refused(ip) {
			return errPrivate
		}
		return nil
	}
	if strings.EqualFold(host, "localhost") || strings.HasSuffix(strings.ToLower(host), ".localhost") {
		return errPrivate
	}
	addrs, err := net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return fmt.Errorf("does not resolve: %v", err)
	}
	for _, a := range addrs {
		if refused(a) {
			return errPrivate
		}
	}
	return nil
}

// dialControl refuses connections to addresses delivery may not reach.
func dialControl(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return err
	}
	if refused(ap.Addr()) {
		return fmt.Errorf("refused to connect to %s: %w", ap.Addr(), errPrivate)
	}
	return nil
}
