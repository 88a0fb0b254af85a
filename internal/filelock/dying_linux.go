package filelock

import (
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// pfExiting is the kernel's PF_EXITING task flag: the task is in do_exit.
const pfExiting = 0x4

// dying tells whether process pid is gone or on its way out: exiting, a
// zombie (a killed process's leader is one while its other threads still
// exit, their files open), or with SIGKILL pending. Its locks are then
// about to be given up.
func dying(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return os.IsNotExist(err)
	}
	// pid (comm) state ppid pgrp session tty_nr tpgid flags ...; comm may
	// hold anything, so the fields are counted from its closing ')'.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 7 {
		return false
	}
	if f[0] == "Z" || f[0] == "X" || f[0] == "x" {
		return true
	}
	if flags, err := strconv.ParseUint(f[6], 10, 64); err == nil && flags&pfExiting != 0 {
		return true
	}
	return killPending(pid)
}

// killPending tells whether SIGKILL is pending for the process (its own or
// its thread group's pending signals).
func killPending(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return os.IsNotExist(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		name, v, ok := strings.Cut(line, ":")
		if !ok || name != "SigPnd" && name != "ShdPnd" {
			continue
		}
		if mask, err := strconv.ParseUint(strings.TrimSpace(v), 16, 64); err == nil && mask&(1<<(9-1)) != 0 {
			return true
		}
	}
	return false
}
