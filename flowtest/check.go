package flowtest

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/flowserve/flowserve/dsl"
	"github.com/flowserve/flowserve/flow"
	"github.com/flowserve/flowserve/internal/content"
	"github.com/flowserve/flowserve/internal/jsonx"
)

// check compares a finished case's outcome with its expectations.
func check(c *Case, o *outcome, fail func(dsl.Pos, Failure)) {
	x := &c.Expect
	checkResult(c, o, fail)
	checkPath(x, o, fail)
	checkAskMessages(x, o, fail)
	if x.Notifications != nil {
		checkNotifications(x.Notifications, o, fail)
	}
	checkStepInputs(x, o, fail)
}

// checkResult compares what the call returned (or its error) with the
// expectations about it: error, is_error, text, text_contains,
// structured, structured_contains and a prompt's.
func checkResult(c *Case, o *outcome, fail func(dsl.Pos, Failure)) {
	x := &c.Expect
	at := func(pos dsl.Pos) dsl.Pos {
		if pos.IsValid() {
			return pos
		}
		return c.Pos
	}
	text := ""
	switch {
	case o.result != nil:
		text = resultText(o.result.Content)
	case o.prompt != nil:
		text = promptText(o.prompt)
	}

	switch {
	case o.err != nil && x.Error == nil:
		fail(c.Pos, Failure{Message: "the call failed with an error instead of returning a result", Got: o.err.Error()})
	case o.err != nil:
		if !strings.Contains(o.err.Error(), x.Error.Value) {
			fail(x.Error.Pos, Failure{Message: "error: the call's error does not contain the text", Want: strconv.Quote(x.Error.Value), Got: strconv.Quote(o.err.Error())})
		}
	case x.Error != nil:
		fail(x.Error.Pos, Failure{Message: "error: want the call to fail with an error; it returned a result", Want: strconv.Quote(x.Error.Value), Got: strconv.Quote(text)})
	}

	if o.result != nil {
		want, pos := false, at(x.Pos)
		if x.IsError != nil {
			want, pos = x.IsError.Value, x.IsError.Pos
		}
		switch {
		case o.result.IsError && !want:
			msg := "the call ended with a tool error (add is_error: true if that is expected)"
			if x.IsError != nil {
				msg = "is_error: the call ended with a tool error"
			}
			fail(pos, Failure{Message: msg, Got: strconv.Quote(text)})
		case !o.result.IsError && want:
			fail(pos, Failure{Message: "is_error: want a tool error; the call succeeded", Got: strconv.Quote(text)})
		}
	}
	if o.prompt != nil && x.IsError != nil && x.IsError.Value {
		fail(x.IsError.Pos, Failure{Message: "is_error: want an error; the prompt returned its messages", Got: strconv.Quote(text)})
	}
	if o.result != nil || o.prompt != nil {
		if x.Text != nil && text != x.Text.Value {
			fail(x.Text.Pos, Failure{Message: "text: the result's text differs", Want: strconv.Quote(x.Text.Value), Got: strconv.Quote(text)})
		}
		for _, tc := range x.TextContains {
			if !strings.Contains(text, tc.Value) {
				fail(tc.Pos, Failure{Message: "text_contains: the result's text does not contain the text", Want: strconv.Quote(tc.Value), Got: strconv.Quote(text)})
			}
		}
	}
	if o.prompt != nil {
		checkPrompt(x, o.prompt, fail)
	}
	if o.result != nil {
		for _, se := range []struct {
			name     string
			exp      *ValueExp
			contains bool
		}{{"structured", x.Structured, false}, {"structured_contains", x.StructuredContains, true}} {
			if se.exp == nil {
				continue
			}
			var lines []string
			diffValues(se.exp.Value, o.result.Structured, "structured", se.contains, &lines)
			if len(lines) > 0 {
				fail(se.exp.Pos, Failure{Message: se.name + ": the structured content differs", Diff: capLines(lines), Got: jsonx.Text(o.result.Structured)})
			}
		}
	}
}

// checkPath compares the nodes the run visited, the questions it asked
// and the task statuses it went through with path, visits, not_visits,
// asks and statuses.
func checkPath(x *Expect, o *outcome, fail func(dsl.Pos, Failure)) {
	path := namedOnly(o.trace)
	if x.Path != nil && !equalStrings(x.Path.Items, path) {
		fail(x.Path.Pos, Failure{Message: "path: the nodes visited differ", Want: listText(x.Path.Items), Got: listText(path)})
	}
	for _, v := range x.Visits {
		if !subsequence(v.Items, o.trace) {
			msg := fmt.Sprintf("visits: the path does not visit %s", strings.Join(v.Items, " before "))
			if len(v.Items) == 1 {
				msg = fmt.Sprintf("visits: the path does not visit %s", v.Items[0])
			}
			fail(v.Pos, Failure{Message: msg, Got: listText(o.trace)})
		}
	}
	if x.NotVisits != nil {
		for i, name := range x.NotVisits.Items {
			for _, t := range o.trace {
				if t == name {
					fail(x.NotVisits.Poss[i], Failure{Message: fmt.Sprintf("not_visits: the path visits %s", name), Got: listText(o.trace)})
					break
				}
			}
		}
	}
	if x.Asks != nil && !equalStrings(x.Asks.Items, o.asks) {
		fail(x.Asks.Pos, Failure{Message: "asks: the questions asked differ", Want: listText(x.Asks.Items), Got: listText(o.asks)})
	}
	if x.Statuses != nil && !equalStrings(x.Statuses.Items, o.statuses) {
		fail(x.Statuses.Pos, Failure{Message: "statuses: the task statuses differ", Want: listText(x.Statuses.Items), Got: listText(o.statuses)})
	}
}

