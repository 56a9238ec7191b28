package boltcheck

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"strconv"
)

// The layout of a bbolt file (go.etcd.io/bbolt/internal/common), whose
// numbers are in the machine's byte order. Every page begins with a
// header; pages 0 and 1 are meta pages, the others branch, leaf or free
// list pages, a page with overflow spanning the pages that follow it.
const (
	// pageHeaderSize: the page id (uint64), flags (uint16), element
	// count (uint16) and overflow (uint32).
	pageHeaderSize = 16
	// elementSize: a branch element is the key's offset from the element
	// and size (uint32s) and the child page id (uint64); a leaf element
	// the flags, key offset, key size and value size (uint32s).
	elementSize = 16
	// bucketHeaderSize: a bucket's value begins with its root page id
	// (uint64; 0 for a bucket inline in the value, whose leaf page
	// follows) and sequence (uint64).
	bucketHeaderSize = 16
	// metaSize: after the header of a meta page, the magic, format
	// version, page size and flags (uint32s), the root bucket (root page
	// id and sequence), the free list's page id, the high water mark, the
	// transaction id and the checksum of what precedes it (uint64s).
	metaSize     = 64
	metaChecksum = 56

	branchPage   = 0x01
	leafPage     = 0x02
	freelistPage = 0x10
	bucketLeaf   = 0x01

	boltMagic     = 0xED0CDAED
	formatVersion = 2
	noFreelist    = ^uint64(0)
	// Page sizes bbolt itself looks for its meta pages at.
	minPageSize = 1024
	maxPageSize = 1 << 24
	// maxDepth bounds the nesting of pages and buckets: a B+tree of at
	// least two keys a page is not deeper than 64 levels.
	maxDepth = 64
)

var order = binary.NativeEndian

// meta is what the walk needs of a meta page.
type meta struct {
	pageSize                   uint64
	root, freelist, pgid, txid uint64
}

// walkFile checks the file at path with bounds-checked reads, where bbolt
// would trust it: the meta pages, the size, the free list and every page
// reachable from the root. It returns what is wrong, or "" when nothing
// is (or the file cannot be read, for bbolt to say why).
func walkFile(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return ""
	}
	m, problem := readMetas(f, info.Size())
	if problem != "" {
		return problem
	}
	w := &walker{r: f, psz: m.pageSize, hwm: m.pgid, seen: map[uint64]bool{}}
	if err := w.freelist(m.freelist); err != nil {
		return err.Error()
	}
	if err := w.tree(m.root, "the root bucket", 0); err != nil {
		return err.Error()
	}
	return ""
}

// readMeta reads the meta page at off and returns it, or what is wrong
// with it.
func readMeta(r io.ReaderAt, off int64) (meta, string) {
	var b [pageHeaderSize + metaSize]byte
	if n, _ := r.ReadAt(b[:], off); n < len(b) {
		return meta{}, "is cut short"
	}
	x := b[pageHeaderSize:]
	if order.Uint32(x) != boltMagic {
		return meta{}, "is not a bbolt meta page"
	}
	if v := order.Uint32(x[4:]); v != formatVersion {
		return meta{}, fmt.Sprintf("has bbolt format version %d, not %d", v, formatVersion)
	}
	h := fnv.New64a()
	h.Write(x[:metaChecksum])
	if h.Sum64() != order.Uint64(x[metaChecksum:]) {
		return meta{}, "does not match its checksum"
	}
	return meta{
		pageSize: uint64(order.Uint32(x[8:])),
		root:     order.Uint64(x[16:]),
		freelist: order.Uint64(x[32:]),
		pgid:     order.Uint64(x[40:]),
		txid:     order.Uint64(x[48:]),
	}, ""
}

