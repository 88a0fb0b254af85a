package wdl

import (
	"strings"
)

// Keys whose values are sampled per job from weighted lists, replacing the
// SiteType, NSites, Total and SiteInfo columns (Fig. 5.5 of the thesis).
const (
	KeySiteTypes      = "SiteTypesWithWeights"
	KeySites          = "SitesWithWeights"
	KeyNComponents    = "NComponentsWithWeights"
	KeyTotalCPUs      = "TotalCPUsWithWeights"
	KeyComponentSizes = "ComponentSizeWithWeights"
)

// checkUnit validates the OtherInfo keys the WDL itself defines and, when
// nothing is drawn per job, that the site columns resolve. It reads options
// without marking them used: the generator marks what it consumes.
func (p *parser) checkUnit(u *Unit) {
	o := u.Options
	peek := func(key string) (Option, bool) {
		i, ok := o.index[key]
		if !ok {
			return Option{}, false
		}
		return o.list[i], true
	}
	if opt, ok := peek("StartAt"); ok {
		if _, err := ParseDuration(opt.Value); err != nil {
			p.errorf(opt.Pos, "StartAt: %v", err)
		}
	}
	nsites := 0
	if opt, ok := peek("NSites"); ok {
		n, err := ParseInt(opt.Value)
		switch {
		case err != nil:
			p.errorf(opt.Pos, "NSites: %v", err)
		case n < 1 || n > MaxComponents:
			p.errorf(opt.Pos, "NSites must be a whole number from 1 to %d, got %d", MaxComponents, n)
		default:
			nsites = n
		}
	}
	if opt, ok := peek("NJobs"); ok {
		if r, err := ParseRange(opt.Value); err != nil {
			p.errorf(opt.Pos, "NJobs: %v", err)
		} else if r.Min < 1 || r.Max > MaxTasks {
			p.errorf(opt.Pos, "NJobs must be a range of whole numbers from 1 to %d, got %v", MaxTasks, r)
		}
	}
	if opt, ok := peek("RandomWorkload"); ok {
		if _, err := ParseBool(opt.Value); err != nil {
			p.errorf(opt.Pos, "RandomWorkload: %v", err)
		}
	}
	if opt, ok := peek("RunTimeInMinutes"); ok {
		if v, err := ParseFloat(opt.Value); err != nil {
			p.errorf(opt.Pos, "RunTimeInMinutes: %v", err)
		} else if v <= 0 || v > MaxSeconds/60 {
			p.errorf(opt.Pos, "RunTimeInMinutes must be > 0 and at most %d (100 years), got %g", MaxSeconds/60, v)
		}
	}
	sampled := false
	for _, opt := range o.list {
		if !strings.HasSuffix(opt.Key, "WithWeights") {
			continue
		}
		items, err := ParseWeighted(opt.Value)
		if err != nil {
			p.errorf(opt.Pos, "%s: %v", opt.Key, err)
			continue
		}
		switch opt.Key {
		case KeySiteTypes:
			sampled = true
			for _, it := range items {
				if _, ok := ParseSiteType(it.Value); !ok {
					p.errorf(opt.ItemPos(it), "%s: unknown site type %q (fixed, nonfixed, semifixed, flexible, or GrenchMark's names)", opt.Key, Excerpt(it.Value))
				}
			}
		case KeyNComponents, KeyTotalCPUs, KeyComponentSizes:
			sampled = true
			hi := MaxProcessors
			if opt.Key == KeyNComponents {
				hi = MaxComponents
			}
			for _, it := range items {
				if n, err := ParseInt(it.Value); err != nil || n < 1 || n > hi {
					p.errorf(opt.ItemPos(it), "%s: %q must be a whole number from 1 to %d", opt.Key, Excerpt(it.Value), hi)
				}
			}
		case KeySites:
			for _, it := range items {
				if !validName(it.Value) {
					p.errorf(opt.ItemPos(it), "%s: bad site name %q", opt.Key, Excerpt(it.Value))
				}
			}
		}
	}
	if sampled || u.SiteType == "" {
		return
	}
	if _, err := Resolve(u.SiteType, u.Total, u.Sites, nsites); err != nil {
		at := u.Cols.SiteInfo
		if u.Total == Unknown {
			at = u.Cols.Total
		}
		p.errorf(at, "%v", err)
	}
}
