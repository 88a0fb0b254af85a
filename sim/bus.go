package sim

import "fmt"

// MsgType is a class of message between simulated entities: the five of
// the thesis's Sec. 8.4 plus KeepAlive. The network is perfect (zero
// latency, the thesis's assumption 1): a message is delivered as it is
// sent, so the bus counts messages and delivers nothing itself.
type MsgType int

const (
	NotifyBroker      MsgType = iota // a job or resource advertises itself to a broker (job submission, resource state, monitoring reports)
	Negotiate                        // a broker negotiates with a job manager (per matchmaking cycle), or a site pulls a job
	JobDataExchange                  // the job's description in, its results out
	MatchClaimRelease                // a resource matched, claimed, released
	DMM                              // delegation, rejection, resources granted back and released along a delegation chain
	KeepAlive                        // lease renewal while a job runs on a claimed resource
	NumMsgTypes
)

var msgNames = [NumMsgTypes]string{"NotifyBroker", "Negotiate", "JobDataExchange", "MatchClaimRelease", "DMM", "KeepAlive"}

func (m MsgType) String() string {
	if m < 0 || m >= NumMsgTypes {
		return fmt.Sprintf("MsgType(%d)", int(m))
	}
	return msgNames[m]
}

// MsgTypeNames lists the message types in order.
func MsgTypeNames() []string { return msgNames[:] }

// Bus counts every message by type.
type Bus struct {
	counts [NumMsgTypes]int64
}

// Send counts n messages of a type.
func (b *Bus) Send(t MsgType, n int64) { b.counts[t] += n }

// Count is the number of messages of a type sent so far.
func (b *Bus) Count(t MsgType) int64 { return b.counts[t] }

// Messages are the counts of a run, by type.
type Messages [NumMsgTypes]int64

// WorkloadManagement is the thesis's "workload management messages":
// NotifyBroker + Negotiate + Job Data Exchange + Match-Claim-Release.
func (m *Messages) WorkloadManagement() int64 {
	return m[NotifyBroker] + m[Negotiate] + m[JobDataExchange] + m[MatchClaimRelease]
}

// Total is every message.
func (m *Messages) Total() int64 {
	var n int64
	for _, c := range m {
		n += c
	}
	return n
}

// ByName is the counts keyed by type name (for JSON and reports).
func (m *Messages) ByName() map[string]int64 {
	out := make(map[string]int64, NumMsgTypes)
	for i, c := range m {
		out[msgNames[i]] = c
	}
	return out
}
