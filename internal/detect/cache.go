package detect

import (
	"container/list"
	"sync"
)

// Cache keeps read units, so that a unit compared again and again (a
// frequent candidate, a scan's recent units) is read once. A unit's
// content never changes once recorded, so its id is its key. It is safe
// for concurrent use; it holds at most its budget of bytes of read units,
// dropping the least recently used.
type Cache struct {
	mu     sync.Mutex
	budget int64
	bytes  int64
	byKey  map[string]*list.Element
	lru    list.List // of *cached, most recent first
}

type cached struct {
	key  string
	text *Text
}

// NewCache returns a cache that holds read units up to budget bytes (a
// unit of a few hundred bytes takes about 5 KB read, a long document up to
// 100 KB); it keeps the last unit read whatever its size.
func NewCache(budget int64) *Cache {
	return &Cache{budget: budget, byKey: map[string]*list.Element{}}
}

// Text returns the unit read under key, reading in if the cache has not
// got it.
func (c *Cache) Text(key string, in Input) *Text {
	c.mu.Lock()
	if e, ok := c.byKey[key]; ok {
		c.lru.MoveToFront(e)
		t := e.Value.(*cached).text
		c.mu.Unlock()
		return t
	}
	c.mu.Unlock()
	t := Analyse(in) // outside the lock: reading is the slow part
	c.mu.Lock()
	defer c.mu.Unlock()
	if e, ok := c.byKey[key]; ok {
		c.lru.MoveToFront(e)
		return e.Value.(*cached).text
	}
	c.byKey[key] = c.lru.PushFront(&cached{key: key, text: t})
	c.bytes += t.size()
	for c.bytes > c.budget && c.lru.Len() > 1 {
		last := c.lru.Back()
		c.lru.Remove(last)
		old := last.Value.(*cached)
		delete(c.byKey, old.key)
		c.bytes -= old.text.size()
	}
	return t
}

// Get returns the unit read under key, if the cache holds it.
func (c *Cache) Get(key string) (*Text, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.byKey[key]
	if !ok {
		return nil, false
	}
	c.lru.MoveToFront(e)
	return e.Value.(*cached).text, true
}

// Bytes is what the units the cache holds take, by Text's estimate.
func (c *Cache) Bytes() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.bytes
}

// Len is how many units the cache holds.
func (c *Cache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lru.Len()
}
