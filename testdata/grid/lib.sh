# Shared by arc-loopback.sh and gram-loopback.sh (sourced, not run): a
# test CA with host and user credentials made with openssl, a free
# loopback port, and the cleanup that stops every process by pid.
# docs/grid.md explains each step.

# The names the CA certifies, in the one-line form grid-mapfiles, ARC's
# authgroups and Globus signing policies use.
CA_DN="/O=Grid/OU=gmark/CN=gmark test CA"
HOST_DN="/O=Grid/OU=gmark/CN=host/localhost"
USER_DN="/O=Grid/OU=gmark/CN=gmark tester"

die() { echo "$(basename "$0"): $*" >&2; exit 1; }

need_root() { [ "$(id -u)" = 0 ] || die "run as root: the middleware maps the test user to another account"; }

need() {
  for f in "$@"; do
    command -v "$f" >/dev/null 2>&1 || [ -e "$f" ] || die "$f not found (docs/grid.md lists the packages)"
  done
}

# make_creds DIR: DIR/certificates (the trusted-CA directory, with the CA
# under both OpenSSL subject hashes and a signing policy beside each),
# DIR/hostcert.pem, hostkey.pem (host/localhost, DNS name localhost),
# usercert.pem, userkey.pem. Keys are mode 0600: GSI refuses others.
make_creds() {
  local d=$1 h
  mkdir -p "$d/certificates"
  ( umask 077
    openssl req -x509 -newkey rsa:2048 -nodes -keyout "$d/cakey.pem" -out "$d/ca.pem" -days 7 \
      -subj "$CA_DN" -addext "basicConstraints=critical,CA:TRUE" \
      -addext "keyUsage=critical,keyCertSign,cRLSign,digitalSignature" 2>/dev/null
    # openssl's -subj needs the "/" inside host/localhost escaped.
    openssl req -newkey rsa:2048 -nodes -keyout "$d/hostkey.pem" -out "$d/host.csr" \
      -subj "/O=Grid/OU=gmark/CN=host\/localhost" 2>/dev/null
    openssl req -newkey rsa:2048 -nodes -keyout "$d/userkey.pem" -out "$d/user.csr" -subj "$USER_DN" 2>/dev/null
  ) || die "openssl req failed"
  printf 'subjectAltName=DNS:localhost\nkeyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=serverAuth,clientAuth\n' >"$d/host.ext"
  printf 'keyUsage=digitalSignature,keyEncipherment\nextendedKeyUsage=clientAuth\n' >"$d/user.ext"
  openssl x509 -req -in "$d/host.csr" -CA "$d/ca.pem" -CAkey "$d/cakey.pem" -set_serial 2 -days 7 \
    -extfile "$d/host.ext" -out "$d/hostcert.pem" 2>/dev/null || die "openssl x509 (host) failed"
  openssl x509 -req -in "$d/user.csr" -CA "$d/ca.pem" -CAkey "$d/cakey.pem" -set_serial 3 -days 7 \
    -extfile "$d/user.ext" -out "$d/usercert.pem" 2>/dev/null || die "openssl x509 (user) failed"
  chmod 644 "$d/ca.pem" "$d/hostcert.pem" "$d/usercert.pem"
  for opt in -subject_hash -subject_hash_old; do
    h=$(openssl x509 -noout $opt -in "$d/ca.pem")
    cp "$d/ca.pem" "$d/certificates/$h.0"
    printf "access_id_CA   X509    '%s'\npos_rights     globus  CA:sign\ncond_subjects  globus  '\"/O=Grid/OU=gmark/*\"'\n" \
      "$CA_DN" >"$d/certificates/$h.signing_policy"
  done
}

# free_port: a TCP port nothing listens on at 127.0.0.1.
free_port() {
  local p
  for _ in $(seq 1 100); do
    p=$((20000 + RANDOM % 20000))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
      echo "$p"
      return
    fi
  done
  die "no free port found"
}

# kill_under DIR MARKER: SIGKILL, by pid, every process whose working
# directory is under DIR or whose environment carries MARKER (the
# middleware starts jobs and detached job managers that outlive it).
kill_under() {
  local d=$1 marker=$2 p cwd
  for p in /proc/[0-9]*; do
    p=${p#/proc/}
    [ "$p" = $$ ] && continue
    cwd=$(readlink "/proc/$p/cwd" 2>/dev/null) || continue
    if [ "${cwd#"$d"}" != "$cwd" ] || { tr '\0' '\n' <"/proc/$p/environ"; } 2>/dev/null | grep -qxF "$marker"; then
      kill -9 "$p" 2>/dev/null && echo "killed leftover $p"
    fi
  done
}

# stop_pid PID: SIGTERM, up to 10s for it to go, then SIGKILL.
stop_pid() {
  local pid=$1
  [ -n "$pid" ] || return 0
  kill "$pid" 2>/dev/null || return 0
  for _ in $(seq 1 50); do
    kill -0 "$pid" 2>/dev/null || return 0
    sleep 0.2
  done
  kill -9 "$pid" 2>/dev/null
}

# slurm_wrappers DIR SLURM_CONF: DIR/sbatch, squeue, … each running the
# real command with SLURM_CONF set, for middleware that clears the
# environment before it calls them.
slurm_wrappers() {
  local d=$1 conf=$2 b
  mkdir -p "$d"
  for b in sbatch squeue scontrol scancel sinfo sacct srun salloc; do
    printf '#!/bin/sh\nSLURM_CONF=%s exec %s "$@"\n' "$conf" "$(command -v $b || echo /usr/bin/$b)" >"$d/$b"
    chmod 755 "$d/$b"
  done
}
