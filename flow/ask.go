package flow

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/flowserve/flowserve/flow/state"
	"github.com/flowserve/flowserve/internal/jsonx"
	"github.com/flowserve/flowserve/schemas"
)

// violation is a schemas.Violation that prints as "field: reason".
type violation = schemas.Violation

// asking is a question the round ends with.
type asking struct {
	cn      *cnode
	invalid int    // invalid answers so far
	reason  string // why the last answer was not accepted, or ""
}

// ask handles an ask, sample or roots node on its own: replay its
// journaled answer, take the answer the client sent, or end the round
// asking it.
func (r *runner) ask(cn *cnode) (int, *Result, error) {
	e, err := r.replayed(cn, state.EntryAnswer)
	if err != nil {
		return 0, nil, err
	}
	if e != nil {
		v, err := r.decodeAnswer(cn, e.Value)
		if err != nil {
			return 0, nil, fmt.Errorf("journaled answer: %w", err)
		}
		r.pos++
		return r.after(cn, v), nil, nil
	}

	// The frontier: this question has no journaled answer.
	pos := r.pos
	first := !r.asked
	r.asked = true
	var pending *state.Pending
	for i := range r.pending {
		if r.pending[i].Position == pos {
			pending = &r.pending[i]
			break
		}
	}
	if pending != nil && (pending.Node != r.key(cn) || pending.Fingerprint != cn.fp || len(r.pending) > 1) {
		return 0, nil, r.mismatch(pos, pending.Node, "it asks a different question")
	}
	if r.req.State != "" && pending == nil && len(r.pending) > 0 && first {
		return 0, nil, r.mismatch(r.pending[0].Position, r.pending[0].Node, fmt.Sprintf("the run now reaches %s %q at position %s", cn.n.Kind, r.key(cn), r.posPath(pos)))
	}

	if cn.to != nil {
		res, err := r.approval(cn, pos, pending)
		return 0, res, err
	}

	if !r.capable(cn) {
		if cn.unavailable < 0 {
			return 0, nil, missing(r.key(cn), []string{cn.mode})
		}
		if err := r.recordUnavailable(cn); err != nil {
			return 0, nil, err
		}
		return cn.unavailable, nil, nil
	}

	q := asking{cn: cn}
	if pending != nil {
		q.invalid = pending.Invalid
	}
	answerable := pending != nil || (r.req.State == "" && first)
	taken, res, err := r.take(&q, answerable)
	if err != nil || res != nil {
		return 0, res, err
	}
	if !taken {
		res, err := r.suspend(pos, []asking{q})
		return 0, res, err
	}
	return r.after(cn, r.vars[cn.n.ID].(map[string]any)), nil, nil
}

// take takes the client's answer to q, if the client sent one it may use
// here: a good answer is journaled and bound (taken is true); an invalid
// one counts against the question's retries and leaves q.reason set; after
// too many, the round ends with an error result.
func (r *runner) take(q *asking, answerable bool) (taken bool, res *Result, err error) {
	cn := q.cn
	id := r.key(cn)
	raw, sent := r.req.Responses[id]
	if !sent || !answerable || r.used[id] {
		return false, nil, nil
	}
	r.used[id] = true
	rec, reason, err := r.parse(cn, raw)
	if err != nil {
		return false, nil, err
	}
	if reason != "" {
		r.req.Stats.answer(AnswerInvalid)
		q.invalid++
		q.reason = reason
		if q.invalid > cn.retries {
			tries := "try"
			if q.invalid > 1 {
				tries = "tries"
			}
			msg := fmt.Sprintf("the answer to %q was not accepted after %d %s: %s", id, q.invalid, tries, reason)
			return false, &Result{Complete: failResult(cn.name, msg)}, nil
		}
		return false, nil, nil
	}
	if err := r.recordAnswer(cn, rec); err != nil {
		return false, nil, err
	}
	return true, nil, nil
}

