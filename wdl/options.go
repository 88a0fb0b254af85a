package wdl

import (
	"sort"
	"time"
)

// Option is one Key=Value pair of a unit's OtherInfo, after external files
// were merged in. Pos is where the value was written.
type Option struct {
	Key    string
	Value  string
	Pos    Pos
	KeyPos Pos
}

// Options are a unit's OtherInfo pairs. Keys are case-sensitive; a later
// definition replaces an earlier one. Options remember which keys were read,
// so that a key no part of gmark used can be reported (usually a typo).
type Options struct {
	list  []Option
	index map[string]int
	used  map[string]bool
}

// NewOptions returns an empty set.
func NewOptions() *Options {
	return &Options{index: map[string]int{}, used: map[string]bool{}}
}

// Set adds or replaces a pair; it reports whether the key was already set.
func (o *Options) Set(opt Option) (replaced bool) {
	if i, ok := o.index[opt.Key]; ok {
		o.list[i] = opt
		return true
	}
	o.index[opt.Key] = len(o.list)
	o.list = append(o.list, opt)
	return false
}

// Get returns the pair for key and marks the key used.
func (o *Options) Get(key string) (Option, bool) {
	i, ok := o.index[key]
	if !ok {
		return Option{}, false
	}
	o.used[key] = true
	return o.list[i], true
}

// Has tells whether key is set, without marking it used.
func (o *Options) Has(key string) bool {
	_, ok := o.index[key]
	return ok
}

// All returns the pairs in the order their keys were first defined.
func (o *Options) All() []Option { return o.list }

// Len is the number of pairs.
func (o *Options) Len() int { return len(o.list) }

// Unused lists the pairs nobody read, in file order.
func (o *Options) Unused() []Option {
	var out []Option
	for _, opt := range o.list {
		if !o.used[opt.Key] {
			out = append(out, opt)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Pos.Line < out[j].Pos.Line })
	return out
}

// MarkUsed marks keys as read without reading them (keys the parser itself handles).
func (o *Options) MarkUsed(keys ...string) {
	for _, k := range keys {
		o.used[k] = true
	}
}

// Typed getters. Each returns ok=false when the key is absent, and an *Error
// at the value's position when the value does not parse.

// String returns the value of key.
func (o *Options) String(key string) (string, bool) {
	opt, ok := o.Get(key)
	return opt.Value, ok
}

// Int returns the value of key as a whole number in [min, max].
func (o *Options) Int(key string, min, max int) (int, bool, error) {
	opt, ok := o.Get(key)
	if !ok {
		return 0, false, nil
	}
	v, err := ParseInt(opt.Value)
	if err != nil {
		return 0, true, Errorf(opt.Pos, "%s: %v", key, err)
	}
	if v < min || v > max {
		return 0, true, Errorf(opt.Pos, "%s must be a whole number from %d to %d, got %d", key, min, max, v)
	}
	return v, true, nil
}

// Float returns the value of key as a number in [min, max].
func (o *Options) Float(key string, min, max float64) (float64, bool, error) {
	opt, ok := o.Get(key)
	if !ok {
		return 0, false, nil
	}
	v, err := ParseFloat(opt.Value)
	if err != nil {
		return 0, true, Errorf(opt.Pos, "%s: %v", key, err)
	}
	if v < min || v > max {
		return 0, true, Errorf(opt.Pos, "%s must be a number from %g to %g, got %g", key, min, max, v)
	}
	return v, true, nil
}

// Bool returns the value of key as a boolean.
func (o *Options) Bool(key string) (bool, bool, error) {
	opt, ok := o.Get(key)
	if !ok {
		return false, false, nil
	}
	v, err := ParseBool(opt.Value)
	if err != nil {
		return false, true, Errorf(opt.Pos, "%s: %v", key, err)
	}
	return v, true, nil
}

// Duration returns the value of key as a non-negative duration.
func (o *Options) Duration(key string) (time.Duration, bool, error) {
	opt, ok := o.Get(key)
	if !ok {
		return 0, false, nil
	}
	v, err := ParseDuration(opt.Value)
	if err != nil {
		return 0, true, Errorf(opt.Pos, "%s: %v", key, err)
	}
	return v, true, nil
}

// Range returns the value of key as an integer range.
func (o *Options) Range(key string) (Range, bool, error) {
	opt, ok := o.Get(key)
	if !ok {
		return Range{}, false, nil
	}
	v, err := ParseRange(opt.Value)
	if err != nil {
		return Range{}, true, Errorf(opt.Pos, "%s: %v", key, err)
	}
	return v, true, nil
}

// List returns the value of key as a ';'-separated list.
func (o *Options) List(key string) ([]string, bool, error) {
	opt, ok := o.Get(key)
	if !ok {
		return nil, false, nil
	}
	v, err := ParseList(opt.Value)
	if err != nil {
		return nil, true, Errorf(opt.Pos, "%s: %v", key, err)
	}
	return v, true, nil
}

// Weighted returns the value of key as a weighted list.
func (o *Options) Weighted(key string) ([]Weighted, bool, error) {
	opt, ok := o.Get(key)
	if !ok {
		return nil, false, nil
	}
	v, err := ParseWeighted(opt.Value)
	if err != nil {
		return nil, true, Errorf(opt.Pos, "%s: %v", key, err)
	}
	return v, true, nil
}

// ItemPos is the position of item it of the weighted list in opt.
func (opt Option) ItemPos(it Weighted) Pos {
	p := opt.Pos
	p.Col += len([]rune(opt.Value[:min(it.Off, len(opt.Value))]))
	return p
}
