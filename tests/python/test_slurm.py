"""jobs/slurm/periods.sbatch, compute.sbatch (and table-262144.sbatch, which runs it) and
periods-mpi.sbatch run by bash outside Slurm,
with a fake grundy and a fake sbatch: threads come from SLURM_CPUS_PER_TASK, SIGTERM reaches
grundy, exit status 75 (stopped, resumable) resubmits the job with the allocation it was started
with (its SLURM_* values), and the next run adds --resume."""

import os
import shutil
import signal
import subprocess
import time

import pytest

from conftest import REPO

FAKE_GRUNDY = """#!/bin/bash
# Records its arguments and environment; waits to be stopped by SIGTERM, then "checkpoints"
# (writes the checkpoint file) and exits 75, unless it was asked to --resume: then it finishes.
echo "$*" >> "$LOG/grundy.args"
echo "OMP_NUM_THREADS=$OMP_NUM_THREADS OMP_PROC_BIND=$OMP_PROC_BIND OMP_PLACES=$OMP_PLACES" >> "$LOG/grundy.env"
for a in "$@"; do [[ $a == --resume ]] && exit 0; done
trap 'touch "$CKPT"; exit 75' TERM
touch "$LOG/started"
while :; do sleep 0.05; done
"""

FAKE_SBATCH = """#!/bin/bash
echo "$* RESUBMITS=$GRUNDY_RESUBMITS" >> "$LOG/sbatch.args"
echo "GRUNDY_CHECKPOINT=${GRUNDY_CHECKPOINT:-}" >> "$LOG/sbatch.env"
"""


