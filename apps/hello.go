package apps

import "os"

func init() {
	register(&app{
		name:  "hello",
		short: "prints a line and exits: for overhead tests",
		long: `Prints one "gmark-hello" record naming the process (rank, size, component,
job, host, pid) and the summary, and exits: the cost of a job is then all
overhead (submission, scheduling, start-up).`,
		define: func(fs *flagSet) instance {
			return instance{run: func(r *runner) error {
				host, _ := os.Hostname()
				r.sum.Set("host", host).Set("pid", os.Getpid())
				return r.out.Write(r.record("hello").Int("size", int64(r.env.Size)).
					Int("component", int64(r.env.Component)).Str("job", r.env.JobID).
					Str("host", host).Int("pid", int64(os.Getpid())))
			}, work: func(int) Work { return Work{Starts: 1} }}
		},
	})
}
