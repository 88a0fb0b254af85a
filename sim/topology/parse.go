package topology

import (
	"embed"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"
	"github.com/gmark/gmark/internal/readlimit"
	"github.com/gmark/gmark/internal/srcerr"
)

// MaxFileSize bounds a topology file: it is read whole.
const MaxFileSize = 4 << 20

// Load reads and validates a topology file.
func Load(path string) (*Topology, error) {
	b, err := readlimit.File(path, MaxFileSize)
	if errors.Is(err, readlimit.ErrTooLarge) {
		return nil, readlimit.TooLargef("%s: larger than %d bytes; this is not a topology", path, MaxFileSize)
	}
	if err != nil {
		return nil, err
	}
	return Parse(path, b)
}

// Parse validates a topology. Every problem is reported, as a srcerr.List
// of "file:line: what is wrong" (line 0, the file alone, when the setting
// cannot be found in the text, e.g. in an inline table).
func Parse(name string, src []byte) (*Topology, error) {
	var spec Spec
	md, err := toml.Decode(string(src), &spec)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, srcerr.List{srcerr.Errorf(srcerr.Pos{File: name, Line: pe.Position.Line}, "%s", pe.Message)}
		}
		return nil, srcerr.List{srcerr.Errorf(srcerr.Pos{File: name}, "%v", err)}
	}
	lines := strings.Split(string(src), "\n")
	var list srcerr.List
	if und := md.Undecoded(); len(und) > 0 {
		for _, k := range und {
			table, index, key := "", -1, k[len(k)-1]
			if len(k) > 1 {
				table, index = k[0], -2
			}
			list = append(list, srcerr.Errorf(srcerr.Pos{File: name, Line: locate(lines, table, index, key)},
				"unknown setting %s (settings: %s)", k, settingsOf(table)))
		}
		return nil, list.Err()
	}
	t, probs := build(&spec)
	for _, p := range probs {
		list = append(list, srcerr.Errorf(srcerr.Pos{File: name, Line: locate(lines, p.table, p.index, p.key)}, "%s", p.msg))
	}
	if err := list.Err(); err != nil {
		return nil, err
	}
	return t, nil
}

func settingsOf(table string) string {
	switch table {
	case "site":
		return "name, parent"
	case "cluster":
		return "name, parent, processors, speed, scheduler"
	case "sibling":
		return "sites"
	}
	return "name, [[site]], [[cluster]], [[sibling]]"
}

// locate finds the line of key in element index of the array of tables
// table ("" for the top level; index -2 for any element). The TOML decoder
// keeps positions to itself, so the lines are scanned for the headers and
// the key; the element's header line when the key is not there, 0 when
// nothing is found.
func locate(lines []string, table string, index int, key string) int {
	cur, curIdx, header := "", -1, 0
	count := map[string]int{}
	for i, raw := range lines {
		t := strings.TrimSpace(raw)
		if strings.HasPrefix(t, "[") {
			name, _, _ := strings.Cut(strings.TrimLeft(t, "["), "]")
			cur = strings.TrimSpace(name)
			curIdx = count[cur]
			count[cur]++
			if cur == table && curIdx == index {
				header = i + 1
			}
			continue
		}
		if cur != table || (table != "" && index != -2 && curIdx != index) {
			continue
		}
		if k, _, ok := strings.Cut(t, "="); ok && strings.Trim(strings.TrimSpace(k), `"'`) == key {
			return i + 1
		}
	}
	return header
}

//go:embed presets/*.toml
var presets embed.FS

// PresetNames lists the embedded topologies.
func PresetNames() []string {
	entries, _ := presets.ReadDir("presets")
	var names []string
	for _, e := range entries {
		names = append(names, strings.TrimSuffix(e.Name(), ".toml"))
	}
	sort.Strings(names)
	return names
}

// PresetSource is the text of an embedded topology.
func PresetSource(name string) ([]byte, error) {
	b, err := presets.ReadFile("presets/" + name + ".toml")
	if err != nil {
		return nil, fmt.Errorf("no preset topology %q (presets: %s)", name, strings.Join(PresetNames(), ", "))
	}
	return b, nil
}

// Preset returns an embedded topology by name.
func Preset(name string) (*Topology, error) {
	b, err := PresetSource(name)
	if err != nil {
		return nil, err
	}
	return Parse("preset:"+name, b)
}
