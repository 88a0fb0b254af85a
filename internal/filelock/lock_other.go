//go:build !unix

package filelock

import (
	"errors"
	"os"
)

// Without record locks only this process's table of locks excludes.
var errWouldBlock = errors.New("would block")

const noFollow = 0

func setLock(*os.File) error { return nil }

func lockHolder(*os.File) int { return 0 }

type fileKey struct{ path string }

func keyOf(fi os.FileInfo) fileKey { return fileKey{fi.Name()} }

func links(os.FileInfo) uint64 { return 1 }
