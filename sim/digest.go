package sim

import (
	"bytes"
	"encoding/json"
	"reflect"
	"time"

	"github.com/gmark/gmark/koala/grid"
)

// configV1 is the JSON layout of a Config in a run's digest
// (gmark-sim-run/1), frozen: the fields a Config had, in their order,
// when the settings were declared once in groups. It is filled from the
// Config by field name, so it declares no setting: a setting added since
// follows it in the JSON (MarshalJSON), and only when it differs from the
// architecture's default, so that the runs made before it existed keep
// their digests.
type configV1 struct {
	Arch                 string
	Seed                 uint64
	CoolDown             bool
	CoolDownLimit        time.Duration
	MatchPeriod          time.Duration
	DelegationPeriod     time.Duration
	AlignedCycles        bool
	InfoPeriod           time.Duration
	InfoDelay            time.Duration
	CentralReserve       bool
	Placement            string
	Distribution         string
	KeepAlivePeriod      time.Duration
	LeaseTerm            time.Duration
	SlowdownBound        time.Duration
	Threshold            float64
	DTTL                 int
	SeenMemory           time.Duration
	HalfLife             time.Duration
	LocalScheduler       string
	Selection            string
	Dispatch             string
	DelegationOrder      string
	TargetOrder          string
	DMMInformation       string `json:",omitempty"`
	DMMPassOn            bool   `json:",omitempty"`
	Outages              []Outage
	CentralModel         string        `json:",omitempty"`
	CoreGrid             *grid.Grid    `json:",omitempty"`
	CoreDeadlinePolicy   string        `json:",omitempty"`
	CoreDeadlineL        float64       `json:",omitempty"`
	CoreDeadlinePriority string        `json:",omitempty"`
	CoreLocalLoad        float64       `json:",omitempty"`
	CoreGPKill           string        `json:",omitempty"`
	CoreWaitXFirstTry    string        `json:",omitempty"`
	CoreLocalWarmup      time.Duration `json:",omitempty"`
	Horizon              time.Duration `json:",omitempty"`
	Failures             string        `json:",omitempty"`
	FailureScale         float64       `json:",omitempty"`
	Growth               string        `json:",omitempty"`
	GrowthPerYear        float64       `json:",omitempty"`
	GrowthSizePerYear    *float64      `json:",omitempty"`
	GrowthSpan           time.Duration `json:",omitempty"`
}

// The fields of configV1 by their index in Config, and the settings of
// Config's groups beyond them.
var v1Index, extraIndex = func() ([][]int, [][]int) {
	t, v1 := reflect.TypeOf(Config{}), reflect.TypeOf(configV1{})
	var old, extra [][]int
	for i := 0; i < v1.NumField(); i++ {
		f, ok := t.FieldByName(v1.Field(i).Name)
		if !ok {
			panic("sim: configV1." + v1.Field(i).Name + " is not a field of Config")
		}
		old = append(old, f.Index)
	}
	for _, gi := range groupIndex {
		g := t.Field(gi).Type
		for i := 0; i < g.NumField(); i++ {
			f := g.Field(i)
			if _, isOld := v1.FieldByName(f.Name); !isOld && f.IsExported() && f.Tag.Get("json") != "-" {
				extra = append(extra, []int{gi, i})
			}
		}
	}
	return old, extra
}()

// MarshalJSON writes the Config in the layout of its digest.
func (c Config) MarshalJSON() ([]byte, error) {
	var v1 configV1
	dst := reflect.ValueOf(&v1).Elem()
	src := reflect.ValueOf(&c).Elem()
	for i, idx := range v1Index {
		dst.Field(i).Set(src.FieldByIndex(idx))
	}
	b, err := json.Marshal(v1)
	if err != nil || len(extraIndex) == 0 {
		return b, err
	}
	extra, err := c.extraJSON()
	if err != nil || len(extra) == 0 {
		return b, err
	}
	return append(append(b[:len(b)-1], extra...), '}'), nil
}

// extraJSON is the settings a Config has beyond configV1's, each as
// `,"Name":value`, those at the architecture's default left out.
func (c *Config) extraJSON() ([]byte, error) {
	def := DefaultConfig(c.Arch)
	v, d := reflect.ValueOf(c).Elem(), reflect.ValueOf(&def).Elem()
	var buf bytes.Buffer
	for _, idx := range extraIndex {
		f := v.FieldByIndex(idx)
		if reflect.DeepEqual(f.Interface(), d.FieldByIndex(idx).Interface()) {
			continue
		}
		b, err := json.Marshal(f.Interface())
		if err != nil {
			return nil, err
		}
		name, _ := json.Marshal(v.Type().FieldByIndex(idx).Name)
		buf.WriteByte(',')
		buf.Write(name)
		buf.WriteByte(':')
		buf.Write(b)
	}
	return buf.Bytes(), nil
}
