package targets

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/gmark/gmark/submitter"
)

// InputError is a target that cannot be made from what the user gave (a
// targets file, a setting, a grid file): bad input, not a failure.
type InputError struct{ Err error }

func (e *InputError) Error() string { return e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

func inputErrorf(format string, args ...any) error { return &InputError{fmt.Errorf(format, args...)} }

// Flag is a setting from the command line and whether it was given: a
// resumed run's recorded configuration gives way to a setting given again,
// not to a default.
type Flag struct {
	Value string
	Set   bool
}

// Options are what makes a target besides the targets file's section.
type Options struct {
	File   string // the targets file; "" none
	RunDir string // the run's directory (absolute): scripts, outputs, the bundled core's state
	// NewRunDir: the run directory was given anew, so a resumed run's
	// recorded directories are not reused.
	NewRunDir  bool
	Processors int    // local: the processor budget; 0 for the file's (or the default)
	Executable string // the gmark binary jobs run; "" this one
	// Self is the gmark binary that serves the bundled core ('gmark koala
	// serve'); "" for os.Executable().
	Self  string
	Koala KoalaOptions
}

// KoalaOptions are the koala target's settings.
type KoalaOptions struct {
	Endpoint  Flag // a running core; not given: a core started for the run from Grid
	Grid      Flag
	TokenFile Flag
	Token     string // given directly; TokenFile wins
	Policy    Flag
	Priority  Flag
	Runner    Flag
}

// New makes the target name, with its configuration for the provenance
// record.
//
// recorded, when set, is the target configuration a resumed run recorded
// (JSON): the target is made the same way again, in the same directories.
func New(ctx context.Context, name string, o Options, recorded []byte) (submitter.Target, any, error) {
	spec, m, err := prepare(name, o, recorded)
	if err != nil {
		return nil, nil, err
	}
	return spec.make(ctx, m)
}

// Check tells whether New can make the target name from o (and a resumed
// run's recorded configuration) without making it: it reads the targets
// file and checks the target's section and settings (the slurm clusters;
// a koala target's policy, priority and runner, its endpoint and token
// file, or its bundled core's grid). It writes nothing and starts nothing,
// so that a command refuses bad input before it writes anything. Its
// errors are *InputError.
func Check(name string, o Options, recorded []byte) error {
	spec, m, err := prepare(name, o, recorded)
	if err != nil || spec.check == nil {
		return err
	}
	return spec.check(m)
}

// prepare reads the targets file of o (none: an empty File), makes o's
// executable absolute and finds the target name.
func prepare(name string, o Options, recorded []byte) (Spec, maker, error) {
	m := maker{o: o, file: &File{}, recorded: recorded}
	if o.File != "" {
		f, err := Load(o.File)
		if err != nil {
			return Spec{}, m, inputErrorf("targets file %v", err)
		}
		m.file = f
	}
	if o.Executable != "" {
		abs, err := filepath.Abs(o.Executable)
		if err != nil {
			return Spec{}, m, inputErrorf("--gmark: %v", err)
		}
		m.o.Executable = abs
	}
	spec, err := Lookup(name)
	return spec, m, err
}
