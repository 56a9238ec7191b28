package approve

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"fmt"
	"html/template"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/flowserve/flowserve/approvals"
)

var (
	//go:embed page.html parts.html
	pageFiles embed.FS
	//go:embed page.css
	pageCSS string

	pageTemplate = template.Must(template.ParseFS(pageFiles, "page.html", "parts.html"))

	// contentSecurityPolicy allows the page's inline style by its hash,
	// and nothing else but posting the form to the page itself.
	contentSecurityPolicy = "default-src 'none'; style-src 'sha256-" + styleHash() +
		"'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
)

// styleHash returns the base64 SHA-256 of the page's style sheet, as a
// Content-Security-Policy hash source spells it.
func styleHash() string {
	h := sha256.Sum256([]byte(pageCSS))
	return base64.StdEncoding.EncodeToString(h[:])
}

// view is what a response's page shows: the form, the thank-you page, or
// a notice (a heading and lines).
type view struct {
	Heading string
	Lines   []string
	Form    *formView
	Thanks  *thanksView
	CSS     template.CSS
}

// formView is the approval form.
type formView struct {
	Tool, Message, To, For string
	Expires                instant
	Problems               []problemView
	CSRF                   string
	Fields                 []fieldView
	Name                   fieldView // the answerer's name
	Approver               string    // who signed in, when the pages need it; then there is no name field
}

// signedIn shows who signed in instead of asking for a name.
func (f *formView) signedIn(who *Approver) {
	if who != nil {
		f.Approver = who.display()
	}
}

// thanksView is the page that confirms an answer, with the answer itself.
type thanksView struct {
	Tool, Message, To, By string
	Declined              bool
	At                    instant
	Answers               []answerView
}

// answerView is one field of a recorded answer: its label and its value
// as the person chose it.
type answerView struct{ Label, Value string }

// answerLines returns the fields of content as the thank-you page lists
// them, in the form's order, with choices by their labels.
func answerLines(schema map[string]any, content map[string]any) []answerView {
	var out []answerView
	for _, p := range props(schema) {
		v, ok := content[p.name]
		if !ok {
			continue
		}
		out = append(out, answerView{Label: p.title(), Value: p.display(v)})
	}
	return out
}

// display returns a value of p as the page shows it: Yes or No, a
// choice's label, choices joined with commas, or the value as text.
func (p prop) display(v any) string {
	label := func(x any) string {
		for _, c := range p.choices() {
			if c.value == text(x) {
				return c.label
			}
		}
		return text(x)
	}
	switch x := v.(type) {
	case bool:
		if x {
			return "Yes"
		}
		return "No"
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = label(e)
		}
		return strings.Join(parts, ", ")
	}
	return label(v)
}

// problemView is an entry of the error summary: Href is the id of the
// control it is about, "" for a problem with the whole answer.
type problemView struct{ Href, Text string }

// fieldView is a form field. A radio or checkbox group has Options, a
// select has Select, and a field without either is an <input>.
type fieldView struct {
	ID, Input, Label, Description, Hint, Error string
	Required                                   bool
	Type                                       string // the <input> type, of the options too
	Value                                      string
	Min, Max, Step, MinLength, MaxLength       string
	Autocomplete                               string
	Options, Select                            []optionView
	// Multiline shows a text field as a <textarea>: a long text without
	// a format (a maxLength over multilineFrom, or none and a description
	// or title that reads as a note).
	Multiline bool
}

// multilineFrom is the maxLength above which a text field is a
// <textarea>.
const multilineFrom = 120

// optionView is an option of a group or a select.
type optionView struct {
	ID, Value, Label string
	Checked          bool
}

// instant is a time as the page shows it.
type instant struct{ ISO, Text string }

// newInstant returns t as the page shows it: in UTC, e.g. "2 Dec 2026
// 14:05 UTC".
func newInstant(t time.Time) instant {
	t = t.UTC()
	return instant{ISO: t.Format(time.RFC3339), Text: t.Format("2 Jan 2006 15:04 MST")}
}

// DescribedBy returns the ids of the field's description, hint and error.
func (f fieldView) DescribedBy() string {
	var ids []string
	if f.Description != "" {
		ids = append(ids, f.ID+"-desc")
	}
	if f.Hint != "" {
		ids = append(ids, f.ID+"-hint")
	}
	if f.Error != "" {
		ids = append(ids, f.ID+"-error")
	}
	return strings.Join(ids, " ")
}

// focusID returns the id of the field's first control.
func (f fieldView) focusID() string {
	if len(f.Options) > 0 {
		return f.Options[0].ID
	}
	return f.ID
}

// render executes the page of v.
func render(v view) ([]byte, error) {
	v.CSS = template.CSS(pageCSS)
	var b bytes.Buffer
	if err := pageTemplate.Execute(&b, v); err != nil {
		return nil, fmt.Errorf("approve: rendering the page: %w", err)
	}
	return b.Bytes(), nil
}

// nameField is the name of the answerer's field.
const nameField = "answered_by"

// maxName is the longest name, in characters.
const maxName = 200

