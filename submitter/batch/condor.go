package batch

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/gmark/gmark/submitter/target"
)

// condor drives HTCondor.
type condor struct{}

// NewCondor returns the HTCondor target.
func NewCondor(cfg Config) (*Target, error) { return newTarget(cfg, condor{}) }

func (condor) name() string    { return "condor" }
func (condor) printer() string { return "classad" }
func (condor) commands() []string {
	return []string{"condor_submit", "condor_q", "condor_history", "condor_rm"}
}

// condorAttrs are the job ad attributes read.
const condorAttrs = "ClusterId,ProcId,QDate,JobStatus,GmarkName,JobStartDate,CompletionDate,EnteredCurrentStatus,ExitCode,ExitBySignal,ExitSignal,HoldReason,RemoveReason"

func (condor) submit(ctx context.Context, t *Target, script, jobName string) (string, string, error) {
	args := append([]string{"-terse", "-append", fmt.Sprintf("+GmarkName = %q", jobName)}, t.cfg.SubmitArgs...)
	args = append(args, script)
	out, err := t.run(ctx, "condor_submit", args...)
	text := strings.TrimSpace(string(out))
	if err != nil {
		return "", text, err
	}
	// -terse prints "first - last", e.g. "123.0 - 123.0".
	id, _, _ := strings.Cut(text, " ")
	if _, _, ok := strings.Cut(id, "."); !ok {
		return "", text, fmt.Errorf("condor_submit printed %q, not a job id", text)
	}
	return id, text, nil
}

type condorAd struct {
	ClusterID            int64  `json:"ClusterId"`
	ProcID               int64  `json:"ProcId"`
	QDate                int64  `json:"QDate"`
	JobStatus            int    `json:"JobStatus"`
	GmarkName            string `json:"GmarkName"`
	JobStartDate         int64  `json:"JobStartDate"`
	CompletionDate       int64  `json:"CompletionDate"`
	EnteredCurrentStatus int64  `json:"EnteredCurrentStatus"`
	ExitCode             *int   `json:"ExitCode"`
	ExitBySignal         bool   `json:"ExitBySignal"`
	ExitSignal           int    `json:"ExitSignal"`
	HoldReason           string `json:"HoldReason"`
	RemoveReason         string `json:"RemoveReason"`
	raw                  []byte
}

// parseCondorAds reads condor_q -json or condor_history -json output (a
// JSON array of ads; nothing at all when there are none).
func parseCondorAds(b []byte) ([]condorAd, error) {
	b = []byte(strings.TrimSpace(string(b)))
	if len(b) == 0 {
		return nil, nil
	}
	var raws []json.RawMessage
	if err := json.Unmarshal(b, &raws); err != nil {
		return nil, fmt.Errorf("condor json: %v", err)
	}
	ads := make([]condorAd, 0, len(raws))
	for _, r := range raws {
		var ad condorAd
		if err := json.Unmarshal(r, &ad); err != nil {
			return nil, fmt.Errorf("condor json: %v", err)
		}
		ad.raw = r
		ads = append(ads, ad)
	}
	return ads, nil
}

func (ad condorAd) id() string {
	return strconv.FormatInt(ad.ClusterID, 10) + "." + strconv.FormatInt(ad.ProcID, 10)
}

// status maps JobStatus: 1 idle, 2 running, 3 removed, 4 completed, 5 held,
// 6 transferring output, 7 suspended.
func (ad condorAd) status() status {
	st := status{submit: target.UnixSeconds(ad.QDate), start: target.UnixSeconds(ad.JobStartDate), raw: string(ad.raw)}
	switch ad.JobStatus {
	case 2, 6, 7:
		st.class = "running"
	case 3:
		st.class, st.end, st.reason = "cancelled", target.UnixSeconds(ad.EnteredCurrentStatus), ad.RemoveReason
	case 4:
		st.end = target.UnixSeconds(ad.CompletionDate)
		if st.end == 0 {
			st.end = target.UnixSeconds(ad.EnteredCurrentStatus)
		}
		code, known := 0, true
		if ad.ExitCode != nil {
			code, known = target.ExitStatus(int64(*ad.ExitCode))
		}
		if ad.ExitBySignal {
			code, known = 128+ad.ExitSignal, ad.ExitSignal >= 1 && ad.ExitSignal <= 127
		}
		switch {
		case !known:
			st.class, st.reason = "failed", "an exit status out of range"
		case code != 0:
			st.exit = &code
			st.class, st.reason = "failed", fmt.Sprintf("exit status %d", code)
		default:
			st.exit = &code
			st.class = "succeeded"
		}
	default: // 1 idle, 5 held
		st.class = "queued"
	}
	return st
}

func (condor) queue(ctx context.Context, t *Target) (map[string]status, map[string]string, error) {
	out, err := t.run(ctx, "condor_q", "-json", "-constraint", "GmarkName =!= undefined", "-attributes", condorAttrs)
	if err != nil {
		return nil, nil, err
	}
	ads, err := parseCondorAds(out)
	if err != nil {
		return nil, nil, err
	}
	q, names := map[string]status{}, map[string]string{}
	for _, ad := range ads {
		q[ad.id()] = ad.status()
		names[ad.id()] = ad.GmarkName
	}
	return q, names, nil
}

func (condor) history(ctx context.Context, t *Target, id string) (status, bool, error) {
	out, err := t.run(ctx, "condor_history", "-json", "-limit", "1", "-attributes", condorAttrs, id)
	if err != nil {
		return status{}, false, err
	}
	ads, err := parseCondorAds(out)
	if err != nil || len(ads) == 0 {
		return status{}, false, err
	}
	return ads[0].status(), true, nil
}

func (condor) historyByName(ctx context.Context, t *Target, jobName string) (string, bool, error) {
	out, err := t.run(ctx, "condor_history", "-json", "-limit", "1", "-attributes", condorAttrs,
		"-constraint", fmt.Sprintf("GmarkName == %q", jobName))
	if err != nil {
		return "", false, err
	}
	ads, err := parseCondorAds(out)
	if err != nil || len(ads) == 0 {
		return "", false, err
	}
	return ads[0].id(), true, nil
}

func (condor) cancel(ctx context.Context, t *Target, id string) error {
	_, err := t.run(ctx, "condor_rm", id)
	return err
}
