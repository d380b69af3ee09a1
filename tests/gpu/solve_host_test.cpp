// The CUDA solve's host-side checks (kernels/solve_host.cu): what needs the CPU backend. Needs no
// GPU. The kernel bodies themselves run on the host in tests/solver/row_driver_test.cpp.
#include "kernels/solve_host.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "gpu_test_util.hpp"

namespace ikwb {
namespace {

TEST(SolveHost, UnsupportedProblemsNeedTheCpu) {
  test::PandaHand pp;
  IkProblem problem(pp.model, 1);
  problem.add_position(pp.tcp);
  SolverSettings s;
  s.optimizer = Optimizer::kLbfgs;
  EXPECT_THROW(cuda::check_gpu_support(problem, s), std::invalid_argument);
  s.optimizer = Optimizer::kLevenbergMarquardt;
  EXPECT_NO_THROW(cuda::check_gpu_support(problem, s));
  problem.add_custom(make_custom_objective(
      1, [](const Model&, const auto* q, const auto*, auto* r) { r[0] = q[0]; }));
  try {
    cuda::check_gpu_support(problem, s);
    ADD_FAILURE() << "custom objectives must be refused";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("custom"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace ikwb
