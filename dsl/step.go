package dsl

import (
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/flowserve/flowserve/check/codes"
	"github.com/flowserve/flowserve/internal/yamlx"
)

// step reads the keys of a step node.
func (p *parser) step(f map[string]pair) *Step {
	s := &Step{Timeout: DefaultStepTimeout}
	if a, ok := p.str(f["step"]); ok {
		if strings.TrimSpace(a.Value) == "" {
			p.errorf(a.Pos, codes.BadValue, "step needs an action name")
		}
		s.Action = a
	}
	s.With = p.with(f)
	if e, ok := f["timeout"]; ok {
		if d, ok := p.timeout(e, `"30s"`, `"30s" or "1m30s"`); ok {
			s.Timeout = d
		}
	}
	if e, ok := f["retry"]; ok {
		s.Retry = p.retry(e)
	}
	if e, ok := f["on_error"]; ok {
		s.OnError = p.ref(e)
	}
	if e, ok := f["long"]; ok && !yamlx.IsNull(e.val) {
		if v, ok := p.reader().Bool(e.val, e.name); ok {
			s.Long, s.LongPos = v, p.pos(e.key)
		}
	}
	return s
}

// call reads the keys of a call or link node.
func (p *parser) call(k Kind, f map[string]pair) *Call {
	c := &Call{}
	if s, ok := p.str(f[k.String()]); ok {
		if strings.TrimSpace(s.Value) == "" {
			p.errorf(s.Pos, codes.BadValue, "%s needs the name of a flow", k)
		}
		c.Flow = s
	}
	c.With = p.with(f)
	c.OnError = p.optRef(f, "on_error")
	return c
}

// with reads the with mapping of a step, call or link node; nil when
// absent or empty.
func (p *parser) with(f map[string]pair) *Value {
	e, ok := f["with"]
	if !ok {
		return nil
	}
	switch {
	case yamlx.IsNull(e.val):
	case e.val.Kind == yaml.MappingNode:
		return p.value(e.val)
	default:
		p.errorf(p.pos(e.val), codes.BadType, "with must be a mapping, not %s", yamlx.TypeName(e.val))
	}
	return nil
}

// duration reads a duration string (see ParseDuration). example and
// examples are written in the messages: a quoted duration, and a few.
func (p *parser) duration(e pair, example, examples string) (time.Duration, bool) {
	if !yamlx.IsString(e.val) {
		if yamlx.IsNumber(e.val) {
			p.errorf(p.pos(e.val), codes.BadType, `%s must be a duration string such as %s, not the bare number %s`, e.name, example, e.val.Value)
		} else {
			p.errorf(p.pos(e.val), codes.BadType, `%s must be a duration such as %s, not %s`, e.name, example, yamlx.TypeName(e.val))
		}
		return 0, false
	}
	d, err := ParseDuration(e.val.Value)
	if err != nil {
		p.errorf(p.pos(e.val), codes.BadValue, `%s %q is not a duration such as %s`, e.name, e.val.Value, examples)
		return 0, false
	}
	return d, true
}

// timeout reads a duration of more than 0 (see duration).
func (p *parser) timeout(e pair, example, examples string) (time.Duration, bool) {
	d, ok := p.duration(e, example, examples)
	if ok && d <= 0 {
		p.errorf(p.pos(e.val), codes.BadValue, "%s must be more than 0", e.name)
		return 0, false
	}
	return d, ok
}

// retry reads the retry mapping of a step.
func (p *parser) retry(e pair) *Retry {
	if _, ok := p.mapping(e.val, "retry must be a mapping {attempts, backoff}"); !ok {
		return nil
	}
	r := &Retry{Pos: p.pos(e.val)}
	hasAttempts := false
	for _, ce := range p.pairs(e.val) {
		switch ce.name {
		case "attempts":
			hasAttempts = true
			if v, ok := p.count(ce, 1); ok {
				r.Attempts = v
			}
		case "backoff":
			if d, ok := p.duration(ce, `"500ms"`, `"500ms" or "2s"`); ok {
				if d < 0 {
					p.errorf(p.pos(ce.val), codes.BadValue, "backoff must not be negative")
				} else {
					r.Backoff = d
				}
			}
		default:
			p.unknownKey(ce, " in retry", []string{"attempts", "backoff"})
		}
	}
	if !hasAttempts {
		p.errorf(r.Pos, codes.MissingKey, "retry needs attempts")
	}
	return r
}
