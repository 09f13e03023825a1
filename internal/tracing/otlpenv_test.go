package tracing

import (
	"strings"
	"testing"
	"time"
)

func TestTheExporterVariables(t *testing.T) {
	for _, c := range []struct {
		env  map[string]string
		want config // compared on url, headers, timeout, gzip
		err  string // a part of the error; the variable's name
	}{
		{env: nil, want: config{url: "http://localhost:4318/v1/traces", timeout: 10 * time.Second}},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "https://c.example:4318/otlp/"},
			want: config{url: "https://c.example:4318/otlp/v1/traces", timeout: 10 * time.Second}},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "https://u:secret@c.example"},
			want: config{url: "https://u:secret@c.example/v1/traces", shown: "https://u:xxxxx@c.example/v1/traces", timeout: 10 * time.Second}},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://a:1", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://b:2"},
			want: config{url: "http://b:2/", timeout: 10 * time.Second}},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://b:2/custom/path"},
			want: config{url: "http://b:2/custom/path", timeout: 10 * time.Second}},
		{env: map[string]string{
			"OTEL_EXPORTER_OTLP_HEADERS": "a=1", "OTEL_EXPORTER_OTLP_TRACES_HEADERS": " api-key = x%2Cy , b=2",
			"OTEL_EXPORTER_OTLP_TIMEOUT": "2500", "OTEL_EXPORTER_OTLP_TRACES_COMPRESSION": "gzip",
			"OTEL_EXPORTER_OTLP_PROTOCOL": "http/protobuf"},
			want: config{url: "http://localhost:4318/v1/traces", headers: map[string]string{"api-key": "x,y", "b": "2"},
				timeout: 2500 * time.Millisecond, gzip: true}},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "collector:4318"}, err: "OTEL_EXPORTER_OTLP_ENDPOINT: want an http:// or https:// URL"},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "ftp://u:secret@h/"}, err: "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}, err: "OTEL_EXPORTER_OTLP_PROTOCOL=grpc: the service exports traces as http/protobuf only"},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "http/json"}, err: "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=http/json"},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_HEADERS": "a=1,Bearer secret"}, err: "OTEL_EXPORTER_OTLP_HEADERS: pair 2 of the list is not key=value"},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_TRACES_HEADERS": "a=%zz"}, err: "OTEL_EXPORTER_OTLP_TRACES_HEADERS: the value of a is not percent-encoded"},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_HEADERS": "a=x%0D%0AInjected: 1"}, err: "OTEL_EXPORTER_OTLP_HEADERS: the value of a"},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_TIMEOUT": "10s"}, err: "OTEL_EXPORTER_OTLP_TIMEOUT=10s: want a whole number of milliseconds"},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_TRACES_TIMEOUT": "0"}, err: "OTEL_EXPORTER_OTLP_TRACES_TIMEOUT=0"},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_COMPRESSION": "zstd"}, err: "OTEL_EXPORTER_OTLP_COMPRESSION=zstd: want gzip or none"},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_CERTIFICATE": "/nonexistent.pem"}, err: "OTEL_EXPORTER_OTLP_CERTIFICATE: open /nonexistent.pem"},
		{env: map[string]string{"OTEL_EXPORTER_OTLP_TRACES_CLIENT_KEY": "/k.pem"}, err: "only OTEL_EXPORTER_OTLP_TRACES_CLIENT_KEY is set"},
	} {
		got, err := loadConfig(func(k string) string { return c.env[k] })
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) || strings.Contains(err.Error(), "secret") {
				t.Errorf("%v: err %v, want %q and no secret", c.env, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%v: %v", c.env, err)
			continue
		}
		if c.want.shown == "" {
			c.want.shown = c.want.url
		}
		if got.url != c.want.url || got.shown != c.want.shown || got.timeout != c.want.timeout || got.gzip != c.want.gzip || len(got.headers) != len(c.want.headers) {
			t.Errorf("%v: got %+v, want %+v", c.env, got, c.want)
		}
		for k, v := range c.want.headers {
			if got.headers[k] != v {
				t.Errorf("%v: header %s = %q, want %q", c.env, k, got.headers[k], v)
			}
		}
	}
}