// readMetas reads both meta pages of a file of size bytes and returns
// the one bbolt would use, the later, or what is wrong. A damaged meta
// page is refused even though bbolt would fall back to the other one:
// the fallback silently undoes the last change when the damaged page
// held it.
func readMetas(r io.ReaderAt, size int64) (meta, string) {
	m0, p0 := readMeta(r, 0)
	if p0 != "" {
		// Where meta page 1 is tells the page size, as bbolt looks for it.
		for psz := int64(minPageSize); psz <= maxPageSize && psz < size; psz *= 2 {
			if m1, p1 := readMeta(r, psz); p1 == "" && int64(m1.pageSize) == psz {
				return meta{}, "meta page 0 " + p0 + " (bbolt would fall back to meta page 1, which may undo the last change)"
			}
		}
		var head [pageHeaderSize + 4]byte
		if n, _ := r.ReadAt(head[:], 0); n < len(head) {
			return meta{}, fmt.Sprintf("it is %s long, too short for a bbolt file's first meta page", byteCount(size))
		} else if order.Uint32(head[pageHeaderSize:]) != boltMagic {
			return meta{}, "it is not a bbolt database file (it does not begin with a bbolt meta page)"
		}
		return meta{}, fmt.Sprintf("meta page 0 %s, and no valid meta page 1 follows it in the file's %d bytes", p0, size)
	}
	psz := m0.pageSize
	if psz < minPageSize || psz > maxPageSize {
		return meta{}, fmt.Sprintf("meta page 0 gives a page size of %d bytes, which bbolt does not use", psz)
	}
	if uint64(size) < 2*psz {
		return meta{}, fmt.Sprintf("it was cut short: it has %d bytes, less than the two %d-byte meta pages a store begins with", size, psz)
	}
	m1, p1 := readMeta(r, int64(psz))
	switch {
	case p1 != "":
		return meta{}, "meta page 1 " + p1 + " (bbolt would fall back to meta page 0, which may undo the last change)"
	case m1.pageSize != psz:
		return meta{}, fmt.Sprintf("its meta pages disagree on the page size: %d and %d bytes", psz, m1.pageSize)
	}
	m, which := m0, 0
	if m1.txid > m0.txid {
		m, which = m1, 1
	}
	switch {
	case m.pgid < 3:
		return meta{}, fmt.Sprintf("meta page %d counts %d pages, fewer than a store has", which, m.pgid)
	case m.pgid > uint64(size)/psz:
		return meta{}, fmt.Sprintf("it was cut short: it has %d bytes, less than its %d pages of %d bytes", size, m.pgid, psz)
	case uint64(size)%psz != 0:
		return meta{}, fmt.Sprintf("it was cut short: it has %d bytes, not a whole number of %d-byte pages", size, psz)
	case m.root < 2 || m.root >= m.pgid:
		return meta{}, fmt.Sprintf("meta page %d puts the root bucket on page %d, outside pages 2 to %d", which, m.root, m.pgid-1)
	case m.freelist != noFreelist && (m.freelist < 2 || m.freelist >= m.pgid):
		return meta{}, fmt.Sprintf("meta page %d puts the free list on page %d, outside pages 2 to %d", which, m.freelist, m.pgid-1)
	}
	return m, ""
}

// walker reads the pages of a file whose meta page it has checked; the
// pages in use are 2 to hwm-1.
type walker struct {
	r    io.ReaderAt
	psz  uint64
	hwm  uint64
	seen map[uint64]bool // the pages read, overflow included
}

// page reads page id, with its overflow, for what refers to it. It fails
// on a page outside the file's pages, one whose header names another
// page, and one read before (bbolt's tree has no page twice, and this
// keeps the walk from going round in circles).
func (w *walker) page(id uint64, what string) ([]byte, error) {
	if id < 2 || id >= w.hwm {
		return nil, fmt.Errorf("%s points to page %d, outside pages 2 to %d", what, id, w.hwm-1)
	}
	var head [pageHeaderSize]byte
	if _, err := w.r.ReadAt(head[:], int64(id*w.psz)); err != nil {
		return nil, fmt.Errorf("page %d cannot be read: %w", id, err)
	}
	if got := order.Uint64(head[:]); got != id {
		return nil, fmt.Errorf("page %d, which %s points to, says it is page %d", id, what, got)
	}
	overflow := uint64(order.Uint32(head[12:]))
	if overflow >= w.hwm-id {
		return nil, fmt.Errorf("page %d runs %d pages past the file's last page", id, overflow-(w.hwm-id-1))
	}
	for p := id; p <= id+overflow; p++ {
		if w.seen[p] {
			return nil, fmt.Errorf("page %d, which %s points to, is used twice", p, what)
		}
		w.seen[p] = true
	}
	buf := make([]byte, (overflow+1)*w.psz)
	if _, err := w.r.ReadAt(buf, int64(id*w.psz)); err != nil {
		return nil, fmt.Errorf("page %d cannot be read: %w", id, err)
	}
	return buf, nil
}

