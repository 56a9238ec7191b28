// Package state seals and opens the request state that carries a flow's
// journal from one MCP round to the next.
//
// The engine replays a flow every round against a journal of what earlier
// rounds produced. The journal, the pending questions and the facts the state
// is bound to travel to the client as MCP's opaque requestState and come back
// with the next call, so any server instance can serve any round. This
// package turns a [State] into that string and back: a [Codec] seals with the
// first key of a [KeyRing] and opens with any of its keys, so keys rotate
// without breaking live flows.
//
// # Wire format
//
// A sealed state is
//
//	<key id> "." base64url-no-padding(nonce ‖ ciphertext ‖ tag)
//
// where the key id matches ^[A-Za-z0-9_-]{1,32}$, the nonce is 12 random
// bytes drawn for every seal, and ciphertext ‖ tag is the ChaCha20-Poly1305
// (RFC 8439) sealing of the plaintext below under the key's 32-byte secret,
// with associated data
//
//	"flowserve/requestState" ‖ format version (1 byte) ‖ key id
//
// so a state can be neither moved to another key id nor read under another
// format version, and a key shared with some other use cannot produce one.
//
// # Plaintext, format version 1
//
// Integers are unsigned LEB128 varints ("uvarint") in their shortest form;
// times are zig-zag varints of Unix milliseconds (so they are kept to the
// millisecond); strings are a uvarint length followed by that many bytes;
// fingerprints are 8 bytes little-endian. In order:
//
//	version      1 byte, 0x01
//	tool         string
//	args digest  32 bytes
//	principal    string
//	expires      time
//	flow hash    32 bytes
//	run id       16 bytes
//	started      time
//	round        uvarint
//	journal      uvarint count, then per entry:
//	               kind         1 byte: 1 answer, 2 step, 3 call, 4 return
//	               node         string
//	               fingerprint  8 bytes
//	               value        uvarint 0 for nil, else 1+length, then the bytes
//	               error        string
//	pending      uvarint count, then per question:
//	               node         string
//	               position     uvarint
//	               fingerprint  8 bytes
//	               invalid      uvarint
//
// A call entry opens the frame of a call (or link) node whose callee runs:
// its value is the callee's flow version (64 lowercase hex digits), and every entry after
// it, to the end of the journal, is the callee's, which may open a frame
// of its own (a run is in at most one callee at a time, so open frames
// are always the journal's tail). When the callee finishes, the engine
// replaces the call entry and its frame with one return entry, whose
// value is the call's result and whose error is the callee's failure
// message: a finished call costs what a step result of the same value
// does. Kinds 3 and 4 were added to version 1 without changing the bytes
// of any state without calls, which every version 1 decoder still opens.
//
// Decoding is strict: a non-canonical varint, a length or count beyond the
// remaining bytes, an unknown kind or version, or trailing bytes make the
// state invalid. Only states this package sealed get that far, since they are
// authenticated first.
//
// The known-answer vectors in testdata/vectors_v1.json pin this format: for
// fixed keys, nonces and clocks, each state's exact plaintext and sealed
// token, and the reason each altered or misbound token is refused. Any
// change to the bytes fails TestVectors, because it would break every run in
// flight; a deliberate change needs a new format version, and only then
// `go test -run TestVectors -update` to rewrite the vectors.
//
// # Opening
//
// [Codec.Open] checks, in this order: the size limit ([ErrTooLarge]), the
// syntax, that the key id is in the ring, the authentication tag, the
// plaintext, the expiry ([ErrExpired]), and that the tool, the arguments'
// digest and the principal equal the call's [Binding]. Every failure except
// size and expiry is [ErrInvalid], whose message says nothing about which
// check failed; [Reason] gives that for the server's own logs.
//
// Each sealed journal entry costs about 4/3 × (12 + len(node id) + len(value)
// + len(error)) bytes on the wire, each pending question about
// 4/3 × (11 + len(node id)), and the rest about 170 bytes plus the key id and
// 4/3 of the tool name and principal.
package state
