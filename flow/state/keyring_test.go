package state

import (
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestParseKeyRing(t *testing.T) {
	a, b, c := testKey("a", 1), testKey("key-2", 2), testKey("K_3", 3)
	std := base64.StdEncoding.EncodeToString
	rawStd := base64.RawStdEncoding.EncodeToString
	url := base64.URLEncoding.EncodeToString
	rawURL := base64.RawURLEncoding.EncodeToString
	// A secret whose base64 has '-' and '_' in URL form.
	var u Key
	u.ID = "u"
	for i := range u.Secret {
		u.Secret[i] = 0xfb
	}

	for _, tc := range []struct {
		name string
		text string
		want []Key
	}{
		{"one line", a.String(), []Key{a}},
		{"trailing newline", a.String() + "\n", []Key{a}},
		{"three lines", a.String() + "\n" + b.String() + "\n" + c.String() + "\n", []Key{a, b, c}},
		{"order is kept", c.String() + "\n" + a.String(), []Key{c, a}},
		{"byte order mark", "\ufeff" + a.String(), []Key{a}},
		{"CRLF", a.String() + "\r\n" + b.String() + "\r\n", []Key{a, b}},
		{"comments and blanks", "# flowserve keys\n\n  # rotated 2026-07-01\n" + a.String() + "  # current\n\n" + b.String() + "\n#end", []Key{a, b}},
		{"commas", a.String() + "," + b.String() + ", " + c.String(), []Key{a, b, c}},
		{"commas and lines", a.String() + ",\n" + b.String() + ",," + c.String() + ",", []Key{a, b, c}},
		{"spaces around", "  a : " + std(a.Secret[:]) + "\t", []Key{a}},
		{"std unpadded", "a:" + rawStd(a.Secret[:]), []Key{a}},
		{"url padded", "u:" + url(u.Secret[:]), []Key{u}},
		{"url unpadded", "u:" + rawURL(u.Secret[:]), []Key{u}},
		{"std with + and /", "u:" + std(u.Secret[:]), []Key{u}},
		{"32-character id", strings.Repeat("x", 32) + ":" + std(a.Secret[:]), []Key{{ID: strings.Repeat("x", 32), Secret: a.Secret}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := ParseKeyRing([]byte(tc.text))
			if err != nil {
				t.Fatal(err)
			}
			want, _ := NewKeyRing(tc.want...)
			if !reflect.DeepEqual(r.IDs(), want.IDs()) {
				t.Errorf("ids %v, want %v", r.IDs(), want.IDs())
			}
			// Same secrets: each ring opens what the other sealed with
			// each key.
			for _, k := range tc.want {
				one := testCodec(t, mustRing(t, k), t0)
				token, _ := one.Seal(&State{Tool: "t"})
				if _, err := testCodec(t, r, t0).Open(token, Binding{Tool: "t"}); err != nil {
					t.Errorf("key %s: the parsed ring does not open its state: %v", k.ID, err)
				}
			}
		})
	}
}

func TestParseKeyRingErrors(t *testing.T) {
	a := testKey("a", 1)
	secret := base64.StdEncoding.EncodeToString(a.Secret[:])
	short := base64.StdEncoding.EncodeToString(a.Secret[:16])
	zero := base64.StdEncoding.EncodeToString(make([]byte, 32))
	for _, tc := range []struct {
		name string
		text string
		want string
	}{
		{"empty", "", "key ring: no keys (want lines of <id>:<base64 of 32 bytes>)"},
		{"only comments", "# nothing here\n\n   \n", "key ring: no keys (want lines of <id>:<base64 of 32 bytes>)"},
		{"no colon", "# keys\n" + secret, "key ring: line 2: want <id>:<base64 of 32 bytes>, found no ':'"},
		{"empty id", ":" + secret, "key ring: line 1: the key id before ':' is empty"},
		{"bad id", "a.b:" + secret, "key ring: line 1: the key id before ':' is not valid: use 1 to 32 letters, digits, '_' or '-'"},
		{"id too long", strings.Repeat("x", 33) + ":" + secret, "key ring: line 1: the key id before ':' is not valid: use 1 to 32 letters, digits, '_' or '-'"},
		{"secret and id swapped", secret + ":a", "key ring: line 1: the key id before ':' is not valid: use 1 to 32 letters, digits, '_' or '-'"},
		{"empty secret", "a: ", "key ring: line 1: key \"a\": the secret after ':' is empty"},
		{"not base64", "a:" + secret[:20] + "!" + secret[21:], "key ring: line 1: key \"a\": the secret is not valid base64"},
		{"mixed alphabets", "a:" + "+-" + secret[2:], "key ring: line 1: key \"a\": the secret is not valid base64"},
		{"16 bytes", "\n\na:" + short, "key ring: line 3: key \"a\": the secret is 16 bytes, want 32"},
		{"33 bytes", "a:" + base64.StdEncoding.EncodeToString(append(a.Secret[:], 1)), "key ring: line 1: key \"a\": the secret is 33 bytes, want 32"},
		{"all zeros", "a:" + zero, "key ring: line 1: key \"a\": the secret is all zeros"},
		{"bad secret after a comment", "a:" + secret + "\n# x\nb:" + short + "x\n", "key ring: line 3: key \"b\": the secret is not valid base64"},
		{"duplicate id on two lines", "a:" + secret + "\n\na:" + secret, "key ring: line 3: key id \"a\" is already used on line 1"},
		{"duplicate id on one line", "a:" + secret + ",a:" + secret, "key ring: line 1: key id \"a\" is already used on line 1"},
		{"second key of a line", "a:" + secret + "," + secret, "key ring: line 1: want <id>:<base64 of 32 bytes>, found no ':'"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r, err := ParseKeyRing([]byte(tc.text))
			if err == nil {
				t.Fatalf("parsed: %v", r)
			}
			if err.Error() != tc.want {
				t.Errorf("error\n %q\nwant\n %q", err, tc.want)
			}
			// No key material in the message, not even a piece of it.
			for _, s := range []string{secret, short, secret[:10], secret[20:30], short[:10]} {
				if strings.Contains(err.Error(), s) {
					t.Errorf("error %q contains key material %q", err, s)
				}
			}
		})
	}
}

