package submitter

import "github.com/gmark/gmark/analyzer/store"

// RecordedTarget is the target configuration (JSON) that the run resume
// recorded in st, so that a resumed run's target is made the same way
// again; nil for a new run (resume ""), when a targets file is given
// (targetsGiven: it says otherwise), or when the run recorded none.
func RecordedTarget(st *store.Store, resume string, targetsGiven bool) []byte {
	if resume == "" || targetsGiven {
		return nil
	}
	if ps, err := st.Provenance(resume); err == nil && len(ps) > 0 {
		return []byte(ps[len(ps)-1].TargetConfig)
	}
	return nil
}
