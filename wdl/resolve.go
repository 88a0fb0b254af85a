package wdl

import (
	"fmt"
	"strings"
)

// Resolve turns a unit's SiteType, Total and SiteInfo (and NSites, 0 when not
// given) into its components, each with a site and a known amount, the way
// GrenchMark's reference implementation did:
//
//   - single: one component, the SiteInfo entry (or *:? when there is none);
//   - ordered (fixed): one component per SiteInfo entry; at least one entry;
//   - unordered (non-fixed): NSites components on any site (the SiteInfo
//     entries, which must all be on *, then *:? up to NSites);
//   - semi-ordered (semi-fixed): NSites components, the NSites − len(SiteInfo)
//     unordered ones (*:?) first, then the listed ones;
//   - flexible: one component of Total processors on any site; the scheduler
//     splits it.
//
// Amounts: "?" in both Total and SiteInfo is an error. A "?" Total is the sum
// of the amounts. Otherwise what Total leaves after the given amounts is
// spread evenly over the "?" components, the first ones taking the remainder;
// each component needs at least one processor.
func Resolve(st SiteType, total int, sites []SiteAmount, nsites int) ([]SiteAmount, error) {
	// The parser has checked these; a caller that did not gets an error
	// rather than an allocation of its size.
	if nsites < 0 || nsites > MaxComponents || len(sites) > MaxComponents {
		return nil, fmt.Errorf("a job has at most %d components (NSites %d, %d SiteInfo entries)", MaxComponents, nsites, len(sites))
	}
	comps, err := layout(st, total, sites, nsites)
	if err != nil {
		return nil, err
	}
	known, unknown := 0, 0
	for _, c := range comps {
		if c.Amount == Unknown {
			unknown++
		} else {
			known += c.Amount
		}
	}
	if total == Unknown {
		if unknown > 0 {
			return nil, fmt.Errorf("Total and SiteInfo are both ?: give the total or the amount of every site")
		}
		if known > MaxProcessors {
			return nil, fmt.Errorf("the SiteInfo amounts add up to %d processors; a job has at most %d", known, MaxProcessors)
		}
		return comps, nil
	}
	left := total - known
	switch {
	case unknown == 0 && left != 0:
		return nil, fmt.Errorf("the SiteInfo amounts add up to %d but Total is %d", known, total)
	case unknown > 0 && left < unknown:
		return nil, fmt.Errorf("Total %d leaves %d processor(s) for %d component(s) marked ?; each needs at least 1", total, left, unknown)
	}
	k := 0
	for i := range comps {
		if comps[i].Amount == Unknown {
			comps[i].Amount = left / unknown
			if k < left%unknown {
				comps[i].Amount++
			}
			k++
		}
	}
	return comps, nil
}

func layout(st SiteType, total int, sites []SiteAmount, nsites int) ([]SiteAmount, error) {
	any := SiteAmount{Site: AnySite, Amount: Unknown}
	switch st {
	case Single:
		if len(sites) > 1 {
			return nil, fmt.Errorf("a single-site unit has one SiteInfo entry, not %d (use ordered, unordered or semi-ordered for co-allocation)", len(sites))
		}
		if len(sites) == 0 {
			return []SiteAmount{any}, nil
		}
		return []SiteAmount{sites[0]}, nil
	case Ordered:
		if len(sites) == 0 {
			return nil, fmt.Errorf("an ordered (fixed) unit needs a SiteInfo entry for each component, e.g. fs0:8,fs1:8")
		}
		return append([]SiteAmount(nil), sites...), nil
	case Unordered:
		var named []string
		for _, s := range sites {
			if s.Site != AnySite {
				named = append(named, s.Site)
			}
		}
		if len(named) > 0 {
			return nil, fmt.Errorf("an unordered (non-fixed) unit places every component itself; SiteInfo names %s (use semi-ordered to fix some sites)", strings.Join(named, ", "))
		}
		if nsites == 0 {
			nsites = len(sites)
		}
		if nsites == 0 {
			return nil, fmt.Errorf("an unordered (non-fixed) unit needs NSites in OtherInfo (how many components)")
		}
		if len(sites) > nsites {
			return nil, fmt.Errorf("SiteInfo has %d entries but NSites is %d", len(sites), nsites)
		}
		comps := append([]SiteAmount(nil), sites...)
		for len(comps) < nsites {
			comps = append(comps, any)
		}
		return comps, nil
	case SemiOrdered:
		if nsites == 0 {
			return nil, fmt.Errorf("a semi-ordered (semi-fixed) unit needs NSites in OtherInfo (how many components in all)")
		}
		if nsites < len(sites) {
			return nil, fmt.Errorf("NSites %d is smaller than the %d SiteInfo entries of a semi-ordered unit", nsites, len(sites))
		}
		comps := make([]SiteAmount, 0, nsites)
		for i := 0; i < nsites-len(sites); i++ {
			comps = append(comps, any)
		}
		return append(comps, sites...), nil
	case Flexible:
		for _, s := range sites {
			if s.Site != AnySite {
				return nil, fmt.Errorf("a flexible unit gives only its total; SiteInfo names site %s", s.Site)
			}
		}
		if total == Unknown {
			if len(sites) == 1 && sites[0].Amount != Unknown {
				return []SiteAmount{sites[0]}, nil
			}
			return nil, fmt.Errorf("a flexible unit needs its Total")
		}
		return []SiteAmount{any}, nil
	}
	return nil, fmt.Errorf("unknown site type %q", st)
}
