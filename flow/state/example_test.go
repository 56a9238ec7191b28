package state_test

import (
	"crypto/sha256"
	"errors"
	"fmt"

	"github.com/flowserve/flowserve/flow/state"
)

func Example() {
	// A key ring file or environment variable: the first key seals, all
	// open, so a new key goes first and the old one stays until the states
	// it sealed have expired.
	ring, err := state.ParseKeyRing([]byte(`
# flowserve request-state keys
k2026b:3q2+7wAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=
k2026a:AQIDBAUGBwgJCgsMDQ4PEBESExQVFhcYGRobHB0eHyA=
`))
	if err != nil {
		fmt.Println(err)
		return
	}
	codec := state.NewCodec(ring, state.Options{})

	call := state.Binding{Tool: "delete_file", ArgsDigest: sha256.Sum256([]byte(`{"path":"report.pdf"}`))}
	token, err := codec.Seal(&state.State{
		Tool:       call.Tool,
		ArgsDigest: call.ArgsDigest,
		Round:      1,
		Pending:    []state.Pending{{Node: "confirm", Position: 1, Fingerprint: 0x5eed}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}

	s, err := codec.Open(token, call)
	fmt.Println(s.Pending[0].Node, err)

	other := call
	other.Tool = "delete_everything"
	_, err = codec.Open(token, other)
	fmt.Println(err, errors.Is(err, state.ErrInvalid))
	// Output:
	// confirm <nil>
	// requestState is not valid for this call true
}
