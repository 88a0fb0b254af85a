// Package gridtest makes what loopback grid middleware needs in tests and
// nothing else: a certificate authority of its own, a host certificate for
// localhost and a user certificate, laid out as GSI (Globus) and ARC read
// them, and a way to end what the middleware left running.
//
// The trusted-CA directory has the CA certificate under both of OpenSSL's
// subject hashes (<hash>.0) with a Globus signing policy beside each
// (<hash>.signing_policy), which GSI and ARC's TLS layer both insist on.
// The host certificate names "host/localhost" with localhost as its DNS
// name, so that GSI (which checks the name against the contact) and Go's
// TLS client (which checks only the DNS names) both accept it. Keys are
// RSA, 2048 bits, mode 0600: GSI refuses a key others can read.
//
// arctest (an ARC CE) and gramtest (a GRAM5 gatekeeper) take one
// Credentials, so several CEs of one test grid trust one CA and map one
// user, as the CEs of one real grid do.
package gridtest

import (
	"bytes"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// Names of the test CA, the host and the user, as their distinguished
// names read in OpenSSL's one-line form (the form grid-mapfiles, ARC's
// authgroups and Globus signing policies use).
const (
	CADN   = "/O=Grid/OU=gmark/CN=gmark test CA"
	HostDN = "/O=Grid/OU=gmark/CN=host/localhost"
	UserDN = "/O=Grid/OU=gmark/CN=gmark tester"
)

// Credentials are the files of one test CA and the host and user it
// certified, all under Dir.
type Credentials struct {
	Dir      string
	CADir    string // the trusted-CA directory: X509_CERT_DIR
	CACert   string // the CA certificate (also under its hashes in CADir)
	HostCert string // X509_USER_CERT of a service
	HostKey  string // X509_USER_KEY of a service
	UserCert string // the user's certificate, from which proxies are made
	UserKey  string
}

// ServiceEnv is the environment a service reads its own credential from.
func (c *Credentials) ServiceEnv() []string {
	return []string{"X509_USER_CERT=" + c.HostCert, "X509_USER_KEY=" + c.HostKey, "X509_CERT_DIR=" + c.CADir}
}

// UserEnv is the environment a client reads the user's credential from,
// with proxy as the proxy certificate it makes or uses.
func (c *Credentials) UserEnv(proxy string) []string {
	return []string{"X509_USER_CERT=" + c.UserCert, "X509_USER_KEY=" + c.UserKey, "X509_CERT_DIR=" + c.CADir,
		"X509_USER_PROXY=" + proxy}
}

// New makes a CA, a host and a user credential under dir (created if
// missing). The certificates are valid from an hour ago for a week.
func New(dir string) (*Credentials, error) {
	c := &Credentials{Dir: dir, CADir: filepath.Join(dir, "certificates")}
	if err := os.MkdirAll(c.CADir, 0o755); err != nil {
		return nil, err
	}
	caKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, err
	}
	now := time.Now()
	ca := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               dn(CADN),
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(7 * 24 * time.Hour),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, ca, ca, &caKey.PublicKey, caKey)
	if err != nil {
		return nil, err
	}
	if ca, err = x509.ParseCertificate(caDER); err != nil {
		return nil, err
	}
	c.CACert = filepath.Join(dir, "ca.pem")
	if err := writePEM(c.CACert, "CERTIFICATE", caDER, 0o644); err != nil {
		return nil, err
	}
	if err := c.installCA(); err != nil {
		return nil, err
	}
	leaf := func(serial int64, name string, usage []x509.ExtKeyUsage, dns []string, cert, key string) error {
		k, err := rsa.GenerateKey(rand.Reader, 2048)
		if err != nil {
			return err
		}
		tmpl := &x509.Certificate{
			SerialNumber: big.NewInt(serial),
			Subject:      dn(name),
			NotBefore:    now.Add(-time.Hour),
			NotAfter:     now.Add(7 * 24 * time.Hour),
			KeyUsage:     x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment | x509.KeyUsageDataEncipherment,
			ExtKeyUsage:  usage,
			DNSNames:     dns,
		}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &k.PublicKey, caKey)
		if err != nil {
			return err
		}
		if err := writePEM(cert, "CERTIFICATE", der, 0o644); err != nil {
			return err
		}
		return writePEM(key, "RSA PRIVATE KEY", x509.MarshalPKCS1PrivateKey(k), 0o600)
	}
	c.HostCert, c.HostKey = filepath.Join(dir, "hostcert.pem"), filepath.Join(dir, "hostkey.pem")
	if err := leaf(2, HostDN, []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
		[]string{"localhost"}, c.HostCert, c.HostKey); err != nil {
		return nil, err
	}
	c.UserCert, c.UserKey = filepath.Join(dir, "usercert.pem"), filepath.Join(dir, "userkey.pem")
	if err := leaf(3, UserDN, []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}, nil, c.UserCert, c.UserKey); err != nil {
		return nil, err
	}
	return c, nil
}

