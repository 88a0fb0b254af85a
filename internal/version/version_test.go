package version

import (
	"runtime/debug"
	"testing"
)

func TestFromBuild(t *testing.T) {
	stamped := &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
		{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: "0123abcd"}, {Key: "vcs.modified", Value: "true"}}}
	released := &debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}}
	odd := &debug.BuildInfo{Main: debug.Module{Version: ""}, Settings: []debug.BuildSetting{{Key: "vcs.modified", Value: "maybe"}}}
	for _, c := range []struct {
		name                        string
		bi                          *debug.BuildInfo
		version, revision, modified string // set at build time
		want                        string
	}{
		{"no build information", nil, "", "", "", "gmark devel (revision unknown, modified unknown) go1 os/arch"},
		{"a checkout stamped by go", stamped, "", "", "", "gmark devel (revision 0123abcd, modified) go1 os/arch"},
		{"a released module", released, "", "", "", "gmark v1.2.3 (revision unknown, modified unknown) go1 os/arch"},
		{"ldflags win", stamped, "v9", "feed", "false", "gmark v9 (revision feed, clean) go1 os/arch"},
		{"ldflags revision only", stamped, "", "feed", "", "gmark devel (revision feed, modified) go1 os/arch"},
		{"a bad modified flag", odd, "", "", "yes", "gmark devel (revision unknown, modified unknown) go1 os/arch"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := fromBuild(c.bi, c.version, c.revision, c.modified).line("go1", "os/arch"); got != c.want {
				t.Errorf("got  %q\nwant %q", got, c.want)
			}
		})
	}
}
