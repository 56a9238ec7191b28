package check

import (
	"github.com/flowserve/flowserve/check/codes"
)

// checkDefaultTemplate reports the template syntax of a default that is
// a template (a {{ without }}, an empty {{ }}) as form-default findings.
func (pc *propChecker) checkDefaultTemplate() {
	_, diags := pc.c.f.ReadDefaultTemplate(pc.prop, pc.c.ix)
	for _, d := range diags {
		pc.errorf(d.Pos, codes.FormDefault, "default: %s", d.Message)
	}
}
