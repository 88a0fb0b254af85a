package targets

import "github.com/gmark/gmark/submitter/koalatarget"

// Check tells whether New can make the target name from o (and a resumed
// run's recorded configuration) without making it: it reads the targets
// file and checks the target's section and settings (the slurm clusters;
// a koala target's policy, priority and runner, its endpoint and token
// file, or its bundled core's grid). It writes nothing and starts nothing,
// so that a command refuses bad input before it writes anything. Its
// errors are *InputError.
func Check(name string, o Options, recorded []byte) error {
	tf, err := loadTargets(&o)
	if err != nil {
		return err
	}
	switch name {
	case "dryrun", "local", "condor", "sge":
		return nil
	case "arc", "gram":
		return checkGrid(name, o, tf, recordedInto(o, recorded))
	case "slurm":
		cfg, err := slurmConfig(o, tf, recordedInto(o, recorded))
		if err != nil {
			return err
		}
		if err := cfg.Check(); err != nil {
			return &InputError{err}
		}
		return nil
	case "koala":
		cfg, tc, err := koalaConfig(o, recorded)
		if err != nil {
			return err
		}
		if cfg.Endpoint == "" {
			if _, err := cfg.CoreGrid(); err != nil {
				return &InputError{err}
			}
			return nil
		}
		if _, err := koalatarget.New(tc); err != nil {
			return &InputError{err}
		}
		return nil
	}
	return unknownTarget(name)
}