def fake_cluster(tmp_path):
    """A submission directory with the templates where they are in the repository, a job file,
    and fake grundy and sbatch first on PATH; no SLURM_* variable but those of a job of one
    node with 7 cores per task."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name, text in (("grundy", FAKE_GRUNDY), ("sbatch", FAKE_SBATCH)):
        (bin_dir / name).write_text(text)
        (bin_dir / name).chmod(0o755)
    (tmp_path / "job.ini").write_text("[periods]\nrows = 8\n")
    (tmp_path / "jobs").symlink_to(REPO / "jobs")
    outside = {k: v for k, v in os.environ.items() if not k.startswith("SLURM_")}
    env = dict(outside, PATH=f"{bin_dir}:{os.environ['PATH']}", LOG=str(tmp_path),
               CKPT=str(tmp_path / "results" / "job.checkpoint"), SLURM_SUBMIT_DIR=str(tmp_path),
               SLURM_CPUS_PER_TASK="7", GRUNDY_EXE=str(bin_dir / "grundy"))
    env.pop("GRUNDY_RESUBMITS", None)
    return env


def test_checkpoint_resubmit_resume(tmp_path):
    env = fake_cluster(tmp_path)
    script = str(REPO / "jobs" / "slurm" / "periods.sbatch")
    p = subprocess.Popen(["bash", script, "job.ini", "--rows", "8"], env=env, cwd=tmp_path,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while not (tmp_path / "started").exists():
        assert time.monotonic() < deadline and p.poll() is None, p.communicate()
        time.sleep(0.05)
    p.send_signal(signal.SIGTERM)  # what Slurm's --signal=B:TERM@300 does
    out, err = p.communicate(timeout=60)
    assert p.returncode == 0, (out, err)
    assert "exited with status 75" in out
    args = (tmp_path / "grundy.args").read_text().splitlines()
    assert args == ["run job.ini --rows 8 --checkpoint results/job.checkpoint"]
    assert (tmp_path / "grundy.env").read_text().split() == [
        "OMP_NUM_THREADS=7", "OMP_PROC_BIND=close", "OMP_PLACES=cores"]
    resubmitted = (tmp_path / "sbatch.args").read_text().splitlines()
    assert resubmitted == [
        "--export=ALL --cpus-per-task=7 jobs/slurm/periods.sbatch job.ini --rows 8 RESUBMITS=1"]
    assert (tmp_path / "sbatch.env").read_text().split() == [
        "GRUNDY_CHECKPOINT=results/job.checkpoint"]

    # The resubmitted job finds the checkpoint and resumes; it finishes, so no resubmission.
    r = subprocess.run(["bash", script, "job.ini", "--rows", "8"], env=dict(env,
                       GRUNDY_RESUBMITS="1"), cwd=tmp_path, capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "grundy.args").read_text().splitlines()[1].endswith(
        "--checkpoint results/job.checkpoint --resume")
    assert len((tmp_path / "sbatch.args").read_text().splitlines()) == 1


def test_failure_is_not_resubmitted(tmp_path):
    env = fake_cluster(tmp_path)
    (tmp_path / "bin" / "grundy").write_text("#!/bin/bash\nexit 2\n")
    r = subprocess.run(["bash", str(REPO / "jobs" / "slurm" / "periods.sbatch"), "job.ini"],
                       env=env, cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert r.returncode == 2
    assert not (tmp_path / "sbatch.args").exists()


def run_until_started(script, args, env, cwd):
    p = subprocess.Popen(["bash", script, *args], env=env, cwd=cwd, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    while not (cwd / "started").exists():
        assert time.monotonic() < deadline and p.poll() is None, p.communicate()
        time.sleep(0.05)
    return p


def test_compute_stopped_resubmits_with_resume(tmp_path):
    """compute.sbatch: grundy compute stopped by Slurm's SIGTERM exits 75 (the file kept); the
    job resubmits itself with --resume, once, and the resumed job that finishes ends the chain."""
    env = fake_cluster(tmp_path)
    script = str(REPO / "jobs" / "slurm" / "compute.sbatch")
    p = run_until_started(script, ["job.ini", "--threads", "3"], env, tmp_path)
    p.send_signal(signal.SIGTERM)
    out, err = p.communicate(timeout=60)
    assert p.returncode == 0, (out, err)
    assert "exited with status 75" in out
    assert (tmp_path / "grundy.args").read_text().splitlines() == [
        "run job.ini --progress --threads 3"]
    resubmitted = (tmp_path / "sbatch.args").read_text().splitlines()
    assert resubmitted == [
        "--export=ALL --cpus-per-task=7 jobs/slurm/compute.sbatch job.ini --threads 3 --resume "
        "RESUBMITS=1"]

    # The resubmitted job (as sbatch would start it) resumes and finishes: no resubmission.
    r = subprocess.run(["bash", script, "job.ini", "--threads", "3", "--resume"],
                       env=dict(env, GRUNDY_RESUBMITS="1"), cwd=tmp_path, capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "grundy.args").read_text().splitlines()[1] == (
        "run job.ini --progress --threads 3 --resume")
    assert len((tmp_path / "sbatch.args").read_text().splitlines()) == 1


def test_compute_resubmits_once_stopped_again(tmp_path):
    """A resumed job stopped again resubmits with --resume once, not twice; and bad input
    (status 2) is not resubmitted."""
    env = fake_cluster(tmp_path)
    (tmp_path / "bin" / "grundy").write_text(FAKE_GRUNDY.replace(
        'for a in "$@"; do [[ $a == --resume ]] && exit 0; done\n', ""))
    script = str(REPO / "jobs" / "slurm" / "compute.sbatch")
    p = run_until_started(script, ["job.ini", "--resume"], env, tmp_path)
    p.send_signal(signal.SIGTERM)
    out, err = p.communicate(timeout=60)
    assert p.returncode == 0, (out, err)
    assert (tmp_path / "sbatch.args").read_text().splitlines() == [
        "--export=ALL --cpus-per-task=7 jobs/slurm/compute.sbatch job.ini --resume RESUBMITS=1"]

    (tmp_path / "bin" / "grundy").write_text("#!/bin/bash\nexit 2\n")
    r = subprocess.run(["bash", script, "job.ini"], env=env, cwd=tmp_path, capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 2
    assert len((tmp_path / "sbatch.args").read_text().splitlines()) == 1


def test_table_262144_runs_its_job_through_compute_sbatch(tmp_path):
    """table-262144.sbatch: compute.sbatch on jobs/table-262144.ini in the same process (Slurm's
    SIGTERM reaches its trap), which resubmits compute.sbatch with the job and --resume."""
    env = fake_cluster(tmp_path)
    script = str(REPO / "jobs" / "slurm" / "table-262144.sbatch")
    p = run_until_started(script, ["--threads", "3"], env, tmp_path)
    p.send_signal(signal.SIGTERM)
    out, err = p.communicate(timeout=60)
    assert p.returncode == 0, (out, err)
    assert (tmp_path / "grundy.args").read_text().splitlines() == [
        "run jobs/table-262144.ini --progress --threads 3"]
    assert (tmp_path / "sbatch.args").read_text().splitlines() == [
        "--export=ALL --cpus-per-task=7 jobs/slurm/compute.sbatch jobs/table-262144.ini "
        "--threads 3 --resume RESUBMITS=1"]


FAKE_SRUN = """#!/bin/bash
# srun PROGRAM ARGS: records its arguments and the threads; the "ranks" stop as Slurm's SIGTERM
# makes them (checkpoint written, status 75) unless they resume, then they finish.
echo "$*" >> "$LOG/srun.args"
echo "OMP_NUM_THREADS=$OMP_NUM_THREADS" >> "$LOG/srun.env"
for a in "$@"; do [[ $a == --resume ]] && exit 0; done
touch "$CKPT"
exit 75
"""


def test_mpi_job_resubmits_and_resumes(tmp_path):
    """periods-mpi.sbatch: srun starts grundy-mpi periods on every task with the threads of
    SLURM_CPUS_PER_TASK; status 75 resubmits the same arguments, and the next job resumes."""
    env = fake_cluster(tmp_path)
    (tmp_path / "bin" / "srun").write_text(FAKE_SRUN)
    (tmp_path / "bin" / "srun").chmod(0o755)
    mpi = tmp_path / "bin" / "grundy-mpi"
    mpi.write_text("#!/bin/bash\nexit 9\n")  # srun is faked: never run
    mpi.chmod(0o755)
    env = dict(env, GRUNDY_MPI_EXE=str(mpi), CKPT=str(tmp_path / "results" / "periods-mpi-8.ckpt"))
    script = str(REPO / "jobs" / "slurm" / "periods-mpi.sbatch")
    r = subprocess.run(["bash", script, "--rows", "8"], env=env, cwd=tmp_path,
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, (r.stdout, r.stderr)
    assert "exited with status 75" in r.stdout
    assert (tmp_path / "srun.args").read_text().splitlines() == [
        f"--cpu-bind=cores {mpi} periods --rows 8 --csv results/row-periods-8.csv "
        "--checkpoint results/periods-mpi-8.ckpt --threads 7"]
    assert (tmp_path / "srun.env").read_text().split() == ["OMP_NUM_THREADS=7"]
    assert (tmp_path / "sbatch.args").read_text().splitlines() == [
        "--export=ALL --cpus-per-task=7 jobs/slurm/periods-mpi.sbatch --rows 8 RESUBMITS=1"]

    r = subprocess.run(["bash", script, "--rows", "8"], env=dict(env, GRUNDY_RESUBMITS="1"),
                       cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "srun.args").read_text().splitlines()[1].endswith("--threads 7 --resume")
    assert len((tmp_path / "sbatch.args").read_text().splitlines()) == 1


# What Slurm puts in the environment of `sbatch --nodes=8 --partition=big --account=proj
# jobs/slurm/periods-mpi.sbatch ...` (the script's own lines: --ntasks-per-node=1,
# --cpus-per-task=32, --mem=16G, --time=24:00:00), started at 1.7e9 s; sbatch's output
# environment, with the variables it sets that name no option (SLURM_NNODES, ...) too.
EIGHT_NODES = {
    "SLURM_JOB_ID": "4242", "SLURM_JOB_NAME": "grundy-periods-mpi",
    "SLURM_JOB_NUM_NODES": "8", "SLURM_NNODES": "8", "SLURM_NTASKS": "8", "SLURM_NPROCS": "8",
    "SLURM_NTASKS_PER_NODE": "1", "SLURM_TASKS_PER_NODE": "1(x8)", "SLURM_CPUS_PER_TASK": "32",
    "SLURM_JOB_CPUS_PER_NODE": "32(x8)", "SLURM_MEM_PER_NODE": "16384",
    "SLURM_JOB_PARTITION": "big", "SLURM_JOB_ACCOUNT": "proj", "SLURM_JOB_QOS": "normal",
    "SLURM_JOB_START_TIME": "1700000000", "SLURM_JOB_END_TIME": str(1700000000 + 24 * 3600),
}
SAME_ALLOCATION = ("--nodes=8 --ntasks=8 --ntasks-per-node=1 --cpus-per-task=32 "
                   "--partition=big --account=proj --qos=normal --job-name=grundy-periods-mpi "
                   "--mem=16384M --time=1440")

# Stops at once as a signal would make it: the checkpoint (or output) kept, status 75.
STOPPED_GRUNDY = """#!/bin/bash
echo "$*" >> "$LOG/grundy.args"
for a in "$@"; do [[ $a == --resume ]] && exit 0; done
touch "$CKPT"
exit 75
"""


def stopped_cluster(tmp_path, allocation):
    env = fake_cluster(tmp_path)
    for name, text in (("grundy", STOPPED_GRUNDY), ("srun", FAKE_SRUN)):
        (tmp_path / "bin" / name).write_text(text)
        (tmp_path / "bin" / name).chmod(0o755)
    return dict(env, **allocation, GRUNDY_MPI_EXE=str(tmp_path / "bin" / "grundy"))


@pytest.mark.parametrize("template,args,resubmitted", [
    ("periods-mpi.sbatch", ["--rows", "8", "--ring-memory", "2^33"],
     "--rows 8 --ring-memory 2^33"),
    ("periods.sbatch", ["job.ini", "--threads", "4"], "job.ini --threads 4"),
    ("compute.sbatch", ["job.ini"], "job.ini --resume"),
])
def test_resubmission_keeps_the_allocation(tmp_path, template, args, resubmitted):
    """A job started with `sbatch --nodes=8 ...` resubmits itself on 8 nodes, with the tasks,
    cores, memory, time, partition, account and name it ran with, whatever the script's lines."""
    env = stopped_cluster(tmp_path, EIGHT_NODES)
    r = subprocess.run(["bash", str(REPO / "jobs" / "slurm" / template), *args], env=env,
                       cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, (r.stdout, r.stderr)
    assert "exited with status 75" in r.stdout
    assert (tmp_path / "sbatch.args").read_text().splitlines() == [
        f"--export=ALL {SAME_ALLOCATION} jobs/slurm/{template} {resubmitted} RESUBMITS=1"]
    assert f"resubmitting: sbatch {SAME_ALLOCATION} jobs/slurm/{template}" in r.stdout


FAKE_SCONTROL = """#!/bin/bash
echo "$*" >> "$LOG/scontrol.args"
echo "JobId=$SLURM_JOB_ID JobName=grundy-periods-mpi"
echo "   Priority=1 Nice=0 Account=proj QOS=normal"
echo "   RunTime=00:10:00 TimeLimit=2-12:00:00 TimeMin=N/A"
"""


def test_time_limit_from_scontrol_and_memory_per_cpu(tmp_path):
    """Without SLURM_JOB_START_TIME and SLURM_JOB_END_TIME (Slurm before 20.11) the time limit
    comes from `scontrol show job`; memory asked per CPU is asked again per CPU; what the job
    did not ask for (tasks per node, QOS) is not named."""
    allocation = {k: v for k, v in EIGHT_NODES.items() if k not in (
        "SLURM_JOB_START_TIME", "SLURM_JOB_END_TIME", "SLURM_MEM_PER_NODE",
        "SLURM_NTASKS_PER_NODE", "SLURM_JOB_QOS")}
    env = stopped_cluster(tmp_path, dict(allocation, SLURM_MEM_PER_CPU="2000"))
    (tmp_path / "bin" / "scontrol").write_text(FAKE_SCONTROL)
    (tmp_path / "bin" / "scontrol").chmod(0o755)
    r = subprocess.run(["bash", str(REPO / "jobs" / "slurm" / "periods-mpi.sbatch"), "--rows",
                        "8"], env=env, cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, (r.stdout, r.stderr)
    assert (tmp_path / "scontrol.args").read_text().split() == ["show", "job", "4242"]
    assert (tmp_path / "sbatch.args").read_text().splitlines() == [
        "--export=ALL --nodes=8 --ntasks=8 --cpus-per-task=32 --partition=big --account=proj "
        "--job-name=grundy-periods-mpi --mem-per-cpu=2000M --time=2-12:00:00 "
        "jobs/slurm/periods-mpi.sbatch --rows 8 RESUBMITS=1"]


def test_resubmission_limit_and_missing_helper(tmp_path):
    """GRUNDY_MAX_RESUBMITS ends the chain with the job's status; a template copied without
    resubmit.sh says so before running anything."""
    env = stopped_cluster(tmp_path, EIGHT_NODES)
    script = str(REPO / "jobs" / "slurm" / "periods.sbatch")
    r = subprocess.run(["bash", script, "job.ini"], env=dict(env, GRUNDY_RESUBMITS="3",
                       GRUNDY_MAX_RESUBMITS="3"), cwd=tmp_path, capture_output=True, text=True,
                       timeout=60)
    assert r.returncode == 75
    assert "3 resubmissions already; not resubmitting" in r.stderr
    assert not (tmp_path / "sbatch.args").exists()

    (tmp_path / "elsewhere").mkdir()
    copy = tmp_path / "elsewhere" / "periods.sbatch"
    copy.write_text((REPO / "jobs" / "slurm" / "periods.sbatch").read_text())
    r = subprocess.run(["bash", str(copy), "job.ini"], env=dict(env, GRUNDY_SBATCH_SCRIPT=str(
                       copy)), cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert r.returncode == 2
    assert r.stderr == f"error: no resubmit.sh beside {copy}\n"
    assert len((tmp_path / "grundy.args").read_text().splitlines()) == 1  # the first job's only


def test_templates_pass_bash_and_shellcheck():
    templates = sorted((REPO / "jobs" / "slurm").glob("*.sbatch")) + [
        REPO / "jobs" / "slurm" / "resubmit.sh"]
    assert len(templates) == 5
    for t in templates:
        r = subprocess.run(["bash", "-n", str(t)], capture_output=True, text=True)
        assert r.returncode == 0, (t, r.stderr)
    if shutil.which("shellcheck") is None:
        pytest.skip("no shellcheck (bash -n passed)")
    r = subprocess.run(["shellcheck", "-x", *map(str, templates)], cwd=REPO, capture_output=True,
                       text=True)
    assert r.returncode == 0, r.stdout
