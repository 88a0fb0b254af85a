package placement

import (
	"math"
	"testing"
)

// benchInfo is a DAS-2-like grid half full: five sites, a 2 GB file at one.
func benchInfo() *Info {
	return &Info{
		Sites: []Site{{Name: "fs0", Idle: 60}, {Name: "fs1", Idle: 20}, {Name: "fs2", Idle: 25}, {Name: "fs3", Idle: 30}, {Name: "fs4", Idle: 12}},
		Replicas: func(name string) []string {
			if name == "file-2g" {
				return []string{"fs1"}
			}
			return nil
		},
		Bandwidth: func(from, to string) float64 {
			if from == to {
				return math.Inf(1)
			}
			return 125e6
		},
	}
}

// BenchmarkPlace measures one placement by each policy of a job that fits
// (three components, one input file) and of one that does not (a component
// larger than any site's idle processors, which the core's cheap checks
// would have caught, and three that fit only one by one).
func BenchmarkPlace(b *testing.B) {
	file := []File{{Name: "file-2g", Size: 2 << 30}}
	jobs := []struct {
		name string
		req  *Request
	}{
		{"fits", withFiles(req(16, 8, 8), file...)},
		{"toolarge", withFiles(req(64, 8), file...)},
		{"nospace", withFiles(req(40, 40, 40), file...)},
	}
	for _, name := range Names() {
		for _, j := range jobs {
			b.Run(name+"/"+j.name, func(b *testing.B) {
				p, err := New(name, []string{"fs0", "fs1", "fs2", "fs3", "fs4"})
				if err != nil {
					b.Fatal(err)
				}
				info := benchInfo()
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					_, _ = p.Place(j.req, info)
				}
			})
		}
	}
}
