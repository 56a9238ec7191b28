package cli

import (
	"fmt"
	"io"
	"os"

	"github.com/flowserve/flowserve/dsl"
	"github.com/flowserve/flowserve/project"
	"github.com/flowserve/flowserve/resources"
)

// usageError returns the message of the first error in diags that is
// about the paths themselves (see project.IsUsage): a path that does not
// exist, or paths with nothing to load. Commands report it as a usage
// error, with exit status 2.
func usageError(diags dsl.Diagnostics) (string, bool) {
	if !project.IsUsage(diags) {
		return "", false
	}
	for _, d := range diags {
		switch d.Code {
		case dsl.CodeNoSuchPath:
			return d.Pos.File + ": " + d.Message, true
		case dsl.CodeNoFlows:
			return d.Message, true
		}
	}
	return "", false
}

func errNotFound(err error) error {
	if os.IsNotExist(err) {
		return fmt.Errorf("no such file or directory")
	}
	return err
}

// printDiagnostics writes one diagnostic per line.
func printDiagnostics(w io.Writer, diags dsl.Diagnostics) {
	for _, d := range diags {
		fmt.Fprintln(w, d.String())
	}
}

// failedParts names what holds the errors of diags: "flows", "resource
// declarations", or both, for messages like "the flows have errors".
func failedParts(diags dsl.Diagnostics) string {
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
