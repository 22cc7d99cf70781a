#!/usr/bin/env bash
# The corpus rendered four ways, each song's audio the same every way: the CLI's batch,
# Python's render_many, render_many on a Dask LocalCluster of 2 worker processes, and the job
# array docs/cli.md gives, submitted with 4 tasks to a real single-node Slurm (munge,
# slurmctld and slurmd started here on localhost); then the array submitted again skips every
# song. Prints the table docs/cli.md shows. Needs root (it starts munged and Slurm), the
# release `pianola` (swift build -c release --product pianola), slurm-wlm, munge, python3-venv
# and PyPI for dask. Run from anywhere: Tests/cluster/run.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
corpus=$(realpath ../shared/corpus/midi)
font=$PWD/soundfonts/pianola-gm.sf2
bin=$(swift build -c release --show-bin-path)
[ -x "$bin/pianola" ] || { echo "cluster: build the release pianola first (swift build -c release --product pianola)" >&2; exit 1; }
source Tools/with-libpianola.sh                   # $prefix (libpianola) and $work, removed on exit
export LD_LIBRARY_PATH="$prefix/lib" PATH="$bin:$PATH"
python3 -m venv "$work/venv"
cp -r python "$work/source"
"$work/venv/bin/pip" install -q --disable-pip-version-check "$work/source" "dask[distributed]"
py=$work/venv/bin/python
now() { date +%s.%N; }
# A way's renders as "NAME HASH" lines, each WAV's data chunk hashed (its header holds no
# audio), then removed: the corpus is 1.4 GB of WAV a way.
cat > "$work/hash.py" <<'EOF'
import hashlib, os, sys
folder, out = sys.argv[1:]
lines = []
for top, _, files in os.walk(folder):
    for file in files:
        if file.endswith(".wav"):
            data, at = open(os.path.join(top, file), "rb").read(), 12
            while at + 8 <= len(data):
                size = int.from_bytes(data[at + 4:at + 8], "little")
                if data[at:at + 4] == b"data":
                    lines.append(f"{os.path.relpath(os.path.join(top, file), folder)} {hashlib.sha256(data[at + 8:at + 8 + size]).hexdigest()}\n")
                at += 8 + size + (size & 1)
open(out, "w").write("".join(sorted(lines)))
EOF
hashed() { "$py" "$work/hash.py" "$1" "$work/$2.hashes"; [ "${3:-}" = keep ] || rm -rf "$1"; }
declare -A seconds

# 1. The CLI's batch, on every core.
t=$(now)
pianola render "$corpus" -o "$work/cli/" --soundfont "$font" > "$work/cli.log" 2>&1 || true   # the corpus's broken files fail
seconds[cli]=$(echo "$(now) - $t" | bc)
hashed "$work/cli" cli

# 2 and 3. render_many on this process's threads, then on Dask's 2 worker processes.
# (From a file: Dask's worker processes import the main module again.)
cat > "$work/ways.py" <<'EOF'
import logging, sys, time, distributed, pianola


def main(corpus, font, work):
    for way in ("python", "dask"):
        started = time.monotonic()
        if way == "python":
            summary = pianola.render_many(corpus, font, output=f"{work}/{way}", format="wav", bits=16, errors="return")
        else:
            with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None,
                                          silence_logs=logging.CRITICAL) as cluster, \
                    distributed.Client(cluster) as client:
                started = time.monotonic()   # the cluster's start apart
                summary = pianola.render_many(corpus, font, output=f"{work}/{way}", format="wav", bits=16, errors="return",
                                              executor=client.get_executor())
        seconds = time.monotonic() - started
        print(f"{way}: {len(summary.rendered)} rendered, {len(summary.failed)} failed, {seconds:.2f} s", flush=True)
        open(f"{work}/{way}.seconds", "w").write(f"{seconds:.2f}")


if __name__ == "__main__":
    main(*sys.argv[1:])
EOF
"$py" "$work/ways.py" "$corpus" "$font" "$work"
seconds[python]=$(cat "$work/python.seconds")
seconds[dask]=$(cat "$work/dask.seconds")
hashed "$work/python" python
hashed "$work/dask" dask

# 4. Slurm: munge and a one-node cluster on this machine, its state in $work.
slurm=$work/slurm
mkdir -p "$slurm/state" "$slurm/spool" /run/munge
export SLURM_CONF=$slurm/slurm.conf
host=$(hostname -s)
cat > "$SLURM_CONF" <<CONF
ClusterName=pianola-test
SlurmctldHost=$host
SlurmUser=root
AuthType=auth/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
MpiDefault=none
ReturnToService=2
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
StateSaveLocation=$slurm/state
SlurmdSpoolDir=$slurm/spool
SlurmctldLogFile=$slurm/slurmctld.log
SlurmdLogFile=$slurm/slurmd.log
SlurmctldPidFile=$slurm/slurmctld.pid
SlurmdPidFile=$slurm/slurmd.pid
NodeName=$host CPUs=$(nproc) State=UNKNOWN
PartitionName=main Nodes=$host Default=YES MaxTime=INFINITE State=UP
CONF
started_munge=
if ! pgrep -x munged > /dev/null; then
    [ -s /etc/munge/munge.key ] || { mkdir -p /etc/munge; dd if=/dev/urandom of=/etc/munge/munge.key bs=1024 count=1 2> /dev/null; }
    chown -R munge:munge /etc/munge /run/munge /var/lib/munge /var/log/munge 2> /dev/null || true
    chmod 400 /etc/munge/munge.key
    su munge -s /bin/sh -c /usr/sbin/munged
    started_munge=yes
