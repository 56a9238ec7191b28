package approvals

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"golang.org/x/crypto/chacha20poly1305"
)

// atRestPrefix starts a value SealAtRest sealed: "sealed1." followed by
// base64url (unpadded) of a 24-byte nonce and the XChaCha20-Poly1305
// sealed text, with the prefix as additional data.
const atRestPrefix = "sealed1."

// SealAtRest seals a secret a run store keeps for an approval (the
// rendered webhook URL, which often holds a token), so that the store's
// file or server never holds it in clear. "" stays "".
func (s *Sealer) SealAtRest(plain string) (string, error) {
	if plain == "" {
		return "", nil
	}
	out := make([]byte, chacha20poly1305.NonceSizeX, chacha20poly1305.NonceSizeX+len(plain)+s.atRest.Overhead())
	if _, err := io.ReadFull(s.rand, out); err != nil {
		return "", fmt.Errorf("approvals: making a nonce: %w", err)
	}
	out = s.atRest.Seal(out, out, []byte(plain), []byte(atRestPrefix))
	return atRestPrefix + encoding.EncodeToString(out), nil
}

// ErrNotSealedHere means a value sealed at rest cannot be opened: it was
// sealed with another key (the state key ring's sealing key changed) or
// was damaged.
var ErrNotSealedHere = errors.New("approvals: the value was sealed with another key, or damaged")

// OpenAtRest returns what SealAtRest sealed. A value without its prefix
// is returned as it is: one a server stored in clear before values were
// sealed.
func (s *Sealer) OpenAtRest(sealed string) (string, error) {
	b64, ok := strings.CutPrefix(sealed, atRestPrefix)
	if !ok {
		return sealed, nil
	}
	raw, err := encoding.DecodeString(b64)
	if err != nil || len(raw) < chacha20poly1305.NonceSizeX+s.atRest.Overhead() {
		return "", ErrNotSealedHere
	}
	plain, err := s.atRest.Open(nil, raw[:chacha20poly1305.NonceSizeX], raw[chacha20poly1305.NonceSizeX:], []byte(atRestPrefix))
	if err != nil {
		return "", ErrNotSealedHere
	}
	return string(plain), nil
}
