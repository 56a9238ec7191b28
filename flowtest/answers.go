package flowtest

import (
	"encoding/json"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/flowserve/flowserve/dsl"
	"github.com/flowserve/flowserve/internal/yamlx"
)

// Answers are the answers a case gives one question.
type Answers struct {
	Pos dsl.Pos
	// Every is true when a single answer was given: it answers the
	// question every time it is asked. Otherwise List is used in turn.
	Every bool
	List  []Answer
}

// Answer is one reply to a question: an elicitation result (for an ask),
// a sampling result (for a sample node) or a roots result (for a roots
// node). An approval (an ask with to:) is answered with an elicitation
// result too, by By, or times out.
type Answer struct {
	Pos  dsl.Pos
	Kind dsl.Kind        // KindAsk, KindSample or KindRoots
	Raw  json.RawMessage // the result as a client sends it; nil for a timeout
	// Action is an ask's answer's action: accept, decline or cancel, or
	// timeout (Timeout); "" for the other kinds.
	Action string
	// By is who answers an approval (`by:`); "" means DefaultBy. Only
	// approvals take it.
	By string
	// Timeout means the approval is not answered before its timeout: the
	// flow takes its on_timeout node. Only approvals take it.
	Timeout bool
}

// DefaultBy is who answers an approval in a case that does not say (an
// answer without `by:`): the approval's answered_by.
const DefaultBy = "flowserve test"

// actionTimeout is the answer that lets an approval time out.
const actionTimeout = "timeout"

// answers decodes the answers to one question: one answer, or a list.
func (d *decoder) answers(k, v *yaml.Node) *Answers {
	as := &Answers{Pos: d.pos(k)}
	if yamlx.Resolve(v).Kind == yaml.SequenceNode {
		items := d.seq(v, "answers")
		if len(items) == 0 {
			d.errorf(v, CodeBadAnswer, "the list of answers to %q is empty", k.Value)
			return nil
		}
		good := true
		for _, item := range items {
			a, ok := d.answer(item)
			good = good && ok
			as.List = append(as.List, a)
		}
		if !good {
			return nil
		}
		return as
	}
	a, ok := d.answer(v)
	if !ok {
		return nil
	}
	as.Every = true
	as.List = []Answer{a}
	return as
}

// answer decodes one answer: accept, decline or cancel, or a mapping of
// action (default accept) and content, for an ask, with by (who answered)
// for an approval, or timeout (an approval nobody answered); {text, model,
// stop_reason}, the model's reply, for a sample node; {roots: [{uri,
// name}]} for a roots node.
func (d *decoder) answer(n *yaml.Node) (Answer, bool) {
	a := Answer{Pos: d.pos(n), Kind: dsl.KindAsk}
	parts := answerParts{action: "accept", sampling: map[string]any{}}
	switch rn := yamlx.Resolve(n); rn.Kind {
	case yaml.ScalarNode:
		parts.action = rn.Value
	case yaml.MappingNode:
		if !d.answerMapping(n, &parts) {
			return a, false
		}
		a.Kind = parts.kind
	default:
		d.errorf(n, CodeBadAnswer, "an answer is accept, decline, cancel, timeout or a mapping {action, content}")
		return a, false
	}
	switch a.Kind {
	case dsl.KindSample:
		text, _ := parts.sampling["text"].(string)
		reply := map[string]any{"role": "assistant", "content": map[string]any{"type": "text", "text": text}, "model": "flowserve-test", "stopReason": "endTurn"}
		if m, ok := parts.sampling["model"]; ok {
			reply["model"] = m
		}
		if r, ok := parts.sampling["stop_reason"]; ok {
			reply["stopReason"] = r
		}
		a.Raw, _ = json.Marshal(reply)
		return a, true
	case dsl.KindRoots:
		roots := parts.roots
		if roots == nil {
			roots = []any{}
		}
		a.Raw, _ = json.Marshal(map[string]any{"roots": roots})
		return a, true
	}
	a.Action, a.By = parts.action, parts.by
	switch parts.action {
	case "accept":
	case "decline", "cancel":
		if parts.content != nil {
			d.errorf(n, CodeBadAnswer, "content goes only with action accept, not %s", parts.action)
			return a, false
		}
	case actionTimeout:
		switch {
		case parts.content != nil:
			d.errorf(n, CodeBadAnswer, "content goes only with action accept, not timeout")
			return a, false
		case parts.hasBy:
			d.errorf(n, CodeBadAnswer, "by goes only with an answer: nobody answers an approval that times out")
			return a, false
		}
		a.Timeout = true
		return a, true
	default:
		d.errorf(n, CodeBadAnswer, "action must be accept, decline, cancel or timeout, not %q", parts.action)
		return a, false
	}
	m := map[string]any{"action": parts.action}
	if parts.content != nil {
		m["content"] = parts.content
	}
	a.Raw, _ = json.Marshal(m)
	return a, true
}

// answerParts are the keys of an answer written as a mapping.
type answerParts struct {
	kind     dsl.Kind // KindAsk, KindSample or KindRoots, from the keys
	action   string
	content  map[string]any
	by       string // who answered an approval
	hasBy    bool
	sampling map[string]any // text, model, stop_reason
	roots    []any
}

// answerMapping reads an answer written as a mapping into parts. It
// reports false when the answer has errors.
func (d *decoder) answerMapping(n *yaml.Node, parts *answerParts) bool {
	kinds := map[dsl.Kind]string{}
	for _, e := range d.mapping(n, "an answer", answerKeys) {
		switch e.Name {
		case "action":
			kinds[dsl.KindAsk] = e.Name
			parts.action, _ = d.yr.String(e.Value, "action")
		case "content":
			kinds[dsl.KindAsk] = e.Name
			v, ok := d.yr.Value(e.Value)
			if !ok {
				return false
			}
			m, isMap := v.(map[string]any)
			if !isMap {
				d.errorf(e.Value, CodeBadAnswer, "content must be a mapping of the form's fields")
				return false
			}
			parts.content = m
		case "by":
			kinds[dsl.KindAsk] = e.Name
			by, ok := d.yr.String(e.Value, "by")
			if !ok {
				return false
			}
			if strings.TrimSpace(by) == "" {
				d.errorf(e.Value, CodeBadAnswer, "by names who answered the approval; it must not be empty")
				return false
			}
			parts.by, parts.hasBy = by, true
		case "text", "model", "stop_reason":
			kinds[dsl.KindSample] = e.Name
			v, ok := d.yr.String(e.Value, e.Name)
			if !ok {
				return false
			}
			parts.sampling[e.Name] = v
		case "roots":
			kinds[dsl.KindRoots] = e.Name
			if parts.roots = d.roots(e.Value); parts.roots == nil {
				return false
			}
		}
	}
	if len(kinds) > 1 {
		d.errorf(n, CodeBadAnswer, "an answer is an elicitation result {action, content}, a model reply {text, model, stop_reason} or roots {roots}, not a mix of them")
		return false
	}
	parts.kind = dsl.KindAsk
	for k := range kinds {
		parts.kind = k
	}
	return true
}

// roots reads the roots of an answer: a list of {uri, name}. It returns
// nil when they have errors.
func (d *decoder) roots(n *yaml.Node) []any {
	v, ok := d.yr.Value(n)
	if !ok {
		return nil
	}
	list, isList := v.([]any)
	for _, r := range list {
		if m, _ := r.(map[string]any); m == nil || m["uri"] == nil {
			isList = false
		}
	}
	if !isList {
		d.errorf(n, CodeBadAnswer, "roots must be a list of {uri, name}")
		return nil
	}
	return list
}
