// Package tickets is an example of flowserve actions written in Go: a tiny
// in-memory ticket store with two actions, tickets.create and tickets.get.
// Importing the package registers them in the default registry.
package tickets

import (
	"context"
	"fmt"
	"sync"

	"github.com/flowserve/flowserve/actions"
)

// Ticket is one stored ticket.
type Ticket struct {
	ID       string `json:"id"`
	Title    string `json:"title"`
	Priority string `json:"priority"`
	Status   string `json:"status"`
	// Key is the idempotency key of the step that created the ticket.
	Key string `json:"-"`
}

// Store is an in-memory ticket store, safe for concurrent use.
type Store struct {
	mu      sync.Mutex
	tickets map[string]*Ticket
	byKey   map[string]*Ticket
}

// NewStore returns an empty store.
func NewStore() *Store {
	return &Store{tickets: map[string]*Ticket{}, byKey: map[string]*Ticket{}}
}

// Create stores a new ticket. A second call with the same idempotency key
// returns the ticket the first call made, so a step that runs again (steps
// are at-least-once) does not file a duplicate.
func (s *Store) Create(key, title, priority string) Ticket {
	s.mu.Lock()
	defer s.mu.Unlock()
	if t, ok := s.byKey[key]; ok && key != "" {
		return *t
	}
	t := &Ticket{ID: fmt.Sprintf("T-%d", len(s.tickets)+1), Title: title, Priority: priority, Status: "open", Key: key}
	s.tickets[t.ID] = t
	if key != "" {
		s.byKey[key] = t
	}
	return *t
}

// Get returns the ticket with the given id.
func (s *Store) Get(id string) (Ticket, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t, ok := s.tickets[id]
	if !ok {
		return Ticket{}, false
	}
	return *t, true
}

// ticketSchema is the output schema of both actions.
var ticketSchema = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"id":       map[string]any{"type": "string", "description": "The ticket's id, like T-1."},
		"title":    map[string]any{"type": "string", "description": "What the ticket is about."},
		"priority": map[string]any{"type": "string", "enum": []string{"low", "normal", "high"}, "description": "How urgent it is."},
		"status":   map[string]any{"type": "string", "description": "open or closed."},
	},
	"required": []string{"id", "title", "priority", "status"},
}

// Register registers the ticket actions over store in reg.
func Register(reg *actions.Registry, store *Store) error {
	err := reg.Register(actions.Spec{
		Name:    "tickets.create",
		Summary: "Files a new ticket.",
		Input: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"title":    map[string]any{"type": "string", "minLength": 1, "description": "What the ticket is about."},
				"priority": map[string]any{"type": "string", "enum": []string{"low", "normal", "high"}, "default": "normal", "description": "How urgent it is."},
			},
			"required":             []string{"title"},
			"additionalProperties": false,
		},
		Output: ticketSchema,
		Func: func(ctx context.Context, in map[string]any) (any, error) {
			var key string
			if c, ok := actions.CallFrom(ctx); ok {
				key = c.IdempotencyKey()
			}
			title, _ := in["title"].(string)
			prio, _ := in["priority"].(string)
			return store.Create(key, title, prio), nil
		},
	})
	if err != nil {
		return err
	}
	return reg.Register(actions.Spec{
		Name:    "tickets.get",
		Summary: "Looks a ticket up by id.",
		Input: map[string]any{
			"type":                 "object",
			"properties":           map[string]any{"id": map[string]any{"type": "string", "description": "The ticket's id."}},
			"required":             []string{"id"},
			"additionalProperties": false,
		},
		Output: ticketSchema,
		Func: func(ctx context.Context, in map[string]any) (any, error) {
			id, _ := in["id"].(string)
			t, ok := store.Get(id)
			if !ok {
				return nil, fmt.Errorf("no ticket %q", id)
			}
			return t, nil
		},
	})
}

func init() {
	if err := Register(actions.Default(), NewStore()); err != nil {
		panic(err)
	}
}
