//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package boltcheck

import (
	"os"
	"syscall"
)

// unlock lets go of the flock bbolt took on f. Closing f is not enough
// while bbolt's memory map of the file, which a panic leaves behind,
// holds the file open.
func unlock(f *os.File) { syscall.Flock(int(f.Fd()), syscall.LOCK_UN) }
