#!/usr/bin/env bash
# A Globus GRAM5 gatekeeper on loopback, to try: globus-gatekeeper on a free
# port with a test CA, host and user certificates of its own, a grid-mapfile
# mapping the test user to nobody, and jobmanager-fork (plus, with
# --slurm CONF, jobmanager-slurm submitting to the Slurm cluster whose
# slurm.conf that is; with --sge SETTINGS, jobmanager-sge submitting to the
# Grid Engine cell whose settings.sh that is). It runs a job with globusrun and its output streamed
# back, then a batch job followed with globusrun -status to its end; with
# --hold it keeps the gatekeeper running and prints how to use it, until
# Ctrl-C. Everything is under one temporary directory; on exit the
# gatekeeper, the job managers it started (which detach themselves) and
# their jobs are stopped by pid and the directory is removed (KEEP=1 keeps
# it).
#
#   sudo testdata/grid/gram-loopback.sh [--slurm /path/to/slurm.conf]
#     [--sge $SGE_ROOT/$SGE_CELL/common/settings.sh] [--hold]
#
# Needs Debian's globus-gatekeeper, globus-gram-job-manager,
# globus-gram-job-manager-fork (and -slurm, -sge), globus-gram-client-tools and
# globus-proxy-utils. The recipe, and why each setting is there, is in
# docs/grid.md.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib.sh"

slurm_conf= sge_settings= hold=
while [ $# -gt 0 ]; do
  case $1 in
    --slurm) slurm_conf=$(readlink -f "$2"); shift 2 ;;
    --sge) sge_settings=$(readlink -f "$2"); shift 2 ;;
    --hold) hold=1; shift ;;
    *) die "usage: $0 [--slurm SLURM_CONF] [--sge SGE_SETTINGS_SH] [--hold]" ;;
  esac
done
need_root
need /usr/sbin/globus-gatekeeper /usr/sbin/globus-job-manager globusrun grid-proxy-init unshare openssl
[ -z "$slurm_conf" ] || need /usr/share/perl5/Globus/GRAM/JobManager/slurm.pm /etc/globus/globus-slurm.conf
[ -z "$sge_settings" ] || need /usr/share/perl5/Globus/GRAM/JobManager/sge.pm /etc/globus/globus-sge.conf "$sge_settings"

D=$(mktemp -d /tmp/gram-loopback.XXXXXX)
chmod 755 "$D"
marker="GMARK_GRIDTEST=$D"
gk_pid=
cleanup() {
  set +e
  stop_pid "$gk_pid"
  { wait "$gk_pid"; } 2>/dev/null
  [ -n "$slurm_conf" ] && "$D/bin/scancel" --user=nobody 2>/dev/null
  [ -n "$sge_settings" ] && "$D/bin/qdel" -f -u nobody >/dev/null 2>&1
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
[ -z "$slurm_conf" ] || lrms="$lrms slurm"
[ -z "$sge_settings" ] || lrms="$lrms sge"
for lrm in $lrms; do
  echo "stderr_log,local_cred - /usr/bin/env env -C $D/home HOME=$D/home /usr/sbin/globus-job-manager -conf $D/job-manager.conf -type $lrm" \
    >"$D/grid-services/jobmanager-$lrm"
done

gk=(/usr/sbin/globus-gatekeeper -f -p "$port" -l "$D/log/gatekeeper.log" -grid_services "$D/grid-services"
  -gridmap "$D/grid-mapfile" -x509_cert_dir "$D/creds/certificates"
  -x509_user_cert "$D/creds/hostcert.pem" -x509_user_key "$D/creds/hostkey.pem" -pidfile "$D/gatekeeper.pid")
genv=(env -u X509_USER_PROXY -u X509_USER_CERT -u X509_USER_KEY GLOBUS_HOSTNAME=localhost "$marker")
binds=()
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
  binds+=("mount --bind $D/etc/globus-slurm.conf /etc/globus/globus-slurm.conf")
  echo "jobmanager-slurm submits to the cluster of $slurm_conf (nobody must reach its munge socket)"
fi
if [ -n "$sge_settings" ]; then
  # jobmanager-sge takes qsub & co. and the cell from
  # /etc/globus/globus-sge.conf, and exports SGE_ROOT and SGE_CELL but not
  # the cell's ports: the wrappers source the cell's settings.sh. Grid
  # Engine starts a job in its owner's home (nobody's does not exist)
  # unless qsub is given -wd.
  for b in qsub qstat qdel qconf; do
    wd=
    [ "$b" = qsub ] && wd="-wd $D/home"
    printf '#!/bin/sh\n. %s && exec %s %s "$@"\n' "$sge_settings" "$(command -v $b || echo /usr/bin/$b)" "$wd" >"$D/bin/$b"
    chmod 755 "$D/bin/$b"
  done
  {
    echo "sge_root=$(. "$sge_settings" && echo "$SGE_ROOT")"
    echo "sge_cell=$(. "$sge_settings" && echo "${SGE_CELL:-default}")"
    echo 'sge_config=""'
    for b in qsub qstat qdel qconf; do echo "$b=$D/bin/$b"; done
    echo 'sun_mprun=no'
    echo 'mpirun=no'
  } >"$D/etc/globus-sge.conf"
  binds+=("mount --bind $D/etc/globus-sge.conf /etc/globus/globus-sge.conf")
  echo "jobmanager-sge submits to the cell of $sge_settings (nobody must be able to read its SGE_ROOT)"
fi
if [ ${#binds[@]} -gt 0 ]; then
  bind=$(printf '%s && ' "${binds[@]}")
  "${genv[@]}" unshare --mount --propagation private sh -c "$bind exec \"\$@\"" sh "${gk[@]}" \
    >"$D/log/gatekeeper.out" 2>&1 &
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
    '&(executable=/bin/sh)(arguments=-c "echo hello from $(id -un) on $(hostname) ${SLURM_JOB_ID:+in Slurm job $SLURM_JOB_ID}${JOB_ID:+in Grid Engine job $JOB_ID}")'
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
