package experiment

import (
	"strconv"
	"strings"
)

// lineIndex finds the line of a setting in a TOML source: the decoder keeps
// key positions to itself, so the lines are scanned once for table headers
// and keys. A path names elements of arrays of tables by index
// ("scenario[1].settings.threshold"); a setting not found (inside an inline
// table, say) falls back to the nearest enclosing one that is, and to 0
// (the file) when none is.
type lineIndex map[string]int

func indexLines(src string) lineIndex {
	ix := lineIndex{}
	arrays := map[string]int{} // path of an array of tables → elements seen
	prefix := ""
	for n, raw := range strings.Split(src, "\n") {
		line := strings.TrimSpace(raw)
		if line == "" || line[0] == '#' {
			continue
		}
		if line[0] == '[' {
			array := strings.HasPrefix(line, "[[")
			name, _, _ := strings.Cut(strings.TrimLeft(line, "["), "]")
			prefix = resolveHeader(splitKey(name), arrays, array)
			if _, ok := ix[prefix]; !ok {
				ix[prefix] = n + 1
			}
			continue
		}
		k, _, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		p := strings.Join(splitKey(k), ".")
		if prefix != "" {
			p = prefix + "." + p
		}
		if _, ok := ix[p]; !ok {
			ix[p] = n + 1
		}
	}
	return ix
}

// resolveHeader turns a table header into an indexed path: each part
// that is an array of tables seen so far gets the index of its last
// element; a header of an array of tables adds an element.
func resolveHeader(parts []string, arrays map[string]int, array bool) string {
	path := ""
	for i, p := range parts {
		if path != "" {
			path += "."
		}
		path += p
		last := i == len(parts)-1
		if last && array {
			n := arrays[path]
			arrays[path] = n + 1
			path += "[" + strconv.Itoa(n) + "]"
		} else if n, ok := arrays[path]; ok {
			path += "[" + strconv.Itoa(n-1) + "]"
		}
	}
	return path
}

// splitKey splits a dotted TOML key into its parts, unquoted.
func splitKey(k string) []string {
	var parts []string
	var cur strings.Builder
	quote := byte(0)
	for i := 0; i < len(k); i++ {
		c := k[i]
		switch {
		case quote != 0 && c == quote:
			quote = 0
		case quote != 0:
			cur.WriteByte(c)
		case c == '"' || c == '\'':
			quote = c
		case c == '.':
			parts = append(parts, strings.TrimSpace(cur.String()))
			cur.Reset()
		case c == ' ' || c == '\t':
		default:
			cur.WriteByte(c)
		}
	}
	return append(parts, strings.TrimSpace(cur.String()))
}

// line is the line of path, or of the nearest enclosing path found.
func (ix lineIndex) line(path string) int {
	for path != "" {
		if n, ok := ix[path]; ok {
			return n
		}
		i := strings.LastIndexAny(path, ".[")
		if i < 0 {
			break
		}
		path = path[:i]
	}
	return 0
}
