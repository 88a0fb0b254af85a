package htmlpage

import (
	"slices"
	"strings"
)

// CleanCommand is a command line as a reader would type it: its program
// named by its base name ("gmark", not "/usr/local/bin/gmark"), and by
// "gmark" when it is a temporary binary of `go run` or `go test`
// (".../go-build123/b001/exe/gmark"), whose path means nothing once the
// command has ended. The other arguments are kept as they are.
func CleanCommand(args []string) []string {
	if len(args) == 0 {
		return args
	}
	out := slices.Clone(args)
	out[0] = ProgramName(args[0])
	return out
}

// ProgramName is the name a command line shows for the program at path.
func ProgramName(path string) string {
	if path == "" || strings.Contains(path, "go-build") {
		return "gmark"
	}
	base := path[strings.LastIndexAny(path, `/\`)+1:]
	base = strings.TrimSuffix(base, ".exe")
	if base == "" {
		return "gmark"
	}
	return base
}

// QuoteArgs renders arguments as a shell command line: an argument of
// letters, digits and -_./=:,@%+ as it is, any other in single quotes.
func QuoteArgs(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		if a != "" && strings.IndexFunc(a, func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./=:,@%+", r))
		}) < 0 {
			out[i] = a
		} else {
			out[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
	}
	return strings.Join(out, " ")
}