// freelist checks the free list's page, when the file has one: its type,
// its count, and that it lists pages of the file.
func (w *walker) freelist(id uint64) error {
	if id == noFreelist {
		return nil
	}
	buf, err := w.page(id, "the meta page's free list")
	if err != nil {
		return err
	}
	if flags := order.Uint16(buf[8:]); flags != freelistPage {
		return fmt.Errorf("the free list's page %d has type %#x, not a free list's", id, flags)
	}
	ids, first := uint64(order.Uint16(buf[10:])), uint64(0)
	if ids == 0xFFFF { // the count is the first element
		ids, first = order.Uint64(buf[pageHeaderSize:]), 1
	}
	if room := uint64(len(buf)-pageHeaderSize)/8 - first; ids > room {
		return fmt.Errorf("the free list's page %d counts %d pages where it has room for %d", id, ids, room)
	}
	for i := range ids {
		p := order.Uint64(buf[pageHeaderSize+(first+i)*8:])
		if p < 2 || p >= w.hwm {
			return fmt.Errorf("the free list names page %d, outside pages 2 to %d", p, w.hwm-1)
		}
	}
	return nil
}

// tree checks the branch or leaf page id of a bucket, what names the
// page, and the pages and buckets under it.
func (w *walker) tree(id uint64, what string, depth int) error {
	if depth > maxDepth {
		return fmt.Errorf("page %d is nested more than %d levels deep", id, maxDepth)
	}
	buf, err := w.page(id, what)
	if err != nil {
		return err
	}
	switch flags := order.Uint16(buf[8:]); flags {
	case leafPage:
		return w.leaf(buf, "page "+strconv.FormatUint(id, 10), depth)
	case branchPage:
	default:
		return fmt.Errorf("page %d, which %s points to, has type %#x where a branch or leaf page belongs", id, what, flags)
	}
	count := int(order.Uint16(buf[10:]))
	if count == 0 {
		return fmt.Errorf("branch page %d is empty", id)
	}
	if err := fits(buf, count, fmt.Sprintf("branch page %d", id)); err != nil {
		return err
	}
	for i := range count {
		e, _, err := element(buf, i, fmt.Sprintf("branch page %d", id))
		if err != nil {
			return err
		}
		child := order.Uint64(e[8:])
		if err := w.tree(child, fmt.Sprintf("element %d of branch page %d", i, id), depth+1); err != nil {
			return err
		}
	}
	return nil
}

// leaf checks the elements of a leaf page (of the file, or inline in a
// bucket's value), and the buckets they hold.
func (w *walker) leaf(page []byte, what string, depth int) error {
	count := int(order.Uint16(page[10:]))
	if err := fits(page, count, what); err != nil {
		return err
	}
	for i := range count {
		e, value, err := element(page, i, what)
		if err != nil {
			return err
		}
		if order.Uint32(e)&bucketLeaf == 0 {
			continue
		}
		where := fmt.Sprintf("the bucket in element %d of %s", i, what)
		if len(value) < bucketHeaderSize {
			return fmt.Errorf("%s is cut short: %d bytes", where, len(value))
		}
		if root := order.Uint64(value); root != 0 {
			if err := w.tree(root, where, depth+1); err != nil {
				return err
			}
			continue
		}
		inline := value[bucketHeaderSize:]
		if len(inline) < pageHeaderSize || order.Uint16(inline[8:]) != leafPage {
			return fmt.Errorf("%s is inline but holds no leaf page", where)
		}
		if depth >= maxDepth {
			return fmt.Errorf("%s is nested more than %d levels deep", where, maxDepth)
		}
		if err := w.leaf(inline, "the inline "+where, depth+1); err != nil {
			return err
		}
	}
	return nil
}

// fits checks that the count elements of page lie within it.
func fits(page []byte, count int, what string) error {
	if pageHeaderSize+count*elementSize > len(page) {
		return fmt.Errorf("%s counts %d elements, more than it holds", what, count)
	}
	return nil
}

// element returns element i of page (a branch's or a leaf's: on a branch
// page the value is nil) and the value it points to, checking that it
// and its key and value lie within page.
func element(page []byte, i int, what string) (e, value []byte, err error) {
	off := uint64(pageHeaderSize + i*elementSize) // within page: fits
	e = page[off : off+elementSize]
	isLeaf := order.Uint16(page[8:]) == leafPage
	var pos, ksize, vsize uint64
	if isLeaf {
		pos, ksize, vsize = uint64(order.Uint32(e[4:])), uint64(order.Uint32(e[8:])), uint64(order.Uint32(e[12:]))
	} else {
		pos, ksize = uint64(order.Uint32(e)), uint64(order.Uint32(e[4:]))
	}
	start := off + pos
	if end := start + ksize + vsize; end > uint64(len(page)) {
		return nil, nil, fmt.Errorf("element %d of %s points past the end of its page", i, what)
	}
	if isLeaf {
		value = page[start+ksize : start+ksize+vsize]
	}
	return e, value, nil
}

// byteCount returns "1 byte" or "n bytes".
func byteCount(n int64) string {
	if n == 1 {
		return "1 byte"
	}
	return strconv.FormatInt(n, 10) + " bytes"
}
