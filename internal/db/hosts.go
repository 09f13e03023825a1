package db

import (
	"errors"
	"fmt"
	"maps"
	"net"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// A PostgreSQL URL may name several hosts, each with its port, as libpq
// reads it: postgres://h1:5432,h2:5433/db?target_session_attrs=read-write.
// The driver, lib/pq, reads several hosts but takes their ports only from
// a port parameter (postgres://h1,h2/db?port=5432,5433), and net/url does
// not parse hosts with brackets among several; so a URL of several hosts is
// rewritten here into lib/pq's key=value form, which holds any of them.
// A URL of one host is passed on as it is.
//
// The service needs a primary it can write to: a URL of several hosts
// without target_session_attrs gets read-write, so that a connection never
// lands on a standby in the list (lib/pq's default, any, would take the
// first host that answers).

// authority is a database URL cut around its hosts.
type authority struct {
	scheme   string // "postgres://"
	userinfo string // "user:secret", or ""
	hosts    string // "h1:5432,h2:5433"
	rest     string // "/db?…", or ""
}

// splitAuthority cuts raw around its hosts, without parsing them.
func splitAuthority(raw string) (authority, bool) {
	i := strings.Index(raw, "://")
	if i < 0 {
		return authority{}, false
	}
	a := authority{scheme: raw[:i+3]}
	rest := raw[i+3:]
	end := strings.IndexAny(rest, "/?#")
	if end < 0 {
		end = len(rest)
	}
	a.hosts, a.rest = rest[:end], rest[end:]
	if at := strings.LastIndex(a.hosts, "@"); at >= 0 {
		a.userinfo, a.hosts = a.hosts[:at], a.hosts[at+1:]
	}
	return a, true
}

// postgresDSN is what lib/pq is given for the URL raw.
func postgresDSN(raw string) (string, error) {
	a, ok := splitAuthority(raw)
	if !ok || !strings.Contains(a.hosts, ",") {
		if _, err := url.Parse(raw); err != nil {
			return "", err
		}
		return raw, nil
	}
	// The URL with its hosts taken out parses as any URL does.
	u, err := url.Parse(a.scheme + "hosts" + a.rest)
	if err != nil {
		return "", err
	}
	if u.Fragment != "" {
		return "", errors.New("a fragment (#…) means nothing here")
	}
	var hosts, ports []string
	for _, item := range strings.Split(a.hosts, ",") {
		host, port, err := splitHostPort(item)
		if err != nil {
			return "", err
		}
		hosts, ports = append(hosts, host), append(ports, port)
	}
	kv := map[string]string{"host": strings.Join(hosts, ","), "port": strings.Join(ports, ",")}
	if a.userinfo != "" {
		info, err := url.Parse("postgres://" + a.userinfo + "@h")
		if err != nil || info.User == nil {
			return "", errors.New("the user and password are malformed")
		}
		kv["user"] = info.User.Username()
		if pw, ok := info.User.Password(); ok {
			kv["password"] = pw
		}
	}
	if db := strings.TrimPrefix(u.Path, "/"); db != "" {
		kv["dbname"] = db
	}
	for k, vs := range u.Query() {
		if k == "host" || k == "port" || k == "hostaddr" {
			return "", fmt.Errorf("%s is given by the hosts of the URL; give it there only", k)
		}
		if len(vs) > 1 {
			return "", fmt.Errorf("the parameter %s is given more than once", k)
		}
		kv[k] = vs[0]
	}
	if kv["target_session_attrs"] == "" {
		kv["target_session_attrs"] = "read-write"
	}
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(kv)) {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(k + "='" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(kv[k]) + "'")
	}
	return b.String(), nil
}

// splitHostPort reads one host of several: name, name:port, [v6] or
// [v6]:port; a host without a port gets PostgreSQL's, 5432.
func splitHostPort(item string) (host, port string, err error) {
	switch {
	case item == "":
		return "", "", errors.New("a host of the list is empty")
	case strings.HasPrefix(item, "["):
		end := strings.Index(item, "]")
		if end < 0 {
			return "", "", fmt.Errorf("the host %q lacks its closing ]", item)
		}
		host, port = item[1:end], strings.TrimPrefix(item[end+1:], ":")
		if item[end+1:] != "" && !strings.HasPrefix(item[end+1:], ":") {
			return "", "", fmt.Errorf("the host %q: only :port may follow ]", item)
		}
	case strings.Count(item, ":") > 1:
		return "", "", fmt.Errorf("the host %q: write an IPv6 address in brackets, [%s]", item, item)
	default:
		host, port, _ = strings.Cut(item, ":")
	}
	if net.ParseIP(host) == nil && strings.ContainsAny(host, "/@ ") {
		return "", "", fmt.Errorf("the host %q is malformed", host)
	}
	if port == "" {
		return host, "5432", nil
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		return "", "", fmt.Errorf("the port %q of %s is not a port number", port, host)
	}
	return host, port, nil
}
