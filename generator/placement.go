package generator

import (
	"math"
	"math/rand/v2"
	"slices"
	"strconv"

	"github.com/gmark/gmark/stats"
	"github.com/gmark/gmark/wdl"
	"github.com/gmark/gmark/workload"
)

// placement makes the components of a unit's jobs: co-allocation.
//
// When nothing is drawn per job, the SiteType, Total, SiteInfo and NSites of
// the unit resolve once (wdl.Resolve) and every job gets the same components.
// A unit may instead draw, per job, from weighted lists (the thesis's Fig. 5.5):
//
//	SiteTypesWithWeights    fixed / nonfixed / semifixed / flexible (or GrenchMark's names)
//	NComponentsWithWeights  the number of components
//	TotalCPUsWithWeights    the total processors, split evenly over the components
//	ComponentSizeWithWeights  processors per component (instead of a total)
//	SitesWithWeights        the sites of fixed components
//
// Decisions the thesis leaves open, taken here:
//   - fixed components draw distinct sites while there are unused ones (a
//     fixed job names different clusters), then start over;
//   - a semi-fixed job has one fixed component (the last, as in semi-ordered
//     SiteInfo), or the named SiteInfo entries when there are any;
//   - when the drawn component count exceeds the drawn total, the job gets
//     one processor per component and as many components as processors.
type placement struct {
	static []workload.Component // when nothing is drawn
	st     wdl.SiteType

	siteTypes []wdl.SiteType
	stChoice  *stats.Choice
	ncomps    []int
	ncChoice  *stats.Choice
	totals    []int
	totChoice *stats.Choice
	sizes     []int
	szChoice  *stats.Choice
	sites     []string
	siteW     []float64

	colTotal int
	colSites []wdl.SiteAmount
	nsites   int

	keys  []float64 // scratch for distinct site draws
	order []int
}

// weightedInts reads a "…WithWeights" list of whole numbers >= 1 (the WDL
// parser has already checked them).
func weightedInts(o *wdl.Options, key string) ([]int, *stats.Choice) {
	items, ok, err := o.Weighted(key)
	if !ok || err != nil {
		return nil, nil
	}
	vals := make([]int, len(items))
	w := make([]float64, len(items))
	for i, it := range items {
		vals[i], _ = strconv.Atoi(it.Value)
		w[i] = it.Weight
	}
	c, _ := stats.NewChoice(w)
	return vals, c
}

func preparePlacement(u *wdl.Unit) (*placement, wdl.ErrorList) {
	var errs wdl.ErrorList
	o := u.Options
	p := &placement{st: u.SiteType, colTotal: u.Total, colSites: u.Sites}
	if n, ok, err := o.Int("NSites", 1, wdl.MaxComponents); err != nil {
		errs = append(errs, err.(*wdl.Error))
	} else if ok {
		p.nsites = n
	}
	if items, ok, _ := o.Weighted(wdl.KeySiteTypes); ok {
		w := make([]float64, len(items))
		for i, it := range items {
			st, _ := wdl.ParseSiteType(it.Value)
			p.siteTypes = append(p.siteTypes, st)
			w[i] = it.Weight
		}
		p.stChoice, _ = stats.NewChoice(w)
	}
	p.ncomps, p.ncChoice = weightedInts(o, wdl.KeyNComponents)
	p.totals, p.totChoice = weightedInts(o, wdl.KeyTotalCPUs)
	p.sizes, p.szChoice = weightedInts(o, wdl.KeyComponentSizes)
	sitesOpt, hasSites := o.Get(wdl.KeySites)
	if items, ok, _ := o.Weighted(wdl.KeySites); ok {
		for _, it := range items {
			p.sites = append(p.sites, it.Value)
			p.siteW = append(p.siteW, it.Weight)
		}
	}
	if p.totChoice != nil && p.szChoice != nil {
		opt, _ := o.Get(wdl.KeyComponentSizes)
		errs = append(errs, wdl.Errorf(opt.Pos, "give %s or %s, not both", wdl.KeyTotalCPUs, wdl.KeyComponentSizes))
	}
	if p.szChoice != nil {
		// A job's total is its component count times the drawn size.
		if n, size := p.maxComponents(), slices.Max(p.sizes); n*size > wdl.MaxProcessors {
			opt, _ := o.Get(wdl.KeyComponentSizes)
			errs = append(errs, wdl.Errorf(opt.Pos, "%s: %d components of %d processors make %d, more than the %d a job may have", wdl.KeyComponentSizes, n, size, n*size, wdl.MaxProcessors))
		}
	}
	if !p.drawn() {
		comps, err := wdl.Resolve(u.SiteType, u.Total, u.Sites, p.nsites)
		if err != nil {
			errs = append(errs, wdl.Errorf(u.Cols.SiteInfo, "%v", err))
			return p, errs
		}
		for _, c := range comps {
			p.static = append(p.static, workload.Component{Site: c.Site, Count: c.Amount})
		}
		if hasSites {
			errs = append(errs, wdl.Errorf(sitesOpt.Pos, "%s is only used with %s or %s", wdl.KeySites, wdl.KeySiteTypes, wdl.KeyNComponents))
		}
		return p, errs
	}
	// Fixed and semi-fixed jobs need sites to name.
	needsSites := p.st == wdl.Ordered || p.st == wdl.SemiOrdered
	for _, st := range p.siteTypes {
		needsSites = needsSites || st == wdl.Ordered || st == wdl.SemiOrdered
	}
	if needsSites && len(p.sites) == 0 && len(p.namedSites()) == 0 {
		at := u.Cols.SiteType
		if opt, ok := o.Get(wdl.KeySiteTypes); ok {
			at = opt.Pos
		}
		errs = append(errs, wdl.Errorf(at, "fixed and semi-fixed jobs need sites: give %s or name sites in SiteInfo", wdl.KeySites))
	}
	if p.colTotal == wdl.Unknown && p.totChoice == nil && p.szChoice == nil && p.sumAmounts() == 0 {
		errs = append(errs, wdl.Errorf(u.Cols.Total, "the total is ?: give %s, %s, or the SiteInfo amounts", wdl.KeyTotalCPUs, wdl.KeyComponentSizes))
	}
	return p, errs
}

