#!/usr/bin/env bash
# A throw-away single-node Slurm cluster on this machine, for the sweep test (tests/it/sweep.rs):
# munged with its own key and socket, slurmctld and slurmd with a slurm.conf for this host,
# every file (state, spool, logs, pid files) in STATE_DIR, on random ports, so that it touches
# no system configuration and several can run side by side. Needs root and Debian's
# `slurm-wlm` and `munge` (scripts/lib.sh: ensure_slurm).
#
#   bash scripts/slurm-local.sh start STATE_DIR   # prints SLURM_CONF=STATE_DIR/slurm.conf
#   SLURM_CONF=STATE_DIR/slurm.conf sbatch --wait job.sh
#   bash scripts/slurm-local.sh stop STATE_DIR    # stops the daemons it started (pid files)
#
# `start` exits with 1 and says why when Slurm cannot run here (no daemons, not root, a
# daemon that does not start, a node that never becomes idle); its logs stay in STATE_DIR.
set -euo pipefail

cmd=${1:-}
dir=${2:-}
[ -n "$cmd" ] && [ -n "$dir" ] || { echo "usage: $0 start|stop STATE_DIR" >&2; exit 2; }

fail() {
  echo "slurm-local: $*" >&2
  exit 1
}

stop() {
  local f pid
  for f in slurmd.pid slurmctld.pid munged.pid; do
    if [ -s "$dir/$f" ]; then
      pid=$(cat "$dir/$f")
      kill "$pid" 2>/dev/null || true
      for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
      rm -f "$dir/$f"
    fi
  done
}

if [ "$cmd" = stop ]; then
  stop
  exit 0
fi
[ "$cmd" = start ] || fail "unknown command $cmd (start or stop)"

for b in munged slurmctld slurmd sbatch sinfo; do
  command -v "$b" >/dev/null 2>&1 || PATH="$PATH:/usr/sbin" command -v "$b" >/dev/null 2>&1 ||
    fail "$b not found (install Debian's slurm-wlm and munge)"
done
export PATH="$PATH:/usr/sbin"
[ "$(id -u)" = 0 ] || fail "not root: slurmd must run as root to start jobs"

mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
chmod 700 "$dir"
mkdir -p "$dir/ctld" "$dir/slurmd"
host=$(hostname -s)
cpus=$(nproc)
port=$(( 20000 + RANDOM % 20000 ))

# munge: a fresh key, our own socket.
head -c 1024 /dev/urandom >"$dir/munge.key"
chmod 400 "$dir/munge.key"
munged --force --key-file="$dir/munge.key" --socket="$dir/munge.socket" \
  --pid-file="$dir/munged.pid" --log-file="$dir/munged.log" --seed-file="$dir/munged.seed" ||
  fail "munged does not start (see $dir/munged.log)"

cat >"$dir/slurm.conf" <<EOF
ClusterName=schedlabtest
SlurmctldHost=$host(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$(( port + 1 ))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$dir/munge.socket
CredType=cred/munge
StateSaveLocation=$dir/ctld
SlurmdSpoolDir=$dir/slurmd
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SwitchType=switch/none
MpiDefault=none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
MaxArraySize=1001
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF="$dir/slurm.conf"

slurmctld -f "$SLURM_CONF" -c || { stop; fail "slurmctld does not start (see $dir/slurmctld.log)"; }
slurmd -f "$SLURM_CONF" -N "$host" || { stop; fail "slurmd does not start (see $dir/slurmd.log)"; }

for _ in $(seq 60); do
  state=$(sinfo -h -N -o %T 2>/dev/null | head -1 || true)
  if [ "$state" = idle ]; then
    echo "SLURM_CONF=$SLURM_CONF"
    exit 0
  fi
  sleep 0.5
done
stop
fail "the node never became idle (last state: ${state:-none}; see $dir/slurmctld.log and $dir/slurmd.log)"
