package flow

import (
	"context"
	"errors"
	"fmt"

	"github.com/flowserve/flowserve/dsl"
)

// ErrUnknownVersion is what a Resolver answers for a version it does not
// have.
var ErrUnknownVersion = errors.New("unknown flow version")

// Version returns the version of p's flow (see dsl.Version): what states
// and tasks carry, so that a run goes on on the version it began on.
func (p *Program) Version() dsl.Version { return p.file.Version }

// VersionError is a round of a run that began on a version of the flow
// that the engine could not get (its Resolver does not have it, or
// failed), and that the version it has does not replay. It is retryable:
// another instance, or the same one later, may have the version.
type VersionError struct {
	Tool    string
	Version dsl.Version
	Err     error // why: the journal mismatch, or the resolver's error
}

func (e *VersionError) Error() string {
	return fmt.Sprintf("the run began on version %s of the %s flow, which this server does not have (%v); retry the request: another instance, or this one shortly, may have it",
		e.Version.Short(), e.Tool, e.Err)
}

func (e *VersionError) Unwrap() error { return e.Err }

// versionOf returns the program a round whose state was sealed by version v
// of p's flow runs on: p itself when it is that version, else the one the
// engine's Resolver finds; p when the Resolver does not have it (the
// journal is checked as the round replays).
func (e *Engine) versionOf(ctx context.Context, p *Program, v dsl.Version) (*Program, error) {
	if v == p.file.Version || e.versions == nil {
		return p, nil
	}
	q, err := e.versions.Program(ctx, p.Name(), v)
	switch {
	case err == nil && q != nil && q.Name() == p.Name():
		return q, nil
	case err == nil, errors.Is(err, ErrUnknownVersion):
		return p, nil
	}
	return nil, &VersionError{Tool: p.Name(), Version: v, Err: err}
}