// maxComponents is the most components drawShape can give a job.
func (p *placement) maxComponents() int {
	n := max(1, p.nsites, len(p.colSites)+1)
	if len(p.ncomps) > 0 {
		n = max(n, slices.Max(p.ncomps))
	}
	return n
}

func (p *placement) drawn() bool {
	return p.stChoice != nil || p.ncChoice != nil || p.totChoice != nil || p.szChoice != nil
}

func (p *placement) namedSites() []string {
	var s []string
	for _, sa := range p.colSites {
		if sa.Site != wdl.AnySite {
			s = append(s, sa.Site)
		}
	}
	return s
}

func (p *placement) sumAmounts() int {
	n := 0
	for _, sa := range p.colSites {
		if sa.Amount > 0 {
			n += sa.Amount
		}
	}
	return n
}

// shape is what a job draws before its sites: site type, component count,
// and either a total or a per-component size.
type shape struct {
	st    wdl.SiteType
	n     int
	total int
	size  int // > 0 when ComponentSizeWithWeights gave it
}

func (p *placement) drawShape(r *rand.Rand) shape {
	s := shape{st: p.st}
	if p.stChoice != nil {
		s.st = p.siteTypes[p.stChoice.Pick(r)]
	}
	switch {
	case p.ncChoice != nil:
		s.n = p.ncomps[p.ncChoice.Pick(r)]
	case p.nsites > 0:
		s.n = p.nsites
	case s.st == wdl.Ordered:
		s.n = max(1, len(p.namedSites()))
	case s.st == wdl.SemiOrdered:
		s.n = len(p.namedSites()) + 1
	case s.st == wdl.Unordered:
		s.n = max(1, len(p.colSites))
	default:
		s.n = 1
	}
	if s.st == wdl.Single || s.st == wdl.Flexible {
		s.n = 1
	}
	switch {
	case p.szChoice != nil:
		s.size = p.sizes[p.szChoice.Pick(r)]
		s.total = s.n * s.size
	case p.totChoice != nil:
		s.total = p.totals[p.totChoice.Pick(r)]
	case p.colTotal != wdl.Unknown:
		s.total = p.colTotal
	default:
		s.total = max(1, p.sumAmounts())
	}
	return s
}

// fill sets the job's SiteType and Components, reusing j.Components' storage.
func (p *placement) fill(r *rand.Rand, j *workload.Job) {
	if !p.drawn() {
		j.SiteType = workload.SiteType(p.st)
		j.Components = append(j.Components[:0], p.static...)
		return
	}
	s := p.drawShape(r)
	if s.n > s.total {
		s.n = s.total
	}
	j.SiteType = workload.SiteType(s.st)
	comps := j.Components[:0]
	for i := 0; i < s.n; i++ {
		comps = append(comps, workload.Component{Site: workload.AnySite})
	}
	switch s.st {
	case wdl.Single:
		if len(p.colSites) > 0 {
			comps[0].Site = p.colSites[0].Site
		}
	case wdl.Ordered:
		p.nameSites(r, comps)
	case wdl.SemiOrdered:
		fixed := min(max(1, len(p.namedSites())), s.n)
		p.nameSites(r, comps[s.n-fixed:])
	}
	for i := range comps {
		if s.size > 0 {
			comps[i].Count = s.size
		} else {
			comps[i].Count = s.total / s.n
			if i < s.total%s.n {
				comps[i].Count++
			}
		}
	}
	j.Components = comps
}

// nameSites gives each component a site: drawn from SitesWithWeights, distinct
// while unused sites remain, or else the named SiteInfo entries in turn.
func (p *placement) nameSites(r *rand.Rand, comps []workload.Component) {
	if len(p.sites) == 0 {
		named := p.namedSites()
		for i := range comps {
			comps[i].Site = named[i%len(named)]
		}
		return
	}
	for done := 0; done < len(comps); {
		order := p.distinctOrder(r)
		for _, k := range order {
			if done == len(comps) {
				break
			}
			comps[done].Site = p.sites[k]
			done++
		}
	}
}

// distinctOrder is a weighted random permutation of the sites (weighted
// sampling without replacement, by Efraimidis and Spirakis's keys
// log(u)/w), leaving out sites of weight 0.
func (p *placement) distinctOrder(r *rand.Rand) []int {
	p.keys = p.keys[:0]
	p.order = p.order[:0]
	for i, w := range p.siteW {
		if w <= 0 {
			continue
		}
		p.keys = append(p.keys, math.Log(1-r.Float64())/w)
		p.order = append(p.order, i)
	}
	// insertion sort by key, descending: site lists are short
	for i := 1; i < len(p.order); i++ {
		for k := i; k > 0 && p.keys[k] > p.keys[k-1]; k-- {
			p.keys[k], p.keys[k-1] = p.keys[k-1], p.keys[k]
			p.order[k], p.order[k-1] = p.order[k-1], p.order[k]
		}
	}
	return p.order
}