// installCA links the CA certificate into the trusted-CA directory under
// its subject hashes, with a signing policy beside each. OpenSSL's hashes
// (SHA-1 of the canonical name since 1.0, MD5 of the DER name before) are
// taken from openssl itself rather than recomputed.
func (c *Credentials) installCA() error {
	policy := fmt.Sprintf("# The gmark test CA signs its own subjects only.\n"+
		"access_id_CA   X509    '%s'\npos_rights     globus  CA:sign\ncond_subjects  globus  '\"%s/*\"'\n",
		CADN, CADN[:strings.LastIndex(CADN, "/")])
	for _, opt := range []string{"-subject_hash", "-subject_hash_old"} {
		out, err := exec.Command("openssl", "x509", "-noout", opt, "-in", c.CACert).Output()
		if err != nil {
			return fmt.Errorf("openssl x509 %s: %v", opt, err)
		}
		hash := strings.TrimSpace(string(out))
		if len(hash) != 8 {
			return fmt.Errorf("openssl x509 %s: unexpected hash %q", opt, hash)
		}
		if err := copyFile(c.CACert, filepath.Join(c.CADir, hash+".0")); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(c.CADir, hash+".signing_policy"), []byte(policy), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// dn turns a one-line distinguished name into the name Go encodes, with
// its attributes in the same order: grid-mapfiles, ARC's authgroups and
// signing policies compare the one-line form as a string. A "/" that does
// not start an attribute stays in the value ("CN=host/localhost").
func dn(s string) pkix.Name {
	oid := map[string][]int{"C": {2, 5, 4, 6}, "O": {2, 5, 4, 10}, "OU": {2, 5, 4, 11}, "CN": {2, 5, 4, 3}}
	var parts []string
	for _, p := range strings.Split(strings.TrimPrefix(s, "/"), "/") {
		if k, _, ok := strings.Cut(p, "="); ok && oid[k] != nil {
			parts = append(parts, p)
		} else {
			parts[len(parts)-1] += "/" + p
		}
	}
	// Attributes in ExtraNames are written as given, in order, and take
	// the place of the fields of the same kind.
	var name pkix.Name
	for _, p := range parts {
		k, v, _ := strings.Cut(p, "=")
		name.ExtraNames = append(name.ExtraNames, pkix.AttributeTypeAndValue{Type: oid[k], Value: v})
	}
	return name
}

func writePEM(path, kind string, der []byte, mode os.FileMode) error {
	return os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: kind, Bytes: der}), mode)
}

func copyFile(from, to string) error {
	b, err := os.ReadFile(from)
	if err != nil {
		return err
	}
	return os.WriteFile(to, b, 0o644)
}

// MarkerVar is set, to a harness's directory, in the environment of every
// daemon a harness starts; the middleware passes it on to what it starts
// (job managers, job scripts), so that KillLeftovers finds them.
const MarkerVar = "GMARK_GRIDTEST"

// KillLeftovers kills (SIGKILL, by pid) every process that a harness
// rooted at dir left behind: those whose environment carries MarkerVar=dir
// and those whose working directory is under dir (the middleware starts
// jobs in session directories under it, and not every job keeps the
// environment). It skips the calling process and returns the pids it
// killed. Daemons that detach themselves (GRAM's job managers) and jobs a
// cancel missed (ARC's fork back end kills a job's shell but not its
// children) are found this way.
func KillLeftovers(dir string) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	self := os.Getpid()
	marker := []byte(MarkerVar + "=" + dir + "\x00")
	var killed []int
	for _, ent := range entries {
		pid, err := strconv.Atoi(ent.Name())
		if err != nil || pid == self {
			continue
		}
		hit := false
		if env, err := os.ReadFile("/proc/" + ent.Name() + "/environ"); err == nil && bytes.Contains(env, marker) {
			hit = true
		}
		if cwd, err := os.Readlink("/proc/" + ent.Name() + "/cwd"); err == nil && under(cwd, dir) {
			hit = true
		}
		if hit && syscall.Kill(pid, syscall.SIGKILL) == nil {
			killed = append(killed, pid)
		}
	}
	return killed
}

func under(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, "../")
}
