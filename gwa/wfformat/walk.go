package wfformat

import (
	"math"
	"strconv"
	"strings"
)

func itoa(i int) string { return strconv.Itoa(i) }

// top reads the instance object.
func (d *decoder) top() error {
	_, ok, err := d.object("", func(k, p string) error {
		var err error
		switch k {
		case "name":
			d.inst.Name, _, err = d.str(p)
		case "description":
			d.inst.Description, _, err = d.str(p)
		case "createdAt":
			d.inst.CreatedAt, _, err = d.str(p)
		case "schemaVersion":
			var off int64
			d.inst.SchemaVersion, off, err = d.str(p)
			d.version = d.posAt(off)
		case "workflow":
			return d.workflow(p)
		default:
			return d.skip(p)
		}
		return err
	})
	if err == nil && !ok {
		return d.errPos(pos{1, 1}, "null: a WfFormat instance is a JSON object")
	}
	return err
}

// workflow reads the workflow object, in either layout.
func (d *decoder) workflow(path string) error {
	_, _, err := d.object(path, func(k, p string) error {
		switch k {
		case "specification":
			if err := d.setLayout("1.5", p); err != nil {
				return err
			}
			return d.specification(p)
		case "execution":
			if err := d.setLayout("1.5", p); err != nil {
				return err
			}
			return d.execution(p)
		case "tasks", "jobs":
			if err := d.setLayout("1.4", p); err != nil {
				return err
			}
			_, err := d.array(p, func(p string) error { return d.task14(p) })
			return err
		case "makespanInSeconds", "executedAt", "machines":
			if err := d.setLayout("1.4", p); err != nil {
				return err
			}
			return d.executionValue(k, p)
		}
		return d.skip(p)
	})
	return err
}

// setLayout notes which layout the workflow's keys show; keys of both in
// one workflow are an error.
func (d *decoder) setLayout(l, key string) error {
	if d.layout == "" {
		d.layout, d.layoutK = l, key
		return nil
	}
	if d.layout != l {
		return d.errAt(d.pr.base, "%s is a key of WfFormat %s's layout, but %s is one of %s's: an instance has one layout", key, l, d.layoutK, d.layout)
	}
	return nil
}

// specification reads 1.5's workflow.specification.
func (d *decoder) specification(path string) error {
	_, _, err := d.object(path, func(k, p string) error {
		switch k {
		case "tasks":
			_, err := d.array(p, func(p string) error { return d.specTask(p) })
			return err
		case "files":
			_, err := d.array(p, func(p string) error { return d.file(p) })
			return err
		}
		return d.skip(p)
	})
	return err
}

// execution reads 1.5's workflow.execution.
func (d *decoder) execution(path string) error {
	d.inst.Execution = true
	_, _, err := d.object(path, func(k, p string) error {
		switch k {
		case "tasks":
			_, err := d.array(p, func(p string) error { return d.execTask(p) })
			return err
		}
		return d.executionValue(k, p)
	})
	return err
}

// executionValue reads a workflow-level execution value: the makespan,
// the start, the machines (1.5's execution, or 1.4's workflow).
func (d *decoder) executionValue(k, p string) error {
	var err error
	var off int64
	switch k {
	case "makespanInSeconds":
		d.inst.Execution = true
		d.inst.Makespan, _, err = d.num(p, 0, MaxRuntime)
	case "executedAt":
		d.inst.Execution = true
		d.inst.ExecutedAt, off, err = d.str(p)
		if err == nil && d.inst.ExecutedAt != "" {
			d.inst.Start, err = d.parseTime(off, p, d.inst.ExecutedAt)
		}
	case "machines":
		_, err = d.array(p, func(p string) error { return d.machine(p) })
	default:
		err = d.skip(p)
	}
	return err
}

