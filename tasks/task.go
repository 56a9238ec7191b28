// Package tasks is the run store of durable flow runs: the MCP tasks
// (extension io.modelcontextprotocol/tasks, SEP-2663) a call becomes when
// it runs longer than one client conversation. A Task records what a
// worker needs to advance the run (the sealed run state, the answers
// received) and what tasks/get reports (the status, the questions
// outstanding, the result or the error). A Store keeps tasks and hands
// them to workers: Memory in this process, Bolt in a file on this machine
// (it survives restarts), and package tasks/redis on Redis, shared by many
// instances.
//
// A task reaches a worker when it is dispatched: at once with Dispatch,
// or at an instant with DispatchAt, which servers use for deadlines (an
// approval's timeout). A schedule is kept by the store until it falls
// due, when it becomes an ordinary dispatch: Memory keeps it in a timer,
// Bolt in the file and Redis on the server, so that those two dispatch,
// once opened again, what fell due while they were closed. A task may
// have several schedules, and a Dispatch does not replace them: each
// fires once, and each dispatch is claimed once.
//
// A Store guarantees that one worker advances a task at a time: a worker
// takes a task with Claim and writes what its round gave with Update under
// the claim's token (Task.Owner); a claim taken over from a worker that
// stopped makes the old worker's writes fail with ErrNotOwner.
package tasks

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"time"

	"github.com/flowserve/flowserve/internal/kv"
)

// Status is where a task is in its life.
type Status string

// The statuses of a task, as tasks/get reports them.
const (
	Working       Status = "working"        // a worker runs it, or will
	InputRequired Status = "input_required" // it waits for answers (Task.Requests)
	Completed     Status = "completed"      // it ended with a tool result (Task.Result)
	Failed        Status = "failed"         // it ended with a JSON-RPC error (Task.Error)
	Cancelled     Status = "cancelled"      // tasks/cancel ended it
)

// Terminal reports whether a task with status s has ended.
func (s Status) Terminal() bool {
	return s == Completed || s == Failed || s == Cancelled
}

// Valid reports whether s is one of the statuses above.
func (s Status) Valid() bool {
	switch s {
	case Working, InputRequired, Completed, Failed, Cancelled:
		return true
	}
	return false
}

// Task is one durable run. It is stored as JSON; the field names below
// are the stored format, shared by every instance on one store.
type Task struct {
	// ID is the task id: 32 random hex digits (NewID).
	ID string `json:"id"`
	// Tool is the tool the call named.
	Tool string `json:"tool"`
	// Version is the version of the flow the run began on (the flow's
	// content hash in hex).
	Version string `json:"version"`
	// Principal is the caller the task is bound to ("" when there is
	// none, as on stdio); every tasks/* request must come from it.
	Principal string `json:"principal,omitempty"`
	// Identity is the OAuth caller of the call that started the task, as
	// its rounds' expressions see it (principal); nil without OAuth.
	Identity *Identity `json:"identity,omitempty"`
	// Arguments are the call's arguments as sent.
	Arguments json.RawMessage `json:"arguments,omitempty"`
	// Trace is the W3C trace context (traceparent, then tracestate after a
	// newline when there is one) of the call that started the task, or "";
	// the task's rounds are traced as its children.
	Trace string `json:"trace,omitempty"`
	// Client is what the caller declared it can do, when it made the call.
	Client Client `json:"client"`
	// State is the sealed run state the next round continues from; ""
	// when no round has run yet.
	State string `json:"state,omitempty"`

	Status Status `json:"status"`
	// Message is the statusMessage, or "".
	Message string `json:"message,omitempty"`
	// Requests are the input requests outstanding, by their key on the
	// wire, each {"method": …, "params": …}; set while InputRequired.
	Requests map[string]json.RawMessage `json:"requests,omitempty"`
	// Questions maps each key of Requests to the question it asks (the
	// flow's question id). Keys are unique over the task's life; question
	// ids repeat when a question is asked again.
	Questions map[string]string `json:"questions,omitempty"`
	// Answers are the answers received and not yet taken by a round, by
	// question id.
	Answers map[string]json.RawMessage `json:"answers,omitempty"`
	// Result is the CallToolResult of a Completed task.
	Result json.RawMessage `json:"result,omitempty"`
	// Error is the JSON-RPC error object of a Failed task.
	Error json.RawMessage `json:"error,omitempty"`

	Created time.Time `json:"created"`
	Updated time.Time `json:"updated"`
	// TTL is how long the task is kept after its last update.
	TTL time.Duration `json:"ttl"`
	// Asked counts the rounds that ended asking questions; it makes the
	// keys of Requests unique.
	Asked int `json:"asked,omitempty"`
	// Runs counts the claims workers took of the task; Takeovers those
	// taken from a worker that stopped before it finished.
	Runs      int `json:"runs,omitempty"`
	Takeovers int `json:"takeovers,omitempty"`
	// Owner is the token of the claim that may advance the task (see
	// Claim); "" when no worker holds it.
	Owner string `json:"owner,omitempty"`
	// Approval is the question the task waits for someone other than
	// the caller to answer on its page, or nil; the task is Working
	// meanwhile, and no worker advances it.
	Approval *Approval `json:"approval,omitempty"`
	// Answered lists the keys of the approvals answered on their pages,
	// so that their links say so after the task has ended.
	Answered []string `json:"answered,omitempty"`
	// Caller names the caller for approval pages and logs (the server's
	// token file names it), or ""; Base is the server's URL as the caller
	// reached it, for the links of approval pages ("" when unknown).
	Caller string `json:"caller,omitempty"`
	Base   string `json:"base,omitempty"`
}

