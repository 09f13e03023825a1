package guard

import (
	"net/http"
	"testing"
)

func TestClientBehindTrustedProxies(t *testing.T) {
	proxies, err := ParseProxies("10.0.0.0/8, 192.168.1.7, fd00::/8")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, peer string
		xff        []string
		want       string
	}{
		{"no proxy: the peer", "203.0.113.9:5000", []string{"198.51.100.1"}, "203.0.113.9"},
		{"a trusted proxy: the client it forwarded", "10.1.2.3:5000", []string{"198.51.100.1"}, "198.51.100.1"},
		{"what the client wrote left of it is not believed", "10.1.2.3:5000", []string{"1.2.3.4, 198.51.100.1"}, "198.51.100.1"},
		{"two trusted proxies", "10.1.2.3:5000", []string{"198.51.100.1, 192.168.1.7"}, "198.51.100.1"},
		{"several headers", "10.1.2.3:5000", []string{"1.2.3.4", "198.51.100.1, 10.9.9.9"}, "198.51.100.1"},
		{"IPv6 proxy", "[fd00::1]:5000", []string{"2001:db8::7"}, "2001:db8::7"},
		{"a trusted proxy without the header: the proxy", "10.1.2.3:5000", nil, "10.1.2.3"},
		{"garbage stops the walk", "10.1.2.3:5000", []string{"198.51.100.1, junk"}, "10.1.2.3"},
		{"only proxies: the left-most", "10.1.2.3:5000", []string{"10.0.0.5, 192.168.1.7"}, "10.0.0.5"},
	} {
		r := &http.Request{RemoteAddr: c.peer, Header: http.Header{}}
		for _, v := range c.xff {
			r.Header.Add("X-Forwarded-For", v)
		}
		if got := proxies.Client(r); got != c.want {
			t.Errorf("%s: %s, want %s", c.name, got, c.want)
		}
	}
	if got := Proxies(nil).Client(&http.Request{RemoteAddr: "10.1.2.3:1", Header: http.Header{"X-Forwarded-For": {"1.2.3.4"}}}); got != "10.1.2.3" {
		t.Errorf("no trusted proxies: %s", got)
	}
	for _, bad := range []string{"10.0.0.0/33", "proxy.local", "10.0.0.1/x"} {
		if _, err := ParseProxies(bad); err == nil {
			t.Errorf("ParseProxies(%q) must fail", bad)
		}
	}
}
