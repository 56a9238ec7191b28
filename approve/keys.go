package approve

import (
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"io"

	"golang.org/x/crypto/chacha20poly1305"

	"github.com/flowserve/flowserve/approvals"
)

// The purposes of the page's keys, derived from the secret that seals
// its links (approvals.Sealer.Derive).
const (
	csrfInfo   = "flowserve approval form v1"
	signInInfo = "flowserve approval sign-in v1"
)

// encoding is the base64 of the page's cookies and fields: URL-safe,
// unpadded, and strict so that a value has one spelling only.
var encoding = base64.RawURLEncoding.Strict()

// keys are the page's own keys: the forms' CSRF fields, and the sign-in
// state and approver cookie.
type keys struct {
	csrf   []byte      // the key of the forms' CSRF fields
	signIn cipher.AEAD // seals the sign-in state and the approver cookie
	rand   io.Reader   // the nonces' source; crypto/rand unless a test sets it
}

// newKeys derives the page's keys from the secret of s.
func newKeys(s *approvals.Sealer) *keys {
	// NewX fails only for a key that is not 32 bytes long; Derive's are.
	signIn, _ := chacha20poly1305.NewX(s.Derive(signInInfo))
	return &keys{csrf: s.Derive(csrfInfo), signIn: signIn, rand: rand.Reader}
}
