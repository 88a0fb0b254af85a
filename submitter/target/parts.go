package target

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gmark/gmark/record"
)

// Jobs made of parts. The Slurm target (submitter/slurm) and the targets
// through grid middleware (submitter/ce) submit a job as one or more
// parts: the whole job, or each component of a co-allocated job on its
// own, claimed in tries and holding its processors until a release file
// appears (KOALA's claiming without reservations). What they share of it
// is here: the parts' names, which are their idempotency keys, the
// claiming's bounds, the release file, the latest try of each component,
// the target id of a job's parts, and whether the resource manager
// answers.

// The claiming defaults and bounds (docs/submit.md).
const (
	DefaultClaimRetry = time.Minute
	DefaultClaimTries = 3
	MaxClaimTries     = 100
)

// HoldBudget is the longest a claimed component may hold its processors
// before the application starts, added to its wall time: every try of the
// other components (tries of retry each), and a minute.
func HoldBudget(tries int, retry time.Duration) time.Duration {
	return time.Duration(tries)*retry + time.Minute
}

// PartsOf names the parts of one submission: attempt Attempt of job Job
// (of Components components) in run Run. A part's name,
// gmark-<job>[.c<component>[.t<try>]].a<attempt>-<run>, is its
// idempotency key: after a crash a target looks its parts up by name
// before it submits anything again.
type PartsOf struct {
	Job        string
	Attempt    int
	Run        string
	Components int
}

// Suffix is what names part comp (-1: the whole job) at claiming try try
// within the run: <job>[.c<comp>[.t<try>]].a<attempt>; its files are named
// after it.
func (s PartsOf) Suffix(comp, try int) string {
	suffix := s.Job
	if comp >= 0 {
		suffix += ".c" + strconv.Itoa(comp)
		if try > 1 {
			suffix += ".t" + strconv.Itoa(try)
		}
	}
	return suffix + ".a" + strconv.Itoa(s.Attempt)
}

// Name is the name of part comp (-1: the whole job) at claiming try try.
func (s PartsOf) Name(comp, try int) string {
	return "gmark-" + s.Suffix(comp, try) + "-" + s.Run
}

// Parse is the component (-1: the whole job) and claiming try of the part
// that name names; ok is false for a name of no part of the submission.
// Every submission has a whole job's name, whatever its components.
func (s PartsOf) Parse(name string) (comp, try int, ok bool) {
	if name == s.Name(-1, 1) {
		return -1, 1, true
	}
	mid, ok1 := strings.CutPrefix(name, "gmark-"+s.Job+".c")
	mid, ok2 := strings.CutSuffix(mid, ".a"+strconv.Itoa(s.Attempt)+"-"+s.Run)
	if !ok1 || !ok2 {
		return 0, 0, false
	}
	compText, tryText, hasTry := strings.Cut(mid, ".t")
	comp, err := strconv.Atoi(compText)
	if err != nil || comp < 0 || comp >= s.Components || strconv.Itoa(comp) != compText {
		return 0, 0, false
	}
	try = 1
	if hasTry {
		try, err = strconv.Atoi(tryText)
		if err != nil || try < 2 || try > MaxClaimTries || strconv.Itoa(try) != tryText {
			return 0, 0, false
		}
	}
	return comp, try, true
}

// Names are the names the parts may have: the whole job's, then each
// component's at every claiming try up to tries.
func (s PartsOf) Names(tries int) []string {
	names := []string{s.Name(-1, 1)}
	for i := range s.Components {
		for try := 1; try <= tries; try++ {
			names = append(names, s.Name(i, try))
		}
	}
	return names
}

// Release creates the release file at path, holding when: every component
// of a claimed job has started, and its application starts in all of
// them. A file that exists already is left as it is but for its first
// bytes (a restarted submitter releasing again).
func Release(path string, when time.Time) error {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(f, when.UTC().Format(time.RFC3339Nano))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// ByComponent is parts in component order (the whole job, -1, first),
// parts of one component in the order given.
func ByComponent[P any](parts []P, comp func(P) int) []P {
	out := slices.Clone(parts)
	slices.SortStableFunc(out, func(a, b P) int { return comp(a) - comp(b) })
	return out
}

// LatestTries splits the parts found of one submission into the latest
// claiming try of each component (or of the whole job), in the order
// found, and the older tries: a submitter killed while it claimed a
// component again may have left both, and the older are to be cancelled.
// newer reports whether p is a later try than q of one component.
func LatestTries[P comparable](found []P, comp func(P) int, newer func(p, q P) bool) (latest, older []P) {
	last := map[int]P{}
	for _, p := range found {
		if q, ok := last[comp(p)]; !ok || newer(p, q) {
			last[comp(p)] = p
		}
	}
	for _, p := range found {
		if last[comp(p)] == p {
			latest = append(latest, p)
		} else {
			older = append(older, p)
		}
	}
	return latest, older
}

// JoinTargetID is the target id of a job's parts: "site:id" per part,
// comma-separated, in the order given (component order).
func JoinTargetID[P any](parts []P, part func(P) (site, id string)) string {
	ids := make([]string, len(parts))
	for i, p := range parts {
		site, id := part(p)
		ids[i] = site + ":" + id
	}
	return strings.Join(ids, ",")
}

// TargetPart is one part named by a target id.
type TargetPart struct {
	Site, ID string
	Comp     int // -1: the whole job (a target id of one part)
}

// SplitTargetID reads a target id made by JoinTargetID; false when an
// entry is not "site:id" with both given.
func SplitTargetID(tid string) ([]TargetPart, bool) {
	entries := strings.Split(tid, ",")
	out := make([]TargetPart, len(entries))
	for i, e := range entries {
		site, id, ok := strings.Cut(e, ":")
		if !ok || site == "" || id == "" {
			return nil, false
		}
		out[i] = TargetPart{Site: site, ID: id, Comp: -1}
		if len(entries) > 1 {
			out[i].Comp = i
		}
	}
	return out, true
}

// Sites are the sites of a job's parts, each once, in the order of the
// parts.
func Sites[P any](parts []P, site func(P) string) []string {
	var out []string
	seen := map[string]bool{}
	for _, p := range parts {
		if n := site(p); !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	return out
}

// Reach follows whether a resource manager (a cluster's controller, a
// compute element) answers its polls: since when it has not, said once
// when it stops (target-error) and once when it answers again
// (target-recovered). Owned by the one poller that asks it.
type Reach struct {
	failingSince time.Time
}

// Answered notes that the resource manager named name answered; if it had
// not been answering, annotate is told for how long.
func (r *Reach) Answered(name string, annotate func(kind, key, value string)) {
	if r.failingSince.IsZero() {
		return
	}
	annotate(record.AnnotationTargetRecovered, name, fmt.Sprintf("answering again after %s", time.Since(r.failingSince).Round(time.Millisecond)))
	r.failingSince = time.Time{}
}

// Failed notes that a poll asked at asked failed with err, telling
// annotate at the first failure, and returns how long the resource
// manager has not answered.
func (r *Reach) Failed(name string, asked time.Time, err error, annotate func(kind, key, value string)) time.Duration {
	if r.failingSince.IsZero() {
		r.failingSince = asked
		annotate(record.AnnotationTargetError, name, err.Error())
	}
	return time.Since(r.failingSince)
}