// all handles an all node: its questions are asked in one round, each
// answer is journaled as it comes (in the order they come), and the flow
// goes on when every question has its answer.
func (r *runner) all(cn *cnode) (int, *Result, error) {
	qs := cn.group
	done, left, err := r.replayAll(cn)
	if err != nil {
		return 0, nil, err
	}
	if left == 0 {
		return r.afterAll(cn), nil, nil
	}

	// The frontier: the questions without an answer are pending.
	first := !r.asked
	r.asked = true
	pending := map[string]*state.Pending{}
	for i := range r.pending {
		p := &r.pending[i]
		id, here := strings.CutPrefix(p.Node, r.prefix)
		j := r.member(qs, done, id)
		if !here || p.Position != r.pos || j < 0 || p.Fingerprint != qs[j].fp {
			if first && r.req.State != "" {
				return 0, nil, r.mismatch(p.Position, p.Node, fmt.Sprintf("the run now reaches all node %s at position %s", r.prefix+cn.n.Name(), r.posPath(r.pos)))
			}
			continue
		}
		pending[id] = p
	}

	var lacking []string
	for i, q := range qs {
		if !done[i] && !r.capable(q) {
			lacking = append(lacking, q.mode)
		}
	}
	if len(lacking) > 0 {
		if cn.unavailable < 0 {
			return 0, nil, missing(r.prefix+cn.n.Name(), lacking)
		}
		for i, q := range qs {
			if !done[i] {
				if err := r.recordUnavailable(q); err != nil {
					return 0, nil, err
				}
			}
		}
		return cn.unavailable, nil, nil
	}

	var asks []asking
	for i, q := range qs {
		if done[i] {
			continue
		}
		a := asking{cn: q}
		p := pending[q.n.ID]
		if p != nil {
			a.invalid = p.Invalid
		}
		taken, res, err := r.take(&a, p != nil || (r.req.State == "" && first))
		if err != nil || res != nil {
			return 0, res, err
		}
		if !taken {
			asks = append(asks, a)
		}
	}
	if len(asks) == 0 {
		return r.afterAll(cn), nil, nil
	}
	// The answers taken this round moved the frontier on.
	res, err := r.suspend(r.pos, asks)
	return 0, res, err
}

// replayAll replays the journaled answers of an all node's questions,
// which the journal holds one after the other in the order they were
// taken. done marks the questions answered; left counts the others.
func (r *runner) replayAll(cn *cnode) (done []bool, left int, err error) {
	qs := cn.group
	done = make([]bool, len(qs))
	left = len(qs)
	for left > 0 && r.pos < len(r.journal) {
		e := &r.journal[r.pos]
		i := r.member(qs, done, e.Node)
		if i < 0 {
			return nil, 0, r.mismatch(r.pos, e.Node, fmt.Sprintf("the run now reaches all node %s there", cn.n.Name()))
		}
		if e.Kind != state.EntryAnswer || e.Fingerprint != qs[i].fp {
			return nil, 0, r.mismatch(r.pos, e.Node, "it asks a different question")
		}
		v, err := r.decodeAnswer(qs[i], e.Value)
		if err != nil {
			return nil, 0, fmt.Errorf("journaled answer: %w", err)
		}
		r.vars[qs[i].n.ID] = v
		done[i] = true
		left--
		r.pos++
	}
	return done, left, nil
}

// member returns the index of the question of qs with the given id that
// has no answer yet, or -1.
func (r *runner) member(qs []*cnode, done []bool, id string) int {
	for i, q := range qs {
		if q.n.ID == id && !done[i] {
			return i
		}
	}
	return -1
}

// afterAll returns the node that follows an all node whose questions are
// all answered: its unavailable node when the client could not be asked.
func (r *runner) afterAll(cn *cnode) int {
	if cn.unavailable >= 0 {
		for _, q := range cn.group {
			if v, _ := r.vars[q.n.ID].(map[string]any); v["action"] == string(Unavailable) {
				return cn.unavailable
			}
		}
	}
	return cn.next
}

// after binds an answer and returns the node that follows the question.
func (r *runner) after(cn *cnode, v map[string]any) int {
	r.vars[cn.n.ID] = v
	switch v["action"] {
	case string(Unavailable):
		if cn.unavailable >= 0 {
			return cn.unavailable
		}
	case string(Timeout):
		if cn.onTimeout >= 0 {
			return cn.onTimeout
		}
	}
	return cn.next
}

// capable reports whether the client can be asked cn.
func (r *runner) capable(cn *cnode) bool {
	switch cn.mode {
	case ModeURL:
		return r.req.Client.URL
	case ModeSampling:
		return r.req.Client.Sampling
	case ModeRoots:
		return r.req.Client.Roots
	}
	return r.req.Client.Form
}

