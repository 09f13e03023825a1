package webhooks

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strconv"
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
		// Azure's host endpoint (WireServer), reached from every VM.
		"168.63.129.16/32",
		// Unique-local, link-local, site-local (deprecated, still routed
		// within sites), multicast, and AWS's metadata over IPv6.
		"fc00::/7", "fe80::/10", "fec0::/10", "ff00::/8", "fd00:ec2::254/128",
		// The unspecified and loopback addresses (:: and ::1) and those
		// that carry an IPv4 address within: IPv4-compatible (::a.b.c.d),
		// IPv4-translated (::ffff:0:a.b.c.d), NAT64 (well-known and
		// local-use), 6to4 and Teredo.
		"::/96", "::ffff:0:0:0/96", "64:ff9b::/96", "64:ff9b:1::/48", "2002::/16", "2001::/32",
	} {
		out = append(out, netip.MustParsePrefix(s))
	}
	return out
}()

// refused tells whether a delivery may not reach ip.
func refused(ip netip.Addr) bool {
	// A zone (fe80::1%eth0) keeps an address out of every prefix.
	ip = ip.Unmap().WithZone("")
	for _, p := range refusedPrefixes {
		if p.Contains(ip) {
			return true
		}
	}
	return false
}

var errPrivate = errors.New("resolves to a loopback, private, link-local or metadata address")

// errPrivateURL refuses such a URL when a webhook is made or changed, and
// names the flag that allows it, for a developer whose endpoint is local.
var errPrivateURL = fmt.Errorf("%w; a server started with --webhook-allow-private accepts one (local development only)", errPrivate)

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
	case strings.Contains(u.Hostname(), "%"):
		return errors.New("must not name an IPv6 zone")
	}
	if p := u.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return errors.New("must have a port from 1 to 65535")
		}
	}
	if allowPrivate {
		return nil
	}
	host := u.Hostname()
	if ip, err := netip.ParseAddr(host); err == nil {
		if refused(ip) {
			return errPrivateURL
		}
		return nil
	}
	if strings.EqualFold(host, "localhost") || strings.HasSuffix(strings.ToLower(host), ".localhost") {
		return errPrivateURL
	}
	addrs, err := net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	if err != nil {
		// The resolver's error names the name server and its address:
		// infrastructure, which the client is not told.
		var dnsErr *net.DNSError
		if errors.As(err, &dnsErr) && (dnsErr.IsTimeout || dnsErr.IsTemporary) {
			return fmt.Errorf("the host %s could not be resolved now; try again later", host)
		}
		return fmt.Errorf("the host %s does not resolve", host)
	}
	for _, a := range addrs {
		if refused(a) {
			return errPrivateURL
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
