package state

import (
	"strconv"
	"testing"
)

// benchState is a state whose journal has n answers of about 30 bytes of
// JSON each, like a flow n questions in.
func benchState(n int) *State {
	s := fullState()
	s.Journal = make([]Entry, n)
	for i := range s.Journal {
		s.Journal[i] = Entry{
			Kind:        EntryAnswer,
			Node:        "question_" + strconv.Itoa(i%10),
			Fingerprint: uint64(i+1) * 0x9e3779b97f4a7c15,
			Value:       []byte(`{"action":"accept","content":{}}`),
		}
	}
	s.Pending = s.Pending[:1]
	return s
}

// reportSize reports the sealed size and what each journal entry adds to it.
func reportSize(b *testing.B, c *Codec, n int, token string) {
	base, err := c.Seal(benchState(0))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportMetric(float64(len(token)), "state-bytes")
	b.ReportMetric(float64(len(token)-len(base))/float64(n), "bytes/entry")
}

func BenchmarkSeal(b *testing.B) {
	for _, n := range []int{10, 100} {
		b.Run("entries="+strconv.Itoa(n), func(b *testing.B) {
			c := NewCodec(mustRing(b, testKey("k1", 1)), Options{})
			s := benchState(n)
			var token string
			b.ReportAllocs()
			for b.Loop() {
				var err error
				if token, err = c.Seal(s); err != nil {
					b.Fatal(err)
				}
			}
			reportSize(b, c, n, token)
		})
	}
}

func BenchmarkOpen(b *testing.B) {
	for _, n := range []int{10, 100} {
		b.Run("entries="+strconv.Itoa(n), func(b *testing.B) {
			c := NewCodec(mustRing(b, testKey("k1", 1)), Options{})
			s := benchState(n)
			token, err := c.Seal(s)
			if err != nil {
				b.Fatal(err)
			}
			bind := bindingOf(s)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := c.Open(token, bind); err != nil {
					b.Fatal(err)
				}
			}
			reportSize(b, c, n, token)
		})
	}
}

// BenchmarkOpenRejected measures the cost of refusing a forged state.
func BenchmarkOpenRejected(b *testing.B) {
	c := NewCodec(mustRing(b, testKey("k1", 1)), Options{})
	s := benchState(10)
	token, _ := c.Seal(s)
	forged := token[:len(token)-1] + "A"
	if forged == token {
		forged = token[:len(token)-1] + "B"
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := c.Open(forged, bindingOf(s)); err == nil {
			b.Fatal("opened")
		}
	}
}
