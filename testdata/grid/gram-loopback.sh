#!/usr/bin/env bash
# A Globus GRAM5 gatekeeper on loopback, to try: globus-gatekeeper on a free
# port with a test CA, host and user certificates of its own, a grid-mapfile
# mapping the test user to nobody, and jobmanager-fork (plus, with
# --slurm CONF, jobmanager-slurm submitting to the Slurm cluster whose
# slurm.conf that is). It runs a job with globusrun and its output streamed
# back, then a batch job followed with globusrun -status to its end; with
# --hold it keeps the gatekeeper running and prints how to use it, until
# Ctrl-C. Everything is under one temporary directory; on exit the
# gatekeeper, the job managers it started (which detach themselves) and
# their jobs are stopped by pid and the directory is removed (KEEP=1 keeps
# it).
#
#   sudo testdata/grid/gram-loopback.sh [--slurm /path/to/slurm.conf] [--hold]
#
# Needs Debian's globus-gatekeeper, globus-gram-job-manager,
# globus-gram-job-manager-fork (and -slurm), globus-gram-client-tools and
# globus-proxy-utils. The recipe, and why each setting is there, is in
# docs/grid.md.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

slurm_conf= hold=
while [ $# -gt 0 ]; do
  case $1 in
    --slurm) slurm_conf=$(readlink -f "$2"); shift 2 ;;
    --hold) hold=1; shift ;;
    *) die "usage: $0 [--slurm SLURM_CONF] [--hold]" ;;
  esac
done
need_root
need /usr/sbin/globus-gatekeeper /usr/sbin/globus-job-manager globusrun grid-proxy-init unshare openssl
[ -z "$slurm_conf" ] || need /usr/share/perl5/Globus/GRAM/JobManager/slurm.pm /etc/globus/globus-slurm.conf

