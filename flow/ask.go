package flow

import (
	"encoding/json"
	"fmt"

	"github.com/flowserve/flowserve/flow/state"
	"github.com/flowserve/flowserve/internal/jsonx"
	"github.com/flowserve/flowserve/schemas"
)

// violation is a schemas.Violation that prints as "field: reason".
type violation = schemas.Violation

// answer is a decoded elicitation result.
type answer struct {
	Action  string         `json:"action"`
	Content map[string]any `json:"content"`
}

// ask handles an ask node: replay its journaled answer, take the answer
// the client sent, or end the round asking it.
func (r *runner) ask(cn *cnode) (int, *Result, error) {
	e, err := r.replayed(cn, state.EntryAnswer)
	if err != nil {
		return 0, nil, err
	}
	if e != nil {
		a, err := r.decodeAnswer(cn, e.Value)
		if err != nil {
			return 0, nil, fmt.Errorf("journaled answer: %w", err)
		}
		r.pos++
		return r.after(cn, a), nil, nil
	}

	// The frontier: this question has no journaled answer.
	pos := r.pos
	first := !r.asked
	r.asked = true
	var pending *state.Pending
	for i := range r.st.Pending {
		if r.st.Pending[i].Position == pos {
			pending = &r.st.Pending[i]
		}
	}
	if pending != nil && (pending.Node != cn.n.ID || pending.Fingerprint != cn.fp) {
		return 0, nil, &MismatchError{Position: pos, Node: pending.Node, Reason: "it asks a different question"}
	}
	if r.req.State != "" && pending == nil && len(r.st.Pending) > 0 && first {
		return 0, nil, &MismatchError{Position: r.st.Pending[0].Position, Node: r.st.Pending[0].Node,
			Reason: fmt.Sprintf("the run now reaches ask %q at position %d", cn.n.ID, pos)}
	}

	if !r.capable(cn) {
		if cn.unavailable < 0 {
			mode := "form"
			if cn.url != nil {
				mode = "url"
			}
			return 0, nil, &MissingCapabilityError{Node: cn.n.ID, Mode: mode,
				Required: map[string]any{"elicitation": map[string]any{mode: map[string]any{}}}}
		}
		a := askValue("unavailable", nil)
		if err := r.recordAnswer(cn, "unavailable", nil); err != nil {
			return 0, nil, err
		}
		r.vars[cn.n.ID] = a
		return cn.unavailable, nil, nil
	}

	invalid := 0
	if pending != nil {
		invalid = pending.Invalid
	}
	raw, sent := r.req.Responses[cn.n.ID]
	answerable := (pending != nil || (r.req.State == "" && first)) && !r.used[cn.n.ID]
	if !sent || !answerable {
		q, err := r.question(cn, pos, "")
		if err != nil {
			return 0, nil, err
		}
		res, err := r.suspend(cn, pos, q, invalid)
		return 0, res, err
	}
	r.used[cn.n.ID] = true

	a, err := parseAnswer(cn.n.ID, raw)
	if err != nil {
		return 0, nil, err
	}
	var content map[string]any
	if a.Action == "accept" {
		content = r.acceptedContent(cn, a.Content)
		if reason, err := r.check(cn, content); err != nil {
			return 0, nil, err
		} else if reason != "" {
			r.req.Stats.answer("invalid")
			invalid++
			if invalid > cn.retries {
				tries := "try"
				if invalid > 1 {
					tries = "tries"
				}
				msg := fmt.Sprintf("the answer to %q was not accepted after %d %s: %s", cn.n.ID, invalid, tries, reason)
				return 0, &Result{Complete: textResult(msg, true)}, nil
			}
			q, err := r.question(cn, pos, reason)
			if err != nil {
				return 0, nil, err
			}
			res, err := r.suspend(cn, pos, q, invalid)
			return 0, res, err
		}
	}
	if err := r.recordAnswer(cn, a.Action, content); err != nil {
		return 0, nil, err
	}
	return r.after(cn, askValue(a.Action, content)), nil, nil
}

// after binds an answer and returns the node that follows the ask.
func (r *runner) after(cn *cnode, a map[string]any) int {
	r.vars[cn.n.ID] = a
	if a["action"] == "unavailable" && cn.unavailable >= 0 {
		return cn.unavailable
	}
	return cn.next
}

// capable reports whether the client can be asked cn.
func (r *runner) capable(cn *cnode) bool {
	if cn.url != nil {
		return r.req.Client.URL
	}
	return r.req.Client.Form
}

// parseAnswer decodes one inputResponses entry; anything that is not an
// elicitation result is a *ResponseError.
func parseAnswer(key string, raw json.RawMessage) (*answer, error) {
	v, err := jsonx.Parse(raw)
	if err != nil {
		return nil, &ResponseError{Key: key, Reason: "it is not valid JSON"}
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, &ResponseError{Key: key, Reason: "it must be an object with an action"}
	}
	a := &answer{}
	a.Action, _ = m["action"].(string)
	switch a.Action {
	case "accept", "decline", "cancel":
	case "":
		return nil, &ResponseError{Key: key, Reason: "action must be accept, decline or cancel"}
	default:
		return nil, &ResponseError{Key: key, Reason: fmt.Sprintf("action must be accept, decline or cancel, not %q", a.Action)}
	}
	switch c := m["content"].(type) {
	case nil:
	case map[string]any:
		a.Content = c
	default:
		return nil, &ResponseError{Key: key, Reason: "content must be an object"}
	}
	return a, nil
}

// acceptedContent types the numbers of accepted content by the form and
// adds the form's defaults for omitted fields.
func (r *runner) acceptedContent(cn *cnode, content map[string]any) map[string]any {
	if content == nil {
		content = map[string]any{}
	}
	return normalize(withDefaults(content, cn.defaults), cn.formDoc).(map[string]any)
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
	r.vars[cn.n.ID] = askValue("accept", content)
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

// recordAnswer journals an answer.
func (r *runner) recordAnswer(cn *cnode, action string, content map[string]any) error {
	r.req.Stats.answer(action)
	v := map[string]any{"action": action}
	if len(content) > 0 {
		v["content"] = content
	}
	b, err := marshal(v)
	if err != nil {
		return fmt.Errorf("encode answer: %w", err)
	}
	return r.record(state.Entry{Kind: state.EntryAnswer, Node: cn.n.ID, Fingerprint: cn.fp, Value: b})
}

// decodeAnswer turns a journaled answer back into the ask's value.
func (r *runner) decodeAnswer(cn *cnode, raw []byte) (map[string]any, error) {
	v, err := jsonx.Parse(raw)
	if err != nil {
		return nil, err
	}
	m, _ := v.(map[string]any)
	action, _ := m["action"].(string)
	content, _ := m["content"].(map[string]any)
	if content != nil {
		content = normalize(content, cn.formDoc).(map[string]any)
	}
	return askValue(action, content), nil
}
