package flow

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/flowserve/flowserve/internal/content"
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
// spacing or key order find the same reply. The digest is SHA-256 over
// the state, then each answer's id and canonical form (its raw bytes when
// it is not JSON), each followed by a zero byte, ids in order.
func replyKeyOf(stateToken string, responses map[string]json.RawMessage) [32]byte {
	size := len(stateToken) + 1
	var small [4]string
	ids := small[:0]
	for id, raw := range responses {
		ids = append(ids, id)
		// Room for the canonical form to be built behind the answer's.
		size += len(id) + 2 + 2*len(raw) + 16
	}
	slices.Sort(ids)
	b := make([]byte, 0, size)
	b = append(b, stateToken...)
	b = append(b, 0)
	for _, id := range ids {
		b = append(b, id...)
		b = append(b, 0)
		if c, err := jsonx.AppendCanonical(b, responses[id]); err == nil {
			b = c
		} else {
			b = append(b, responses[id]...)
		}
		b = append(b, 0)
	}
	return sha256.Sum256(b)
}

// storedReply is the encoding of a final result in a ReplyStore: a tool
// result, or a prompt's messages when Prompt is set. Content blocks are
// stored as content.Append writes them, members in key order: the JSON
// of the maps they were before they had types, so that replies stored
// then decode the same.
type storedReply struct {
	Round      int            `json:"round"`
	Content    []any          `json:"content"`
	Structured any            `json:"structured,omitempty"`
	IsError    bool           `json:"isError,omitempty"`
	Failure    *storedFailure `json:"failure,omitempty"`
	Prompt     *storedPrompt  `json:"prompt,omitempty"`
}

// storedFailure is the encoding of a Failure in a ReplyStore.
type storedFailure struct {
	Node    string `json:"node,omitempty"`
	Message string `json:"message"`
}

// storedPrompt is the encoding of a PromptResult in a ReplyStore.
type storedPrompt struct {
	Description string          `json:"description,omitempty"`
	Messages    []storedMessage `json:"messages"`
}

// storedMessage is the encoding of a PromptMessage in a ReplyStore; its
// Content is a json.RawMessage written by content.Append when encoding,
// the decoded map when decoding.
type storedMessage struct {
	Role    string `json:"role"`
	Content any    `json:"content"`
}

// encodeReply encodes a tool's final result as a storedReply, without
// reflection: the JSON encoding/json makes of it, less the escaping of
// <, > and & (lookupReply decodes either the same).
func encodeReply(round int, c *ToolResult) ([]byte, error) {
	b := make([]byte, 0, 256)
	b = append(b, `{"round":`...)
	b = strconv.AppendInt(b, int64(round), 10)
	b = append(b, `,"content":`...)
	if c.Content == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i, block := range c.Content {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = content.Append(b, block, false); err != nil {
				return nil, err
			}
		}
		b = append(b, ']')
	}
	if c.Structured != nil {
		b = append(b, `,"structured":`...)
		var err error
		if b, err = jsonx.Append(b, c.Structured); err != nil {
			return nil, err
		}
	}
	if c.IsError {
		b = append(b, `,"isError":true`...)
	}
	if f := c.Failure; f != nil {
		b = append(b, `,"failure":{`...)
		if f.Node != "" {
			b, _ = jsonx.Append(append(b, `"node":`...), f.Node)
			b = append(b, ',')
		}
		b, _ = jsonx.Append(append(b, `"message":`...), f.Message)
		b = append(b, '}')
	}
	return append(b, '}'), nil
}

// lookupReply returns the stored final result of this round, if any.
func (e *Engine) lookupReply(ctx context.Context, key [32]byte) (*Result, error) {
	b, ok, err := e.replies.Get(ctx, key)
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
	if sr.Prompt != nil {
		pr := &PromptResult{Description: sr.Prompt.Description, Messages: make([]PromptMessage, len(sr.Prompt.Messages))}
		for i, m := range sr.Prompt.Messages {
			c, err := content.FromValue(m.Content)
			if err != nil {
				return nil, fmt.Errorf("stored reply: message %d: %w", i+1, err)
			}
			pr.Messages[i] = PromptMessage{Role: m.Role, Content: c}
		}
		return &Result{Prompt: pr, Round: sr.Round, Replayed: true}, nil
	}
	tr := &ToolResult{Structured: sr.Structured, IsError: sr.IsError}
	if sr.Content != nil {
		tr.Content = make([]mcp.Content, len(sr.Content))
		for i, v := range sr.Content {
			if tr.Content[i], err = content.FromValue(v); err != nil {
				return nil, fmt.Errorf("stored reply: content block %d: %w", i+1, err)
			}
		}
	}
	if sr.Failure != nil {
		tr.Failure = &Failure{Node: sr.Failure.Node, Message: sr.Failure.Message}
	}
	return &Result{Complete: tr, Round: sr.Round, Replayed: true}, nil
}

// storeReply keeps a final result (a tool result or a prompt's messages)
// until the state it answers expires.
func (e *Engine) storeReply(ctx context.Context, key [32]byte, res *Result, expires time.Time) error {
	ttl := expires.Sub(e.now())
	if ttl <= 0 {
		return nil
	}
	if res.Prompt == nil {
		// A tool's result, the common case: without reflection.
		c := res.Complete
		if c == nil {
			c = &ToolResult{}
		}
		b, err := encodeReply(res.Round, c)
		if err != nil {
			return fmt.Errorf("encode reply: %w", err)
		}
		return e.replies.Put(ctx, key, b, ttl)
	}
	sp := &storedPrompt{Description: res.Prompt.Description, Messages: make([]storedMessage, len(res.Prompt.Messages))}
	for i, m := range res.Prompt.Messages {
		raw, err := content.Append(nil, m.Content, false)
		if err != nil {
			return fmt.Errorf("encode reply: message %d: %w", i+1, err)
		}
		sp.Messages[i] = storedMessage{Role: m.Role, Content: json.RawMessage(raw)}
	}
	b, err := json.Marshal(storedReply{Round: res.Round, Prompt: sp})
	if err != nil {
		return fmt.Errorf("encode reply: %w", err)
	}
	return e.replies.Put(ctx, key, b, ttl)
}