D=$(mktemp -d /tmp/gram-loopback.XXXXXX)
chmod 755 "$D"
marker="GMARK_GRIDTEST=$D"
gk_pid=
cleanup() {
  set +e
  stop_pid "$gk_pid"
  { wait "$gk_pid"; } 2>/dev/null
  [ -n "$slurm_conf" ] && "$D/bin/scancel" --user=nobody 2>/dev/null
  kill_under "$D" "$marker"
  if [ -n "${KEEP:-}" ]; then echo "kept $D"; else rm -rf "$D"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

make_creds "$D/creds"
port=$(free_port)
mkdir -p "$D"/{grid-services,etc,bin,client,home,log,state,audit}
# What the job manager writes as the mapped user.
chown nobody:"$(id -gn nobody)" "$D"/{home,log,state,audit}
printf '"%s" nobody\n' "$USER_DN" >"$D/grid-mapfile"
cat >"$D/job-manager.conf" <<EOF
-globus-toolkit-version 6.2
-log-pattern $D/log/gram_\$(LOGNAME).log
-log-levels FATAL|ERROR|WARN|INFO
-audit-directory $D/audit
-state-file-dir $D/state
-x509-cert-dir $D/creds/certificates
-extra-envvars $marker
EOF
# The job manager keeps job files under \$HOME/.globus and works in the
# directory the gatekeeper leaves it in (it creates relative stdout and
# stderr files there), and the gatekeeper sets HOME to the mapped
# account's and changes to it (/nonexistent for nobody): env(1) gives it
# one and starts it there.
lrms=fork
[ -z "$slurm_conf" ] || lrms="fork slurm"
for lrm in $lrms; do
  echo "stderr_log,local_cred - /usr/bin/env env -C $D/home HOME=$D/home /usr/sbin/globus-job-manager -conf $D/job-manager.conf -type $lrm" \
    >"$D/grid-services/jobmanager-$lrm"
done

gk=(/usr/sbin/globus-gatekeeper -f -p "$port" -l "$D/log/gatekeeper.log" -grid_services "$D/grid-services"
  -gridmap "$D/grid-mapfile" -x509_cert_dir "$D/creds/certificates"
  -x509_user_cert "$D/creds/hostcert.pem" -x509_user_key "$D/creds/hostkey.pem" -pidfile "$D/gatekeeper.pid")
genv=(env -u X509_USER_PROXY -u X509_USER_CERT -u X509_USER_KEY GLOBUS_HOSTNAME=localhost "$marker")
if [ -n "$slurm_conf" ]; then
  # jobmanager-slurm takes sbatch & co. from /etc/globus/globus-slurm.conf
  # and its scripts get no SLURM_CONF: in a mount namespace of the
  # gatekeeper's own, that file names wrappers that set it.
  slurm_wrappers "$D/bin" "$slurm_conf"
  cat >"$D/etc/globus-slurm.conf" <<EOF
slurm_path="/usr"
srun="$D/bin/srun"
sbatch="$D/bin/sbatch"
salloc="$D/bin/salloc"
scancel="$D/bin/scancel"
scontrol="$D/bin/scontrol"
EOF
  "${genv[@]}" unshare --mount --propagation private sh -c \
    "mount --bind $D/etc/globus-slurm.conf /etc/globus/globus-slurm.conf && exec \"\$@\"" sh "${gk[@]}" \
    >"$D/log/gatekeeper.out" 2>&1 &
  echo "jobmanager-slurm submits to the cluster of $slurm_conf (nobody must reach its munge socket)"
else
  "${genv[@]}" "${gk[@]}" >"$D/log/gatekeeper.out" 2>&1 &
fi
gk_pid=$!
contact="localhost:$port"
echo "globus-gatekeeper pid $gk_pid at $contact, files under $D"

export X509_USER_CERT="$D/creds/usercert.pem" X509_USER_KEY="$D/creds/userkey.pem"
export X509_CERT_DIR="$D/creds/certificates" X509_USER_PROXY="$D/client/proxy.pem" HOME="$D/client"
grid-proxy-init -q -bits 2048 -out "$X509_USER_PROXY"
for _ in $(seq 1 100); do
  globusrun -a -r "$contact/jobmanager-fork" >/dev/null 2>&1 && break
  kill -0 "$gk_pid" 2>/dev/null || { cat "$D/log/gatekeeper.out"; die "the gatekeeper exited"; }
  sleep 0.2
done

for lrm in $lrms; do
  echo "globusrun -s -r $contact/jobmanager-$lrm:"
  globusrun -s -r "$contact/jobmanager-$lrm" \
    '&(executable=/bin/sh)(arguments=-c "echo hello from $(id -un) on $(hostname) ${SLURM_JOB_ID:+in Slurm job $SLURM_JOB_ID}")'
done
# A batch job with a two-phase commit: the job manager keeps its end state
# (DONE or FAILED) for polling; without it, GRAM5 forgets an ended job and
# globusrun -status says DONE whatever the end was. globusrun -b exits 110
# after committing such a submission.
lrm=${lrms##* }
job=$(globusrun -b -r "$contact/jobmanager-$lrm" \
  '&(executable=/bin/sh)(arguments=-c "sleep 3; exit 3")(two_phase=600)(save_state=yes)' 2>&1 | grep -o 'https://[^ ]*' || true)
[ -n "$job" ] || die "globusrun -b submitted nothing"
echo "submitted $job"
for _ in $(seq 1 60); do
  state=$(globusrun -status "$job" | head -1)
  echo "  $(date +%T) $state"
  case $state in DONE | FAILED) break ;; esac
  sleep 2
done

if [ -n "$hold" ]; then
  cat <<EOF

The gatekeeper runs until Ctrl-C. In another shell:
  export X509_USER_CERT=$X509_USER_CERT X509_USER_KEY=$X509_USER_KEY
  export X509_CERT_DIR=$X509_CERT_DIR X509_USER_PROXY=$X509_USER_PROXY HOME=$HOME
  globusrun -s -r $contact/jobmanager-fork '&(executable=/bin/hostname)'
  globusrun -b -r $contact/jobmanager-fork -f job.rsl; globusrun -status CONTACT; globus-job-cancel -f CONTACT

A targets file for gmark submit --target gram (the work directory must be one the
account nobody can write and reach; docs/grid.md):
  [gram]
  proxy = "$X509_USER_PROXY"
  ca_dir = "$X509_CERT_DIR"
  [[gram.ce]]
  name = "fork"
  contact = "$contact/jobmanager-fork"
EOF
  wait "$gk_pid"
fi
