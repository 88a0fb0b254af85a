//go:build !unix

package outfile

// alive cannot tell on this system, so no leftover is ever removed.
func alive(int) bool { return true }
