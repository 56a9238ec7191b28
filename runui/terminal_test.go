package runui_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/flowserve/flowserve/runui"
	"github.com/flowserve/flowserve/schemas"
)

// reason is what the schemas package says of v against prop: what a form
// field prints for a value its schema does not take (its wording is the
// schemas package's own, so tests ask it rather than repeat it).
func reason(t *testing.T, prop map[string]any, v any) string {
	t.Helper()
	s, err := schemas.Compile(prop)
	if err != nil {
		t.Fatal(err)
	}
	vs := s.Validate(v)
	if len(vs) == 0 {
		t.Fatalf("%v is valid against %v", v, prop)
	}
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = v.String()
	}
	return strings.Join(parts, "; ")
}

// askAccessible runs src with the accessible prompts reading input, and
// returns the result's text, the error and the transcript.
func askAccessible(t *testing.T, src, input string) (string, error, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var out strings.Builder
	term := runui.NewTerminal(runui.TerminalOptions{In: strings.NewReader(input), Out: &out, Accessible: true, Echo: true})
	res, err := runui.Run(ctx, compile(t, src), runui.Config{Client: allClients, Answerer: term, Out: &out})
	if err != nil {
		return "", err, out.String()
	}
	return resultText(res.Complete), nil, out.String()
}

// Properties of kindsFlow, for reason.
var (
	nameProp  = map[string]any{"type": "string", "minLength": 2, "maxLength": 10}
	emailProp = map[string]any{"type": "string", "format": "email"}
	ageProp   = map[string]any{"type": "integer", "minimum": 0, "maximum": 150}
	tagsProp  = map[string]any{"type": "array", "items": map[string]any{"type": "string", "enum": []any{"a", "b", "c"}}, "minItems": 1, "maxItems": 2}
)

// TestTerminalBadInputThenEnd: on every kind of field, an entry the field
// does not take is refused with a reason naming it, and the end of the
// input that follows ends the run with ErrInputEnded naming the question
// and the field (it once indexed past the options of a select).
func TestTerminalBadInputThenEnd(t *testing.T) {
	// The lines that reach each field of kindsFlow: respond; name; email;
	// age; ratio; colour; size; tags (a, confirm); ok.
	const (
		toName   = "\n"
		toEmail  = toName + "Ada\n"
		toAge    = toEmail + "\n"
		toRatio  = toAge + "\n"
		toColour = toRatio + "\n"
		toSize   = toColour + "\n"
		toTags   = toSize + "\n"
		toOK     = toTags + "1\n0\n"
	)
	tests := []struct {
		name      string
		input     string
		complaint string // printed for the bad entry
		at        string // in the error: where the input ended
	}{
		{"respond: not a number", "x\n", `"x" is not a choice: enter a number between 1 and 3`, `before "q" was answered`},
		{"respond: out of range", "9\n", `"9" is not a choice: enter a number between 1 and 3`, `before "q" was answered`},
		{"respond: zero", "0\n", `"0" is not a choice`, `before "q" was answered`},
		{"respond: negative", "-1\n", `"-1" is not a choice`, `before "q" was answered`},
		{"text: too short", toName + "A\n", reason(t, nameProp, "A"), `field "name"`},
		{"text: bad email", toEmail + "nope\n", reason(t, emailProp, "nope"), `field "email"`},
		{"integer: not a number", toAge + "x\n", `"x" is not a whole number`, `field "age"`},
		{"integer: out of range", toAge + "200\n", reason(t, ageProp, int64(200)), `field "age"`},
		{"number: not a number", toRatio + "x\n", `"x" is not a number`, `field "ratio"`},
		{"select: not a number", toColour + "x\n", `"x" is not a choice: enter a number between 1 and 3`, `field "colour"`},
		{"select: out of range", toColour + "9\n", `"9" is not a choice: enter a number between 1 and 3`, `field "colour"`},
		{"select with a default: out of range", toSize + "3\n", `"3" is not a choice: enter a number between 1 and 2`, `field "size"`},
		{"multi-select: out of range", toTags + "9\n", `"9" is not a choice: enter a number between 0 and 3`, `field "tags"`},
		{"multi-select: not a number", toTags + "x\n", `"x" is not a choice`, `field "tags"`},
		{"multi-select: too few", toTags + "0\n", reason(t, tagsProp, []any{}), `field "tags"`},
		{"confirm: not yes or no", toOK + "maybe\n", `"maybe" is not an answer: enter y or n`, `field "ok"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err, transcript := askAccessible(t, kindsFlow, tc.input)
			if !errors.Is(err, runui.ErrInputEnded) {
				t.Fatalf("error %v, want %v\n%s", err, runui.ErrInputEnded, transcript)
			}
			if !strings.Contains(err.Error(), tc.at) {
				t.Errorf("error %q does not say %q", err, tc.at)
			}
			checkInOrder(t, transcript, []string{tc.complaint})
		})
	}
}

// choiceFlow asks a required select that has no default.
const choiceFlow = `name: choice
description: Asks a severity.
nodes:
  - id: q
    ask: How bad is it?
    form:
      sev:
        type: string
        title: Severity
        oneOf:
          - {const: sev1, title: "SEV1: outage"}
          - {const: sev2, title: "SEV2: degraded"}
    required: [sev]
  - return: "{{ q.content.sev }}"
`

// TestTerminalRequiredChoice: a required select without a default
// selects nothing for the user; an empty line asks for a choice.
func TestTerminalRequiredChoice(t *testing.T) {
	tests := []struct {
		name    string
		input   string
		want    string
		errIs   error
		wantOut []string
	}{
		{
			name:    "an empty line does not pick the first option",
			input:   "\n\n2\n",
			want:    "sev2",
			wantOut: []string{"Severity [required] \n1. SEV1: outage\n2. SEV2: degraded\n", "a choice is required: enter a number between 1 and 2\n"},
		},
		{name: "the first option, chosen", input: "\n1\n", want: "sev1"},
		{name: "an empty line, then the end of the input", input: "\n\n", errIs: runui.ErrInputEnded},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err, transcript := askAccessible(t, choiceFlow, tc.input)
			if tc.errIs != nil {
				if !errors.Is(err, tc.errIs) {
					t.Fatalf("error %v, want %v\n%s", err, tc.errIs, transcript)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Fatalf("result %q, error %v; want %q\n%s", got, err, tc.want, transcript)
			}
			checkInOrder(t, transcript, tc.wantOut)
		})
	}
}
