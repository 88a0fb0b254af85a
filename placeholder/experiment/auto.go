package experiment

import (
	"math"
	"sort"
)

// Auto is the placeholders value that asks for an automatic count.
const Auto = "auto"

// checkCount reads the site's placeholders: a count, or "auto", with its
// bounds.
func (s *Site) checkCount(i int) error {
	switch c := s.Count.(type) {
	case nil:
	case int64:
		if c < 1 || c > MaxPH {
			return failf("placeholders", i, "site %s: placeholders %d must be from 1 to %d, or %q", s.Name, c, MaxPH, Auto)
		}
		s.Placeholders, s.Auto = int(c), false
	case string:
		if c != Auto {
			return failf("placeholders", i, "site %s: placeholders %q: a number from 1 to %d, or %q", s.Name, c, MaxPH, Auto)
		}
		s.Auto = true
	default:
		return failf("placeholders", i, "site %s: placeholders %v: a number from 1 to %d, or %q", s.Name, c, MaxPH, Auto)
	}
	if s.Processors < 0 || s.Processors > MaxPH {
		return failf("processors", i, "site %s: processors %d must be from 0 (unknown) to %d", s.Name, s.Processors, MaxPH)
	}
	if s.MaxCount < 0 || s.MaxCount > MaxPH {
		return failf("max_count", i, "site %s: max_count %d must be from 0 (none) to %d", s.Name, s.MaxCount, MaxPH)
	}
	return nil
}

// autoCounts sets the count of each "auto" site: its free processors (one
// placeholder each, as CISS-1's counts were), or else its share of
// auto_total in proportion to its rate (largest remainders; ties to the
// earlier site), at least 1, at most max_count. The thesis leaves the
// count to the user (§3.5, "users select how many placeholders should be
// assigned to each machine").
func (sp *Spec) autoCounts() error {
	if sp.AutoTotal < 0 || sp.AutoTotal > MaxPH {
		return failf("auto_total", -1, "auto_total %d must be from 0 to %d", sp.AutoTotal, MaxPH)
	}
	var shared []int
	sum := 0.0
	for i := range sp.Sites {
		s := &sp.Sites[i]
		if !s.Auto {
			continue
		}
		if s.Processors > 0 {
			s.Placeholders = s.bound(s.Processors)
			continue
		}
		if sp.AutoTotal == 0 {
			return failf("placeholders", i, "site %s: placeholders = %q needs the site's processors, or auto_total to share out", s.Name, Auto)
		}
		shared = append(shared, i)
		sum += s.Rate
	}
	if len(shared) == 0 {
		return nil
	}
	type part struct {
		site int
		n    int
		rem  float64
	}
	parts := make([]part, len(shared))
	given := 0
	for k, i := range shared {
		q := float64(sp.AutoTotal) * sp.Sites[i].Rate / sum
		parts[k] = part{site: i, n: int(math.Floor(q)), rem: q - math.Floor(q)}
		given += parts[k].n
	}
	order := make([]int, len(parts))
	for k := range order {
		order[k] = k
	}
	sort.SliceStable(order, func(a, b int) bool { return parts[order[a]].rem > parts[order[b]].rem })
	for k := 0; given < sp.AutoTotal && k < len(order); k++ {
		parts[order[k]].n++
		given++
	}
	for _, p := range parts {
		s := &sp.Sites[p.site]
		s.Placeholders = s.bound(p.n)
	}
	return nil
}

// bound keeps an automatic count from 1 to max_count (and MaxPH).
func (s *Site) bound(n int) int {
	n = max(n, 1)
	if s.MaxCount > 0 {
		n = min(n, s.MaxCount)
	}
	return min(n, MaxPH)
}
