package experiment

import (
	"fmt"
	"os"
	"strings"

	"github.com/gmark/gmark/placeholder/site"
)

// Target is where a site's placeholders run in scaled time: on this host
// as plain processes (the default, an emulated site), or on a real system
// of one of the placeholder site kinds (docs/placeholder.md).
type Target struct {
	// Kind is "zinf" (processes on this host, said explicitly), "slurm"
	// (batch jobs of a Slurm cluster) or "koala" (jobs of a running
	// `gmark koala serve`); empty: an emulated site.
	Kind string `toml:"target" json:"target,omitempty"`
	// SlurmConf and Partition (slurm): the cluster's slurm.conf (empty:
	// the commands' default) and its partition (empty: the default one).
	SlurmConf string `toml:"slurm_conf" json:"slurm_conf,omitempty"`
	Partition string `toml:"partition" json:"partition,omitempty"`
	// WallTime (slurm, koala) is each placeholder's time limit.
	WallTime string `toml:"wall_time" json:"wall_time,omitempty"`
	// Koala, KoalaTokenFile and Cluster (koala): the core's address, the
	// file holding its token and the core's cluster.
	Koala          string `toml:"koala" json:"koala,omitempty"`
	KoalaTokenFile string `toml:"koala_token_file" json:"koala_token_file,omitempty"`
	Cluster        string `toml:"cluster" json:"cluster,omitempty"`
}

// settings lists a target's keys, each with the kinds it belongs to.
func (tg *Target) settings() []struct {
	key   string
	set   bool
	kinds []string
} {
	return []struct {
		key   string
		set   bool
		kinds []string
	}{
		{"slurm_conf", tg.SlurmConf != "", []string{site.Slurm}},
		{"partition", tg.Partition != "", []string{site.Slurm}},
		{"wall_time", tg.WallTime != "", []string{site.Slurm, site.Koala}},
		{"koala_token_file", tg.KoalaTokenFile != "", []string{site.Koala}},
		{"koala", tg.Koala != "", []string{site.Koala}},
		{"cluster", tg.Cluster != "", []string{site.Koala}},
	}
}

// checkTarget checks a site's target: a known kind, its settings and no
// other kind's, and the files it names readable. A real target runs in
// wall-clock time, so it needs the spec's time_scale.
func (s *Site) checkTarget(i int, scale float64) error {
	tg := &s.Target
	switch tg.Kind {
	case "", site.Zinf, site.Slurm, site.Koala:
	default:
		return failf("target", i, "site %s: target %q is not zinf, slurm or koala", s.Name, tg.Kind)
	}
	for _, st := range tg.settings() {
		if !st.set {
			continue
		}
		ok := false
		for _, k := range st.kinds {
			ok = ok || k == tg.Kind
		}
		if !ok {
			return failf(st.key, i, "site %s: %s is a setting of target = %q, not of %s", s.Name, st.key, st.kinds[0], targetName(tg.Kind))
		}
	}
	if tg.Kind == "" {
		return nil
	}
	if scale == 0 {
		return failf("target", i, "site %s: target %q runs in wall-clock time: give time_scale (1 for real time)", s.Name, tg.Kind)
	}
	switch tg.Kind {
	case site.Koala:
		for _, k := range []struct{ key, v string }{{"koala", tg.Koala}, {"koala_token_file", tg.KoalaTokenFile}, {"cluster", tg.Cluster}} {
			if k.v == "" {
				return failf("target", i, "site %s: target = \"koala\" needs %s", s.Name, k.key)
			}
		}
		if _, err := os.Stat(tg.KoalaTokenFile); err != nil {
			return failf("koala_token_file", i, "site %s: koala_token_file: %v", s.Name, err)
		}
	case site.Slurm:
		if tg.SlurmConf != "" {
			if _, err := os.Stat(tg.SlurmConf); err != nil {
				return failf("slurm_conf", i, "site %s: slurm_conf: %v", s.Name, err)
			}
		}
	}
	spec := s.siteSpec()
	if err := spec.Check(); err != nil {
		key := "target"
		for _, st := range tg.settings() {
			if st.set && containsKey(err.Error(), st.key) {
				key = st.key
			}
		}
		return failf(key, i, "%v", err)
	}
	return nil
}

func targetName(kind string) string {
	if kind == "" {
		return "an emulated site (no target)"
	}
	return fmt.Sprintf("target = %q", kind)
}

// containsKey tells whether site.Spec.Check's message is about key
// ("site NAME: KEY …").
func containsKey(msg, key string) bool { return strings.Contains(msg, ": "+key+" ") }

// siteSpec is the metaqueue's site for an experiment site in scaled time:
// a zero-infrastructure site on this host unless the site names a target.
func (s *Site) siteSpec() site.Spec {
	tg := s.Target
	spec := site.Spec{Name: s.Name, Kind: site.Zinf, Mode: site.Classic}
	switch tg.Kind {
	case site.Slurm:
		spec.Kind, spec.SlurmConf, spec.Partition, spec.WallTime = site.Slurm, tg.SlurmConf, tg.Partition, tg.WallTime
	case site.Koala:
		spec.Kind, spec.Koala, spec.KoalaTokenFile, spec.Cluster, spec.WallTime = site.Koala, tg.Koala, tg.KoalaTokenFile, tg.Cluster, tg.WallTime
	}
	return spec
}
