package stats

import "testing"

// benchSample is n draws of d from a fixed stream.
func benchSample(d Distribution, n int) []float64 {
	r := NewStream(42, 0, "bench")
	x := make([]float64, n)
	for i := range x {
		x[i] = d.Rand(r)
	}
	return x
}

// BenchmarkFitAll1e6 fits every family (FitFamilies) to 10^6 values, as
// `gmark fit` does with a large trace: a Weibull sample, so that the other
// families (the mixtures' EM especially) work on data they do not fit.
func BenchmarkFitAll1e6(b *testing.B) {
	x := benchSample(Weibull{0.7, 1000}, 1_000_000)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := FitAll(x, nil, FitOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFitAll1e6Log2 is the same on log2 of the data, the thesis's way.
func BenchmarkFitAll1e6Log2(b *testing.B) {
	x := benchSample(Weibull{0.7, 1000}, 1_000_000)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := FitAll(x, nil, FitOptions{Log2: true}); err != nil {
			b.Fatal(err)
		}
	}
}

func benchmarkSample(b *testing.B, d Distribution) {
	r := NewStream(42, 0, "bench")
	s := 0.0
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s += d.Rand(r)
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "draws/s")
	sinkFloat = s
}

var sinkFloat float64

// BenchmarkSampleWeibull and BenchmarkSampleLogNormal report draws per
// second from an MT19937 stream (the target is 2·10^7).
func BenchmarkSampleWeibull(b *testing.B)   { benchmarkSample(b, Weibull{4.25, 7.86}) }
func BenchmarkSampleLogNormal(b *testing.B) { benchmarkSample(b, LogNormal{1.82, 0.34}) }
