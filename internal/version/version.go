// Package version holds gmark's version, recorded in every manifest and run.
package version

import "runtime/debug"

// Version is set at build time with
//
//	go build -ldflags "-X github.com/gmark/gmark/internal/version.Version=v1.2.3"
//
// and otherwise taken from the module's build information.
var Version = ""

// String returns the version, "devel" when none is known.
func String() string {
	if Version != "" {
		return Version
	}
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "devel"
}
