package runui

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/huh"
)

// ErrInterrupted is returned when the user leaves the run (Ctrl-C).
var ErrInterrupted = errors.New("interrupted")

// ErrInputEnded is wrapped by the error returned when standard input
// ends before a question is answered.
var ErrInputEnded = errors.New("standard input ended")

// TerminalOptions configure a Terminal.
type TerminalOptions struct {
	// In and Out are the terminal's input and output.
	In  io.Reader
	Out io.Writer
	// Accessible asks with plain line-by-line prompts instead of
	// full-screen forms: for screen readers, dumb terminals and input
	// piped from a file or another program.
	Accessible bool
	// Echo writes each line read back to Out, in accessible mode: set it
	// when In is not a terminal (which would echo it), so the transcript
	// shows the answers.
	Echo bool
}

// Terminal answers questions with interactive forms built with
// github.com/charmbracelet/huh, or with plain line prompts in accessible
// mode. Each question starts with a choice of how to respond (answer,
// decline or cancel; answering is the default), then asks the form's
// fields: strings as text inputs, enums as selects, arrays of enums as
// multi-selects, booleans as yes/no confirms and numbers as text inputs
// that parse, each checked against its property's schema as it is
// entered. A required select with no default selects nothing until the
// user chooses.
type Terminal struct {
	opts  TerminalOptions
	lines *lineReader // accessible mode
}

// NewTerminal returns a Terminal.
func NewTerminal(opts TerminalOptions) *Terminal {
	t := &Terminal{opts: opts}
	if opts.Accessible {
		t.lines = &lineReader{r: bufio.NewReaderSize(opts.In, 64<<10)}
	}
	return t
}

// The choices of the first select of a question.
const (
	respondAnswer = iota
	respondDecline
	respondCancel
)

// control is a form field with the value being edited.
type control struct {
	f      *field
	text   string // text, integer and number fields
	on     bool   // boolean fields
	choice int    // select fields: index into f.options; -1 for none
	picks  []int  // multi-select fields: indexes into f.options
}

// newControl returns a control holding initial, the value to start from
// (the previous answer or the default), or nothing.
func newControl(f *field, initial any) *control {
	c := &control{f: f, choice: -1}
	switch f.kind {
	case kindText, kindInteger, kindNumber:
		c.text = textOf(initial)
	case kindBool:
		c.on, _ = initial.(bool)
	case kindSelect:
		c.choice = f.optionIndex(initial)
	case kindMulti:
		list, _ := initial.([]any)
		for _, v := range list {
			if i := f.optionIndex(v); i >= 0 {
				c.picks = append(c.picks, i)
			}
		}
	}
	return c
}

// current shows the value an accessible prompt keeps on an empty line,
// or "" when there is none to show (confirms and multi-selects show
// theirs).
func (c *control) current() string {
	switch c.f.kind {
	case kindText, kindInteger, kindNumber:
		return c.text
	case kindSelect:
		if c.choice >= 0 && c.choice < len(c.f.options) {
			return c.f.options[c.choice].label
		}
	}
	return ""
}

// value returns the control's value for the answer; ok is false when
// the field is left out.
func (c *control) value() (v any, ok bool, err error) {
	switch c.f.kind {
	case kindBool:
		return c.on, true, nil
	case kindSelect:
		switch {
		case c.choice >= 0 && c.choice < len(c.f.options):
			return c.f.options[c.choice].value, true, nil
		case c.f.required:
			return nil, false, errChoiceRequired
		}
		return nil, false, nil
	case kindMulti:
		list := make([]any, 0, len(c.picks))
		for _, i := range c.picks {
			if i >= 0 && i < len(c.f.options) {
				list = append(list, c.f.options[i].value)
			}
		}
		if len(list) == 0 && !c.f.required {
			return nil, false, nil
		}
		return list, true, c.f.check(list)
	}
	return c.f.parseText(c.text)
}

// Answer asks q and returns the answer.
func (t *Terminal) Answer(ctx context.Context, q *Question) (*Answer, error) {
	var initial map[string]any
	if q.Previous != nil && q.Previous.Action == ActionAccept {
		initial = q.Previous.Content
	}
	var controls []*control
	if q.Mode != "url" {
		for _, f := range fields(q.Schema, q.Order) {
			v, ok := initial[f.name]
			if !ok {
				v = f.def
			}
			controls = append(controls, newControl(f, v))
		}
	}
	var name *control // who answers an approval
	if q.Approval != nil {
		by := q.Approval.By
		if q.Previous != nil && q.Previous.By != "" {
			by = q.Previous.By
		}
		name = newControl(nameField(), by)
	}
	respond := respondAnswer
	var err error
	if t.opts.Accessible {
		err = t.askAccessible(ctx, q, &respond, controls, name)
	} else {
		err = t.askForm(ctx, q, &respond, controls, name)
	}
	if err != nil {
		return nil, err
	}
	by := ""
	if name != nil {
		by = strings.TrimSpace(name.text)
	}
	switch {
	case respond == respondDecline:
		return &Answer{Action: ActionDecline, By: by}, nil
	case respond == respondCancel && q.Approval != nil:
		return &Answer{Action: ActionTimeout}, nil
	case respond == respondCancel:
		return &Answer{Action: ActionCancel}, nil
	}
	content := map[string]any{}
	for _, c := range controls {
		v, ok, err := c.value()
		if err != nil {
			// The form checked every field; this is a field the user
			// could not correct (it would not be asked again).
			return nil, fmt.Errorf("%s: %v", c.f.name, err)
		}
		if ok {
			content[c.f.name] = v
		}
	}
	return &Answer{Action: ActionAccept, Content: content, By: by}, nil
}