// specTask reads a task of 1.5's specification.
func (d *decoder) specTask(path string) error {
	t := specTask{Task: NewTask("")}
	at, ok, err := d.object(path, func(k, p string) error {
		var err error
		var off int64
		switch k {
		case "id":
			t.ID, off, err = d.str(p)
			t.idAt = d.posAt(off)
		case "name":
			t.Name, _, err = d.str(p)
		case "parents":
			t.Parents, t.parentsAt, err = d.strs(p)
		case "children":
			t.Children, t.childrenAt, err = d.strs(p)
		case "inputFiles":
			t.Inputs, _, err = d.strs(p)
		case "outputFiles":
			t.Outputs, _, err = d.strs(p)
		default:
			err = d.skip(p)
		}
		return err
	})
	if err != nil {
		return err
	}
	t.at = at
	return d.addSpec(ok, t, path)
}

// addSpec keeps a task of the specification (or of 1.4's list).
func (d *decoder) addSpec(ok bool, t specTask, path string) error {
	if !ok {
		return d.errPos(t.at, "%s: null is no task", path)
	}
	if t.ID == "" {
		return d.errPos(t.at, "%s: a task without an id (the id its parents and children name; 1.4: without a name)", path)
	}
	if len(d.spec) >= MaxTasks {
		return d.errPos(t.idAt, "more than %d tasks: gmark reads no larger instance", MaxTasks)
	}
	t.Line, t.Col = t.at.line, t.at.col
	d.spec = append(d.spec, t)
	return nil
}

// execTask reads a task of 1.5's execution.
func (d *decoder) execTask(path string) error {
	t := execTask{Task: NewTask("")}
	var startOff int64
	at, ok, err := d.object(path, func(k, p string) error {
		var err error
		switch k {
		case "id":
			t.ID, _, err = d.str(p)
		case "runtimeInSeconds":
			t.Runtime, _, err = d.num(p, -MaxRuntime, MaxRuntime)
		case "executedAt":
			t.ExecutedAt, startOff, err = d.str(p)
			if err == nil && t.ExecutedAt != "" {
				t.Start, err = d.parseTime(startOff, p, t.ExecutedAt)
			}
		case "coreCount":
			t.Cores, _, err = d.num(p, 0, MaxCores)
		case "memoryInBytes":
			t.Memory, _, err = d.num(p, 0, MaxMemory)
		case "machines":
			t.Machines, _, err = d.strs(p)
		default:
			err = d.skip(p)
		}
		return err
	})
	if err != nil {
		return err
	}
	t.at = at
	if !ok || t.ID == "" {
		return d.errPos(at, "%s: an execution task without an id (the id of its task in the specification)", path)
	}
	d.exec = append(d.exec, t)
	return nil
}

// task14 reads a task of 1.4's list: its specification and execution in
// one object, its files inline.
func (d *decoder) task14(path string) error {
	t := specTask{Task: NewTask("")}
	var id string
	at, ok, err := d.object(path, func(k, p string) error {
		var err error
		var off int64
		switch k {
		case "name":
			t.Name, off, err = d.str(p)
			if t.idAt == (pos{}) {
				t.idAt = d.posAt(off)
			}
		case "id":
			id, off, err = d.str(p)
			t.idAt = d.posAt(off)
		case "category":
			t.Category, _, err = d.str(p)
		case "type":
			t.Type, _, err = d.str(p)
		case "parents":
			t.Parents, t.parentsAt, err = d.strs(p)
		case "children":
			t.Children, t.childrenAt, err = d.strs(p)
		case "files":
			_, err = d.array(p, func(p string) error { return d.inlineFile(p, &t) })
		case "runtimeInSeconds":
			t.Runtime, _, err = d.num(p, -MaxRuntime, MaxRuntime)
		case "cores":
			t.Cores, _, err = d.num(p, 0, MaxCores)
		case "memoryInBytes":
			t.Memory, _, err = d.num(p, 0, MaxMemory)
		case "machine":
			var m string
			m, _, err = d.str(p)
			if m != "" {
				t.Machines = []string{m}
			}
		default:
			err = d.skip(p)
		}
		return err
	})
	if err != nil {
		return err
	}
	// The id 1.5 gives the task (WfCommons' migration): the name when it
	// holds the id, else name_id; a task without an id is name_index.
	switch {
	case t.Name == "":
	case id == "":
		t.ID = t.Name + "_" + itoa(len(d.spec))
	case strings.Contains(t.Name, id):
		t.ID = t.Name
	default:
		t.ID = t.Name + "_" + id
	}
	t.at, t.id14 = at, id
	return d.addSpec(ok, t, path)
}

