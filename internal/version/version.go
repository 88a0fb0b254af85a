// Package version holds gmark's version, recorded in every manifest and run,
// and the revision of the source it was built from.
package version

import (
	"runtime"
	"runtime/debug"
	"strings"
)

// Version, Revision and Modified are set at build time with
//
//	go build -ldflags "-X github.com/gmark/gmark/internal/version.Version=v1.2.3
//	  -X github.com/gmark/gmark/internal/version.Revision=$(git rev-parse HEAD)
//	  -X github.com/gmark/gmark/internal/version.Modified=true"
//
// ('make build' sets Revision and Modified from git), and otherwise taken
// from the build information: the module's version, and the VCS stamp Go
// writes (vcs.revision, vcs.modified) when it builds from a git checkout
// with -buildvcs on. Modified is "true" or "false".
var (
	Version  = ""
	Revision = ""
	Modified = ""
)

// Info is what gmark knows of its own build.
type Info struct {
	Version  string // the version; "devel" when none is known
	Revision string // the VCS revision; "" unknown
	Modified *bool  // whether the tree had uncommitted changes; nil unknown
}

// Get returns the build's Info: the values set at build time, else the
// build information's.
func Get() Info {
	bi, _ := debug.ReadBuildInfo()
	return fromBuild(bi, Version, Revision, Modified)
}

// fromBuild merges the values set at build time (which win) with the
// build information (nil when there is none).
func fromBuild(bi *debug.BuildInfo, version, revision, modified string) Info {
	in := Info{Version: version, Revision: revision}
	if modified == "true" || modified == "false" {
		m := modified == "true"
		in.Modified = &m
	}
	if bi != nil {
		if in.Version == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			in.Version = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch {
			case s.Key == "vcs.revision" && in.Revision == "":
				in.Revision = s.Value
			case s.Key == "vcs.modified" && in.Modified == nil && (s.Value == "true" || s.Value == "false"):
				m := s.Value == "true"
				in.Modified = &m
			}
		}
	}
	if in.Version == "" {
		in.Version = "devel"
	}
	return in
}

// String returns the version, "devel" when none is known.
func String() string { return Get().Version }

// Line is the one line 'gmark version' and 'gmark --version' print: the
// version, the revision and whether the tree was modified, and the Go
// runtime and platform.
func Line() string { return Get().line(runtime.Version(), runtime.GOOS+"/"+runtime.GOARCH) }

func (in Info) line(goVersion, platform string) string {
	var b strings.Builder
	b.WriteString("gmark ")
	b.WriteString(in.Version)
	b.WriteString(" (revision ")
	if in.Revision == "" {
		b.WriteString("unknown")
	} else {
		b.WriteString(in.Revision)
	}
	switch {
	case in.Modified == nil:
		b.WriteString(", modified unknown")
	case *in.Modified:
		b.WriteString(", modified")
	default:
		b.WriteString(", clean")
	}
	b.WriteString(") ")
	b.WriteString(goVersion)
	b.WriteString(" ")
	b.WriteString(platform)
	return b.String()
}
