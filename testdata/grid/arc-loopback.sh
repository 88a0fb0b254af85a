#!/usr/bin/env bash
# An ARC CE on loopback, to try: A-REX with its REST interface on a free
# port of 127.0.0.1, with a test CA, host and user certificates of its own,
# fronting the fork back end (or, with --slurm CONF, the Slurm cluster whose
# slurm.conf that is). It submits a job with arcsub, follows it with arcstat
# to its end and fetches its output with arcget; with --hold it then keeps
# the CE running and prints how to use it, until Ctrl-C. Everything is under
# one temporary directory; on exit arched and whatever it left are stopped
# by pid and the directory is removed (KEEP=1 keeps it).
#
#   sudo testdata/grid/arc-loopback.sh [--slurm /path/to/slurm.conf] [--hold]
#
# Needs Debian's nordugrid-arc-arex, nordugrid-arc-client,
# nordugrid-arc-plugins-arcrest and nordugrid-arc-plugins-needed. The recipe,
# and why each setting is there, is in docs/grid.md.
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
need /usr/sbin/arched /usr/lib/arc/arcconfig-parser /usr/lib/arc/libaccARCREST.so arcproxy arcsub arcstat arcget openssl

D=$(mktemp -d /tmp/arc-loopback.XXXXXX)
chmod 755 "$D" # the mapped user's session directories are under it
marker="GMARK_GRIDTEST=$D"
arched_pid=
cleanup() {
  set +e
  stop_pid "$arched_pid"
  { wait "$arched_pid"; } 2>/dev/null
  [ -n "$slurm_conf" ] && "$D/bin/scancel" --user=nobody 2>/dev/null
  kill_under "$D" "$marker"
  if [ -n "${KEEP:-}" ]; then echo "kept $D"; else rm -rf "$D"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

make_creds "$D/creds"
port=$(free_port)
url="https://localhost:$port/arex"
mkdir -p "$D"/{control,session,log,tmp,home,bin}
chmod 1777 "$D/tmp"
openssl genpkey -genparam -algorithm DH -pkeyopt group:ffdhe2048 -out "$D/control/dhparam.pem" 2>/dev/null

lrms="lrms = fork" queue=fork
if [ -n "$slurm_conf" ]; then
  slurm_wrappers "$D/bin" "$slurm_conf"
  lrms="lrms = slurm
slurm_bin_path = $D/bin
slurm_wakeupperiod = 2
slurm_use_sacct = no"
  queue=main
  echo "fronting the Slurm cluster of $slurm_conf (partition main; nobody must reach its munge socket)"
fi

cat >"$D/arc.conf" <<EOF
[common]
hostname = localhost
x509_host_key = $D/creds/hostkey.pem
x509_host_cert = $D/creds/hostcert.pem
x509_cert_dir = $D/creds/certificates

[authgroup:gmark]
subject = $USER_DN

[mapping]
map_to_user = gmark nobody:$(id -gn nobody)
policy_on_nomap = stop

[lrms]
$lrms

[arex]
controldir = $D/control
sessiondir = $D/session
logfile = $D/log/arex.log
joblog = $D/log/arex-jobs.log
helperlog = $D/log/job.helper.errors
pidfile = $D/arex.pid
tmpdir = $D/tmp
loglevel = 3
wakeupperiod = 5

[arex/ws]
wsurl = $url
logfile = $D/log/ws-interface.log

[arex/ws/jobs]
allowaccess = gmark

[infosys]
logfile = $D/log/infoprovider.log

[infosys/glue2]

[infosys/cluster]

[queue:$queue]
EOF
/usr/lib/arc/arcconfig-parser --config "$D/arc.conf" --runconfig "$D/arex.cfg" --save

cat >"$D/arex.xml" <<EOF
<?xml version="1.0"?>
<ArcConfig xmlns="http://www.nordugrid.org/schemas/ArcConfig/2007"
  xmlns:tcp="http://www.nordugrid.org/schemas/ArcMCCTCP/2007"
  xmlns:arex="http://www.nordugrid.org/schemas/a-rex/Config">
  <Server>
    <PidFile>$D/arched.pid</PidFile>
    <Logger><File>$D/log/arched.log</File><Level>INFO</Level></Logger>
    <Watchdog>false</Watchdog>
  </Server>
  <ModuleManager><Path>/usr/lib/arc/</Path></ModuleManager>
  <Plugins><Name>mcctcp</Name></Plugins>
  <Plugins><Name>mcctls</Name></Plugins>
  <Plugins><Name>mcchttp</Name></Plugins>
  <Plugins><Name>mccsoap</Name></Plugins>
  <Plugins><Name>arex</Name></Plugins>
  <Plugins><Name>identitymap</Name></Plugins>
  <Plugins><Name>arcshc</Name></Plugins>
  <Plugins><Name>arcshclegacy</Name></Plugins>
  <Chain>
    <Component name="tcp.service" id="tcp">
      <next id="tls"/>
      <tcp:Listen><tcp:Interface>127.0.0.1</tcp:Interface><tcp:Port>$port</tcp:Port></tcp:Listen>
    </Component>
    <Component name="tls.service" id="tls">
      <next id="http"/>
      <KeyPath>$D/creds/hostkey.pem</KeyPath>
      <CertificatePath>$D/creds/hostcert.pem</CertificatePath>
      <CACertificatesDir PolicyGlobus="true">$D/creds/certificates</CACertificatesDir>
      <VOMSProcessing>standard</VOMSProcessing>
      <ClientAuthn>false</ClientAuthn>
      <DHParamFile>$D/control/dhparam.pem</DHParamFile>
    </Component>
    <Component name="http.service" id="http">
      <next id="soap">POST</next>
      <next id="plexer"/>
      <SecHandler name="arclegacy.handler" event="incoming"><ConfigFile>$D/arex.cfg</ConfigFile></SecHandler>
    </Component>
    <Component name="soap.service" id="soap">
      <next id="plexer"/>
      <ContinueNonSOAP>true</ContinueNonSOAP>
    </Component>
    <Plexer name="plexer.service" id="plexer"><next id="a-rex">^/arex</next></Plexer>
    <Service name="a-rex" id="a-rex">
      <SecHandler name="arclegacy.map" event="incoming">
        <ConfigBlock><ConfigFile>$D/arex.cfg</ConfigFile><BlockName>mapping</BlockName></ConfigBlock>
      </SecHandler>
      <arex:endpoint>$url</arex:endpoint>
      <arex:gmconfig>$D/arex.cfg</arex:gmconfig>
      <arex:InfoproviderWakeupPeriod>100</arex:InfoproviderWakeupPeriod>
    </Service>
  </Chain>
</ArcConfig>
EOF

# arched in the foreground, with the host credential and a temporary
# directory of its own in its environment.
env -u X509_USER_PROXY X509_USER_CERT="$D/creds/hostcert.pem" X509_USER_KEY="$D/creds/hostkey.pem" \
  X509_CERT_DIR="$D/creds/certificates" TMPDIR="$D/tmp" HOSTNAME=localhost "$marker" \
  /usr/sbin/arched -f -c "$D/arex.xml" >"$D/log/arched.out" 2>&1 &
arched_pid=$!
echo "arched pid $arched_pid, A-REX at $url, files under $D"

# The client side: the user's credential, a proxy made from it, and HOME
# in the directory so that the client's own files stay there.
export X509_USER_CERT="$D/creds/usercert.pem" X509_USER_KEY="$D/creds/userkey.pem"
export X509_CERT_DIR="$D/creds/certificates" X509_USER_PROXY="$D/home/proxy.pem" HOME="$D/home"
arcproxy >/dev/null
for _ in $(seq 1 100); do
  (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
  kill -0 "$arched_pid" 2>/dev/null || { cat "$D/log/arched.out"; die "arched exited"; }
  sleep 0.2
done

cat >"$D/home/hello.xrsl" <<'EOF'
&(executable="/bin/sh")(arguments="-c" "echo hello from $(id -un) on $(hostname) ${SLURM_JOB_ID:+in Slurm job $SLURM_JOB_ID}")
 (stdout="out.txt")(jobname="gmark-hello")
EOF
submit=(arcsub -j "$D/home/jobs.dat" -C "$url" -T arcrest -Q NONE)
job=$("${submit[@]}" "$D/home/hello.xrsl" | sed -n 's/^Job submitted with jobid: //p')
[ -n "$job" ] || die "arcsub submitted nothing"
echo "submitted $job"
state=
for _ in $(seq 1 120); do
  state=$(arcstat -j "$D/home/jobs.dat" "$job" 2>/dev/null | sed -n 's/^ State: //p')
  echo "  $(date +%T) $state"
  case $state in Finished* | Failed* | Killed*) break ;; esac
  sleep 2
done
arcget -k -j "$D/home/jobs.dat" -D "$D/home/out" "$job" >/dev/null
echo "the job wrote: $(cat "$D/home/out/${job##*/}/out.txt")"

if [ -n "$hold" ]; then
  cat <<EOF

The CE runs until Ctrl-C. In another shell:
  export X509_USER_CERT=$X509_USER_CERT X509_USER_KEY=$X509_USER_KEY
  export X509_CERT_DIR=$X509_CERT_DIR X509_USER_PROXY=$X509_USER_PROXY HOME=$HOME
  ${submit[*]} job.xrsl
  arcstat -j $D/home/jobs.dat -a; arckill -j $D/home/jobs.dat JOBURL

A targets file for gmark submit --target arc (docs/grid.md):
  [arc]
  proxy = "$X509_USER_PROXY"
  ca_dir = "$X509_CERT_DIR"
  [[arc.ce]]
  name = "$queue"
  url = "$url"
  queue = "$queue"
EOF
  wait "$arched_pid"
fi
