package dsl

import (
	"encoding/binary"
	"encoding/json"
	"hash/fnv"
)

// Fingerprint digests what makes a node's question or step what it is:
// kind, id, message, form, URL, action and inputs. Positions, `next` and
// comments do not count, so moving a node or editing elsewhere keeps
// journaled answers valid. The engine keys a run's journal on it, and
// version diffs compare it.
func (n *Node) Fingerprint() uint64 {
	h := fnv.New64a()
	put := func(s string) {
		var l [binary.MaxVarintLen64]byte
		h.Write(l[:binary.PutUvarint(l[:], uint64(len(s)))])
		h.Write([]byte(s))
	}
	put(n.Kind.String())
	put(n.ID)
	switch n.Kind {
	case KindAsk:
		if n.Ask.Message != nil {
			put(n.Ask.Message.Src)
		}
		if n.Ask.Form != nil {
			b, _ := json.Marshal(n.Ask.Form.Schema)
			put(string(b))
		}
		if n.Ask.URL != nil {
			put("url:" + n.Ask.URL.Src)
		}
		if n.Ask.Approval() {
			// Who is asked may change; that it is an approval may not.
			put("approval")
		}
	case KindStep:
		put(n.Step.Action.Value)
		b, _ := json.Marshal(n.Step.With.Source())
		put(string(b))
	case KindSample:
		b, _ := json.Marshal(sampleSource(n.Ask.Sample))
		put(string(b))
	case KindCall, KindLink:
		put(n.Call.Flow.Value)
		b, _ := json.Marshal(n.Call.With.Source())
		put(string(b))
	}
	return h.Sum64()
}

// sampleSource returns a sample request as JSON-like data with templates
// as their source text, for fingerprints.
func sampleSource(s *Sample) any {
	if s == nil {
		return nil
	}
	var msgs []any
	for _, m := range s.Messages {
		msg := map[string]any{"role": m.Role.Value}
		if m.Text != nil {
			msg["text"] = m.Text.Src
		}
		if m.Content != nil {
			msg["content"] = m.Content.Source()
		}
		msgs = append(msgs, msg)
	}
	out := map[string]any{"messages": msgs, "maxTokens": s.MaxTokens}
	if s.System != nil {
		out["system"] = s.System.Src
	}
	if s.Temperature != nil {
		out["temperature"] = *s.Temperature
	}
	var stop []string
	for _, st := range s.Stop {
		stop = append(stop, st.Value)
	}
	if stop != nil {
		out["stop"] = stop
	}
	if s.Model != nil {
		out["model"] = s.Model.Value
	}
	return out
}

// Source returns the value as JSON-like data with templates as their
// source text, for fingerprints.
func (v *Value) Source() any {
	if v == nil {
		return nil
	}
	switch v.Kind {
	case ValueLiteral:
		return v.Literal
	case ValueTemplate:
		return v.Template.Src
	case ValueMap:
		m := make(map[string]any, len(v.Keys))
		for i, k := range v.Keys {
			m[k] = v.Map[i].Source()
		}
		return m
	case ValueList:
		l := make([]any, len(v.List))
		for i, e := range v.List {
			l[i] = e.Source()
		}
		return l
	}
	return nil
}
