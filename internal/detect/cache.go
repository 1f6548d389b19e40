package detect

import (
	"container/list"
	"sync"
)

// Cache keeps read units, so that a unit compared again and again (a
// frequent candidate, a scan's recent units) is read once. A unit's
// content never changes once recorded, so its id is its key. It is safe
// for concurrent use; it holds at most its size of units, dropping the
// least recently used.
type Cache struct {
	mu    sync.Mutex
	size  int
	byKey map[string]*list.Element
	lru   list.List // of *cached, most recent first
}

type cached struct {
	key  string
	text *Text
}

// NewCache returns a cache of at most size units (a read unit of a few
// hundred bytes holds about 5 KB).
func NewCache(size int) *Cache {
	return &Cache{size: max(1, size), byKey: map[string]*list.Element{}}
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
	for c.lru.Len() > c.size {
		last := c.lru.Back()
		c.lru.Remove(last)
		delete(c.byKey, last.Value.(*cached).key)
	}
	return t
}

// Len is how many units the cache holds.
func (c *Cache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.lru.Len()
}
