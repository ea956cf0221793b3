# shellcheck shell=bash
# Sourced by the Slurm templates beside it (not a job itself): a job that stopped with everything
# needed to continue (status 75) submits itself again, on the same allocation it was given.
#
# Options given to sbatch on its command line (`sbatch --nodes=8 periods-mpi.sbatch ...`) hold
# for that job only: a plain `sbatch periods-mpi.sbatch` from inside it would fall back to the
# script's #SBATCH lines (4 nodes), and grundy-mpi refuses a checkpoint of 8 ranks on 4. So the
# job's own values, which Slurm puts in its environment, are given to sbatch again explicitly:
#
#   SLURM_JOB_NUM_NODES      --nodes             SLURM_NTASKS         --ntasks
#   SLURM_NTASKS_PER_NODE    --ntasks-per-node   SLURM_CPUS_PER_TASK  --cpus-per-task
#   SLURM_MEM_PER_NODE       --mem (MB)          SLURM_MEM_PER_CPU    --mem-per-cpu (MB)
#   SLURM_JOB_PARTITION      --partition         SLURM_JOB_ACCOUNT    --account
#   SLURM_JOB_QOS            --qos               SLURM_JOB_NAME       --job-name
#   SLURM_JOB_END_TIME - SLURM_JOB_START_TIME (Slurm 20.11 and later), else the TimeLimit of
#   `scontrol show job`: --time, in minutes
#
# Slurm sets each only when the job asked for it (SLURM_NTASKS_PER_NODE only after
# --ntasks-per-node, ...); an unset one is not passed. Not recovered, as no variable holds them:
# --output, --error, --signal, --mail-*, --constraint, --exclusive, --gres and the like given on
# the command line only. Write those in the template's #SBATCH lines, which every resubmitted job
# reads again. The partition is the one the job ran in, even if several were allowed.

# Prints the sbatch options of this job's allocation, one per line.
same_allocation() {
  local var option
  for var in SLURM_JOB_NUM_NODES:--nodes SLURM_NTASKS:--ntasks \
             SLURM_NTASKS_PER_NODE:--ntasks-per-node SLURM_CPUS_PER_TASK:--cpus-per-task \
             SLURM_JOB_PARTITION:--partition SLURM_JOB_ACCOUNT:--account SLURM_JOB_QOS:--qos \
             SLURM_JOB_NAME:--job-name; do
    option=${var#*:}
    var=${var%%:*}
    [[ -n ${!var:-} ]] && echo "$option=${!var}"
  done
  # Slurm sets one of the two, as the job asked.
  if [[ -n ${SLURM_MEM_PER_NODE:-} ]]; then
    echo "--mem=${SLURM_MEM_PER_NODE}M"
  elif [[ -n ${SLURM_MEM_PER_CPU:-} ]]; then
    echo "--mem-per-cpu=${SLURM_MEM_PER_CPU}M"
  fi
  # A job without a time limit ends "in a year": no --time then.
  if [[ ${SLURM_JOB_START_TIME:-} =~ ^[0-9]+$ && ${SLURM_JOB_END_TIME:-} =~ ^[0-9]+$ ]]; then
    local seconds=$(( SLURM_JOB_END_TIME - SLURM_JOB_START_TIME ))
    (( seconds > 0 && seconds < 365 * 86400 )) && echo "--time=$(( (seconds + 59) / 60 ))"
  elif [[ -n ${SLURM_JOB_ID:-} ]] && command -v scontrol > /dev/null; then
    local limit
    limit=$(scontrol show job "$SLURM_JOB_ID" 2> /dev/null | grep -o 'TimeLimit=[0-9][-0-9:]*')
    [[ -n $limit ]] && echo "--time=${limit#TimeLimit=}"
  fi
  return 0
}

# resubmit STATUS ARGS...: submits $SELF again with ARGS, the allocation of this job and
# GRUNDY_RESUBMITS one higher, unless $MAX_RESUBMITS resubmissions were made already. Returns 0
# once submitted, else STATUS (the job's own exit status).
resubmit() {
  local status=$1 allocation
  shift
  if (( RESUBMITS >= MAX_RESUBMITS )); then
    echo "error: stopped with status $status, but $RESUBMITS resubmissions already;" \
         "not resubmitting" >&2
    return "$status"
  fi
  mapfile -t allocation < <(same_allocation)
  echo "$(date -Is) resubmitting: sbatch ${allocation[*]} $SELF $*"
  GRUNDY_RESUBMITS=$((RESUBMITS + 1)) sbatch --export=ALL "${allocation[@]}" "$SELF" "$@" ||
    { echo "error: sbatch failed" >&2; return "$status"; }
}