// checkAskMessages compares the messages of the questions asked with
// ask_messages.
func checkAskMessages(x *Expect, o *outcome, fail func(dsl.Pos, Failure)) {
	for _, id := range slices.Sorted(maps.Keys(x.AskMessages)) {
		l := x.AskMessages[id]
		msgs := o.msgs[id]
		for i, want := range l.Items {
			if i >= len(msgs) {
				fail(l.Poss[i], Failure{Message: fmt.Sprintf("ask_messages: there is a message for the %s time, but %q was asked %d %s", ordinal(i+1), id, len(msgs), times(len(msgs)))})
				break
			}
			if !strings.Contains(msgs[i], want) {
				what := "the question's message"
				if len(msgs) > 1 || len(l.Items) > 1 {
					what = fmt.Sprintf("the message the %s time %q was asked", ordinal(i+1), id)
				}
				fail(l.Poss[i], Failure{Message: fmt.Sprintf("ask_messages: %s does not contain the text", what), Want: strconv.Quote(want), Got: strconv.Quote(msgs[i])})
			}
		}
	}
}

// checkStepInputs compares step_inputs with the inputs the steps ran
// with.
func checkStepInputs(x *Expect, o *outcome, fail func(dsl.Pos, Failure)) {
	for _, id := range slices.Sorted(maps.Keys(x.StepInputs)) {
		e := x.StepInputs[id]
		in, ran := o.inputs[id]
		if !ran {
			fail(e.Pos, Failure{Message: fmt.Sprintf("step_inputs: the %s %q never ran", o.kind(id), id)})
			continue
		}
		var lines []string
		diffValues(e.Value, any(in), id, true, &lines)
		if len(lines) > 0 {
			fail(e.Pos, Failure{Message: fmt.Sprintf("step_inputs: the input of %q differs", id), Diff: capLines(lines), Got: jsonx.Text(in)})
		}
	}
}