// question renders the question of cn; reason, when set, says why the
// last answer was not accepted.
func (r *runner) question(cn *cnode, pos int, reason string) (*InputRequest, error) {
	id := sha256.Sum256([]byte(r.runID + "/" + r.key(cn) + "/" + strconv.Itoa(pos)))
	q := &InputRequest{Mode: cn.mode, ID: hex.EncodeToString(id[:16])}
	switch cn.mode {
	case ModeSampling:
		params, err := r.sampleParams(cn.sample)
		if err != nil {
			return nil, err
		}
		q.Params = params
		return q, nil
	case ModeRoots:
		return q, nil
	}
	msg, err := cn.message.render(r.vars)
	if err != nil {
		return nil, err
	}
	if reason != "" {
		msg += RejectedPrefix + reason
		q.Rejected = reason
	}
	q.Message = msg
	if cn.mode == ModeURL {
		q.URL, err = cn.url.render(r.vars)
		if err != nil {
			return nil, err
		}
	} else {
		q.Schema, q.SchemaJSON, err = r.formSchema(cn)
		if err != nil {
			return nil, err
		}
	}
	return q, nil
}

// sampleParams renders the params of a sampling/createMessage request.
func (r *runner) sampleParams(s *csample) (map[string]any, error) {
	params := make(map[string]any, len(s.static)+2)
	for k, v := range s.static {
		params[k] = v
	}
	msgs := make([]any, 0, len(s.messages))
	for i, m := range s.messages {
		content, err := m.block(r.vars)
		if err != nil {
			return nil, fmt.Errorf("message %d: %w", i+1, err)
		}
		msgs = append(msgs, map[string]any{"role": m.role, "content": content})
	}
	params["messages"] = msgs
	if s.system != nil {
		sys, err := s.system.render(r.vars)
		if err != nil {
			return nil, fmt.Errorf("system: %w", err)
		}
		params["systemPrompt"] = sys
	}
	return params, nil
}

// suspend ends the round asking the given questions, all pending at pos;
// the state records the journal and the pending questions. A round over
// its Detach budget hands them to a task instead.
func (r *runner) suspend(pos int, asks []asking) (*Result, error) {
	pending := make([]state.Pending, 0, len(asks))
	requests := make(map[string]*InputRequest, len(asks))
	for _, a := range asks {
		q, err := r.question(a.cn, pos, a.reason)
		if err != nil {
			return nil, err
		}
		key := r.key(a.cn)
		requests[key] = q
		pending = append(pending, state.Pending{Node: key, Position: pos, Fingerprint: a.cn.fp, Invalid: a.invalid})
	}
	d := r.req.Detach
	detach := d != nil && d.Rounds > 0 && r.number > d.Rounds
	ttl := r.req.StateTTL
	if detach {
		ttl = d.TTL
	}
	token, err := r.seal(r.number, pending, ttl)
	if err != nil {
		return nil, err
	}
	in := &InputRequired{Requests: requests, State: token}
	if detach {
		return &Result{Detached: &Detached{State: token, Input: in}}, nil
	}
	return &Result{Input: in}, nil
}

// seal seals the run's state as of now: the journal so far, the given
// round number and pending questions, for ttl (0: the codec's TTL).
func (r *runner) seal(round int, pending []state.Pending, ttl time.Duration) (string, error) {
	st := *r.st
	st.Round = round
	st.FlowHash = r.root.file.Version
	st.Journal = r.journal
	st.Pending = pending
	token, err := r.e.codec.SealFor(&st, ttl)
	if errors.Is(err, state.ErrTooLarge) {
		// Not wrapped: this is the server's problem, not an invalid
		// requestState from the client.
		return "", fmt.Errorf("the run's state is too large to send (%v); do its steps return large results?", err)
	}
	if err != nil {
		return "", fmt.Errorf("seal state: %w", err)
	}
	return token, nil
}

// parse decodes one inputResponses entry for cn and checks it. It returns
// the record to journal, or the reason the answer is not accepted; a
// response of the wrong shape is a *ResponseError.
func (r *runner) parse(cn *cnode, raw json.RawMessage) (rec answerRecord, reason string, err error) {
	key := r.key(cn)
	v, err := jsonx.Parse(raw)
	if err != nil {
		return rec, "", &ResponseError{Key: key, Reason: "it is not valid JSON"}
	}
	switch cn.mode {
	case ModeSampling:
		res, err := parseSampling(key, v)
		return answerRecord{Action: Accept, Result: res}, "", err
	case ModeRoots:
		roots, err := parseRoots(key, v)
		return answerRecord{Action: Accept, Roots: roots}, "", err
	}
	action, content, err := parseElicitResult(key, v)
	if err != nil {
		return rec, "", err
	}
	rec = answerRecord{Action: action}
	if action == Accept {
		content = r.acceptedContent(cn, content)
		reason, err := r.check(cn, content)
		if err != nil || reason != "" {
			return answerRecord{}, reason, err
		}
		rec.Content = content
	}
	return rec, "", nil
}

