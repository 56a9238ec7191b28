package approvals

import (
	"errors"
	"strings"
	"testing"
)

func TestSealAtRest(t *testing.T) {
	s, err := NewSealer([]byte("0123456789abcdef0123456789abcdef"))
	if err != nil {
		t.Fatal(err)
	}
	other, err := NewSealer([]byte("another secret of 32 bytes......"))
	if err != nil {
		t.Fatal(err)
	}
	url := "https://hooks.example.com/services/T000/B000/s3cr3t-token?key=abc"
	sealed, err := s.SealAtRest(url)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(sealed, "s3cr3t") || strings.Contains(sealed, "hooks.example.com") || !strings.HasPrefix(sealed, atRestPrefix) {
		t.Fatalf("sealed value shows the secret: %s", sealed)
	}
	if again, _ := s.SealAtRest(url); again == sealed {
		t.Error("two seals of one value are equal: the nonce is not fresh")
	}
	if got, err := s.OpenAtRest(sealed); err != nil || got != url {
		t.Fatalf("OpenAtRest = %q, %v", got, err)
	}
	for name, bad := range map[string]string{
		"another key": sealed,
		"damaged":     sealed[:len(sealed)-2] + "AA",
		"cut":         atRestPrefix + "AAAA",
		"not base64":  atRestPrefix + "!!",
	} {
		opener := s
		if name == "another key" {
			opener = other
		}
		if got, err := opener.OpenAtRest(bad); !errors.Is(err, ErrNotSealedHere) || got != "" {
			t.Errorf("%s: OpenAtRest = %q, %v", name, got, err)
		}
	}
	// A value stored in clear before sealing (an older server's) and ""
	// pass through.
	for _, clear := range []string{"https://old.example.com/hook", ""} {
		if got, err := s.OpenAtRest(clear); err != nil || got != clear {
			t.Errorf("OpenAtRest(%q) = %q, %v", clear, got, err)
		}
	}
	if got, err := s.SealAtRest(""); err != nil || got != "" {
		t.Errorf("SealAtRest(\"\") = %q, %v", got, err)
	}
}
