package runui

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

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
	// Accessible asks with plain line-by-line prompts (huh's accessible
	// mode) instead of full-screen forms: for screen readers, dumb
	// terminals and input piped from a file or another program.
	Accessible bool
	// Echo writes each line read back to Out, in accessible mode: set it
	// when In is not a terminal (which would echo it), so the transcript
	// shows the answers.
	Echo bool
}

// Terminal answers questions with interactive forms built with
// github.com/charmbracelet/huh. Each question starts with a choice of
// how to respond (answer, decline or cancel; answering is the default),
// then asks the form's fields: strings as text inputs, enums as selects,
// arrays of enums as multi-selects, booleans as yes/no confirms and
// numbers as text inputs that parse, each checked against its property's
// schema as it is entered.
type Terminal struct {
	opts  TerminalOptions
	lines *lineReader // accessible mode
}

// NewTerminal returns a Terminal.
func NewTerminal(opts TerminalOptions) *Terminal {
	t := &Terminal{opts: opts}
	if opts.Accessible {
		t.lines = &lineReader{r: bufio.NewReader(opts.In)}
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
		if c.choice < 0 && f.required && len(f.options) > 0 {
			c.choice = 0
		}
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
		if c.choice < 0 || c.choice >= len(c.f.options) {
			return nil, false, nil
		}
		return c.f.options[c.choice].value, true, nil
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
	respond := respondAnswer
	var err error
	if t.opts.Accessible {
		err = t.askAccessible(ctx, q, &respond, controls)
	} else {
		err = t.askForm(ctx, q, &respond, controls)
	}
	if err != nil {
		return nil, err
	}
	switch respond {
	case respondDecline:
		return &Answer{Action: ActionDecline}, nil
	case respondCancel:
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
	return &Answer{Action: ActionAccept, Content: content}, nil
}

// respondSelect is the first select of a question.
func respondSelect(q *Question, respond *int) *huh.Select[int] {
	title, accept := "How do you respond?", "Answer"
	if q.Mode == "url" {
		title, accept = "Did you open the page?", "Yes, I went there (accept)"
	}
	return huh.NewSelect[int]().
		Title(title).
		Options(
			huh.NewOption(accept, respondAnswer),
			huh.NewOption("Decline (say no)", respondDecline),
			huh.NewOption("Cancel (dismiss the question)", respondCancel),
		).
		Value(respond)
}

// huhField builds the huh field of a control. In accessible mode the
// title carries the hints; otherwise the description does.
func (t *Terminal) huhField(c *control) huh.Field {
	f := c.f
	title, desc := f.title, f.description
	hints := f.hints()
	if t.opts.Accessible {
		// What an empty line keeps: the default, or the previous answer.
		if cur := c.current(); cur != "" {
			hints = append(hints, "Enter for "+cur)
		}
		if len(hints) > 0 {
			title += " [" + strings.Join(hints, "; ") + "]"
		}
		if f.kind == kindText || f.kind == kindInteger || f.kind == kindNumber {
			title += ":"
		}
	} else {
		if f.def != nil && f.kind != kindBool {
			hints = append(hints, "default: "+f.defaultLabel())
		}
	}
	if !t.opts.Accessible && len(hints) > 0 {
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
		var opts []huh.Option[int]
		if !f.required && f.def == nil {
			opts = append(opts, huh.NewOption("(no answer)", -1))
		}
		for i, o := range f.options {
			opts = append(opts, huh.NewOption(o.label, i))
		}
		return huh.NewSelect[int]().Title(title).Description(desc).Options(opts...).Value(&c.choice)
	case kindMulti:
		opts := make([]huh.Option[int], len(f.options))
		for i, o := range f.options {
			opts[i] = huh.NewOption(o.label, i)
		}
		ms := huh.NewMultiSelect[int]().Title(title).Description(desc).Options(opts...).Value(&c.picks).
			Validate(func(picks []int) error {
				if t.ended() {
					return nil
				}
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
			if t.ended() {
				return nil
			}
			if t.opts.Accessible && strings.TrimSpace(s) == "" {
				s = c.text // accessible prompts keep the value shown on an empty line
			}
			_, _, err := c.f.parseText(s)
			return err
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

// ended reports whether accessible input has ended.
func (t *Terminal) ended() bool {
	return t.lines != nil && t.lines.ended()
}

// askForm asks with a full-screen huh form: the respond select, then
// (when answering) the fields.
func (t *Terminal) askForm(ctx context.Context, q *Question, respond *int, controls []*control) error {
	groups := []*huh.Group{huh.NewGroup(respondSelect(q, respond))}
	if len(controls) > 0 {
		fs := make([]huh.Field, len(controls))
		for i, c := range controls {
			fs[i] = t.huhField(c)
		}
		groups = append(groups, huh.NewGroup(fs...).WithHideFunc(func() bool { return *respond != respondAnswer }))
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

// plainTheme styles nothing, so accessible prompts are plain text.
var plainTheme = &huh.Theme{}

// askAccessible asks with huh's accessible prompts, one line each. The
// prompts cannot be interrupted, so they run in a goroutine that is left
// behind (its output dropped) when ctx ends.
func (t *Terminal) askAccessible(ctx context.Context, q *Question, respond *int, controls []*control) error {
	out := &gate{w: t.opts.Out}
	if t.opts.Echo {
		t.lines.setEcho(out)
	}
	done := make(chan error, 1)
	go func() {
		done <- t.promptAll(out, q, respond, controls)
	}()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		out.close()
		t.lines.setEcho(nil)
		return ctx.Err()
	}
}

// promptAll runs the accessible prompts of a question.
func (t *Terminal) promptAll(w io.Writer, q *Question, respond *int, controls []*control) error {
	run := func(f huh.Field) error {
		f.WithTheme(plainTheme)
		if err := f.RunAccessible(w, t.lines); err != nil {
			return err
		}
		if t.lines.ended() {
			return fmt.Errorf("%w before %q was answered", ErrInputEnded, q.ID)
		}
		return nil
	}
	if err := run(respondSelect(q, respond)); err != nil {
		return err
	}
	if *respond != respondAnswer {
		return nil
	}
	for _, c := range controls {
		if c.f.description != "" {
			fmt.Fprintln(w, c.f.description)
		}
		if err := run(t.huhField(c)); err != nil {
			return err
		}
	}
	return nil
}

// lineReader hands out its input one line per Read. huh's accessible
// prompts wrap the reader in a new bufio.Scanner for every prompt, which
// would otherwise swallow the lines after the first.
type lineReader struct {
	r       *bufio.Reader
	pending []byte

	mu   sync.Mutex
	eof  bool
	echo io.Writer
}

// Read returns at most the rest of one line. A last line without a line
// break gets one, so a prompt never has to read again to finish it.
func (l *lineReader) Read(p []byte) (int, error) {
	if len(l.pending) == 0 {
		line, err := l.r.ReadBytes('\n')
		if len(line) == 0 {
			if err == nil {
				err = io.ErrNoProgress
			}
			l.mu.Lock()
			l.eof = true
			l.mu.Unlock()
			return 0, err
		}
		if line[len(line)-1] != '\n' {
			line = append(line, '\n')
		}
		l.pending = line
		l.mu.Lock()
		echo := l.echo
		l.mu.Unlock()
		if echo != nil {
			echo.Write(line)
		}
	}
	n := copy(p, l.pending)
	l.pending = l.pending[n:]
	return n, nil
}

// ended reports whether a prompt found the input at its end.
func (l *lineReader) ended() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.eof
}

func (l *lineReader) setEcho(w io.Writer) {
	l.mu.Lock()
	l.echo = w
	l.mu.Unlock()
}

// gate is a writer that can be closed: writes after close are dropped.
type gate struct {
	mu     sync.Mutex
	w      io.Writer
	closed bool
}

func (g *gate) Write(p []byte) (int, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.closed {
		return len(p), nil
	}
	return g.w.Write(p)
}

func (g *gate) close() {
	g.mu.Lock()
	g.closed = true
	g.mu.Unlock()
}