// acceptedContent types the numbers of accepted content by the form and
// adds the form's defaults for omitted fields.
func (r *runner) acceptedContent(cn *cnode, content map[string]any) map[string]any {
	if content == nil {
		content = map[string]any{}
	}
	return normalize(withDefaults(content, r.formDefaults(cn)), cn.formDoc).(map[string]any)
}

// check validates accepted content against the form's schema and then
// the ask's validate rules. It returns the reason the answer is not
// accepted, or "".
func (r *runner) check(cn *cnode, content map[string]any) (string, error) {
	if cn.form != nil {
		if vs := cn.form.Validate(content); len(vs) > 0 {
			return violationsText(vs), nil
		}
	}
	if len(cn.rules) == 0 {
		return "", nil
	}
	prev, had := r.vars[cn.n.ID]
	r.vars[cn.n.ID] = askValue(Accept, content)
	defer func() {
		if had {
			r.vars[cn.n.ID] = prev
		} else {
			delete(r.vars, cn.n.ID)
		}
	}()
	for _, rule := range cn.rules {
		ok, err := rule.cond.test(r.vars)
		if err != nil {
			return "", err
		}
		if !ok {
			msg, err := rule.message.render(r.vars)
			if err != nil {
				return "", err
			}
			if msg == "" {
				msg = fmt.Sprintf("%s is false", rule.cond.src.Src)
			}
			return msg, nil
		}
	}
	return "", nil
}

// recordUnavailable journals and binds that the client could not be
// asked cn.
func (r *runner) recordUnavailable(cn *cnode) error {
	return r.recordAnswer(cn, answerRecord{Action: Unavailable})
}

// recordAnswer journals an answer record and binds its value.
func (r *runner) recordAnswer(cn *cnode, rec answerRecord) error {
	r.req.Stats.answer(string(rec.Action))
	b, err := rec.encode()
	if err != nil {
		return fmt.Errorf("encode answer: %w", err)
	}
	if err := r.record(state.Entry{Kind: state.EntryAnswer, Node: cn.n.ID, Fingerprint: cn.fp, Value: b}); err != nil {
		return err
	}
	r.vars[cn.n.ID] = answerValue(cn, rec)
	return nil
}

// decodeAnswer turns a journaled answer back into the question's value.
func (r *runner) decodeAnswer(cn *cnode, raw []byte) (map[string]any, error) {
	rec, err := decodeAnswerRecord(raw, cn.mode)
	if err != nil {
		return nil, err
	}
	if rec.Content != nil && cn.mode == ModeForm {
		rec.Content = normalize(rec.Content, cn.formDoc).(map[string]any)
	}
	return answerValue(cn, rec), nil
}

// answerValue is the value a question's id has in expressions, from its
// journal record.
func answerValue(cn *cnode, rec answerRecord) map[string]any {
	switch cn.mode {
	case ModeSampling:
		return sampleValue(rec.Action, rec.Result)
	case ModeRoots:
		return rootsValue(rec.Action, rec.Roots)
	}
	if cn.to != nil {
		return approvalValue(rec)
	}
	return askValue(rec.Action, rec.Content)
}

// sampleValue is the value of a sample id: the model's reply.
func sampleValue(action Action, res map[string]any) map[string]any {
	str := func(k string) string { s, _ := res[k].(string); return s }
	blocks, ok := res["content"].([]any)
	if !ok && res["content"] != nil {
		blocks = []any{res["content"]}
	}
	var text []string
	for _, b := range blocks {
		if bm, _ := b.(map[string]any); bm["type"] == "text" {
			if t, ok := bm["text"].(string); ok {
				text = append(text, t)
			}
		}
	}
	var content any = map[string]any{}
	if res["content"] != nil {
		content = res["content"]
	}
	return map[string]any{
		"action":     action.value(),
		"accepted":   action == Accept,
		"role":       str("role"),
		"text":       strings.Join(text, "\n"),
		"model":      str("model"),
		"stopReason": str("stopReason"),
		"content":    content,
	}
}

// rootsValue is the value of a roots id.
func rootsValue(action Action, roots []any) map[string]any {
	list := make([]any, 0, len(roots))
	for _, e := range roots {
		m, _ := e.(map[string]any)
		name, _ := m["name"].(string)
		uri, _ := m["uri"].(string)
		list = append(list, map[string]any{"uri": uri, "name": name})
	}
	return map[string]any{"action": action.value(), "accepted": action == Accept, "roots": list}
}
