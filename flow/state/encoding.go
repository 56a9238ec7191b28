package state

import (
	"encoding/binary"
	"math"
	"math/bits"
	"time"
)

// Minimum encoded sizes, which bound how many elements a count may claim
// before anything is allocated for them.
const (
	minEntryLen   = 1 + 1 + 8 + 1 + 1 // kind, node, fingerprint, value, error
	minPendingLen = 1 + 1 + 8 + 1     // node, position, fingerprint, invalid
)

// uvarintLen is the length of v as a uvarint.
func uvarintLen(v uint64) int { return (bits.Len64(v|1) + 6) / 7 }

// zigzag maps signed to unsigned as encoding/binary's varints do.
func zigzag(v int64) uint64 { return uint64(v<<1) ^ uint64(v>>63) }

func strLen(s string) int { return uvarintLen(uint64(len(s))) + len(s) }

func valueLen(v []byte) int {
	if v == nil {
		return 1
	}
	return uvarintLen(uint64(len(v))+1) + len(v)
}

// encodedLen is the length of the plaintext encoding of s.
func encodedLen(s *State) int {
	n := 1 + strLen(s.Tool) + 32 + strLen(s.Principal) +
		uvarintLen(zigzag(s.Expires.UnixMilli())) + 32 + 16 +
		uvarintLen(zigzag(s.Started.UnixMilli())) + uvarintLen(uint64(s.Round)) +
		uvarintLen(uint64(len(s.Journal))) + uvarintLen(uint64(len(s.Pending)))
	for i := range s.Journal {
		e := &s.Journal[i]
		n += 1 + strLen(e.Node) + 8 + valueLen(e.Value) + strLen(e.Err)
	}
	for i := range s.Pending {
		p := &s.Pending[i]
		n += strLen(p.Node) + uvarintLen(uint64(p.Position)) + 8 + uvarintLen(uint64(p.Invalid))
	}
	return n
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

// encode appends the plaintext encoding of s to b. The caller has checked s.
func encode(b []byte, s *State) []byte {
	b = append(b, formatVersion)
	b = appendString(b, s.Tool)
	b = append(b, s.ArgsDigest[:]...)
	b = appendString(b, s.Principal)
	b = binary.AppendVarint(b, s.Expires.UnixMilli())
	b = append(b, s.FlowHash[:]...)
	b = append(b, s.RunID[:]...)
	b = binary.AppendVarint(b, s.Started.UnixMilli())
	b = binary.AppendUvarint(b, uint64(s.Round))
	b = binary.AppendUvarint(b, uint64(len(s.Journal)))
	for i := range s.Journal {
		e := &s.Journal[i]
		b = append(b, byte(e.Kind))
		b = appendString(b, e.Node)
		b = binary.LittleEndian.AppendUint64(b, e.Fingerprint)
		if e.Value == nil {
			b = append(b, 0)
		} else {
			b = binary.AppendUvarint(b, uint64(len(e.Value))+1)
			b = append(b, e.Value...)
		}
		b = appendString(b, e.Err)
	}
	b = binary.AppendUvarint(b, uint64(len(s.Pending)))
	for i := range s.Pending {
		p := &s.Pending[i]
		b = appendString(b, p.Node)
		b = binary.AppendUvarint(b, uint64(p.Position))
		b = binary.LittleEndian.AppendUint64(b, p.Fingerprint)
		b = binary.AppendUvarint(b, uint64(p.Invalid))
	}
	return b
}

// decoder reads a plaintext. After the first error every read returns a
// zero value and bad stays set.
type decoder struct {
	p   []byte // the plaintext; Values alias it
	s   string // a copy of p; strings are substrings of it
	off int
	bad bool
}

func (d *decoder) fail() { d.bad, d.off = true, len(d.p) }

func (d *decoder) remaining() int { return len(d.p) - d.off }

// readUvarint reads a uvarint in its shortest form.
func (d *decoder) readUvarint() uint64 {
	v, n := binary.Uvarint(d.p[d.off:])
	if n <= 0 || (n > 1 && d.p[d.off+n-1] == 0) {
		d.fail()
		return 0
	}
	d.off += n
	return v
}

// readInt reads a uvarint that must fit an int.
func (d *decoder) readInt() int {
	v := d.readUvarint()
	if v > math.MaxInt {
		d.fail()
		return 0
	}
	return int(v)
}

// readCount reads a uvarint that must be at most the number of bytes left
// divided by size, the least an element takes.
func (d *decoder) readCount(size int) int {
	v := d.readUvarint()
	if v > uint64(d.remaining()/size) {
		d.fail()
		return 0
	}
	return int(v)
}

func (d *decoder) readTime() time.Time {
	u := d.readUvarint()
	if d.bad {
		return time.Time{}
	}
	return time.UnixMilli(int64(u>>1) ^ -int64(u&1)).UTC()
}

func (d *decoder) readFixed(dst []byte) {
	if d.remaining() < len(dst) {
		d.fail()
		return
	}
	d.off += copy(dst, d.p[d.off:])
}

func (d *decoder) readUint64() uint64 {
	if d.remaining() < 8 {
		d.fail()
		return 0
	}
	v := binary.LittleEndian.Uint64(d.p[d.off:])
	d.off += 8
	return v
}

func (d *decoder) readByte() byte {
	if d.remaining() < 1 {
		d.fail()
		return 0
	}
	d.off++
	return d.p[d.off-1]
}

func (d *decoder) readString() string {
	n := d.readCount(1)
	if n == 0 {
		return ""
	}
	s := d.s[d.off : d.off+n]
	d.off += n
	return s
}

// readValue reads a Value: uvarint 0 for nil, else 1+length and the bytes.
func (d *decoder) readValue() []byte {
	v := d.readUvarint()
	if v == 0 {
		return nil
	}
	if v-1 > uint64(d.remaining()) {
		d.fail()
		return nil
	}
	n := int(v - 1)
	b := d.p[d.off : d.off+n : d.off+n]
	d.off += n
	return b
}

// decode fills s from plaintext p, strictly: it reports false for a wrong
// version, a non-canonical varint, a length or count beyond the data, an
// unknown entry kind, or trailing bytes. Values in s alias p.
func decode(s *State, p []byte) bool {
	if len(p) == 0 || p[0] != formatVersion {
		return false
	}
	d := decoder{p: p, s: string(p), off: 1}
	s.Tool = d.readString()
	d.readFixed(s.ArgsDigest[:])
	s.Principal = d.readString()
	s.Expires = d.readTime()
	d.readFixed(s.FlowHash[:])
	d.readFixed(s.RunID[:])
	s.Started = d.readTime()
	s.Round = d.readInt()
	if n := d.readCount(minEntryLen); n > 0 {
		s.Journal = make([]Entry, n)
		for i := range s.Journal {
			e := &s.Journal[i]
			e.Kind = EntryKind(d.readByte())
			if !e.Kind.Valid() {
				d.fail()
			}
			e.Node = d.readString()
			e.Fingerprint = d.readUint64()
			e.Value = d.readValue()
			e.Err = d.readString()
			if d.bad {
				return false
			}
		}
	}
	if n := d.readCount(minPendingLen); n > 0 {
		s.Pending = make([]Pending, n)
		for i := range s.Pending {
			q := &s.Pending[i]
			q.Node = d.readString()
			q.Position = d.readInt()
			q.Fingerprint = d.readUint64()
			q.Invalid = d.readInt()
			if d.bad {
				return false
			}
		}
	}
	return !d.bad && d.off == len(d.p)
}