// Identity is an OAuth caller: its token's subject, scopes and claims.
type Identity struct {
	Subject string         `json:"sub"`
	Scopes  []string       `json:"scopes,omitempty"`
	Claims  map[string]any `json:"claims,omitempty"`
}

// Client is what a task's caller declared it can do: the flow.Client of
// its rounds.
type Client struct {
	Name     string `json:"name,omitempty"`
	Version  string `json:"version,omitempty"`
	Protocol string `json:"protocol,omitempty"`
	Form     bool   `json:"form,omitempty"`
	URL      bool   `json:"url,omitempty"`
	Sampling bool   `json:"sampling,omitempty"`
	Roots    bool   `json:"roots,omitempty"`
}

// Expires returns when the store drops the task.
func (t *Task) Expires() time.Time { return t.Updated.Add(t.TTL) }

// Clone returns a deep copy of t.
func (t *Task) Clone() *Task {
	c := *t
	c.Arguments = cloneRaw(t.Arguments)
	c.Result = cloneRaw(t.Result)
	c.Error = cloneRaw(t.Error)
	c.Requests = cloneRawMap(t.Requests)
	c.Answers = cloneRawMap(t.Answers)
	c.Answered = append([]string(nil), t.Answered...)
	if t.Approval != nil {
		a := *t.Approval
		a.Request = cloneRaw(a.Request)
		c.Approval = &a
	}
	if t.Questions != nil {
		c.Questions = make(map[string]string, len(t.Questions))
		for k, v := range t.Questions {
			c.Questions[k] = v
		}
	}
	return &c
}

func cloneRaw(b json.RawMessage) json.RawMessage {
	if b == nil {
		return nil
	}
	return append(json.RawMessage(nil), b...)
}

func cloneRawMap(m map[string]json.RawMessage) map[string]json.RawMessage {
	if m == nil {
		return nil
	}
	c := make(map[string]json.RawMessage, len(m))
	for k, v := range m {
		c[k] = cloneRaw(v)
	}
	return c
}

// Marshal encodes t in the stored format.
func Marshal(t *Task) ([]byte, error) { return json.Marshal(t) }

// Unmarshal decodes a task in the stored format.
func Unmarshal(b []byte) (*Task, error) {
	return kv.Decode(b, ErrCorrupt, func(t *Task) bool { return t.ID != "" && t.Status.Valid() })
}

// NewID returns a new task id: 128 random bits in hex, unguessable and
// safe in an HTTP header (Mcp-Name).
func NewID() (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	return hex.EncodeToString(b[:]), nil
}

// The errors of a Store.
var (
	// ErrNotFound: no task has the id (or it expired).
	ErrNotFound = errors.New("no such task")
	// ErrExists: Create was given an id that is taken.
	ErrExists = errors.New("a task with this id exists")
	// ErrNotOwner: an update under a claim that is no longer the task's
	// owner (another worker took the task over).
	ErrNotOwner = errors.New("the task is owned by another worker")
	// ErrCorrupt: a stored task could not be decoded.
	ErrCorrupt = errors.New("stored task is corrupt")
	// ErrClosed: the store was closed.
	ErrClosed = errors.New("task store is closed")
	// ErrTooMany: CreateLimited was given a task whose principal has as
	// many open tasks as the limit allows.
	ErrTooMany = errors.New("the principal has as many open tasks as it may")
)

