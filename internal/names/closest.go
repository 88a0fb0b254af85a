package names

import (
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Closest returns the candidates a mistyped name most likely meant, for a
// "did you mean" hint: those at the smallest edit distance from name
// (insertions, deletions, substitutions and swaps of two neighbours, case
// ignored), if that distance is small for the name's length, best first
// and at most three; or, when none is that close, the candidates that
// start with name ("--out" for "--output"). None when nothing is close:
// a hint that is a guess would mislead.
func Closest(name string, candidates []string) []string {
	name = strings.ToLower(name)
	if name == "" {
		return nil
	}
	limit := max(1, len([]rune(name))/3)
	best, out := limit+1, []string(nil)
	seen := map[string]bool{}
	for _, c := range candidates {
		if seen[c] {
			continue
		}
		seen[c] = true
		d := distance(name, strings.ToLower(c))
		switch {
		case d < best:
			best, out = d, []string{c}
		case d == best && d <= limit:
			out = append(out, c)
		}
	}
	if len(out) == 0 {
		for _, c := range candidates {
			if len(c) > len(name) && strings.HasPrefix(strings.ToLower(c), name) && !slices.Contains(out, c) {
				out = append(out, c)
			}
		}
	}
	sort.Strings(out)
	if len(out) > 3 {
		out = out[:3]
	}
	return out
}

// distance is the optimal string alignment distance of a and b (by runes):
// Levenshtein's with a swap of two neighbours counted as one edit, the most
// common typing slip.
func distance(a, b string) int {
	x, y := []rune(a), []rune(b)
	// rows i-2, i-1 and i of the table.
	prev2, prev, cur := make([]int, len(y)+1), make([]int, len(y)+1), make([]int, len(y)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(x); i++ {
		cur[0] = i
		for j := 1; j <= len(y); j++ {
			cost := 1
			if x[i-1] == y[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && x[i-1] == y[j-2] && x[i-2] == y[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(y)]
}

// Count is n and the noun, which is made plural (by an s) unless n is 1:
// "1 unit", "0 units", "3 units".
func Count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}
