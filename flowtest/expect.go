package flowtest

import (
	"fmt"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/flowserve/flowserve/dsl"
	"github.com/flowserve/flowserve/internal/yamlx"
)

// Expect holds a case's expectations. Nil fields are not checked, except
// IsError, which is false when not given.
type Expect struct {
	Pos                dsl.Pos
	Text               *StringExp
	TextContains       []StringExp
	Structured         *ValueExp
	StructuredContains *ValueExp
	IsError            *BoolExp
	Error              *StringExp
	Path               *ListExp
	Visits             []ListExp
	NotVisits          *ListExp
	Asks               *ListExp
	// Statuses are the task statuses the call goes through, in order,
	// without repeats (working, input_required, completed, failed); empty
	// when the call never becomes a task.
	Statuses    *ListExp
	AskMessages map[string]*ListExp
	StepInputs  map[string]*ValueExp
	// Notifications are the webhook notifications of the approvals the
	// call asks, in order: one per approval asked with a webhook.
	Notifications *NotificationsExp
	// Messages and Description are a prompt flow's: Messages holds a list
	// of {role, content} mappings ({role, text} written short).
	Messages    *ValueExp
	Description *StringExp
}

// NotificationsExp is expect.notifications: the notifications the
// approvals' webhooks would receive (approvals.Notification), in order.
type NotificationsExp struct {
	Pos  dsl.Pos
	List []NotificationExp
}

// NotificationExp is one expected notification: the fields it has, each
// equal to its string, and the texts its text contains.
type NotificationExp struct {
	Pos          dsl.Pos
	Fields       map[string]StringExp // by JSON field name: tool, task, question, message, to, link, expires, text
	TextContains []StringExp
}

// StringExp is an expected string.
type StringExp struct {
	Pos   dsl.Pos
	Value string
}

// BoolExp is an expected boolean.
type BoolExp struct {
	Pos   dsl.Pos
	Value bool
}

// ValueExp is an expected JSON-like value.
type ValueExp struct {
	Pos   dsl.Pos
	Value any
}

// ListExp is an expected list of strings, each with its position.
type ListExp struct {
	Pos   dsl.Pos
	Items []string
	Poss  []dsl.Pos
}

// expect decodes a case's expectations.
func (d *decoder) expect(k, n *yaml.Node, x *Expect) {
	x.Pos = d.pos(k)
	for _, e := range d.mapping(n, "expect", expectKeys) {
		pos := d.pos(e.Key)
		switch e.Name {
		case "text", "error", "description":
			if s, ok := d.yr.String(e.Value, e.Name); ok {
				se := &StringExp{Pos: pos, Value: s}
				switch e.Name {
				case "text":
					x.Text = se
				case "error":
					x.Error = se
				default:
					x.Description = se
				}
			}
		case "messages":
			x.Messages = d.messages(e.Key, e.Value)
		case "text_contains":
			if yamlx.Resolve(e.Value).Kind == yaml.SequenceNode {
				for _, item := range d.seq(e.Value, e.Name) {
					if s, ok := d.yr.String(item, e.Name); ok {
						x.TextContains = append(x.TextContains, StringExp{Pos: d.pos(item), Value: s})
					}
				}
			} else if s, ok := d.yr.String(e.Value, e.Name); ok {
				x.TextContains = append(x.TextContains, StringExp{Pos: pos, Value: s})
			}
		case "structured", "structured_contains":
			if v, ok := d.yr.Value(e.Value); ok {
				ve := &ValueExp{Pos: pos, Value: v}
				if e.Name == "structured" {
					x.Structured = ve
				} else {
					x.StructuredContains = ve
				}
			}
		case "is_error":
			if b, ok := d.yr.Bool(e.Value, e.Name); ok {
				x.IsError = &BoolExp{Pos: pos, Value: b}
			}
		case "path", "not_visits", "asks", "statuses":
			l := d.list(e.Key, e.Value, e.Name)
			switch e.Name {
			case "path":
				x.Path = l
			case "not_visits":
				x.NotVisits = l
			case "asks":
				x.Asks = l
			case "statuses":
				x.Statuses = l
			}
		case "visits":
			x.Visits = d.visits(e)
		case "notifications":
			x.Notifications = d.notifications(e)
		case "ask_messages":
			x.AskMessages = d.askMessages(e)
		case "step_inputs":
			x.StepInputs = map[string]*ValueExp{}
			for _, m := range d.mapping(e.Value, e.Name, nil) {
				if v, ok := d.yr.Value(m.Value); ok {
					x.StepInputs[m.Name] = &ValueExp{Pos: d.pos(m.Key), Value: v}
				}
			}
		}
	}
}