// nameField is the field of who answers an approval (answered_by), as
// the approval page asks it.
func nameField() *field {
	return fields(map[string]any{
		"type": "object", "required": []any{"answered_by"},
		"properties": map[string]any{"answered_by": map[string]any{
			"type": "string", "title": "Your name", "description": "Recorded as who answered (answered_by).",
			"minLength": int64(1), "maxLength": int64(200)}},
	}, nil)[0]
}

// respondChoices are the title and the choices, in the order of
// respondAnswer, respondDecline and respondCancel, of the first select of
// a question. An approval cannot be cancelled: its third choice, when it
// has a timeout, is to let it time out.
func respondChoices(q *Question) (title string, labels []string) {
	if a := q.Approval; a != nil {
		labels = []string{"Answer", "Decline (say no)"}
		if a.Timeout > 0 {
			labels = append(labels, "Let it time out (as if nobody answered within "+durationText(a.Timeout)+")")
		}
		return "How do you respond, as " + a.To + "?", labels
	}
	title, accept := "How do you respond?", "Answer"
	if q.Mode == "url" {
		title, accept = "Did you open the page?", "Yes, I went there (accept)"
	}
	return title, []string{accept, "Decline (say no)", "Cancel (dismiss the question)"}
}

// respondSelect is the first select of a question's form.
func respondSelect(q *Question, respond *int) *huh.Select[int] {
	title, labels := respondChoices(q)
	opts := make([]huh.Option[int], len(labels))
	for i, l := range labels {
		opts[i] = huh.NewOption(l, i)
	}
	return huh.NewSelect[int]().Title(title).Options(opts...).Value(respond)
}

// errChoiceRequired is a required select's complaint when nothing is
// chosen.
var errChoiceRequired = errors.New("a choice is required")

// huhField builds the huh field of a control for a full-screen form; its
// description carries the hints.
func (t *Terminal) huhField(c *control) huh.Field {
	f := c.f
	title, desc := f.title, f.description
	hints := f.hints()
	if f.def != nil && f.kind != kindBool {
		hints = append(hints, "default: "+f.defaultLabel())
	}
	if len(hints) > 0 {
		h := strings.Join(hints, " · ")
		if desc != "" {
			desc += "\n" + h
		} else {
			desc = h
		}
	}
	switch f.kind {
	case kindBool:
		return huh.NewConfirm().Title(title).Description(desc).Affirmative("Yes").Negative("No").Value(&c.on)
	case kindSelect:
		return selectField(c, title, desc)
	case kindMulti:
		opts := make([]huh.Option[int], len(f.options))
		for i, o := range f.options {
			opts[i] = huh.NewOption(o.label, i)
		}
		ms := huh.NewMultiSelect[int]().Title(title).Description(desc).Options(opts...).Value(&c.picks).
			Validate(func(picks []int) error {
				saved := c.picks
				c.picks = picks
				_, _, err := c.value()
				c.picks = saved
				return err
			})
		if n, ok := intOf(f.doc["maxItems"]); ok && n > 0 {
			ms = ms.Limit(n)
		}
		return ms
	}
	return huh.NewInput().Title(title).Description(desc).Value(&c.text).
		Validate(func(s string) error {
			_, _, err := c.f.parseText(s)
			return err
		})
}

// selectField is the huh select of a select control. An optional select
// without a default starts at "(no answer)"; a required one with nothing
// chosen yet (no default, no previous answer) starts at "(choose one)",
// which it does not accept, so Enter alone does not pick the first
// option.
func selectField(c *control, title, desc string) *huh.Select[int] {
	var opts []huh.Option[int]
	switch {
	case c.f.noAnswerOption():
		opts = append(opts, huh.NewOption("(no answer)", -1))
	case c.choice < 0:
		opts = append(opts, huh.NewOption("(choose one)", -1))
	}
	for i, o := range c.f.options {
		opts = append(opts, huh.NewOption(o.label, i))
	}
	return huh.NewSelect[int]().Title(title).Description(desc).Options(opts...).Value(&c.choice).
		Validate(func(i int) error {
			if i < 0 && c.f.required {
				return errChoiceRequired
			}
			return nil
		})
}

func intOf(v any) (int, bool) {
	switch x := v.(type) {
	case int64:
		return int(x), true
	case int:
		return x, true
	case float64:
		return int(x), true
	}
	return 0, false
}

// askForm asks with a full-screen huh form: the respond select, then
// (when answering) the fields, and an approval's name field.
func (t *Terminal) askForm(ctx context.Context, q *Question, respond *int, controls []*control, name *control) error {
	groups := []*huh.Group{huh.NewGroup(respondSelect(q, respond))}
	if len(controls) > 0 {
		fs := make([]huh.Field, len(controls))
		for i, c := range controls {
			fs[i] = t.huhField(c)
		}
		groups = append(groups, huh.NewGroup(fs...).WithHideFunc(func() bool { return *respond != respondAnswer }))
	}
	if name != nil {
		// Who answers, unless the approval times out.
		groups = append(groups, huh.NewGroup(t.huhField(name)).WithHideFunc(func() bool { return *respond == respondCancel }))
	}
	form := huh.NewForm(groups...).WithShowHelp(true)
	// Run the program here rather than with form.Run, so that Ctrl-C
	// quits it gracefully: bubbletea kills a program that is interrupted,
	// closing its input without waiting for the goroutine reading it.
	form.SubmitCmd = tea.Quit
	form.CancelCmd = tea.Quit
	m, err := tea.NewProgram(form,
		tea.WithInput(t.opts.In), tea.WithOutput(t.opts.Out),
		tea.WithContext(ctx), tea.WithReportFocus(),
	).Run()
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case err != nil:
		return fmt.Errorf("terminal form: %w", err)
	case m.(*huh.Form).State == huh.StateAborted:
		return ErrInterrupted
	}
	return nil
}
