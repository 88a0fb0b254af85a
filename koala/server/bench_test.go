package server

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// BenchmarkSubmitHTTP measures accepted submissions per second over
// loopback HTTP: 32 concurrent keep-alive clients post JSON jobs, each
// committed to SQLite before its 201 (group commit makes this scale).
func BenchmarkSubmitHTTP(b *testing.B) {
	hs, srv, stop := startScaled(b, "", 1) // real time: scans once a minute
	defer stop()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64, MaxConnsPerHost: 64}}
	const clients = 32
	var next atomic.Int64
	var failed atomic.Int64
	b.ResetTimer()
	begin := time.Now()
	var wg sync.WaitGroup
	for c := 0; c < clients; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := next.Add(1)
				if i > int64(b.N) {
					return
				}
				body := submitBody(fmt.Sprintf("1-%d", i), 1+int(i%8), time.Hour, fmt.Sprintf("bench/%d", i))
				req, _ := http.NewRequest("POST", hs.URL+"/v1/jobs", strings.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Authorization", "Bearer "+token)
				resp, err := client.Do(req)
				if err != nil {
					failed.Add(1)
					continue
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode != http.StatusCreated {
					failed.Add(1)
				}
			}
		}()
	}
	wg.Wait()
	elapsed := time.Since(begin)
	b.ReportMetric(float64(b.N)/elapsed.Seconds(), "submissions/s")
	if steps := srv.stats.steps.Load(); steps > 0 {
		b.ReportMetric(float64(srv.stats.commands.Load())/float64(steps), "commands/step")
		b.ReportMetric(float64(srv.stats.commitNanos.Load())/float64(steps)/1e3, "µs-commit/step")
	}
	if failed.Load() > 0 {
		b.Fatalf("%d submissions failed", failed.Load())
	}
}
