package jsonx

// Scanning strings eight bytes at a time. Request states and other long
// strings are plain ASCII that needs no escaping; these tests let the
// string loops pass over such runs a word at a time. Each test is exact:
// it is nonzero if and only if some byte of the word qualifies.

const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

// load64 reads the eight bytes of s at i as a little-endian word.
func load64[S string | []byte](s S, i int) uint64 {
	_ = s[i+7]
	return uint64(s[i]) | uint64(s[i+1])<<8 | uint64(s[i+2])<<16 | uint64(s[i+3])<<24 |
		uint64(s[i+4])<<32 | uint64(s[i+5])<<40 | uint64(s[i+6])<<48 | uint64(s[i+7])<<56
}

// less is nonzero when a byte of x is below n (n ≤ 128).
func less(x uint64, n byte) uint64 { return (x - lsb*uint64(n)) &^ x & msb }

// has is nonzero when a byte of x is b.
func has(x uint64, b byte) uint64 {
	y := x ^ (lsb * uint64(b))
	return (y - lsb) &^ y & msb
}

// stringEnd is nonzero when a byte of x ends a run of string content
// that can be passed over unread: a quote, a backslash or a control
// character.
func stringEnd(x uint64) uint64 {
	return less(x, 0x20) | has(x, '"') | has(x, '\\')
}

// plainRun returns how many bytes of s from i on, in whole words, need
// no escaping in a JSON string: no quote, backslash, control character
// or non-ASCII byte, nor, when html, <, > or &.
func plainRun[S string | []byte](s S, i int, html bool) int {
	start := i
	for i+8 <= len(s) {
		x := load64(s, i)
		end := stringEnd(x) | x&msb
		if html {
			end |= has(x, '<') | has(x, '>') | has(x, '&')
		}
		if end != 0 {
			break
		}
		i += 8
	}
	return i - start
}