// newForm returns the form of p with the values vals (the form's own
// names) and problems: reasons about the whole answer, then the fields'.
func newForm(p *approvals.Page, vals url.Values, reasons []string, problems []FieldProblem) *formView {
	f := &formView{Tool: p.Tool, Message: p.Message, To: p.To, For: p.For, Expires: newInstant(p.Expires)}
	if p.Title != "" {
		f.Tool = p.Title
	}
	for _, r := range reasons {
		f.Problems = append(f.Problems, problemView{Text: r})
	}
	errs := map[string]string{}
	for _, pr := range problems {
		if _, ok := errs[pr.Field]; !ok {
			errs[pr.Field] = pr.Reason
		}
	}
	for i, pp := range props(p.Schema) {
		fv := newField(i, pp, vals[fieldPrefix+pp.name])
		fv.Error = errs[pp.name]
		f.Fields = append(f.Fields, fv)
	}
	f.Name = fieldView{ID: nameField, Input: nameField, Label: "Your name", Required: true, Type: "text",
		Value: strings.TrimSpace(vals.Get(nameField)), MaxLength: strconv.Itoa(maxName), Autocomplete: "name",
		Hint: "Your answer is recorded with the name you type here."}
	for _, fv := range f.Fields {
		if fv.Error != "" {
			f.Problems = append(f.Problems, problemView{Href: fv.focusID(), Text: fv.Error})
		}
	}
	return f
}

// setNameError sets what is wrong with the answerer's name, if anything.
func (f *formView) setNameError(reason string) {
	if reason != "" {
		f.Name.Error = reason
		f.Problems = append(f.Problems, problemView{Href: f.Name.ID, Text: reason})
	}
}

// safeName matches the property names used as they are in element ids.
var safeName = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_]*$`)

// newField returns the field of the i-th property p with the form values
// vals.
func newField(i int, p prop, vals []string) fieldView {
	f := fieldView{ID: "f-" + strconv.Itoa(i), Input: fieldPrefix + p.name, Label: p.title(),
		Description: p.str("description"), Required: p.required, Type: "text"}
	if safeName.MatchString(p.name) {
		f.ID = "f-" + p.name
	}
	if len(vals) > 0 {
		f.Value = vals[0]
	}
	switch p.kind() {
	case kindText:
		f.Type, f.Hint = inputType(p.str("format"))
		f.MinLength, f.MaxLength = number(p.schema["minLength"]), number(p.schema["maxLength"])
		if f.Hint == "" {
			f.Hint = bounds(f.MinLength, f.MaxLength, "From %s to %s characters", "At least %s characters", "At most %s characters")
		}
		if n, err := strconv.ParseFloat(f.MaxLength, 64); p.str("format") == "" && err == nil && n > multilineFrom {
			f.Multiline = true
		}
	case kindNumber:
		f.Type, f.Step = "number", "any"
		if p.str("type") == "integer" {
			f.Step = "1"
		}
		f.Min, f.Max = number(p.schema["minimum"]), number(p.schema["maximum"])
		f.Hint = bounds(f.Min, f.Max, "From %s to %s", "At least %s", "At most %s")
	case kindBool:
		f.Type = "radio"
		f.Options = options(f.ID, []choice{{value: "true", label: "Yes"}, {value: "false", label: "No"}}, vals)
		f.Options[0].ID, f.Options[1].ID = f.ID+"-yes", f.ID+"-no"
	case kindChoice:
		f.Type = "radio"
		if opts := options(f.ID, p.choices(), vals); len(opts) <= 5 {
			f.Options = opts
		} else {
			f.Select = opts
		}
	case kindMulti:
		f.Type = "checkbox"
		f.Options = options(f.ID, p.choices(), vals)
		f.Hint = bounds(number(p.schema["minItems"]), number(p.schema["maxItems"]),
			"Choose from %s to %s", "Choose at least %s", "Choose at most %s")
	}
	return f
}

// inputType returns the <input> type of a string of format, and a hint
// on how to fill it in.
func inputType(format string) (typ, hint string) {
	switch format {
	case "email":
		return "email", ""
	case "uri":
		return "url", ""
	case "date":
		return "date", ""
	case "date-time":
		return "datetime-local", "A date and time in UTC"
	}
	return "text", ""
}

// options returns the options of a group or a select of field id, checked
// when vals holds their value.
func options(id string, choices []choice, vals []string) []optionView {
	out := make([]optionView, len(choices))
	for i, c := range choices {
		out[i] = optionView{ID: id + "-" + strconv.Itoa(i), Value: c.value, Label: c.label}
		for _, v := range vals {
			if v == c.value {
				out[i].Checked = true
			}
		}
	}
	return out
}

// bounds returns the hint of a range: both, only the lower bound, or only
// the upper bound; "" when neither is given.
func bounds(lo, hi, both, low, high string) string {
	switch {
	case lo != "" && hi != "":
		return fmt.Sprintf(both, lo, hi)
	case lo != "":
		return fmt.Sprintf(low, lo)
	case hi != "":
		return fmt.Sprintf(high, hi)
	}
	return ""
}

// number returns a schema's numeric keyword value as text, "" when it is
// not a number.
func number(v any) string {
	switch v.(type) {
	case float64, float32, int, int64, int32, uint, uint64, uint32:
		return text(v)
	}
	if n, ok := v.(interface{ Float64() (float64, error) }); ok {
		if _, err := n.Float64(); err == nil {
			return text(v)
		}
	}
	return ""
}

// defaults returns the form values of the defaults of schema's properties.
func defaults(schema map[string]any) url.Values {
	vals := url.Values{}
	for _, p := range props(schema) {
		d, ok := p.schema["default"]
		if !ok || d == nil {
			continue
		}
		name := fieldPrefix + p.name
		switch d := d.(type) {
		case []any:
			for _, e := range d {
				vals.Add(name, text(e))
			}
		case string:
			if t, err := time.Parse(time.RFC3339, d); err == nil && p.str("format") == "date-time" {
				d = t.UTC().Format("2006-01-02T15:04:05")
			}
			vals.Set(name, d)
		default:
			vals.Set(name, text(d))
		}
	}
	return vals
}
