#include "kernels/solve_host.hpp"

#include <climits>
#include <stdexcept>
#include <string>

namespace ikwb::cuda {

void check_gpu_support(const IkProblem& problem, const SolverSettings& s) {
  for (int oi = 0; oi < problem.objective_count(); ++oi) {
    const Objective& o = problem.objective(oi);
    if (o.params.type == ObjectiveType::kCustom)
      throw std::invalid_argument(
          "CUDA backend: custom objectives run on the CPU only (objective " + std::to_string(oi) +
          (o.name.empty() ? "" : " '" + o.name + "'") + "); use the CPU backend for this problem");
  }
  if (s.optimizer != Optimizer::kLevenbergMarquardt)
    throw std::invalid_argument(
        "CUDA backend: only Levenberg-Marquardt runs on the GPU; L-BFGS needs the CPU backend");
  long long rows = (long long)problem.problem_count() * s.n_seeds;
  if (rows > INT_MAX / 2)
    throw std::invalid_argument("CUDA backend: problem_count x n_seeds = " + std::to_string(rows) +
                                " rows is too many for one solve");
}

}  // namespace ikwb::cuda
