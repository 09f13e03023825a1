package client

import "net/http"

// This file is not copied into the generated client: it declares what the
// files beside it use of the client's schema-dependent part (client.go.tmpl),
// so that they compile and are vetted here, where people edit them. Keep
// it in step with the Client of client.go.tmpl.

// Client is client.go.tmpl's, without the services of its resources.
type Client struct {
	base   string
	token  string
	http   *http.Client
	header http.Header

	Events   *EventService
	Webhooks *WebhookService
}
