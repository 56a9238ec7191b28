package cli

import (
	"fmt"
	"io"
	"os"

	"github.com/flowserve/flowserve/check/codes"
	"github.com/flowserve/flowserve/dsl"
	"github.com/flowserve/flowserve/project"
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
		case codes.NoSuchPath:
			return d.Pos.File + ": " + d.Message, true
		case codes.NoFlows:
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

// failedParts names what holds the errors of diags (project.FailedParts).
func failedParts(diags dsl.Diagnostics) string { return project.FailedParts(diags) }
