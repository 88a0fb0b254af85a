package batch

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/gmark/gmark/submitter/target"
)

// sge drives Grid Engine (SGE, Son of Grid Engine, Open Grid Scheduler).
type sge struct{}

// NewSGE returns the Grid Engine target.
func NewSGE(cfg Config) (*Target, error) { return newTarget(cfg, sge{}) }

func (sge) name() string       { return "sge" }
func (sge) printer() string    { return "sge" }
func (sge) commands() []string { return []string{"qsub", "qstat", "qacct", "qdel"} }

func (sge) submit(ctx context.Context, t *Target, script, jobName string) (string, string, error) {
	args := append([]string{"-terse", "-N", jobName}, t.cfg.SubmitArgs...)
	args = append(args, script)
	out, err := t.run(ctx, "qsub", args...)
	text := strings.TrimSpace(string(out))
	if err != nil {
		return "", text, err
	}
	id := strings.SplitN(text, "\n", 2)[0]
	id, _, _ = strings.Cut(id, ".") // array jobs print "id.first-last:step"
	if _, err := strconv.ParseInt(id, 10, 64); err != nil {
		return "", text, fmt.Errorf("qsub printed %q, not a job id", text)
	}
	return id, text, nil
}

// qstatJob is one job_list element of qstat -xml.
type qstatJob struct {
	Number string `xml:"JB_job_number"`
	Name   string `xml:"JB_name"`
	State  string `xml:"state"`
	Start  string `xml:"JAT_start_time"`
	Submit string `xml:"JB_submission_time"`
}

// parseQstat reads qstat -xml: job_list elements, wherever they are (under
// queue_info for running jobs, job_info for pending ones).
func parseQstat(b []byte) ([]qstatJob, error) {
	dec := xml.NewDecoder(bytes.NewReader(b))
	var jobs []qstatJob
	for {
		tok, err := dec.Token()
		if err != nil {
			if err.Error() == "EOF" {
				return jobs, nil
			}
			return nil, fmt.Errorf("qstat -xml: %v", err)
		}
		if se, ok := tok.(xml.StartElement); ok && se.Name.Local == "job_list" {
			var j qstatJob
			if err := dec.DecodeElement(&j, &se); err != nil {
				return nil, fmt.Errorf("qstat -xml: %v", err)
			}
			jobs = append(jobs, j)
		}
	}
}

// sgeTime reads the time formats of qstat (2006-01-02T15:04:05[.000]) and
// qacct (Mon Jan  2 15:04:05 2006, or 2006-01-02 15:04:05.000000 in newer
// versions), in local time.
func sgeTime(s string) int64 {
	s = strings.TrimSpace(s)
	for _, layout := range []string{"2006-01-02T15:04:05.000", "2006-01-02T15:04:05", "Mon Jan _2 15:04:05 2006",
		"2006-01-02 15:04:05.000000", "2006-01-02 15:04:05"} {
		if t, err := time.ParseInLocation(layout, s, time.Local); err == nil {
			return target.UnixSeconds(t.Unix())
		}
	}
	return 0
}

func qstatStatus(j qstatJob) status {
	raw, _ := json.Marshal(j)
	st := status{raw: string(raw), class: "queued", submit: sgeTime(j.Submit)}
	switch {
	case strings.Contains(j.State, "d"):
		st.class = "cancelled"
	case strings.Contains(j.State, "r") || strings.Contains(j.State, "t") || strings.Contains(j.State, "s") || strings.Contains(j.State, "S"):
		st.class = "running"
		st.start = sgeTime(j.Start)
	}
	return st
}

func (sge) queue(ctx context.Context, t *Target) (map[string]status, map[string]string, error) {
	out, err := t.run(ctx, "qstat", "-xml", "-u", "*")
	if err != nil {
		return nil, nil, err
	}
	jobs, err := parseQstat(out)
	if err != nil {
		return nil, nil, err
	}
	q, names := map[string]status{}, map[string]string{}
	for _, j := range jobs {
		q[j.Number] = qstatStatus(j)
		names[j.Number] = j.Name
	}
	return q, names, nil
}

// parseQacct reads qacct -j output: "key value" lines, one block per job
// (the last block wins).
func parseQacct(b []byte) map[string]string {
	m := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "====") {
			m = map[string]string{}
			continue
		}
		k, v, ok := strings.Cut(line, " ")
		if !ok {
			continue
		}
		m[strings.TrimSpace(k)] = strings.TrimSpace(v)
	}
	return m
}

func qacctStatus(m map[string]string) status {
	raw, _ := json.Marshal(m)
	st := status{raw: string(raw), submit: sgeTime(m["qsub_time"]), start: sgeTime(m["start_time"]), end: sgeTime(m["end_time"])}
	n, _ := strconv.ParseInt(strings.Fields(m["exit_status"] + " 0")[0], 10, 64)
	code, known := target.ExitStatus(n)
	if known {
		st.exit = &code
	}
	failed := strings.Fields(m["failed"] + " 0")[0]
	switch {
	case !known:
		st.class, st.reason = "failed", "exit status "+m["exit_status"]+" out of range"
	case failed != "0":
		st.class, st.reason = "failed", "qacct failed: "+m["failed"]
	case code != 0:
		st.class, st.reason = "failed", fmt.Sprintf("exit status %d", code)
	default:
		st.class = "succeeded"
	}
	return st
}

func (sge) history(ctx context.Context, t *Target, id string) (status, bool, error) {
	out, err := t.run(ctx, "qacct", "-j", id)
	if err != nil {
		return status{}, false, nil // not (yet) in the accounting file
	}
	m := parseQacct(out)
	if m["jobnumber"] == "" {
		return status{}, false, nil
	}
	return qacctStatus(m), true, nil
}

func (sge) historyByName(ctx context.Context, t *Target, jobName string) (string, bool, error) {
	out, err := t.run(ctx, "qacct", "-j", jobName)
	if err != nil {
		return "", false, nil
	}
	m := parseQacct(out)
	if m["jobname"] != jobName || m["jobnumber"] == "" {
		return "", false, nil
	}
	return m["jobnumber"], true, nil
}

func (sge) cancel(ctx context.Context, t *Target, id string) error {
	_, err := t.run(ctx, "qdel", id)
	return err
}
