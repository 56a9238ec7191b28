package jsonx

import (
	"strings"
	"testing"
)

// checkCanonical checks AppendCanonical against Append of what Parse
// decodes.
func checkCanonical(t *testing.T, raw []byte) {
	t.Helper()
	prefix := []byte("prefix")
	v, perr := Parse(raw)
	got, err := AppendCanonical(append([]byte(nil), prefix...), raw)
	if (err != nil) != (perr != nil) {
		t.Fatalf("%q: AppendCanonical error %v, Parse error %v", raw, err, perr)
	}
	if err != nil {
		if string(got) != string(prefix) {
			t.Fatalf("%q: failed, leaving %q", raw, got)
		}
		return
	}
	want, err := Append(append([]byte(nil), prefix...), v)
	if err != nil {
		t.Fatalf("%q: Append: %v", raw, err)
	}
	if string(got) != string(want) {
		t.Fatalf("%q:\n got %s\nwant %s", raw, got, want)
	}
}

func TestAppendCanonical(t *testing.T) {
	deep := strings.Repeat(`{"b":[{"a":1,`, 20) + `"z":0` + strings.Repeat(`}]}`, 20)
	for _, s := range []string{
		`{"action":"accept","content":{"topic":"Planning","attendees":4,"day":"2026-01-02"}}`,
		` { "b" : 1 , "a" : [ 1.50 , -0 , 1e3 , 12345678901234567890, "x" ] } `,
		`{"a":1,"a":2}`, `{"b":1,"a":2,"b":{"c":3},"a":null}`,
		`{"k\u00e9":"\ud83d\ude00","k\u00e8":"<&>\u2028","k":"\"\\\/\b\f\n\r\t\u0001"}`,
		"{\"\xff\":\"a\xffb\",\"\xfe\":1}", `{"\ud800":"\udc00x"}`,
		`{}`, `[]`, `[{}]`, `""`, `null`, `true`, `false`, `0.000001`, `1e-7`, `1e21`, `-1.25e+30`,
		`{"a":{"b":{"c":{"d":{"e":{"f":{"g":{"h":{"i":{"j":1}}}}}}}}}}`, deep,
		`{"z":1,"y":2,"x":3,"w":4,"v":5,"u":6,"t":7,"s":8,"r":9,"q":10,"p":11}`,
		// Not JSON: each must fail as Parse does.
		``, `{`, `{"a":1,}`, `{"a" 1}`, `[1,]`, `[1 2]`, `{"a":01}`, `"\x"`, `{"a":tru}`, `1 2`, `{"a":1}}`,
		`{"a":[1,{"b":"` + "\x01" + `"}]}`, `[` + strings.Repeat("[", 2000), `{"a":1e999}`,
	} {
		checkCanonical(t, []byte(s))
	}
}

func TestAppendCanonicalAllocs(t *testing.T) {
	raw := []byte(`{"action":"accept","content":{"topic":"Planning","attendees":40000,"day":"2026-01-02","ok":true}}`)
	buf := make([]byte, 0, 512)
	var c canonicalizer
	n := testing.AllocsPerRun(100, func() {
		c.p = jsonParser{b: raw}
		if _, err := c.value(buf, 0); err != nil {
			t.Fatal(err)
		}
	})
	if n > 0 {
		t.Errorf("%v allocations per canonical encoding, want 0", n)
	}
}

// FuzzAppendCanonical checks AppendCanonical against Append of what
// Parse decodes.
func FuzzAppendCanonical(f *testing.F) {
	for _, s := range []string{`{"b":[1,2.5e-9,"<x>"],"a":null,"b":{"c":"\u00e9"}}`, `"\ud83d\ude00"`, `[{"z":1,"a":2}]`, `1e300`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		checkCanonical(t, b)
	})
}