func TestNewKeyRingErrors(t *testing.T) {
	a := testKey("a", 1)
	for _, tc := range []struct {
		name string
		keys []Key
		want string
	}{
		{"none", nil, "key ring has no keys"},
		{"bad id", []Key{a, testKey("a b", 2)}, `key 2: key id "a b" is not valid: use 1 to 32 letters, digits, '_' or '-'`},
		{"empty id", []Key{{Secret: a.Secret}}, `key 1: key id "" is not valid: use 1 to 32 letters, digits, '_' or '-'`},
		{"duplicate", []Key{a, testKey("b", 2), testKey("a", 3)}, `key 3: key id "a" appears twice`},
		{"all zeros", []Key{{ID: "z"}}, `key "z": secret is all zeros`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewKeyRing(tc.keys...)
			if err == nil || err.Error() != tc.want {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
}

func TestKeyStringRoundTrip(t *testing.T) {
	k, err := GenerateKey("gen-1")
	if err != nil {
		t.Fatal(err)
	}
	line := k.String()
	if !strings.HasPrefix(line, "gen-1:") || len(line) != len("gen-1:")+44 {
		t.Errorf("String() = %q, want gen-1: and 44 characters of base64", line)
	}
	r, err := ParseKeyRing([]byte(line))
	if err != nil {
		t.Fatal(err)
	}
	if got := r.keys[0]; got.id != k.ID {
		t.Errorf("id %q", got.id)
	}
	token, _ := testCodec(t, mustRing(t, k), t0).Seal(&State{})
	if _, err := testCodec(t, r, t0).Open(token, Binding{}); err != nil {
		t.Errorf("the parsed key does not open the generated key's state: %v", err)
	}
}

func TestGenerateKey(t *testing.T) {
	k1, err := GenerateKey("a")
	if err != nil {
		t.Fatal(err)
	}
	k2, _ := GenerateKey("a")
	if k1.Secret == k2.Secret || k1.Secret == ([32]byte{}) {
		t.Error("GenerateKey does not draw random secrets")
	}
	if _, err := GenerateKey("not valid"); err == nil || err.Error() != `key id "not valid" is not valid: use 1 to 32 letters, digits, '_' or '-'` {
		t.Errorf("GenerateKey(bad id): %v", err)
	}
}

func TestLoadKeyRing(t *testing.T) {
	dir := t.TempDir()
	a, b := testKey("a", 1), testKey("b", 2)
	good := filepath.Join(dir, "keys")
	if err := os.WriteFile(good, []byte("# keys\n"+b.String()+"\n"+a.String()+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r, err := LoadKeyRing(good)
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(r.IDs()); got != "[b a]" {
		t.Errorf("ids %s", got)
	}

	bad := filepath.Join(dir, "bad")
	os.WriteFile(bad, []byte(a.String()+"\nb\n"), 0o600)
	_, err = LoadKeyRing(bad)
	if want := "key ring " + bad + ": line 2: want <id>:<base64 of 32 bytes>, found no ':'"; err == nil || err.Error() != want {
		t.Errorf("bad file: %v, want %q", err, want)
	}

	_, err = LoadKeyRing(filepath.Join(dir, "missing"))
	if err == nil || !strings.HasPrefix(err.Error(), "read key ring: open ") || !os.IsNotExist(unwrapAll(err)) {
		t.Errorf("missing file: %v", err)
	}
}

func unwrapAll(err error) error {
	for {
		u, ok := err.(interface{ Unwrap() error })
		if !ok {
			return err
		}
		err = u.Unwrap()
	}
}

func TestEphemeralKeyRing(t *testing.T) {
	r1, err := EphemeralKeyRing()
	if err != nil {
		t.Fatal(err)
	}
	r2, _ := EphemeralKeyRing()
	if got := fmt.Sprint(r1.IDs()); got != "[ephemeral]" {
		t.Errorf("ids %s", got)
	}
	c1, c2 := testCodec(t, r1, t0), testCodec(t, r2, t0)
	s := fullState()
	token, err := c1.Seal(s)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c1.Open(token, bindingOf(s)); err != nil {
		t.Errorf("own state: %v", err)
	}
	// Another process's ephemeral key has the same id and another secret.
	_, err = c2.Open(token, bindingOf(s))
	wantInvalid(t, "another ephemeral ring", err)
}

func TestKeyRingStringHidesSecrets(t *testing.T) {
	a, b := testKey("a", 1), testKey("b", 2)
	r := mustRing(t, a, b)
	if got, want := r.String(), `key ring [a b] sealing with "a"`; got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	for _, format := range []string{"%v", "%+v", "%#v", "%s"} {
		out := fmt.Sprintf(format, r) + fmt.Sprintf(format, *r)
		for _, k := range []Key{a, b} {
			for _, s := range []string{base64.StdEncoding.EncodeToString(k.Secret[:])[:8], fmt.Sprint(k.Secret[:4]), fmt.Sprintf("%x", k.Secret[:4])} {
				if strings.Contains(out, s) {
					t.Errorf("%s of a ring shows secret material %q: %s", format, s, out)
				}
			}
		}
	}
}
