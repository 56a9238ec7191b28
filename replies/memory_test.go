package replies

import (
	"context"
	"sync"
	"testing"
	"time"
)

func key(b byte) [32]byte { return [32]byte{b} }

func TestMemory(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	m := NewMemory(2, clock)
	steps := []struct {
		name string
		do   func()
		key  byte
		want string // "" means absent
	}{
		{"missing", func() {}, 1, ""},
		{"stored", func() { _ = m.Put(ctx, key(1), []byte("one"), time.Minute) }, 1, "one"},
		{"zero ttl is not stored", func() { _ = m.Put(ctx, key(9), []byte("x"), 0) }, 9, ""},
		{"second", func() { _ = m.Put(ctx, key(2), []byte("two"), time.Minute) }, 2, "two"},
		{"touch one", func() {}, 1, "one"},
		{"third evicts least recent (two)", func() { _ = m.Put(ctx, key(3), []byte("three"), time.Minute) }, 2, ""},
		{"one survives", func() {}, 1, "one"},
		{"overwrite", func() { _ = m.Put(ctx, key(1), []byte("uno"), time.Minute) }, 1, "uno"},
		{"expired", func() { now = now.Add(2 * time.Minute) }, 1, ""},
	}
	for _, s := range steps {
		s.do()
		v, ok, err := m.Get(ctx, key(s.key))
		if err != nil {
			t.Fatal(err)
		}
		if got := string(v); ok != (s.want != "") || got != s.want {
			t.Errorf("%s: got %q (found %v), want %q", s.name, got, ok, s.want)
		}
	}
	if m.Len() > 2 {
		t.Errorf("store holds %d entries, max 2", m.Len())
	}
}

func TestMemoryCopiesValues(t *testing.T) {
	m := NewMemory(0, nil)
	v := []byte("abc")
	_ = m.Put(context.Background(), key(1), v, time.Minute)
	v[0] = 'X'
	got, _, _ := m.Get(context.Background(), key(1))
	if string(got) != "abc" {
		t.Errorf("stored value changed with the caller's slice: %q", got)
	}
}

func TestMemoryConcurrent(t *testing.T) {
	m := NewMemory(50, nil)
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func(g int) {
			defer wg.Done()
			for i := 0; i < 500; i++ {
				k := key(byte(i % 100))
				_ = m.Put(context.Background(), k, []byte{byte(g)}, time.Minute)
				_, _, _ = m.Get(context.Background(), k)
			}
		}(g)
	}
	wg.Wait()
	if m.Len() > 50 {
		t.Errorf("store holds %d entries, max 50", m.Len())
	}
}
