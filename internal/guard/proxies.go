package guard

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// Proxies are the networks of the reverse proxies in front of the server,
// whose X-Forwarded-For is believed: the brake on failed authentications
// (Authenticate) counts per client, and behind a proxy every client comes
// from the proxy's address.
type Proxies []netip.Prefix

// ParseProxies reads a comma-separated list of addresses and networks
// (10.0.0.0/8, 192.168.1.7, fd00::/8); "" is none.
func ParseProxies(s string) (Proxies, error) {
	var out Proxies
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		if !strings.Contains(part, "/") {
			a, err := netip.ParseAddr(part)
			if err != nil {
				return nil, fmt.Errorf("%q is not an address or network (10.0.0.0/8)", part)
			}
			part = netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()).String()
		}
		p, err := netip.ParsePrefix(part)
		if err != nil {
			return nil, fmt.Errorf("%q is not an address or network (10.0.0.0/8)", part)
		}
		out = append(out, p.Masked())
	}
	return out, nil
}

func (ps Proxies) trusted(a netip.Addr) bool {
	a = a.Unmap().WithZone("")
	for _, p := range ps {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// Client is the address of the client that sent r: the peer's, unless the
// peer is a trusted proxy, then the right-most address of X-Forwarded-For
// that is not one (the left of it a client may have written itself).
func (ps Proxies) Client(r *http.Request) string {
	host, _, _ := net.SplitHostPort(r.RemoteAddr)
	peer, err := netip.ParseAddr(host)
	if err != nil || len(ps) == 0 || !ps.trusted(peer) {
		return host
	}
	client := host
	hops := r.Header.Values("X-Forwarded-For")
	for i := len(hops) - 1; i >= 0; i-- {
		parts := strings.Split(hops[i], ",")
		for j := len(parts) - 1; j >= 0; j-- {
			a, err := netip.ParseAddr(strings.TrimSpace(parts[j]))
			if err != nil {
				return client // a hop that is no address: trust nothing left of it
			}
			client = a.Unmap().String()
			if !ps.trusted(a) {
				return client
			}
		}
	}
	return client
}
