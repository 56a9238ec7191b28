package flow

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"sort"
	"time"

	"github.com/flowserve/flowserve/internal/jsonx"
)

// ReplyStore keeps the final results of runs, so that a client retrying
// the final round after a lost reply gets the same result without the
// run's last steps running again (DESIGN §4). Keys are digests of the
// round's requestState and inputResponses; values are encoded results.
// Implementations must be safe for concurrent use; see package replies.
type ReplyStore interface {
	// Get returns the value stored under key, if it has not expired.
	Get(ctx context.Context, key [32]byte) ([]byte, bool, error)
	// Put stores value under key until ttl has passed.
	Put(ctx context.Context, key [32]byte, value []byte, ttl time.Duration) error
}

// replyKeyOf digests a round's state and answers. Answers are canonicalized
// (keys sorted, values re-encoded), so the same answers sent with other
// spacing or key order find the same reply.
func replyKeyOf(stateToken string, responses map[string]json.RawMessage) [32]byte {
	h := sha256.New()
	h.Write([]byte(stateToken))
	h.Write([]byte{0})
	ids := make([]string, 0, len(responses))
	for id := range responses {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		h.Write([]byte(id))
		h.Write([]byte{0})
		if v, err := jsonx.Parse(responses[id]); err == nil {
			if b, err := marshal(v); err == nil {
				h.Write(b)
			}
		} else {
			h.Write(responses[id])
		}
		h.Write([]byte{0})
	}
	var k [32]byte
	h.Sum(k[:0])
	return k
}

// storedReply is the encoding of a final result in a ReplyStore.
type storedReply struct {
	Round      int              `json:"round"`
	Content    []map[string]any `json:"content"`
	Structured any              `json:"structured,omitempty"`
	IsError    bool             `json:"isError,omitempty"`
}

// lookupReply returns the stored final result of this round, if any.
func (p *Program) lookupReply(ctx context.Context, key [32]byte) (*Result, error) {
	b, ok, err := p.replies.Get(ctx, key)
	if err != nil {
		return nil, fmt.Errorf("reply store: %w", err)
	}
	if !ok {
		return nil, nil
	}
	var sr storedReply
	if err := json.Unmarshal(b, &sr); err != nil {
		return nil, fmt.Errorf("stored reply: %w", err)
	}
	return &Result{
		Complete: &ToolResult{Content: sr.Content, Structured: sr.Structured, IsError: sr.IsError},
		Round:    sr.Round,
		Replayed: true,
	}, nil
}

// storeReply keeps a final result until the state it answers expires.
func (p *Program) storeReply(ctx context.Context, key [32]byte, res *Result, expires time.Time) error {
	ttl := expires.Sub(p.now())
	if ttl <= 0 {
		return nil
	}
	c := res.Complete
	b, err := json.Marshal(storedReply{Round: res.Round, Content: c.Content, Structured: c.Structured, IsError: c.IsError})
	if err != nil {
		return fmt.Errorf("encode reply: %w", err)
	}
	return p.replies.Put(ctx, key, b, ttl)
}
