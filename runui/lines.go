package runui

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
)

// The accessible mode asks with plain prompts, one line each, written
// here rather than with huh's accessible fields: those cannot report the
// end of the input, and a select or multi-select given a bad entry and
// then the end of the input indexed past its options.
//
// Every prompt re-asks after an entry it does not take, saying why (the
// way text fields say what their schema wants), and returns an error
// wrapping ErrInputEnded when the input ends before it has an answer.

// askAccessible asks with the line prompts. The prompts cannot be
// interrupted, so they run in a goroutine that is left behind (its output
// dropped) when ctx ends.
func (t *Terminal) askAccessible(ctx context.Context, q *Question, respond *int, controls []*control, name *control) error {
	out := &gate{w: t.opts.Out}
	if t.opts.Echo {
		t.lines.setEcho(out)
	}
	done := make(chan error, 1)
	go func() {
		p := &prompter{w: out, lines: t.lines, q: q}
		done <- p.all(respond, controls, name)
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

// prompter asks the prompts of one question.
type prompter struct {
	w     io.Writer
	lines *lineReader
	q     *Question
	field string // the field being asked, for errors; "" for the respond choice
}

// all asks how to respond and then, when answering, each field; for an
// approval answered or declined, name, who answers.
func (p *prompter) all(respond *int, controls []*control, name *control) error {
	title, labels := respondChoices(p.q)
	i, err := p.choose(title, labels, *respond)
	if err != nil {
		return err
	}
	*respond = i
	if *respond == respondAnswer {
		for _, c := range controls {
			if err := p.askField(c); err != nil {
				return err
			}
		}
	}
	if name != nil && *respond != respondCancel {
		return p.askField(name)
	}
	return nil
}

// askField asks one field, after its description.
func (p *prompter) askField(c *control) error {
	if c.f.description != "" {
		fmt.Fprintln(p.w, c.f.description)
	}
	p.field = c.f.name
	return p.ask(c)
}

// ask asks one field with the prompt of its kind.
func (p *prompter) ask(c *control) error {
	title := accessibleTitle(c)
	switch c.f.kind {
	case kindBool:
		return p.confirm(title, c)
	case kindSelect:
		return p.selectOne(title, c)
	case kindMulti:
		return p.selectMany(title, c)
	}
	return p.text(title, c)
}

// accessibleTitle is a field's prompt: its title with its hints and what
// an empty line keeps (the default, or the previous answer).
func accessibleTitle(c *control) string {
	title := c.f.title
	hints := c.f.hints()
	if cur := c.current(); cur != "" {
		hints = append(hints, "Enter for "+cur)
	}
	if len(hints) > 0 {
		title += " [" + strings.Join(hints, "; ") + "]"
	}
	if c.f.kind == kindText || c.f.kind == kindInteger || c.f.kind == kindNumber {
		title += ":"
	}
	return title
}

// read returns the next line, trimmed, or an error wrapping
// ErrInputEnded.
func (p *prompter) read(prompt string) (string, error) {
	fmt.Fprint(p.w, prompt)
	line, ok := p.lines.readLine()
	if !ok {
		fmt.Fprintln(p.w)
		if p.field != "" {
			return "", fmt.Errorf("%w before %q was answered (at field %q)", ErrInputEnded, p.q.ID, p.field)
		}
		return "", fmt.Errorf("%w before %q was answered", ErrInputEnded, p.q.ID)
	}
	return strings.TrimSpace(line), nil
}

// number reads a choice from lo to hi; ok is false, with the reason
// printed, for an entry that is not one. An empty line is empty.
func (p *prompter) number(prompt string, lo, hi int) (n int, empty, ok bool, err error) {
	s, err := p.read(prompt)
	if err != nil || s == "" {
		return 0, s == "", false, err
	}
	n, convErr := strconv.Atoi(s)
	if convErr != nil || n < lo || n > hi {
		fmt.Fprintf(p.w, "%q is not a choice: enter a number between %d and %d\n", s, lo, hi)
		return 0, false, false, nil
	}
	return n, false, true, nil
}

// choose asks for one of labels, numbered from 1, and returns its index.
// An empty line keeps cur; with cur -1 it asks for a choice.
func (p *prompter) choose(title string, labels []string, cur int) (int, error) {
	fmt.Fprintln(p.w, title+" ")
	for i, l := range labels {
		fmt.Fprintf(p.w, "%d. %s\n", i+1, l)
	}
	prompt := fmt.Sprintf("Enter a number between 1 and %d: ", len(labels))
	for {
		n, empty, ok, err := p.number(prompt, 1, len(labels))
		switch {
		case err != nil:
			return 0, err
		case empty && cur >= 0:
			return cur, nil
		case empty:
			fmt.Fprintf(p.w, "%v: enter a number between 1 and %d\n", errChoiceRequired, len(labels))
		case ok:
			return n - 1, nil
		}
	}
}

// selectOne asks a select. An optional select without a default starts
// with "(no answer)"; a required one without a default (or previous
// answer) selects nothing, so an empty line asks for a choice.
func (p *prompter) selectOne(title string, c *control) error {
	var labels []string
	var values []int // the choice each label stands for
	if c.f.noAnswerOption() {
		labels, values = append(labels, "(no answer)"), append(values, -1)
	}
	for i, o := range c.f.options {
		labels, values = append(labels, o.label), append(values, i)
	}
	cur := -1
	for i, v := range values {
		if v == c.choice {
			cur = i
		}
	}
	i, err := p.choose(title, labels, cur)
	if err != nil {
		return err
	}
	c.choice = values[i]
	return nil
}

// selectMany asks a multi-select: each number toggles an option, 0 or an
// empty line confirms the selection (once the field's schema takes it).
func (p *prompter) selectMany(title string, c *control) error {
	fmt.Fprintln(p.w, title+" ")
	limit := len(c.f.options)
	if n, ok := intOf(c.f.doc["maxItems"]); ok && n > 0 && n < limit {
		limit = n
	}
	fmt.Fprintf(p.w, "Select up to %d options.\n", limit)
	picked := map[int]bool{}
	for _, i := range c.picks {
		picked[i] = true
	}
	prompt := fmt.Sprintf("Enter a number between 0 and %d: ", len(c.f.options))
	for {
		for i, o := range c.f.options {
			if picked[i] {
				fmt.Fprintf(p.w, "%d. ✓ %s\n", i+1, o.label)
			} else {
				fmt.Fprintf(p.w, "%d.   %s\n", i+1, o.label)
			}
		}
		fmt.Fprintln(p.w, "0.   Confirm selection")
		n, empty, ok, err := p.number(prompt, 0, len(c.f.options))
		switch {
		case err != nil:
			return err
		case empty || (ok && n == 0):
			c.picks = c.picks[:0]
			for i := range c.f.options {
				if picked[i] {
					c.picks = append(c.picks, i)
				}
			}
			if _, _, err := c.value(); err != nil {
				fmt.Fprintln(p.w, err)
				continue
			}
			return nil
		case ok && !picked[n-1] && len(picked) >= limit:
			fmt.Fprintf(p.w, "You can't select more than %d options.\n", limit)
		case ok:
			if picked[n-1] {
				delete(picked, n-1)
			} else {
				picked[n-1] = true
			}
		}
		fmt.Fprintln(p.w)
	}
}

// confirm asks a yes/no question; an empty line keeps the current value.
func (p *prompter) confirm(title string, c *control) error {
	opts := "[y/N]"
	if c.on {
		opts = "[Y/n]"
	}
	for {
		s, err := p.read(title + " " + opts + " ")
		if err != nil {
			return err
		}
		switch strings.ToLower(s) {
		case "":
			return nil
		case "y", "yes":
			c.on = true
			return nil
		case "n", "no":
			c.on = false
			return nil
		}
		fmt.Fprintf(p.w, "%q is not an answer: enter y or n\n", s)
	}
}

// text asks a text, integer or number field; an empty line keeps the
// value shown (the default, or the previous answer).
func (p *prompter) text(title string, c *control) error {
	for {
		s, err := p.read(title + " ")
		if err != nil {
			return err
		}
		if s == "" {
			s = c.text
		}
		if _, _, err := c.f.parseText(s); err != nil {
			fmt.Fprintln(p.w, err)
			continue
		}
		c.text = s
		return nil
	}
}

// lineReader reads its input one line at a time, echoing each line read
// when told where to.
type lineReader struct {
	r *bufio.Reader

	mu   sync.Mutex
	echo io.Writer
}

// readLine returns the next line without its line break; ok is false at
// the end of the input. A last line without a line break is a line.
func (l *lineReader) readLine() (string, bool) {
	line, err := l.r.ReadString('\n')
	if line == "" && err != nil {
		return "", false
	}
	line = strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r")
	l.mu.Lock()
	echo := l.echo
	l.mu.Unlock()
	if echo != nil {
		io.WriteString(echo, line+"\n")
	}
	return line, true
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
