package experiment

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// pinSources are two experiments as they were written before the
// settings of the seeds' open readings existed (dmm_information,
// dmm_pass_on, gp_kill, waitx_first_try): every architecture on grid-LF,
// and central's core model on the deadline paper's grid. Their runs'
// digests, computed by gmark before those settings (pinDigests), are the
// keys of results in existing stores.
var pinSources = map[string]string{
	"arch": `name = "pin-arch"
seed = 3
topology = "das2-g5k"
architectures = ["sep-c", "condor", "fcondor", "cern", "central", "hier", "dmm"]
loads = [80]
repetitions = 2
[workload]
span = "1d"
`,
	"core": `name = "pin-core"
seed = 1
topology = "4x32.toml"
architectures = ["central"]
loads = [20]
repetitions = 2
[workload]
kind = "wdl"
spec = "global.wdl"
[settings]
core_grid = "grid.toml"
local_load = 0.3
cool_down = true
[[scenario]]
name = "LP-wait-1000"
settings = { deadline_priority = "local", deadline_policy = "wait-1000" }
[[scenario]]
name = "GP-rpp"
settings = { deadline_priority = "global", deadline_policy = "rpp" }
`,
}

// pinDigests: the digests of pinSources' runs, in expansion order, as
// gmark computed them before the settings (the core's as main computes
// them since its grids gained a cluster's CE and the scheduler's
// placeholder_dirs, which are in every core grid's JSON).
var pinDigests = map[string][]string{
	"arch": {
		"bcfff1532a182df5ebe4ca6eac98573588da016edce143630b7e4f185179217a",
		"0a80999143f234e3a19e6fca39e8a007e2f0ec100ed07d3eb2f5ddfb57da37cc",
		"8987c062d8698bb4551bf3eb18d5d6549602ab173f6442593a2080955f5484db",
		"3ff6d19caacc496577dde352d8b61fb1a3edf9cebbab99eb4fc209d1d9f67c60",
		"9fd7b576701f3f117e021549fe987a1f4fb180b9c5e4a6c63f27c4983dfc2e88",
		"033c73233e307cb99d893b849c8161800f33f40a042b0f806e2dde079881bebb",
		"1ae932339aef65deb19678715206165f0cc91ce3dde8e0d204c80837153b8d87",
		"c2fe495a11a66d48684016598997260230aa4e40c4829b4ff73fd7a029837d07",
		"48fd205d27923d8054c33ecd9d15dff996342ca1e0a42fd9e5a80a1f0438a25e",
		"67c1a91f20eeab31a90a241f620259b48cdcf3cb5908236b78e0cc8fba246be2",
		"19be4b658bab036e44137a167ebd58aced489f8a473a54a9f5c5a29c2a905c49",
		"c47e7736ee11f1e9fc1a784ed65d82f51df82694bf8e1b726de198866c0f3acf",
		"79f0f79ffa1287fa4e79c823b70377502f2c8598b7abde524187f81b9ef79786",
		"5a01b49da8950abfb9cdf2a94c7cfa7841acececf247cba5debaecb0cb3af7a7",
	},
	"core": {
		"c2d3b93fa13a7d0daed5310f6592d93ed88da966a15d27fed7cda3d4f6211c41",
		"eba157de0683a731b338fe3872889580e2633cfc171a92a692d09d41c3828452",
		"4d99e30abda0d8ec795ac27b5cb5d45851f1e318e4e70fba05f3744547a395fe",
		"967ebad2e710ee53f6530a3081ad74886023f763d0a64794d54d14feb27e1197",
	},
}

// pinExtra is what a source needs to ask for the earlier readings
// explicitly: DMM on global information rejecting at once; the core
// killing at the deadline only and restarting Wait-X's series.
var pinExtra = map[string]string{
	"arch": "[settings]\ndmm_information = \"global\"\ndmm_pass_on = false\n",
	"core": "gp_kill = \"at-deadline\"\nwaitx_first_try = \"restart\"\n",
}

func pinParse(t *testing.T, name, src string) *Experiment {
	t.Helper()
	e, err := Parse(filepath.Join("..", "..", "examples", "deadlines", name+".toml"), []byte(src), Options{})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// A run under the readings gmark had before the settings keeps the digest
// it had (so the results stores hold for it are read, not recomputed);
// the settings enter a digest only when they differ from those readings.
// DMM's defaults moved (local information, passing on), and so did the
// core's (gp_kill = "every-try", waitx_first_try = "skip"), so a DMM run
// or a run of central's core model that names none of them has a new
// digest, and one that asks for the earlier readings has the old one;
// every other architecture's runs keep theirs.
func TestDigestsOfEarlierReadings(t *testing.T) {
	for name, src := range pinSources {
		plain, old := pinParse(t, name, src), pinParse(t, name, insertSettings(name, src))
		for i := 0; i < plain.NumRuns(); i++ {
			rp, _ := plain.Run(i)
			ro, _ := old.Run(i)
			if i >= len(pinDigests[name]) {
				t.Fatalf("%s: run %d (%s) has no pinned digest", name, i, rp.Arch)
			}
			want := pinDigests[name][i]
			if ro.Digest != want {
				t.Errorf("%s run %d (%s) under the earlier readings: digest %s, want %s", name, i, ro.Arch, ro.Digest, want)
			}
			if moved := rp.Arch == "dmm" || name == "core"; (rp.Digest != want) != moved {
				t.Errorf("%s run %d (%s) with the defaults: digest %s (earlier %s); it should change only for dmm and the core", name, i, rp.Arch, rp.Digest, want)
			}
		}
	}
}

// insertSettings adds pinExtra to a source: the arch source has no
// [settings] table, the core source's takes the keys.
func insertSettings(name, src string) string {
	if name == "arch" {
		return src + pinExtra[name]
	}
	return replaceOnce(src, "[settings]\n", "[settings]\n"+pinExtra[name])
}

func replaceOnce(s, old, new string) string { return strings.Replace(s, old, new, 1) }

// The determinism of a run under the new readings: the same run computed
// twice gives the same result, byte for byte (DMM on local information
// passing requests on; the core killing at every try and skipping Wait-X's
// early tries).
func TestSameSeedsSameResultBytes(t *testing.T) {
	t.Parallel()
	srcs := map[string]string{
		"arch": strings.Replace(pinSources["arch"], `span = "1d"`, `span = "6h"`, 1),
		"core": replaceOnce(pinSources["core"], "[settings]\n", "[settings]\ngp_kill = \"every-try\"\nwaitx_first_try = \"skip\"\n"),
	}
	for name, src := range srcs {
		e := pinParse(t, name, src)
		for i := 0; i < e.NumRuns(); i += 2 {
			r, _ := e.Run(i)
			a, err := Compute(context.Background(), e, r)
			if err != nil {
				t.Fatal(err)
			}
			b, err := Compute(context.Background(), e, r)
			if err != nil {
				t.Fatal(err)
			}
			if a.Result != b.Result || a.Workload != b.Workload || a.Result == "" {
				t.Errorf("%s run %d (%s): two computations differ:\n%s\n%s", name, i, r.Arch, a.Result, b.Result)
			}
		}
	}
}
