package printers

import "strings"

// Each format has its own quoting rules; getting one wrong turns a parameter
// value into a second argument, a comment or a syntax error on the cluster.
// The functions below append one value quoted for one syntax.

// appendShellWord appends s as one POSIX shell word: bare when it is made
// only of characters no shell treats specially, else in single quotes (a
// single quote inside closes them, is escaped with a backslash, and opens
// them again).
func appendShellWord(b []byte, s string) []byte {
	if s != "" && strings.IndexFunc(s, notShellSafe) < 0 {
		return append(b, s...)
	}
	b = append(b, '\'')
	for i := 0; i < len(s); i++ {
		if s[i] == '\'' {
			b = append(b, `'\''`...)
		} else {
			b = append(b, s[i])
		}
	}
	return append(b, '\'')
}

// notShellSafe reports characters that need quoting in a shell word. '=' is
// among them so that a first word is never read as an assignment.
func notShellSafe(r rune) bool {
	switch {
	case 'a' <= r && r <= 'z', 'A' <= r && r <= 'Z', '0' <= r && r <= '9':
		return false
	}
	return !strings.ContainsRune("_@%+:,./-", r)
}

// appendRSLString appends s as an RSL quoted literal: in double quotes, an
// embedded double quote doubled. Quoted literals are never interpreted, so
// parentheses, '$' and '#' inside need nothing more.
func appendRSLString(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		if s[i] == '"' {
			b = append(b, '"', '"')
		} else {
			b = append(b, s[i])
		}
	}
	return append(b, '"')
}

// appendRSLComment appends an RSL comment "(* text *)"; a "*)" inside the
// text would end it early and is written "* )".
func appendRSLComment(b []byte, text string) []byte {
	b = append(b, "(* "...)
	b = append(b, strings.ReplaceAll(text, "*)", "* )")...)
	return append(b, " *)\n"...)
}

// appendCondorMacroSafe appends s to a condor submit value with "$" written
// as $(DOLLAR), the only way to keep condor_submit from expanding it.
func appendCondorMacroSafe(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if s[i] == '$' {
			b = append(b, "$(DOLLAR)"...)
		} else {
			b = append(b, s[i])
		}
	}
	return b
}

// appendCondorArg appends one word of an HTCondor "new syntax" arguments or
// environment value (the whole value is in double quotes): an empty word or
// one with blanks or single quotes goes in single quotes with ' doubled, and
// every " is doubled, inside single quotes or not.
func appendCondorArg(b []byte, s string) []byte {
	quote := s == "" || strings.ContainsAny(s, " \t'")
	if quote {
		b = append(b, '\'')
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\'':
			b = append(b, '\'', '\'')
		case '"':
			b = append(b, '"', '"')
		case '$':
			b = append(b, "$(DOLLAR)"...)
		default:
			b = append(b, c)
		}
	}
	if quote {
		b = append(b, '\'')
	}
	return b
}

// appendClassAdString appends s as a ClassAd string literal, as used in
// "+Attr = ..." and requirements expressions.
func appendClassAdString(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '"', '\\':
			b = append(b, '\\', c)
		case '$':
			b = append(b, "$(DOLLAR)"...)
		default:
			b = append(b, c)
		}
	}
	return append(b, '"')
}

// appendSbatchValue appends the value of a "#SBATCH --opt=value" line. sbatch
// splits these lines itself: quotes group, a backslash escapes the next
// character and an unquoted '#' starts a comment. Plain values stay bare.
func appendSbatchValue(b []byte, s string) []byte {
	if s != "" && strings.IndexFunc(s, notShellSafe) < 0 {
		return append(b, s...)
	}
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == '"' || c == '\\' {
			b = append(b, '\\', c)
		} else {
			b = append(b, c)
		}
	}
	return append(b, '"')
}

// slurmFilename escapes '%' in an output file name, which sbatch would read
// as the start of a replacement symbol such as %j.
func slurmFilename(s string) string {
	return strings.ReplaceAll(s, "%", "%%")
}

// appendDOTString appends s as a DOT quoted string. Backslashes are doubled
// so that a label shows them literally (DOT labels give "\n" a meaning).
func appendDOTString(b []byte, s string) []byte {
	b = append(b, '"')
	b = appendDOTEscaped(b, s)
	return append(b, '"')
}

// appendDOTEscaped appends the inside of a DOT quoted string.
func appendDOTEscaped(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == '"' || c == '\\' {
			b = append(b, '\\', c)
		} else {
			b = append(b, c)
		}
	}
	return b
}

// batchJobName is a job name that SGE and PBS accept whatever the job id:
// both reject names with '/', ':', '@' and blanks, and PBS wants a letter
// first, which the "gmark-" prefix provides.
func batchJobName(id string) string {
	name := []byte("gmark-" + id)
	for i, c := range name {
		ok := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c == '.'
		if !ok {
			name[i] = '_'
		}
	}
	return string(name)
}
