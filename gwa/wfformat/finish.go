package wfformat

import (
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/gmark/gmark/dag"
)

// timeLayouts are the forms of executedAt gmark reads: ISO 8601 with or
// without a zone (UTC then), with a 'T' or a space, ISO 8601's basic form
// (Pegasus's instances: "20200401T054215+0000") and the month-day-year
// form some WfInstances hold ("05-10-23T16:23:32Z"). A fraction of a
// second is read after the seconds whatever the layout.
var timeLayouts = []string{
	"2006-01-02T15:04:05Z07:00", "2006-01-02T15:04:05Z0700", "2006-01-02T15:04:05",
	"2006-01-02 15:04:05Z07:00", "2006-01-02 15:04:05Z0700", "2006-01-02 15:04:05",
	"20060102T150405Z0700", "20060102T150405Z07:00", "20060102T150405",
	"01-02-06T15:04:05Z07:00", "01-02-06T15:04:05", "2006-01-02",
}

// ParseTime reads a timestamp in one of the forms gmark reads.
func ParseTime(s string) (time.Time, bool) {
	for _, l := range timeLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

func (d *decoder) parseTime(off int64, path, s string) (time.Time, error) {
	t, ok := ParseTime(s)
	if !ok {
		return t, d.errAt(off, "%s %q is not a time gmark reads (ISO 8601, such as 2020-04-01T15:10:53-08:00 or 2020-04-01T15:10:53.5)", path, truncate(s))
	}
	if y := t.Year(); y < 1970 || y > 2105 {
		return t, d.errAt(off, "%s %q is out of range (1970 to 2105)", path, truncate(s))
	}
	return t, nil
}

// supported tells whether a schema version is one gmark reads, in the
// layout the workflow's keys show.
func (d *decoder) checkVersion() error {
	v := d.inst.SchemaVersion
	at := d.version
	if at == (pos{}) {
		at = pos{1, 1}
	}
	if v == "" {
		return d.errPos(at, "no schemaVersion: WfFormat instances name their version (gmark reads 1.4 and later)")
	}
	major, minor, ok := strings.Cut(v, ".")
	n, err := strconv.Atoi(minor)
	if !ok || major != "1" || err != nil {
		return d.errPos(at, "schemaVersion %q: gmark reads WfFormat 1.4 and later (1.x)", truncate(v))
	}
	switch {
	case n < 4:
		return d.errPos(at, "schemaVersion %s: gmark reads WfFormat 1.4 and later (WfCommons' migration tool updates older instances)", v)
	case d.layout == "":
		return d.errPos(pos{1, 1}, "no workflow tasks: workflow.specification.tasks (1.5) or workflow.tasks (1.4)")
	case n == 4 && d.layout != "1.4":
		return d.errPos(at, "schemaVersion 1.4, but the workflow has %s, a key of 1.5's layout", d.layoutK)
	case n >= 5 && d.layout != "1.5":
		return d.errPos(at, "schemaVersion %s, but the workflow has %s, a key of 1.4's layout", v, d.layoutK)
	}
	return nil
}

// finish puts the instance together once it is read: the version, the
// tasks joined across specification and execution, their files, and the
// graph checked.
func (d *decoder) finish() error {
	if err := d.checkVersion(); err != nil {
		return err
	}
	if d.inst.Name == "" {
		return d.errPos(pos{1, 1}, "no name: an instance names its workflow")
	}
	index := make(map[string]int, len(d.spec))
	for i := range d.spec {
		t := &d.spec[i]
		if first, dup := index[t.ID]; dup {
			return d.errPos(t.idAt, "task id %s is already the task at line %d", truncate(t.ID), d.spec[first].at.line)
		}
		index[t.ID] = i
		if t.Name == "" {
			t.Name = t.ID
		}
	}
	if err := d.join(index); err != nil {
		return err
	}
	preds, err := d.graph(index)
	if err != nil {
		return err
	}
	d.inst.Tasks = make([]Task, len(d.spec))
	for i := range d.spec {
		t := &d.spec[i]
		t.Parents = t.Parents[:0]
		for _, p := range preds[i] {
			t.Parents = append(t.Parents, d.spec[p].ID)
		}
		t.Children = nil
		d.inst.Tasks[i] = t.Task
	}
	return nil
}

// join adds the execution's values to the tasks of the specification, and
// 1.4's inline files to the instance's.
func (d *decoder) join(index map[string]int) error {
	seen := make(map[string]pos, len(d.exec))
	for i := range d.exec {
		e := &d.exec[i]
		k, ok := index[e.ID]
		if !ok {
			return d.errPos(e.at, "execution task %s is no task of the specification", truncate(e.ID))
		}
		if first, dup := seen[e.ID]; dup {
			return d.errPos(e.at, "execution task %s is already given at line %d", truncate(e.ID), first.line)
		}
		seen[e.ID] = e.at
		t := &d.spec[k].Task
		t.Runtime, t.Cores, t.Memory, t.Machines = e.Runtime, e.Cores, e.Memory, e.Machines
		t.ExecutedAt, t.Start = e.ExecutedAt, e.Start
	}
	for i := range d.spec {
		t := &d.spec[i]
		for _, f := range t.inline {
			if err := d.addFile(f.id, f.size, f.at); err != nil {
				return err
			}
			if f.output {
				t.Outputs = append(t.Outputs, f.id)
			} else {
				t.Inputs = append(t.Inputs, f.id)
			}
		}
		t.inline = nil
	}
	return nil
}

// graph resolves parents and children to tasks and checks the graph: a
// task's predecessors are its parents and the tasks that list it as a
// child, each once. 1.4's parents may name a task by its name or its id.
func (d *decoder) graph(index map[string]int) ([][]int32, error) {
	alias := map[string]int{}
	for i := range d.spec {
		t := &d.spec[i]
		for _, a := range []string{t.Name, t.id14} {
			if _, ok := index[a]; !ok && a != "" {
				if _, taken := alias[a]; !taken {
					alias[a] = i
				}
			}
		}
	}
	find := func(id string) (int, bool) {
		if k, ok := index[id]; ok {
			return k, true
		}
		k, ok := alias[id]
		return k, ok
	}
	preds := make([][]int32, len(d.spec))
	has := make([]map[int32]bool, len(d.spec))
	add := func(to, from int) {
		if has[to] == nil {
			has[to] = map[int32]bool{}
		}
		if !has[to][int32(from)] {
			has[to][int32(from)] = true
			preds[to] = append(preds[to], int32(from))
		}
	}
	for i := range d.spec {
		t := &d.spec[i]
		for _, p := range t.Parents {
			k, ok := find(p)
			switch {
			case !ok:
				return nil, d.errPos(t.parentsAt, "task %s: parent %s is no task of the instance", truncate(t.ID), truncate(p))
			case k == i:
				return nil, d.errPos(t.parentsAt, "task %s depends on itself", truncate(t.ID))
			}
			add(i, k)
		}
	}
	for i := range d.spec {
		t := &d.spec[i]
		for _, c := range t.Children {
			k, ok := find(c)
			switch {
			case !ok:
				return nil, d.errPos(t.childrenAt, "task %s: child %s is no task of the instance", truncate(t.ID), truncate(c))
			case k == i:
				return nil, d.errPos(t.childrenAt, "task %s depends on itself", truncate(t.ID))
			}
			if !has[k][int32(i)] {
				d.inst.ChildOnly++
			}
			add(k, i)
		}
	}
	if _, err := dag.Order(preds); err != nil {
		var ce *dag.CycleError
		if errors.As(err, &ce) {
			first := ce.Cycle[0]
			return nil, d.errPos(d.spec[first].at, "the workflow has a dependency cycle: %s", ce.Names(func(k int32) string { return truncate(d.spec[k].ID) }))
		}
		return nil, err
	}
	return preds, nil
}