// inlineFile reads a file of a 1.4 task: name, sizeInBytes, link, and an
// optional path that prefixes the name.
func (d *decoder) inlineFile(path string, t *specTask) error {
	var f inlineFile
	var name, dir, link string
	var size float64 = math.NaN()
	var sizeOff int64
	at, _, err := d.object(path, func(k, p string) error {
		var err error
		var off int64
		switch k {
		case "name":
			name, off, err = d.str(p)
			f.at = d.posAt(off)
		case "path":
			dir, _, err = d.str(p)
		case "link":
			link, off, err = d.str(p)
			if err == nil && link != "input" && link != "output" {
				err = d.errAt(off, "%s %q: input or output", p, truncate(link))
			}
		case "sizeInBytes", "size":
			size, sizeOff, err = d.num(p, 0, MaxFileSize)
			if err == nil && size != math.Trunc(size) {
				err = d.errAt(sizeOff, "%s %s is not a whole number of bytes", p, fmtNum(size))
			}
		default:
			err = d.skip(p)
		}
		return err
	})
	if err != nil {
		return err
	}
	if name == "" {
		return d.errPos(at, "%s: a file without a name", path)
	}
	f.id, f.output, f.size = dir+name, link == "output", -1
	if !math.IsNaN(size) {
		f.size = int64(size)
	}
	t.inline = append(t.inline, f)
	return nil
}

// file reads a file of 1.5's specification.
func (d *decoder) file(path string) error {
	var id string
	size := math.NaN()
	at, _, err := d.object(path, func(k, p string) error {
		var err error
		var off int64
		switch k {
		case "id", "name":
			id, _, err = d.str(p)
		case "sizeInBytes":
			size, off, err = d.num(p, 0, MaxFileSize)
			if err == nil && size != math.Trunc(size) {
				err = d.errAt(off, "%s %s is not a whole number of bytes", p, fmtNum(size))
			}
		default:
			err = d.skip(p)
		}
		return err
	})
	if err != nil {
		return err
	}
	if id == "" {
		return d.errPos(at, "%s: a file without an id", path)
	}
	sz := int64(-1)
	if !math.IsNaN(size) {
		sz = int64(size)
	}
	return d.addFile(id, sz, at)
}

// addFile records a file's size; one file of two sizes is an error.
func (d *decoder) addFile(id string, size int64, at pos) error {
	if d.fileAt == nil {
		d.fileAt = map[string]pos{}
	}
	if old, ok := d.inst.Files[id]; ok {
		if old != size && old >= 0 && size >= 0 {
			first := d.fileAt[id]
			return d.errPos(at, "file %s is %d bytes here and %d bytes at line %d", truncate(id), size, old, first.line)
		}
		if old >= 0 {
			return nil
		}
	}
	d.inst.Files[id] = size
	if _, ok := d.fileAt[id]; !ok {
		d.fileAt[id] = at
	}
	return nil
}

// machine reads a machine: its node name (the rest is listed in Keys).
func (d *decoder) machine(path string) error {
	var m Machine
	_, _, err := d.object(path, func(k, p string) error {
		if k == "nodeName" {
			var err error
			m.NodeName, _, err = d.str(p)
			return err
		}
		return d.skip(p)
	})
	if err == nil && m.NodeName != "" {
		d.inst.Machines = append(d.inst.Machines, m)
	}
	return err
}
