package target

// What a scheduler reports is outside input: its numbers are checked
// before they are used or recorded.

// MaxUnixSeconds is the latest time a scheduler may report (2242-03-16),
// far beyond any run, far below what overflows in nanoseconds.
const MaxUnixSeconds = 1 << 33

// UnixSeconds is a time a scheduler reported, in Unix seconds, or 0
// (unknown) when it is not within [1, MaxUnixSeconds].
func UnixSeconds(v int64) int64 {
	if v < 1 || v > MaxUnixSeconds {
		return 0
	}
	return v
}

// ExitStatus is an exit status a scheduler reported, and whether it is one:
// 0 to 255.
func ExitStatus(v int64) (int, bool) {
	if v < 0 || v > 255 {
		return 0, false
	}
	return int(v), true
}