fi
stop_slurm() {
    for daemon in slurmd slurmctld; do
        [ -s "$slurm/$daemon.pid" ] || continue
        pid=$(cat "$slurm/$daemon.pid")
        kill "$pid" 2> /dev/null || continue
        # A daemon writes its state as it goes down: the folder goes once it has (up to 10 s).
        for _ in $(seq 100); do kill -0 "$pid" 2> /dev/null || break; sleep 0.1; done
    done
    [ -z "$started_munge" ] || pkill -x munged || true
    rm -rf "$work"
}
trap stop_slurm EXIT
/usr/sbin/slurmctld -f "$SLURM_CONF"
/usr/sbin/slurmd -f "$SLURM_CONF"
for _ in $(seq 60); do sinfo -h -o %T 2> /dev/null | grep -q idle && break; sleep 1; done
sinfo -h -o %T | grep -q idle || { echo "cluster: Slurm's node did not come up:" >&2; tail -5 "$slurm"/*.log >&2; exit 1; }

# The job docs/cli.md gives, as written there, with 4 tasks on this node's cores.
mkdir -p "$work/job"
awk '/^#!\/bin\/sh/,/^```$/' docs/cli.md | grep -v '^```' > "$work/job/render.sh"
grep -q -- '--shard "$SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT" --skip-existing' "$work/job/render.sh" ||
    { echo "cluster: docs/cli.md's Slurm job is not there as expected" >&2; exit 1; }
ln -s "$corpus" "$work/job/corpus"
ln -s "$font" "$work/job/FluidR3_GM.sf2"   # the job names FluidR3_GM; the project's own font stands in for it
submit() {
    sbatch --wait --array=1-4 --cpus-per-task="$(nproc)" --chdir="$work/job" --output="$work/job/task-%a-$1.log" \
        "$work/job/render.sh" > /dev/null || true   # tasks holding the corpus's broken files exit 1
}
t=$(now)
submit first
seconds[slurm]=$(echo "$(now) - $t" | bc)
hashed "$work/job/renders" slurm keep   # the second submission finds them
t=$(now)
submit again
seconds[again]=$(echo "$(now) - $t" | bc)

# Every song's audio, four ways.
"$py" - "$work" "${seconds[cli]}" "${seconds[python]}" "${seconds[dask]}" "${seconds[slurm]}" "${seconds[again]}" <<'EOF'
import glob, hashlib, re, sys
work, *times = sys.argv[1:]
ways = {"CLI batch (pianola render corpus/ -o out/)": "cli", "render_many (2 threads)": "python",
        "render_many on Dask, LocalCluster of 2 processes": "dask", "Slurm array, 4 tasks (docs/cli.md's job)": "slurm"}
results = {way: dict(line.split() for line in open(f"{work}/{name}.hashes")) for way, name in ways.items()}
reference = results[next(iter(ways))]
whole = hashlib.sha256("".join(f"{k} {v}\n" for k, v in sorted(reference.items())).encode()).hexdigest()[:16]
print(f"| way | songs | wall s | audio hashes |\n| --- | --- | --- | --- |")
failed = 0
for (way, found), seconds in zip(results.items(), times):
    same = found == reference
    failed += not same
    print(f"| {way} | {len(found)} | {float(seconds):.1f} | {'the same: ' + whole if same else 'DIFFERENT'} |")
def log(name):
    return "".join(open(path).read() for path in sorted(glob.glob(f"{work}/job/task-*-{name}.log")))
first, again = log("first"), log("again")
listed = int(re.search(r"^rendering (\d+) songs?", open(f"{work}/cli.log").read(), re.M).group(1))
shares = [int(n) for n in re.findall(r"^rendering (\d+) songs?", first, re.M)]
written = re.findall(r"^wrote renders/(.+): ", first, re.M)
skipped = sum(int(n) for n in re.findall(r"(\d+) already there, skipped", again))
rendered_again = sum(int(n) for n in re.findall(r"^rendering (\d+) songs?", again, re.M))
print(f"Slurm array: {len(shares)} tasks took {shares} of the {listed} songs the CLI lists; submitted again: "
      f"{skipped} skipped, {rendered_again} rendered, {float(times[4]):.1f} s")
checks = [("the four ways give the same songs, the same audio", failed == 0 and len(reference) > 100),
          ("the array's 4 tasks shared the songs, each written once", len(shares) == 4 and sum(shares) == listed
           and len(written) == len(set(written)) == len(reference)),
          ("submitted again, every song whose files are there is skipped", skipped == len(reference) and
           rendered_again == listed - len(reference))]
for what, ok in checks:
    print(("ok: " if ok else "FAILED: ") + what)
print(f"cluster: {sum(ok for _, ok in checks)} passed, {sum(not ok for _, ok in checks)} failed")
sys.exit(0 if all(ok for _, ok in checks) else 1)
EOF