// notifications decodes expect.notifications: a list of mappings from a
// notification's fields to the strings they equal, and text_contains, a
// text or a list of texts its text contains.
func (d *decoder) notifications(e entry) *NotificationsExp {
	out := &NotificationsExp{Pos: d.pos(e.Key), List: []NotificationExp{}}
	if yamlx.IsNull(yamlx.Resolve(e.Value)) {
		return out
	}
	for _, item := range d.seq(e.Value, e.Name) {
		if yamlx.Resolve(item).Kind != yaml.MappingNode {
			d.errorf(item, CodeBadType, "notifications: a notification is a mapping of its fields (%s), not %s",
				strings.Join(notificationKeys, ", "), yamlx.TypeName(item))
			continue
		}
		n := NotificationExp{Pos: d.pos(item), Fields: map[string]StringExp{}}
		for _, f := range d.notificationFields(item) {
			if f.Name == "text_contains" && yamlx.Resolve(f.Value).Kind == yaml.SequenceNode {
				for _, t := range d.seq(f.Value, "notifications.text_contains") {
					if s, ok := d.yr.String(t, "notifications.text_contains"); ok {
						n.TextContains = append(n.TextContains, StringExp{Pos: d.pos(t), Value: s})
					}
				}
				continue
			}
			s, ok := d.yr.String(f.Value, "notifications."+f.Name)
			if !ok {
				continue
			}
			if f.Name == "text_contains" {
				n.TextContains = append(n.TextContains, StringExp{Pos: d.pos(f.Key), Value: s})
			} else {
				n.Fields[f.Name] = StringExp{Pos: d.pos(f.Key), Value: s}
			}
		}
		out.List = append(out.List, n)
	}
	return out
}

// notificationFields returns the entries of an expected notification,
// reporting unknown keys.
func (d *decoder) notificationFields(n *yaml.Node) []entry {
	pairs, _ := d.yr.Mapping(n, "a notification")
	var out []entry
	for _, e := range pairs {
		if slices.Contains(notificationKeys, e.Name) {
			out = append(out, e)
			continue
		}
		msg := fmt.Sprintf("unknown key %q in a notification", e.Name)
		switch s := dsl.Suggest(e.Name, notificationKeys); {
		case e.Name == "run":
			msg += "; run ids are random in tests (run.id), so a notification's run cannot be expected"
		case s != "":
			msg += fmt.Sprintf("; did you mean %q?", s)
		default:
			msg += "; a notification has " + strings.Join(notificationKeys, ", ")
		}
		d.errorAt(d.pos(e.Key), CodeUnknownKey, "%s", msg)
	}
	return out
}

// visits decodes expect.visits: a list of ids, or of lists of ids.
func (d *decoder) visits(e entry) []ListExp {
	var out []ListExp
	for _, item := range d.seq(e.Value, e.Name) {
		if yamlx.Resolve(item).Kind == yaml.SequenceNode {
			if l := d.list(item, item, e.Name); l != nil {
				out = append(out, *l)
			}
		} else if s, ok := d.yr.String(item, e.Name); ok {
			out = append(out, ListExp{Pos: d.pos(item), Items: []string{s}, Poss: []dsl.Pos{d.pos(item)}})
		}
	}
	return out
}

// askMessages decodes expect.ask_messages: by question, a text or a list
// of texts.
func (d *decoder) askMessages(e entry) map[string]*ListExp {
	out := map[string]*ListExp{}
	for _, m := range d.mapping(e.Value, e.Name, nil) {
		if yamlx.Resolve(m.Value).Kind == yaml.SequenceNode {
			if l := d.list(m.Key, m.Value, e.Name); l != nil {
				out[m.Name] = l
			}
		} else if s, ok := d.yr.String(m.Value, e.Name); ok {
			out[m.Name] = &ListExp{Pos: d.pos(m.Key), Items: []string{s}, Poss: []dsl.Pos{d.pos(m.Value)}}
		}
	}
	return out
}

// messages decodes the expected messages of a prompt: a list of
// {role, content} mappings, where {role, text} stands for a text block.
func (d *decoder) messages(k, n *yaml.Node) *ValueExp {
	items := d.seq(n, "messages")
	if items == nil && yamlx.Resolve(n).Kind != yaml.SequenceNode {
		return nil
	}
	var out []any
	for _, item := range items {
		v, ok := d.yr.Value(item)
		if !ok {
			continue
		}
		m, isMap := v.(map[string]any)
		if !isMap {
			d.errorf(item, CodeBadType, "messages: a message is a mapping {role, text} or {role, content}")
			continue
		}
		if text, has := m["text"]; has {
			if _, both := m["content"]; both {
				d.errorf(item, CodeBadValue, "messages: a message has text or content, not both")
				continue
			}
			delete(m, "text")
			m["content"] = map[string]any{"type": "text", "text": text}
		}
		out = append(out, m)
	}
	if out == nil {
		out = []any{}
	}
	return &ValueExp{Pos: d.pos(k), Value: out}
}

// list decodes a list of strings. Null reads as an empty list.
func (d *decoder) list(k, n *yaml.Node, where string) *ListExp {
	l := &ListExp{Pos: d.pos(k)}
	if yamlx.IsNull(yamlx.Resolve(n)) {
		return l
	}
	for _, item := range d.seq(n, where) {
		s, ok := d.yr.String(item, where)
		if !ok {
			return nil
		}
		l.Items = append(l.Items, s)
		l.Poss = append(l.Poss, d.pos(item))
	}
	return l
}
