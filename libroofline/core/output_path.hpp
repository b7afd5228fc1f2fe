#pragma once
// Where a process saves its recording when several processes of one job profile at once
// (torchrun, mpirun, Slurm): output path patterns and the launcher's rank (writeFileOnce in
// core/atomic_file.hpp never replaces a file another process of the same run wrote). No CUDA.
#include <functional>
#include <string>

namespace roofline::core {

/// Reads an environment variable (nullptr: unset); std::getenv outside tests.
using EnvLookup = std::function<const char*(const char*)>;

/// Who this process is within its job.
struct ProcessIdentity {
    std::string host;
    long pid = 0;
    int rank = -1;            ///< global rank from the launcher's variables; -1: none set
    int localRank = -1;       ///< rank on this host; -1: none set
    int worldSize = -1;       ///< ranks in the job; -1: none set
    std::string rankVariable; ///< the variable `rank` came from ("RANK", "OMPI_COMM_WORLD_RANK")
};

/// This process: host name, pid, and the first rank variable set among RANK (torchrun),
/// OMPI_COMM_WORLD_RANK (Open MPI), PMI_RANK / PMIX_RANK (MPICH, Intel MPI, PMIx) and
/// SLURM_PROCID (srun); LOCAL_RANK, OMPI_COMM_WORLD_LOCAL_RANK, MPI_LOCALRANKID, SLURM_LOCALID;
/// WORLD_SIZE, OMPI_COMM_WORLD_SIZE, PMI_SIZE, SLURM_NTASKS. A variable that is not a
/// non-negative integer is ignored.
ProcessIdentity currentProcess(const EnvLookup& env);

/// Expands an output path pattern: %p the pid, %h the host name, %r the launcher's rank, %q{VAR}
/// the value of the environment variable VAR, %% a '%'. Throws Error(InvalidArgument) naming the
/// pattern and the fix for an unknown %-sequence, an unset %q{VAR} or %r without a rank variable.
std::string expandOutputPattern(const std::string& pattern, const ProcessIdentity& process,
                                const EnvLookup& env);

/// "rank 3 of 8 (RANK), local rank 1, on node7, pid 4242"; "pid 4242 on node7" without a rank.
std::string describe(const ProcessIdentity& process);

/// The output pattern when none is given (`roofline run`): "roofline-rank%r.rfl" under a launcher
/// that sets a rank, else "roofline-%h-%p.rfl": never the same file for two processes.
std::string defaultOutputPattern(const ProcessIdentity& process);

/// A sampled job's recording (written as the job runs, so there is always one): `path` (already
/// expanded) with a replay recording's ".rfl" ending taken as ".rfs", or the default pattern's
/// name, expanded, when `path` is empty.
std::string sampledOutputPath(const std::string& path, const ProcessIdentity& process,
                              const EnvLookup& env);

} // namespace roofline::core