// Open reports whether t counts among its principal's open tasks: it has
// not ended (and, being in a store, not expired). A task waiting for an
// approval, or for a call that waits for one inside itself, is open.
func (t *Task) Open() bool { return !t.Status.Terminal() }

// Store keeps tasks and dispatches them to workers. Implementations are
// safe for concurrent use.
type Store interface {
	// Create stores a new task (ErrExists when the id is taken).
	Create(ctx context.Context, t *Task) error
	// CreateLimited is Create for a task whose principal may have at
	// most limit open tasks (Task.Open, not expired), the new one
	// included: when the principal has limit open tasks already it
	// stores nothing and fails with ErrTooMany. The count and the
	// creation are one atomic step with respect to every other write to
	// the store, by every instance sharing it, so that concurrent calls
	// never leave the principal with more than limit open tasks. limit
	// <= 0 means no limit.
	CreateLimited(ctx context.Context, t *Task, limit int) error
	// OpenTasks counts the open tasks of principal, stopping at max (max
	// <= 0: counting them all). The count is the store's, whatever
	// process made the tasks: it survives restarts of stores that do.
	OpenTasks(ctx context.Context, principal string, max int) (int, error)
	// Get returns a copy of the task, or ErrNotFound.
	Get(ctx context.Context, id string) (*Task, error)
	// Update applies fn to a copy of the task and stores the result,
	// atomically with respect to every other Update of the task, and
	// returns what it stored. fn may run more than once (a store may
	// retry when another update raced it); an error from fn aborts the
	// update and is returned. ErrNotFound when there is no task.
	Update(ctx context.Context, id string, fn func(*Task) error) (*Task, error)
	// Dispatch queues the task for a worker.
	Dispatch(ctx context.Context, id string) error
	// DispatchAt queues the task for a worker at the instant at (at once
	// when at has passed). The schedule is kept by the store (Bolt and
	// Redis keep it across restarts: a store opened again dispatches what
	// fell due while it was closed) and fires once; a task may have several
	// schedules. Servers use it for deadlines (an approval's timeout).
	// "Passed" and "due" are by the store's clock. Scheduling a task again
	// at an instant it is already scheduled at, before that schedule
	// fired, adds no schedule, so a round that runs again may set its
	// deadline again.
	DispatchAt(ctx context.Context, id string, at time.Time) error
	// Claim waits until a task is dispatched to this process's workers
	// (or one is due to be taken over) and returns it, or ctx's error.
	// The claim is held, and kept alive, until Release.
	Claim(ctx context.Context) (*Claim, error)
	// Close releases the store. Claims in progress are given up (another
	// worker, or this store opened again, takes them over).
	Close() error
}

// Claim is a worker's hold on a task.
type Claim struct {
	// ID is the task's id.
	ID string
	// Token identifies this claim; a worker stores it as Task.Owner
	// (Own) and writes under it (UpdateOwned).
	Token string
	// Takeover reports that the task was claimed before and that claim
	// did not end: its worker stopped, or the process restarted.
	Takeover bool

	release func() error
}

// NewClaim returns a claim of task id with a fresh token; release (nil for
// none) runs once, on Release. Store implementations use it.
func NewClaim(id string, takeover bool, release func() error) (*Claim, error) {
	tok, err := NewID()
	if err != nil {
		return nil, err
	}
	return &Claim{ID: id, Token: tok, Takeover: takeover, release: release}, nil
}

// Release ends the claim: the task is no longer dispatched for it. Call
// it once the worker has stored what the claim's round gave.
func (c *Claim) Release() error {
	if c.release == nil {
		return nil
	}
	f := c.release
	c.release = nil
	return f()
}

// Own makes c the owner of its task: later writes under older claims fail
// with ErrNotOwner. It counts the run, and the takeover if c is one.
func Own(ctx context.Context, s Store, c *Claim) (*Task, error) {
	return s.Update(ctx, c.ID, func(t *Task) error {
		t.Owner = c.Token
		t.Runs++
		if c.Takeover {
			t.Takeovers++
		}
		return nil
	})
}

// UpdateOwned is Update for the owner of a task: it fails with
// ErrNotOwner when c no longer owns the task.
func UpdateOwned(ctx context.Context, s Store, c *Claim, fn func(*Task) error) (*Task, error) {
	return s.Update(ctx, c.ID, func(t *Task) error {
		if t.Owner != c.Token {
			return ErrNotOwner
		}
		return fn(t)
	})
}
