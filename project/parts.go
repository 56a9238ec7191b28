package project

import (
	"github.com/flowserve/flowserve/dsl"
	"github.com/flowserve/flowserve/resources"
)

// FailedParts names what holds the errors of diags, for messages like
// "the flows have errors": "the flows", "the resource declarations", or
// "the flows and the resource declarations".
func FailedParts(diags dsl.Diagnostics) string {
	var flows, decls bool
	for _, d := range diags {
		if d.Severity != dsl.Error {
			continue
		}
		if resources.IsDeclarationFile(d.Pos.File) {
			decls = true
		} else {
			flows = true
		}
	}
	switch {
	case flows && decls:
		return "the flows and the resource declarations"
	case decls:
		return "the resource declarations"
	}
	return "the flows"
}
