// Package names indexes the items of a registry (applications, DAG
// shapes, distribution families) by their names and aliases, once, for the
// registries that each would otherwise build the same map; and holds the
// rules of the ids and names read from outside (CheckID, CheckKey).
package names

import "strings"

// Index maps every name of every item (names(item): its name, then its
// aliases) to the item; with fold, names are lower-cased, for lookups that
// ignore case. A name given twice is a bug in the registry: it panics.
func Index[T any](items []T, names func(T) []string, fold bool) map[string]T {
	m := make(map[string]T, len(items))
	for _, it := range items {
		for _, n := range names(it) {
			if fold {
				n = strings.ToLower(n)
			}
			if _, dup := m[n]; dup {
				panic("two items of one registry are named " + n)
			}
			m[n] = it
		}
	}
	return m
}
