//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package boltcheck

import "os"

// unlock does nothing here: bbolt locks the file with fcntl or
// LockFileEx, which closing f lets go of.
func unlock(*os.File) {}
