"""jobs/slurm/periods.sbatch and compute.sbatch run by bash outside Slurm, with a fake grundy and
a fake sbatch: threads come from SLURM_CPUS_PER_TASK, SIGTERM reaches grundy, exit status 75
(stopped, resumable) resubmits the job, and the next run adds --resume."""

import os
import signal
import subprocess
import time

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
"""


def fake_cluster(tmp_path):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name, text in (("grundy", FAKE_GRUNDY), ("sbatch", FAKE_SBATCH)):
        (bin_dir / name).write_text(text)
        (bin_dir / name).chmod(0o755)
    (tmp_path / "job.ini").write_text("[periods]\nrows = 8\n")
    env = dict(os.environ, PATH=f"{bin_dir}:{os.environ['PATH']}", LOG=str(tmp_path),
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
    assert resubmitted == ["--export=ALL jobs/slurm/periods.sbatch job.ini --rows 8 RESUBMITS=1"]

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
        "--export=ALL jobs/slurm/compute.sbatch job.ini --threads 3 --resume RESUBMITS=1"]

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
        "--export=ALL jobs/slurm/compute.sbatch job.ini --resume RESUBMITS=1"]

    (tmp_path / "bin" / "grundy").write_text("#!/bin/bash\nexit 2\n")
    r = subprocess.run(["bash", script, "job.ini"], env=env, cwd=tmp_path, capture_output=True,
                       text=True, timeout=60)
    assert r.returncode == 2
    assert len((tmp_path / "sbatch.args").read_text().splitlines()) == 1


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
        "--export=ALL jobs/slurm/periods-mpi.sbatch --rows 8 RESUBMITS=1"]

    r = subprocess.run(["bash", script, "--rows", "8"], env=dict(env, GRUNDY_RESUBMITS="1"),
                       cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "srun.args").read_text().splitlines()[1].endswith("--threads 7 --resume")
    assert len((tmp_path / "sbatch.args").read_text().splitlines()) == 1
