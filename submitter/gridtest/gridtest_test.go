package gridtest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The credentials are what GSI and ARC expect: openssl verifies both leaf
// certificates against the CA directory by hash, prints the one-line
// names the harnesses write into grid-mapfiles and authgroups, and the
// keys are readable by their owner only.
func TestCredentialsVerifyByHash(t *testing.T) {
	if _, err := exec.LookPath("openssl"); err != nil {
		t.Skip("openssl not installed")
	}
	c, err := New(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ cert, key, dn string }{
		{c.HostCert, c.HostKey, HostDN},
		{c.UserCert, c.UserKey, UserDN},
	} {
		out, err := exec.Command("openssl", "verify", "-CApath", c.CADir, tc.cert).CombinedOutput()
		if err != nil || !strings.HasSuffix(strings.TrimSpace(string(out)), ": OK") {
			t.Errorf("openssl verify %s: %v\n%s", tc.cert, err, out)
		}
		out, err = exec.Command("openssl", "x509", "-noout", "-subject", "-nameopt", "compat", "-in", tc.cert).Output()
		if err != nil {
			t.Fatal(err)
		}
		// openssl escapes a "/" inside a value; GSI's one-line form does not.
		got := strings.ReplaceAll(strings.TrimSpace(strings.TrimPrefix(string(out), "subject=")), `\/`, "/")
		if got != tc.dn {
			t.Errorf("%s names %q, want %q", tc.cert, got, tc.dn)
		}
		st, err := os.Stat(tc.key)
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm() != 0o600 {
			t.Errorf("%s has mode %v, want 0600", tc.key, st.Mode().Perm())
		}
	}
	policies, _ := filepath.Glob(filepath.Join(c.CADir, "*.signing_policy"))
	links, _ := filepath.Glob(filepath.Join(c.CADir, "*.0"))
	if len(policies) != 2 || len(links) != 2 {
		t.Errorf("CA directory has %d certificates and %d policies, want 2 and 2 (both hashes)", len(links), len(policies))
	}
	for _, p := range policies {
		b, _ := os.ReadFile(p)
		if !strings.Contains(string(b), "'"+CADN+"'") || !strings.Contains(string(b), `'"/O=Grid/OU=gmark/*"'`) {
			t.Errorf("%s does not name the CA and its namespace:\n%s", p, b)
		}
	}
}

// KillLeftovers ends a process by its marker and one by its working
// directory, and leaves alone one that has neither.
func TestKillLeftovers(t *testing.T) {
	dir := t.TempDir()
	start := func(env []string, cwd string) *exec.Cmd {
		cmd := exec.Command("sleep", "60")
		cmd.Env, cmd.Dir = append(os.Environ(), env...), cwd
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		return cmd
	}
	marked := start([]string{MarkerVar + "=" + dir}, "")
	inside := start(nil, dir)
	other := start([]string{MarkerVar + "=" + dir + "-other"}, os.TempDir())
	killed := KillLeftovers(dir)
	for _, c := range []*exec.Cmd{marked, inside} {
		c.Wait()
		if ws, ok := c.ProcessState.Sys().(syscall.WaitStatus); !ok || ws.Signal() != syscall.SIGKILL {
			t.Errorf("pid %d was not killed (%v); killed %v", c.Process.Pid, c.ProcessState, killed)
		}
	}
	time.Sleep(50 * time.Millisecond)
	if err := other.Process.Signal(syscall.Signal(0)); err != nil {
		t.Errorf("pid %d of another harness was killed: %v", other.Process.Pid, err)
	}
}