// checkNotifications compares the notifications the case's approvals
// would post with expect.notifications: as many, in order, each with the
// fields given.
func checkNotifications(x *NotificationsExp, o *outcome, fail func(dsl.Pos, Failure)) {
	got := o.notifications
	if len(x.List) > 0 && len(got) == 0 {
		msg := "notifications: the flow asked no approval, so no webhook would be notified"
		if o.approvals > 0 {
			msg = fmt.Sprintf("notifications: the flow asked %d %s without a webhook (the ask has no notify, or its webhook rendered empty), so nothing would be notified",
				o.approvals, plural(o.approvals, "approval", "approvals"))
		}
		fail(x.Pos, Failure{Message: msg})
		return
	}
	if len(x.List) != len(got) {
		var qs []string
		for _, n := range got {
			qs = append(qs, n.Question)
		}
		fail(x.Pos, Failure{Message: fmt.Sprintf("notifications: want %d %s; the flow asked %d %s, and %d had a webhook to notify",
			len(x.List), plural(len(x.List), "notification", "notifications"), o.approvals, plural(o.approvals, "approval", "approvals"), len(got)),
			Got: listText(qs)})
		return
	}
	for i, want := range x.List {
		n := got[i]
		fields := map[string]string{"tool": n.Tool, "task": n.Task, "question": n.Question, "message": n.Message,
			"to": n.To, "link": n.Link, "expires": n.Expires, "text": n.Text}
		var lines []string
		for _, k := range slices.Sorted(maps.Keys(want.Fields)) {
			if w := want.Fields[k].Value; fields[k] != w {
				lines = append(lines, fmt.Sprintf("%s: want %s, got %s", k, strconv.Quote(w), strconv.Quote(fields[k])))
			}
		}
		for _, tc := range want.TextContains {
			if !strings.Contains(n.Text, tc.Value) {
				lines = append(lines, fmt.Sprintf("text: does not contain %s", strconv.Quote(tc.Value)))
			}
		}
		if len(lines) > 0 {
			what := "the notification"
			if len(got) > 1 {
				what = "the " + ordinal(i+1) + " notification"
			}
			fail(want.Pos, Failure{Message: fmt.Sprintf("notifications: %s (of %q) differs", what, n.Question), Diff: lines, Got: jsonx.Text(n)})
		}
	}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

func items(n int) string {
	if n == 1 {
		return "1 item"
	}
	return fmt.Sprintf("%d items", n)
}

func times(n int) string {
	if n == 1 {
		return "time"
	}
	return "times"
}

// checkPrompt compares a prompt flow's messages and description with the
// case's expectations.
func checkPrompt(x *Expect, pr *flow.PromptResult, fail func(dsl.Pos, Failure)) {
	if x.Description != nil && pr.Description != x.Description.Value {
		fail(x.Description.Pos, Failure{Message: "description: the prompt's description differs",
			Want: strconv.Quote(x.Description.Value), Got: strconv.Quote(pr.Description)})
	}
	if x.Messages == nil {
		return
	}
	got := make([]any, len(pr.Messages))
	for i, m := range pr.Messages {
		block, err := content.Value(m.Content)
		if err != nil {
			fail(x.Messages.Pos, Failure{Message: fmt.Sprintf("messages: message %d: %v", i+1, err)})
			return
		}
		got[i] = map[string]any{"role": m.Role, "content": block}
	}
	var lines []string
	diffValues(x.Messages.Value, any(got), "messages", true, &lines)
	if len(lines) > 0 {
		fail(x.Messages.Pos, Failure{Message: "messages: the prompt's messages differ", Diff: capLines(lines), Got: jsonx.Text(got)})
	}
}

// promptText joins the text content blocks of a prompt's messages with
// newlines.
func promptText(pr *flow.PromptResult) string {
	var parts []string
	for _, m := range pr.Messages {
		if s, ok := content.Text(m.Content); ok {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, "\n")
}

// resultText joins the text content blocks of a result with newlines.
func resultText(blocks []mcp.Content) string {
	var parts []string
	for _, b := range blocks {
		if s, ok := content.Text(b); ok {
			parts = append(parts, s)
		}
	}
	return strings.Join(parts, "\n")
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// subsequence reports whether want appears in have in order, not
// necessarily next to each other.
func subsequence(want, have []string) bool {
	i := 0
	for _, h := range have {
		if i < len(want) && h == want[i] {
			i++
		}
	}
	return i == len(want)
}

func listText(l []string) string {
	return "[" + strings.Join(l, ", ") + "]"
}

const maxDiffLines = 20

func capLines(lines []string) []string {
	if len(lines) > maxDiffLines {
		more := len(lines) - maxDiffLines
		lines = append(lines[:maxDiffLines:maxDiffLines], fmt.Sprintf("… and %d more", more))
	}
	return lines
}

var plainKey = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

func field(path, key string) string {
	if plainKey.MatchString(key) {
		return path + "." + key
	}
	return path + "[" + strconv.Quote(key) + "]"
}

// diffValues appends a line per difference between want and got. With
// contains, got may have keys that want does not mention, at any depth;
// lists must have the same length either way.
func diffValues(want, got any, path string, contains bool, out *[]string) {
	switch w := want.(type) {
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			*out = append(*out, fmt.Sprintf("%s: want an object %s, got %s", path, jsonx.Text(want), jsonx.Text(got)))
			return
		}
		keys := slices.Sorted(maps.Keys(w))
		for _, k := range keys {
			gv, has := g[k]
			if !has {
				*out = append(*out, fmt.Sprintf("%s: missing, want %s", field(path, k), jsonx.Text(w[k])))
				continue
			}
			diffValues(w[k], gv, field(path, k), contains, out)
		}
		if !contains {
			for _, k := range slices.Sorted(maps.Keys(g)) {
				if _, has := w[k]; !has {
					*out = append(*out, fmt.Sprintf("%s: unexpected, got %s", field(path, k), jsonx.Text(g[k])))
				}
			}
		}
	case []any:
		g, ok := got.([]any)
		if !ok {
			*out = append(*out, fmt.Sprintf("%s: want a list %s, got %s", path, jsonx.Text(want), jsonx.Text(got)))
			return
		}
		if len(w) != len(g) {
			*out = append(*out, fmt.Sprintf("%s: want %s %s, got %d %s", path, items(len(w)), jsonx.Text(want), len(g), jsonx.Text(got)))
			return
		}
		for i := range w {
			diffValues(w[i], g[i], fmt.Sprintf("%s[%d]", path, i), contains, out)
		}
	default:
		if !scalarEqual(want, got) {
			*out = append(*out, fmt.Sprintf("%s: want %s, got %s", path, jsonx.Text(want), jsonx.Text(got)))
		}
	}
}

// scalarEqual compares scalars, numbers by value whatever their Go type.
func scalarEqual(a, b any) bool {
	if x, ok := jsonx.Number(a); ok {
		y, ok := jsonx.Number(b)
		return ok && x == y
	}
	switch b.(type) {
	case map[string]any, []any:
		return false
	}
	return a == b
}
