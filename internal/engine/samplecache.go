package engine

import "sync"

// maxSamples bounds the words a sampleCache keeps: a full cache starts
// over.
const maxSamples = 256

// sampleCache keeps SQLite's samples of a word (query.Probe.SampleSQL:
// how many of each class's newest rowids it matches) while the process
// writes nothing (db.DB.Writes), so that the pages of one search read it
// once: 0.15–0.3 ms of a common word's page of 1.5–2.5 ms. A sample
// decides how a tier is read, never what it answers (the forms answer
// alike: TestSearchWindowsAnswerWhatTheSetsAnswer), so a sample made stale
// by another process's writes costs time, not answers; what does decide
// an answer — the walk's window, whether a heavier class matches — is read
// by every page.
type sampleCache struct {
	mu     sync.Mutex
	writes uint64
	counts map[string][]int64
}

// get is the counts kept for key, if kept since the writes counted writes.
func (c *sampleCache) get(writes uint64, key string) ([]int64, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.writes != writes {
		return nil, false
	}
	counts, ok := c.counts[key]
	return counts, ok
}

// put keeps counts for key, read after the writes counted writes.
func (c *sampleCache) put(writes uint64, key string, counts []int64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.writes != writes || c.counts == nil || len(c.counts) >= maxSamples {
		c.writes, c.counts = writes, make(map[string][]int64, 16)
	}
	c.counts[key] = counts
}
