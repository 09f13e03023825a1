package tracing

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"
)

// config is where and how spans are sent, as the OTLP exporter variables
// (OTEL_EXPORTER_OTLP_*, each with its OTEL_EXPORTER_OTLP_TRACES_* form,
// which wins) say.
type config struct {
	url     string
	shown   string // url with any password masked, for errors
	headers map[string]string
	timeout time.Duration
	gzip    bool
	tls     *tls.Config // nil: the system's roots, no client certificate
}

// variable reads the exporter's variable name (…_TRACES_name first) and
// tells which one it read.
type variable func(name string) (value, from string)

func envVariable(getenv func(string) string) variable {
	return func(name string) (string, string) {
		for _, v := range []string{"OTEL_EXPORTER_OTLP_TRACES_" + name, "OTEL_EXPORTER_OTLP_" + name} {
			if s := strings.TrimSpace(getenv(v)); s != "" {
				return s, v
			}
		}
		return "", ""
	}
}

// loadConfig reads the exporter's variables. A value the exporter cannot
// use is an error naming its variable, so that a service is not left
// running without the traces it was asked for.
func loadConfig(getenv func(string) string) (config, error) {
	env := envVariable(getenv)
	c := config{url: "http://localhost:4318/v1/traces", shown: "http://localhost:4318/v1/traces", timeout: 10 * time.Second}
	if v, from := env("PROTOCOL"); v != "" && v != "http/protobuf" {
		return c, fmt.Errorf("%s=%s: the service exports traces as http/protobuf only, which every OTLP/HTTP receiver accepts", from, v)
	}
	if err := c.endpoint(env); err != nil {
		return c, err
	}
	if v, from := env("HEADERS"); v != "" {
		h, err := headers(v)
		if err != nil {
			return c, fmt.Errorf("%s: %w", from, err)
		}
		c.headers = h
	}
	if v, from := env("TIMEOUT"); v != "" {
		ms, err := strconv.Atoi(v)
		if err != nil || ms <= 0 {
			return c, fmt.Errorf("%s=%s: want a whole number of milliseconds above 0", from, v)
		}
		c.timeout = time.Duration(ms) * time.Millisecond
	}
	switch v, from := env("COMPRESSION"); v {
	case "", "none":
	case "gzip":
		c.gzip = true
	default:
		return c, fmt.Errorf("%s=%s: want gzip or none", from, v)
	}
	return c, c.certificates(env)
}

// endpoint sets the URL: the traces variable's as it is (its root when it
// has no path), or the general one's with /v1/traces added to its path.
func (c *config) endpoint(env variable) error {
	v, from := env("ENDPOINT")
	if v == "" {
		return nil
	}
	u, err := url.Parse(v)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%s: want an http:// or https:// URL", from)
	}
	switch {
	case from == "OTEL_EXPORTER_OTLP_ENDPOINT":
		u.Path = strings.TrimSuffix(u.Path, "/") + "/v1/traces"
	case u.Path == "":
		u.Path = "/"
	}
	c.url, c.shown = u.String(), u.Redacted()
	return nil
}

// headers parses a list of key=value pairs split by commas, each value
// percent-encoded (the W3C baggage format the variables use).
func headers(v string) (map[string]string, error) {
	h := map[string]string{}
	for i, pair := range strings.Split(v, ",") {
		k, val, ok := strings.Cut(pair, "=")
		k = strings.TrimSpace(k)
		if !ok || k == "" || strings.ContainsAny(k, " \t\r\n:") {
			// Not echoed: a header's value may be a secret.
			return nil, fmt.Errorf("pair %d of the list is not key=value", i+1)
		}
		d, err := url.PathUnescape(val)
		if err != nil || strings.ContainsAny(d, "\r\n") {
			return nil, fmt.Errorf("the value of %s is not percent-encoded text", k)
		}
		h[k] = strings.TrimSpace(d)
	}
	return h, nil
}

// certificates loads the roots to trust and the client's certificate and
// key, when the variables name them.
func (c *config) certificates(env variable) error {
	t := &tls.Config{MinVersion: tls.VersionTLS12}
	set := false
	if file, from := env("CERTIFICATE"); file != "" {
		pem, err := os.ReadFile(file)
		if err != nil {
			return fmt.Errorf("%s: %w", from, err)
		}
		t.RootCAs = x509.NewCertPool()
		if !t.RootCAs.AppendCertsFromPEM(pem) {
			return fmt.Errorf("%s=%s: no PEM certificate in it", from, file)
		}
		set = true
	}
	cert, certFrom := env("CLIENT_CERTIFICATE")
	key, keyFrom := env("CLIENT_KEY")
	if (cert == "") != (key == "") {
		return fmt.Errorf("OTEL_EXPORTER_OTLP_CLIENT_CERTIFICATE and OTEL_EXPORTER_OTLP_CLIENT_KEY (or their TRACES_ forms) go together; only %s%s is set", certFrom, keyFrom)
	}
	if cert != "" {
		pair, err := tls.LoadX509KeyPair(cert, key)
		if err != nil {
			return fmt.Errorf("%s, %s: %w", certFrom, keyFrom, err)
		}
		t.Certificates = []tls.Certificate{pair}
		set = true
	}
	if set {
		c.tls = t
	}
	return nil
}
