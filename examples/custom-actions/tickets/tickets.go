// Package tickets is an example of flowserve actions written in Go: a tiny
// ticket store with two typed actions, tickets.create and tickets.get.
//
// The actions are methods of one module value, [Tickets], which holds
// their configuration ([Config]) and their shared resource (the store).
// [Register] adds them to a registry with a configuration; importing the
// package adds them to the default registry with the zero Config.
//
// A server that provisions its registry ([actions.Registry.Provision])
// runs Tickets' lifecycle: Provision loads Config.File, Validate checks
// the configuration, Cleanup saves the store back to the file when the
// server stops. On a registry nobody provisioned the tickets stay in
// memory.
package tickets

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"regexp"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/flowserve/flowserve/actions"
)

// Config configures the ticket actions.
type Config struct {
	// Prefix starts every ticket id ("T" gives T-1, T-2, ...); upper-case
	// letters. Empty: "T".
	Prefix string
	// File, when set, is a JSON file the tickets are loaded from when the
	// server starts and saved to when it stops. Empty: memory only.
	File string
}

// Ticket is one stored ticket, and the output of both actions.
type Ticket struct {
	ID       string `json:"id" jsonschema:"The ticket's id, like T-1."`
	Title    string `json:"title" jsonschema:"What the ticket is about."`
	Priority string `json:"priority" jsonschema:"How urgent it is."`
	Status   string `json:"status" jsonschema:"open or closed."`
	// Key is the idempotency key of the step that created the ticket;
	// json:"-" keeps it out of the action's output and its schema.
	Key string `json:"-"`
}

// CreateInput is the input of tickets.create.
type CreateInput struct {
	Title    string `json:"title" jsonschema:"What the ticket is about."`
	Priority string `json:"priority,omitempty" jsonschema:"How urgent it is."`
}

// GetInput is the input of tickets.get.
type GetInput struct {
	ID string `json:"id" jsonschema:"The ticket's id."`
}

var priorities = []any{"low", "normal", "high"}

func priorityEnum(p *jsonschema.Schema) { p.Enum = priorities }

// Register registers tickets.create and tickets.get in reg, configured by
// conf. Each registry Provision makes gets its own store.
func Register(reg *actions.Registry, conf Config) error {
	if conf.Prefix == "" {
		conf.Prefix = "T"
	}
	m := actions.NewModule("tickets", func() *Tickets { return &Tickets{conf: conf, store: NewStore(conf.Prefix)} })
	err := reg.Register(actions.Method(m, "tickets.create", "Files a new ticket.", (*Tickets).Create,
		actions.InputProperty("title", func(p *jsonschema.Schema) { p.MinLength = jsonschema.Ptr(1) }),
		actions.InputProperty("priority", func(p *jsonschema.Schema) {
			priorityEnum(p)
			p.Default = json.RawMessage(`"normal"`)
		}),
		actions.OutputProperty("priority", priorityEnum),
	))
	if err != nil {
		return err
	}
	return reg.Register(actions.Method(m, "tickets.get", "Looks a ticket up by id.", (*Tickets).Get,
		actions.OutputProperty("priority", priorityEnum)))
}

func init() {
	if err := Register(actions.Default(), Config{}); err != nil {
		panic(err)
	}
}

// Tickets is the value the ticket actions share: the configuration they
// were registered with, the store, and the server's logger.
type Tickets struct {
	conf  Config
	store *Store
	log   *slog.Logger
}

// The lifecycle a provisioning registry runs.
var (
	_ actions.Provisioner  = (*Tickets)(nil)
	_ actions.Validator    = (*Tickets)(nil)
	_ actions.CleanerUpper = (*Tickets)(nil)
)

// Provision takes the server's logger and loads Config.File, if any.
func (t *Tickets) Provision(_ context.Context, h *actions.Host) error {
	t.log = h.Log()
	if t.conf.File == "" {
		return nil
	}
	data, err := os.ReadFile(t.conf.File)
	if errors.Is(err, fs.ErrNotExist) {
		return nil // the first run: Cleanup creates it
	}
	if err != nil {
		return err
	}
	if err := t.store.load(data); err != nil {
		return fmt.Errorf("%s: %w", t.conf.File, err)
	}
	t.log.Info("tickets loaded", "file", t.conf.File, "tickets", t.store.len())
	return nil
}

var prefixRE = regexp.MustCompile(`^[A-Z]+$`)

// Validate checks the configuration.
func (t *Tickets) Validate() error {
	if !prefixRE.MatchString(t.conf.Prefix) {
		return fmt.Errorf("prefix %q must be upper-case letters", t.conf.Prefix)
	}
	return nil
}

// Cleanup saves the store to Config.File, if any.
func (t *Tickets) Cleanup() error {
	if t.conf.File == "" {
		return nil
	}
	data, err := t.store.save()
	if err != nil {
		return err
	}
	return os.WriteFile(t.conf.File, data, 0o644)
}

// Create files a ticket. A step that runs again (steps are at-least-once)
// has the same idempotency key, and gets the ticket the first run filed.
func (t *Tickets) Create(ctx context.Context, in CreateInput) (Ticket, error) {
	var key string
	if c, ok := actions.CallFrom(ctx); ok {
		key = c.IdempotencyKey()
	}
	prio := in.Priority
	if prio == "" { // Run adds the default; a direct call may not
		prio = "normal"
	}
	return t.store.Create(key, in.Title, prio), nil
}

// Get returns the ticket with the given id.
func (t *Tickets) Get(_ context.Context, in GetInput) (Ticket, error) {
	tk, ok := t.store.Get(in.ID)
	if !ok {
		return Ticket{}, fmt.Errorf("no ticket %q", in.ID)
	}
	return tk, nil
}

// Store is a ticket store, safe for concurrent use.
type Store struct {
	prefix  string
	mu      sync.Mutex
	tickets map[string]*Ticket
	byKey   map[string]*Ticket
	order   []string // ids in the order they were filed
}

// NewStore returns an empty store whose ids start with prefix.
func NewStore(prefix string) *Store {
	return &Store{prefix: prefix, tickets: map[string]*Ticket{}, byKey: map[string]*Ticket{}}
}

// Create stores a new ticket. A second call with the same idempotency key
// returns the ticket the first call made.
func (s *Store) Create(key, title, priority string) Ticket {
	s.mu.Lock()
	defer s.mu.Unlock()
	if t, ok := s.byKey[key]; ok && key != "" {
		return *t
	}
	t := &Ticket{ID: fmt.Sprintf("%s-%d", s.prefix, len(s.tickets)+1), Title: title, Priority: priority, Status: "open", Key: key}
	s.add(t)
	return *t
}

func (s *Store) add(t *Ticket) {
	s.tickets[t.ID] = t
	s.order = append(s.order, t.ID)
	if t.Key != "" {
		s.byKey[t.Key] = t
	}
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

func (s *Store) len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.tickets)
}

// stored is a ticket as the file holds it, with its idempotency key.
type stored struct {
	Ticket
	Key string `json:"key,omitempty"`
}

func (s *Store) save() ([]byte, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	list := make([]stored, 0, len(s.order))
	for _, id := range s.order {
		t := s.tickets[id]
		list = append(list, stored{*t, t.Key})
	}
	return json.MarshalIndent(list, "", "  ")
}

func (s *Store) load(data []byte) error {
	var list []stored
	if err := json.Unmarshal(data, &list); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, st := range list {
		t := st.Ticket
		t.Key = st.Key
		s.add(&t)
	}
	return nil
}
