package tasks

import (
	"encoding/json"
	"time"
)

// Approval is the question a task waits for when its flow asks someone
// other than the caller (an ask with `to`): the task's status stays
// Working, no worker advances it, and the question is answered on its
// page (Link) or times out (Deadline).
type Approval struct {
	// Key identifies this asking of the question over the task's life
	// ("<ask id>-<n>"); a link answers the key it was made for.
	Key string `json:"key"`
	// Node is the ask's id, and Run the run's id.
	Node string `json:"node"`
	Run  string `json:"run,omitempty"`
	// Request is the question as an input request {"method", "params"},
	// the form the page shows.
	Request json.RawMessage `json:"request"`
	// To is who is asked; Webhook the URL notified, sealed by the server
	// (approvals.Sealer.SealAtRest: it often holds a secret), "" for none.
	To      string `json:"to"`
	Webhook string `json:"webhook,omitempty"`
	// Link is not written any more: a link is a credential, so servers
	// mint one when they need it rather than keep it. Records written by
	// older servers may carry one, which is not read.
	Link string `json:"link,omitempty"`
	// Asked is when the task began to wait; Expires when the link stops
	// working; Deadline when the ask times out (zero: it does not).
	Asked    time.Time `json:"asked"`
	Expires  time.Time `json:"expires"`
	Deadline time.Time `json:"deadline,omitzero"`
	// Waiter is set while a call waits for the answer inside itself (a
	// caller without tasks): until then, that call takes the answer or
	// the timeout, and no worker does.
	Waiter time.Time `json:"waiter,omitzero"`
	// Answered is set when the page's answer went to the waiting call
	// (Waiter): the task's State holds it, and the call goes on from it.
	Answered bool `json:"answered,omitempty"`
}
