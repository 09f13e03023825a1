package webhooks

import (
	"context"
	"time"
)

// cachedWebhook is a webhook as an instance last read it (nil: forgotten).
// The cache holds pointers, so that a read which began before a change
// stores what it read only if nothing forgot the webhook meanwhile.
type cachedWebhook struct {
	w    *Webhook
	read time.Time
}

// webhookCacheTTL is how long an instance delivers with what it last read
// of a webhook: a change (a new URL, disabling) reaches deliveries within it.
const webhookCacheTTL = time.Second

// cached reads a webhook for a delivery, through a short cache.
func (s *Service) cached(ctx context.Context, team int, id string) (*Webhook, error) {
	v, ok := s.cache.Load(id)
	if ok {
		if c := v.(*cachedWebhook); c.w != nil && time.Since(c.read) < webhookCacheTTL {
			return c.w, nil
		}
	} else {
		v, _ = s.cache.LoadOrStore(id, &cachedWebhook{})
	}
	w, err := s.find(ctx, s.DB, team, id)
	if err != nil {
		s.cache.CompareAndDelete(id, v)
		return nil, err
	}
	s.cache.CompareAndSwap(id, v, &cachedWebhook{w: w, read: time.Now()})
	return w, nil
}

// forget drops a webhook from the cache, after this instance changed it,
// and keeps a read begun before the change from storing what it read.
func (s *Service) forget(id string) { s.cache.Store(id, &cachedWebhook{}) }
