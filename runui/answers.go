package runui

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Script answers questions from an answers file: for each ask id, one
// answer used every time the question is asked, or a list of answers
// used in turn (for questions asked again after an answer that was not
// accepted, and for questions in loops).
type Script struct {
	answers map[string]*scripted
}

// scripted are the answers to one question.
type scripted struct {
	list  []*Answer
	every bool // one answer, used every time
	used  int
}

// ParseAnswers reads an answers file in the format of the answers of
// `flowserve test` cases: a YAML mapping from ask id to one answer (used
// every time the question is asked) or a list of answers (used in turn).
// An answer is accept, decline or cancel, or a mapping {action, content}
// whose action defaults to accept; an approval's (an ask with to:) may
// say who answered (by) or be timeout. name is used in error messages.
func ParseAnswers(name string, src []byte) (*Script, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil {
		return nil, fmt.Errorf("%s: %v", name, strings.TrimPrefix(err.Error(), "yaml: "))
	}
	s := &Script{answers: map[string]*scripted{}}
	if len(doc.Content) == 0 {
		return s, nil
	}
	root := doc.Content[0]
	if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
		return s, nil
	}
	if root.Kind != yaml.MappingNode {
		return nil, fmt.Errorf("%s:%d:%d: answers must be a mapping from ask id to answers", name, root.Line, root.Column)
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		key, val := root.Content[i], root.Content[i+1]
		id := key.Value
		sc := &scripted{}
		items := []*yaml.Node{val}
		if val.Kind == yaml.SequenceNode {
			items = val.Content
			if len(items) == 0 {
				return nil, fmt.Errorf("%s:%d:%d: the list of answers to %q is empty", name, val.Line, val.Column, id)
			}
		} else {
			sc.every = true
		}
		for _, item := range items {
			a, err := parseAnswer(item)
			if err != nil {
				return nil, fmt.Errorf("%s:%d:%d: answer to %q: %v", name, item.Line, item.Column, id, err)
			}
			sc.list = append(sc.list, a)
		}
		s.answers[id] = sc
	}
	return s, nil
}

// parseAnswer reads one answer: accept, decline, cancel or timeout, or a
// mapping {action, content, by} whose action defaults to accept.
func parseAnswer(n *yaml.Node) (*Answer, error) {
	a := &Answer{Action: ActionAccept}
	switch n.Kind {
	case yaml.ScalarNode:
		a.Action = n.Value
	case yaml.MappingNode:
		var m map[string]any
		if err := n.Decode(&m); err != nil {
			return nil, err
		}
		for k, v := range m {
			switch k {
			case "action":
				a.Action, _ = v.(string)
			case "content":
				if v == nil {
					continue
				}
				c, ok := v.(map[string]any)
				if !ok {
					return nil, fmt.Errorf("content must be a mapping of the form's fields")
				}
				a.Content = c
			case "by":
				by, ok := v.(string)
				if !ok || strings.TrimSpace(by) == "" {
					return nil, fmt.Errorf("by names who answered the approval: a name, not %v", v)
				}
				a.By = by
			default:
				return nil, fmt.Errorf("unknown key %q (an answer has action, content and, for an approval, by)", k)
			}
		}
	default:
		return nil, fmt.Errorf("an answer is accept, decline, cancel, timeout or a mapping {action, content}")
	}
	switch a.Action {
	case ActionAccept:
	case ActionDecline, ActionCancel, ActionTimeout:
		if a.Content != nil {
			return nil, fmt.Errorf("content goes only with action accept, not %s", a.Action)
		}
		if a.Action == ActionTimeout && a.By != "" {
			return nil, fmt.Errorf("by goes only with an answer: nobody answers an approval that times out")
		}
	default:
		return nil, fmt.Errorf("action must be accept, decline, cancel or timeout, not %q", a.Action)
	}
	return a, nil
}

// Answer returns the answer to q: its one answer, or the next unused one
// of its list.
func (s *Script) Answer(_ context.Context, q *Question) (*Answer, error) {
	sc := s.answers[q.ID]
	switch {
	case sc == nil:
		return nil, fmt.Errorf("%w: the answers have none for %q", ErrNoAnswer, q.ID)
	case sc.every:
		sc.used++
		return sc.list[0], nil
	case sc.used >= len(sc.list):
		return nil, fmt.Errorf("%w: %q was asked %d times and the answers have %d", ErrNoAnswer, q.ID, sc.used+1, len(sc.list))
	}
	sc.used++
	return sc.list[sc.used-1], nil
}

// Unused lists the ask ids with answers that were not used (a list not
// used up, or one answer never used), with how many, sorted.
func (s *Script) Unused() []string {
	var out []string
	for id, sc := range s.answers {
		n := len(sc.list) - sc.used
		if sc.every {
			n = 0
			if sc.used == 0 {
				n = 1
			}
		}
		if n > 0 {
			out = append(out, fmt.Sprintf("%s (%d)", id, n))
		}
	}
	sort.Strings(out)
	return out
}
